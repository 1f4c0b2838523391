/* test_cooperative.c — cooperative launch through libcuda.so.1 (tests/driver/cooperative.ptx): the device says it
 * can (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH), a grid of occupancy x multiprocessors blocks passes CUDA's grid
 * barrier (the cooperative-groups pattern, by hand) many times and every thread sees the other blocks' writes of
 * each round, through cuLaunchCooperativeKernel and through cuLaunchKernelEx's COOPERATIVE attribute; %envreg1/2
 * hold a zeroed grid workspace only in a cooperative launch; a grid larger than the occupancy allows fails with
 * CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE; bad input gives CUDA's error codes and the context stays usable; a
 * block that traps while the others wait at the grid barrier fails the launch instead of hanging (sticky: last).
 * `test_cooperative cooperative.ptx refused`: a backend without cooperative launch (OpenCL, ...) says
 * COOPERATIVE_LAUNCH 0 and refuses such launches with CUDA_ERROR_NOT_SUPPORTED; plain launches see no workspace. */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define BLOCK 64u
#define MAX_TEST_BLOCKS 48u /* at most this many blocks (threads of the CPU backend) in the barrier rounds */
#define ITERS 25u

/* runs k_grid_iter on nblk blocks (cooperative: through cuLaunchCooperativeKernel; cuLaunchKernelEx when ex is 1;
 * a cuLaunchCooperativeKernel captured into a graph, the graph launched, when ex is 2) and checks that no thread
 * saw a stale value in any round and the data holds the last round's values */
static void grid_rounds(CUfunction f, unsigned nblk, int ex) {
    unsigned total = nblk * BLOCK;
    CUdeviceptr data, err;
    MUST(cuMemAlloc(&data, total * 4));
    MUST(cuMemAlloc(&err, total * 4));
    OK(cuMemsetD8(data, 0, total * 4));
    OK(cuMemsetD8(err, 0xcd, total * 4));
    unsigned iters = ITERS;
    void *args[] = {&data, &err, &iters};
    if (ex == 2) {
        CUstream s;
        CUgraph g;
        CUgraphExec e;
        OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
        OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
        OK(cuLaunchCooperativeKernel(f, nblk, 1, 1, BLOCK, 1, 1, 0, s, args));
        OK(cuStreamEndCapture(s, &g));
        CUgraphNode n;
        size_t nn = 1;
        OK(cuGraphGetNodes(g, &n, &nn));
        CUkernelNodeAttrValue v;
        OK(cuGraphKernelNodeGetAttribute(n, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v));
        TRUE(v.cooperative == 1);   /* the node launches as it was captured */
        OK(cuGraphInstantiate(&e, g, 0));
        OK(cuGraphLaunch(e, s));
        OK(cuStreamSynchronize(s));
        OK(cuGraphExecDestroy(e));
        OK(cuGraphDestroy(g));
        OK(cuStreamDestroy(s));
    } else if (ex) {
        CUlaunchAttribute at = {.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE};
        at.value.cooperative = 1;
        CUlaunchConfig cfg = {.gridDimX = nblk, .gridDimY = 1, .gridDimZ = 1, .blockDimX = BLOCK, .blockDimY = 1,
                              .blockDimZ = 1, .attrs = &at, .numAttrs = 1};
        OK(cuLaunchKernelEx(&cfg, f, args, NULL));
    } else {
        OK(cuLaunchCooperativeKernel(f, nblk, 1, 1, BLOCK, 1, 1, 0, NULL, args));
    }
    OK(cuCtxSynchronize());
    uint32_t *e = malloc(total * 4), *d = malloc(total * 4);
    TRUE(e && d);
    if (e && d) {
        OK(cuMemcpyDtoH(e, err, total * 4));
        OK(cuMemcpyDtoH(d, data, total * 4));
        unsigned bad = 0;
        for (unsigned g = 0; g < total; g++) {
            if (e[g] != 0 && bad++ < 5)
                fprintf(stderr, "thread %u of %u blocks: %u stale reads (0xffffffff: no workspace)\n", g, nblk, e[g]);
            if (d[g] != (ITERS - 1) * total + g + 1 && bad++ < 5)
                fprintf(stderr, "data[%u] = %u\n", g, d[g]);
        }
        TRUE(bad == 0);
    }
    free(e);
    free(d);
    OK(cuMemFree(data));
    OK(cuMemFree(err));
}

