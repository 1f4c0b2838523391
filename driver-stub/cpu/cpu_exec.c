/* cpu_exec.c — grid execution for the CPU backend: worker pool, per-block fiber scheduler, barriers, warp
 * collectives, trap/assert/exit, deadlock detection, and the runtime function table.
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
#include "cpu_internal.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <ucontext.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define P2N_ASAN 1
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#else
#define P2N_ASAN 0
#endif

/* ------------------------------------------------------------------------------------------------------
 * Context switch (x86-64 System V): saves the callee-saved integer registers and the stack pointer.
 * MXCSR/x87 control words are not switched: all fibers of a worker share the default FP environment, and
 * emitted code that changes it must restore it before calling the runtime (ABI rule for callee-saved control
 * bits).
 * ------------------------------------------------------------------------------------------------------ */
void p2n_ctx_switch(void **save_sp, void *to_sp);
_Noreturn void p2n_ctx_jump(void *to_sp);
void p2n_fiber_trampoline(void);

__asm__(".text\n"
        ".globl p2n_ctx_switch\n"
        ".hidden p2n_ctx_switch\n"
        ".type p2n_ctx_switch,@function\n"
        ".p2align 4\n"
        "p2n_ctx_switch:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size p2n_ctx_switch, .-p2n_ctx_switch\n"
        ".globl p2n_ctx_jump\n"
        ".hidden p2n_ctx_jump\n"
        ".type p2n_ctx_jump,@function\n"
        ".p2align 4\n"
        "p2n_ctx_jump:\n"
        "  movq %rdi, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size p2n_ctx_jump, .-p2n_ctx_jump\n"
        ".globl p2n_fiber_trampoline\n"
        ".hidden p2n_fiber_trampoline\n"
        ".type p2n_fiber_trampoline,@function\n"
        ".p2align 4\n"
        "p2n_fiber_trampoline:\n"
        "  .cfi_startproc\n"
        "  .cfi_undefined rip\n"
        "  movq %r12, %rdi\n"
        "  callq *%r13\n"
        "  ud2\n"
        "  .cfi_endproc\n"
        ".size p2n_fiber_trampoline, .-p2n_fiber_trampoline\n");

/* ------------------------------------------------------------------------------------------------------ */

#define MAX_THREADS 1024
#define NBARRIERS 16
#define RUNQ_CAP (MAX_THREADS + 2)
#define START_TOKEN (-1)
#define MAX_SMEM (227u * 1024u) /* opt-in maximum of an H100/H200 block */

enum { F_UNSTARTED, F_RUNNING, F_READY, F_YIELDED, F_BLOCKED, F_DONE };
enum { W_NONE, W_BARRIER, W_COLL, W_ACTIVEMASK };
enum { C_NONE, C_SHFL, C_VOTE, C_MATCH_ANY, C_MATCH_ALL, C_REDUX, C_ELECT, C_WARPSYNC, C_MATRIX };
static const char *const coll_names[] = {"?", "shfl.sync", "vote.sync", "match.any.sync", "match.all.sync",
                                         "redux.sync", "elect.sync", "bar.warp.sync", "matrix (mma/ldmatrix/stmatrix)"};

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

typedef struct launch {
    const cpu_kernel *k;
    const p2n_kernel_desc *kd;
    void (*tl_entry)(const uint8_t *params, p2n_thread_ctx *ctx); /* thread-loop entry, NULL: fibers */
    const uint8_t *params;
    uint32_t grid[3], block[3];
    uint64_t nblocks, chunk;
    uint32_t nthreads, nwarps;
    uint32_t dyn, smem_size;
    size_t stack_size;
    int32_t budget;
    uint32_t launch_flags;                    /* P2N_LAUNCH_*, every ctx's launch_flags */
    _Alignas(64) _Atomic uint64_t next_block; /* own cache line: written per block */
    _Alignas(64) atomic_int abort;            /* read per thread */
    _Alignas(64) char pad_;
    pthread_mutex_t err_lock;
    cpu_status status;
    char *error;
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

/* ---------------------------------------------- errors ---------------------------------------------- */

static void launch_fail(launch *L, cpu_status st, char *msg) {
    pthread_mutex_lock(&L->err_lock);
    if (L->status == CPU_OK) {
        L->status = st;
        L->error = msg;
        msg = NULL;
    }
    pthread_mutex_unlock(&L->err_lock);
    free(msg);
    atomic_store(&L->abort, 1);
}

static char *vfmt(const char *fmt, va_list ap) {
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        return NULL;
    return s;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    char *s = vfmt(f, ap);
    va_end(ap);
    return s;
}

/* ------------------------------------------------ stacks ---------------------------------------------- */

static p2n_stack *stack_new(size_t size) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size = (size + page - 1) & ~(page - 1);
    p2n_stack *s = malloc(sizeof *s);
    if (!s)
        return NULL;
    s->map_size = size + page;
    void *m = mmap(NULL, s->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                   -1, 0);
    if (m == MAP_FAILED) {
        free(s);
        return NULL;
    }
    mprotect(m, page, PROT_NONE); /* guard page below the stack */
    s->map = m;
    s->lo = s->map + page;
    s->hi = s->map + s->map_size;
    return s;
}

static void stack_free(p2n_stack *s) {
    munmap(s->map, s->map_size);
    free(s);
}

static p2n_stack *stack_get(worker *w) {
    if (w->nfree)
        return w->free_stacks[--w->nfree];
    if (w->nfree == w->cap_free) {
        uint32_t cap = w->cap_free ? w->cap_free * 2 : 64;
        p2n_stack **n = realloc(w->free_stacks, cap * sizeof *n);
        if (!n)
            return NULL;
        w->free_stacks = n;
        w->cap_free = cap;
    }
    return stack_new(w->stack_size);
}

static void stack_put(worker *w, p2n_stack *s) {
#if P2N_ASAN
    __asan_unpoison_memory_region(s->lo, (size_t)(s->hi - s->lo)); /* frames of abandoned fibers */
#endif
    if (w->nfree == w->cap_free) {
        uint32_t cap = w->cap_free ? w->cap_free * 2 : 64;
        p2n_stack **n = realloc(w->free_stacks, cap * sizeof *n);
        if (!n) {
            stack_free(s);
            return;
        }
        w->free_stacks = n;
        w->cap_free = cap;
    }
    w->free_stacks[w->nfree++] = s;
}

/* ---------------------------------------------- switching ---------------------------------------------- */

