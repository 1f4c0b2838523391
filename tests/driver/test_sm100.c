/* test_sm100.c — sm_100a arithmetic forms (tests/driver/sm100.ptx, sm100_clc.ptx) through libcuda.so.1: packed f32x2 arithmetic,
 * the microscaling conversions (e2m1/e2m3/e3m2/ue8m0), stochastic rounding (cvt.rs), redux.sync on f32 and
 * clusterlaunchcontrol. Our H200 cannot run sm_100a, so every expected value is computed here from the PTX ISA
 * rules, by methods independent of the compiler's: the host FPU in each rounding mode (f32x2), tables decoded
 * from the format definitions and a nearest-value search over them (conversions), value arithmetic for the
 * stochastic rounding, a plain loop for the reductions. Where the ISA leaves a result open (a NaN converted to a
 * format without NaN, the x4 layouts of rbits) the choice made by targets/llvm/emit_cvt_fp4.c / emit_cvt_rs.c is
 * what is checked, and said so below. */
#include <cuda.h>
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

static uint32_t fb(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float bf(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint32_t lo32(uint64_t v) { return (uint32_t)v; }
static uint32_t hi32(uint64_t v) { return (uint32_t)(v >> 32); }

static CUdeviceptr dev_copy(const void *p, size_t n) {
    CUdeviceptr d;
    MUST(cuMemAlloc(&d, n));
    MUST(cuMemcpyHtoD(d, p, n));
    return d;
}

/* ------------------------------------------------------------------ f32x2 */

static float ftz(float x) { return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x; }

/* one f32 operation in host rounding mode `mode` (volatile: computed at run time, after fesetround) */
static uint32_t host_op(int op, float a, float b, float c, int mode, int flush) {
    volatile float x = a, y = b, z = c, r;
    if (flush) { x = ftz(x); y = ftz(y); z = ftz(z); }
    fesetround(mode);
    switch (op) {
    case 0: r = x + y; break;
    case 1: r = x - y; break;
    case 2: r = x * y; break;
    default: r = fmaf(x, y, z); break;
    }
    fesetround(FE_TONEAREST);
    float rr = r;
    return fb(flush ? ftz(rr) : rr);
}

static int test_f32x2(CUmodule mod) {
    /* elements: a, b, c. Inexact sums/products in every direction, overflow, exact zero sums (-0 in .rm), a
     * product that ties on the subnormal grid, subnormal inputs for .ftz */
    static const float el[][3] = {
        {1.0f, 0x1.8p-24f, 0.1f},           {-1.0f, 0x1.8p-24f, -0.1f},        {0.1f, 0.2f, 0.3f},
        {-0.1f, 0.7f, 1e-3f},               {0x1.fffffep127f, 0x1.fffffep127f, -1.0f},
        {1.0f, -1.0f, 0.0f},                {0x1p-149f, 0.5f, 0.0f},            {3.0f, 0x1.555556p-2f, -1.0f},
        {0x1p-130f, 3.0f, 0x1p-140f},       {-7.25f, 0x1.000002p0f, 7.25f},    {1e-20f, -1e-20f, 1e-40f},
        {-0x1.fffffep127f, 2.0f, 0x1p127f},
    };
    enum { N = sizeof el / sizeof el[0] };
    uint64_t in[N * 3], out[N * 16];
    for (unsigned i = 0; i < N; i++) {
        const float *l = el[i], *h = el[(i + 5) % N]; /* the two halves differ */
        for (unsigned k = 0; k < 3; k++) in[3 * i + k] = (uint64_t)fb(h[k]) << 32 | fb(l[k]);
    }
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "k_f32x2"));
    CUdeviceptr din = dev_copy(in, sizeof in), dout;
    MUST(cuMemAlloc(&dout, sizeof out));
    void *args[] = {&din, &dout};
    OK(cuLaunchKernel(f, 1, 1, 1, N, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(out, dout, sizeof out));
    /* the order of sm100.ptx k_f32x2 */
    static const struct { int op, mode, flush; } form[16] = {
        {0, FE_TONEAREST, 0}, {0, FE_TOWARDZERO, 0}, {0, FE_DOWNWARD, 0}, {0, FE_UPWARD, 0},
        {1, FE_TONEAREST, 0}, {1, FE_DOWNWARD, 0},   {2, FE_TONEAREST, 0}, {2, FE_TOWARDZERO, 0},
        {2, FE_DOWNWARD, 0}, {2, FE_UPWARD, 0},      {3, FE_TONEAREST, 0}, {3, FE_TOWARDZERO, 0},
        {3, FE_DOWNWARD, 0}, {3, FE_UPWARD, 0},      {0, FE_TONEAREST, 1}, {2, FE_TONEAREST, 1},
    };
    int bad = 0;
    for (unsigned i = 0; i < N; i++)
        for (unsigned j = 0; j < 16; j++) {
            uint64_t a = in[3 * i], b = in[3 * i + 1], c = in[3 * i + 2], got = out[16 * i + j];
            uint32_t wl = host_op(form[j].op, bf(lo32(a)), bf(lo32(b)), bf(lo32(c)), form[j].mode, form[j].flush);
            uint32_t wh = host_op(form[j].op, bf(hi32(a)), bf(hi32(b)), bf(hi32(c)), form[j].mode, form[j].flush);
            if (lo32(got) != wl || hi32(got) != wh) {
                fprintf(stderr, "f32x2 case %u form %u: got %08x:%08x, expected %08x:%08x\n", i, j, hi32(got),
                        lo32(got), wh, wl);
                bad++;
            }
        }
    TRUE(bad == 0);
    cuMemFree(din);
    cuMemFree(dout);
    return bad;
}

/* ------------------------------------------------------------------ narrow formats */

typedef struct fmt {
    unsigned tm, te, bias, maxc; /* mantissa bits, exponent bits, bias, largest finite magnitude code */
} fmt;
static const fmt E2M1 = {1, 2, 1, 0x7}, E2M3 = {3, 2, 1, 0x1f}, E3M2 = {2, 3, 3, 0x1f}, E4M3 = {3, 4, 7, 0x7e},
                 E5M2 = {2, 5, 15, 0x7b}, F16 = {10, 5, 15, 0x7bff}, BF16 = {7, 8, 127, 0x7f7f};

/* magnitude code -> value (ISA format definitions: e == 0 subnormal m * 2^(1-bias-tm), else (1 + m/2^tm) 2^(e-bias));
 * code maxc + 1 is the start of the next binade (infinity where the format has one) */
static double mag_value(const fmt *F, unsigned c) {
    unsigned e = c >> F->tm, m = c & ((1u << F->tm) - 1);
    if (e == 0) return ldexp((double)m, 1 - (int)F->bias - (int)F->tm);
    return ldexp(1.0 + ldexp((double)m, -(int)F->tm), (int)e - (int)F->bias);
}
static double code_value(const fmt *F, unsigned c) {
    double v = mag_value(F, c & ((1u << (F->tm + F->te)) - 1));
    return (c >> (F->tm + F->te)) & 1 ? -v : v;
}

/* round to nearest, ties to the even code, satfinite; relu: negative (incl. -0) -> +0; NaN -> +MAX_NORM (our
 * choice for the formats without NaN: the ISA does not define it) */
static unsigned enc_rn(const fmt *F, float x, int relu) {
    if (isnan(x)) return F->maxc;
    if (relu && signbit(x)) return 0;
    double m = fabs((double)x);
    unsigned best = 0;
    for (unsigned c = 1; c <= F->maxc; c++) {
        double dc = fabs(mag_value(F, c) - m), db = fabs(mag_value(F, best) - m);
        if (dc < db || (dc == db && !(c & 1))) best = c;
    }
    if (m > mag_value(F, F->maxc)) best = F->maxc;
    return best | (signbit(x) ? 1u << (F->tm + F->te) : 0);
}

/* ue8m0: code c is 2^(c-127), 0xff NaN; rz = largest power <= x, rp = smallest power >= x; beyond 2^127: NaN or,
 * satfinite, 0xfe; zero/negative/below 2^-127: code 0 (no zero, no sign: our choice, the ISA is silent) */
static unsigned enc_ue8m0(float x, int up, int satfinite) {
    if (isnan(x)) return 0xff;
    if (!(x > 0)) return 0;
    if (isinf(x)) return satfinite ? 0xfe : 0xff;
    int k = -127;
    while (k < 200 && ldexp(1.0, k + 1) <= (double)x) k++; /* 2^k <= x < 2^(k+1) */
    if (up && ldexp(1.0, k) < (double)x) k++;
    if (k < -127) k = -127;
    if (k > 127) return satfinite ? 0xfe : 0xff;
    return (unsigned)(k + 127);
}

/* exact f32 -> f16 bits of a value that is an f16 normal or zero */
static uint32_t f16_of(double v) {
    uint32_t b = fb((float)v), s = (b >> 16) & 0x8000, e = (b >> 23) & 0xff;
    if (e == 0) return s;
    return s | ((e - 127 + 15) << 10) | ((b >> 13) & 0x3ff);
}

static int test_enc(CUmodule mod) {
    /* every code's value of each format, ties between neighbours, saturation, relu, NaN, infinities, ue8m0
     * boundaries */
    float v[256];
    unsigned n = 0;
    for (unsigned c = 0; c < 16; c++) v[n++] = (float)code_value(&E2M1, c);
    for (unsigned c = 0; c < 64; c++) v[n++] = (float)code_value(&E2M3, c);
    for (unsigned c = 0; c < 64; c++) v[n++] = (float)code_value(&E3M2, c);
    static const float extra[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, -5.0f, 7.0f, 100.0f, -100.0f,
                                  0.1f, 0.26f, -0.24f, 0x1p-4f, 0x1.8p-4f, 0x1.4p-3f, 0x1.cp-3f, 7.75f, 30.0f,
                                  -29.0f, 26.0f, 27.0f, 0.0f, -0.0f, 1e-30f, -1e-30f, 1.0f, 2.0f, 3.0f,
                                  0x1p127f, 0x1.000002p127f, 0x1.fffffep127f, 0x1p-126f, 0x1p-127f, 0x1.000002p-127f,
                                  0x1p-149f, 0x1.8p-127f, 0.5f, 0.75f, 1.5f, 0x1.000002p0f, 0x1.fffffep-1f};
    for (unsigned k = 0; k < sizeof extra / sizeof extra[0]; k++) v[n++] = extra[k];
    v[n++] = INFINITY;
    v[n++] = -INFINITY;
    v[n++] = NAN;
    v[n++] = -NAN;
    if (n & 1) v[n++] = 4.0f;
    unsigned npairs = n / 2;
    /* pairs (v[2i], v[2i+1]) and, in a second half, swapped, so every value is converted as a and as b */
    float in[512];
    for (unsigned i = 0; i < npairs; i++) {
        in[2 * i] = v[2 * i];
        in[2 * i + 1] = v[2 * i + 1];
        in[2 * (npairs + i)] = v[2 * i + 1];
        in[2 * (npairs + i) + 1] = v[2 * i];
    }
    unsigned nt = 2 * npairs;
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "k_enc"));
    CUdeviceptr din = dev_copy(in, nt * 8), dout;
    uint32_t out[256 * 10];
    MUST(cuMemAlloc(&dout, nt * 40));
    void *args[] = {&din, &dout};
    OK(cuLaunchKernel(f, 1, 1, 1, nt, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(out, dout, nt * 40));
    int bad = 0;
    for (unsigned i = 0; i < nt; i++) {
        float a = in[2 * i], b = in[2 * i + 1];
        uint32_t want[10] = {
            enc_rn(&E2M1, a, 0) << 4 | enc_rn(&E2M1, b, 0),   enc_rn(&E2M1, a, 1) << 4 | enc_rn(&E2M1, b, 1),
            enc_rn(&E2M3, a, 0) << 8 | enc_rn(&E2M3, b, 0),   enc_rn(&E2M3, a, 1) << 8 | enc_rn(&E2M3, b, 1),
            enc_rn(&E3M2, a, 0) << 8 | enc_rn(&E3M2, b, 0),   enc_rn(&E3M2, a, 1) << 8 | enc_rn(&E3M2, b, 1),
            enc_ue8m0(a, 0, 0) << 8 | enc_ue8m0(b, 0, 0),     enc_ue8m0(a, 0, 1) << 8 | enc_ue8m0(b, 0, 1),
            enc_ue8m0(a, 1, 0) << 8 | enc_ue8m0(b, 1, 0),     enc_ue8m0(a, 1, 1) << 8 | enc_ue8m0(b, 1, 1),
        };
        for (unsigned j = 0; j < 10; j++)
            if (out[10 * i + j] != want[j]) {
                fprintf(stderr, "cvt encode (%a, %a) form %u: got %#x, expected %#x\n", a, b, j, out[10 * i + j], want[j]);
                bad++;
            }
    }
    /* hand-checked anchors from the ISA's e2m1 table (independent of enc_rn): ties to the even code, saturation */
    struct { float a, b; uint32_t e2m1; } hand[] = {
        {0.25f, 0.75f, 0x02}, {0.75f, 0.25f, 0x20}, {1.25f, 1.75f, 0x24}, {2.5f, 3.5f, 0x46}, {5.0f, -5.0f, 0x6e},
        {7.0f, 100.0f, 0x77}, {-100.0f, 0.1f, 0xf0},
    };
    for (unsigned k = 0; k < sizeof hand / sizeof hand[0]; k++) {
        int found = 0;
        for (unsigned i = 0; i < nt; i++)
            if (fb(in[2 * i]) == fb(hand[k].a) && fb(in[2 * i + 1]) == fb(hand[k].b)) {
                found = 1;
                if (out[10 * i] != hand[k].e2m1) {
                    fprintf(stderr, "cvt e2m1x2 (%g, %g): got %#x, ISA table says %#x\n", hand[k].a, hand[k].b,
                            out[10 * i], hand[k].e2m1);
                    bad++;
                }
            }
        TRUE(found);
    }
    TRUE(bad == 0);
    cuMemFree(din);
    cuMemFree(dout);
    return bad;
}

