/* graph_build.c — CUDA graph construction and queries: cuGraphCreate/Destroy/Clone, cuGraphAdd*Node (kernel,
 * memcpy, memset, host, empty, child graph, event record/wait; cuGraphAddNode with CUgraphNodeParams), their
 * Get/SetParams, edges (add/remove, v1 and v2 with default edge data), node and edge queries, cuGraphDestroyNode,
 * cuGraphDebugDotPrint. A kernel node copies its argument VALUES when its parameters are set, as CUDA does.
 * Memory alloc/free nodes, external semaphore, batch memop and conditional nodes are refused (api-status.txt).
 */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

/* ---- shared checks ---- */

static CUresult edge_data_ok(const CUgraphEdgeData *e, size_t n)
{
    /* only full-completion edges: ports and programmatic dependency types need concurrent kernels */
    for (size_t i = 0; e && i < n; i++)
        if (e[i].from_port || e[i].to_port || e[i].type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT)
            return CUDA_ERROR_NOT_SUPPORTED;
    return CUDA_SUCCESS;
}

/* the context a node's work runs in must be the graph's */
static CUresult ctx_ok(CUcontext ctx, const p2n_graph *g)
{
    if (ctx && (p2n_ctx *)ctx != g->ctx)
        return CUDA_ERROR_INVALID_CONTEXT;
    return CUDA_SUCCESS;
}

/* ---- per-type parameters: validated, then stored in node n (which may be a graph's or an exec's) ---- */

CUresult p2n_drv_graph_set_kernel(p2n_graph_node *n, const CUDA_KERNEL_NODE_PARAMS_v2 *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    /* cudart passes a CUkernel, which is a p2n_func here too (module.c) */
    CUfunction hf = p->func ? p->func : (CUfunction)p->kern;
    if (!p2n_drv_is_live(hf, P2N_MAGIC_FUNC))
        return CUDA_ERROR_INVALID_VALUE;
    p2n_func *f = (p2n_func *)hf;
    if (ctx_ok(p->ctx, n->graph) != CUDA_SUCCESS)
        return CUDA_ERROR_INVALID_CONTEXT;
    const unsigned grid[3] = {p->gridDimX, p->gridDimY, p->gridDimZ};
    const unsigned block[3] = {p->blockDimX, p->blockDimY, p->blockDimZ};
    for (int d = 0; d < 3; d++)
        if (!grid[d] || !block[d])
            return CUDA_ERROR_INVALID_VALUE;
    uint8_t *args = NULL;
    CUresult r = p2n_drv_pack_params(f, p->kernelParams, p->extra, &args);
    if (r != CUDA_SUCCESS)
        return r;
    return p2n_drv_graph_kernel_set(n, f, grid, block, p->sharedMemBytes, args);
}

static CUDA_KERNEL_NODE_PARAMS_v2 kernel_v1_to_v2(const CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
    CUDA_KERNEL_NODE_PARAMS_v2 v;
    memset(&v, 0, sizeof v);
    v.func = p->func;
    v.gridDimX = p->gridDimX;
    v.gridDimY = p->gridDimY;
    v.gridDimZ = p->gridDimZ;
    v.blockDimX = p->blockDimX;
    v.blockDimY = p->blockDimY;
    v.blockDimZ = p->blockDimZ;
    v.sharedMemBytes = p->sharedMemBytes;
    v.kernelParams = p->kernelParams;
    v.extra = p->extra;
    return v;
}

CUresult p2n_drv_graph_set_memcpy(p2n_graph_node *n, const CUDA_MEMCPY3D *p, CUcontext ctx)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = ctx_ok(ctx, n->graph);
    if (r != CUDA_SUCCESS)
        return r;
    if (!p->WidthInBytes || !p->Height || !p->Depth)
        return CUDA_ERROR_INVALID_VALUE;   /* CUDA: a memcpy node must copy something */
    n->p.memcpy = *p;
    return CUDA_SUCCESS;
}

