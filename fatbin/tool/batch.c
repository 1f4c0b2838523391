/* batch.c — `ptx2native-fatbin rewrite`: many files or whole trees, -j N compile threads, reuse of identical
 * modules, content-hash cache, --keep-going, progress, JSON report. */
#include "compile.h"
#include "progress.h"
#include "tool.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct run {
    const char *out, *archs;
    int in_place, multi, keep_going, jobs;
    unsigned max_arch;
    const char *targets[64];
    int nt;
    cctx cc;
    progress pg;
    FILE *rep, *missing; /* report: files array, and the "missing" array built beside it */
    size_t n_files_rep, n_missing;
    size_t n_comp, n_partial, n_fail, n_skip, n_copied, n_links, n_dirs, n_dup_in_file;
    int ret;
} run;

static const char *status_name(int st) {
    switch (st) {
    case P2N_FB_OK: return "ok";
    case P2N_FB_UNSUPPORTED: return "unsupported";
    case P2N_FB_BAD_INPUT: return "failed";
    default: return "internal-error";
    }
}

static void set_ret(run *r, int e) {
    if (e > r->ret) r->ret = e;
}

static void jstr(FILE *o, const char *s) { json_str(o, s ? s : "", s ? strlen(s) : 0); }

/* one element of "missing": what has no native code (container < 0: the whole file) */
static void add_missing(run *r, const char *file, long container, const char *section, const char *target,
                        const char *status, const char *diag) {
    if (!r->missing) return;
    fprintf(r->missing, "%s\n  {\"file\": ", r->n_missing++ ? "," : "");
    jstr(r->missing, file);
    if (container < 0) fprintf(r->missing, ", \"container\": null, \"section\": null, \"target\": null");
    else {
        fprintf(r->missing, ", \"container\": %ld, \"section\": ", container);
        jstr(r->missing, section);
        fprintf(r->missing, ", \"target\": ");
        jstr(r->missing, target);
    }
    fprintf(r->missing, ", \"status\": \"%s\", \"diagnostic\": ", status);
    jstr(r->missing, diag);
    fprintf(r->missing, "}");
}

static void module_json(FILE *o, int first, const p2n_fb_file *f, unsigned container, int ptx_entry, int above,
                        const char *target, int status, const char *diag, const char *same_file, long same_cont) {
    const p2n_fb_container *c = &f->containers[container];
    char arch[24];
    p2n_fb_arch_name(&c->entries[ptx_entry], arch, sizeof arch);
    fprintf(o, "%s\n    {\"container\": %u, \"section\": ", first ? "" : ",", container);
    jstr(o, c->section);
    fprintf(o, ", \"ptx_arch\": \"%s\", \"ptx_above_max\": %s, \"target\": ", arch, above ? "true" : "false");
    jstr(o, target);
    fprintf(o, ", \"status\": \"%s\", \"diagnostic\": ", status_name(status));
    jstr(o, diag);
    fprintf(o, ", \"same_as\": ");
    if (same_file) {
        fprintf(o, "{\"file\": ");
        jstr(o, same_file);
        fprintf(o, ", \"container\": %ld}", same_cont);
    } else fprintf(o, "null");
    fprintf(o, "}");
}

/* The modules of one file: every job, plus containers the library did not compile because an earlier
 * container of the file has the same bytes (reported with same_as), and relocatable containers. */
