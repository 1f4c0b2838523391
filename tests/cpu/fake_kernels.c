/* fake_kernels.c — a fake host code object: kernels written in C the way ptx2native's host target emits them.
 * Built with -nostdlib -Wl,--no-undefined: everything from the runtime goes through ctx->rt / __p2n_rt. */
#include "fake.h"

const p2n_rt_table *__p2n_rt;

int fake_global[4] = {1, 2, 3, 4};

#define U32(p) ((uint32_t *)(p))

/* vecadd(a, b, c, n) */
KERNEL(vecadd) {
    const float *a = PARAM(const float *, 0), *b = PARAM(const float *, 1);
    float *c = PARAM(float *, 2);
    uint32_t n = PARAM(uint32_t, 3);
    uint32_t i = ctx->ctaid[0] * ctx->ntid[0] + ctx->tid[0];
    if (i < n)
        c[i] = a[i] + b[i];
}

/* sregs(out): 16 words per thread at its global linear index */
KERNEL(sregs) {
    uint32_t *out = PARAM(uint32_t *, 0);
    uint32_t g = LCTAID(ctx) * NTHREADS(ctx) + LTID(ctx);
    uint32_t *o = out + g * 16;
    for (int i = 0; i < 3; i++) {
        o[i] = ctx->tid[i];
        o[3 + i] = ctx->ntid[i];
        o[6 + i] = ctx->ctaid[i];
        o[9 + i] = ctx->nctaid[i];
    }
    o[12] = ctx->laneid;
    o[13] = ctx->warpid;
    o[14] = ctx->nwarpid;
    o[15] = ctx->rt->smid(ctx);
}

/* barriers(out, iters): ring exchange through shared memory, full-block barriers */
KERNEL(barriers) {
    uint32_t *out = PARAM(uint32_t *, 0);
    uint32_t iters = PARAM(uint32_t, 1);
    uint32_t *s = U32(ctx->smem);
    uint32_t t = LTID(ctx), n = NTHREADS(ctx);
    uint32_t v = t + LCTAID(ctx);
    for (uint32_t it = 0; it < iters; it++) {
        s[t] = v;
        ctx->rt->barrier(ctx, 0, 0, 0);
        v = s[(t + 37) % n] * 3 + t;
        ctx->rt->barrier(ctx, 0, 0, 0);
        BACKEDGE(ctx);
    }
    out[LCTAID(ctx) * n + t] = v;
}

/* named(out): 256 threads. Warps 0-3 and 4-7 exchange independently on barriers 1 and 2 (count 128);
 * then warps 0-1 produce for warps 2-3 with bar.arrive / bar.sync on barrier 3 (count 128). */
KERNEL(named) {
    uint32_t *out = PARAM(uint32_t *, 0);
    uint32_t *s = U32(ctx->smem);
    uint32_t t = LTID(ctx);
    uint32_t grp = t / 128, base = grp * 128, lt = t % 128;
    uint32_t v = t * 5;
    for (int it = 0; it < 4; it++) {
        s[t] = v;
        ctx->rt->barrier(ctx, 1 + grp, 128, 0);
        v = s[base + (lt + 11) % 128] + 1;
        ctx->rt->barrier(ctx, 1 + grp, 128, 0);
    }
    out[t] = v;
    ctx->rt->barrier(ctx, 0, 0, 0);
    uint32_t *p = s + 256;
    if (t < 64) {
        p[t] = t * 3 + 1;
        ctx->rt->barrier(ctx, 3, 128, 1); /* bar.arrive */
    } else if (t < 128) {
        ctx->rt->barrier(ctx, 3, 128, 0);
        out[256 + t - 64] = p[t - 64] + p[127 - t];
    }
}

