/* graph_capture_state.c — stream capture: which streams capture into which graph, and the hooks through which the
 * async entry points record a node instead of executing.
 *
 * A capture sequence starts on its origin stream (cuStreamBeginCapture). Each member stream keeps the nodes its
 * next operation will depend on; an operation appends a node after them and becomes the stream's only dependency.
 * cuEventRecord on a member stream makes the event stand for that stream's dependencies; cuStreamWaitEvent on such
 * an event brings the waiting stream into the capture (fork) or adds them to its dependencies (join), as CUDA's
 * cross-stream capture does. cuStreamEndCapture on the origin requires every other member's work to be an ancestor
 * of the origin's (joined), else CUDA_ERROR_STREAM_CAPTURE_UNJOINED. A blocking call on a capturing stream, or the
 * legacy stream used while a blocking stream captures, invalidates the capture as CUDA does; the sequence then
 * still ends with cuStreamEndCapture, which fails with CUDA_ERROR_STREAM_CAPTURE_INVALIDATED.
 * The NULL, legacy and per-thread default streams never capture (CUDA refuses the legacy stream; the per-thread
 * stream is not supported here: api-status.txt).
 */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

typedef struct capture {
    uint64_t id;
    p2n_graph *graph;
    int owns_graph;             /* cuStreamBeginCapture made it (freed when the capture fails) */
    CUstreamCaptureMode mode;
    int invalidated;
    CUstream origin;
    pthread_t thread;
    p2n_ctx *ctx;
} capture;

typedef struct member {
    CUstream s;
    capture *cap;
    int blocking;               /* synchronises with the legacy stream (no CU_STREAM_NON_BLOCKING) */
    p2n_graph_node **deps;
    size_t ndeps, capdeps;
    CUgraphEdgeData *edges;     /* all default edges, for cuStreamGetCaptureInfo_v3 */
} member;

typedef struct captured_event {
    CUevent e;
    capture *cap;
    CUstream source;
    p2n_graph_node **deps;
    size_t ndeps;
} captured_event;

static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;
static member *members;
static size_t nmembers, capmembers;
static captured_event *events;
static size_t nevents, capevents;
static uint64_t next_id = 1;

static int is_default_stream(CUstream s)
{
    return s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD;
}

static member *find_member(CUstream s)
{
    if (is_default_stream(s))
        return NULL;
    for (size_t i = 0; i < nmembers; i++)
        if (members[i].s == s)
            return &members[i];
    return NULL;
}

static captured_event *find_event(CUevent e)
{
    for (size_t i = 0; i < nevents; i++)
        if (events[i].e == e)
            return &events[i];
    return NULL;
}

static int set_deps(member *m, p2n_graph_node *const *deps, size_t n)
{
    if (n > m->capdeps) {
        p2n_graph_node **d = realloc(m->deps, n * sizeof *d);
        CUgraphEdgeData *e = realloc(m->edges, n * sizeof *e);
        if (d)
            m->deps = d;
        if (e)
            m->edges = e;
        if (!d || !e)
            return 0;
        m->capdeps = n;
    }
    if (n)
        memmove(m->deps, deps, n * sizeof *deps);
    if (n)
        memset(m->edges, 0, n * sizeof *m->edges);
    m->ndeps = n;
    return 1;
}

static int add_deps(member *m, p2n_graph_node *const *deps, size_t n)
{
    p2n_graph_node **all = malloc((m->ndeps + n + 1) * sizeof *all);
    if (!all)
        return 0;
    size_t k = m->ndeps;
    if (k)
        memcpy(all, m->deps, k * sizeof *all);
    for (size_t i = 0; i < n; i++) {
        int dup = 0;
        for (size_t j = 0; j < k && !dup; j++)
            dup = all[j] == deps[i];
        if (!dup)
            all[k++] = deps[i];
    }
    int ok = set_deps(m, all, k);
    free(all);
    return ok;
}

