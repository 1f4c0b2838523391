/* cuGetProcAddress(_v2): name + CUDA version (+ flags) → the exported symbol of that ABI; the answers
 * cudart relies on (docs/cudart-driver.md); cuGetExportTable refuses (for now). */
#include <dlfcn.h>
#include <string.h>

#include "check.h"

static void *sym(const char *name)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    void *p = h ? dlsym(h, name) : NULL;
    if (!p) {
        fprintf(stderr, "libcuda.so.1 does not export %s\n", name);
        check_failures++;
    }
    return p;
}

static void expect_map(const char *name, int ver, cuuint64_t flags, const char *symbol)
{
    void *fn = (void *)1;
    CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)-1;
    OK(cuGetProcAddress(name, &fn, ver, flags, &st));
    void *want = sym(symbol);
    if (fn != want || st != CU_GET_PROC_ADDRESS_SUCCESS) {
        fprintf(stderr, "%s@%d flags %llu: got %p status %d, expected %s (%p)\n", name, ver,
                (unsigned long long)flags, fn, (int)st, symbol, want);
        check_failures++;
    }
}

int main(void)
{
    void *fn = (void *)1;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SUCCESS;

    /* before cuInit, as cudart does: the probe, then the first names */
    OK(cuGetProcAddress("", &fn, 0, 0, NULL));
    TRUE(fn == NULL);
    expect_map("cuInit", 2000, 0, "cuInit");
    expect_map("cuGetProcAddress", 11030, 0, "cuGetProcAddress");
    expect_map("cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2");
    expect_map("cuDriverGetVersion", 2020, 0, "cuDriverGetVersion");
    expect_map("cuMemAlloc", 3020, 0, "cuMemAlloc_v2");
    expect_map("cuMemAlloc", 2000, 0, "cuMemAlloc");
    expect_map("cuMemAlloc", 13000, 0, "cuMemAlloc_v2");
    expect_map("cuCtxSynchronize", 2000, 0, "cuCtxSynchronize");
    expect_map("cuCtxSynchronize", 13000, 0, "cuCtxSynchronize_v2");
    expect_map("cuCtxGetDevice", 13000, 0, "cuCtxGetDevice_v2");
    expect_map("cuCtxCreate", 3020, 0, "cuCtxCreate_v2");
    expect_map("cuDevicePrimaryCtxRelease", 7000, 0, "cuDevicePrimaryCtxRelease");
    expect_map("cuDevicePrimaryCtxRelease", 11000, 0, "cuDevicePrimaryCtxRelease_v2");
    expect_map("cuDeviceGetUuid", 9020, 0, "cuDeviceGetUuid");
    expect_map("cuEventElapsedTime", 12080, 0, "cuEventElapsedTime_v2");
    expect_map("cuMemcpyHtoD", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuMemcpyHtoD_v2_ptds");
    expect_map("cuMemcpyHtoD", 13000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, "cuMemcpyHtoD_v2");
    expect_map("cuLaunchKernel", 4000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuLaunchKernel_ptsz");
    expect_map("cuLaunchKernel", 4000, 0, "cuLaunchKernel");
    expect_map("cuModuleLoadDataEx", 2010, 0, "cuModuleLoadDataEx");
    expect_map("cuGetExportTable", 3000, 0, "cuGetExportTable");
    expect_map("cuLibraryLoadData", 12000, 0, "cuLibraryLoadData");
    expect_map("cuStreamGetCtx", 9020, 0, "cuStreamGetCtx");
    expect_map("cuStreamGetCtx", 12050, 0, "cuStreamGetCtx_v2");
    expect_map("cuStreamGetCtx", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuStreamGetCtx_v2_ptsz");
    expect_map("cuMemHostRegister", 6050, 0, "cuMemHostRegister_v2");
    expect_map("cuMemAllocPitch", 3020, 0, "cuMemAllocPitch_v2");

    /* unknown name: success, NULL, SYMBOL_NOT_FOUND */
    fn = (void *)1;
    OK(cuGetProcAddress("cuNoSuchFunction", &fn, 13000, 0, &st));
    TRUE(fn == NULL && st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    /* names are API names, not symbol names */
    OK(cuGetProcAddress("cuMemAlloc_v2", &fn, 13000, 0, &st));
    TRUE(fn == NULL && st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    /* known name, version too low */
    fn = (void *)1;
    OK(cuGetProcAddress("cuLibraryLoadData", &fn, 11000, 0, &st));
    TRUE(fn == NULL && st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    EXPECT(cuGetProcAddress("cuInit", NULL, 2000, 0, &st), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGetProcAddress(NULL, &fn, 2000, 0, &st), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGetProcAddress("cuInit", &fn, 2000, 0x100, &st), CUDA_ERROR_INVALID_VALUE);

    /* a pointer from the table works */
    CUresult (*init)(unsigned) = NULL;
    OK(cuGetProcAddress("cuInit", (void **)&init, 2000, 0, NULL));
    TRUE(init != NULL);
    if (init)
        OK(init(0));

    /* dark-API tables (slots: test_export_tables.c): a known UUID gives a table, an unknown one is refused */
    const void *tab = NULL;
    CUuuid id;
    static const unsigned char cudart_interface[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
                                                       0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
    memcpy(id.bytes, cudart_interface, 16);
    OK(cuGetExportTable(&tab, &id));
    TRUE(tab != NULL);
    id.bytes[0] ^= 1;
    tab = (const void *)1;
    EXPECT(cuGetExportTable(&tab, &id), CUDA_ERROR_INVALID_VALUE);
    TRUE(tab == NULL);
    EXPECT(cuGetExportTable(NULL, &id), CUDA_ERROR_INVALID_VALUE);
    return check_done("test_procaddr");
}
