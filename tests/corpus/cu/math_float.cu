// Single-precision math: library functions, fast intrinsics, rounding-mode intrinsics.
__global__ void libm_float(float *o, const float *in) {
  int t = threadIdx.x;
  float x = in[t];
  o[t * 16 + 0] = sinf(x) + cosf(x) + tanf(x);
  o[t * 16 + 1] = expf(x) + exp2f(x) + exp10f(x) + expm1f(x);
  o[t * 16 + 2] = logf(x) + log2f(x) + log10f(x) + log1pf(x);
  o[t * 16 + 3] = sqrtf(x) + rsqrtf(x) + cbrtf(x) + rcbrtf(x);
  o[t * 16 + 4] = powf(x, 1.7f) + atan2f(x, 2.f) + hypotf(x, 3.f);
  o[t * 16 + 5] = floorf(x) + ceilf(x) + truncf(x) + roundf(x) + rintf(x) + nearbyintf(x);
  o[t * 16 + 6] = fminf(x, 1.f) + fmaxf(x, -1.f) + fabsf(x) + copysignf(x, -2.f) + fdimf(x, 0.3f);
  o[t * 16 + 7] = fmaf(x, 2.f, 1.f) + fmodf(x, 0.7f) + remainderf(x, 0.3f);
  float s, c;
  sincosf(x, &s, &c);
  o[t * 16 + 8] = s * c + asinf(x * 0.1f) + acosf(x * 0.1f) + atanf(x);
  o[t * 16 + 9] = sinhf(x) + coshf(x) + tanhf(x) + asinhf(x) + acoshf(x + 2.f) + atanhf(x * 0.1f);
  o[t * 16 + 10] = erff(x) + erfcf(x) + lgammaf(x) + tgammaf(x) + erfinvf(x * 0.1f);
  int e;
  o[t * 16 + 11] = frexpf(x, &e) + ldexpf(x, 3) + e + scalbnf(x, 2) + logbf(x) + ilogbf(x);
  o[t * 16 + 12] = sinpif(x) + cospif(x) + normcdff(x) + j0f(x) + y1f(x + 1.f);
  o[t * 16 + 13] = isnan(x) + isinf(x) + isfinite(x) + signbit(x) + (float)lrintf(x) + (float)llroundf(x);
}

__global__ void fast_intrinsics(float *o, const float *in) {
  int t = threadIdx.x;
  float x = in[t];
  o[t * 8 + 0] = __sinf(x) + __cosf(x) + __tanf(x);
  o[t * 8 + 1] = __expf(x) + __exp10f(x) + __logf(x) + __log2f(x) + __log10f(x);
  o[t * 8 + 2] = __powf(x, 2.5f) + __fdividef(x, 3.f) + __frcp_rn(x) + __fsqrt_rn(x) + __frsqrt_rn(x);
  o[t * 8 + 3] = __saturatef(x) + __fmul_rz(x, x) + __fmul_rn(x, 3.f) + __fmul_ru(x, 4.f) + __fmul_rd(x, 5.f);
  o[t * 8 + 4] = __fadd_rn(x, 1.f) + __fadd_rz(x, 2.f) + __fadd_ru(x, 3.f) + __fadd_rd(x, 4.f) + __fsub_rn(x, 1.f) + __fsub_rz(x, 1.f) + __fsub_ru(x, 1.f) + __fsub_rd(x, 1.f);
  o[t * 8 + 5] = __fmaf_rn(x, x, 1.f) + __fmaf_rz(x, x, 1.f) + __fmaf_ru(x, x, 1.f) + __fmaf_rd(x, x, 1.f) + __fmaf_ieee_rn(x, 2.f, 3.f);
  o[t * 8 + 6] = __fdiv_rn(x, 3.f) + __fdiv_rz(x, 3.f) + __fdiv_ru(x, 3.f) + __fdiv_rd(x, 3.f) + __frcp_rz(x) + __frcp_ru(x) + __frcp_rd(x);
  o[t * 8 + 7] = __fsqrt_rz(x) + __fsqrt_ru(x) + __fsqrt_rd(x) + x / in[t + 1] + 1.0f / x;
  float s, c;
  __sincosf(x, &s, &c);
  o[t * 8 + 0] += s + c;
}

__global__ void conversions(int *oi, unsigned *ou, long long *ol, float *of, const float *in, const double *ind) {
  int t = threadIdx.x;
  float x = in[t];
  double d = ind[t];
  oi[t] = __float2int_rn(x) + __float2int_rz(x) + __float2int_ru(x) + __float2int_rd(x) + (int)x;
  ou[t] = __float2uint_rn(x) + __float2uint_rz(x) + __float2uint_ru(x) + __float2uint_rd(x) + (unsigned)x;
  ol[t] = __float2ll_rn(x) + __float2ll_rz(x) + __double2ll_ru(d) + __double2ull_rd(d) + (long long)d;
  of[t] = __int2float_rn(t) + __int2float_rz(t) + __uint2float_ru(t) + __ll2float_rd(t) + __double2float_rn(d) + __double2float_rz(d) + __double2float_ru(d) + __double2float_rd(d);
  of[t] += __int_as_float(t) + __uint_as_float(0x3f800000u) + (float)__float_as_int(x) + (float)__float_as_uint(x);
  of[t] += (float)__double2hiint(d) + (float)__double2loint(d) + (float)__hiloint2double(t, t);
  of[t] += (float)__double_as_longlong(d) + (float)__longlong_as_double(12345);
}

__global__ void denorm_and_compare(float *o, const float *a, const float *b) {
  int t = threadIdx.x;
  float x = a[t], y = b[t];
  float r = 0.f;
  if (x < y) r += 1.f;
  if (x <= y) r += 2.f;
  if (x == y) r += 4.f;
  if (x != y) r += 8.f;
  if (!(x >= y)) r += 16.f;
  if (x != x || y != y) r += 32.f;
  r += x > y ? x : y;
  o[t] = r + fmaxf(fminf(x, y), -1.0f);
}