static member *add_member(CUstream s, capture *cap)
{
    if (nmembers == capmembers) {
        size_t nc = capmembers ? capmembers * 2 : 8;
        member *n = realloc(members, nc * sizeof *n);
        if (!n)
            return NULL;
        members = n;
        capmembers = nc;
    }
    member *m = &members[nmembers++];
    memset(m, 0, sizeof *m);
    m->s = s;
    m->cap = cap;
    m->blocking = !(((p2n_stream *)s)->flags & CU_STREAM_NON_BLOCKING);
    return m;
}

/* ends a capture sequence: its members leave it, its events forget it; the graph is freed when `drop_graph` */
static void teardown(capture *cap, int drop_graph)
{
    size_t j = 0;
    for (size_t i = 0; i < nmembers; i++) {
        if (members[i].cap == cap) {
            free(members[i].deps);
            free(members[i].edges);
        } else {
            members[j++] = members[i];
        }
    }
    nmembers = j;
    j = 0;
    for (size_t i = 0; i < nevents; i++) {
        if (events[i].cap == cap)
            free(events[i].deps);
        else
            events[j++] = events[i];
    }
    nevents = j;
    if (drop_graph && cap->owns_graph)
        p2n_drv_graph_free(cap->graph);
    free(cap);
}

static void p2n_drv_capture_release_ctx(p2n_ctx *c)
{
    pthread_mutex_lock(&cap_lock);
    for (size_t i = 0; i < nmembers;) {
        if (members[i].cap->ctx == c)
            teardown(members[i].cap, 0);   /* the graph goes with the context's graphs */
        else
            i++;
    }
    pthread_mutex_unlock(&cap_lock);
    p2n_drv_graph_release_ctx(c);
}

/* the calling thread's capture-interaction mode (cuThreadExchangeStreamCaptureMode) */
static _Thread_local CUstreamCaptureMode thread_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

CUstreamCaptureMode p2n_drv_capture_exchange_mode(CUstreamCaptureMode mode)
{
    CUstreamCaptureMode old = thread_mode;
    thread_mode = mode;
    return old;
}

/* CUDA's rule for potentially unsafe calls (a context synchronisation): a thread in relaxed mode may make them;
 * otherwise not while it captures itself (other than relaxed), nor, in global mode, while another thread captures in
 * global mode. The captures concerned are invalidated. */
