/* run_defer.c — a module with one good and one unsupported kernel (defer_unsupported.ptx) through libcuda.so.1
 * on a device without sub-groups (PoCL): the module loads, `good` runs and writes tid + 100, `bad` (a warp
 * shuffle in a .func it calls) fails at its launch with CUDA_ERROR_NOT_SUPPORTED and the runtime prints
 * "kernel 'bad': ... at FILE:LINE:COL" on stderr (the CTest checks that line); the context stays usable. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../driver/check.h"

#define CK MUST

static int run_good(CUmodule mod, CUdeviceptr d, unsigned n) {
    CUfunction fn;
    CK(cuModuleGetFunction(&fn, mod, "good"));
    CK(cuMemsetD32(d, 0, n));
    void *args[] = {&d};
    CK(cuLaunchKernel(fn, 1, 1, 1, n, 1, 1, 0, NULL, args, NULL));
    CK(cuCtxSynchronize());
    unsigned out[64];
    CK(cuMemcpyDtoH(out, d, n * 4));
    for (unsigned i = 0; i < n; i++)
        if (out[i] != i + 100) { fprintf(stderr, "good: out[%u] = %u, want %u\n", i, out[i], i + 100); return 1; }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: run_defer defer_unsupported.ptx\n"); return 2; }
    CUmodule mod = must_load_ptx(argv[1]);
    const unsigned n = 64;
    CUdeviceptr d;
    CK(cuMemAlloc(&d, n * 4));
    if (run_good(mod, d, n)) return 1;
    CUfunction bad;
    CK(cuModuleGetFunction(&bad, mod, "bad"));
    CK(cuMemsetD32(d, 7, n));
    void *args[] = {&d};
    CUresult r = cuLaunchKernel(bad, 1, 1, 1, n, 1, 1, 0, NULL, args, NULL);
    if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
    if (r != CUDA_ERROR_NOT_SUPPORTED) { fprintf(stderr, "bad: launch gave %d, want 801\n", (int)r); return 1; }
    unsigned out[64];
    CK(cuMemcpyDtoH(out, d, n * 4));
    for (unsigned i = 0; i < n; i++)
        if (out[i] != 7) { fprintf(stderr, "bad: the stub wrote out[%u] = %u\n", i, out[i]); return 1; }
    /* not sticky: the good kernel still runs, and a second launch of the bad one fails the same way */
    if (run_good(mod, d, n)) return 1;
    r = cuLaunchKernel(bad, 1, 1, 1, n, 1, 1, 0, NULL, args, NULL);
    if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
    if (r != CUDA_ERROR_NOT_SUPPORTED) { fprintf(stderr, "bad (again): launch gave %d, want 801\n", (int)r); return 1; }
    CK(cuMemFree(d));
    CK(cuModuleUnload(mod));
    printf("defer: good ran, bad failed with 801 twice\n");
    return 0;
}
