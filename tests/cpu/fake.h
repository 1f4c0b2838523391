/* fake.h — helpers for hand-written "fake" host code objects: C code that does what ptx2native's host target
 * emits (entry(params, ctx), runtime calls through ctx->rt / __p2n_rt, yield budget at loop back-edges). */
#ifndef P2N_TESTS_CPU_FAKE_H
#define P2N_TESTS_CPU_FAKE_H
#include "host_abi.h"

#define KERNEL(name) static void name(const uint8_t *params, p2n_thread_ctx *ctx)
/* every fake kernel takes up to 8 parameters of 8 bytes each */
#define PARAM(type, i) (*(type const *)(params + 8 * (i)))
#define BACKEDGE(ctx) do { if (--(ctx)->yield_budget <= 0) (ctx)->rt->yield(ctx); } while (0)
#define LTID(ctx) ((ctx)->tid[0] + (ctx)->ntid[0] * ((ctx)->tid[1] + (ctx)->ntid[1] * (ctx)->tid[2]))
#define NTHREADS(ctx) ((ctx)->ntid[0] * (ctx)->ntid[1] * (ctx)->ntid[2])
#define LCTAID(ctx) ((ctx)->ctaid[0] + (ctx)->nctaid[0] * ((ctx)->ctaid[1] + (ctx)->nctaid[1] * (ctx)->ctaid[2]))

/* Warp-op test configurations (shared by the fake kernel and the test that computes expected values). */
enum { WK_SHFL, WK_VOTE, WK_MATCH_ANY, WK_MATCH_ALL, WK_REDUX, WK_ELECT, WK_WARPSYNC };
typedef struct warpop_cfg {
    uint32_t kind, mode, b, c, mask, bvary, valkind, pad;
} warpop_cfg;

/* test input values per lane (not semantics: just data) */
static inline uint64_t fake_value(uint32_t kind, uint32_t lane, uint32_t warp) {
    switch (kind) {
    case 0: return lane * 7u + 100u + warp * 1000u;
    case 1: return lane % 3u;
    case 2: return lane < 5u;
    case 3: return 0;
    case 4: return lane == 17u;
    case 5: return (lane % 4u) * 0x100000001ull;
    case 6: return (uint32_t)((int32_t)((lane * 37u) % 50u) - 25);
    case 7: return 42;
    case 8: return (1u << lane) | 0x80000000u;
    case 9: return (lane % 4u) + ((uint64_t)(lane % 2u) << 40);
    default: return lane;
    }
}
#endif
