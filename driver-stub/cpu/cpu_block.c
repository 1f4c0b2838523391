/* cpu_block.c — one block: the runner fibers, the per-block scheduler, deadlock reports (the CPU backend's grid
 * execution: see cpu_exec.h). */
#include "cpu_exec.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------ a block ------------------------------------------------ */

/* The runner: starts unstarted threads of the block until none is left. */
static void cpu_runner_main(void *arg) {
    worker *w = arg;
#if P2N_ASAN
    __sanitizer_finish_switch_fiber(NULL, &w->sched_lo, &w->sched_size);
#endif
    launch *L = w->L;
    void (*entry)(const uint8_t *, p2n_thread_ctx *) = L->kd->entry;
    const uint8_t *params = L->params;
    while (w->next_unstarted < w->nthreads) {
        uint32_t t = w->next_unstarted++;
        fiber *f = &w->fib[t];
        f->ctx.yield_budget = w->tmpl.yield_budget; /* the rest of ctx is set per launch / per block */
        f->stack = w->cur_stack;
        f->state = F_RUNNING;
        w->cur = f;
        entry(params, &f->ctx);
        cpu_thread_finished(w, f);
        if (atomic_load_explicit(&L->abort, memory_order_relaxed)) {
            w->aborted = true;
            break;
        }
    }
    w->release_stack = w->cur_stack;
    w->cur = NULL;
    cpu_leave_fiber(w);
}

/* The thread-loop runner: one call of the kernel's block entry runs all threads of the block (ctx = thread 0's,
 * which the emitted code updates before runtime calls). Same stack pool, guard page and fault attribution as
 * runner_main; trap/assert abandon it the same way. */
static void cpu_block_runner_main(void *arg) {
    worker *w = arg;
#if P2N_ASAN
    __sanitizer_finish_switch_fiber(NULL, &w->sched_lo, &w->sched_size);
#endif
    fiber *f = &w->fib[0];
    f->stack = w->cur_stack;
    f->state = F_RUNNING;
    w->cur = f;
    w->L->tl_entry(w->L->params, &f->ctx);
    f->state = F_DONE;
    f->stack = NULL;
    w->ndone = w->nthreads;
    w->release_stack = w->cur_stack;
    w->cur = NULL;
    cpu_leave_fiber(w);
}

static void cpu_run_block_loop(worker *w) {
    launch *L = w->L;
    fiber *f = &w->fib[0];
    memcpy(f->ctx.ctaid, w->tmpl.ctaid, sizeof w->tmpl.ctaid);
    w->next_unstarted = 1; /* fib[0] is the runner's: an abort gives its stack back below */
    p2n_stack *s = cpu_stack_get(w);
    if (!s) {
        cpu_launch_fail(L, CPU_ERR_OUT_OF_RESOURCES, cpu_fmt("kernel '%s': out of memory for thread stacks", L->kd->name));
        w->aborted = true;
        return;
    }
    w->cur_stack = s;
    cpu_switch_to_fiber(w, cpu_init_frame(s, cpu_block_runner_main, w), s);
    if (w->release_stack) {
        cpu_stack_put(w, w->release_stack);
        w->release_stack = NULL;
    }
}

static void cpu_report_deadlock(worker *w);

/* The scheduler's next step, for the fiber and the coroutine loops alike: the next entry of the block's FIFO run
 * queue (a thread index, or START_TOKEN while unstarted threads remain), or NO_RUNNABLE when the block is done,
 * aborted, or deadlocked (reported: every live thread blocked). */
