/* cpu_fiber.c — fibers: the context switch, stacks, a new fiber's first frame, launch errors and failing a thread
 * (the CPU backend's grid execution: see cpu_exec.h). */
#include "cpu_exec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------------------
 * Context switch (x86-64 System V): saves the callee-saved integer registers and the stack pointer.
 * MXCSR/x87 control words are not switched: all fibers of a worker share the default FP environment, and
 * emitted code that changes it must restore it before calling the runtime (ABI rule for callee-saved control
 * bits).
 * ------------------------------------------------------------------------------------------------------ */
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

/* ---------------------------------------------- errors ---------------------------------------------- */

void cpu_launch_fail(launch *L, cpu_status st, char *msg) {
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

static char *cpu_vfmt(const char *fmt, va_list ap) {
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        return NULL;
    return s;
}

char *cpu_fmt(const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    char *s = cpu_vfmt(f, ap);
    va_end(ap);
    return s;
}

/* ------------------------------------------------ stacks ---------------------------------------------- */

static p2n_stack *cpu_stack_new(size_t size) {
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

void cpu_stack_free(p2n_stack *s) {
    munmap(s->map, s->map_size);
    free(s);
}

p2n_stack *cpu_stack_get(worker *w) {
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
    return cpu_stack_new(w->stack_size);
}

void cpu_stack_put(worker *w, p2n_stack *s) {
#if P2N_ASAN
    __asan_unpoison_memory_region(s->lo, (size_t)(s->hi - s->lo)); /* frames of abandoned fibers */
#endif
    if (w->nfree == w->cap_free) {
        uint32_t cap = w->cap_free ? w->cap_free * 2 : 64;
        p2n_stack **n = realloc(w->free_stacks, cap * sizeof *n);
        if (!n) {
            cpu_stack_free(s);
            return;
        }
        w->free_stacks = n;
        w->cap_free = cap;
    }
    w->free_stacks[w->nfree++] = s;
}

/* ---------------------------------------------- switching ---------------------------------------------- */

void *cpu_init_frame(p2n_stack *s, void (*fn)(void *), void *arg) {
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

/* ------------------------------------------- failing a thread ------------------------------------------- */

char *cpu_where(worker *w, fiber *f) {
    return cpu_fmt("kernel '%s': block [%u,%u,%u], thread [%u,%u,%u]", w->L->kd->name, w->tmpl.ctaid[0],
               w->tmpl.ctaid[1], w->tmpl.ctaid[2], f->ctx.tid[0], f->ctx.tid[1], f->ctx.tid[2]);
}

_Noreturn void cpu_fail_thread(worker *w, fiber *f, cpu_status st, const char *f_, ...) {
    va_list ap;
    va_start(ap, f_);
    char *what = cpu_vfmt(f_, ap);
    va_end(ap);
    char *loc = cpu_where(w, f);
    cpu_launch_fail(w->L, st, cpu_fmt("%s: %s", loc ? loc : "?", what ? what : "?"));
    free(loc);
    free(what);
    w->aborted = true;
    cpu_leave_fiber(w);
}