static void report_modules(run *r, const p2n_fb_file *f, const p2n_fb_rewrite_result *rr, const char *path) {
    FILE *o = r->rep;
    int first = 1;
    for (size_t j = 0; j < rr->n_jobs; j++) {
        const p2n_fb_job_result *jr = &rr->jobs[j];
        const memo_entry *m = cctx_reused(&r->cc, jr->container, jr->target);
        if (o) module_json(o, first, f, jr->container, jr->ptx_entry, jr->ptx_above_max, jr->target, jr->status,
                           jr->diag, m ? m->file : NULL, m ? (long)m->container : -1);
        first = 0;
        if (jr->status != P2N_FB_OK)
            add_missing(r, path, jr->container, f->containers[jr->container].section, jr->target,
                        status_name(jr->status), jr->diag);
    }
    for (size_t i = 0; i < f->n_containers; i++) {
        const p2n_fb_container *c = &f->containers[i];
        int above = 0, sel = p2n_fb_select_ptx(c, r->max_arch, &above);
        if (sel < 0 || p2n_fb_container_is_relocatable(c)) continue;
        int is_job = 0;
        for (size_t j = 0; j < rr->n_jobs && !is_job; j++) is_job = rr->jobs[j].container == i;
        if (is_job) continue;
        p2n_hash128 h = p2n_hash128_bytes(c->data, c->size, 0);
        for (size_t j = 0; j < rr->n_jobs; j++) {
            const p2n_fb_job_result *jr = &rr->jobs[j];
            const p2n_fb_container *k = &f->containers[jr->container];
            p2n_hash128 hk = p2n_hash128_bytes(k->data, k->size, 0);
            if (hk.lo != h.lo || hk.hi != h.hi || k->size != c->size) continue;
            if (o) module_json(o, first, f, (unsigned)i, sel, above, jr->target, jr->status, jr->diag, path,
                               (long)jr->container);
            first = 0;
            r->n_dup_in_file++;
            if (jr->status != P2N_FB_OK)
                add_missing(r, path, (long)i, c->section, jr->target, status_name(jr->status), jr->diag);
        }
    }
    if (!o) return;
    fprintf(o, "], \"jit_at_run_time\": [");
    first = 1;
    for (size_t i = 0; i < f->n_containers; i++) {
        const p2n_fb_container *c = &f->containers[i];
        if (p2n_fb_select_ptx(c, ~0u, NULL) < 0 || !p2n_fb_container_is_relocatable(c)) continue;
        if (rr->n_linked) continue; /* compiled as the device link's module */
        fprintf(o, "%s\n    {\"container\": %zu, \"section\": ", first ? "" : ",", i);
        jstr(o, c->section);
        fprintf(o, ", \"reason\": \"" P2N_FB_RDC_NOTE "\"}");
        first = 0;
    }
    fprintf(o, "]");
}