static int test_dec(CUmodule mod) {
    /* every 16-bit pattern whose bytes cover all codes: thread i gets x = i | (255 - i) << 8 | pattern << 16 */
    enum { NT = 256 };
    uint32_t in[NT], out[NT * 9];
    for (unsigned i = 0; i < NT; i++) in[i] = i | (255 - i) << 8 | (uint32_t)((i * 0x9e37u) & 0xffff) << 16;
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "k_dec"));
    CUdeviceptr din = dev_copy(in, sizeof in), dout;
    MUST(cuMemAlloc(&dout, sizeof out));
    void *args[] = {&din, &dout};
    OK(cuLaunchKernel(f, 1, 1, 1, NT, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(out, dout, sizeof out));
    /* e2m1 values of codes 0..15 from the ISA's format (1 sign, 2 exponent bits bias 1, 1 mantissa bit) */
    static const double e2m1[16] = {0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6};
    int bad = 0;
    for (unsigned i = 0; i < NT; i++) {
        uint32_t x = in[i], b0 = x & 0xff, b1 = (x >> 8) & 0xff;
        uint32_t want[9];
        for (unsigned relu = 0; relu < 2; relu++) {
            double lo = e2m1[b0 & 15], hi = e2m1[b0 >> 4];
            if (relu) { lo = signbit(lo) ? 0 : lo; hi = signbit(hi) ? 0 : hi; }
            want[relu] = f16_of(hi) << 16 | f16_of(lo);
            double l6 = code_value(&E2M3, b0 & 0x3f), h6 = code_value(&E2M3, b1 & 0x3f);
            double l7 = code_value(&E3M2, b0 & 0x3f), h7 = code_value(&E3M2, b1 & 0x3f);
            if (relu) {
                l6 = signbit(l6) ? 0 : l6; h6 = signbit(h6) ? 0 : h6;
                l7 = signbit(l7) ? 0 : l7; h7 = signbit(h7) ? 0 : h7;
            }
            want[2 + relu] = f16_of(h6) << 16 | f16_of(l6);
            want[4 + relu] = f16_of(h7) << 16 | f16_of(l7);
        }
        uint32_t u0 = b0 == 0xff ? 0x7fff : fb(ldexpf(1.0f, (int)b0 - 127)) >> 16;
        uint32_t u1 = b1 == 0xff ? 0x7fff : fb(ldexpf(1.0f, (int)b1 - 127)) >> 16;
        want[6] = u1 << 16 | u0;
        /* ue8m0x2 from the bf16x2 x: upper half -> upper byte */
        float xh = bf(x & 0xffff0000u), xl = bf(x << 16);
        want[7] = enc_ue8m0(xh, 0, 0) << 8 | enc_ue8m0(xl, 0, 0);
        want[8] = enc_ue8m0(xh, 1, 1) << 8 | enc_ue8m0(xl, 1, 1);
        for (unsigned j = 0; j < 9; j++)
            if (out[9 * i + j] != want[j]) {
                fprintf(stderr, "cvt decode %#x form %u: got %#x, expected %#x\n", x, j, out[9 * i + j], want[j]);
                bad++;
            }
    }
    TRUE(bad == 0);
    cuMemFree(din);
    cuMemFree(dout);
    return bad;
}

