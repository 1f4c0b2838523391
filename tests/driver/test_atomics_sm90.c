/* test_atomics_sm90.c — sm_90 atomics and st.bulk through libcuda.so.1 (tests/driver/atomics_sm90.ptx,
 * st_bulk.ptx; targets/llvm/emit_atom_vector.c, emit_atom_b128.c, emit_multimem.c, emit_st_bulk.c), on whatever
 * backend P2N_BACKEND names (the CPU backend: driver.atomics_sm90; PoCL: spirv.opencl.pocl.atomics_sm90).
 * Every expected value is computed here, in C, from the PTX ISA's definitions:
 *  - vector atom/red with many threads on the same elements: counts of exactly representable additions, and
 *    the old values `atom` returns per element are a permutation of 0..N-1 (no lost or duplicated update);
 *  - f16/bf16 min/max of every pair of 16 special values (zeros, subnormals, infinities, NaNs) against a
 *    reference on doubles (-0 < +0; one NaN gives the other operand, two give the canonical NaN 0x7fff), and a
 *    contended max/min over 1024 threads;
 *  - atom.cas.b128 counter {count, sum} with tickets (global, shared) and an atom.exch.b128 chain whose old
 *    values, plus the final one, are exactly the values swapped in, none torn;
 *  - multimem on one device: reductions, ld_reduce and st of their results;
 *  - st.bulk: the bytes of the range become zero, the bytes around it do not change.
 * Usage: test_atomics_sm90 atomics_sm90.ptx st_bulk.ptx */
#include <cuda.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { NBLK = 4, NTHR = 256, N = NBLK * NTHR };

/* ---------------------------------------------------------------- 16-bit float reference */

static int nan16(uint16_t h, int bf) { return (h & 0x7fff) > (bf ? 0x7f80 : 0x7c00); }

static double dec16(uint16_t h, int bf) {
    if (bf) {
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);
    return (h & 0x8000) ? -v : v;
}

static uint16_t ref_minmax(uint16_t x, uint16_t y, int bf, int is_max) {
    if (nan16(x, bf) && nan16(y, bf)) return 0x7fff;
    if (nan16(x, bf)) return y;
    if (nan16(y, bf)) return x;
    double a = dec16(x, bf), b = dec16(y, bf);
    if (a == b) {
        if (x == y) return x;
        /* +0 and -0: -0 is the smaller */
        uint16_t neg = (x & 0x8000) ? x : y, pos = (x & 0x8000) ? y : x;
        return is_max ? pos : neg;
    }
    return (is_max ? a > b : a < b) ? x : y;
}

/* the 16 values every pair of which is tried (f16, then bf16 spellings) */
static const uint16_t special[2][16] = {
    {0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0x7D00, 0xFE01, 0x0001, 0x8001, 0x03FF, 0x7BFF, 0x4000,
     0xC000, 0x3555},
    {0x0000, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFC1, 0x0001, 0x8001, 0x007F, 0x7F7F, 0x4000,
     0xC000, 0x3EAA},
};

/* `vals[i * stride]` for i < n is a permutation of want(0..n-1) for the 16-bit float decoding `bf` */
static int is_count_perm16(const uint16_t *vals, unsigned n, unsigned stride, int bf) {
    unsigned char *seen = calloc(n, 1);
    int ok = 1;
    for (unsigned i = 0; i < n && ok; i++) {
        double v = dec16(vals[(size_t)i * stride], bf);
        if (!(v >= 0 && v < n && v == floor(v)) || seen[(unsigned)v]) ok = 0;
        else seen[(unsigned)v] = 1;
    }
    free(seen);
    return ok;
}

static int is_scaled_perm32(const float *vals, unsigned n, unsigned stride, float scale) {
    unsigned char *seen = calloc(n, 1);
    int ok = 1;
    for (unsigned i = 0; i < n && ok; i++) {
        double v = vals[(size_t)i * stride] / scale;
        if (!(v >= 0 && v < n && v == floor(v)) || seen[(unsigned)v]) ok = 0;
        else seen[(unsigned)v] = 1;
    }
    free(seen);
    return ok;
}

