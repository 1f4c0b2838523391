/* stream.c — streams, events, host functions.
 *
 * Execution model: a stream the application created runs its work on a thread of its own (stream_queue.c, where
 * the model is described); the default streams run it on the calling thread. An event record is an operation of
 * its stream: it completes (and takes its time) when the work before it has; cuStreamWaitEvent on a created
 * stream queues a wait for that completion, on a default stream the calling thread waits.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "graph.h"   /* stream capture hooks */

static pthread_mutex_t obj_lock = PTHREAD_MUTEX_INITIALIZER;
static void **objs;   /* streams and events, for release with their context */
static size_t nobjs, capobjs;

static void obj_add(void *o)
{
    pthread_mutex_lock(&obj_lock);
    if (nobjs == capobjs) {
        size_t nc = capobjs ? capobjs * 2 : 16;
        void **n = realloc(objs, nc * sizeof *n);
        if (!n)
            abort();
        objs = n;
        capobjs = nc;
    }
    objs[nobjs++] = o;
    pthread_mutex_unlock(&obj_lock);
}

static void obj_remove(void *o)
{
    pthread_mutex_lock(&obj_lock);
    for (size_t i = 0; i < nobjs; i++)
        if (objs[i] == o) {
            objs[i] = objs[--nobjs];
            break;
        }
    if (nobjs == 0) {
        free(objs);
        objs = NULL;
        capobjs = 0;
    }
    pthread_mutex_unlock(&obj_lock);
}

static void p2n_drv_stream_release_ctx(p2n_ctx *c)
{
    p2n_drv_streams_drain(c);
    pthread_mutex_lock(&obj_lock);
    for (size_t i = 0; i < nobjs; i++)
        if (*(uint32_t *)objs[i] == P2N_MAGIC_STREAM && ((p2n_stream *)objs[i])->ctx == c)
            p2n_drv_stream_stop(objs[i]);
    size_t j = 0;
    for (size_t i = 0; i < nobjs; i++) {
        uint32_t magic = *(uint32_t *)objs[i];
        p2n_ctx *owner = magic == P2N_MAGIC_STREAM ? ((p2n_stream *)objs[i])->ctx : ((p2n_event *)objs[i])->ctx;
        if (owner != c) {
            objs[j++] = objs[i];
            continue;
        }
        p2n_drv_unregister(objs[i]);
        *(uint32_t *)objs[i] = 0;
        free(objs[i]);
    }
    nobjs = j;
    if (nobjs == 0) {
        free(objs);
        objs = NULL;
        capobjs = 0;
    }
    pthread_mutex_unlock(&obj_lock);
}

__attribute__((constructor)) static void register_release_hook(void)
{
    p2n_drv_ctx_on_release(P2N_CTX_RELEASE_STREAMS, p2n_drv_stream_release_ctx);
}

double p2n_drv_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

CUresult p2n_drv_check_stream(CUstream s, p2n_ctx *c)
{
    if (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD)
        return CUDA_SUCCESS;
    if (!p2n_drv_is_live(s, P2N_MAGIC_STREAM))
        return CUDA_ERROR_INVALID_HANDLE;
    if (((p2n_stream *)s)->ctx != c)
        return CUDA_ERROR_INVALID_CONTEXT;
    return CUDA_SUCCESS;
}

/* ---- streams ---- */

CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!phStream || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
        return CUDA_ERROR_INVALID_VALUE;
    p2n_stream *s = calloc(1, sizeof *s);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    s->magic = P2N_MAGIC_STREAM;
    s->ctx = c;
    s->flags = flags;
    s->priority = priority > 0 ? 0 : priority < -5 ? -5 : priority;
    p2n_drv_register(s);
    obj_add(s);
    *phStream = (CUstream)s;
    return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    return cuStreamCreateWithPriority(phStream, Flags, 0);
}

CUresult cuStreamDestroy_v2(CUstream hStream)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!p2n_drv_is_live(hStream, P2N_MAGIC_STREAM))
        return CUDA_ERROR_INVALID_HANDLE;
    p2n_stream *s = (p2n_stream *)hStream;
    if (p2n_drv_stream_is_own_worker(s))
        return CUDA_ERROR_NOT_PERMITTED;   /* from its own host function (CUDA forbids API calls there) */
    p2n_drv_capture_stream_gone(hStream);
    p2n_drv_stream_stop(s);                /* its work finishes first (CUDA: it does, after the call returns) */
    obj_remove(s);
    p2n_drv_unregister(s);
    s->magic = 0;
    free(s);
    return CUDA_SUCCESS;
}

