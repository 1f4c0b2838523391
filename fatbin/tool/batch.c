/* batch.c — `ptx2native-fatbin rewrite`: many files, -j N compile threads, content-hash cache, JSON report. */
#include "tool.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef P2N_HAVE_COMPILER
#include "ptx2native.h"
#endif
#include "support.h"

static const char *build_id(void) {
#ifdef P2N_HAVE_COMPILER
    return p2n_build_id();
#else
    return "none";
#endif
}

typedef struct cctx {
    const char *cache_dir; /* NULL: no cache */
    size_t hits, misses;
} cctx;

static void cache_path(const cctx *c, const p2n_fb_compile_req *rq, char *out, size_t n) {
    char key[1024], hex[33];
    p2n_hash128_hex(rq->ptx_hash, hex);
    int k = snprintf(key, sizeof key, "p2n-cache-v1\n%s\n%s\nmaxrreg=%d fmad=%d O=%d g=%d\n%s\n", build_id(),
                     rq->target, rq->opts.max_reg_count, !rq->opts.no_fmad, rq->opts.opt_level, rq->opts.debug, hex);
    p2n_hash128 h = p2n_hash128_bytes(key, (size_t)k, 0x63616368ull);
    p2n_hash128_hex(h, hex);
    snprintf(out, n, "%s/%.2s/%s.bin", c->cache_dir, hex, hex + 2);
}

static int cli_compile(void *ctxv, const p2n_fb_compile_req *rq, uint8_t **out, size_t *out_len, char **diag) {
    cctx *c = ctxv;
    char path[4096];
    if (c->cache_dir) {
        cache_path(c, rq, path, sizeof path);
        struct stat st; /* a cached object is a regular file */
        if (!stat(path, &st) && S_ISREG(st.st_mode) && !p2n_read_file(path, out, out_len)) {
            __atomic_add_fetch(&c->hits, 1, __ATOMIC_RELAXED);
            return P2N_FB_OK;
        }
        __atomic_add_fetch(&c->misses, 1, __ATOMIC_RELAXED);
    }
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
    p2n_status st = p2n_compile(rq->ptx, rq->ptx_len, rq->name, &po, &res);
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
    if (rc == P2N_FB_OK && c->cache_dir) {
        char dir[4096], e[512];
        snprintf(dir, sizeof dir, "%s", path);
        if (!mkdir_p(dirname(dir))) (void)write_atomic(path, *out, *out_len, NULL, e, sizeof e);
    }
    return rc;
#else
    (void)out;
    (void)out_len;
    *diag = strdup("this ptx2native-fatbin was built without the compiler library (CMake target ptx2native_lib)");
    return P2N_FB_UNSUPPORTED;
#endif
}

typedef struct prog { const char *file; int on; } prog;
static void progress(void *pv, size_t done, size_t total) {
    prog *p = pv;
    if (!p->on) return;
    fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, p->file);
    if (done == total) fputc('\n', stderr);
}

static const char *status_name(int st) {
    switch (st) {
    case P2N_FB_OK: return "ok";
    case P2N_FB_UNSUPPORTED: return "unsupported";
    case P2N_FB_BAD_INPUT: return "failed";
    default: return "internal-error";
    }
}

