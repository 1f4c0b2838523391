/* graph_exec.c — instantiated graphs: cuGraphInstantiate (v1, v2, WithFlags, WithParams), cuGraphLaunch,
 * cuGraphUpload, cuGraphExecDestroy/GetFlags, cuGraphExec*NodeSetParams, cuGraphNodeSet/GetEnabled and
 * cuGraphExecUpdate (v1, v2).
 *
 * Launching an exec runs its nodes on the calling thread, after its stream's queued work (stream_queue.c's
 * inline mode: the nodes' stream operations are not queued), in the topological order computed at
 * instantiation, each through the entry point its stream operation has (cuLaunchKernel, cuMemcpyAsync, ...), so a
 * node's errors are that entry point's: a kernel's sticky error poisons the context and the launch reports success,
 * the next call the error, as for cuLaunchKernel. cuGraphLaunch on a capturing stream records the exec as a child
 * graph node.
 */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

/* the topological order of g and of every child graph in it (INVALID_VALUE on a cycle, *err = the node) */
static CUresult prepare(p2n_graph *g, p2n_graph_node **err)
{
    free(g->order);
    g->order = NULL;
    CUresult r = p2n_drv_graph_topo(g, &g->order);
    if (r != CUDA_SUCCESS) {
        *err = g->nnodes ? g->nodes[0] : NULL;
        return r;
    }
    for (size_t i = 0; i < g->nnodes && r == CUDA_SUCCESS; i++) {
        const p2n_graph_node *n = g->nodes[i];
        if (n->type == CU_GRAPH_NODE_TYPE_GRAPH)
            r = prepare(n->p.child, err);
        for (unsigned b = 0; n->type == CU_GRAPH_NODE_TYPE_CONDITIONAL && b < n->p.cond.size && r == CUDA_SUCCESS; b++)
            r = prepare(n->p.cond.body[b], err);
    }
    return r;
}

static CUresult instantiate(CUgraphExec *phExec, CUgraph hGraph, unsigned long long flags, CUgraphNode *errNode,
                            CUgraphInstantiateResult *result)
{
    if (result)
        *result = CUDA_GRAPH_INSTANTIATE_ERROR;
    p2n_graph *g;
    CUresult r = p2n_drv_graph_get(hGraph, &g);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_ctx *c;
    r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!phExec)
        return CUDA_ERROR_INVALID_VALUE;
    const unsigned long long known = CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH |
                                     CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD | CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH |
                                     CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
    if (flags & ~known)
        return CUDA_ERROR_INVALID_VALUE;
    if (flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH)
        return CUDA_ERROR_NOT_SUPPORTED;   /* device code cannot launch graphs here (no device runtime) */
    int single = p2n_drv_graph_single_exec(g);
    if (single && g->exec && p2n_drv_is_live(g->exec, P2N_MAGIC_GRAPH_EXEC))
        return CUDA_ERROR_NOT_SUPPORTED;   /* one exec at a time of a graph with conditional or memory nodes */
    p2n_graph *exec;
    r = p2n_drv_graph_clone(g, P2N_MAGIC_GRAPH_EXEC, &exec);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_graph_node *bad = NULL;
    r = prepare(exec, &bad);
    if (r != CUDA_SUCCESS) {
        if (errNode)
            *errNode = bad ? (CUgraphNode)bad->twin : NULL;
        p2n_drv_graph_free(exec);
        return r;
    }
    exec->flags = flags;
    if (single)
        g->exec = exec;
    p2n_drv_graph_adopt(exec);
    *phExec = (CUgraphExec)exec;
    if (result)
        *result = CUDA_GRAPH_INSTANTIATE_SUCCESS;
    return CUDA_SUCCESS;
}

static CUresult instantiate_v1(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer,
                               size_t bufferSize)
{
    if (logBuffer && bufferSize)
        logBuffer[0] = '\0';
    CUresult r = instantiate(phGraphExec, hGraph, 0, phErrorNode, NULL);
    if (r == CUDA_ERROR_INVALID_VALUE && logBuffer && bufferSize)
        strncat(logBuffer, "graph has a cycle", bufferSize - 1);
    return r;
}