CUresult cuStreamDestroy(CUstream hStream)
{
    return cuStreamDestroy_v2(hStream);
}

static CUresult stream_sync(CUstream hStream)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    r = p2n_drv_check_stream(hStream, c);
    if (r == CUDA_SUCCESS)
        r = p2n_drv_capture_sync_check(hStream);   /* a capturing stream has nothing to wait for */
    if (r != CUDA_SUCCESS)
        return r;
    CUresult q = p2n_drv_stream_wait(hStream);     /* a created stream's queue (the default streams have none) */
    r = p2n_drv_ctx_finish(c);
    return r != CUDA_SUCCESS ? r : q;
}

CUresult cuStreamSynchronize(CUstream hStream) { return stream_sync(hStream); }
CUresult cuStreamSynchronize_ptsz(CUstream hStream) { return stream_sync(hStream); }

static CUresult stream_query(CUstream hStream)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    r = p2n_drv_check_stream(hStream, c);
    if (r == CUDA_SUCCESS)
        r = p2n_drv_capture_sync_check(hStream);
    if (r != CUDA_SUCCESS)
        return r;
    if (p2n_drv_stream_busy(hStream))
        return CUDA_ERROR_NOT_READY;
    return p2n_drv_stream_wait(hStream);   /* idle: its kept error, if any */
}

CUresult cuStreamQuery(CUstream hStream) { return stream_query(hStream); }
CUresult cuStreamQuery_ptsz(CUstream hStream) { return stream_query(hStream); }

/* ---- event completion (stream_queue.c's lock guards rec_seq / done_seq / waiters / time_ms) ---- */

typedef struct event_wait {
    p2n_event *e;
    uint64_t seq;
} event_wait;

/* (stream_queue.c's lock held) */
static int event_reached(void *arg)
{
    event_wait *w = arg;
    return w->e->done_seq >= w->seq;
}

static int event_unused(void *arg)
{
    p2n_event *e = arg;
    return e->done_seq >= e->rec_seq && e->waiters == 0;
}

/* event_reached, taking the lock */
static int reached_now(event_wait *w)
{
    p2n_drv_streams_lock();
    int r = event_reached(w);
    p2n_drv_streams_unlock();
    return r;
}

/* the event's latest record, as a target to wait for */
static uint64_t event_target(p2n_event *e)
{
    p2n_drv_streams_lock();
    uint64_t seq = e->rec_seq;
    p2n_drv_streams_unlock();
    return seq;
}

typedef struct op_wait_event {
    p2n_op op;
    event_wait w;
} op_wait_event;

static CUresult run_wait_event(p2n_op *op, p2n_ctx *c)
{
    (void)c;
    op_wait_event *o = (op_wait_event *)op;
    p2n_drv_streams_wait_until(event_reached, &o->w);
    p2n_drv_streams_lock();
    o->w.e->waiters--;
    p2n_drv_streams_unlock();
    free(o);
    return CUDA_SUCCESS;
}

/* work submitted to hStream from now on waits for e's latest record */
static CUresult wait_for_event(CUstream hStream, p2n_event *e)
{
    event_wait w = {e, event_target(e)};
    if (reached_now(&w))
        return CUDA_SUCCESS;
    if (!p2n_drv_stream_queues(hStream)) {
        p2n_drv_streams_wait_until(event_reached, &w);
        return CUDA_SUCCESS;
    }
    op_wait_event *o = calloc(1, sizeof *o);
    if (!o)
        return CUDA_ERROR_OUT_OF_MEMORY;
    o->op.run = run_wait_event;
    o->w = w;
    p2n_drv_streams_lock();
    e->waiters++;
    p2n_drv_streams_unlock();
    return p2n_drv_stream_enqueue(hStream, &o->op);
}

