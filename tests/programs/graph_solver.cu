// graph_solver — CUDA graphs from the runtime API: a Jacobi solver for the 1D Poisson system (2u[i] - u[i-1] -
// u[i+1] = b[i], u = 0 outside) whose sweeps are captured once (cudaStreamBeginCapture, with a fork to a second
// stream for the residual and a join back) and launched many times; a re-capture with another sweep count applied
// with cudaGraphExecUpdate; and an explicitly built graph (kernel, memcpy and host nodes, cudaGraphAddDependencies)
// whose kernel parameters are changed in the exec (cudaGraphExecKernelNodeSetParams). Checked against the host.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#include "check.h"

enum { N = 1000, SWEEPS = 8, LAUNCHES = 25 };

__global__ void jacobi(const float *u, float *v, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float l = i > 0 ? u[i - 1] : 0.0f, r = i < n - 1 ? u[i + 1] : 0.0f;
        v[i] = (b[i] + l + r) * 0.5f;
    }
}

// sum of squared residuals (2u[i] - u[i-1] - u[i+1] - b[i])^2
__global__ void residual(const float *u, const float *b, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float l = i > 0 ? u[i - 1] : 0.0f, r = i < n - 1 ? u[i + 1] : 0.0f;
        float d = 2.0f * u[i] - l - r - b[i];
        atomicAdd(out, d * d);
    }
}

__global__ void fill(float *v, float value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = value * (float)i;
}

static void host_jacobi(float *u, const float *b, int sweeps)
{
    static float v[N];
    for (int s = 0; s < sweeps; s++) {
        for (int i = 0; i < N; i++) {
            float l = i > 0 ? u[i - 1] : 0.0f, r = i < N - 1 ? u[i + 1] : 0.0f;
            v[i] = (b[i] + l + r) * 0.5f;
        }
        memcpy(u, v, sizeof v);
    }
}

static double host_residual(const float *u, const float *b)
{
    double sum = 0;
    for (int i = 0; i < N; i++) {
        float l = i > 0 ? u[i - 1] : 0.0f, r = i < N - 1 ? u[i + 1] : 0.0f;
        float d = 2.0f * u[i] - l - r - b[i];
        sum += (double)d * d;
    }
    return sum;
}

static int host_launches;
static void CUDART_CB count_launch(void *) { host_launches++; }

// `sweeps` Jacobi sweeps (an even number: the result ends in u), then the residual on a forked stream while the
// main stream copies u out; the fork is joined before the residual is copied out
static cudaError_t capture_solver(cudaStream_t s1, cudaStream_t s2, cudaEvent_t fork, cudaEvent_t join, float *u,
                                  float *v, const float *b, float *res, float *hu, float *hres, int sweeps,
                                  cudaGraph_t *graph)
{
    cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal);
    for (int s = 0; s < sweeps; s += 2) {
        jacobi<<<(N + 127) / 128, 128, 0, s1>>>(u, v, b, N);
        jacobi<<<(N + 127) / 128, 128, 0, s1>>>(v, u, b, N);
    }
    cudaEventRecord(fork, s1);
    cudaStreamWaitEvent(s2, fork, 0);
    cudaMemsetAsync(res, 0, sizeof(float), s2);
    residual<<<(N + 127) / 128, 128, 0, s2>>>(u, b, res, N);
    cudaEventRecord(join, s2);
    cudaMemcpyAsync(hu, u, N * sizeof(float), cudaMemcpyDeviceToHost, s1);
    cudaStreamWaitEvent(s1, join, 0);
    cudaMemcpyAsync(hres, res, sizeof(float), cudaMemcpyDeviceToHost, s1);
    cudaLaunchHostFunc(s1, count_launch, nullptr);
    return cudaStreamEndCapture(s1, graph);
}

static int close_enough(double got, double want) { return fabs(got - want) <= 1e-4 * fabs(want) + 1e-6; }

