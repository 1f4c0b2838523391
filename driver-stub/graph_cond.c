/* graph_cond.c — conditional graph nodes: cuGraphConditionalHandleCreate and the IF (with its optional ELSE
 * body), WHILE and SWITCH nodes that cuGraphAddNode makes.
 *
 * A handle is the device address of a 32-bit slot of backend device memory. Device code sets the condition with
 * cudaGraphSetConditional(handle, value), an extern function nvcc leaves in the PTX, which the compiler lowers to a
 * store of `value` to the address `handle` (targets/llvm/emit_module.c): no table to look handles up in on the
 * device, the same code on every backend. A graph's nodes run one after another on the launching thread
 * (graph_exec.c, stream_queue.c's inline mode), so when graph_exec.c reaches a
 * conditional node every node before it has finished and the slot holds the value to branch on.
 *
 * A handle belongs to the graph it was made for; that graph's clones and execs share it (CUDA allows one exec of
 * a graph with conditional nodes at a time, so sharing the slot is what CUDA does too), and so do the nodes that
 * use it: it lives until the last of them is gone.
 */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

struct p2n_graph_cond {
    int refs;                   /* under cond_lock */
    uint64_t slot;              /* the handle */
    unsigned dflt, flags;
};

static pthread_mutex_t cond_lock = PTHREAD_MUTEX_INITIALIZER;
static p2n_graph_cond **live;   /* every handle, to find one by its value */
static size_t nlive, caplive;

static p2n_graph_cond *find(CUgraphConditionalHandle h)
{
    for (size_t i = 0; i < nlive; i++)
        if (live[i]->slot == h)
            return live[i];
    return NULL;
}

static void ref(p2n_graph_cond *c)
{
    pthread_mutex_lock(&cond_lock);
    c->refs++;
    pthread_mutex_unlock(&cond_lock);
}

static void unref(p2n_graph_cond *c)
{
    pthread_mutex_lock(&cond_lock);
    int last = --c->refs == 0;
    if (last)
        for (size_t i = 0; i < nlive; i++)
            if (live[i] == c) {
                live[i] = live[--nlive];
                break;
            }
    pthread_mutex_unlock(&cond_lock);
    if (last) {
        p2n_drv.be->mem_free((void *)(uintptr_t)c->slot);
        free(c);
    }
}

static CUresult write_slot(const p2n_graph_cond *c, unsigned v)
{
    return p2n_drv_copy_bytes(c->slot, 1, (uint64_t)(uintptr_t)&v, 0, sizeof v);
}

CUresult p2n_drv_graph_cond_value(const p2n_graph_cond *c, unsigned *value)
{
    return p2n_drv_copy_bytes((uint64_t)(uintptr_t)value, 0, c->slot, 1, sizeof *value);
}

static int push(p2n_graph_cond ***arr, size_t *n, size_t *cap, p2n_graph_cond *c)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        p2n_graph_cond **na = realloc(*arr, nc * sizeof *na);
        if (!na)
            return 0;
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = c;
    return 1;
}

/* a graph copied (clone, instantiate): the copy shares the handles */
static CUresult graph_copy(p2n_graph *dst, const p2n_graph *src)
{
    if (!src->nconds)
        return CUDA_SUCCESS;
    dst->conds = malloc(src->nconds * sizeof *dst->conds);
    if (!dst->conds)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < src->nconds; i++) {
        ref(src->conds[i]);
        dst->conds[dst->nconds++] = src->conds[i];
    }
    return CUDA_SUCCESS;
}

CUresult p2n_drv_graph_cond_reset(const p2n_graph *g)
{
    CUresult r = CUDA_SUCCESS;
    for (size_t i = 0; i < g->nconds && r == CUDA_SUCCESS; i++)
        if (g->conds[i]->flags & CU_GRAPH_COND_ASSIGN_DEFAULT)
            r = write_slot(g->conds[i], g->conds[i]->dflt);
    return r;
}