static CUdeviceptr dalloc(size_t n, int byte) {
    CUdeviceptr d;
    MUST(cuMemAlloc(&d, n));
    MUST(cuMemsetD8(d, (unsigned char)byte, n));
    return d;
}

static void launch(CUfunction f, unsigned nblk, unsigned nthr, void **args) {
    OK(cuLaunchKernel(f, nblk, 1, 1, nthr, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
}

/* ---------------------------------------------------------------- vector atom/red */

static void test_vec_add(CUmodule mod) {
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "k_vec_add"));
    CUdeviceptr buf = dalloc(48, 0), olds = dalloc(N * 16, 0xff), olds2 = dalloc(N * 16, 0xff);
    void *args[] = {&buf, &olds, &olds2};
    launch(f, NBLK, NTHR, args);
    uint16_t h[24];
    float fl[4];
    MUST(cuMemcpyDtoH(h, buf, 32));
    MUST(cuMemcpyDtoH(fl, buf + 32, 16));
    for (int k = 0; k < 16; k++)
        if (h[k] != 0x6400) { /* 1024.0 */
            fprintf(stderr, "vec_add: f16 lane %d = 0x%04x, expected 0x6400\n", k, h[k]);
            check_failures++;
        }
    const float want[4] = {N, 2.0f * N, 0.5f * N, -1.0f * N};
    for (int k = 0; k < 4; k++)
        if (fl[k] != want[k]) {
            fprintf(stderr, "vec_add: f32 element %d = %g, expected %g\n", k, fl[k], want[k]);
            check_failures++;
        }
    uint16_t *o = malloc(N * 16);
    float *o2 = malloc(N * 16);
    MUST(cuMemcpyDtoH(o, olds, N * 16));
    MUST(cuMemcpyDtoH(o2, olds2, N * 16));
    for (unsigned k = 0; k < 8; k++)
        if (!is_count_perm16(o + k, N, 8, 0)) {
            fprintf(stderr, "vec_add: the old values of f16 element %u are not a permutation of 0..%d\n", k, N - 1);
            check_failures++;
        }
    const float scale[4] = {1, 2, 0.5f, -1};
    for (unsigned k = 0; k < 4; k++)
        if (!is_scaled_perm32(o2 + k, N, 4, scale[k])) {
            fprintf(stderr, "vec_add: the old values of f32 element %u are not %g x a permutation of 0..%d\n", k, scale[k], N - 1);
            check_failures++;
        }
    free(o);
    free(o2);
    cuMemFree(buf);
    cuMemFree(olds);
    cuMemFree(olds2);
}

static void test_vec_add_bf16(CUmodule mod) {
    enum { NB = 256 }; /* bf16 integers are exact up to 256 */
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "k_vec_add_bf16"));
    CUdeviceptr buf = dalloc(32, 0), olds = dalloc(NB * 16, 0xff);
    void *args[] = {&buf, &olds};
    launch(f, 2, NB / 2, args);
    uint16_t h[16];
    MUST(cuMemcpyDtoH(h, buf, 32));
    for (int k = 0; k < 14; k++)
        if (h[k] != 0x4380) { /* 256.0 */
            fprintf(stderr, "vec_add_bf16: lane %d = 0x%04x, expected 0x4380\n", k, h[k]);
            check_failures++;
        }
    uint16_t o[NB * 8];
    MUST(cuMemcpyDtoH(o, olds, sizeof o));
    for (unsigned k = 0; k < 8; k++)
        if (!is_count_perm16(o + k, NB, 8, 1)) {
            fprintf(stderr, "vec_add_bf16: the old values of element %u are not a permutation of 0..%d\n", k, NB - 1);
            check_failures++;
        }
    cuMemFree(buf);
    cuMemFree(olds);
}

