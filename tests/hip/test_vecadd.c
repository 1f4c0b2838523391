/* test_vecadd.c — hip.vecadd.<arch>: a kernel end to end through libcuda.so.1 → the HIP backend
 * (driver-stub/hip) → libamdhip64.so.5 (here the emulator stand-in, tests/hip/standin.c) → tinygrad's AMD ISA
 * emulator. Checks the device the backend reports, parameter packing (pointers, f32, u32), an uneven grid, dynamic
 * shared memory with a barrier, padding between parameters, module globals, memsets, the errors of an unknown
 * kernel, and a trap (sticky CUDA_ERROR_LAUNCH_FAILED).
 *   test_hip_vecadd PTX ARCH */
#include <string.h>

#include "../driver/check.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s vecadd.ptx gfxNNN\n", argv[0]);
        return 2;
    }
    CUmodule mod = must_load_ptx(argv[1]);
    char name[256];
    int ws = 0;
    OK(cuDeviceGetName(name, sizeof name, 0));
    printf("device: %s\n", name);
    TRUE(strstr(name, argv[2]) != NULL);
    TRUE(strstr(name, "HIP") != NULL);
    OK(cuDeviceGetAttribute(&ws, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0));
    TRUE(ws == 32);

    enum { N = 1000 };
    float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i + 1.0f;
        c[i] = -1.0f;
    }
    CUdeviceptr da, db, dc;
    MUST(cuMemAlloc(&da, sizeof a));
    MUST(cuMemAlloc(&db, sizeof b));
    MUST(cuMemAlloc(&dc, sizeof c));
    OK(cuMemcpyHtoD(da, a, sizeof a));
    OK(cuMemcpyHtoD(db, b, sizeof b));
    OK(cuMemsetD32(dc, 0xbf800000u, N)); /* -1.0f */
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "vecadd"));
    float s = 3.0f;
    unsigned n = N - 7; /* the last 7 stay -1 */
    void *args[] = {&da, &db, &dc, &s, &n};
    OK(cuLaunchKernel(f, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(c, dc, sizeof c));
    int bad = 0;
    for (int i = 0; i < N; i++) {
        float want = i < (int)n ? a[i] + b[i] * s : -1.0f;
        if (c[i] != want && bad++ < 5)
            fprintf(stderr, "vecadd: c[%d] = %g, expected %g\n", i, c[i], want);
    }
    TRUE(bad == 0);

    /* dynamic shared memory: each block of 64 reverses its part */
    unsigned in[256], out[256];
    for (int i = 0; i < 256; i++) in[i] = 1000u + (unsigned)i;
    CUdeviceptr din, dout;
    MUST(cuMemAlloc(&din, sizeof in));
    MUST(cuMemAlloc(&dout, sizeof out));
    OK(cuMemcpyHtoD(din, in, sizeof in));
    CUfunction r;
    MUST(cuModuleGetFunction(&r, mod, "reverse"));
    void *rargs[] = {&din, &dout};
    OK(cuLaunchKernel(r, 4, 1, 1, 64, 1, 1, 64 * sizeof(unsigned), NULL, rargs, NULL));
    OK(cuMemcpyDtoH(out, dout, sizeof out));
    bad = 0;
    for (int i = 0; i < 256; i++) {
        unsigned want = in[(i / 64) * 64 + 63 - i % 64];
        if (out[i] != want && bad++ < 5)
            fprintf(stderr, "reverse: out[%d] = %u, expected %u\n", i, out[i], want);
    }
    TRUE(bad == 0);

    /* a u32 then a u64 parameter: the padding between them is no parameter */
    CUfunction fl;
    MUST(cuModuleGetFunction(&fl, mod, "fill"));
    unsigned base = 7;
    void *fargs[] = {&base, &dout};
    OK(cuLaunchKernel(fl, 1, 1, 1, 64, 1, 1, 0, NULL, fargs, NULL));
    OK(cuMemcpyDtoH(out, dout, 64 * sizeof(unsigned)));
    bad = 0;
    for (int i = 0; i < 64; i++)
        if (out[i] != base + (unsigned)i && bad++ < 5)
            fprintf(stderr, "fill: out[%d] = %u, expected %u\n", i, out[i], base + (unsigned)i);
    TRUE(bad == 0);

    /* a module global, through hipModuleGetGlobal */
    CUdeviceptr g;
    size_t gsz = 0;
    OK(cuModuleGetGlobal(&g, &gsz, mod, "launches"));
    TRUE(gsz == 4);
    unsigned v = 0x12345678u, back = 0;
    OK(cuMemcpyHtoD(g, &v, 4));
    OK(cuMemcpyDtoH(&back, g, 4));
    TRUE(back == v);
    /* ... and from the kernels: 2 blocks of 64 threads, each adds 1 */
    CUfunction cnt;
    MUST(cuModuleGetFunction(&cnt, mod, "count"));
    OK(cuLaunchKernel(cnt, 2, 1, 1, 64, 1, 1, 0, NULL, NULL, NULL));
    OK(cuMemcpyDtoH(&back, g, 4));
    if (back != v + 128)
        fprintf(stderr, "count: launches = %#x, expected %#x\n", back, v + 128);
    TRUE(back == v + 128);

    CUfunction none;
    EXPECT(cuModuleGetFunction(&none, mod, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);

    /* a trap: the launch succeeds, the error is sticky from the next call on (as the CPU backend reports it) */
    CUfunction t;
    MUST(cuModuleGetFunction(&t, mod, "trap_if"));
    unsigned no = 0, yes = 1;
    void *targs0[] = {&no}, *targs1[] = {&yes};
    OK(cuLaunchKernel(t, 1, 1, 1, 32, 1, 1, 0, NULL, targs0, NULL));
    OK(cuCtxSynchronize());
    OK(cuLaunchKernel(t, 1, 1, 1, 32, 1, 1, 0, NULL, targs1, NULL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
    EXPECT(cuMemcpyDtoH(out, dout, 4), CUDA_ERROR_LAUNCH_FAILED);
    return check_done("test_hip_vecadd");
}
