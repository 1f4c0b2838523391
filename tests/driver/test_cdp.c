/* test_cdp.c — CUDA dynamic parallelism through the driver API, from PTX that calls the device runtime as nvcc
 * emits it without libcudadevrt (.extern .func __cudaCDP2*: cdp.ptx, from tests/programs/dynamic_parallelism.cu):
 * the host target's own device-runtime bodies (abi/device_runtime.def) and the CPU runtime's schedule
 * (driver-stub/cpu/cpu_devrt.c). Expected values are computed here, as the program computes them (that program
 * passes on an H100 too). Usage: test_cdp CDP.PTX
 *   - a binary tree of launches 6 deep: every node's depth written once
 *   - a child in a device-created stream, then cudaMemcpyAsync in that stream: the copy sees the child's results
 *   - a tail launch; device cudaMalloc/cudaFree; an invalid child configuration seen by cudaGetLastError (once)
 *   - a child's trap: the parent's launch fails with CUDA_ERROR_LAUNCH_FAILED (sticky, so last). */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/test_file.h"

static int fails;
#define CK(x)                                                                                         \
    do {                                                                                              \
        CUresult r_ = (x);                                                                            \
        if (r_ != CUDA_SUCCESS) {                                                                     \
            fprintf(stderr, "FAIL %s:%d: %s returned %d\n", __FILE__, __LINE__, #x, (int)r_);          \
            exit(1);                                                                                  \
        }                                                                                             \
    } while (0)
#define EXPECT(c)                                                                                     \
    do {                                                                                              \
        if (!(c)) {                                                                                   \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);                               \
            fails++;                                                                                  \
        }                                                                                             \
    } while (0)

static CUmodule mod;
static CUfunction fn(const char *name)
{
    CUfunction f;
    CK(cuModuleGetFunction(&f, mod, name));
    return f;
}
static CUresult run1(const char *name, void **args)
{
    CUresult r = cuLaunchKernel(fn(name), 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
    return r != CUDA_SUCCESS ? r : cuCtxSynchronize();
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_cdp CDP.PTX\n");
        return 2;
    }
    size_t len;
    char *ptx = test_read_file(argv[1], &len);
    CUdevice dev;
    CUcontext ctx;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuCtxCreate(&ctx, NULL, 0, dev));
    CK(cuModuleLoadData(&mod, ptx));

    enum { DEPTH = 6, NODES = (1 << (DEPTH + 1)) - 1, N = 1000 };
    CUdeviceptr depth_of, a, b, status, flag;
    CK(cuMemAlloc(&depth_of, NODES * sizeof(int)));
    CK(cuMemsetD8(depth_of, 0xff, NODES * sizeof(int)));
    int node = 0, depth = 0;
    void *targs[] = {&depth_of, &node, &depth};
    CK(cuLaunchKernel(fn("_Z4treePiii"), 1, 1, 1, 32, 1, 1, 0, NULL, targs, NULL));
    CK(cuCtxSynchronize());
    int h[NODES];
    CK(cuMemcpyDtoH(h, depth_of, sizeof h));
    for (int i = 0; i < NODES; i++) {
        int d = 0;
        for (int k = i; k > 0; k = (k - 1) / 2)
            d++;
        EXPECT(h[i] == d);
    }

    CK(cuMemAlloc(&a, N * sizeof(int)));
    CK(cuMemAlloc(&b, N * sizeof(int)));
    CK(cuMemAlloc(&status, 4 * sizeof(int)));
    CK(cuMemsetD8(a, 0, N * sizeof(int)));
    CK(cuMemsetD8(b, 0xff, N * sizeof(int)));
    int n = N;
    void *pargs[] = {&a, &b, &n, &status};
    CK(run1("_Z17produce_then_copyPiS_iS_", pargs));
    int hb[N], hs[4];
    CK(cuMemcpyDtoH(hb, b, sizeof hb));
    CK(cuMemcpyDtoH(hs, status, sizeof hs));
    for (int k = 0; k < 4; k++)
        EXPECT(hs[k] == 0);
    for (int i = 0; i < N; i++)
        EXPECT(hb[i] == i * i);

    CK(cuMemAlloc(&flag, sizeof(int)));
    CK(cuMemsetD32(flag, 0, 1));
    void *fargs[] = {&flag};
    CK(run1("_Z11tail_parentPi", fargs));
    int hf = 0;
    CK(cuMemcpyDtoH(&hf, flag, sizeof hf));
    EXPECT(hf == 42);

    void *sargs[] = {&status};
    CK(run1("_Z13device_mallocPi", sargs));
    CK(cuMemcpyDtoH(hs, status, 3 * sizeof(int)));
    EXPECT(hs[0] == 0 && hs[1] == 3 * 63 * 64 / 2 && hs[2] == 0);

    CK(run1("_Z10bad_configPi", sargs));
    CK(cuMemcpyDtoH(hs, status, 2 * sizeof(int)));
    EXPECT(hs[0] == 9 /* cudaErrorInvalidConfiguration */ && hs[1] == 0);

    EXPECT(run1("_Z15trapping_parentv", NULL) == CUDA_ERROR_LAUNCH_FAILED);
    free(ptx);
    if (!fails)
        printf("test_cdp: all checks passed\n");
    return fails ? 1 : 0;
}
