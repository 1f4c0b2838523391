/* Memory pools and stream-ordered allocation (driver-stub/mempool.c): the default and current pool of a device,
 * cuMemAllocAsync/cuMemFreeAsync with reuse under a release threshold, the reserved/used counters and their high
 * watermarks (reset by writing 0), trimming, created pools (max size, destroy with blocks in use), access, pointer
 * attributes of pool memory, and bad input (bad flags/props, destroyed or garbage pools, double free). */
#include <cuda.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

static cuuint64_t pool_attr(CUmemoryPool p, CUmemPool_attribute a)
{
    cuuint64_t v = 12345;
    OK(cuMemPoolGetAttribute(p, a, &v));
    return v;
}

static void test_default_pool(CUstream s)
{
    int supported = 0, handles = -1;
    OK(cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 0));
    OK(cuDeviceGetAttribute(&handles, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, 0));
    /* pools are shared through POSIX file descriptors where the backend shares device memory (CPU: ipc.c) */
    const char *be = getenv("P2N_BACKEND");
    int shares = !be || !strcmp(be, "cpu");
    TRUE(supported == 1 && handles == (shares ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : 0));

    CUmemoryPool def = NULL, cur = NULL;
    OK(cuDeviceGetDefaultMemPool(&def, 0));
    OK(cuDeviceGetMemPool(&cur, 0));
    TRUE(def != NULL && def == cur);
    EXPECT(cuDeviceGetDefaultMemPool(&def, 99), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDeviceGetDefaultMemPool(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemPoolDestroy(def), CUDA_ERROR_INVALID_VALUE);   /* a default pool is never destroyed */

    int v = -1;
    OK(cuMemPoolGetAttribute(def, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &v));
    TRUE(v == 1);
    TRUE(pool_attr(def, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) == 0);

    /* threshold 0: a freed block goes back at once */
    CUdeviceptr d = 0;
    OK(cuMemAllocAsync(&d, 1000, s));
    TRUE(d != 0);
    TRUE(pool_attr(def, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) >= 1000);
    TRUE(pool_attr(def, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) >= 1000);
    OK(cuMemsetD8Async(d, 0x5a, 1000, s));   /* the allocation is device memory of the table */
    unsigned char b[4] = {0};
    OK(cuMemcpyDtoHAsync(b, d + 996, 4, s));
    OK(cuStreamSynchronize(s));
    TRUE(b[0] == 0x5a && b[3] == 0x5a);
    CUmemoryPool owner = NULL;
    OK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, d + 10));
    TRUE(owner == def);
    size_t size = 0;
    OK(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, d));
    TRUE(size == 1000);
    OK(cuMemFreeAsync(d, s));
    EXPECT(cuMemFreeAsync(d, s), CUDA_ERROR_INVALID_VALUE);   /* double free */
    OK(cuStreamSynchronize(s));
    TRUE(pool_attr(def, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == 0);
    TRUE(pool_attr(def, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 0);

    /* a threshold above what the loop uses: blocks are kept and reused */
    cuuint64_t thr = 1 << 20;
    OK(cuMemPoolSetAttribute(def, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &thr));
    CUdeviceptr first = 0;
    for (int i = 0; i < 10; i++) {
        CUdeviceptr p = 0;
        OK(cuMemAllocAsync(&p, 4096, s));
        if (i == 0)
            first = p;
        TRUE(p == first);   /* the one kept block, every time */
        OK(cuMemFreeAsync(p, NULL));
    }
    OK(cuStreamSynchronize(s));
    TRUE(pool_attr(def, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 4096);
    TRUE(pool_attr(def, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == 0);
    TRUE(pool_attr(def, CU_MEMPOOL_ATTR_USED_MEM_HIGH) >= 4096);

    /* high watermarks: reset by writing 0, nothing else */
    cuuint64_t zero = 0, one = 1;
    OK(cuMemPoolSetAttribute(def, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &zero));
    TRUE(pool_attr(def, CU_MEMPOOL_ATTR_USED_MEM_HIGH) == 0);
    OK(cuMemPoolSetAttribute(def, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &zero));
    TRUE(pool_attr(def, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH) == 4096);
    EXPECT(cuMemPoolSetAttribute(def, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &one), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemPoolSetAttribute(def, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &zero), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemPoolSetAttribute(def, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemPoolGetAttribute(def, (CUmemPool_attribute)99, &one), CUDA_ERROR_INVALID_VALUE);

    /* trimming */
    OK(cuMemPoolTrimTo(def, 8192));
    TRUE(pool_attr(def, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 4096);
    OK(cuMemPoolTrimTo(def, 0));
    TRUE(pool_attr(def, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 0);

    /* a block in use is not trimmed; cuMemFree takes pool memory too */
    OK(cuMemAllocAsync(&d, 300, s));
    OK(cuMemPoolTrimTo(def, 0));
    TRUE(pool_attr(def, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 512);
    OK(cuMemFree(d));
    TRUE(pool_attr(def, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == 0);
    OK(cuMemPoolSetAttribute(def, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &zero));
    TRUE(pool_attr(def, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 0);

    /* what cuMemFreeAsync refuses */
    CUdeviceptr plain = 0;
    MUST(cuMemAlloc(&plain, 64));
    EXPECT(cuMemFreeAsync(plain, s), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(plain));
    EXPECT(cuMemAllocAsync(NULL, 16, s), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocAsync(&d, 0, s), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocAsync(&d, 16, (CUstream)(uintptr_t)0x4321), CUDA_ERROR_INVALID_HANDLE);
}

static void test_created_pool(CUstream s)
{
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 0;
    props.maxSize = 64 * 1024;
    CUmemoryPool pool = NULL;
    MUST(cuMemPoolCreate(&pool, &props));

    /* bad properties */
    CUmemoryPool other = NULL;
    CUmemPoolProps bad = props;
    bad.location.id = 42;
    EXPECT(cuMemPoolCreate(&other, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = props;
    bad.allocType = CU_MEM_ALLOCATION_TYPE_INVALID;
    EXPECT(cuMemPoolCreate(&other, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = props;
    bad.handleTypes = CU_MEM_HANDLE_TYPE_FABRIC;
    EXPECT(cuMemPoolCreate(&other, &bad), CUDA_ERROR_NOT_SUPPORTED);
    bad.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    {
        const char *be = getenv("P2N_BACKEND");
        if (!be || !strcmp(be, "cpu")) {
            OK(cuMemPoolCreate(&other, &bad));
            OK(cuMemPoolDestroy(other));
        } else {
            EXPECT(cuMemPoolCreate(&other, &bad), CUDA_ERROR_NOT_SUPPORTED);
        }
    }
    bad = props;
    bad.reserved[3] = 1;
    EXPECT(cuMemPoolCreate(&other, &bad), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemPoolCreate(&other, NULL), CUDA_ERROR_INVALID_VALUE);

    /* current pool of the device */
    OK(cuDeviceSetMemPool(0, pool));
    CUmemoryPool cur = NULL;
    OK(cuDeviceGetMemPool(&cur, 0));
    TRUE(cur == pool);
    CUdeviceptr a = 0, b = 0, c = 0;
    OK(cuMemAllocAsync(&a, 1024, s));
    CUmemoryPool owner = NULL;
    OK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, a));
    TRUE(owner == pool);
    OK(cuMemAllocFromPoolAsync(&b, 60 * 1024, pool, s));
    /* past maxSize */
    EXPECT(cuMemAllocFromPoolAsync(&c, 8 * 1024, pool, s), CUDA_ERROR_OUT_OF_MEMORY);
    OK(cuMemFreeAsync(b, s));
    OK(cuMemAllocFromPoolAsync(&c, 8 * 1024, pool, s));
    EXPECT(cuMemAllocFromPoolAsync(&c, 8, NULL, s), CUDA_ERROR_INVALID_VALUE);

    /* access: the own device reads and writes; revoking that is invalid */
    CUmemLocation dev0 = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0};
    CUmemAccess_flags fl = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    OK(cuMemPoolGetAccess(&fl, pool, &dev0));
    TRUE(fl == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CUmemAccessDesc desc = {.location = dev0, .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    OK(cuMemPoolSetAccess(pool, &desc, 1));
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    EXPECT(cuMemPoolSetAccess(pool, &desc, 1), CUDA_ERROR_INVALID_VALUE);
    desc.location.id = 77;
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    EXPECT(cuMemPoolSetAccess(pool, &desc, 1), CUDA_ERROR_INVALID_VALUE);

    /* destroyed with blocks in use: the default pool is current again; the blocks stay usable until freed */
    OK(cuMemPoolDestroy(pool));
    OK(cuDeviceGetMemPool(&cur, 0));
    CUmemoryPool def = NULL;
    OK(cuDeviceGetDefaultMemPool(&def, 0));
    TRUE(cur == def);
    OK(cuMemsetD8(a, 1, 1024));
    OK(cuMemFreeAsync(a, s));
    EXPECT(cuMemPoolDestroy(pool), CUDA_ERROR_INVALID_VALUE);
    cuuint64_t v = 0;
    EXPECT(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &v), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocFromPoolAsync(&b, 8, pool, s), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceSetMemPool(0, pool), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(c));   /* the last block: the pool goes with it */
    EXPECT(cuMemPoolTrimTo((CUmemoryPool)(uintptr_t)0x777, 0), CUDA_ERROR_INVALID_VALUE);

    /* the CUDA 13 location forms */
    CUmemoryPool byloc = NULL;
    OK(cuMemGetDefaultMemPool(&byloc, &dev0, CU_MEM_ALLOCATION_TYPE_PINNED));
    TRUE(byloc == def);
    OK(cuMemGetMemPool(&byloc, &dev0, CU_MEM_ALLOCATION_TYPE_PINNED));
    TRUE(byloc == def);
    OK(cuMemSetMemPool(&dev0, CU_MEM_ALLOCATION_TYPE_PINNED, def));
    CUmemLocation host = {.type = CU_MEM_LOCATION_TYPE_HOST, .id = 0};
    EXPECT(cuMemGetDefaultMemPool(&byloc, &host, CU_MEM_ALLOCATION_TYPE_PINNED), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuMemGetDefaultMemPool(&byloc, &dev0, CU_MEM_ALLOCATION_TYPE_MANAGED), CUDA_ERROR_NOT_SUPPORTED);
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    MUST(cuInit(0));
    MUST(cuDeviceGet(&dev, 0));
    MUST(cuDevicePrimaryCtxRetain(&ctx, dev));
    MUST(cuCtxSetCurrent(ctx));
    CUstream s;
    MUST(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    test_default_pool(s);
    test_created_pool(s);
    /* a block left in use goes back to its pool with the context */
    CUdeviceptr left = 0;
    MUST(cuMemAllocAsync(&left, 256, s));
    OK(cuStreamDestroy(s));
    OK(cuDevicePrimaryCtxRelease(dev));
    CUmemoryPool def = NULL;
    OK(cuDeviceGetDefaultMemPool(&def, 0));
    TRUE(pool_attr(def, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == 0);
    return check_done("test_pools");
}
