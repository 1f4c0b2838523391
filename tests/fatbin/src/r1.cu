// rdc TU 1: uses a device function defined in r2.cu
extern __device__ float helper(float v);
__global__ void apply(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = helper(x[i]);
}
void launch_k2(float *x, int n);
int main() {
    float *d = nullptr;
    if (cudaMalloc(&d, 32 * sizeof(float)) != cudaSuccess) return 0;
    apply<<<1, 32>>>(d, 32);
    launch_k2(d, 32);
    cudaFree(d);
    return 0;
}
