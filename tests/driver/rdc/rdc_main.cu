// Separate compilation test (tests/driver/test_rdc.c), translation unit 1: nvcc -rdc=true; the kernel calls
// a __device__ function and reads a __device__ variable that rdc_lib.cu defines. The host part does nothing:
// test_rdc.c loads the device code through the driver API (cudart-linked programs need export tables the
// stub does not provide yet).
extern __device__ int g_bias;
extern __device__ float scale(float v, int i);

__global__ void main_kernel(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = scale(x[i], i) + (float)(g_bias % 3);
}

int main() { return 0; }
