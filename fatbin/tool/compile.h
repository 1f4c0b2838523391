/* compile.h — the compile callback of `rewrite`: run-wide reuse of identical modules, the on-disk cache, then
 * the compiler (compile.c). */
#ifndef P2N_FATBIN_COMPILE_H
#define P2N_FATBIN_COMPILE_H

#include "p2n_fatbin.h"

#include <pthread.h>
#include <stddef.h>

/* A module compiled earlier in this run: same PTX bytes, options, target and compiler build. */
typedef struct memo_entry {
    p2n_hash128 key;
    char *file;          /* where it was first compiled */
    unsigned container;
    int status;
    char *diag;
    uint8_t *out;        /* NULL when over the memory budget (then only its place is remembered) */
    size_t out_len;
} memo_entry;

/* A (container, target) of the current file that reused memo entry `entry`. */
typedef struct memo_hit { unsigned container; const char *target; size_t entry; } memo_hit;

typedef struct cctx {
    const char *cache_dir; /* NULL: no cache */
    size_t hits, misses;   /* on-disk cache */
    pthread_mutex_t mu;
    const char *file;      /* the file being rewritten (memo entries record it) */
    memo_entry *memo;
    size_t n_memo, cap_memo, memo_bytes;
    memo_hit *fhits;       /* hits of the current file; reset by cctx_begin_file */
    size_t n_fhits, cap_fhits;
    size_t n_dedup;        /* (module, target) results reused in this run */
} cctx;

void cctx_init(cctx *c, const char *cache_dir);
void cctx_begin_file(cctx *c, const char *file);
/* The memo entry a (container, target) of the current file reused, or NULL. */
const memo_entry *cctx_reused(const cctx *c, unsigned container, const char *target);
void cctx_free(cctx *c);

int cli_compile(void *ctxv, const p2n_fb_compile_req *rq, uint8_t **out, size_t *out_len, char **diag);
const char *cli_build_id(void);

#endif
