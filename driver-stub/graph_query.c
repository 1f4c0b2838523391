/* graph_query.c — what a graph holds: cuGraphGetNodes/GetRootNodes/GetEdges (v1, v2), cuGraphNodeGetType,
 * cuGraphNodeGetDependencies/GetDependentNodes (v1, v2), cuGraphNodeFindInClone, cuGraphDebugDotPrint (a DOT
 * digraph, child graphs as clusters). Edge data is always CUDA's default (graph_build.c accepts no other).
 */
#include <stdio.h>
#include <string.h>

#include "graph.h"

/* ---- queries: a NULL array asks for the count; otherwise up to *count entries are written and *count is set to
 * the number written (CUDA's convention) ---- */

static CUresult node_list(CUgraph hGraph, CUgraphNode *out, size_t *count, int roots_only)
{
    p2n_graph *g;
    CUresult r = p2n_drv_graph_get(hGraph, &g);
    if (r != CUDA_SUCCESS)
        return r;
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    size_t k = 0;
    for (size_t i = 0; i < g->nnodes; i++) {
        if (roots_only && g->nodes[i]->ndeps)
            continue;
        if (out && k < *count)
            out[k] = (CUgraphNode)g->nodes[i];
        k++;
    }
    *count = out && k > *count ? *count : k;
    return CUDA_SUCCESS;
}

CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes)
{ return node_list(hGraph, nodes, numNodes, 0); }
CUresult cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode *rootNodes, size_t *numRootNodes)
{ return node_list(hGraph, rootNodes, numRootNodes, 1); }

static CUresult get_edges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, CUgraphEdgeData *edges, size_t *count)
{
    p2n_graph *g;
    CUresult r = p2n_drv_graph_get(hGraph, &g);
    if (r != CUDA_SUCCESS)
        return r;
    if (!count || (!from != !to) || (edges && !from))
        return CUDA_ERROR_INVALID_VALUE;
    size_t k = 0;
    for (size_t i = 0; i < g->nnodes; i++)
        for (size_t d = 0; d < g->nodes[i]->ndeps; d++) {
            if (from && k < *count) {
                from[k] = (CUgraphNode)g->nodes[i]->deps[d];
                to[k] = (CUgraphNode)g->nodes[i];
                if (edges)
                    memset(&edges[k], 0, sizeof edges[k]);
            }
            k++;
        }
    *count = from && k > *count ? *count : k;
    return CUDA_SUCCESS;
}

CUresult cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges)
{ return get_edges(hGraph, from, to, NULL, numEdges); }
CUresult cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, CUgraphEdgeData *edgeData,
                            size_t *numEdges)
{ return get_edges(hGraph, from, to, edgeData, numEdges); }

static CUresult node_neighbours(CUgraphNode hNode, CUgraphNode *out, CUgraphEdgeData *edges, size_t *count,
                                int dependents)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_get(hNode, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (!count || (edges && !out))
        return CUDA_ERROR_INVALID_VALUE;
    size_t k = 0;
    if (dependents) {
        const p2n_graph *g = n->graph;
        for (size_t i = 0; i < g->nnodes; i++)
            if (p2n_drv_graph_has_edge(n, g->nodes[i])) {
                if (out && k < *count)
                    out[k] = (CUgraphNode)g->nodes[i];
                k++;
            }
    } else {
        for (size_t d = 0; d < n->ndeps; d++) {
            if (out && k < *count)
                out[k] = (CUgraphNode)n->deps[d];
            k++;
        }
    }
    if (edges)
        memset(edges, 0, (k < *count ? k : *count) * sizeof *edges);
    *count = out && k > *count ? *count : k;
    return CUDA_SUCCESS;
}

CUresult cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode *dependencies, size_t *numDependencies)
{ return node_neighbours(hNode, dependencies, NULL, numDependencies, 0); }
CUresult cuGraphNodeGetDependencies_v2(CUgraphNode hNode, CUgraphNode *dependencies, CUgraphEdgeData *edgeData,
                                       size_t *numDependencies)
{ return node_neighbours(hNode, dependencies, edgeData, numDependencies, 0); }
CUresult cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode *dependentNodes, size_t *numDependentNodes)
{ return node_neighbours(hNode, dependentNodes, NULL, numDependentNodes, 1); }
CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode hNode, CUgraphNode *dependentNodes, CUgraphEdgeData *edgeData,
                                         size_t *numDependentNodes)
{ return node_neighbours(hNode, dependentNodes, edgeData, numDependentNodes, 1); }

CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_get(hNode, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (!type)
        return CUDA_ERROR_INVALID_VALUE;
    *type = n->type;
    return CUDA_SUCCESS;
}

CUresult cuGraphNodeFindInClone(CUgraphNode *phNode, CUgraphNode hOriginalNode, CUgraph hClonedGraph)
{
    p2n_graph *g;
    p2n_graph_node *orig;
    CUresult r = p2n_drv_graph_get(hClonedGraph, &g);
    if (r == CUDA_SUCCESS)
        r = p2n_drv_graph_node_get(hOriginalNode, &orig);
    if (r != CUDA_SUCCESS)
        return r;
    if (!phNode)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < g->nnodes; i++)
        if (g->nodes[i]->twin == orig) {
            *phNode = (CUgraphNode)g->nodes[i];
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;
}

