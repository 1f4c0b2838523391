/* test_native.c — a driver-API program that carries its kernel the way nvcc lays it out: the fatbin
 * container (NATIVE_FATBIN, built by nvcc --fatbin from examples/vecadd.cu) in an allocated `.nv_fatbin`
 * section and a 24-byte wrapper {magic, version, data, 0} pointing at it in `.nvFatBinSegment`. It passes
 * the wrapper to cuModuleLoadData, as cudart does with cuLibraryLoadData. run-native.sh rewrites this
 * executable with ptx2native-fatbin and checks that the driver stub then loads the recorded native code.
 *
 *   test_native run      load, launch vecadd, check the sums
 *   test_native refused  the load must fail with CUDA_ERROR_NO_BINARY_FOR_GPU (P2N_REQUIRE_NATIVE=1, no code)
 *
 * Built three ways: a program with its own container (default); with NATIVE_LIBRARY, a shared library holding
 * the container and exporting test_native_wrapper(); with NATIVE_USE_LIBRARY, a program whose container is
 * the library's (the stub must then read the library's file, not the program's).
 */
#include <stdint.h>
#include <string.h>

#include "check.h"

#ifndef NATIVE_USE_LIBRARY
#ifndef NATIVE_FATBIN
#error "NATIVE_FATBIN must name the fatbin container to embed"
#endif

/* 8-aligned like nvcc's containers; the padding after it keeps the section a multiple of 8 */
__asm__(".section .nv_fatbin,\"a\"\n"
        ".p2align 3\n"
        "test_native_container:\n"
        ".incbin \"" NATIVE_FATBIN "\"\n"
        ".p2align 3\n"
        ".previous\n");
extern const unsigned char test_native_container[];

typedef struct fatbin_wrapper {
    uint32_t magic;
    uint32_t version;
    const void *data;
    const void *filename_or_fatbins;
} fatbin_wrapper;

__attribute__((section(".nvFatBinSegment"), aligned(8), used))
static const fatbin_wrapper wrapper = {0x466243B1u, 1, test_native_container, NULL};

const void *test_native_wrapper(void);
const void *test_native_wrapper(void)
{
    return &wrapper;
}
#else
const void *test_native_wrapper(void);
#endif

#ifndef NATIVE_LIBRARY

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "run";
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    MUST(cuInit(0));
    MUST(cuDeviceGet(&dev, 0));
    MUST(cuDevicePrimaryCtxRetain(&ctx, dev));
    MUST(cuCtxSetCurrent(ctx));
    if (strcmp(mode, "refused") == 0) {
        EXPECT(cuModuleLoadData(&mod, test_native_wrapper()), CUDA_ERROR_NO_BINARY_FOR_GPU);
        return check_done("test_native");
    }
    MUST(cuModuleLoadData(&mod, test_native_wrapper()));
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "vecadd"));
    enum { N = 1000 };
    static float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i + 1.0f;
        c[i] = -1.0f;
    }
    CUdeviceptr da, db, dc;
    MUST(cuMemAlloc(&da, sizeof a));
    MUST(cuMemAlloc(&db, sizeof b));
    MUST(cuMemAlloc(&dc, sizeof c));
    OK(cuMemcpyHtoD(da, a, sizeof a));
    OK(cuMemcpyHtoD(db, b, sizeof b));
    OK(cuMemsetD32(dc, 0, N));
    int n = N;
    void *args[] = {&da, &db, &dc, &n};
    OK(cuLaunchKernel(f, 3, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(c, dc, sizeof c));
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += c[i] != a[i] + b[i];
    TRUE(bad == 0);
    OK(cuMemFree(da));
    OK(cuMemFree(db));
    OK(cuMemFree(dc));
    OK(cuModuleUnload(mod));
    return check_done("test_native");
}
#endif