CUresult p2n_drv_graph_set_memset(p2n_graph_node *n, const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = ctx_ok(ctx, n->graph);
    if (r != CUDA_SUCCESS)
        return r;
    if ((p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) || !p->width || !p->height ||
        (p->height > 1 && p->pitch < p->width * p->elementSize) ||
        (!p2n_drv_alloc_find(p->dst, 1, NULL) && !p2n_drv_alloc_reserved(p->dst, 1)))
        return CUDA_ERROR_INVALID_VALUE;
    n->p.memset = *p;
    return CUDA_SUCCESS;
}

CUresult p2n_drv_graph_set_host(p2n_graph_node *n, const CUDA_HOST_NODE_PARAMS *p)
{
    if (!p || !p->fn)
        return CUDA_ERROR_INVALID_VALUE;
    n->p.host.fn = p->fn;
    n->p.host.callback = NULL;
    n->p.host.user = p->userData;
    return CUDA_SUCCESS;
}

CUresult p2n_drv_graph_set_event(p2n_graph_node *n, CUevent e)
{
    if (!p2n_drv_is_live(e, P2N_MAGIC_EVENT))
        return CUDA_ERROR_INVALID_VALUE;
    n->p.event = e;
    return CUDA_SUCCESS;
}

CUresult p2n_drv_graph_set_child(p2n_graph_node *n, CUgraph child)
{
    p2n_graph *cg;
    CUresult r = p2n_drv_graph_get(child, &cg);
    if (r != CUDA_SUCCESS)
        return r;
    if (cg == n->graph)
        return CUDA_ERROR_INVALID_VALUE;
    if (p2n_drv_graph_single_exec(cg))
        return CUDA_ERROR_NOT_SUPPORTED;
    p2n_graph *copy;
    r = p2n_drv_graph_clone(cg, P2N_MAGIC_GRAPH, &copy);   /* CUDA clones the child graph into the node */
    if (r != CUDA_SUCCESS)
        return r;
    if (n->p.child)
        p2n_drv_graph_free(n->p.child);
    n->p.child = copy;
    return CUDA_SUCCESS;
}

/* ---- adding nodes ---- */

static CUresult add_node(CUgraphNode *ph, CUgraph hGraph, const CUgraphNode *deps, size_t ndeps,
                         CUgraphNodeType type, CUresult (*set)(p2n_graph_node *, const void *, CUcontext),
                         const void *params, CUcontext ctx)
{
    p2n_graph *g;
    CUresult r = p2n_drv_graph_get(hGraph, &g);
    if (r != CUDA_SUCCESS)
        return r;
    if (!ph)
        return CUDA_ERROR_INVALID_VALUE;
    p2n_graph_node *n;
    r = p2n_drv_graph_node_new(g, type, deps, ndeps, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (set)
        r = set(n, params, ctx);
    if (r != CUDA_SUCCESS) {
        n->type = CU_GRAPH_NODE_TYPE_EMPTY;   /* nothing of it to free */
        p2n_drv_graph_node_free(n);
        return r;
    }
    *ph = (CUgraphNode)n;
    return CUDA_SUCCESS;
}

static CUresult set_kernel_v2(p2n_graph_node *n, const void *p, CUcontext ctx)
{ (void)ctx; return p2n_drv_graph_set_kernel(n, p); }
static CUresult set_kernel_v1(p2n_graph_node *n, const void *p, CUcontext ctx)
{
    (void)ctx;
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_KERNEL_NODE_PARAMS_v2 v = kernel_v1_to_v2(p);
    return p2n_drv_graph_set_kernel(n, &v);
}
static CUresult set_memcpy(p2n_graph_node *n, const void *p, CUcontext ctx) { return p2n_drv_graph_set_memcpy(n, p, ctx); }
static CUresult set_memset(p2n_graph_node *n, const void *p, CUcontext ctx) { return p2n_drv_graph_set_memset(n, p, ctx); }
static CUresult set_host(p2n_graph_node *n, const void *p, CUcontext ctx) { (void)ctx; return p2n_drv_graph_set_host(n, p); }
static CUresult set_event(p2n_graph_node *n, const void *p, CUcontext ctx) { (void)ctx; return p2n_drv_graph_set_event(n, (CUevent)p); }
static CUresult set_child(p2n_graph_node *n, const void *p, CUcontext ctx) { (void)ctx; return p2n_drv_graph_set_child(n, (CUgraph)p); }

CUresult cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!phGraph || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    p2n_graph *g;
    r = p2n_drv_graph_new(c, P2N_MAGIC_GRAPH, &g);
    if (r == CUDA_SUCCESS)
        *phGraph = (CUgraph)g;
    return r;
}