static void *init_frame(p2n_stack *s, void (*fn)(void *), void *arg) {
    uintptr_t top = (uintptr_t)s->hi & ~(uintptr_t)63;
    uint64_t *sp = (uint64_t *)(top - 56);
    sp[0] = 0;                                  /* r15 */
    sp[1] = 0;                                  /* r14 */
    sp[2] = (uint64_t)(uintptr_t)fn;            /* r13 */
    sp[3] = (uint64_t)(uintptr_t)arg;           /* r12 */
    sp[4] = 0;                                  /* rbx */
    sp[5] = 0;                                  /* rbp */
    sp[6] = (uint64_t)(uintptr_t)p2n_fiber_trampoline;
    return sp;
}

/* scheduler -> fiber (new or suspended); returns when the fiber suspends or ends */
static void switch_to_fiber(worker *w, void *sp, p2n_stack *s) {
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
static void suspend(worker *w, fiber *f) {
#if P2N_ASAN
    __sanitizer_start_switch_fiber(&f->asan_fake, w->sched_lo, w->sched_size);
    p2n_ctx_switch(&f->sp, w->sched_sp);
    __sanitizer_finish_switch_fiber(f->asan_fake, NULL, NULL);
#else
    p2n_ctx_switch(&f->sp, w->sched_sp);
#endif
}

/* current fiber -> scheduler, never to return (the fiber's stack is given up) */
static _Noreturn void leave_fiber(worker *w) {
#if P2N_ASAN
    __sanitizer_start_switch_fiber(NULL, w->sched_lo, w->sched_size);
#endif
    p2n_ctx_jump(w->sched_sp);
}

/* ---------------------------------------- memory faults of kernel code ---------------------------------------- */

/* While a launch runs, SIGSEGV/SIGBUS are caught on every worker thread (on an alternate stack). A fault whose
 * interrupted stack pointer lies on the running fiber's stack comes from kernel code (or the runtime called by
 * it): the handler records it and abandons the fiber exactly like trap does (the scheduler reports the launch
 * failure outside the signal handler). Any other fault goes to the previous handler. Only async-signal-safe
 * operations happen in the handler. */
#define ALTSTACK_SIZE (64 * 1024)
static _Thread_local worker *tls_worker;
static struct sigaction g_old_segv, g_old_bus;
static unsigned g_fault_installs; /* under g_pool.launch_lock */

static void fault_handler(int sig, siginfo_t *si, void *uc_) {
    worker *w = tls_worker;
    ucontext_t *uc = uc_;
    if (w && w->cur && w->cur_stack) {
        uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
        if (sp >= (uintptr_t)w->cur_stack->map && sp < (uintptr_t)w->cur_stack->hi) {
            w->fault_sig = sig;
            w->fault_addr = si ? si->si_addr : NULL;
            w->fault_fiber = w->cur;
            w->aborted = true;
            sigset_t set;
            sigemptyset(&set);
            sigaddset(&set, sig);
            pthread_sigmask(SIG_UNBLOCK, &set, NULL);
            leave_fiber(w);
        }
    }
    const struct sigaction *old = sig == SIGBUS ? &g_old_bus : &g_old_segv;
    if (old->sa_flags & SA_SIGINFO) {
        if (old->sa_sigaction) {
            old->sa_sigaction(sig, si, uc_);
            return;
        }
    } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
        return;
    }
    /* default action: put it back and let the faulting instruction run again */
    sigaction(sig, old, NULL);
}

static void faults_install(void) {
    if (g_fault_installs++)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = fault_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_old_segv);
    sigaction(SIGBUS, &sa, &g_old_bus);
}

static void faults_remove(void) {
    if (--g_fault_installs)
        return;
    sigaction(SIGSEGV, &g_old_segv, NULL);
    sigaction(SIGBUS, &g_old_bus, NULL);
}

/* per worker run: an alternate signal stack unless the thread has one; returns whether it set ours */
static bool altstack_enter(worker *w) {
    stack_t cur;
    if (sigaltstack(NULL, &cur) != 0 || !(cur.ss_flags & SS_DISABLE))
        return false;
    if (!w->altstack && !(w->altstack = malloc(ALTSTACK_SIZE)))
        return false;
    stack_t ss = {.ss_sp = w->altstack, .ss_size = ALTSTACK_SIZE, .ss_flags = 0};
    return sigaltstack(&ss, NULL) == 0;
}

static void altstack_leave(bool ours) {
    if (!ours)
        return;
    stack_t ss = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
    sigaltstack(&ss, NULL);
}

/* ---------------------------------------------- run queue ---------------------------------------------- */

static inline void runq_push(worker *w, int32_t v) {
    uint32_t i = w->rq_head + w->rq_count;
    if (i >= RUNQ_CAP)
        i -= RUNQ_CAP;
    w->runq[i] = v;
    w->rq_count++;
}

static inline int32_t runq_pop(worker *w) {
    int32_t v = w->runq[w->rq_head];
    if (++w->rq_head == RUNQ_CAP)
        w->rq_head = 0;
    w->rq_count--;
    return v;
}

static inline void wake(worker *w, fiber *f) {
    f->state = F_READY;
    f->wait = W_NONE;
    runq_push(w, (int32_t)f->index);
}

/* ------------------------------------------- failing a thread ------------------------------------------- */

static char *where(worker *w, fiber *f) {
    return fmt("kernel '%s': block [%u,%u,%u], thread [%u,%u,%u]", w->L->kd->name, w->tmpl.ctaid[0],
               w->tmpl.ctaid[1], w->tmpl.ctaid[2], f->ctx.tid[0], f->ctx.tid[1], f->ctx.tid[2]);
}

static _Noreturn void fail_thread(worker *w, fiber *f, cpu_status st, const char *f_, ...)
    __attribute__((format(printf, 4, 5)));
static _Noreturn void fail_thread(worker *w, fiber *f, cpu_status st, const char *f_, ...) {
    va_list ap;
    va_start(ap, f_);
    char *what = vfmt(f_, ap);
    va_end(ap);
    char *loc = where(w, f);
    launch_fail(w->L, st, fmt("%s: %s", loc ? loc : "?", what ? what : "?"));
    free(loc);
    free(what);
    w->aborted = true;
    leave_fiber(w);
}

/* ---------------------------------------------- activemask ---------------------------------------------- */

static inline fiber *lane_fiber(worker *w, warpstate *ws, uint32_t lane) {
    return &w->fib[(uint32_t)(ws - w->warps) * 32 + lane];
}

/* Completes the activemask waiters of a warp once every live lane is suspended. Returns true when `self`
 * (may be NULL) was among the completed lanes (it is not woken; its result is in res). */
