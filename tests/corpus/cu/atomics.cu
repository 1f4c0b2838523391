// Atomics: classic intrinsics, scoped variants, cuda::atomic_ref.
#include <cuda/atomic>

__global__ void classic_atomics(int *i, unsigned *u, unsigned long long *ull, long long *ll, float *f, double *d) {
  int t = threadIdx.x;
  atomicAdd(i, t);
  atomicAdd(u, 1u);
  atomicAdd(ull, 1ull);
  atomicAdd(f, 0.5f);
  atomicAdd(d, 0.25);
  atomicSub(i + 1, t);
  atomicSub(u + 1, 2u);
  atomicExch(i + 2, t);
  atomicExch(u + 2, (unsigned)t);
  atomicExch(ull + 1, (unsigned long long)t);
  atomicExch(f + 1, (float)t);
  atomicMin(i + 3, t);
  atomicMin(u + 3, (unsigned)t);
  atomicMin(ll, (long long)t);
  atomicMin(ull + 2, (unsigned long long)t);
  atomicMax(i + 4, t);
  atomicMax(u + 4, (unsigned)t);
  atomicMax(ll + 1, (long long)-t);
  atomicMax(ull + 3, (unsigned long long)t);
  atomicInc(u + 5, 100u);
  atomicDec(u + 6, 100u);
  atomicCAS(i + 5, 0, t);
  atomicCAS(u + 7, 0u, (unsigned)t);
  atomicCAS(ull + 4, 0ull, (unsigned long long)t);
  atomicCAS((unsigned short *)(u + 8), (unsigned short)0, (unsigned short)t);
  atomicAnd(i + 6, ~t);
  atomicOr(i + 7, 1 << (t & 31));
  atomicXor(i + 8, t);
  atomicAnd(u + 9, 0xf0u);
  atomicOr(ull + 5, 1ull << (t & 63));
  atomicXor(ull + 6, 0xdeadbeefull);
  atomicAnd(ull + 7, 0xffull);
  // Return values used
  int old = atomicAdd(i + 9, 1);
  if (old == 5) atomicExch(i + 10, old);
}

__global__ void scoped_atomics(int *i, float *f, double *d, unsigned long long *ull) {
  int t = threadIdx.x;
  atomicAdd_block(i, t);
  atomicAdd_system(i + 1, t);
  atomicAdd_block(f, 1.0f);
  atomicAdd_system(d, 1.0);
  atomicExch_block(i + 2, t);
  atomicCAS_system(i + 3, 1, 2);
  atomicMax_block(ull, (unsigned long long)t);
  atomicOr_system(i + 4, t);
  atomicInc_block((unsigned *)(i + 5), 10u);
}

__global__ void shared_atomics(int *o) {
  __shared__ int hist[64];
  __shared__ float fh[8];
  __shared__ unsigned long long big;
  int t = threadIdx.x;
  if (t < 64) hist[t] = 0;
  if (t < 8) fh[t] = 0.f;
  if (t == 0) big = 0;
  __syncthreads();
  atomicAdd(&hist[t & 63], 1);
  atomicAdd(&fh[t & 7], 1.5f);
  atomicMax(&hist[(t * 7) & 63], t);
  atomicCAS(&big, 0ull, (unsigned long long)t);
  __syncthreads();
  if (t < 64) o[t] = hist[t] + (int)fh[t & 7] + (int)big;
}

__global__ void atomic_ref_kernel(int *pi, float *pf, double *pd, unsigned long long *pu) {
  int t = threadIdx.x;
  cuda::atomic_ref<int, cuda::thread_scope_system> sys(*pi);
  cuda::atomic_ref<int, cuda::thread_scope_block> blk(pi[1]);
  cuda::atomic_ref<int, cuda::thread_scope_device> dev(pi[2]);
  cuda::atomic_ref<float, cuda::thread_scope_device> fr(*pf);
  cuda::atomic_ref<double, cuda::thread_scope_system> dr(*pd);
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_block> ur(*pu);
  sys.fetch_add(t, cuda::memory_order_relaxed);
  blk.fetch_add(t, cuda::memory_order_acq_rel);
  dev.fetch_sub(1, cuda::memory_order_release);
  sys.fetch_and(0x7f, cuda::memory_order_acquire);
  blk.fetch_or(t, cuda::memory_order_seq_cst);
  dev.fetch_xor(t);
  dev.fetch_min(t);
  sys.fetch_max(t);
  fr.fetch_add(1.0f, cuda::memory_order_relaxed);
  dr.fetch_add(2.0, cuda::memory_order_seq_cst);
  ur.fetch_add(3ull);
  int expected = 0;
  blk.compare_exchange_strong(expected, t, cuda::memory_order_acq_rel, cuda::memory_order_relaxed);
  sys.compare_exchange_weak(expected, t);
  int x = dev.exchange(t, cuda::memory_order_acquire);
  blk.store(x, cuda::memory_order_release);
  int y = sys.load(cuda::memory_order_acquire) + dev.load(cuda::memory_order_relaxed) + blk.load();
  pi[3 + t] = y;
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_system);
  cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_block);
  __threadfence();
  __threadfence_block();
  __threadfence_system();
}

