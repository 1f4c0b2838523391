// Function pointers, indirect calls, virtual functions, switch jump tables.
typedef float (*unary_fn)(float);
__device__ __noinline__ float op_neg(float x) { return -x; }
__device__ __noinline__ float op_twice(float x) { return 2.0f * x; }
__device__ __noinline__ float op_sqr(float x) { return x * x; }
__device__ __noinline__ float op_half(float x) { return 0.5f * x; }

__device__ unary_fn g_table[4] = {op_neg, op_twice, op_sqr, op_half};
__constant__ unary_fn c_table[2] = {op_sqr, op_neg};

typedef int (*binop)(int, int, int *);
__device__ __noinline__ int bo_add(int a, int b, int *s) { *s += 1; return a + b; }
__device__ __noinline__ int bo_sub(int a, int b, int *s) { *s += 2; return a - b; }

__global__ void fnptr_kernel(float *data, int *sel, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unary_fn f = g_table[sel[i] & 3];
  float v = f(data[i]);
  v = c_table[i & 1](v);
  data[i] = v;
}

__global__ void binop_kernel(int *out, int a, int b, bool which) {
  binop op = which ? bo_add : bo_sub;
  int side = 0;
  out[threadIdx.x] = op(a + threadIdx.x, b, &side) + side;
}

struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual ~Shape() {}
};
struct Sq : Shape { float s; __device__ Sq(float x) : s(x) {} __device__ float area() const override { return s * s; } };
struct Circ : Shape { float r; __device__ Circ(float x) : r(x) {} __device__ float area() const override { return 3.14159f * r * r; } };

__global__ void virtual_kernel(float *out, const float *in) {
  int t = threadIdx.x;
  Sq sq(in[t]);
  Circ c(in[t]);
  Shape *s = (t & 1) ? static_cast<Shape *>(&sq) : static_cast<Shape *>(&c);
  out[t] = s->area();
}

__device__ __noinline__ int big_switch(int k, int x) {
  switch (k) {
  case 0: return x + 1;
  case 1: return x * 3;
  case 2: return x ^ 0x55;
  case 3: return x >> 2;
  case 4: return x - 7;
  case 5: return ~x;
  case 6: return x * x;
  case 7: return x | 0x100;
  case 8: return x & 0xff;
  case 9: return -x;
  default: return 0;
  }
}
__global__ void switch_kernel(int *o, const int *k) { o[threadIdx.x] = big_switch(k[threadIdx.x], threadIdx.x); }

// Callback through a struct member pointer.
struct Cb { int (*fn)(int); int arg; };
__device__ int cb_inc(int x) { return x + 1; }
__device__ int cb_dec(int x) { return x - 1; }
__global__ void cb_kernel(int *o) {
  Cb cbs[2] = {{cb_inc, 10}, {cb_dec, 20}};
  Cb c = cbs[threadIdx.x & 1];
  o[threadIdx.x] = c.fn(c.arg);
}
