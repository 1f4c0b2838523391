/* cpu_exec.h — grid execution for the CPU backend, shared by its files (private to driver-stub/cpu):
 *   cpu_fiber.c     context switch, fiber stacks, launch errors, failing a thread
 *   cpu_signals.c   SIGSEGV/SIGBUS of kernel code (alternate stacks, the fault handler)
 *   cpu_activemask.c  completing a warp's activemask waiters (called by cpu_sync.c and cpu_warp.c)
 *   cpu_sync.c      activemask, barriers, thread exit, yield
 *   cpu_warp.c      warp collectives (shfl, vote, match, redux, elect, bar.warp.sync, warp matrix operations)
 *   cpu_rt_table.c  the runtime function table (__p2n_rt): trap, assert, clocks, printf, malloc, libm
 *   cpu_block.c     one block: runners, the per-block scheduler, deadlock reports
 *   cpu_pool.c      workers, the worker pool, printf output in block order
 *   cpu_launch.c    cpu_launch_kernel: launch checks and the launch record
 *
 * Execution model
 * ---------------
 * Blocks of a grid are handed out in increasing linear order to N workers (the launching thread is worker 0,
 * the others are persistent pool threads). A worker runs one block at a time to completion.
 *
 * Inside a block every CUDA thread is a fiber. A "runner" fiber (own stack from the worker's pool) starts the
 * block's threads one after another, calling the kernel entry like a function. A thread that returns without
 * ever suspending costs a function call: the runner simply starts the next thread on the same stack. A thread
 * that suspends (barrier, warp collective, activemask, rt->yield) keeps the runner's stack as its own; the
 * scheduler (on the worker's own stack) then starts a new runner on a fresh stack for the remaining threads.
 * When a suspended thread is resumed and finishes, its runner loop goes on with the next unstarted thread.
 *
 * The scheduler runs a FIFO queue of resumable fibers plus a START token standing for "unstarted threads
 * remain"; woken and yielding threads go to the tail, so every runnable thread gets to run (forward progress
 * between warps, spin-waits on flags). If the queue is empty while threads of the block are still alive, every
 * one of them is blocked: the launch fails with a deadlock report (CUDA would hang).
 *
 * Cooperative launch (P2N_LAUNCH_COOPERATIVE, cuLaunchCooperativeKernel): a block may spin until every other
 * block of the grid reached a grid barrier (CUDA's grid.sync() on the ctx grid_workspace), so all blocks must
 * run at once: the launch gets as many workers as blocks (the pool's plus temporary threads, cpu_pool.c), each
 * taking one block at a time, and a thread that yields with nothing else of its block to run gives the CPU away
 * (sched_yield) so that the blocks it waits for progress on few cores. The driver limits such grids to the
 * occupancy calculator's blocks per multiprocessor x multiprocessors (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE).
 *
 * Thread-loop fast path: a kernel whose compiler-emitted block entry exists (host_abi.h, P2N_KERNEL_THREAD_LOOP:
 * no thread of it can wait for another) runs each block as ONE call of that entry, on one runner stack, which
 * loops over the block's threads in the same linear order; no fiber per thread, no per-thread bookkeeping.
 * trap/assert/faults leave that runner exactly as they leave a thread's fiber. P2N_CPU_THREADLOOP=0 disables
 * it (every kernel then runs on fibers, as before).
 *
 * Definitions chosen where the ISA leaves room
 * --------------------------------------------
 * - Exited threads (PTX exit or return from the entry) count as arrived at full-block barriers (count 0) from
 *   then on; they do not count towards barriers with an explicit thread count. Exited lanes are dropped from
 *   every warp collective's membermask (they are inactive lanes: shfl from them yields the caller's own value
 *   and a false predicate, votes ignore them).
 * - shfl.sync from a lane that is out of range or not participating (not in membermask / exited / absent in a
 *   partial warp) gives the caller its own value and a false predicate.
 * - activemask: a lane calling activemask waits until every other live lane of its warp is suspended somewhere
 *   (at an activemask, a barrier, a warp collective, or an rt->yield) or has exited; the result for each lane
 *   is the set of lanes waiting at the same activemask call site (same return address). So convergent code
 *   gets the full warp, and after `if (lane < 16)` the two sides see their own halves, as on NVIDIA GPUs.
 * - Warp collectives: all non-exited lanes named by membermask must arrive at a collective of the same kind with
 *   the same membermask; the result is computed when the last one arrives. Lanes waiting at different
 *   collectives for each other end in the deadlock report (which names the collectives); a membermask that does
 *   not contain the caller fails the launch at once.
 */
#ifndef P2N_CPU_EXEC_H
#define P2N_CPU_EXEC_H

#include "cpu_internal.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__SANITIZE_ADDRESS__)
#define P2N_ASAN 1
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#else
#define P2N_ASAN 0
#endif