static CUresult stream_wait_event(CUstream hStream, CUevent hEvent, unsigned flags)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    r = p2n_drv_check_stream(hStream, c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!p2n_drv_is_live(hEvent, P2N_MAGIC_EVENT))
        return CUDA_ERROR_INVALID_HANDLE;
    if (flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL)
        return CUDA_ERROR_INVALID_VALUE;
    if (flags & CU_EVENT_WAIT_EXTERNAL) {   /* an event wait node; the flag is invalid outside a capture */
        if (!p2n_drv_capture_active(hStream))
            return CUDA_ERROR_INVALID_VALUE;
        return p2n_drv_capture_event_node(hStream, hEvent, CU_GRAPH_NODE_TYPE_WAIT_EVENT);
    }
    int captured = 0;   /* an event recorded in a capture: fork into / join the capture */
    r = p2n_drv_capture_wait_event(hStream, hEvent, &captured);
    if (r == CUDA_SUCCESS && !captured)
        r = p2n_drv_capture_legacy_check(hStream);
    if (r != CUDA_SUCCESS || captured)
        return r;
    return wait_for_event(hStream, (p2n_event *)hEvent);
}

CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{ return stream_wait_event(hStream, hEvent, Flags); }
CUresult cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags)
{ return stream_wait_event(hStream, hEvent, Flags); }

static CUresult stream_get_flags(CUstream hStream, unsigned *flags)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    r = p2n_drv_check_stream(hStream, c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!flags)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = p2n_drv_is_live(hStream, P2N_MAGIC_STREAM) ? ((p2n_stream *)hStream)->flags : 0;
    return CUDA_SUCCESS;
}

CUresult cuStreamGetFlags(CUstream hStream, unsigned int *flags) { return stream_get_flags(hStream, flags); }
CUresult cuStreamGetFlags_ptsz(CUstream hStream, unsigned int *flags) { return stream_get_flags(hStream, flags); }

/* The prologue of a stream query: a current context (not failed by a sticky error), a stream of it, the output
 * pointer given. */
static CUresult stream_lookup(CUstream hStream, const void *out, p2n_ctx **c)
{
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, c);
    if (r == CUDA_SUCCESS)
        r = p2n_drv_check_stream(hStream, *c);
    if (r == CUDA_SUCCESS && !out)
        r = CUDA_ERROR_INVALID_VALUE;
    return r;
}

static CUresult stream_get_priority(CUstream hStream, int *priority)
{
    p2n_ctx *c;
    CUresult r = stream_lookup(hStream, priority, &c);
    if (r != CUDA_SUCCESS)
        return r;
    *priority = p2n_drv_is_live(hStream, P2N_MAGIC_STREAM) ? ((p2n_stream *)hStream)->priority : 0;
    return CUDA_SUCCESS;
}

CUresult cuStreamGetPriority(CUstream hStream, int *priority) { return stream_get_priority(hStream, priority); }
CUresult cuStreamGetPriority_ptsz(CUstream hStream, int *priority) { return stream_get_priority(hStream, priority); }

static CUresult stream_get_ctx(CUstream hStream, CUcontext *pctx)
{
    p2n_ctx *c;
    CUresult r = stream_lookup(hStream, pctx, &c);
    if (r != CUDA_SUCCESS)
        return r;
    *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

CUresult cuStreamGetCtx(CUstream hStream, CUcontext *pctx) { return stream_get_ctx(hStream, pctx); }
CUresult cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx) { return stream_get_ctx(hStream, pctx); }