/* ------------------------------------------------------------------ cvt.rs */

/* stochastic rounding of x to F: lo = the largest magnitude <= |x|, frac = (|x| - lo) / ulp; rounded up iff
 * frac + r / 2^w >= 1 (the random bits added below the kept ones, carry out). Overflow: satfinite -> MAX_NORM,
 * else infinity (code maxc + 1, f16/bf16 only). NaN: nan (or +MAX_NORM for the formats without NaN). */
static unsigned enc_rs(const fmt *F, float x, uint32_t r, unsigned w, int relu, int satfinite, unsigned nan) {
    if (isnan(x)) return nan;
    unsigned sg = signbit(x) ? 1u << (F->tm + F->te) : 0;
    if (relu && sg) return 0;
    double m = fabs((double)x);
    unsigned c;
    if (m >= mag_value(F, F->maxc + 1)) {
        c = F->maxc + 1;
    } else {
        unsigned lo = 0;
        while (lo < F->maxc + 1 && mag_value(F, lo + 1) <= m) lo++;
        double frac = (m - mag_value(F, lo)) / (mag_value(F, lo + 1) - mag_value(F, lo));
        c = lo + (frac + ldexp((double)r, -(int)w) >= 1.0);
    }
    if (c > F->maxc) c = satfinite ? F->maxc : F->maxc + 1;
    return c | sg;
}