/* ---- cuGraphDebugDotPrint: one DOT digraph, child graphs as clusters ---- */

static const char *type_name(CUgraphNodeType t)
{
    switch (t) {
    case CU_GRAPH_NODE_TYPE_KERNEL: return "KERNEL";
    case CU_GRAPH_NODE_TYPE_MEMCPY: return "MEMCPY";
    case CU_GRAPH_NODE_TYPE_MEMSET: return "MEMSET";
    case CU_GRAPH_NODE_TYPE_HOST: return "HOST";
    case CU_GRAPH_NODE_TYPE_GRAPH: return "GRAPH";
    case CU_GRAPH_NODE_TYPE_EMPTY: return "EMPTY";
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: return "WAIT_EVENT";
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD: return "EVENT_RECORD";
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: return "MEM_ALLOC";
    case CU_GRAPH_NODE_TYPE_MEM_FREE: return "MEM_FREE";
    case CU_GRAPH_NODE_TYPE_CONDITIONAL: return "CONDITIONAL";
    default: return "OTHER";
    }
}

static void dot_graph(FILE *f, const p2n_graph *g, const char *indent)
{
    for (size_t i = 0; i < g->nnodes; i++) {
        const p2n_graph_node *n = g->nodes[i];
        if (n->type == CU_GRAPH_NODE_TYPE_GRAPH) {
            fprintf(f, "%ssubgraph cluster_%p {\n%s  label=\"GRAPH node %p\";\n", indent, (void *)n, indent,
                    (void *)n);
            fprintf(f, "%s  \"%p\" [shape=point];\n", indent, (void *)n);
            dot_graph(f, n->p.child, "    ");
            fprintf(f, "%s}\n", indent);
            continue;
        }
        static const char *const cond_types[] = {"IF", "WHILE", "SWITCH"};
        for (unsigned b = 0; n->type == CU_GRAPH_NODE_TYPE_CONDITIONAL && b < n->p.cond.size; b++) {
            fprintf(f, "%ssubgraph cluster_%p_%u {\n%s  label=\"%s body %u of %p\";\n", indent, (void *)n, b, indent,
                    n->p.cond.type <= CU_GRAPH_COND_TYPE_SWITCH ? cond_types[n->p.cond.type] : "?", b, (void *)n);
            dot_graph(f, n->p.cond.body[b], "    ");
            fprintf(f, "%s}\n", indent);
        }
        fprintf(f, "%s\"%p\" [shape=box, label=\"%s", indent, (void *)n, type_name(n->type));
        if (n->type == CU_GRAPH_NODE_TYPE_KERNEL)
            fprintf(f, "\\n%s\\ngrid (%u,%u,%u) block (%u,%u,%u)",
                    p2n_drv_is_live(n->p.kernel.func, P2N_MAGIC_FUNC) ? n->p.kernel.func->name : "(unloaded)",
                    n->p.kernel.grid[0],
                    n->p.kernel.grid[1], n->p.kernel.grid[2], n->p.kernel.block[0], n->p.kernel.block[1],
                    n->p.kernel.block[2]);
        else if (n->type == CU_GRAPH_NODE_TYPE_MEMCPY)
            fprintf(f, "\\n%zu x %zu x %zu bytes", n->p.memcpy.WidthInBytes, n->p.memcpy.Height, n->p.memcpy.Depth);
        else if (n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
            CUDA_MEM_ALLOC_NODE_PARAMS a;
            if (cuGraphMemAllocNodeGetParams((CUgraphNode)n, &a) == CUDA_SUCCESS)
                fprintf(f, "\n%zu bytes at 0x%llx", a.bytesize, (unsigned long long)a.dptr);
        }
        else if (n->type == CU_GRAPH_NODE_TYPE_MEM_FREE)
            fprintf(f, "\n0x%llx", (unsigned long long)n->p.free_ptr);
        else if (n->type == CU_GRAPH_NODE_TYPE_MEMSET)
            fprintf(f, "\\n%zu x %zu x %u bytes = 0x%x", n->p.memset.width, n->p.memset.height,
                    n->p.memset.elementSize, n->p.memset.value);
        fprintf(f, "\"];\n");
    }
    for (size_t i = 0; i < g->nnodes; i++)
        for (size_t d = 0; d < g->nodes[i]->ndeps; d++)
            fprintf(f, "%s\"%p\" -> \"%p\";\n", indent, (void *)g->nodes[i]->deps[d], (void *)g->nodes[i]);
}

CUresult cuGraphDebugDotPrint(CUgraph hGraph, const char *path, unsigned int flags)
{
    (void)flags;   /* the verbosity flags choose what the labels show; ours show the essentials always */
    p2n_graph *g;
    CUresult r = p2n_drv_graph_get(hGraph, &g);
    if (r != CUDA_SUCCESS)
        return r;
    if (!path)
        return CUDA_ERROR_INVALID_VALUE;
    FILE *f = fopen(path, "w");
    if (!f)
        return CUDA_ERROR_OPERATING_SYSTEM;
    fprintf(f, "digraph graph_%p {\n", (void *)g);
    dot_graph(f, g, "  ");
    fprintf(f, "}\n");
    return fclose(f) == 0 ? CUDA_SUCCESS : CUDA_ERROR_OPERATING_SYSTEM;
}