enum { NO_RUNNABLE = -2 };
static int32_t cpu_next_runnable(worker *w) {
    if (w->aborted)
        return NO_RUNNABLE;
    if (w->next_unstarted < w->nthreads && !w->start_queued) {
        cpu_runq_push(w, START_TOKEN);
        w->start_queued = true;
    }
    if (w->rq_count == 0) {
        if (w->ndone < w->nthreads)
            cpu_report_deadlock(w), w->aborted = true;
        return NO_RUNNABLE;
    }
    if (atomic_load_explicit(&w->L->abort, memory_order_relaxed)) {
        w->aborted = true;
        return NO_RUNNABLE;
    }
    int32_t it = cpu_runq_pop(w);
    if (it == START_TOKEN)
        w->start_queued = false;
    return it;
}

/* Runs fiber f's coroutine (started = false: start the thread) until it waits or ends; a thread that ends is
 * finished and, as the fiber runner does, the next unstarted thread starts at once on the same stack. */
static void cpu_coro_run(worker *w, fiber *f, bool started) {
    launch *L = w->L;
    for (;;) {
        f->state = F_RUNNING;
        f->ctx.suspend = 0;
        w->cur = f;
        if (started) {
            /* the frame the code published in ctx (host_abi.h): resumed through its first word */
            (*(void (**)(void *))f->ctx.coro_frame)(f->ctx.coro_frame);
        } else {
            f->ctx.yield_budget = w->tmpl.yield_budget; /* the rest of ctx is set per launch / per block */
            f->ctx.coro_frame = NULL;
            L->coro_entry(L->params, &f->ctx);
        }
        if (f->ctx.suspend) /* it waits: the runtime function registered or queued it */
            return;
        cpu_thread_finished(w, f);
        if (atomic_load_explicit(&L->abort, memory_order_relaxed)) {
            w->aborted = true;
            return;
        }
        if (w->next_unstarted >= w->nthreads)
            return;
        f = &w->fib[w->next_unstarted++];
        started = false;
    }
}

/* The coroutine runner (host_abi.h, coroutine entry): the block's scheduler loop, the same queue discipline as
 * cpu_run_block's, on one stack: resuming a thread is a call, not a stack switch, and a thread keeps only its
 * live values (its frame) between waits instead of a stack. trap/assert/faults leave this runner as they leave
 * a thread's fiber. */
static void cpu_coro_runner_main(void *arg) {
    worker *w = arg;
#if P2N_ASAN
    __sanitizer_finish_switch_fiber(NULL, &w->sched_lo, &w->sched_size);
#endif
    for (int32_t it; (it = cpu_next_runnable(w)) != NO_RUNNABLE;) {
        if (it != START_TOKEN)
            cpu_coro_run(w, &w->fib[it], true);
        else if (w->next_unstarted < w->nthreads)
            cpu_coro_run(w, &w->fib[w->next_unstarted++], false);
    }
    w->cur = NULL;
    cpu_leave_fiber(w);
}

static void cpu_run_block_coro(worker *w) {
    p2n_stack *s = cpu_stack_get(w);
    if (!s) {
        cpu_launch_fail(w->L, CPU_ERR_OUT_OF_RESOURCES, cpu_fmt("kernel '%s': out of memory for thread stacks", w->L->kd->name));
        w->aborted = true;
        return;
    }
    w->cur_stack = s;
    cpu_switch_to_fiber(w, cpu_init_frame(s, cpu_coro_runner_main, w), s);
    /* the runner ended or was left (trap, fault): no thread holds the stack any more */
    cpu_stack_put(w, s);
    w->cur_stack = NULL;
}

