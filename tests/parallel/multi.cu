// multi.cu — source of multi.ptx (nvcc -ptx -arch=sm_80 -O3 multi.cu): ten kernels that share device
// functions, module-scope globals, a __constant__ table, static and dynamic shared memory — everything a
// per-kernel split (-j N) must keep single-definition or duplicate correctly.
#include <stdint.h>

__constant__ float coeffs[8] = {1.f, 0.5f, 0.25f, 0.125f, -1.f, 2.f, 3.f, -0.5f};
__device__ unsigned counter;              // written by several kernels, read back via cuModuleGetGlobal
__device__ int table[64];                 // written by k_fill, read by k_gather (other partition)
static __device__ unsigned hidden_state;  // internal: shared by two kernels

__device__ __noinline__ float poly(float x) {
    float r = 0.f;
    for (int i = 7; i >= 0; i--) r = r * x + coeffs[i];
    return r;
}
__device__ __noinline__ unsigned mix(unsigned h, unsigned v) {
    h ^= v + 0x9e3779b9u + (h << 6) + (h >> 2);
    return h * 2654435761u;
}
__device__ float block_sum(float v) {
    __shared__ float part[32];
    for (int o = 16; o; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
    __syncthreads();
    float s = 0.f;
    if (threadIdx.x == 0)
        for (unsigned w = 0; w < (blockDim.x + 31) / 32; w++) s += part[w];
    return s;
}

extern "C" __global__ void k_poly(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = poly(in[i]);
}
extern "C" __global__ void k_hash(unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = mix(mix(17u, (unsigned)i), 99u);
    if (i == 0) atomicAdd(&counter, 1u);
}
extern "C" __global__ void k_reduce(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = block_sum(i < n ? in[i] : 0.f);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}
extern "C" __global__ void k_transpose(float *out, const float *in, int w) {
    __shared__ float tile[16][17];
    int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * w + x];
    __syncthreads();
    x = blockIdx.y * 16 + threadIdx.x;
    y = blockIdx.x * 16 + threadIdx.y;
    out[y * w + x] = tile[threadIdx.x][threadIdx.y];
}
extern "C" __global__ void k_dyn(float *out, const float *in, int n) {
    extern __shared__ float buf[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x] = i < n ? in[i] : 0.f;
    __syncthreads();
    float v = buf[blockDim.x - 1 - threadIdx.x];
    if (i < n) out[i] = v + poly(v);
}
extern "C" __global__ void k_fill(int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 64) table[i] = i * i - n;
    if (i == 0) { atomicAdd(&counter, 10u); hidden_state = 1234u; }
}
extern "C" __global__ void k_gather(int *out, const int *idx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = table[idx[i] & 63] + (int)hidden_state;
}
extern "C" __global__ void k_scan(unsigned *out, const unsigned *in, int n) {
    __shared__ unsigned s[256];
    int t = threadIdx.x;
    s[t] = t < n ? in[t] : 0u;
    __syncthreads();
    for (int o = 1; o < 256; o <<= 1) {
        unsigned v = t >= o ? s[t - o] : 0u;
        __syncthreads();
        s[t] += v;
        __syncthreads();
    }
    if (t < n) out[t] = mix(s[t], 1u);
}
extern "C" __global__ void k_double(double *out, const double *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = sin(in[i]) * exp(in[i] * 0.25) + (double)poly((float)in[i]);
}
extern "C" __global__ void k_histo(unsigned *hist, const unsigned *in, int n) {
    __shared__ unsigned local[16];
    if (threadIdx.x < 16) local[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&local[mix(in[i], 7u) & 15], 1u);
    __syncthreads();
    if (threadIdx.x < 16) atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
    if (i == 0) atomicAdd(&counter, 100u);
}
