/* fbtest.c — test driver for libp2n_fatbin.
 *   fbtest ptxcmp EXTRACTED.ptx REF.ptx      compare modulo fatbinary's comment blanking / indentation
 *   fbtest roundtrip FILE WORKDIR            rewrite (test compiler) -> verify -> idempotence -> strip == input
 *   fbtest corrupt IN OUT MODE               damage the first .nv_fatbin container (MODE: payload-size,
 *                                            fat-size, entry-version, zstd, header-size)
 *   fbtest fuzz FILE ITERATIONS              random damage + truncation; everything must fail cleanly
 *   fbtest unit                              hash / option parsing / lookup unit checks
 *   fbtest keepgoing FILE                    one target fails: without keep_going no output; with it a section
 *                                            holding only the other targets, which verifies and looks up
 */
#include "p2n_fatbin.h"
#include "../tools/test_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;
#define CHECK(c, ...)                                                                                              \
    do {                                                                                                           \
        if (!(c)) {                                                                                                \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                   \
            fprintf(stderr, __VA_ARGS__);                                                                          \
            fputc('\n', stderr);                                                                                   \
            fails++;                                                                                               \
        }                                                                                                          \
    } while (0)

static uint8_t *slurp(const char *p, size_t *n) { return (uint8_t *)test_read_file(p, n); }

