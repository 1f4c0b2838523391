/* reference.h — plain-C twins of kernels.cu (compiled at -O2 in reference.c) and a tiny fork/join helper
 * so the C side can use the same number of threads as the CPU runtime's worker pool. */
#ifndef P2N_BENCH_REFERENCE_H
#define P2N_BENCH_REFERENCE_H

#include <stdint.h>

/* Runs fn(arg, t, lo, hi) for t = 0..nthreads-1 over an even split of [0, n); thread 0 is the caller, so
 * nthreads = 1 is a plain call (no thread is created). */
typedef void (*ref_range_fn)(void *arg, unsigned t, long lo, long hi);
void ref_parallel(unsigned nthreads, long n, ref_range_fn fn, void *arg);

typedef struct { int n; float a; const float *x; float *y; } ref_saxpy_args;
typedef struct { int n; const float *a, *b; float *c; } ref_vecadd_args;
typedef struct { int nx, ny; const float *in; float *out; } ref_stencil_args;  /* ranges over rows */
typedef struct { int n; const uint32_t *in; uint32_t partial[64]; } ref_reduce_args; /* one slot a thread */
typedef struct { int n; const float *A, *B; float *C; } ref_matmul_args;      /* ranges over rows of C */
typedef struct { int n; const uint32_t *in; uint32_t *hist; uint32_t priv[64][256]; } ref_hist_args;

void ref_saxpy(void *arg, unsigned t, long lo, long hi);
void ref_vecadd(void *arg, unsigned t, long lo, long hi);
void ref_stencil(void *arg, unsigned t, long lo, long hi);
void ref_reduce(void *arg, unsigned t, long lo, long hi);
void ref_matmul(void *arg, unsigned t, long lo, long hi);
/* hist[b]++ into a private histogram per thread, merged by ref_hist_merge: what plain C does. (Shared atomic
 * increments, like the kernel, ran 25-50x slower on 2 threads here: the 16 cache lines of bins ping-pong.) */
void ref_hist(void *arg, unsigned t, long lo, long hi);
void ref_hist_merge(ref_hist_args *a, unsigned nthreads);

#endif
