/* hostobj_kernels.c — a host code object written by hand against abi/host_abi.h (what
 * `ptx2native --offload-arch=host` will emit), so the launch path of libcuda.so.1 (parameter packing, the
 * CPU backend, printf forwarding, trap → sticky LAUNCH_FAILED, globals) is tested before the compiler's host
 * target exists. Built as a shared object with no undefined symbols. */
#include <stdint.h>

#include "host_abi.h"

__attribute__((visibility("default"))) const p2n_rt_table *__p2n_rt;

static void vecadd(const uint8_t *params, p2n_thread_ctx *ctx)
{
    const float *a = *(const float *const *)(params + 0);
    const float *b = *(const float *const *)(params + 8);
    float *c = *(float *const *)(params + 16);
    int32_t n = *(const int32_t *)(params + 24);
    uint32_t i = ctx->ctaid[0] * ctx->ntid[0] + ctx->tid[0];
    if ((int32_t)i < n)
        c[i] = a[i] + b[i];
}

static const char fmt[] = "hello %d\n";
static void hello(const uint8_t *params, p2n_thread_ctx *ctx)
{
    (void)params;
    uint32_t args[2] = {ctx->tid[0], 0};
    ctx->rt->vprintf(ctx, fmt, args);
}

static void trapper(const uint8_t *params, p2n_thread_ctx *ctx)
{
    (void)params;
    ctx->rt->trap(ctx);
}

static uint32_t counter = 5;

static const uint32_t vecadd_offsets[4] = {0, 8, 16, 24}, vecadd_sizes[4] = {8, 8, 8, 4};
static const p2n_kernel_desc kernels[] = {
    {.name = "vecadd", .entry = vecadd, .num_params = 4, .param_offsets = vecadd_offsets,
     .param_sizes = vecadd_sizes, .param_buffer_size = 28, .dynamic_smem_align = 16},
    {.name = "hello", .entry = hello, .dynamic_smem_align = 16},
    {.name = "trapper", .entry = trapper, .dynamic_smem_align = 16},
};
static const p2n_global_desc globals[] = {{.name = "counter", .addr = &counter, .size = 4}};

__attribute__((visibility("default"))) const p2n_module_desc __p2n_module = {
    .abi_version = P2N_HOST_ABI_VERSION,
    .nkernels = 3,
    .kernels = kernels,
    .nglobals = 1,
    .globals = globals,
};