CUresult cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer,
                            size_t bufferSize)
{ return instantiate_v1(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize); }

CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer,
                               size_t bufferSize)
{ return instantiate_v1(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize); }

CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)
{ return instantiate(phGraphExec, hGraph, flags, NULL, NULL); }

static CUresult instantiate_with_params(CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    p->hErrNode_out = NULL;
    if (p->flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD) {
        p2n_ctx *c;
        CUresult r = p2n_drv_get_ctx(NULL, &c);
        if (r == CUDA_SUCCESS)
            r = p2n_drv_check_stream(p->hUploadStream, c);
        if (r != CUDA_SUCCESS)
            return r;
    }
    return instantiate(phGraphExec, hGraph, p->flags, &p->hErrNode_out, &p->result_out);
}

CUresult cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
                                      CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{ return instantiate_with_params(phGraphExec, hGraph, instantiateParams); }
CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph,
                                           CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{ return instantiate_with_params(phGraphExec, hGraph, instantiateParams); }

CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)
{
    p2n_graph *e;
    CUresult r = p2n_drv_graph_exec_get(hGraphExec, &e);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_drv_graph_free(e);
    return CUDA_SUCCESS;
}

CUresult cuGraphExecGetFlags(CUgraphExec hGraphExec, cuuint64_t *flags)
{
    p2n_graph *e;
    CUresult r = p2n_drv_graph_exec_get(hGraphExec, &e);
    if (r != CUDA_SUCCESS)
        return r;
    if (!flags)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = e->flags;
    return CUDA_SUCCESS;
}

/* ---- launch ---- */

static CUresult run_memset(const CUDA_MEMSET_NODE_PARAMS *m, CUstream s)
{
    if (m->height <= 1) {
        switch (m->elementSize) {
        case 1: return cuMemsetD8Async(m->dst, (unsigned char)m->value, m->width, s);
        case 2: return cuMemsetD16Async(m->dst, (unsigned short)m->value, m->width, s);
        default: return cuMemsetD32Async(m->dst, m->value, m->width, s);
        }
    }
    switch (m->elementSize) {
    case 1: return cuMemsetD2D8Async(m->dst, m->pitch, (unsigned char)m->value, m->width, m->height, s);
    case 2: return cuMemsetD2D16Async(m->dst, m->pitch, (unsigned short)m->value, m->width, m->height, s);
    default: return cuMemsetD2D32Async(m->dst, m->pitch, m->value, m->width, m->height, s);
    }
}

static CUresult run_memcpy(const CUDA_MEMCPY3D *c, CUstream s)
{
    /* a captured 1D copy (unified addresses on both sides) */
    if (c->srcMemoryType == CU_MEMORYTYPE_UNIFIED && c->dstMemoryType == CU_MEMORYTYPE_UNIFIED && c->Height <= 1 &&
        c->Depth <= 1 && !c->srcXInBytes && !c->dstXInBytes && !c->srcY && !c->dstY && !c->srcZ && !c->dstZ)
        return cuMemcpyAsync(c->dstDevice, c->srcDevice, c->WidthInBytes, s);
    return cuMemcpy3DAsync_v2(c, s);
}

static CUresult run_kernel(const p2n_kernel_node *k, CUstream s)
{
    const unsigned launch_attrs = 1u << CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION | 1u << CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    if (!(k->attr_set & launch_attrs))
        return cuLaunchKernel((CUfunction)k->func, k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1],
                              k->block[2], k->shmem, s, k->arg_ptrs, NULL);
    /* a cluster launch (of one-block clusters: graph_attr.c) and/or a cooperative one; the node's other attributes
     * are hints */
    CUlaunchAttribute at[2];
    unsigned nat = 0;
    memset(at, 0, sizeof at);
    if (k->attr_set & (1u << CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)) {
        at[nat].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        at[nat++].value = k->attrs[CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION];
    }
    if (k->attr_set & (1u << CU_LAUNCH_ATTRIBUTE_COOPERATIVE)) {
        at[nat].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        at[nat++].value = k->attrs[CU_LAUNCH_ATTRIBUTE_COOPERATIVE];
    }
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = k->grid[0];
    cfg.gridDimY = k->grid[1];
    cfg.gridDimZ = k->grid[2];
    cfg.blockDimX = k->block[0];
    cfg.blockDimY = k->block[1];
    cfg.blockDimZ = k->block[2];
    cfg.sharedMemBytes = k->shmem;
    cfg.hStream = s;
    cfg.attrs = at;
    cfg.numAttrs = nat;
    return cuLaunchKernelEx(&cfg, (CUfunction)k->func, k->arg_ptrs, NULL);
}