int main()
{
    static float hb[N], hu[N], ref[N];
    float *hres;
    float *u, *v, *b, *res;
    CHECK(cudaMallocHost(&hres, sizeof(float)));
    CHECK(cudaMalloc(&u, N * sizeof(float)));
    CHECK(cudaMalloc(&v, N * sizeof(float)));
    CHECK(cudaMalloc(&b, N * sizeof(float)));
    CHECK(cudaMalloc(&res, sizeof(float)));
    for (int i = 0; i < N; i++)
        hb[i] = (float)((i * 37) % 11) * 0.25f - 1.0f;
    CHECK(cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(u, 0, N * sizeof(float)));

    cudaStream_t s1, s2;
    cudaEvent_t fork, join;
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

    // captured once, launched LAUNCHES times: SWEEPS * LAUNCHES sweeps in all
    cudaGraph_t graph;
    CHECK(capture_solver(s1, s2, fork, join, u, v, b, res, hu, hres, SWEEPS, &graph));
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    if (nodes != SWEEPS + 5) {
        printf("FAIL captured graph has %zu nodes, expected %d\n", nodes, SWEEPS + 5);
        return 1;
    }
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    memset(ref, 0, sizeof ref);
    for (int l = 0; l < LAUNCHES; l++) {
        CHECK(cudaGraphLaunch(exec, s1));
        CHECK(cudaStreamSynchronize(s1));
        host_jacobi(ref, hb, SWEEPS);
        for (int i = 0; i < N; i++)
            if (!close_enough(hu[i], ref[i])) {
                printf("FAIL launch %d: u[%d] = %.7g, host %.7g\n", l, i, hu[i], ref[i]);
                return 1;
            }
        if (!close_enough(*hres, host_residual(ref, hb))) {
            printf("FAIL launch %d: residual %.7g, host %.7g\n", l, *hres, host_residual(ref, hb));
            return 1;
        }
    }
    if (host_launches != LAUNCHES) {
        printf("FAIL host node ran %d times, expected %d\n", host_launches, LAUNCHES);
        return 1;
    }
    double first_residual = *hres;

    // the same shape re-captured (new graph, same topology): applied to the exec with cudaGraphExecUpdate
    cudaGraph_t graph2;
    CHECK(capture_solver(s1, s2, fork, join, u, v, b, res, hu, hres, SWEEPS, &graph2));
    cudaGraphExecUpdateResultInfo info;
    CHECK(cudaGraphExecUpdate(exec, graph2, &info));
    CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    host_jacobi(ref, hb, SWEEPS);
    for (int i = 0; i < N; i++)
        if (!close_enough(hu[i], ref[i])) {
            printf("FAIL after update: u[%d] = %.7g, host %.7g\n", i, hu[i], ref[i]);
            return 1;
        }
    if (!close_enough(*hres, host_residual(ref, hb))) {
        printf("FAIL after update: residual %.7g, host %.7g\n", *hres, host_residual(ref, hb));
        return 1;
    }
    double last_residual = *hres;
    cudaGraph_t graph3;   // another topology is refused
    CHECK(capture_solver(s1, s2, fork, join, u, v, b, res, hu, hres, SWEEPS + 2, &graph3));
    if (cudaGraphExecUpdate(exec, graph3, &info) != cudaErrorGraphExecUpdateFailure ||
        info.result != cudaGraphExecUpdateErrorTopologyChanged) {
        printf("FAIL cudaGraphExecUpdate accepted another topology\n");
        return 1;
    }
    cudaGetLastError();

    // an explicitly built graph: fill v, copy it out, count; the fill's value changed in the exec
    cudaGraph_t eg;
    CHECK(cudaGraphCreate(&eg, 0));
    float value = 0.5f;
    int n = N;
    void *args[] = {&v, &value, &n};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)fill;
    kp.gridDim = dim3((N + 127) / 128);
    kp.blockDim = dim3(128);
    kp.kernelParams = args;
    cudaGraphNode_t kn, cn, hn;
    CHECK(cudaGraphAddKernelNode(&kn, eg, nullptr, 0, &kp));
    CHECK(cudaGraphAddMemcpyNode1D(&cn, eg, &kn, 1, hu, v, N * sizeof(float), cudaMemcpyDeviceToHost));
    cudaHostNodeParams hp = {count_launch, nullptr};
    CHECK(cudaGraphAddHostNode(&hn, eg, nullptr, 0, &hp));
    CHECK(cudaGraphAddDependencies(eg, &cn, &hn, nullptr, 1));
    cudaGraphExec_t eexec;
    CHECK(cudaGraphInstantiate(&eexec, eg, 0));
    host_launches = 0;
    CHECK(cudaGraphLaunch(eexec, s2));
    CHECK(cudaStreamSynchronize(s2));
    for (int i = 0; i < N; i++)
        if (hu[i] != 0.5f * (float)i) {
            printf("FAIL explicit graph: v[%d] = %g, expected %g\n", i, hu[i], 0.5f * (float)i);
            return 1;
        }
    value = 3.0f;
    CHECK(cudaGraphExecKernelNodeSetParams(eexec, kn, &kp));
    CHECK(cudaGraphLaunch(eexec, s2));
    CHECK(cudaStreamSynchronize(s2));
    for (int i = 0; i < N; i++)
        if (hu[i] != 3.0f * (float)i) {
            printf("FAIL exec kernel params: v[%d] = %g, expected %g\n", i, hu[i], 3.0f * (float)i);
            return 1;
        }
    if (host_launches != 2) {
        printf("FAIL explicit host node ran %d times, expected 2\n", host_launches);
        return 1;
    }

    CHECK(cudaGraphExecDestroy(eexec));
    CHECK(cudaGraphDestroy(eg));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaGraphDestroy(graph2));
    CHECK(cudaGraphDestroy(graph3));
    CHECK(cudaEventDestroy(fork));
    CHECK(cudaEventDestroy(join));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaFree(u));
    CHECK(cudaFree(v));
    CHECK(cudaFree(b));
    CHECK(cudaFree(res));
    CHECK(cudaFreeHost(hres));
    printf("PASS graph_solver %d sweeps in %d graph launches, residual %.4g -> %.4g\n", SWEEPS * (LAUNCHES + 1),
           LAUNCHES + 1, first_residual, last_residual);
    return 0;
}
