/* reference.c — the computations of kernels.cu as ordinary C loops. Built at -O2 with the compiler's default
 * x86-64 baseline (see CMakeLists.txt): this is the "plain C" the CPU backend is measured against. */
#include "reference.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct {
    ref_range_fn fn;
    void *arg;
    unsigned t;
    long lo, hi;
} slice;

static void *slice_main(void *p) {
    slice *s = p;
    s->fn(s->arg, s->t, s->lo, s->hi);
    return NULL;
}

void ref_parallel(unsigned nthreads, long n, ref_range_fn fn, void *arg) {
    if (nthreads <= 1) {
        fn(arg, 0, 0, n);
        return;
    }
    if (nthreads > 64) nthreads = 64;
    slice s[64];
    pthread_t th[64];
    for (unsigned t = 0; t < nthreads; t++)
        s[t] = (slice){fn, arg, t, n * t / nthreads, n * (t + 1) / nthreads};
    /* creating the threads per call costs tens of microseconds, noise next to runs of many milliseconds */
    for (unsigned t = 1; t < nthreads; t++)
        if (pthread_create(&th[t], NULL, slice_main, &s[t]) != 0) abort();
    slice_main(&s[0]);
    for (unsigned t = 1; t < nthreads; t++) pthread_join(th[t], NULL);
}

void ref_saxpy(void *arg, unsigned t, long lo, long hi) {
    ref_saxpy_args *a = arg;
    for (long i = lo; i < hi; i++) a->y[i] = a->a * a->x[i] + a->y[i];
}

void ref_vecadd(void *arg, unsigned t, long lo, long hi) {
    ref_vecadd_args *a = arg;
    for (long i = lo; i < hi; i++) a->c[i] = a->a[i] + a->b[i];
}

void ref_stencil(void *arg, unsigned t, long lo, long hi) {
    ref_stencil_args *a = arg;
    int nx = a->nx, ny = a->ny;
    for (long y = lo; y < hi; y++) {
        const float *in = a->in + y * nx;
        float *out = a->out + y * nx;
        if (y == 0 || y == ny - 1) {
            for (int x = 0; x < nx; x++) out[x] = in[x];
            continue;
        }
        out[0] = in[0];
        for (int x = 1; x < nx - 1; x++)
            out[x] = 0.2f * (in[x] + in[x - 1] + in[x + 1] + in[x - nx] + in[x + nx]);
        out[nx - 1] = in[nx - 1];
    }
}

void ref_reduce(void *arg, unsigned t, long lo, long hi) {
    ref_reduce_args *a = arg;
    uint32_t s = 0;
    for (long i = lo; i < hi; i++) s += a->in[i];
    a->partial[t] = s;
}

void ref_matmul(void *arg, unsigned t, long lo, long hi) {
    ref_matmul_args *a = arg;
    int n = a->n;
    /* i-k-j order: the usual cache-friendly plain-C loop; k ascends as in the kernel's sum */
    for (long i = lo; i < hi; i++) {
        float *c = a->C + i * n;
        for (int j = 0; j < n; j++) c[j] = 0.0f;
        for (int k = 0; k < n; k++) {
            float aik = a->A[i * n + k];
            const float *b = a->B + (long)k * n;
            for (int j = 0; j < n; j++) c[j] += aik * b[j];
        }
    }
}

void ref_hist(void *arg, unsigned t, long lo, long hi) {
    ref_hist_args *a = arg;
    uint32_t *h = a->priv[t];
    for (int b = 0; b < 256; b++) h[b] = 0;
    for (long i = lo; i < hi; i++) h[a->in[i] & 255u]++;
}

void ref_hist_merge(ref_hist_args *a, unsigned nthreads) {
    for (unsigned t = 0; t < (nthreads ? nthreads : 1); t++)
        for (int b = 0; b < 256; b++) a->hist[b] += a->priv[t][b];
}
