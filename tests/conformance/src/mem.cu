// Data movement in all state spaces (conformance family "mem").
#include <cstdint>
#define K extern "C" __global__

__constant__ int c_tab[64] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3,
                              2, 7, 9, 5, 0, 2, 8, 8, 4, 1, 9, 7, 1, 6, 9, 3, 9, 9, 3, 7, 5, 1, 0, 5, 8, 2, 0, 9,
                              7, 4, 9, 4, 4, 5, 9, 2};
__constant__ double c_d[4] = {1.5, -2.25, 1e300, 4.9e-324};
__device__ int g_counter;
__device__ unsigned long long g_words[8] = {1, 2, 3, 4, 5, 6, 7, 0xffffffffffffffffull};

K void k_vec_global(const uint4 *in4, const float2 *in2, const double2 *ind, uint4 *out4, float2 *out2,
                    double2 *outd, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint4 v = in4[i];
    out4[n - 1 - i] = make_uint4(v.w, v.z ^ 0x5a5a5a5a, v.y + 1, v.x);
    float2 f = in2[i];
    out2[i] = make_float2(f.y, f.x);
    double2 d = ind[i];
    outd[i] = make_double2(d.y, d.x);
}

K void k_subword(const signed char *s8, const unsigned char *u8, const short *s16, const unsigned short *u16,
                 int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[4 * i + 0] = s8[i];
    out[4 * i + 1] = u8[i];
    out[4 * i + 2] = s16[i];
    out[4 * i + 3] = u16[i];
}

K void k_store_subword(const int *in, signed char *o8, short *o16, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o8[i] = (signed char)in[i];
    o16[i] = (short)(in[i] >> 4);
}

K void k_shared_vec(const float4 *in, float4 *out)
{
    __shared__ float4 s[256];
    __shared__ int si[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 256 + t];
    si[t] = t * 3;
    __syncthreads();
    float4 a = s[255 - t];
    float4 b = s[(t * 7) & 255];
    out[blockIdx.x * 256 + t] = make_float4(a.x + b.w, a.y * b.z, a.z - b.y, a.w + (float)si[(t + 1) & 255]);
}

K void k_local(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    volatile int arr[64];
    for (int k = 0; k < 64; k++) arr[k] = in[(i + k) % n] * (k + 1);
    int acc = 0;
    int idx = in[i] & 63;
    for (int k = 0; k < 16; k++) {
        acc += arr[idx];
        idx = (idx * 5 + 3) & 63;
        arr[(idx + 1) & 63] = acc;
    }
    out[i] = acc;
}

K void k_const(const int *idx, int *out, double *outd, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = c_tab[idx[i] & 63] * 1000 + c_tab[i & 63];
    if (i < 4) outd[i] = c_d[i] * 2.0;
}

// generic addressing: a generic pointer refers to shared, global or local memory chosen at run time
K void k_generic(int *g, int *out, int n)
{
    __shared__ int sh[128];
    int t = threadIdx.x;
    int loc[4] = {t, t * 2, t * 3, t * 4};
    sh[t] = t + 1000;
    __syncthreads();
    int *p;
    int sel = (t * 7) % 3;
    if (sel == 0) p = &sh[(t + 5) & 127];
    else if (sel == 1) p = &g[(t + 9) % n];
    else p = &loc[t & 3];
    int v = *p;
    unsigned flags = (__isShared(p) ? 1u : 0u) | (__isGlobal(p) ? 2u : 0u) | (__isLocal(p) ? 4u : 0u) |
                     (__isConstant(p) ? 8u : 0u);
    if (sel == 0) {
        size_t sa = __cvta_generic_to_shared(p);
        flags |= (sa == __cvta_generic_to_shared(&sh[0]) + 4 * ((t + 5) & 127)) ? 16u : 0u;
    }
    *p = v + 1;  // store through the generic pointer
    __syncthreads();
    out[3 * t] = v;
    out[3 * t + 1] = flags;
    out[3 * t + 2] = sh[t] + loc[t & 3];
}

struct Mixed {
    char c;
    double d;
    short s;
    int i[3];
    float f;
    unsigned long long u;
};

K void k_param_struct(Mixed m, int scale, const int *in, double *out)
{
    int t = threadIdx.x;
    out[t] = m.c + m.d * t + m.s + m.i[t % 3] * scale + m.f + (double)(m.u >> 40) + in[t];
}

K void k_ldg(const float *__restrict__ in, float *__restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = __ldg(&in[i]) * 2.0f + __ldg(&in[(i + 1) % n]);
}

K void k_dyn_shared(const int *in, int *out)
{
    extern __shared__ int dyn[];
    unsigned dsz;
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dsz));
    int t = threadIdx.x;
    int nwords = dsz / 4;
    for (int k = t; k < nwords; k += blockDim.x) dyn[k] = in[k % 256] + k;
    __syncthreads();
    int acc = 0;
    for (int k = t; k < nwords; k += blockDim.x) acc += dyn[nwords - 1 - k];
    out[t] = acc;
    if (t == 0) out[blockDim.x] = dsz;
}

K void k_global_var_write(const int *in)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        g_counter = in[0];
        for (int k = 0; k < 8; k++) g_words[k] = g_words[k] * 3 + in[k];
    }
}

K void k_global_var_read(int *out, unsigned long long *outw)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        out[0] = g_counter;
        for (int k = 0; k < 8; k++) outw[k] = g_words[k];
    }
}

K void k_volatile_copy(volatile int *a, int *out, int n)
{
    int i = threadIdx.x;
    if (i < n) {
        a[i] = a[i] + 1;
        out[i] = a[i] * 2;
    }
}
