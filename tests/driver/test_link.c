/* Separate compilation through the driver API (driver-stub/link.c, module.c; needs the host target):
 *  - cuLinkCreate/AddData/AddFile/Complete/Destroy: two PTX modules (an .extern function and variable resolved
 *    in the other) linked, the image loaded by cuModuleLoadData, both modules' kernels run with the right
 *    results; the cross-module variable is one object (cuModuleGetGlobal, write, launch again);
 *  - errors: a duplicate definition and an unresolved extern (cuLinkComplete: CUDA_ERROR_INVALID_SOURCE, as
 *    NVIDIA's driver answers (rdc/probe_link_nvidia.c), with the diagnostic in the error log), invalid PTX at cuLinkAddData (CUDA_ERROR_INVALID_PTX), NVIDIA machine
 *    code and LTO-IR inputs (CUDA_ERROR_NOT_SUPPORTED, the log says why), bad arguments and handles;
 *  - with RDC_EXE (an `nvcc -rdc=true` executable of tests/driver/rdc/rdc_main.cu and rdc_lib.cu): the version-2 fatbin wrapper that
 *    cudart hands to cuLibraryLoadData, built from the executable's containers: the linked container holds only
 *    SASS, so the PTX of the relocatable containers is linked; kernels of both translation units run.
 * Usage: test_link [RDC_EXE] */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "p2n_fatbin.h"