static int test_rs(CUmodule mod) {
    /* quads (a, b, e, f): values between grid points of every format, exact points, overflow, subnormal results,
     * negative values (relu), NaN; each with several random-bit words (0 = truncation, all ones) */
    static const float q[][4] = {
        {1.0f + 0x1p-12f, 1.0f + 0x1p-11f + 0x1p-13f, 1.3f, -1.3f},
        {0x1.fffp0f, 0x1.0008p0f, -2.7f, 3.3f},
        {0.1f, -0.1f, 5.5f, 0.2f},
        {1e-5f, 0x1p-20f, 0x1.8p-9f, -0x1.3p-7f},
        {70000.0f, -1e9f, 460.0f, 60000.0f},
        {1.0f, 2.0f, 0.5f, 4.0f},
        {NAN, -1.0f, 0.7f, 0.3f},
        {0x1.00ffp-126f, 0x1p-135f, 6.5f, -27.5f},
    };
    static const uint32_t rb[] = {0, 0xffffffffu, 0x80008000u, 0x12345678u, 0x7fff0001u, 0x00ff00ffu, 0xff00ff00u};
    enum { NQ = sizeof q / sizeof q[0], NR = sizeof rb / sizeof rb[0], NT = NQ * NR };
    float in[NT * 4];
    uint32_t rbits[NT], out[NT * 8];
    for (unsigned i = 0; i < NQ; i++)
        for (unsigned k = 0; k < NR; k++) {
            memcpy(&in[4 * (i * NR + k)], q[i], 16);
            rbits[i * NR + k] = rb[k];
        }
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "k_rs"));
    CUdeviceptr din = dev_copy(in, sizeof in), drb = dev_copy(rbits, sizeof rbits), dout;
    MUST(cuMemAlloc(&dout, sizeof out));
    void *args[] = {&din, &drb, &dout};
    OK(cuLaunchKernel(f, 1, 1, 1, NT, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(out, dout, sizeof out));
    int bad = 0;
    for (unsigned t = 0; t < NT; t++) {
        const float *x = &in[4 * t];
        uint32_t R = rbits[t];
        /* the bits each operand uses (emit_cvt_rs.c; f16x2/bf16x2 are the ISA's words, the x4 forms our reading) */
        uint32_t r13[2] = {(R >> 16) & 0x1fff, R & 0x1fff}, r16[2] = {R >> 16, R & 0xffff};
        uint32_t r8[4] = {R >> 24, (R >> 8) & 0xff, (R >> 16) & 0xff, R & 0xff};
        uint32_t want[8] = {0};
        want[0] = enc_rs(&F16, x[0], r13[0], 13, 0, 0, 0x7fff) << 16 | enc_rs(&F16, x[1], r13[1], 13, 0, 0, 0x7fff);
        want[1] = enc_rs(&F16, x[0], r13[0], 13, 1, 1, 0x7fff) << 16 | enc_rs(&F16, x[1], r13[1], 13, 1, 1, 0x7fff);
        want[2] = enc_rs(&BF16, x[0], r16[0], 16, 0, 0, 0x7fff) << 16 | enc_rs(&BF16, x[1], r16[1], 16, 0, 0, 0x7fff);
        for (unsigned k = 0; k < 4; k++) {
            uint32_t r = r16[k / 2], sh = 8 * (3 - k);
            want[3] |= enc_rs(&E4M3, x[k], r, 16, 0, 1, 0x7f) << sh;
            want[4] |= enc_rs(&E5M2, x[k], r, 16, 0, 1, 0x7f) << sh;
            want[5] |= enc_rs(&E2M3, x[k], r, 16, 0, 1, E2M3.maxc) << sh;
            want[6] |= enc_rs(&E3M2, x[k], r, 16, 1, 1, E3M2.maxc) << sh;
            want[7] |= enc_rs(&E2M1, x[k], r8[k], 8, 0, 1, E2M1.maxc) << (4 * (3 - k));
        }
        for (unsigned j = 0; j < 8; j++)
            if (out[8 * t + j] != want[j]) {
                fprintf(stderr, "cvt.rs (%a %a %a %a) rbits %#x form %u: got %#x, expected %#x\n", x[0], x[1], x[2],
                        x[3], R, j, out[8 * t + j], want[j]);
                bad++;
            }
    }
    /* anchors by hand: 1 + 2^-12 to f16 (ulp 2^-10): discarded fraction 1/4; truncation with rbits 0, up with
     * all ones (0x3c00 -> 0x3c01) */
    TRUE(out[8 * 0 + 0] >> 16 == 0x3c00);
    TRUE(out[8 * 1 + 0] >> 16 == 0x3c01);
    TRUE(bad == 0);
    cuMemFree(din);
    cuMemFree(drb);
    cuMemFree(dout);
    return bad;
}

