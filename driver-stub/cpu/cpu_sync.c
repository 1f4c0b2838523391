/* cpu_sync.c — activemask, barriers (bar.sync/arrive/red), thread exit and yield (the CPU backend's grid execution:
 * see cpu_exec.h). */
#include "cpu_exec.h"

#include <sched.h>
#include <stdatomic.h>

/* ------------------------------------------------ barriers ------------------------------------------------ */

static void cpu_bar_finish(worker *w, barrier *B, uint32_t id) {
    for (int32_t i = B->head; i >= 0;) {
        fiber *g = &w->fib[i];
        i = g->next_waiter;
        g->res = g->op == P2N_RED_POPC ? B->popc : g->op == P2N_RED_AND ? B->and_ : B->or_;
        cpu_wake(w, g);
    }
    B->head = B->tail = -1;
    B->arrived = 0;
    B->exited_pending = 0;
    B->gen = ++w->gen_counter;
    w->bars_busy &= ~(1u << id);
}

static uint32_t cpu_bar_arrive(p2n_thread_ctx *ctx, uint32_t id, uint32_t count, uint32_t arrive, int op, uint32_t pred) {
    fiber *f = F(ctx);
    worker *w = f->w;
    if (id >= NBARRIERS)
        cpu_fail_thread(w, f, CPU_ERR_LAUNCH_FAILED, "barrier id %u out of range (0..15)", id);
    if (count % 32)
        cpu_fail_thread(w, f, CPU_ERR_LAUNCH_FAILED, "barrier %u: thread count %u is not a multiple of 32", id, count);
    if (count > ((w->nthreads + 31) & ~31u))
        cpu_fail_thread(w, f, CPU_ERR_LAUNCH_FAILED, "barrier %u: thread count %u exceeds the block's %u threads", id, count,
                    w->nthreads);
    barrier *B = &w->bars[id];
    if (B->arrived == 0) {
        B->expected = count;
        B->popc = 0;
        B->and_ = 1;
        B->or_ = 0;
        w->bars_busy |= 1u << id;
    }
    B->arrived++;
    uint32_t p = pred != 0;
    B->popc += p;
    B->and_ &= p;
    B->or_ |= p;
    if (cpu_bar_complete(w, B)) {
        uint32_t r = op == P2N_RED_POPC ? B->popc : op == P2N_RED_AND ? B->and_ : B->or_;
        cpu_bar_finish(w, B, id);
        return r;
    }
    if (arrive) {
        w->arr_gen[f->index][id] = B->gen;
        return 0;
    }
    f->state = F_BLOCKED;
    f->wait = W_BARRIER;
    f->bar_id = id;
    f->bar_count = count;
    f->op = (uint8_t)op;
    f->next_waiter = -1;
    if (B->tail >= 0)
        w->fib[B->tail].next_waiter = (int32_t)f->index;
    else
        B->head = (int32_t)f->index;
    B->tail = (int32_t)f->index;
    cpu_settle(w, f);
    cpu_wait(w, f);
    return f->res;
}

void cpu_rt_barrier(p2n_thread_ctx *ctx, uint32_t id, uint32_t count, uint32_t arrive) {
    cpu_bar_arrive(ctx, id, count, arrive, P2N_RED_OR, 0);
}

uint32_t cpu_rt_barrier_red(p2n_thread_ctx *ctx, uint32_t id, uint32_t count, uint32_t op, uint32_t pred) {
    if (op > P2N_RED_OR)
        cpu_fail_thread(F(ctx)->w, F(ctx), CPU_ERR_LAUNCH_FAILED, "bar.red: unknown operation %u", op);
    return cpu_bar_arrive(ctx, id, count, 0, (int)op, pred);
}

__attribute__((noinline)) uint32_t cpu_rt_activemask(p2n_thread_ctx *ctx) {
    fiber *f = F(ctx);
    worker *w = f->w;
    warpstate *ws = &w->warps[f->index >> 5];
    f->site = (uintptr_t)__builtin_return_address(0);
    f->state = F_BLOCKED;
    f->wait = W_ACTIVEMASK;
    ws->am_waiting |= 1u << f->lane;
    if (cpu_am_check(w, ws, f))
        return f->res;
    cpu_wait(w, f);
    return f->res;
}

/* ------------------------------------------- thread end, yield ------------------------------------------- */

void cpu_thread_finished_slow(worker *w, fiber *f, warpstate *ws) {
    if (ws->pending)
        cpu_coll_recheck(w, ws);
    if (ws->am_waiting)
        cpu_am_check(w, ws, NULL);
    if (w->bars_busy) {
        for (uint32_t id = 0; id < NBARRIERS; id++)
            if ((w->bars_busy >> id) & 1 && w->arr_gen[f->index][id] == w->bars[id].gen)
                w->bars[id].exited_pending++;
        for (uint32_t id = 0; id < NBARRIERS; id++) {
            barrier *B = &w->bars[id];
            if ((w->bars_busy >> id) & 1 && B->expected == 0 && cpu_bar_complete(w, B))
                cpu_bar_finish(w, B, id);
        }
    }
}

_Noreturn void cpu_rt_exit_thread(p2n_thread_ctx *ctx) {
    fiber *f = F(ctx);
    worker *w = f->w;
    if (w->L->tl_entry) /* the compiler never emits this call in a thread-loop kernel (host_abi.h) */
        cpu_fail_thread(w, f, CPU_ERR_LAUNCH_FAILED, "internal error: exit through the runtime in a thread-loop kernel");
    if (w->L->coro_entry) /* nor in a coroutine entry: there the thread ends by returning */
        cpu_fail_thread(w, f, CPU_ERR_LAUNCH_FAILED, "internal error: exit through the runtime in a coroutine kernel");
    p2n_stack *s = f->stack;
    cpu_thread_finished(w, f);
    w->release_stack = s;
    cpu_leave_fiber(w);
}

void cpu_rt_yield(p2n_thread_ctx *ctx) {
    fiber *f = F(ctx);
    worker *w = f->w;
    ctx->yield_budget = w->L->budget;
    if (atomic_load_explicit(&w->L->abort, memory_order_relaxed)) {
        w->aborted = true;
        cpu_leave_fiber(w);
    }
    if (w->L->tl_entry) /* one runner for the whole block: nothing else to switch to */
        return;
    warpstate *ws = &w->warps[f->index >> 5];
    f->state = F_YIELDED;
    if (ws->am_waiting)
        cpu_am_check(w, ws, NULL);
    if (w->rq_count == 0 && w->next_unstarted >= w->nthreads) {
        f->state = F_RUNNING; /* nothing else to run */
        /* a cooperative grid's thread spinning on other blocks (grid.sync): let their workers have the CPU */
        if (w->L->cooperative)
            sched_yield();
        return;
    }
    cpu_runq_push(w, (int32_t)f->index);
    cpu_wait(w, f);
}
