/* Conditional graph nodes and graph memory at the driver API (driver-stub/graph_cond.c, graph_memnode.c), on every
 * backend that runs kernels (CPU, and PoCL through SPIR-V): a WHILE node whose body kernel sets the condition with
 * cudaGraphSetConditional (a store to the handle's address, emitted by the compiler), an IF/ELSE on a default
 * value, an allocation node -> memset -> copy to the host -> free node graph launched twice, the same captured from
 * cuMemAllocAsync/cuMemFreeAsync, graph memory attributes, and the refusals (a free node of ordinary memory,
 * a second free, an unknown handle, a relaunch while the allocation lives). */
#include <stdint.h>
#include <string.h>

#include "check.h"

static const char ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".extern .func cudaGraphSetConditional(.param .b64 h, .param .b32 v);\n"
    "// *cnt += 1; continue while *cnt < limit\n"
    ".visible .entry step(.param .u64 pc, .param .u64 ph, .param .u32 plim)\n"
    "{\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [pc];\n    ld.param.u64 %rd2, [ph];\n    ld.param.u32 %r1, [plim];\n"
    "    cvta.to.global.u64 %rd3, %rd1;\n"
    "    ld.global.u32 %r2, [%rd3];\n    add.u32 %r2, %r2, 1;\n    st.global.u32 [%rd3], %r2;\n"
    "    setp.lt.u32 %p1, %r2, %r1;\n    selp.u32 %r3, 1, 0, %p1;\n"
    "    { .param .b64 a; .param .b32 b; st.param.b64 [a], %rd2; st.param.b32 [b], %r3;\n"
    "      call.uni cudaGraphSetConditional, (a, b); }\n"
    "    ret;\n"
    "}\n";

static CUfunction step;

static CUgraphNode add_cond(CUgraph g, CUgraphConditionalHandle h, CUgraphConditionalNodeType type, unsigned size,
                            CUgraph *bodies, CUcontext ctx)
{
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    p.conditional.handle = h;
    p.conditional.type = type;
    p.conditional.size = size;
    p.conditional.ctx = ctx;
    CUgraphNode n = NULL;
    OK(cuGraphAddNode(&n, g, NULL, NULL, 0, &p));
    for (unsigned i = 0; n && i < size; i++)
        bodies[i] = p.conditional.phGraph_out[i];
    return n;
}

static void add_memset(CUgraph g, const CUgraphNode *deps, size_t ndeps, CUdeviceptr dst, unsigned value,
                       size_t n32, CUcontext ctx, CUgraphNode *out)
{
    CUDA_MEMSET_NODE_PARAMS m;
    memset(&m, 0, sizeof m);
    m.dst = dst;
    m.value = value;
    m.elementSize = 4;
    m.width = n32;
    m.height = 1;
    OK(cuGraphAddMemsetNode(out, g, deps, ndeps, &m, ctx));
}

static uint32_t read32(CUdeviceptr p)
{
    uint32_t v = 0xdeadbeef;
    OK(cuMemcpyDtoH(&v, p, 4));
    return v;
}

static void conditional(CUcontext ctx, CUdeviceptr cnt, CUdeviceptr y)
{
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphConditionalHandle h;
    OK(cuGraphConditionalHandleCreate(&h, g, ctx, 1, CU_GRAPH_COND_ASSIGN_DEFAULT));
    CUgraph body;
    add_cond(g, h, CU_GRAPH_COND_TYPE_WHILE, 1, &body, ctx);
    unsigned limit = 5;
    void *args[] = {&cnt, &h, &limit};
    CUDA_KERNEL_NODE_PARAMS k;
    memset(&k, 0, sizeof k);
    k.func = step;
    k.gridDimX = k.gridDimY = k.gridDimZ = 1;
    k.blockDimX = k.blockDimY = k.blockDimZ = 1;
    k.kernelParams = args;
    CUgraphNode kn;
    OK(cuGraphAddKernelNode(&kn, body, NULL, 0, &k));
    CUgraphExec e;
    OK(cuGraphInstantiate(&e, g, 0));
    for (int launch = 0; launch < 2; launch++) {
        OK(cuMemsetD32(cnt, 0, 1));
        OK(cuGraphLaunch(e, NULL));
        OK(cuStreamSynchronize(NULL));
        TRUE(read32(cnt) == 5);   /* the body ran while the kernel said so */
    }
    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(g));

    /* IF/ELSE on the default value alone: 0 runs the ELSE body */
    OK(cuGraphCreate(&g, 0));
    OK(cuGraphConditionalHandleCreate(&h, g, ctx, 0, CU_GRAPH_COND_ASSIGN_DEFAULT));
    CUgraph bodies[2];
    add_cond(g, h, CU_GRAPH_COND_TYPE_IF, 2, bodies, ctx);
    CUgraphNode n;
    add_memset(bodies[0], NULL, 0, y, 9, 1, ctx, &n);
    add_memset(bodies[1], NULL, 0, y, 7, 1, ctx, &n);
    OK(cuGraphInstantiate(&e, g, 0));
    OK(cuGraphLaunch(e, NULL));
    OK(cuStreamSynchronize(NULL));
    TRUE(read32(y) == 7);
    /* as on the H100 (recorded): one exec at a time, no clone, no nesting as a child graph */
    CUgraphExec e2;
    CUgraph other;
    EXPECT(cuGraphInstantiate(&e2, g, 0), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuGraphClone(&other, g), CUDA_ERROR_NOT_SUPPORTED);
    OK(cuGraphCreate(&other, 0));
    CUgraphNode child;
    EXPECT(cuGraphAddChildGraphNode(&child, other, NULL, 0, g), CUDA_ERROR_NOT_SUPPORTED);
    OK(cuGraphDestroy(other));
    OK(cuGraphExecDestroy(e));
    OK(cuGraphInstantiate(&e2, g, 0));   /* the first one is gone */
    OK(cuGraphExecDestroy(e2));
    /* refusals: a made-up handle, a WHILE of two bodies */
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    p.conditional.handle = h + 4096;
    p.conditional.type = CU_GRAPH_COND_TYPE_IF;
    p.conditional.size = 1;
    EXPECT(cuGraphAddNode(&n, g, NULL, NULL, 0, &p), CUDA_ERROR_INVALID_VALUE);
    p.conditional.handle = h;
    p.conditional.type = CU_GRAPH_COND_TYPE_WHILE;
    p.conditional.size = 2;
    EXPECT(cuGraphAddNode(&n, g, NULL, NULL, 0, &p), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphConditionalHandleCreate(&h, g, ctx, 0, 2), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphDestroy(g));
}

