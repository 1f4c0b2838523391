// many_kernels.cu — source of many_kernels.ptx (nvcc -ptx -arch=sm_80 -O3 many_kernels.cu): twelve
// substantial, independent kernels (unrolled stencils, transcendental math, a shared-memory reduction),
// the shape that per-kernel parallel compilation (-j N) is for.
#include <stdint.h>

template <int K> __device__ __forceinline__ double series(double x) {
    double s = 0.0, t = x;
#pragma unroll
    for (int i = 1; i <= 8 + K; i++) { s += sin(t) * exp(-t * 0.01 * i) + log1p(fabs(t)) / i; t = t * 0.9 + 0.1 * K; }
    return s;
}

template <int K> __global__ void stencil(float *out, const float *in, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < K || y < K || x >= w - K || y >= h - K) return;
    float acc = 0.f;
#pragma unroll
    for (int dy = -K; dy <= K; dy++)
#pragma unroll
        for (int dx = -K; dx <= K; dx++) acc += in[(y + dy) * w + x + dx] * (1.f / (1 + dx * dx + dy * dy + K));
    out[y * w + x] = tanhf(acc) + erff(acc * 0.5f);
}

template <int K> __global__ void mathk(double *out, const double *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = series<K>(in[i]) + pow(fabs(in[i]) + 1.0, 0.25 * K) + cbrt(in[i] * K);
}

template <int K> __global__ void reduce(float *out, const float *in, int n) {
    __shared__ float s[256];
    int t = threadIdx.x;
    float v = 0.f;
    for (int i = blockIdx.x * 256 + t; i < n; i += gridDim.x * 256) v += sinf(in[i] * K) * cosf(in[i] + K) + expf(-in[i]);
    s[t] = v;
    __syncthreads();
#pragma unroll
    for (int o = 128; o > 0; o >>= 1) { if (t < o) s[t] += s[t + o]; __syncthreads(); }
    if (t == 0) atomicAdd(out, s[0]);
}

template __global__ void stencil<2>(float *, const float *, int, int);
template __global__ void stencil<3>(float *, const float *, int, int);
template __global__ void stencil<4>(float *, const float *, int, int);
template __global__ void stencil<5>(float *, const float *, int, int);
template __global__ void mathk<1>(double *, const double *, int);
template __global__ void mathk<2>(double *, const double *, int);
template __global__ void mathk<3>(double *, const double *, int);
template __global__ void mathk<4>(double *, const double *, int);
template __global__ void reduce<1>(float *, const float *, int);
template __global__ void reduce<2>(float *, const float *, int);
template __global__ void reduce<3>(float *, const float *, int);
template __global__ void reduce<4>(float *, const float *, int);
