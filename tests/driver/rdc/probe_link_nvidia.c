/* probe_link_nvidia.c — what NVIDIA's driver answers to the cuLink* cases test_link.c checks. Run on a machine
 * with an NVIDIA GPU and the real libcuda (recorded on an H200, CUDA 13 driver; results in test_link.c):
 *   cc probe_link_nvidia.c -I/usr/local/cuda/include -lcuda -o probe && ./probe
 * Prints one line per case: the CUresult name and the first line of the error log. */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

static const char *A = ".version 8.0\n.target sm_80\n.address_size 64\n"
                       ".extern .func (.param .b32 r) add7(.param .b32 x);\n"
                       ".extern .global .align 4 .u32 gv;\n"
                       ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n"
                       "ld.param.u64 %rd1, [out];\nld.global.u32 %r1, [gv];\n"
                       "{\n.param .b32 p0;\n.param .b32 r0;\nst.param.u32 [p0], %r1;\n"
                       "call.uni (r0), add7, (p0);\nld.param.u32 %r2, [r0];\n}\n"
                       "st.global.u32 [%rd1], %r2;\nret;\n}\n";
static const char *B = ".version 8.0\n.target sm_80\n.address_size 64\n"
                       ".visible .global .align 4 .u32 gv = 100;\n"
                       ".visible .func (.param .b32 r) add7(.param .b32 x)\n{\n.reg .b32 %r<3>;\n"
                       "ld.param.u32 %r1, [x];\nadd.s32 %r2, %r1, 7;\nst.param.u32 [r], %r2;\nret;\n}\n"
                       ".visible .entry kb(.param .u64 out)\n{\nret;\n}\n";
static const char *BAD = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry kx()\n{\nbogus.op %r1;\n}\n";

static char elog[4096];
static CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
static void *vals[2];

static const char *nm(CUresult r) { const char *s = "?"; cuGetErrorName(r, &s); return s; }
static void show(const char *what, CUresult r)
{
    char *nl = strchr(elog, '\n');
    if (nl) *nl = 0;
    printf("%-40s %s | %s\n", what, nm(r), elog);
    elog[0] = 0;
}
static CUlinkState mk(void)
{
    CUlinkState s = NULL;
    elog[0] = 0;
    vals[0] = elog;
    vals[1] = (void *)(size_t)sizeof elog;
    CUresult r = cuLinkCreate(2, opts, vals, &s);
    if (r) printf("cuLinkCreate: %s\n", nm(r));
    return s;
}

int main(void)
{
    CUlinkState s = NULL;
    cuInit(0);
    show("cuLinkCreate without a context", cuLinkCreate(0, NULL, NULL, &s));
    CUdevice d;
    CUcontext c;
    cuDeviceGet(&d, 0);
    cuDevicePrimaryCtxRetain(&c, d);
    cuCtxSetCurrent(c);
    void *img;
    size_t sz;
    s = mk();
    show("add A", cuLinkAddData(s, CU_JIT_INPUT_PTX, (void *)A, strlen(A) + 1, "a.ptx", 0, NULL, NULL));
    show("add B", cuLinkAddData(s, CU_JIT_INPUT_PTX, (void *)B, strlen(B) + 1, "b.ptx", 0, NULL, NULL));
    show("complete A+B", cuLinkComplete(s, &img, &sz));
    cuLinkDestroy(s);
    s = mk();
    cuLinkAddData(s, CU_JIT_INPUT_PTX, (void *)B, strlen(B) + 1, "b.ptx", 0, NULL, NULL);
    show("add B again (duplicate)", cuLinkAddData(s, CU_JIT_INPUT_PTX, (void *)B, strlen(B) + 1, "b2.ptx", 0, NULL, NULL));
    show("complete B+B", cuLinkComplete(s, &img, &sz));
    cuLinkDestroy(s);
    s = mk();
    cuLinkAddData(s, CU_JIT_INPUT_PTX, (void *)A, strlen(A) + 1, "a.ptx", 0, NULL, NULL);
    show("complete A alone (unresolved)", cuLinkComplete(s, &img, &sz));
    cuLinkDestroy(s);
    s = mk();
    show("add bad PTX", cuLinkAddData(s, CU_JIT_INPUT_PTX, (void *)BAD, strlen(BAD) + 1, "bad.ptx", 0, NULL, NULL));
    show("add garbage cubin", cuLinkAddData(s, CU_JIT_INPUT_CUBIN, (void *)"garbage!garbage!", 16, "x.cubin", 0, NULL, NULL));
    show("add garbage object", cuLinkAddData(s, CU_JIT_INPUT_OBJECT, (void *)"garbage!garbage!", 16, "x.o", 0, NULL, NULL));
    show("add garbage library", cuLinkAddData(s, CU_JIT_INPUT_LIBRARY, (void *)"garbage!garbage!", 16, "x.a", 0, NULL, NULL));
    show("add garbage NVVM", cuLinkAddData(s, CU_JIT_INPUT_NVVM, (void *)"garbage!garbage!", 16, "x.ltoir", 0, NULL, NULL));
    show("add garbage fatbin", cuLinkAddData(s, CU_JIT_INPUT_FATBINARY, (void *)"garbage!garbage!", 16, "x.fatbin", 0, NULL, NULL));
    show("add type 99", cuLinkAddData(s, (CUjitInputType)99, (void *)A, strlen(A) + 1, "a.ptx", 0, NULL, NULL));
    show("add NULL data", cuLinkAddData(s, CU_JIT_INPUT_PTX, NULL, 10, "a.ptx", 0, NULL, NULL));
    show("add size 0", cuLinkAddData(s, CU_JIT_INPUT_PTX, (void *)A, 0, "a.ptx", 0, NULL, NULL));
    show("add file missing", cuLinkAddFile(s, CU_JIT_INPUT_PTX, "/nonexistent/x.ptx", 0, NULL, NULL));
    show("complete with no inputs", cuLinkComplete(s, &img, &sz));
    cuLinkDestroy(s);
    show("destroy NULL", cuLinkDestroy(NULL));
    show("complete NULL state", cuLinkComplete(NULL, &img, &sz));
    s = mk();
    cuLinkAddData(s, CU_JIT_INPUT_PTX, (void *)B, strlen(B) + 1, "b.ptx", 0, NULL, NULL);
    show("complete NULL cubinOut", cuLinkComplete(s, NULL, &sz));
    cuLinkDestroy(s);
    return 0;
}