#pragma GCC visibility push(hidden)

/* Context switch (x86-64 System V, cpu_fiber.c): saves the callee-saved integer registers and the stack pointer. */
void p2n_ctx_switch(void **save_sp, void *to_sp);
_Noreturn void p2n_ctx_jump(void *to_sp);
void p2n_fiber_trampoline(void);

#define MAX_THREADS 1024
#define NBARRIERS 16
#define RUNQ_CAP (MAX_THREADS + 2)
#define START_TOKEN (-1)
#define MAX_SMEM (227u * 1024u) /* opt-in maximum of an H100/H200 block */

enum { F_UNSTARTED, F_RUNNING, F_READY, F_YIELDED, F_BLOCKED, F_DONE };
enum { W_NONE, W_BARRIER, W_COLL, W_ACTIVEMASK };
enum { C_NONE, C_SHFL, C_VOTE, C_MATCH_ANY, C_MATCH_ALL, C_REDUX, C_ELECT, C_WARPSYNC, C_MATRIX };
extern const char *const cpu_coll_names[]; /* by C_* (cpu_warp.c) */

typedef struct p2n_stack {
    uint8_t *map;
    size_t map_size;
    uint8_t *lo, *hi; /* usable range; hi is 64-byte aligned */
} p2n_stack;

struct worker;

typedef struct fiber {
    p2n_thread_ctx ctx; /* must stay the first member: the runtime gets a ctx and casts */
    struct worker *w;
    void *sp;           /* saved stack pointer while suspended */
    p2n_stack *stack;   /* the stack this thread runs on (NULL when not started or finished) */
#if P2N_ASAN
    void *asan_fake;
#endif
    uint8_t state, wait, coll, op;
    uint32_t index, lane;
    uint32_t mask, b, c;   /* collective operands */
    uint64_t value;
    uintptr_t site;        /* activemask call site */
    uint32_t res, res2;    /* results handed over by the thread that completed the operation */
    uint32_t bar_id, bar_count;
    int32_t next_waiter;
} fiber;

typedef struct warpstate {
    uint32_t exists, exited; /* exited includes lanes that do not exist in a partial warp */
    uint32_t pending;        /* lanes blocked in a warp collective */
    uint32_t am_waiting;     /* lanes blocked in activemask */
} warpstate;

typedef struct barrier {
    uint64_t gen;
    uint32_t arrived, expected, exited_pending;
    uint32_t popc, and_, or_;
    int32_t head, tail; /* FIFO of waiting fibers (indices) */
} barrier;

typedef struct chunk {
    uint64_t block;
    size_t off, len;
} chunk;

/* What a grid asked of CUDA's device runtime (cpu_devrt.c): a child grid, or a copy/fill ordered after the child
 * grids before it. Run in order after the grid that made them (cpu_launch.c). */
typedef struct cdp_op {
    struct cdp_op *next;      /* the launched ones, in launch order */
    struct cdp_op *all_next;  /* every op of the launch (parameter buffers never launched too), to free */
    enum { CDP_GRID = 1, CDP_COPY, CDP_FILL } kind;
    bool launched;
    const cpu_kernel *k;      /* CDP_GRID; NULL until cudaLaunchDevice names it (CUDA 11's two-step form) */
    uint32_t grid[3], block[3], smem;
    void *dst;                /* CDP_COPY / CDP_FILL */
    const void *src;
    size_t n;
    int value;
    size_t param_size;
    _Alignas(64) uint8_t params[]; /* the child's parameter buffer (cudaGetParameterBuffer's result) */
} cdp_op;

typedef struct launch {
    const cpu_kernel *k;
    const p2n_kernel_desc *kd;
    void (*tl_entry)(const uint8_t *params, p2n_thread_ctx *ctx); /* thread-loop entry, NULL: fibers */
    void (*coro_entry)(const uint8_t *params, p2n_thread_ctx *ctx); /* coroutine entry, NULL: fibers */
    const uint8_t *params;
    uint32_t grid[3], block[3];
    uint64_t nblocks, chunk;
    uint32_t nthreads, nwarps;
    uint32_t dyn, smem_size;
    size_t stack_size;
    int32_t budget;
    uint32_t launch_flags;                    /* P2N_LAUNCH_*, every ctx's launch_flags */
    bool cooperative;                         /* P2N_LAUNCH_COOPERATIVE: every block has a worker of its own */
    /* the cooperative launch's grid workspace (host_abi.h grid_workspace: wsSize, barrier), zeroed per launch;
     * blocks' CTA masters count the grid barrier in it with atomics: own cache line */
    _Alignas(64) uint32_t grid_ws[2];
    _Alignas(64) _Atomic uint64_t next_block; /* own cache line: written per block */
    _Alignas(64) atomic_int abort;            /* read per thread */
    _Alignas(64) char pad_;
    pthread_mutex_t err_lock;
    cpu_status status;
    char *error;
    /* CUDA's device runtime (cpu_devrt.c): ops under cdp_lock; the last device-runtime error of the grid */
    pthread_mutex_t cdp_lock;
    cdp_op *cdp_head, *cdp_tail, *cdp_all;
    _Atomic uint32_t cdp_last_error;
} launch;

