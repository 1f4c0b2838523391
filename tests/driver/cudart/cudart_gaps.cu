// cudart_gaps.cu — the runtime calls CUDA samples stopped on with error 36 before issue 15, run on OUR
// libcuda.so.1: cudaProfilerStart/Stop, cudaMallocPitch + cudaMemcpy2D, cudaHostRegister + a kernel on the
// mapped pointer, cudaFuncSetCacheConfig / cudaFuncSetSharedMemConfig on a template kernel, occupancy (the
// runtime's cudaOccupancyMaxPotentialBlockSize over the driver's per-SM answer), cudaPointerGetAttributes.
// cudaFuncSetSharedMemConfig is deprecated, and still what samples call
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_profiler_api.h>

template <typename T>
__global__ void axpy(T a, const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

__global__ void rows(float *p, size_t pitch, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h)
        ((float *)((char *)p + y * pitch))[x] += 1.0f;
}

#define CHECK(x) \
    do { \
        cudaError_t e_ = (x); \
        if (e_ != cudaSuccess) { \
            printf("FAIL %s:%d: %s -> %d (%s)\n", __FILE__, __LINE__, #x, (int)e_, cudaGetErrorString(e_)); \
            return 1; \
        } \
    } while (0)
#define TRUE(c) \
    do { \
        if (!(c)) { \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
            return 1; \
        } \
    } while (0)

int main()
{
    CHECK(cudaProfilerStart());

    // pitched 2D: 37 floats a row, 5 rows
    const int w = 37, h = 5;
    float *d;
    size_t pitch;
    CHECK(cudaMallocPitch(&d, &pitch, w * sizeof(float), h));
    TRUE(pitch >= w * sizeof(float));
    float host[h][w], back[h][w];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            host[y][x] = (float)(y * 100 + x);
    CHECK(cudaMemcpy2D(d, pitch, host, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
    rows<<<dim3(1, h), 64>>>(d, pitch, w, h);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy2D(back, w * sizeof(float), d, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            TRUE(back[y][x] == host[y][x] + 1.0f);
    CHECK(cudaFree(d));

    // registered host memory used by a kernel through its device pointer
    const int n = 4096;
    float *x = (float *)aligned_alloc(4096, n * sizeof(float)), *y = (float *)aligned_alloc(4096, n * sizeof(float));
    for (int i = 0; i < n; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    CHECK(cudaHostRegister(x, n * sizeof(float), cudaHostRegisterMapped));
    CHECK(cudaHostRegister(y, n * sizeof(float), cudaHostRegisterDefault));
    float *dx, *dy;
    CHECK(cudaHostGetDevicePointer((void **)&dx, x, 0));
    CHECK(cudaHostGetDevicePointer((void **)&dy, y, 0));
    cudaPointerAttributes pa;
    CHECK(cudaPointerGetAttributes(&pa, x));
    TRUE(pa.type == cudaMemoryTypeHost && pa.hostPointer == x && pa.devicePointer == dx);

    CHECK(cudaFuncSetCacheConfig(axpy<float>, cudaFuncCachePreferL1));
    CHECK(cudaFuncSetSharedMemConfig(axpy<float>, cudaSharedMemBankSizeFourByte));
    int grid = 0, block = 0, per_sm = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&grid, &block, axpy<float>, 0, 0));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, axpy<float>, block, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    TRUE(block > 0 && block <= prop.maxThreadsPerBlock && per_sm > 0 && per_sm * block <= prop.maxThreadsPerMultiProcessor);
    axpy<float><<<(n + block - 1) / block, block>>>(2.0f, dx, dy, n);
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < n; i++)
        TRUE(y[i] == 2.0f * (float)i + 1.0f);
    CHECK(cudaHostUnregister(x));
    CHECK(cudaHostUnregister(y));
    free(x);
    free(y);

    CHECK(cudaProfilerStop());
    printf("PASS cudart_gaps (pitch %zu, block %d, grid %d, %d blocks/SM)\n", pitch, block, grid, per_sm);
    return 0;
}