/* barred(out): bar.red popc/and/or over the block (count 0) */
KERNEL(barred) {
    uint32_t *out = PARAM(uint32_t *, 0);
    uint32_t t = LTID(ctx);
    uint32_t *o = out + t * 4;
    o[0] = ctx->rt->barrier_red(ctx, 0, 0, P2N_RED_POPC, t % 3 == 0);
    o[1] = ctx->rt->barrier_red(ctx, 0, 0, P2N_RED_AND, t < 100000);
    o[2] = ctx->rt->barrier_red(ctx, 2, 0, P2N_RED_AND, t != 77);
    o[3] = ctx->rt->barrier_red(ctx, 5, 0, P2N_RED_OR, t == 77);
}

/* spin(out, gflag): warps 0..2 spin on a shared flag that the last thread of the block sets after some work;
 * then everyone spins on a global flag set by thread 64 */
KERNEL(spin) {
    uint32_t *out = PARAM(uint32_t *, 0);
    volatile uint32_t *gflag = PARAM(volatile uint32_t *, 1);
    volatile uint32_t *flag = (volatile uint32_t *)ctx->smem;
    uint32_t t = LTID(ctx), n = NTHREADS(ctx);
    if (t == n - 1) {
        uint32_t acc = 0;
        for (uint32_t i = 0; i < 5000; i++) {
            acc += i;
            BACKEDGE(ctx);
        }
        *flag = acc;
    } else if (t < 96) {
        while (*flag == 0)
            BACKEDGE(ctx);
        out[t] = *flag;
    }
    if (t == 64)
        __atomic_store_n(gflag + LCTAID(ctx), 7u, __ATOMIC_RELEASE);
    while (__atomic_load_n(gflag + LCTAID(ctx), __ATOMIC_ACQUIRE) != 7u)
        BACKEDGE(ctx);
    out[n + t] = 1;
}

/* warpops(cfg, ncfg, out): out[(k * nthreads + t) * 2 + {0,1}] */
KERNEL(warpops) {
    const warpop_cfg *cfg = PARAM(const warpop_cfg *, 0);
    uint32_t ncfg = PARAM(uint32_t, 1);
    uint32_t *out = PARAM(uint32_t *, 2);
    uint32_t t = LTID(ctx), n = NTHREADS(ctx), lane = ctx->laneid;
    for (uint32_t k = 0; k < ncfg; k++) {
        const warpop_cfg *c = &cfg[k];
        uint32_t *o = out + (k * n + t) * 2;
        if (!((c->mask >> lane) & 1)) {
            o[0] = 0xdeadbeef;
            o[1] = 2;
            continue;
        }
        uint64_t v = fake_value(c->valkind, lane, ctx->warpid);
        uint32_t p = 0xffff, r = 0;
        switch (c->kind) {
        case WK_SHFL: r = ctx->rt->shfl(ctx, c->mode, (uint32_t)v, c->b + lane * c->bvary, c->c, c->mask, &p); break;
        case WK_VOTE: r = ctx->rt->vote(ctx, c->mode, (uint32_t)v, c->mask); break;
        case WK_MATCH_ANY: r = ctx->rt->match_any(ctx, v, c->mask); break;
        case WK_MATCH_ALL: r = ctx->rt->match_all(ctx, v, c->mask, &p); break;
        case WK_REDUX: r = ctx->rt->redux(ctx, c->mode, (uint32_t)v, c->mask); break;
        case WK_ELECT: r = ctx->rt->elect(ctx, c->mask, &p); break;
        default: ctx->rt->warp_sync(ctx, c->mask); break;
        }
        o[0] = r;
        o[1] = p;
        BACKEDGE(ctx);
    }
}

/* activemask(out): 5 words per thread */
KERNEL(amask) {
    uint32_t *out = PARAM(uint32_t *, 0);
    uint32_t t = LTID(ctx), lane = ctx->laneid;
    uint32_t *o = out + t * 5;
    o[0] = ctx->rt->activemask(ctx);
    if (lane < 10)
        o[1] = ctx->rt->activemask(ctx);
    else if (lane < 20)
        o[2] = ctx->rt->activemask(ctx);
    else
        o[3] = ctx->rt->activemask(ctx);
    ctx->rt->warp_sync(ctx, 0xffffffffu);
    if (lane >= 16)
        return;
    o[4] = ctx->rt->activemask(ctx);
}