/* Rewrites (or skips, or copies) one ELF file / archive to dest. */
static void rewrite_one(run *r, const input *in, const char *dest) {
    const char *path = in->path;
    p2n_fb_file f;
    char err[2048] = "", werr[2048] = "";
    const char *status = "compiled", *reason = "";
    p2n_fb_rewrite_result rr;
    memset(&rr, 0, sizeof rr);
    size_t with_ptx = 0, n_reloc = 0;
    cctx_begin_file(&r->cc, path);
    progress_file_start(&r->pg, path);
    int rc = p2n_fb_open(path, &f, err, sizeof err);
    if (rc) {
        status = "failed";
        reason = err;
        fprintf(stderr, "ptx2native-fatbin: error: %s\n", err);
    } else if (f.kind != P2N_FB_FILE_ELF) {
        status = "skipped";
        reason = "static archive or raw container: not rewritten (rewrite the linked executable or library)";
    } else {
        for (size_t i = 0; i < f.n_containers; i++) {
            if (p2n_fb_select_ptx(&f.containers[i], ~0u, NULL) < 0) continue;
            if (p2n_fb_container_is_relocatable(&f.containers[i])) n_reloc++;
            else with_ptx++;
        }
        if (!with_ptx && !(n_reloc && p2n_fb_linked_container(&f) >= 0)) { /* else: the device link is compiled */
            status = "skipped";
            reason = n_reloc ? "relocatable device code only (nvcc -rdc=true): " P2N_FB_RDC_NOTE
                   : f.n_containers ? "SASS-only: no container carries PTX" : "no fatbin container";
        }
    }
    if (!strcmp(status, "skipped") && g_verbose) printf("%s: skipped: %s\n", path, reason);
    int wrote = 0;
    if (!strcmp(status, "compiled")) {
        p2n_fb_rewrite_opts o = {.targets = r->targets, .max_ptx_arch = r->max_arch, .build_id = cli_build_id(),
                                 .compile = cli_compile, .compile_ctx = &r->cc, .jobs = r->jobs,
                                 .progress = progress_module_done, .progress_ctx = &r->pg,
                                 .keep_going = r->keep_going};
        rc = p2n_native_rewrite(&f, &o, &rr, err, sizeof err);
        for (size_t j = 0; j < rr.n_jobs; j++) {
            const p2n_fb_job_result *jr = &rr.jobs[j];
            const p2n_fb_container *c = &f.containers[jr->container];
            char arch[24];
            p2n_fb_arch_name(&c->entries[jr->ptx_entry], arch, sizeof arch);
            if (g_verbose && (j == 0 || rr.jobs[j - 1].container != jr->container))
                printf("%s: container %u (section %s, offset 0x%llx): using %s PTX (%s sm_%u)\n", path,
                       jr->container, c->section, (unsigned long long)c->file_offset, arch,
                       jr->ptx_above_max ? "none <=, lowest above" : "highest <=", r->max_arch);
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
            if (rr.n_failed) {
                status = "partial";
                snprintf(werr, sizeof werr,
                         "%zu of %zu (module, target) compilations failed: written without their native code "
                         "(--keep-going); they are compiled at run time",
                         rr.n_failed, rr.n_jobs);
                reason = werr;
                fprintf(stderr, "ptx2native-fatbin: %s: %s\n", path, werr);
            }
            if (r->multi && !r->in_place && safe_parent(r->out, in->rel, 0, err, sizeof err)) rc = P2N_FB_INTERNAL;
            else if (write_atomic(dest, rr.data, rr.size, path, err, sizeof err)) rc = P2N_FB_INTERNAL;
            else wrote = 1;
            if (rc) {
                fprintf(stderr, "ptx2native-fatbin: error: %s\n", err);
                status = "failed";
                reason = err;
            } else if (g_verbose) {
                printf("%s: wrote %s (%zu modules x %d targets, %zu SASS-only containers skipped, %zu relocatable "
                       "compiled as one device link, %zu left to run time)\n", path, dest,
                       rr.n_jobs / (size_t)(r->nt ? r->nt : 1), r->nt, rr.n_skipped_no_ptx, rr.n_linked,
                       rr.n_relocatable - rr.n_linked);
            }
        }
    }
    int failed = !strcmp(status, "failed");
    /* a deployable tree (or, with --keep-going, a deployable file) has every file: unchanged ones run as before,
     * through the JIT */
    if (!r->in_place && (r->multi || r->keep_going) && (!strcmp(status, "skipped") || (failed && r->keep_going))) {
        char cerr[2048];
        if ((r->multi && safe_parent(r->out, in->rel, 0, cerr, sizeof cerr)) || copy_atomic(path, dest, cerr, sizeof cerr)) {
            fprintf(stderr, "ptx2native-fatbin: error: %s\n", cerr);
            set_ret(r, EXIT_INTERNAL);
        } else {
            wrote = 1;
            r->n_copied++;
        }
    }
    if (!strcmp(status, "compiled")) r->n_comp++;
    else if (!strcmp(status, "partial")) {
        r->n_partial++;
        set_ret(r, EXIT_BAD_INPUT);
    } else if (!strcmp(status, "skipped")) r->n_skip++;
    else {
        r->n_fail++;
        set_ret(r, rc == P2N_FB_INTERNAL ? EXIT_INTERNAL : EXIT_BAD_INPUT);
        add_missing(r, path, -1, NULL, NULL, "failed", reason);
    }
    if (r->rep) {
        fprintf(r->rep, "%s\n  {\"file\": ", r->n_files_rep++ ? "," : "");
        jstr(r->rep, path);
        fprintf(r->rep, ", \"status\": \"%s\", \"reason\": ", status);
        jstr(r->rep, reason);
        fprintf(r->rep, ", \"output\": ");
        if (wrote) jstr(r->rep, dest);
        else fprintf(r->rep, "null");
        fprintf(r->rep, ", \"unchanged\": %s", wrote && (failed || !strcmp(status, "skipped")) ? "true" : "false");
        fprintf(r->rep, ", \"containers\": %zu, \"containers_with_ptx\": %zu, \"sass_only\": %zu, \"relocatable\": %zu, "
                        "\"modules\": [", f.n_containers, with_ptx + n_reloc, rr.n_skipped_no_ptx, n_reloc);
    }
    report_modules(r, &f, &rr, path);
    if (r->rep) fprintf(r->rep, "}");
    p2n_fb_rewrite_result_free(&rr);
    p2n_fb_close(&f);
    progress_file_done(&r->pg, in->size);
}

