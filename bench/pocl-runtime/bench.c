/* bench.c — PoCL run time of ptx2native's SPIR-V (kernels.cu -> nvcc -ptx -> ptx2native --offload-arch=spirv64,
 * loaded with clCreateProgramWithIL) against the same kernels written as OpenCL C (kernels.cl, loaded with
 * clCreateProgramWithSource and compiled by PoCL). Both run on the same device, queue, SVM buffers, data and
 * NDRange; each launch is timed as clEnqueueNDRangeKernel + clFinish (warm-up first, then the two variants
 * alternate, median of N). Results are checked against a C reference.
 *
 * Our kernels get their arguments exactly as driver-stub/opencl passes them (targets/spirv/spirv_lower.c ABI):
 * every PTX parameter as a plain integer of its size (CUDA pointers are 64-bit integers holding SVM
 * addresses), then a __local window of STATIC_SMEM bytes (16 if none) and an i32 dynamic-shared byte count;
 * all SVM allocations are declared with CL_KERNEL_EXEC_INFO_SVM_PTRS (for both variants). 3-D NDRange (z = 1)
 * for both, as the backend launches. The reference kernels get clSetKernelArgSVMPointer pointers.
 *
 * usage: bench SPV CL [N] [kernel...]    (OCL_ICD_VENDORS should point at PoCL's ICD directory)
 * env P2N_BENCH_META=FILE takes our kernel metadata from FILE instead of SPV (for experiments).
 * env P2N_BENCH_CLOCK=cpu times each launch in process CPU time (all PoCL threads) instead of wall time: on a
 * loaded machine the wall time of a launch includes the time its threads wait for a core, which the CPU time
 * does not (caches are still shared). */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spirv_null_fix.h"

#define CK(x)                                                                                                   \
    do {                                                                                                        \
        cl_int e_ = (x);                                                                                        \
        if (e_ != CL_SUCCESS) {                                                                                 \
            fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #x, e_);                                   \
            exit(1);                                                                                            \
        }                                                                                                       \
    } while (0)

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q;
static int fine;
static void *allocs[16];
static int nallocs;

static void *svm(size_t bytes) {
    void *p = clSVMAlloc(ctx, CL_MEM_READ_WRITE | (fine ? CL_MEM_SVM_FINE_GRAIN_BUFFER : 0), bytes, 128);
    if (!p) { fprintf(stderr, "clSVMAlloc(%zu) failed\n", bytes); exit(1); }
    allocs[nallocs++] = p;
    return p;
}
static void svm_free_all(void) {
    for (int i = 0; i < nallocs; i++) clSVMFree(ctx, allocs[i]);
    nallocs = 0;
}
/* host access: fine-grained SVM needs no map (PoCL CPU); otherwise map/unmap around host use */
static void hmap(void *p, size_t n) { if (!fine) CK(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, p, n, 0, NULL, NULL)); }
static void hunmap(void *p) { if (!fine) { CK(clEnqueueSVMUnmap(q, p, 0, NULL, NULL)); CK(clFinish(q)); } }

static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(sz + 1);
    if (fread(b, 1, sz, f) != (size_t)sz) { perror(path); exit(1); }
    b[sz] = 0;
    fclose(f);
    *n = sz;
    return b;
}

static void build(cl_program p, const char *what) {
    cl_int e = clBuildProgram(p, 1, &dev, "", NULL, NULL);
    if (e != CL_SUCCESS) {
        size_t ln = 0;
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &ln);
        char *log = calloc(1, ln + 1);
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, ln, log, NULL);
        fprintf(stderr, "build of %s failed (%d):\n%s\n", what, e, log);
        exit(1);
    }
}

/* STATIC_SMEM of kernel `name` from our "p2n:kernel NAME NPARAMS PBSIZE STATIC_SMEM ..." string */
static unsigned static_smem(const char *spv, size_t n, const char *name) {
    char key[300];
    snprintf(key, sizeof key, "p2n:kernel %s ", name);
    size_t kl = strlen(key);
    for (size_t i = 0; i + kl < n; i++)
        if (!memcmp(spv + i, key, kl)) {
            unsigned np, pb, sm;
            if (sscanf(spv + i + kl, "%u %u %u", &np, &pb, &sm) == 3) return sm;
        }
    fprintf(stderr, "no p2n:kernel metadata for %s\n", name);
    exit(1);
}

