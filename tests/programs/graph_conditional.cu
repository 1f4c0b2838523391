// graph_conditional — conditional graph nodes as NVIDIA's graphConditionalNodes sample uses them: an IF node whose
// condition a kernel sets with cudaGraphSetConditional, IF/ELSE, a WHILE loop with a default launch value, SWITCH,
// a WHILE node added in the middle of a stream capture (cudaStreamGetCaptureInfo + UpdateCaptureDependencies) with
// its body captured by cudaStreamBeginCaptureToGraph, and an IF nested in a WHILE body. Each graph is launched more
// than once and every count is checked against what the host expects.
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

// the condition = *flag (an int the host sets between launches)
__global__ void set_from_flag(const int *flag, cudaGraphConditionalHandle h) { cudaGraphSetConditional(h, *flag); }
__global__ void bump(int *counter, int by) { atomicAdd(counter, by); }
// a loop body: one step, then continue while steps remain
__global__ void step(int *remaining, int *done, cudaGraphConditionalHandle h)
{
    *done += 1;
    *remaining -= 1;
    cudaGraphSetConditional(h, *remaining > 0);
}
// inner IF of the nested case: odd iterations only
__global__ void odd(const int *done, cudaGraphConditionalHandle h) { cudaGraphSetConditional(h, *done & 1); }

static cudaGraphNode_t add_kernel(cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, void *fn, void **args)
{
    cudaGraphNodeParams p = {cudaGraphNodeTypeKernel};
    p.kernel.func = fn;
    p.kernel.gridDim = dim3(1);
    p.kernel.blockDim = dim3(1);
    p.kernel.kernelParams = args;
    cudaGraphNode_t n = NULL;
    if (cudaGraphAddNode(&n, g, deps, NULL, ndeps, &p) != cudaSuccess)
        return NULL;
    return n;
}

static cudaGraphNode_t add_cond(cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps,
                                cudaGraphConditionalHandle h, cudaGraphConditionalNodeType type, unsigned size,
                                cudaGraph_t *bodies)
{
    cudaGraphNodeParams p = {cudaGraphNodeTypeConditional};
    p.conditional.handle = h;
    p.conditional.type = type;
    p.conditional.size = size;
    cudaGraphNode_t n = NULL;
    if (cudaGraphAddNode(&n, g, deps, NULL, ndeps, &p) != cudaSuccess)
        return NULL;
    for (unsigned i = 0; i < size; i++)
        bodies[i] = p.conditional.phGraph_out[i];
    return n;
}

static int read_int(const int *d)
{
    int v = -1;
    cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost);
    return v;
}

