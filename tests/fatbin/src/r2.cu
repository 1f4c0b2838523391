// rdc TU 2: defines the device function and a second kernel
__device__ float helper(float v) { return v * 3.0f - 0.5f; }
__global__ void twice(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = helper(helper(x[i]));
}
void launch_k2(float *x, int n) { twice<<<1, n>>>(x, n); }
