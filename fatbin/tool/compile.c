/* compile.c — compiling one (module, target) for `rewrite`.
 *
 * Identical modules are compiled once per run: the key is the on-disk cache's (compiler build, target,
 * options, PTX hash), so two containers with the same PTX and options, in one file or in many (the same
 * library shipped twice in a tree, a kernel header included by every TU), share one compilation, whether or
 * not the disk cache is on. Failures are remembered too: a module that does not compile is not retried for
 * every copy. Results are kept in memory up to MEMO_BUDGET; past it the disk cache (when on) still helps. */
#include "compile.h"
#include "tool.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef P2N_HAVE_COMPILER
#include "ptx2native.h"
#endif
#include "support.h"

#define MEMO_BUDGET ((size_t)512 << 20)

const char *cli_build_id(void) {
#ifdef P2N_HAVE_COMPILER
    return p2n_build_id();
#else
    return "none";
#endif
}

static p2n_hash128 module_key(const p2n_fb_compile_req *rq) {
    char key[1024], hex[33];
    p2n_hash128_hex(rq->ptx_hash, hex);
    int k = snprintf(key, sizeof key, "p2n-cache-v1\n%s\n%s\nmaxrreg=%d fmad=%d O=%d g=%d\n%s\n", cli_build_id(),
                     rq->target, rq->opts.max_reg_count, !rq->opts.no_fmad, rq->opts.opt_level, rq->opts.debug, hex);
    if (k >= (int)sizeof key) k = (int)sizeof key - 1;
    return p2n_hash128_bytes(key, (size_t)k, 0x63616368ull);
}

static void cache_path(const cctx *c, p2n_hash128 key, char *out, size_t n) {
    char hex[33];
    p2n_hash128_hex(key, hex);
    snprintf(out, n, "%s/%.2s/%s.bin", c->cache_dir, hex, hex + 2);
}

void cctx_init(cctx *c, const char *cache_dir) {
    memset(c, 0, sizeof *c);
    c->cache_dir = cache_dir;
    pthread_mutex_init(&c->mu, NULL);
}

void cctx_begin_file(cctx *c, const char *file) {
    pthread_mutex_lock(&c->mu);
    c->file = file;
    c->n_fhits = 0;
    pthread_mutex_unlock(&c->mu);
}

const memo_entry *cctx_reused(const cctx *c, unsigned container, const char *target) {
    for (size_t i = 0; i < c->n_fhits; i++)
        if (c->fhits[i].container == container && !strcmp(c->fhits[i].target, target))
            return &c->memo[c->fhits[i].entry];
    return NULL;
}

void cctx_free(cctx *c) {
    for (size_t i = 0; i < c->n_memo; i++) {
        free(c->memo[i].file);
        free(c->memo[i].diag);
        free(c->memo[i].out);
    }
    free(c->memo);
    free(c->fhits);
    pthread_mutex_destroy(&c->mu);
}

static long memo_find(const cctx *c, p2n_hash128 key) {
    for (size_t i = 0; i < c->n_memo; i++)
        if (c->memo[i].key.lo == key.lo && c->memo[i].key.hi == key.hi) return (long)i;
    return -1;
}

/* caller holds c->mu. Returns 1 when the memo answered (outputs set). */
static int memo_reuse(cctx *c, p2n_hash128 key, const p2n_fb_compile_req *rq, uint8_t **out, size_t *out_len,
                      char **diag, int *status) {
    long i = memo_find(c, key);
    if (i < 0) return 0;
    memo_entry *e = &c->memo[i];
    if (e->status == P2N_FB_OK && !e->out) return 0; /* place only, bytes over budget */
    if (c->n_fhits == c->cap_fhits) {
        size_t cap = c->cap_fhits ? c->cap_fhits * 2 : 16;
        memo_hit *nh = realloc(c->fhits, cap * sizeof *nh);
        if (!nh) return 0;
        c->fhits = nh;
        c->cap_fhits = cap;
    }
    *status = e->status;
    if (e->status == P2N_FB_OK) {
        *out = malloc(e->out_len ? e->out_len : 1);
        if (!*out) return 0;
        memcpy(*out, e->out, e->out_len);
        *out_len = e->out_len;
    } else if (e->diag) *diag = strdup(e->diag);
    c->fhits[c->n_fhits++] = (memo_hit){rq->container, rq->target, (size_t)i};
    c->n_dedup++;
    return 1;
}