static cuuint64_t graph_mem(CUgraphMem_attribute a)
{
    cuuint64_t v = ~0ull;
    OK(cuDeviceGetGraphMemAttribute(0, a, &v));
    return v;
}

static void memory(CUcontext ctx, CUdeviceptr plain)
{
    enum { WORDS = 1024 };
    static uint32_t host[WORDS];
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUDA_MEM_ALLOC_NODE_PARAMS ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    ap.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    ap.poolProps.location.id = 0;
    ap.bytesize = WORDS * 4;
    CUgraphNode an, mn, cn, fn;
    MUST(cuGraphAddMemAllocNode(&an, g, NULL, 0, &ap));
    TRUE(ap.dptr != 0);
    add_memset(g, &an, 1, ap.dptr, 0x5a5a0001u, WORDS, ctx, &mn);
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = ap.dptr;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = host;
    c.WidthInBytes = WORDS * 4;
    c.Height = c.Depth = 1;
    OK(cuGraphAddMemcpyNode(&cn, g, &mn, 1, &c, ctx));
    OK(cuGraphAddMemFreeNode(&fn, g, &cn, 1, ap.dptr));
    CUgraphExec e;
    OK(cuGraphInstantiate(&e, g, 0));
    for (int launch = 0; launch < 2; launch++) {
        memset(host, 0, sizeof host);
        OK(cuGraphLaunch(e, NULL));
        OK(cuStreamSynchronize(NULL));
        TRUE(host[0] == 0x5a5a0001u && host[WORDS - 1] == 0x5a5a0001u);
    }
    TRUE(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT) == 0);
    TRUE(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_HIGH) >= WORDS * 4);
    TRUE(graph_mem(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT) >= WORDS * 4);
    OK(cuGraphExecDestroy(e));
    CUgraphNode bad;
    EXPECT(cuGraphAddMemFreeNode(&bad, g, NULL, 0, plain), CUDA_ERROR_INVALID_VALUE);   /* not graph memory */
    OK(cuGraphDestroy(g));
    TRUE(graph_mem(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT) == 0);

    /* captured: cuMemAllocAsync -> memset -> copy -> cuMemFreeAsync; then an allocation left valid */
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr d = 0;
    OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuMemAllocAsync(&d, WORDS * 4, s));
    OK(cuMemsetD32Async(d, 77, WORDS, s));
    OK(cuMemcpyDtoHAsync(host, d, WORDS * 4, s));
    OK(cuMemFreeAsync(d, s));
    /* ordinary memory: refused, the capture goes on (H100, recorded) */
    EXPECT(cuMemFreeAsync(plain, s), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamEndCapture(s, &g));
    OK(cuGraphInstantiate(&e, g, 0));
    memset(host, 0, sizeof host);
    OK(cuGraphLaunch(e, s));
    OK(cuStreamSynchronize(s));
    TRUE(host[0] == 77 && host[WORDS - 1] == 77);
    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(g));

    OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuMemsetD32Async(plain, 11, 1, s));
    OK(cuMemAllocAsync(&d, WORDS * 4, s));
    OK(cuMemsetD32Async(d, 3, WORDS, s));
    OK(cuStreamEndCapture(s, &g));
    OK(cuGraphInstantiate(&e, g, 0));
    OK(cuGraphDestroy(g));
    OK(cuGraphLaunch(e, s));
    TRUE(read32(d + 4 * (WORDS - 1)) == 3);   /* valid after the launch, outside the graph */
    TRUE(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT) >= WORDS * 4);
    OK(cuMemsetD32(plain, 0, 1));
    EXPECT(cuGraphLaunch(e, s), CUDA_ERROR_INVALID_VALUE);   /* the previous launch's allocation lives */
    TRUE(read32(plain) == 0);                                 /* refused as a whole: no node ran */
    OK(cuMemFreeAsync(d, s));
    EXPECT(cuMemFreeAsync(d, s), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphLaunch(e, s));
    OK(cuMemFree(d));
    OK(cuGraphExecDestroy(e));
    TRUE(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT) == 0);
    /* a capture ended with nowhere to put its graph: ended, the graph discarded (H100, recorded) */
    OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuMemsetD32Async(plain, 1, 1, s));
    OK(cuStreamEndCapture(s, NULL));
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_ACTIVE;
    OK(cuStreamIsCapturing(s, &st));
    TRUE(st == CU_STREAM_CAPTURE_STATUS_NONE);
    OK(cuStreamDestroy(s));
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
    MUST(cuModuleGetFunction(&step, mod, "step"));
    CUdeviceptr cnt, y;
    MUST(cuMemAlloc(&cnt, 4));
    MUST(cuMemAlloc(&y, 4));
    conditional(ctx, cnt, y);
    memory(ctx, y);
    OK(cuMemFree(cnt));
    OK(cuMemFree(y));
    OK(cuModuleUnload(mod));
    return check_done("test_graph_cond");
}