/* threads 0-7 v8.f16 min, 8-15 v8.f16 max, 16-23 v4.bf16x2 min, 24-31 v4.bf16x2 max; 4 rounds cover all 256
 * ordered pairs of the 16 special values for each of the four */
static void test_minmax_table(CUmodule mod) {
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "k_minmax_table"));
    CUdeviceptr dmem = dalloc(32 * 16, 0), dops = dalloc(32 * 16, 0), dolds = dalloc(32 * 16, 0);
    int bad = 0;
    for (unsigned round = 0; round < 4; round++) {
        uint16_t mem[32 * 8], ops[32 * 8], got[32 * 8], olds[32 * 8];
        for (unsigned t = 0; t < 32; t++)
            for (unsigned k = 0; k < 8; k++) {
                unsigned j = round * 64 + (t % 8) * 8 + k, bf = t >= 16;
                mem[t * 8 + k] = special[bf][j / 16];
                ops[t * 8 + k] = special[bf][j % 16];
            }
        MUST(cuMemcpyHtoD(dmem, mem, sizeof mem));
        MUST(cuMemcpyHtoD(dops, ops, sizeof ops));
        void *args[] = {&dmem, &dops, &dolds};
        launch(f, 1, 32, args);
        MUST(cuMemcpyDtoH(got, dmem, sizeof got));
        MUST(cuMemcpyDtoH(olds, dolds, sizeof olds));
        for (unsigned i = 0; i < 32 * 8; i++) {
            unsigned t = i / 8;
            int bf = t >= 16, is_max = (t / 8) % 2;
            uint16_t want = ref_minmax(mem[i], ops[i], bf, is_max);
            if ((got[i] != want || olds[i] != mem[i]) && bad++ < 10)
                fprintf(stderr, "minmax: %s.%s(0x%04x, 0x%04x) = 0x%04x (old 0x%04x), expected 0x%04x\n",
                        bf ? "bf16" : "f16", is_max ? "max" : "min", mem[i], ops[i], got[i], olds[i], want);
        }
    }
    if (bad) check_failures++;
    cuMemFree(dmem);
    cuMemFree(dops);
    cuMemFree(dolds);
}

/* N threads: red.v4.f16 max into buf[0..8) (from -inf), red.v2.bf16x2 min into buf[8..16) (from +inf) */
static void test_minmax_contended(CUmodule mod) {
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "k_minmax_contended"));
    uint16_t *ops = malloc(N * 16), init[8], want[8], got[8];
    for (int k = 0; k < 4; k++) init[k] = want[k] = 0xFC00;
    for (int k = 4; k < 8; k++) init[k] = want[k] = 0x7F80;
    uint32_t s = 12345;
    for (unsigned t = 0; t < N; t++)
        for (unsigned k = 0; k < 8; k++) {
            s = s * 1103515245u + 12345u;
            uint16_t v = (uint16_t)(s >> 16);
            int bf = k >= 4;
            if (t % 97 == 5) v = bf ? 0x7FC0 : 0x7E00; /* a few NaN operands: ignored */
            ops[t * 8 + k] = v;
            want[k] = ref_minmax(want[k], v, bf, !bf);
        }
    CUdeviceptr buf = dalloc(16, 0), dops = dalloc(N * 16, 0);
    MUST(cuMemcpyHtoD(buf, init, sizeof init));
    MUST(cuMemcpyHtoD(dops, ops, N * 16));
    void *args[] = {&buf, &dops};
    launch(f, NBLK, NTHR, args);
    MUST(cuMemcpyDtoH(got, buf, sizeof got));
    for (int k = 0; k < 8; k++)
        if (got[k] != want[k]) {
            fprintf(stderr, "minmax_contended: lane %d = 0x%04x, expected 0x%04x\n", k, got[k], want[k]);
            check_failures++;
        }
    free(ops);
    cuMemFree(buf);
    cuMemFree(dops);
}

