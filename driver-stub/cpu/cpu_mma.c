/* cpu_mma.c — the generic warp-matrix forms of the CPU runtime (mx_forms.h): mma.sync and wmma of every shape
 * and type, the wmma fragment loads/stores of those forms and movmatrix. The arithmetic model is the one of
 * emit_lanes_mma.c (bit-exact with it):
 *   f16, bf16, tf32 (f32 bits with the low 13 dropped) inputs: an f32 result by p2n_tc_dot_f32 (the H200's HMMA,
 *     fitted by tests/conformance/gen/fit_mma.py to every recorded case), wmma .tf32 in two steps of k = 4; an
 *     f16 result as the exact sum rounded once to nearest (an infinite or NaN term: the f32 chain in k order);
 *   e4m3, e5m2 inputs: as ptxas lowers them for sm_90 (fp8_sm90);
 *   f64: the fma chain d = fma(a_k, b_k, d) from d = c in k order;
 *   integers: exact, then wrapped to 32 bits or (.satfinite) clamped; b1: c + popc(a op b) per word.
 * mma.sp: the compressed A and the metadata expanded to the dense A (zeros in the pruned places, mx_forms.h),
 * then the dense product above with the products of the pruned places dropped (sp_dense): the sparse forms run
 * on the same tensor cores. Fitted to the H200 recordings tests/conformance/cases/mma/mma_sp_* (layouts, metadata
 * and the fp8 split, bit for bit: tests/conformance/gen/fit_mma_sp.py). */
#include "cpu_internal.h"
#include "mx_forms.h"

#include <limits.h>
#include <math.h>
#include <string.h>

static uint64_t raw_get(const uint32_t *w, unsigned slot, unsigned bits) {
    if (bits == 64) return w[2 * slot] | (uint64_t)w[2 * slot + 1] << 32;
    if (bits == 32) return w[slot];
    unsigned b = slot * bits;
    return (w[b / 32] >> (b % 32)) & ((1u << bits) - 1);
}

static void raw_put(uint32_t *w, unsigned slot, unsigned bits, uint64_t v) {
    if (bits == 64) {
        w[2 * slot] = (uint32_t)v;
        w[2 * slot + 1] = (uint32_t)(v >> 32);
        return;
    }
    if (bits == 32) {
        w[slot] = (uint32_t)v;
        return;
    }
    unsigned b = slot * bits;
    uint32_t m = ((1u << bits) - 1) << (b % 32);
    w[b / 32] = (w[b / 32] & ~m) | (((uint32_t)v << (b % 32)) & m);
}

static float bits_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* a minifloat with `e` exponent bits, `m` mantissa bits, bias 2^(e-1)-1 -> double (exact). e4m3 has no
 * infinities and one NaN pattern per sign (S.1111.111); e5m2 is IEEE-like. */
static double mini_to_d(uint32_t v, unsigned e, unsigned m, bool fn) {
    unsigned sign = (v >> (e + m)) & 1, ex = (v >> m) & ((1u << e) - 1), man = v & ((1u << m) - 1);
    int bias = (1 << (e - 1)) - 1;
    double r;
    if (!fn && ex == (1u << e) - 1) r = man ? NAN : INFINITY;
    else if (fn && ex == (1u << e) - 1 && man == (1u << m) - 1) r = NAN;
    else if (!ex) r = ldexp((double)man, 1 - bias - (int)m);
    else r = ldexp((double)(man | 1u << m), (int)ex - bias - (int)m);
    return sign ? -r : r;
}

static double fp_value(unsigned t, uint64_t raw) {
    switch (t) {
    case MXE_F16: return mini_to_d((uint32_t)raw, 5, 10, false);
    case MXE_BF16: return bits_f((uint32_t)raw << 16);
    case MXE_TF32: return bits_f((uint32_t)raw & ~0x1fffu);
    case MXE_E4M3: return mini_to_d((uint32_t)raw, 4, 3, true);
    case MXE_E5M2: return mini_to_d((uint32_t)raw, 5, 2, false);
    case MXE_F64: { double d; memcpy(&d, &raw, 8); return d; }
    default: return bits_f((uint32_t)raw);
    }
}

