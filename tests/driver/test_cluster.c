/* test_cluster.c — thread-block clusters through libcuda.so.1 without cluster launch (tests/driver/cluster.ptx):
 * a plain launch and cuLaunchKernelEx with a 1x1x1 cluster run every block as a cluster of one (rank 0, mapa to
 * the own shared memory); clusters of more blocks — the launch attribute or the kernel's .reqnctapercluster —
 * fail with CUDA_ERROR_NOT_SUPPORTED and leave the context usable; an .explicitcluster kernel needs cluster
 * dimensions (CUDA_ERROR_INVALID_CLUSTER_SIZE without, as NVIDIA); mapa to another rank takes the trap path
 * (CUDA_ERROR_LAUNCH_FAILED, sticky: last). */
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

    /* mapa to rank 1: the trap path, before the load through it */
    OK(cuMemsetD8(d, 0xcd, 256));
    OK(cuLaunchKernel(rank1, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
    return check_done("test_cluster");
}