/* ---------------------------------------------------------------- 128-bit atomics */

static void test_cas128(CUmodule mod) {
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "k_cas128"));
    CUdeviceptr cell = dalloc(16, 0), tickets = dalloc(N * 8, 0xff);
    void *args[] = {&cell, &tickets};
    launch(f, NBLK, NTHR, args);
    uint64_t c[2], *tk = malloc(N * 8);
    MUST(cuMemcpyDtoH(c, cell, 16));
    MUST(cuMemcpyDtoH(tk, tickets, N * 8));
    TRUE(c[0] == N);
    TRUE(c[1] == (uint64_t)N * (N + 1) / 2);
    unsigned char seen[N] = {0};
    int perm = 1;
    for (unsigned t = 0; t < N; t++) {
        if (tk[t] >= N || seen[tk[t]]) perm = 0;
        else seen[tk[t]] = 1;
    }
    if (!perm) fprintf(stderr, "cas128: the tickets are not a permutation of 0..%d\n", N - 1);
    TRUE(perm);
    free(tk);
    cuMemFree(cell);
    cuMemFree(tickets);
}

static void test_exch128(CUmodule mod) {
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "k_exch128"));
    uint64_t init[2] = {0, ~0ull};
    CUdeviceptr cell = dalloc(16, 0), olds = dalloc(N * 16, 0);
    MUST(cuMemcpyHtoD(cell, init, 16));
    void *args[] = {&cell, &olds};
    launch(f, NBLK, NTHR, args);
    uint64_t *v = malloc((N + 1) * 16);
    MUST(cuMemcpyDtoH(v, olds, N * 16));
    MUST(cuMemcpyDtoH(v + 2 * N, cell, 16));
    /* the N old values and the final one: each of {i, ~i}, i = 0..N, exactly once */
    unsigned char seen[N + 1] = {0};
    int ok = 1;
    for (unsigned i = 0; i <= N; i++) {
        uint64_t lo = v[2 * i], hi = v[2 * i + 1];
        if (hi != ~lo || lo > N || seen[lo]) ok = 0;
        else seen[lo] = 1;
    }
    if (!ok) fprintf(stderr, "exch128: the exchanged values are not each of {i, ~i}, i = 0..%d, once\n", N);
    TRUE(ok);
    free(v);
    cuMemFree(cell);
    cuMemFree(olds);
}

static void test_cas128_shared(CUmodule mod) {
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "k_cas128_shared"));
    CUdeviceptr out = dalloc(NBLK * 16, 0xff);
    void *args[] = {&out};
    launch(f, NBLK, NTHR, args);
    uint64_t o[NBLK * 2];
    MUST(cuMemcpyDtoH(o, out, sizeof o));
    for (unsigned b = 0; b < NBLK; b++)
        if (o[2 * b] != NTHR || o[2 * b + 1] != (uint64_t)NTHR * (NTHR + 1) / 2) {
            fprintf(stderr, "cas128_shared: block %u: {%llu, %llu}, expected {%d, %d}\n", b, (unsigned long long)o[2 * b],
                    (unsigned long long)o[2 * b + 1], NTHR, NTHR * (NTHR + 1) / 2);
            check_failures++;
        }
    cuMemFree(out);
}

/* ---------------------------------------------------------------- multimem */

