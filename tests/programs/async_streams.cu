// async_streams — work on a created stream runs after the submitting call returns (driver-stub/stream_queue.c), as
// NVIDIA's UnifiedMemoryPerf needs: a kernel spins on a pinned-memory latch that the host sets only after it has
// submitted everything behind it. While latched: cudaStreamQuery and cudaEventQuery say not ready, nothing behind
// the latch has run (a host function, a copy, a second stream waiting on an event of the first); a pageable source
// overwritten after cudaMemcpyAsync returned is copied as it was at the call (CUDA stages it). Released: every
// result is checked, in order, against the host.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#include "check.h"

#define EXPECT(c)                                                                                                  \
    do {                                                                                                           \
        if (!(c)) {                                                                                                \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);                                                    \
            return 1;                                                                                              \
        }                                                                                                          \
    } while (0)

__global__ void spin_until_set(volatile unsigned *latch)
{
    while (*latch == 0) {
    }
}

__global__ void scale_add(const int *x, int *y, int a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

static volatile int host_fn_ran;
static void CUDART_CB mark(void *user) { host_fn_ran = *(int *)user; }

int main()
{
    const int n = 1 << 16;
    unsigned *latch;
    int *pinned_out, *dx, *dy, *pageable = new int[n];
    CHECK(cudaMallocHost(&latch, sizeof *latch));
    CHECK(cudaMallocHost(&pinned_out, n * sizeof(int)));
    CHECK(cudaMalloc(&dx, n * sizeof(int)));
    CHECK(cudaMalloc(&dy, n * sizeof(int)));
    CHECK(cudaMemset(dy, 0, n * sizeof(int)));
    for (int i = 0; i < n; i++)
        pageable[i] = i;
    memset(pinned_out, 0xff, n * sizeof(int));
    *latch = 0;

    cudaStream_t a, b;
    cudaEvent_t done_a;
    CHECK(cudaStreamCreate(&a));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&done_a));
    int token = 7;
    spin_until_set<<<1, 1, 0, a>>>(latch);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(dx, pageable, n * sizeof(int), cudaMemcpyHostToDevice, a));
    for (int i = 0; i < n; i++)   // after the call: the copy must still see i
        pageable[i] = -1;
    scale_add<<<(n + 255) / 256, 256, 0, a>>>(dx, dy, 3, n);
    CHECK(cudaEventRecord(done_a, a));
    CHECK(cudaLaunchHostFunc(a, mark, &token));
    CHECK(cudaStreamWaitEvent(b, done_a, 0));
    scale_add<<<(n + 255) / 256, 256, 0, b>>>(dx, dy, 1, n);   // y = 3x + x, only after stream a's kernel
    CHECK(cudaMemcpyAsync(pinned_out, dy, n * sizeof(int), cudaMemcpyDeviceToHost, b));

    // latched: nothing behind the spinning kernel has run
    EXPECT(cudaStreamQuery(a) == cudaErrorNotReady);
    EXPECT(cudaStreamQuery(b) == cudaErrorNotReady);
    EXPECT(cudaEventQuery(done_a) == cudaErrorNotReady);
    EXPECT(host_fn_ran == 0);
    EXPECT(pinned_out[0] == -1 && pinned_out[n - 1] == -1);
    cudaGetLastError();   // (the not-ready answers are not errors to keep)

    __sync_synchronize();
    *latch = 1;
    CHECK(cudaStreamSynchronize(b));
    CHECK(cudaEventSynchronize(done_a));
    CHECK(cudaStreamSynchronize(a));
    EXPECT(host_fn_ran == 7);
    EXPECT(cudaStreamQuery(a) == cudaSuccess && cudaEventQuery(done_a) == cudaSuccess);
    for (int i = 0; i < n; i++)
        if (pinned_out[i] != 4 * i) {
            printf("FAIL element %d: %d, want %d\n", i, pinned_out[i], 4 * i);
            return 1;
        }
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, done_a, done_a));
    EXPECT(ms == 0.0f);

    // the legacy default stream waits for a blocking stream's earlier work
    *latch = 0;
    spin_until_set<<<1, 1, 0, a>>>(latch);
    scale_add<<<(n + 255) / 256, 256, 0, a>>>(dx, dy, 1, n);   // y = 5x
    EXPECT(cudaStreamQuery(a) == cudaErrorNotReady);
    *latch = 1;
    CHECK(cudaMemcpy(pinned_out, dy, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        if (pinned_out[i] != 5 * i) {
            printf("FAIL legacy-stream order, element %d: %d, want %d\n", i, pinned_out[i], 5 * i);
            return 1;
        }

    CHECK(cudaEventDestroy(done_a));
    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    CHECK(cudaFreeHost(pinned_out));
    CHECK(cudaFreeHost(latch));
    delete[] pageable;
    printf("PASS async_streams\n");
    return 0;
}
