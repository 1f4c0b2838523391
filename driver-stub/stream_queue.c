/* stream_queue.c — asynchronous streams: the work of a stream the application created runs on a thread of its
 * own, in order, after the call that submitted it has returned.
 *
 * Why: CUDA lets the host go on while a stream works, and real programs count on it: NVIDIA's UnifiedMemoryPerf
 * launches a kernel that spins on a pinned-memory latch, submits more work behind it, and only then sets the
 * latch — run to completion at submission (as every stream once was here) it never returns.
 *
 * The model (what CUDA guarantees, kept simple):
 *  - A created stream (cuStreamCreate*) has a queue and, from its first queued operation, a worker thread with
 *    the stream's context current. Kernel launches, 1-D copies and memsets, host functions, callbacks, event
 *    records and event waits submitted to it are queued (launch.c, mem.c, stream.c); the submitting call checks
 *    its arguments, copies what it must (kernel arguments; pageable host source data, as CUDA stages it) and
 *    returns.
 *  - Every other operation on such a stream runs on the calling thread after the stream's queue is empty
 *    (p2n_drv_stream_order): graph launches, 2-D/3-D copies, stream-ordered allocation, ... keep their order
 *    without being queued.
 *  - The legacy default stream (NULL, CU_STREAM_LEGACY) runs on the calling thread after every blocking stream
 *    of its context is idle (CUDA: legacy-stream work waits for the blocking streams' earlier work, and their
 *    later work waits for it — it has finished when the call returns). Non-blocking streams are not waited for.
 *    The per-thread default stream runs on the calling thread.
 *  - cuCtxSynchronize, frees, module unloads and context teardown wait for every queue (p2n_drv_streams_drain).
 *  - An operation's failure: sticky errors poison the context (as before); others are kept on the stream and
 *    returned by its next cuStreamSynchronize / cuStreamQuery (and cuCtxSynchronize).
 *  - P2N_SYNC_STREAMS=1: every stream runs to completion at submission again (the old model, for debugging).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static _Thread_local int inline_depth; /* > 0: this thread runs every operation itself, unordered (graph nodes) */

void p2n_drv_streams_inline(int on) { inline_depth += on ? 1 : -1; }

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER; /* any queue changed (broadcast) */
static p2n_stream *queued;                               /* streams with a worker, linked by q_next */

static int sync_streams(void)
{
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("P2N_SYNC_STREAMS");
        v = e && *e && strcmp(e, "0") != 0;
    }
    return v;
}

int p2n_drv_stream_queues(CUstream s)
{
    return s && s != CU_STREAM_LEGACY && s != CU_STREAM_PER_THREAD && !sync_streams() && !inline_depth;
}

static void *worker(void *arg)
{
    p2n_stream *s = arg;
    cuCtxSetCurrent((CUcontext)s->ctx);
    pthread_mutex_lock(&q_lock);
    for (;;) {
        while (!s->q_head && !s->q_stop)
            pthread_cond_wait(&q_cond, &q_lock);
        if (!s->q_head)
            break;
        p2n_op *op = s->q_head;
        s->q_head = op->next;
        if (!s->q_head)
            s->q_tail = NULL;
        s->q_busy = 1;
        pthread_mutex_unlock(&q_lock);
        CUresult r = op->run(op, s->ctx);   /* frees op */
        pthread_mutex_lock(&q_lock);
        if (r != CUDA_SUCCESS && s->q_error == CUDA_SUCCESS)
            s->q_error = r;
        s->q_busy = 0;
        pthread_cond_broadcast(&q_cond);
    }
    pthread_mutex_unlock(&q_lock);
    return NULL;
}

CUresult p2n_drv_stream_enqueue(CUstream hs, p2n_op *op)
{
    p2n_stream *s = (p2n_stream *)hs;
    pthread_mutex_lock(&q_lock);
    if (!s->q_started) {
        if (pthread_create(&s->q_thread, NULL, worker, s) != 0) {
            pthread_mutex_unlock(&q_lock);
            /* no thread: the operation runs here, in order (the queue is empty: it never started) */
            return op->run(op, s->ctx);
        }
        s->q_started = 1;
        s->q_next = queued;
        queued = s;
    }
    op->next = NULL;
    if (s->q_tail)
        s->q_tail->next = op;
    else
        s->q_head = op;
    s->q_tail = op;
    pthread_cond_broadcast(&q_cond);
    pthread_mutex_unlock(&q_lock);
    return CUDA_SUCCESS;
}