/* trap(out, block, thread): that thread traps while the others wait at a barrier */
KERNEL(trapk) {
    uint32_t *out = PARAM(uint32_t *, 0);
    uint32_t tb = PARAM(uint32_t, 1), tt = PARAM(uint32_t, 2);
    uint32_t t = LTID(ctx);
    if (LCTAID(ctx) == tb && t == tt)
        ctx->rt->trap(ctx);
    ctx->rt->barrier(ctx, 0, 0, 0);
    out[LCTAID(ctx) * NTHREADS(ctx) + t] = 1;
}

KERNEL(assertk) {
    uint32_t t = LTID(ctx);
    if (LCTAID(ctx) == 1 && t == 5)
        ctx->rt->assertfail(ctx, "x < 3", "fake.cu", 42, "void assertk(int *)", 1);
    ctx->rt->barrier(ctx, 0, 0, 0);
}

/* printk(out, str): threads 0 and 1 of every block print */
KERNEL(printk) {
    uint32_t *out = PARAM(uint32_t *, 0);
    const char *str = PARAM(const char *, 1);
    uint32_t t = LTID(ctx), b = LCTAID(ctx);
    if (t < 2) {
        uint64_t buf[6];
        uint8_t *p = (uint8_t *)buf;
        int32_t bi = (int32_t)b - 1;
        uint32_t tu = t + 4000000000u, hx = 0xbeef00 + t;
        double d = 1.5 + b;
        long long ll = -1234567890123ll * (t + 1);
        int32_t ch = 'A' + (int32_t)b;
        __builtin_memcpy(p + 0, &bi, 4);
        __builtin_memcpy(p + 4, &tu, 4);
        __builtin_memcpy(p + 8, &hx, 4);
        __builtin_memcpy(p + 16, &d, 8);
        __builtin_memcpy(p + 24, &str, 8);
        __builtin_memcpy(p + 32, &ll, 8);
        __builtin_memcpy(p + 40, &ch, 4);
        out[b * 2 + t] = (uint32_t)ctx->rt->vprintf(ctx, "%d %u %x %f %s %lld %c %%\n", buf);
    }
    ctx->rt->barrier(ctx, 0, 0, 0);
    if (t == 5)
        ctx->rt->vprintf(ctx, "block %u done\n", &b);
}

__attribute__((noinline)) static void exit_now(p2n_thread_ctx *ctx) {
    ctx->rt->exit_thread(ctx);
}

/* exitk(out): odd threads leave (exit from a nested function or return), the rest use full barriers */
KERNEL(exitk) {
    uint32_t *out = PARAM(uint32_t *, 0);
    uint32_t *s = U32(ctx->smem);
    uint32_t t = LTID(ctx);
    if (t % 4 == 1)
        exit_now(ctx);
    if (t % 4 == 3)
        return;
    s[t] = t * 10;
    ctx->rt->barrier(ctx, 0, 0, 0);
    out[t] = s[t ^ 2];
    uint32_t c = ctx->rt->barrier_red(ctx, 1, 0, P2N_RED_POPC, 1);
    out[256 + t] = c;
    if (t == 0)
        exit_now(ctx);
    ctx->rt->barrier(ctx, 0, 0, 0);
    out[512 + t] = 1;
}