static CUresult unsafe_call_guard(void)
{
    if (thread_mode == CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_SUCCESS;
    CUresult r = CUDA_SUCCESS;
    pthread_t self = pthread_self();
    pthread_mutex_lock(&cap_lock);
    for (size_t i = 0; i < nmembers; i++) {
        capture *cap = members[i].cap;
        int own = pthread_equal(cap->thread, self);
        if ((own && cap->mode != CU_STREAM_CAPTURE_MODE_RELAXED) ||
            (!own && thread_mode == CU_STREAM_CAPTURE_MODE_GLOBAL && cap->mode == CU_STREAM_CAPTURE_MODE_GLOBAL)) {
            cap->invalidated = 1;
            r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        }
    }
    pthread_mutex_unlock(&cap_lock);
    return r;
}

__attribute__((constructor)) static void register_hooks(void)
{
    p2n_drv_ctx_on_release(P2N_CTX_RELEASE_GRAPHS, p2n_drv_capture_release_ctx);
    p2n_drv_ctx_on_sync(unsafe_call_guard);
}

int p2n_drv_capture_graph_busy(const p2n_graph *g)
{
    pthread_mutex_lock(&cap_lock);
    int busy = 0;
    for (size_t i = 0; i < nmembers && !busy; i++)
        busy = members[i].cap->graph == g;
    pthread_mutex_unlock(&cap_lock);
    return busy;
}

int p2n_drv_capture_active(CUstream s)
{
    if (is_default_stream(s))
        return 0;
    pthread_mutex_lock(&cap_lock);
    int active = find_member(s) != NULL;
    pthread_mutex_unlock(&cap_lock);
    return active;
}

CUresult p2n_drv_capture_begin(CUstream s, p2n_graph *g, int owns_graph, CUstreamCaptureMode mode,
                               const CUgraphNode *deps, size_t ndeps)
{
    if (is_default_stream(s))
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    for (size_t i = 0; i < ndeps; i++)
        if (!deps || !p2n_drv_is_live(deps[i], P2N_MAGIC_GRAPH_NODE) || ((p2n_graph_node *)deps[i])->graph != g)
            return CUDA_ERROR_INVALID_VALUE;
    capture *cap = calloc(1, sizeof *cap);
    if (!cap)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&cap_lock);
    if (find_member(s)) {
        pthread_mutex_unlock(&cap_lock);
        free(cap);
        return CUDA_ERROR_ILLEGAL_STATE;
    }
    cap->id = next_id++;
    cap->graph = g;
    cap->owns_graph = owns_graph;
    cap->mode = mode;
    cap->origin = s;
    cap->thread = pthread_self();
    cap->ctx = g->ctx;
    member *m = add_member(s, cap);
    CUresult r = CUDA_SUCCESS;
    if (!m || !set_deps(m, (p2n_graph_node *const *)deps, ndeps)) {
        if (m)
            teardown(cap, 0);
        else
            free(cap);
        r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_unlock(&cap_lock);
    return r;
}

/* is `n` one of the nodes `from` depends on, directly or not, or one of them */
static int reaches(p2n_graph_node *const *from, size_t nfrom, const p2n_graph_node *n, const p2n_graph *g)
{
    /* a node is pushed once per edge into it, plus the starting nodes */
    size_t nedges = 0;
    for (size_t i = 0; i < g->nnodes; i++)
        nedges += g->nodes[i]->ndeps;
    p2n_graph_node **stack = malloc((nedges + nfrom + 1) * sizeof *stack);
    p2n_graph_node **seen = malloc((g->nnodes + 1) * sizeof *seen);
    size_t nstack = 0, nseen = 0;
    int found = 0;
    if (!stack || !seen)
        goto out;
    for (size_t i = 0; i < nfrom; i++)
        stack[nstack++] = from[i];
    while (nstack && !found) {
        p2n_graph_node *x = stack[--nstack];
        int was = 0;
        for (size_t i = 0; i < nseen && !was; i++)
            was = seen[i] == x;
        if (was)
            continue;
        seen[nseen++] = x;
        found = x == n;
        for (size_t d = 0; d < x->ndeps; d++)
            stack[nstack++] = x->deps[d];
    }
out:
    free(stack);
    free(seen);
    return found;
}

CUresult p2n_drv_capture_end(CUstream s, p2n_graph **out, int want_graph)
{
    pthread_mutex_lock(&cap_lock);
    member *m = find_member(s);
    CUresult r = CUDA_SUCCESS;
    if (!m) {
        r = CUDA_ERROR_ILLEGAL_STATE;
    } else if (m->cap->origin != s) {
        r = CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
    } else if (m->cap->mode != CU_STREAM_CAPTURE_MODE_RELAXED && !pthread_equal(m->cap->thread, pthread_self())) {
        r = CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
    } else {
        capture *cap = m->cap;
        if (cap->invalidated)
            r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        for (size_t i = 0; i < nmembers && r == CUDA_SUCCESS; i++) {
            if (members[i].cap != cap || members[i].s == s)
                continue;
            for (size_t d = 0; d < members[i].ndeps && r == CUDA_SUCCESS; d++)
                if (!reaches(m->deps, m->ndeps, members[i].deps[d], cap->graph))
                    r = CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
        }
        *out = r == CUDA_SUCCESS ? cap->graph : NULL;
        /* nowhere to return the graph the capture made: CUDA (H100, recorded) ends the capture and succeeds; the
         * graph is discarded */
        teardown(cap, r != CUDA_SUCCESS || (!want_graph && cap->owns_graph));
        if (!want_graph)
            *out = NULL;
    }
    pthread_mutex_unlock(&cap_lock);
    return r;
}

CUresult p2n_drv_capture_update_deps(CUstream s, const CUgraphNode *deps, size_t ndeps, unsigned flags)
{
    if (flags != CU_STREAM_ADD_CAPTURE_DEPENDENCIES && flags != CU_STREAM_SET_CAPTURE_DEPENDENCIES)
        return CUDA_ERROR_INVALID_VALUE;
    if (ndeps && !deps)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&cap_lock);
    member *m = find_member(s);
    CUresult r = CUDA_SUCCESS;
    if (!m)
        r = CUDA_ERROR_ILLEGAL_STATE;
    for (size_t i = 0; i < ndeps && r == CUDA_SUCCESS; i++)
        if (!p2n_drv_is_live(deps[i], P2N_MAGIC_GRAPH_NODE) || ((p2n_graph_node *)deps[i])->graph != m->cap->graph)
            r = CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS) {
        int ok = flags == CU_STREAM_SET_CAPTURE_DEPENDENCIES ? set_deps(m, (p2n_graph_node *const *)deps, ndeps)
                                                             : add_deps(m, (p2n_graph_node *const *)deps, ndeps);
        if (!ok)
            r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_unlock(&cap_lock);
    return r;
}

