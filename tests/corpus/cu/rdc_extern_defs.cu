// Compiled with -rdc=true: the definitions rdc_extern.cu declares extern (its link partner; the AMDGPU and
// SPIR-V corpus sweeps and the linking tests compile rdc_extern.sm_X.ptx together with rdc_extern_defs.sm_X.ptx).
__device__ int ext_counter;
__constant__ float ext_table[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
__device__ int ext_log_buf[64];

__device__ float ext_scale(float x, int k) { return x * (float)(k + 1) + ext_table[k & 15]; }
__device__ __noinline__ void ext_log(const char *tag, int v) { ext_log_buf[v & 63] = tag[0] * 1000 + v; }

// a kernel of its own: after linking, both modules' kernels are in the output
__global__ void rdc_defs_kernel(int *out) { out[threadIdx.x] = ext_log_buf[threadIdx.x & 63] + ext_counter; }
