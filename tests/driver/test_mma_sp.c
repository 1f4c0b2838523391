/* test_mma_sp.c — mma.sp and mma.sp::ordered_metadata (sparse A + metadata) through libcuda.so.1, for every
 * form we lower (targets/llvm/emit_mma.c) and every defined sparsity selector. PTX is generated here, one module
 * per form, variant and selector; the fragment layouts, the metadata layout and the expansion of the compressed
 * A are written again here from the PTX ISA text (independently of abi/mx_forms.h):
 *   int:   small integers (floating forms: every product and sum exact) or raw random bits (integer forms), a
 *          random metadata nibble per row and chunk, the metadata lanes the selector does not name holding
 *          garbage: D computed exactly here (wrap-around or .satfinite clamp for the integer forms);
 *   half:  random values, one metadata pattern for all rows: mma.sp m16n8kK equals the dense mma.sync m16n8k(K/2)
 *          of the same compressed A registers and the B rows the pattern selects (bit for bit: the dense forms
 *          are the ones fitted to the H200); infinities and NaN in the B rows no row selects must not matter
 *          (the sparse tensor core multiplies only the stored values);
 *   full:  (forms whose dense m16n8kK exists) random values and metadata per row: equals the dense mma.sync
 *          m16n8kK of the expanded A.
 * Two hand-checked cases (known A, B, C, exact D written below) pin the metadata forms in absolute terms. */
#include <cuda.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

typedef struct {
    const char *td, *ta, *tb, *tc;
    unsigned k;
    bool sat;
} form;

static const form forms[] = {
    {"f32", "f16", "f16", "f32", 16, false},    {"f16", "f16", "f16", "f16", 16, false},
    {"f32", "bf16", "bf16", "f32", 16, false},  {"f32", "f16", "f16", "f32", 32, false},
    {"f16", "f16", "f16", "f16", 32, false},    {"f32", "bf16", "bf16", "f32", 32, false},
    {"f32", "tf32", "tf32", "f32", 8, false},   {"f32", "tf32", "tf32", "f32", 16, false},
    {"s32", "s8", "s8", "s32", 32, false},      {"s32", "u8", "s8", "s32", 32, true},
    {"s32", "s8", "u8", "s32", 64, false},      {"s32", "u8", "u8", "s32", 64, true},
    {"s32", "s4", "s4", "s32", 64, false},      {"s32", "u4", "s4", "s32", 128, false},
    {"s32", "u4", "u4", "s32", 128, true},      {"f32", "e4m3", "e4m3", "f32", 64, false},
    {"f32", "e5m2", "e4m3", "f32", 64, false},
};

static unsigned bits_of(const char *t) {
    if (!strcmp(t, "f16") || !strcmp(t, "bf16")) return 16;
    if (!strcmp(t, "s8") || !strcmp(t, "u8") || !strcmp(t, "e4m3") || !strcmp(t, "e5m2")) return 8;
    if (!strcmp(t, "s4") || !strcmp(t, "u4")) return 4;
    return 32;
}
static bool is_int(const char *t) { return t[0] == 's' || t[0] == 'u'; }

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* ---- element values (PTX ISA formats) ---- */
static float f32_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t bits_f32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static double f16_val(uint32_t h) { _Float16 x; uint16_t v = (uint16_t)h; memcpy(&x, &v, 2); return (double)x; }
static uint32_t f16_bits(double d) { _Float16 x = (_Float16)d; uint16_t v; memcpy(&v, &x, 2); return v; }

static double value(const char *t, uint32_t raw) {
    if (!strcmp(t, "f16")) return f16_val(raw);
    if (!strcmp(t, "bf16")) return f32_of(raw << 16);
    if (!strcmp(t, "tf32") || !strcmp(t, "f32")) return f32_of(raw);
    if (!strcmp(t, "e4m3") || !strcmp(t, "e5m2")) { /* exact small values only in the int check */
        static const uint8_t e4[5] = {0xc0, 0xb8, 0x00, 0x38, 0x40}, e5[5] = {0xc0, 0xbc, 0x00, 0x3c, 0x40};
        const uint8_t *c = t[1] == '4' ? e4 : e5;
        for (int i = 0; i < 5; i++)
            if (c[i] == raw) return i - 2;
        return 1e300; /* not one of ours: the int check never makes it */
    }
    if (!strcmp(t, "s8")) return (int8_t)raw;
    if (!strcmp(t, "s4")) return (int)((raw & 15) ^ 8) - 8;
    if (!strcmp(t, "s32")) return (int32_t)raw;
    return raw; /* u8, u4 */
}

