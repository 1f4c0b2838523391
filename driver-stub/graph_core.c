/* graph_core.c — CUDA graph objects (graphs, nodes, execs), their edges, copies and topological order; released
 * with their context (p2n_drv_graph_release_ctx, from graph_capture_state.c's release hook). Stream capture lives in graph_capture_state.c. Calls nothing of the
 * stub above ctx.c (graph.h lists the graph files and their layers).
 *
 * Graphs are not thread-safe objects in CUDA either (the application serialises calls on one graph); the lock
 * here guards only the list of live graphs that context release walks.
 */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

static pthread_mutex_t graphs_lock = PTHREAD_MUTEX_INITIALIZER;
static p2n_graph **graphs;   /* every top-level graph and exec (child graphs belong to their node) */
static size_t ngraphs, capgraphs;

static int grow_array(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    size_t nc = *cap ? *cap * 2 : 8;
    while (nc < need)
        nc *= 2;
    void *n = realloc(*arr, nc * elem);
    if (!n)
        return 0;
    *arr = n;
    *cap = nc;
    return 1;
}

static void list_add(p2n_graph *g)
{
    pthread_mutex_lock(&graphs_lock);
    if (!grow_array((void **)&graphs, &capgraphs, ngraphs + 1, sizeof *graphs))
        abort();
    graphs[ngraphs++] = g;
    pthread_mutex_unlock(&graphs_lock);
}

static void list_remove(p2n_graph *g)
{
    pthread_mutex_lock(&graphs_lock);
    for (size_t i = 0; i < ngraphs; i++)
        if (graphs[i] == g) {
            graphs[i] = graphs[--ngraphs];
            break;
        }
    pthread_mutex_unlock(&graphs_lock);
}

static p2n_graph *graph_alloc(p2n_ctx *c, uint32_t magic)
{
    p2n_graph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->magic = magic;
    g->ctx = c;
    p2n_drv_register(g);
    return g;
}

CUresult p2n_drv_graph_new(p2n_ctx *c, uint32_t magic, p2n_graph **out)
{
    p2n_graph *g = graph_alloc(c, magic);
    if (!g)
        return CUDA_ERROR_OUT_OF_MEMORY;
    list_add(g);
    *out = g;
    return CUDA_SUCCESS;
}

/* the files above that own a node type's resources (graph_cond.c, graph_memnode.c) and the graphs' conditional
 * handles: registered at load time, so this file calls nothing above it */
static p2n_graph_node_hooks node_hooks[P2N_GRAPH_NODE_TYPES];
static p2n_graph_hooks graph_hooks;

void p2n_drv_graph_node_hooks_set(CUgraphNodeType type, p2n_graph_node_hooks h) { node_hooks[type] = h; }
void p2n_drv_graph_hooks_set(p2n_graph_hooks h) { graph_hooks = h; }

static void node_params_free(p2n_graph_node *n)
{
    if (n->type == CU_GRAPH_NODE_TYPE_KERNEL) {
        free(n->p.kernel.args);
        free(n->p.kernel.arg_ptrs);
        free(n->p.kernel.attrs);
        n->p.kernel.args = NULL;
        n->p.kernel.arg_ptrs = NULL;
        n->p.kernel.attrs = NULL;
        n->p.kernel.attr_set = 0;
    } else if (n->type == CU_GRAPH_NODE_TYPE_GRAPH && n->p.child) {
        p2n_drv_graph_free(n->p.child);
        n->p.child = NULL;
    } else if ((unsigned)n->type < P2N_GRAPH_NODE_TYPES && node_hooks[n->type].release) {
        node_hooks[n->type].release(n);
    }
}

static void node_release(p2n_graph_node *n)
{
    node_params_free(n);
    free(n->deps);
    p2n_drv_unregister(n);
    n->magic = 0;
    free(n);
}

void p2n_drv_graph_free(p2n_graph *g)
{
    if (!g->owned_by_node)
        list_remove(g);
    for (size_t i = 0; i < g->nnodes; i++)
        node_release(g->nodes[i]);
    free(g->nodes);
    free(g->order);
    if (graph_hooks.release)
        graph_hooks.release(g);
    p2n_drv_unregister(g);
    g->magic = 0;
    free(g);
}

void p2n_drv_graph_release_ctx(p2n_ctx *c)
{
    for (;;) {
        p2n_graph *victim = NULL;
        pthread_mutex_lock(&graphs_lock);
        for (size_t i = 0; i < ngraphs && !victim; i++)
            if (graphs[i]->ctx == c)
                victim = graphs[i];
        pthread_mutex_unlock(&graphs_lock);
        if (!victim)
            break;
        p2n_drv_graph_free(victim);
    }
    if (ngraphs == 0) {
        free(graphs);
        graphs = NULL;
        capgraphs = 0;
    }
}

