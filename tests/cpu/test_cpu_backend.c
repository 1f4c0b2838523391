/* test_cpu_backend.c — tests of the CPU backend with fake host code objects (fake_*.c).
 * Usage: test_cpu_backend [test-name ...]   (no argument: all tests)
 * Expected values are computed here from the CUDA / PTX ISA definitions, independently of the runtime. */
#include "cpu_internal.h"
#include "fake.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int failures;
#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            if (++failures <= 30) {                                                        \
                fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);   \
                fprintf(stderr, __VA_ARGS__);                                              \
                fputc('\n', stderr);                                                       \
            }                                                                              \
        }                                                                                  \
    } while (0)

static void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *d = malloc((size_t)n);
    if (fread(d, 1, (size_t)n, f) != (size_t)n)
        exit(2);
    fclose(f);
    *size = (size_t)n;
    return d;
}

static cpu_module *load(const char *path) {
    size_t n;
    void *img = read_file(path, &n);
    cpu_module *m = NULL;
    char *err = NULL;
    cpu_status st = cpu_module_load(img, n, &m, &err);
    free(img);
    if (st != CPU_OK) {
        fprintf(stderr, "load %s: %d %s\n", path, st, err ? err : "");
        exit(2);
    }
    return m;
}

static cpu_module *g_mod;
static cpu_kernel *kern(const char *name) {
    if (!g_mod)
        g_mod = load(FAKE_KERNELS);
    cpu_kernel *k = NULL;
    if (cpu_module_get_kernel(g_mod, name, &k) != CPU_OK) {
        fprintf(stderr, "no kernel %s\n", name);
        exit(2);
    }
    return k;
}

static void sink(void *user, const char *text, size_t len) { p2n_buf_append(user, text, len); }

typedef struct dims {
    uint32_t g[3], b[3];
} dims;
#define D1(gx, bx) ((dims){{gx, 1, 1}, {bx, 1, 1}})

static cpu_status launch(const char *name, dims d, uint32_t dyn, const uint64_t *params, char **err, p2n_buf *out) {
    cpu_launch l;
    memset(&l, 0, sizeof l);
    memcpy(l.grid, d.g, sizeof l.grid);
    memcpy(l.block, d.b, sizeof l.block);
    l.dynamic_shared_bytes = dyn;
    static const uint64_t none[8];
    l.params = params ? params : none;
    p2n_buf scratch = {0};
    l.printf_sink = sink;
    l.printf_user = out ? out : &scratch;
    char *e = NULL;
    cpu_status st = cpu_launch_kernel(kern(name), &l, &e);
    free(scratch.data);
    if (err)
        *err = e;
    else {
        if (st != CPU_OK)
            fprintf(stderr, "launch %s: %d: %s\n", name, st, e ? e : "");
        free(e);
    }
    return st;
}

#define P(x) ((uint64_t)(uintptr_t)(x))

/* ------------------------------------------------------------------------------------------------ */

static void test_load_errors(void) {
    cpu_module *m = NULL;
    char *err = NULL;
    char garbage[256];
    memset(garbage, 0x5a, sizeof garbage);
    CHECK(cpu_module_load(garbage, sizeof garbage, &m, &err) == CPU_ERR_INVALID_IMAGE, "garbage");
    CHECK(err && strstr(err, "not an ELF"), "message: %s", err ? err : "(null)");
    free(err);
    size_t n;
    void *img = read_file(FAKE_KERNELS, &n);
    err = NULL;
    CHECK(cpu_module_load(img, 200, &m, &err) == CPU_ERR_INVALID_IMAGE, "truncated");
    CHECK(err != NULL, "truncated: message");
    free(err);
    free(img);
    const char *bad[] = {FAKE_NOTOURS, FAKE_BADABI, FAKE_BADPARAM};
    const char *why[] = {"not a ptx2native host code object", "ABI version 99", "outside the parameter buffer"};
    for (int i = 0; i < 3; i++) {
        img = read_file(bad[i], &n);
        err = NULL;
        m = NULL;
        CHECK(cpu_module_load(img, n, &m, &err) == CPU_ERR_INVALID_IMAGE && !m, "%s accepted", bad[i]);
        CHECK(err && strstr(err, why[i]), "%s: message '%s'", bad[i], err ? err : "(null)");
        free(err);
        free(img);
    }
    cpu_kernel *k;
    CHECK(cpu_module_get_kernel(g_mod ? g_mod : (kern("vecadd"), g_mod), "nope", &k) == CPU_ERR_NOT_FOUND, "kernel");
    void *a;
    size_t s;
    CHECK(cpu_module_get_global(g_mod, "nope", &a, &s) == CPU_ERR_NOT_FOUND, "global");
    cpu_kernel_info info;
    cpu_kernel_get_info(kern("warpops"), &info);
    CHECK(info.num_params == 3 && info.param_buffer_size == 24 && info.max_threads_per_block == 1024, "info");
    cpu_kernel_get_info(kern("maxntid64"), &info);
    CHECK(info.max_threads_per_block == 64, "maxntid info %u", info.max_threads_per_block);
    cpu_kernel_get_info(kern("reqntid32"), &info);
    CHECK(info.max_threads_per_block == 32 && info.reqntid[0] == 32 && info.reqntid[1] == 1, "reqntid info");
}

static void test_load_instances(void) {
    cpu_module *m1 = load(FAKE_KERNELS), *m2 = load(FAKE_KERNELS);
    int *g1, *g2;
    size_t s1, s2;
    CHECK(cpu_module_get_global(m1, "fake_global", (void **)&g1, &s1) == CPU_OK && s1 == 16, "global m1");
    CHECK(cpu_module_get_global(m2, "fake_global", (void **)&g2, &s2) == CPU_OK && s2 == 16, "global m2");
    CHECK(g1 != g2, "instances share globals");
    cpu_kernel *k;
    CHECK(cpu_module_get_kernel(m1, "globalk", &k) == CPU_OK, "kernel");
    cpu_launch l;
    memset(&l, 0, sizeof l);
    l.grid[0] = l.grid[1] = l.grid[2] = 1;
    l.block[0] = 64;
    l.block[1] = l.block[2] = 1;
    char *err = NULL;
    CHECK(cpu_launch_kernel(k, &l, &err) == CPU_OK, "launch: %s", err ? err : "");
    free(err);
    for (int i = 0; i < 4; i++) {
        CHECK(g1[i] == 2 * (i + 1), "m1 global[%d] = %d", i, g1[i]);
        CHECK(g2[i] == i + 1, "m2 global[%d] = %d", i, g2[i]);
    }
    cpu_module_unload(m1);
    cpu_module *m3 = load(FAKE_KERNELS);
    int *g3;
    CHECK(cpu_module_get_global(m3, "fake_global", (void **)&g3, NULL) == CPU_OK && g3[0] == 1 && g3[3] == 4,
          "fresh instance after unload");
    cpu_module_unload(m2);
    cpu_module_unload(m3);
}

