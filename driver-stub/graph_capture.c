/* graph_capture.c — the stream-capture entry points: cuStreamBeginCapture (v1, v2), cuStreamBeginCaptureToGraph,
 * cuStreamEndCapture, cuStreamUpdateCaptureDependencies (v1, v2), each with its per-thread (_ptsz) symbol. The
 * capture state and the recording hooks are graph_capture_state.c's.
 */
#include "graph.h"

static CUresult capture_prologue(CUstream s, CUstreamCaptureMode mode)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    r = p2n_drv_check_stream(s, c);
    if (r != CUDA_SUCCESS)
        return r;
    if ((unsigned)mode > CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

static CUresult begin_capture(CUstream s, CUstreamCaptureMode mode)
{
    CUresult r = capture_prologue(s, mode);
    if (r != CUDA_SUCCESS)
        return r;
    if (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    p2n_graph *g;
    r = p2n_drv_graph_new(((p2n_stream *)s)->ctx, P2N_MAGIC_GRAPH, &g);
    if (r != CUDA_SUCCESS)
        return r;
    r = p2n_drv_capture_begin(s, g, 1, mode, NULL, 0);
    if (r != CUDA_SUCCESS)
        p2n_drv_graph_free(g);
    return r;
}

/* the CUDA 10.0 ABI has no mode: global */
CUresult cuStreamBeginCapture(CUstream hStream) { return begin_capture(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL); }
CUresult cuStreamBeginCapture_ptsz(CUstream hStream)
{ return begin_capture(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL); }
CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode) { return begin_capture(hStream, mode); }
CUresult cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode)
{ return begin_capture(hStream, mode); }

static CUresult begin_capture_to_graph(CUstream s, CUgraph hGraph, const CUgraphNode *deps,
                                       const CUgraphEdgeData *edges, size_t ndeps, CUstreamCaptureMode mode)
{
    CUresult r = capture_prologue(s, mode);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_graph *g;
    r = p2n_drv_graph_get(hGraph, &g);
    if (r != CUDA_SUCCESS)
        return r;
    for (size_t i = 0; edges && i < ndeps; i++)
        if (edges[i].from_port || edges[i].to_port || edges[i].type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT)
            return CUDA_ERROR_NOT_SUPPORTED;
    if (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    if (g->ctx != ((p2n_stream *)s)->ctx)
        return CUDA_ERROR_INVALID_CONTEXT;
    return p2n_drv_capture_begin(s, g, 0, mode, deps, ndeps);
}

CUresult cuStreamBeginCaptureToGraph(CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
                                     const CUgraphEdgeData *dependencyData, size_t numDependencies,
                                     CUstreamCaptureMode mode)
{ return begin_capture_to_graph(hStream, hGraph, dependencies, dependencyData, numDependencies, mode); }
CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
                                          const CUgraphEdgeData *dependencyData, size_t numDependencies,
                                          CUstreamCaptureMode mode)
{ return begin_capture_to_graph(hStream, hGraph, dependencies, dependencyData, numDependencies, mode); }

static CUresult end_capture(CUstream s, CUgraph *phGraph)
{
    CUresult r = capture_prologue(s, CU_STREAM_CAPTURE_MODE_GLOBAL);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_graph *g = NULL;
    r = p2n_drv_capture_end(s, &g, phGraph != NULL);
    if (phGraph && (r == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED || r == CUDA_ERROR_STREAM_CAPTURE_UNJOINED ||
                    r == CUDA_SUCCESS))
        *phGraph = (CUgraph)g;   /* NULL when the capture failed */
    return r;
}

CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph) { return end_capture(hStream, phGraph); }
CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph) { return end_capture(hStream, phGraph); }

static CUresult update_deps(CUstream s, CUgraphNode *deps, const CUgraphEdgeData *edges, size_t ndeps,
                            unsigned flags)
{
    CUresult r = capture_prologue(s, CU_STREAM_CAPTURE_MODE_GLOBAL);
    if (r != CUDA_SUCCESS)
        return r;
    for (size_t i = 0; edges && i < ndeps; i++)
        if (edges[i].from_port || edges[i].to_port || edges[i].type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT)
            return CUDA_ERROR_NOT_SUPPORTED;
    return p2n_drv_capture_update_deps(s, deps, ndeps, flags);
}

CUresult cuStreamUpdateCaptureDependencies(CUstream hStream, CUgraphNode *dependencies, size_t numDependencies,
                                           unsigned int flags)
{ return update_deps(hStream, dependencies, NULL, numDependencies, flags); }
CUresult cuStreamUpdateCaptureDependencies_ptsz(CUstream hStream, CUgraphNode *dependencies, size_t numDependencies,
                                                unsigned int flags)
{ return update_deps(hStream, dependencies, NULL, numDependencies, flags); }
CUresult cuStreamUpdateCaptureDependencies_v2(CUstream hStream, CUgraphNode *dependencies,
                                              const CUgraphEdgeData *dependencyData, size_t numDependencies,
                                              unsigned int flags)
{ return update_deps(hStream, dependencies, dependencyData, numDependencies, flags); }
CUresult cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream hStream, CUgraphNode *dependencies,
                                                   const CUgraphEdgeData *dependencyData, size_t numDependencies,
                                                   unsigned int flags)
{ return update_deps(hStream, dependencies, dependencyData, numDependencies, flags); }
