// Double-precision math.
__global__ void libm_double(double *o, const double *in) {
  int t = threadIdx.x;
  double x = in[t];
  o[t * 10 + 0] = sin(x) + cos(x) + tan(x) + sqrt(x) + rsqrt(x);
  o[t * 10 + 1] = exp(x) + exp2(x) + log(x) + log2(x) + log1p(x) + expm1(x);
  o[t * 10 + 2] = pow(x, 1.5) + atan2(x, 1.0) + hypot(x, 2.0) + cbrt(x);
  o[t * 10 + 3] = floor(x) + ceil(x) + trunc(x) + round(x) + rint(x) + fabs(x) + fmin(x, 1.0) + fmax(x, 0.0);
  o[t * 10 + 4] = fma(x, x, 1.0) + fmod(x, 0.3) + copysign(x, -1.0);
  o[t * 10 + 5] = erf(x) + erfc(x) + tgamma(x) + lgamma(x) + sinh(x) + tanh(x);
  double s, c;
  sincos(x, &s, &c);
  o[t * 10 + 6] = s + c + sinpi(x) + asin(x * 0.1) + acos(x * 0.1);
  o[t * 10 + 7] = __dadd_rn(x, 1.0) + __dadd_rz(x, 1.0) + __dadd_ru(x, 1.0) + __dadd_rd(x, 1.0);
  o[t * 10 + 8] = __dmul_rn(x, 3.0) + __dmul_rz(x, 3.0) + __dmul_ru(x, 3.0) + __dmul_rd(x, 3.0) + __fma_rn(x, x, x) + __fma_rz(x, x, x) + __fma_ru(x, x, x) + __fma_rd(x, x, x);
  o[t * 10 + 9] = __ddiv_rn(x, 3.0) + __ddiv_rz(x, 3.0) + __ddiv_ru(x, 3.0) + __ddiv_rd(x, 3.0) + __drcp_rn(x) + __dsqrt_rn(x) + __dsqrt_rz(x) + __dsqrt_ru(x) + __dsqrt_rd(x) + x / in[t + 1];
}

__global__ void double_conv(double *o, const int *ii, const long long *il, const float *f) {
  int t = threadIdx.x;
  o[t] = (double)ii[t] + (double)il[t] + (double)f[t] + (double)(unsigned)ii[t] + (double)(unsigned long long)il[t];
  o[t] += __int2double_rn(ii[t]) + __ll2double_rz(il[t]) + __ull2double_ru(il[t]) + __uint2double_rn(ii[t]);
  o[t] += (double)__double2int_rz(o[t]) + (double)__double2uint_rn(o[t]) + (double)__double2int_rd(o[t]) + (double)__double2int_ru(o[t]);
}

__device__ __noinline__ double horner(const double *c, int n, double x) {
  double r = 0.0;
  for (int i = n - 1; i >= 0; --i) r = fma(r, x, c[i]);
  return r;
}
__global__ void poly_kernel(double *o, const double *coef, int n) { o[threadIdx.x] = horner(coef, n, threadIdx.x * 0.01); }