static CUresult stream_get_device(CUstream hStream, CUdevice *device)
{
    CUcontext c = NULL;
    CUresult r = stream_get_ctx(hStream, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    *device = ((p2n_ctx *)c)->device;
    return CUDA_SUCCESS;
}
CUresult cuStreamGetDevice(CUstream hStream, CUdevice *device) { return stream_get_device(hStream, device); }
CUresult cuStreamGetDevice_ptsz(CUstream hStream, CUdevice *device) { return stream_get_device(hStream, device); }

/* ---- stream capture state (graph_capture_state.c): libraries ask before they allocate or synchronise ---- */

static CUresult capture_info(CUstream hStream, CUstreamCaptureStatus *status, cuuint64_t *id, CUgraph *graph,
                             const CUgraphNode **deps, const CUgraphEdgeData **edges, size_t *ndeps)
{
    p2n_ctx *c;
    CUresult r = stream_lookup(hStream, status, &c);
    if (r != CUDA_SUCCESS)
        return r;
    return p2n_drv_capture_query(hStream, status, id, graph, deps, edges, ndeps);
}

static CUresult capture_status(CUstream hStream, CUstreamCaptureStatus *status)
{
    return capture_info(hStream, status, NULL, NULL, NULL, NULL, NULL);
}

CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{ return capture_status(hStream, captureStatus); }
CUresult cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{ return capture_status(hStream, captureStatus); }

CUresult cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out)
{ return capture_info(hStream, captureStatus_out, id_out, NULL, NULL, NULL, NULL); }
CUresult cuStreamGetCaptureInfo_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out)
{ return capture_info(hStream, captureStatus_out, id_out, NULL, NULL, NULL, NULL); }
CUresult cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out,
                                   CUgraph *graph_out, const CUgraphNode **dependencies_out,
                                   size_t *numDependencies_out)
{ return capture_info(hStream, captureStatus_out, id_out, graph_out, dependencies_out, NULL, numDependencies_out); }
CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                        cuuint64_t *id_out, CUgraph *graph_out,
                                        const CUgraphNode **dependencies_out, size_t *numDependencies_out)
{ return capture_info(hStream, captureStatus_out, id_out, graph_out, dependencies_out, NULL, numDependencies_out); }
CUresult cuStreamGetCaptureInfo_v3(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out,
                                   CUgraph *graph_out, const CUgraphNode **dependencies_out,
                                   const CUgraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
    return capture_info(hStream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                        numDependencies_out);
}
CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                        cuuint64_t *id_out, CUgraph *graph_out,
                                        const CUgraphNode **dependencies_out, const CUgraphEdgeData **edgeData_out,
                                        size_t *numDependencies_out)
{
    return capture_info(hStream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                        numDependencies_out);
}

/* the calling thread's capture-interaction mode (what it may do while streams capture): kept per thread by
 * graph_capture_state.c and exchanged, as CUDA does */

CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!mode || (unsigned)*mode > CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    *mode = p2n_drv_capture_exchange_mode(*mode);
    return CUDA_SUCCESS;
}

/* ---- stream attributes: hints (work runs in submission order, to completion), stored and returned ---- */

static p2n_stream_attrs null_stream_attrs;   /* the NULL, legacy and per-thread streams' (one device) */
static int null_stream_priority;

/* the attributes and priority of a stream of the current context; obj_lock guards both */
static CUresult stream_attrs(CUstream hStream, p2n_stream_attrs **attrs, int **priority)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r == CUDA_SUCCESS)
        r = p2n_drv_check_stream(hStream, c);
    if (r != CUDA_SUCCESS)
        return r;
    if (hStream == NULL || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD) {
        *attrs = &null_stream_attrs;
        *priority = &null_stream_priority;
    } else {
        *attrs = &((p2n_stream *)hStream)->attrs;
        *priority = &((p2n_stream *)hStream)->priority;
    }
    return CUDA_SUCCESS;
}

static int stream_attr_id_valid(CUstreamAttrID id)
{
    return id == CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW || id == CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY ||
           id == CU_LAUNCH_ATTRIBUTE_PRIORITY || id == CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP ||
           id == CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN || id == CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING;
}

/* a window no larger than CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, a hit ratio in [0, 1], known
 * properties; kept and reported back, otherwise a hint with no effect on these backends' caches */
CUresult p2n_drv_check_access_policy_window(const CUaccessPolicyWindow *w)
{
    if (!(w->hitRatio >= 0.0f && w->hitRatio <= 1.0f) || (unsigned)w->hitProp > CU_ACCESS_PROPERTY_PERSISTING ||
        (unsigned)w->missProp > CU_ACCESS_PROPERTY_PERSISTING || w->num_bytes > (size_t)P2N_MAX_ACCESS_POLICY_WINDOW)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

static CUresult check_stream_attr(CUstreamAttrID id, const CUstreamAttrValue *v)
{
    switch (id) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
        return p2n_drv_check_access_policy_window(&v->accessPolicyWindow);
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
        return v->syncPolicy >= CU_SYNC_POLICY_AUTO && v->syncPolicy <= CU_SYNC_POLICY_BLOCKING_SYNC
                   ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
        return (unsigned)v->memSyncDomain <= CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE ? CUDA_SUCCESS
                                                                          : CUDA_ERROR_INVALID_VALUE;
    default:
        return CUDA_SUCCESS;
    }
}

