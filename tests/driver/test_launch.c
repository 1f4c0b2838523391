/* Kernel launches (need the compiler's host target): vecadd from examples/vecadd.ptx with kernelParams and
 * with `extra`, NOT_FOUND for a missing kernel, function attributes, module globals, device printf (flushed
 * at synchronisation), trap → CUDA_ERROR_LAUNCH_FAILED, sticky; optionally vecadd from an nvcc fatbin (the PTX
 * entry the fatbin library picks). Usage: test_launch EXAMPLES_DIR [VECADD_FATBIN]
 *        test_launch --hostobj FILE: the same checks with a hand-written host code object (hostobj_kernels.c)
 *        instead of compiled PTX, so everything but the compiler is tested today. */
#include <stdint.h>
#include <string.h>

#include "check.h"

static const char extra_ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n"
    ".global .align 1 .b8 fmt[12] = {104, 101, 108, 108, 111, 32, 37, 100, 10, 0};\n"
    ".visible .global .align 4 .u32 counter = 5;\n"
    ".visible .entry hello()\n"
    "{\n"
    "    .local .align 8 .b8 depot[8];\n"
    "    .reg .b64 %rd<5>;\n"
    "    .reg .b32 %r<3>;\n"
    "    mov.u64 %rd1, depot;\n"
    "    cvta.local.u64 %rd1, %rd1;\n"
    "    mov.u32 %r1, %tid.x;\n"
    "    st.local.u32 [depot], %r1;\n"
    "    mov.u64 %rd2, fmt;\n"
    "    cvta.global.u64 %rd3, %rd2;\n"
    "    {\n"
    "    .param .b64 param0;\n"
    "    st.param.b64 [param0], %rd3;\n"
    "    .param .b64 param1;\n"
    "    st.param.b64 [param1], %rd1;\n"
    "    .param .b32 retval0;\n"
    "    call.uni (retval0), vprintf, (param0, param1);\n"
    "    ld.param.b32 %r2, [retval0];\n"
    "    }\n"
    "    ret;\n"
    "}\n"
    ".visible .entry trapper()\n"
    "{\n"
    "    trap;\n"
    "}\n";

enum { N = 10000 };

static int check_vecadd(CUdeviceptr dc, const float *a, const float *b)
{
    static float c[N];
    memset(c, 0, sizeof c);
    OK(cuMemcpyDtoH(c, dc, sizeof c));
    for (int i = 0; i < N; i++)
        if (c[i] != a[i] + b[i]) {
            fprintf(stderr, "vecadd: c[%d] = %g, expected %g\n", i, (double)c[i], (double)(a[i] + b[i]));
            return 0;
        }
    return 1;
}

static void *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    return p;
}