int main()
{
    int *flag, *counter, *remaining, *done;
    CHECK(cudaMalloc(&flag, sizeof(int)));
    CHECK(cudaMalloc(&counter, sizeof(int)));
    CHECK(cudaMalloc(&remaining, sizeof(int)));
    CHECK(cudaMalloc(&done, sizeof(int)));

    // IF and IF/ELSE: the then-body adds 1, the else-body 100
    for (unsigned size = 1; size <= 2; size++) {
        cudaGraph_t g;
        CHECK(cudaGraphCreate(&g, 0));
        cudaGraphConditionalHandle h;
        CHECK(cudaGraphConditionalHandleCreate(&h, g));
        void *set_args[] = {&flag, &h};
        cudaGraphNode_t k = add_kernel(g, NULL, 0, (void *)set_from_flag, set_args);
        cudaGraph_t body[2];
        EXPECT(k && add_cond(g, &k, 1, h, cudaGraphCondTypeIf, size, body), "IF node (size %u) not added", size);
        int one = 1, hundred = 100;
        void *then_args[] = {&counter, &one}, *else_args[] = {&counter, &hundred};
        EXPECT(add_kernel(body[0], NULL, 0, (void *)bump, then_args), "then-body kernel");
        if (size == 2)
            EXPECT(add_kernel(body[1], NULL, 0, (void *)bump, else_args), "else-body kernel");
        cudaGraphExec_t e;
        CHECK(cudaGraphInstantiate(&e, g, NULL, NULL, 0));
        CHECK(cudaMemset(counter, 0, sizeof(int)));
        int flags[] = {0, 1, 7, 0};
        for (int f : flags) {
            CHECK(cudaMemcpy(flag, &f, sizeof f, cudaMemcpyHostToDevice));
            CHECK(cudaGraphLaunch(e, 0));
        }
        CHECK(cudaDeviceSynchronize());
        int want = size == 1 ? 2 : 2 + 200;
        EXPECT(read_int(counter) == want, "IF size %u: counter %d, expected %d", size, read_int(counter), want);
        CHECK(cudaGraphExecDestroy(e));
        CHECK(cudaGraphDestroy(g));
    }

    // WHILE, condition 1 at every launch (cudaGraphCondAssignDefault): the body runs until *remaining is 0, but at
    // least once (do-while)
    {
        cudaGraph_t g;
        CHECK(cudaGraphCreate(&g, 0));
        cudaGraphConditionalHandle h;
        CHECK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
        cudaGraph_t body;
        EXPECT(add_cond(g, NULL, 0, h, cudaGraphCondTypeWhile, 1, &body), "WHILE node");
        void *args[] = {&remaining, &done, &h};
        EXPECT(add_kernel(body, NULL, 0, (void *)step, args), "WHILE body kernel");
        cudaGraphExec_t e;
        CHECK(cudaGraphInstantiate(&e, g, NULL, NULL, 0));
        CHECK(cudaMemset(done, 0, sizeof(int)));
        int ten = 10, zero = 0;
        CHECK(cudaMemcpy(remaining, &ten, sizeof ten, cudaMemcpyHostToDevice));
        CHECK(cudaGraphLaunch(e, 0));
        CHECK(cudaDeviceSynchronize());
        EXPECT(read_int(done) == 10, "WHILE: %d iterations, expected 10", read_int(done));
        CHECK(cudaMemcpy(remaining, &zero, sizeof zero, cudaMemcpyHostToDevice));
        CHECK(cudaGraphLaunch(e, 0));   // the default (1) again: one iteration
        CHECK(cudaDeviceSynchronize());
        EXPECT(read_int(done) == 11, "WHILE relaunch: %d iterations in all, expected 11", read_int(done));
        CHECK(cudaGraphExecDestroy(e));
        CHECK(cudaGraphDestroy(g));
    }

    // SWITCH of 3 bodies: body i adds 10^i; a value of 5 matches none
    {
        cudaGraph_t g;
        CHECK(cudaGraphCreate(&g, 0));
        cudaGraphConditionalHandle h;
        CHECK(cudaGraphConditionalHandleCreate(&h, g));
        void *set_args[] = {&flag, &h};
        cudaGraphNode_t k = add_kernel(g, NULL, 0, (void *)set_from_flag, set_args);
        cudaGraph_t body[3];
        EXPECT(k && add_cond(g, &k, 1, h, cudaGraphCondTypeSwitch, 3, body), "SWITCH node");
        int by[3] = {1, 10, 100};
        void *args[3][2] = {{&counter, &by[0]}, {&counter, &by[1]}, {&counter, &by[2]}};
        for (int i = 0; i < 3; i++)
            EXPECT(add_kernel(body[i], NULL, 0, (void *)bump, args[i]), "SWITCH body %d", i);
        cudaGraphExec_t e;
        CHECK(cudaGraphInstantiate(&e, g, NULL, NULL, 0));
        CHECK(cudaMemset(counter, 0, sizeof(int)));
        int values[] = {2, 0, 5, 2, 1};
        for (int v : values) {
            CHECK(cudaMemcpy(flag, &v, sizeof v, cudaMemcpyHostToDevice));
            CHECK(cudaGraphLaunch(e, 0));
        }
        CHECK(cudaDeviceSynchronize());
        EXPECT(read_int(counter) == 211, "SWITCH: counter %d, expected 211", read_int(counter));
        CHECK(cudaGraphExecDestroy(e));
        CHECK(cudaGraphDestroy(g));
    }

    // a WHILE node added during a capture; its body captured into the body graph; nested IF on odd iterations
    {
        cudaStream_t s;
        CHECK(cudaStreamCreate(&s));
        CHECK(cudaMemsetAsync(done, 0, sizeof(int), s));
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        int zero = 0;
        CHECK(cudaMemsetAsync(counter, 0, sizeof(int), s));
        cudaStreamCaptureStatus status;
        cudaGraph_t g;
        const cudaGraphNode_t *deps;
        size_t ndeps;
        CHECK(cudaStreamGetCaptureInfo(s, &status, NULL, &g, &deps, NULL, &ndeps));
        EXPECT(status == cudaStreamCaptureStatusActive && ndeps == 1, "capture info: status %d, %zu deps",
               (int)status, ndeps);
        cudaGraphConditionalHandle h, inner;
        CHECK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
        cudaGraph_t body;
        cudaGraphNode_t wn = add_cond(g, deps, ndeps, h, cudaGraphCondTypeWhile, 1, &body);
        EXPECT(wn, "WHILE node in a capture");
        CHECK(cudaStreamUpdateCaptureDependencies(s, &wn, NULL, 1, cudaStreamSetCaptureDependencies));
        bump<<<1, 1, 0, s>>>(counter, 1000);   // after the loop
        cudaGraph_t whole;
        CHECK(cudaStreamEndCapture(s, &whole));
        EXPECT(whole == g, "the capture graph changed");

        CHECK(cudaGraphConditionalHandleCreate(&inner, body));
        CHECK(cudaStreamBeginCaptureToGraph(s, body, NULL, NULL, 0, cudaStreamCaptureModeGlobal));
        step<<<1, 1, 0, s>>>(remaining, done, h);
        odd<<<1, 1, 0, s>>>(done, inner);
        CHECK(cudaStreamEndCapture(s, NULL));
        // the IF after the captured kernels of the body
        size_t nb = 0;
        CHECK(cudaGraphGetNodes(body, NULL, &nb));
        EXPECT(nb == 2, "body has %zu nodes, expected 2", nb);
        cudaGraphNode_t bn[2];
        CHECK(cudaGraphGetNodes(body, bn, &nb));
        cudaGraphNode_t last = bn[0];
        size_t nd = 0;
        CHECK(cudaGraphNodeGetDependencies(bn[1], NULL, NULL, &nd));
        if (nd == 1)
            last = bn[1];   // bn[1] depends on bn[0]: it is the odd() kernel
        cudaGraph_t ifbody;
        EXPECT(add_cond(body, &last, 1, inner, cudaGraphCondTypeIf, 1, &ifbody), "nested IF node");
        int ten = 10;
        void *if_args[] = {&counter, &ten};
        EXPECT(add_kernel(ifbody, NULL, 0, (void *)bump, if_args), "nested IF body");

        cudaGraphExec_t e;
        CHECK(cudaGraphInstantiate(&e, g, NULL, NULL, 0));
        int four = 4;
        CHECK(cudaMemcpy(remaining, &four, sizeof four, cudaMemcpyHostToDevice));
        CHECK(cudaGraphLaunch(e, s));
        CHECK(cudaStreamSynchronize(s));
        // 4 iterations (done = 1..4), the IF adds 10 on done = 1 and 3, then 1000 after the loop
        EXPECT(read_int(done) == 4 && read_int(counter) == 1020, "captured WHILE: done %d counter %d, expected 4 1020",
               read_int(done), read_int(counter));
        CHECK(cudaMemcpy(remaining, &zero, sizeof zero, cudaMemcpyHostToDevice));
        CHECK(cudaGraphLaunch(e, s));   // one iteration: done = 5 (odd), +10, +1000
        CHECK(cudaStreamSynchronize(s));
        EXPECT(read_int(done) == 5 && read_int(counter) == 1010, "captured WHILE relaunch: done %d counter %d",
               read_int(done), read_int(counter));
        CHECK(cudaGraphExecDestroy(e));
        CHECK(cudaGraphDestroy(g));
        CHECK(cudaStreamDestroy(s));
    }

    // misuse: an unknown handle, an IF of size 3, a WHILE of size 2
    {
        cudaGraph_t g;
        CHECK(cudaGraphCreate(&g, 0));
        cudaGraphConditionalHandle h;
        CHECK(cudaGraphConditionalHandleCreate(&h, g));
        cudaGraph_t body[3];
        EXPECT(!add_cond(g, NULL, 0, h + 4096, cudaGraphCondTypeIf, 1, body), "a made-up handle was accepted");
        EXPECT(!add_cond(g, NULL, 0, h, cudaGraphCondTypeIf, 3, body), "an IF of 3 bodies was accepted");
        EXPECT(!add_cond(g, NULL, 0, h, cudaGraphCondTypeWhile, 2, body), "a WHILE of 2 bodies was accepted");
        cudaGetLastError();
        CHECK(cudaGraphDestroy(g));
    }

    CHECK(cudaFree(flag));
    CHECK(cudaFree(counter));
    CHECK(cudaFree(remaining));
    CHECK(cudaFree(done));
    printf("PASS graph_conditional\n");
    return 0;
}
