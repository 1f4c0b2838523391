/* Memory: allocation, copies, memsets, bad pointers, pinned host memory, pointer attributes; streams and
 * events (synchronous on the CPU backend). */
#include <stdint.h>
#include <string.h>

#include "check.h"

int main(void)
{
    MUST(cuInit(0));
    CUcontext ctx;
    MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
    MUST(cuCtxSetCurrent(ctx));

    enum { N = 1000 };
    CUdeviceptr a, b;
    MUST(cuMemAlloc(&a, N * 4));
    MUST(cuMemAlloc(&b, N * 4));
    TRUE(a % 256 == 0 && b % 256 == 0);
    CUdeviceptr z = 0;
    EXPECT(cuMemAlloc(&z, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAlloc(NULL, 16), CUDA_ERROR_INVALID_VALUE);

    uint32_t h[N], g[N];
    for (int i = 0; i < N; i++)
        h[i] = (uint32_t)i * 2654435761u;
    OK(cuMemcpyHtoD(a, h, sizeof h));
    OK(cuMemcpyDtoD(b, a, sizeof h));
    memset(g, 0, sizeof g);
    OK(cuMemcpyDtoH(g, b, sizeof g));
    TRUE(memcmp(g, h, sizeof h) == 0);
    /* partial ranges at an offset */
    OK(cuMemcpyDtoH(g, a + 40, 400));
    TRUE(memcmp(g, h + 10, 400) == 0);
    /* unified cuMemcpy in all directions */
    memset(g, 0, sizeof g);
    OK(cuMemcpy((CUdeviceptr)(uintptr_t)g, a, sizeof g));
    TRUE(memcmp(g, h, sizeof h) == 0);
    OK(cuMemcpy(b, (CUdeviceptr)(uintptr_t)h, 8));

    /* memsets */
    OK(cuMemsetD8(a, 0xab, 5));
    OK(cuMemsetD16(a + 6, 0x1234, 3));
    OK(cuMemsetD32(a + 12, 0xdeadbeef, 2));
    uint8_t bytes[20];
    OK(cuMemcpyDtoH(bytes, a, sizeof bytes));
    TRUE(bytes[0] == 0xab && bytes[4] == 0xab);
    TRUE(bytes[6] == 0x34 && bytes[7] == 0x12 && bytes[10] == 0x34 && bytes[11] == 0x12);
    TRUE(bytes[12] == 0xef && bytes[15] == 0xde && bytes[19] == 0xde);
    EXPECT(cuMemsetD32(a + 2, 0, 1), CUDA_ERROR_INVALID_VALUE);  /* misaligned */
    EXPECT(cuMemsetD16(a + 1, 0, 1), CUDA_ERROR_INVALID_VALUE);

    /* bad pointers and ranges */
    EXPECT(cuMemcpyHtoD(a + N * 4 - 4, h, 8), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyDtoH(g, a - 4, 8), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyDtoH(g, (CUdeviceptr)(uintptr_t)g, 8), CUDA_ERROR_INVALID_VALUE); /* host pointer */
    EXPECT(cuMemcpyDtoD(a, 0x10, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemsetD8(a + N * 4, 0, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyHtoD(a, NULL, 4), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemcpyHtoD(a, h, 0));
    EXPECT(cuMemFree(a + 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemFree((CUdeviceptr)(uintptr_t)h), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(0));

    size_t fr = 0, tot = 0;
    OK(cuMemGetInfo(&fr, &tot));
    TRUE(tot > 0 && fr <= tot);

    /* pointer attributes */
    unsigned mt = 0;
    CUdeviceptr base = 0;
    size_t rsize = 0;
    CUcontext pctx = NULL;
    OK(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a + 8));
    TRUE(mt == CU_MEMORYTYPE_DEVICE);
    OK(cuPointerGetAttribute(&base, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, a + 8));
    TRUE(base == a);
    OK(cuPointerGetAttribute(&rsize, CU_POINTER_ATTRIBUTE_RANGE_SIZE, a + 8));
    TRUE(rsize == N * 4);
    OK(cuPointerGetAttribute(&pctx, CU_POINTER_ATTRIBUTE_CONTEXT, a));
    TRUE(pctx == ctx);
    EXPECT(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)g),
           CUDA_ERROR_INVALID_VALUE);

    /* pinned host memory */
    void *hp = NULL, *hp2 = NULL;
    OK(cuMemAllocHost(&hp, 4096));
    OK(cuMemHostAlloc(&hp2, 100, CU_MEMHOSTALLOC_DEVICEMAP));
    TRUE(hp && hp2);
    OK(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)hp));
    TRUE(mt == CU_MEMORYTYPE_HOST);
    CUdeviceptr dp = 0;
    OK(cuMemHostGetDevicePointer(&dp, hp2, 0));
    OK(cuMemcpyDtoD(dp, b, 100)); /* mapped pinned memory is device-accessible */
    TRUE(memcmp(hp2, h, 100) == 0);
    EXPECT(cuMemFree((CUdeviceptr)(uintptr_t)hp), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFreeHost(hp));
    OK(cuMemFreeHost(hp2));
    EXPECT(cuMemFreeHost(hp), CUDA_ERROR_INVALID_VALUE);

    /* streams, async copies, events */
    CUstream s;
    CUevent e0, e1, e2;
    MUST(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    EXPECT(cuStreamCreate(&s, 0x80), CUDA_ERROR_INVALID_VALUE);
    MUST(cuEventCreate(&e0, 0));
    MUST(cuEventCreate(&e1, 0));
    MUST(cuEventCreate(&e2, CU_EVENT_DISABLE_TIMING));
    float ms = -1;
    EXPECT(cuEventElapsedTime(&ms, e0, e1), CUDA_ERROR_INVALID_HANDLE); /* not recorded yet */
    OK(cuEventRecord(e0, s));
    OK(cuMemsetD32Async(a, 7, N, s));
    OK(cuMemcpyDtoDAsync(b, a, N * 4, s));
    memset(g, 0, sizeof g);
    OK(cuMemcpyDtoHAsync(g, b, N * 4, s));
    OK(cuMemcpyHtoDAsync(a, h, 4, NULL));
    OK(cuMemsetD8Async(a + 4, 1, 4, CU_STREAM_PER_THREAD));
    OK(cuMemsetD16Async(a + 8, 1, 2, CU_STREAM_LEGACY));
    OK(cuMemcpyAsync(b, a, 4, s));
    OK(cuEventRecord(e1, s));
    OK(cuEventRecord(e2, s));
    OK(cuStreamWaitEvent(NULL, e1, 0));
    OK(cuStreamSynchronize(s));
    OK(cuStreamQuery(s));
    OK(cuEventSynchronize(e1));
    OK(cuEventQuery(e1));
    TRUE(g[0] == 7 && g[N - 1] == 7);
    OK(cuEventElapsedTime(&ms, e0, e1));
    TRUE(ms >= 0.0f);
    EXPECT(cuEventElapsedTime(&ms, e0, e2), CUDA_ERROR_INVALID_HANDLE); /* timing disabled */
    OK(cuEventDestroy(e0));
    OK(cuEventDestroy(e1));
    OK(cuEventDestroy(e2));
    EXPECT(cuEventDestroy(e0), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventRecord(e0, NULL), CUDA_ERROR_INVALID_HANDLE);
    OK(cuStreamDestroy(s));
    EXPECT(cuStreamDestroy(s), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuMemcpyHtoDAsync(a, h, 4, s), CUDA_ERROR_INVALID_HANDLE);

    OK(cuMemFree(a));
    EXPECT(cuMemFree(a), CUDA_ERROR_INVALID_VALUE); /* double free */
    OK(cuMemFree(b));
    OK(cuCtxSynchronize());
    OK(cuDevicePrimaryCtxRelease(0));
    return check_done("test_mem");
}