/* Directories, plain files and links of a mirrored tree (-o OUT with a directory argument). */
static void carry_over(run *r, const input *in, const char *dest) {
    char err[8400];
    if (safe_parent(r->out, in->rel, in->kind == IN_DIR, err, sizeof err)) {
        fprintf(stderr, "ptx2native-fatbin: error: %s\n", err);
        set_ret(r, EXIT_INTERNAL);
        return;
    }
    int bad = 0;
    if (in->kind == IN_DIR) {
        struct stat st;
        errno = 0;
        /* owner rwx while filling it; the recorded mode is applied at the end */
        if (lstat(dest, &st) ? mkdir(dest, 0700) != 0 : !S_ISDIR(st.st_mode)) {
            snprintf(err, sizeof err, "%s: cannot create directory: %s", dest, errno ? strerror(errno) : "exists");
            bad = 1;
        } else r->n_dirs++;
    } else if (in->kind == IN_COPY) {
        if (!(bad = copy_atomic(in->path, dest, err, sizeof err))) r->n_copied++;
    } else if (!(bad = link_atomic(in, dest, err, sizeof err))) r->n_links++;
    if (bad) {
        fprintf(stderr, "ptx2native-fatbin: error: %s\n", err);
        set_ret(r, EXIT_INTERNAL);
    }
}

static int usage_error(const char *msg, const char *arg) {
    fprintf(stderr, "ptx2native-fatbin rewrite: %s%s\n", msg, arg ? arg : "");
    return EXIT_BAD_INPUT;
}