static void test_launch_config(void) {
    float a[64] = {0}, b[64] = {0}, c[64];
    uint64_t p[4] = {P(a), P(b), P(c), 64};
    struct {
        const char *k;
        dims d;
        uint32_t dyn;
        cpu_status want;
    } cases[] = {
        {"vecadd", D1(1, 1025), 0, CPU_ERR_INVALID_VALUE},
        {"vecadd", {{1, 1, 1}, {32, 32, 2}}, 0, CPU_ERR_INVALID_VALUE},
        {"vecadd", {{1, 1, 1}, {1, 1, 65}}, 0, CPU_ERR_INVALID_VALUE},
        {"vecadd", {{1, 1, 1}, {1, 1025, 1}}, 0, CPU_ERR_INVALID_VALUE},
        {"vecadd", {{1, 65536, 1}, {32, 1, 1}}, 0, CPU_ERR_INVALID_VALUE},
        {"vecadd", {{1, 1, 65536}, {32, 1, 1}}, 0, CPU_ERR_INVALID_VALUE},
        {"vecadd", {{0x80000000u, 1, 1}, {32, 1, 1}}, 0, CPU_ERR_INVALID_VALUE},
        {"vecadd", {{0, 1, 1}, {32, 1, 1}}, 0, CPU_ERR_INVALID_VALUE},
        {"vecadd", {{1, 1, 1}, {0, 1, 1}}, 0, CPU_ERR_INVALID_VALUE},
        {"vecadd", D1(1, 64), 300 * 1024, CPU_ERR_OUT_OF_RESOURCES},
        {"maxntid64", D1(1, 128), 0, CPU_ERR_OUT_OF_RESOURCES},
        {"maxntid64", D1(1, 64), 0, CPU_OK},
        {"reqntid32", D1(1, 64), 0, CPU_ERR_INVALID_VALUE},
        {"reqntid32", D1(2, 32), 0, CPU_OK},
        {"vecadd", {{1, 1, 1}, {1024, 1, 1}}, 0, CPU_OK},
        {"vecadd", {{1, 1, 1}, {16, 1, 64}}, 0, CPU_OK},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *err = NULL;
        cpu_status st = launch(cases[i].k, cases[i].d, cases[i].dyn, p, &err, NULL);
        CHECK(st == cases[i].want, "case %zu: status %d, want %d (%s)", i, st, cases[i].want, err ? err : "");
        CHECK((st == CPU_OK) == (err == NULL), "case %zu: error message presence", i);
        free(err);
    }
}

static void test_vecadd(void) {
    uint32_t n = 100003;
    float *a = malloc(n * 4), *b = malloc(n * 4), *c = calloc(n, 4);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i) + 0.5f;
    }
    uint64_t p[4] = {P(a), P(b), P(c), n};
    CHECK(launch("vecadd", D1((n + 255) / 256, 256), 0, p, NULL, NULL) == CPU_OK, "launch");
    int bad = 0;
    for (uint32_t i = 0; i < n; i++)
        bad += c[i] != a[i] + b[i];
    CHECK(bad == 0, "%d wrong elements", bad);
    free(a), free(b), free(c);
}

static void check_sregs(dims d) {
    uint32_t nt = d.b[0] * d.b[1] * d.b[2], nb = d.g[0] * d.g[1] * d.g[2];
    uint32_t *out = calloc((size_t)nt * nb * 16, 4);
    uint64_t p[1] = {P(out)};
    CHECK(launch("sregs", d, 0, p, NULL, NULL) == CPU_OK, "launch");
    unsigned workers = p2n_cpu_threads_in_use();
    int bad = 0;
    for (uint32_t bz = 0; bz < d.g[2]; bz++)
        for (uint32_t by = 0; by < d.g[1]; by++)
            for (uint32_t bx = 0; bx < d.g[0]; bx++)
                for (uint32_t tz = 0; tz < d.b[2]; tz++)
                    for (uint32_t ty = 0; ty < d.b[1]; ty++)
                        for (uint32_t tx = 0; tx < d.b[0]; tx++) {
                            uint32_t lb = bx + d.g[0] * (by + d.g[1] * bz);
                            uint32_t lt = tx + d.b[0] * (ty + d.b[1] * tz);
                            uint32_t *o = out + ((size_t)lb * nt + lt) * 16;
                            uint32_t want[15] = {tx, ty, tz, d.b[0], d.b[1], d.b[2], bx, by, bz,
                                                 d.g[0], d.g[1], d.g[2], lt % 32, lt / 32, (nt + 31) / 32};
                            for (int i = 0; i < 15; i++)
                                if (o[i] != want[i] && bad++ < 5)
                                    fprintf(stderr, "block %u thread %u field %d: %u want %u\n", lb, lt, i, o[i], want[i]);
                            if (o[15] >= workers && bad++ < 5)
                                fprintf(stderr, "smid %u >= %u workers\n", o[15], workers);
                        }
    CHECK(bad == 0, "%d wrong special registers", bad);
    free(out);
}

static void test_sregs_3d(void) {
    check_sregs((dims){{3, 2, 2}, {5, 3, 2}});
    check_sregs((dims){{2, 1, 3}, {4, 4, 4}});
    check_sregs((dims){{1, 1, 1}, {1, 1, 1}});
}

