/* cpu_warp.c — warp collectives: shfl, vote, match, redux, elect, bar.warp.sync, warp matrix operations (the CPU
 * backend's grid execution: see cpu_exec.h). */
#include "cpu_exec.h"

const char *const cpu_coll_names[] = {"?", "shfl.sync", "vote.sync", "match.any.sync", "match.all.sync",
                                      "redux.sync", "elect.sync", "bar.warp.sync", "matrix (mma/ldmatrix/stmatrix)"};

/* -------------------------------------------- warp collectives -------------------------------------------- */

static void cpu_coll_compute(worker *w, warpstate *ws, uint32_t act) {
    fiber *lanes[32];
    for (uint32_t m = act; m; m &= m - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(m);
        lanes[l] = cpu_lane_fiber(w, ws, l);
    }
    uint32_t first = (uint32_t)__builtin_ctz(act);
    uint32_t kind = lanes[first]->coll;
    if (kind == C_MATRIX) {
        uint32_t *io[32];
        for (uint32_t l = 0; l < 32; l++)
            io[l] = (act >> l) & 1 ? (uint32_t *)(uintptr_t)lanes[l]->value : NULL;
        p2n_matrix_compute(lanes[first]->b, io);
        return;
    }
    uint32_t ballot = 0;
    if (kind == C_VOTE)
        for (uint32_t m = act; m; m &= m - 1) {
            uint32_t l = (uint32_t)__builtin_ctz(m);
            if (lanes[l]->value)
                ballot |= 1u << l;
        }
    for (uint32_t m = act; m; m &= m - 1) {
        uint32_t lane = (uint32_t)__builtin_ctz(m);
        fiber *g = lanes[lane];
        switch (kind) {
        case C_SHFL: {
            uint32_t bval = g->b & 31, cval = g->c & 31, seg = (g->c >> 8) & 31;
            int32_t maxl = (int32_t)((lane & seg) | (cval & ~seg)), minl = (int32_t)(lane & seg);
            int32_t j;
            bool pval;
            switch (g->op) {
            case P2N_SHFL_UP: j = (int32_t)lane - (int32_t)bval; pval = j >= maxl; break;
            case P2N_SHFL_DOWN: j = (int32_t)(lane + bval); pval = j <= maxl; break;
            case P2N_SHFL_BFLY: j = (int32_t)(lane ^ bval); pval = j <= maxl; break;
            default: j = minl | (int32_t)(bval & ~seg); pval = j <= maxl; break;
            }
            if (!pval || !(act & (1u << j))) {
                g->res = (uint32_t)g->value;
                g->res2 = 0;
            } else {
                g->res = (uint32_t)lanes[j]->value;
                g->res2 = 1;
            }
            break;
        }
        case C_VOTE:
            switch (g->op) {
            case P2N_VOTE_ALL: g->res = ballot == act; break;
            case P2N_VOTE_ANY: g->res = ballot != 0; break;
            case P2N_VOTE_UNI: g->res = ballot == 0 || ballot == act; break;
            default: g->res = ballot; break;
            }
            break;
        case C_MATCH_ANY: {
            uint32_t r = 0;
            for (uint32_t k = act; k; k &= k - 1) {
                uint32_t l = (uint32_t)__builtin_ctz(k);
                if (lanes[l]->value == g->value)
                    r |= 1u << l;
            }
            g->res = r;
            break;
        }
        case C_MATCH_ALL: {
            bool same = true;
            for (uint32_t k = act; k; k &= k - 1)
                same = same && lanes[__builtin_ctz(k)]->value == g->value;
            g->res = same ? act : 0;
            g->res2 = same;
            break;
        }
        case C_REDUX: {
            uint32_t r = (uint32_t)lanes[first]->value;
            for (uint32_t k = act & (act - 1); k; k &= k - 1) {
                uint32_t v = (uint32_t)lanes[__builtin_ctz(k)]->value;
                switch (g->op) {
                case P2N_REDUX_ADD: r += v; break;
                case P2N_REDUX_MIN: r = (int32_t)v < (int32_t)r ? v : r; break;
                case P2N_REDUX_MAX: r = (int32_t)v > (int32_t)r ? v : r; break;
                case P2N_REDUX_UMIN: r = v < r ? v : r; break;
                case P2N_REDUX_UMAX: r = v > r ? v : r; break;
                case P2N_REDUX_AND: r &= v; break;
                case P2N_REDUX_OR: r |= v; break;
                default: r ^= v; break;
                }
            }
            g->res = r;
            break;
        }
        case C_ELECT:
            g->res = first;
            g->res2 = lane == first;
            break;
        default:
            break;
        }
    }
}

/* Completes the group `need` (all pending with the same kind and mask). `self` is not woken. */
static void cpu_coll_complete(worker *w, warpstate *ws, uint32_t need, fiber *self) {
    cpu_coll_compute(w, ws, need);
    ws->pending &= ~need;
    for (uint32_t m = need; m; m &= m - 1) {
        fiber *g = cpu_lane_fiber(w, ws, (uint32_t)__builtin_ctz(m));
        g->coll = C_NONE;
        if (g != self)
            cpu_wake(w, g);
    }
}

/* After lanes exited: complete every group whose remaining lanes have all arrived. */
void cpu_coll_recheck(worker *w, warpstate *ws) {
    bool again = true;
    while (again && ws->pending) {
        again = false;
        for (uint32_t m = ws->pending; m; m &= m - 1) {
            fiber *g = cpu_lane_fiber(w, ws, (uint32_t)__builtin_ctz(m));
            uint32_t need = g->mask & ~ws->exited;
            if ((ws->pending & need) != need)
                continue;
            bool same = true;
            for (uint32_t k = need; k; k &= k - 1) {
                fiber *h = cpu_lane_fiber(w, ws, (uint32_t)__builtin_ctz(k));
                same = same && h->coll == g->coll && h->mask == g->mask;
            }
            if (same) {
                cpu_coll_complete(w, ws, need, NULL);
                again = true;
                break;
            }
        }
    }
}

