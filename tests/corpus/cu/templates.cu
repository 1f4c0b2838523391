// Templates, device functions, recursion, overloading, constexpr.
#include <cstdint>

template <typename T> struct Accum {
  T v;
  __device__ Accum() : v(T(0)) {}
  __device__ void add(T x) { v += x; }
};

template <typename T, int N> __device__ T unrolled_dot(const T *a, const T *b) {
  T s = T(0);
#pragma unroll
  for (int i = 0; i < N; ++i) s += a[i] * b[i];
  return s;
}

__device__ __noinline__ unsigned fib(unsigned n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ long long ackermann_ish(int m, long long n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann_ish(m - 1, 1);
  return ackermann_ish(m - 1, ackermann_ish(m, n - 1) & 7);
}

// Mutual recursion.
__device__ __noinline__ bool is_odd(int n);
__device__ __noinline__ bool is_even(int n) { return n == 0 ? true : is_odd(n - 1); }
__device__ __noinline__ bool is_odd(int n) { return n == 0 ? false : is_even(n - 1); }

__device__ __forceinline__ int sq(int x) { return x * x; }
__device__ __forceinline__ float sq(float x) { return x * x; }
__device__ __forceinline__ double sq(double x) { return x * x; }
__device__ __forceinline__ long sq(long x) { return x * x; }

template <typename T> __global__ void dot_kernel(const T *a, const T *b, T *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i * 8 + 8 <= n) {
    Accum<T> acc;
    acc.add(unrolled_dot<T, 8>(a + i * 8, b + i * 8));
    acc.add(sq(acc.v));
    out[i] = acc.v;
  }
}
template __global__ void dot_kernel<float>(const float *, const float *, float *, int);
template __global__ void dot_kernel<double>(const double *, const double *, double *, int);
template __global__ void dot_kernel<int>(const int *, const int *, int *, int);
template __global__ void dot_kernel<int64_t>(const int64_t *, const int64_t *, int64_t *, int);

template <int Depth> __device__ int tree_sum(const int *p) {
  if constexpr (Depth == 0) return p[0];
  else return tree_sum<Depth - 1>(p) + tree_sum<Depth - 1>(p + (1 << (Depth - 1)));
}

extern "C" __global__ void recursion_kernel(unsigned *fo, long long *ao, int *eo, const int *tree, int *ts) {
  unsigned t = threadIdx.x;
  fo[t] = fib(t & 15);
  ao[t] = ackermann_ish(t & 1, t & 3);
  eo[t] = is_even(t) ? 1 : 0;
  if (t == 0) *ts = tree_sum<4>(tree);
}

template <typename F> __device__ void apply_all(float *p, int n, F f) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) p[i] = f(p[i]);
}

__global__ void lambda_kernel(float *p, int n, float scale) {
  apply_all(p, n, [=] __device__(float x) { return x * scale + 1.0f; });
  apply_all(p, n, [] __device__(float x) { return x > 0.f ? x : 0.f; });
}

// Variadic template
template <typename... Ts> __device__ int count_args(Ts...) { return sizeof...(Ts); }
template <typename T> __device__ T vmax(T a) { return a; }
template <typename T, typename... R> __device__ T vmax(T a, R... r) { T b = vmax(r...); return a > b ? a : b; }

__global__ void variadic_kernel(int *o, const int *in) {
  int t = threadIdx.x;
  o[t] = count_args(1, 2.0, 'c', in) + vmax(in[t], in[t + 1], in[t + 2], in[t + 3]);
}

// struct passed by value, returned by value
struct Big { int a[9]; float f; double d; };
__device__ __noinline__ Big make_big(int s) { Big b; for (int i = 0; i < 9; ++i) b.a[i] = s + i; b.f = s * 0.5f; b.d = s * 0.25; return b; }
__device__ __noinline__ double sum_big(Big b) { double r = b.f + b.d; for (int i = 0; i < 9; ++i) r += b.a[i]; return r; }
__global__ void struct_kernel(double *o) { o[threadIdx.x] = sum_big(make_big(threadIdx.x)); }
