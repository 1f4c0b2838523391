/* spirv_launch.h — the launch ABI of ptx2native's SPIR-V kernels (abi/spirv_meta.h, targets/spirv/spirv_trap.c,
 * spirv_heap.c), one layer the OpenCL and Level Zero backends (and any later SPIR-V runtime) call, so that they keep
 * only the calls of their own runtime (clSetKernelArg / zeKernelSetArgumentValue, their copies):
 *   - the argument list of a launch, in the kernels' order;
 *   - the error record's words written before a launch (start time, launch flags, heap address);
 *   - the device heap (size claimed from cuCtxSetLimit, header initialised);
 *   - the record's report after a launch (read, clear, p2n_rec_report).
 * CUDA-level launch checks and the packed parameter buffer are launch.c's (the same for every backend). */
#ifndef P2N_DRIVER_SPIRV_LAUNCH_H
#define P2N_DRIVER_SPIRV_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "spirv_meta.h"
#include "error_report.h"

/* copies n bytes host <-> a record or heap buffer of the backend (SVM, shared USM); CUDA_SUCCESS or an error */
typedef CUresult (*p2n_spv_copy_fn)(void *dst, const void *src, size_t n);

typedef enum p2n_spv_arg_kind {
    P2N_SPV_ARG_VALUE,   /* `size` bytes at `value` */
    P2N_SPV_ARG_LOCAL,   /* a __local window of `size` bytes (no value) */
    P2N_SPV_ARG_POINTER, /* the device pointer `ptr` (OpenCL: an SVM pointer argument; Level Zero: its value) */
} p2n_spv_arg_kind;

typedef struct p2n_spv_arg {
    p2n_spv_arg_kind kind;
    size_t size;
    const void *value;
    void *ptr;
} p2n_spv_arg;

typedef struct p2n_spv_args {
    unsigned n;
    uint32_t dyn; /* the dynamic-shared byte count's value (an argument points here: do not copy the struct) */
    p2n_spv_arg a[64 + 4];
} p2n_spv_args;

/* The arguments of a launch of kernel km, in order: its nparams parameters (from the packed buffer l->params,
 * at km->offs / km->sizes), the __local window (static + dynamic shared bytes; 16 when that is 0), the dynamic-shared
 * byte count (u32), the error record `rec` when the module has one ("p2n:trap"), the module-variables buffer `gbuf`
 * when it has one ("p2n:gbuf"). */
void p2n_spv_launch_args(const spirv_kernel_meta *km, const p2n_bk_launch *l, void *rec, void *gbuf,
                         p2n_spv_args *out);

/* Before a launch: writes the record's launch start time (%globaltimer's base, SPIRV_REC_TIME_OFF), the launch
 * flags (SPIRV_REC_LAUNCH_OFF) and, when `heap` is not NULL, the heap's address (SPIRV_REC_HEAP_OFF) through
 * `write`; the first failing copy's result. */
CUresult p2n_spv_record_prepare(void *rec, const p2n_bk_launch *l, void *heap, p2n_spv_copy_fn write);

/* The device heap of a "p2n:heap" module's launches, made at the first one: SPIRV_HEAP_HDR + the heap size
 * (CU_LIMIT_MALLOC_HEAP_SIZE, claimed: fixed from now on) bytes from `alloc`, the header written through `write`.
 * On failure *err names the cause (freed with `release` if it got that far) and the result is OUT_OF_MEMORY. */
CUresult p2n_spv_heap_create(CUresult (*alloc)(size_t size, void **out), void (*release)(void *p),
                             p2n_spv_copy_fn write, void **out, char **err);

/* After a launch: reads the record's error words through `read`; when a work-item failed, clears them through
 * `write` and reports the first failure (p2n_rec_report: `read_dev` reads the strings an assert names). A record
 * that cannot be read counts as no failure. */
CUresult p2n_spv_record_check(void *rec, const char *kernel, p2n_spv_copy_fn read, p2n_spv_copy_fn write,
                              p2n_rec_read_fn read_dev, char **err);

#endif
