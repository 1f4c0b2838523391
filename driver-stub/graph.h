/* graph.h — CUDA graphs inside the driver stub: graphs, their nodes, instantiated graphs (execs) and stream
 * capture state.
 *
 * Files, lowest layer first (driver-stub/README.md "Layers"):
 *   graph_core.c    — objects, edges, clone, topological order; calls nothing above ctx.c
 *   graph_capture_state.c — which streams capture into which graph, and the capture hooks that the async entry
 *                     points (launch.c, mem.c, memcpy3d.c, stream.c) call; calls graph_core.c only
 *   graph_build.c   — cuGraph* construction entry points and node parameters (validated, stored)
 *   graph_attr.c    — kernel node attributes (launch attributes kept on the node)
 *   graph_query.c   — node and edge queries, cuGraphDebugDotPrint
 *   graph_exec.c    — cuGraphInstantiate*, cuGraphLaunch (nodes run in topological order on the stream, which is
 *                     synchronous here: backend.h), cuGraphExec* parameter changes and cuGraphExecUpdate
 *   graph_capture.c — cuStreamBeginCapture*, cuStreamEndCapture, cuStreamUpdateCaptureDependencies
 *   graph_cond.c    — conditional handles and nodes (IF/ELSE, WHILE, SWITCH)
 *   graph_memnode.c — graph memory: allocation and free nodes, cuDeviceGraphMemTrim and its attributes
 * An exec is a p2n_graph too (magic P2N_MAGIC_GRAPH_EXEC): a deep copy of the graph whose nodes remember the node
 * they were copied from (`twin`), which is how cuGraphExec*SetParams and cuGraphExecUpdate find them.
 */
#ifndef P2N_DRIVER_GRAPH_H
#define P2N_DRIVER_GRAPH_H

#include "internal.h"

enum {
    P2N_MAGIC_GRAPH = 0x47525021u,      /* "GRP!" */
    P2N_MAGIC_GRAPH_NODE = 0x474e4421u, /* "GND!" */
    P2N_MAGIC_GRAPH_EXEC = 0x47455821u, /* "GEX!" */
};

typedef struct p2n_graph p2n_graph;
typedef struct p2n_graph_node p2n_graph_node;

/* kernel node attributes (cuGraphKernelNodeSetAttribute): one slot per CUlaunchAttributeID */
enum { P2N_KNODE_ATTR_SLOTS = CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING + 1 };

typedef struct p2n_kernel_node {
    p2n_func *func;
    unsigned grid[3], block[3], shmem;
    uint8_t *args;      /* the packed parameter buffer: argument VALUES copied when the node was set */
    void **arg_ptrs;    /* kernelParams for the launch: one pointer per parameter into args */
    unsigned attr_set;  /* bit per attribute id set on the node (kept when its parameters change) */
    CUlaunchAttributeValue *attrs;   /* P2N_KNODE_ATTR_SLOTS values, allocated at the first attribute set */
} p2n_kernel_node;

typedef struct p2n_host_node {
    CUhostFn fn;
    CUstreamCallback callback;  /* captured cuStreamAddCallback (fn is NULL then) */
    void *user;
} p2n_host_node;

/* a conditional handle (graph_cond.c): a 32-bit slot of device memory whose address is the handle, so device
 * code's cudaGraphSetConditional is a store; shared by reference count between the graph that made it, its
 * clones and execs, and the conditional nodes using it */
typedef struct p2n_graph_cond p2n_graph_cond;
/* a graph allocation (graph_memnode.c): device memory an allocation node made, at an address fixed when the node
 * was added; shared by reference count between the node and its copies in clones and execs */
typedef struct p2n_graph_mem p2n_graph_mem;

typedef struct p2n_cond_node {
    p2n_graph_cond *cond;       /* a reference */
    CUgraphConditionalNodeType type;
    unsigned size;
    p2n_graph **body;           /* `size` body graphs, owned by the node */
} p2n_cond_node;

struct p2n_graph_node {
    uint32_t magic;
    p2n_graph *graph;
    CUgraphNodeType type;
    int enabled;                /* exec nodes: cuGraphNodeSetEnabled */
    p2n_graph_node **deps;      /* incoming edges */
    size_t ndeps, capdeps;
    p2n_graph_node *twin;       /* the node this one was copied from (clone, instantiate) */
    union {
        p2n_kernel_node kernel;
        CUDA_MEMCPY3D memcpy;
        CUDA_MEMSET_NODE_PARAMS memset;
        p2n_host_node host;
        p2n_graph *child;       /* owned by the node */
        CUevent event;
        p2n_cond_node cond;
        p2n_graph_mem *alloc;   /* a reference */
        CUdeviceptr free_ptr;
    } p;
};