int cmd_rewrite(int argc, char **argv) {
    const char *report = NULL, *cache = NULL;
    int no_cache = 0, quiet = 0;
    run r;
    memset(&r, 0, sizeof r);
    r.jobs = 1;
    r.max_arch = 90;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "--offload-arch=", 15)) r.archs = a + 15;
        else if (!strcmp(a, "--offload-arch") && i + 1 < argc) r.archs = argv[++i];
        else if (!strcmp(a, "-o") && i + 1 < argc) r.out = argv[++i];
        else if (!strcmp(a, "--in-place")) r.in_place = 1;
        else if (!strcmp(a, "-j") && i + 1 < argc) r.jobs = atoi(argv[++i]);
        else if (!strncmp(a, "-j", 2) && a[2]) r.jobs = atoi(a + 2);
        else if (!strcmp(a, "-k") || !strcmp(a, "--keep-going")) r.keep_going = 1;
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) quiet = 1;
        else if (!strncmp(a, "--cache-dir=", 12)) cache = a + 12;
        else if (!strcmp(a, "--cache-dir") && i + 1 < argc) cache = argv[++i];
        else if (!strcmp(a, "--no-cache")) no_cache = 1;
        else if (!strncmp(a, "--report=", 9)) report = a + 9;
        else if (!strncmp(a, "--ptx-arch-max=", 15)) r.max_arch = (unsigned)strtoul(a + 15, NULL, 10);
        else if (!strcmp(a, "-v")) g_verbose++;
        else if (a[0] == '-') {
            free(files);
            return usage_error("unknown or incomplete option ", a);
        } else files[nfiles++] = argv[i];
    }
    if (!r.archs || !*r.archs || !nfiles || (r.in_place && r.out) || (!r.in_place && !r.out) || r.jobs < 1 ||
        r.jobs > 256) {
        free(files);
        return usage_error("need FILE..., --offload-arch=LIST and exactly one of -o OUT / --in-place (-j 1..256)",
                           NULL);
    }
    char *alist = strdup(r.archs);
    for (char *sv, *t = strtok_r(alist, ",", &sv); t && r.nt < 63; t = strtok_r(NULL, ",", &sv))
        if (*t) r.targets[r.nt++] = t;
    r.targets[r.nt] = NULL;
    char cachebuf[4096];
    if (!no_cache && !cache) {
        const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
        if (x && *x) snprintf(cachebuf, sizeof cachebuf, "%s/ptx2native", x);
        else if (h && *h) snprintf(cachebuf, sizeof cachebuf, "%s/.cache/ptx2native", h);
        else cachebuf[0] = 0;
        cache = cachebuf[0] ? cachebuf : NULL;
    }
    cctx_init(&r.cc, no_cache ? NULL : cache);
    r.multi = nfiles > 1;
    for (int i = 0; i < nfiles && !r.multi; i++) {
        struct stat st;
        r.multi = !stat(files[i], &st) && S_ISDIR(st.st_mode);
    }
    /* OUT first: a previous OUT inside an input directory (`rewrite . -o native`) must not be walked into */
    char *out_real = NULL;
    if (r.out && r.multi) {
        struct stat st;
        if (mkdir_p(r.out) || stat(r.out, &st) || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "ptx2native-fatbin rewrite: with several inputs or a directory, -o must name a directory "
                            "(%s)\n", r.out);
            free(alist);
            free(files);
            cctx_free(&r.cc);
            return EXIT_BAD_INPUT;
        }
        out_real = realpath(r.out, NULL);
    }
    input_list in;
    r.ret = collect_inputs(files, nfiles, !r.in_place, out_real, &in);
    free(files);
    free(out_real);
    char *repbuf = NULL, *missbuf = NULL;
    size_t replen = 0, misslen = 0;
    if (report) {
        r.rep = open_memstream(&repbuf, &replen);
        r.missing = open_memstream(&missbuf, &misslen);
    }
    if (r.rep) {
        fprintf(r.rep, "{\"tool\": \"ptx2native-fatbin\", \"build_id\": \"%s\", \"targets\": ", cli_build_id());
        jstr(r.rep, r.archs);
        fprintf(r.rep, ", \"ptx_arch_max\": %u, \"keep_going\": %s, \"files\": [", r.max_arch,
                r.keep_going ? "true" : "false");
    }
    size_t n_rw = 0;
    uint64_t bytes = 0;
    for (size_t i = 0; i < in.n; i++)
        if (in.v[i].kind == IN_REWRITE) n_rw++, bytes += in.v[i].size;
    progress_start(&r.pg, n_rw, bytes, quiet || g_verbose);
    for (size_t i = 0; i < in.n; i++) {
        const input *x = &in.v[i];
        char dest[8192];
        if (r.in_place) snprintf(dest, sizeof dest, "%s", x->path);
        else if (r.multi) snprintf(dest, sizeof dest, "%s/%s", r.out, x->rel);
        else snprintf(dest, sizeof dest, "%s", r.out);
        if (x->kind == IN_REWRITE) rewrite_one(&r, x, dest);
        else carry_over(&r, x, dest);
    }
    progress_finish(&r.pg);
    /* directory modes last: a read-only directory could not have been filled */
    for (size_t i = in.n; i-- > 0;)
        if (in.v[i].kind == IN_DIR && !r.in_place) {
            char dest[8192];
            snprintf(dest, sizeof dest, "%s/%s", r.out, in.v[i].rel);
            struct stat st;
            if (!lstat(dest, &st) && S_ISDIR(st.st_mode)) chmod(dest, in.v[i].mode);
        }
    size_t n_dedup = r.cc.n_dedup + r.n_dup_in_file;
    if (r.rep) {
        fclose(r.missing);
        fprintf(r.rep, "\n], \"missing\": [%s\n], \"compiled\": %zu, \"partial\": %zu, \"failed\": %zu, \"skipped\": %zu, "
                       "\"copied\": %zu, \"links\": %zu, \"deduplicated\": %zu, \"cache_hits\": %zu, "
                       "\"cache_misses\": %zu}\n",
                missbuf ? missbuf : "", r.n_comp, r.n_partial, r.n_fail, r.n_skip, r.n_copied, r.n_links, n_dedup,
                r.cc.hits, r.cc.misses);
        fclose(r.rep);
        char err[1024];
        if (write_atomic(report, repbuf, replen, NULL, err, sizeof err)) {
            fprintf(stderr, "ptx2native-fatbin: error: %s\n", err);
            set_ret(&r, EXIT_INTERNAL);
        }
        free(repbuf);
        free(missbuf);
    }
    if (g_verbose || in.n > 1)
        printf("rewrite: %zu compiled, %zu partial, %zu failed, %zu skipped, %zu copied, %zu links, %zu reused "
               "(cache: %zu hits, %zu misses)\n",
               r.n_comp, r.n_partial, r.n_fail, r.n_skip, r.n_copied, r.n_links, n_dedup, r.cc.hits, r.cc.misses);
    free(alist);
    free_inputs(&in);
    cctx_free(&r.cc);
    return r.ret;
}
