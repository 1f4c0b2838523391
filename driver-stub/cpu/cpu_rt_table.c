/* cpu_rt_table.c — the runtime function table every loaded code object gets (__p2n_rt): trap, assert, clocks,
 * printf, malloc, libm (the CPU backend's grid execution: see cpu_exec.h). */
#include "cpu_exec.h"
#include "support.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint32_t cpu_rt_is_local(p2n_thread_ctx *ctx, uint64_t addr) {
    p2n_stack *s = F(ctx)->stack;
    return s && addr >= (uint64_t)(uintptr_t)s->lo && addr < (uint64_t)(uintptr_t)s->hi;
}

static _Noreturn void cpu_rt_trap(p2n_thread_ctx *ctx) {
    cpu_fail_thread(F(ctx)->w, F(ctx), CPU_ERR_LAUNCH_FAILED, "trap (unspecified launch failure)");
}

static _Noreturn void cpu_rt_assertfail(p2n_thread_ctx *ctx, const char *message, const char *file, uint32_t line,
                                    const char *function, uint64_t char_size) {
    fiber *f = F(ctx);
    worker *w = f->w;
    if (char_size == P2N_ASSERT_NOT_SUPPORTED) { /* a --defer-unsupported stub: "kernel 'K': ... at f:l:c" */
        fprintf(stderr, "ptx2native: %s\n", message ? message : "?");
        fflush(stderr);
        cpu_launch_fail(w->L, CPU_ERR_NOT_SUPPORTED, cpu_fmt("%s", message ? message : "kernel not supported"));
        w->aborted = true;
        cpu_leave_fiber(w);
    }
    if (char_size == P2N_ASSERT_ILLEGAL_ADDRESS) /* a fault the code found itself: `message` is the address */
        cpu_fail_thread(w, f, CPU_ERR_ILLEGAL_ADDRESS, "access to address %p (an illegal memory access was encountered)",
                    (const void *)message);
    if (char_size == P2N_ASSERT_MISALIGNED_ADDRESS)
        cpu_fail_thread(w, f, CPU_ERR_MISALIGNED_ADDRESS, "access to address %p (misaligned address)",
                    (const void *)message);
    if (char_size == P2N_ASSERT_ILLEGAL_INSTRUCTION) /* `message` names the instruction */
        cpu_fail_thread(w, f, CPU_ERR_ILLEGAL_INSTRUCTION, "%s (an illegal instruction was encountered)",
                    message ? message : "?");
    const uint32_t *b = w->tmpl.ctaid, *t = f->ctx.tid;
    char *text = cpu_fmt("%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.", file ? file : "?", line,
                     function ? function : "?", b[0], b[1], b[2], t[0], t[1], t[2], message ? message : "?");
    if (text) {
        fprintf(stderr, "%s\n", text);
        fflush(stderr);
    }
    char *full = cpu_fmt("kernel '%s': %s", w->L->kd->name, text ? text : "assertion failed");
    free(text);
    cpu_launch_fail(w->L, CPU_ERR_ASSERT, full);
    w->aborted = true;
    cpu_leave_fiber(w);
}

/* ---------------------------------------------- misc runtime ---------------------------------------------- */

/* %clock / %clock64: the cycle counter of the one SM (%nsmid is 1) at the clock rate the device reports, where
 * every read costs its reader CLOCK_READ_CYCLES. A block's threads run one after another here, so a kernel whose
 * every thread waits N cycles in a loop on clock() (a delay) would take threads x N real cycles where a GPU takes
 * about N; with the cost each thread takes at most N / CLOCK_READ_CYCLES reads (NVIDIA's graphMemoryFootprint:
 * 16M threads of 5 us each per launch). The counter never runs slower than real time and never goes back, in a
 * thread or across threads: one atomic counter. */
enum { CLOCK_READ_CYCLES = 1024 };
static _Atomic uint64_t sm_clock;
static uint64_t rt_clock64(p2n_thread_ctx *ctx) {
    (void)ctx;
    uint64_t now = p2n_now_ns() * (P2N_CPU_CLOCK_KHZ / 1000000), old = atomic_load_explicit(&sm_clock, memory_order_relaxed), v;
    do v = now > old + CLOCK_READ_CYCLES ? now : old + CLOCK_READ_CYCLES;
    while (!atomic_compare_exchange_weak_explicit(&sm_clock, &old, v, memory_order_relaxed, memory_order_relaxed));
    return v;
}
static uint64_t rt_globaltimer(p2n_thread_ctx *ctx) { (void)ctx; return p2n_now_ns(); }
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

/* The frame of a coroutine thread (host_abi.h): one slot per thread of the block in the worker's buffer. All
 * threads of a kernel ask for the same size and thread 0 of a block asks first (threads start in index order),
 * so it sizes the buffer; no frame is live then. */
static void *rt_coro_frame(p2n_thread_ctx *ctx, uint64_t size) {
    fiber *f = F(ctx);
    worker *w = f->w;
    size_t slot = ((size_t)size + 63) & ~(size_t)63;
    if (f->index == 0) {
        size_t need = slot * w->nthreads;
        if (need > w->frames_cap) {
            free(w->frames);
            w->frames_cap = 0;
            w->frames = aligned_alloc(64, need);
            if (!w->frames)
                cpu_fail_thread(w, f, CPU_ERR_OUT_OF_RESOURCES, "out of memory for %u coroutine frames of %zu bytes",
                                w->nthreads, slot);
            w->frames_cap = need;
        }
        w->frame_slot = slot;
    } else if (slot != w->frame_slot) {
        cpu_fail_thread(w, f, CPU_ERR_LAUNCH_FAILED, "internal error: coroutine frame of %zu bytes, thread 0's has %zu",
                        slot, w->frame_slot);
    }
    return w->frames + (size_t)f->index * slot;
}

static uint32_t rt_coro_result(p2n_thread_ctx *ctx, uint32_t *res2) {
    fiber *f = F(ctx);
    if (res2)
        *res2 = f->res2;
    return f->res;
}

static float m_sinf(float x) { return sinf(x); }
static float m_cosf(float x) { return cosf(x); }
static float m_exp2f(float x) { return exp2f(x); }
static float m_log2f(float x) { return log2f(x); }
static float m_tanhf(float x) { return tanhf(x); }

const p2n_rt_table p2n_cpu_rt_table = {
    .abi_version = P2N_HOST_ABI_VERSION,
    .device_runtime = cpu_rt_device_runtime,
    .barrier = cpu_rt_barrier,
    .barrier_red = cpu_rt_barrier_red,
    .shfl = cpu_rt_shfl,
    .vote = cpu_rt_vote,
    .match_any = cpu_rt_match_any,
    .match_all = cpu_rt_match_all,
    .redux = cpu_rt_redux,
    .activemask = cpu_rt_activemask,
    .warp_sync = cpu_rt_warp_sync,
    .elect = cpu_rt_elect,
    .yield = cpu_rt_yield,
    .clock64 = rt_clock64,
    .globaltimer = rt_globaltimer,
    .smid = rt_smid,
    .vprintf = rt_vprintf,
    .trap = cpu_rt_trap,
    .assertfail = cpu_rt_assertfail,
    .exit_thread = cpu_rt_exit_thread,
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
    .warp_matrix = cpu_rt_warp_matrix,
    .is_local = cpu_rt_is_local,
    .coro_frame = rt_coro_frame,
    .coro_result = rt_coro_result,
};