CUresult p2n_drv_graph_get(CUgraph h, p2n_graph **out)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!p2n_drv_is_live(h, P2N_MAGIC_GRAPH))
        return CUDA_ERROR_INVALID_VALUE;   /* what CUDA answers for a bad graph handle */
    *out = (p2n_graph *)h;
    return CUDA_SUCCESS;
}

CUresult p2n_drv_graph_exec_get(CUgraphExec h, p2n_graph **out)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!p2n_drv_is_live(h, P2N_MAGIC_GRAPH_EXEC))
        return CUDA_ERROR_INVALID_VALUE;
    *out = (p2n_graph *)h;
    return CUDA_SUCCESS;
}

CUresult p2n_drv_graph_node_get(CUgraphNode h, p2n_graph_node **out)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!p2n_drv_is_live(h, P2N_MAGIC_GRAPH_NODE))
        return CUDA_ERROR_INVALID_VALUE;
    *out = (p2n_graph_node *)h;
    return CUDA_SUCCESS;
}

int p2n_drv_graph_has_edge(const p2n_graph_node *from, const p2n_graph_node *to)
{
    for (size_t i = 0; i < to->ndeps; i++)
        if (to->deps[i] == from)
            return 1;
    return 0;
}

CUresult p2n_drv_graph_add_edge(p2n_graph_node *from, p2n_graph_node *to)
{
    if (!grow_array((void **)&to->deps, &to->capdeps, to->ndeps + 1, sizeof *to->deps))
        return CUDA_ERROR_OUT_OF_MEMORY;
    to->deps[to->ndeps++] = from;
    return CUDA_SUCCESS;
}

void p2n_drv_graph_remove_edge(p2n_graph_node *from, p2n_graph_node *to)
{
    for (size_t i = 0; i < to->ndeps; i++)
        if (to->deps[i] == from) {
            memmove(&to->deps[i], &to->deps[i + 1], (to->ndeps - i - 1) * sizeof *to->deps);
            to->ndeps--;
            return;
        }
}

static CUresult node_alloc(p2n_graph *g, CUgraphNodeType type, p2n_graph_node **out)
{
    if (!grow_array((void **)&g->nodes, &g->capnodes, g->nnodes + 1, sizeof *g->nodes))
        return CUDA_ERROR_OUT_OF_MEMORY;
    p2n_graph_node *n = calloc(1, sizeof *n);
    if (!n)
        return CUDA_ERROR_OUT_OF_MEMORY;
    n->magic = P2N_MAGIC_GRAPH_NODE;
    n->graph = g;
    n->type = type;
    n->enabled = 1;
    g->nodes[g->nnodes++] = n;
    p2n_drv_register(n);
    *out = n;
    return CUDA_SUCCESS;
}

CUresult p2n_drv_graph_node_new(p2n_graph *g, CUgraphNodeType type, const CUgraphNode *deps, size_t ndeps,
                                p2n_graph_node **out)
{
    if (ndeps && !deps)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < ndeps; i++) {
        if (!p2n_drv_is_live(deps[i], P2N_MAGIC_GRAPH_NODE) || ((p2n_graph_node *)deps[i])->graph != g)
            return CUDA_ERROR_INVALID_VALUE;
        for (size_t j = 0; j < i; j++)
            if (deps[j] == deps[i])
                return CUDA_ERROR_INVALID_VALUE;   /* CUDA: duplicate dependencies are an error */
    }
    p2n_graph_node *n = NULL;
    CUresult r = node_alloc(g, type, &n);
    for (size_t i = 0; i < ndeps && r == CUDA_SUCCESS; i++)
        r = p2n_drv_graph_add_edge((p2n_graph_node *)deps[i], n);
    if (r != CUDA_SUCCESS) {
        if (n)
            p2n_drv_graph_node_free(n);
        return r;
    }
    *out = n;
    return CUDA_SUCCESS;
}

void p2n_drv_graph_node_free(p2n_graph_node *n)
{
    p2n_graph *g = n->graph;
    for (size_t i = 0; i < g->nnodes; i++)
        p2n_drv_graph_remove_edge(n, g->nodes[i]);
    for (size_t i = 0; i < g->nnodes; i++)
        if (g->nodes[i] == n) {
            memmove(&g->nodes[i], &g->nodes[i + 1], (g->nnodes - i - 1) * sizeof *g->nodes);
            g->nnodes--;
            break;
        }
    node_release(n);
}