int cmd_rewrite(int argc, char **argv) {
    const char *archs = NULL, *out = NULL, *report = NULL, *cache = NULL;
    int in_place = 0, jobs = 1, no_cache = 0;
    unsigned max_arch = 90;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "--offload-arch=", 15)) archs = a + 15;
        else if (!strcmp(a, "--offload-arch") && i + 1 < argc) archs = argv[++i];
        else if (!strcmp(a, "-o") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(a, "--in-place")) in_place = 1;
        else if (!strcmp(a, "-j") && i + 1 < argc) jobs = atoi(argv[++i]);
        else if (!strncmp(a, "-j", 2) && a[2]) jobs = atoi(a + 2);
        else if (!strncmp(a, "--cache-dir=", 12)) cache = a + 12;
        else if (!strcmp(a, "--cache-dir") && i + 1 < argc) cache = argv[++i];
        else if (!strcmp(a, "--no-cache")) no_cache = 1;
        else if (!strncmp(a, "--report=", 9)) report = a + 9;
        else if (!strncmp(a, "--ptx-arch-max=", 15)) max_arch = (unsigned)strtoul(a + 15, NULL, 10);
        else if (!strcmp(a, "-v")) g_verbose++;
        else if (a[0] == '-') {
            fprintf(stderr, "ptx2native-fatbin rewrite: unknown or incomplete option %s\n", a);
            free(files);
            return EXIT_BAD_INPUT;
        } else files[nfiles++] = argv[i];
    }
    if (!archs || !*archs || !nfiles || (in_place && out) || (!in_place && !out) || jobs < 1 || jobs > 256) {
        fprintf(stderr, "ptx2native-fatbin rewrite: need FILE..., --offload-arch=LIST and exactly one of -o OUT / "
                        "--in-place (-j 1..256)\n");
        free(files);
        return EXIT_BAD_INPUT;
    }
    /* targets */
    char *alist = strdup(archs);
    const char *targets[64];
    int nt = 0;
    for (char *sv, *t = strtok_r(alist, ",", &sv); t && nt < 63; t = strtok_r(NULL, ",", &sv))
        if (*t) targets[nt++] = t;
    targets[nt] = NULL;
    /* cache */
    char cachebuf[4096];
    if (!no_cache && !cache) {
        const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
        if (x && *x) snprintf(cachebuf, sizeof cachebuf, "%s/ptx2native", x);
        else if (h && *h) snprintf(cachebuf, sizeof cachebuf, "%s/.cache/ptx2native", h);
        else cachebuf[0] = 0;
        cache = cachebuf[0] ? cachebuf : NULL;
    }
    cctx cc = {.cache_dir = no_cache ? NULL : cache};
    input_list in;
    int ret = collect_inputs(files, nfiles, &in);
    free(files);
    int multi = in.n > 1 || (in.n == 1 && in.v[0].from_dir);
    if (out && multi) {
        struct stat st;
        if (mkdir_p(out) || stat(out, &st) || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "ptx2native-fatbin rewrite: with several inputs, -o must name a directory (%s)\n", out);
            free(alist);
            free_inputs(&in);
            return EXIT_BAD_INPUT;
        }
    }
    FILE *rep = NULL;
    char *repbuf = NULL;
    size_t replen = 0;
    if (report) rep = open_memstream(&repbuf, &replen);
    if (rep) fprintf(rep, "{\"tool\": \"ptx2native-fatbin\", \"build_id\": \"%s\", \"targets\": \"%s\", "
                          "\"ptx_arch_max\": %u, \"files\": [", build_id(), archs, max_arch);
    prog pg = {.on = isatty(2) && !g_verbose};
    size_t n_comp = 0, n_fail = 0, n_skip = 0;
    for (size_t fi = 0; fi < in.n; fi++) {
        const char *path = in.v[fi].path;
        char dest[8192];
        if (in_place) snprintf(dest, sizeof dest, "%s", path);
        else if (multi) snprintf(dest, sizeof dest, "%s/%s", out, in.v[fi].rel);
        else snprintf(dest, sizeof dest, "%s", out);
        p2n_fb_file f;
        char err[2048] = "";
        const char *status = "compiled", *reason = "";
        int rc = p2n_fb_open(path, &f, err, sizeof err);
        p2n_fb_rewrite_result rr;
        memset(&rr, 0, sizeof rr);
        if (rc) {
            status = "failed";
            reason = err;
            fprintf(stderr, "ptx2native-fatbin: error: %s\n", err);
        } else if (f.kind != P2N_FB_FILE_ELF) {
            status = "skipped";
            reason = "static archive or raw container: not rewritten (rewrite the linked executable or library)";
        } else {
            size_t with_ptx = 0;
            for (size_t i = 0; i < f.n_containers; i++) with_ptx += p2n_fb_select_ptx(&f.containers[i], ~0u, NULL) >= 0;
            if (!with_ptx) {
                status = "skipped";
                reason = f.n_containers ? "SASS-only: no container carries PTX" : "no fatbin container";
            }
        }
        if (!strcmp(status, "skipped") && g_verbose) printf("%s: skipped: %s\n", path, reason);
        if (!strcmp(status, "compiled")) {
            pg.file = path;
            p2n_fb_rewrite_opts o = {.targets = targets, .max_ptx_arch = max_arch, .build_id = build_id(),
                                     .compile = cli_compile, .compile_ctx = &cc, .jobs = jobs,
                                     .progress = progress, .progress_ctx = &pg};
            rc = p2n_native_rewrite(&f, &o, &rr, err, sizeof err);
            for (size_t j = 0; j < rr.n_jobs; j++) {
                const p2n_fb_job_result *jr = &rr.jobs[j];
                const p2n_fb_container *c = &f.containers[jr->container];
                char arch[24];
                p2n_fb_arch_name(&c->entries[jr->ptx_entry], arch, sizeof arch);
                if (g_verbose && (j == 0 || rr.jobs[j - 1].container != jr->container))
                    printf("%s: container %u (section %s, offset 0x%llx): using %s PTX (%s sm_%u)\n", path,
                           jr->container, c->section, (unsigned long long)c->file_offset, arch,
                           jr->ptx_above_max ? "none <=, lowest above" : "highest <=", max_arch);
                if (jr->status != P2N_FB_OK)
                    fprintf(stderr, "ptx2native-fatbin: %s: container %u (section %s, offset 0x%llx): %s PTX -> %s: %s%s%s\n",
                            path, jr->container, c->section, (unsigned long long)c->file_offset, arch, jr->target,
                            status_name(jr->status), jr->diag ? ": " : "", jr->diag ? jr->diag : "");
            }
            if (rc) {
                status = "failed";
                reason = err;
                fprintf(stderr, "ptx2native-fatbin: error: %s\n", err);
            } else {
                char dd[8192];
                snprintf(dd, sizeof dd, "%s", dest);
                if (multi && !in_place) mkdir_p(dirname(dd));
                if (write_atomic(dest, rr.data, rr.size, path, err, sizeof err)) {
                    fprintf(stderr, "ptx2native-fatbin: error: %s\n", err);
                    status = "failed";
                    reason = err;
                    rc = P2N_FB_INTERNAL;
                } else if (g_verbose) {
                    printf("%s: wrote %s (%zu modules x %d targets, %zu SASS-only containers skipped)\n", path, dest,
                           rr.n_jobs / (size_t)(nt ? nt : 1), nt, rr.n_skipped_no_ptx);
                }
            }
        }
        if (!strcmp(status, "compiled")) n_comp++;
        else if (!strcmp(status, "skipped")) n_skip++;
        else {
            n_fail++;
            int e = rc == P2N_FB_INTERNAL ? EXIT_INTERNAL : EXIT_BAD_INPUT;
            if (e > ret) ret = e;
        }
        if (rep) {
            fprintf(rep, "%s\n  {\"file\": ", fi ? "," : "");
            json_str(rep, path, strlen(path));
            fprintf(rep, ", \"status\": \"%s\", \"reason\": ", status);
            json_str(rep, reason, strlen(reason));
            fprintf(rep, ", \"output\": ");
            if (!strcmp(status, "compiled")) json_str(rep, dest, strlen(dest));
            else fprintf(rep, "null");
            fprintf(rep, ", \"containers\": %zu, \"containers_with_ptx\": %zu, \"sass_only\": %zu, \"modules\": [",
                     f.n_containers, rr.n_with_ptx, rr.n_skipped_no_ptx);
            for (size_t j = 0; j < rr.n_jobs; j++) {
                const p2n_fb_job_result *jr = &rr.jobs[j];
                char arch[24];
                p2n_fb_arch_name(&f.containers[jr->container].entries[jr->ptx_entry], arch, sizeof arch);
                fprintf(rep, "%s\n    {\"container\": %u, \"section\": ", j ? "," : "", jr->container);
                json_str(rep, f.containers[jr->container].section, strlen(f.containers[jr->container].section));
                fprintf(rep, ", \"ptx_arch\": \"%s\", \"ptx_above_max\": %s, \"target\": ", arch,
                        jr->ptx_above_max ? "true" : "false");
                json_str(rep, jr->target, strlen(jr->target));
                fprintf(rep, ", \"status\": \"%s\", \"diagnostic\": ", status_name(jr->status));
                json_str(rep, jr->diag ? jr->diag : "", jr->diag ? strlen(jr->diag) : 0);
                fprintf(rep, "}");
            }
            fprintf(rep, "]}");
        }
        p2n_fb_rewrite_result_free(&rr);
        p2n_fb_close(&f);
    }
    if (rep) {
        fprintf(rep, "\n], \"compiled\": %zu, \"failed\": %zu, \"skipped\": %zu, \"cache_hits\": %zu, "
                     "\"cache_misses\": %zu}\n", n_comp, n_fail, n_skip, cc.hits, cc.misses);
        fclose(rep);
        char err[1024];
        if (write_atomic(report, repbuf, replen, NULL, err, sizeof err)) {
            fprintf(stderr, "ptx2native-fatbin: error: %s\n", err);
            if (ret < EXIT_INTERNAL) ret = EXIT_INTERNAL;
        }
        free(repbuf);
    }
    if (g_verbose || in.n > 1)
        printf("rewrite: %zu compiled, %zu failed, %zu skipped (cache: %zu hits, %zu misses)\n", n_comp, n_fail,
               n_skip, cc.hits, cc.misses);
    free(alist);
    free_inputs(&in);
    return ret;
}