/* caller holds c->mu */
static void memo_add(cctx *c, p2n_hash128 key, const p2n_fb_compile_req *rq, int status, const uint8_t *out,
                     size_t out_len, const char *diag) {
    if (memo_find(c, key) >= 0) return; /* a parallel job got there first */
    if (c->n_memo == c->cap_memo) {
        size_t cap = c->cap_memo ? c->cap_memo * 2 : 64;
        memo_entry *nm = realloc(c->memo, cap * sizeof *nm);
        if (!nm) return;
        c->memo = nm;
        c->cap_memo = cap;
    }
    memo_entry *e = &c->memo[c->n_memo];
    memset(e, 0, sizeof *e);
    e->key = key;
    e->file = strdup(c->file ? c->file : "");
    e->container = rq->container;
    e->status = status;
    e->diag = diag ? strdup(diag) : NULL;
    if (status == P2N_FB_OK && c->memo_bytes + out_len <= MEMO_BUDGET && (e->out = malloc(out_len ? out_len : 1))) {
        memcpy(e->out, out, out_len);
        e->out_len = out_len;
        c->memo_bytes += out_len;
    }
    c->n_memo++;
}

static int compile_now(const p2n_fb_compile_req *rq, uint8_t **out, size_t *out_len, char **diag) {
#ifdef P2N_HAVE_COMPILER
    p2n_options po;
    memset(&po, 0, sizeof po);
    po.arch = rq->target;
    po.opt_level = rq->opts.opt_level >= 0 ? rq->opts.opt_level : 3;
    po.emit = P2N_EMIT_OBJ;
    po.verbose = 0;
    po.max_reg_count = rq->opts.max_reg_count;
    po.no_fmad = rq->opts.no_fmad;
    p2n_result res;
    memset(&res, 0, sizeof res);
    p2n_status st;
    if (rq->nlinked) { /* a device link: the relocatable PTX compiled linked, as the driver stub does */
        /* and, as the stub does, a kernel of it that the target cannot run becomes one that fails at launch
         * naming the instruction (a warning here): libcudadevrt, in every such link, has kernels of that kind */
        po.defer_unsupported = 1;
        p2n_input *in = calloc(rq->nlinked, sizeof *in);
        if (!in) return P2N_FB_INTERNAL;
        for (size_t i = 0; i < rq->nlinked; i++) in[i] = (p2n_input){rq->linked[i].ptx, rq->linked[i].len, rq->linked[i].name};
        st = p2n_compile_linked(in, (unsigned)rq->nlinked, &po, &res);
        free(in);
    } else {
        st = p2n_compile(rq->ptx, rq->ptx_len, rq->name, &po, &res);
    }
    int rc = st == P2N_OK ? P2N_FB_OK : st == P2N_UNSUPPORTED ? P2N_FB_UNSUPPORTED
           : st == P2N_BAD_INPUT ? P2N_FB_BAD_INPUT : P2N_FB_INTERNAL;
    if (res.diagnostics && res.diagnostics[0]) {
        *diag = strdup(res.diagnostics);
        size_t dl = *diag ? strlen(*diag) : 0;
        while (dl && ((*diag)[dl - 1] == '\n' || (*diag)[dl - 1] == ' ')) (*diag)[--dl] = 0;
    }
    if (rc == P2N_FB_OK) {
        *out = malloc(res.size ? res.size : 1);
        if (!*out) rc = P2N_FB_INTERNAL;
        else {
            memcpy(*out, res.data, res.size);
            *out_len = res.size;
        }
    }
    p2n_result_free(&res);
    return rc;
#else
    (void)rq;
    (void)out;
    (void)out_len;
    *diag = strdup("this ptx2native-fatbin was built without the compiler library (CMake target ptx2native_lib)");
    return P2N_FB_UNSUPPORTED;
#endif
}

int cli_compile(void *ctxv, const p2n_fb_compile_req *rq, uint8_t **out, size_t *out_len, char **diag) {
    cctx *c = ctxv;
    p2n_hash128 key = module_key(rq);
    int status = P2N_FB_OK;
    pthread_mutex_lock(&c->mu);
    int reused = memo_reuse(c, key, rq, out, out_len, diag, &status);
    pthread_mutex_unlock(&c->mu);
    if (reused) return status;
    char path[4096];
    int rc = -1;
    if (c->cache_dir) {
        cache_path(c, key, path, sizeof path);
        struct stat st; /* a cached object is a regular file */
        if (!stat(path, &st) && S_ISREG(st.st_mode) && !p2n_read_file(path, out, out_len)) {
            __atomic_add_fetch(&c->hits, 1, __ATOMIC_RELAXED);
            rc = P2N_FB_OK;
        } else __atomic_add_fetch(&c->misses, 1, __ATOMIC_RELAXED);
    }
    if (rc < 0) {
        rc = compile_now(rq, out, out_len, diag);
        if (rc == P2N_FB_OK && c->cache_dir) {
            char dir[4096], e[512];
            snprintf(dir, sizeof dir, "%s", path);
            if (!mkdir_p(dirname(dir))) (void)write_atomic(path, *out, *out_len, NULL, e, sizeof e);
        }
    }
    pthread_mutex_lock(&c->mu);
    memo_add(c, key, rq, rc, rc == P2N_FB_OK ? *out : NULL, rc == P2N_FB_OK ? *out_len : 0, *diag);
    pthread_mutex_unlock(&c->mu);
    return rc;
}
