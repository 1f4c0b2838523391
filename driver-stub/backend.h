/* backend.h — what the driver stub (libcuda.so.1) needs from an execution backend.
 *
 * The stub owns everything CUDA-visible: handles, contexts and their stacks, the allocation table, streams,
 * events, sticky errors, error codes, PTX compilation (p2n_compile) and fatbin parsing. A backend only runs
 * code and moves bytes. Each backend is one `p2n_backend_ops` table; P2N_BACKEND=cpu|hip|level0|opencl|auto
 * picks one at cuInit (driver-stub/init.c, `p2n_backends[]`). Today only "cpu" is implemented; the others are
 * listed with ops == NULL so selecting them gives a clear message and CUDA_ERROR_NO_DEVICE.
 *
 * Conventions:
 *  - Every function returns a CUresult (CUDA_SUCCESS or the code the stub hands to the application).
 *  - `char **err` (may be NULL) receives a malloc'd message the stub forwards (JIT log, stderr, ...).
 *  - Device pointers are 64-bit numbers in the application's address space. The stub keeps the allocation
 *    table; the backend only provides the storage. For backends with unified memory (CPU) device pointers
 *    are host pointers and `host_access` is 1: the stub then copies with memcpy and needs no copy hooks.
 *  - Code objects: the stub compiles PTX with p2n_compile(arch = ops->code_arch) and hands the bytes to
 *    module_load. A fatbin `.p2n_native` payload for `code_arch` is handed over the same way.
 *  - Launches run to completion in `launch`; the stub gives each stream the application created a thread of
 *    its own that calls it (stream_queue.c), so `launch`, the copy hooks and `memset` may be called from
 *    several threads at once.
 */
#ifndef P2N_DRIVER_BACKEND_H
#define P2N_DRIVER_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_types.h"

/* the backend's bytes of a CUipcMemHandle (64 bytes; the stub keeps the rest) */
#define P2N_BK_IPC_BYTES 40

typedef struct p2n_bk_module p2n_bk_module;   /* backend-owned: one loaded code object */
typedef struct p2n_bk_kernel p2n_bk_kernel;   /* backend-owned: one kernel of a module */

/* Facts about the device the backend drives (filled once at init). */
typedef struct p2n_bk_device_info {
    char name[256];
    uint64_t total_mem;
    int multiprocessor_count;
    int clock_rate_khz;
    int max_threads_per_block;
    int max_shared_per_block;        /* default limit (48 KiB) */
    int max_shared_per_block_optin;  /* with cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) */
    int max_shared_per_sm;
    int warp_size;
    int integrated;                  /* 1: device memory is host memory */
    int host_access;                 /* 1: device pointers are directly dereferenceable host pointers */
    int reads_host_memory;           /* 1: kernels dereference any host pointer, malloc'ed memory too (what
                                      * cuMemHostRegister needs: the registered pointer is the device pointer) */
    int cooperative_launch;          /* 1: launches may be cooperative (P2N_LAUNCH_COOPERATIVE: every block of the
                                      * grid runs at once, ctx grid_workspace for CUDA's grid.sync()); 0: the stub
                                      * refuses them with CUDA_ERROR_NOT_SUPPORTED (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH) */
    uint8_t uuid[16];
    /* PTX compiled at load time for this device: what it lacks (p2n_options.device_lacks, P2N_LACKS_*) and
     * whether a kernel it cannot run fails at launch (CUDA_ERROR_NOT_SUPPORTED) instead of the module load
     * (p2n_options.defer_unsupported) */
    unsigned device_lacks;
    int defer_unsupported;
} p2n_bk_device_info;

/* Kernel facts (cuFuncGetAttribute, parameter packing, launch checks). */
typedef struct p2n_bk_kernel_info {
    const char *name;
    unsigned num_params;
    const uint32_t *param_offsets;
    const uint32_t *param_sizes;
    uint32_t param_buffer_size;
    uint32_t static_shared_bytes;
    uint32_t local_bytes;
    uint32_t max_threads_per_block;
    uint32_t reqntid[3];
    int cluster_launch;              /* .explicitcluster without .reqnctapercluster: cuLaunchKernel (no cluster
                                      * dimensions) fails with CUDA_ERROR_INVALID_CLUSTER_SIZE, as on NVIDIA */
    int cluster_dims_fixed;          /* .reqnctapercluster: every launch is a cluster launch */
    uint32_t num_regs;               /* best estimate; 0 = unknown */
    const char *execution;           /* how the backend runs the kernel's threads, in words (P2N_VERBOSE); NULL: - */
} p2n_bk_kernel_info;