struct p2n_graph {
    uint32_t magic;
    p2n_ctx *ctx;
    int owned_by_node;          /* a child graph: released with its node */
    p2n_graph_node **nodes;     /* in creation order */
    size_t nnodes, capnodes;
    /* execs */
    p2n_graph_node **order;     /* topological order, computed at instantiate */
    unsigned long long flags;
    p2n_graph_cond **conds;     /* the conditional handles made for this graph (references) */
    size_t nconds;
    p2n_graph *exec;            /* graphs with conditional or memory nodes: their one exec (checked live) */
};

/* ---- graph_core.c: objects ---- */
/* What a node type that owns resources does when a node is released or copied (clone, instantiate; dst starts as
 * a bitwise copy of src), and what a graph's own resources need (its conditional handles): set at load time by the
 * files above graph_core.c that own them. */
enum { P2N_GRAPH_NODE_TYPES = CU_GRAPH_NODE_TYPE_CONDITIONAL + 1 };
typedef struct p2n_graph_node_hooks {
    void (*release)(p2n_graph_node *n);
    CUresult (*copy)(p2n_graph_node *dst, const p2n_graph_node *src);
} p2n_graph_node_hooks;
typedef struct p2n_graph_hooks {
    void (*release)(p2n_graph *g);
    CUresult (*copy)(p2n_graph *dst, const p2n_graph *src);
} p2n_graph_hooks;
P2N_DRV_HIDDEN void p2n_drv_graph_node_hooks_set(CUgraphNodeType type, p2n_graph_node_hooks h);
P2N_DRV_HIDDEN void p2n_drv_graph_hooks_set(p2n_graph_hooks h);
P2N_DRV_HIDDEN CUresult p2n_drv_graph_new(p2n_ctx *c, uint32_t magic, p2n_graph **out);
P2N_DRV_HIDDEN void p2n_drv_graph_free(p2n_graph *g);
/* every top-level graph and exec of context c */
P2N_DRV_HIDDEN void p2n_drv_graph_release_ctx(p2n_ctx *c);
P2N_DRV_HIDDEN CUresult p2n_drv_graph_get(CUgraph h, p2n_graph **out);
P2N_DRV_HIDDEN CUresult p2n_drv_graph_exec_get(CUgraphExec h, p2n_graph **out);
P2N_DRV_HIDDEN CUresult p2n_drv_graph_node_get(CUgraphNode h, p2n_graph_node **out);
/* sets kernel node n's launch attribute id (id < P2N_KNODE_ATTR_SLOTS; checked by the caller) */
P2N_DRV_HIDDEN CUresult p2n_drv_graph_kernel_attr(p2n_graph_node *n, CUlaunchAttributeID id,
                                                  const CUlaunchAttributeValue *v);
/* a live node of `type` (INVALID_VALUE for another type: the *NodeGetParams/SetParams rule) */
P2N_DRV_HIDDEN CUresult p2n_drv_graph_node_typed(CUgraphNode h, CUgraphNodeType type, p2n_graph_node **out);
/* a node of type `type` in g after deps (validated: nodes of g, no repeats); its parameters are set by the caller */
P2N_DRV_HIDDEN CUresult p2n_drv_graph_node_new(p2n_graph *g, CUgraphNodeType type, const CUgraphNode *deps,
                                               size_t ndeps, p2n_graph_node **out);
P2N_DRV_HIDDEN void p2n_drv_graph_node_free(p2n_graph_node *n);
/* replaces a kernel node's parameters; takes ownership of `args` (the packed buffer of f's parameters) */
P2N_DRV_HIDDEN CUresult p2n_drv_graph_kernel_set(p2n_graph_node *n, p2n_func *f, const unsigned grid[3],
                                                 const unsigned block[3], unsigned shmem, uint8_t *args);
/* replaces dst's parameters by a copy of src's (same type); keeps dst's enabled state */
P2N_DRV_HIDDEN CUresult p2n_drv_graph_node_copy_params(p2n_graph_node *dst, const p2n_graph_node *src);
P2N_DRV_HIDDEN CUresult p2n_drv_graph_add_edge(p2n_graph_node *from, p2n_graph_node *to);
P2N_DRV_HIDDEN int p2n_drv_graph_has_edge(const p2n_graph_node *from, const p2n_graph_node *to);
P2N_DRV_HIDDEN void p2n_drv_graph_remove_edge(p2n_graph_node *from, p2n_graph_node *to);
/* deep copy (child graphs too); each copied node's twin is its original. The copy is owned by a node until
 * p2n_drv_graph_adopt makes it a top-level object (released with its context). */
