/* Module loading without the host target: malformed PTX (CUDA_ERROR_INVALID_PTX + JIT error log naming
 * line:col), images that are not code, missing files, bad handles. Usage: test_module TESTS_DRIVER_DIR */
#include <regex.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

static const char bad_ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry broken(.param .u64 p)\n"
    "{\n"
    "    .reg .b32 %r<4>;\n"
    "    mov.u32 %r1, %tid.x;\n"
    "    frobnicate.u32 %r2, %r1, 3;\n"
    "    ret;\n"
    "}\n";

int main(int argc, char **argv)
{
    MUST(cuInit(0));
    CUcontext ctx;
    CUmodule m = NULL;
    CUfunction f;

    /* no context yet */
    EXPECT(cuModuleLoadData(&m, bad_ptx), CUDA_ERROR_INVALID_CONTEXT);
    MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
    MUST(cuCtxSetCurrent(ctx));

    /* malformed PTX: INVALID_PTX and a log naming the place */
    char log[4096];
    memset(log, 'x', sizeof log);
    CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[2] = {log, (void *)(uintptr_t)sizeof log};
    EXPECT(cuModuleLoadDataEx(&m, bad_ptx, 2, opts, vals), CUDA_ERROR_INVALID_PTX);
    TRUE(memchr(log, 0, sizeof log) != NULL);
    size_t filled = (size_t)(uintptr_t)vals[1];
    TRUE(filled > 1 && filled <= sizeof log);
    regex_t re;
    TRUE(regcomp(&re, ":9:[0-9]+: error", REG_EXTENDED) == 0);
    int found = regexec(&re, log, 0, NULL, 0) == 0;
    regfree(&re);
    if (!found)
        fprintf(stderr, "error log does not name line 9 (line:col): \"%s\"\n", log);
    TRUE(found);
    /* a small buffer is filled and terminated */
    char small[16];
    void *vals2[2] = {small, (void *)(uintptr_t)sizeof small};
    EXPECT(cuModuleLoadDataEx(&m, bad_ptx, 2, opts, vals2), CUDA_ERROR_INVALID_PTX);
    TRUE(strlen(small) == sizeof small - 1);
    EXPECT(cuModuleLoadData(&m, bad_ptx), CUDA_ERROR_INVALID_PTX);
    EXPECT(cuModuleLoadData(&m, ".version 8.0\n.target sm_80\n.address_size 64\n.entry k( {\n"),
           CUDA_ERROR_INVALID_PTX);

    /* not code at all */
    static const unsigned char junk[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x00};
    EXPECT(cuModuleLoadData(&m, junk), CUDA_ERROR_INVALID_IMAGE);
    EXPECT(cuModuleLoadData(&m, ""), CUDA_ERROR_INVALID_IMAGE);
    EXPECT(cuModuleLoadData(&m, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuModuleLoadData(NULL, bad_ptx), CUDA_ERROR_INVALID_VALUE);
    /* a fatbin container whose one entry is malformed (entry version 0x999) */
    static const uint32_t bad_fatbin[20] = {0xBA55ED50u, 0x00100001u, 64, 0, 0x09990001u, 64};
    EXPECT(cuModuleLoadData(&m, bad_fatbin), CUDA_ERROR_INVALID_IMAGE);
    /* an NVIDIA cubin (ELF, EM_CUDA): there is no GPU to run it */
    unsigned char cubin[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    cubin[16] = 2;   /* ET_EXEC */
    cubin[18] = 190; /* EM_CUDA */
    cubin[52] = 64;  /* e_ehsize */
    EXPECT(cuModuleLoadData(&m, cubin), CUDA_ERROR_NO_BINARY_FOR_GPU);
    /* an ELF that is not ours */
    unsigned char other[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    other[16] = 3;  /* ET_DYN */
    other[18] = 62; /* x86-64 */
    other[52] = 64;
    EXPECT(cuModuleLoadData(&m, other), CUDA_ERROR_INVALID_IMAGE);

    EXPECT(cuModuleLoad(&m, "/nonexistent/dir/file.ptx"), CUDA_ERROR_FILE_NOT_FOUND);
    if (argc > 1) {
        char path[1024];
        snprintf(path, sizeof path, "%s/bad.ptx", argv[1]);
        EXPECT(cuModuleLoad(&m, path), CUDA_ERROR_INVALID_PTX);
    }

    /* bad handles */
    EXPECT(cuModuleUnload((CUmodule)(uintptr_t)0x1000), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuModuleUnload(NULL), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuModuleGetFunction(&f, NULL, "k"), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuModuleGetFunction(&f, (CUmodule)&f, "k"), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLaunchKernel((CUfunction)&f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_HANDLE);
    int v;
    EXPECT(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, (CUfunction)&f), CUDA_ERROR_INVALID_HANDLE);
    CUmoduleLoadingMode mode;
    OK(cuModuleGetLoadingMode(&mode));

    OK(cuDevicePrimaryCtxRelease(0));
    return check_done("test_module");
}
