// cudart_features.cu — runtime-API features beyond a plain launch, run on OUR libcuda.so.1 (see
// cudart_vecadd.cu): __constant__/__device__ symbols (cudaMemcpyToSymbol/FromSymbol -> cuLibraryGetGlobal),
// two streams with async copies, events (record, wait, elapsed time), cudaDeviceSynchronize, a second kernel
// of the same library, and cudaDeviceReset followed by more work (context-local storage after a reset).
#include <cstdio>

__constant__ float scale;
__device__ int hits;

__global__ void scaled(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * scale;
        atomicAdd(&hits, 1);
    }
}

__global__ void fill(float *out, float v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = v;
}

#define CHECK(x) \
    do { \
        cudaError_t e_ = (x); \
        if (e_ != cudaSuccess) { \
            printf("FAIL %s:%d: %s -> %d (%s)\n", __FILE__, __LINE__, #x, (int)e_, cudaGetErrorString(e_)); \
            return 1; \
        } \
    } while (0)

static int round_trip(const char *what)
{
    const int n = 512;
    float *h;
    CHECK(cudaMallocHost(&h, 2 * n * sizeof(float)));
    float *in = h, *out = h + n;
    for (int i = 0; i < n; i++)
        in[i] = (float)i;
    const float s = 3.0f;
    const int zero = 0;
    CHECK(cudaMemcpyToSymbol(scale, &s, sizeof s));
    CHECK(cudaMemcpyToSymbol(hits, &zero, sizeof zero));

    cudaStream_t st[2];
    cudaEvent_t start, done;
    CHECK(cudaStreamCreate(&st[0]));
    CHECK(cudaStreamCreateWithFlags(&st[1], cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&done));
    float *din, *dout, *dfill;
    CHECK(cudaMalloc(&din, n * sizeof(float)));
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    CHECK(cudaMalloc(&dfill, n * sizeof(float)));

    CHECK(cudaEventRecord(start, st[0]));
    CHECK(cudaMemcpyAsync(din, in, n * sizeof(float), cudaMemcpyHostToDevice, st[0]));
    scaled<<<(n + 127) / 128, 128, 0, st[0]>>>(din, dout, n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(done, st[0]));
    CHECK(cudaStreamWaitEvent(st[1], done, 0));
    fill<<<(n + 127) / 128, 128, 0, st[1]>>>(dfill, 7.0f, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost, st[1]));
    CHECK(cudaStreamSynchronize(st[1]));
    CHECK(cudaEventSynchronize(done));
    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, start, done));
    CHECK(cudaDeviceSynchronize());

    int got_hits = -1;
    CHECK(cudaMemcpyFromSymbol(&got_hits, hits, sizeof got_hits));
    float f7 = 0.0f;
    CHECK(cudaMemcpy(&f7, dfill + n - 1, sizeof f7, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (out[i] != 3.0f * (float)i)
            bad++;
    if (bad || got_hits != n || f7 != 7.0f || !(ms >= 0.0f)) {
        printf("FAIL %s: %d wrong elements, hits %d (expected %d), fill %g, elapsed %g ms\n", what, bad, got_hits,
               n, f7, ms);
        return 1;
    }
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    CHECK(cudaFree(dfill));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(done));
    CHECK(cudaStreamDestroy(st[0]));
    CHECK(cudaStreamDestroy(st[1]));
    CHECK(cudaFreeHost(h));
    return 0;
}

int main()
{
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    if (count < 1) {
        printf("FAIL no device\n");
        return 1;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    CHECK(cudaSetDevice(0));
    if (round_trip("first context"))
        return 1;
    CHECK(cudaDeviceReset());
    if (round_trip("after cudaDeviceReset"))
        return 1;
    printf("PASS cudart_features (%s, cc %d.%d)\n", prop.name, prop.major, prop.minor);
    return 0;
}