static bool am_check(worker *w, warpstate *ws, fiber *self) {
    uint32_t live = ws->exists & ~ws->exited;
    for (uint32_t m = live; m; m &= m - 1) {
        fiber *g = lane_fiber(w, ws, (uint32_t)__builtin_ctz(m));
        if (g->index >= w->next_unstarted || (g->state != F_BLOCKED && g->state != F_YIELDED))
            return false;
    }
    uint32_t rem = ws->am_waiting;
    while (rem) {
        uintptr_t site = lane_fiber(w, ws, (uint32_t)__builtin_ctz(rem))->site;
        uint32_t group = 0;
        for (uint32_t m = rem; m; m &= m - 1) {
            uint32_t l = (uint32_t)__builtin_ctz(m);
            if (lane_fiber(w, ws, l)->site == site)
                group |= 1u << l;
        }
        for (uint32_t m = group; m; m &= m - 1)
            lane_fiber(w, ws, (uint32_t)__builtin_ctz(m))->res = group;
        rem &= ~group;
    }
    bool self_done = false;
    for (uint32_t m = ws->am_waiting; m; m &= m - 1) {
        fiber *g = lane_fiber(w, ws, (uint32_t)__builtin_ctz(m));
        if (g == self) {
            self_done = true;
            g->state = F_RUNNING;
            g->wait = W_NONE;
        } else {
            wake(w, g);
        }
    }
    ws->am_waiting = 0;
    return self_done;
}

static inline void settle(worker *w, fiber *f) {
    warpstate *ws = &w->warps[f->index >> 5];
    if (ws->am_waiting)
        am_check(w, ws, NULL);
}

/* ------------------------------------------------ barriers ------------------------------------------------ */

static inline bool bar_complete(worker *w, barrier *B) {
    if (B->expected)
        return B->arrived >= B->expected;
    return B->arrived + (w->ndone - B->exited_pending) >= w->nthreads;
}

static void bar_finish(worker *w, barrier *B, uint32_t id) {
    for (int32_t i = B->head; i >= 0;) {
        fiber *g = &w->fib[i];
        i = g->next_waiter;
        g->res = g->op == P2N_RED_POPC ? B->popc : g->op == P2N_RED_AND ? B->and_ : B->or_;
        wake(w, g);
    }
    B->head = B->tail = -1;
    B->arrived = 0;
    B->exited_pending = 0;
    B->gen = ++w->gen_counter;
    w->bars_busy &= ~(1u << id);
}

