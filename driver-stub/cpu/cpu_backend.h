/* cpu_backend.h — the CPU execution backend as the driver stub sees it.
 *
 * The host target (`ptx2native --offload-arch=host`) produces an ELF shared object. This backend loads it
 * from memory (each load is a separate instance: globals are per module, as on a GPU), looks kernels and
 * globals up by name, and launches grids with exact CUDA execution semantics: every CUDA thread makes
 * independent progress (fibers), barriers with ids and counts, 32-lane warp collectives, per-block shared
 * memory, per-thread local memory, printf, trap/assert reported as a launch error. Blocks run in parallel on
 * all cores; P2N_CPU_THREADS=1 gives a deterministic single-threaded mode.
 *
 * The driver stub (driver-stub/) owns contexts, device memory bookkeeping, streams and error codes; it calls
 * only the functions below. Device memory on the CPU backend is host memory from cpu_arena.h (mmap'ed, guarded,
 * never the malloc heap).
 */
#ifndef P2N_CPU_BACKEND_H
#define P2N_CPU_BACKEND_H

#include <stddef.h>
#include <stdint.h>

/* the clock rate the device reports (CU_DEVICE_ATTRIBUTE_CLOCK_RATE), which %clock / %clock64 count at */
enum { P2N_CPU_CLOCK_KHZ = 2000000 };

typedef struct cpu_module cpu_module;
typedef struct cpu_kernel cpu_kernel;

typedef enum cpu_status {
    CPU_OK = 0,
    CPU_ERR_INVALID_IMAGE,   /* not a host code object of ours (CUDA_ERROR_INVALID_IMAGE) */
    CPU_ERR_NOT_FOUND,       /* no kernel/global of that name (CUDA_ERROR_NOT_FOUND) */
    CPU_ERR_INVALID_VALUE,   /* bad launch configuration (CUDA_ERROR_INVALID_VALUE) */
    CPU_ERR_OUT_OF_RESOURCES,/* too many threads per block, too much shared memory (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) */
    CPU_ERR_LAUNCH_FAILED,   /* trap, __assertfail, illegal instruction reached (CUDA_ERROR_LAUNCH_FAILED / ASSERT) */
    CPU_ERR_ASSERT,          /* __assertfail (CUDA_ERROR_ASSERT) */
    CPU_ERR_NO_MEMORY,
    CPU_ERR_ILLEGAL_ADDRESS, /* kernel code faulted on a memory access (CUDA_ERROR_ILLEGAL_ADDRESS, sticky) */
    CPU_ERR_NOT_SUPPORTED,   /* a kernel stubbed by --defer-unsupported was launched (CUDA_ERROR_NOT_SUPPORTED) */
    CPU_ERR_MISALIGNED_ADDRESS, /* kernel code found a misaligned access (CUDA_ERROR_MISALIGNED_ADDRESS, sticky) */
    CPU_ERR_ILLEGAL_INSTRUCTION, /* an instruction NVIDIA refuses in this launch (CUDA_ERROR_ILLEGAL_INSTRUCTION, sticky) */
} cpu_status;

/* Loads a host code object (the bytes `ptx2native --offload-arch=host` wrote). `error` (may be NULL) gets a
 * malloc'd message on failure. */
cpu_status cpu_module_load(const void *image, size_t size, cpu_module **out, char **error);
void cpu_module_unload(cpu_module *m);

cpu_status cpu_module_get_kernel(cpu_module *m, const char *name, cpu_kernel **out);
cpu_status cpu_module_get_global(cpu_module *m, const char *name, void **addr, size_t *size);

/* Kernel facts for cuFuncGetAttribute and for packing parameters. */
typedef struct cpu_kernel_info {
    const char *name;
    unsigned num_params;
    const uint32_t *param_offsets;  /* byte offset of each parameter in the parameter buffer */
    const uint32_t *param_sizes;
    uint32_t param_buffer_size;
    uint32_t static_shared_bytes;
    uint32_t local_bytes;           /* per-thread .local frame */
    uint32_t max_threads_per_block; /* from .maxntid/.reqntid, else 1024 */
    uint32_t reqntid[3];            /* 0 when not required */
    int cluster_launch;             /* P2N_KERNEL_CLUSTER_LAUNCH: launches must give cluster dimensions */
    int cluster_dims_fixed;         /* P2N_KERNEL_CLUSTER_DIMS: .reqnctapercluster, every launch is a cluster launch */
    const char *execution;          /* how its threads run (cpu_exec.h), in words, for P2N_VERBOSE */
} cpu_kernel_info;
void cpu_kernel_get_info(const cpu_kernel *k, cpu_kernel_info *info);

typedef struct cpu_launch {
    uint32_t grid[3], block[3];
    uint32_t dynamic_shared_bytes;
    size_t stack_bytes;             /* per-thread stack the program asked for (CU_LIMIT_STACK_SIZE), 0 = default */
    const void *params;             /* packed parameter buffer, laid out as cpu_kernel_info says */
    /* printf output goes here (the driver stub forwards it to stdout at synchronisation, as CUDA does) */
    void (*printf_sink)(void *user, const char *text, size_t len);
    void *printf_user;
    uint32_t launch_flags;          /* P2N_LAUNCH_* (host_abi.h), every thread's ctx launch_flags */
} cpu_launch;

/* Runs a whole grid to completion (the stub provides asynchrony on top). On CPU_ERR_LAUNCH_FAILED or
 * CPU_ERR_ASSERT, `error` gets a message naming the kernel, block and thread. */
cpu_status cpu_launch_kernel(cpu_kernel *k, const cpu_launch *launch, char **error);

#endif