static int64_t int_value(unsigned t, uint64_t raw) {
    switch (t) {
    case MXE_S8: return (int8_t)raw;
    case MXE_S4: return (int64_t)((raw & 0xf) ^ 8) - 8;
    case MXE_S32: return (int32_t)raw;
    default: return (int64_t)raw;
    }
}

/* The f32 result c + sum a[k] b[k] of the H200's tensor-core HMMA (tests/conformance/gen/fit_mma.py fits it to
 * every recorded f16/bf16/tf32/fp8 mma and wmma case): E is the largest of ea + eb over the products of nonzero
 * factors (frexp exponents of the inputs: the product's bound before it is normalised; an input below emin, the
 * frexp exponent of its type's smallest normal, counts as emin) and of ec + 1 for a nonzero c; every term is
 * truncated toward zero to a multiple of 2^(E-27), the terms summed exactly and the sum rounded toward zero to
 * f32 (2^128 and beyond: infinity). A NaN term, +inf with -inf, or inf * 0 give the canonical NaN, another
 * infinite term (an infinite input: the products are exact in double, never overflowed) that infinity. Only
 * zero terms, or a zero sum of the truncated terms: +0 (the sign of zero terms does not matter). */
/* frexpf's exponent of a finite non-zero x, read from its bits: frexpf was a tenth of a tensor-core GEMM's time */
static inline int exp_of(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    unsigned be = (u >> 23) & 0xffu;
    if (be) return (int)be - 126;
    return 32 - __builtin_clz(u & 0x7fffffu) - 149; /* subnormal: the mantissa's top bit */
}