static const char A[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                        ".extern .func (.param .b32 r) add7(.param .b32 x);\n"
                        ".extern .global .align 4 .u32 gv;\n"
                        ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n"
                        "ld.param.u64 %rd1, [out];\nld.global.u32 %r1, [gv];\n"
                        "{\n.param .b32 p0;\n.param .b32 r0;\nst.param.u32 [p0], %r1;\n"
                        "call.uni (r0), add7, (p0);\nld.param.u32 %r2, [r0];\n}\n"
                        "st.global.u32 [%rd1], %r2;\nret;\n}\n";
static const char B[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                        ".visible .global .align 4 .u32 gv = 100;\n"
                        ".visible .func (.param .b32 r) add7(.param .b32 x)\n{\n.reg .b32 %r<3>;\n"
                        "ld.param.u32 %r1, [x];\nadd.s32 %r2, %r1, 7;\nst.param.u32 [r], %r2;\nret;\n}\n"
                        ".visible .entry kb(.param .u64 out)\n{\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [out];\n"
                        "st.global.u32 [%rd1+4], 55;\nret;\n}\n";
static const char BAD[] = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry kx()\n{\nbogus.op %r1;\n}\n";

static char elog[4096], ilog[4096];
static CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                              CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
static void *vals[4];

static CUlinkState make_link(void)
{
    CUlinkState s = NULL;
    elog[0] = ilog[0] = 0;
    vals[0] = elog;
    vals[1] = (void *)(uintptr_t)sizeof elog;
    vals[2] = ilog;
    vals[3] = (void *)(uintptr_t)sizeof ilog;
    MUST(cuLinkCreate(4, opts, vals, &s));
    return s;
}

#define CHECK_EQ_U(a, b)                                                                                   \
    do {                                                                                                   \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);                     \
        if (a_ != b_) {                                                                                    \
            fprintf(stderr, "%s:%d: %s is %llu, expected %llu\n", __FILE__, __LINE__, #a, a_, b_);          \
            check_failures++;                                                                              \
        }                                                                                                  \
    } while (0)

#define LOG_HAS(s)                                                                                         \
    do {                                                                                                   \
        if (!strstr(elog, (s))) {                                                                          \
            fprintf(stderr, "%s:%d: error log lacks '%s': '%s'\n", __FILE__, __LINE__, (s), elog);          \
            check_failures++;                                                                              \
        }                                                                                                  \
    } while (0)

static uint32_t run_k(CUmodule m, const char *kernel, unsigned word)
{
    CUfunction f;
    CUdeviceptr d;
    uint32_t out[2] = {0, 0};
    MUST(cuModuleGetFunction(&f, m, kernel));
    MUST(cuMemAlloc(&d, sizeof out));
    OK(cuMemsetD8(d, 0, sizeof out));
    void *params[] = {&d};
    OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(out, d, sizeof out));
    OK(cuMemFree(d));
    return out[word];
}

static void api_tests(void)
{
    void *img = NULL;
    size_t size = 0;
    /* two PTX strings; B second through a file (cuLinkAddFile) */
    CUlinkState s = make_link();
    OK(cuLinkAddData(s, CU_JIT_INPUT_PTX, (void *)A, sizeof A, "a.ptx", 0, NULL, NULL));
    char path[] = "/tmp/p2n-test-link-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, B, sizeof B - 1) != (ssize_t)(sizeof B - 1)) {
        fprintf(stderr, "cannot write %s; cannot continue\n", path);
        exit(1);
    }
    close(fd);
    OK(cuLinkAddFile(s, CU_JIT_INPUT_PTX, path, 0, NULL, NULL));
    unlink(path);
    MUST(cuLinkComplete(s, &img, &size));
    TRUE(img != NULL && size > 16);
    CUmodule m;
    MUST(cuModuleLoadData(&m, img));
    OK(cuLinkDestroy(s)); /* the module keeps its own copy */
    CHECK_EQ_U(run_k(m, "k", 0), 107u);   /* add7(gv) with gv = 100 from the other module */
    CHECK_EQ_U(run_k(m, "kb", 1), 55u);   /* the other module's kernel */
    CUdeviceptr gv;
    size_t gsz = 0;
    OK(cuModuleGetGlobal(&gv, &gsz, m, "gv"));
    CHECK_EQ_U(gsz, 4u);
    uint32_t v = 1000;
    OK(cuMemcpyHtoD(gv, &v, 4));
    CHECK_EQ_U(run_k(m, "k", 0), 1007u); /* one variable, seen by the kernel of the other module */
    OK(cuModuleUnload(m));

    /* a fatbin input: the fatbin library picks its PTX (none here: a container of PTX is built by hand below
     * only for the bad case); a garbage fatbin is an invalid image */
    s = make_link();
    EXPECT(cuLinkAddData(s, CU_JIT_INPUT_FATBINARY, (void *)"garbage!garbage!", 16, "x.fatbin", 0, NULL, NULL),
           CUDA_ERROR_INVALID_IMAGE);
    /* duplicate definition: B twice */
    OK(cuLinkAddData(s, CU_JIT_INPUT_PTX, (void *)B, sizeof B, "b.ptx", 0, NULL, NULL));
    OK(cuLinkAddData(s, CU_JIT_INPUT_PTX, (void *)B, sizeof B, "b2.ptx", 0, NULL, NULL)); /* NVIDIA: here already */
    EXPECT(cuLinkComplete(s, &img, &size), CUDA_ERROR_INVALID_SOURCE);
    LOG_HAS("b2.ptx:5:10: error: duplicate definition of 'add7', first defined at b.ptx:5:10");
    OK(cuLinkDestroy(s));

    /* unresolved extern: A alone */
    s = make_link();
    OK(cuLinkAddData(s, CU_JIT_INPUT_PTX, (void *)A, sizeof A, "a.ptx", 0, NULL, NULL));
    EXPECT(cuLinkComplete(s, &img, &size), CUDA_ERROR_INVALID_SOURCE);
    LOG_HAS("a.ptx:");
    LOG_HAS("error: 'gv' is .extern in every module linked (1) and never defined");
    /* invalid PTX is refused when added, with the parser's diagnostic */
    EXPECT(cuLinkAddData(s, CU_JIT_INPUT_PTX, (void *)BAD, sizeof BAD, "bad.ptx", 0, NULL, NULL), CUDA_ERROR_INVALID_PTX);
    LOG_HAS("bad.ptx:6:1: error: unknown instruction 'bogus'");
    /* inputs that are NVIDIA machine code or LTO-IR */
    EXPECT(cuLinkAddData(s, CU_JIT_INPUT_CUBIN, (void *)"garbage!garbage!", 16, "x.cubin", 0, NULL, NULL),
           CUDA_ERROR_NOT_SUPPORTED);
    LOG_HAS("x.cubin");
    LOG_HAS("NVIDIA machine code (cubin)");
    EXPECT(cuLinkAddData(s, CU_JIT_INPUT_OBJECT, (void *)"garbage!garbage!", 16, "x.o", 0, NULL, NULL),
           CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuLinkAddData(s, CU_JIT_INPUT_LIBRARY, (void *)"garbage!garbage!", 16, "x.a", 0, NULL, NULL),
           CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuLinkAddData(s, CU_JIT_INPUT_NVVM, (void *)"garbage!garbage!", 16, "x.ltoir", 0, NULL, NULL),
           CUDA_ERROR_NOT_SUPPORTED);
    LOG_HAS("LTO-IR");
    /* bad arguments */
    EXPECT(cuLinkAddData(s, (CUjitInputType)99, (void *)A, sizeof A, "a.ptx", 0, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLinkAddData(s, CU_JIT_INPUT_PTX, NULL, 10, "a.ptx", 0, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLinkAddData(s, CU_JIT_INPUT_PTX, (void *)A, 0, "a.ptx", 0, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLinkAddFile(s, CU_JIT_INPUT_PTX, "/nonexistent/x.ptx", 0, NULL, NULL), CUDA_ERROR_FILE_NOT_FOUND);
    EXPECT(cuLinkComplete(s, NULL, &size), CUDA_ERROR_INVALID_VALUE);
    OK(cuLinkDestroy(s));
    s = make_link();
    EXPECT(cuLinkComplete(s, &img, &size), CUDA_ERROR_INVALID_IMAGE); /* nothing added (as NVIDIA) */
    OK(cuLinkDestroy(s));
    /* handles */
    EXPECT(cuLinkDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLinkDestroy(s), CUDA_ERROR_INVALID_HANDLE); /* already destroyed */
    EXPECT(cuLinkComplete(NULL, &img, &size), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLinkAddData(NULL, CU_JIT_INPUT_PTX, (void *)A, sizeof A, "a.ptx", 0, NULL, NULL), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLinkCreate(0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
}

/* The v2 wrapper cudart registers for an -rdc program: {magic, 2, linked container, NULL-terminated array of
 * the translation units' relocatable containers}, rebuilt here from the executable's sections. */
static void rdc_tests(const char *exe)
{
    p2n_fb_file f;
    char err[512];
    if (p2n_fb_open(exe, &f, err, sizeof err) != P2N_FB_OK) {
        fprintf(stderr, "cannot read %s: %s; cannot continue\n", exe, err);
        exit(1);
    }
    const void *linked = NULL, *rel[8] = {NULL};
    unsigned nrel = 0;
    for (size_t i = 0; i < f.n_containers; i++) {
        const p2n_fb_container *c = &f.containers[i];
        if (!strcmp(c->section, ".nv_fatbin") && c->wrapper_version == 2)
            linked = c->data;
        else if (!strcmp(c->section, "__nv_relfatbin") && nrel < 7)
            rel[nrel++] = c->data;
    }
    TRUE(linked != NULL);
    CHECK_EQ_U(nrel, 2u);
    if (!linked || nrel != 2)
        exit(1);
    struct { uint32_t magic, version; const void *data; const void *const *fatbins; } w = {
        P2N_FB_WRAPPER_MAGIC, 2, linked, rel};
    CUlibrary lib;
    MUST(cuLibraryLoadData(&lib, &w, NULL, NULL, 0, NULL, NULL, 0));
    CUkernel km, kl;
    MUST(cuLibraryGetKernel(&km, lib, "_Z11main_kernelPfi"));
    MUST(cuLibraryGetKernel(&kl, lib, "_Z10lib_kernelPi"));
    enum { N = 64 };
    float x[N], y[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)i * 0.5f;
    CUdeviceptr dx, dout;
    MUST(cuMemAlloc(&dx, sizeof x));
    MUST(cuMemAlloc(&dout, N * 4));
    OK(cuMemcpyHtoD(dx, x, sizeof x));
    int n = N;
    void *p1[] = {&dx, &n};
    OK(cuLaunchKernel((CUfunction)km, 2, 1, 1, 32, 1, 1, 0, NULL, p1, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(y, dx, sizeof y));
    int bad = 0;
    for (int i = 0; i < N; i++) /* scale(x, i) = 2x + g_bias + i, plus g_bias % 3, with g_bias = 5 */
        bad += y[i] != x[i] * 2.0f + 5.0f + (float)i + 2.0f;
    CHECK_EQ_U(bad, 0u);
    /* the __device__ variable of translation unit 2, written by the host, seen by both units' kernels */
    CUdeviceptr gb;
    size_t gsz = 0;
    OK(cuLibraryGetGlobal(&gb, &gsz, lib, "g_bias"));
    CHECK_EQ_U(gsz, 4u);
    int nb = 9;
    OK(cuMemcpyHtoD(gb, &nb, 4));
    void *p2[] = {&dout};
    OK(cuLaunchKernel((CUfunction)kl, 1, 1, 1, 4, 1, 1, 0, NULL, p2, NULL));
    OK(cuCtxSynchronize());
    int o[4] = {0};
    OK(cuMemcpyDtoH(o, dout, sizeof o));
    CHECK_EQ_U((unsigned)o[3], 903u);
    OK(cuMemcpyHtoD(dx, x, sizeof x));
    OK(cuLaunchKernel((CUfunction)km, 2, 1, 1, 32, 1, 1, 0, NULL, p1, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(y, dx, sizeof y));
    TRUE(y[10] == x[10] * 2.0f + 9.0f + 10.0f + 0.0f);
    OK(cuMemFree(dx));
    OK(cuMemFree(dout));
    OK(cuLibraryUnload(lib));
    /* a relocatable container without PTX (here: the linked one, SASS only) is named in the error */
    const void *only_sass[2] = {linked, NULL};
    w.fatbins = only_sass;
    char jlog[1024] = "";
    CUjit_option jo[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *jv[] = {jlog, (void *)(uintptr_t)sizeof jlog};
    EXPECT(cuLibraryLoadData(&lib, &w, jo, jv, 2, NULL, NULL, 0), CUDA_ERROR_NO_BINARY_FOR_GPU);
    if (!strstr(jlog, "relocatable fatbin 0 of 1 holds no PTX (entries: elf sm_80)")) {
        fprintf(stderr, "error log does not name the container: '%s'\n", jlog);
        check_failures++;
    }
    p2n_fb_close(&f);
}

int main(int argc, char **argv)
{
    MUST(cuInit(0));
    CUlinkState none;
    EXPECT(cuLinkCreate(0, NULL, NULL, &none), CUDA_ERROR_INVALID_CONTEXT); /* no current context (as NVIDIA) */
    CUdevice dev;
    CUcontext ctx;
    MUST(cuDeviceGet(&dev, 0));
    MUST(cuDevicePrimaryCtxRetain(&ctx, dev));
    MUST(cuCtxSetCurrent(ctx));
    api_tests();
    if (argc > 1)
        rdc_tests(argv[1]);
    if (check_failures) {
        fprintf(stderr, "test_link: %d check(s) failed\n", check_failures);
        return 1;
    }
    printf("test_link: all checks passed%s\n", argc > 1 ? " (with the -rdc executable)" : "");
    return 0;
}
