/* spirv_meta.h — the kernel ABI metadata ptx2native writes into its SPIR-V (OpModuleProcessed "p2n:..."
 * strings) and the runtimes (driver-stub/opencl, driver-stub/level0) read. No LLVM dependency. */
#ifndef P2N_SPIRV_META_H
#define P2N_SPIRV_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the kernel ABI metadata the runtimes read (driver-stub/opencl, driver-stub/level0) */
#define P2N_SPIRV_META_PREFIX "p2n:"
typedef struct spirv_kernel_meta {
    char name[256];
    uint32_t nparams;
    uint32_t pbsize;
    uint32_t static_smem;
    uint32_t offs[64], sizes[64];
    int cluster_launch; /* "p2n:xcluster NAME" (after its kernel line): .explicitcluster without
                         * .reqnctapercluster, a launch must give cluster dimensions (p2n_bk_kernel_info) */
    int cluster_dims_fixed; /* "p2n:rcluster NAME": .reqnctapercluster, every launch is a cluster launch */
} spirv_kernel_meta;
typedef struct spirv_global_meta {
    char name[256];
    uint64_t size;
    uint32_t index; /* slot in the __p2n_globals kernel's output */
} spirv_global_meta;
typedef struct spirv_module_meta {
    unsigned nkernels, nglobals;
    spirv_kernel_meta *kernels;
    spirv_global_meta *globals;
    unsigned version;    /* 0x10400 etc. */
    int needs_subgroups; /* uses sub-group operations */
    int trap_arg;        /* "p2n:trap": every kernel takes a trailing __global uint[32] error record (trap /
                          * assert / clocks, targets/spirv/spirv_trap.c) after the dynamic-shared byte count */
    int heap;            /* "p2n:heap": calls device malloc/free; the runtime writes its heap's address into the
                          * record (SPIRV_REC_HEAP_OFF) before each launch (the module also has trap_arg) */
    uint64_t gbuf_bytes; /* "p2n:gbuf N" (compiled with P2N_LACKS_PROGRAM_GLOBALS, targets/spirv/spirv_globals.c):
                          * the module variables live in an N-byte buffer the runtime allocates, passed as every
                          * kernel's last argument (after the error record) and as __p2n_globals' second one,
                          * which initialises it */
} spirv_module_meta;
/* The error record (targets/spirv/spirv_trap.c): its size (its first P2N_REC_ERR_WORDS words: abi/error_record.h),
 * the byte offset of the u64 launch start time (ns) the runtime writes before each launch, and of the u64 clock
 * counter the kernels increment. */
enum { SPIRV_REC_BYTES = 128, SPIRV_REC_TIME_OFF = 64, SPIRV_REC_CLOCK_OFF = 72,
       SPIRV_REC_HEAP_OFF = 80 /* u64: the device heap's address, written before each launch of a "p2n:heap" module */,
       SPIRV_REC_LAUNCH_OFF = 88 /* u32: the launch's P2N_LAUNCH_* flags (abi/host_abi.h), written before
                                  * each launch */ };
/* The device heap (targets/spirv/spirv_heap.c): one buffer of SPIRV_HEAP_HDR + heap-size bytes, 128-aligned. The
 * runtime zeroes the header and sets the u64 at SPIRV_HEAP_BUMP to SPIRV_HEAP_HDR (next free byte) and the one at
 * SPIRV_HEAP_END to SPIRV_HEAP_HDR + heap size; SPIRV_HEAP_HEADS holds one u64 free-list head per size class. */
enum { SPIRV_HEAP_BUMP = 0, SPIRV_HEAP_END = 8, SPIRV_HEAP_HEADS = 16, SPIRV_HEAP_CLASSES = 41, SPIRV_HEAP_HDR = 1024,
       SPIRV_HEAP_MAGIC = 0x70326e68 };
/* Parses the metadata strings of a module we produced; false if it is not one (or damaged). */
bool spirv_read_meta(const uint32_t *words, size_t nwords, spirv_module_meta *out);
void spirv_meta_free(spirv_module_meta *m);

#endif
