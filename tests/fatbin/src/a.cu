// default test program: one kernel, one TU
#include <cstdio>
__global__ void scale(float *x, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * s + 1.0f;
}
int main() {
    float *d = nullptr;
    if (cudaMalloc(&d, 64 * sizeof(float)) != cudaSuccess) { std::printf("no device\n"); return 0; }
    scale<<<1, 64>>>(d, 2.0f, 64);
    cudaDeviceSynchronize();
    cudaFree(d);
    return 0;
}
