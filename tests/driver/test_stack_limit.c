/* CU_LIMIT_STACK_SIZE and recursion on devices without a call stack: with $P2N_FORCE_LACKS=recursion the driver
 * compiles recursion onto an explicit per-thread stack (targets/llvm/eliminate_recursion.c, 16 KiB by default).
 * A program that raises CU_LIMIT_STACK_SIZE before loading a module gets that much for its recursion too
 * (driver-stub/module.c): a recursion 4000 calls deep overflows the default stack (the launch fails with
 * CUDA_ERROR_LAUNCH_FAILED, as a stack overflow does on NVIDIA) and runs to the right result with 1 MiB. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

/* count(d) = d == 0 ? 0 : count(d - 1) + 1, one thread; the result goes to out[0] */
static const char ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".func (.reg .u32 r) count(.reg .u32 d)\n{\n"
    "  .reg .pred p;\n  .reg .u32 t, s;\n"
    "  setp.eq.u32 p, d, 0;\n  @p bra done;\n"
    "  sub.u32 t, d, 1;\n  call (s), count, (t);\n  add.u32 r, s, 1;\n  ret;\n"
    "done:\n  mov.u32 r, 0;\n  ret;\n}\n"
    ".visible .entry k_count(.param .u64 out, .param .u32 depth)\n{\n"
    "  .reg .u64 a;\n  .reg .u32 d, r;\n"
    "  ld.param.u64 a, [out];\n  ld.param.u32 d, [depth];\n"
    "  call (r), count, (d);\n  st.global.u32 [a], r;\n  ret;\n}\n";

static CUresult run(unsigned depth, unsigned *result)
{
    CUmodule m;
    CUfunction f;
    CUdeviceptr out;
    CUresult r = cuModuleLoadData(&m, ptx);
    if (r != CUDA_SUCCESS)
        return r;
    MUST(cuModuleGetFunction(&f, m, "k_count"));
    MUST(cuMemAlloc(&out, 4));
    MUST(cuMemsetD32(out, 0xffffffffu, 1));
    void *params[] = {&out, &depth};
    r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL);
    if (r == CUDA_SUCCESS)
        r = cuCtxSynchronize();
    if (r == CUDA_SUCCESS)
        r = cuMemcpyDtoH(result, out, 4);
    cuMemFree(out);
    cuModuleUnload(m);
    return r;
}

int main(void)
{
    setenv("P2N_FORCE_LACKS", "recursion", 1);
    unsetenv("P2N_RECURSION_STACK");
    MUST(cuInit(0));
    CUcontext c;
    CUdevice dev;
    MUST(cuDeviceGet(&dev, 0));
    unsigned got = 0;
    size_t lim = 0;

    /* a shallow recursion fits the default stack */
    MUST(cuCtxCreate(&c, NULL, 0, dev));
    OK(run(10, &got));
    TRUE(got == 10);
    /* a deep one overflows it: the launch fails, nothing crashes; the context is lost, as on NVIDIA */
    EXPECT(run(4000, &got), CUDA_ERROR_LAUNCH_FAILED);
    OK(cuCtxDestroy(c));

    /* the program asks for a deep stack: modules loaded from then on have it */
    MUST(cuCtxCreate(&c, NULL, 0, dev));
    OK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 1 << 20));
    OK(cuCtxGetLimit(&lim, CU_LIMIT_STACK_SIZE));
    TRUE(lim == 1 << 20);
    got = 0;
    OK(run(4000, &got));
    TRUE(got == 4000);
    OK(cuCtxDestroy(c));
    return check_done("test_stack_limit");
}
