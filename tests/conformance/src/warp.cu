// Warp-level operations with partial masks and divergence (family "warp").
#define K extern "C" __global__

K void k_shfl(const int *in, int *out)
{
    int t = threadIdx.x;
    int lane = t & 31;
    int v = in[t];
    int *o = out + t * 12;
    o[0] = __shfl_sync(0xffffffff, v, (lane * 7) & 31);
    o[1] = __shfl_up_sync(0xffffffff, v, 3);
    o[2] = __shfl_down_sync(0xffffffff, v, 5);
    o[3] = __shfl_xor_sync(0xffffffff, v, 0x13);
    o[4] = __shfl_sync(0xffffffff, v, lane + 3, 8);
    o[5] = __shfl_up_sync(0xffffffff, v, 2, 16);
    o[6] = __shfl_down_sync(0xffffffff, v, 1, 4);
    o[7] = __shfl_xor_sync(0xffffffff, v, 5, 8);
    o[8] = __shfl_sync(0xffffffff, v, 40);      // out of range source lane: taken modulo width
    double d = (double)v * 1.5;
    o[9] = (int)__shfl_down_sync(0xffffffff, d, 7);
    long long q = ((long long)v << 32) | (unsigned)lane;
    long long r = __shfl_xor_sync(0xffffffff, q, 16);
    o[10] = (int)(r >> 32);
    o[11] = (int)r;
}

// raw shfl.sync with c operand (clamp / segment mask) and the valid predicate
K void k_shfl_raw(const int *in, int *out)
{
    int t = threadIdx.x;
    int v = in[t];
    int *o = out + t * 8;
    int r, p;
#define SH(mode, b, c, idx)                                                                                  \
    asm volatile("{\n\t.reg .pred q;\n\tshfl.sync." mode ".b32 %0|q, %2, %3, %4, 0xffffffff;\n\t"           \
                 "selp.u32 %1, 1, 0, q;\n\t}"                                                                \
                 : "=r"(r), "=r"(p) : "r"(v), "r"(b), "r"(c));                                               \
    o[idx] = r;                                                                                             \
    o[idx + 1] = p;
    SH("idx", (t * 5) & 31, 0x1f, 0)
    SH("up", 4, 0x0, 2)
    SH("down", 6, 0x1f, 4)
    SH("bfly", 3, 0x181f, 6)   // segment mask 0x18: lanes grouped by 8
#undef SH
}

// shuffles among a subset of lanes (partial mask), sources inside the mask
K void k_shfl_partial(const int *in, int *out)
{
    int t = threadIdx.x;
    int lane = t & 31;
    int v = in[t];
    out[t] = -1;
    if (lane & 1) {
        int src = (lane + 2) & 31;
        if (!(src & 1)) src |= 1;
        out[t] = __shfl_sync(0xaaaaaaaa, v, src | 1);
    } else if (lane < 16) {
        out[t] = __shfl_xor_sync(0x00005555, v, 2) + 1000000;
    }
}

K void k_vote(const int *in, unsigned *out)
{
    int t = threadIdx.x;
    int lane = t & 31;
    int v = in[t];
    unsigned *o = out + t * 8;
    o[0] = __all_sync(0xffffffff, v > 0);
    o[1] = __any_sync(0xffffffff, v == 42);
    o[2] = __ballot_sync(0xffffffff, v & 1);
    unsigned u;
    asm volatile("{\n\t.reg .pred p, q;\n\tsetp.gt.s32 p, %1, 100;\n\tvote.sync.uni.pred q, p, 0xffffffff;\n\t"
                 "selp.u32 %0, 1, 0, q;\n\t}" : "=r"(u) : "r"(v));
    o[3] = u;
    o[4] = 0xdeadbeef;
    o[5] = 0xdeadbeef;
    if (lane < 20) {
        o[4] = __ballot_sync(0x000fffff, v & 2);
        o[5] = __all_sync(0x000fffff, lane < 20);
    }
    o[6] = 0xdeadbeef;
    if (v & 4) o[6] = __activemask();  // notes: activemask after divergence is what programs observe
    o[7] = __popc(__ballot_sync(0xffffffff, lane >= (v & 31)));
}

K void k_match(const int *in, unsigned *out)
{
    int t = threadIdx.x;
    int v = in[t];
    unsigned *o = out + t * 4;
    o[0] = __match_any_sync(0xffffffff, v & 7);
    int pred;
    o[1] = __match_all_sync(0xffffffff, v & 0x100, &pred);
    o[2] = pred;
    long long q = (long long)(v % 3) << 40;
    o[3] = 0xdeadbeef;
    if ((t & 7) < 4) o[3] = __match_any_sync(0x0f0f0f0f, q);
}

K void k_redux(const int *in, int *out)
{
    int t = threadIdx.x;
    int v = in[t];
    unsigned u = (unsigned)v;
    int *o = out + t * 8;
    o[0] = __reduce_add_sync(0xffffffff, u);
    o[1] = __reduce_min_sync(0xffffffff, v);
    o[2] = __reduce_max_sync(0xffffffff, v);
    o[3] = __reduce_min_sync(0xffffffff, u);
    o[4] = __reduce_max_sync(0xffffffff, u);
    o[5] = __reduce_and_sync(0xffffffff, u);
    o[6] = __reduce_or_sync(0xffffffff, u);
    o[7] = __reduce_xor_sync(0xffffffff, u);
    if ((t & 31) < 12) o[0] = __reduce_add_sync(0x00000fff, u) ^ 0x40000000;
}

K void k_syncwarp_partial(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int lane = t & 31;
    s[t] = t;
    __syncwarp();
    if (lane < 16) {
        int a = s[t] + s[((t + 1) & 15) | (t & ~15)];
        __syncwarp(0x0000ffff);
        s[t] = a;
        __syncwarp(0x0000ffff);
        out[t] = s[((t + 3) & 15) | (t & ~15)];
    } else {
        int a = -s[t] * 2 + s[((t + 7) & 15) | (t & ~15)];
        __syncwarp(0xffff0000);
        s[t] = a;
        __syncwarp(0xffff0000);
        out[t] = s[((t + 5) & 15) | (t & ~15)];
    }
}

K void k_lanemask(unsigned *out)
{
    int t = threadIdx.x;
    unsigned eq, le, lt, ge, gt, lane;
    asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    out[t * 6 + 0] = eq;
    out[t * 6 + 1] = le;
    out[t * 6 + 2] = lt;
    out[t * 6 + 3] = ge;
    out[t * 6 + 4] = gt;
    out[t * 6 + 5] = lane;
}

// warp-synchronous reduction tree and prefix sum with shuffles
K void k_warp_scan(const int *in, int *out)
{
    int t = threadIdx.x, lane = t & 31;
    int v = in[t];
    for (int d = 1; d < 32; d <<= 1) {
        int n = __shfl_up_sync(0xffffffff, v, d);
        if (lane >= d) v += n;
    }
    out[t] = v;
}