static void expect_barriers(uint32_t nb, uint32_t n, uint32_t iters, uint32_t *want) {
    uint32_t *v = malloc(n * 4), *s = malloc(n * 4);
    for (uint32_t b = 0; b < nb; b++) {
        for (uint32_t t = 0; t < n; t++)
            v[t] = t + b;
        for (uint32_t it = 0; it < iters; it++) {
            memcpy(s, v, n * 4);
            for (uint32_t t = 0; t < n; t++)
                v[t] = s[(t + 37) % n] * 3 + t;
        }
        memcpy(want + b * n, v, n * 4);
    }
    free(v), free(s);
}

static void run_barriers(dims d, uint32_t iters) {
    uint32_t n = d.b[0] * d.b[1] * d.b[2], nb = d.g[0] * d.g[1] * d.g[2];
    uint32_t *out = calloc((size_t)n * nb, 4), *want = malloc((size_t)n * nb * 4);
    uint64_t p[2] = {P(out), iters};
    CHECK(launch("barriers", d, 0, p, NULL, NULL) == CPU_OK, "launch");
    expect_barriers(nb, n, iters, want);
    int bad = 0;
    for (size_t i = 0; i < (size_t)n * nb; i++)
        bad += out[i] != want[i];
    CHECK(bad == 0, "%d wrong (block %ux%ux%u)", bad, d.b[0], d.b[1], d.b[2]);
    free(out), free(want);
}

static void test_barriers(void) {
    run_barriers((dims){{5, 1, 1}, {16, 4, 2}}, 7);
    run_barriers((dims){{3, 1, 1}, {100, 1, 1}}, 5); /* partial warp */
    run_barriers(D1(2, 32), 3);
}

static void test_big_block(void) { run_barriers(D1(8, 1024), 6); }

static void test_named_barriers(void) {
    uint32_t out[512] = {0};
    uint64_t p[1] = {P(out)};
    for (int rep = 0; rep < 3; rep++) {
        memset(out, 0, sizeof out);
        CHECK(launch("named", D1(4, 256), 0, p, NULL, NULL) == CPU_OK, "launch");
        uint32_t v[256], s[256];
        for (uint32_t t = 0; t < 256; t++)
            v[t] = t * 5;
        for (int it = 0; it < 4; it++) {
            memcpy(s, v, sizeof s);
            for (uint32_t t = 0; t < 256; t++)
                v[t] = s[(t / 128) * 128 + (t % 128 + 11) % 128] + 1;
        }
        for (uint32_t t = 0; t < 256; t++)
            CHECK(out[t] == v[t], "exchange t=%u: %u want %u", t, out[t], v[t]);
        for (uint32_t t = 64; t < 128; t++)
            CHECK(out[256 + t - 64] == (t - 64) * 3 + 1 + (127 - t) * 3 + 1, "producer/consumer t=%u", t);
    }
}

static void test_bar_red(void) {
    uint32_t n = 160;
    uint32_t out[160 * 4];
    uint64_t p[1] = {P(out)};
    CHECK(launch("barred", D1(3, n), 0, p, NULL, NULL) == CPU_OK, "launch");
    uint32_t popc = 0;
    for (uint32_t t = 0; t < n; t++)
        popc += t % 3 == 0;
    for (uint32_t t = 0; t < n; t++) {
        CHECK(out[t * 4 + 0] == popc, "popc t=%u: %u want %u", t, out[t * 4], popc);
        CHECK(out[t * 4 + 1] == 1, "and(all true) t=%u", t);
        CHECK(out[t * 4 + 2] == 0, "and(one false) t=%u", t);
        CHECK(out[t * 4 + 3] == 1, "or(one true) t=%u", t);
    }
}

static void test_spin(void) {
    uint32_t out[256] = {0};
    uint32_t gflag[1] = {0};
    uint64_t p[2] = {P(out), P(gflag)};
    CHECK(launch("spin", D1(1, 128), 0, p, NULL, NULL) == CPU_OK, "launch");
    for (uint32_t t = 0; t < 96; t++)
        CHECK(out[t] == 12497500u, "t=%u saw %u", t, out[t]);
    for (uint32_t t = 0; t < 128; t++)
        CHECK(out[128 + t] == 1, "t=%u did not finish", t);
}

/* ---- warp collectives ---- */

static void run_warpops(const warpop_cfg *cfg, uint32_t ncfg, uint32_t nthreads,
                        void (*expect)(const warpop_cfg *, uint32_t warp, uint32_t nlanes, uint32_t *res)) {
    uint32_t *out = malloc((size_t)ncfg * nthreads * 2 * 4);
    uint64_t p[3] = {P(cfg), ncfg, P(out)};
    char *err = NULL;
    cpu_status st = launch("warpops", D1(1, nthreads), 0, p, &err, NULL);
    CHECK(st == CPU_OK, "launch: %s", err ? err : "");
    free(err);
    if (st != CPU_OK) {
        free(out);
        return;
    }
    int bad = 0;
    for (uint32_t k = 0; k < ncfg; k++)
        for (uint32_t w = 0; w * 32 < nthreads; w++) {
            uint32_t nl = nthreads - w * 32 < 32 ? nthreads - w * 32 : 32;
            uint32_t res[64];
            for (uint32_t l = 0; l < 32; l++) {
                res[2 * l] = 0xdeadbeef;
                res[2 * l + 1] = 2;
            }
            expect(&cfg[k], w, nl, res);
            for (uint32_t l = 0; l < nl; l++) {
                uint32_t *o = out + ((size_t)k * nthreads + w * 32 + l) * 2;
                if ((o[0] != res[2 * l] || o[1] != res[2 * l + 1]) && bad++ < 8)
                    fprintf(stderr,
                            "cfg %u (kind %u mode %u b %u c 0x%x mask 0x%08x bvary %u valkind %u) warp %u lane %u: got "
                            "(0x%x,%u) want (0x%x,%u)\n",
                            k, cfg[k].kind, cfg[k].mode, cfg[k].b, cfg[k].c, cfg[k].mask, cfg[k].bvary, cfg[k].valkind, w,
                            l, o[0], o[1], res[2 * l], res[2 * l + 1]);
            }
        }
    CHECK(bad == 0, "%d wrong warp-op results", bad);
    free(out);
}

static uint32_t active_lanes(uint32_t mask, uint32_t nl) { return mask & (nl == 32 ? 0xffffffffu : (1u << nl) - 1); }

