/* Virtual memory management (driver-stub/vmm.c) on the CPU backend: granularity, reservations (aligned, freed
 * exactly), physical allocations mapped into them (no access until cuMemSetAccess), copies and memsets across two
 * adjacent mappings, one allocation mapped twice (both views see the same bytes), retained handles, properties,
 * POSIX-fd export and import, and bad input (wrong granularity, overlapping maps, partial unmaps, double release,
 * bad props). With the examples directory: vecadd on mapped memory, then a kernel writing a mapping without access
 * fails with CUDA_ERROR_ILLEGAL_ADDRESS as at a wild pointer. On a backend without VMM (the attribute is 0) every
 * entry point says CUDA_ERROR_NOT_SUPPORTED. */
#include <cuda.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static CUmemAllocationProp device_prop(void)
{
    CUmemAllocationProp p;
    memset(&p, 0, sizeof p);
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = 0;
    return p;
}

static void set_rw(CUdeviceptr p, size_t n)
{
    CUmemAccessDesc d = {.location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0},
                         .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    OK(cuMemSetAccess(p, n, &d, 1));
}

static size_t gran;

/* VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 0: everything is refused, nothing crashes */
static void test_unsupported(void)
{
    CUmemAllocationProp prop = device_prop();
    size_t g = 0;
    CUdeviceptr r = 0;
    CUmemGenericAllocationHandle h = 0;
    unsigned long long fl = 0;
    CUmemLocation dev0 = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0};
    CUmemAccessDesc d = {.location = dev0, .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    EXPECT(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuMemAddressReserve(&r, 1 << 21, 0, 0, 0), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuMemCreate(&h, 1 << 21, &prop, 0), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuMemMap(1 << 21, 1 << 21, 0, 1, 0), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuMemSetAccess(1 << 21, 1 << 21, &d, 1), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuMemGetAccess(&fl, &dev0, 1 << 21), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuMemUnmap(1 << 21, 1 << 21), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuMemRelease(1), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuMemAddressFree(1 << 21, 1 << 21), CUDA_ERROR_NOT_SUPPORTED);
    int fd_ok = -1;
    OK(cuDeviceGetAttribute(&fd_ok, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 0));
    TRUE(fd_ok == 0);
}

