// Atomics under heavy contention (family "atom"). Only order-independent results are stored.
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define K extern "C" __global__

K void k_atom_int32(int *acc, unsigned *uacc, const int *vals)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int v = vals[g & 1023];
    atomicAdd(&acc[0], v);
    atomicSub(&acc[1], v);
    atomicMin(&acc[2], v);
    atomicMax(&acc[3], v);
    atomicAnd(&acc[4], ~(1 << (g & 31)) | v);
    atomicOr(&acc[5], v & (1 << (g % 29)));
    atomicXor(&acc[6], v);
    atomicMin(&uacc[0], (unsigned)v);
    atomicMax(&uacc[1], (unsigned)v);
    atomicInc(&uacc[2], 1000u);
    atomicDec(&uacc[3], 777u);
    atomicAdd(&uacc[4], (unsigned)v);
}

K void k_atom_int64(unsigned long long *u, long long *s, const long long *vals)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    long long v = vals[g & 1023];
    atomicAdd(&u[0], (unsigned long long)v);
    atomicMin(&u[1], (unsigned long long)v);
    atomicMax(&u[2], (unsigned long long)v);
    atomicAnd(&u[3], (unsigned long long)v | ~(1ull << (g & 63)));
    atomicOr(&u[4], (unsigned long long)v & (1ull << (g % 61)));
    atomicXor(&u[5], (unsigned long long)v);
    atomicMin(&s[0], v);
    atomicMax(&s[1], v);
}

// ticket counter: every returned old value is unique
K void k_atom_ticket(unsigned *ctr, unsigned *seen)
{
    unsigned t = atomicAdd(ctr, 1u);
    atomicAdd(&seen[t], 1u);
}

// exchange: the multiset {old values} + final equals {initial} + {values written}
K void k_atom_exch(unsigned *cell, unsigned long long *cell64, unsigned *count, unsigned *count64)
{
    unsigned id = blockIdx.x * blockDim.x + threadIdx.x + 1;
    unsigned old = atomicExch(cell, id);
    atomicAdd(&count[old], 1u);
    unsigned long long o64 = atomicExch(cell64, ((unsigned long long)id << 32) | id);
    atomicAdd(&count64[(unsigned)o64], 1u);
}

K void k_atom_exch_final(unsigned *cell, unsigned long long *cell64, unsigned *count, unsigned *count64)
{
    atomicAdd(&count[*cell], 1u);
    atomicAdd(&count64[(unsigned)*cell64], 1u);
    *cell = 0;
    *cell64 = 0;
}

// CAS loops (32 and 64 bit) implementing add / multiply-ish updates
K void k_atom_cas(unsigned *c32, unsigned long long *c64, float *cf)
{
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned old = *c32, assumed;
    do {
        assumed = old;
        old = atomicCAS(c32, assumed, assumed + (g & 7) + 1);
    } while (old != assumed);
    unsigned long long o = *c64, a;
    do {
        a = o;
        o = atomicCAS(c64, a, a + ((unsigned long long)(g & 3) << 33) + 1);
    } while (o != a);
    // float max via CAS on the bit pattern
    float v = (float)((g * 2654435761u) >> 8) * 0.5f;
    int *ci = (int *)cf;
    int oi = *ci, ai;
    do {
        ai = oi;
        if (__int_as_float(ai) >= v) break;
        oi = atomicCAS(ci, ai, __float_as_int(v));
    } while (oi != ai);
}

// floating-point adds with exactly representable partial sums (order independent)
K void k_atom_float(float *f, double *d, __half2 *h2, __nv_bfloat162 *b2, __half *h)
{
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&f[0], 1.0f);
    atomicAdd(&f[1], (float)(g & 15) * 0.25f);
    atomicAdd(&d[0], (double)g * 0.5);
    atomicAdd(&d[1], -1.0);
    if (g < 2048) atomicAdd(&h2[0], __halves2half2(__float2half(1.0f), __float2half(-0.5f)));
    if (g < 256) atomicAdd(&b2[0], __floats2bfloat162_rn(1.0f, -2.0f));
    if (g < 1024) atomicAdd(&h[0], __float2half(1.0f));
}