typedef struct p2n_bk_launch {
    uint32_t grid[3], block[3];
    uint32_t dynamic_shared_bytes;
    size_t stack_bytes;              /* CU_LIMIT_STACK_SIZE if the program set it, else 0 (backend default) */
    const void *params;              /* packed as p2n_bk_kernel_info says */
    void (*printf_sink)(void *user, const char *text, size_t len);
    void *printf_user;
    uint32_t launch_flags;           /* P2N_LAUNCH_* (abi/host_abi.h): P2N_LAUNCH_CLUSTER for a cluster launch; the
                                      * kernels read it (ctx launch_flags; SPIR-V: error record SPIRV_REC_LAUNCH_OFF);
                                      * P2N_LAUNCH_COOPERATIVE only where the device info says cooperative_launch */
} p2n_bk_launch;

typedef struct p2n_backend_ops {
    const char *name;                /* "cpu", "hip", ... (P2N_BACKEND value) */
    const char *code_arch;           /* p2n_compile arch of this backend's code objects ("host", "gfx942") */
    /* arch for PTX compiled at load time, when it differs (the CPU backend: "host-native", code for this very
     * machine); NULL = code_arch. Precompiled native code is matched against code_arch. */
    const char *jit_arch;

    CUresult (*init)(p2n_bk_device_info *info, char **err);
    int (*device_count)(void);

    /* memory: storage only, bookkeeping is the stub's */
    CUresult (*mem_alloc)(size_t size, void **out);
    void (*mem_free)(void *p);
    CUresult (*mem_host_alloc)(size_t size, void **out);   /* pinned host memory */
    void (*mem_host_free)(void *p);
    /* copies/fills the backend does itself (required without host_access; level0 has them for module globals,
     * which only the device reaches); NULL: the stub uses memcpy/memset */
    CUresult (*memcpy_htod)(uint64_t dst, const void *src, size_t n);
    CUresult (*memcpy_dtoh)(void *dst, uint64_t src, size_t n);
    CUresult (*memcpy_dtod)(uint64_t dst, uint64_t src, size_t n);
    CUresult (*memset)(uint64_t dst, const void *pattern, unsigned pattern_size, size_t count);

    /* sharing device memory with another process (cuIpcGetMemHandle / cuIpcOpenMemHandle): the backend's part of
     * the handle, P2N_BK_IPC_BYTES opaque bytes naming [base, base+size) of device memory; NULL where the backend
     * cannot share its memory (the stub answers CUDA_ERROR_NOT_SUPPORTED). ipc_import maps the memory that
     * process `pid` exported; ipc_unmap undoes one ipc_import. */
    CUresult (*ipc_export)(uint64_t base, size_t size, uint8_t out[]);
    CUresult (*ipc_import)(int pid, const uint8_t in[], size_t size, uint64_t *base, char **err);
    void (*ipc_unmap)(uint64_t base);

    /* code */
    CUresult (*module_load)(const void *image, size_t size, p2n_bk_module **out, char **err);
    void (*module_unload)(p2n_bk_module *m);
    CUresult (*module_get_kernel)(p2n_bk_module *m, const char *name, p2n_bk_kernel **out);
    CUresult (*module_get_global)(p2n_bk_module *m, const char *name, uint64_t *addr, size_t *size);
    void (*kernel_info)(const p2n_bk_kernel *k, p2n_bk_kernel_info *out);

    /* execution: returns when the grid finished. CUDA_ERROR_LAUNCH_FAILED / ASSERT / ILLEGAL_ADDRESS are
     * sticky (the stub poisons the context); CUDA_ERROR_INVALID_VALUE / LAUNCH_OUT_OF_RESOURCES are not. */
    CUresult (*launch)(p2n_bk_kernel *k, const p2n_bk_launch *l, char **err);
    CUresult (*synchronize)(void);   /* may be NULL (everything is synchronous) */
} p2n_backend_ops;

/* The device heap's size (CU_LIMIT_MALLOC_HEAP_SIZE, default 8 MiB) for a backend that builds its heap now, at
 * the first launch of a kernel that calls malloc/free (driver-stub/limits.c); from then on the limit is fixed and
 * cuCtxSetLimit of it returns CUDA_ERROR_INVALID_VALUE, as CUDA does. */
size_t p2n_drv_heap_claim(void);

/* Backends compiled into this libcuda.so.1. */
extern const p2n_backend_ops p2n_backend_cpu;

/* Backends' error messages: a malloc'ed, formatted copy for the *err out-parameters (driver-stub/errors.c). */
char *p2n_bk_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
