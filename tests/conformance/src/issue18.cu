// issue 18 CUDA C cases (pending): compiled by gen/gen_issue18.py --nvcc with nvcc -arch=sm_80 -ptx
// into pending/ptx/cu/issue18.ptx.

// unsigned __int128 and __int128 division and remainder; operands as (lo, hi) u64 pairs
extern "C" __global__ void k_u128_divrem(const unsigned long long *a, const unsigned long long *b,
                                         unsigned long long *q, unsigned long long *r, unsigned long long *sq,
                                         unsigned long long *sr, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned __int128 x = ((unsigned __int128)a[2 * i + 1] << 64) | a[2 * i];
    unsigned __int128 y = ((unsigned __int128)b[2 * i + 1] << 64) | b[2 * i];
    unsigned __int128 qq = x / y, rr = x % y;
    q[2 * i] = (unsigned long long)qq;
    q[2 * i + 1] = (unsigned long long)(qq >> 64);
    r[2 * i] = (unsigned long long)rr;
    r[2 * i + 1] = (unsigned long long)(rr >> 64);
    __int128 sx = (__int128)x, sy = (__int128)y;
    __int128 sqq, srr;
    if (sy == -1) { // INT128_MIN / -1 is undefined in C: keep it out of the signed path
        sqq = (__int128)(0 - x);
        srr = 0;
    } else {
        sqq = sx / sy;
        srr = sx % sy;
    }
    sq[2 * i] = (unsigned long long)sqq;
    sq[2 * i + 1] = (unsigned long long)((unsigned __int128)sqq >> 64);
    sr[2 * i] = (unsigned long long)srr;
    sr[2 * i + 1] = (unsigned long long)((unsigned __int128)srr >> 64);
}

// %activemask and %lanemask_* in the arms of an if / else if / else chain; out[tid*8 + 0..7]
#define LANEMASKS(arm)                                                                                            \
    do {                                                                                                          \
        unsigned am = __activemask(), eq, lt, le, gt, ge, lid;                                                    \
        asm volatile("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));                                                  \
        asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));                                                  \
        asm volatile("mov.u32 %0, %%lanemask_le;" : "=r"(le));                                                  \
        asm volatile("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));                                                  \
        asm volatile("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));                                                  \
        asm volatile("mov.u32 %0, %%laneid;" : "=r"(lid));                                                      \
        o[0] = arm; o[1] = am; o[2] = eq; o[3] = lt; o[4] = le; o[5] = gt; o[6] = ge; o[7] = lid;                 \
    } while (0)

// each arm calls its own non-inlined function so that nvcc keeps real branches (no if-conversion)
__device__ __noinline__ void arm0(unsigned *o) { LANEMASKS(0u); }
__device__ __noinline__ void arm1(unsigned *o) { LANEMASKS(1u); }
__device__ __noinline__ void arm2(unsigned *o) { LANEMASKS(2u); }

extern "C" __global__ void k_lanemask_chain(unsigned *out)
{
    unsigned t = threadIdx.x;
    unsigned *o = out + 8 * t;
    volatile unsigned key = t % 3;
    if (key == 0) {
        arm0(o);
    } else if (t > 40 || (key == 1 && t < 20)) {
        arm1(o);
    } else {
        arm2(o);
    }
}
