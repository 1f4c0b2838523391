// cooperative_reduction — a multi-block reduction with grid-wide synchronisation (the shape of NVIDIA's
// reductionMultiBlockCG sample): launched with cudaLaunchCooperativeKernel on as many blocks as can be resident at
// once (cudaOccupancyMaxActiveBlocksPerMultiprocessor x multiprocessors). Each round every block reduces its part
// of the input (scaled by the round) into partial[block]; grid.sync(); block 0 adds the partials into sums[round];
// grid.sync(); every block records the sum it now sees. Several rounds, so the grid barrier is passed many times.
// Checks every sum and every block's view of it against the host.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

namespace cg = cooperative_groups;

#include "check.h"

#define BLOCK 128
#define ROUNDS 6

__global__ void reduce_rounds(const int *in, int n, long long *partial, long long *sums, long long *seen)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    __shared__ long long s[BLOCK];
    for (int r = 0; r < ROUNDS; r++) {
        long long v = 0;
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            v += (long long)in[i] * (r + 1) + r;
        s[threadIdx.x] = v;
        block.sync();
        for (int k = blockDim.x / 2; k > 0; k /= 2) {
            if (threadIdx.x < k)
                s[threadIdx.x] += s[threadIdx.x + k];
            block.sync();
        }
        if (threadIdx.x == 0)
            partial[blockIdx.x] = s[0];
        grid.sync(); // every block's partial is written
        if (blockIdx.x == 0) {
            long long t = 0;
            for (int b = threadIdx.x; b < gridDim.x; b += blockDim.x)
                t += partial[b];
            s[threadIdx.x] = t;
            block.sync();
            for (int k = blockDim.x / 2; k > 0; k /= 2) {
                if (threadIdx.x < k)
                    s[threadIdx.x] += s[threadIdx.x + k];
                block.sync();
            }
            if (threadIdx.x == 0)
                sums[r] = s[0];
        }
        grid.sync(); // the round's sum is written, and no block overwrites partial[] before block 0 read it
        if (threadIdx.x == 0)
            seen[r * gridDim.x + blockIdx.x] = sums[r];
    }
}

int main()
{
    int dev = 0, coop = 0, sms = 0, per_sm = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    if (!coop) {
        printf("FAIL device %d does not support cooperative launch\n", dev);
        return 1;
    }
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_rounds, BLOCK, 0));
    int nblocks = per_sm * sms;
    if (nblocks < 1) {
        printf("FAIL occupancy: %d blocks per multiprocessor x %d multiprocessors\n", per_sm, sms);
        return 1;
    }
    const int n = 100003;
    std::vector<int> h(n);
    for (int i = 0; i < n; i++)
        h[i] = (int)((i * 2654435761u) % 2001u) - 1000;
    int *in;
    long long *partial, *sums, *seen;
    CHECK(cudaMalloc(&in, n * sizeof(int)));
    CHECK(cudaMalloc(&partial, nblocks * sizeof(long long)));
    CHECK(cudaMalloc(&sums, ROUNDS * sizeof(long long)));
    CHECK(cudaMalloc(&seen, (size_t)ROUNDS * nblocks * sizeof(long long)));
    CHECK(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(sums, 0, ROUNDS * sizeof(long long)));
    CHECK(cudaMemset(seen, 0xff, (size_t)ROUNDS * nblocks * sizeof(long long)));

    int nn = n;
    void *args[] = {&in, &nn, &partial, &sums, &seen};
    CHECK(cudaLaunchCooperativeKernel((void *)reduce_rounds, dim3(nblocks), dim3(BLOCK), args, 0, 0));
    CHECK(cudaDeviceSynchronize());

    // one block more than can be resident at once: refused
    cudaError_t e = cudaLaunchCooperativeKernel((void *)reduce_rounds, dim3(nblocks + 1), dim3(BLOCK), args, 0, 0);
    if (e != cudaErrorCooperativeLaunchTooLarge) {
        printf("FAIL %d blocks (limit %d): %s, expected cudaErrorCooperativeLaunchTooLarge\n", nblocks + 1, nblocks,
               cudaGetErrorString(e));
        return 1;
    }
    (void)cudaGetLastError();

    std::vector<long long> hs(ROUNDS), hseen((size_t)ROUNDS * nblocks);
    CHECK(cudaMemcpy(hs.data(), sums, ROUNDS * sizeof(long long), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hseen.data(), seen, hseen.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        long long want = 0;
        for (int i = 0; i < n; i++)
            want += (long long)h[i] * (r + 1) + r;
        if (hs[r] != want) {
            printf("FAIL round %d: sum %lld, expected %lld\n", r, hs[r], want);
            bad++;
        }
        for (int b = 0; b < nblocks; b++)
            if (hseen[(size_t)r * nblocks + b] != want && bad++ < 10)
                printf("FAIL round %d: block %d saw %lld, expected %lld\n", r, b, hseen[(size_t)r * nblocks + b], want);
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(partial));
    CHECK(cudaFree(sums));
    CHECK(cudaFree(seen));
    if (bad)
        return 1;
    printf("PASS cooperative_reduction (%d blocks = %d per multiprocessor x %d, %d rounds, %d grid syncs)\n", nblocks,
           per_sm, sms, ROUNDS, 2 * ROUNDS);
    return 0;
}
