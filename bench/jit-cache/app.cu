// app.cu — a PTX-only CUDA program for the JIT-cache benchmark (run.sh): its module holds the twelve kernels of
// bench/compile-speed/many_kernels.cu (what a real module's compile costs) plus one it launches and checks.
#include <cstdio>
#include <cstdlib>
#include "../compile-speed/many_kernels.cu"

__global__ void saxpy(float *y, const float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
    const int n = 1 << 16;
    float *x, *y;
    if (cudaMallocManaged(&x, n * sizeof(float)) != cudaSuccess || cudaMallocManaged(&y, n * sizeof(float)) != cudaSuccess) {
        // managed memory is not required of the stub: fall back to plain device memory
        float *hx = (float *)malloc(n * 4), *hy = (float *)malloc(n * 4);
        for (int i = 0; i < n; i++) { hx[i] = (float)i; hy[i] = 1.f; }
        cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4);
        cudaMemcpy(x, hx, n * 4, cudaMemcpyHostToDevice); cudaMemcpy(y, hy, n * 4, cudaMemcpyHostToDevice);
        saxpy<<<(n + 255) / 256, 256>>>(y, x, 2.f, n);
        cudaMemcpy(hy, y, n * 4, cudaMemcpyDeviceToHost);
        int bad = 0;
        for (int i = 0; i < n; i++) bad += hy[i] != 2.f * (float)i + 1.f;
        printf("saxpy: %d wrong (%s)\n", bad, cudaGetErrorString(cudaGetLastError()));
        return bad != 0;
    }
    for (int i = 0; i < n; i++) { x[i] = (float)i; y[i] = 1.f; }
    saxpy<<<(n + 255) / 256, 256>>>(y, x, 2.f, n);
    cudaDeviceSynchronize();
    int bad = 0;
    for (int i = 0; i < n; i++) bad += y[i] != 2.f * (float)i + 1.f;
    printf("saxpy: %d wrong (%s)\n", bad, cudaGetErrorString(cudaGetLastError()));
    return bad != 0;
}
