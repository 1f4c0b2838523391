// managed_memory — cudaMallocManaged memory that a kernel and the host update in turn (no copies), with the
// prefetch and advice calls applications make around it, the range attributes they read back, a stream
// association, and the pointer's attributes. Checks every element against the same updates done on the host.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "check.h"

__global__ void scale_add(int *v, int mul, int add, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = v[i] * mul + add + i;
}

int main()
{
    const int n = 5000, rounds = 3;
    int managed = 0, concurrent = 0;
    CHECK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, 0));
    CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0));
    if (!managed || !concurrent) {
        printf("FAIL managed_memory: managedMemory=%d concurrentManagedAccess=%d\n", managed, concurrent);
        return 1;
    }

    int *v = nullptr;
    CHECK(cudaMallocManaged(&v, n * sizeof(int)));
    int *want = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; i++)
        v[i] = want[i] = i % 17;

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamAttachMemAsync(s, v, 0, cudaMemAttachSingle));
    cudaMemLocation dev = {cudaMemLocationTypeDevice, 0}, host = {cudaMemLocationTypeHost, 0};
    CHECK(cudaMemAdvise(v, n * sizeof(int), cudaMemAdviseSetPreferredLocation, dev));
    CHECK(cudaMemAdvise(v, n * sizeof(int), cudaMemAdviseSetAccessedBy, host));

    int bad = 0;
    for (int r = 0; r < rounds; r++) {
        // the device's turn
        CHECK(cudaMemPrefetchAsync(v, n * sizeof(int), dev, 0, s));
        scale_add<<<(n + 255) / 256, 256, 0, s>>>(v, 3, r, n);
        CHECK(cudaGetLastError());
        CHECK(cudaStreamSynchronize(s));
        for (int i = 0; i < n; i++)
            want[i] = want[i] * 3 + r + i;
        // the host's turn, on the same pointer
        CHECK(cudaMemPrefetchAsync(v, n * sizeof(int), host, 0, s));
        CHECK(cudaStreamSynchronize(s));
        for (int i = 0; i < n; i++) {
            v[i] = v[i] % 1000 - 7;
            want[i] = want[i] % 1000 - 7;
        }
    }
    for (int i = 0; i < n; i++)
        if (v[i] != want[i] && bad++ < 5)
            printf("element %d: %d, expected %d\n", i, v[i], want[i]);

    int last = -99, pref = -99;
    CHECK(cudaMemRangeGetAttribute(&last, sizeof last, cudaMemRangeAttributeLastPrefetchLocation, v, n * sizeof(int)));
    CHECK(cudaMemRangeGetAttribute(&pref, sizeof pref, cudaMemRangeAttributePreferredLocation, v, n * sizeof(int)));
    if (last != cudaCpuDeviceId || pref != 0)
        printf("range attributes: last prefetch %d (expected %d), preferred %d (expected 0)\n", last, cudaCpuDeviceId,
               pref), bad++;

    cudaPointerAttributes pa;
    CHECK(cudaPointerGetAttributes(&pa, v + 10));
    if (pa.type != cudaMemoryTypeManaged || pa.devicePointer != (void *)(v + 10) || pa.hostPointer != (void *)(v + 10))
        printf("pointer attributes: type %d\n", (int)pa.type), bad++;

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(v));
    free(want);
    if (bad) {
        printf("FAIL managed_memory: %d mismatches\n", bad);
        return 1;
    }
    printf("PASS managed_memory (%d elements, %d rounds of device and host updates)\n", n, rounds);
    return 0;
}
