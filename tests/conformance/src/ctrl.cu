// Control flow: divergence, loops, calls, recursion, indirect calls (family "ctrl").
#define K extern "C" __global__

K void k_diverge(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int r = 0;
    if (v & 1) {
        if (v & 2) r = v * 3;
        else r = v - 7;
        for (int k = 0; k < (v & 15); k++) r += k * (v >> 4);
    } else if (v & 4) {
        int k = 0;
        while (k < 100 && (r & 0x100) == 0) {
            r += v + k;
            if (r & 8) continue;
            k += 2;
        }
    } else {
        switch ((v >> 3) & 7) {
        case 0: r = 11; break;
        case 1: r = v << 2; break;
        case 2: r = v >> 1;  // fallthrough
        case 3: r += 5; break;
        case 5: r = -v; break;
        default: r = 1234;
        }
    }
    out[i] = r;
}

__device__ __noinline__ int collatz_steps(unsigned x)
{
    int s = 0;
    while (x != 1 && s < 1000) {
        x = (x & 1) ? 3 * x + 1 : x / 2;
        s++;
    }
    return s;
}

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ unsigned ackermann(unsigned m, unsigned n)
{
    if (m == 0) return n + 1;
    if (n == 0) return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

K void k_calls(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[3 * i] = collatz_steps((unsigned)in[i] % 10000 + 1);
    out[3 * i + 1] = fib(in[i] & 15);
    out[3 * i + 2] = (int)ackermann((in[i] >> 4) & 1 ? 2 : 1, in[i] & 7);
}

__device__ __noinline__ float op_add(float a, float b) { return a + b; }
__device__ __noinline__ float op_mul(float a, float b) { return a * b; }
__device__ __noinline__ float op_sub(float a, float b) { return a - b; }
__device__ __noinline__ float op_fma(float a, float b) { return fmaf(a, b, 1.0f); }
typedef float (*binop)(float, float);
__device__ binop ops[4] = {op_add, op_mul, op_sub, op_fma};

K void k_indirect(const float *a, const float *b, const int *sel, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    binop f = ops[sel[i] & 3];
    float r = f(a[i], b[i]);
    f = ops[(sel[i] >> 2) & 3];
    out[i] = f(r, a[i]);
}

struct Big {
    int v[5];
    double d;
};

__device__ __noinline__ Big make_big(int x)
{
    Big b;
    for (int k = 0; k < 5; k++) b.v[k] = x * (k + 1);
    b.d = x * 0.25;
    return b;
}

__device__ __noinline__ double sum_big(Big b, int scale) { return (b.v[0] + b.v[4]) * scale + b.d; }

K void k_struct_call(const int *in, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = sum_big(make_big(in[i]), i);
}

K void k_early_exit(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = -1;
    if (in[i] % 3 == 0) return;
    int acc = 0;
    for (int k = 0; k < 64; k++) {
        acc += in[(i + k) % n];
        if (acc > 5000) break;
        if (acc < -5000) return;
    }
    out[i] = acc;
}

// recursion whose depth differs per lane (divergent call stacks)
__device__ __noinline__ int depth_sum(int d, int x)
{
    if (d == 0) return x;
    int r = depth_sum(d - 1, x * 2 + d);
    return r ^ d;
}

K void k_divergent_recursion(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = depth_sum(in[i] & 31, i);
}
