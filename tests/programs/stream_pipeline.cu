// stream_pipeline — a whole-application shape: a chunked pipeline over several streams (async copies in and out of
// pinned memory, one kernel per chunk), events for timing and for a cross-stream dependency, and host callbacks
// (cudaLaunchHostFunc, cudaStreamAddCallback) that count finished chunks. Checks every element against the host.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "check.h"

__global__ void saxpy_square(const float *x, float *y, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] * x[i] + y[i];
}

__global__ void add_offset(float *y, const float *offset, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += *offset;
}

static int finished_chunks;
static void CUDART_CB count_chunk(void *user) { finished_chunks += *(int *)user; }
static void CUDART_CB count_callback(cudaStream_t, cudaError_t status, void *user)
{
    if (status == cudaSuccess)
        finished_chunks += *(int *)user;
}

int main()
{
    const int nstreams = 4, chunk = 4096, nchunks = 16, n = chunk * nchunks;
    float *hx, *hy, *dx, *dy, *doff;
    CHECK(cudaMallocHost(&hx, n * sizeof(float)));
    CHECK(cudaHostAlloc(&hy, n * sizeof(float), cudaHostAllocDefault));
    for (int i = 0; i < n; i++) {
        hx[i] = (float)(i % 97) * 0.25f;
        hy[i] = (float)(i % 13);
    }
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMalloc(&doff, sizeof(float)));

    cudaStream_t s[nstreams];
    for (int i = 0; i < nstreams; i++)
        CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    cudaEvent_t start, stop, offset_ready;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventCreateWithFlags(&offset_ready, cudaEventDisableTiming));

    // the offset is produced on stream 0; every other stream waits for it through an event
    const float offset = 0.5f;
    CHECK(cudaEventRecord(start, s[0]));
    CHECK(cudaMemcpyAsync(doff, &offset, sizeof offset, cudaMemcpyHostToDevice, s[0]));
    CHECK(cudaEventRecord(offset_ready, s[0]));
    static int one = 1;
    for (int c = 0; c < nchunks; c++) {
        cudaStream_t st = s[c % nstreams];
        size_t off = (size_t)c * chunk;
        CHECK(cudaStreamWaitEvent(st, offset_ready, 0));
        CHECK(cudaMemcpyAsync(dx + off, hx + off, chunk * sizeof(float), cudaMemcpyHostToDevice, st));
        CHECK(cudaMemcpyAsync(dy + off, hy + off, chunk * sizeof(float), cudaMemcpyHostToDevice, st));
        saxpy_square<<<chunk / 256, 256, 0, st>>>(dx + off, dy + off, 2.0f, chunk);
        add_offset<<<chunk / 128, 128, 0, st>>>(dy + off, doff, chunk);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(hy + off, dy + off, chunk * sizeof(float), cudaMemcpyDeviceToHost, st));
        if (c % 2)
            CHECK(cudaLaunchHostFunc(st, count_chunk, &one));
        else
            CHECK(cudaStreamAddCallback(st, count_callback, &one, 0));
    }
    for (int i = 1; i < nstreams; i++) {
        cudaEvent_t done;
        CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
        CHECK(cudaEventRecord(done, s[i]));
        CHECK(cudaStreamWaitEvent(s[0], done, 0));
        CHECK(cudaEventDestroy(done));
    }
    CHECK(cudaEventRecord(stop, s[0]));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaDeviceSynchronize());

    int bad = 0;
    for (int i = 0; i < n; i++) {
        float x = (float)(i % 97) * 0.25f, y = (float)(i % 13);
        float want = (2.0f * x * x + y) + offset;
        if (hy[i] != want && bad++ < 5)
            printf("element %d: %g, expected %g\n", i, hy[i], want);
    }
    if (finished_chunks != nchunks)
        printf("callbacks counted %d chunks, expected %d\n", finished_chunks, nchunks), bad++;
    if (!(ms >= 0))
        printf("elapsed time %g ms\n", ms), bad++;
    for (int i = 0; i < nstreams; i++)
        CHECK(cudaStreamDestroy(s[i]));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    CHECK(cudaFree(doff));
    CHECK(cudaFreeHost(hx));
    CHECK(cudaFreeHost(hy));
    if (bad) {
        printf("FAIL stream_pipeline: %d mismatches\n", bad);
        return 1;
    }
    printf("PASS stream_pipeline (%d elements, %d streams, %d chunks)\n", n, nstreams, nchunks);
    return 0;
}