/* 2^e for -1022 <= e <= 1023 (every scale of the sums below), from the bits: ldexp was a tenth of the time */
static inline double pow2(int e) {
    uint64_t u = (uint64_t)(e + 1023) << 52;
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* the sum S 2^(E-27) rounded toward zero to f32; 2^128 and beyond: infinity */
static float tc_round(int64_t S, int E) {
    if (!S) return 0.0f;
    double x = (double)S * pow2(E - 27);
    if (fabs(x) >= 0x1p128) return x > 0 ? INFINITY : -INFINITY;
    float y = (float)x;
    /* one step toward zero where rounding went away from it (y is not zero then); without a branch, which the
     * random direction of rounding would mispredict half the time */
    return bits_f(f_bits(y) - (fabs((double)y) > fabs(x)));
}

/* E's share of a nonzero finite c: its exponent (f32's emin at least) plus one */
static inline int tc_exp_c(float c) {
    int ec = exp_of(c);
    return (ec < -125 ? -125 : ec) + 1;
}

/* An input's share of E: its exponent (emin at least), or TC_NONE for a zero; *special: infinite or NaN */
enum { TC_NONE = -(1 << 20), TC_MAX = 32 };
static inline int tc_exp_in(float x, int emin, bool *special) {
    if (!isfinite(x)) {
        *special = true;
        return TC_NONE;
    }
    if (x == 0) return TC_NONE;
    int e = exp_of(x);
    return e < emin ? emin : e;
}

float p2n_tc_dot_f32(float c, const float *a, const float *b, unsigned n, int emin) {
    bool nan = isnan(c), pinf = c == INFINITY, ninf = c == -INFINITY;
    int E = INT_MIN;
    for (unsigned k = 0; k < n; k++) {
        double p = (double)a[k] * (double)b[k];
        nan |= isnan(p);
        pinf |= p == INFINITY;
        ninf |= p == -INFINITY;
        bool special = false; /* the infinities and NaNs are counted above */
        int ea = tc_exp_in(a[k], emin, &special), eb = tc_exp_in(b[k], emin, &special);
        if (ea != TC_NONE && eb != TC_NONE) E = ea + eb > E ? ea + eb : E; /* both nonzero and finite */
    }
    if (nan || (pinf && ninf)) return bits_f(0x7fffffffu);
    if (pinf || ninf) return pinf ? INFINITY : -INFINITY;
    if (c != 0) { /* c is finite here: NaN and infinities returned above */
        int ec = tc_exp_c(c);
        E = ec > E ? ec : E;
    }
    if (E == INT_MIN) return 0.0f; /* zeros only: +0 whatever their signs (probe_mma_m16n8k16_f32_f16_edges) */
    /* |term| < 2^E: every scaled term is below 2^27, the sum of at most 33 below 2^33 (exact in double) */
    double scale = pow2(27 - E);
    int64_t S = (int64_t)((double)c * scale);
    for (unsigned k = 0; k < n; k++) S += (int64_t)((double)a[k] * (double)b[k] * scale);
    return tc_round(S, E);
}

/* D = C + A B, A m x k, B k x n, C and D m x n (row major; m, n, k at most 32), each element exactly as
 * p2n_tc_dot_f32(C[r][c], row r of A, column c of B, k, emin) gives it, in loops over the columns that the
 * compiler vectorises: the inputs' exponents are read once per input instead of once per product, and the
 * truncated terms (integers below 2^27, at most 33 of them) are summed exactly in double. A row or column with an
 * infinite or NaN input, or such a C, takes the element-wise form. */
__attribute__((target_clones("avx2", "default"))) /* 4 doubles a vector where the CPU has them */
void p2n_tc_gemm_f32(unsigned m, unsigned n, unsigned k, const float *A, const float *B, const float *C, float *D,
                     int emin) {
    int ea[TC_MAX * TC_MAX], eb[TC_MAX * TC_MAX], E[TC_MAX];
    double Bz[TC_MAX * TC_MAX], sc[TC_MAX], S[TC_MAX]; /* Bz: B with zeros for its infinities and NaNs */
    bool rs[TC_MAX] = {0}, cs[TC_MAX] = {0};
    for (unsigned r = 0; r < m; r++)
        for (unsigned i = 0; i < k; i++) ea[r * k + i] = tc_exp_in(A[r * k + i], emin, &rs[r]);
    for (unsigned i = 0; i < k; i++)
        for (unsigned c = 0; c < n; c++) {
            bool sp = false;
            eb[i * n + c] = tc_exp_in(B[i * n + c], emin, &sp);
            cs[c] |= sp;
            Bz[i * n + c] = sp ? 0.0 : B[i * n + c];
        }
    for (unsigned r = 0; r < m; r++) {
        const float *a = A + r * k;
        if (!rs[r]) {
            for (unsigned c = 0; c < n; c++) E[c] = 2 * TC_NONE;
            for (unsigned i = 0; i < k; i++) {
                int e = ea[r * k + i];
                for (unsigned c = 0; c < n; c++) E[c] = e + eb[i * n + c] > E[c] ? e + eb[i * n + c] : E[c];
            }
            for (unsigned c = 0; c < n; c++) {
                float cv = C[r * n + c];
                int Ec = E[c] < TC_NONE / 2 ? INT_MIN : E[c]; /* none: no product of two nonzero inputs */
                if (cv != 0 && isfinite(cv)) {
                    int ec = tc_exp_c(cv);
                    Ec = ec > Ec ? ec : Ec;
                }
                E[c] = Ec;
                sc[c] = Ec == INT_MIN ? 0.0 : pow2(27 - Ec);
                S[c] = isfinite(cv) ? (double)(int32_t)((double)cv * sc[c]) : 0.0;
            }
            for (unsigned i = 0; i < k; i++) {
                double ai = a[i];
                const double *bz = Bz + i * n;
                for (unsigned c = 0; c < n; c++) S[c] += (double)(int32_t)(ai * bz[c] * sc[c]);
            }
        }
        for (unsigned c = 0; c < n; c++) {
            float cv = C[r * n + c];
            if (rs[r] || cs[c] || !isfinite(cv)) {
                float bcol[TC_MAX];
                for (unsigned i = 0; i < k; i++) bcol[i] = B[i * n + c];
                D[r * n + c] = p2n_tc_dot_f32(cv, a, bcol, k, emin);
            } else {
                D[r * n + c] = E[c] == INT_MIN ? 0.0f : tc_round((int64_t)S[c], E[c]);
            }
        }
    }
}

/* double -> f16 bits, rounded once to nearest even */
static uint16_t d_to_half(double d) {
    _Float16 h = (_Float16)d;
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
}

static bool is_float(unsigned t) { return t != MXE_S8 && t != MXE_U8 && t != MXE_S4 && t != MXE_U4 && t != MXE_B1 && t != MXE_S32; }

/* the whole A, B of the warp, decoded: double for floating types, the raw word for b1, integers as int64 */
typedef union { double d; int64_t i; } mxv;

static void gather(const p2n_mx *f, unsigned x, unsigned t, unsigned base, uint32_t *io[32], mxv *dst, unsigned cols) {
    static const uint32_t zero[64];
    unsigned per = p2n_mx_per_lane(f, x, t), bits = p2n_mx_bits(t);
    for (unsigned l = 0; l < 32; l++) {
        const uint32_t *w = (io[l] ? io[l] : zero) + base;
        for (unsigned s = 0; s < per; s++) {
            unsigned r, c;
            p2n_mx_elem(f, x, t, l, s, &r, &c);
            uint64_t raw = raw_get(w, s, bits);
            if (is_float(t)) dst[r * cols + c].d = fp_value(t, raw);
            else dst[r * cols + c].i = t == MXE_B1 ? (int64_t)raw : int_value(t, raw);
        }
    }
}

/* mma.sp: the raw dense element (r, k) of A from the raw compressed row `comp` of r and the metadata words of
 * the warp, moved unit by unit (mx_forms.h: a tf32 element is two units, a unit two 4-bit elements). *pruned:
 * no stored unit went there. The tensor core multiplies only the stored values, with the B rows the metadata
 * selects (NVIDIA A100 whitepaper, "Sparse Tensor Core"): a pruned place contributes nothing, not even the NaN
 * of 0 * inf, so the products of pruned places are dropped (compute: B taken as 0 there). */
static uint64_t sp_dense(const p2n_mx *f, const uint64_t *comp, const uint32_t *meta, unsigned r, unsigned k,
                         bool *pruned) {
    unsigned eb = p2n_mx_bits(f->ta), ub = p2n_mx_sp_unit(f->ta), parts = eb > ub ? eb / ub : 1;
    unsigned w = eb < ub ? eb : ub; /* bits moved per part */
    uint64_t raw = 0;
    *pruned = true;
    for (unsigned h = 0; h < parts; h++) {
        unsigned at = k * eb + h * ub, u = at / ub, off = at % ub, lane, bit, src;
        p2n_mx_sp_meta(f, r, u / 4, &lane, &bit);
        unsigned nib = (meta[lane] >> bit) & 15u;
        if ((nib >> 2) == u % 4) src = 2 * (u / 4) + 1;
        else if ((nib & 3u) == u % 4) src = 2 * (u / 4);
        else continue; /* a pruned place: zero */
        *pruned = false;
        unsigned sb = src * ub + off;
        raw |= ((comp[sb / eb] >> (sb % eb)) & ((1ull << w) - 1)) << (h * ub);
    }
    return raw;
}

/* mma.sp: gather the compressed A and the metadata of the warp, expand into the dense dst (K columns);
 * pruned[r K + k] says that no stored value went to (r, k) */
static void gather_sparse(const p2n_mx *f, uint32_t *io[32], mxv *dst, bool *pruned) {
    static const uint32_t zero[64];
    static _Thread_local uint64_t comp[16 * 64];
    unsigned t = f->ta, per = p2n_mx_per_lane(f, MXF_A, t), bits = p2n_mx_bits(t), rows, cc;
    p2n_mx_dims(f, MXF_A, t, &rows, &cc);
    unsigned mw = p2n_mx_sp_meta_word(f);
    uint32_t meta[32];
    for (unsigned l = 0; l < 32; l++) {
        const uint32_t *w = io[l] ? io[l] : zero;
        meta[l] = io[l] ? io[l][mw] : 0;
        for (unsigned s = 0; s < per; s++) {
            unsigned r, c;
            p2n_mx_elem(f, MXF_A, t, l, s, &r, &c);
            comp[r * cc + c] = raw_get(w, s, bits);
        }
    }
    for (unsigned r = 0; r < rows; r++)
        for (unsigned k = 0; k < f->k; k++) {
            uint64_t raw = sp_dense(f, comp + r * cc, meta, r, k, &pruned[r * f->k + k]);
            if (is_float(t)) dst[r * f->k + k].d = fp_value(t, raw);
            else dst[r * f->k + k].i = int_value(t, raw);
        }
}

/* the value of an f16 result c + sum a[k] b[k]: the exact sum rounded once to nearest; an infinite or NaN term:
 * the f32 sum in k order (a NaN is the caller's business) */
static double f16_hmma(double c, const float *a, const float *b, unsigned n) {
    bool special = !isfinite(c);
    double s = c;
    for (unsigned k = 0; k < n; k++) {
        double p = (double)a[k] * (double)b[k];
        special |= !isfinite(p);
        s += p;
    }
    if (special) {
        float x = (float)c;
        for (unsigned k = 0; k < n; k++) x += a[k] * b[k];
        return x;
    }
    return mini_to_d(d_to_half(s), 5, 10, false);
}

/* e4m3/e5m2 mma.sync as ptxas lowers it for sm_90, which has no fp8 mma.sync (the SASS of ptxas 13.0; the f32
 * form fits every recorded case, gen/fit_mma.py): the inputs unpacked to f16 (exact) and two HMMA (m16n8k16 for
 * k32, m16n8k8 for k16) from a zero accumulator, the first over the k with k % 4 in {0, 1} (the low f16x2 half of
 * each fragment word), the second accumulating over k % 4 in {2, 3}; then C added by an FADD (f32, to nearest)
 * or an HADD2 (f16). */
static uint64_t fp8_sm90(const p2n_mx *f, const mxv *A, const mxv *B, const bool *P, unsigned r, unsigned c,
                         uint64_t craw) {
    unsigned K = f->k, N = f->n;
    float a[2][32], b[2][32]; /* K up to 64 (mma.sp m16n8k64) */
    for (unsigned k = 0; k < K; k++) {
        /* mma.sp: the halves of the compressed fragment words are the chunks of even and odd index, k / 4 (the
         * recordings: gen/fit_mma_sp.py; the dense form's k % 4 split or the halves of K do not fit) */
        unsigned h = f->sparse ? (k >> 2) & 1 : (k >> 1) & 1;
        unsigned i = f->sparse ? (k >> 3) * 4 + (k & 3) : (k >> 2) * 2 + (k & 1);
        a[h][i] = (float)A[r * K + k].d;
        b[h][i] = P && P[r * K + k] ? 0.0f : (float)B[k * N + c].d;
    }
    double cv = fp_value(f->tc, craw);
    if (f->td == MXE_F16) {
        double s = cv + f16_hmma(f16_hmma(0.0, a[0], b[0], K / 2), a[1], b[1], K / 2);
        return isnan(s) ? 0x7fffu : d_to_half(s);
    }
    float acc = p2n_tc_dot_f32(0.0f, a[0], b[0], K / 2, P2N_TC_EMIN_F16);
    float d = (float)cv + p2n_tc_dot_f32(acc, a[1], b[1], K / 2, P2N_TC_EMIN_F16);
    return isnan(d) ? 0x7fffffffu : f_bits(d);
}

/* P (mma.sp, else NULL): the pruned places of A, whose products are dropped */
static uint64_t compute(const p2n_mx *f, const mxv *A, const mxv *B, const bool *P, unsigned r, unsigned c,
                        uint64_t craw) {
    unsigned K = f->k, N = f->n;
    if (f->ta == MXE_F64) {
        double d = fp_value(MXE_F64, craw);
        for (unsigned k = 0; k < K; k++) d = fma(A[r * K + k].d, B[k * N + c].d, d);
        uint64_t u;
        memcpy(&u, &d, 8);
        return u;
    }
    if (f->ta == MXE_E4M3 || f->ta == MXE_E5M2) return fp8_sm90(f, A, B, P, r, c, craw);
    if (is_float(f->ta)) {
        float cf = (float)fp_value(f->tc, craw), a[64], b[64];
        for (unsigned k = 0; k < K; k++) {
            a[k] = (float)A[r * K + k].d;
            b[k] = P && P[r * K + k] ? 0.0f : (float)B[k * N + c].d;
        }
        if (f->td == MXE_F16) {
            double h = f16_hmma(cf, a, b, K);
            return isnan(h) ? 0x7fffu : d_to_half(h);
        }
        /* wmma m16n16k8 .tf32 runs as two k = 4 steps, each rounded (the recordings); the others in one */
        unsigned blk = f->wmma && f->ta == MXE_TF32 ? 4 : K;
        float acc = cf;
        for (unsigned k0 = 0; k0 < K; k0 += blk) acc = p2n_tc_dot_f32(acc, a + k0, b + k0, blk, p2n_mx_emin(f->ta));
        return f_bits(acc);
    }
    int64_t s = int_value(MXE_S32, craw);
    for (unsigned k = 0; k < K; k++) {
        int64_t a = A[r * K + k].i, b = B[k * N + c].i;
        if (f->ta == MXE_B1) s += __builtin_popcount((uint32_t)(f->op == MXO_AND_POPC ? a & b : a ^ b));
        else s += a * b;
    }
    if (f->satf) s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
    return (uint32_t)s;
}

/* The dense forms with an f32 result of f16, bf16 or tf32 inputs, the whole block at once (p2n_tc_gemm_f32;
 * element by element: compute). false: not such a form. */
static bool mma_f32_block(const p2n_mx *f, uint32_t *io[32], const mxv *TA, const mxv *TB, unsigned wa, unsigned wb,
                          unsigned wc) {
    unsigned M = f->m, N = f->n, K = f->k;
    bool inputs = f->ta == MXE_F16 || f->ta == MXE_BF16 || f->ta == MXE_TF32;
    if (f->sparse || !inputs || f->td != MXE_F32 || M > 32 || N > 32 || K > 32) return false;
    static _Thread_local float A[32 * 32], B[32 * 32], C[32 * 32], D[32 * 32], Ablk[32 * 4];
    for (unsigned i = 0; i < M * K; i++) A[i] = (float)TA[i].d;
    for (unsigned i = 0; i < K * N; i++) B[i] = (float)TB[i].d;
    memset(C, 0, M * N * sizeof *C);
    unsigned per = p2n_mx_per_lane(f, MXF_C, f->td), cb = p2n_mx_bits(f->tc);
    for (unsigned l = 0; l < 32; l++)
        for (unsigned s = 0; io[l] && s < per; s++) {
            unsigned r, col;
            p2n_mx_elem(f, MXF_C, f->td, l, s, &r, &col);
            C[r * N + col] = (float)fp_value(f->tc, raw_get(io[l] + wa + wb, s, cb));
        }
    int emin = p2n_mx_emin(f->ta);
    if (f->wmma && f->ta == MXE_TF32) { /* wmma m16n16k8 .tf32 runs as two k = 4 steps, each rounded */
        for (unsigned k0 = 0; k0 < K; k0 += 4) {
            for (unsigned r = 0; r < M; r++) memcpy(Ablk + r * 4, A + r * K + k0, 4 * sizeof *A);
            p2n_tc_gemm_f32(M, N, 4, Ablk, B + k0 * N, k0 ? D : C, D, emin);
        }
    } else {
        p2n_tc_gemm_f32(M, N, K, A, B, C, D, emin);
    }
    for (unsigned l = 0; l < 32; l++)
        for (unsigned s = 0; io[l] && s < per; s++) {
            unsigned r, col;
            p2n_mx_elem(f, MXF_C, f->td, l, s, &r, &col);
            raw_put(io[l] + wa + wb + wc, s, 32, f_bits(D[r * N + col]));
        }
    return true;
}

static void mma(const p2n_mx *f, uint32_t *io[32]) {
    /* largest: A and B of mma.sp m16n8k128 .u4 (16 x 128, 128 x 8); per worker thread */
    static _Thread_local mxv TA[16 * 128], TB[128 * 8];
    static _Thread_local bool TP[16 * 128];
    unsigned wa = p2n_mx_words(f, MXF_A, f->ta), wb = p2n_mx_words(f, MXF_B, f->tb);
    unsigned wc = p2n_mx_words(f, MXF_C, f->tc);
    if (f->sparse) gather_sparse(f, io, TA, TP);
    else gather(f, MXF_A, f->ta, 0, io, TA, f->k);
    gather(f, MXF_B, f->tb, wa, io, TB, f->n);
    if (mma_f32_block(f, io, TA, TB, wa, wb, wc)) return;
    unsigned per = p2n_mx_per_lane(f, MXF_C, f->td), cb = p2n_mx_bits(f->tc), db = p2n_mx_bits(f->td);
    for (unsigned l = 0; l < 32; l++) {
        if (!io[l]) continue;
        uint32_t *c = io[l] + wa + wb, *d = c + wc;
        for (unsigned s = 0; s < per; s++) {
            unsigned r, col;
            p2n_mx_elem(f, MXF_C, f->td, l, s, &r, &col);
            raw_put(d, s, db, compute(f, TA, TB, f->sparse ? TP : NULL, r, col, raw_get(c, s, cb)));
        }
    }
}

/* movmatrix.m8n8.trans.b16: lane l's half h is element (l/4, 2(l%4)+h) of the transpose, the source's element
 * (2(l%4)+h, l/4), held by lane 4(2(l%4)+h) + (l/4)/2, half (l/4)%2 */
static void movmatrix(uint32_t *io[32]) {
    uint32_t src[32];
    for (unsigned l = 0; l < 32; l++) src[l] = io[l] ? io[l][0] : 0;
    for (unsigned l = 0; l < 32; l++) {
        if (!io[l]) continue;
        uint32_t v = 0;
        for (unsigned h = 0; h < 2; h++) {
            unsigned sr = 2 * (l & 3) + h, sc = l >> 2;
            v |= ((src[4 * sr + sc / 2] >> (16 * (sc & 1))) & 0xffffu) << (16 * h);
        }
        io[l][1] = v;
    }
}

bool p2n_mma_compute(uint32_t op, uint32_t *io[32]) {
    p2n_mx f = p2n_mx_decode(op);
    if (f.kind == P2N_MX_MOVMATRIX) movmatrix(io);
    else if (f.kind == P2N_MX_MMA || f.kind == P2N_MX_MMA_SP) mma(&f, io);
    else return false;
    return true;
}

/* wmma.load / wmma.store of one lane: element (r, c) at bit r*ld*tb + c*eb (row major) or c*ld*tb + r*eb,
 * with eb the bits of a fragment element and tb those of a matrix element (they differ for b1 only) */
bool p2n_mma_lane(uint32_t op, uint32_t *io, uint32_t lane) {
    p2n_mx f = p2n_mx_decode(op);
    if (f.kind != P2N_MX_FRAG_LOAD && f.kind != P2N_MX_FRAG_STORE) return false;
    uint64_t a;
    memcpy(&a, io, 8);
    uint8_t *base = (uint8_t *)(uintptr_t)a;
    uint64_t ld = io[2];
    unsigned eb = p2n_mx_bits(f.ta), tb = f.ta == MXE_B1 ? 1 : eb, per = p2n_mx_per_lane(&f, f.frag, f.ta);
    uint32_t *w = io + 3;
    bool load = f.kind == P2N_MX_FRAG_LOAD;
    if (load)
        for (unsigned i = 0; i < p2n_mx_words(&f, f.frag, f.ta); i++) w[i] = 0;
    for (unsigned s = 0; s < per; s++) {
        unsigned r, c;
        p2n_mx_elem(&f, f.frag, f.ta, lane, s, &r, &c);
        uint64_t bit = f.col ? (uint64_t)c * ld * tb + (uint64_t)r * eb : (uint64_t)r * ld * tb + (uint64_t)c * eb;
        uint8_t *p = base + bit / 8;
        if (eb == 4) {
            unsigned sh = bit % 8;
            if (load) raw_put(w, s, 4, (*p >> sh) & 0xfu);
            else *p = (uint8_t)((*p & ~(0xfu << sh)) | (raw_get(w, s, 4) << sh));
        } else if (load) {
            uint64_t v = 0;
            memcpy(&v, p, eb / 8);
            raw_put(w, s, eb, v);
        } else {
            uint64_t v = raw_get(w, s, eb);
            memcpy(p, &v, eb / 8);
        }
    }
    return true;
}