static void cpu_coll_arrive(fiber *f, uint32_t kind, uint32_t op, uint32_t mask, uint64_t value, uint32_t b, uint32_t c) {
    worker *w = f->w;
    warpstate *ws = &w->warps[f->index >> 5];
    uint32_t bit = 1u << f->lane;
    if (!(mask & bit))
        cpu_fail_thread(w, f, CPU_ERR_LAUNCH_FAILED, "%s: membermask 0x%08x does not contain the executing lane %u",
                    cpu_coll_names[kind], mask, f->lane);
    f->coll = (uint8_t)kind;
    f->op = (uint8_t)op;
    f->mask = mask;
    f->value = value;
    f->b = b;
    f->c = c;
    ws->pending |= bit;
    /* complete when every live lane named by the mask waits at this kind of collective with the same mask; a lane
     * waiting at another collective may still finish that one and come here (it is not an error by itself) */
    uint32_t need = mask & ~ws->exited;
    if ((ws->pending & need) == need) {
        bool same = true;
        for (uint32_t m = need & ~bit; m && same; m &= m - 1) {
            fiber *g = cpu_lane_fiber(w, ws, (uint32_t)__builtin_ctz(m));
            same = g->coll == kind && g->mask == mask;
        }
        if (same) {
            cpu_coll_complete(w, ws, need, f);
            return;
        }
    }
    f->state = F_BLOCKED;
    f->wait = W_COLL;
    if (ws->am_waiting)
        cpu_am_check(w, ws, NULL);
    cpu_wait(w, f);
}

uint32_t cpu_rt_shfl(p2n_thread_ctx *ctx, uint32_t mode, uint32_t value, uint32_t b, uint32_t c, uint32_t membermask,
                        uint32_t *in_range) {
    fiber *f = F(ctx);
    if (mode > P2N_SHFL_BFLY)
        cpu_fail_thread(f->w, f, CPU_ERR_LAUNCH_FAILED, "shfl.sync: unknown mode %u", mode);
    cpu_coll_arrive(f, C_SHFL, mode, membermask, value, b, c);
    if (in_range)
        *in_range = f->res2;
    return f->res;
}

uint32_t cpu_rt_vote(p2n_thread_ctx *ctx, uint32_t mode, uint32_t pred, uint32_t membermask) {
    fiber *f = F(ctx);
    if (mode > P2N_VOTE_BALLOT)
        cpu_fail_thread(f->w, f, CPU_ERR_LAUNCH_FAILED, "vote.sync: unknown mode %u", mode);
    cpu_coll_arrive(f, C_VOTE, mode, membermask, pred != 0, 0, 0);
    return f->res;
}

uint32_t cpu_rt_match_any(p2n_thread_ctx *ctx, uint64_t value, uint32_t membermask) {
    fiber *f = F(ctx);
    cpu_coll_arrive(f, C_MATCH_ANY, 0, membermask, value, 0, 0);
    return f->res;
}

uint32_t cpu_rt_match_all(p2n_thread_ctx *ctx, uint64_t value, uint32_t membermask, uint32_t *pred) {
    fiber *f = F(ctx);
    cpu_coll_arrive(f, C_MATCH_ALL, 0, membermask, value, 0, 0);
    if (pred)
        *pred = f->res2;
    return f->res;
}

uint32_t cpu_rt_redux(p2n_thread_ctx *ctx, uint32_t op, uint32_t value, uint32_t membermask) {
    fiber *f = F(ctx);
    if (op > P2N_REDUX_XOR)
        cpu_fail_thread(f->w, f, CPU_ERR_LAUNCH_FAILED, "redux.sync: unknown operation %u", op);
    cpu_coll_arrive(f, C_REDUX, op, membermask, value, 0, 0);
    return f->res;
}

void cpu_rt_warp_sync(p2n_thread_ctx *ctx, uint32_t membermask) {
    cpu_coll_arrive(F(ctx), C_WARPSYNC, 0, membermask, 0, 0, 0);
}

uint32_t cpu_rt_elect(p2n_thread_ctx *ctx, uint32_t membermask, uint32_t *is_leader) {
    fiber *f = F(ctx);
    cpu_coll_arrive(f, C_ELECT, 0, membermask, 0, 0, 0);
    if (is_leader)
        *is_leader = f->res2;
    return f->res;
}


void cpu_rt_warp_matrix(p2n_thread_ctx *ctx, uint32_t op, uint32_t *io) {
    fiber *f = F(ctx);
    uint32_t kind = op & 0xffu;
    if (kind == P2N_MX_WMMA_LOAD || kind == P2N_MX_WMMA_STORE || kind == P2N_MX_FRAG_LOAD || kind == P2N_MX_FRAG_STORE) {
        p2n_matrix_lane(op, io, f->lane);
        return;
    }
    if (kind < P2N_MX_LDMATRIX || kind > P2N_MX_MMA_SP)
        cpu_fail_thread(f->w, f, CPU_ERR_LAUNCH_FAILED, "warp matrix operation: unknown operation 0x%x", op);
    cpu_coll_arrive(f, C_MATRIX, 0, 0xffffffffu, (uint64_t)(uintptr_t)io, op, 0);
}