typedef struct worker {
    unsigned index;
    launch *L;
    /* block state */
    fiber *fib;
    uint32_t nthreads, next_unstarted, ndone;
    uint64_t block_linear;
    int32_t runq[RUNQ_CAP];
    uint32_t rq_head, rq_count;
    bool start_queued, aborted;
    barrier bars[NBARRIERS];
    uint32_t bars_busy;
    warpstate warps[MAX_THREADS / 32];
    void *sched_sp;
    p2n_stack *cur_stack, *release_stack;
    fiber *cur;
    uint64_t gen_counter;
    p2n_thread_ctx tmpl;
    uint16_t (*tids)[3]; /* per launch: tid of each linear thread index */
    uint64_t (*arr_gen)[NBARRIERS]; /* per thread: generation of the barrier it bar.arrive'd at */
    uint8_t *smem;
    size_t smem_cap;
    /* coroutine frames of the block's threads (rt->coro_frame): nthreads slots of frame_slot bytes */
    uint8_t *frames;
    size_t frames_cap, frame_slot;
#if P2N_ASAN
    const void *sched_lo;
    size_t sched_size;
#endif
    /* stack pool */
    p2n_stack **free_stacks;
    uint32_t nfree, cap_free;
    size_t stack_size;
    /* printf output of this launch, in chunks per block */
    p2n_buf out;
    chunk *chunks;
    size_t nchunks, cap_chunks;
    size_t block_out_start;
    pthread_t thread;
    uint64_t seen_job; /* pool threads: last job taken */
    /* memory faults of kernel code (SIGSEGV/SIGBUS on a fiber stack): recorded by the handler */
    void *altstack;
    volatile sig_atomic_t fault_sig;
    void *volatile fault_addr;
    fiber *volatile fault_fiber;
} worker;

static inline fiber *F(p2n_thread_ctx *ctx) { return (fiber *)ctx; }

/* ---- cpu_fiber.c ---- */
/* Records the launch's first error (takes `msg`) and makes every worker stop. */
void cpu_launch_fail(launch *L, cpu_status st, char *msg);
char *cpu_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
char *cpu_where(worker *w, fiber *f); /* "kernel 'K': block [..], thread [..]" */
_Noreturn void cpu_fail_thread(worker *w, fiber *f, cpu_status st, const char *f_, ...)
    __attribute__((format(printf, 4, 5)));
void cpu_stack_free(p2n_stack *s);
p2n_stack *cpu_stack_get(worker *w);
void cpu_stack_put(worker *w, p2n_stack *s);
/* a new fiber's first frame: switching to the result calls fn(arg) on stack s */
void *cpu_init_frame(p2n_stack *s, void (*fn)(void *), void *arg);

/* ---- cpu_signals.c ---- */
/* While a launch runs (install/remove under the pool's launch lock) faults of kernel code fail the launch. */
void cpu_faults_install(void);
void cpu_faults_remove(void);
/* around a worker's part of a launch: an alternate signal stack and the thread's worker for the handler */
bool cpu_fault_scope_enter(worker *w);
void cpu_fault_scope_leave(worker *w, bool alt);

/* ---- cpu_activemask.c ---- */
bool cpu_am_check(worker *w, warpstate *ws, fiber *self);

/* ---- cpu_sync.c ---- */
void cpu_thread_finished_slow(worker *w, fiber *f, warpstate *ws);
void cpu_rt_barrier(p2n_thread_ctx *ctx, uint32_t id, uint32_t count, uint32_t arrive);
uint32_t cpu_rt_barrier_red(p2n_thread_ctx *ctx, uint32_t id, uint32_t count, uint32_t op, uint32_t pred);
uint32_t cpu_rt_activemask(p2n_thread_ctx *ctx);
_Noreturn void cpu_rt_exit_thread(p2n_thread_ctx *ctx);
void cpu_rt_yield(p2n_thread_ctx *ctx);

/* ---- cpu_warp.c ---- */
void cpu_coll_recheck(worker *w, warpstate *ws);
/* cpu_devrt.c: the rt slot device_runtime; freeing a launch's ops */
uint64_t cpu_rt_device_runtime(p2n_thread_ctx *ctx, uint32_t fn, const uint64_t *args);
void cpu_devrt_free(launch *L);
uint32_t cpu_rt_shfl(p2n_thread_ctx *ctx, uint32_t mode, uint32_t value, uint32_t b, uint32_t c, uint32_t membermask,
                     uint32_t *in_range);