static int tiny(void) { return (int)(rnd() % 5) - 2; }

/* the raw element for a small integer v in -2..2 */
static uint32_t small(const char *t, int v) {
    if (!strcmp(t, "f16")) return f16_bits(v);
    if (!strcmp(t, "bf16")) return bits_f32((float)v) >> 16;
    if (!strcmp(t, "e4m3")) return (const uint8_t[]){0xc0, 0xb8, 0x00, 0x38, 0x40}[v + 2];
    if (!strcmp(t, "e5m2")) return (const uint8_t[]){0xc0, 0xbc, 0x00, 0x3c, 0x40}[v + 2];
    return bits_f32((float)v); /* tf32, f32 */
}

/* a random raw element: uniform in [-r, r] for floating types (fp8: any byte but NaN/inf), raw bits for ints */
static uint32_t random_elem(const char *t, double r) {
    unsigned b = bits_of(t);
    if (is_int(t)) return b == 32 ? rnd() : rnd() & ((1u << b) - 1);
    if (!strcmp(t, "e4m3") || !strcmp(t, "e5m2")) {
        for (;;) {
            uint32_t v = rnd() & 0xff;
            if (t[1] == '4' ? (v & 0x7f) != 0x7f : (v & 0x7c) != 0x7c) return v;
        }
    }
    double x = ((double)rnd() / 4294967296.0 * 2 - 1) * r;
    if (!strcmp(t, "f16")) return f16_bits(x);
    if (!strcmp(t, "bf16")) return bits_f32((float)x) >> 16;
    return bits_f32((float)x);
}

/* ---- fragments (PTX ISA "Matrix fragments for mma.m16n8kK"; the sparse A like the dense A of K/2) ---- */
enum { FA, FB, FC };
/* row and column of element e of register j (element i of C/D counted over the registers) of `lane` */
static void frag_pos(int x, unsigned bits, unsigned lane, unsigned j, unsigned e, unsigned *r, unsigned *c) {
    unsigned P = 32 / bits, g = lane >> 2, t = lane & 3;
    if (x == FA) *r = g + 8 * (j & 1), *c = t * P + e + 4 * P * (j >> 1);
    else if (x == FB) *r = t * P + e + 4 * P * j, *c = g;
    else *r = g + 8 * (j >> 1), *c = 2 * t + (j & 1);
}

/* A or B (rows x cols raw elements, row-major) -> the 32 lanes' words (nw per lane) */
static void to_frag(int x, unsigned bits, const uint32_t *m, unsigned cols, unsigned nw, uint32_t *words) {
    unsigned per = 32 / bits;
    for (unsigned l = 0; l < 32; l++)
        for (unsigned w = 0; w < nw; w++) {
            uint32_t v = 0;
            for (unsigned e = 0; e < per; e++) {
                unsigned r, c;
                frag_pos(x, bits, l, w, e, &r, &c);
                v |= (m[r * cols + c] & (bits == 32 ? ~0u : (1u << bits) - 1)) << (e * bits);
            }
            words[l * nw + w] = v;
        }
}

/* C/D: element i of the lane; f32/s32 one per word, f16 two */
static void cd_to_words(unsigned bits, const uint32_t *m, unsigned nw, uint32_t *words) {
    for (unsigned l = 0; l < 32; l++)
        for (unsigned w = 0; w < nw; w++) {
            uint32_t v = 0;
            for (unsigned h = 0; h < 32 / bits; h++) {
                unsigned i = w * (32 / bits) + h, r, c;
                frag_pos(FC, bits, l, i, 0, &r, &c);
                v |= m[r * 8 + c] << (h * bits);
            }
            words[l * nw + w] = v;
        }
}

