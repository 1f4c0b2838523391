// __constant__ and __device__ globals with initializers, pointers to other globals.
#include <cstdint>
struct Params { int a; float b; double c; const char *name; };

__constant__ float c_coef[8] = {1.f, 0.5f, 0.25f, 0.125f, -1.f, -0.5f, 3.4e38f, 1e-40f};
__constant__ double c_dcoef[3] = {3.141592653589793, 2.718281828459045, -0.0};
__constant__ int c_ints[4] = {-1, 0x7fffffff, (int)0x80000000, 42};
__constant__ Params c_params = {7, 2.5f, 1e300, "constant-name"};
__constant__ char c_str[] = "hello\tworld\n";
__constant__ unsigned long long c_u64 = 0xfedcba9876543210ull;
__constant__ short c_shorts[2][3] = {{1, 2, 3}, {4, 5, 6}};
__constant__ float4 c_vec = {1.f, 2.f, 3.f, 4.f};

__device__ int g_counter = 5;
__device__ int g_array[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
__device__ int *g_ptr = &g_array[3];
__device__ int *g_ptrs[3] = {&g_counter, g_array, g_array + 10};
__device__ const float *g_cptr = c_coef + 2;
__device__ int **g_ptrptr = &g_ptrs[1];
__device__ char g_bytes[5] = {'a', 'b', 'c', 'd', 0};
__device__ uint8_t g_uninit[100];
__device__ __align__(32) double g_aligned[4];
__device__ Params g_params = {1, 2.f, 3.0, "device-name"};
__device__ struct { char c; int i; short s; long long l; } g_mixed = {'z', -9, 300, -123456789012345ll};
__device__ float g_matrix[3][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
__device__ bool g_flag = true;
static __device__ int s_file_local = 77;
__device__ volatile int g_volatile = 0;
__managed__ int m_managed = 11;
__device__ float g_f = 1.5f;
__device__ double g_d = -2.25;
__device__ long long g_ll = -1;

namespace nsp { __device__ int inner = 3; __constant__ float cinner[2] = {9.f, 8.f}; }

__global__ void globals_kernel(float *o) {
  int t = threadIdx.x;
  o[t] = c_coef[t & 7] + (float)c_dcoef[t % 3] + c_ints[t & 3] + c_params.a + c_params.b + (float)c_params.c + c_str[t & 7] + (float)c_u64 + c_shorts[t & 1][t % 3] + c_vec.y;
  o[t] += *g_ptr + *g_ptrs[t % 3] + *g_cptr + **g_ptrptr + g_bytes[t % 5] + g_uninit[t] + (float)g_aligned[t & 3] + g_params.name[0] + c_params.name[1];
  o[t] += g_mixed.c + g_mixed.s + (float)g_mixed.l + g_matrix[t % 3][t & 3] + g_flag + s_file_local + g_volatile + m_managed + nsp::inner + nsp::cinner[t & 1] + g_f + (float)g_d + (float)g_ll;
  atomicAdd(&g_counter, 1);
  g_ptr = &g_array[t & 15];
}