/* ------------------------------------------------------------------ redux.sync f32 */

/* ISA: -0 < +0; .abs reduces |x|; .NaN: any NaN -> canonical NaN; otherwise NaNs are skipped, all NaN -> canonical */
static uint32_t ref_redux(const uint32_t *v, unsigned n, int is_max, int abs_, int nanmode) {
    int have = 0, anynan = 0;
    uint32_t best = 0;
    for (unsigned i = 0; i < n; i++) {
        uint32_t x = abs_ ? v[i] & 0x7fffffffu : v[i];
        float fx = bf(x);
        if (isnan(fx)) { anynan = 1; continue; }
        if (!have) { best = x; have = 1; continue; }
        float fbst = bf(best);
        int less = fx < fbst || (fx == 0 && fbst == 0 && signbit(fx) && !signbit(fbst));
        int greater = fx > fbst || (fx == 0 && fbst == 0 && !signbit(fx) && signbit(fbst));
        if (is_max ? greater : less) best = x;
    }
    if ((nanmode && anynan) || !have) return 0x7fffffffu;
    return best;
}

static int test_redux(CUmodule mod) {
    enum { NB = 6 };
    uint32_t in[NB * 32], out[NB * 16];
    for (unsigned l = 0; l < 32; l++) {
        in[0 * 32 + l] = fb((float)l * 0.75f - 11.3f);                          /* ordinary */
        in[1 * 32 + l] = l & 1 ? 0x80000000u : (l % 4 == 0 ? 0 : fb(0.5f));     /* -0 / +0 / positive */
        in[2 * 32 + l] = l & 1 ? 0x80000000u : 0;                                /* only zeros */
        in[3 * 32 + l] = l == 5 ? 0x7fc00000u : fb(-(float)l + 3.5f);            /* one NaN among the first 16 */
        in[4 * 32 + l] = 0x7f800001u + l * 7 + (l & 1 ? 0x80000000u : 0);       /* all NaN */
        in[5 * 32 + l] = l == 20 ? 0xffc00001u : l == 3 ? 0xff800000u : l == 9 ? 0x7f800000u : fb((float)l - 0.5f);
    }
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "k_redux"));
    CUdeviceptr din = dev_copy(in, sizeof in), dout;
    MUST(cuMemAlloc(&dout, sizeof out));
    void *args[] = {&din, &dout};
    OK(cuLaunchKernel(f, NB, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(out, dout, sizeof out));
    int bad = 0;
    for (unsigned b = 0; b < NB; b++) {
        const uint32_t *v = &in[32 * b];
        uint32_t want[9] = {ref_redux(v, 32, 0, 0, 0), ref_redux(v, 32, 1, 0, 0), ref_redux(v, 32, 0, 1, 0),
                            ref_redux(v, 32, 1, 1, 0), ref_redux(v, 32, 0, 0, 1), ref_redux(v, 32, 1, 0, 1),
                            ref_redux(v, 32, 1, 1, 1), ref_redux(v, 16, 0, 0, 0), ref_redux(v, 16, 1, 0, 1)};
        for (unsigned j = 0; j < 9; j++)
            if (out[16 * b + j] != want[j]) {
                fprintf(stderr, "redux f32 set %u form %u: got %#x, expected %#x\n", b, j, out[16 * b + j], want[j]);
                bad++;
            }
    }
    /* anchors by hand: set 2 (only zeros): min -0, max +0, min.abs +0; set 3: .NaN forms canonical NaN */
    TRUE(out[16 * 2 + 0] == 0x80000000u && out[16 * 2 + 1] == 0 && out[16 * 2 + 2] == 0);
    TRUE(out[16 * 3 + 4] == 0x7fffffffu && out[16 * 3 + 1] == fb(3.5f) && out[16 * 4 + 0] == 0x7fffffffu);
    TRUE(bad == 0);
    cuMemFree(din);
    cuMemFree(dout);
    return bad;
}

