// Separate compilation test (tests/driver/test_rdc.c), translation unit 2: a __device__ function and a
// __device__ variable that rdc_main.cu uses, and a kernel of this unit's own.
__device__ int g_bias = 5;

__device__ __noinline__ float scale(float v, int i) { return v * 2.0f + (float)g_bias + (float)i; }

__global__ void lib_kernel(int *out) { out[threadIdx.x] = g_bias * 100 + (int)threadIdx.x; }