/* appends a node of `type` to s's capture (cap_lock held); the caller sets its parameters */
static CUresult add_node(CUstream s, CUgraphNodeType type, p2n_graph_node **out)
{
    member *m = find_member(s);
    if (!m)
        return CUDA_ERROR_ILLEGAL_STATE;
    if (m->cap->invalidated)
        return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_new(m->cap->graph, type, (const CUgraphNode *)m->deps, m->ndeps, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (!set_deps(m, &n, 1)) {
        p2n_drv_graph_node_free(n);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *out = n;
    return CUDA_SUCCESS;
}

CUresult p2n_drv_capture_kernel(CUstream s, p2n_func *f, int cluster, int cooperative, const unsigned grid[3],
                                const unsigned block[3], unsigned shmem, uint8_t *args)
{
    pthread_mutex_lock(&cap_lock);
    p2n_graph_node *n;
    CUresult r = add_node(s, CU_GRAPH_NODE_TYPE_KERNEL, &n);
    if (r == CUDA_SUCCESS)
        r = p2n_drv_graph_kernel_set(n, f, grid, block, shmem, args);
    else
        free(args);
    CUlaunchAttributeValue v;
    memset(&v, 0, sizeof v);
    if (r == CUDA_SUCCESS && cluster) {
        v.clusterDim.x = v.clusterDim.y = v.clusterDim.z = 1;
        r = p2n_drv_graph_kernel_attr(n, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &v);
    }
    if (r == CUDA_SUCCESS && cooperative) {
        memset(&v, 0, sizeof v);
        v.cooperative = 1;
        r = p2n_drv_graph_kernel_attr(n, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v);
    }
    pthread_mutex_unlock(&cap_lock);
    return r;
}

CUresult p2n_drv_capture_memcpy(CUstream s, const CUDA_MEMCPY3D *copy)
{
    pthread_mutex_lock(&cap_lock);
    p2n_graph_node *n;
    CUresult r = add_node(s, CU_GRAPH_NODE_TYPE_MEMCPY, &n);
    if (r == CUDA_SUCCESS)
        n->p.memcpy = *copy;
    pthread_mutex_unlock(&cap_lock);
    return r;
}

CUresult p2n_drv_capture_memcpy1d(CUstream s, CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
    c.srcDevice = src;
    c.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
    c.dstDevice = dst;
    c.WidthInBytes = bytes;
    c.Height = 1;
    c.Depth = 1;
    return p2n_drv_capture_memcpy(s, &c);
}

CUresult p2n_drv_capture_node(CUstream s, CUgraphNodeType type, p2n_graph_node **out)
{
    pthread_mutex_lock(&cap_lock);
    CUresult r = add_node(s, type, out);
    pthread_mutex_unlock(&cap_lock);
    return r;
}

void p2n_drv_capture_invalidate(CUstream s)
{
    pthread_mutex_lock(&cap_lock);
    member *m = find_member(s);
    if (m)
        m->cap->invalidated = 1;
    pthread_mutex_unlock(&cap_lock);
}

CUresult p2n_drv_capture_memset(CUstream s, CUdeviceptr dst, size_t pitch, unsigned value, unsigned esize,
                                size_t width, size_t height)
{
    pthread_mutex_lock(&cap_lock);
    p2n_graph_node *n;
    CUresult r = add_node(s, CU_GRAPH_NODE_TYPE_MEMSET, &n);
    if (r == CUDA_SUCCESS) {
        CUDA_MEMSET_NODE_PARAMS *p = &n->p.memset;
        p->dst = dst;
        p->pitch = pitch;
        p->value = value;
        p->elementSize = esize;
        p->width = width;
        p->height = height;
    }
    pthread_mutex_unlock(&cap_lock);
    return r;
}

CUresult p2n_drv_capture_host(CUstream s, CUhostFn fn, CUstreamCallback cb, void *user)
{
    pthread_mutex_lock(&cap_lock);
    p2n_graph_node *n;
    CUresult r = add_node(s, CU_GRAPH_NODE_TYPE_HOST, &n);
    if (r == CUDA_SUCCESS) {
        n->p.host.fn = fn;
        n->p.host.callback = cb;
        n->p.host.user = user;
    }
    pthread_mutex_unlock(&cap_lock);
    return r;
}

CUresult p2n_drv_capture_event_node(CUstream s, CUevent e, CUgraphNodeType type)
{
    pthread_mutex_lock(&cap_lock);
    p2n_graph_node *n;
    CUresult r = add_node(s, type, &n);
    if (r == CUDA_SUCCESS)
        n->p.event = e;
    pthread_mutex_unlock(&cap_lock);
    return r;
}

CUresult p2n_drv_capture_child(CUstream s, const p2n_graph *exec)
{
    p2n_graph *child;
    CUresult r = p2n_drv_graph_clone(exec, P2N_MAGIC_GRAPH, &child);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&cap_lock);
    p2n_graph_node *n;
    r = add_node(s, CU_GRAPH_NODE_TYPE_GRAPH, &n);
    if (r == CUDA_SUCCESS)
        n->p.child = child;
    pthread_mutex_unlock(&cap_lock);
    if (r != CUDA_SUCCESS)
        p2n_drv_graph_free(child);
    return r;
}

CUresult p2n_drv_capture_event_record(CUstream s, CUevent e)
{
    pthread_mutex_lock(&cap_lock);
    member *m = find_member(s);
    CUresult r = CUDA_SUCCESS;
    if (!m) {
        r = CUDA_ERROR_ILLEGAL_STATE;
    } else if (m->cap->invalidated) {
        r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    } else {
        captured_event *ev = find_event(e);
        if (!ev && nevents == capevents) {
            size_t nc = capevents ? capevents * 2 : 8;
            captured_event *n = realloc(events, nc * sizeof *n);
            if (n) {
                events = n;
                capevents = nc;
            }
        }
        p2n_graph_node **deps = malloc((m->ndeps + 1) * sizeof *deps);
        if (!deps || (!ev && nevents == capevents)) {
            free(deps);
            r = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            if (!ev) {
                ev = &events[nevents++];
                ev->e = e;
            } else {
                free(ev->deps);
            }
            if (m->ndeps)
                memcpy(deps, m->deps, m->ndeps * sizeof *deps);
            ev->cap = m->cap;
            ev->source = s;
            ev->deps = deps;
            ev->ndeps = m->ndeps;
        }
    }
    pthread_mutex_unlock(&cap_lock);
    return r;
}

CUresult p2n_drv_capture_wait_event(CUstream s, CUevent e, int *handled)
{
    *handled = 0;
    pthread_mutex_lock(&cap_lock);
    captured_event *ev = find_event(e);
    member *m = find_member(s);
    CUresult r = CUDA_SUCCESS;
    if (ev) {
        *handled = 1;
        if (is_default_stream(s)) {
            r = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;   /* the default streams cannot join a capture */
            ev->cap->invalidated = 1;
        } else if (m && m->cap != ev->cap) {
            r = CUDA_ERROR_STREAM_CAPTURE_MERGE;       /* two capture sequences cannot merge */
        } else if (ev->cap->invalidated) {
            r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        } else {
            if (!m) {
                m = add_member(s, ev->cap);            /* fork: s joins the capture after the event's work */
                ev = find_event(e);
            }
            if (!m || !add_deps(m, ev->deps, ev->ndeps))
                r = CUDA_ERROR_OUT_OF_MEMORY;
        }
    } else if (m && m->cap->invalidated) {
        *handled = 1;
        r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    }
    pthread_mutex_unlock(&cap_lock);
    return r;
}

CUresult p2n_drv_capture_event_use(CUevent e, int destroy)
{
    pthread_mutex_lock(&cap_lock);
    captured_event *ev = find_event(e);
    CUresult r = CUDA_SUCCESS;
    if (ev && destroy) {
        free(ev->deps);
        *ev = events[--nevents];
    } else if (ev) {
        r = CUDA_ERROR_CAPTURED_EVENT;   /* its work is in a graph, not on a stream */
    }
    pthread_mutex_unlock(&cap_lock);
    return r;
}

/* the legacy stream would wait for (and make wait) a capturing blocking stream: an implicit dependency, which
 * invalidates the capture when it is work (`invalidate`), not a query */
static CUresult legacy_conflict(CUstream s, int invalidate)
{
    if (s != NULL && s != CU_STREAM_LEGACY)
        return CUDA_SUCCESS;
    pthread_mutex_lock(&cap_lock);
    CUresult r = CUDA_SUCCESS;
    for (size_t i = 0; i < nmembers; i++)
        if (members[i].blocking) {
            if (invalidate)
                members[i].cap->invalidated = 1;
            r = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
        }
    pthread_mutex_unlock(&cap_lock);
    return r;
}

CUresult p2n_drv_capture_legacy_check(CUstream s)
{
    return legacy_conflict(s, 1);
}

CUresult p2n_drv_capture_sync_check(CUstream s)
{
    pthread_mutex_lock(&cap_lock);
    member *m = find_member(s);
    if (m)
        m->cap->invalidated = 1;
    pthread_mutex_unlock(&cap_lock);
    return m ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : p2n_drv_capture_legacy_check(s);
}

void p2n_drv_capture_stream_gone(CUstream s)
{
    pthread_mutex_lock(&cap_lock);
    member *m = find_member(s);
    if (m && m->cap->origin == s) {
        teardown(m->cap, 1);   /* nobody can end it any more */
    } else if (m) {
        /* a forked stream destroyed: harmless once the origin has joined its work (NVIDIA's graphMemoryNodes
         * sample does this), else that work could never be joined */
        member *o = find_member(m->cap->origin);
        for (size_t d = 0; d < m->ndeps; d++)
            if (!o || !reaches(o->deps, o->ndeps, m->deps[d], m->cap->graph))
                m->cap->invalidated = 1;
        free(m->deps);
        free(m->edges);
        *m = members[--nmembers];
    }
    pthread_mutex_unlock(&cap_lock);
}

CUresult p2n_drv_capture_query(CUstream s, CUstreamCaptureStatus *status, cuuint64_t *id, CUgraph *graph,
                               const CUgraphNode **deps, const CUgraphEdgeData **edges, size_t *ndeps)
{
    CUresult r = legacy_conflict(s, 0);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&cap_lock);
    member *m = find_member(s);
    *status = !m ? CU_STREAM_CAPTURE_STATUS_NONE
                 : m->cap->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
    /* the rest of the answer is defined only while capturing; it is zeroed otherwise */
    if (id)
        *id = m ? m->cap->id : 0;
    if (graph)
        *graph = m ? (CUgraph)m->cap->graph : NULL;
    if (deps)
        *deps = m && m->ndeps ? (const CUgraphNode *)m->deps : NULL;
    if (edges)
        *edges = m && m->ndeps ? m->edges : NULL;
    if (ndeps)
        *ndeps = m ? m->ndeps : 0;
    pthread_mutex_unlock(&cap_lock);
    return CUDA_SUCCESS;
}