/* ---- sparse A: units of 16 bits (16-/32-bit types) or 8 (8- and 4-bit), chunks of 4 units ---- */
static unsigned unit_of(unsigned bits) { return bits >= 16 ? 16 : 8; }
static uint32_t getbits(const uint32_t *m, unsigned bits, unsigned at, unsigned n) { /* n <= 16, in one element */
    return (m[at / bits] >> (at % bits)) & ((1u << n) - 1);
}
static void setbits(uint32_t *m, unsigned bits, unsigned at, unsigned n, uint32_t v) {
    m[at / bits] |= v << (at % bits);
}

/* the dense row (K elements) of a compressed row (K/2) and the row's nibbles (idx0 low, idx1 high); pruned[k]
 * set where nothing went */
static void expand_row(unsigned bits, unsigned K, const uint32_t *comp, const unsigned *nib, uint32_t *dense,
                       bool *pruned) {
    unsigned ub = unit_of(bits), chunks = K * bits / ub / 4, w = bits < ub ? bits : ub;
    memset(dense, 0, K * sizeof *dense);
    for (unsigned k = 0; k < K; k++) pruned[k] = true;
    for (unsigned c = 0; c < chunks; c++)
        for (unsigned s = 0; s < 2; s++) {
            unsigned du = 4 * c + ((nib[c] >> (2 * s)) & 3), cu = 2 * c + s;
            for (unsigned o = 0; o < ub; o += w) {
                setbits(dense, bits, du * ub + o, w, getbits(comp, bits, cu * ub + o, w));
                pruned[(du * ub + o) / bits] = false;
            }
        }
}

/* a random nibble: two distinct positions; ordered: idx0 < idx1; tf32 (1:2 over elements): 0b0100 or 0b1110 */
static unsigned random_nibble(unsigned bits, bool ordered) {
    if (bits == 32) return rnd() & 1 ? 0x4 : 0xe;
    for (;;) {
        unsigned a = rnd() & 3, b = rnd() & 3;
        if (a != b && (!ordered || a < b)) return b << 2 | a;
    }
}

/* the metadata word of every lane: group g's nibbles in its lanes 4 g + sel * nb + b, b < nb = Ku / 16; the
 * other lanes garbage. 16-bit units: lane b holds the nibbles of units [16 b, 16 b + 16) of rows g and g + 8,
 * low and high half-word. 8-bit units (8-bit types, 4-bit pairs; as the H200 recordings of
 * tests/conformance/cases/mma/mma_sp_* show): lane b = 2 j + h holds the 8 nibbles of units [32 j, 32 j + 32)
 * of row g + 8 h. */
static void meta_words(unsigned ub, unsigned Ku, unsigned sel, unsigned nib[16][16], uint32_t *meta) {
    unsigned nb = Ku / 16;
    for (unsigned l = 0; l < 32; l++) meta[l] = rnd();
    for (unsigned g = 0; g < 8; g++)
        for (unsigned b = 0; b < nb; b++) {
            uint32_t v = 0;
            for (unsigned q = 0; q < 8; q++)
                if (ub == 16) v |= nib[g + 8 * (q / 4)][4 * b + q % 4] << (4 * q);
                else v |= nib[g + 8 * (b % 2)][8 * (b / 2) + q] << (4 * q);
            meta[4 * g + sel * nb + b] = v;
        }
}

/* ---- PTX ---- */
static char *ptx_text;
static size_t ptx_len;
static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ptx_len += (size_t)vsnprintf(ptx_text + ptx_len, 65536 - ptx_len, fmt, ap);
    va_end(ap);
}
static const char *rtype(const char *t) { return !strcmp(t, "f32") ? ".f32" : ".b32"; }

static void ldst(bool ld, char name, const char *ty, unsigned n, unsigned ptr, unsigned words) {
    out("\tmul.wide.u32 %%p6, %%l, %u;\n\tadd.u64 %%p7, %%p%u, %%p6;\n", words * 4, ptr);
    for (unsigned i = 0; i < n; i++) {
        if (ld) out("\tld.global%s %%%c%u, [%%p7+%u];\n", ty, name, i, 4 * i);
        else out("\tst.global%s [%%p7+%u], %%%c%u;\n", ty, 4 * i, name, i);
    }
}
static void vec(char name, unsigned n) {
    out("{");
    for (unsigned i = 0; i < n; i++) out("%s%%%c%u", i ? ", " : "", name, i);
    out("}");
}