/* deadlocks(kind) */
KERNEL(deadlock) {
    uint32_t kind = PARAM(uint32_t, 0);
    uint32_t t = LTID(ctx);
    if (kind == 0) {
        if (t < 32)
            ctx->rt->barrier(ctx, 1, 64, 0);
    } else if (kind == 1) {
        if (ctx->laneid == 0)
            ctx->rt->shfl(ctx, P2N_SHFL_IDX, t, 0, 31, 0xffffffffu, 0);
        else
            ctx->rt->barrier(ctx, 0, 0, 0);
    } else if (kind == 2) {
        /* mismatched collectives */
        if (ctx->laneid < 16)
            ctx->rt->vote(ctx, P2N_VOTE_ANY, 1, 0xffffffffu);
        else
            ctx->rt->shfl(ctx, P2N_SHFL_IDX, t, 0, 31, 0xffffffffu, 0);
    }
}

/* dynsmem(out): static 100 bytes, dynamic part aligned to 64 */
KERNEL(dynsmem) {
    uint32_t *out = PARAM(uint32_t *, 0);
    uint32_t t = LTID(ctx), n = NTHREADS(ctx);
    uint8_t *st = ctx->smem;
    uint32_t *dyn = (uint32_t *)(ctx->smem + 128);
    uint32_t words = ctx->dynamic_smem_size / 4;
    if (t < 100)
        st[t] = (uint8_t)(t + 1);
    for (uint32_t i = t; i < words; i += n)
        dyn[i] = i * 3 + 1;
    ctx->rt->barrier(ctx, 0, 0, 0);
    for (uint32_t i = t; i < words; i += n)
        out[16 + i] = dyn[words - 1 - i];
    if (t == 0) {
        out[0] = ctx->dynamic_smem_size;
        out[1] = ctx->smem_size;
        out[2] = (uint32_t)((uintptr_t)dyn % 64);
        uint32_t sum = 0;
        for (int i = 0; i < 100; i++)
            sum += st[i];
        out[3] = sum;
    }
}

/* reduce(in, out, total, n): per-block sum with shfl.down + shared + barrier; atomics across blocks; printf */
KERNEL(reduce) {
    const uint32_t *in = PARAM(const uint32_t *, 0);
    uint32_t *out = PARAM(uint32_t *, 1);
    uint64_t *total = PARAM(uint64_t *, 2);
    uint32_t t = LTID(ctx), n = NTHREADS(ctx), b = LCTAID(ctx);
    uint32_t *s = U32(ctx->smem);
    uint32_t v = in[b * n + t];
    for (uint32_t off = 16; off; off >>= 1)
        v += ctx->rt->shfl(ctx, P2N_SHFL_DOWN, v, off, 31, 0xffffffffu, 0);
    if (ctx->laneid == 0)
        s[ctx->warpid] = v;
    ctx->rt->barrier(ctx, 0, 0, 0);
    if (ctx->warpid == 0) {
        v = ctx->laneid < ctx->nwarpid ? s[ctx->laneid] : 0;
        v = ctx->rt->redux(ctx, P2N_REDUX_ADD, v, 0xffffffffu);
        if (ctx->laneid == 0) {
            out[b] = v;
            __atomic_fetch_add(total, v, __ATOMIC_RELAXED);
            uint32_t args[2] = {b, v};
            ctx->rt->vprintf(ctx, "block %u sum %u\n", args);
        }
    }
}

/* yieldk(iters): every thread yields `iters` times (fiber switch cost) */
KERNEL(yieldk) {
    uint32_t iters = PARAM(uint32_t, 0);
    for (uint32_t i = 0; i < iters; i++)
        ctx->rt->yield(ctx);
}

/* shflbench(iters, out) */
KERNEL(shflbench) {
    uint32_t iters = PARAM(uint32_t, 0);
    uint32_t *out = PARAM(uint32_t *, 1);
    uint32_t v = ctx->laneid;
    for (uint32_t i = 0; i < iters; i++)
        v = ctx->rt->shfl(ctx, P2N_SHFL_BFLY, v, 1, 31, 0xffffffffu, 0) + 1;
    out[LTID(ctx)] = v;
}