static void cpu_report_deadlock(worker *w) {
    p2n_buf b = {0};
    char *head = cpu_fmt("kernel '%s': deadlock in block [%u,%u,%u]: all %u live threads are blocked (CUDA would hang):",
                     w->L->kd->name, w->tmpl.ctaid[0], w->tmpl.ctaid[1], w->tmpl.ctaid[2], w->nthreads - w->ndone);
    if (head)
        p2n_buf_append(&b, head, strlen(head));
    free(head);
    unsigned shown = 0, more = 0;
    for (uint32_t t = 0; t < w->nthreads; t++) {
        fiber *f = &w->fib[t];
        if (f->state != F_BLOCKED)
            continue;
        if (shown >= 6) {
            more++;
            continue;
        }
        /* show one thread per distinct wait (consecutive threads with the same wait are folded) */
        if (t > 0) {
            fiber *p = &w->fib[t - 1];
            if (p->state == F_BLOCKED && p->wait == f->wait &&
                ((f->wait == W_BARRIER && p->bar_id == f->bar_id) ||
                 (f->wait == W_COLL && p->coll == f->coll && p->mask == f->mask && (p->index >> 5) == (f->index >> 5)))) {
                more++;
                continue;
            }
        }
        char *line = NULL;
        if (f->wait == W_BARRIER) {
            barrier *B = &w->bars[f->bar_id];
            if (B->expected)
                line = cpu_fmt(" thread [%u,%u,%u] waits at barrier %u (count %u, %u arrived);", f->ctx.tid[0], f->ctx.tid[1],
                           f->ctx.tid[2], f->bar_id, B->expected, B->arrived);
            else
                line = cpu_fmt(" thread [%u,%u,%u] waits at barrier %u (all threads, %u of %u live threads arrived);",
                           f->ctx.tid[0], f->ctx.tid[1], f->ctx.tid[2], f->bar_id, B->arrived - B->exited_pending,
                           w->nthreads - w->ndone);
        } else if (f->wait == W_COLL) {
            warpstate *ws = &w->warps[f->index >> 5];
            uint32_t missing = 0, elsewhere = 0;
            for (uint32_t m = f->mask & ~ws->exited; m; m &= m - 1) {
                uint32_t l = (uint32_t)__builtin_ctz(m);
                fiber *g = cpu_lane_fiber(w, ws, l);
                if (!((ws->pending >> l) & 1))
                    missing |= 1u << l;
                else if (g->coll != f->coll || g->mask != f->mask)
                    elsewhere |= 1u << l;
            }
            line = cpu_fmt(" thread [%u,%u,%u] (warp %u lane %u) waits at %s with membermask 0x%08x; lanes 0x%08x have not "
                       "arrived, lanes 0x%08x wait at a different warp collective;",
                       f->ctx.tid[0], f->ctx.tid[1], f->ctx.tid[2], f->index >> 5, f->lane, cpu_coll_names[f->coll], f->mask,
                       missing, elsewhere);
        } else {
            line = cpu_fmt(" thread [%u,%u,%u] waits at activemask;", f->ctx.tid[0], f->ctx.tid[1], f->ctx.tid[2]);
        }
        if (line)
            p2n_buf_append(&b, line, strlen(line));
        free(line);
        shown++;
    }
    if (more) {
        char *line = cpu_fmt(" and %u more blocked threads", more);
        if (line)
            p2n_buf_append(&b, line, strlen(line));
        free(line);
    }
    cpu_launch_fail(w->L, CPU_ERR_LAUNCH_FAILED, b.data);
}