// shared-memory atomics of every kind, then one result per block
K void k_atom_shared(const int *vals, int *out)
{
    __shared__ int s[8];
    __shared__ unsigned u[4];
    __shared__ float f;
    __shared__ unsigned long long q;
    int t = threadIdx.x;
    if (t == 0) {
        s[0] = 0; s[1] = 0; s[2] = 0x7fffffff; s[3] = (int)0x80000000; s[4] = -1; s[5] = 0; s[6] = 0; s[7] = 0;
        u[0] = 0; u[1] = 0; u[2] = 0; u[3] = 0;
        f = 0.0f;
        q = 0;
    }
    __syncthreads();
    int v = vals[(blockIdx.x * blockDim.x + t) & 1023];
    atomicAdd(&s[0], v);
    atomicSub(&s[1], v);
    atomicMin(&s[2], v);
    atomicMax(&s[3], v);
    atomicAnd(&s[4], v | (1 << (t & 31)));
    atomicOr(&s[5], v & (1 << (t & 31)));
    atomicXor(&s[6], v);
    atomicExch(&s[7], 5);
    atomicInc(&u[0], 100u);
    atomicDec(&u[1], 50u);
    unsigned old = u[2], a;
    do {
        a = old;
        old = atomicCAS(&u[2], a, a + 3);
    } while (old != a);
    atomicAdd(&f, 0.5f);
    atomicAdd(&q, (unsigned long long)v << 20);
    __syncthreads();
    if (t < 8) out[blockIdx.x * 16 + t] = s[t];
    if (t < 3) out[blockIdx.x * 16 + 8 + t] = (int)u[t];
    if (t == 0) {
        out[blockIdx.x * 16 + 11] = __float_as_int(f);
        out[blockIdx.x * 16 + 12] = (int)q;
        out[blockIdx.x * 16 + 13] = (int)(q >> 32);
    }
}

// explicit scopes and red (reduction without result) through inline PTX
K void k_atom_scopes(unsigned *g, unsigned long long *g64)
{
    __shared__ unsigned s;
    if (threadIdx.x == 0) s = 0;
    __syncthreads();
    unsigned one = 1, r;
    asm volatile("atom.add.cta.shared::cta.u32 %0, [%1], %2;" : "=r"(r) : "r"((unsigned)__cvta_generic_to_shared(&s)), "r"(one) : "memory");
    asm volatile("red.relaxed.gpu.global.add.u32 [%0], %1;" ::"l"(g), "r"(one) : "memory");
    asm volatile("red.sys.global.add.u32 [%0], %1;" ::"l"(g + 1), "r"(2u) : "memory");
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(r) : "l"(g + 2), "r"(3u) : "memory");
    asm volatile("red.global.max.u32 [%0], %1;" ::"l"(g + 3), "r"(threadIdx.x * 7 + blockIdx.x) : "memory");
    asm volatile("red.global.min.s32 [%0], %1;" ::"l"(g + 4), "r"(-(int)(threadIdx.x * 3 + blockIdx.x)) : "memory");
    asm volatile("red.global.and.b32 [%0], %1;" ::"l"(g + 5), "r"(~(1u << (threadIdx.x & 31))) : "memory");
    asm volatile("red.global.or.b32 [%0], %1;" ::"l"(g + 6), "r"(1u << (blockIdx.x & 31)) : "memory");
    asm volatile("red.global.xor.b32 [%0], %1;" ::"l"(g + 7), "r"(threadIdx.x * 0x01010101u) : "memory");
    asm volatile("red.global.inc.u32 [%0], %1;" ::"l"(g + 8), "r"(99u) : "memory");
    asm volatile("red.global.dec.u32 [%0], %1;" ::"l"(g + 9), "r"(99u) : "memory");
    asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"(g64), "l"(0x100000001ull) : "memory");
    asm volatile("atom.global.cas.b64 %0, [%1], %2, %3;" : "=l"(*(unsigned long long *)&g64[2]) : "l"(g64 + 1), "l"(0ull), "l"(0ull) : "memory");
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(g + 10, s);
}

// histogram-like contention on few addresses from all threads of many blocks
K void k_atom_hot(unsigned *bins, const unsigned *keys, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[keys[i] & 3], keys[i] >> 4);
}
