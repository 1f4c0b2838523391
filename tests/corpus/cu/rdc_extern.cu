// Compiled with -rdc=true: extern device functions and variables defined elsewhere.
extern __device__ float ext_scale(float x, int k);
extern __device__ int ext_counter;
extern __device__ __noinline__ void ext_log(const char *tag, int v);
extern __constant__ float ext_table[16];

__device__ __noinline__ float local_helper(float x) { return x * 0.5f + ext_table[(int)x & 15]; }
__device__ __attribute__((weak)) int weak_fn(int x) { return x + 1; }

__global__ void rdc_kernel(float *o, const float *in) {
  int t = threadIdx.x;
  o[t] = ext_scale(local_helper(in[t]), t) + weak_fn(t);
  atomicAdd(&ext_counter, 1);
  if (t == 0) ext_log("rdc", ext_counter);
}

__device__ float visible_from_here(float x) { return x * x; }