static int spit(const char *p, const void *d, size_t n) {
    FILE *f = fopen(p, "wb");
    if (!f) return -1;
    int ok = fwrite(d, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* ---- ptxcmp ---- */
static char **norm_lines(char *t, size_t *n) {
    size_t cap = 64, k = 0;
    char **v = malloc(cap * sizeof *v);
    char *save = t;
    for (;;) {
        char *nl = strchr(save, '\n');
        if (nl) *nl = 0;
        char *s = save;
        while (*s == ' ' || *s == '\t') s++;
        size_t l = strlen(s);
        while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r')) s[--l] = 0;
        char *cm = strstr(s, "//"); /* fatbinary drops comments (whole lines and line ends) */
        if (cm) {
            *cm = 0;
            l = strlen(s);
            while (l && (s[l - 1] == ' ' || s[l - 1] == '\t')) s[--l] = 0;
        }
        /* fatbinary also turns runs of blanks into one space */
        char *w = s;
        for (char *r = s; *r; r++) {
            if (*r == ' ' || *r == '\t') {
                if (w > s && w[-1] == ' ') continue;
                *w++ = ' ';
            } else *w++ = *r;
        }
        *w = 0;
        if (k == cap) v = realloc(v, (cap *= 2) * sizeof *v);
        v[k++] = s;
        if (!nl) break;
        save = nl + 1;
    }
    while (k && !v[k - 1][0]) k--; /* trailing blank lines */
    *n = k;
    return v;
}

/* lines are compared after: leading/trailing blanks removed, `//` comments dropped, blank runs
 * collapsed, trailing empty lines dropped (fatbinary keeps the line count). */
static int ptxcmp(const char *a, const char *b) {
    size_t na, nb;
    uint8_t *ta = slurp(a, &na), *tb = slurp(b, &nb);
    if (!ta || !tb) {
        fprintf(stderr, "cannot read %s or %s\n", a, b);
        return 2;
    }
    size_t la, lb;
    char **va = norm_lines((char *)ta, &la), **vb = norm_lines((char *)tb, &lb);
    int rc = 0;
    if (la != lb) {
        fprintf(stderr, "%s: %zu lines, %s: %zu lines\n", a, la, b, lb);
        rc = 1;
    }
    for (size_t i = 0; i < la && i < lb; i++)
        if (strcmp(va[i], vb[i])) {
            fprintf(stderr, "line %zu differs:\n  %s\n  %s\n", i + 1, va[i], vb[i]);
            rc = 1;
            break;
        }
    free(va);
    free(vb);
    free(ta);
    free(tb);
    return rc;
}

/* ---- deterministic test compiler ---- */
static int test_compile(void *ctx, const p2n_fb_compile_req *rq, uint8_t **out, size_t *out_len, char **diag) {
    (void)ctx;
    (void)diag;
    char hex[33];
    p2n_hash128_hex(rq->ptx_hash, hex);
    char buf[512];
    int n = snprintf(buf, sizeof buf, "P2NTEST target=%s ptx=%s len=%zu maxrreg=%d nofmad=%d", rq->target, hex,
                     rq->ptx_len, rq->opts.max_reg_count, rq->opts.no_fmad);
    /* payload length depends on the PTX so that alignment paths are exercised */
    size_t len = (size_t)n + 1 + rq->ptx_len % 13;
    *out = calloc(1, len);
    memcpy(*out, buf, (size_t)n);
    *out_len = len;
    return P2N_FB_OK;
}

static int do_rewrite(const char *name, const uint8_t *d, size_t n, uint8_t **out, size_t *out_len, int jobs) {
    p2n_fb_file f;
    char err[2048];
    int rc = p2n_fb_load(name, d, n, &f, err, sizeof err);
    if (rc) {
        fprintf(stderr, "load %s: %s\n", name, err);
        p2n_fb_close(&f);
        return rc;
    }
    const char *targets[] = {"host", "gfx942", "spirv64", NULL};
    p2n_fb_rewrite_opts o = {.targets = targets, .max_ptx_arch = 90, .build_id = "fbtest-build",
                             .compile = test_compile, .jobs = jobs};
    p2n_fb_rewrite_result r;
    rc = p2n_native_rewrite(&f, &o, &r, err, sizeof err);
    if (rc) fprintf(stderr, "rewrite %s: %s\n", name, err);
    else {
        *out = r.data;
        *out_len = r.size;
        r.data = NULL;
        printf("%s: %zu containers, %zu with PTX, %zu compiled\n", name, r.n_containers, r.n_with_ptx, r.n_compiled);
    }
    p2n_fb_rewrite_result_free(&r);
    p2n_fb_close(&f);
    return rc;
}

/* the test compiler, except that target "spirv64" always fails */
static int failing_compile(void *ctx, const p2n_fb_compile_req *rq, uint8_t **out, size_t *out_len, char **diag) {
    if (!strcmp(rq->target, "spirv64")) {
        *diag = strdup("fbtest: spirv64 refused on purpose");
        return P2N_FB_UNSUPPORTED;
    }
    return test_compile(ctx, rq, out, out_len, diag);
}

static int keepgoing(const char *path) {
    size_t n;
    uint8_t *d = slurp(path, &n);
    if (!d) {
        fprintf(stderr, "cannot read %s\n", path);
        return 2;
    }
    p2n_fb_file f;
    char err[2048];
    CHECK(!p2n_fb_load(path, d, n, &f, err, sizeof err), "load: %s", err);
    const char *targets[] = {"host", "spirv64", "gfx942", NULL};
    p2n_fb_rewrite_opts o = {.targets = targets, .max_ptx_arch = 90, .build_id = "fbtest-build",
                             .compile = failing_compile, .jobs = 2};
    p2n_fb_rewrite_result r;
    int rc = p2n_native_rewrite(&f, &o, &r, err, sizeof err);
    CHECK(rc == P2N_FB_UNSUPPORTED && !r.data, "without keep_going: rc %d, data %p", rc, (void *)r.data);
    p2n_fb_rewrite_result_free(&r);
    o.keep_going = 1;
    rc = p2n_native_rewrite(&f, &o, &r, err, sizeof err);
    CHECK(rc == P2N_FB_OK && r.data, "with keep_going: rc %d: %s", rc, err);
    size_t modules = r.n_jobs / 3;
    CHECK(modules > 0 && r.n_failed == modules && r.n_compiled == 2 * modules, "jobs %zu, failed %zu, compiled %zu",
          r.n_jobs, r.n_failed, r.n_compiled);
    for (size_t j = 0; j < r.n_jobs; j++)
        CHECK((r.jobs[j].status == P2N_FB_OK) == !!strcmp(r.jobs[j].target, "spirv64") &&
                  (r.jobs[j].status == P2N_FB_OK || (r.jobs[j].diag && strstr(r.jobs[j].diag, "on purpose"))),
              "job %zu (%s): status %d", j, r.jobs[j].target, r.jobs[j].status);
    p2n_fb_file g;
    char *report = NULL;
    if (r.data && !p2n_fb_load("keepgoing", r.data, r.size, &g, err, sizeof err)) {
        CHECK(!p2n_native_verify(&g, "fbtest-build", &report, err, sizeof err), "verify: %s\n%s", err,
              report ? report : "");
        free(report);
        uint64_t so, sl;
        CHECK(p2n_native_find(r.data, r.size, &so, &sl) == 1, "no section");
        for (size_t i = 0; i < g.n_containers; i++) {
            const p2n_fb_container *c = &g.containers[i];
            if (p2n_fb_select_ptx(c, 90, NULL) < 0 || p2n_fb_container_is_relocatable(c)) continue;
            const uint8_t *pl;
            size_t pn;
            CHECK(p2n_native_lookup(r.data + so, sl, c->data, c->size, "host", &pl, &pn) &&
                      p2n_native_lookup(r.data + so, sl, c->data, c->size, "gfx942", &pl, &pn),
                  "container %zu: host or gfx942 missing", i);
            CHECK(!p2n_native_lookup(r.data + so, sl, c->data, c->size, "spirv64", &pl, &pn),
                  "container %zu: spirv64 present although it failed", i);
        }
        p2n_fb_close(&g);
    } else CHECK(0, "reload: %s", err);
    printf("keepgoing: %zu modules, %zu failed, %zu compiled\n", modules, r.n_failed, r.n_compiled);
    p2n_fb_rewrite_result_free(&r);
    p2n_fb_close(&f);
    free(d);
    return fails ? 1 : 0;
}

static int roundtrip(const char *path, const char *work) {
    size_t n;
    uint8_t *orig = slurp(path, &n);
    if (!orig) {
        fprintf(stderr, "cannot read %s\n", path);
        return 2;
    }
    uint8_t *r1 = NULL, *r2 = NULL, *st = NULL;
    size_t n1 = 0, n2 = 0, ns = 0;
    if (do_rewrite(path, orig, n, &r1, &n1, 1)) return 1;
    CHECK(n1 > n, "rewritten file not larger");
    /* NVIDIA bytes (and everything but the ELF header) unchanged */
    CHECK(n1 > n && !memcmp(r1 + 64, orig + 64, n - 64), "original bytes changed by rewrite");
    char p1[4096];
    snprintf(p1, sizeof p1, "%s/rewritten", work);
    CHECK(!spit(p1, r1, n1), "cannot write %s", p1);
    /* verify */
    p2n_fb_file f;
    char err[2048], *report = NULL;
    int rc = p2n_fb_load(p1, r1, n1, &f, err, sizeof err);
    CHECK(!rc, "reload: %s", err);
    CHECK(f.has_native, "no section after rewrite");
    rc = p2n_native_verify(&f, "fbtest-build", &report, err, sizeof err);
    CHECK(!rc, "verify: %s\n%s", err, report ? report : "");
    if (report) fputs(report, stdout);
    free(report);
    rc = p2n_native_verify(&f, "other-build", &report, err, sizeof err);
    /* a section without entries (only -rdc containers have PTX) has nothing that could be stale */
    int no_entries = report && strstr(report, " 0 native entries") != NULL;
    CHECK(no_entries ? rc == P2N_FB_OK : rc == P2N_FB_BAD_INPUT && strstr(report, "stale"),
          "stale build id not detected (rc %d)", rc);
    free(report);
    /* lookup of every container that has PTX */
    uint64_t so, sl;
    CHECK(p2n_native_find(r1, n1, &so, &sl) == 1, "section not found");
    for (size_t i = 0; i < f.n_containers; i++) {
        const uint8_t *pl;
        size_t pn;
        /* relocatable (-rdc) containers have no record of their own: their PTX, compiled linked, is recorded under
         * the device-link container (nvlink's, which has no PTX), the one the stub is handed for the link */
        int has_ptx = (p2n_fb_select_ptx(&f.containers[i], 90, NULL) >= 0 && !p2n_fb_container_is_relocatable(&f.containers[i])) ||
                      (int)i == p2n_fb_linked_container(&f);
        int found = p2n_native_lookup(r1 + so, sl, f.containers[i].data, f.containers[i].size, "gfx942", &pl, &pn);
        CHECK(found == has_ptx, "lookup of container %zu: found=%d has_ptx=%d", i, found, has_ptx);
        if (found) CHECK(pn > 8 && !memcmp(pl, "P2NTEST target=gfx942", 21), "payload content");
        CHECK(!p2n_native_lookup(r1 + so, sl, f.containers[i].data, f.containers[i].size, "nope", &pl, &pn),
              "lookup of unknown target");
        /* the two-step form the driver stub uses: same answer, plus the entry's build id */
        const uint8_t *pl2 = NULL;
        size_t pn2 = 0;
        const char *bid = NULL;
        CHECK(p2n_native_check(r1 + so, sl, err, sizeof err) == P2N_FB_OK, "check: %s", err);
        int found2 = p2n_native_lookup_entry(r1 + so, sl, f.containers[i].data, f.containers[i].size, "gfx942", &pl2,
                                             &pn2, &bid);
        CHECK(found2 == found && (!found || (pl2 == pl && pn2 == pn && bid && !strcmp(bid, "fbtest-build"))),
              "lookup_entry of container %zu: found=%d build id %s", i, found2, bid ? bid : "(none)");
        /* one byte of the container changed: no entry (the stub then JIT-compiles) */
        if (found && f.containers[i].size > 80) {
            uint8_t *copy = malloc(f.containers[i].size);
            memcpy(copy, f.containers[i].data, f.containers[i].size);
            copy[f.containers[i].size - 1] ^= 1;
            CHECK(!p2n_native_lookup_entry(r1 + so, sl, copy, f.containers[i].size, "gfx942", &pl2, &pn2, &bid),
                  "altered container %zu still found", i);
            free(copy);
        }
    }
    /* a damaged section fails the check (the stub ignores it) */
    {
        uint8_t *bad = malloc(sl);
        memcpy(bad, r1 + so, sl);
        bad[sl - 1] ^= 0x5a;
        CHECK(p2n_native_check(bad, sl, err, sizeof err) == P2N_FB_BAD_INPUT && strstr(err, "checksum"),
              "damaged section passed the check: %s", err);
        free(bad);
    }
    p2n_fb_close(&f);
    /* idempotent, also with threads */
    if (!do_rewrite(p1, r1, n1, &r2, &n2, 3)) {
        CHECK(n2 == n1 && !memcmp(r1, r2, n1), "rewrite is not idempotent (%zu vs %zu bytes)", n1, n2);
    } else CHECK(0, "second rewrite failed");
    /* strip restores the input */
    rc = p2n_native_strip(r1, n1, p1, &st, &ns, err, sizeof err);
    CHECK(!rc, "strip: %s", err);
    CHECK(ns == n && st && !memcmp(st, orig, n), "strip did not restore the original bytes");
    uint8_t *st2 = NULL;
    size_t ns2 = 0;
    rc = p2n_native_strip(orig, n, path, &st2, &ns2, err, sizeof err);
    CHECK(rc == P2N_FB_BAD_INPUT && !st2, "strip of a file without the section must fail");
    /* damage inside the section is detected */
    if (n1 > n + 200) {
        uint8_t *dmg = malloc(n1);
        memcpy(dmg, r1, n1);
        dmg[so + sl - 1] ^= 0x40;
        CHECK(p2n_fb_load("damaged", dmg, n1, &f, err, sizeof err) == 0, "load damaged");
        rc = p2n_native_verify(&f, NULL, &report, err, sizeof err);
        CHECK(rc == P2N_FB_BAD_INPUT && strstr(err, "offset 0x"), "damaged section not detected: %s", err);
        free(report);
        p2n_fb_close(&f);
        free(dmg);
    }
    free(orig);
    free(r1);
    free(r2);
    free(st);
    printf("roundtrip %s: %s\n", path, fails ? "FAILED" : "ok");
    return fails ? 1 : 0;
}

/* ---- corrupt ---- */
static int corrupt(const char *in, const char *out, const char *mode) {
    size_t n;
    uint8_t *d = slurp(in, &n);
    p2n_fb_file f;
    char err[2048];
    if (!d || p2n_fb_load(in, d, n, &f, err, sizeof err)) {
        fprintf(stderr, "cannot load %s\n", in);
        return 2;
    }
    int done = 0;
    for (size_t i = 0; i < f.n_containers && !done; i++) {
        p2n_fb_container *c = &f.containers[i];
        if (strcmp(c->section, ".nv_fatbin")) continue;
        uint8_t *cp = d + c->file_offset;
        for (size_t k = 0; k < c->n_entries && !done; k++) {
            p2n_fb_entry *e = &c->entries[k];
            uint8_t *ep = cp + e->offset;
            if (!strcmp(mode, "payload-size")) {
                uint64_t v = e->payload_size + 0x100000;
                memcpy(ep + 8, &v, 8);
                done = 1;
            } else if (!strcmp(mode, "entry-version")) {
                ep[2] = 0x77;
                done = 1;
            } else if (!strcmp(mode, "header-size")) {
                ep[4] = 0x41;
                done = 1;
            } else if (!strcmp(mode, "fat-size")) {
                uint64_t v = c->size + 0x10000000;
                memcpy(cp + 8, &v, 8);
                done = 1;
            } else if (!strcmp(mode, "zstd") && e->compression == P2N_FB_COMP_ZSTD) {
                for (uint64_t b = 8; b < e->stored_len; b++) ep[e->header_size + b] ^= 0x5a;
                done = 1;
            } else if (!strcmp(mode, "usize") && e->compression != P2N_FB_COMP_NONE) {
                uint64_t v = e->uncompressed_size + 1;
                memcpy(ep + 0x38, &v, 8);
                done = 1;
            }
        }
    }
    p2n_fb_close(&f);
    if (!done) {
        fprintf(stderr, "corrupt: nothing to damage for mode %s\n", mode);
        return 2;
    }
    int rc = spit(out, d, n);
    free(d);
    return rc ? 2 : 0;
}

/* ---- fuzz ---- */
static uint64_t rng = 0x123456789abcdefull;
static uint64_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void exercise(const char *name, const uint8_t *d, size_t n) {
    p2n_fb_file f;
    char err[2048];
    p2n_fb_load(name, d, n, &f, err, sizeof err);
    for (size_t i = 0; i < f.n_containers; i++)
        for (size_t k = 0; k < f.containers[i].n_entries; k++) {
            uint8_t *o;
            size_t l;
            if (!p2n_fb_decode(&f.containers[i].entries[k], &o, &l, name, 0, err, sizeof err)) free(o);
        }
    uint8_t *s;
    size_t sl;
    if (!p2n_native_strip(d, n, name, &s, &sl, err, sizeof err)) free(s);
    char *rep = NULL;
    if (f.data) p2n_native_verify(&f, NULL, &rep, err, sizeof err);
    free(rep);
    p2n_fb_close(&f);
}

static int fuzz(const char *path, int iters) {
    size_t n;
    uint8_t *d = slurp(path, &n);
    p2n_fb_file f;
    char err[2048];
    if (!d || p2n_fb_load(path, d, n, &f, err, sizeof err)) return 2;
    /* damage inside containers (most interesting) and anywhere */
    size_t nc = f.n_containers;
    uint64_t *co = calloc(nc + 1, sizeof *co), *cs = calloc(nc + 1, sizeof *cs);
    for (size_t i = 0; i < nc; i++) {
        co[i] = f.containers[i].file_offset;
        cs[i] = f.containers[i].size;
    }
    p2n_fb_close(&f);
    uint8_t *w = malloc(n);
    for (int it = 0; it < iters; it++) {
        memcpy(w, d, n);
        int flips = 1 + (int)(rnd() % 8);
        for (int k = 0; k < flips; k++) {
            size_t pos;
            if (nc && rnd() % 4) {
                size_t c = rnd() % nc;
                pos = co[c] + rnd() % (cs[c] < 256 || rnd() % 2 ? cs[c] : 256);
            } else pos = rnd() % n;
            w[pos] = (uint8_t)rnd();
        }
        size_t len = n;
        if (rnd() % 5 == 0) len = rnd() % n;
        uint8_t *t = malloc(len ? len : 1); /* exact-size copy so ASan sees overruns */
        memcpy(t, w, len);
        exercise("fuzz", t, len);
        free(t);
    }
    free(w);
    free(co);
    free(cs);
    free(d);
    printf("fuzz %s: %d iterations without a crash\n", path, iters);
    return 0;
}

static int unit(void) {
    /* hash: stable values, sensitivity */
    p2n_hash128 a = p2n_hash128_bytes("", 0, 0), b = p2n_hash128_bytes("a", 1, 0), c = p2n_hash128_bytes("b", 1, 0);
    CHECK(a.lo != b.lo && b.lo != c.lo && b.hi != c.hi, "hash collisions on tiny inputs");
    uint8_t buf[100] = {0};
    p2n_hash128 z1 = p2n_hash128_bytes(buf, 16, 0), z2 = p2n_hash128_bytes(buf, 17, 0);
    CHECK(z1.lo != z2.lo, "length must matter");
    char hex[33];
    p2n_hash128_hex(p2n_hash128_bytes("ptx2native", 10, 0), hex);
    printf("P2H128(\"ptx2native\") = %s\n", hex);
    /* options */
    p2n_fb_ptx_opts o;
    p2n_fb_parse_ptx_options(" -maxrregcount=40 ", 18, &o);
    CHECK(o.max_reg_count == 40 && !o.no_fmad, "maxrregcount");
    p2n_fb_parse_ptx_options(" --fmad false ", 14, &o);
    CHECK(o.no_fmad == 1, "fmad false");
    p2n_fb_parse_ptx_options("-O1 ", 4, &o);
    CHECK(o.opt_level == 1, "-O1");
    p2n_fb_parse_ptx_options(" -g --dont-merge-basicblocks --return-at-end ", 45, &o);
    CHECK(o.debug == 1, "-g");
    p2n_fb_parse_ptx_options("-ftz=0 -prec_div=1 -prec_sqrt=1 -fmad=1 ", 40, &o);
    CHECK(!o.no_fmad && !o.max_reg_count, "lto options");
    p2n_fb_parse_ptx_options("--maxrregcount 32 --fmad=false", 30, &o);
    CHECK(o.max_reg_count == 32 && o.no_fmad, "split maxrregcount");
    /* container parser on a hand-made container: one plain PTX entry */
    uint8_t ct[16 + 80 + 16] = {0};
    uint32_t m = P2N_FB_CONTAINER_MAGIC;
    memcpy(ct, &m, 4);
    ct[4] = 1;
    ct[6] = 16;
    uint64_t fat = 80 + 16;
    memcpy(ct + 8, &fat, 8);
    uint8_t *e = ct + 16;
    e[0] = 1;
    e[2] = 1;
    e[3] = 1;
    e[4] = 80;
    e[8] = 16;
    e[0x14] = 0x40;
    e[0x1a] = 9;
    e[0x1c] = 80;
    e[0x28] = 0x11;
    e[0x40] = 0x48;
    memcpy(e + 80, ".version 9.0\n\0\0", 16);
    p2n_fb_container cc;
    char err[512];
    CHECK(!p2n_fb_parse_container(ct, sizeof ct, "unit", 0, &cc, err, sizeof err), "parse: %s", err);
    CHECK(cc.n_entries == 1 && cc.entries[0].kind == 1 && cc.entries[0].arch == 80, "entry fields");
    uint8_t *out;
    size_t ol;
    CHECK(!p2n_fb_decode(&cc.entries[0], &out, &ol, "unit", 0, err, sizeof err) && ol == 13, "decode plain");
    free(out);
    p2n_fb_container_free(&cc);
    /* wrapper in memory */
    struct { uint32_t magic, version; const void *data, *extra; } wr = {P2N_FB_WRAPPER_MAGIC, 1, ct, NULL};
    uint32_t ver = 0;
    CHECK(!p2n_fb_parse_wrapper(&wr, &ver, &cc, err, sizeof err) && ver == 1 && cc.n_entries == 1, "wrapper");
    p2n_fb_container_free(&cc);
    /* every truncation fails cleanly */
    for (size_t l = 0; l < sizeof ct; l++) {
        uint8_t *t = malloc(l ? l : 1);
        memcpy(t, ct, l);
        int rc = p2n_fb_parse_container(t, l, "unit", 0, &cc, err, sizeof err);
        CHECK(rc == P2N_FB_BAD_INPUT && strstr(err, "offset 0x"), "truncation at %zu not reported", l);
        free(t);
    }
    printf("unit: %s\n", fails ? "FAILED" : "ok");
    return fails ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc >= 4 && !strcmp(argv[1], "ptxcmp")) return ptxcmp(argv[2], argv[3]);
    if (argc >= 4 && !strcmp(argv[1], "roundtrip")) return roundtrip(argv[2], argv[3]);
    if (argc >= 5 && !strcmp(argv[1], "corrupt")) return corrupt(argv[2], argv[3], argv[4]);
    if (argc >= 4 && !strcmp(argv[1], "fuzz")) return fuzz(argv[2], atoi(argv[3]));
    if (argc >= 2 && !strcmp(argv[1], "unit")) return unit();
    if (argc >= 3 && !strcmp(argv[1], "keepgoing")) return keepgoing(argv[2]);
    fprintf(stderr, "usage: fbtest ptxcmp|roundtrip|corrupt|fuzz|unit ...\n");
    return 2;
}