/* words per lane of A (K columns), B (K rows), C/D */
static unsigned wA(const form *f, unsigned K) { return 16 * K * bits_of(f->ta) / 1024; }
static unsigned wB(const form *f, unsigned K) { return K * 8 * bits_of(f->tb) / 1024; }
static unsigned wCD(const char *t) { return 16 * 8 * bits_of(t) / 1024; }

/* kernel `name`(pA, pB, pC, pE, pD): sparse (sel >= 0; ordered) or dense mma of depth K */
static void kernel(const char *name, const form *f, unsigned K, int sel, bool ordered) {
    unsigned na = wA(f, sel >= 0 ? K / 2 : K), nb = wB(f, K), nc = wCD(f->tc), nd = wCD(f->td);
    out(".visible .entry %s(.param .u64 pA, .param .u64 pB, .param .u64 pC, .param .u64 pE, .param .u64 pD)\n{\n"
        "\t.reg .b64 %%p<8>;\n\t.reg .b32 %%l, %%e0;\n\t.reg .b32 %%a<8>;\n\t.reg .b32 %%b<8>;\n"
        "\t.reg %s %%c<8>;\n\t.reg %s %%d<8>;\n", name, rtype(f->tc), rtype(f->td));
    for (unsigned i = 0; i < 5; i++)
        out("\tld.param.u64 %%p%u, [p%c];\n\tcvta.to.global.u64 %%p%u, %%p%u;\n", i, "ABCED"[i], i, i);
    out("\tmov.u32 %%l, %%tid.x;\n");
    ldst(true, 'a', ".b32", na, 0, na);
    ldst(true, 'b', ".b32", nb, 1, nb);
    ldst(true, 'c', !strcmp(f->tc, "f32") ? ".f32" : ".b32", nc, 2, nc);
    if (sel >= 0) ldst(true, 'e', ".b32", 1, 3, 1);
    out("\tmma%s.sync.aligned.m16n8k%u.row.col%s.%s.%s.%s.%s ", sel < 0 ? "" : ordered ? ".sp::ordered_metadata" : ".sp",
        K, f->sat ? ".satfinite" : "", f->td, f->ta, f->tb, f->tc);
    vec('d', nd), out(", "), vec('a', na), out(", "), vec('b', nb), out(", "), vec('c', nc);
    if (sel >= 0) out(", %%e0, %d", sel);
    out(";\n");
    ldst(false, 'd', !strcmp(f->td, "f32") ? ".f32" : ".b32", nd, 4, nd);
    out("\tret;\n}\n\n");
}

static bool dense_ok(const form *f, unsigned K) { /* the dense mma.sync shapes of these types */
    unsigned b = bits_of(f->ta);
    if (!strcmp(f->ta, "tf32")) return K == 4 || K == 8;
    if (b == 16) return K == 8 || K == 16;
    if (!strcmp(f->ta, "e4m3") || !strcmp(f->ta, "e5m2")) return K == 16 || K == 32;
    if (b == 8) return K == 16 || K == 32;
    return K == 32 || K == 64;
}

static CUdeviceptr dA, dB, dC, dE, dD;
static void run(CUmodule mod, const char *name, const uint32_t *a, unsigned na, const uint32_t *b, unsigned nb,
                const uint32_t *c, unsigned nc, const uint32_t *e, uint32_t *d, unsigned nd) {
    CUfunction fn;
    MUST(cuModuleGetFunction(&fn, mod, name));
    OK(cuMemcpyHtoD(dA, a, 32 * 4 * na));
    OK(cuMemcpyHtoD(dB, b, 32 * 4 * nb));
    OK(cuMemcpyHtoD(dC, c, 32 * 4 * nc));
    OK(cuMemcpyHtoD(dE, e, 32 * 4));
    OK(cuMemsetD8(dD, 0xcd, 32 * 4 * nd));
    void *args[] = {&dA, &dB, &dC, &dE, &dD};
    OK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(d, dD, 32 * 4 * nd));
}

