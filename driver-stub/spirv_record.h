/* spirv_record.h — the error record of ptx2native's SPIR-V kernels (layout: targets/spirv/spirv_trap.c), shared
 * by the OpenCL and Level Zero backends: the launch start time written before a launch, the first trap / assert /
 * deferred-unsupported report read after it. */
#ifndef P2N_DRIVER_SPIRV_RECORD_H
#define P2N_DRIVER_SPIRV_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_types.h"
#include "spirv_meta.h"

/* copies n bytes of device memory at src to dst (the strings an assert names live in module globals) */
typedef CUresult (*p2n_rec_read_fn)(void *dst, uint64_t src, size_t n);

/* now, in ns (CLOCK_REALTIME, like CUDA's %globaltimer): the value of record word pair SPIRV_REC_TIME_OFF */
uint64_t p2n_rec_now_ns(void);

/* r: the first SPIRV_REC_ERR_WORDS words of the record after a launch of `kernel`. CUDA_SUCCESS when no work-item
 * failed; else the CUDA error of the first failure (1 trap: LAUNCH_FAILED, 2 assert: ASSERT with the CPU runtime's
 * message on stderr, 3 deferred unsupported kernel: NOT_SUPPORTED, 4 null-page or out-of-range .trap surface access:
 * ILLEGAL_ADDRESS, 5 misaligned surface access: MISALIGNED_ADDRESS, 6 a shared::cluster async operation outside a
 * cluster launch: ILLEGAL_INSTRUCTION) and its message in *err. The caller clears
 * the words. */
CUresult p2n_rec_report(const uint32_t *r, const char *kernel, p2n_rec_read_fn read, char **err);

#endif