/* one kernel argument: a pointer or a 4-byte scalar */
typedef struct { int is_ptr; void *p; uint32_t v; } arg;
#define PTR(x) ((arg){1, (x), 0})
static arg I32(int x) { arg a = {0, NULL, 0}; memcpy(&a.v, &x, 4); return a; }
static arg F32(float x) { arg a = {0, NULL, 0}; memcpy(&a.v, &x, 4); return a; }

static void set_ours(cl_kernel k, const arg *a, int na, unsigned smem) {
    for (int i = 0; i < na; i++) {
        if (a[i].is_ptr) { uint64_t v = (uint64_t)(uintptr_t)a[i].p; CK(clSetKernelArg(k, i, 8, &v)); }
        else CK(clSetKernelArg(k, i, 4, &a[i].v));
    }
    CK(clSetKernelArg(k, na, smem ? smem : 16, NULL));
    uint32_t dyn = 0;
    CK(clSetKernelArg(k, na + 1, 4, &dyn));
    CK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, nallocs * sizeof(void *), allocs));
}
static void set_ref(cl_kernel k, const arg *a, int na) {
    for (int i = 0; i < na; i++) {
        if (a[i].is_ptr) CK(clSetKernelArgSVMPointer(k, i, a[i].p));
        else CK(clSetKernelArg(k, i, 4, &a[i].v));
    }
    CK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, nallocs * sizeof(void *), allocs));
}

static clockid_t bench_clock = CLOCK_MONOTONIC;
static double now(void) {
    struct timespec t;
    clock_gettime(bench_clock, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
static double run(cl_kernel k, const size_t *g, const size_t *l) {
    double t0 = now();
    CK(clEnqueueNDRangeKernel(q, k, 3, NULL, g, l, 0, NULL, NULL));
    CK(clFinish(q));
    return now() - t0;
}
static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
    qsort(v, n, sizeof *v, cmpd);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static float frand(unsigned *s) {
    *s = *s * 1664525u + 1013904223u;
    return (float)((*s >> 8) & 0xffff) / 65536.0f - 0.5f;
}

/* compare out[0..n) with ref (relative+absolute tolerance); returns max error measure */
static double check(const float *out, const float *ref, size_t n, double tol, const char *who, const char *kn) {
    double worst = 0;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)out[i] - ref[i]) / fmax(fabs(ref[i]), 1.0); /* relative, absolute below 1 */
        if (d > worst) worst = d;
        if (!(d <= tol)) { if (bad++ < 3) fprintf(stderr, "%s %s: [%zu] = %g, expected %g\n", kn, who, i, out[i], ref[i]); }
    }
    if (bad) { fprintf(stderr, "%s %s: %zu mismatches\n", kn, who, bad); exit(1); }
    return worst;
}

typedef struct {
    const char *name;
    cl_kernel ours, ref;
    unsigned smem;
} kpair;

static int N = 15;

/* times both variants; `reset` (may be NULL) restores inputs the kernel overwrites (not timed) */
static void bench(kpair *kp, const arg *a, int na, const size_t *g, const size_t *l, void (*reset)(void),
                  double *t_ours, double *t_ref) {
    set_ours(kp->ours, a, na, kp->smem);
    set_ref(kp->ref, a, na);
    for (int w = 0; w < 2; w++) { /* warm-up: PoCL builds the work-group functions on first launch */
        if (reset) reset();
        run(kp->ours, g, l);
        if (reset) reset();
        run(kp->ref, g, l);
    }
    double *to = malloc(N * sizeof *to), *tr = malloc(N * sizeof *tr);
    for (int i = 0; i < N; i++) { /* alternate (ABBA) so that background load hits both alike */
        int ours_first = (i & 1) == 0;
        for (int j = 0; j < 2; j++) {
            int o = ours_first ? j == 0 : j == 1;
            if (reset) reset();
            if (o) to[i] = run(kp->ours, g, l);
            else tr[i] = run(kp->ref, g, l);
        }
    }
    *t_ours = median(to, N);
    *t_ref = median(tr, N);
    free(to);
    free(tr);
}