int main(int argc, char **argv)
{
    char path[1024];
    int hostobj = argc > 2 && strcmp(argv[1], "--hostobj") == 0;
    if (hostobj)
        snprintf(path, sizeof path, "%s", argv[2]);
    else
        snprintf(path, sizeof path, "%s/vecadd.ptx", argc > 1 ? argv[1] : "examples");
    MUST(cuInit(0));
    CUcontext ctx;
    MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
    MUST(cuCtxSetCurrent(ctx));

    CUmodule m;
    CUresult r = cuModuleLoad(&m, path);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "test_launch: cuModuleLoad(%s) = %s: the host target of the compiler is needed for "
                        "launch tests (label needs-host-target)\n", path, check_name(r));
        return 1;
    }
    CUfunction f, f2;
    MUST(cuModuleGetFunction(&f, m, "vecadd"));
    OK(cuModuleGetFunction(&f2, m, "vecadd"));
    TRUE(f == f2);
    EXPECT(cuModuleGetFunction(&f2, m, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
    EXPECT(cuModuleGetFunction(&f2, m, NULL), CUDA_ERROR_INVALID_VALUE);

    int v = -1;
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
    TRUE(v == 1024);
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
    TRUE(v == 0);
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f));
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
    TRUE(v > 0);
    /* PTX_VERSION is the virtual architecture of `.target sm_80`, not the ISA of `.version 9.0`: CUB picks its
     * tuning policy by it and fails with cudaErrorInvalidDeviceFunction when it matches no compiled arch */
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, f));
    TRUE(hostobj || v == 80);
    if (!hostobj) {
        static const char sm75_ptx[] =
            ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k75() { ret; }\n";
        CUmodule m75;
        CUfunction f75;
        OK(cuModuleLoadData(&m75, sm75_ptx));
        OK(cuModuleGetFunction(&f75, m75, "k75"));
        OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, f75));
        TRUE(v == 75);
        OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_BINARY_VERSION, f75));
        TRUE(v == 80); /* the code it was compiled to runs as the device's architecture */
        OK(cuModuleUnload(m75));

        /* SHARED_SIZE_BYTES is each kernel's own static shared memory, as ptxas -v counts it: its entry's statics
         * (used or not) and the module statics it names, not the sum over the module's kernels: with the sum,
         * CUB's 49-kernel module had 335 KiB on every kernel, occupancy 0 and a grid of 0 blocks
         * (cudaErrorInvalidValue); with every module static, thrust's radix sort had 346 KiB and its launch was
         * refused. ptxas 13.0 -v on this module: small 1000, large 40003, user 72 bytes smem */
        static const char smem_ptx[] =
            ".version 8.0\n.target sm_80\n.address_size 64\n"
            ".shared .align 4 .b8 common[64];\n"
            ".shared .align 8 .b8 other[8];\n"
            ".func helper(.param .u64 o) { .reg .b64 %rd<2>; .reg .b32 %r<2>; ld.shared.u32 %r1, [other];\n"
            "  ld.param.u64 %rd1, [o]; st.global.u32 [%rd1], %r1; ret; }\n"
            ".visible .entry small() { .shared .align 4 .b8 s1[1000]; ret; }\n"
            ".visible .entry large() { .shared .align 8 .b8 s2[40000]; .shared .align 4 .b8 s3[3]; ret; }\n"
            ".visible .entry user(.param .u64 o) { .reg .b64 %rd<2>; .reg .b32 %r<2>; ld.shared.u32 %r1, [common];\n"
            "  ld.param.u64 %rd1, [o]; st.global.u32 [%rd1], %r1; { .param .b64 p; st.param.b64 [p], %rd1;\n"
            "  call.uni helper, (p); } ret; }\n";
        CUmodule ms;
        CUfunction fs, fl;
        OK(cuModuleLoadData(&ms, smem_ptx));
        OK(cuModuleGetFunction(&fs, ms, "small"));
        OK(cuModuleGetFunction(&fl, ms, "large"));
        OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fs));
        TRUE(v == 1000);
        OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fl));
        TRUE(v == 40000 + 3);
        CUfunction fu;
        OK(cuModuleGetFunction(&fu, ms, "user"));
        OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fu));
        TRUE(v == 64 + 8);   /* common, and other through the call */
        /* 48 KiB less the kernel's own statics are left for dynamic shared memory without opting in */
        OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, fs));
        TRUE(v == 48 * 1024 - 1000);
        OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, fs, 128, 0));
        TRUE(v > 0);
        OK(cuModuleUnload(ms));

        /* five kernels of 48000 static bytes each: the module's statics (240000 bytes) exceed the 227 KiB a
         * block may have, each kernel's do not, so each launches (on the CPU, the window holds them all) */
        static const char big_ptx[] =
            ".version 8.0\n.target sm_80\n.address_size 64\n"
            ".visible .entry b1(.param .u64 out) { .shared .align 4 .b8 s[48000]; .reg .b64 %rd<3>; .reg .b32 %r<2>;\n"
            "  mov.u32 %r1, 7; st.shared.u32 [s+47996], %r1; bar.sync 0; ld.shared.u32 %r1, [s+47996];\n"
            "  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd2, %rd1; st.global.u32 [%rd2], %r1; ret; }\n"
            ".visible .entry b2() { .shared .align 4 .b8 s[48000]; ret; }\n"
            ".visible .entry b3() { .shared .align 4 .b8 s[48000]; ret; }\n"
            ".visible .entry b4() { .shared .align 4 .b8 s[48000]; ret; }\n"
            ".visible .entry b5() { .shared .align 4 .b8 s[48000]; ret; }\n";
        CUmodule mb;
        CUfunction fb;
        CUdeviceptr dout;
        OK(cuModuleLoadData(&mb, big_ptx));
        OK(cuModuleGetFunction(&fb, mb, "b1"));
        OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fb));
        TRUE(v == 48000);
        OK(cuMemAlloc(&dout, 4));
        OK(cuMemsetD32(dout, 0, 1));
        void *bargs[] = {&dout};
        OK(cuLaunchKernel(fb, 2, 1, 1, 32, 1, 1, 0, NULL, bargs, NULL));
        OK(cuCtxSynchronize());
        unsigned got = 0;
        OK(cuMemcpyDtoH(&got, dout, 4));
        TRUE(got == 7);
        /* opted in, 48000 static + 100 KiB dynamic run (the window is larger still); more than opted in is refused */
        OK(cuFuncSetAttribute(fb, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100 * 1024));
        OK(cuLaunchKernel(fb, 1, 1, 1, 32, 1, 1, 100 * 1024, NULL, bargs, NULL));
        EXPECT(cuLaunchKernel(fb, 1, 1, 1, 32, 1, 1, 120 * 1024, NULL, bargs, NULL), CUDA_ERROR_INVALID_VALUE);
        OK(cuCtxSynchronize());
        OK(cuMemFree(dout));
        OK(cuModuleUnload(mb));
    }
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_BINARY_VERSION, f));
    TRUE(v == 80);
    OK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 65536));
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f));
    TRUE(v == 65536);
    EXPECT(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1 << 30), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuFuncGetAttribute(&v, (CUfunction_attribute)999, f), CUDA_ERROR_INVALID_VALUE);

    static float a[N], b[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i * 0.5f;
        b[i] = (float)(N - i);
    }
    CUdeviceptr da, db, dc;
    MUST(cuMemAlloc(&da, sizeof a));
    MUST(cuMemAlloc(&db, sizeof b));
    MUST(cuMemAlloc(&dc, sizeof a));
    OK(cuMemcpyHtoD(da, a, sizeof a));
    OK(cuMemcpyHtoD(db, b, sizeof b));
    int n = N;

    /* kernelParams */
    OK(cuMemsetD8(dc, 0, sizeof a));
    void *params[] = {&da, &db, &dc, &n};
    OK(cuLaunchKernel(f, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
    OK(cuCtxSynchronize());
    TRUE(check_vecadd(dc, a, b));

    /* extra: one packed buffer, laid out as the kernel's parameters */
    OK(cuMemsetD8(dc, 0, sizeof a));
    struct {
        CUdeviceptr a, b, c;
        int n;
    } packed = {da, db, dc, N};
    size_t size = sizeof packed;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    CUstream s;
    MUST(cuStreamCreate(&s, 0));
    OK(cuLaunchKernel(f, (N + 127) / 128, 1, 1, 128, 1, 1, 0, s, NULL, extra));
    OK(cuStreamSynchronize(s));
    TRUE(check_vecadd(dc, a, b));

    /* the same kernel from a fatbin container (PTX for compute_80 next to sm_90 machine code) */
    if (argc > 2 && !hostobj) {
        CUmodule mf;
        CUfunction ff;
        r = cuModuleLoad(&mf, argv[2]);
        if (r != CUDA_SUCCESS) {
            fprintf(stderr, "cuModuleLoad(%s) = %s\n", argv[2], check_name(r));
            check_failures++;
        } else {
            OK(cuModuleGetFunction(&ff, mf, "vecadd"));
            OK(cuMemsetD8(dc, 0, sizeof a));
            OK(cuLaunchKernel(ff, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
            OK(cuCtxSynchronize());
            TRUE(check_vecadd(dc, a, b));
            OK(cuModuleUnload(mf));
            EXPECT(cuModuleUnload(mf), CUDA_ERROR_INVALID_HANDLE);
        }
    }

    /* launch configuration errors (not sticky) */
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 1025, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(f, 0, 1, 1, 32, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, extra), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    size_t small = 8;
    void *extra_small[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &small, CU_LAUNCH_PARAM_END};
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, extra_small), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxSynchronize());

    /* globals and printf */
    CUmodule m2;
    char log[2048] = "";
    CUjit_option o[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *ov[2] = {log, (void *)(uintptr_t)sizeof log};
    void *image = hostobj ? read_all(path) : NULL; /* cuModuleLoadData of an ELF: no size is given */
    r = cuModuleLoadDataEx(&m2, hostobj ? image : extra_ptx, 2, o, ov);
    free(image);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "loading the printf/trap module: %s\n%s\n", check_name(r), log);
        check_failures++;
        return check_done("test_launch");
    }
    CUdeviceptr gp;
    size_t gsize = 0;
    uint32_t counter = 0;
    OK(cuModuleGetGlobal(&gp, &gsize, m2, "counter"));
    TRUE(gsize == 4);
    OK(cuMemcpyDtoH(&counter, gp, 4));
    TRUE(counter == 5);
    EXPECT(cuModuleGetGlobal(&gp, &gsize, m2, "nope"), CUDA_ERROR_NOT_FOUND);
    CUfunction hello, trapper;
    MUST(cuModuleGetFunction(&hello, m2, "hello"));
    MUST(cuModuleGetFunction(&trapper, m2, "trapper"));
    fflush(stdout);
    OK(cuLaunchKernel(hello, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    OK(cuCtxSynchronize()); /* prints "hello 0" */

    /* trap: the launch succeeds, the error shows at synchronisation and sticks */
    OK(cuLaunchKernel(trapper, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
    EXPECT(cuMemcpyDtoH(&counter, gp, 4), CUDA_ERROR_LAUNCH_FAILED);
    EXPECT(cuLaunchKernel(hello, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_LAUNCH_FAILED);
    CUdeviceptr tmp;
    EXPECT(cuMemAlloc(&tmp, 4), CUDA_ERROR_LAUNCH_FAILED);
    /* resetting the primary context clears it */
    OK(cuDevicePrimaryCtxReset(0));
    MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
    OK(cuMemAlloc(&tmp, 4));
    OK(cuCtxSynchronize());
    OK(cuDevicePrimaryCtxRelease(0));
    return check_done("test_launch");
}