/* PTX ISA shfl.sync pseudo-code; a source lane that is inactive yields the caller's own value and p = false */
static void expect_shfl(const warpop_cfg *c, uint32_t warp, uint32_t nl, uint32_t *res) {
    uint32_t act = active_lanes(c->mask, nl);
    for (uint32_t lane = 0; lane < nl; lane++) {
        if (!((act >> lane) & 1))
            continue;
        uint32_t b = (c->b + lane * c->bvary) & 0x1f, clamp = c->c & 0x1f, seg = (c->c >> 8) & 0x1f;
        int maxLane = (int)((lane & seg) | (clamp & ~seg)), minLane = (int)(lane & seg);
        int j = 0, pval = 0;
        if (c->mode == P2N_SHFL_UP) {
            j = (int)lane - (int)b;
            pval = j >= maxLane;
        } else if (c->mode == P2N_SHFL_DOWN) {
            j = (int)lane + (int)b;
            pval = j <= maxLane;
        } else if (c->mode == P2N_SHFL_BFLY) {
            j = (int)(lane ^ b);
            pval = j <= maxLane;
        } else {
            j = minLane | (int)(b & ~seg);
            pval = j <= maxLane;
        }
        if (!pval)
            j = (int)lane;
        if (!((act >> j) & 1)) {
            j = (int)lane;
            pval = 0;
        }
        res[2 * lane] = (uint32_t)fake_value(c->valkind, (uint32_t)j, warp);
        res[2 * lane + 1] = (uint32_t)pval;
    }
}

static void test_shfl(void) {
    static warpop_cfg cfg[1024];
    uint32_t n = 0;
    const uint32_t masks[] = {0xffffffffu, 0x0f0f0f0fu, 0xaaaaaaaau, 0x0000ffffu, 0x00000100u, 0x7ffffffeu};
    const uint32_t widths[] = {32, 16, 8, 4, 2, 1};
    const uint32_t bs[] = {0, 1, 3, 5, 16, 31, 37};
    for (uint32_t mode = 0; mode < 4; mode++)
        for (size_t wi = 0; wi < 6; wi++)
            for (size_t bi = 0; bi < 7; bi++)
                for (size_t mi = 0; mi < 6; mi += (bi % 3) ? 5 : 1) {
                    uint32_t w = widths[wi];
                    uint32_t c = ((32 - w) << 8) | (mode == P2N_SHFL_UP ? 0 : 0x1f);
                    cfg[n++] = (warpop_cfg){WK_SHFL, mode, bs[bi], c, masks[mi], 0, 0, 0};
                }
    /* raw clamp values, lane-dependent sources, odd c operands */
    const uint32_t raw_c[] = {0x0, 0x5, 0x1f, 0x10, 0x1c10, 0x0f07, 0x1f1f, 0x1e03};
    for (uint32_t mode = 0; mode < 4; mode++)
        for (size_t ci = 0; ci < 8; ci++) {
            cfg[n++] = (warpop_cfg){WK_SHFL, mode, 2, raw_c[ci], 0xffffffffu, 0, 0, 0};
            cfg[n++] = (warpop_cfg){WK_SHFL, mode, 3, raw_c[ci], 0xffffffffu, 5, 0, 0};
            cfg[n++] = (warpop_cfg){WK_SHFL, mode, 7, raw_c[ci], 0x33333333u, 3, 0, 0};
        }
    run_warpops(cfg, n, 64, expect_shfl);
    run_warpops(cfg, n, 45, expect_shfl); /* partial second warp: lanes 13..31 do not exist */

    /* CUDA-level spot checks written from the CUDA documentation (__shfl_*_sync with width) */
    uint32_t out[64 * 2 * 4];
    warpop_cfg spot[4] = {
        {WK_SHFL, P2N_SHFL_DOWN, 1, ((32 - 8) << 8) | 0x1f, 0xffffffffu, 0, 0, 0}, /* __shfl_down_sync(v,1,8) */
        {WK_SHFL, P2N_SHFL_UP, 2, (32 - 16) << 8, 0xffffffffu, 0, 0, 0},           /* __shfl_up_sync(v,2,16) */
        {WK_SHFL, P2N_SHFL_IDX, 3, ((32 - 8) << 8) | 0x1f, 0xffffffffu, 0, 0, 0},  /* __shfl_sync(v,3,8) */
        {WK_SHFL, P2N_SHFL_BFLY, 4, ((32 - 16) << 8) | 0x1f, 0xffffffffu, 0, 0, 0}, /* __shfl_xor_sync(v,4,16) */
    };
    uint64_t p[3] = {P(spot), 4, P(out)};
    CHECK(launch("warpops", D1(1, 64), 0, p, NULL, NULL) == CPU_OK, "spot launch");
#define V(l) (uint32_t) fake_value(0, (l), 0)
    CHECK(out[(0 * 64 + 3) * 2] == V(4) && out[(0 * 64 + 3) * 2 + 1] == 1, "down lane 3");
    CHECK(out[(0 * 64 + 7) * 2] == V(7) && out[(0 * 64 + 7) * 2 + 1] == 0, "down lane 7 stays");
    CHECK(out[(1 * 64 + 17) * 2] == V(17) && out[(1 * 64 + 17) * 2 + 1] == 0, "up lane 17 stays");
    CHECK(out[(1 * 64 + 18) * 2] == V(16) && out[(1 * 64 + 18) * 2 + 1] == 1, "up lane 18");
    CHECK(out[(2 * 64 + 13) * 2] == V(11), "idx width 8 lane 13 reads lane 11");
    CHECK(out[(3 * 64 + 9) * 2] == V(13), "xor 4 lane 9");
#undef V
}

static void expect_vote(const warpop_cfg *c, uint32_t warp, uint32_t nl, uint32_t *res) {
    uint32_t act = active_lanes(c->mask, nl), ballot = 0;
    for (uint32_t l = 0; l < nl; l++)
        if ((act >> l) & 1 && (uint32_t)fake_value(c->valkind, l, warp))
            ballot |= 1u << l;
    for (uint32_t l = 0; l < nl; l++)
        if ((act >> l) & 1) {
            uint32_t r = c->mode == P2N_VOTE_ALL   ? ballot == act
                         : c->mode == P2N_VOTE_ANY ? ballot != 0
                         : c->mode == P2N_VOTE_UNI ? (ballot == 0 || ballot == act)
                                                   : ballot;
            res[2 * l] = r;
            res[2 * l + 1] = 0xffff;
        }
}