static uint32_t bar_arrive(p2n_thread_ctx *ctx, uint32_t id, uint32_t count, uint32_t arrive, int op, uint32_t pred) {
    fiber *f = F(ctx);
    worker *w = f->w;
    if (id >= NBARRIERS)
        fail_thread(w, f, CPU_ERR_LAUNCH_FAILED, "barrier id %u out of range (0..15)", id);
    if (count % 32)
        fail_thread(w, f, CPU_ERR_LAUNCH_FAILED, "barrier %u: thread count %u is not a multiple of 32", id, count);
    if (count > ((w->nthreads + 31) & ~31u))
        fail_thread(w, f, CPU_ERR_LAUNCH_FAILED, "barrier %u: thread count %u exceeds the block's %u threads", id, count,
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
    if (bar_complete(w, B)) {
        uint32_t r = op == P2N_RED_POPC ? B->popc : op == P2N_RED_AND ? B->and_ : B->or_;
        bar_finish(w, B, id);
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
    settle(w, f);
    suspend(w, f);
    return f->res;
}

static void rt_barrier(p2n_thread_ctx *ctx, uint32_t id, uint32_t count, uint32_t arrive) {
    bar_arrive(ctx, id, count, arrive, P2N_RED_OR, 0);
}

static uint32_t rt_barrier_red(p2n_thread_ctx *ctx, uint32_t id, uint32_t count, uint32_t op, uint32_t pred) {
    if (op > P2N_RED_OR)
        fail_thread(F(ctx)->w, F(ctx), CPU_ERR_LAUNCH_FAILED, "bar.red: unknown operation %u", op);
    return bar_arrive(ctx, id, count, 0, (int)op, pred);
}

/* -------------------------------------------- warp collectives -------------------------------------------- */

static void coll_compute(worker *w, warpstate *ws, uint32_t act) {
    fiber *lanes[32];
    for (uint32_t m = act; m; m &= m - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(m);
        lanes[l] = lane_fiber(w, ws, l);
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
static void coll_complete(worker *w, warpstate *ws, uint32_t need, fiber *self) {
    coll_compute(w, ws, need);
    ws->pending &= ~need;
    for (uint32_t m = need; m; m &= m - 1) {
        fiber *g = lane_fiber(w, ws, (uint32_t)__builtin_ctz(m));
        g->coll = C_NONE;
        if (g != self)
            wake(w, g);
    }
}

/* After lanes exited: complete every group whose remaining lanes have all arrived. */
static void coll_recheck(worker *w, warpstate *ws) {
    bool again = true;
    while (again && ws->pending) {
        again = false;
        for (uint32_t m = ws->pending; m; m &= m - 1) {
            fiber *g = lane_fiber(w, ws, (uint32_t)__builtin_ctz(m));
            uint32_t need = g->mask & ~ws->exited;
            if ((ws->pending & need) != need)
                continue;
            bool same = true;
            for (uint32_t k = need; k; k &= k - 1) {
                fiber *h = lane_fiber(w, ws, (uint32_t)__builtin_ctz(k));
                same = same && h->coll == g->coll && h->mask == g->mask;
            }
            if (same) {
                coll_complete(w, ws, need, NULL);
                again = true;
                break;
            }
        }
    }
}

static void coll_arrive(fiber *f, uint32_t kind, uint32_t op, uint32_t mask, uint64_t value, uint32_t b, uint32_t c) {
    worker *w = f->w;
    warpstate *ws = &w->warps[f->index >> 5];
    uint32_t bit = 1u << f->lane;
    if (!(mask & bit))
        fail_thread(w, f, CPU_ERR_LAUNCH_FAILED, "%s: membermask 0x%08x does not contain the executing lane %u",
                    coll_names[kind], mask, f->lane);
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
            fiber *g = lane_fiber(w, ws, (uint32_t)__builtin_ctz(m));
            same = g->coll == kind && g->mask == mask;
        }
        if (same) {
            coll_complete(w, ws, need, f);
            return;
        }
    }
    f->state = F_BLOCKED;
    f->wait = W_COLL;
    if (ws->am_waiting)
        am_check(w, ws, NULL);
    suspend(w, f);
}

static uint32_t rt_shfl(p2n_thread_ctx *ctx, uint32_t mode, uint32_t value, uint32_t b, uint32_t c, uint32_t membermask,
                        uint32_t *in_range) {
    fiber *f = F(ctx);
    if (mode > P2N_SHFL_BFLY)
        fail_thread(f->w, f, CPU_ERR_LAUNCH_FAILED, "shfl.sync: unknown mode %u", mode);
    coll_arrive(f, C_SHFL, mode, membermask, value, b, c);
    if (in_range)
        *in_range = f->res2;
    return f->res;
}

static uint32_t rt_vote(p2n_thread_ctx *ctx, uint32_t mode, uint32_t pred, uint32_t membermask) {
    fiber *f = F(ctx);
    if (mode > P2N_VOTE_BALLOT)
        fail_thread(f->w, f, CPU_ERR_LAUNCH_FAILED, "vote.sync: unknown mode %u", mode);
    coll_arrive(f, C_VOTE, mode, membermask, pred != 0, 0, 0);
    return f->res;
}

static uint32_t rt_match_any(p2n_thread_ctx *ctx, uint64_t value, uint32_t membermask) {
    fiber *f = F(ctx);
    coll_arrive(f, C_MATCH_ANY, 0, membermask, value, 0, 0);
    return f->res;
}

static uint32_t rt_match_all(p2n_thread_ctx *ctx, uint64_t value, uint32_t membermask, uint32_t *pred) {
    fiber *f = F(ctx);
    coll_arrive(f, C_MATCH_ALL, 0, membermask, value, 0, 0);
    if (pred)
        *pred = f->res2;
    return f->res;
}

static uint32_t rt_redux(p2n_thread_ctx *ctx, uint32_t op, uint32_t value, uint32_t membermask) {
    fiber *f = F(ctx);
    if (op > P2N_REDUX_XOR)
        fail_thread(f->w, f, CPU_ERR_LAUNCH_FAILED, "redux.sync: unknown operation %u", op);
    coll_arrive(f, C_REDUX, op, membermask, value, 0, 0);
    return f->res;
}

static void rt_warp_sync(p2n_thread_ctx *ctx, uint32_t membermask) {
    coll_arrive(F(ctx), C_WARPSYNC, 0, membermask, 0, 0, 0);
}

static uint32_t rt_elect(p2n_thread_ctx *ctx, uint32_t membermask, uint32_t *is_leader) {
    fiber *f = F(ctx);
    coll_arrive(f, C_ELECT, 0, membermask, 0, 0, 0);
    if (is_leader)
        *is_leader = f->res2;
    return f->res;
}

static uint32_t rt_is_local(p2n_thread_ctx *ctx, uint64_t addr) {
    p2n_stack *s = F(ctx)->stack;
    return s && addr >= (uint64_t)(uintptr_t)s->lo && addr < (uint64_t)(uintptr_t)s->hi;
}

static void rt_warp_matrix(p2n_thread_ctx *ctx, uint32_t op, uint32_t *io) {
    fiber *f = F(ctx);
    uint32_t kind = op & 0xffu;
    if (kind == P2N_MX_WMMA_LOAD || kind == P2N_MX_WMMA_STORE || kind == P2N_MX_FRAG_LOAD || kind == P2N_MX_FRAG_STORE) {
        p2n_matrix_lane(op, io, f->lane);
        return;
    }
    if (kind < P2N_MX_LDMATRIX || kind > P2N_MX_MMA_SP)
        fail_thread(f->w, f, CPU_ERR_LAUNCH_FAILED, "warp matrix operation: unknown operation 0x%x", op);
    coll_arrive(f, C_MATRIX, 0, 0xffffffffu, (uint64_t)(uintptr_t)io, op, 0);
}

__attribute__((noinline)) static uint32_t rt_activemask(p2n_thread_ctx *ctx) {
    fiber *f = F(ctx);
    worker *w = f->w;
    warpstate *ws = &w->warps[f->index >> 5];
    f->site = (uintptr_t)__builtin_return_address(0);
    f->state = F_BLOCKED;
    f->wait = W_ACTIVEMASK;
    ws->am_waiting |= 1u << f->lane;
    if (am_check(w, ws, f))
        return f->res;
    suspend(w, f);
    return f->res;
}

/* ------------------------------------------- thread end, yield ------------------------------------------- */

static void thread_finished_slow(worker *w, fiber *f, warpstate *ws) {
    if (ws->pending)
        coll_recheck(w, ws);
    if (ws->am_waiting)
        am_check(w, ws, NULL);
    if (w->bars_busy) {
        for (uint32_t id = 0; id < NBARRIERS; id++)
            if ((w->bars_busy >> id) & 1 && w->arr_gen[f->index][id] == w->bars[id].gen)
                w->bars[id].exited_pending++;
        for (uint32_t id = 0; id < NBARRIERS; id++) {
            barrier *B = &w->bars[id];
            if ((w->bars_busy >> id) & 1 && B->expected == 0 && bar_complete(w, B))
                bar_finish(w, B, id);
        }
    }
}

static inline void thread_finished(worker *w, fiber *f) {
    f->state = F_DONE;
    f->stack = NULL;
    w->ndone++;
    warpstate *ws = &w->warps[f->index >> 5];
    ws->exited |= 1u << f->lane;
    if (__builtin_expect((ws->pending | ws->am_waiting | w->bars_busy) != 0, 0))
        thread_finished_slow(w, f, ws);
}

static _Noreturn void rt_exit_thread(p2n_thread_ctx *ctx) {
    fiber *f = F(ctx);
    worker *w = f->w;
    if (w->L->tl_entry) /* the compiler never emits this call in a thread-loop kernel (host_abi.h) */
        fail_thread(w, f, CPU_ERR_LAUNCH_FAILED, "internal error: exit through the runtime in a thread-loop kernel");
    p2n_stack *s = f->stack;
    thread_finished(w, f);
    w->release_stack = s;
    leave_fiber(w);
}

static void rt_yield(p2n_thread_ctx *ctx) {
    fiber *f = F(ctx);
    worker *w = f->w;
    ctx->yield_budget = w->L->budget;
    if (atomic_load_explicit(&w->L->abort, memory_order_relaxed)) {
        w->aborted = true;
        leave_fiber(w);
    }
    if (w->L->tl_entry) /* one runner for the whole block: nothing else to switch to */
        return;
    warpstate *ws = &w->warps[f->index >> 5];
    f->state = F_YIELDED;
    if (ws->am_waiting)
        am_check(w, ws, NULL);
    if (w->rq_count == 0 && w->next_unstarted >= w->nthreads) {
        f->state = F_RUNNING; /* nothing else to run */
        return;
    }
    runq_push(w, (int32_t)f->index);
    suspend(w, f);
}

static _Noreturn void rt_trap(p2n_thread_ctx *ctx) {
    fail_thread(F(ctx)->w, F(ctx), CPU_ERR_LAUNCH_FAILED, "trap (unspecified launch failure)");
}

static _Noreturn void rt_assertfail(p2n_thread_ctx *ctx, const char *message, const char *file, uint32_t line,
                                    const char *function, uint64_t char_size) {
    fiber *f = F(ctx);
    worker *w = f->w;
    if (char_size == P2N_ASSERT_NOT_SUPPORTED) { /* a --defer-unsupported stub: "kernel 'K': ... at f:l:c" */
        fprintf(stderr, "ptx2native: %s\n", message ? message : "?");
        fflush(stderr);
        launch_fail(w->L, CPU_ERR_NOT_SUPPORTED, fmt("%s", message ? message : "kernel not supported"));
        w->aborted = true;
        leave_fiber(w);
    }
    if (char_size == P2N_ASSERT_ILLEGAL_ADDRESS) /* a fault the code found itself: `message` is the address */
        fail_thread(w, f, CPU_ERR_ILLEGAL_ADDRESS, "access to address %p (an illegal memory access was encountered)",
                    (const void *)message);
    if (char_size == P2N_ASSERT_MISALIGNED_ADDRESS)
        fail_thread(w, f, CPU_ERR_MISALIGNED_ADDRESS, "access to address %p (misaligned address)",
                    (const void *)message);
    if (char_size == P2N_ASSERT_ILLEGAL_INSTRUCTION) /* `message` names the instruction */
        fail_thread(w, f, CPU_ERR_ILLEGAL_INSTRUCTION, "%s (an illegal instruction was encountered)",
                    message ? message : "?");
    const uint32_t *b = w->tmpl.ctaid, *t = f->ctx.tid;
    char *text = fmt("%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.", file ? file : "?", line,
                     function ? function : "?", b[0], b[1], b[2], t[0], t[1], t[2], message ? message : "?");
    if (text) {
        fprintf(stderr, "%s\n", text);
        fflush(stderr);
    }
    char *full = fmt("kernel '%s': %s", w->L->kd->name, text ? text : "assertion failed");
    free(text);
    launch_fail(w->L, CPU_ERR_ASSERT, full);
    w->aborted = true;
    leave_fiber(w);
}

/* ---------------------------------------------- misc runtime ---------------------------------------------- */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static uint64_t rt_clock64(p2n_thread_ctx *ctx) { (void)ctx; return now_ns(); }
static uint64_t rt_globaltimer(p2n_thread_ctx *ctx) { (void)ctx; return now_ns(); }
/* %nsmid is 1 in emitted code (one SM): %smid must stay below it whatever worker runs the block */
static uint32_t rt_smid(p2n_thread_ctx *ctx) { (void)ctx; return 0; }

static int32_t rt_vprintf(p2n_thread_ctx *ctx, const char *format, const void *args) {
    return p2n_format_printf(&F(ctx)->w->out, format, args);
}

static void *rt_malloc(p2n_thread_ctx *ctx, uint64_t size) {
    (void)ctx;
    return size ? malloc((size_t)size) : NULL;
}
static void rt_free(p2n_thread_ctx *ctx, void *p) {
    (void)ctx;
    free(p);
}

static float m_sinf(float x) { return sinf(x); }
static float m_cosf(float x) { return cosf(x); }
static float m_exp2f(float x) { return exp2f(x); }
static float m_log2f(float x) { return log2f(x); }
static float m_tanhf(float x) { return tanhf(x); }

const p2n_rt_table p2n_cpu_rt_table = {
    .abi_version = P2N_HOST_ABI_VERSION,
    .barrier = rt_barrier,
    .barrier_red = rt_barrier_red,
    .shfl = rt_shfl,
    .vote = rt_vote,
    .match_any = rt_match_any,
    .match_all = rt_match_all,
    .redux = rt_redux,
    .activemask = rt_activemask,
    .warp_sync = rt_warp_sync,
    .elect = rt_elect,
    .yield = rt_yield,
    .clock64 = rt_clock64,
    .globaltimer = rt_globaltimer,
    .smid = rt_smid,
    .vprintf = rt_vprintf,
    .trap = rt_trap,
    .assertfail = rt_assertfail,
    .exit_thread = rt_exit_thread,
    .sinf = m_sinf,
    .cosf = m_cosf,
    .exp2f = m_exp2f,
    .log2f = m_log2f,
    .tanhf = m_tanhf,
    /* libm's own (its ifunc picks the FMA3 version): x86-64-v2 code calls these for every fma.rn, so no
     * wrapper hop (bench/cpu/RESULTS.md) */
    .fma = fma,
    .fmaf = fmaf,
    .malloc = rt_malloc,
    .free = rt_free,
    .warp_matrix = rt_warp_matrix,
    .is_local = rt_is_local,
};

/* ------------------------------------------------ a block ------------------------------------------------ */

/* The runner: starts unstarted threads of the block until none is left. */
static void runner_main(void *arg) {
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
        thread_finished(w, f);
        if (atomic_load_explicit(&L->abort, memory_order_relaxed)) {
            w->aborted = true;
            break;
        }
    }
    w->release_stack = w->cur_stack;
    w->cur = NULL;
    leave_fiber(w);
}

/* The thread-loop runner: one call of the kernel's block entry runs all threads of the block (ctx = thread 0's,
 * which the emitted code updates before runtime calls). Same stack pool, guard page and fault attribution as
 * runner_main; trap/assert abandon it the same way. */
static void block_runner_main(void *arg) {
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
    leave_fiber(w);
}

static void run_block_loop(worker *w) {
    launch *L = w->L;
    fiber *f = &w->fib[0];
    memcpy(f->ctx.ctaid, w->tmpl.ctaid, sizeof w->tmpl.ctaid);
    w->next_unstarted = 1; /* fib[0] is the runner's: an abort gives its stack back below */
    p2n_stack *s = stack_get(w);
    if (!s) {
        launch_fail(L, CPU_ERR_OUT_OF_RESOURCES, fmt("kernel '%s': out of memory for thread stacks", L->kd->name));
        w->aborted = true;
        return;
    }
    w->cur_stack = s;
    switch_to_fiber(w, init_frame(s, block_runner_main, w), s);
    if (w->release_stack) {
        stack_put(w, w->release_stack);
        w->release_stack = NULL;
    }
}

static void report_deadlock(worker *w) {
    p2n_buf b = {0};
    char *head = fmt("kernel '%s': deadlock in block [%u,%u,%u]: all %u live threads are blocked (CUDA would hang):",
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
                line = fmt(" thread [%u,%u,%u] waits at barrier %u (count %u, %u arrived);", f->ctx.tid[0], f->ctx.tid[1],
                           f->ctx.tid[2], f->bar_id, B->expected, B->arrived);
            else
                line = fmt(" thread [%u,%u,%u] waits at barrier %u (all threads, %u of %u live threads arrived);",
                           f->ctx.tid[0], f->ctx.tid[1], f->ctx.tid[2], f->bar_id, B->arrived - B->exited_pending,
                           w->nthreads - w->ndone);
        } else if (f->wait == W_COLL) {
            warpstate *ws = &w->warps[f->index >> 5];
            uint32_t missing = 0, elsewhere = 0;
            for (uint32_t m = f->mask & ~ws->exited; m; m &= m - 1) {
                uint32_t l = (uint32_t)__builtin_ctz(m);
                fiber *g = lane_fiber(w, ws, l);
                if (!((ws->pending >> l) & 1))
                    missing |= 1u << l;
                else if (g->coll != f->coll || g->mask != f->mask)
                    elsewhere |= 1u << l;
            }
            line = fmt(" thread [%u,%u,%u] (warp %u lane %u) waits at %s with membermask 0x%08x; lanes 0x%08x have not "
                       "arrived, lanes 0x%08x wait at a different warp collective;",
                       f->ctx.tid[0], f->ctx.tid[1], f->ctx.tid[2], f->index >> 5, f->lane, coll_names[f->coll], f->mask,
                       missing, elsewhere);
        } else {
            line = fmt(" thread [%u,%u,%u] waits at activemask;", f->ctx.tid[0], f->ctx.tid[1], f->ctx.tid[2]);
        }
        if (line)
            p2n_buf_append(&b, line, strlen(line));
        free(line);
        shown++;
    }
    if (more) {
        char *line = fmt(" and %u more blocked threads", more);
        if (line)
            p2n_buf_append(&b, line, strlen(line));
        free(line);
    }
    launch_fail(w->L, CPU_ERR_LAUNCH_FAILED, b.data);
}

