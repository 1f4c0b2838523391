/* Initialisation, version and device queries; errors before cuInit. Usage: test_init [CCMAJOR CCMINOR] */
#define CUDA_ENABLE_DEPRECATED 1 /* cuDeviceComputeCapability is deprecated, still exported */
#include <string.h>

#include "check.h"

int main(int argc, char **argv)
{
    int want_major = argc > 2 ? atoi(argv[1]) : 8, want_minor = argc > 2 ? atoi(argv[2]) : 0;
    int v = 0, n = -1;
    CUdevice d;
    CUcontext c;
    CUdeviceptr p;

    /* before cuInit */
    OK(cuDriverGetVersion(&v));
    TRUE(v == 13000);
    EXPECT(cuDriverGetVersion(NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuDeviceGet(&d, 0), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuCtxGetCurrent(&c), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuMemAlloc(&p, 16), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuInit(1), CUDA_ERROR_INVALID_VALUE);

    MUST(cuInit(0));
    OK(cuInit(0)); /* idempotent */
    OK(cuDeviceGetCount(&n));
    TRUE(n == 1);
    EXPECT(cuDeviceGetCount(NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuDeviceGet(&d, 0));
    TRUE(d == 0);
    EXPECT(cuDeviceGet(&d, 1), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDeviceGet(&d, -1), CUDA_ERROR_INVALID_DEVICE);

    char name[256] = "";
    OK(cuDeviceGetName(name, sizeof name, 0));
    TRUE(strncmp(name, "ptx2native CPU", 14) == 0);
    EXPECT(cuDeviceGetName(name, sizeof name, 5), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDeviceGetName(NULL, 10, 0), CUDA_ERROR_INVALID_VALUE);

    size_t mem = 0;
    OK(cuDeviceTotalMem(&mem, 0));
    TRUE(mem > ((size_t)64 << 20));

    int major = 0, minor = -1, a = 0;
    OK(cuDeviceComputeCapability(&major, &minor, 0));
    TRUE(major == want_major && minor == want_minor);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0));
    TRUE(a == want_major);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0));
    TRUE(a == want_minor);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0));
    TRUE(a == 32);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0));
    TRUE(a == 1024);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 0));
    TRUE(a == 64);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 0));
    TRUE(a == 2147483647);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 0));
    TRUE(a == 49152);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0));
    TRUE(a >= 65536);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    TRUE(a >= 1);
    OK(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 0));
    TRUE(a == 1);
    EXPECT(cuDeviceGetAttribute(&a, (CUdevice_attribute)0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetAttribute(&a, (CUdevice_attribute)100000, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetAttribute(NULL, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 3), CUDA_ERROR_INVALID_DEVICE);
    /* the whole table: every attribute of CUDA 13 answers */
    for (int id = 1; id < CU_DEVICE_ATTRIBUTE_MAX; id++) {
        CUresult r = cuDeviceGetAttribute(&a, (CUdevice_attribute)id, 0);
        if (r != CUDA_SUCCESS) {
            fprintf(stderr, "attribute %d: %s\n", id, check_name(r));
            check_failures++;
        }
    }

    CUuuid u1, u2;
    OK(cuDeviceGetUuid(&u1, 0));
    OK(cuDeviceGetUuid(&u2, 0));
    TRUE(memcmp(u1.bytes, u2.bytes, 16) == 0);
    EXPECT(cuDeviceGetUuid(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    return check_done("test_init");
}
