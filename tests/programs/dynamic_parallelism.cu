// nvcc-flags: -rdc=true -lcudadevrt
// dynamic_parallelism.cu — CUDA dynamic parallelism (kernels launching kernels), built as NVIDIA's CDP samples are
// (relocatable device code linked with libcudadevrt, whose device-runtime bodies the CPU target replaces with its
// own: abi/device_runtime.def). Checks: a recursive binary tree of launches (every node written once, depth from
// the launch chain), a child launched into a device-created stream and a device-side cudaMemcpyAsync after it in
// the same stream (the copy must see the child's results), a tail launch, device-side cudaMalloc/cudaFree, an
// invalid launch configuration answered by cudaGetLastError, and a child's trap failing the parent's launch.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            printf("FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define EXPECT(c)                                                                                  \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);                                    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

constexpr int DEPTH = 6; // 2^7 - 1 nodes

__global__ void tree(int *depth_of, int node, int depth) {
    if (threadIdx.x != 0) return;
    depth_of[node] = depth;
    if (depth < DEPTH) {
        tree<<<1, 32>>>(depth_of, 2 * node + 1, depth + 1);
        tree<<<1, 32>>>(depth_of, 2 * node + 2, depth + 1);
    }
}

__global__ void square(int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = i * i;
}

__global__ void produce_then_copy(int *a, int *b, int n, int *status) {
    cudaStream_t s;
    status[0] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    square<<<(n + 127) / 128, 128, 0, s>>>(a, n);
    status[1] = cudaGetLastError();
    status[2] = cudaMemcpyAsync(b, a, n * sizeof(int), cudaMemcpyDeviceToDevice, s);
    status[3] = cudaStreamDestroy(s);
}

__global__ void tail_child(int *flag) { *flag = 42; }

__global__ void tail_parent(int *flag) {
    tail_child<<<1, 1, 0, cudaStreamTailLaunch>>>(flag);
}

__global__ void device_malloc(int *out) {
    int *p = nullptr;
    cudaError_t e = cudaMalloc((void **)&p, 64 * sizeof(int));
    out[0] = e;
    if (e != cudaSuccess || !p) return;
    for (int i = 0; i < 64; i++) p[i] = 3 * i;
    int s = 0;
    for (int i = 0; i < 64; i++) s += p[i];
    out[1] = s;
    out[2] = cudaFree(p);
}

__global__ void bad_config(int *out) {
    square<<<1, 2048>>>(out, 1);   // more than 1024 threads per block
    out[0] = cudaGetLastError();
    out[1] = cudaGetLastError();   // cleared by the first call
}

__global__ void trapping_child() { __trap(); }
__global__ void trapping_parent() { trapping_child<<<1, 1>>>(); }

int main() {
    const int nodes = (1 << (DEPTH + 1)) - 1, n = 1000;
    int *depth_of, *a, *b, *status, *flag;
    CHECK(cudaMalloc(&depth_of, nodes * sizeof(int)));
    CHECK(cudaMemset(depth_of, 0xff, nodes * sizeof(int)));
    tree<<<1, 32>>>(depth_of, 0, 0);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int h[nodes];
    CHECK(cudaMemcpy(h, depth_of, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < nodes; i++) {
        int d = 0;
        for (int k = i; k > 0; k = (k - 1) / 2) d++;
        EXPECT(h[i] == d);
    }

    CHECK(cudaMalloc(&a, n * sizeof(int)));
    CHECK(cudaMalloc(&b, n * sizeof(int)));
    CHECK(cudaMalloc(&status, 4 * sizeof(int)));
    CHECK(cudaMemset(a, 0, n * sizeof(int)));
    CHECK(cudaMemset(b, 0xff, n * sizeof(int)));
    produce_then_copy<<<1, 1>>>(a, b, n, status);
    CHECK(cudaDeviceSynchronize());
    int hb[n], hs[4];
    CHECK(cudaMemcpy(hb, b, sizeof hb, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hs, status, sizeof hs, cudaMemcpyDeviceToHost));
    for (int k = 0; k < 4; k++) EXPECT(hs[k] == cudaSuccess);
    for (int i = 0; i < n; i++) EXPECT(hb[i] == i * i);

    CHECK(cudaMalloc(&flag, sizeof(int)));
    CHECK(cudaMemset(flag, 0, sizeof(int)));
    tail_parent<<<1, 1>>>(flag);
    CHECK(cudaDeviceSynchronize());
    int hf = 0;
    CHECK(cudaMemcpy(&hf, flag, sizeof hf, cudaMemcpyDeviceToHost));
    EXPECT(hf == 42);

    device_malloc<<<1, 1>>>(status);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hs, status, 3 * sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(hs[0] == cudaSuccess && hs[1] == 3 * 63 * 64 / 2 && hs[2] == cudaSuccess);

    bad_config<<<1, 1>>>(status);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hs, status, 2 * sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(hs[0] == cudaErrorInvalidConfiguration && hs[1] == cudaSuccess);

    // last: a child's trap fails the parent's launch (and, as on NVIDIA, poisons the context)
    trapping_parent<<<1, 1>>>();
    cudaError_t e = cudaDeviceSynchronize();
    EXPECT(e == cudaErrorLaunchFailure);
    printf("PASS dynamic_parallelism\n");
    return 0;
}