static CUresult stream_get_attribute(CUstream hStream, CUstreamAttrID attr, CUstreamAttrValue *value_out)
{
    p2n_stream_attrs *a;
    int *prio;
    CUresult r = stream_attrs(hStream, &a, &prio);
    if (r != CUDA_SUCCESS)
        return r;
    if (!value_out || !stream_attr_id_valid(attr))
        return CUDA_ERROR_INVALID_VALUE;
    memset(value_out, 0, sizeof *value_out);
    pthread_mutex_lock(&obj_lock);
    if (attr == CU_LAUNCH_ATTRIBUTE_PRIORITY)
        value_out->priority = *prio;
    else if (a->set & (1u << attr))
        *value_out = a->value[attr];
    else if (attr == CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY)
        value_out->syncPolicy = CU_SYNC_POLICY_AUTO;
    else if (attr == CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP)
        value_out->memSyncDomainMap.remote = 1;   /* CUDA's default map: default -> 0, remote -> 1 */
    pthread_mutex_unlock(&obj_lock);
    return CUDA_SUCCESS;
}

static CUresult stream_set_attribute(CUstream hStream, CUstreamAttrID attr, const CUstreamAttrValue *value)
{
    p2n_stream_attrs *a;
    int *prio;
    CUresult r = stream_attrs(hStream, &a, &prio);
    if (r != CUDA_SUCCESS)
        return r;
    if (!value || !stream_attr_id_valid(attr))
        return CUDA_ERROR_INVALID_VALUE;
    r = check_stream_attr(attr, value);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&obj_lock);
    if (attr == CU_LAUNCH_ATTRIBUTE_PRIORITY) {
        /* clamped to cuCtxGetStreamPriorityRange's [-5, 0], as cuStreamCreateWithPriority clamps */
        *prio = value->priority > 0 ? 0 : value->priority < -5 ? -5 : value->priority;
    } else {
        a->value[attr] = *value;
        a->set |= 1u << attr;
    }
    pthread_mutex_unlock(&obj_lock);
    return CUDA_SUCCESS;
}

static CUresult stream_copy_attributes(CUstream dst, CUstream src)
{
    p2n_stream_attrs *da, *sa;
    int *dp, *sp;
    CUresult r = stream_attrs(dst, &da, &dp);
    if (r == CUDA_SUCCESS)
        r = stream_attrs(src, &sa, &sp);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&obj_lock);
    *da = *sa;
    *dp = *sp;
    pthread_mutex_unlock(&obj_lock);
    return CUDA_SUCCESS;
}

CUresult cuStreamGetAttribute(CUstream hStream, CUstreamAttrID attr, CUstreamAttrValue *value_out)
{ return stream_get_attribute(hStream, attr, value_out); }
CUresult cuStreamGetAttribute_ptsz(CUstream hStream, CUstreamAttrID attr, CUstreamAttrValue *value_out)
{ return stream_get_attribute(hStream, attr, value_out); }
CUresult cuStreamSetAttribute(CUstream hStream, CUstreamAttrID attr, const CUstreamAttrValue *value)
{ return stream_set_attribute(hStream, attr, value); }
CUresult cuStreamSetAttribute_ptsz(CUstream hStream, CUstreamAttrID attr, const CUstreamAttrValue *value)
{ return stream_set_attribute(hStream, attr, value); }
CUresult cuStreamCopyAttributes(CUstream dst, CUstream src) { return stream_copy_attributes(dst, src); }
CUresult cuStreamCopyAttributes_ptsz(CUstream dst, CUstream src) { return stream_copy_attributes(dst, src); }

/* CUDA 12.5's ABI: a stream of a green context would answer in *pGreenCtx; there are none, so it is NULL */
static CUresult stream_get_ctx_v2(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)
{
    if (!pCtx && !pGreenCtx)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext c = NULL;
    CUresult r = stream_get_ctx(hStream, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (pCtx)
        *pCtx = c;
    if (pGreenCtx)
        *pGreenCtx = NULL;
    return CUDA_SUCCESS;
}
CUresult cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)
{ return stream_get_ctx_v2(hStream, pCtx, pGreenCtx); }
CUresult cuStreamGetCtx_v2_ptsz(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)
{ return stream_get_ctx_v2(hStream, pCtx, pGreenCtx); }