CUresult cuGraphDestroy(CUgraph hGraph)
{
    p2n_graph *g;
    CUresult r = p2n_drv_graph_get(hGraph, &g);
    if (r != CUDA_SUCCESS)
        return r;
    if (g->owned_by_node)
        return CUDA_ERROR_INVALID_VALUE;   /* a child graph goes with its node */
    if (p2n_drv_capture_graph_busy(g))
        return CUDA_ERROR_ILLEGAL_STATE;   /* a stream captures into it */
    p2n_drv_graph_free(g);
    return CUDA_SUCCESS;
}

CUresult cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                              size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, CU_GRAPH_NODE_TYPE_KERNEL, set_kernel_v1,
                    nodeParams, NULL);
}

CUresult cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                 size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, CU_GRAPH_NODE_TYPE_KERNEL, set_kernel_v2,
                    nodeParams, NULL);
}

CUresult cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                              size_t numDependencies, const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, CU_GRAPH_NODE_TYPE_MEMCPY, set_memcpy,
                    copyParams, ctx);
}

CUresult cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                              size_t numDependencies, const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx)
{
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, CU_GRAPH_NODE_TYPE_MEMSET, set_memset,
                    memsetParams, ctx);
}

CUresult cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                            size_t numDependencies, const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, CU_GRAPH_NODE_TYPE_HOST, set_host,
                    nodeParams, NULL);
}

CUresult cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                             size_t numDependencies)
{
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, CU_GRAPH_NODE_TYPE_EMPTY, NULL, NULL, NULL);
}

CUresult cuGraphAddChildGraphNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                  size_t numDependencies, CUgraph childGraph)
{
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, CU_GRAPH_NODE_TYPE_GRAPH, set_child,
                    childGraph, NULL);
}

CUresult cuGraphAddEventRecordNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                   size_t numDependencies, CUevent event)
{
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, CU_GRAPH_NODE_TYPE_EVENT_RECORD, set_event,
                    event, NULL);
}

CUresult cuGraphAddEventWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                 size_t numDependencies, CUevent event)
{
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, CU_GRAPH_NODE_TYPE_WAIT_EVENT, set_event,
                    event, NULL);
}

/* ---- the generic node parameters (cuGraphAddNode, cuGraphNodeSetParams, cuGraphExecNodeSetParams) ---- */

CUresult p2n_drv_graph_set_generic(p2n_graph_node *n, CUgraphNodeParams *p)
{
    if (!p || p->type != n->type)
        return CUDA_ERROR_INVALID_VALUE;
    switch (p->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: {
        _Static_assert(sizeof(CUDA_KERNEL_NODE_PARAMS_v3) == sizeof(CUDA_KERNEL_NODE_PARAMS_v2), "same fields");
        CUDA_KERNEL_NODE_PARAMS_v2 v;
        memcpy(&v, &p->kernel, sizeof v);
        return p2n_drv_graph_set_kernel(n, &v);
    }
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        return p2n_drv_graph_set_memcpy(n, &p->memcpy.copyParams, p->memcpy.copyCtx);
    case CU_GRAPH_NODE_TYPE_MEMSET: {
        CUDA_MEMSET_NODE_PARAMS v = {p->memset.dst, p->memset.pitch, p->memset.value, p->memset.elementSize,
                                     p->memset.width, p->memset.height};
        return p2n_drv_graph_set_memset(n, &v, p->memset.ctx);
    }
    case CU_GRAPH_NODE_TYPE_HOST: {
        CUDA_HOST_NODE_PARAMS v = {p->host.fn, p->host.userData};
        return p2n_drv_graph_set_host(n, &v);
    }
    case CU_GRAPH_NODE_TYPE_GRAPH:
        if (p->graph.ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE)
            return CUDA_ERROR_NOT_SUPPORTED;   /* moving a graph into the node is not implemented */
        return p2n_drv_graph_set_child(n, p->graph.graph);
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        return p2n_drv_graph_set_event(n, p->eventRecord.event);
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        return p2n_drv_graph_set_event(n, p->eventWait.event);
    case CU_GRAPH_NODE_TYPE_EMPTY:
        return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        _Static_assert(sizeof(CUDA_MEM_ALLOC_NODE_PARAMS_v2) == sizeof(CUDA_MEM_ALLOC_NODE_PARAMS), "same fields");
        return p2n_drv_graph_set_mem_alloc(n, (CUDA_MEM_ALLOC_NODE_PARAMS *)&p->alloc);
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
        return p2n_drv_graph_set_mem_free(n, p->free.dptr);
    case CU_GRAPH_NODE_TYPE_CONDITIONAL:
        return p2n_drv_graph_set_conditional(n, &p->conditional);
    default:
        return CUDA_ERROR_NOT_SUPPORTED;   /* semaphore and batch memop nodes */
    }
}