/* misc(out): malloc/free, clock64, globaltimer, smid, math table */
KERNEL(misc) {
    uint32_t *out = PARAM(uint32_t *, 0);
    uint32_t t = LTID(ctx);
    uint32_t *o = out + t * 8;
    uint64_t c0 = ctx->rt->clock64(ctx);
    uint32_t *m = ctx->rt->malloc(ctx, 64);
    for (int i = 0; i < 16; i++)
        m[i] = t + (uint32_t)i;
    uint32_t sum = 0;
    for (int i = 0; i < 16; i++)
        sum += m[i];
    ctx->rt->free(ctx, m);
    uint64_t c1 = ctx->rt->clock64(ctx);
    o[0] = sum;
    o[1] = c1 >= c0;
    o[2] = ctx->rt->globaltimer(ctx) > 0;
    o[3] = ctx->rt->smid(ctx);
    o[4] = (uint32_t)(ctx->rt->fmaf(2.0f, 3.0f, 1.0f));
    o[5] = (uint32_t)(ctx->rt->exp2f(10.0f));
    o[6] = ctx->yield_budget > 0;
    o[7] = ctx->rt == __p2n_rt;
}

/* globalk(): fake_global[t] += t + 1, through the module's own global */
KERNEL(globalk) {
    uint32_t t = LTID(ctx);
    __p2n_rt->barrier(ctx, 0, 0, 0);
    if (t < 4)
        fake_global[t] += (int)t + 1;
}

static const uint32_t P_OFF[8] = {0, 8, 16, 24, 32, 40, 48, 56};
static const uint32_t P_SZ[8] = {8, 8, 8, 8, 8, 8, 8, 8};
#define K(fn, np, smem, align, flags) {#fn, fn, np, P_OFF, P_SZ, 8 * (np), smem, align, 0, {0, 0, 0}, {0, 0, 0}, flags, 0, 0, smem}
#define KMAX(fn, np, smem, mx) {#fn, fn, np, P_OFF, P_SZ, 8 * (np), smem, 16, 0, {mx, 1, 1}, {0, 0, 0}, 0, 0, 0, smem}

static const p2n_kernel_desc kernels[] = {
    K(vecadd, 4, 0, 16, 0),
    K(sregs, 1, 0, 16, 0),
    K(barriers, 2, 4096, 16, P2N_KERNEL_USES_BARRIERS),
    K(named, 1, 2048, 16, P2N_KERNEL_USES_BARRIERS),
    K(barred, 1, 0, 16, P2N_KERNEL_USES_BARRIERS),
    K(spin, 2, 16, 16, P2N_KERNEL_MAY_SPIN),
    K(warpops, 3, 0, 16, P2N_KERNEL_USES_WARP_OPS),
    K(amask, 1, 0, 16, P2N_KERNEL_USES_WARP_OPS),
    K(trapk, 3, 0, 16, 0),
    K(assertk, 0, 0, 16, 0),
    K(printk, 2, 0, 16, 0),
    K(exitk, 1, 1024, 16, 0),
    K(deadlock, 1, 0, 16, 0),
    K(dynsmem, 1, 100, 64, 0),
    K(reduce, 4, 128, 16, 0),
    K(yieldk, 1, 0, 16, 0),
    K(shflbench, 2, 0, 16, 0),
    K(misc, 1, 0, 16, 0),
    K(globalk, 0, 0, 16, 0),
    {"maxntid64", vecadd, 4, P_OFF, P_SZ, 32, 0, 16, 0, {64, 1, 1}, {0, 0, 0}, 0, 0, 0, 0},
    {"reqntid32", vecadd, 4, P_OFF, P_SZ, 32, 0, 16, 0, {0, 0, 0}, {32, 1, 1}, 0, 0, 0, 0},
};

static const p2n_global_desc globals[] = {{"fake_global", fake_global, sizeof fake_global}};

const p2n_module_desc __p2n_module = {P2N_HOST_ABI_VERSION, sizeof kernels / sizeof kernels[0], kernels, 1, globals};