P2N_DRV_HIDDEN CUresult p2n_drv_graph_clone(const p2n_graph *src, uint32_t magic, p2n_graph **out);
P2N_DRV_HIDDEN void p2n_drv_graph_adopt(p2n_graph *g);
/* g has conditional or memory nodes: CUDA (H100, recorded) refuses to clone it, to nest it as a child graph and to
 * instantiate it while an exec of it lives (CUDA_ERROR_NOT_SUPPORTED) */
P2N_DRV_HIDDEN int p2n_drv_graph_single_exec(const p2n_graph *g);
/* an empty graph owned by a node (a conditional node's body) */
P2N_DRV_HIDDEN CUresult p2n_drv_graph_new_body(p2n_ctx *c, p2n_graph **out);
/* g's nodes in a topological order (malloc'd array of g->nnodes); CUDA_ERROR_INVALID_VALUE on a cycle */
P2N_DRV_HIDDEN CUresult p2n_drv_graph_topo(const p2n_graph *g, p2n_graph_node ***order);

/* ---- graph_build.c: a node's parameters, validated and stored (old ones released); for graph and exec nodes ---- */
P2N_DRV_HIDDEN CUresult p2n_drv_graph_set_kernel(p2n_graph_node *n, const CUDA_KERNEL_NODE_PARAMS_v2 *p);
P2N_DRV_HIDDEN CUresult p2n_drv_graph_set_memcpy(p2n_graph_node *n, const CUDA_MEMCPY3D *p, CUcontext ctx);
P2N_DRV_HIDDEN CUresult p2n_drv_graph_set_memset(p2n_graph_node *n, const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx);
P2N_DRV_HIDDEN CUresult p2n_drv_graph_set_host(p2n_graph_node *n, const CUDA_HOST_NODE_PARAMS *p);
P2N_DRV_HIDDEN CUresult p2n_drv_graph_set_event(p2n_graph_node *n, CUevent e);
P2N_DRV_HIDDEN CUresult p2n_drv_graph_set_child(p2n_graph_node *n, CUgraph child);
/* writes the node's outputs back into p (an allocation's address, a conditional node's body graphs) */
P2N_DRV_HIDDEN CUresult p2n_drv_graph_set_generic(p2n_graph_node *n, CUgraphNodeParams *p);

/* ---- graph_cond.c ---- */
P2N_DRV_HIDDEN CUresult p2n_drv_graph_set_conditional(p2n_graph_node *n, CUDA_CONDITIONAL_NODE_PARAMS *p);
/* at the start of each execution of g: the handles made with CU_GRAPH_COND_ASSIGN_DEFAULT get their default */
P2N_DRV_HIDDEN CUresult p2n_drv_graph_cond_reset(const p2n_graph *g);
/* the value device code (or the default) gave the handle */
P2N_DRV_HIDDEN CUresult p2n_drv_graph_cond_value(const p2n_graph_cond *c, unsigned *value);

/* ---- graph_memnode.c ---- */
P2N_DRV_HIDDEN CUresult p2n_drv_graph_set_mem_alloc(p2n_graph_node *n, CUDA_MEM_ALLOC_NODE_PARAMS *p);
P2N_DRV_HIDDEN CUresult p2n_drv_graph_set_mem_free(p2n_graph_node *n, CUdeviceptr dptr);
/* an allocation node runs: its memory becomes valid (CUDA_ERROR_INVALID_VALUE while a previous launch's
 * allocation has not been freed, unless the exec frees it: CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH) */
P2N_DRV_HIDDEN CUresult p2n_drv_graph_mem_begin(p2n_graph_mem *m, unsigned long long exec_flags);
/* the allocation a previous launch made is still valid (graph_exec.c refuses the launch before any node runs) */
P2N_DRV_HIDDEN int p2n_drv_graph_mem_valid(const p2n_graph_mem *m);
/* a free node runs */
P2N_DRV_HIDDEN CUresult p2n_drv_graph_mem_end(CUdeviceptr dptr);
/* cuMemAllocAsync (dptr set) / cuMemFreeAsync (*dptr given) on a capturing stream: an allocation of `bytesize`
 * on `device` / a free node */
P2N_DRV_HIDDEN CUresult p2n_drv_capture_mem_alloc(CUstream s, int device, size_t bytesize, CUdeviceptr *dptr);
P2N_DRV_HIDDEN CUresult p2n_drv_capture_mem_free(CUstream s, CUdeviceptr dptr);

/* ---- graph_capture_state.c: stream capture. Each async entry point asks p2n_drv_capture_active(stream) first and, when
 * the stream captures, hands the operation to the matching p2n_drv_capture_* instead of executing it. ---- */
