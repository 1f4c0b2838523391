// graph_memory — graph memory nodes as NVIDIA's graphMemoryNodes and graphMemoryFootprint samples use them: an
// explicit allocation node, kernels using its fixed address and a free node; the same captured from
// cudaMallocAsync/cudaFreeAsync, with copies and memsets that name the allocation before it exists; an allocation left valid by the graph and used, then freed, outside it; the
// relaunch rules (cudaErrorInvalidValue while the previous launch's allocation lives, unless the exec was
// instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch); cudaDeviceGetGraphMemAttribute's used and reserved
// amounts. Every result is checked against the host.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

#define EXPECT(cond, ...)                                                                                          \
    do {                                                                                                           \
        if (!(cond)) {                                                                                             \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                            \
            printf(__VA_ARGS__);                                                                                   \
            printf("\n");                                                                                          \
            return 1;                                                                                              \
        }                                                                                                          \
    } while (0)

enum { N = 1 << 16, THREADS = 256 };

__global__ void fill(float *a, float base, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = base + i;
}
__global__ void sum_into(const float *a, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, (double)a[i]);
}

static double expected(float base) { return (double)base * N + (double)N * (N - 1) / 2; }

static unsigned long long graph_mem(cudaGraphMemAttributeType a)
{
    unsigned long long v = ~0ull;
    if (cudaDeviceGetGraphMemAttribute(0, a, &v) != cudaSuccess)
        return ~0ull;
    return v;
}

static void alloc_params(cudaMemAllocNodeParams *p, size_t bytes)
{
    *p = cudaMemAllocNodeParams{};
    p->poolProps.allocType = cudaMemAllocationTypePinned;
    p->poolProps.location.type = cudaMemLocationTypeDevice;
    p->poolProps.location.id = 0;
    p->bytesize = bytes;
}

