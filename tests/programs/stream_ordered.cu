// stream_ordered — cudaMallocAsync/cudaFreeAsync in a loop (a scratch buffer per iteration, as stream-ordered code
// uses them) with a kernel per iteration, the device's default pool under a release threshold (reuse: the pool's
// reserved memory stays at what one iteration needs), the used/reserved counters and their reset, an explicit pool
// with cudaMallocFromPoolAsync, and cudaMemPoolTrimTo. Checks the results against the host.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "check.h"

__global__ void fill_square(long long *out, const int *in, int k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] += (long long)in[i] * in[i] + k;
}

__global__ void iota(int *v, int base, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = base + i;
}

static uint64_t attr(cudaMemPool_t p, cudaMemPoolAttr a)
{
    uint64_t v = 0;
    if (cudaMemPoolGetAttribute(p, a, &v) != cudaSuccess)
        return ~0ull;
    return v;
}

int main()
{
    const int n = 4096, iters = 20;
    int pools = 0;
    CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0));
    if (!pools) {
        printf("FAIL stream_ordered: memoryPoolsSupported = 0\n");
        return 1;
    }
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    cudaMemPool_t def;
    CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
    uint64_t threshold = UINT64_MAX;   // keep everything freed
    CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &threshold));

    long long *acc = nullptr;
    CHECK(cudaMallocAsync(&acc, n * sizeof(long long), s));
    CHECK(cudaMemsetAsync(acc, 0, n * sizeof(long long), s));
    int bad = 0;
    uint64_t reserved_after_first = 0;
    for (int k = 0; k < iters; k++) {
        int *scratch = nullptr;
        CHECK(cudaMallocAsync(&scratch, n * sizeof(int), s));
        iota<<<(n + 255) / 256, 256, 0, s>>>(scratch, k, n);
        fill_square<<<(n + 255) / 256, 256, 0, s>>>(acc, scratch, k, n);
        CHECK(cudaGetLastError());
        CHECK(cudaFreeAsync(scratch, s));
        if (k == 0) {
            CHECK(cudaStreamSynchronize(s));
            reserved_after_first = attr(def, cudaMemPoolAttrReservedMemCurrent);
        }
    }
    CHECK(cudaStreamSynchronize(s));
    // the scratch buffer was reused: the pool holds no more than after the first iteration
    uint64_t reserved = attr(def, cudaMemPoolAttrReservedMemCurrent), used = attr(def, cudaMemPoolAttrUsedMemCurrent);
    if (reserved != reserved_after_first || used < n * sizeof(long long) || used >= reserved)
        printf("pool: reserved %llu (after one iteration %llu), used %llu\n", (unsigned long long)reserved,
               (unsigned long long)reserved_after_first, (unsigned long long)used), bad++;
    uint64_t used_high = attr(def, cudaMemPoolAttrUsedMemHigh);
    if (used_high < n * (sizeof(long long) + sizeof(int)))
        printf("used high watermark %llu\n", (unsigned long long)used_high), bad++;

    long long *host = (long long *)malloc(n * sizeof(long long));
    CHECK(cudaMemcpyAsync(host, acc, n * sizeof(long long), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; i++) {
        long long want = 0;
        for (int k = 0; k < iters; k++)
            want += (long long)(k + i) * (k + i) + k;
        if (host[i] != want && bad++ < 5)
            printf("element %d: %lld, expected %lld\n", i, host[i], want);
    }
    CHECK(cudaFreeAsync(acc, s));
    CHECK(cudaStreamSynchronize(s));

    // high watermark reset, then trimming gives everything back
    uint64_t zero = 0;
    CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &zero));
    if (attr(def, cudaMemPoolAttrUsedMemHigh) != 0 || attr(def, cudaMemPoolAttrUsedMemCurrent) != 0)
        printf("after the reset: used high %llu\n", (unsigned long long)attr(def, cudaMemPoolAttrUsedMemHigh)), bad++;
    CHECK(cudaMemPoolTrimTo(def, 0));
    if (attr(def, cudaMemPoolAttrReservedMemCurrent) != 0)
        printf("after cudaMemPoolTrimTo(0): reserved %llu\n",
               (unsigned long long)attr(def, cudaMemPoolAttrReservedMemCurrent)), bad++;

    // an explicit pool
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool;
    CHECK(cudaMemPoolCreate(&pool, &props));
    int *v = nullptr;
    CHECK(cudaMallocFromPoolAsync(&v, n * sizeof(int), pool, s));
    iota<<<(n + 255) / 256, 256, 0, s>>>(v, 100, n);
    int *hv = (int *)malloc(n * sizeof(int));
    CHECK(cudaMemcpyAsync(hv, v, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; i++)
        if (hv[i] != 100 + i && bad++ < 5)
            printf("pool element %d: %d\n", i, hv[i]);
    cudaPointerAttributes pa;
    CHECK(cudaPointerGetAttributes(&pa, v));
    if (pa.type != cudaMemoryTypeDevice)
        printf("pool memory type %d\n", (int)pa.type), bad++;
    CHECK(cudaFreeAsync(v, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemPoolDestroy(pool));

    CHECK(cudaStreamDestroy(s));
    free(host);
    free(hv);
    if (bad) {
        printf("FAIL stream_ordered: %d mismatches\n", bad);
        return 1;
    }
    printf("PASS stream_ordered (%d iterations of cudaMallocAsync/cudaFreeAsync, %d elements)\n", iters, n);
    return 0;
}
