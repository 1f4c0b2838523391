// vecadd.cu — the shipped example: c[i] = a[i] + b[i] with a grid-stride loop.
// examples/vecadd.ptx is this file compiled by `nvcc -ptx -arch=sm_80 vecadd.cu` (CUDA 13).
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        c[i] = a[i] + b[i];
}
