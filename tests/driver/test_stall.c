/* test_stall.c — mbarrier waits where work-items have no forward progress (tests/driver/stall.ptx).
 * `test_stall stall.ptx complete`: every kernel completes (the CPU backend: threads on fibers; GPUs).
 * `test_stall stall.ptx stall`: PoCL's CPU device runs a work-group's work-items one after another, so
 * k_wait_later's thread 0 would poll forever for arrivals that come after it: the launch fails with
 * CUDA_ERROR_NOT_SUPPORTED after a bounded number of polls (targets/spirv/spirv_barrier.c; the runtime prints
 * which wait), the context stays usable, and k_one_arrives (thread 0 completes the phase, then all wait) runs. */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

enum { NT = 64 };

static CUresult run(CUfunction f, CUdeviceptr d) {
    void *args[] = {&d};
    CUresult r = cuMemsetD8(d, 0xcd, NT * 4);
    if (r == CUDA_SUCCESS) r = cuLaunchKernel(f, 1, 1, 1, NT, 1, 1, 0, NULL, args, NULL);
    if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
    return r;
}

static int check_out(CUdeviceptr d, uint32_t base) {
    uint32_t o[NT];
    MUST(cuMemcpyDtoH(o, d, sizeof o));
    for (unsigned t = 0; t < NT; t++)
        if (o[t] != base + t) {
            fprintf(stderr, "thread %u: 0x%x, expected 0x%x\n", t, o[t], base + t);
            return 1;
        }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3 || (strcmp(argv[2], "complete") && strcmp(argv[2], "stall"))) {
        fprintf(stderr, "usage: test_stall stall.ptx complete|stall\n");
        return 2;
    }
    int stall = !strcmp(argv[2], "stall");
    CUmodule mod = must_load_ptx(argv[1]);
    CUfunction later, before;
    MUST(cuModuleGetFunction(&later, mod, "k_wait_later"));
    MUST(cuModuleGetFunction(&before, mod, "k_one_arrives"));
    CUdeviceptr d;
    MUST(cuMemAlloc(&d, NT * 4));

    if (stall) {
        EXPECT(run(later, d), CUDA_ERROR_NOT_SUPPORTED);
    } else {
        OK(run(later, d));
        TRUE(check_out(d, 0) == 0);
    }
    /* the context is still usable; waits for a phase an earlier work-item completed finish everywhere */
    OK(run(before, d));
    TRUE(check_out(d, 100) == 0);
    OK(run(before, d));
    TRUE(check_out(d, 100) == 0);

    if (check_failures) { fprintf(stderr, "test_stall: %d check(s) failed\n", check_failures); return 1; }
    printf("test_stall: all checks passed (%s)\n", argv[2]);
    return 0;
}