CUresult cuGraphConditionalHandleCreate(CUgraphConditionalHandle *pHandle_out, CUgraph hGraph, CUcontext ctx,
                                        unsigned int defaultLaunchValue, unsigned int flags)
{
    p2n_graph *g;
    CUresult r = p2n_drv_graph_get(hGraph, &g);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_ctx *c;
    if ((r = p2n_drv_get_ctx(ctx, &c)) != CUDA_SUCCESS)
        return r;
    if (!pHandle_out || (flags & ~(unsigned)CU_GRAPH_COND_ASSIGN_DEFAULT) || c != g->ctx)
        return CUDA_ERROR_INVALID_VALUE;
    p2n_graph_cond *h = calloc(1, sizeof *h);
    void *slot = NULL;
    if (!h || (r = p2n_drv.be->mem_alloc(sizeof(unsigned), &slot)) != CUDA_SUCCESS) {
        free(h);
        return r != CUDA_SUCCESS ? r : CUDA_ERROR_OUT_OF_MEMORY;
    }
    h->refs = 1;   /* the graph's */
    h->slot = (uint64_t)(uintptr_t)slot;
    h->dflt = defaultLaunchValue;
    h->flags = flags;
    /* the value before any launch, and the whole time without CU_GRAPH_COND_ASSIGN_DEFAULT until device code sets
     * it: CUDA leaves it unspecified; the default is the least surprising */
    r = write_slot(h, defaultLaunchValue);
    size_t cap = g->nconds;   /* g->conds is always exactly full: grow by one */
    pthread_mutex_lock(&cond_lock);
    int ok = r == CUDA_SUCCESS && push(&g->conds, &g->nconds, &cap, h);
    if (ok && !push(&live, &nlive, &caplive, h)) {
        g->nconds--;
        ok = 0;
    }
    pthread_mutex_unlock(&cond_lock);
    if (!ok) {
        p2n_drv.be->mem_free(slot);
        free(h);
        return r != CUDA_SUCCESS ? r : CUDA_ERROR_OUT_OF_MEMORY;
    }
    *pHandle_out = h->slot;
    return CUDA_SUCCESS;
}

/* ---- nodes ---- */

static CUresult new_bodies(p2n_graph_node *n, unsigned size)
{
    n->p.cond.body = calloc(size, sizeof *n->p.cond.body);
    if (!n->p.cond.body)
        return CUDA_ERROR_OUT_OF_MEMORY;
    n->p.cond.size = size;
    return CUDA_SUCCESS;
}

static void node_release(p2n_graph_node *n);

CUresult p2n_drv_graph_set_conditional(p2n_graph_node *n, CUDA_CONDITIONAL_NODE_PARAMS *p)
{
    if (n->p.cond.body)
        return CUDA_ERROR_NOT_SUPPORTED;   /* CUDA cannot change a conditional node's parameters either */
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(p->ctx, &c);
    if (r != CUDA_SUCCESS)
        return r;
    int size_ok = p->type == CU_GRAPH_COND_TYPE_IF     ? p->size == 1 || p->size == 2
                : p->type == CU_GRAPH_COND_TYPE_WHILE  ? p->size == 1
                : p->type == CU_GRAPH_COND_TYPE_SWITCH ? p->size >= 1 && p->size <= 0x10000
                                                       : 0;
    if (!size_ok || c != n->graph->ctx)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&cond_lock);
    p2n_graph_cond *h = find(p->handle);
    if (h)
        h->refs++;
    pthread_mutex_unlock(&cond_lock);
    if (!h)
        return CUDA_ERROR_INVALID_VALUE;   /* not a live handle */
    n->p.cond.cond = h;
    n->p.cond.type = p->type;
    if ((r = new_bodies(n, p->size)) == CUDA_SUCCESS)
        for (unsigned i = 0; i < p->size && r == CUDA_SUCCESS; i++)
            r = p2n_drv_graph_new_body(c, &n->p.cond.body[i]);
    if (r != CUDA_SUCCESS) {
        node_release(n);
        return r;
    }
    p->phGraph_out = (CUgraph *)n->p.cond.body;   /* CUDA's array lives as long as the node: so does ours */
    return CUDA_SUCCESS;
}

static void node_release(p2n_graph_node *n)
{
    p2n_cond_node *k = &n->p.cond;
    for (unsigned i = 0; k->body && i < k->size; i++)
        if (k->body[i])
            p2n_drv_graph_free(k->body[i]);
    free(k->body);
    if (k->cond)
        unref(k->cond);
    memset(k, 0, sizeof *k);
}

static CUresult node_copy(p2n_graph_node *dst, const p2n_graph_node *src)
{
    const p2n_cond_node *s = &src->p.cond;
    memset(&dst->p.cond, 0, sizeof dst->p.cond);
    dst->p.cond.type = s->type;
    if (s->cond) {
        ref(s->cond);
        dst->p.cond.cond = s->cond;
    }
    CUresult r = new_bodies(dst, s->size);
    for (unsigned i = 0; i < s->size && r == CUDA_SUCCESS; i++)
        r = p2n_drv_graph_clone(s->body[i], P2N_MAGIC_GRAPH, &dst->p.cond.body[i]);
    return r;
}

static void graph_release(p2n_graph *g)
{
    for (size_t i = 0; i < g->nconds; i++)
        unref(g->conds[i]);
    free(g->conds);
    g->conds = NULL;
    g->nconds = 0;
}

__attribute__((constructor)) static void register_hooks(void)
{
    p2n_drv_graph_hooks_set((p2n_graph_hooks){graph_release, graph_copy});
    p2n_drv_graph_node_hooks_set(CU_GRAPH_NODE_TYPE_CONDITIONAL, (p2n_graph_node_hooks){node_release, node_copy});
}