/* ------------------------------------------------------------------ clusterlaunchcontrol */

static int test_clc(CUmodule mod) {
    enum { NB = 8 };
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, "k_clc"));
    CUdeviceptr done, resp, rounds;
    MUST(cuMemAlloc(&done, NB * 4));
    MUST(cuMemAlloc(&resp, 4096 + NB * 4));
    MUST(cuMemAlloc(&rounds, NB * 4));
    OK(cuMemsetD8(done, 0, NB * 4));
    OK(cuMemsetD8(resp, 0xcd, 4096 + NB * 4));
    OK(cuMemsetD8(rounds, 0, NB * 4));
    void *args[] = {&done, &resp, &rounds};
    OK(cuLaunchKernel(f, NB, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    uint32_t d[NB], r[NB], q[NB * 4], x[NB];
    OK(cuMemcpyDtoH(d, done, sizeof d));
    OK(cuMemcpyDtoH(r, rounds, sizeof r));
    OK(cuMemcpyDtoH(q, resp, sizeof q));
    OK(cuMemcpyDtoH(x, resp + 4096, sizeof x));
    int bad = 0;
    for (unsigned b = 0; b < NB; b++) {
        /* every item done exactly once; the first request failed ("not canceled"), so one round per block; the
         * two get_first_ctaid forms agree (their value is undefined for a failed request) */
        if (d[b] != 1 || r[b] != 1 || q[4 * b] != 0 || x[b] != q[4 * b + 1]) {
            fprintf(stderr, "clc block %u: done %u rounds %u canceled %u x %u/%u\n", b, d[b], r[b], q[4 * b], q[4 * b + 1], x[b]);
            bad++;
        }
    }
    TRUE(bad == 0);
    cuMemFree(done);
    cuMemFree(resp);
    cuMemFree(rounds);
    return bad;
}

/* test_sm100 sm100.ptx sm100_clc.ptx|- [--no-warp-ops]: "-" skips clusterlaunchcontrol (it needs .b128 registers,
 * which SPIR-V lacks); --no-warp-ops skips redux.sync (devices without sub-groups of 32, e.g. PoCL) */
int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: test_sm100 sm100.ptx sm100_clc.ptx|- [--no-warp-ops]\n"); return 2; }
    int warp = !(argc > 3 && !strcmp(argv[3], "--no-warp-ops"));
    CUmodule mod = must_load_ptx(argv[1]);
    test_f32x2(mod);
    test_enc(mod);
    test_dec(mod);
    test_rs(mod);
    if (warp) test_redux(mod);
    if (strcmp(argv[2], "-")) {
        char *ptx = test_read_file(argv[2], NULL);
        CUmodule clc;
        if (!ptx) { perror(argv[2]); return 1; }
        MUST(cuModuleLoadData(&clc, ptx));
        free(ptx);
        test_clc(clc);
    }
    return check_done("test_sm100");
}