static void test_vote(void) {
    warpop_cfg cfg[200];
    uint32_t n = 0;
    const uint32_t masks[] = {0xffffffffu, 0x0f0f0f0fu, 0x00020000u, 0xfffe0000u, 0x0000001fu};
    const uint32_t kinds[] = {1, 2, 3, 4, 7};
    for (uint32_t mode = 0; mode < 4; mode++)
        for (int mi = 0; mi < 5; mi++)
            for (int ki = 0; ki < 5; ki++)
                cfg[n++] = (warpop_cfg){WK_VOTE, mode, 0, 0, masks[mi], 0, kinds[ki], 0};
    run_warpops(cfg, n, 64, expect_vote);
    run_warpops(cfg, n, 50, expect_vote);
}

static void expect_match(const warpop_cfg *c, uint32_t warp, uint32_t nl, uint32_t *res) {
    uint32_t act = active_lanes(c->mask, nl);
    for (uint32_t l = 0; l < nl; l++) {
        if (!((act >> l) & 1))
            continue;
        uint64_t v = fake_value(c->valkind, l, warp);
        uint32_t same = 0;
        for (uint32_t j = 0; j < nl; j++)
            if ((act >> j) & 1 && fake_value(c->valkind, j, warp) == v)
                same |= 1u << j;
        if (c->kind == WK_MATCH_ANY) {
            res[2 * l] = same;
            res[2 * l + 1] = 0xffff;
        } else {
            res[2 * l] = same == act ? act : 0;
            res[2 * l + 1] = same == act;
        }
    }
}

static void test_match(void) {
    warpop_cfg cfg[100];
    uint32_t n = 0;
    const uint32_t masks[] = {0xffffffffu, 0x0f0f0f0fu, 0x00000001u, 0x00000003u, 0x88888888u};
    const uint32_t kinds[] = {0, 1, 5, 7, 9, 3};
    for (uint32_t kind = WK_MATCH_ANY; kind <= WK_MATCH_ALL; kind++)
        for (int mi = 0; mi < 5; mi++)
            for (int ki = 0; ki < 6; ki++)
                cfg[n++] = (warpop_cfg){kind, 0, 0, 0, masks[mi], 0, kinds[ki], 0};
    run_warpops(cfg, n, 64, expect_match);
}

static void expect_redux(const warpop_cfg *c, uint32_t warp, uint32_t nl, uint32_t *res) {
    uint32_t act = active_lanes(c->mask, nl);
    uint32_t add = 0, and_ = ~0u, or_ = 0, xor_ = 0, umin = ~0u, umax = 0;
    int32_t smin = INT32_MAX, smax = INT32_MIN;
    for (uint32_t l = 0; l < nl; l++)
        if ((act >> l) & 1) {
            uint32_t v = (uint32_t)fake_value(c->valkind, l, warp);
            add += v, and_ &= v, or_ |= v, xor_ ^= v;
            umin = v < umin ? v : umin;
            umax = v > umax ? v : umax;
            smin = (int32_t)v < smin ? (int32_t)v : smin;
            smax = (int32_t)v > smax ? (int32_t)v : smax;
        }
    uint32_t r[8] = {add, (uint32_t)smin, (uint32_t)smax, umin, umax, and_, or_, xor_};
    for (uint32_t l = 0; l < nl; l++)
        if ((act >> l) & 1) {
            res[2 * l] = r[c->mode];
            res[2 * l + 1] = 0xffff;
        }
}

static void test_redux(void) {
    warpop_cfg cfg[100];
    uint32_t n = 0;
    const uint32_t masks[] = {0xffffffffu, 0x0f0f0f0fu, 0x00010000u, 0xc0000003u};
    const uint32_t kinds[] = {0, 6, 8};
    for (uint32_t op = 0; op < 8; op++)
        for (int mi = 0; mi < 4; mi++)
            for (int ki = 0; ki < 3; ki++)
                cfg[n++] = (warpop_cfg){WK_REDUX, op, 0, 0, masks[mi], 0, kinds[ki], 0};
    run_warpops(cfg, n, 64, expect_redux);
    run_warpops(cfg, n, 40, expect_redux);
}

static void expect_elect(const warpop_cfg *c, uint32_t warp, uint32_t nl, uint32_t *res) {
    (void)warp;
    uint32_t act = active_lanes(c->mask, nl);
    if (!act)
        return;
    uint32_t leader = (uint32_t)__builtin_ctz(act);
    for (uint32_t l = 0; l < nl; l++)
        if ((act >> l) & 1) {
            res[2 * l] = leader;
            res[2 * l + 1] = l == leader;
        }
}

static void test_elect(void) {
    const uint32_t masks[] = {0xffffffffu, 0xf0f0f0f0u, 0x80000000u, 0x00010000u, 0xfffffffeu};
    warpop_cfg cfg[5];
    for (int i = 0; i < 5; i++)
        cfg[i] = (warpop_cfg){WK_ELECT, 0, 0, 0, masks[i], 0, 0, 0};
    run_warpops(cfg, 5, 64, expect_elect);
    run_warpops(cfg, 5, 48, expect_elect); /* warp 1 has lanes 0..15: 0xf0f0f0f0 -> leader 4, 0x80000000 -> none */
}

static void expect_warpsync(const warpop_cfg *c, uint32_t warp, uint32_t nl, uint32_t *res) {
    (void)warp;
    uint32_t act = active_lanes(c->mask, nl);
    for (uint32_t l = 0; l < nl; l++)
        if ((act >> l) & 1) {
            res[2 * l] = 0;
            res[2 * l + 1] = 0xffff;
        }
}

static void test_warpsync(void) {
    const uint32_t masks[] = {0xffffffffu, 0x0000ffffu, 0xffff0000u, 0x00000001u};
    warpop_cfg cfg[4];
    for (int i = 0; i < 4; i++)
        cfg[i] = (warpop_cfg){WK_WARPSYNC, 0, 0, 0, masks[i], 0, 0, 0};
    run_warpops(cfg, 4, 96, expect_warpsync);
}