static CUresult run_graph(const p2n_graph *g, CUstream s, unsigned long long flags);

/* the nodes before it have finished (they run on this thread): the handle's slot holds the condition */
static CUresult run_conditional(const p2n_cond_node *k, CUstream s, unsigned long long flags)
{
    unsigned v;
    CUresult r = p2n_drv_graph_cond_value(k->cond, &v);
    switch (k->type) {
    case CU_GRAPH_COND_TYPE_IF:
        if (r == CUDA_SUCCESS && (v || k->size == 2))
            r = run_graph(k->body[v ? 0 : 1], s, flags);
        break;
    case CU_GRAPH_COND_TYPE_WHILE:
        while (r == CUDA_SUCCESS && v && (r = run_graph(k->body[0], s, flags)) == CUDA_SUCCESS)
            r = p2n_drv_graph_cond_value(k->cond, &v);
        break;
    default:   /* SWITCH: a value matching no body runs none */
        if (r == CUDA_SUCCESS && v < k->size)
            r = run_graph(k->body[v], s, flags);
        break;
    }
    return r;
}

static CUresult run_graph(const p2n_graph *g, CUstream s, unsigned long long flags)
{
    CUresult r = p2n_drv_graph_cond_reset(g);
    for (size_t i = 0; i < g->nnodes && r == CUDA_SUCCESS; i++) {
        const p2n_graph_node *n = g->order[i];
        if (!n->enabled)
            continue;
        switch (n->type) {
        case CU_GRAPH_NODE_TYPE_KERNEL:
            r = run_kernel(&n->p.kernel, s);
            break;
        case CU_GRAPH_NODE_TYPE_MEMCPY:
            r = run_memcpy(&n->p.memcpy, s);
            break;
        case CU_GRAPH_NODE_TYPE_MEMSET:
            r = run_memset(&n->p.memset, s);
            break;
        case CU_GRAPH_NODE_TYPE_HOST:
            if (n->p.host.fn)
                n->p.host.fn(n->p.host.user);
            else
                n->p.host.callback(s, CUDA_SUCCESS, n->p.host.user);
            break;
        case CU_GRAPH_NODE_TYPE_GRAPH:
            r = run_graph(n->p.child, s, flags);
            break;
        case CU_GRAPH_NODE_TYPE_CONDITIONAL:
            r = run_conditional(&n->p.cond, s, flags);
            break;
        case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
            r = p2n_drv_graph_mem_begin(n->p.alloc, flags);
            break;
        case CU_GRAPH_NODE_TYPE_MEM_FREE:
            r = p2n_drv_graph_mem_end(n->p.free_ptr);
            break;
        case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
            r = cuEventRecord(n->p.event, s);
            break;
        case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
            r = cuStreamWaitEvent(s, n->p.event, 0);
            break;
        default:
            break;   /* empty */
        }
    }
    return r;
}

/* the prologue of cuGraphLaunch/cuGraphUpload: a live exec, the current context, a stream of it */
static CUresult exec_on_stream(CUgraphExec hGraphExec, CUstream hStream, p2n_graph **e, p2n_ctx **c)
{
    CUresult r = p2n_drv_graph_exec_get(hGraphExec, e);
    if (r == CUDA_SUCCESS)
        r = p2n_drv_get_ctx(NULL, c);
    return r != CUDA_SUCCESS ? r : p2n_drv_check_stream(hStream, *c);
}

