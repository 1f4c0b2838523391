/* bench_cpu.c — CPU-backend speed against plain C (bench/cpu/README.md). Not a test.
 *
 * Loads kernels.ptx (or a `ptx2native --arch=host` object) through libcuda.so.1 with cuModuleLoadData, and for
 * each kernel: runs the C twin (reference.c, -O2) once and the kernel once from the same inputs and aborts on
 * a mismatch (that first launch is also the warm-up), then times REPS launches against REPS C runs on one
 * thread and on as many threads as the runtime has workers. Every figure is the best of 3 trials (the machine
 * is shared: the minimum is the least disturbed run). Module load (= PTX compilation) is timed separately. */
#include <cuda.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reference.h"

#define CK(call)                                                                                              \
    do {                                                                                                      \
        CUresult rc_ = (call);                                                                                \
        if (rc_ != CUDA_SUCCESS) {                                                                            \
            const char *s_ = NULL;                                                                            \
            cuGetErrorName(rc_, &s_);                                                                         \
            fprintf(stderr, "bench-cpu: %s failed: %s\n", #call, s_ ? s_ : "?");                             \
            exit(1);                                                                                          \
        }                                                                                                     \
    } while (0)

/* --cpu-time: the process's CPU time instead of wall time, so that figures taken on a machine shared with other
 * work (CI, parallel builds) count only the cycles this process got; with P2N_CPU_THREADS=1 and the 1-thread C
 * runs it is the per-core cost. Threaded C runs then report the sum over their threads. */
static clockid_t bench_clock = CLOCK_MONOTONIC;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(bench_clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t rng = 12345u;
static uint32_t next_u32(void) { return rng = rng * 1664525u + 1013904223u; }
static float next_f(void) { return (float)(next_u32() >> 8) * (1.0f / 16777216.0f); }

static void *xmalloc(size_t n) {
    void *p = malloc(n);
    if (!p) { fprintf(stderr, "bench-cpu: out of memory\n"); exit(1); }
    return p;
}

static CUdeviceptr dev_from(const void *host, size_t bytes) {
    CUdeviceptr d;
    CK(cuMemAlloc(&d, bytes));
    if (host) CK(cuMemcpyHtoD(d, host, bytes));
    else CK(cuMemsetD8(d, 0, bytes));
    return d;
}

/* One benchmark: `c(self, nthreads)` runs the C twin, `gpu(self)` launches the kernel once (asynchronously),
 * `check(self)` compares the state after one of each. */
typedef struct bench {
    const char *name, *what;
    int barriers;
    int reps;
    CUfunction f;
    void (*setup)(struct bench *);
    void (*c)(struct bench *, unsigned nthreads);
    void (*gpu)(struct bench *);
    void (*check)(struct bench *);
    long n;
    void *h[4];         /* host buffers: inputs, then the C side's outputs */
    CUdeviceptr d[4];   /* device buffers */
} bench;

static void launch(CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by, void **params) {
    CK(cuLaunchKernel(f, gx, gy, 1, bx, by, 1, 0, NULL, params, NULL));
}

static void fail(const bench *b, long i, double got, double want) {
    fprintf(stderr, "bench-cpu: %s: MISMATCH at %ld: got %.9g, want %.9g\n", b->name, i, got, want);
    exit(2);
}

/* Float results may differ from C by contraction (nvcc emits fma.rn for a*b+c; gcc -O2 for x86-64 cannot) */
static void check_floats(const bench *b, CUdeviceptr d, const float *want, long n, double rel) {
    float *got = xmalloc((size_t)n * sizeof *got);
    CK(cuMemcpyDtoH(got, d, (size_t)n * sizeof *got));
    for (long i = 0; i < n; i++)
        if (!(fabs((double)got[i] - want[i]) <= rel * fabs((double)want[i]) + 1e-6)) fail(b, i, got[i], want[i]);
    free(got);
}

static float *rand_floats(long n) {
    float *p = xmalloc((size_t)n * sizeof *p);
    for (long i = 0; i < n; i++) p[i] = next_f();
    return p;
}

static uint32_t *rand_words(long n) {
    uint32_t *p = xmalloc((size_t)n * sizeof *p);
    for (long i = 0; i < n; i++) p[i] = next_u32();
    return p;
}

/* ---- saxpy: h[0]=x h[1]=y(C) ---- */
static void saxpy_setup(bench *b) {
    b->h[0] = rand_floats(b->n);
    b->h[1] = rand_floats(b->n);
    b->d[0] = dev_from(b->h[0], b->n * 4);
    b->d[1] = dev_from(b->h[1], b->n * 4);
}
static void saxpy_c(bench *b, unsigned t) {
    ref_saxpy_args a = {(int)b->n, 0.5f, b->h[0], b->h[1]};
    ref_parallel(t, b->n, ref_saxpy, &a);
}
static void saxpy_gpu(bench *b) {
    int n = (int)b->n;
    float a = 0.5f;
    void *p[] = {&n, &a, &b->d[0], &b->d[1]};
    launch(b->f, (unsigned)((b->n + 255) / 256), 1, 256, 1, p);
}
static void saxpy_check(bench *b) { check_floats(b, b->d[1], b->h[1], b->n, 1e-6); }

/* ---- vecadd: h[0]=a h[1]=b h[2]=c(C) ---- */
static void vecadd_setup(bench *b) {
    b->h[0] = rand_floats(b->n);
    b->h[1] = rand_floats(b->n);
    b->h[2] = xmalloc(b->n * 4);
    for (int i = 0; i < 2; i++) b->d[i] = dev_from(b->h[i], b->n * 4);
    b->d[2] = dev_from(NULL, b->n * 4);
}
static void vecadd_c(bench *b, unsigned t) {
    ref_vecadd_args a = {(int)b->n, b->h[0], b->h[1], b->h[2]};
    ref_parallel(t, b->n, ref_vecadd, &a);
}
static void vecadd_gpu(bench *b) {
    int n = (int)b->n;
    void *p[] = {&n, &b->d[0], &b->d[1], &b->d[2]};
    launch(b->f, (unsigned)((b->n + 255) / 256), 1, 256, 1, p);
}
static void vecadd_check(bench *b) { check_floats(b, b->d[2], b->h[2], b->n, 0); }

/* ---- stencil2d on an n x n grid: h[0]=in h[1]=out(C) ---- */
static void stencil_setup(bench *b) {
    b->h[0] = rand_floats(b->n * b->n);
    b->h[1] = xmalloc(b->n * b->n * 4);
    b->d[0] = dev_from(b->h[0], b->n * b->n * 4);
    b->d[1] = dev_from(NULL, b->n * b->n * 4);
}
static void stencil_c(bench *b, unsigned t) {
    ref_stencil_args a = {(int)b->n, (int)b->n, b->h[0], b->h[1]};
    ref_parallel(t, b->n, ref_stencil, &a);
}
static void stencil_gpu(bench *b) {
    int n = (int)b->n;
    void *p[] = {&n, &n, &b->d[0], &b->d[1]};
    launch(b->f, (unsigned)((b->n + 31) / 32), (unsigned)((b->n + 7) / 8), 32, 8, p);
}
static void stencil_check(bench *b) { check_floats(b, b->d[1], b->h[1], b->n * b->n, 0); }

/* ---- reduce_sum: h[0]=in h[1]=C total; d[1] = one partial sum per block ---- */
enum { REDUCE_BLOCKS = 1024 };
static void reduce_setup(bench *b) {
    b->h[0] = rand_words(b->n);
    b->h[1] = xmalloc(sizeof(uint32_t));
    b->d[0] = dev_from(b->h[0], b->n * 4);
    b->d[1] = dev_from(NULL, REDUCE_BLOCKS * 4);
}
static void reduce_c(bench *b, unsigned t) {
    ref_reduce_args a = {.n = (int)b->n, .in = b->h[0]};
    ref_parallel(t, b->n, ref_reduce, &a);
    uint32_t s = 0;
    for (unsigned i = 0; i < (t ? t : 1); i++) s += a.partial[i];
    *(uint32_t *)b->h[1] = s;
}
static void reduce_gpu(bench *b) {
    int n = (int)b->n;
    void *p[] = {&n, &b->d[0], &b->d[1]};
    launch(b->f, REDUCE_BLOCKS, 1, 256, 1, p);
}
static void reduce_check(bench *b) {
    uint32_t part[REDUCE_BLOCKS], s = 0;
    CK(cuMemcpyDtoH(part, b->d[1], sizeof part));
    for (int i = 0; i < REDUCE_BLOCKS; i++) s += part[i];
    if (s != *(uint32_t *)b->h[1]) fail(b, -1, s, *(uint32_t *)b->h[1]);
}

/* ---- matmul_tiled, n x n: h[0]=A h[1]=B h[2]=C(C) ---- */
static void matmul_setup(bench *b) {
    long nn = b->n * b->n;
    b->h[0] = rand_floats(nn);
    b->h[1] = rand_floats(nn);
    b->h[2] = xmalloc(nn * 4);
    for (int i = 0; i < 2; i++) b->d[i] = dev_from(b->h[i], nn * 4);
    b->d[2] = dev_from(NULL, nn * 4);
}
static void matmul_c(bench *b, unsigned t) {
    ref_matmul_args a = {(int)b->n, b->h[0], b->h[1], b->h[2]};
    ref_parallel(t, b->n, ref_matmul, &a);
}
static void matmul_gpu(bench *b) {
    int n = (int)b->n;
    void *p[] = {&n, &b->d[0], &b->d[1], &b->d[2]};
    launch(b->f, (unsigned)(b->n / 16), (unsigned)(b->n / 16), 16, 16, p);
}
static void matmul_check(bench *b) { check_floats(b, b->d[2], b->h[2], b->n * b->n, 1e-4); }

/* ---- wmma_gemm, n x n f16 inputs: h[0]=A h[1]=B (floats, the f16 values exactly) h[2]=C(C); d[0], d[1] the f16
 * bits. The C twin is matmul's loop; the tensor core truncates its aligned terms, so 1e-3 relative. ---- */
static void wmma_setup(bench *b) {
    long nn = b->n * b->n;
    for (int i = 0; i < 2; i++) {
        float *f = rand_floats(nn);
        uint16_t *h = xmalloc((size_t)nn * 2);
        for (long j = 0; j < nn; j++) {
            _Float16 v = (_Float16)f[j];
            memcpy(&h[j], &v, 2);
            f[j] = (float)v;
        }
        b->h[i] = f;
        b->d[i] = dev_from(h, nn * 2);
        free(h);
    }
    b->h[2] = xmalloc(nn * 4);
    b->d[2] = dev_from(NULL, nn * 4);
}
static void wmma_gpu(bench *b) {
    int n = (int)b->n;
    void *p[] = {&n, &b->d[0], &b->d[1], &b->d[2]};
    launch(b->f, (unsigned)((b->n / 16) * (b->n / 16) / 4), 1, 128, 1, p); /* 4 warps a block, a warp a tile */
}
static void wmma_check(bench *b) { check_floats(b, b->d[2], b->h[2], b->n * b->n, 1e-3); }

/* ---- histogram: h[0]=in h[1]=hist(C); both sides accumulate, compared after the first run ---- */
static void hist_setup(bench *b) {
    b->h[0] = rand_words(b->n);
    b->h[1] = calloc(256, 4);
    b->d[0] = dev_from(b->h[0], b->n * 4);
    b->d[1] = dev_from(NULL, 256 * 4);
}
static void hist_c(bench *b, unsigned t) {
    static ref_hist_args a; /* 64 KiB of private histograms: not on the stack */
    a.n = (int)b->n;
    a.in = b->h[0];
    a.hist = b->h[1];
    ref_parallel(t, b->n, ref_hist, &a);
    ref_hist_merge(&a, t);
}
static void hist_gpu(bench *b) {
    int n = (int)b->n;
    void *p[] = {&n, &b->d[0], &b->d[1]};
    launch(b->f, 1024, 1, 256, 1, p);
}
static void hist_check(bench *b) {
    uint32_t got[256];
    CK(cuMemcpyDtoH(got, b->d[1], sizeof got));
    for (int i = 0; i < 256; i++)
        if (got[i] != ((uint32_t *)b->h[1])[i]) fail(b, i, got[i], ((uint32_t *)b->h[1])[i]);
}

/* ---- null_kernel: runtime cost per CUDA thread, n threads in blocks of 256 ---- */
static void null_setup(bench *b) { b->d[0] = dev_from(NULL, 4); }
static void null_gpu(bench *b) {
    int n = (int)b->n;
    void *p[] = {&n, &b->d[0]};
    launch(b->f, (unsigned)((b->n + 255) / 256), 1, 256, 1, p);
}
static void null_check(bench *b) {}

static bench benches[] = {
    {"saxpy", "y = a*x + y, 16M floats", 0, 20, NULL, saxpy_setup, saxpy_c, saxpy_gpu, saxpy_check, 1 << 24, {0}, {0}},
    {"vecadd", "c = a + b, 16M floats", 0, 20, NULL, vecadd_setup, vecadd_c, vecadd_gpu, vecadd_check, 1 << 24, {0}, {0}},
    {"stencil2d", "5-point, 4096x4096", 0, 10, NULL, stencil_setup, stencil_c, stencil_gpu, stencil_check, 4096, {0}, {0}},
    {"reduce_sum", "32M u32, 1024x256, bar.sync", 1, 10, NULL, reduce_setup, reduce_c, reduce_gpu, reduce_check, 1 << 25, {0}, {0}},
    {"matmul_tiled", "512x512, 16x16 smem tiles", 1, 3, NULL, matmul_setup, matmul_c, matmul_gpu, matmul_check, 512, {0}, {0}},
    {"wmma_gemm", "256x256 f16->f32, wmma m16n16k16", 0, 1, NULL, wmma_setup, matmul_c, wmma_gpu, wmma_check, 256, {0}, {0}},
    {"histogram", "32M u32, 256 bins, global atom", 0, 3, NULL, hist_setup, hist_c, hist_gpu, hist_check, 1 << 25, {0}, {0}},
    {"null_kernel", "16M threads doing nothing", 0, 20, NULL, null_setup, NULL, null_gpu, null_check, 1 << 24, {0}, {0}},
};

static double best_c(bench *b, unsigned t) {
    double best = 1e30;
    for (int trial = 0; trial < 3; trial++) {
        double s = now_s();
        for (int r = 0; r < b->reps; r++) b->c(b, t);
        double e = (now_s() - s) / b->reps;
        if (e < best) best = e;
    }
    return best;
}

static double best_gpu(bench *b) {
    double best = 1e30;
    for (int trial = 0; trial < 3; trial++) {
        double s = now_s();
        for (int r = 0; r < b->reps; r++) b->gpu(b);
        CK(cuCtxSynchronize());
        double e = (now_s() - s) / b->reps;
        if (e < best) best = e;
    }
    return best;
}

static unsigned workers_of_runtime(void) {
    /* the rule of the CPU runtime (driver-stub/cpu/cpu_pool.c default_threads) */
    const char *e = getenv("P2N_CPU_THREADS");
    if (e && atoi(e) >= 1) return (unsigned)atoi(e);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return (unsigned)CPU_COUNT(&set);
    return 1;
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = xmalloc((size_t)n + 1);
    if (fread(p, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(1); }
    p[n] = 0; /* PTX images are NUL-terminated text */
    fclose(f);
    *len = (size_t)n;
    return p;
}

int main(int argc, char **argv) {
    const char *module = P2N_BENCH_PTX, *only = NULL;
    double scale = 1.0;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--only=", 7) == 0) only = argv[i] + 7;
        else if (strncmp(argv[i], "--scale=", 8) == 0) scale = atof(argv[i] + 8);
        else if (strcmp(argv[i], "--cpu-time") == 0) bench_clock = CLOCK_PROCESS_CPUTIME_ID;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: bench-cpu [--only=NAME[,NAME]] [--scale=F] [--cpu-time] [MODULE.ptx|MODULE.so]\n");
            return 1;
        } else module = argv[i];
    }
    unsigned workers = workers_of_runtime();
    size_t len;
    char *image = read_file(module, &len);
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuCtxCreate(&ctx, NULL, 0, dev));
    double t = now_s();
    CK(cuModuleLoadData(&mod, image));
    t = now_s() - t;
    int is_ptx = len > 4 && strcmp(module + strlen(module) - 4, ".ptx") == 0;
    printf("module      %s (%zu bytes)\nload        %.1f ms (%s)\n"
           "workers     %u (C threaded runs use as many threads)\n\n",
           module, len, t * 1e3, is_ptx ? "in-process PTX compilation at the JIT's -O3" : "ELF object, no compilation",
           workers);
    printf("%-13s %-33s %9s %9s %9s %8s %8s\n", "kernel", "size", "C 1t ms", "C Nt ms", "ours ms", "C1/ours",
           "CN/ours");
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++) {
        bench *b = &benches[i];
        if (only && !strstr(only, b->name)) continue;
        b->reps = b->reps * scale < 1 ? 1 : (int)(b->reps * scale);
        CK(cuModuleGetFunction(&b->f, mod, b->name));
        b->setup(b);
        if (b->c) b->c(b, 1);
        b->gpu(b); /* warm-up launch: first-touch of the worker pool and stacks */
        CK(cuCtxSynchronize());
        b->check(b);
        if (!b->c) { /* diagnostic only */
            double g = best_gpu(b);
            printf("%-13s %-33s %9s %9s %9.2f   = %.2f ns per CUDA thread\n", b->name, b->what, "-", "-", g * 1e3,
                   g * 1e9 / (double)b->n);
            CK(cuMemFree(b->d[0]));
            continue;
        }
        double c1 = best_c(b, 1), cn = best_c(b, workers), g = best_gpu(b);
        printf("%-13s %-33s %9.2f %9.2f %9.2f %8.2f %8.2f%s\n", b->name, b->what, c1 * 1e3, cn * 1e3, g * 1e3,
               c1 / g, cn / g, b->barriers ? "  (barriers)" : "");
        fflush(stdout);
        for (int k = 0; k < 4; k++) {
            free(b->h[k]);
            if (b->d[k]) CK(cuMemFree(b->d[k]));
        }
    }
    CK(cuModuleUnload(mod));
    CK(cuCtxDestroy(ctx));
    free(image);
    return 0;
}
