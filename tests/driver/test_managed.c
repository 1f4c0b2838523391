/* Managed memory (driver-stub/managed.c): cuMemAllocManaged and its flags, pointer attributes, prefetch and advice
 * remembered per page as cuMemRangeGetAttribute(s) report them, cuStreamAttachMemAsync, cuMemFree, the device
 * attributes, and bad input. With the examples directory: vecadd reads and writes managed memory that the host
 * filled and then reads. Runs on every backend whose device memory the host dereferences (CPU, PoCL); pageable
 * memory is accepted only where the device attributes say kernels read it (CPU), and a backend without managed
 * memory must refuse it as its attributes say. */
#include <cuda.h>
#include <stdint.h>

/* the CUdevice forms (CUDA 8) that old binaries call: cuda.h maps the names to the _v2 ABIs */
#undef cuMemPrefetchAsync
#undef cuMemAdvise
CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream);
CUresult CUDAAPI cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device);
#include <string.h>

#include "check.h"

static int attr(CUdevice_attribute a)
{
    int v = -1;
    MUST(cuDeviceGetAttribute(&v, a, 0));
    return v;
}

static int pageable_access;   /* CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: kernels read malloc'ed memory */

/* returns whether the device has managed memory */
static int test_attributes(void)
{
    int managed = attr(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
    TRUE(managed == 0 || managed == 1);
    TRUE(attr(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS) == managed);
    TRUE(attr(CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST) == managed);
    pageable_access = attr(CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS);
    TRUE(pageable_access == attr(CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES));
    TRUE(!pageable_access || managed);
    if (!managed) {
        CUdeviceptr d = 0;
        EXPECT(cuMemAllocManaged(&d, 64, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_NOT_SUPPORTED);
    }
    return managed;
}

static void test_alloc_and_pointer(void)
{
    CUdeviceptr d = 0;
    EXPECT(cuMemAllocManaged(&d, 4096, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocManaged(&d, 4096, CU_MEM_ATTACH_SINGLE), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocManaged(&d, 4096, CU_MEM_ATTACH_GLOBAL | CU_MEM_ATTACH_HOST), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocManaged(&d, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocManaged(NULL, 16, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);

    MUST(cuMemAllocManaged(&d, 10000, CU_MEM_ATTACH_GLOBAL));
    int *h = (int *)(uintptr_t)d;   /* the host uses the very same address */
    for (int i = 0; i < 2500; i++)
        h[i] = i;
    int back[4] = {0};
    OK(cuMemcpyDtoH(back, d + 4 * 100, sizeof back));
    TRUE(back[0] == 100 && back[3] == 103);
    OK(cuMemsetD32(d, 7, 10));
    TRUE(h[9] == 7 && h[10] == 10);

    int managed = 0;
    OK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, d + 12));
    TRUE(managed == 1);
    unsigned type = 0;
    OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
    TRUE(type == CU_MEMORYTYPE_DEVICE);
    CUdeviceptr start = 0;
    size_t size = 0;
    OK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, d + 500));
    OK(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, d + 500));
    TRUE(start == d && size == 10000);
    void *hp = NULL;
    OK(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, d));
    TRUE(hp == (void *)h);

    CUdeviceptr plain = 0;
    MUST(cuMemAlloc(&plain, 64));
    managed = -1;
    OK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, plain));
    TRUE(managed == 0);
    /* advice is for managed (or pageable) memory, not device allocations */
    EXPECT(cuMemAdvise(plain, 64, CU_MEM_ADVISE_SET_READ_MOSTLY, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(plain));

    OK(cuMemFree(d + 0));
    EXPECT(cuMemFree(d), CUDA_ERROR_INVALID_VALUE);   /* double free */

    CUdeviceptr hostish = 0;
    MUST(cuMemAllocManaged(&hostish, 64, CU_MEM_ATTACH_HOST));
    OK(cuMemFree(hostish));
}

