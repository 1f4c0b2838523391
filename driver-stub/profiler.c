/* profiler.c — cuProfilerStart/Stop: no profiling tool attaches to this driver, so enabling and disabling
 * collection changes nothing; they succeed in a context, as NVIDIA's do with no tool attached (samples call
 * cudaProfilerStart/Stop unconditionally and stop on an error). cuProfilerInitialize answers
 * CUDA_ERROR_NOT_SUPPORTED, which is what CUDA 12+ documents for every call of it. */
#include "internal.h"

CUresult cuProfilerStart(void)
{
    p2n_ctx *c;
    return p2n_drv_get_ctx_nosticky(NULL, &c);
}

CUresult cuProfilerStop(void)
{
    p2n_ctx *c;
    return p2n_drv_get_ctx_nosticky(NULL, &c);
}

CUresult cuProfilerInitialize(const char *configFile, const char *outputFile, CUoutput_mode outputMode)
{
    (void)configFile;
    (void)outputFile;
    (void)outputMode;
    return CUDA_ERROR_NOT_SUPPORTED;
}