/* (q_lock held) */
static int idle(const p2n_stream *s) { return !s->q_head && !s->q_busy; }

static void wait_idle_locked(p2n_stream *s)
{
    while (!idle(s))
        pthread_cond_wait(&q_cond, &q_lock);
}

CUresult p2n_drv_stream_wait(CUstream hs)
{
    if (!p2n_drv_stream_queues(hs))
        return CUDA_SUCCESS;
    p2n_stream *s = (p2n_stream *)hs;
    pthread_mutex_lock(&q_lock);
    wait_idle_locked(s);
    CUresult r = s->q_error;
    s->q_error = CUDA_SUCCESS;
    pthread_mutex_unlock(&q_lock);
    return r;
}

int p2n_drv_stream_busy(CUstream hs)
{
    if (!p2n_drv_stream_queues(hs))
        return 0;
    pthread_mutex_lock(&q_lock);
    int b = !idle((p2n_stream *)hs);
    pthread_mutex_unlock(&q_lock);
    return b;
}

/* every queue of context c (NULL: every context) whose stream passes `which`; the first kept error */
static CUresult drain(p2n_ctx *c, int blocking_only)
{
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&q_lock);
    for (int again = 1; again;) {   /* a wait lets other threads queue more: until all are idle at once */
        again = 0;
        for (p2n_stream *s = queued; s; s = s->q_next) {
            if ((c && s->ctx != c) || (blocking_only && (s->flags & CU_STREAM_NON_BLOCKING)) || idle(s))
                continue;
            wait_idle_locked(s);
            again = 1;
            break;
        }
    }
    for (p2n_stream *s = queued; s; s = s->q_next)
        if ((!c || s->ctx == c) && !(blocking_only && (s->flags & CU_STREAM_NON_BLOCKING)) &&
            s->q_error != CUDA_SUCCESS) {
            if (r == CUDA_SUCCESS)
                r = s->q_error;
            s->q_error = CUDA_SUCCESS;
        }
    pthread_mutex_unlock(&q_lock);
    return r;
}

CUresult p2n_drv_streams_drain(p2n_ctx *c) { return drain(c, 0); }

__attribute__((constructor)) static void register_drain(void)
{
    p2n_drv_ctx_on_drain(p2n_drv_streams_drain);
}

int p2n_drv_stream_is_own_worker(const p2n_stream *s)
{
    pthread_mutex_lock(&q_lock);
    int own = s->q_started && pthread_equal(pthread_self(), s->q_thread);
    pthread_mutex_unlock(&q_lock);
    return own;
}

CUresult p2n_drv_stream_order(CUstream s, p2n_ctx *c)
{
    if (inline_depth)
        return CUDA_SUCCESS;
    if (s == NULL || s == CU_STREAM_LEGACY)
        return sync_streams() ? CUDA_SUCCESS : drain(c, 1);
    if (s == CU_STREAM_PER_THREAD)
        return CUDA_SUCCESS;
    return p2n_drv_stream_wait(s);
}

void p2n_drv_stream_stop(p2n_stream *s)
{
    pthread_mutex_lock(&q_lock);
    if (!s->q_started) {
        pthread_mutex_unlock(&q_lock);
        return;
    }
    wait_idle_locked(s);
    s->q_stop = 1;
    pthread_cond_broadcast(&q_cond);
    for (p2n_stream **p = &queued; *p; p = &(*p)->q_next)
        if (*p == s) {
            *p = s->q_next;
            break;
        }
    pthread_mutex_unlock(&q_lock);
    pthread_join(s->q_thread, NULL);
    s->q_started = 0;
}

void p2n_drv_streams_wait_until(int (*done)(void *), void *arg)
{
    pthread_mutex_lock(&q_lock);
    while (!done(arg))
        pthread_cond_wait(&q_cond, &q_lock);
    pthread_mutex_unlock(&q_lock);
}

void p2n_drv_streams_lock(void) { pthread_mutex_lock(&q_lock); }
void p2n_drv_streams_unlock(void)
{
    pthread_cond_broadcast(&q_cond);
    pthread_mutex_unlock(&q_lock);
}
