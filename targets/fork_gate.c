/* fork_gate.c — see fork_gate.h. A read-write lock that prefers writers: a thread waiting to fork must not starve
 * behind workers that finish one compile and start the next; with writer preference a new shared hold waits
 * until the pending fork is done. Holds are counted per thread, so a nested enter never asks the lock again
 * (a nested read lock would deadlock behind a waiting writer). */
#include "fork_gate.h"

#include <errno.h>
#include <pthread.h>
#include <unistd.h>

static pthread_rwlock_t gate;
static pthread_once_t gate_once = PTHREAD_ONCE_INIT;
static _Thread_local unsigned depth;

static void gate_init(void) {
    pthread_rwlockattr_t a;
    pthread_rwlockattr_init(&a);
    pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&gate, &a);
    pthread_rwlockattr_destroy(&a);
}

void p2n_fork_gate_enter(void) {
    pthread_once(&gate_once, gate_init);
    if (depth++ == 0) pthread_rwlock_rdlock(&gate);
}

void p2n_fork_gate_leave(void) {
    if (depth && --depth == 0) pthread_rwlock_unlock(&gate);
}

pid_t p2n_fork_gate_fork(unsigned *held) {
    pthread_once(&gate_once, gate_init);
    *held = depth;
    if (depth) pthread_rwlock_unlock(&gate);
    depth = 0;
    pthread_rwlock_wrlock(&gate);
    pid_t pid = fork();
    if (pid != 0) { /* the parent (or a failed fork); the child never uses the gate: it only generates code */
        int e = errno;
        pthread_rwlock_unlock(&gate);
        errno = e;
    }
    return pid;
}

void p2n_fork_gate_resume(unsigned held) {
    if (held && depth == 0) pthread_rwlock_rdlock(&gate);
    depth += held;
}