CUresult p2n_drv_graph_kernel_set(p2n_graph_node *n, p2n_func *f, const unsigned grid[3], const unsigned block[3],
                                  unsigned shmem, uint8_t *args)
{
    unsigned np = f->info.num_params;
    void **ptrs = calloc(np ? np : 1, sizeof *ptrs);
    if (!ptrs) {
        free(args);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (unsigned i = 0; i < np; i++)
        ptrs[i] = args + f->info.param_offsets[i];
    /* the attributes stay with the node */
    CUlaunchAttributeValue *attrs = NULL;
    unsigned attr_set = 0;
    if (n->type == CU_GRAPH_NODE_TYPE_KERNEL) {
        attrs = n->p.kernel.attrs;
        attr_set = n->p.kernel.attr_set;
        n->p.kernel.attrs = NULL;
    }
    node_params_free(n);
    p2n_kernel_node *k = &n->p.kernel;
    k->attrs = attrs;
    k->attr_set = attr_set;
    k->func = f;
    memcpy(k->grid, grid, sizeof k->grid);
    memcpy(k->block, block, sizeof k->block);
    k->shmem = shmem;
    k->args = args;
    k->arg_ptrs = ptrs;
    return CUDA_SUCCESS;
}

/* copies src's parameters into dst (a node of the same type whose own parameters were released); on failure, what
 * dst holds can be released with node_params_free (no pointer of src's is left in it) */
static CUresult copy_params(p2n_graph_node *dst, const p2n_graph_node *src)
{
    dst->p = src->p;
    dst->enabled = src->enabled;
    if (src->type == CU_GRAPH_NODE_TYPE_KERNEL) {
        const p2n_kernel_node *k = &src->p.kernel;
        dst->p.kernel.args = NULL;
        dst->p.kernel.arg_ptrs = NULL;
        dst->p.kernel.attrs = NULL;
        dst->p.kernel.attr_set = 0;
        if (!p2n_drv_is_live(k->func, P2N_MAGIC_FUNC))
            return CUDA_ERROR_INVALID_VALUE;   /* its module was unloaded */
        size_t size = k->func->info.param_buffer_size;
        uint8_t *args = malloc(size ? size : 1);
        if (!args)
            return CUDA_ERROR_OUT_OF_MEMORY;
        memcpy(args, k->args, size);
        CUresult r = p2n_drv_graph_kernel_set(dst, k->func, k->grid, k->block, k->shmem, args);
        if (r == CUDA_SUCCESS && k->attrs) {
            dst->p.kernel.attrs = malloc(P2N_KNODE_ATTR_SLOTS * sizeof *k->attrs);
            if (!dst->p.kernel.attrs)
                return CUDA_ERROR_OUT_OF_MEMORY;
            memcpy(dst->p.kernel.attrs, k->attrs, P2N_KNODE_ATTR_SLOTS * sizeof *k->attrs);
            dst->p.kernel.attr_set = k->attr_set;
        }
        return r;
    }
    if (src->type == CU_GRAPH_NODE_TYPE_GRAPH) {
        dst->p.child = NULL;
        p2n_graph *child;
        CUresult r = p2n_drv_graph_clone(src->p.child, P2N_MAGIC_GRAPH, &child);
        if (r != CUDA_SUCCESS)
            return r;
        dst->p.child = child;
    }
    if ((unsigned)src->type < P2N_GRAPH_NODE_TYPES && node_hooks[src->type].copy)
        return node_hooks[src->type].copy(dst, src);
    return CUDA_SUCCESS;
}

CUresult p2n_drv_graph_node_copy_params(p2n_graph_node *dst, const p2n_graph_node *src)
{
    node_params_free(dst);
    int enabled = dst->enabled;
    CUresult r = copy_params(dst, src);
    dst->enabled = enabled;
    if (r != CUDA_SUCCESS) {
        node_params_free(dst);                  /* what was copied before the failure */
        dst->type = CU_GRAPH_NODE_TYPE_EMPTY;
    }
    return r;
}

/* a graph not in the release list: a child, or a copy under construction */
static CUresult clone_into(const p2n_graph *src, p2n_graph *g)
{
    CUresult r = graph_hooks.copy ? graph_hooks.copy(g, src) : CUDA_SUCCESS;
    for (size_t i = 0; i < src->nnodes && r == CUDA_SUCCESS; i++) {
        p2n_graph_node *n;
        r = node_alloc(g, src->nodes[i]->type, &n);
        if (r == CUDA_SUCCESS) {
            n->twin = src->nodes[i];
            r = copy_params(n, src->nodes[i]);
            if (r != CUDA_SUCCESS) {
                node_params_free(n);                  /* what was copied before the failure */
                n->type = CU_GRAPH_NODE_TYPE_EMPTY;
            }
        }
    }
    /* edges: the copy of each dependency (the i-th node of g is the copy of src's i-th) */
    for (size_t i = 0; i < g->nnodes && r == CUDA_SUCCESS; i++) {
        const p2n_graph_node *s = src->nodes[i];
        for (size_t d = 0; d < s->ndeps && r == CUDA_SUCCESS; d++) {
            size_t j = 0;
            while (src->nodes[j] != s->deps[d])
                j++;
            r = p2n_drv_graph_add_edge(g->nodes[j], g->nodes[i]);
        }
    }
    return r;
}

CUresult p2n_drv_graph_clone(const p2n_graph *src, uint32_t magic, p2n_graph **out)
{
    p2n_graph *g = graph_alloc(src->ctx, magic);
    if (!g)
        return CUDA_ERROR_OUT_OF_MEMORY;
    g->owned_by_node = 1;   /* not listed while it is built */
    CUresult r = clone_into(src, g);
    if (r != CUDA_SUCCESS) {
        p2n_drv_graph_free(g);
        return r;
    }
    *out = g;
    return CUDA_SUCCESS;
}

CUresult p2n_drv_graph_kernel_attr(p2n_graph_node *n, CUlaunchAttributeID id, const CUlaunchAttributeValue *v)
{
    p2n_kernel_node *k = &n->p.kernel;
    if (!k->attrs) {
        k->attrs = calloc(P2N_KNODE_ATTR_SLOTS, sizeof *k->attrs);
        if (!k->attrs)
            return CUDA_ERROR_OUT_OF_MEMORY;
    }
    k->attrs[id] = *v;
    k->attr_set |= 1u << id;
    return CUDA_SUCCESS;
}

CUresult p2n_drv_graph_node_typed(CUgraphNode h, CUgraphNodeType type, p2n_graph_node **out)
{
    CUresult r = p2n_drv_graph_node_get(h, out);
    if (r == CUDA_SUCCESS && (*out)->type != type)
        r = CUDA_ERROR_INVALID_VALUE;
    return r;
}

int p2n_drv_graph_single_exec(const p2n_graph *g)
{
    for (size_t i = 0; i < g->nnodes; i++) {
        CUgraphNodeType t = g->nodes[i]->type;
        if (t == CU_GRAPH_NODE_TYPE_CONDITIONAL || t == CU_GRAPH_NODE_TYPE_MEM_ALLOC ||
            t == CU_GRAPH_NODE_TYPE_MEM_FREE)
            return 1;
    }
    return 0;
}

CUresult p2n_drv_graph_new_body(p2n_ctx *c, p2n_graph **out)
{
    p2n_graph *g = graph_alloc(c, P2N_MAGIC_GRAPH);
    if (!g)
        return CUDA_ERROR_OUT_OF_MEMORY;
    g->owned_by_node = 1;
    *out = g;
    return CUDA_SUCCESS;
}

void p2n_drv_graph_adopt(p2n_graph *g)
{
    g->owned_by_node = 0;
    list_add(g);
}

CUresult p2n_drv_graph_topo(const p2n_graph *g, p2n_graph_node ***order)
{
    size_t n = g->nnodes;
    p2n_graph_node **out = calloc(n ? n : 1, sizeof *out);
    size_t *indeg = calloc(n ? n : 1, sizeof *indeg);
    if (!out || !indeg) {
        free(out);
        free(indeg);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    /* Kahn's algorithm over creation order: a node is ready when all its dependencies are placed */
    for (size_t i = 0; i < n; i++)
        indeg[i] = g->nodes[i]->ndeps;
    size_t placed = 0;
    int progress = 1;
    char *done = calloc(n ? n : 1, 1);
    if (!done) {
        free(out);
        free(indeg);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    while (placed < n && progress) {
        progress = 0;
        for (size_t i = 0; i < n; i++) {
            if (done[i] || indeg[i])
                continue;
            done[i] = 1;
            out[placed++] = g->nodes[i];
            progress = 1;
            for (size_t j = 0; j < n; j++)
                if (p2n_drv_graph_has_edge(g->nodes[i], g->nodes[j]))
                    indeg[j]--;
        }
    }
    free(indeg);
    free(done);
    if (placed < n) {
        free(out);
        return CUDA_ERROR_INVALID_VALUE;   /* a cycle */
    }
    *order = out;
    return CUDA_SUCCESS;
}