static int compare(const char *what, const form *f, bool ordered, int sel, const uint32_t *got, const uint32_t *want,
                   unsigned n) {
    int bad = 0;
    for (unsigned i = 0; i < n; i++)
        if (got[i] != want[i] && bad++ < 3)
            fprintf(stderr, "%s m16n8k%u.%s.%s.%s.%s%s%s sel %d: word %u (lane %u) got %08x want %08x\n", what, f->k,
                    f->td, f->ta, f->tb, f->tc, f->sat ? " satfinite" : "", ordered ? " ordered" : "", sel, i,
                    i / (n / 32), got[i], want[i]);
    if (bad) check_failures++;
    return bad;
}

/* one form, variant and selector: the three checks of the header */
static void check_form(const form *f, bool ordered, unsigned sel) {
    unsigned K = f->k, Kc = K / 2, ab = bits_of(f->ta), bb = bits_of(f->tb), Ku = K * ab / unit_of(ab);
    unsigned na = wA(f, Kc), nbw = wB(f, K), nbh = wB(f, Kc), nc = wCD(f->tc), nd = wCD(f->td);
    static char text[65536];
    ptx_text = text, ptx_len = 0;
    out(".version 8.5\n.target sm_90\n.address_size 64\n\n");
    kernel("ksp", f, K, (int)sel, ordered);
    if (!is_int(f->ta)) kernel("khalf", f, Kc, -1, false);
    bool full = !is_int(f->ta) && dense_ok(f, K);
    if (full) kernel("kfull", f, K, -1, false);
    CUmodule mod;
    CUresult r = cuModuleLoadData(&mod, text);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "module for m16n8k%u %s (sel %u) did not load (%d):\n%s", K, f->ta, sel, (int)r, text);
        check_failures++;
        return;
    }
    static uint32_t comp[16 * 64], A[16 * 128], B[128 * 8], Bh[64 * 8], C[16 * 8], D[16 * 8];
    static uint32_t fa[32 * 8], fb[32 * 8], fc[32 * 8], meta[32], got[32 * 8], want[32 * 8];
    static unsigned nib[16][16];
    static bool pruned[16][128];

    /* int: exact */
    for (unsigned i = 0; i < 16 * Kc; i++) comp[i] = is_int(f->ta) ? random_elem(f->ta, 0) : small(f->ta, tiny());
    for (unsigned i = 0; i < K * 8; i++) B[i] = is_int(f->tb) ? random_elem(f->tb, 0) : small(f->tb, tiny());
    for (unsigned i = 0; i < 128; i++)
        C[i] = is_int(f->tc) ? rnd() : !strcmp(f->tc, "f16") ? f16_bits(tiny()) : small("f32", tiny());
    for (unsigned rr = 0; rr < 16; rr++) {
        for (unsigned c = 0; c < Ku / 4; c++) nib[rr][c] = random_nibble(ab, ordered);
        expand_row(ab, K, comp + rr * Kc, nib[rr], A + rr * K, pruned[rr]);
    }
    for (unsigned rr = 0; rr < 16; rr++)
        for (unsigned c = 0; c < 8; c++) {
            double s = value(f->tc, C[rr * 8 + c]);
            for (unsigned k = 0; k < K; k++) s += value(f->ta, A[rr * K + k]) * value(f->tb, B[k * 8 + c]);
            if (is_int(f->td)) {
                if (f->sat) s = s > 2147483647.0 ? 2147483647.0 : s < -2147483648.0 ? -2147483648.0 : s;
                D[rr * 8 + c] = (uint32_t)(int64_t)s;
            } else {
                D[rr * 8 + c] = !strcmp(f->td, "f16") ? f16_bits(s + 0.0) : bits_f32((float)(s + 0.0));
            }
        }
    to_frag(FA, ab, comp, Kc, na, fa);
    to_frag(FB, bb, B, 8, nbw, fb);
    cd_to_words(bits_of(f->tc), C, nc, fc);
    cd_to_words(bits_of(f->td), D, nd, want);
    meta_words(unit_of(ab), Ku, sel, nib, meta);
    run(mod, "ksp", fa, na, fb, nbw, fc, nc, meta, got, nd);
    compare("int", f, ordered, (int)sel, got, want, 32 * nd);
    if (is_int(f->ta)) {
        OK(cuModuleUnload(mod));
        return;
    }

    /* half: one pattern for every row; the dense K/2 product of the B rows it selects */
    for (unsigned i = 0; i < 16 * Kc; i++) comp[i] = random_elem(f->ta, 1.0);
    for (unsigned i = 0; i < K * 8; i++) B[i] = random_elem(f->tb, 1.0);
    for (unsigned i = 0; i < 128; i++) C[i] = !strcmp(f->tc, "f16") ? random_elem("f16", 4.0) : random_elem("f32", 4.0);
    for (unsigned c = 0; c < Ku / 4; c++) nib[0][c] = random_nibble(ab, ordered);
    for (unsigned rr = 0; rr < 16; rr++) {
        memcpy(nib[rr], nib[0], sizeof nib[0]);
        expand_row(ab, K, comp + rr * Kc, nib[rr], A + rr * K, pruned[rr]);
    }
    for (unsigned j = 0; j < Kc; j++) { /* B row of stored element j: where its (first) unit goes */
        unsigned ub = unit_of(ab), cu = j * ab / ub, du = 4 * (cu / 2) + ((nib[0][cu / 2] >> (2 * (cu % 2))) & 3);
        memcpy(Bh + 8 * j, B + 8 * ((du * ub + j * ab % ub) / ab), 32);
    }
    for (unsigned k = 0; k < K; k++) { /* the rows no stored element selects get specials */
        if (pruned[0][k] && bb >= 16) {
            for (unsigned c = 0; c < 8; c++)
                B[8 * k + c] = bb == 32 ? (c & 1 ? 0x7f800000u : 0x7fc00000u) : !strcmp(f->tb, "f16") ? 0x7c00u : 0xff80u;
        }
    }
    to_frag(FA, ab, comp, Kc, na, fa);
    to_frag(FB, bb, B, 8, nbw, fb);
    cd_to_words(bits_of(f->tc), C, nc, fc);
    meta_words(unit_of(ab), Ku, sel, nib, meta);
    run(mod, "ksp", fa, na, fb, nbw, fc, nc, meta, got, nd);
    to_frag(FB, bb, Bh, 8, nbh, fb);
    run(mod, "khalf", fa, na, fb, nbh, fc, nc, meta, want, nd);
    compare("half", f, ordered, (int)sel, got, want, 32 * nd);

    /* full: metadata per row; the dense K product of the expanded A */
    if (full) {
        for (unsigned i = 0; i < K * 8; i++) B[i] = random_elem(f->tb, 1.0);
        for (unsigned rr = 0; rr < 16; rr++) {
            for (unsigned c = 0; c < Ku / 4; c++) nib[rr][c] = random_nibble(ab, ordered);
            expand_row(ab, K, comp + rr * Kc, nib[rr], A + rr * K, pruned[rr]);
        }
        to_frag(FA, ab, comp, Kc, na, fa);
        to_frag(FB, bb, B, 8, nbw, fb);
        meta_words(unit_of(ab), Ku, sel, nib, meta);
        run(mod, "ksp", fa, na, fb, nbw, fc, nc, meta, got, nd);
        to_frag(FA, ab, A, K, wA(f, K), fa);
        run(mod, "kfull", fa, wA(f, K), fb, nbw, fc, nc, meta, want, nd);
        compare("full", f, ordered, (int)sel, got, want, 32 * nd);
    }
    OK(cuModuleUnload(mod));
}

