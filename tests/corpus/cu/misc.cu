// printf, assert, nanosleep, clocks, special registers, trap, launch bounds.
#include <cstdio>
#include <cassert>

__global__ void __launch_bounds__(256, 2) print_kernel(const int *in, float f, double d) {
  int t = threadIdx.x;
  if (t == 0) printf("block %d of %d: f=%f d=%g s=%s c=%c ll=%lld p=%p\n", blockIdx.x, gridDim.x, f, d, "hi", 'x', (long long)in[0], in);
  assert(in[t] >= 0);
  assert(t < 1024 && "thread index out of range");
}

__global__ void clock_kernel(long long *o, unsigned *ou) {
  long long c0 = clock64();
  unsigned c1 = (unsigned)clock();
#if __CUDA_ARCH__ >= 700
  __nanosleep(100);
  __nanosleep(threadIdx.x * 10);
#endif
  long long c2 = clock64();
  unsigned long long gt;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
  unsigned sm, warp, lane, nsm;
  asm("mov.u32 %0, %%smid;" : "=r"(sm));
  asm("mov.u32 %0, %%warpid;" : "=r"(warp));
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm("mov.u32 %0, %%nsmid;" : "=r"(nsm));
  o[threadIdx.x] = c2 - c0 + (long long)gt;
  ou[threadIdx.x] = c1 + sm + warp + lane + nsm;
}

__global__ void __launch_bounds__(128) trap_kernel(int *p) {
  if (p == nullptr) __trap();
  if (*p == 0xdead) __brkpt();
  if (*p == 0xbeef) __builtin_unreachable();
  *p = 1;
}

__global__ void __maxnreg__(64) maxnreg_kernel(float *o) { o[threadIdx.x] = threadIdx.x * 2.f; }

__global__ void prof_kernel(int *o) {
  __prof_trigger(3);
  o[threadIdx.x] = __ldg(o + threadIdx.x) + __ldcg(o + 1) + __ldca(o + 2) + __ldcs(o + 3) + __ldlu(o + 4) + __ldcv(o + 5);
  __stwb(o + 6, 1);
  __stcg(o + 7, 2);
  __stcs(o + 8, 3);
  __stwt(o + 9, 4);
  float4 v = __ldg(reinterpret_cast<const float4 *>(o) + 4);
  o[10] = (int)(v.x + v.w);
}

__global__ void restrict_kernel(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] * b[i] + c[i];
}

__global__ void local_array_kernel(int *o, int k) {
  int arr[64];
  for (int i = 0; i < 64; ++i) arr[i] = i * k;
  o[threadIdx.x] = arr[(threadIdx.x * 7 + k) & 63];
}
