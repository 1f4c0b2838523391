// kernels.cu — the kernels of the CPU-backend benchmark (bench/cpu/README.md). Compiled to PTX by
// gen-ptx.sh (nvcc -arch=sm_80); kernels.ptx is committed so the benchmark runs without nvcc.
// Each kernel has a plain-C twin in reference.c computing the same result; extern "C" keeps the names plain.
#include <cuda_fp16.h>
#include <mma.h>

// Barrier-free, memory bound: y = a*x + y.
extern "C" __global__ void saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

// Barrier-free: c = a + b.
extern "C" __global__ void vecadd(int n, const float *__restrict__ a, const float *__restrict__ b,
                                  float *__restrict__ c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

// Barrier-free 2-D five-point Jacobi sweep on an nx x ny grid; the border is copied unchanged.
// Adds before the multiply so there is nothing to contract into an fma: bit-exact with the C version.
extern "C" __global__ void stencil2d(int nx, int ny, const float *__restrict__ in, float *__restrict__ out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        out[i] = in[i];
        return;
    }
    out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}

// Barriers: each block sums a grid-stride slice of n unsigned ints (mod 2^32) with a shared-memory tree.
// blockDim.x must be 256.
extern "C" __global__ void reduce_sum(int n, const unsigned *__restrict__ in, unsigned *__restrict__ partial) {
    __shared__ unsigned s[256];
    unsigned t = threadIdx.x, sum = 0;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) sum += in[i];
    s[t] = sum;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

// Barriers + shared memory: C = A * B for n x n row-major matrices, n a multiple of 16, 16x16 tiles.
#define TILE 16
extern "C" __global__ void matmul_tiled(int n, const float *__restrict__ A, const float *__restrict__ B,
                                        float *__restrict__ C) {
    __shared__ float As[TILE][TILE], Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = A[row * n + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

// Atomics: 256-bin histogram of the low byte of n words, straight to global memory.
extern "C" __global__ void histogram(int n, const unsigned *__restrict__ in, unsigned *__restrict__ hist) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&hist[in[i] & 255u], 1u);
}

// Tensor cores: C = A * B for n x n row-major f16 matrices (n a multiple of 16), f32 accumulators, one warp per
// 16x16 tile of C through wmma m16n16k16. The C twin is matmul_tiled's loop on the inputs widened to float: the
// tensor core's sum (exact products, truncated alignment) differs from it in the last bits only.
extern "C" __global__ void wmma_gemm(int n, const __half *__restrict__ A, const __half *__restrict__ B,
                                     float *__restrict__ C) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, tiles = n / 16;
    int tr = warp / tiles, tc = warp % tiles;
    if (tr >= tiles) return;
    nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __half, nvcuda::wmma::row_major> a;
    nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, __half, nvcuda::wmma::row_major> b;
    nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> c;
    nvcuda::wmma::fill_fragment(c, 0.0f);
    for (int k = 0; k < n; k += 16) {
        nvcuda::wmma::load_matrix_sync(a, A + tr * 16 * n + k, n);
        nvcuda::wmma::load_matrix_sync(b, B + k * n + tc * 16, n);
        nvcuda::wmma::mma_sync(c, a, b, c);
    }
    nvcuda::wmma::store_matrix_sync(C + tr * 16 * n + tc * 16, c, n, nvcuda::wmma::mem_row_major);
}

// Diagnostic, no C twin: a thread that only computes its index and compares it, i.e. the cost of running one
// CUDA thread on the CPU runtime (printed in ns per thread). The store never happens (i < n).
extern "C" __global__ void null_kernel(int n, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) out[0] = i;
}
