// graph_nodes — an explicitly built CUDA graph in the shape of NVIDIA's simpleCudaGraphs sample: a 3D memcpy node
// (cudaMemcpy3DParms, host to device), a memset node, a two-kernel reduction, a 1D device-to-host memcpy node and a
// host node; the graph cloned, nested as a child graph next to event record/wait nodes, dumped as DOT, and an exec
// memset parameter changed (cudaGraphExecMemsetNodeSetParams). Every result is checked against the host.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#include "check.h"

enum { N = 4096, THREADS = 256, BLOCKS = N / THREADS };

// one partial sum per block
__global__ void reduce_blocks(const double *in, double *partial, int n)
{
    __shared__ double s[THREADS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0.0;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step /= 2) {
        if (threadIdx.x < step)
            s[threadIdx.x] += s[threadIdx.x + step];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = s[0];
}

// out = sum of the partials + the word a memset node wrote into *bias (an int)
__global__ void reduce_final(const double *partial, const int *bias, double *out, int nblocks)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        double sum = 0;
        for (int b = 0; b < nblocks; b++)
            sum += partial[b];
        *out = sum + *bias;
    }
}

struct host_result {
    double *value;
    double expected;
    int ok, calls;
};

static void CUDART_CB check_result(void *user)
{
    host_result *r = (host_result *)user;
    r->calls++;
    if (*r->value != r->expected) {
        printf("host node: result %.17g, expected %.17g\n", *r->value, r->expected);
        r->ok = 0;
    }
}

int main()
{
    double *hin, *hout;
    CHECK(cudaMallocHost(&hin, N * sizeof(double)));
    CHECK(cudaMallocHost(&hout, sizeof(double)));
    double sum = 0;
    for (int i = 0; i < N; i++) {
        hin[i] = (double)((i * 7919) % 1000) / 8.0;
        sum += hin[i];
    }
    double *din, *partial, *dout;
    int *bias;
    CHECK(cudaMalloc(&din, N * sizeof(double)));
    CHECK(cudaMalloc(&partial, BLOCKS * sizeof(double)));
    CHECK(cudaMalloc(&dout, sizeof(double)));
    CHECK(cudaMalloc(&bias, sizeof(int)));

    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphNode_t copy_in, set_bias, k1, k2, copy_out, host;

    cudaMemcpy3DParms mp = {};
    mp.srcPtr = make_cudaPitchedPtr(hin, N * sizeof(double), N, 1);
    mp.dstPtr = make_cudaPitchedPtr(din, N * sizeof(double), N, 1);
    mp.extent = make_cudaExtent(N * sizeof(double), 1, 1);
    mp.kind = cudaMemcpyHostToDevice;
    CHECK(cudaGraphAddMemcpyNode(&copy_in, graph, nullptr, 0, &mp));

    cudaMemsetParams ms = {};
    ms.dst = bias;
    ms.value = 3;
    ms.elementSize = sizeof(int);
    ms.width = 1;
    ms.height = 1;
    CHECK(cudaGraphAddMemsetNode(&set_bias, graph, nullptr, 0, &ms));

    int n = N, nblocks = BLOCKS;
    void *args1[] = {&din, &partial, &n};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)reduce_blocks;
    kp.gridDim = dim3(BLOCKS);
    kp.blockDim = dim3(THREADS);
    kp.kernelParams = args1;
    CHECK(cudaGraphAddKernelNode(&k1, graph, &copy_in, 1, &kp));

    void *args2[] = {&partial, &bias, &dout, &nblocks};
    kp.func = (void *)reduce_final;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(1);
    kp.kernelParams = args2;
    cudaGraphNode_t k2deps[] = {k1, set_bias};
    CHECK(cudaGraphAddKernelNode(&k2, graph, k2deps, 2, &kp));

    CHECK(cudaGraphAddMemcpyNode1D(&copy_out, graph, &k2, 1, hout, dout, sizeof(double), cudaMemcpyDefault));
    host_result result = {hout, sum + 3, 1, 0};
    cudaHostNodeParams hp = {check_result, &result};
    CHECK(cudaGraphAddHostNode(&host, graph, &copy_out, 1, &hp));

    size_t nroots = 0;
    CHECK(cudaGraphGetRootNodes(graph, nullptr, &nroots));
    if (nroots != 2) {
        printf("FAIL %zu root nodes, expected 2\n", nroots);
        return 1;
    }

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 3; i++) {
        *hout = 0;
        CHECK(cudaGraphLaunch(exec, s));
    }
    CHECK(cudaStreamSynchronize(s));

    // the exec's memset writes another bias; the graph keeps its own
    ms.value = 10;
    CHECK(cudaGraphExecMemsetNodeSetParams(exec, set_bias, &ms));
    result.expected = sum + 10;
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));

    // a clone of the graph (bias 3) as a child graph between an event record and an event wait
    cudaGraph_t clone, outer;
    CHECK(cudaGraphClone(&clone, graph));
    CHECK(cudaGraphCreate(&outer, 0));
    cudaEvent_t ev;
    CHECK(cudaEventCreate(&ev));
    cudaGraphNode_t rec, child, wait;
    CHECK(cudaGraphAddEventRecordNode(&rec, outer, nullptr, 0, ev));
    CHECK(cudaGraphAddChildGraphNode(&child, outer, &rec, 1, clone));
    CHECK(cudaGraphAddEventWaitNode(&wait, outer, &child, 1, ev));
    cudaGraphExec_t outer_exec;
    CHECK(cudaGraphInstantiate(&outer_exec, outer, 0));
    result.expected = sum + 3;
    CHECK(cudaGraphLaunch(outer_exec, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaEventSynchronize(ev));

    const char *dot = "graph_nodes.dot";
    CHECK(cudaGraphDebugDotPrint(outer, dot, cudaGraphDebugDotFlagsVerbose));
    FILE *f = fopen(dot, "r");
    char text[4096] = {0};
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    remove(dot);
    if (!len || !strstr(text, "digraph") || !strstr(text, "->")) {
        printf("FAIL cudaGraphDebugDotPrint wrote no graph\n");
        return 1;
    }

    if (!result.ok || result.calls != 5) {
        printf("FAIL host node: ok %d after %d calls, expected 5\n", result.ok, result.calls);
        return 1;
    }
    CHECK(cudaGraphExecDestroy(outer_exec));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(outer));
    CHECK(cudaGraphDestroy(clone));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaEventDestroy(ev));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(din));
    CHECK(cudaFree(partial));
    CHECK(cudaFree(dout));
    CHECK(cudaFree(bias));
    CHECK(cudaFreeHost(hin));
    CHECK(cudaFreeHost(hout));
    printf("PASS graph_nodes sum %.3f over 5 graph launches\n", sum);
    return 0;
}
