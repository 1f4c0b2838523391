/* test_cluster.c — thread-block clusters through libcuda.so.1 without cluster launch (tests/driver/cluster.ptx):
 * a plain launch and cuLaunchKernelEx with a 1x1x1 cluster run every block as a cluster of one (rank 0, mapa to
 * the own shared memory); clusters of more blocks — the launch attribute or the kernel's .reqnctapercluster —
 * fail with CUDA_ERROR_NOT_SUPPORTED and leave the context usable; an .explicitcluster kernel needs cluster
 * dimensions (CUDA_ERROR_INVALID_CLUSTER_SIZE without, as NVIDIA); mapa to another rank takes the trap path
 * (CUDA_ERROR_LAUNCH_FAILED, sticky: last).
 * Cluster launches: st.async / red.async (also in a .func) run in a launch with cluster dimensions (cuLaunchKernelEx,
 * cuFuncSetAttribute REQUIRED_CLUSTER_*, .reqnctapercluster 1,1,1) and fail the launch with
 * CUDA_ERROR_ILLEGAL_INSTRUCTION without (sticky: the primary context is reset after each), as recorded on NVIDIA
 * (conformance cluster/st_async_red_async); %is_explicit_cluster says which. */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

static int check_rank0(CUdeviceptr d, unsigned nblk) {
    uint32_t o[8 * 5];
    MUST(cuMemcpyDtoH(o, d, nblk * 20));
    int bad = 0;
    for (unsigned b = 0; b < nblk; b++) {
        const uint32_t want[5] = {b, nblk, 0, 1, 1000 + b};
        if (memcmp(&o[5 * b], want, sizeof want)) {
            fprintf(stderr, "block %u: %u %u %u %u %u\n", b, o[5 * b], o[5 * b + 1], o[5 * b + 2], o[5 * b + 3], o[5 * b + 4]);
            bad = 1;
        }
    }
    return bad;
}

/* out[b] == base + b for the blocks of a launch of nblk blocks */
static int check_seq(CUdeviceptr d, unsigned nblk, uint32_t base) {
    uint32_t o[8];
    MUST(cuMemcpyDtoH(o, d, nblk * 4));
    int bad = 0;
    for (unsigned b = 0; b < nblk; b++)
        if (o[b] != base + b) {
            fprintf(stderr, "block %u: 0x%x, expected 0x%x\n", b, o[b], base + b);
            bad = 1;
        }
    return bad;
}

/* after a sticky error: a fresh primary context and the module loaded again */
static CUmodule reset_and_reload(const char *path, CUdeviceptr *d) {
    CUdevice dev;
    MUST(cuDeviceGet(&dev, 0));
    MUST(cuDevicePrimaryCtxReset(dev));
    CUmodule mod = must_load_ptx(path);
    MUST(cuMemAlloc(d, 256));
    return mod;
}

/* a launch of f without cluster dimensions fails with ILLEGAL_INSTRUCTION at the next call (sticky) */
static void expect_illegal(CUfunction f, CUdeviceptr d) {
    void *args[] = {&d};
    CUresult r = cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, NULL, args, NULL);
    if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
    EXPECT(r, CUDA_ERROR_ILLEGAL_INSTRUCTION);
    uint32_t w;
    EXPECT(cuMemcpyDtoH(&w, d, 4), CUDA_ERROR_ILLEGAL_INSTRUCTION); /* the context stays failed */
}