static CUresult graph_launch(CUgraphExec hGraphExec, CUstream hStream)
{
    p2n_graph *e = NULL;
    p2n_ctx *c = NULL;
    CUresult r = exec_on_stream(hGraphExec, hStream, &e, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (e->ctx != c)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (p2n_drv_capture_active(hStream))
        return p2n_drv_capture_child(hStream, e);
    r = p2n_drv_capture_legacy_check(hStream);
    if (r != CUDA_SUCCESS)
        return r;
    /* CUDA refuses the whole launch, before any node runs, while an allocation of the previous one lives */
    for (size_t i = 0; i < e->nnodes && !(e->flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH); i++)
        if (e->nodes[i]->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC && p2n_drv_graph_mem_valid(e->nodes[i]->p.alloc))
            return CUDA_ERROR_INVALID_VALUE;
    /* the nodes run here, in order, after the stream's queued work (each through its stream entry point, which
     * must not queue it: stream_queue.c's inline mode) */
    p2n_drv_stream_order(hStream, c);
    p2n_drv_streams_inline(1);
    r = run_graph(e, hStream, e->flags);
    p2n_drv_streams_inline(0);
    /* a kernel's asynchronous error poisoned the context during the launch: reported by the next call */
    if (r != CUDA_SUCCESS && r == c->sticky)
        return CUDA_SUCCESS;
    return r;
}

CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) { return graph_launch(hGraphExec, hStream); }
CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream) { return graph_launch(hGraphExec, hStream); }

/* uploading prepares device-side resources; there are none to prepare */
static CUresult graph_upload(CUgraphExec hGraphExec, CUstream hStream)
{
    p2n_graph *e = NULL;
    p2n_ctx *c = NULL;
    return exec_on_stream(hGraphExec, hStream, &e, &c);
}

CUresult cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream) { return graph_upload(hGraphExec, hStream); }
CUresult cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream) { return graph_upload(hGraphExec, hStream); }

/* ---- parameters of an exec's node, named by the node of the graph it was instantiated from ---- */

static CUresult exec_node(CUgraphExec hExec, CUgraphNode hNode, CUgraphNodeType type, p2n_graph_node **out)
{
    p2n_graph *e;
    p2n_graph_node *orig;
    CUresult r = p2n_drv_graph_exec_get(hExec, &e);
    if (r == CUDA_SUCCESS)
        r = p2n_drv_graph_node_get(hNode, &orig);
    if (r != CUDA_SUCCESS)
        return r;
    for (size_t i = 0; i < e->nnodes; i++)
        if (e->nodes[i]->twin == orig) {
            if (type != CU_GRAPH_NODE_TYPE_EMPTY && e->nodes[i]->type != type)
                return CUDA_ERROR_INVALID_VALUE;
            *out = e->nodes[i];
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;   /* not a node this exec was instantiated from */
}

CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode,
                                           const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    p2n_graph_node *n;
    CUresult r = exec_node(hGraphExec, hNode, CU_GRAPH_NODE_TYPE_KERNEL, &n);
    return r != CUDA_SUCCESS ? r : p2n_drv_graph_set_kernel(n, nodeParams);
}

CUresult cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                        const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_KERNEL_NODE_PARAMS_v2 v;
    memset(&v, 0, sizeof v);
    memcpy(&v, nodeParams, sizeof *nodeParams);   /* v1 is v2's prefix */
    return cuGraphExecKernelNodeSetParams_v2(hGraphExec, hNode, &v);
}

CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_MEMCPY3D *copyParams,
                                        CUcontext ctx)
{
    p2n_graph_node *n;
    CUresult r = exec_node(hGraphExec, hNode, CU_GRAPH_NODE_TYPE_MEMCPY, &n);
    return r != CUDA_SUCCESS ? r : p2n_drv_graph_set_memcpy(n, copyParams, ctx);
}

CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                        const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx)
{
    p2n_graph_node *n;
    CUresult r = exec_node(hGraphExec, hNode, CU_GRAPH_NODE_TYPE_MEMSET, &n);
    return r != CUDA_SUCCESS ? r : p2n_drv_graph_set_memset(n, memsetParams, ctx);
}

CUresult cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                      const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    p2n_graph_node *n;
    CUresult r = exec_node(hGraphExec, hNode, CU_GRAPH_NODE_TYPE_HOST, &n);
    return r != CUDA_SUCCESS ? r : p2n_drv_graph_set_host(n, nodeParams);
}

CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event)
{
    p2n_graph_node *n;
    CUresult r = exec_node(hGraphExec, hNode, CU_GRAPH_NODE_TYPE_EVENT_RECORD, &n);
    return r != CUDA_SUCCESS ? r : p2n_drv_graph_set_event(n, event);
}

CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event)
{
    p2n_graph_node *n;
    CUresult r = exec_node(hGraphExec, hNode, CU_GRAPH_NODE_TYPE_WAIT_EVENT, &n);
    return r != CUDA_SUCCESS ? r : p2n_drv_graph_set_event(n, event);
}

/* ---- topology comparison (cuGraphExecUpdate, cuGraphExecChildGraphNodeSetParams): nodes are paired by creation
 * order; a pair must have the same type and the same dependencies (by position), child graphs recursively ---- */

static size_t index_of(const p2n_graph *g, const p2n_graph_node *n)
{
    for (size_t i = 0; i < g->nnodes; i++)
        if (g->nodes[i] == n)
            return i;
    return SIZE_MAX;
}

static CUgraphExecUpdateResult compare(const p2n_graph *e, const p2n_graph *g, const p2n_graph_node **err,
                                       const p2n_graph_node **err_from)
{
    if (e->nnodes != g->nnodes) {
        *err = NULL;
        return CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
    }
    for (size_t i = 0; i < g->nnodes; i++) {
        const p2n_graph_node *en = e->nodes[i], *gn = g->nodes[i];
        *err = gn;
        if (en->type != gn->type)
            return CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
        if (en->ndeps != gn->ndeps)
            return CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
        for (size_t d = 0; d < gn->ndeps; d++) {
            size_t want = index_of(g, gn->deps[d]);
            int found = 0;
            for (size_t k = 0; k < en->ndeps && !found; k++)
                found = index_of(e, en->deps[k]) == want;
            if (!found) {
                *err_from = gn->deps[d];
                return CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
            }
        }
        if (gn->type == CU_GRAPH_NODE_TYPE_GRAPH) {
            const p2n_graph_node *inner_from = NULL;
            CUgraphExecUpdateResult res = compare(en->p.child, gn->p.child, err, &inner_from);
            if (res != CU_GRAPH_EXEC_UPDATE_SUCCESS) {
                *err = gn;
                return CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
            }
        }
        /* graph memory cannot move (CUDA: an allocation's address and a free's pointer are fixed) */
        if ((gn->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC && gn->p.alloc != en->p.alloc) ||
            (gn->type == CU_GRAPH_NODE_TYPE_MEM_FREE && gn->p.free_ptr != en->p.free_ptr))
            return CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED;
        if (gn->type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
            const p2n_cond_node *ec = &en->p.cond, *gc = &gn->p.cond;
            if (ec->cond != gc->cond || ec->type != gc->type || ec->size != gc->size)
                return CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED;
            for (unsigned b = 0; b < gc->size; b++) {
                const p2n_graph_node *inner_from = NULL;
                if (compare(ec->body[b], gc->body[b], err, &inner_from) != CU_GRAPH_EXEC_UPDATE_SUCCESS) {
                    *err = gn;
                    return CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
                }
            }
        }
    }
    return CU_GRAPH_EXEC_UPDATE_SUCCESS;
}

/* copies g's parameters into e (topologies equal) */
static CUresult take_params(p2n_graph *e, const p2n_graph *g)
{
    CUresult r = CUDA_SUCCESS;
    for (size_t i = 0; i < g->nnodes && r == CUDA_SUCCESS; i++)
        r = p2n_drv_graph_node_copy_params(e->nodes[i], g->nodes[i]);
    p2n_graph_node *bad = NULL;
    if (r == CUDA_SUCCESS)
        r = prepare(e, &bad);   /* new child graphs need their order */
    return r;
}