P2N_DRV_HIDDEN int p2n_drv_capture_active(CUstream s);
/* a capture records into g (it must not be destroyed, nor its nodes) */
P2N_DRV_HIDDEN int p2n_drv_capture_graph_busy(const p2n_graph *g);
P2N_DRV_HIDDEN CUresult p2n_drv_capture_begin(CUstream s, p2n_graph *g, int owns_graph, CUstreamCaptureMode mode,
                                              const CUgraphNode *deps, size_t ndeps);
/* want_graph == 0 (no place to return the graph): the capture ends; a graph it made itself is discarded */
P2N_DRV_HIDDEN CUresult p2n_drv_capture_end(CUstream s, p2n_graph **out, int want_graph);
P2N_DRV_HIDDEN CUresult p2n_drv_capture_update_deps(CUstream s, const CUgraphNode *deps, size_t ndeps, unsigned flags);
/* cluster / cooperative: the launch was a (one-block) cluster launch / a cooperative launch; the node keeps
 * CLUSTER_DIMENSION 1x1x1 / COOPERATIVE so that the graph launches it the same way */
P2N_DRV_HIDDEN CUresult p2n_drv_capture_kernel(CUstream s, p2n_func *f, int cluster, int cooperative,
                                               const unsigned grid[3],
                                               const unsigned block[3], unsigned shmem, uint8_t *args);
P2N_DRV_HIDDEN CUresult p2n_drv_capture_memcpy(CUstream s, const CUDA_MEMCPY3D *copy);
P2N_DRV_HIDDEN CUresult p2n_drv_capture_memcpy1d(CUstream s, CUdeviceptr dst, CUdeviceptr src, size_t n);
P2N_DRV_HIDDEN CUresult p2n_drv_capture_memset(CUstream s, CUdeviceptr dst, size_t pitch, unsigned value,
                                               unsigned esize, size_t width, size_t height);
P2N_DRV_HIDDEN CUresult p2n_drv_capture_host(CUstream s, CUhostFn fn, CUstreamCallback cb, void *user);
P2N_DRV_HIDDEN CUresult p2n_drv_capture_child(CUstream s, const p2n_graph *exec);
/* a node of `type` after the stream's capture dependencies, its parameters for the caller to set */
P2N_DRV_HIDDEN CUresult p2n_drv_capture_node(CUstream s, CUgraphNodeType type, p2n_graph_node **out);
P2N_DRV_HIDDEN void p2n_drv_capture_invalidate(CUstream s);
/* cuEventRecord on a capturing stream: the event stands for the stream's current capture dependencies */
P2N_DRV_HIDDEN CUresult p2n_drv_capture_event_record(CUstream s, CUevent e);
/* cuStreamWaitEvent: an event captured in a capture forks it into (or joins) s; *handled = 1 when it did */
P2N_DRV_HIDDEN CUresult p2n_drv_capture_wait_event(CUstream s, CUevent e, int *handled);
/* cuEventRecordWithFlags(CU_EVENT_RECORD_EXTERNAL), cuStreamWaitEvent(CU_EVENT_WAIT_EXTERNAL) on a capturing
 * stream: an event record / wait node */
P2N_DRV_HIDDEN CUresult p2n_drv_capture_event_node(CUstream s, CUevent e, CUgraphNodeType type);
/* cuEventSynchronize/Query of an event last recorded in a capture: CUDA_ERROR_CAPTURED_EVENT (destroy == 0);
 * cuEventDestroy, or a record outside a capture: forget it (destroy != 0) */
P2N_DRV_HIDDEN CUresult p2n_drv_capture_event_use(CUevent e, int destroy);
/* a stream used with a blocking call (sync, query): CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED when it captures (the
 * capture is invalidated); the legacy stream while a blocking stream captures: CUDA_ERROR_STREAM_CAPTURE_IMPLICIT */
P2N_DRV_HIDDEN CUresult p2n_drv_capture_sync_check(CUstream s);
P2N_DRV_HIDDEN CUresult p2n_drv_capture_legacy_check(CUstream s);
P2N_DRV_HIDDEN void p2n_drv_capture_stream_gone(CUstream s);
/* cuThreadExchangeStreamCaptureMode: sets the calling thread's mode, returns the old one */
P2N_DRV_HIDDEN CUstreamCaptureMode p2n_drv_capture_exchange_mode(CUstreamCaptureMode mode);
P2N_DRV_HIDDEN CUresult p2n_drv_capture_query(CUstream s, CUstreamCaptureStatus *status, cuuint64_t *id,
                                              CUgraph *graph, const CUgraphNode **deps,
                                              const CUgraphEdgeData **edges, size_t *ndeps);

#endif