static void cluster_launches(const char *path) {
    CUdeviceptr d;
    CUmodule mod = reset_and_reload(path, &d);
    CUfunction st, red, stn, redn, redn_req1, isx;
    MUST(cuModuleGetFunction(&st, mod, "k_st_async"));
    MUST(cuModuleGetFunction(&red, mod, "k_red_fn"));
    MUST(cuModuleGetFunction(&stn, mod, "k_st_nowait"));
    MUST(cuModuleGetFunction(&redn, mod, "k_red_nowait"));
    MUST(cuModuleGetFunction(&redn_req1, mod, "k_red_nowait_req1"));
    MUST(cuModuleGetFunction(&isx, mod, "k_is_explicit"));
    void *args[] = {&d};
    CUlaunchAttribute at = {.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION};
    at.value.clusterDim.x = at.value.clusterDim.y = at.value.clusterDim.z = 1;
    CUlaunchConfig cfg = {.gridDimX = 2, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 32, .blockDimY = 1,
                          .blockDimZ = 1, .attrs = &at, .numAttrs = 1};

    /* cuLaunchKernelEx with a 1x1x1 cluster: st.async and red.async (in the .func) run */
    OK(cuMemsetD8(d, 0xcd, 256));
    OK(cuLaunchKernelEx(&cfg, stn, args, NULL));
    OK(cuCtxSynchronize());
    TRUE(check_seq(d, 2, 0x1234) == 0);
    OK(cuMemsetD8(d, 0xcd, 256));
    OK(cuLaunchKernelEx(&cfg, redn, args, NULL));
    OK(cuCtxSynchronize());
    TRUE(check_seq(d, 2, 0x77) == 0);
    /* with the mbarrier waits, the values the async operations wrote (also on PoCL's CPU device, which gives no
     * forward progress between work-items: the waits come after the arrivals there) */
    OK(cuMemsetD8(d, 0xcd, 256));
    OK(cuLaunchKernelEx(&cfg, st, args, NULL));
    OK(cuCtxSynchronize());
    TRUE(check_seq(d, 2, 0x1234) == 0);
    OK(cuMemsetD8(d, 0xcd, 256));
    OK(cuLaunchKernelEx(&cfg, red, args, NULL));
    OK(cuCtxSynchronize());
    TRUE(check_seq(d, 2, 105) == 0);

    /* %is_explicit_cluster of the same kernel: 0 without cluster dimensions, 1 with */
    cfg.numAttrs = 0;
    OK(cuMemsetD8(d, 0xcd, 256));
    OK(cuLaunchKernelEx(&cfg, isx, args, NULL));
    OK(cuCtxSynchronize());
    TRUE(check_seq(d, 1, 0) == 0);
    cfg.numAttrs = 1;
    OK(cuLaunchKernelEx(&cfg, isx, args, NULL));
    OK(cuCtxSynchronize());
    TRUE(check_seq(d, 1, 1) == 0);
    OK(cuLaunchKernel(isx, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    TRUE(check_seq(d, 1, 0) == 0);

    /* .reqnctapercluster 1,1,1: a plain launch is a cluster launch, also for the .func; its cluster dimensions
     * are fixed (cuda.h: setting them at run time is CUDA_ERROR_NOT_PERMITTED) */
    OK(cuMemsetD8(d, 0xcd, 256));
    OK(cuLaunchKernel(redn_req1, 2, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    TRUE(check_seq(d, 2, 0x77) == 0);
    EXPECT(cuFuncSetAttribute(redn_req1, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 1), CUDA_ERROR_NOT_PERMITTED);
    int v = -1;
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, redn_req1));
    TRUE(v == 1);

    /* cluster dimensions by cuFuncSetAttribute: all three or none; 1x1x1 makes cuLaunchKernel a cluster launch */
    OK(cuFuncSetAttribute(stn, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 1));
    EXPECT(cuLaunchKernel(stn, 2, 1, 1, 32, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    OK(cuFuncSetAttribute(stn, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, 1));
    OK(cuFuncSetAttribute(stn, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, 1));
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, stn));
    TRUE(v == 1);
    OK(cuMemsetD8(d, 0xcd, 256));
    OK(cuLaunchKernel(stn, 2, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    TRUE(check_seq(d, 2, 0x1234) == 0);
    OK(cuFuncSetAttribute(stn, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 2)); /* 2x1x1: not offered */
    EXPECT(cuLaunchKernel(stn, 2, 1, 1, 32, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_NOT_SUPPORTED);
    for (int a = CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH; a <= CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH; a++)
        OK(cuFuncSetAttribute(stn, (CUfunction_attribute)a, 0));
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, stn));
    TRUE(v == 0);

    /* no cluster dimensions: the launch fails with ILLEGAL_INSTRUCTION (st.async; red.async in the .func) */
    expect_illegal(stn, d);
    mod = reset_and_reload(path, &d);
    MUST(cuModuleGetFunction(&redn, mod, "k_red_nowait"));
    expect_illegal(redn, d);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: test_cluster cluster.ptx\n"); return 2; }
    CUmodule mod = must_load_ptx(argv[1]);
    CUfunction rank0, rank1, pair;
    MUST(cuModuleGetFunction(&rank0, mod, "k_rank0"));
    MUST(cuModuleGetFunction(&rank1, mod, "k_rank1"));
    MUST(cuModuleGetFunction(&pair, mod, "k_pair"));
    CUdeviceptr d;
    MUST(cuMemAlloc(&d, 256));
    void *args[] = {&d};

    /* plain launch: 8 clusters of one block */
    OK(cuMemsetD8(d, 0xcd, 256));
    OK(cuLaunchKernel(rank0, 8, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    TRUE(check_rank0(d, 8) == 0);

    /* cuLaunchKernelEx with an explicit 1x1x1 cluster: the same */
    CUlaunchAttribute at = {.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION};
    at.value.clusterDim.x = at.value.clusterDim.y = at.value.clusterDim.z = 1;
    CUlaunchConfig cfg = {.gridDimX = 4, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 32, .blockDimY = 1,
                          .blockDimZ = 1, .attrs = &at, .numAttrs = 1};
    OK(cuMemsetD8(d, 0xcd, 256));
    OK(cuLaunchKernelEx(&cfg, rank0, args, NULL));
    OK(cuCtxSynchronize());
    TRUE(check_rank0(d, 4) == 0);

    /* clusters of two blocks: refused, nothing runs, the context stays usable */
    at.value.clusterDim.x = 2;
    OK(cuMemsetD8(d, 0xcd, 256));
    EXPECT(cuLaunchKernelEx(&cfg, rank0, args, NULL), CUDA_ERROR_NOT_SUPPORTED);
    uint32_t w = 0;
    OK(cuMemcpyDtoH(&w, d, 4));
    TRUE(w == 0xcdcdcdcd);
    CUresult r = cuLaunchKernel(pair, 2, 1, 1, 32, 1, 1, 0, NULL, args, NULL);
    if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
    EXPECT(r, CUDA_ERROR_NOT_SUPPORTED);
    OK(cuMemcpyDtoH(&w, d, 4));
    TRUE(w == 0xcdcdcdcd);
    OK(cuLaunchKernel(rank0, 2, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    TRUE(check_rank0(d, 2) == 0);

    /* .explicitcluster: no launch without cluster dimensions (CUDA_ERROR_INVALID_CLUSTER_SIZE, not sticky), a
     * 1x1x1 cluster launch runs and sees %is_explicit_cluster */
    CUfunction expl;
    MUST(cuModuleGetFunction(&expl, mod, "k_explicit"));
    OK(cuMemsetD8(d, 0xcd, 256));
    EXPECT(cuLaunchKernel(expl, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    OK(cuCtxSynchronize());
    at.value.clusterDim.x = 1;
    cfg.gridDimX = 1;
    OK(cuLaunchKernelEx(&cfg, expl, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(&w, d, 4));
    TRUE(w == 1);

    cluster_launches(argv[1]);
    /* mapa to rank 1: the trap path, before the load through it (a context of its own after the sticky errors) */
    mod = reset_and_reload(argv[1], &d);
    args[0] = &d;
    MUST(cuModuleGetFunction(&rank1, mod, "k_rank1"));
    OK(cuMemsetD8(d, 0xcd, 256));
    OK(cuLaunchKernel(rank1, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
    return check_done("test_cluster");
}
