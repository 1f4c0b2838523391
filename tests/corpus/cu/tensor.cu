// Tensor cores: WMMA API, mma.sync and ldmatrix via inline asm.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

__global__ void wmma_f16(const half *a, const half *b, float *c, int lda, int ldb, int ldc) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  for (int k = 0; k < 64; k += 16) {
    wmma::load_matrix_sync(fa, a + k, lda);
    wmma::load_matrix_sync(fb, b + k, ldb);
    wmma::mma_sync(fc, fa, fb, fc);
  }
  for (int i = 0; i < fc.num_elements; ++i) fc.x[i] *= 2.0f;
  wmma::store_matrix_sync(c, fc, ldc, wmma::mem_row_major);
}

__global__ void wmma_f16_acc(const half *a, const half *b, half *c) {
  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, half> fc;
  wmma::load_matrix_sync(fa, a, 32);
  wmma::load_matrix_sync(fb, b, 8);
  wmma::load_matrix_sync(fc, c, 8, wmma::mem_col_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 8, wmma::mem_col_major);
}

__global__ void wmma_int8(const signed char *a, const signed char *b, int *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
  wmma::fill_fragment(fc, 0);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc, true);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

#if __CUDA_ARCH__ >= 800
__global__ void wmma_tf32_bf16_f64(const float *a, const float *b, float *c, const __nv_bfloat16 *ba, const __nv_bfloat16 *bb, const double *da, const double *db, double *dc) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::load_matrix_sync(fa, a, 8);
  wmma::load_matrix_sync(fb, b, 8);
  for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
  wmma::fill_fragment(fc, 0.f);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);

  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> ga;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> gb;
  wmma::load_matrix_sync(ga, ba, 16);
  wmma::load_matrix_sync(gb, bb, 16);
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> gc;
  wmma::fill_fragment(gc, 1.f);
  wmma::mma_sync(gc, ga, gb, gc);
  wmma::store_matrix_sync(c + 256, gc, 16, wmma::mem_col_major);

  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> xa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> xb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> xc;
  wmma::load_matrix_sync(xa, da, 4);
  wmma::load_matrix_sync(xb, db, 4);
  wmma::fill_fragment(xc, 0.0);
  wmma::mma_sync(xc, xa, xb, xc);
  wmma::store_matrix_sync(dc, xc, 8, wmma::mem_row_major);
}
#endif

// Raw mma.sync through inline asm.
__global__ void mma_asm(const unsigned *a, const unsigned *b, float *d) {
  int lane = threadIdx.x & 31;
  float c0 = 0.f, c1 = 0.f, c2 = 0.f, c3 = 0.f;
#if __CUDA_ARCH__ >= 800
  unsigned a0 = a[lane * 4], a1 = a[lane * 4 + 1], a2 = a[lane * 4 + 2], a3 = a[lane * 4 + 3];
  unsigned b0 = b[lane * 2], b1 = b[lane * 2 + 1];
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  int i0 = 0, i1 = 0, i2 = 0, i3 = 0;
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+r"(i0), "+r"(i1), "+r"(i2), "+r"(i3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  c0 += (float)(i0 + i1 + i2 + i3);
#else
  unsigned a0 = a[lane * 2], a1 = a[lane * 2 + 1];
  unsigned b0 = b[lane];
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
               : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
               : "r"(a0), "r"(a1), "r"(b0));
#endif
  d[lane * 4 + 0] = c0; d[lane * 4 + 1] = c1; d[lane * 4 + 2] = c2; d[lane * 4 + 3] = c3;
}

__global__ void ldmatrix_asm(const half *g, unsigned *o) {
  __shared__ __align__(16) half tile[16 * 16];
  int lane = threadIdx.x & 31;
  for (int i = lane; i < 256; i += 32) tile[i] = g[i];
  __syncwarp();
  unsigned addr = (unsigned)__cvta_generic_to_shared(&tile[(lane & 15) * 16 + (lane >> 4) * 8]);
  unsigned r0, r1, r2, r3, t0, t1;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(t0), "=r"(t1) : "r"(addr));
  unsigned s0;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(s0) : "r"(addr));
#if __CUDA_ARCH__ >= 900
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" :: "r"(addr), "r"(r0), "r"(r1) : "memory");
#endif
  o[lane] = r0 ^ r1 ^ r2 ^ r3 ^ t0 ^ t1 ^ s0;
}
