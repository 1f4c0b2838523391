// FP8 (e4m3 / e5m2) and FP8x2/x4 conversions, also fp6/fp4 when available.
#include <cuda_fp8.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void fp8_scalar(unsigned char *o, float *of, const float *in, const __half *inh) {
  int t = threadIdx.x;
  float x = in[t];
  __nv_fp8_e4m3 a(x);
  __nv_fp8_e5m2 b(x);
  __nv_fp8_e4m3 c(inh[t]);
  __nv_fp8_e5m2 d((double)x);
  o[t * 4 + 0] = a.__x;
  o[t * 4 + 1] = b.__x;
  o[t * 4 + 2] = c.__x;
  o[t * 4 + 3] = d.__x;
  of[t] = float(a) + float(b) + __half2float(__half(c)) + (float)d;
}

__global__ void fp8_packed(unsigned short *o2, unsigned *o4, float *of, const float *in) {
  int t = threadIdx.x;
  float2 f2 = make_float2(in[2 * t], in[2 * t + 1]);
  __nv_fp8x2_e4m3 p(f2);
  __nv_fp8x2_e5m2 q(f2);
  o2[t] = p.__x ^ q.__x;
  float4 f4 = make_float4(in[t], in[t + 1], in[t + 2], in[t + 3]);
  __nv_fp8x4_e4m3 r(f4);
  __nv_fp8x4_e5m2 s(f4);
  o4[t] = r.__x + s.__x;
  float2 back = float2(p);
  float4 back4 = float4(s);
  of[t] = back.x + back.y + back4.z + back4.w;
}

__global__ void fp8_intrinsics(unsigned *o, float *of, const float *in, const __half2 *h2, const __nv_bfloat162 *b2) {
  int t = threadIdx.x;
  __nv_fp8_storage_t s1 = __nv_cvt_float_to_fp8(in[t], __NV_SATFINITE, __NV_E4M3);
  __nv_fp8_storage_t s2 = __nv_cvt_float_to_fp8(in[t], __NV_NOSAT, __NV_E5M2);
  __nv_fp8x2_storage_t s3 = __nv_cvt_float2_to_fp8x2(make_float2(in[t], 1.f), __NV_SATFINITE, __NV_E4M3);
  __nv_fp8x2_storage_t s4 = __nv_cvt_halfraw2_to_fp8x2(h2[t], __NV_SATFINITE, __NV_E5M2);
  __nv_fp8x2_storage_t s5 = __nv_cvt_bfloat16raw2_to_fp8x2(b2[t], __NV_SATFINITE, __NV_E4M3);
  __nv_fp8_storage_t s6 = __nv_cvt_double_to_fp8((double)in[t], __NV_SATFINITE, __NV_E5M2);
  o[t] = s1 | (s2 << 8) | ((unsigned)s3 << 16) ^ s4 ^ s5 ^ s6;
  __half_raw hr = __nv_cvt_fp8_to_halfraw(s1, __NV_E4M3);
  __half2_raw hr2 = __nv_cvt_fp8x2_to_halfraw2(s3, __NV_E4M3);
  __half h = hr;
  __half2 hh = hr2;
  of[t] = __half2float(h) + __low2float(hh) + __high2float(hh);
}
