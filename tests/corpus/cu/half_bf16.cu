// half / bfloat16 scalar and packed arithmetic.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void half_kernel(__half *o, __half2 *o2, const __half *a, const __half2 *b, float *of) {
  int t = threadIdx.x;
  __half x = a[t], y = a[t + 1];
  __half r = __hadd(x, y);
  r = __hmul(r, x);
  r = __hsub(r, y);
  r = __hfma(r, x, y);
  r = __hdiv(r, __float2half(3.0f));
  r = __hadd_sat(r, x);
  r = __hfma_relu(r, x, y);
  r = __hmax(r, __hmin(x, y));
  r = __hneg(r);
  r = __habs(r);
  r = hsqrt(r) + hexp(x) + hlog(y) + hsin(x) + hcos(y) + hrsqrt(x) + hrcp(y) + hexp2(x) + hlog2(y) + hfloor(x) + hceil(y) + htrunc(x) + hrint(y);
  o[t] = __hlt(x, y) ? r : __heq(x, y) ? x : y;
  __half2 p = b[t], q = b[t + 1];
  __half2 s = __hadd2(p, q);
  s = __hmul2(s, p);
  s = __hfma2(s, p, q);
  s = __hsub2(s, q);
  s = __h2div(s, q);
  s = __hmax2(s, __hmin2(p, q));
  s = __hfma2_relu(s, p, q);
  s = __hneg2(s);
  s = __habs2(s);
  s = h2sqrt(s) + h2exp(p);
  s = __hmul2_sat(s, p);
  s = __lowhigh2highlow(s);
  s = __halves2half2(__low2half(s), __high2half(p));
  o2[t] = s + __hge2(p, q);
  float2 f2 = __half22float2(s);
  of[t] = f2.x + f2.y + __half2float(r) + __low2float(p) + __high2float(q);
  o[t + 64] = __float2half_rn(of[t]) + __float2half_rz(f2.x) + __float2half_ru(f2.y) + __float2half_rd(f2.x) + __int2half_rn(t) + __uint2half_rz(t) + __short2half_rd((short)t);
  of[t + 64] = (float)__half2int_rn(x) + (float)__half2int_rz(y) + (float)__half2uint_rd(x) + (float)__half2short_ru(y) + (float)__half_as_short(x) + (float)__hisnan(y) + (float)__hisinf(x);
  o2[t + 64] = __floats2half2_rn(1.0f, 2.0f) + __float2half2_rn(of[t]) + __shfl_xor_sync(0xffffffffu, s, 1);
  // operators
  __half z = x * y + x - y / x;
  o[t + 128] = z > x ? z : -z;
}

__global__ void bf16_kernel(__nv_bfloat16 *o, __nv_bfloat162 *o2, const __nv_bfloat16 *a, const __nv_bfloat162 *b, float *of) {
  int t = threadIdx.x;
  __nv_bfloat16 x = a[t], y = a[t + 1];
#if __CUDA_ARCH__ >= 800
  __nv_bfloat16 r = __hadd(x, y);
  r = __hmul(r, x);
  r = __hsub(r, y);
  r = __hfma(r, x, y);
  r = __hdiv(r, __float2bfloat16(3.0f));
  r = __hmax(r, __hmin(x, y));
  r = __hneg(r) + __habs(x) + hsqrt(x) + hexp(y) + hrcp(x);
  r = __hfma_relu(r, x, y);
  __nv_bfloat162 p = b[t], q = b[t + 1];
  __nv_bfloat162 s = __hadd2(p, q);
  s = __hmul2(s, q);
  s = __hfma2(s, p, q);
  s = __hmax2(s, p);
  s = __hneg2(s);
  s = h2sqrt(s);
#else
  __nv_bfloat16 r = __float2bfloat16(__bfloat162float(x) * __bfloat162float(y));
  __nv_bfloat162 p = b[t], q = b[t + 1];
  __nv_bfloat162 s = __floats2bfloat162_rn(__low2float(p) + __low2float(q), __high2float(p) * __high2float(q));
#endif
  o2[t] = s + __floats2bfloat162_rn(1.f, 2.f);
  o[t] = r + __float2bfloat16_rz(of[t]) + __float2bfloat16_ru(of[t]) + __float2bfloat16_rd(of[t]) + __int2bfloat16_rn(t);
  float2 f2 = __bfloat1622float2(s);
  of[t] = f2.x + f2.y + __bfloat162float(r) + __low2float(p) + (float)__bfloat162int_rz(x) + (float)__bfloat16_as_short(y);
  // half <-> bf16 via float
  __half h = __float2half(__bfloat162float(r));
  of[t + 64] = __half2float(h);
#if __CUDA_ARCH__ >= 800
  __nv_bfloat16 z = x * y - x / y;
  o[t + 64] = z < x ? z : x;
#endif
}

// Mixed: fp16 accumulation in float, hardware conversions f32x2 -> f16x2
__global__ void pack_kernel(unsigned *o, const float *in) {
  int t = threadIdx.x;
  __half2 h = __floats2half2_rn(in[2 * t], in[2 * t + 1]);
  __nv_bfloat162 bh = __floats2bfloat162_rn(in[2 * t], in[2 * t + 1]);
  o[t] = *reinterpret_cast<unsigned *>(&h) ^ *reinterpret_cast<unsigned *>(&bh);
}