uint32_t cpu_rt_vote(p2n_thread_ctx *ctx, uint32_t mode, uint32_t pred, uint32_t membermask);
uint32_t cpu_rt_match_any(p2n_thread_ctx *ctx, uint64_t value, uint32_t membermask);
uint32_t cpu_rt_match_all(p2n_thread_ctx *ctx, uint64_t value, uint32_t membermask, uint32_t *pred);
uint32_t cpu_rt_redux(p2n_thread_ctx *ctx, uint32_t op, uint32_t value, uint32_t membermask);
void cpu_rt_warp_sync(p2n_thread_ctx *ctx, uint32_t membermask);
uint32_t cpu_rt_elect(p2n_thread_ctx *ctx, uint32_t membermask, uint32_t *is_leader);
void cpu_rt_warp_matrix(p2n_thread_ctx *ctx, uint32_t op, uint32_t *io);

/* ---- cpu_block.c ---- */
void cpu_run_block(worker *w, uint64_t bid);

/* ---- cpu_pool.c ---- */
/* Runs launch L on the pool (the calling thread is worker 0) and hands its printf output to cl's sink; false
 * (nothing ran) when the worker threads cannot be started. */
bool cpu_pool_run(launch *L, const cpu_launch *cl);

/* ---- small hot helpers, inline everywhere ---- */
/* scheduler -> fiber (new or suspended); returns when the fiber suspends or ends */
static inline void cpu_switch_to_fiber(worker *w, void *sp, p2n_stack *s) {
#if P2N_ASAN
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, s->lo, (size_t)(s->hi - s->lo));
    p2n_ctx_switch(&w->sched_sp, sp);
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#else
    (void)s;
    p2n_ctx_switch(&w->sched_sp, sp);
#endif
}

/* current fiber -> scheduler, to be resumed later */
static inline void cpu_suspend(worker *w, fiber *f) {
#if P2N_ASAN
    __sanitizer_start_switch_fiber(&f->asan_fake, w->sched_lo, w->sched_size);
    p2n_ctx_switch(&f->sp, w->sched_sp);
    __sanitizer_finish_switch_fiber(f->asan_fake, NULL, NULL);
#else
    p2n_ctx_switch(&f->sp, w->sched_sp);
#endif
}

/* current fiber -> scheduler, never to return (the fiber's stack is given up) */
static inline _Noreturn void cpu_leave_fiber(worker *w) {
#if P2N_ASAN
    __sanitizer_start_switch_fiber(NULL, w->sched_lo, w->sched_size);
#endif
    p2n_ctx_jump(w->sched_sp);
}

/* The calling thread must wait (it is already registered as waiting): a fiber suspends here; a thread of a
 * coroutine entry only says so in its ctx and returns, and its code then suspends itself (host_abi.h). */
static inline void cpu_wait(worker *w, fiber *f) {
    if (w->L->coro_entry) {
        f->ctx.suspend = 1;
        return;
    }
    cpu_suspend(w, f);
}

static inline void cpu_runq_push(worker *w, int32_t v) {
    uint32_t i = w->rq_head + w->rq_count;
    if (i >= RUNQ_CAP)
        i -= RUNQ_CAP;
    w->runq[i] = v;
    w->rq_count++;
}

static inline int32_t cpu_runq_pop(worker *w) {
    int32_t v = w->runq[w->rq_head];
    if (++w->rq_head == RUNQ_CAP)
        w->rq_head = 0;
    w->rq_count--;
    return v;
}

static inline void cpu_wake(worker *w, fiber *f) {
    f->state = F_READY;
    f->wait = W_NONE;
    cpu_runq_push(w, (int32_t)f->index);
}

static inline fiber *cpu_lane_fiber(worker *w, warpstate *ws, uint32_t lane) {
    return &w->fib[(uint32_t)(ws - w->warps) * 32 + lane];
}

static inline void cpu_settle(worker *w, fiber *f) {
    warpstate *ws = &w->warps[f->index >> 5];
    if (ws->am_waiting)
        cpu_am_check(w, ws, NULL);
}

static inline bool cpu_bar_complete(worker *w, barrier *B) {
    if (B->expected)
        return B->arrived >= B->expected;
    return B->arrived + (w->ndone - B->exited_pending) >= w->nthreads;
}

static inline void cpu_thread_finished(worker *w, fiber *f) {
    f->state = F_DONE;
    f->stack = NULL;
    w->ndone++;
    warpstate *ws = &w->warps[f->index >> 5];
    ws->exited |= 1u << f->lane;
    if (__builtin_expect((ws->pending | ws->am_waiting | w->bars_busy) != 0, 0))
        cpu_thread_finished_slow(w, f, ws);
}

#pragma GCC visibility pop

#endif
