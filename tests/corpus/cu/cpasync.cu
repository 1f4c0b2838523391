// Asynchronous copies: cuda_pipeline primitives, inline cp.async, TMA-ish bulk copy on sm_90.
#include <cuda_pipeline.h>
#include <cuda/barrier>
#pragma nv_diag_suppress static_var_with_dynamic_init

__global__ void pipeline_copy(const float4 *src, float4 *dst, int n) {
  __shared__ float4 buf[2][128];
  int t = threadIdx.x;
  int stage = 0;
  __pipeline_memcpy_async(&buf[0][t], &src[t], sizeof(float4));
  __pipeline_commit();
  for (int base = 128; base < n; base += 128) {
    __pipeline_memcpy_async(&buf[stage ^ 1][t], &src[base + t], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    dst[base - 128 + t] = buf[stage][(t + 1) & 127];
    __syncthreads();
    stage ^= 1;
  }
  __pipeline_wait_prior(0);
  __syncthreads();
  dst[n - 128 + t] = buf[stage][t];
}

__global__ void cp_async_asm(const int *src, int *dst) {
  __shared__ __align__(16) int sm[512];
  int t = threadIdx.x;
#if __CUDA_ARCH__ >= 800
  unsigned saddr = (unsigned)__cvta_generic_to_shared(&sm[t * 4]);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(saddr), "l"(src + t * 4) : "memory");
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, 2;\n" :: "r"(saddr + 256 * 4), "l"(src + 1024 + t) : "memory");
  asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 8;\n" :: "r"(saddr + 384 * 4), "l"(src + 2048 + t * 2) : "memory");
  asm volatile("cp.async.commit_group;\n" ::: "memory");
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#else
  for (int i = 0; i < 4; ++i) sm[t * 4 + i] = src[t * 4 + i];
#endif
  __syncthreads();
  dst[t] = sm[(t * 4 + 3) & 511];
}

__global__ void barrier_arrive_wait(const int *src, int *dst) {
#if __CUDA_ARCH__ >= 800
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int sm[256];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(&sm[threadIdx.x], &src[threadIdx.x], sizeof(int), bar);
  bar.arrive_and_wait();
  dst[threadIdx.x] = sm[255 - threadIdx.x];
#endif
}

__global__ void bulk_copy_sm90(const int4 *src, int4 *dst) {
#if __CUDA_ARCH__ >= 900
  __shared__ __align__(128) int4 sm[64];
  __shared__ __align__(8) unsigned long long mbar;
  unsigned bar = (unsigned)__cvta_generic_to_shared(&mbar);
  unsigned smem = (unsigned)__cvta_generic_to_shared(sm);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(1));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(1024) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(smem), "l"(src), "r"(1024), "r"(bar) : "memory");
  }
  unsigned done = 0;
  while (!done) {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(bar), "r"(0) : "memory");
  }
  dst[threadIdx.x] = sm[threadIdx.x & 63];
#endif
}
