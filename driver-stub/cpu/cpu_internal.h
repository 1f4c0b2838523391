/* cpu_internal.h — private declarations shared by the CPU backend's source files (not part of the API the
 * driver stub sees; tests may use the hooks at the end). */
#ifndef P2N_CPU_INTERNAL_H
#define P2N_CPU_INTERNAL_H

#include "cpu_backend.h"
#include "host_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cpu_kernel {
    struct cpu_module *module;
    const p2n_kernel_desc *desc; /* fields up to `flags` (a version 1 object has no block_entry) */
    void (*block_entry)(const uint8_t *params, p2n_thread_ctx *ctx); /* NULL: fibers only */
    void (*coro_entry)(const uint8_t *params, p2n_thread_ctx *ctx);  /* NULL: no coroutine entry (version 4) */
    int own_smem_valid; /* desc->own_smem_bytes exists (version 5) */
    bool fiber_stub;    /* P2N_KERNEL_FIBER_STUB: desc->entry only traps; block_entry or coro_entry is the way */
    bool way_noted;     /* the notice that a P2N_CPU_* way is not in the object was printed (cpu_note_fast_only) */
};

/* A P2N_CPU_THREADLOOP/CORO/WORK_ITEM_LOOPS=0 that asked kernel k for an entry its object was built without
 * (ptx2native --host-entries=fast): one line on stderr per kernel and process. */
void cpu_note_fast_only(struct cpu_kernel *k, const char *var);

struct cpu_module {
    void *handle; /* dlopen handle */
    int fd;       /* the memfd the instance was loaded from; kept open while loaded (keeps /proc/self/fd/N unique) */
    const p2n_module_desc *desc;
    struct cpu_kernel *kernels;
    uint32_t nkernels;
};

/* The runtime function table every loaded code object gets in __p2n_rt. */
extern const p2n_rt_table p2n_cpu_rt_table;

/* Growable text buffer (printf output). */
typedef struct p2n_buf {
    char *data;
    size_t len, cap;
} p2n_buf;
int p2n_buf_reserve(p2n_buf *b, size_t extra); /* 0 on success */
void p2n_buf_append(p2n_buf *b, const char *s, size_t n);

/* CUDA's device printf: `format` plus the packed argument buffer (every argument at its natural alignment,
 * integers narrower than int promoted to 4 bytes, floats passed as double, %s/%p as 8-byte pointers).
 * Appends the text to `out`; returns the number of arguments consumed, or -1 for a NULL format. */
int p2n_format_printf(p2n_buf *out, const char *format, const void *args);

/* Warp matrix operations (cpu_matrix.c): p2n_matrix_compute runs a collective operation for a whole warp
 * (io[lane] = the lane's operand block, NULL for a lane that has exited); p2n_matrix_lane runs a lane-local one
 * (wmma.load / wmma.store). */
void p2n_matrix_compute(uint32_t op, uint32_t *io[32]);
void p2n_matrix_lane(uint32_t op, uint32_t *io, uint32_t lane);
/* the generic forms (cpu_mma.c, mx_forms.h); false for another kind */
bool p2n_mma_compute(uint32_t op, uint32_t *io[32]);
bool p2n_mma_lane(uint32_t op, uint32_t *io, uint32_t lane);
/* the tensor-core (HMMA) f32 result c + sum a[k] b[k]; emin: the inputs' least exponent (mx_forms.h, cpu_mma.c) */
float p2n_tc_dot_f32(float c, const float *a, const float *b, unsigned n, int emin);
void p2n_tc_gemm_f32(unsigned m, unsigned n, unsigned k, const float *A, const float *B, const float *C, float *D,
                     int emin);

/* ---- hooks for tests and tools ---- */
/* Number of worker threads for the next launches: 0 = default (P2N_CPU_THREADS, else the number of CPUs). */
void p2n_cpu_set_threads(unsigned n);
/* Number of workers the last launch used. */
unsigned p2n_cpu_threads_in_use(void);

#endif