static void run_block(worker *w, uint64_t bid) {
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
        run_block_loop(w);
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

    for (;;) {
        if (w->release_stack) {
            stack_put(w, w->release_stack);
            w->release_stack = NULL;
        }
        if (w->aborted)
            break;
        if (w->next_unstarted < n && !w->start_queued) {
            runq_push(w, START_TOKEN);
            w->start_queued = true;
        }
        if (w->rq_count == 0) {
            if (w->ndone < n)
                report_deadlock(w), w->aborted = true;
            break;
        }
        if (atomic_load_explicit(&L->abort, memory_order_relaxed)) {
            w->aborted = true;
            break;
        }
        int32_t it = runq_pop(w);
        if (it == START_TOKEN) {
            w->start_queued = false;
            if (w->next_unstarted >= n)
                continue;
            p2n_stack *s = stack_get(w);
            if (!s) {
                launch_fail(L, CPU_ERR_OUT_OF_RESOURCES, fmt("kernel '%s': out of memory for thread stacks", L->kd->name));
                w->aborted = true;
                break;
            }
            w->cur_stack = s;
            switch_to_fiber(w, init_frame(s, runner_main, w), s);
        } else {
            fiber *f = &w->fib[it];
            f->state = F_RUNNING;
            w->cur = f;
            w->cur_stack = f->stack;
            switch_to_fiber(w, f->sp, f->stack);
        }
    }
finish:
    if (w->fault_sig) {
        fiber *f = w->fault_fiber;
        /* the thread-loop entry keeps the thread's coordinates in registers: only the block is known */
        char *loc = L->tl_entry ? fmt("kernel '%s': block [%u,%u,%u] (thread-loop fast path: P2N_CPU_THREADLOOP=0 "
                                   "names the thread)", L->kd->name, w->tmpl.ctaid[0], w->tmpl.ctaid[1],
                                   w->tmpl.ctaid[2])
                  : f ? where(w, f) : NULL;
        launch_fail(L, CPU_ERR_ILLEGAL_ADDRESS,
                    fmt("%s: %s at address %p (an illegal memory access was encountered)", loc ? loc : "?",
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
                stack_put(w, f->stack);
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

/* ------------------------------------------------ workers ------------------------------------------------ */

static worker *worker_new(unsigned index) {
    worker *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->index = index;
    w->fib = aligned_alloc(64, MAX_THREADS * sizeof(fiber));
    w->tids = malloc(MAX_THREADS * sizeof *w->tids);
    w->arr_gen = calloc(MAX_THREADS, sizeof *w->arr_gen);
    if (!w->fib || !w->tids || !w->arr_gen) {
        free(w->fib);
        free(w->tids);
        free(w->arr_gen);
        free(w);
        return NULL;
    }
    memset(w->fib, 0, MAX_THREADS * sizeof(fiber));
    for (uint32_t t = 0; t < MAX_THREADS; t++) {
        w->fib[t].w = w;
        w->fib[t].index = t;
        w->fib[t].lane = t & 31;
    }
    return w;
}

static void worker_delete(worker *w) {
    if (!w)
        return;
    for (uint32_t i = 0; i < w->nfree; i++)
        stack_free(w->free_stacks[i]);
    free(w->free_stacks);
    free(w->fib);
    free(w->tids);
    free(w->arr_gen);
    free(w->smem);
    free(w->out.data);
    free(w->chunks);
    free(w->altstack);
    free(w);
}

/* per-launch preparation of a worker; false when out of memory (launch already failed) */
static bool worker_prepare(worker *w, launch *L) {
    w->L = L;
    w->out.len = 0;
    w->nchunks = 0;
    if (w->stack_size < L->stack_size) {
        for (uint32_t i = 0; i < w->nfree; i++)
            stack_free(w->free_stacks[i]);
        w->nfree = 0;
        w->stack_size = L->stack_size;
    }
    size_t need = L->smem_size ? L->smem_size : 16;
    if (w->smem_cap < need) {
        free(w->smem);
        size_t cap = (need + 4095) & ~(size_t)4095;
        w->smem = aligned_alloc(4096, cap);
        w->smem_cap = w->smem ? cap : 0;
        if (!w->smem) {
            launch_fail(L, CPU_ERR_OUT_OF_RESOURCES, fmt("kernel '%s': out of memory for shared memory", L->kd->name));
            return false;
        }
    }
    uint32_t t = 0;
    for (uint32_t z = 0; z < L->block[2]; z++)
        for (uint32_t y = 0; y < L->block[1]; y++)
            for (uint32_t x = 0; x < L->block[0]; x++, t++) {
                w->tids[t][0] = (uint16_t)x;
                w->tids[t][1] = (uint16_t)y;
                w->tids[t][2] = (uint16_t)z;
            }
    memset(&w->tmpl, 0, sizeof w->tmpl);
    for (int i = 0; i < 3; i++) {
        w->tmpl.ntid[i] = L->block[i];
        w->tmpl.nctaid[i] = L->grid[i];
    }
    w->tmpl.nwarpid = L->nwarps;
    w->tmpl.dynamic_smem_size = L->dyn;
    w->tmpl.smem = w->smem;
    w->tmpl.smem_size = L->smem_size;
    w->tmpl.yield_budget = L->budget;
    w->tmpl.rt = &p2n_cpu_rt_table;
    w->tmpl.launch_flags = L->launch_flags;
    for (uint32_t i = 0; i < L->nthreads; i++) {
        fiber *f = &w->fib[i];
        f->ctx = w->tmpl;
        f->ctx.tid[0] = w->tids[i][0];
        f->ctx.tid[1] = w->tids[i][1];
        f->ctx.tid[2] = w->tids[i][2];
        f->ctx.laneid = i & 31;
        f->ctx.warpid = i >> 5;
        f->ctx.priv = f;
    }
    return true;
}

static void worker_run_blocks(worker *w, launch *L);
static void worker_run(worker *w, launch *L) {
    bool alt = altstack_enter(w);
    tls_worker = w;
    worker_run_blocks(w, L);
    tls_worker = NULL;
    w->cur = NULL;
    altstack_leave(alt);
}

static void worker_run_blocks(worker *w, launch *L) {
    if (!worker_prepare(w, L))
        return;
    /* blocks are taken in chunks of consecutive indices: each worker streams through contiguous data */
    for (;;) {
        if (atomic_load_explicit(&L->abort, memory_order_relaxed))
            break;
        uint64_t first = atomic_fetch_add_explicit(&L->next_block, L->chunk, memory_order_relaxed);
        if (first >= L->nblocks)
            break;
        uint64_t end = first + L->chunk < L->nblocks ? first + L->chunk : L->nblocks;
        for (uint64_t bid = first; bid < end; bid++) {
            if (bid > first && atomic_load_explicit(&L->abort, memory_order_relaxed))
                break;
            run_block(w, bid);
        }
    }
}

static struct {
    pthread_mutex_t launch_lock; /* one launch at a time */
    pthread_mutex_t m;
    pthread_cond_t cv_start, cv_done;
    unsigned n;          /* workers, including the launching thread */
    worker **w;
    uint64_t job;
    unsigned running;
    launch *L;
    bool shutdown;
    unsigned requested;  /* p2n_cpu_set_threads */
    unsigned in_use;
} g_pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
            0, NULL, 0, 0, NULL, false, 0, 0};

static void *pool_thread(void *arg) {
    worker *w = arg;
    pthread_mutex_lock(&g_pool.m);
    uint64_t seen = w->seen_job; /* the job counter when the thread was created */
    for (;;) {
        while (g_pool.job == seen && !g_pool.shutdown)
            pthread_cond_wait(&g_pool.cv_start, &g_pool.m);
        if (g_pool.shutdown)
            break;
        seen = g_pool.job;
        launch *L = g_pool.L;
        pthread_mutex_unlock(&g_pool.m);
        worker_run(w, L);
        pthread_mutex_lock(&g_pool.m);
        if (--g_pool.running == 0)
            pthread_cond_signal(&g_pool.cv_done);
    }
    pthread_mutex_unlock(&g_pool.m);
    return NULL;
}

static unsigned default_threads(void) {
    const char *e = getenv("P2N_CPU_THREADS");
    if (e && *e) {
        long v = strtol(e, NULL, 10);
        if (v >= 1 && v <= 1024)
            return (unsigned)v;
    }
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

static void pool_stop(void) {
    if (!g_pool.w)
        return;
    pthread_mutex_lock(&g_pool.m);
    g_pool.shutdown = true;
    pthread_cond_broadcast(&g_pool.cv_start);
    pthread_mutex_unlock(&g_pool.m);
    for (unsigned i = 1; i < g_pool.n; i++)
        pthread_join(g_pool.w[i]->thread, NULL);
    for (unsigned i = 0; i < g_pool.n; i++)
        worker_delete(g_pool.w[i]);
    free(g_pool.w);
    g_pool.w = NULL;
    g_pool.n = 0;
    g_pool.shutdown = false;
}

/* with launch_lock held */
static bool pool_ensure(void) {
    unsigned want = g_pool.requested ? g_pool.requested : default_threads();
    if (g_pool.w && g_pool.n == want)
        return true;
    pool_stop();
    g_pool.w = calloc(want, sizeof *g_pool.w);
    if (!g_pool.w)
        return false;
    g_pool.n = 0;
    for (unsigned i = 0; i < want; i++) {
        worker *w = worker_new(i);
        if (!w)
            break;
        g_pool.w[i] = w;
        g_pool.n = i + 1;
        if (i > 0) {
            w->seen_job = g_pool.job;
            pthread_attr_t attr;
            pthread_attr_init(&attr);
            pthread_attr_setstacksize(&attr, 1u << 20);
            int rc = pthread_create(&w->thread, &attr, pool_thread, w);
            pthread_attr_destroy(&attr);
            if (rc != 0) {
                worker_delete(w);
                g_pool.w[i] = NULL;
                g_pool.n = i;
                break;
            }
        }
    }
    return g_pool.n > 0;
}

void p2n_cpu_set_threads(unsigned n) {
    pthread_mutex_lock(&g_pool.launch_lock);
    g_pool.requested = n;
    pthread_mutex_unlock(&g_pool.launch_lock);
}

unsigned p2n_cpu_threads_in_use(void) { return g_pool.in_use; }

__attribute__((destructor)) static void pool_fini(void) {
    if (pthread_mutex_trylock(&g_pool.launch_lock) == 0) {
        pool_stop();
        pthread_mutex_unlock(&g_pool.launch_lock);
    }
}

static int chunk_cmp(const void *a, const void *b) {
    const chunk *x = *(const chunk *const *)a, *y = *(const chunk *const *)b;
    return x->block < y->block ? -1 : x->block > y->block;
}

static void flush_printf(const cpu_launch *cl) {
    size_t total = 0;
    for (unsigned i = 0; i < g_pool.n; i++)
        total += g_pool.w[i]->nchunks;
    if (!total)
        return;
    chunk **all = malloc(total * sizeof *all);
    if (!all)
        return;
    size_t k = 0;
    for (unsigned i = 0; i < g_pool.n; i++)
        for (size_t j = 0; j < g_pool.w[i]->nchunks; j++)
            all[k++] = &g_pool.w[i]->chunks[j];
    qsort(all, total, sizeof *all, chunk_cmp);
    for (size_t j = 0; j < total; j++) {
        /* find the worker owning the chunk */
        const char *text = NULL;
        for (unsigned i = 0; i < g_pool.n && !text; i++) {
            worker *w = g_pool.w[i];
            if (all[j] >= w->chunks && all[j] < w->chunks + w->nchunks)
                text = w->out.data + all[j]->off;
        }
        if (!text)
            continue;
        if (cl->printf_sink)
            cl->printf_sink(cl->printf_user, text, all[j]->len);
        else
            fwrite(text, 1, all[j]->len, stdout);
    }
    if (!cl->printf_sink)
        fflush(stdout);
    free(all);
}

static cpu_status config_error(char **error, cpu_status st, const cpu_kernel *k, const char *what) {
    if (error)
        *error = fmt("kernel '%s': %s", k->desc->name, what);
    return st;
}

cpu_status cpu_launch_kernel(cpu_kernel *k, const cpu_launch *cl, char **error) {
    if (error)
        *error = NULL;
    if (!k || !cl)
        return CPU_ERR_INVALID_VALUE;
    const p2n_kernel_desc *kd = k->desc;
    for (int i = 0; i < 3; i++)
        if (cl->block[i] == 0 || cl->grid[i] == 0)
            return config_error(error, CPU_ERR_INVALID_VALUE, k, "grid and block dimensions must be at least 1");
    if (cl->block[0] > 1024 || cl->block[1] > 1024 || cl->block[2] > 64)
        return config_error(error, CPU_ERR_INVALID_VALUE, k, "block dimensions exceed 1024 x 1024 x 64");
    if (cl->grid[0] > 0x7fffffffu || cl->grid[1] > 65535 || cl->grid[2] > 65535)
        return config_error(error, CPU_ERR_INVALID_VALUE, k, "grid dimensions exceed (2^31-1) x 65535 x 65535");
    uint64_t nthreads = (uint64_t)cl->block[0] * cl->block[1] * cl->block[2];
    if (nthreads > 1024)
        return config_error(error, CPU_ERR_INVALID_VALUE, k, "more than 1024 threads per block");
    if (kd->reqntid[0]) {
        for (int i = 0; i < 3; i++)
            if (cl->block[i] != (kd->reqntid[i] ? kd->reqntid[i] : 1))
                return config_error(error, CPU_ERR_INVALID_VALUE, k, "block dimensions differ from the kernel's .reqntid");
    }
    if (kd->maxntid[0]) {
        uint64_t maxn = (uint64_t)kd->maxntid[0] * (kd->maxntid[1] ? kd->maxntid[1] : 1) * (kd->maxntid[2] ? kd->maxntid[2] : 1);
        if (nthreads > maxn)
            return config_error(error, CPU_ERR_OUT_OF_RESOURCES, k, "more threads per block than the kernel's .maxntid");
    }
    uint32_t align = kd->dynamic_smem_align > 16 ? kd->dynamic_smem_align : 16;
    uint64_t dyn_off = ((uint64_t)kd->static_smem_bytes + align - 1) & ~(uint64_t)(align - 1);
    uint64_t smem = cl->dynamic_shared_bytes ? dyn_off + cl->dynamic_shared_bytes : kd->static_smem_bytes;
    if (smem > MAX_SMEM)
        return config_error(error, CPU_ERR_OUT_OF_RESOURCES, k, "shared memory exceeds 227 KiB per block");
    if (kd->num_params && !cl->params)
        return config_error(error, CPU_ERR_INVALID_VALUE, k, "no parameter buffer");

    launch L;
    memset(&L, 0, sizeof L);
    L.k = k;
    L.kd = kd;
    const char *tl_env = getenv("P2N_CPU_THREADLOOP");
    L.tl_entry = tl_env && tl_env[0] == '0' ? NULL : k->block_entry;
    L.params = cl->params;
    for (int i = 0; i < 3; i++) {
        L.grid[i] = cl->grid[i];
        L.block[i] = cl->block[i];
    }
    L.nblocks = (uint64_t)cl->grid[0] * cl->grid[1] * cl->grid[2];
    L.nthreads = (uint32_t)nthreads;
    L.nwarps = (L.nthreads + 31) / 32;
    L.dyn = cl->dynamic_shared_bytes;
    L.smem_size = (uint32_t)smem;
    L.launch_flags = cl->launch_flags;
    size_t stack = 128 * 1024;
    const char *e = getenv("P2N_CPU_STACK_KB");
    if (e && atoi(e) >= 16)
        stack = (size_t)atoi(e) * 1024;
    /* a stack the program asked for comes on top of our own need (the fibers' frames are larger than NVIDIA's,
     * and a recursion compiled for devices without a call stack keeps that much in one frame: module.c) */
    if (cl->stack_bytes)
        stack += cl->stack_bytes < ((size_t)1 << 30) ? (cl->stack_bytes + 4095) & ~(size_t)4095 : (size_t)1 << 30;
    L.stack_size = stack + (((size_t)kd->local_bytes + 4095) & ~(size_t)4095);
    L.budget = 1000;
    e = getenv("P2N_CPU_YIELD_BUDGET");
    if (e && atoi(e) >= 1)
        L.budget = atoi(e);
    atomic_init(&L.next_block, 0);
    atomic_init(&L.abort, 0);
    pthread_mutex_init(&L.err_lock, NULL);
    L.status = CPU_OK;

    pthread_mutex_lock(&g_pool.launch_lock);
    if (!pool_ensure()) {
        pthread_mutex_unlock(&g_pool.launch_lock);
        pthread_mutex_destroy(&L.err_lock);
        return config_error(error, CPU_ERR_NO_MEMORY, k, "cannot start the worker threads");
    }
    unsigned nw = g_pool.n;
    if ((uint64_t)nw > L.nblocks)
        nw = (unsigned)L.nblocks;
    g_pool.in_use = nw;
    L.chunk = L.nblocks / ((uint64_t)nw * 16);
    L.chunk = L.chunk < 1 ? 1 : L.chunk > 64 ? 64 : L.chunk;
    /* workers that take no part still must not print stale output */
    for (unsigned i = nw; i < g_pool.n; i++)
        g_pool.w[i]->nchunks = 0, g_pool.w[i]->out.len = 0;
    if (nw > 1) {
        pthread_mutex_lock(&g_pool.m);
        g_pool.L = &L;
        g_pool.running = g_pool.n - 1;
        g_pool.job++;
        pthread_cond_broadcast(&g_pool.cv_start);
        pthread_mutex_unlock(&g_pool.m);
    }
    faults_install();
    worker_run(g_pool.w[0], &L);
    if (nw > 1) {
        pthread_mutex_lock(&g_pool.m);
        while (g_pool.running)
            pthread_cond_wait(&g_pool.cv_done, &g_pool.m);
        pthread_mutex_unlock(&g_pool.m);
    }
    faults_remove();
    flush_printf(cl);
    for (unsigned i = 0; i < g_pool.n; i++)
        g_pool.w[i]->L = NULL;
    pthread_mutex_unlock(&g_pool.launch_lock);

    pthread_mutex_destroy(&L.err_lock);
    if (L.status != CPU_OK) {
        if (error)
            *error = L.error;
        else
            free(L.error);
    }
    return L.status;
}
