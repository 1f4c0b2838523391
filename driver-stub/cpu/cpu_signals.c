/* cpu_signals.c — memory faults of kernel code: SIGSEGV/SIGBUS handler, alternate signal stacks (the CPU backend's
 * grid execution: see cpu_exec.h). */
#include "cpu_exec.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

/* ---------------------------------------- memory faults of kernel code ---------------------------------------- */

/* While a launch runs, SIGSEGV/SIGBUS are caught on every worker thread (on an alternate stack). A fault whose
 * interrupted stack pointer lies on the running fiber's stack comes from kernel code (or the runtime called by
 * it): the handler records it and abandons the fiber exactly like trap does (the scheduler reports the launch
 * failure outside the signal handler). Any other fault goes to the previous handler. Only async-signal-safe
 * operations happen in the handler. */
#define ALTSTACK_SIZE (64 * 1024)
static _Thread_local worker *tls_worker;
static struct sigaction g_old_segv, g_old_bus;
static unsigned g_fault_installs; /* under the pool's launch lock (cpu_pool.c) */

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
            cpu_leave_fiber(w);
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

void cpu_faults_install(void) {
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

void cpu_faults_remove(void) {
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

bool cpu_fault_scope_enter(worker *w) {
    bool alt = altstack_enter(w);
    tls_worker = w;
    return alt;
}

void cpu_fault_scope_leave(worker *w, bool alt) {
    tls_worker = NULL;
    w->cur = NULL;
    altstack_leave(alt);
}