static CUresult set_generic(p2n_graph_node *n, const void *p, CUcontext ctx)
{ (void)ctx; return p2n_drv_graph_set_generic(n, (CUgraphNodeParams *)p); }   /* some nodes write outputs back */

static CUresult add_generic(CUgraphNode *ph, CUgraph hGraph, const CUgraphNode *deps, const CUgraphEdgeData *edges,
                            size_t ndeps, CUgraphNodeParams *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = edge_data_ok(edges, ndeps);
    if (r != CUDA_SUCCESS)
        return r;
    switch (p->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: case CU_GRAPH_NODE_TYPE_MEMCPY: case CU_GRAPH_NODE_TYPE_MEMSET:
    case CU_GRAPH_NODE_TYPE_HOST: case CU_GRAPH_NODE_TYPE_GRAPH: case CU_GRAPH_NODE_TYPE_EMPTY:
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: case CU_GRAPH_NODE_TYPE_EVENT_RECORD: case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
    case CU_GRAPH_NODE_TYPE_MEM_FREE: case CU_GRAPH_NODE_TYPE_CONDITIONAL:
        break;
    default:
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    return add_node(ph, hGraph, deps, ndeps, p->type, set_generic, p, NULL);
}

CUresult cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                        size_t numDependencies, CUgraphNodeParams *nodeParams)
{ return add_generic(phGraphNode, hGraph, dependencies, NULL, numDependencies, nodeParams); }

CUresult cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                           const CUgraphEdgeData *dependencyData, size_t numDependencies,
                           CUgraphNodeParams *nodeParams)
{ return add_generic(phGraphNode, hGraph, dependencies, dependencyData, numDependencies, nodeParams); }

CUresult cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                size_t numDependencies, CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
    memcpy(&p.alloc, nodeParams, sizeof *nodeParams);
    CUresult r = add_generic(phGraphNode, hGraph, dependencies, NULL, numDependencies, &p);
    if (r == CUDA_SUCCESS)
        nodeParams->dptr = p.alloc.dptr;
    return r;
}

CUresult cuGraphAddMemFreeNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                               size_t numDependencies, CUdeviceptr dptr)
{
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
    p.free.dptr = dptr;
    return add_generic(phGraphNode, hGraph, dependencies, NULL, numDependencies, &p);
}

CUresult cuGraphNodeSetParams(CUgraphNode hNode, CUgraphNodeParams *nodeParams)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_get(hNode, &n);
    if (r != CUDA_SUCCESS)
        return r;
    return p2n_drv_graph_set_generic(n, nodeParams);
}

/* ---- per-type Get/SetParams ---- */

static void kernel_get(const p2n_graph_node *n, CUDA_KERNEL_NODE_PARAMS_v2 *p)
{
    const p2n_kernel_node *k = &n->p.kernel;
    memset(p, 0, sizeof *p);
    p->func = (CUfunction)k->func;
    p->gridDimX = k->grid[0];
    p->gridDimY = k->grid[1];
    p->gridDimZ = k->grid[2];
    p->blockDimX = k->block[0];
    p->blockDimY = k->block[1];
    p->blockDimZ = k->block[2];
    p->sharedMemBytes = k->shmem;
    p->kernelParams = k->arg_ptrs;   /* the node's copies of the values, as CUDA returns */
    p->kern = (CUkernel)k->func;
    p->ctx = (CUcontext)n->graph->ctx;
}

CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_typed(hNode, CU_GRAPH_NODE_TYPE_KERNEL, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    kernel_get(n, nodeParams);
    return CUDA_SUCCESS;
}

CUresult cuGraphKernelNodeGetParams(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_typed(hNode, CU_GRAPH_NODE_TYPE_KERNEL, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_KERNEL_NODE_PARAMS_v2 v;
    kernel_get(n, &v);
    memcpy(nodeParams, &v, sizeof *nodeParams);   /* v1 is v2's prefix */
    return CUDA_SUCCESS;
}

CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_typed(hNode, CU_GRAPH_NODE_TYPE_KERNEL, &n);
    return r != CUDA_SUCCESS ? r : p2n_drv_graph_set_kernel(n, nodeParams);
}

CUresult cuGraphKernelNodeSetParams(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_typed(hNode, CU_GRAPH_NODE_TYPE_KERNEL, &n);
    return r != CUDA_SUCCESS ? r : set_kernel_v1(n, nodeParams, NULL);
}

CUresult cuGraphMemcpyNodeGetParams(CUgraphNode hNode, CUDA_MEMCPY3D *nodeParams)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_typed(hNode, CU_GRAPH_NODE_TYPE_MEMCPY, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    *nodeParams = n->p.memcpy;
    return CUDA_SUCCESS;
}

CUresult cuGraphMemcpyNodeSetParams(CUgraphNode hNode, const CUDA_MEMCPY3D *nodeParams)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_typed(hNode, CU_GRAPH_NODE_TYPE_MEMCPY, &n);
    return r != CUDA_SUCCESS ? r : p2n_drv_graph_set_memcpy(n, nodeParams, NULL);
}

CUresult cuGraphMemsetNodeGetParams(CUgraphNode hNode, CUDA_MEMSET_NODE_PARAMS *nodeParams)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_typed(hNode, CU_GRAPH_NODE_TYPE_MEMSET, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    *nodeParams = n->p.memset;
    return CUDA_SUCCESS;
}

CUresult cuGraphMemsetNodeSetParams(CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS *nodeParams)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_typed(hNode, CU_GRAPH_NODE_TYPE_MEMSET, &n);
    return r != CUDA_SUCCESS ? r : p2n_drv_graph_set_memset(n, nodeParams, NULL);
}

CUresult cuGraphHostNodeGetParams(CUgraphNode hNode, CUDA_HOST_NODE_PARAMS *nodeParams)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_typed(hNode, CU_GRAPH_NODE_TYPE_HOST, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    nodeParams->fn = n->p.host.fn;
    nodeParams->userData = n->p.host.user;
    return CUDA_SUCCESS;
}

CUresult cuGraphHostNodeSetParams(CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_typed(hNode, CU_GRAPH_NODE_TYPE_HOST, &n);
    return r != CUDA_SUCCESS ? r : p2n_drv_graph_set_host(n, nodeParams);
}

CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode hNode, CUgraph *phGraph)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_typed(hNode, CU_GRAPH_NODE_TYPE_GRAPH, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (!phGraph)
        return CUDA_ERROR_INVALID_VALUE;
    *phGraph = (CUgraph)n->p.child;
    return CUDA_SUCCESS;
}

static CUresult event_get(CUgraphNode hNode, CUgraphNodeType type, CUevent *out)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_typed(hNode, type, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    *out = n->p.event;
    return CUDA_SUCCESS;
}

static CUresult event_set(CUgraphNode hNode, CUgraphNodeType type, CUevent e)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_typed(hNode, type, &n);
    return r != CUDA_SUCCESS ? r : p2n_drv_graph_set_event(n, e);
}

CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode hNode, CUevent *event_out)
{ return event_get(hNode, CU_GRAPH_NODE_TYPE_EVENT_RECORD, event_out); }
CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode hNode, CUevent event)
{ return event_set(hNode, CU_GRAPH_NODE_TYPE_EVENT_RECORD, event); }
CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode hNode, CUevent *event_out)
{ return event_get(hNode, CU_GRAPH_NODE_TYPE_WAIT_EVENT, event_out); }
CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode hNode, CUevent event)
{ return event_set(hNode, CU_GRAPH_NODE_TYPE_WAIT_EVENT, event); }

/* ---- edges ---- */

static CUresult edges_prologue(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                               const CUgraphEdgeData *edges, size_t n, p2n_graph **g)
{
    CUresult r = p2n_drv_graph_get(hGraph, g);
    if (r != CUDA_SUCCESS)
        return r;
    if (n && (!from || !to))
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < n; i++) {
        if (!p2n_drv_is_live(from[i], P2N_MAGIC_GRAPH_NODE) || !p2n_drv_is_live(to[i], P2N_MAGIC_GRAPH_NODE) ||
            ((p2n_graph_node *)from[i])->graph != *g || ((p2n_graph_node *)to[i])->graph != *g || from[i] == to[i])
            return CUDA_ERROR_INVALID_VALUE;
    }
    return edge_data_ok(edges, n);
}

static CUresult add_deps(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                         const CUgraphEdgeData *edges, size_t n)
{
    p2n_graph *g;
    CUresult r = edges_prologue(hGraph, from, to, edges, n, &g);
    if (r != CUDA_SUCCESS)
        return r;
    for (size_t i = 0; i < n; i++)   /* an existing edge is an error, and nothing is added then */
        if (p2n_drv_graph_has_edge((p2n_graph_node *)from[i], (p2n_graph_node *)to[i]))
            return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < n && r == CUDA_SUCCESS; i++)
        r = p2n_drv_graph_add_edge((p2n_graph_node *)from[i], (p2n_graph_node *)to[i]);
    return r;
}

static CUresult remove_deps(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                            const CUgraphEdgeData *edges, size_t n)
{
    p2n_graph *g;
    CUresult r = edges_prologue(hGraph, from, to, edges, n, &g);
    if (r != CUDA_SUCCESS)
        return r;
    for (size_t i = 0; i < n; i++)
        if (!p2n_drv_graph_has_edge((p2n_graph_node *)from[i], (p2n_graph_node *)to[i]))
            return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < n; i++)
        p2n_drv_graph_remove_edge((p2n_graph_node *)from[i], (p2n_graph_node *)to[i]);
    return CUDA_SUCCESS;
}

CUresult cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                size_t numDependencies)
{ return add_deps(hGraph, from, to, NULL, numDependencies); }
CUresult cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                   const CUgraphEdgeData *edgeData, size_t numDependencies)
{ return add_deps(hGraph, from, to, edgeData, numDependencies); }
CUresult cuGraphRemoveDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                   size_t numDependencies)
{ return remove_deps(hGraph, from, to, NULL, numDependencies); }
CUresult cuGraphRemoveDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                      const CUgraphEdgeData *edgeData, size_t numDependencies)
{ return remove_deps(hGraph, from, to, edgeData, numDependencies); }

CUresult cuGraphDestroyNode(CUgraphNode hNode)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_get(hNode, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (p2n_drv_capture_graph_busy(n->graph))
        return CUDA_ERROR_ILLEGAL_STATE;   /* a capture may depend on it */
    p2n_drv_graph_node_free(n);
    return CUDA_SUCCESS;
}

CUresult cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph)
{
    p2n_graph *g;
    CUresult r = p2n_drv_graph_get(originalGraph, &g);
    if (r != CUDA_SUCCESS)
        return r;
    if (!phGraphClone)
        return CUDA_ERROR_INVALID_VALUE;
    if (p2n_drv_graph_single_exec(g))
        return CUDA_ERROR_NOT_SUPPORTED;
    p2n_graph *copy;
    r = p2n_drv_graph_clone(g, P2N_MAGIC_GRAPH, &copy);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_drv_graph_adopt(copy);
    *phGraphClone = (CUgraph)copy;
    return CUDA_SUCCESS;
}