static void test_activemask(void) {
    uint32_t n = 72; /* warps 0, 1 full; warp 2 has lanes 0..7 */
    uint32_t *out = calloc(n * 5, 4);
    uint64_t p[1] = {P(out)};
    CHECK(launch("amask", D1(2, n), 0, p, NULL, NULL) == CPU_OK, "launch");
    for (uint32_t t = 0; t < n; t++) {
        uint32_t lane = t % 32, w = t / 32;
        uint32_t exists = w < 2 ? 0xffffffffu : 0xffu;
        uint32_t *o = out + t * 5;
        CHECK(o[0] == exists, "t=%u convergent: 0x%x want 0x%x", t, o[0], exists);
        uint32_t slot = lane < 10 ? 1 : lane < 20 ? 2 : 3;
        uint32_t grp = lane < 10 ? 0x3ffu : lane < 20 ? 0xffc00u : 0xfff00000u;
        for (uint32_t s = 1; s <= 3; s++)
            CHECK(o[s] == (s == slot ? (grp & exists) : 0), "t=%u slot %u: 0x%x", t, s, o[s]);
        CHECK(o[4] == (lane < 16 ? (0xffffu & exists) : 0), "t=%u after exit: 0x%x", t, o[4]);
    }
    free(out);
}

static void test_trap(void) {
    uint32_t *out = calloc(8 * 64, 4);
    uint64_t p[3] = {P(out), 2, 17};
    char *err = NULL;
    cpu_status st = launch("trapk", D1(8, 64), 0, p, &err, NULL);
    CHECK(st == CPU_ERR_LAUNCH_FAILED, "status %d", st);
    CHECK(err && strstr(err, "block [2,0,0], thread [17,0,0]") && strstr(err, "trapk") && strstr(err, "trap"),
          "message: %s", err ? err : "(null)");
    free(err);
    for (uint32_t t = 0; t < 64; t++)
        CHECK(out[2 * 64 + t] == 0, "thread %u of the trapping block passed the barrier", t);
    /* the backend is usable afterwards */
    memset(out, 0, 8 * 64 * 4);
    p[1] = 1000;
    CHECK(launch("trapk", D1(8, 64), 0, p, NULL, NULL) == CPU_OK, "launch after trap");
    for (uint32_t i = 0; i < 8 * 64; i++)
        CHECK(out[i] == 1, "i=%u", i);
    free(out);
}

