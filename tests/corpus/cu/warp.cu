// Warp-level intrinsics.
__global__ void shfl_kernel(int *o, float *of, double *od, long long *ol, unsigned long long *oul, int w) {
  const unsigned full = 0xffffffffu;
  int t = threadIdx.x;
  int v = t * 3;
  float f = t * 0.5f;
  double d = t * 0.25;
  long long ll = (long long)t << 33;
  unsigned long long ull = 0x100000000ull * t;
  o[t] = __shfl_sync(full, v, 3) + __shfl_sync(full, v, 5, 16) + __shfl_sync(full, v, 1, 4);
  o[t] += __shfl_up_sync(full, v, 1) + __shfl_up_sync(full, v, 2, 8);
  o[t] += __shfl_down_sync(full, v, 4) + __shfl_down_sync(full, v, 1, w);
  o[t] += __shfl_xor_sync(full, v, 16) + __shfl_xor_sync(full, v, 2, 4);
  of[t] = __shfl_sync(full, f, 0) + __shfl_xor_sync(full, f, 1, 2) + __shfl_down_sync(full, f, 3, 8) + __shfl_up_sync(full, f, 7);
  od[t] = __shfl_sync(full, d, 7) + __shfl_down_sync(full, d, 1, 16);
  ol[t] = __shfl_xor_sync(full, ll, 8) + __shfl_up_sync(full, ll, 1, 32);
  oul[t] = __shfl_sync(full, ull, t ^ 1, 2);
  unsigned u = (unsigned)t;
  o[t] += (int)__shfl_down_sync(0x0000ffffu, u, 1, 16);
}

__global__ void vote_kernel(unsigned *o, const int *in) {
  int t = threadIdx.x;
  int x = in[t];
  unsigned am = __activemask();
  unsigned b = __ballot_sync(0xffffffffu, x > 0);
  int any = __any_sync(0xffffffffu, x == 42);
  int all = __all_sync(am, x != 0);
  unsigned uni = 0;
  if (x & 1) {
    unsigned m = __activemask();
    uni = __ballot_sync(m, x > 10);
    __syncwarp(m);
  }
  __syncwarp();
  o[t] = b + any + all + uni + am;
}

__global__ void match_kernel(unsigned *o, const int *in, const long long *inl) {
  int t = threadIdx.x;
  int pred = 0;
  unsigned m1 = __match_any_sync(0xffffffffu, in[t]);
  unsigned m2 = __match_all_sync(0xffffffffu, in[t], &pred);
  unsigned m3 = __match_any_sync(0xffffffffu, inl[t]);
  unsigned m4 = __match_all_sync(0xffffffffu, (unsigned long long)inl[t], &pred);
  o[t] = m1 ^ m2 ^ m3 ^ m4 ^ pred;
}

__global__ void reduce_kernel(unsigned *o, int *oi, const unsigned *in) {
  int t = threadIdx.x;
#if __CUDA_ARCH__ >= 800
  unsigned v = in[t];
  o[t] = __reduce_add_sync(0xffffffffu, v) + __reduce_min_sync(0xffffffffu, v) + __reduce_max_sync(0xffffffffu, v);
  o[t] ^= __reduce_and_sync(0xffffffffu, v) | __reduce_or_sync(0xffffffffu, v) | __reduce_xor_sync(0xffffffffu, v);
  int s = (int)v - 100;
  oi[t] = __reduce_add_sync(0xffffffffu, s) + __reduce_min_sync(0xffffffffu, s) + __reduce_max_sync(0xffffffffu, s);
#else
  unsigned v = in[t];
  for (int off = 16; off; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  o[t] = v;
  oi[t] = (int)v;
#endif
}

__device__ __forceinline__ unsigned lanemask_lt() { unsigned m; asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m)); return m; }

// Classic tree reduction with shuffles inside a template.
template <typename T> __device__ T warp_sum(T v) {
#pragma unroll
  for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}
__global__ void warp_sum_kernel(float *o, double *od, const float *in) {
  float s = warp_sum(in[threadIdx.x]);
  double sd = warp_sum((double)in[threadIdx.x]);
  if ((threadIdx.x & 31) == 0) { o[threadIdx.x >> 5] = s; od[threadIdx.x >> 5] = sd; }
  o[blockDim.x + threadIdx.x] = (float)(threadIdx.x % warpSize) + __popc(lanemask_lt());
}