static float *g_y, *g_y0;
static size_t g_n;
static void reset_y(void) { memcpy(g_y, g_y0, g_n * sizeof(float)); }

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s SPV CL [N] [kernel...]\n", argv[0]); return 2; }
    if (argc > 3) N = atoi(argv[3]);
    const char *clk = getenv("P2N_BENCH_CLOCK");
    if (clk && !strcmp(clk, "cpu")) bench_clock = CLOCK_PROCESS_CPUTIME_ID;
    else if (clk && strcmp(clk, "wall")) { fprintf(stderr, "P2N_BENCH_CLOCK: cpu or wall\n"); return 2; }
    cl_platform_id plats[8];
    cl_uint np = 0;
    CK(clGetPlatformIDs(8, plats, &np));
    for (cl_uint i = 0; i < np && !dev; i++) {
        cl_device_id d[8];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 8, d, &nd) != CL_SUCCESS) continue;
        for (cl_uint j = 0; j < nd && !dev; j++) {
            char il[256] = "";
            clGetDeviceInfo(d[j], CL_DEVICE_IL_VERSION, sizeof il, il, NULL);
            if (strstr(il, "SPIR-V")) dev = d[j];
        }
    }
    if (!dev) { fprintf(stderr, "no OpenCL device takes SPIR-V (OCL_ICD_VENDORS?)\n"); return 1; }
    char dn[256], dv[256];
    cl_uint cu = 0;
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dn, dn, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof dv, dv, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    cl_device_svm_capabilities caps = 0;
    clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, NULL);
    fine = (caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
    if (!fine) { fprintf(stderr, "the bench fills and checks buffers from the host: needs fine-grained SVM\n"); return 1; }
    printf("device: %s (%s), %u compute units, %s SVM, N=%d, %s time\n", dn, dv, cu, fine ? "fine-grained" : "coarse", N,
           bench_clock == CLOCK_MONOTONIC ? "wall" : "CPU");
    cl_int e;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    CK(e);
    q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &e);
    CK(e);

    size_t spn, cln;
    char *spv = slurp(argv[1], &spn), *cls = slurp(argv[2], &cln);
    /* P2N_BENCH_META=FILE: read our kernel metadata from FILE (experiments with SPIR-V rebuilt by llc-22) */
    size_t metan = spn;
    char *meta = getenv("P2N_BENCH_META") ? slurp(getenv("P2N_BENCH_META"), &metan) : spv;
    size_t nw = spn / 4;
    uint32_t *fixed = spirv_fix_scalar_nulls((const uint32_t *)spv, spn / 4, &nw, NULL); /* as the backend on PoCL */
    double tb = now();
    cl_program po = clCreateProgramWithIL(ctx, fixed ? (void *)fixed : (void *)spv, nw * 4, &e);
    CK(e);
    build(po, argv[1]);
    double tbo = now() - tb;
    tb = now();
    const char *src = cls;
    cl_program pr = clCreateProgramWithSource(ctx, 1, &src, NULL, &e);
    CK(e);
    build(pr, argv[2]);
    double tbr = now() - tb;
    printf("program build: ours (IL) %.3f s, reference (source) %.3f s\n", tbo, tbr);

    const char *names[] = {"vadd", "saxpy", "stencil2d", "reduce", "matmul"};
    printf("%-10s %12s %12s %8s  %s\n", "kernel", "ours ms", "OpenCL C ms", "speed", "check (max rel err ours / ref)");
    for (int ki = 0; ki < 5; ki++) {
        int want = argc <= 4;
        for (int j = 4; j < argc; j++) want |= !strcmp(argv[j], names[ki]);
        if (!want) continue;
        kpair kp = {names[ki], NULL, NULL, 0};
        kp.ours = clCreateKernel(po, names[ki], &e);
        CK(e);
        kp.ref = clCreateKernel(pr, names[ki], &e);
        CK(e);
        kp.smem = static_smem(meta, metan, names[ki]);
        double to = 0, tr = 0, eo = 0, er = 0;
        unsigned seed = 12345 + ki;
        if (ki <= 1) { /* vadd, saxpy */
            size_t n = 1 << 22;
            float *a = svm(n * 4), *b = svm(n * 4), *c = svm(n * 4), *ref = malloc(n * 4), *y0 = malloc(n * 4);
            hmap(a, n * 4); hmap(b, n * 4); hmap(c, n * 4);
            for (size_t i = 0; i < n; i++) { a[i] = frand(&seed); b[i] = frand(&seed); y0[i] = b[i]; }
            hunmap(a); hunmap(b); hunmap(c);
            size_t l[3] = {256, 1, 1}, g[3] = {n, 1, 1};
            float s = 1.75f;
            if (ki == 0) {
                arg av[] = {PTR(a), PTR(b), PTR(c), I32((int)n)};
                for (size_t i = 0; i < n; i++) ref[i] = a[i] + b[i];
                bench(&kp, av, 4, g, l, NULL, &to, &tr);
                run(kp.ours, g, l); hmap(c, n * 4); eo = check(c, ref, n, 0, "ours", kp.name); memset(c, 0, n * 4); hunmap(c);
                run(kp.ref, g, l); hmap(c, n * 4); er = check(c, ref, n, 0, "ref", kp.name); hunmap(c);
            } else {
                arg av[] = {I32((int)n), F32(s), PTR(a), PTR(b)};
                for (size_t i = 0; i < n; i++) ref[i] = fmaf(s, a[i], y0[i]);
                g_y = b; g_y0 = y0; g_n = n;
                bench(&kp, av, 4, g, l, reset_y, &to, &tr);
                reset_y(); run(kp.ours, g, l); hmap(b, n * 4); eo = check(b, ref, n, 1e-6, "ours", kp.name); hunmap(b);
                reset_y(); run(kp.ref, g, l); hmap(b, n * 4); er = check(b, ref, n, 1e-6, "ref", kp.name); hunmap(b);
            }
            free(ref); free(y0);
        } else if (ki == 2) { /* stencil */
            int w = 2048, h = 2048;
            size_t n = (size_t)w * h;
            float *in = svm(n * 4), *out = svm(n * 4), *ref = malloc(n * 4);
            for (size_t i = 0; i < n; i++) in[i] = frand(&seed);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    size_t i = (size_t)y * w + x;
                    ref[i] = (x == 0 || y == 0 || x == w - 1 || y == h - 1)
                                 ? in[i] : 0.5f * in[i] + 0.125f * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
                }
            arg av[] = {PTR(in), PTR(out), I32(w), I32(h)};
            size_t l[3] = {16, 16, 1}, g[3] = {(size_t)w, (size_t)h, 1};
            bench(&kp, av, 4, g, l, NULL, &to, &tr);
            memset(out, 0, n * 4); run(kp.ours, g, l); eo = check(out, ref, n, 1e-5, "ours", kp.name);
            memset(out, 0, n * 4); run(kp.ref, g, l); er = check(out, ref, n, 1e-5, "ref", kp.name);
            free(ref);
        } else if (ki == 3) { /* reduce */
            int n = 1 << 22, blocks = 1024;
            float *in = svm((size_t)n * 4), *part = svm(blocks * 4);
            double sum = 0;
            for (int i = 0; i < n; i++) { in[i] = frand(&seed); sum += in[i]; }
            arg av[] = {PTR(in), PTR(part), I32(n)};
            size_t l[3] = {256, 1, 1}, g[3] = {(size_t)blocks * 256, 1, 1};
            bench(&kp, av, 3, g, l, NULL, &to, &tr);
            float rs = (float)sum;
            for (int v = 0; v < 2; v++) {
                memset(part, 0, blocks * 4);
                run(v ? kp.ref : kp.ours, g, l);
                double s2 = 0;
                for (int b2 = 0; b2 < blocks; b2++) s2 += part[b2];
                float fs = (float)s2;
                double err = check(&fs, &rs, 1, 1e-3, v ? "ref" : "ours", kp.name);
                if (v) er = err; else eo = err;
            }
        } else { /* matmul */
            int n = 512;
            size_t nn = (size_t)n * n;
            float *A = svm(nn * 4), *B = svm(nn * 4), *C = svm(nn * 4), *ref = malloc(nn * 4);
            for (size_t i = 0; i < nn; i++) { A[i] = frand(&seed); B[i] = frand(&seed); }
            for (int r = 0; r < n; r++)
                for (int c = 0; c < n; c++) {
                    double acc = 0;
                    for (int k = 0; k < n; k++) acc += (double)A[(size_t)r * n + k] * B[(size_t)k * n + c];
                    ref[(size_t)r * n + c] = (float)acc;
                }
            arg av[] = {PTR(A), PTR(B), PTR(C), I32(n)};
            size_t l[3] = {16, 16, 1}, g[3] = {(size_t)n, (size_t)n, 1};
            bench(&kp, av, 4, g, l, NULL, &to, &tr);
            memset(C, 0, nn * 4); run(kp.ours, g, l); eo = check(C, ref, nn, 1e-3, "ours", kp.name);
            memset(C, 0, nn * 4); run(kp.ref, g, l); er = check(C, ref, nn, 1e-3, "ref", kp.name);
            free(ref);
        }
        printf("%-10s %12.3f %12.3f %7.2fx  ok (%.1e / %.1e)\n", kp.name, to * 1e3, tr * 1e3, tr / to, eo, er);
        fflush(stdout);
        clReleaseKernel(kp.ours);
        clReleaseKernel(kp.ref);
        svm_free_all();
    }
    return 0;
}