typedef struct op_host_call {
    p2n_op op;
    CUstream stream;
    CUhostFn fn;                 /* or */
    CUstreamCallback callback;   /* (with the context's status, as CUDA passes it) */
    void *user;
} op_host_call;

/* host functions of different streams run one at a time, as CUDA's one callback thread runs them (programs
 * count on it: counters updated without atomics) */
static pthread_mutex_t host_call_lock = PTHREAD_MUTEX_INITIALIZER;

static CUresult run_host_call(p2n_op *op, p2n_ctx *c)
{
    op_host_call *o = (op_host_call *)op;
    pthread_mutex_lock(&host_call_lock);
    if (o->fn)
        o->fn(o->user);
    else
        o->callback(o->stream, c->sticky, o->user);
    pthread_mutex_unlock(&host_call_lock);
    free(o);
    return CUDA_SUCCESS;
}

static CUresult queue_host_call(CUstream s, CUhostFn fn, CUstreamCallback callback, void *user)
{
    op_host_call *o = calloc(1, sizeof *o);
    if (!o)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *o = (op_host_call){.op.run = run_host_call, .stream = s, .fn = fn, .callback = callback, .user = user};
    return p2n_drv_stream_enqueue(s, &o->op);
}

static CUresult launch_host_func(CUstream hStream, CUhostFn fn, void *userData)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    r = p2n_drv_check_stream(hStream, c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!fn)
        return CUDA_ERROR_INVALID_VALUE;
    r = p2n_drv_capture_legacy_check(hStream);
    if (r != CUDA_SUCCESS)
        return r;
    if (p2n_drv_capture_active(hStream))
        return p2n_drv_capture_host(hStream, fn, NULL, userData);
    if (p2n_drv_stream_queues(hStream))
        return queue_host_call(hStream, fn, NULL, userData);
    p2n_drv_stream_order(hStream, c);
    fn(userData);
    return CUDA_SUCCESS;
}

CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{ return launch_host_func(hStream, fn, userData); }
CUresult cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void *userData)
{ return launch_host_func(hStream, fn, userData); }

static CUresult stream_add_callback(CUstream hStream, CUstreamCallback callback, void *userData, unsigned flags)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    r = p2n_drv_check_stream(hStream, c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!callback || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    r = p2n_drv_capture_legacy_check(hStream);
    if (r != CUDA_SUCCESS)
        return r;
    if (p2n_drv_capture_active(hStream))
        return p2n_drv_capture_host(hStream, NULL, callback, userData);
    if (p2n_drv_stream_queues(hStream))
        return queue_host_call(hStream, NULL, callback, userData);
    p2n_drv_stream_order(hStream, c);
    callback(hStream, c->sticky, userData);
    return CUDA_SUCCESS;
}

CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags)
{ return stream_add_callback(hStream, callback, userData, flags); }
CUresult cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags)
{ return stream_add_callback(hStream, callback, userData, flags); }

/* ---- events ---- */

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!phEvent || (Flags & ~(unsigned)(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS)))
        return CUDA_ERROR_INVALID_VALUE;
    if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
        return CUDA_ERROR_INVALID_VALUE;
    p2n_event *e = calloc(1, sizeof *e);
    if (!e)
        return CUDA_ERROR_OUT_OF_MEMORY;
    e->magic = P2N_MAGIC_EVENT;
    e->ctx = c;
    e->flags = Flags;
    p2n_drv_register(e);
    obj_add(e);
    *phEvent = (CUevent)e;
    return CUDA_SUCCESS;
}

static CUresult get_event(CUevent h, p2n_event **out)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!p2n_drv_is_live(h, P2N_MAGIC_EVENT))
        return CUDA_ERROR_INVALID_HANDLE;
    *out = (p2n_event *)h;
    return CUDA_SUCCESS;
}

static void complete_record(p2n_event *e, uint64_t seq)
{
    double t = p2n_drv_now_ms();
    p2n_drv_streams_lock();
    if (seq > e->done_seq) {   /* (a later record may have completed first on another stream) */
        e->done_seq = seq;
        e->time_ms = t;
    }
    p2n_drv_streams_unlock();
}

typedef struct op_event_record {
    p2n_op op;
    p2n_event *e;
    uint64_t seq;
} op_event_record;