static CUresult exec_update(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo *info)
{
    p2n_graph *e, *g;
    CUresult r = p2n_drv_graph_exec_get(hGraphExec, &e);
    if (r == CUDA_SUCCESS)
        r = p2n_drv_graph_get(hGraph, &g);
    if (r != CUDA_SUCCESS)
        return r;
    if (!info)
        return CUDA_ERROR_INVALID_VALUE;
    const p2n_graph_node *err = NULL, *err_from = NULL;
    CUgraphExecUpdateResult res = compare(e, g, &err, &err_from);
    info->result = res;
    info->errorNode = (CUgraphNode)err;
    info->errorFromNode = (CUgraphNode)err_from;
    if (res != CU_GRAPH_EXEC_UPDATE_SUCCESS)
        return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    info->errorNode = NULL;
    r = take_params(e, g);
    if (r != CUDA_SUCCESS) {
        info->result = CU_GRAPH_EXEC_UPDATE_ERROR;
        return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    }
    /* the exec's nodes are now named by g's nodes too (CUDA: later updates pair with the new graph) */
    for (size_t i = 0; i < g->nnodes; i++)
        e->nodes[i]->twin = g->nodes[i];
    return CUDA_SUCCESS;
}

CUresult cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo *resultInfo)
{ return exec_update(hGraphExec, hGraph, resultInfo); }

CUresult cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode *hErrorNode_out,
                           CUgraphExecUpdateResult *updateResult_out)
{
    if (!hErrorNode_out || !updateResult_out)
        return CUDA_ERROR_INVALID_VALUE;
    CUgraphExecUpdateResultInfo info;
    memset(&info, 0, sizeof info);
    CUresult r = exec_update(hGraphExec, hGraph, &info);
    *hErrorNode_out = info.errorNode;
    *updateResult_out = info.result;
    return r;
}

CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, CUgraph childGraph)
{
    p2n_graph_node *n;
    p2n_graph *g;
    CUresult r = exec_node(hGraphExec, hNode, CU_GRAPH_NODE_TYPE_GRAPH, &n);
    if (r == CUDA_SUCCESS)
        r = p2n_drv_graph_get(childGraph, &g);
    if (r != CUDA_SUCCESS)
        return r;
    const p2n_graph_node *err = NULL, *err_from = NULL;
    if (compare(n->p.child, g, &err, &err_from) != CU_GRAPH_EXEC_UPDATE_SUCCESS)
        return CUDA_ERROR_INVALID_VALUE;   /* CUDA: the topology must not change */
    return take_params(n->p.child, g);
}

CUresult cuGraphExecNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, CUgraphNodeParams *nodeParams)
{
    p2n_graph_node *n;
    CUresult r = exec_node(hGraphExec, hNode, CU_GRAPH_NODE_TYPE_EMPTY, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (nodeParams && nodeParams->type == CU_GRAPH_NODE_TYPE_GRAPH)
        return cuGraphExecChildGraphNodeSetParams(hGraphExec, hNode, nodeParams->graph.graph);
    return p2n_drv_graph_set_generic(n, nodeParams);
}

/* only kernel, memcpy and memset nodes can be disabled (CUDA's rule) */
CUresult cuGraphNodeSetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int isEnabled)
{
    p2n_graph_node *n;
    CUresult r = exec_node(hGraphExec, hNode, CU_GRAPH_NODE_TYPE_EMPTY, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (n->type != CU_GRAPH_NODE_TYPE_KERNEL && n->type != CU_GRAPH_NODE_TYPE_MEMCPY &&
        n->type != CU_GRAPH_NODE_TYPE_MEMSET)
        return CUDA_ERROR_INVALID_VALUE;
    n->enabled = isEnabled != 0;
    return CUDA_SUCCESS;
}

CUresult cuGraphNodeGetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int *isEnabled)
{
    p2n_graph_node *n;
    CUresult r = exec_node(hGraphExec, hNode, CU_GRAPH_NODE_TYPE_EMPTY, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (!isEnabled || (n->type != CU_GRAPH_NODE_TYPE_KERNEL && n->type != CU_GRAPH_NODE_TYPE_MEMCPY &&
                       n->type != CU_GRAPH_NODE_TYPE_MEMSET))
        return CUDA_ERROR_INVALID_VALUE;
    *isEnabled = (unsigned)n->enabled;
    return CUDA_SUCCESS;
}
