/* CUDA graphs on libcuda.so.1 (driver-stub/graph*.c): an explicitly built graph (memset -> kernel -> memcpy -> host
 * node) instantiated and launched several times, its queries, argument values copied at add time, exec parameter
 * changes, node disabling, cuGraphExecUpdate (a changed kernel parameter; a changed topology is refused), child
 * graphs, DOT output; stream capture over two streams with fork and join, a captured graph launch, the capture
 * errors (unjoined fork, invalidation by a synchronisation, the legacy stream's implicit dependency), a cycle
 * refused at instantiation, invalid handles, graphs released with their context. Needs the host target (kernels). */
#include <stdint.h>
#include <string.h>

#include "check.h"

static const char ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "// x[i] = x[i] * a + b for i < n\n"
    ".visible .entry axpb(.param .u64 px, .param .f32 pa, .param .f32 pb, .param .u32 pn)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<6>;\n"
    "    .reg .f32 %f<5>;\n"
    "    .reg .b64 %rd<5>;\n"
    "    ld.param.u64 %rd1, [px];\n"
    "    ld.param.f32 %f1, [pa];\n"
    "    ld.param.f32 %f2, [pb];\n"
    "    ld.param.u32 %r1, [pn];\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n"
    "    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "    setp.ge.u32 %p1, %r5, %r1;\n"
    "    @%p1 bra DONE;\n"
    "    cvta.to.global.u64 %rd2, %rd1;\n"
    "    mul.wide.u32 %rd3, %r5, 4;\n"
    "    add.s64 %rd4, %rd2, %rd3;\n"
    "    ld.global.f32 %f3, [%rd4];\n"
    "    fma.rn.f32 %f4, %f3, %f1, %f2;\n"
    "    st.global.f32 [%rd4], %f4;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n"
    ".visible .entry trapper()\n"
    "{\n"
    "    trap;\n"
    "}\n";

enum { N = 256 };
static CUfunction axpb;
static int host_calls;

static void count_call(void *user) { ++*(int *)user; }

static int all_equal(const float *v, float want)
{
    for (int i = 0; i < N; i++)
        if (v[i] != want) {
            fprintf(stderr, "v[%d] = %g, expected %g\n", i, (double)v[i], (double)want);
            return 0;
        }
    return 1;
}