/* hand-checked: m16n8k16 .f32.f16 (selector 1: lane 4 g + 1 holds the metadata) and m16n8k32 .s32.s8 ordered
 * (selector 1: lane 4 g + 2 row g, lane 4 g + 3 row g + 8). A row r stores (r + 1, -1) in every chunk; the
 * nibble 0b1101 (positions 1 and 3; f16: 0xdddd per row; s8: row g + 8, 0xdddddddd) or 0b1000 (positions 0 and
 * 2, s8 row g: 0x88888888). B[k][n] = k % 4 + n, C[r][n] = r. Row r, column n, positions 1 and 3: per chunk
 * (r + 1)(1 + n) - (3 + n), f16 four chunks: 4 ((r + 1)(1 + n) - 3 - n) + r, s8 eight: 8 (...) + r;
 * positions 0 and 2 (s8, r < 8): per chunk (r + 1) n - (2 + n), eight chunks: 8 ((r + 1) n - 2 - n) + r. */
static void check_hand(void) {
    for (int which = 0; which < 2; which++) {
        const form *f = which ? &forms[8] : &forms[0];
        unsigned K = f->k, bits = bits_of(f->ta), na = wA(f, K / 2), nb = wB(f, K), sel = 1;
        static char text[65536];
        ptx_text = text, ptx_len = 0;
        out(".version 8.5\n.target sm_90\n.address_size 64\n\n");
        kernel("ksp", f, K, (int)sel, which == 1);
        CUmodule mod;
        MUST(cuModuleLoadData(&mod, text));
        static uint32_t comp[16 * 16], B[32 * 8], C[128], fa[256], fb[256], fc[256], meta[32], got[256];
        for (unsigned r = 0; r < 16; r++)
            for (unsigned j = 0; j < K / 2; j++)
                comp[r * (K / 2) + j] = j % 2 ? (which ? 0xffu : 0xbc00u) : which ? r + 1 : f16_bits(r + 1);
        for (unsigned k = 0; k < K; k++)
            for (unsigned n = 0; n < 8; n++) B[k * 8 + n] = which ? k % 4 + n : f16_bits(k % 4 + n);
        for (unsigned r = 0; r < 16; r++)
            for (unsigned n = 0; n < 8; n++) C[r * 8 + n] = which ? r : bits_f32((float)r);
        to_frag(FA, bits, comp, K / 2, na, fa);
        to_frag(FB, bits, B, 8, nb, fb);
        cd_to_words(32, C, 4, fc);
        for (unsigned l = 0; l < 32; l++) meta[l] = 0x12345678u; /* unselected lanes: an invalid pattern */
        for (unsigned g = 0; g < 8; g++) {
            if (which) meta[4 * g + 2] = 0x88888888u, meta[4 * g + 3] = 0xddddddddu;
            else meta[4 * g + 1] = 0xddddddddu;
        }
        run(mod, "ksp", fa, na, fb, nb, fc, 4, meta, got, 4);
        int bad = 0;
        for (unsigned l = 0; l < 32; l++)
            for (unsigned i = 0; i < 4; i++) {
                int r = (int)(l / 4 + 8 * (i / 2)), n = (int)(2 * (l % 4) + i % 2);
                int want = which && r < 8 ? 8 * ((r + 1) * n - 2 - n) + r
                           : which ? 8 * ((r + 1) * (1 + n) - 3 - n) + r : 4 * ((r + 1) * (1 + n) - 3 - n) + r;
                uint32_t w = which ? (uint32_t)want : bits_f32((float)want);
                if (got[l * 4 + i] != w && bad++ < 3)
                    fprintf(stderr, "hand %s: lane %u d%u got %08x want %08x (%d)\n", which ? "s8" : "f16", l, i,
                            got[l * 4 + i], w, want);
            }
        if (bad) check_failures++;
        OK(cuModuleUnload(mod));
    }
}

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    MUST(cuInit(0));
    MUST(cuDeviceGet(&dev, 0));
    MUST(cuDevicePrimaryCtxRetain(&ctx, dev));
    MUST(cuCtxSetCurrent(ctx));
    MUST(cuMemAlloc(&dA, 4096));
    MUST(cuMemAlloc(&dB, 4096));
    MUST(cuMemAlloc(&dC, 4096));
    MUST(cuMemAlloc(&dE, 4096));
    MUST(cuMemAlloc(&dD, 4096));
    check_hand();
    unsigned n = 0;
    for (unsigned i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        const form *f = &forms[i];
        unsigned ab = bits_of(f->ta), Ku = f->k * ab / unit_of(ab);
        for (int ordered = 0; ordered < 2; ordered++)
            for (unsigned sel = 0; sel * (Ku / 16) < 4; sel++, n++) check_form(f, ordered, sel);
    }
    printf("test_mma_sp: %u form/variant/selector combinations\n", n);
    return check_done("test_mma_sp");
}
