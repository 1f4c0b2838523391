/* run_vecadd.c — examples/vecadd.ptx through libcuda.so.1 (driver API only): c = a + b on n floats.
 * Used with P2N_BACKEND=opencl on PoCL (SPIR-V execution test) and P2N_BACKEND=level0 (must fail cleanly
 * with CUDA_ERROR_NO_DEVICE when no driver is present: argument --expect-no-device). With
 * $P2N_TEST_REPORT_COMPILER set it also says whether the compiler library was mapped (the JIT cache test). */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../driver/check.h"

#define CK MUST

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: run_vecadd vecadd.ptx [--expect-no-device]\n"); return 2; }
    CUresult ir = cuInit(0);
    if (argc > 2 && !strcmp(argv[2], "--expect-no-device")) {
        printf("cuInit = %d\n", (int)ir);
        return ir == CUDA_ERROR_NO_DEVICE ? 0 : 1;
    }
    CUmodule mod = must_load_ptx(argv[1]);
    CUfunction fn;
    CK(cuModuleGetFunction(&fn, mod, "vecadd"));
    enum { N = 100003 };
    float *a = malloc(N * 4), *b = malloc(N * 4), *c = malloc(N * 4);
    for (int i = 0; i < N; i++) { a[i] = (float)i; b[i] = 0.5f * (float)i + 1.0f; }
    CUdeviceptr da, db, dc;
    CK(cuMemAlloc(&da, N * 4));
    CK(cuMemAlloc(&db, N * 4));
    CK(cuMemAlloc(&dc, N * 4));
    CK(cuMemcpyHtoD(da, a, N * 4));
    CK(cuMemcpyHtoD(db, b, N * 4));
    CK(cuMemsetD8(dc, 0, N * 4));
    int n = N;
    void *args[] = {&da, &db, &dc, &n};
    CK(cuLaunchKernel(fn, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    CK(cuCtxSynchronize());
    CK(cuMemcpyDtoH(c, dc, N * 4));
    int bad = 0;
    for (int i = 0; i < N; i++)
        if (c[i] != a[i] + b[i] && bad++ < 5) fprintf(stderr, "c[%d] = %g, want %g\n", i, c[i], a[i] + b[i]);
    printf("vecadd: %d of %d wrong\n", bad, N);
    if (getenv("P2N_TEST_REPORT_COMPILER")) { /* tests/driver/check-jit-cache.sh: was the compiler ever loaded? */
        FILE *maps = fopen("/proc/self/maps", "r");
        char line[4096];
        int mapped = 0;
        while (maps && fgets(line, sizeof line, maps)) mapped |= strstr(line, "libp2n_compiler") != NULL;
        if (maps) fclose(maps);
        printf("compiler mapped: %s\n", mapped ? "yes" : "no");
    }
    cuMemFree(da);
    cuMemFree(db);
    cuMemFree(dc);
    cuModuleUnload(mod);
    free(a);
    free(b);
    free(c);
    return bad ? 1 : 0;
}
