/* test_parallel — a multi-kernel module compiled serially and with per-kernel parallel code generation
 * (P2N_JOBS=1, =2 and =7, read by p2n_compile when the caller sets no job count) must behave the same:
 * every kernel of multi.ptx runs on the CPU backend in both modules, with the same inputs, and the outputs,
 * module globals (cuModuleGetGlobal) and kernel attributes must match bit for bit; a few values are also
 * checked against host references. Usage: test_parallel DIR (the folder with multi.ptx). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../driver/check.h"
#include "../tools/test_file.h"

enum { N = 1000, W = 64 };

static float poly(float x) {
    static const float c[8] = {1.f, 0.5f, 0.25f, 0.125f, -1.f, 2.f, 3.f, -0.5f};
    float r = 0.f;
    for (int i = 7; i >= 0; i--) r = r * x + c[i];
    return r;
}
static unsigned mix(unsigned h, unsigned v) {
    h ^= v + 0x9e3779b9u + (h << 6) + (h >> 2);
    return h * 2654435761u;
}


/* everything one module's kernels write, copied back to the host */
typedef struct results {
    float poly[N], reduce[(N + 127) / 128], transpose[W * W], dyn[N];
    unsigned hash[N], scan[256], histo[16], counter;
    int gather[N], table[64];
    double dbl[N];
    int attrs[10][3];
} results;

static const char *const names[10] = {"k_poly", "k_hash", "k_reduce", "k_transpose", "k_dyn",
                                      "k_fill", "k_gather", "k_scan", "k_double", "k_histo"};

static CUdeviceptr upload(const void *p, size_t n) {
    CUdeviceptr d = 0;
    OK(cuMemAlloc(&d, n));
    if (p) OK(cuMemcpyHtoD(d, p, n));
    else OK(cuMemsetD8(d, 0, n));
    return d;
}