static void test_basics(void)
{
    int v = 0;
    OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 0));
    TRUE(v == 1);
    CUmemAllocationProp prop = device_prop();
    size_t rec = 0;
    OK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    OK(cuMemGetAllocationGranularity(&rec, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    TRUE(gran >= 4096 && rec >= gran && rec % gran == 0);
    EXPECT(cuMemGetAllocationGranularity(&rec, &prop, (CUmemAllocationGranularity_flags)5), CUDA_ERROR_INVALID_VALUE);

    /* reservations */
    CUdeviceptr r = 0;
    EXPECT(cuMemAddressReserve(&r, gran + 1, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);   /* wrong granularity */
    EXPECT(cuMemAddressReserve(&r, gran, 3 * gran, 0, 0), CUDA_ERROR_INVALID_VALUE);   /* alignment not a power of 2 */
    EXPECT(cuMemAddressReserve(&r, gran, 0, 0, 1), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemAddressReserve(&r, 8 * gran, 1 << 21, 0, 0));
    TRUE(r != 0 && r % (1 << 21) == 0);
    EXPECT(cuMemAddressFree(r, 4 * gran), CUDA_ERROR_INVALID_VALUE);   /* not the size reserved */
    EXPECT(cuMemsetD8(r, 0, 16), CUDA_ERROR_INVALID_VALUE);            /* reserved, not mapped */

    /* physical memory */
    CUmemGenericAllocationHandle h = 0, h2 = 0;
    EXPECT(cuMemCreate(&h, gran + 100, &prop, 0), CUDA_ERROR_INVALID_VALUE);   /* wrong granularity */
    CUmemAllocationProp bad = prop;
    bad.location.id = 9;
    EXPECT(cuMemCreate(&h, gran, &bad, 0), CUDA_ERROR_INVALID_DEVICE);
    bad = prop;
    bad.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC;
    EXPECT(cuMemCreate(&h, gran, &bad, 0), CUDA_ERROR_NOT_SUPPORTED);
    bad = prop;
    bad.location.type = CU_MEM_LOCATION_TYPE_HOST;
    EXPECT(cuMemCreate(&h, gran, &bad, 0), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuMemCreate(&h, gran, &prop, 1), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemCreate(&h, 2 * gran, &prop, 0));
    OK(cuMemCreate(&h2, 2 * gran, &prop, 0));
    CUmemAllocationProp got;
    memset(&got, 0xff, sizeof got);
    OK(cuMemGetAllocationPropertiesFromHandle(&got, h));
    TRUE(got.type == CU_MEM_ALLOCATION_TYPE_PINNED && got.location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
         got.location.id == 0);

    /* two adjacent mappings; no access until set */
    EXPECT(cuMemMap(r + 1, 2 * gran, 0, h, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemMap(r, 2 * gran, gran, h, 0), CUDA_ERROR_INVALID_VALUE);   /* offset must be 0 */
    EXPECT(cuMemMap(r, 4 * gran, 0, h, 0), CUDA_ERROR_INVALID_VALUE);      /* larger than the allocation */
    OK(cuMemMap(r, 2 * gran, 0, h, 0));
    EXPECT(cuMemMap(r + gran, 2 * gran, 0, h2, 0), CUDA_ERROR_INVALID_VALUE);   /* overlaps */
    OK(cuMemMap(r + 2 * gran, 2 * gran, 0, h2, 0));
    unsigned long long fl = 99;
    CUmemLocation dev0 = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0};
    OK(cuMemGetAccess(&fl, &dev0, r));
    TRUE(fl == CU_MEM_ACCESS_FLAGS_PROT_NONE);
    EXPECT(cuMemsetD8(r, 0, 16), CUDA_ERROR_INVALID_VALUE);   /* mapped without access */
    EXPECT(cuMemSetAccess(r, gran, &(CUmemAccessDesc){.location = dev0, .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE}, 1),
           CUDA_ERROR_INVALID_VALUE);   /* part of a mapping */
    set_rw(r, 4 * gran);
    OK(cuMemGetAccess(&fl, &dev0, r + 3 * gran));
    TRUE(fl == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);

    /* one range of the table across both mappings */
    OK(cuMemsetD32(r, 0x01020304, gran));   /* 4 * gran bytes */
    unsigned char *buf = malloc(2 * gran);
    for (size_t i = 0; i < 2 * gran; i++)
        buf[i] = (unsigned char)(i * 13);
    OK(cuMemcpyHtoD(r + gran, buf, 2 * gran));
    memset(buf, 0, 2 * gran);
    OK(cuMemcpyDtoH(buf, r + gran, 2 * gran));
    int bad_bytes = 0;
    for (size_t i = 0; i < 2 * gran; i++)
        bad_bytes += buf[i] != (unsigned char)(i * 13);
    TRUE(bad_bytes == 0);
    unsigned w = 0;
    OK(cuMemcpyDtoH(&w, r, 4));
    TRUE(w == 0x01020304);
    CUdeviceptr base = 0;
    size_t size = 0;
    OK(cuMemGetAddressRange(&base, &size, r + 3 * gran));
    TRUE(base == r && size == 4 * gran);

    /* the same physical memory mapped a second time shows the same bytes */
    CUdeviceptr r2 = 0;
    OK(cuMemAddressReserve(&r2, 2 * gran, 0, 0, 0));
    OK(cuMemMap(r2, 2 * gran, 0, h2, 0));
    set_rw(r2, 2 * gran);
    unsigned char x = 0;
    OK(cuMemcpyDtoH(&x, r2 + 5, 1));
    TRUE(x == (unsigned char)((gran + 5) * 13));
    OK(cuMemsetD8(r2 + 7, 0xab, 1));
    TRUE(*(unsigned char *)(uintptr_t)(r + 2 * gran + 7) == 0xab);   /* the host sees it through the first view */

    /* retained handle */
    CUmemGenericAllocationHandle again = 0;
    OK(cuMemRetainAllocationHandle(&again, (void *)(uintptr_t)(r + gran + 8)));
    TRUE(again == h);
    OK(cuMemRelease(again));
    EXPECT(cuMemRetainAllocationHandle(&again, (void *)(uintptr_t)(r + 5 * gran)), CUDA_ERROR_INVALID_VALUE);

    /* a handle released while mapped: the memory stays until unmapped */
    OK(cuMemRelease(h2));
    EXPECT(cuMemRelease(h2), CUDA_ERROR_INVALID_VALUE);   /* double release */
    EXPECT(cuMemGetAllocationPropertiesFromHandle(&got, h2), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemcpyDtoH(&x, r2 + 7, 1));
    TRUE(x == 0xab);

    /* unmap: whole mappings only */
    EXPECT(cuMemUnmap(r, gran), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemUnmap(r + 4 * gran, gran), CUDA_ERROR_INVALID_VALUE);   /* not mapped */
    OK(cuMemUnmap(r2, 2 * gran));
    OK(cuMemAddressFree(r2, 2 * gran));
    OK(cuMemUnmap(r, 4 * gran));   /* two mappings at once */
    EXPECT(cuMemcpyDtoH(&x, r, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemGetAccess(&fl, &dev0, r), CUDA_ERROR_INVALID_VALUE);
    /* a mapping left at cuMemAddressFree goes with the reservation */
    OK(cuMemMap(r + 6 * gran, 2 * gran, 0, h, 0));
    OK(cuMemRelease(h));
    OK(cuMemAddressFree(r, 8 * gran));
    EXPECT(cuMemAddressFree(r, 8 * gran), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemMap(r, gran, 0, h, 0), CUDA_ERROR_INVALID_VALUE);   /* released handle */
    EXPECT(cuMemRelease((CUmemGenericAllocationHandle)0x1234), CUDA_ERROR_INVALID_VALUE);
    free(buf);
}

static void test_fd_sharing(void)
{
    CUmemAllocationProp prop = device_prop();
    CUmemGenericAllocationHandle h = 0, plain = 0, imp = 0;
    int fd = -1;
    OK(cuMemCreate(&plain, gran, &prop, 0));
    EXPECT(cuMemExportToShareableHandle(&fd, plain, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
           CUDA_ERROR_INVALID_VALUE);   /* not created exportable */
    OK(cuMemRelease(plain));
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    MUST(cuMemCreate(&h, gran, &prop, 0));
    OK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    TRUE(fd >= 0);
    EXPECT(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_WIN32, 0), CUDA_ERROR_NOT_SUPPORTED);
    OK(cuMemImportFromShareableHandle(&imp, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    close(fd);
    CUdeviceptr a = 0, b = 0;
    OK(cuMemAddressReserve(&a, gran, 0, 0, 0));
    OK(cuMemAddressReserve(&b, gran, 0, 0, 0));
    OK(cuMemMap(a, gran, 0, h, 0));
    OK(cuMemMap(b, gran, 0, imp, 0));
    set_rw(a, gran);
    set_rw(b, gran);
    OK(cuMemsetD32(a, 0xfeedbeef, 4));
    unsigned w = 0;
    OK(cuMemcpyDtoH(&w, b + 12, 4));
    TRUE(w == 0xfeedbeef);
    OK(cuMemRelease(h));
    OK(cuMemRelease(imp));
    OK(cuMemUnmap(a, gran));
    OK(cuMemUnmap(b, gran));
    OK(cuMemAddressFree(a, gran));
    OK(cuMemAddressFree(b, gran));
    EXPECT(cuMemImportFromShareableHandle(&imp, (void *)(uintptr_t)12345, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
           CUDA_ERROR_INVALID_VALUE);
}

static void test_kernel(const char *examples, CUdevice dev)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/vecadd.ptx", examples);
    CUmodule mod = must_load_ptx(path);
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "vecadd"));
    CUmemAllocationProp prop = device_prop();
    CUmemGenericAllocationHandle h;
    MUST(cuMemCreate(&h, 4 * gran, &prop, 0));
    CUdeviceptr r = 0;
    MUST(cuMemAddressReserve(&r, 4 * gran, 0, 0, 0));
    MUST(cuMemMap(r, 4 * gran, 0, h, 0));
    set_rw(r, 4 * gran);
    const unsigned n = (unsigned)(gran / sizeof(float));
    float *hb = (float *)(uintptr_t)r;
    for (unsigned i = 0; i < 3 * n; i++)
        hb[i] = (float)i;
    CUdeviceptr a = r, b = r + gran, c = r + 2 * gran;
    void *params[] = {&a, &b, &c, (void *)&n};
    OK(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    OK(cuCtxSynchronize());
    int bad = 0;
    for (unsigned i = 0; i < n; i++)
        bad += hb[2 * n + i] != (float)i + (float)(n + i);
    TRUE(bad == 0);

    /* a second allocation mapped without access: the kernel's store faults */
    CUmemGenericAllocationHandle h2;
    MUST(cuMemCreate(&h2, gran, &prop, 0));
    CUdeviceptr r2 = 0;
    MUST(cuMemAddressReserve(&r2, gran, 0, 0, 0));
    MUST(cuMemMap(r2, gran, 0, h2, 0));
    CUdeviceptr noaccess = r2;
    void *params2[] = {&a, &b, &noaccess, (void *)&n};
    CUresult rl = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, params2, NULL);
    CUresult rs = cuCtxSynchronize();
    TRUE(rl == CUDA_SUCCESS || rl == CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT(rs, CUDA_ERROR_ILLEGAL_ADDRESS);
    MUST(cuDevicePrimaryCtxReset(dev));
    /* VMM state belongs to the process: still there after the reset, and released normally */
    OK(cuMemUnmap(r2, gran));
    OK(cuMemAddressFree(r2, gran));
    OK(cuMemRelease(h2));
    TRUE(hb[2 * n + 1] == 1.0f + (float)(n + 1));
    OK(cuMemUnmap(r, 4 * gran));
    OK(cuMemAddressFree(r, 4 * gran));
    OK(cuMemRelease(h));
}

int main(int argc, char **argv)
{
    CUdevice dev;
    CUcontext ctx;
    MUST(cuInit(0));
    MUST(cuDeviceGet(&dev, 0));
    MUST(cuDevicePrimaryCtxRetain(&ctx, dev));
    MUST(cuCtxSetCurrent(ctx));
    int vmm = -1;
    OK(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0));
    if (!vmm) {
        test_unsupported();
        OK(cuDevicePrimaryCtxRelease(dev));
        return check_done("test_vmm");
    }
    test_basics();
    test_fd_sharing();
    OK(cuDevicePrimaryCtxRelease(dev));
    if (argc > 1)
        test_kernel(argv[1], dev);
    return check_done("test_vmm");
}