static CUresult run_event_record(p2n_op *op, p2n_ctx *c)
{
    (void)c;
    op_event_record *o = (op_event_record *)op;
    complete_record(o->e, o->seq);
    free(o);
    return CUDA_SUCCESS;
}

static CUresult event_record(CUevent hEvent, CUstream hStream, unsigned flags)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_event *e;
    r = get_event(hEvent, &e);
    if (r != CUDA_SUCCESS)
        return r;
    r = p2n_drv_check_stream(hStream, c);
    if (r != CUDA_SUCCESS)
        return r;
    if (e->ctx != c)
        return CUDA_ERROR_INVALID_HANDLE;
    r = p2n_drv_capture_legacy_check(hStream);
    if (r != CUDA_SUCCESS)
        return r;
    if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL)
        return CUDA_ERROR_INVALID_VALUE;
    if (p2n_drv_capture_active(hStream))   /* an event record node, or the event stands for the capture so far */
        return flags & CU_EVENT_RECORD_EXTERNAL
                   ? p2n_drv_capture_event_node(hStream, hEvent, CU_GRAPH_NODE_TYPE_EVENT_RECORD)
                   : p2n_drv_capture_event_record(hStream, hEvent);
    p2n_drv_capture_event_use(hEvent, 1);  /* recorded outside a capture again */
    p2n_drv_streams_lock();
    e->recorded = 1;
    uint64_t seq = ++e->rec_seq;
    p2n_drv_streams_unlock();
    if (p2n_drv_stream_queues(hStream)) {
        op_event_record *o = calloc(1, sizeof *o);
        if (!o)
            return CUDA_ERROR_OUT_OF_MEMORY;
        *o = (op_event_record){.op.run = run_event_record, .e = e, .seq = seq};
        return p2n_drv_stream_enqueue(hStream, &o->op);
    }
    p2n_drv_stream_order(hStream, c);
    complete_record(e, seq);
    return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream) { return event_record(hEvent, hStream, 0); }
CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream) { return event_record(hEvent, hStream, 0); }
CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags)
{ return event_record(hEvent, hStream, flags); }
CUresult cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream, unsigned int flags)
{ return event_record(hEvent, hStream, flags); }

CUresult cuEventQuery(CUevent hEvent)
{
    p2n_event *e;
    CUresult r = get_event(hEvent, &e);
    if (r == CUDA_SUCCESS)
        r = p2n_drv_capture_event_use(hEvent, 0);
    if (r != CUDA_SUCCESS)
        return r;
    event_wait w = {e, event_target(e)};
    return !reached_now(&w) ? CUDA_ERROR_NOT_READY : e->ctx->sticky;
}

CUresult cuEventSynchronize(CUevent hEvent)
{
    p2n_event *e;
    CUresult r = get_event(hEvent, &e);
    if (r == CUDA_SUCCESS)
        r = p2n_drv_capture_event_use(hEvent, 0);
    if (r != CUDA_SUCCESS)
        return r;
    event_wait w = {e, event_target(e)};
    p2n_drv_streams_wait_until(event_reached, &w);
    return p2n_drv_ctx_finish(e->ctx);
}

CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    p2n_event *a, *b;
    CUresult r = get_event(hStart, &a);
    if (r == CUDA_SUCCESS)
        r = get_event(hEnd, &b);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pMilliseconds)
        return CUDA_ERROR_INVALID_VALUE;
    if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!a->recorded || !b->recorded)
        return CUDA_ERROR_INVALID_HANDLE;
    p2n_drv_streams_lock();
    int done = a->done_seq >= a->rec_seq && b->done_seq >= b->rec_seq;
    double ta = a->time_ms, tb = b->time_ms;
    p2n_drv_streams_unlock();
    if (!done)
        return CUDA_ERROR_NOT_READY;
    *pMilliseconds = (float)(tb - ta);
    return CUDA_SUCCESS;
}

CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}

CUresult cuEventDestroy_v2(CUevent hEvent)
{
    p2n_event *e;
    CUresult r = get_event(hEvent, &e);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_drv_capture_event_use(hEvent, 1);
    p2n_drv_streams_wait_until(event_unused, e);   /* no queued record or wait names it any more */
    obj_remove(e);
    p2n_drv_unregister(e);
    e->magic = 0;
    free(e);
    return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent hEvent)
{
    return cuEventDestroy_v2(hEvent);
}