/* k_envreg's words: {envreg1, envreg2, envreg0, envreg3, barrier word or 0xffffffff} */
static void read_envreg(CUdeviceptr d, uint32_t o[5]) {
    memset(o, 0, 5 * sizeof o[0]);
    OK(cuMemcpyDtoH(o, d, 5 * sizeof o[0]));
}

/* a backend without cooperative launch: the attribute says 0, both launch paths refuse, the context stays usable
 * and a plain launch has no grid workspace (%envreg1/2 are 0, never a stale value) */
static int refused_backend(CUmodule mod, CUdevice dev) {
    int coop = -1;
    OK(cuDeviceGetAttribute(&coop, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, dev));
    TRUE(coop == 0);
    CUfunction envreg;
    MUST(cuModuleGetFunction(&envreg, mod, "k_envreg"));
    CUdeviceptr d;
    MUST(cuMemAlloc(&d, 64));
    void *args[] = {&d};
    EXPECT(cuLaunchCooperativeKernel(envreg, 1, 1, 1, 32, 1, 1, 0, NULL, args), CUDA_ERROR_NOT_SUPPORTED);
    CUlaunchAttribute at = {.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE};
    at.value.cooperative = 1;
    CUlaunchConfig cfg = {.gridDimX = 1, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 32, .blockDimY = 1,
                          .blockDimZ = 1, .attrs = &at, .numAttrs = 1};
    EXPECT(cuLaunchKernelEx(&cfg, envreg, args, NULL), CUDA_ERROR_NOT_SUPPORTED);
    uint32_t o[5];
    OK(cuMemsetD8(d, 0xcd, 64));
    OK(cuLaunchKernel(envreg, 2, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    read_envreg(d, o);
    TRUE(o[0] == 0 && o[1] == 0 && o[2] == 0 && o[3] == 0 && o[4] == 0xffffffffu);
    OK(cuMemFree(d));
    return check_done("test_cooperative");
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: test_cooperative cooperative.ptx [refused]\n"); return 2; }
    CUmodule mod = must_load_ptx(argv[1]);
    CUdevice dev;
    MUST(cuDeviceGet(&dev, 0));
    if (argc > 2 && !strcmp(argv[2], "refused"))
        return refused_backend(mod, dev);
    int coop = -1, sms = 0, per_sm = 0;
    OK(cuDeviceGetAttribute(&coop, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, dev));
    TRUE(coop == 1); /* the CPU backend */
    OK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    CUfunction iter, envreg, trapk;
    MUST(cuModuleGetFunction(&iter, mod, "k_grid_iter"));
    MUST(cuModuleGetFunction(&envreg, mod, "k_envreg"));
    MUST(cuModuleGetFunction(&trapk, mod, "k_trap_before_sync"));
    OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, iter, BLOCK, 0));
    TRUE(per_sm > 0 && sms > 0);
    unsigned max_blocks = (unsigned)per_sm * (unsigned)sms;
    unsigned nblk = max_blocks < MAX_TEST_BLOCKS ? max_blocks : MAX_TEST_BLOCKS;
    printf("cooperative grid: %d blocks/SM x %d SMs = %u blocks; testing %u\n", per_sm, sms, max_blocks, nblk);

    /* the grid barrier, many rounds: the full test grid, one block, and through cuLaunchKernelEx */
    grid_rounds(iter, nblk, 0);
    grid_rounds(iter, 1, 0);
    grid_rounds(iter, nblk, 1);
    grid_rounds(iter, nblk, 2);

    /* %envreg1/2: a zeroed workspace in a cooperative launch, none in a plain one; %envreg0/3 are 0 */
    CUdeviceptr d;
    MUST(cuMemAlloc(&d, 64));
    void *args[] = {&d};
    uint32_t o[5];
    OK(cuMemsetD8(d, 0xcd, 64));
    OK(cuLaunchCooperativeKernel(envreg, 2, 1, 1, 32, 1, 1, 0, NULL, args));
    OK(cuCtxSynchronize());
    read_envreg(d, o);
    TRUE(o[0] != 0 && o[0] < 0x8000u); /* %envreg1 is the HIGH half (of an x86-64 user-space address) */
    TRUE(o[2] == 0 && o[3] == 0);
    TRUE(o[4] == 0);
    OK(cuMemsetD8(d, 0xcd, 64));
    OK(cuLaunchKernel(envreg, 2, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    read_envreg(d, o);
    TRUE(o[0] == 0 && o[1] == 0 && o[2] == 0 && o[3] == 0 && o[4] == 0xffffffffu);
    /* a plain launch of the barrier kernel: no workspace, which it reports */
    {
        CUdeviceptr data, err;
        MUST(cuMemAlloc(&data, BLOCK * 4));
        MUST(cuMemAlloc(&err, BLOCK * 4));
        unsigned iters = 1;
        void *a[] = {&data, &err, &iters};
        OK(cuLaunchKernel(iter, 1, 1, 1, BLOCK, 1, 1, 0, NULL, a, NULL));
        uint32_t e0 = 0;
        OK(cuMemcpyDtoH(&e0, err, 4));
        TRUE(e0 == 0xffffffffu);
        OK(cuMemFree(data));
        OK(cuMemFree(err));
    }

    /* too large: one block more than occupancy x multiprocessors (also spread over y), or a block size with no
     * occupancy at all (more threads than the kernel allows is a plain INVALID_VALUE) */
    CUdeviceptr data, err;
    MUST(cuMemAlloc(&data, 4));
    MUST(cuMemAlloc(&err, 4));
    unsigned iters = 0;
    void *a3[] = {&data, &err, &iters};
    EXPECT(cuLaunchCooperativeKernel(iter, max_blocks + 1, 1, 1, BLOCK, 1, 1, 0, NULL, a3),
           CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    EXPECT(cuLaunchCooperativeKernel(iter, max_blocks, 2, 1, BLOCK, 1, 1, 0, NULL, a3),
           CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    {
        CUlaunchAttribute at = {.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE};
        at.value.cooperative = 1;
        CUlaunchConfig cfg = {.gridDimX = max_blocks + 1, .gridDimY = 1, .gridDimZ = 1, .blockDimX = BLOCK,
                              .blockDimY = 1, .blockDimZ = 1, .attrs = &at, .numAttrs = 1};
        EXPECT(cuLaunchKernelEx(&cfg, iter, a3, NULL), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
        at.value.cooperative = 0; /* a plain launch of such a grid is fine (k_envreg: only block 0 writes) */
        OK(cuMemsetD8(d, 0xcd, 64));
        OK(cuLaunchKernelEx(&cfg, envreg, args, NULL));
        OK(cuCtxSynchronize());
        read_envreg(d, o);
        TRUE(o[0] == 0 && o[1] == 0 && o[4] == 0xffffffffu);
    }
    /* the limit follows the occupancy of the launch's shape: fewer blocks fit with more shared memory each */
    {
        int per_sm_smem = 0;
        OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_smem, envreg, 32, 40 * 1024));
        TRUE(per_sm_smem > 0 && per_sm_smem < per_sm);
        unsigned lim = (unsigned)per_sm_smem * (unsigned)sms;
        EXPECT(cuLaunchCooperativeKernel(envreg, lim + 1, 1, 1, 32, 1, 1, 40 * 1024, NULL, args),
               CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    }

    /* bad input: CUDA's codes, nothing runs, the context stays usable */
    EXPECT(cuLaunchCooperativeKernel(NULL, 1, 1, 1, 32, 1, 1, 0, NULL, a3), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLaunchCooperativeKernel((CUfunction)(uintptr_t)0x1234, 1, 1, 1, 32, 1, 1, 0, NULL, a3),
           CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLaunchCooperativeKernel(iter, 1, 1, 1, 32, 1, 1, 0, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchCooperativeKernel(iter, 0, 1, 1, 32, 1, 1, 0, NULL, a3), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchCooperativeKernel(iter, 1, 1, 1, 2048, 1, 1, 0, NULL, a3), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchCooperativeKernel(iter, 1, 1, 1, 32, 1, 1, 0, (CUstream)(uintptr_t)0x5678, a3),
           CUDA_ERROR_INVALID_HANDLE);
    grid_rounds(iter, 2, 0);

    /* a block traps while the others wait at the grid barrier: the launch fails (sticky), no hang */
    unsigned tb = nblk >= 2 ? nblk : 2;
    if (tb > max_blocks)
        tb = max_blocks;
    if (tb >= 2) {
        CUresult r = cuLaunchCooperativeKernel(trapk, tb, 1, 1, 32, 1, 1, 0, NULL, NULL);
        if (r == CUDA_SUCCESS)
            r = cuCtxSynchronize();
        EXPECT(r, CUDA_ERROR_LAUNCH_FAILED);
    }
    return check_done("test_cooperative");
}