static void test_assert(void) {
    fflush(stderr);
    FILE *tmp = tmpfile();
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    char *err = NULL;
    cpu_status st = launch("assertk", D1(3, 32), 0, NULL, &err, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char text[1024] = {0};
    rewind(tmp);
    size_t got = fread(text, 1, sizeof text - 1, tmp);
    (void)got;
    fclose(tmp);
    const char *want = "fake.cu:42: void assertk(int *): block: [1,0,0], thread: [5,0,0] Assertion `x < 3` failed.\n";
    CHECK(st == CPU_ERR_ASSERT, "status %d", st);
    CHECK(strstr(text, want) != NULL, "stderr: '%s'", text);
    CHECK(err && strstr(err, "Assertion `x < 3` failed") && strstr(err, "assertk"), "message: %s", err ? err : "");
    free(err);
}

static void test_printf(void) {
    uint32_t out[6] = {0};
    const char *str = "hello";
    uint64_t p[2] = {P(out), P(str)};
    p2n_buf text = {0};
    CHECK(launch("printk", D1(3, 32), 0, p, NULL, &text) == CPU_OK, "launch");
    p2n_buf want = {0};
    for (uint32_t b = 0; b < 3; b++) {
        for (uint32_t t = 0; t < 2; t++) {
            char line[256];
            int n = snprintf(line, sizeof line, "%d %u %x %f %s %lld %c %%\n", (int)b - 1, t + 4000000000u, 0xbeef00 + t,
                             1.5 + b, str, -1234567890123ll * (t + 1), 'A' + (int)b);
            p2n_buf_append(&want, line, (size_t)n);
            CHECK(out[b * 2 + t] == 7, "vprintf returned %u", out[b * 2 + t]);
        }
        char line[64];
        int n = snprintf(line, sizeof line, "block %u done\n", b);
        p2n_buf_append(&want, line, (size_t)n);
    }
    CHECK(text.len == want.len && memcmp(text.data, want.data, want.len) == 0, "printf output:\n%s---- want:\n%s",
          text.data ? text.data : "", want.data);
    free(text.data);
    free(want.data);
}

static void test_printf_format(void) {
    struct {
        const char *fmt;
        uint8_t buf[64];
    } c;
    p2n_buf out = {0};
    char want[512];
    /* each case: format, packed buffer, expected text from the host printf */
#define PUT(off, v) do { __typeof__(v) _v = (v); memcpy(c.buf + (off), &_v, sizeof _v); } while (0)
#define CASE(expected_call, nargs)                                                                     \
    do {                                                                                               \
        out.len = 0;                                                                                   \
        int r = p2n_format_printf(&out, c.fmt, c.buf);                                                 \
        expected_call;                                                                                 \
        CHECK(out.len == strlen(want) && memcmp(out.data, want, out.len) == 0, "'%s': got '%.*s' want '%s'", \
              c.fmt, (int)out.len, out.data ? out.data : "", want);                                    \
        CHECK(r == (nargs), "'%s': returned %d want %d", c.fmt, r, nargs);                             \
    } while (0)
    memset(c.buf, 0, sizeof c.buf);
    c.fmt = "[%5d|%-5d|%05d|%+d|% d]";
    PUT(0, 42); PUT(4, -7); PUT(8, 3); PUT(12, 9); PUT(16, 1);
    CASE(snprintf(want, sizeof want, "[%5d|%-5d|%05d|%+d|% d]", 42, -7, 3, 9, 1), 5);
    c.fmt = "%ld %lu %lx %llX";
    PUT(0, -5000000000l); PUT(8, 18000000000000000000ul); PUT(16, 0xdeadbeefcafel); PUT(24, 0xabcull);
    CASE(snprintf(want, sizeof want, "%ld %lu %lx %llX", -5000000000l, 18000000000000000000ul, 0xdeadbeefcafel, 0xabcull), 4);
    c.fmt = "%d then %ld"; /* int at 0, long aligned to 8 */
    PUT(0, 11); PUT(8, 12345678901l);
    CASE(snprintf(want, sizeof want, "%d then %ld", 11, 12345678901l), 2);
    c.fmt = "%.3f %10.2e %g %G %a %5.1f";
    PUT(0, 3.14159265); PUT(8, -12345.678); PUT(16, 1e-5); PUT(24, 1e20); PUT(32, 1.0); PUT(40, 2.25);
    CASE(snprintf(want, sizeof want, "%.3f %10.2e %g %G %a %5.1f", 3.14159265, -12345.678, 1e-5, 1e20, 1.0, 2.25), 6);
    c.fmt = "%c%c%c %hhd %hd %hu %o %#x";
    PUT(0, 'x'); PUT(4, 'y'); PUT(8, 'z'); PUT(12, 300); PUT(16, 70000); PUT(20, 65537); PUT(24, 8); PUT(28, 255);
    CASE(snprintf(want, sizeof want, "%c%c%c %hhd %hd %hu %o %#x", 'x', 'y', 'z', (signed char)44, (short)4464,
                  (unsigned short)1, 8, 255), 8);
    const char *s1 = "abc", *s2 = NULL;
    c.fmt = "[%s|%6s|%-6s|%.2s|%s]";
    PUT(0, s1); PUT(8, s1); PUT(16, s1); PUT(24, s1); PUT(32, s2);
    CASE(snprintf(want, sizeof want, "[%s|%6s|%-6s|%.2s|%s]", "abc", "abc", "abc", "abc", "(null)"), 5);
    c.fmt = "%*d|%-*d|%.*f";
    PUT(0, 6); PUT(4, 5); PUT(8, 4); PUT(12, 3); PUT(16, 2); PUT(24, 1.23456);
    CASE(snprintf(want, sizeof want, "%*d|%-*d|%.*f", 6, 5, 4, 3, 2, 1.23456), 6);
    c.fmt = "100%% sure, no args";
    CASE(snprintf(want, sizeof want, "100%% sure, no args"), 0);
    c.fmt = "%u%%%d";
    PUT(0, 4294967295u); PUT(4, -2147483647 - 1);
    CASE(snprintf(want, sizeof want, "%u%%%d", 4294967295u, -2147483647 - 1), 2);
    c.fmt = "%zu %jd %td";
    PUT(0, (size_t)77); PUT(8, (long)-3); PUT(16, (long)9);
    CASE(snprintf(want, sizeof want, "%zu %jd %td", (size_t)77, (intmax_t)-3, (ptrdiff_t)9), 3);
    CHECK(p2n_format_printf(&out, NULL, NULL) == -1, "NULL format");
    free(out.data);
#undef CASE
#undef PUT
}

static void test_exit_barrier(void) {
    uint32_t *out = calloc(768, 4);
    uint64_t p[1] = {P(out)};
    char *err = NULL;
    cpu_status st = launch("exitk", D1(3, 256), 1024 - 1024, p, &err, NULL);
    CHECK(st == CPU_OK, "launch: %s", err ? err : "");
    free(err);
    for (uint32_t t = 0; t < 256; t++) {
        bool live = t % 4 == 0 || t % 4 == 2;
        CHECK(out[t] == (live ? (t ^ 2) * 10 : 0), "t=%u exchange %u", t, out[t]);
        CHECK(out[256 + t] == (live ? 128u : 0), "t=%u popc %u", t, out[256 + t]);
        CHECK(out[512 + t] == (live && t != 0), "t=%u after second barrier %u", t, out[512 + t]);
    }
    free(out);
}

static void test_deadlock(void) {
    struct {
        uint32_t kind, threads;
        const char *msg;
    } cases[] = {{0, 64, "deadlock"}, {1, 32, "deadlock"}, {2, 32, "wait at a different warp collective"}};
    for (int i = 0; i < 3; i++) {
        uint64_t p[1] = {cases[i].kind};
        char *err = NULL;
        cpu_status st = launch("deadlock", D1(1, cases[i].threads), 0, p, &err, NULL);
        CHECK(st == CPU_ERR_LAUNCH_FAILED, "kind %u: status %d", cases[i].kind, st);
        CHECK(err && strstr(err, cases[i].msg) && strstr(err, "block [0,0,0]"), "kind %u: message: %s", cases[i].kind,
              err ? err : "(null)");
        if (i == 0)
            CHECK(err && strstr(err, "barrier 1 (count 64, 32 arrived)"), "barrier detail: %s", err ? err : "");
        free(err);
    }
}

static void test_dynamic_smem(void) {
    uint32_t *out = calloc(16 + 1000, 4);
    uint64_t p[1] = {P(out)};
    CHECK(launch("dynsmem", D1(1, 64), 4000, p, NULL, NULL) == CPU_OK, "launch");
    CHECK(out[0] == 4000, "dynamic size %u", out[0]);
    CHECK(out[1] == 4128, "smem_size %u", out[1]);
    CHECK(out[2] == 0, "dynamic part misaligned (%u)", out[2]);
    CHECK(out[3] == 64 * 65 / 2, "static part sum %u", out[3]); /* bytes 1..64, the rest zero */
    for (uint32_t i = 0; i < 1000; i++)
        CHECK(out[16 + i] == (999 - i) * 3 + 1, "dyn[%u] = %u", i, out[16 + i]);
    free(out);
}

static void test_parallel_equals_serial(void) {
    uint32_t nb = 300, n = 256;
    uint32_t *in = malloc((size_t)nb * n * 4);
    uint32_t seed = 12345;
    for (uint32_t i = 0; i < nb * n; i++) {
        seed = seed * 1103515245u + 12345u;
        in[i] = seed >> 8;
    }
    uint32_t *ref = NULL;
    uint64_t ref_total = 0;
    p2n_buf ref_text = {0};
    const unsigned threads[] = {1, 2, 4, 3};
    for (int r = 0; r < 4; r++) {
        p2n_cpu_set_threads(threads[r]);
        uint32_t *out = calloc(nb, 4);
        uint64_t total = 0;
        uint64_t p[4] = {P(in), P(out), P(&total), 0};
        p2n_buf text = {0};
        CHECK(launch("reduce", D1(nb, n), 0, p, NULL, &text) == CPU_OK, "launch with %u threads", threads[r]);
        CHECK(p2n_cpu_threads_in_use() == threads[r], "threads in use %u", p2n_cpu_threads_in_use());
        if (!ref) {
            ref = out;
            ref_total = total;
            ref_text = text;
            uint64_t sum = 0;
            for (uint32_t b = 0; b < nb; b++) {
                uint32_t s = 0;
                for (uint32_t t = 0; t < n; t++)
                    s += in[b * n + t];
                CHECK(out[b] == s, "block %u sum", b);
                sum += s;
            }
            CHECK(total == sum, "total");
            char line[64];
            snprintf(line, sizeof line, "block 0 sum %u\n", ref[0]);
            CHECK(text.data && strncmp(text.data, line, strlen(line)) == 0, "first line");
        } else {
            CHECK(memcmp(out, ref, nb * 4) == 0, "results differ with %u threads", threads[r]);
            CHECK(total == ref_total, "total differs with %u threads", threads[r]);
            CHECK(text.len == ref_text.len && memcmp(text.data, ref_text.data, text.len) == 0,
                  "printf output differs with %u threads", threads[r]);
            free(out);
            free(text.data);
        }
    }
    p2n_cpu_set_threads(0);
    free(ref);
    free(ref_text.data);
    free(in);
}

static void test_misc(void) {
    uint32_t *out = calloc(64 * 8, 4);
    uint64_t p[1] = {P(out)};
    CHECK(launch("misc", D1(1, 64), 0, p, NULL, NULL) == CPU_OK, "launch");
    for (uint32_t t = 0; t < 64; t++) {
        uint32_t *o = out + t * 8;
        CHECK(o[0] == 16 * t + 120, "malloc'd data");
        CHECK(o[1] == 1 && o[2] == 1, "clocks");
        CHECK(o[3] < p2n_cpu_threads_in_use(), "smid");
        CHECK(o[4] == 7 && o[5] == 1024, "math");
        CHECK(o[6] == 1 && o[7] == 1, "budget / __p2n_rt");
    }
    free(out);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void test_perf(void) {
    uint32_t n = getenv("P2N_PERF_N") ? (uint32_t)atoi(getenv("P2N_PERF_N")) : 1u << 20;
    float *a = calloc(n, 4), *b = calloc(n, 4), *c = calloc(n, 4);
    uint64_t p[4] = {P(a), P(b), P(c), n};
    for (int mode = 0; mode < 2; mode++) {
        p2n_cpu_set_threads(mode == 0 ? 1 : 0);
        double best = 1e9;
        for (int r = 0; r < 5; r++) {
            double t0 = now();
            CHECK(launch("vecadd", D1(n / 256, 256), 0, p, NULL, NULL) == CPU_OK, "vecadd");
            double dt = now() - t0;
            best = dt < best ? dt : best;
        }
        printf("perf: vecadd %u threads, %u worker(s): %.2f ms, %.2f ns/thread\n", n, p2n_cpu_threads_in_use(), best * 1e3,
               best * 1e9 / n);
        CHECK(best * 1e9 / n < 2000, "vecadd unreasonably slow");
    }
    p2n_cpu_set_threads(1);
    uint32_t iters = 20000;
    uint64_t q[1] = {iters};
    double t0 = now();
    CHECK(launch("yieldk", D1(1, 64), 0, q, NULL, NULL) == CPU_OK, "yield");
    double dt = now() - t0;
    printf("perf: rt->yield round trip (fiber -> scheduler -> next fiber): %.1f ns per yield\n", dt * 1e9 / (64.0 * iters));
    uint32_t out[32];
    uint64_t r[2] = {iters, P(out)};
    t0 = now();
    CHECK(launch("shflbench", D1(1, 32), 0, r, NULL, NULL) == CPU_OK, "shfl");
    dt = now() - t0;
    printf("perf: shfl.sync.bfly, full warp: %.1f ns per lane per shuffle\n", dt * 1e9 / (32.0 * iters));
    for (uint32_t l = 0; l < 32; l++)
        CHECK(out[l] == (iters % 2 ? (l ^ 1) + iters : l + iters), "shfl bench lane %u: %u", l, out[l]);
    p2n_cpu_set_threads(0);
    free(a), free(b), free(c);
}

/* ------------------------------------------------------------------------------------------------ */

static const struct {
    const char *name;
    void (*fn)(void);
} tests[] = {
    {"load_errors", test_load_errors},
    {"load_instances", test_load_instances},
    {"launch_config", test_launch_config},
    {"vecadd", test_vecadd},
    {"sregs_3d", test_sregs_3d},
    {"barriers", test_barriers},
    {"named_barriers", test_named_barriers},
    {"bar_red", test_bar_red},
    {"spin", test_spin},
    {"shfl", test_shfl},
    {"vote", test_vote},
    {"match", test_match},
    {"redux", test_redux},
    {"elect", test_elect},
    {"warpsync", test_warpsync},
    {"activemask", test_activemask},
    {"trap", test_trap},
    {"assert", test_assert},
    {"printf", test_printf},
    {"printf_format", test_printf_format},
    {"exit_barrier", test_exit_barrier},
    {"deadlock", test_deadlock},
    {"dynamic_smem", test_dynamic_smem},
    {"parallel_equals_serial", test_parallel_equals_serial},
    {"big_block", test_big_block},
    {"misc", test_misc},
    {"perf", test_perf},
};

int main(int argc, char **argv) {
    int ran = 0, failed_tests = 0;
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        bool want = argc < 2;
        for (int a = 1; a < argc; a++)
            want = want || strcmp(argv[a], tests[i].name) == 0;
        if (!want)
            continue;
        int before = failures;
        tests[i].fn();
        ran++;
        bool ok = failures == before;
        failed_tests += !ok;
        printf("%s %s\n", ok ? "PASS" : "FAIL", tests[i].name);
    }
    if (g_mod)
        cpu_module_unload(g_mod);
    if (!ran) {
        fprintf(stderr, "no such test\n");
        return 2;
    }
    printf("%d test(s), %d failed, %d check failure(s)\n", ran, failed_tests, failures);
    return failures ? 1 : 0;
}