int main()
{
    const size_t bytes = N * sizeof(float);
    double *sum;
    CHECK(cudaMalloc(&sum, sizeof(double)));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    // explicit: alloc -> fill -> sum -> free
    {
        cudaGraph_t g;
        CHECK(cudaGraphCreate(&g, 0));
        cudaMemAllocNodeParams ap;
        alloc_params(&ap, bytes);
        cudaGraphNode_t an, fn, sn, frn;
        CHECK(cudaGraphAddMemAllocNode(&an, g, NULL, 0, &ap));
        float *a = (float *)ap.dptr;
        EXPECT(a != NULL, "the allocation node gave no address");
        float base = 3.0f;
        int n = N;
        cudaKernelNodeParams kp = {};
        void *fill_args[] = {&a, &base, &n};
        kp.func = (void *)fill;
        kp.gridDim = dim3(N / THREADS);
        kp.blockDim = dim3(THREADS);
        kp.kernelParams = fill_args;
        CHECK(cudaGraphAddKernelNode(&fn, g, &an, 1, &kp));
        void *sum_args[] = {&a, &sum, &n};
        kp.func = (void *)sum_into;
        kp.kernelParams = sum_args;
        CHECK(cudaGraphAddKernelNode(&sn, g, &fn, 1, &kp));
        CHECK(cudaGraphAddMemFreeNode(&frn, g, &sn, 1, a));
        cudaMemAllocNodeParams got;
        CHECK(cudaGraphMemAllocNodeGetParams(an, &got));
        EXPECT(got.dptr == a && got.bytesize == bytes, "alloc node params");
        void *freed = NULL;
        CHECK(cudaGraphMemFreeNodeGetParams(frn, &freed));
        EXPECT(freed == a, "free node params");
        cudaGraphExec_t e;
        CHECK(cudaGraphInstantiate(&e, g, NULL, NULL, 0));
        CHECK(cudaGraphDestroy(g));   // the exec keeps the allocation node
        for (int launch = 0; launch < 3; launch++) {
            CHECK(cudaMemsetAsync(sum, 0, sizeof(double), s));
            CHECK(cudaGraphLaunch(e, s));
            CHECK(cudaStreamSynchronize(s));
            double h = 0;
            CHECK(cudaMemcpy(&h, sum, sizeof h, cudaMemcpyDeviceToHost));
            EXPECT(h == expected(base), "explicit graph, launch %d: %.1f, expected %.1f", launch, h, expected(base));
        }
        EXPECT(graph_mem(cudaGraphMemAttrUsedMemCurrent) == 0, "used graph memory %llu after the free node",
               graph_mem(cudaGraphMemAttrUsedMemCurrent));
        EXPECT(graph_mem(cudaGraphMemAttrUsedMemHigh) >= bytes, "used-memory high watermark %llu",
               graph_mem(cudaGraphMemAttrUsedMemHigh));
        EXPECT(graph_mem(cudaGraphMemAttrReservedMemCurrent) >= bytes, "reserved graph memory %llu",
               graph_mem(cudaGraphMemAttrReservedMemCurrent));
        // the memory is invalid outside its lifetime: a copy from it fails
        float probe;
        EXPECT(cudaMemcpy(&probe, a, sizeof probe, cudaMemcpyDeviceToHost) != cudaSuccess,
               "a freed graph allocation was readable");
        cudaGetLastError();
        CHECK(cudaGraphExecDestroy(e));
        EXPECT(graph_mem(cudaGraphMemAttrReservedMemCurrent) == 0, "reserved graph memory %llu after destroy",
               graph_mem(cudaGraphMemAttrReservedMemCurrent));
        unsigned long long zero = 0;
        CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
        EXPECT(graph_mem(cudaGraphMemAttrUsedMemHigh) == 0, "the high watermark was not reset");
        CHECK(cudaDeviceGraphMemTrim(0));
    }

    // captured cudaMallocAsync / cudaFreeAsync
    {
        cudaGraph_t g;
        float *a = NULL;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        static float host_in[N], host_out[N];
        for (int i = 0; i < N; i++)
            host_in[i] = 1.5f + i;
        CHECK(cudaMallocAsync((void **)&a, bytes, s));
        // copies and memsets name the allocation before its node has run: recorded, not refused
        CHECK(cudaMemsetAsync(a, 0xff, bytes, s));
        CHECK(cudaMemcpyAsync(a, host_in, bytes, cudaMemcpyHostToDevice, s));
        CHECK(cudaMemsetAsync(sum, 0, sizeof(double), s));
        sum_into<<<N / THREADS, THREADS, 0, s>>>(a, sum, N);
        CHECK(cudaMemcpyAsync(host_out, a, bytes, cudaMemcpyDeviceToHost, s));
        CHECK(cudaFreeAsync(a, s));
        CHECK(cudaStreamEndCapture(s, &g));
        size_t nn = 0;
        CHECK(cudaGraphGetNodes(g, NULL, &nn));
        EXPECT(nn == 7, "captured graph has %zu nodes, expected 7", nn);
        cudaGraphNode_t nodes[7];
        CHECK(cudaGraphGetNodes(g, nodes, &nn));
        cudaGraphNodeType t0, t6;
        CHECK(cudaGraphNodeGetType(nodes[0], &t0));
        CHECK(cudaGraphNodeGetType(nodes[6], &t6));
        EXPECT(t0 == cudaGraphNodeTypeMemAlloc && t6 == cudaGraphNodeTypeMemFree, "node types %d %d", (int)t0,
               (int)t6);
        cudaGraphExec_t e;
        CHECK(cudaGraphInstantiate(&e, g, NULL, NULL, 0));
        for (int launch = 0; launch < 2; launch++) {
            CHECK(cudaGraphLaunch(e, s));
            CHECK(cudaStreamSynchronize(s));
            double h = 0;
            CHECK(cudaMemcpy(&h, sum, sizeof h, cudaMemcpyDeviceToHost));
            EXPECT(h == expected(1.5f), "captured graph, launch %d: %.1f", launch, h);
            EXPECT(host_out[0] == 1.5f && host_out[N - 1] == 1.5f + (N - 1), "copied back: %g .. %g", host_out[0],
                   host_out[N - 1]);
        }
        CHECK(cudaGraphExecDestroy(e));
        CHECK(cudaGraphDestroy(g));
    }

    // an allocation the graph leaves valid: used and freed outside, relaunch rules
    for (int autofree = 0; autofree < 2; autofree++) {
        cudaGraph_t g;
        float *a = NULL;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        CHECK(cudaMallocAsync((void **)&a, bytes, s));
        fill<<<N / THREADS, THREADS, 0, s>>>(a, 7.0f, N);
        CHECK(cudaStreamEndCapture(s, &g));
        cudaGraphExec_t e;
        CHECK(cudaGraphInstantiateWithFlags(&e, g, autofree ? cudaGraphInstantiateFlagAutoFreeOnLaunch : 0));
        CHECK(cudaGraphDestroy(g));
        CHECK(cudaGraphLaunch(e, s));
        CHECK(cudaMemsetAsync(sum, 0, sizeof(double), s));
        sum_into<<<N / THREADS, THREADS, 0, s>>>(a, sum, N);   // outside the graph: the memory is still valid
        CHECK(cudaStreamSynchronize(s));
        double h = 0;
        CHECK(cudaMemcpy(&h, sum, sizeof h, cudaMemcpyDeviceToHost));
        EXPECT(h == expected(7.0f), "allocation used after the graph: %.1f", h);
        EXPECT(graph_mem(cudaGraphMemAttrUsedMemCurrent) >= bytes, "used graph memory %llu while valid",
               graph_mem(cudaGraphMemAttrUsedMemCurrent));
        cudaError_t relaunch = cudaGraphLaunch(e, s);
        if (autofree) {
            EXPECT(relaunch == cudaSuccess, "auto-free relaunch: %s", cudaGetErrorString(relaunch));
        } else {
            EXPECT(relaunch == cudaErrorInvalidValue, "relaunch with the allocation valid: %s, expected %s",
                   cudaGetErrorString(relaunch), cudaGetErrorString(cudaErrorInvalidValue));
            cudaGetLastError();
        }
        CHECK(cudaFreeAsync(a, s));   // freed outside the graph
        EXPECT(cudaFreeAsync(a, s) == cudaErrorInvalidValue, "a second free was accepted");
        cudaGetLastError();
        CHECK(cudaGraphLaunch(e, s));
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaFree(a));   // cudaFree takes graph allocations too
        CHECK(cudaGraphExecDestroy(e));
    }
    EXPECT(graph_mem(cudaGraphMemAttrUsedMemCurrent) == 0, "used graph memory %llu at the end",
           graph_mem(cudaGraphMemAttrUsedMemCurrent));

    // a free node needs a graph allocation
    {
        cudaGraph_t g;
        CHECK(cudaGraphCreate(&g, 0));
        cudaGraphNode_t n;
        EXPECT(cudaGraphAddMemFreeNode(&n, g, NULL, 0, sum) == cudaErrorInvalidValue,
               "a free node of cudaMalloc memory was accepted");
        cudaMemAllocNodeParams ap;
        alloc_params(&ap, 0);
        EXPECT(cudaGraphAddMemAllocNode(&n, g, NULL, 0, &ap) == cudaErrorInvalidValue,
               "a 0-byte allocation node was accepted");
        cudaGetLastError();
        CHECK(cudaGraphDestroy(g));
    }

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(sum));
    printf("PASS graph_memory\n");
    return 0;
}