static unsigned float_bits(float f)
{
    unsigned u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static CUresult launch_axpb(CUstream s, CUdeviceptr x, float a, float b)
{
    unsigned n = N;
    void *args[] = {&x, &a, &b, &n};
    return cuLaunchKernel(axpb, N / 64, 1, 1, 64, 1, 1, 0, s, args, NULL);
}

static void explicit_graph(CUdeviceptr x)
{
    static float host[N];
    CUgraph g;
    MUST(cuGraphCreate(&g, 0));
    /* memset x to 1.0f */
    CUDA_MEMSET_NODE_PARAMS ms = {x, N * 4, float_bits(1.0f), 4, N, 1};
    CUgraphNode nset, nkern, ncopy, nhost;
    MUST(cuGraphAddMemsetNode(&nset, g, NULL, 0, &ms, NULL));
    /* x = x * 2 + 1: the values are copied now, so changing `a` afterwards changes nothing */
    float a = 2.0f, b = 1.0f;
    unsigned n = N;
    void *args[] = {&x, &a, &b, &n};
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = axpb;
    kp.gridDimX = N / 64;
    kp.gridDimY = kp.gridDimZ = 1;
    kp.blockDimX = 64;
    kp.blockDimY = kp.blockDimZ = 1;
    kp.kernelParams = args;
    MUST(cuGraphAddKernelNode(&nkern, g, &nset, 1, &kp));
    a = 100.0f;
    CUDA_MEMCPY3D cp;
    memset(&cp, 0, sizeof cp);
    cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    cp.srcDevice = x;
    cp.srcPitch = N * 4;
    cp.srcHeight = 1;
    cp.dstMemoryType = CU_MEMORYTYPE_HOST;
    cp.dstHost = host;
    cp.dstPitch = N * 4;
    cp.dstHeight = 1;
    cp.WidthInBytes = N * 4;
    cp.Height = 1;
    cp.Depth = 1;
    CUcontext cur;
    MUST(cuCtxGetCurrent(&cur));
    MUST(cuGraphAddMemcpyNode(&ncopy, g, &nkern, 1, &cp, cur));
    CUDA_HOST_NODE_PARAMS hp = {count_call, &host_calls};
    MUST(cuGraphAddHostNode(&nhost, g, &ncopy, 1, &hp));

    /* queries */
    size_t count = 0;
    OK(cuGraphGetNodes(g, NULL, &count));
    TRUE(count == 4);
    CUgraphNode roots[4];
    count = 4;
    OK(cuGraphGetRootNodes(g, roots, &count));
    TRUE(count == 1 && roots[0] == nset);
    CUgraphNode from[4], to[4];
    count = 4;
    OK(cuGraphGetEdges(g, from, to, NULL, &count));
    TRUE(count == 3);
    CUgraphNodeType type;
    OK(cuGraphNodeGetType(nkern, &type));
    TRUE(type == CU_GRAPH_NODE_TYPE_KERNEL);
    CUgraphNode dep = NULL;
    count = 1;
    OK(cuGraphNodeGetDependencies(ncopy, &dep, NULL, &count));
    TRUE(count == 1 && dep == nkern);
    count = 1;
    OK(cuGraphNodeGetDependentNodes(nkern, &dep, NULL, &count));
    TRUE(count == 1 && dep == ncopy);
    CUDA_KERNEL_NODE_PARAMS got;
    OK(cuGraphKernelNodeGetParams(nkern, &got));
    TRUE(got.func == axpb && got.gridDimX == N / 64 && *(float *)got.kernelParams[1] == 2.0f);
    EXPECT(cuGraphAddDependencies(g, &nset, &nkern, NULL, 1), CUDA_ERROR_INVALID_VALUE);   /* exists */

    /* kernel node attributes: kept, copied with the graph; what a launch cannot honour is refused */
    CUkernelNodeAttrValue av;
    memset(&av, 0, sizeof av);
    av.priority = 1;
    OK(cuGraphKernelNodeSetAttribute(nkern, CU_LAUNCH_ATTRIBUTE_PRIORITY, &av));
    av.clusterDim.x = av.clusterDim.y = av.clusterDim.z = 1;
    OK(cuGraphKernelNodeSetAttribute(nkern, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &av));
    av.clusterDim.x = 2;
    EXPECT(cuGraphKernelNodeSetAttribute(nkern, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &av), CUDA_ERROR_NOT_SUPPORTED);
    memset(&av, 0, sizeof av);
    av.cooperative = 1;   /* where the backend has grid-wide sync (the CPU) it is kept; elsewhere refused */
    int coop = 0;
    OK(cuDeviceGetAttribute(&coop, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0));
    EXPECT(cuGraphKernelNodeSetAttribute(nkern, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &av),
           coop ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED);
    av.cooperative = 0;
    OK(cuGraphKernelNodeSetAttribute(nkern, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &av));
    EXPECT(cuGraphKernelNodeSetAttribute(nkern, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT, &av), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphKernelNodeSetAttribute(nset, CU_LAUNCH_ATTRIBUTE_PRIORITY, &av), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphKernelNodeGetAttribute(nkern, CU_LAUNCH_ATTRIBUTE_PRIORITY, &av));
    TRUE(av.priority == 1);
    OK(cuGraphKernelNodeGetAttribute(nkern, CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN, &av));
    TRUE(av.memSyncDomain == CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT);

    /* instantiate, launch three times */
    CUgraphExec ge;
    MUST(cuGraphInstantiate(&ge, g, 0));
    host_calls = 0;
    for (int i = 0; i < 3; i++) {
        memset(host, 0, sizeof host);
        OK(cuGraphLaunch(ge, NULL));
        OK(cuStreamSynchronize(NULL));
        TRUE(all_equal(host, 3.0f));
    }
    TRUE(host_calls == 3);

    /* an exec parameter change: the exec only */
    kp.kernelParams = args;
    a = 3.0f;
    OK(cuGraphExecKernelNodeSetParams(ge, nkern, &kp));
    OK(cuGraphLaunch(ge, NULL));
    TRUE(all_equal(host, 4.0f));
    OK(cuGraphKernelNodeGetParams(nkern, &got));
    TRUE(*(float *)got.kernelParams[1] == 2.0f);

    /* a disabled kernel node */
    unsigned en = 1;
    OK(cuGraphNodeSetEnabled(ge, nkern, 0));
    OK(cuGraphNodeGetEnabled(ge, nkern, &en));
    TRUE(en == 0);
    OK(cuGraphLaunch(ge, NULL));
    TRUE(all_equal(host, 1.0f));
    EXPECT(cuGraphNodeSetEnabled(ge, nhost, 0), CUDA_ERROR_INVALID_VALUE);   /* host nodes cannot be disabled */
    OK(cuGraphNodeSetEnabled(ge, nkern, 1));

    /* cuGraphExecUpdate: same topology, new kernel parameters */
    CUgraph g2;
    CUgraphNode k2;
    MUST(cuGraphClone(&g2, g));
    MUST(cuGraphNodeFindInClone(&k2, nkern, g2));
    OK(cuGraphKernelNodeGetAttribute(k2, CU_LAUNCH_ATTRIBUTE_PRIORITY, &av));
    TRUE(av.priority == 1);
    a = 5.0f;
    OK(cuGraphKernelNodeSetParams(k2, &kp));
    CUgraphExecUpdateResultInfo info;
    OK(cuGraphExecUpdate(ge, g2, &info));
    TRUE(info.result == CU_GRAPH_EXEC_UPDATE_SUCCESS);
    OK(cuGraphLaunch(ge, NULL));
    TRUE(all_equal(host, 6.0f));
    /* another topology: refused, the exec unchanged */
    CUgraphNode extra;
    OK(cuGraphAddEmptyNode(&extra, g2, &k2, 1));
    EXPECT(cuGraphExecUpdate(ge, g2, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    TRUE(info.result == CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
    OK(cuGraphLaunch(ge, NULL));
    TRUE(all_equal(host, 6.0f));
    OK(cuGraphDestroyNode(extra));
    EXPECT(cuGraphNodeGetType(extra, &type), CUDA_ERROR_INVALID_VALUE);

    /* a child graph: g2 (its copy) after an empty node, in a new graph */
    CUgraph outer;
    CUgraphNode e0, child;
    MUST(cuGraphCreate(&outer, 0));
    OK(cuGraphAddEmptyNode(&e0, outer, NULL, 0));
    OK(cuGraphAddChildGraphNode(&child, outer, &e0, 1, g2));
    CUgraphExec oe;
    MUST(cuGraphInstantiateWithFlags(&oe, outer, 0));
    memset(host, 0, sizeof host);
    OK(cuGraphLaunch(oe, NULL));
    TRUE(all_equal(host, 6.0f));   /* the copy of g2: 1 * 5 + 1 */
    OK(cuGraphExecDestroy(oe));
    OK(cuGraphDestroy(outer));

    /* DOT */
    const char *dot = "/tmp/p2n_test_graph.dot";
    OK(cuGraphDebugDotPrint(g, dot, 0));
    char *text = test_read_file(dot, NULL);
    TRUE(text && strstr(text, "digraph") && strstr(text, "->") && strstr(text, "axpb"));
    free(text);
    remove(dot);

    OK(cuGraphExecDestroy(ge));
    EXPECT(cuGraphLaunch(ge, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphDestroy(g2));
    OK(cuGraphDestroy(g));
    EXPECT(cuGraphDestroy(g), CUDA_ERROR_INVALID_VALUE);
}

static void capture(CUdeviceptr x, CUdeviceptr y)
{
    static float hx[N], hy[N];
    CUstream s1, s2;
    CUevent fork, join;
    MUST(cuStreamCreate(&s1, 0));
    MUST(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    MUST(cuEventCreate(&fork, CU_EVENT_DISABLE_TIMING));
    MUST(cuEventCreate(&join, CU_EVENT_DISABLE_TIMING));

    MUST(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    OK(cuStreamIsCapturing(s1, &st));
    TRUE(st == CU_STREAM_CAPTURE_STATUS_ACTIVE);
    OK(cuMemsetD32Async(x, float_bits(1.0f), N, s1));
    OK(cuMemsetD32Async(y, float_bits(2.0f), N, s1));
    OK(cuEventRecord(fork, s1));
    EXPECT(cuEventQuery(fork), CUDA_ERROR_CAPTURED_EVENT);  /* its work is in the graph */
    OK(cuStreamWaitEvent(s2, fork, 0));                     /* fork: s2 joins the capture */
    OK(cuStreamIsCapturing(s2, &st));
    TRUE(st == CU_STREAM_CAPTURE_STATUS_ACTIVE);
    OK(launch_axpb(s1, x, 3.0f, 0.0f));                     /* x = 3 */
    OK(launch_axpb(s2, y, 10.0f, 1.0f));                    /* y = 21 */
    OK(cuEventRecord(join, s2));
    OK(cuStreamWaitEvent(s1, join, 0));                     /* join */
    OK(cuMemcpyDtoHAsync(hx, x, sizeof hx, s1));
    OK(cuMemcpyDtoHAsync(hy, y, sizeof hy, s1));
    cuuint64_t id = 0;
    CUgraph capg = NULL;
    const CUgraphNode *deps = NULL;
    size_t ndeps = 0;
    OK(cuStreamGetCaptureInfo(s1, &st, &id, &capg, &deps, NULL, &ndeps));
    TRUE(id != 0 && capg != NULL && ndeps == 1);
    CUgraph g = NULL;
    OK(cuStreamEndCapture(s1, &g));
    TRUE(g == capg);
    OK(cuStreamIsCapturing(s2, &st));
    TRUE(st == CU_STREAM_CAPTURE_STATUS_NONE);
    TRUE(hx[0] == 0.0f && hy[0] == 0.0f);                   /* recorded, not run */
    size_t count = 0;
    OK(cuGraphGetNodes(g, NULL, &count));
    TRUE(count == 6);
    CUgraphExec ge;
    MUST(cuGraphInstantiate(&ge, g, 0));
    for (int i = 0; i < 2; i++) {
        memset(hx, 0, sizeof hx);
        memset(hy, 0, sizeof hy);
        OK(cuGraphLaunch(ge, s1));
        OK(cuStreamSynchronize(s1));
        TRUE(all_equal(hx, 3.0f));
        TRUE(all_equal(hy, 21.0f));
    }

    /* a graph launch captured into another graph becomes a child graph node */
    MUST(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_RELAXED));
    OK(cuGraphLaunch(ge, s1));
    OK(launch_axpb(s1, x, 2.0f, 0.0f));
    OK(cuMemcpyDtoHAsync(hx, x, sizeof hx, s1));
    CUgraph g2 = NULL;
    OK(cuStreamEndCapture(s1, &g2));
    CUgraphExec ge2;
    MUST(cuGraphInstantiate(&ge2, g2, 0));
    OK(cuGraphLaunch(ge2, s1));
    TRUE(all_equal(hx, 6.0f));
    OK(cuGraphExecDestroy(ge2));
    OK(cuGraphDestroy(g2));

    /* a fork not joined back */
    MUST(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuEventRecord(fork, s1));
    OK(cuStreamWaitEvent(s2, fork, 0));
    OK(launch_axpb(s2, y, 1.0f, 1.0f));
    g2 = (CUgraph)1;
    EXPECT(cuStreamEndCapture(s1, &g2), CUDA_ERROR_STREAM_CAPTURE_UNJOINED);
    TRUE(g2 == NULL);
    OK(cuStreamIsCapturing(s2, &st));
    TRUE(st == CU_STREAM_CAPTURE_STATUS_NONE);

    /* a synchronisation invalidates the capture */
    MUST(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    EXPECT(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_ILLEGAL_STATE);
    EXPECT(cuStreamSynchronize(s1), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    OK(cuStreamIsCapturing(s1, &st));
    TRUE(st == CU_STREAM_CAPTURE_STATUS_INVALIDATED);
    EXPECT(launch_axpb(s1, x, 1.0f, 0.0f), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    EXPECT(cuStreamEndCapture(s1, &g2), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    TRUE(g2 == NULL);

    /* a context synchronisation is an unsafe call during a global capture, allowed in relaxed thread mode */
    MUST(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    OK(cuThreadExchangeStreamCaptureMode(&mode));
    OK(cuCtxSynchronize());
    OK(cuThreadExchangeStreamCaptureMode(&mode));
    TRUE(mode == CU_STREAM_CAPTURE_MODE_RELAXED);
    OK(cuStreamIsCapturing(s1, &st));
    TRUE(st == CU_STREAM_CAPTURE_STATUS_ACTIVE);
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    EXPECT(cuStreamEndCapture(s1, &g2), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

    /* the legacy stream while a blocking stream captures: an implicit dependency */
    MUST(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    EXPECT(cuStreamIsCapturing(CU_STREAM_LEGACY, &st), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    EXPECT(cuMemsetD32(x, 0, N), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    EXPECT(cuStreamEndCapture(s1, &g2), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    /* ... and the NULL stream cannot capture; a stream that does not capture cannot end one */
    EXPECT(cuStreamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    EXPECT(cuStreamEndCapture(s2, &g2), CUDA_ERROR_ILLEGAL_STATE);

    /* capture into an existing graph after one of its nodes */
    CUgraph into;
    CUgraphNode first;
    MUST(cuGraphCreate(&into, 0));
    CUDA_MEMSET_NODE_PARAMS ms = {x, N * 4, float_bits(4.0f), 4, N, 1};
    MUST(cuGraphAddMemsetNode(&first, into, NULL, 0, &ms, NULL));
    MUST(cuStreamBeginCaptureToGraph(s1, into, &first, NULL, 1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(launch_axpb(s1, x, 0.5f, 0.0f));
    OK(cuMemcpyDtoHAsync(hx, x, sizeof hx, s1));
    g2 = NULL;
    OK(cuStreamEndCapture(s1, &g2));
    TRUE(g2 == into);
    MUST(cuGraphInstantiate(&ge2, into, 0));
    OK(cuGraphLaunch(ge2, s2));
    TRUE(all_equal(hx, 2.0f));
    OK(cuGraphExecDestroy(ge2));
    OK(cuGraphDestroy(into));

    OK(cuGraphExecDestroy(ge));
    OK(cuGraphDestroy(g));
    OK(cuEventDestroy(fork));
    OK(cuEventDestroy(join));
    OK(cuStreamDestroy(s1));
    OK(cuStreamDestroy(s2));
}

static int callbacks;
static void CUDA_CB on_callback(CUstream s, CUresult status, void *user)
{
    (void)s;
    if (status == CUDA_SUCCESS)
        callbacks += *(int *)user;
}

/* more captured operations: 2D memset and copy, host function and stream callback, the capture's dependencies
 * replaced by cuStreamUpdateCaptureDependencies */
static void capture_ops(CUdeviceptr x)
{
    static uint32_t rows[4][32];
    CUstream s;
    MUST(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    MUST(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    /* 4 rows of 16 words, 32 words apart */
    OK(cuMemsetD32Async(x, 0, 4 * 32, s));
    OK(cuMemsetD2D32Async(x, 32 * 4, 7, 16, 4, s));
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = x;
    c.srcPitch = 32 * 4;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = rows;
    c.dstPitch = sizeof rows[0];
    c.WidthInBytes = 32 * 4;
    c.Height = 4;
    OK(cuMemcpy2DAsync(&c, s));
    static int one = 1, ten = 10;
    OK(cuLaunchHostFunc(s, count_call, &host_calls));
    OK(cuStreamAddCallback(s, on_callback, &ten, 0));
    /* the next node depends on nothing: a second root */
    CUstreamCaptureStatus st;
    const CUgraphNode *deps = NULL;
    size_t ndeps = 0;
    OK(cuStreamGetCaptureInfo(s, &st, NULL, NULL, &deps, NULL, &ndeps));
    TRUE(ndeps == 1);
    OK(cuStreamUpdateCaptureDependencies(s, NULL, NULL, 0, CU_STREAM_SET_CAPTURE_DEPENDENCIES));
    OK(cuStreamAddCallback(s, on_callback, &one, 0));
    /* external event nodes */
    CUevent ext;
    MUST(cuEventCreate(&ext, CU_EVENT_DISABLE_TIMING));
    OK(cuEventRecordWithFlags(ext, s, CU_EVENT_RECORD_EXTERNAL));
    OK(cuStreamWaitEvent(s, ext, CU_EVENT_WAIT_EXTERNAL));
    EXPECT(cuStreamUpdateCaptureDependencies(s, NULL, NULL, 0, 7), CUDA_ERROR_INVALID_VALUE);
    CUgraph g = NULL;
    OK(cuStreamEndCapture(s, &g));
    size_t nroots = 0, nnodes = 0;
    OK(cuGraphGetRootNodes(g, NULL, &nroots));
    TRUE(nroots == 2);
    OK(cuGraphGetNodes(g, NULL, &nnodes));
    TRUE(nnodes == 8);
    EXPECT(cuStreamWaitEvent(s, ext, CU_EVENT_WAIT_EXTERNAL), CUDA_ERROR_INVALID_VALUE);   /* outside a capture */
    OK(cuEventQuery(ext));
    CUgraphExec ge;
    MUST(cuGraphInstantiate(&ge, g, 0));
    host_calls = callbacks = 0;
    memset(rows, 0xff, sizeof rows);
    OK(cuGraphLaunch(ge, s));
    OK(cuStreamSynchronize(s));
    int good = 1;
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < 32; i++)
            good &= rows[r][i] == (i < 16 ? 7u : 0u);
    TRUE(good);
    TRUE(host_calls == 1 && callbacks == 11);
    OK(cuGraphExecDestroy(ge));
    OK(cuGraphDestroy(g));
    OK(cuEventDestroy(ext));
    OK(cuStreamDestroy(s));
}

static void errors(void)
{
    CUgraph g, other;
    CUgraphNode a, b, c, foreign;
    MUST(cuGraphCreate(&g, 0));
    MUST(cuGraphCreate(&other, 0));
    MUST(cuGraphAddEmptyNode(&a, g, NULL, 0));
    MUST(cuGraphAddEmptyNode(&b, g, &a, 1));
    MUST(cuGraphAddEmptyNode(&foreign, other, NULL, 0));
    EXPECT(cuGraphAddEmptyNode(&c, g, &foreign, 1), CUDA_ERROR_INVALID_VALUE);       /* another graph's node */
    CUgraphNode twice[2] = {a, a};
    EXPECT(cuGraphAddEmptyNode(&c, g, twice, 2), CUDA_ERROR_INVALID_VALUE);          /* a repeated dependency */
    EXPECT(cuGraphAddEmptyNode(&c, (CUgraph)&twice, NULL, 0), CUDA_ERROR_INVALID_VALUE);   /* garbage handle */
    EXPECT(cuGraphAddEmptyNode(NULL, g, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphLaunch((CUgraphExec)&twice, NULL), CUDA_ERROR_INVALID_VALUE);
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (CUfunction)&twice;
    kp.gridDimX = kp.gridDimY = kp.gridDimZ = kp.blockDimX = kp.blockDimY = kp.blockDimZ = 1;
    EXPECT(cuGraphAddKernelNode(&c, g, NULL, 0, &kp), CUDA_ERROR_INVALID_VALUE);     /* not a function */
    /* a cycle is refused at instantiation, naming a node of it */
    OK(cuGraphAddDependencies(g, &b, &a, NULL, 1));
    CUgraphExec ge = NULL;
    CUDA_GRAPH_INSTANTIATE_PARAMS ip;
    memset(&ip, 0, sizeof ip);
    EXPECT(cuGraphInstantiateWithParams(&ge, g, &ip), CUDA_ERROR_INVALID_VALUE);
    TRUE(ip.result_out == CUDA_GRAPH_INSTANTIATE_ERROR && ip.hErrNode_out != NULL);
    OK(cuGraphRemoveDependencies(g, &b, &a, NULL, 1));
    OK(cuGraphInstantiateWithParams(&ge, g, &ip));
    TRUE(ip.result_out == CUDA_GRAPH_INSTANTIATE_SUCCESS);
    cuuint64_t flags = 7;
    OK(cuGraphExecGetFlags(ge, &flags));
    TRUE(flags == 0);
    OK(cuGraphUpload(ge, NULL));
    OK(cuGraphExecDestroy(ge));
    OK(cuGraphDestroy(other));
    EXPECT(cuGraphNodeGetType(foreign, &(CUgraphNodeType){0}), CUDA_ERROR_INVALID_VALUE);   /* gone with it */
    OK(cuGraphDestroy(g));
}

/* a context's graphs go with it */
static void context_release(CUdevice dev, CUcontext primary)
{
    CUcontext c2;
    MUST(cuCtxCreate(&c2, NULL, 0, dev));
    CUgraph g;
    MUST(cuGraphCreate(&g, 0));
    CUgraphExec ge;
    MUST(cuGraphInstantiate(&ge, g, 0));
    OK(cuCtxDestroy(c2));
    MUST(cuCtxSetCurrent(primary));
    EXPECT(cuGraphDestroy(g), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphExecDestroy(ge), CUDA_ERROR_INVALID_VALUE);
}

/* a kernel node's asynchronous error poisons the context as cuLaunchKernel's does: the graph launch succeeds, the
 * next call reports it (last: the primary context stays failed) */
static void sticky_error(CUmodule mod)
{
    CUfunction trapper;
    MUST(cuModuleGetFunction(&trapper, mod, "trapper"));
    CUgraph g;
    CUgraphNode n;
    MUST(cuGraphCreate(&g, 0));
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = trapper;
    kp.gridDimX = kp.gridDimY = kp.gridDimZ = kp.blockDimX = kp.blockDimY = kp.blockDimZ = 1;
    MUST(cuGraphAddKernelNode(&n, g, NULL, 0, &kp));
    CUgraphExec ge;
    MUST(cuGraphInstantiate(&ge, g, 0));
    OK(cuGraphLaunch(ge, NULL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
    EXPECT(cuGraphLaunch(ge, NULL), CUDA_ERROR_LAUNCH_FAILED);
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    MUST(cuInit(0));
    MUST(cuDeviceGet(&dev, 0));
    MUST(cuDevicePrimaryCtxRetain(&ctx, dev));
    MUST(cuCtxSetCurrent(ctx));
    MUST(cuModuleLoadData(&mod, ptx));
    MUST(cuModuleGetFunction(&axpb, mod, "axpb"));
    CUdeviceptr x, y;
    MUST(cuMemAlloc(&x, N * 4));
    MUST(cuMemAlloc(&y, N * 4));
    explicit_graph(x);
    capture(x, y);
    capture_ops(x);
    errors();
    context_release(dev, ctx);
    OK(cuMemFree(x));
    OK(cuMemFree(y));
    sticky_error(mod);
    return check_done("test_graph");
}