void cpu_run_block(worker *w, uint64_t bid) {
    launch *L = w->L;
    uint32_t n = L->nthreads;
    w->block_linear = bid;
    w->tmpl.ctaid[0] = (uint32_t)(bid % L->grid[0]);
    w->tmpl.ctaid[1] = (uint32_t)((bid / L->grid[0]) % L->grid[1]);
    w->tmpl.ctaid[2] = (uint32_t)(bid / ((uint64_t)L->grid[0] * L->grid[1]));
    if (L->smem_size)
        memset(w->smem, 0, L->smem_size); /* undefined in CUDA; zero here so runs are deterministic */
    w->nthreads = n;
    w->next_unstarted = 0;
    w->ndone = 0;
    w->rq_head = 0;
    w->rq_count = 0;
    w->start_queued = false;
    w->aborted = false;
    w->cur = NULL;
    w->release_stack = NULL;
    if (w->bars_busy || w->gen_counter == 0) {
        for (uint32_t i = 0; i < NBARRIERS; i++) {
            barrier *B = &w->bars[i];
            B->gen = ++w->gen_counter;
            B->arrived = B->exited_pending = 0;
            B->head = B->tail = -1;
        }
        w->bars_busy = 0;
    }
    w->block_out_start = w->out.len;
    if (L->tl_entry) {
        cpu_run_block_loop(w);
        goto finish;
    }
    for (uint32_t i = 0; i < L->nwarps; i++) {
        uint32_t lanes = n - i * 32 >= 32 ? 32 : n - i * 32;
        uint32_t exists = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
        w->warps[i].exists = exists;
        w->warps[i].exited = ~exists;
        w->warps[i].pending = 0;
        w->warps[i].am_waiting = 0;
    }
    /* fibers t >= next_unstarted are unstarted whatever their state field says */
    for (uint32_t t = 0; t < n; t++)
        memcpy(w->fib[t].ctx.ctaid, w->tmpl.ctaid, sizeof w->tmpl.ctaid);
    if (L->coro_entry) {
        cpu_run_block_coro(w);
        goto finish;
    }

    for (;;) {
        if (w->release_stack) {
            cpu_stack_put(w, w->release_stack);
            w->release_stack = NULL;
        }
        int32_t it = cpu_next_runnable(w);
        if (it == NO_RUNNABLE)
            break;
        if (it == START_TOKEN) {
            if (w->next_unstarted >= n)
                continue;
            p2n_stack *s = cpu_stack_get(w);
            if (!s) {
                cpu_launch_fail(L, CPU_ERR_OUT_OF_RESOURCES, cpu_fmt("kernel '%s': out of memory for thread stacks", L->kd->name));
                w->aborted = true;
                break;
            }
            w->cur_stack = s;
            cpu_switch_to_fiber(w, cpu_init_frame(s, cpu_runner_main, w), s);
        } else {
            fiber *f = &w->fib[it];
            f->state = F_RUNNING;
            w->cur = f;
            w->cur_stack = f->stack;
            cpu_switch_to_fiber(w, f->sp, f->stack);
        }
    }
finish:
    if (w->fault_sig) {
        fiber *f = w->fault_fiber;
        /* the thread-loop entry keeps the thread's coordinates in registers: only the block is known */
        char *loc = L->tl_entry ? cpu_fmt("kernel '%s': block [%u,%u,%u] (thread-loop fast path: P2N_CPU_THREADLOOP=0 "
                                   "names the thread)", L->kd->name, w->tmpl.ctaid[0], w->tmpl.ctaid[1],
                                   w->tmpl.ctaid[2])
                  : f ? cpu_where(w, f) : NULL;
        cpu_launch_fail(L, CPU_ERR_ILLEGAL_ADDRESS,
                    cpu_fmt("%s: %s at address %p (an illegal memory access was encountered)", loc ? loc : "?",
                        w->fault_sig == SIGBUS ? "bus error" : "segmentation fault", w->fault_addr));
        free(loc);
        w->fault_sig = 0;
        w->fault_fiber = NULL;
        w->cur = NULL;
    }
    if (w->aborted) {
        /* give back the stacks of abandoned fibers */
        for (uint32_t t = 0; t < w->next_unstarted; t++) {
            fiber *f = &w->fib[t];
            if (f->state != F_DONE && f->stack) {
                cpu_stack_put(w, f->stack);
                f->stack = NULL;
            }
        }
    }
    if (w->out.len > w->block_out_start) {
        if (w->nchunks == w->cap_chunks) {
            size_t cap = w->cap_chunks ? w->cap_chunks * 2 : 16;
            chunk *c = realloc(w->chunks, cap * sizeof *c);
            if (c) {
                w->chunks = c;
                w->cap_chunks = cap;
            }
        }
        if (w->nchunks < w->cap_chunks)
            w->chunks[w->nchunks++] = (chunk){bid, w->block_out_start, w->out.len - w->block_out_start};
    }
}
