/* error_report.h — the error record of ptx2native's GPU kernels (abi/error_record.h), shared by the OpenCL, Level
 * Zero and HIP backends: the first trap / assert / fault / deferred-unsupported report read after a launch, and
 * (SPIR-V) the launch start time written before it. */
#ifndef P2N_DRIVER_ERROR_REPORT_H
#define P2N_DRIVER_ERROR_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_types.h"
#include "error_record.h"
#include "spirv_meta.h"

/* copies n bytes of device memory at src to dst (the strings an assert names live in module globals); ctx: the
 * caller's (the HIP backend reads them from its copy of the code object) */
typedef CUresult (*p2n_rec_read_fn)(void *ctx, void *dst, uint64_t src, size_t n);

/* now, in ns (CLOCK_REALTIME, like CUDA's %globaltimer): the value of record word pair SPIRV_REC_TIME_OFF */
uint64_t p2n_rec_now_ns(void);

/* r: the first P2N_REC_ERR_WORDS words of the record after a launch of `kernel`. CUDA_SUCCESS when no thread
 * failed; else the CUDA error of the first failure's code (abi/error_record.h P2N_REC_*: LAUNCH_FAILED, ASSERT with
 * the CPU runtime's message on stderr, NOT_SUPPORTED, ILLEGAL_ADDRESS, MISALIGNED_ADDRESS, ILLEGAL_INSTRUCTION) and
 * its message in *err. The caller clears the words. */
CUresult p2n_rec_report(const uint32_t *r, const char *kernel, p2n_rec_read_fn read, void *read_ctx, char **err);

#endif
