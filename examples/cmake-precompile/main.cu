// Three kernels with CUDA runtime API calls: checks its own results and prints PASS (exit 0) or what differs.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                                      \
    do {                                                                                              \
        cudaError_t e_ = (x);                                                                         \
        if (e_ != cudaSuccess) {                                                                      \
            std::printf("FAIL: %s: %s\n", #x, cudaGetErrorString(e_));                               \
            return 1;                                                                                 \
        }                                                                                             \
    } while (0)

__global__ void vec_add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

// Block-wide sum in shared memory, one atomic per block.
__global__ void block_sum(const int *in, unsigned long long *out, int n) {
    __shared__ int s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, (unsigned long long)s[0]);
}

// Warp shuffles: every lane gets the warp's maximum.
__global__ void warp_max(const int *in, int *out) {
    int v = in[blockIdx.x * 32 + threadIdx.x];
    for (int d = 16; d > 0; d /= 2) v = max(v, __shfl_xor_sync(0xffffffffu, v, d));
    out[blockIdx.x * 32 + threadIdx.x] = v;
}

int main() {
    const int n = 10000;
    std::vector<float> a(n), b(n), c(n);
    std::vector<int> ints(n);
    for (int i = 0; i < n; i++) {
        a[i] = i * 0.5f;
        b[i] = 1000.0f - i;
        ints[i] = (i * 7919) % 1013 - 500;
    }
    float *da, *db, *dc;
    int *di, *dm;
    unsigned long long *dsum;
    CHECK(cudaMalloc(&da, n * sizeof(float)));
    CHECK(cudaMalloc(&db, n * sizeof(float)));
    CHECK(cudaMalloc(&dc, n * sizeof(float)));
    CHECK(cudaMalloc(&di, n * sizeof(int)));
    CHECK(cudaMalloc(&dm, n * sizeof(int)));
    CHECK(cudaMalloc(&dsum, sizeof(unsigned long long)));
    CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(di, ints.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dsum, 0, sizeof(unsigned long long)));

    vec_add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
    CHECK(cudaGetLastError());
    block_sum<<<(n + 255) / 256, 256>>>(di, dsum, n);
    CHECK(cudaGetLastError());
    const int warps = n / 32;
    warp_max<<<warps, 32>>>(di, dm);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    unsigned long long sum = 0;
    std::vector<int> m(n);
    CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&sum, dsum, sizeof sum, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(m.data(), dm, n * sizeof(int), cudaMemcpyDeviceToHost));

    int bad = 0;
    for (int i = 0; i < n; i++)
        if (c[i] != a[i] + b[i] && bad++ < 5) std::printf("FAIL: vec_add c[%d] = %g, want %g\n", i, c[i], a[i] + b[i]);
    long long want = 0;
    for (int i = 0; i < n; i++) want += ints[i];
    if ((long long)sum != want && bad++ < 10) std::printf("FAIL: block_sum = %lld, want %lld\n", (long long)sum, want);
    for (int w = 0; w < warps; w++) {
        int mx = ints[w * 32];
        for (int l = 1; l < 32; l++) mx = ints[w * 32 + l] > mx ? ints[w * 32 + l] : mx;
        for (int l = 0; l < 32; l++)
            if (m[w * 32 + l] != mx && bad++ < 15) std::printf("FAIL: warp_max[%d] = %d, want %d\n", w * 32 + l, m[w * 32 + l], mx);
    }
    cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(di); cudaFree(dm); cudaFree(dsum);
    if (bad) { std::printf("FAIL: %d mismatches\n", bad); return 1; }
    std::printf("PASS: vec_add, block_sum, warp_max (%d elements)\n", n);
    return 0;
}