static void run(const char *ptx, const char *jobs, results *r) {
    setenv("P2N_JOBS", jobs, 1); /* read by p2n_compile at load time */
    CUmodule m;
    OK(cuModuleLoadData(&m, ptx));
    CUfunction f[10];
    for (int k = 0; k < 10; k++) {
        OK(cuModuleGetFunction(&f[k], m, names[k]));
        OK(cuFuncGetAttribute(&r->attrs[k][0], CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f[k]));
        OK(cuFuncGetAttribute(&r->attrs[k][1], CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f[k]));
        OK(cuFuncGetAttribute(&r->attrs[k][2], CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f[k]));
    }
    static float in[W * W];
    static unsigned uin[N];
    static int idx[N];
    static double din[N];
    for (int i = 0; i < W * W; i++) in[i] = (float)((i * 37) % 101) / 50.f - 1.f;
    for (int i = 0; i < N; i++) { uin[i] = (unsigned)i * 7919u; idx[i] = i * 13; din[i] = i * 0.01 - 3.0; }
    CUdeviceptr din_f = upload(in, sizeof in), din_u = upload(uin, sizeof uin), din_i = upload(idx, sizeof idx);
    CUdeviceptr din_d = upload(din, sizeof din);
    CUdeviceptr o_f = upload(NULL, sizeof in), o_u = upload(NULL, sizeof uin), o_i = upload(NULL, sizeof idx);
    CUdeviceptr o_d = upload(NULL, sizeof din), o_h = upload(NULL, 64);
    int n = N, w = W, fill = 5;
    unsigned blocks = (N + 127) / 128;
#define LAUNCH(k, gx, gy, bx, by, smem, ...) do { void *a_[] = {__VA_ARGS__}; \
        OK(cuLaunchKernel(f[k], gx, gy, 1, bx, by, 1, smem, NULL, a_, NULL)); OK(cuCtxSynchronize()); } while (0)
    LAUNCH(0, blocks, 1, 128, 1, 0, &o_f, &din_f, &n);
    OK(cuMemcpyDtoH(r->poly, o_f, sizeof r->poly));
    LAUNCH(1, blocks, 1, 128, 1, 0, &o_u, &n);
    OK(cuMemcpyDtoH(r->hash, o_u, sizeof r->hash));
    LAUNCH(2, blocks, 1, 128, 1, 0, &o_f, &din_f, &n);
    OK(cuMemcpyDtoH(r->reduce, o_f, sizeof r->reduce));
    LAUNCH(3, W / 16, W / 16, 16, 16, 0, &o_f, &din_f, &w);
    OK(cuMemcpyDtoH(r->transpose, o_f, sizeof r->transpose));
    LAUNCH(4, blocks, 1, 128, 1, 128 * sizeof(float), &o_f, &din_f, &n);
    OK(cuMemcpyDtoH(r->dyn, o_f, sizeof r->dyn));
    LAUNCH(5, 1, 1, 64, 1, 0, &fill);
    LAUNCH(6, blocks, 1, 128, 1, 0, &o_i, &din_i, &n);
    OK(cuMemcpyDtoH(r->gather, o_i, sizeof r->gather));
    int ns = 200;
    LAUNCH(7, 1, 1, 256, 1, 0, &o_u, &din_u, &ns);
    OK(cuMemcpyDtoH(r->scan, o_u, sizeof r->scan));
    LAUNCH(8, blocks, 1, 128, 1, 0, &o_d, &din_d, &n);
    OK(cuMemcpyDtoH(r->dbl, o_d, sizeof r->dbl));
    LAUNCH(9, blocks, 1, 128, 1, 0, &o_h, &din_u, &n);
    OK(cuMemcpyDtoH(r->histo, o_h, sizeof r->histo));
    CUdeviceptr g;
    size_t gs = 0;
    OK(cuModuleGetGlobal(&g, &gs, m, "counter"));
    if (gs == sizeof r->counter) OK(cuMemcpyDtoH(&r->counter, g, gs));
    OK(cuModuleGetGlobal(&g, &gs, m, "table"));
    if (gs == sizeof r->table) OK(cuMemcpyDtoH(r->table, g, gs));
    CUdeviceptr all[] = {din_f, din_u, din_i, din_d, o_f, o_u, o_i, o_d, o_h};
    for (unsigned k = 0; k < sizeof all / sizeof all[0]; k++) OK(cuMemFree(all[k]));
    OK(cuModuleUnload(m));
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: test_parallel DIR\n"); return 2; }
    char path[4096];
    snprintf(path, sizeof path, "%s/multi.ptx", argv[1]);
    char *ptx = test_read_file(path, NULL);
    if (!ptx) { fprintf(stderr, "cannot read %s\n", path); return 2; }
    CUdevice dev;
    CUcontext ctx;
    OK(cuInit(0));
    OK(cuDeviceGet(&dev, 0));
    OK(cuCtxCreate(&ctx, NULL, 0, dev));
    static results serial, par, many;
    memset(&serial, 0, sizeof serial);
    memset(&par, 0, sizeof par);
    memset(&many, 0, sizeof many);
    run(ptx, "1", &serial);
    run(ptx, "2", &par);
    run(ptx, "7", &many); /* 7 partitions of 10 kernels: several kernels per partition, helpers in most */
    const char *parts[] = {"poly", "hash", "reduce", "transpose", "dyn", "gather", "scan", "double", "histo",
                           "counter", "table", "attributes"};
    const void *a[] = {serial.poly, serial.hash, serial.reduce, serial.transpose, serial.dyn, serial.gather,
                       serial.scan, serial.dbl, serial.histo, &serial.counter, serial.table, serial.attrs};
    const void *b[] = {par.poly, par.hash, par.reduce, par.transpose, par.dyn, par.gather, par.scan, par.dbl,
                       par.histo, &par.counter, par.table, par.attrs};
    const void *c[] = {many.poly, many.hash, many.reduce, many.transpose, many.dyn, many.gather, many.scan, many.dbl,
                       many.histo, &many.counter, many.table, many.attrs};
    const size_t sz[] = {sizeof serial.poly, sizeof serial.hash, sizeof serial.reduce, sizeof serial.transpose,
                         sizeof serial.dyn, sizeof serial.gather, sizeof serial.scan, sizeof serial.dbl,
                         sizeof serial.histo, sizeof serial.counter, sizeof serial.table, sizeof serial.attrs};
    for (unsigned k = 0; k < sizeof parts / sizeof parts[0]; k++)
        for (int j = 0; j < 2; j++)
            if (memcmp(a[k], j ? c[k] : b[k], sz[k]) != 0) {
                fprintf(stderr, "check failed: -j1 and -j%d differ in %s\n", j ? 7 : 2, parts[k]);
                check_failures++;
            }
    /* and both are right */
    TRUE(serial.counter == 111u);
    TRUE(serial.hash[5] == mix(mix(17u, 5u), 99u));
    TRUE(fabsf(serial.poly[3] - poly((float)((3 * 37) % 101) / 50.f - 1.f)) < 1e-5f);
    TRUE(serial.table[9] == 81 - 5 && serial.gather[2] == (26 & 63) * (26 & 63) - 5 + 1234);
    unsigned hsum = 0;
    for (int i = 0; i < 16; i++) hsum += serial.histo[i];
    TRUE(hsum == N);
    TRUE(serial.attrs[3][0] >= 16 * 17 * 4); /* the module's one .shared window (all kernels' statics) */
    printf("k_poly[3]=%g counter=%u table[9]=%d shared(k_transpose)=%d\n", serial.poly[3], serial.counter,
           serial.table[9], serial.attrs[3][0]);
    free(ptx);
    OK(cuCtxDestroy(ctx));
    return check_done("test_parallel");
}
