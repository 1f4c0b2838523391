/* Contexts: created contexts, the context stack, primary contexts, misuse error codes. */
#include <stdint.h>

#include "check.h"

int main(void)
{
    MUST(cuInit(0));
    CUcontext c = (CUcontext)1, c1, c2, got;
    CUdevice dev = -1;
    CUdeviceptr p;
    unsigned flags = 0;
    int active = -1;

    /* no current context */
    OK(cuCtxGetCurrent(&c));
    TRUE(c == NULL);
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuMemAlloc(&p, 64), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxGetDevice(&dev), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxPopCurrent(&got), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuCtxSetCurrent(NULL)); /* no-op on an empty stack */
    EXPECT(cuCtxGetCurrent(NULL), CUDA_ERROR_INVALID_VALUE);

    /* created contexts and the stack */
    MUST(cuCtxCreate(&c1, NULL, 0, 0));
    OK(cuCtxGetCurrent(&got));
    TRUE(got == c1);
    OK(cuCtxGetDevice(&dev));
    TRUE(dev == 0);
    MUST(cuCtxCreate(&c2, NULL, 0, 0));
    TRUE(c2 != c1);
    OK(cuCtxGetCurrent(&got));
    TRUE(got == c2);
    OK(cuCtxPopCurrent(&got));
    TRUE(got == c2);
    OK(cuCtxGetCurrent(&got));
    TRUE(got == c1);
    OK(cuCtxPushCurrent(c2));
    OK(cuCtxGetCurrent(&got));
    TRUE(got == c2);
    OK(cuCtxSetCurrent(c1)); /* replaces the top */
    OK(cuCtxGetCurrent(&got));
    TRUE(got == c1);
    OK(cuCtxPopCurrent(&got));
    TRUE(got == c1);
    OK(cuCtxGetCurrent(&got));
    TRUE(got == c1); /* the bottom entry pushed by cuCtxCreate(c1) */
    OK(cuCtxSynchronize());
    OK(cuCtxGetApiVersion(c1, &flags));
    EXPECT(cuCtxCreate(&c, NULL, 0, 7), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuCtxCreate(NULL, NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);

    /* memory belongs to its context and goes away with it */
    MUST(cuMemAlloc(&p, 256));
    OK(cuCtxDestroy(c2));
    EXPECT(cuCtxDestroy(c2), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxPushCurrent(c2), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxSetCurrent(c2), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxSynchronize_v2(c2), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxSetCurrent((CUcontext)(uintptr_t)0x12345678), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuCtxDestroy(c1));
    OK(cuCtxGetCurrent(&got));
    TRUE(got == NULL);
    EXPECT(cuMemFree(p), CUDA_ERROR_INVALID_CONTEXT);

    /* primary context */
    CUcontext pc, pc2;
    OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    TRUE(active == 0);
    MUST(cuDevicePrimaryCtxRetain(&pc, 0));
    MUST(cuDevicePrimaryCtxRetain(&pc2, 0));
    TRUE(pc == pc2);
    OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    TRUE(active == 1);
    EXPECT(cuCtxDestroy(pc), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuCtxSetCurrent(pc));
    OK(cuCtxGetDevice(&dev));
    TRUE(dev == 0);
    OK(cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_BLOCKING_SYNC));
    OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    TRUE(flags == CU_CTX_SCHED_BLOCKING_SYNC);
    EXPECT(cuDevicePrimaryCtxSetFlags(0, 0x80000000u), CUDA_ERROR_INVALID_VALUE);
    MUST(cuMemAlloc(&p, 1024));
    OK(cuDevicePrimaryCtxRelease(0));
    OK(cuDevicePrimaryCtxRelease(0));
    EXPECT(cuDevicePrimaryCtxRelease(0), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    TRUE(active == 0);
    /* the handle stays valid (cudart makes it current before retaining it) */
    MUST(cuDevicePrimaryCtxRetain(&pc2, 0));
    TRUE(pc2 == pc);
    EXPECT(cuMemFree(p), CUDA_ERROR_INVALID_VALUE); /* released with the context */
    OK(cuDevicePrimaryCtxReset(0));
    OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    TRUE(active == 0 && flags == 0);
    EXPECT(cuDevicePrimaryCtxRetain(&pc, 2), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDevicePrimaryCtxRetain(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    return check_done("test_ctx");
}