static void test_prefetch_advise(void)
{
    const size_t page = 4096, n = 4 * page;
    CUdeviceptr d = 0;
    MUST(cuMemAllocManaged(&d, n, CU_MEM_ATTACH_GLOBAL));
    int v = 0;

    /* nothing advised or prefetched yet */
    OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, d, n));
    TRUE(v == CU_DEVICE_INVALID);
    OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, d, n));
    TRUE(v == CU_DEVICE_INVALID);
    OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, n));
    TRUE(v == 0);

    /* legacy prefetch to the device, the _v2 one of the second half to the host */
    CUstream s;
    MUST(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cuMemPrefetchAsync(d, n, 0, s));
    OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, d, n));
    TRUE(v == 0);
    CUmemLocation host = {.type = CU_MEM_LOCATION_TYPE_HOST, .id = 0};
    OK(cuMemPrefetchAsync_v2(d + 2 * page, 2 * page, host, 0, s));
    OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, d + 2 * page, 2 * page));
    TRUE(v == CU_DEVICE_CPU);
    OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, d, n));
    TRUE(v == CU_DEVICE_INVALID);   /* the pages disagree */
    CUmemLocationType lt = CU_MEM_LOCATION_TYPE_INVALID;
    OK(cuMemRangeGetAttribute(&lt, sizeof lt, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, d, page));
    TRUE(lt == CU_MEM_LOCATION_TYPE_DEVICE);
    OK(cuMemRangeGetAttribute(&lt, sizeof lt, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, d + 3 * page, 8));
    TRUE(lt == CU_MEM_LOCATION_TYPE_HOST);

    /* advice */
    OK(cuMemAdvise(d, n, CU_MEM_ADVISE_SET_READ_MOSTLY, 0));
    OK(cuMemAdvise(d + page, page, CU_MEM_ADVISE_UNSET_READ_MOSTLY, 0));
    OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, page));
    TRUE(v == 1);
    OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, n));
    TRUE(v == 0);
    CUmemLocation dev0 = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0};
    OK(cuMemAdvise_v2(d, n, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, dev0));
    OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, d, n));
    TRUE(v == 0);
    OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, d, n));
    TRUE(v == 0);
    OK(cuMemAdvise(d, n, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, CU_DEVICE_CPU));
    OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, d, n));
    TRUE(v == CU_DEVICE_CPU);
    OK(cuMemAdvise(d, n, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, 0));
    OK(cuMemRangeGetAttribute(&lt, sizeof lt, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, d, n));
    TRUE(lt == CU_MEM_LOCATION_TYPE_INVALID);

    OK(cuMemAdvise(d, n, CU_MEM_ADVISE_SET_ACCESSED_BY, 0));
    OK(cuMemAdvise(d, page, CU_MEM_ADVISE_SET_ACCESSED_BY, CU_DEVICE_CPU));
    int list[3] = {9, 9, 9};
    OK(cuMemRangeGetAttribute(list, sizeof list, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, d, page));
    TRUE(list[0] == 0 && list[1] == CU_DEVICE_CPU && list[2] == CU_DEVICE_INVALID);
    OK(cuMemRangeGetAttribute(list, sizeof list, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, d, n));
    TRUE(list[0] == 0 && list[1] == CU_DEVICE_INVALID);

    /* several at once */
    int rm = -1, pf = -1;
    void *data[2] = {&rm, &pf};
    size_t sizes[2] = {4, 4};
    CUmem_range_attribute which[2] = {CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION};
    OK(cuMemRangeGetAttributes(data, sizes, which, 2, d, page));
    TRUE(rm == 1 && pf == 0);

    /* batch: the first two ranges to the device, the third to the host */
    CUdeviceptr ptrs[3] = {d, d + page, d + 2 * page};
    size_t lens[3] = {page, page, page};
    CUmemLocation locs[2] = {dev0, host};
    size_t idxs[2] = {0, 2};
    OK(cuMemPrefetchBatchAsync(ptrs, lens, 3, locs, idxs, 2, 0, s));
    OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, d, 2 * page));
    TRUE(v == 0);
    OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, d + 2 * page, page));
    TRUE(v == CU_DEVICE_CPU);
    size_t bad_idxs[2] = {0, 0};
    EXPECT(cuMemPrefetchBatchAsync(ptrs, lens, 3, locs, bad_idxs, 2, 0, s), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemPrefetchBatchAsync(ptrs, lens, 3, locs, idxs, 2, 0, CU_STREAM_LEGACY), CUDA_ERROR_INVALID_VALUE);
    /* discards keep nothing to drop (one copy); with a prefetch, the prefetch is recorded */
    OK(cuMemDiscardBatchAsync(ptrs, lens, 3, 0, s));
    EXPECT(cuMemDiscardBatchAsync(ptrs, lens, 3, 1, s), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemDiscardBatchAsync(ptrs, lens, 3, 0, NULL), CUDA_ERROR_INVALID_VALUE);   /* the legacy stream */
    size_t too_long[3] = {page, page, 3 * page};
    EXPECT(cuMemDiscardBatchAsync(ptrs, too_long, 3, 0, s), CUDA_ERROR_INVALID_VALUE);
    CUmemLocation to_host[1] = {host};
    size_t zero_idx[1] = {0};
    OK(cuMemDiscardAndPrefetchBatchAsync(ptrs, lens, 2, to_host, zero_idx, 1, 0, s));
    OK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, d, 3 * page));
    TRUE(v == CU_DEVICE_CPU);

    /* bad input */
    EXPECT(cuMemPrefetchAsync(d, n, 7, s), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuMemPrefetchAsync_v2(d, n, host, 1, s), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemPrefetchAsync(d, n + 1, 0, s), CUDA_ERROR_INVALID_VALUE);   /* past the allocation */
    EXPECT(cuMemPrefetchAsync(d, 0, 0, s), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAdvise(d, n, (CUmem_advise)42, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAdvise(d, n, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, 9), CUDA_ERROR_INVALID_DEVICE);
    CUmemLocation numa = {.type = CU_MEM_LOCATION_TYPE_HOST_NUMA, .id = 0};
    EXPECT(cuMemAdvise_v2(d, n, CU_MEM_ADVISE_SET_ACCESSED_BY, numa), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemRangeGetAttribute(&v, 8, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, n), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemRangeGetAttribute(list, 6, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, d, n), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemRangeGetAttribute(&v, 4, (CUmem_range_attribute)99, d, n), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemRangeGetAttribute(NULL, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, n), CUDA_ERROR_INVALID_VALUE);

    /* pageable memory: accepted where the device reads it, nothing remembered */
    static char pageable[3 * 4096];
    CUresult want = pageable_access ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    EXPECT(cuMemPrefetchAsync((CUdeviceptr)(uintptr_t)pageable, sizeof pageable, 0, s), want);
    v = 77;
    EXPECT(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
                                  (CUdeviceptr)(uintptr_t)pageable, sizeof pageable), want);
    TRUE(v == (pageable_access ? CU_DEVICE_INVALID : 77));

    /* stream association */
    OK(cuStreamAttachMemAsync(s, d, 0, CU_MEM_ATTACH_SINGLE));
    OK(cuStreamAttachMemAsync(s, d, n, CU_MEM_ATTACH_GLOBAL));
    OK(cuStreamAttachMemAsync(NULL, d, 0, CU_MEM_ATTACH_HOST));
    EXPECT(cuStreamAttachMemAsync(s, d, 0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamAttachMemAsync(s, d, page, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamAttachMemAsync(s, d + page, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamAttachMemAsync((CUstream)(uintptr_t)0x1234, d, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_HANDLE);

    OK(cuStreamSynchronize(s));
    OK(cuStreamDestroy(s));
    OK(cuMemFree(d));
}

/* a kernel adds two managed arrays into a third; the host wrote the inputs and reads the output directly */
static void test_kernel(const char *examples)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/vecadd.ptx", examples);
    CUmodule mod = must_load_ptx(path);
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "vecadd"));
    const unsigned n = 1000;
    CUdeviceptr a, b, c;
    MUST(cuMemAllocManaged(&a, n * sizeof(float), CU_MEM_ATTACH_GLOBAL));
    MUST(cuMemAllocManaged(&b, n * sizeof(float), CU_MEM_ATTACH_GLOBAL));
    MUST(cuMemAllocManaged(&c, n * sizeof(float), CU_MEM_ATTACH_GLOBAL));
    float *ha = (float *)(uintptr_t)a, *hb = (float *)(uintptr_t)b, *hc = (float *)(uintptr_t)c;
    for (unsigned i = 0; i < n; i++) {
        ha[i] = (float)i;
        hb[i] = 2.0f * (float)i;
        hc[i] = -1.0f;
    }
    OK(cuMemPrefetchAsync(a, n * sizeof(float), 0, NULL));
    void *params[] = {&a, &b, &c, (void *)&n};
    OK(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    OK(cuCtxSynchronize());
    int bad = 0;
    for (unsigned i = 0; i < n; i++)
        bad += hc[i] != 3.0f * (float)i;
    TRUE(bad == 0);
    OK(cuMemFree(a));
    OK(cuMemFree(b));
    OK(cuMemFree(c));
    OK(cuModuleUnload(mod));
}

int main(int argc, char **argv)
{
    CUdevice dev;
    CUcontext ctx;
    MUST(cuInit(0));
    MUST(cuDeviceGet(&dev, 0));
    MUST(cuDevicePrimaryCtxRetain(&ctx, dev));
    MUST(cuCtxSetCurrent(ctx));
    if (!test_attributes()) {
        OK(cuDevicePrimaryCtxRelease(dev));
        return check_done("test_managed");
    }
    test_alloc_and_pointer();
    test_prefetch_advise();
    if (argc > 1)
        test_kernel(argv[1]);
    /* managed memory left allocated goes with the context */
    CUdeviceptr left = 0;
    MUST(cuMemAllocManaged(&left, 128, CU_MEM_ATTACH_GLOBAL));
    OK(cuDevicePrimaryCtxRelease(dev));
    return check_done("test_managed");
}