static void test_multimem(CUmodule mod) {
    CUfunction fr, fl;
    MUST(cuModuleGetFunction(&fr, mod, "k_multimem_red"));
    MUST(cuModuleGetFunction(&fl, mod, "k_multimem_ld_st"));
    uint8_t init[64] = {0};
    const uint32_t smallest = 0x80000000u, ones = 0xffffffffu;
    memcpy(init + 4, &smallest, 4);
    memcpy(init + 8, &ones, 4);
    CUdeviceptr buf = dalloc(64, 0), out = dalloc(80, 0xee);
    MUST(cuMemcpyHtoD(buf, init, 64));
    void *ar[] = {&buf};
    launch(fr, NBLK, NTHR, ar);
    void *al[] = {&buf, &out};
    launch(fl, 1, 1, al);
    uint8_t b[64], o[80];
    MUST(cuMemcpyDtoH(b, buf, 64));
    MUST(cuMemcpyDtoH(o, out, 80));
    uint32_t u;
    int32_t s;
    uint64_t u64;
    float fv[4];
    uint16_t h[8];
    const float fwant[4] = {N, 2.0f * N, 4.0f * N, 0.5f * N};
    const uint64_t sum = (uint64_t)N * (N - 1) / 2;
    /* the reductions */
    memcpy(&u, b, 4);
    TRUE(u == N);
    memcpy(&s, b + 4, 4);
    TRUE(s == N - 1 - 500);
    memcpy(&u, b + 8, 4);
    TRUE(u == 0);
    memcpy(fv, b + 16, 16);
    TRUE(!memcmp(fv, fwant, 16));
    memcpy(h, b + 32, 16);
    for (int k = 0; k < 8; k++) TRUE(h[k] == 0x6400);
    memcpy(&u64, b + 48, 8);
    TRUE(u64 == sum);
    /* ld_reduce and st of the results */
    memcpy(fv, o, 16);
    TRUE(!memcmp(fv, fwant, 16));
    memcpy(&u, o + 16, 4);
    TRUE(u == N);
    memcpy(&s, o + 20, 4);
    TRUE(s == N - 1 - 500);
    memcpy(h, o + 24, 16);
    for (int k = 0; k < 8; k++) TRUE(h[k] == 0x6400);
    memcpy(&u64, o + 40, 8);
    TRUE(u64 == sum);
    memcpy(fv, o + 48, 8);
    TRUE(fv[0] == fwant[0] && fv[1] == fwant[1]);
    memcpy(&u64, o + 56, 8);
    TRUE(u64 == sum);
    memcpy(h, o + 64, 16);
    for (int k = 0; k < 8; k++) TRUE(h[k] == 0x6400);
    cuMemFree(buf);
    cuMemFree(out);
}

/* ---------------------------------------------------------------- st.bulk */

static void test_st_bulk(const char *path) {
    CUmodule mod;
    char *ptx = test_read_file(path, NULL);
    if (!ptx) {
        perror(path);
        exit(1);
    }
    MUST(cuModuleLoadData(&mod, ptx));
    free(ptx);
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "k_st_bulk"));
    CUdeviceptr buf = dalloc(256, 0x5a), out = dalloc(64, 0);
    uint64_t size = 200;
    void *args[] = {&buf, &size, &out};
    launch(f, 1, 32, args);
    uint8_t b[256], o[64];
    MUST(cuMemcpyDtoH(b, buf, 256));
    MUST(cuMemcpyDtoH(o, out, 64));
    int bad = 0;
    for (unsigned i = 0; i < 256; i++) bad |= b[i] != (i >= 8 && i < 8 + size ? 0 : 0x5a);
    for (unsigned i = 0; i < 64; i++) bad |= o[i] != (i >= 16 && i < 48 ? 0 : 0xab);
    if (bad) fprintf(stderr, "st_bulk: wrong bytes\n");
    TRUE(!bad);
    cuMemFree(buf);
    cuMemFree(out);
    cuModuleUnload(mod);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s atomics_sm90.ptx st_bulk.ptx\n", argv[0]);
        return 2;
    }
    CUmodule mod = must_load_ptx(argv[1]);
    test_vec_add(mod);
    test_vec_add_bf16(mod);
    test_minmax_table(mod);
    test_minmax_contended(mod);
    test_cas128(mod);
    test_exch128(mod);
    test_cas128_shared(mod);
    test_multimem(mod);
    test_st_bulk(argv[2]);
    return check_done("test_atomics_sm90");
}
