/* test_cp_async.c — every cp.async form (cp_async.ptx) gives NVIDIA's bytes: copies of 4/8/16 bytes, zero fill
 * past src-size (never reading there: one source is an address that faults), ignore-src, the group waits and the
 * mbarrier arrive form. Runs on whatever P2N_BACKEND says (driver.cp_async: cpu; .opencl.pocl: SPIR-V on PoCL,
 * where the zero-fill forms made LLVM 22's SPIR-V back end abort). */
#include <stdint.h>
#include <string.h>

#include "check.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cp_async cp_async.ptx\n");
        return 2;
    }
    CUmodule mod = must_load_ptx(argv[1]);
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "cp_async_all"));
    CUdeviceptr src, dst;
    MUST(cuMemAlloc(&src, 128));
    MUST(cuMemAlloc(&dst, 128));
    uint8_t hs[128], hd[128], want[128];
    for (int i = 0; i < 128; i++)
        hs[i] = (uint8_t)(i + 1);
    OK(cuMemcpyHtoD(src, hs, sizeof hs));
    for (uint32_t ss = 0; ss <= 16; ss += 5) { /* 0, 5, 10, 15 */
        CUdeviceptr bad = 0x10; /* never read: src-size 0, ignore-src */
        void *args[] = {&src, &dst, &bad, &ss};
        OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
        OK(cuCtxSynchronize());
        OK(cuMemcpyDtoH(hd, dst, sizeof hd));
        memset(want, 0xee, sizeof want);
        memcpy(want, hs, 4);
        memcpy(want + 8, hs + 8, 8);
        memcpy(want + 16, hs + 16, 32);
        for (int k = 0; k < 16; k++) {
            want[48 + k] = (uint32_t)k < ss ? hs[48 + k] : 0;
            want[64 + k] = (uint32_t)k < ss ? hs[64 + k] : 0;
            if (k < 8)
                want[80 + k] = (uint32_t)k < ss ? hs[80 + k] : 0;
            want[112 + k] = 0;
        }
        memset(want + 96, 0, 4);
        int bad_bytes = 0;
        for (int i = 0; i < 128; i++)
            if (hd[i] != want[i]) {
                if (bad_bytes++ < 8)
                    fprintf(stderr, "src-size %u: byte %d = 0x%02x, expected 0x%02x\n", ss, i, hd[i], want[i]);
            }
        TRUE(bad_bytes == 0);
    }
    OK(cuMemFree(src));
    OK(cuMemFree(dst));
    return check_done("test_cp_async");
}
