/* emit_float.c — f32/f64 arithmetic with every rounding mode, .ftz, .sat, NaN rules; f16/bf16 (and x2)
 * arithmetic through f32/f64 with one final rounding; approximate functions.
 *
 * Directed rounding (.rz/.rm/.rp) never touches MXCSR: the result is computed round-to-nearest, the sign of
 * (exact - rounded) is recovered with error-free transformations (TwoSum, exact products in double, FMA
 * residuals), and the rounded result is moved by one ulp when the mode asks for it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

#define BLD E->B

static bool is_f64(emit_ctx *E, LLVMValueRef v) { return LLVMTypeOf(v) == E->f64; }
static LLVMTypeRef int_for(emit_ctx *E, LLVMValueRef v) { return is_f64(E, v) ? E->i64 : E->i32; }
static LLVMValueRef fc(LLVMValueRef like, double x) { return LLVMConstReal(LLVMTypeOf(like), x); }

ir_mod round_mode(const ir_ins *ins) {
    static const ir_mod m[] = {IR_M_RN, IR_M_RZ, IR_M_RM, IR_M_RP, IR_M_RNA, IR_M_RNI, IR_M_RZI, IR_M_RMI, IR_M_RPI, IR_M_RS};
    for (unsigned k = 0; k < sizeof m / sizeof m[0]; k++)
        if (ir_ins_has(ins, m[k])) return m[k];
    return IR_M_NONE;
}

LLVMValueRef f_isnan(emit_ctx *E, LLVMValueRef v) { return LLVMBuildFCmp(BLD, LLVMRealUNO, v, v, ""); }

LLVMValueRef f_ftz_in(emit_ctx *E, LLVMValueRef v) {
    LLVMTypeRef it = int_for(E, v);
    bool d = is_f64(E, v);
    LLVMValueRef b = LLVMBuildBitCast(BLD, v, it, "");
    LLVMValueRef mag = LLVMBuildAnd(BLD, b, ci(it, d ? 0x7fffffffffffffffull : 0x7fffffff), "");
    LLVMValueRef sub = LLVMBuildICmp(BLD, LLVMIntULT, mag, ci(it, d ? 0x0010000000000000ull : 0x00800000), "");
    LLVMValueRef z = LLVMBuildAnd(BLD, b, ci(it, d ? 0x8000000000000000ull : 0x80000000u), "");
    return LLVMBuildBitCast(BLD, sel(E, sub, z, b), LLVMTypeOf(v), "");
}

LLVMValueRef f_sat(emit_ctx *E, LLVMValueRef v) {
    /* NVIDIA: negative values, -0 and NaN all saturate to +0 */
    LLVMValueRef lo = LLVMBuildFCmp(BLD, LLVMRealULE, v, fc(v, 0.0), "");
    LLVMValueRef hi = LLVMBuildFCmp(BLD, LLVMRealOGT, v, fc(v, 1.0), "");
    return sel(E, lo, fc(v, 0.0), sel(E, hi, fc(v, 1.0), v));
}

static LLVMValueRef sign_of(emit_ctx *E, LLVMValueRef x) { /* -1, 0, +1 as i32 (NaN -> 0) */
    LLVMValueRef gt = LLVMBuildFCmp(BLD, LLVMRealOGT, x, fc(x, 0), ""), lt = LLVMBuildFCmp(BLD, LLVMRealOLT, x, fc(x, 0), "");
    return sel(E, gt, c32(E, 1), sel(E, lt, c32(E, (uint32_t)-1), c32(E, 0)));
}

LLVMValueRef f_directed(emit_ctx *E, LLVMValueRef r, LLVMValueRef rs, ir_mod mode) {
    if (mode != IR_M_RZ && mode != IR_M_RM && mode != IR_M_RP) return r;
    LLVMTypeRef it = int_for(E, r);
    bool d = is_f64(E, r);
    LLVMValueRef b = LLVMBuildBitCast(BLD, r, it, "");
    LLVMValueRef isz = LLVMBuildFCmp(BLD, LLVMRealOEQ, r, fc(r, 0), "");
    LLVMValueRef neg = LLVMBuildICmp(BLD, LLVMIntSLT, b, ci(it, 0), "");
    LLVMValueRef up = sel(E, isz, ci(it, 1), sel(E, neg, LLVMBuildSub(BLD, b, ci(it, 1), ""), LLVMBuildAdd(BLD, b, ci(it, 1), "")));
    LLVMValueRef down = sel(E, isz, ci(it, d ? 0x8000000000000001ull : 0x80000001u),
                            sel(E, neg, LLVMBuildAdd(BLD, b, ci(it, 1), ""), LLVMBuildSub(BLD, b, ci(it, 1), "")));
    LLVMValueRef rpos = LLVMBuildICmp(BLD, LLVMIntSGT, rs, c32(E, 0), "");
    LLVMValueRef rneg = LLVMBuildICmp(BLD, LLVMIntSLT, rs, c32(E, 0), "");
    LLVMValueRef cu, cd;
    if (mode == IR_M_RP) { cu = rpos; cd = ci(E->i1, 0); }
    else if (mode == IR_M_RM) { cu = ci(E->i1, 0); cd = rneg; }
    else {
        cd = LLVMBuildAnd(BLD, rneg, LLVMBuildFCmp(BLD, LLVMRealOGT, r, fc(r, 0), ""), "");
        cu = LLVMBuildAnd(BLD, rpos, LLVMBuildFCmp(BLD, LLVMRealOLT, r, fc(r, 0), ""), "");
    }
    LLVMValueRef res = sel(E, cu, up, sel(E, cd, down, b));
    return LLVMBuildBitCast(BLD, res, LLVMTypeOf(r), "");
}

static LLVMValueRef is_finite(emit_ctx *E, LLVMValueRef x) {
    LLVMValueRef a = intrin(E, "llvm.fabs", (LLVMTypeRef[]){LLVMTypeOf(x)}, 1, &x, 1);
    return LLVMBuildFCmp(BLD, LLVMRealOLT, a, fc(x, INFINITY), "");
}

/* overflow: a finite exact result rounded to infinity lies below it in magnitude */
static LLVMValueRef ovf_fix(emit_ctx *E, LLVMValueRef r, LLVMValueRef rs, LLVMValueRef inputs_finite) {
    LLVMValueRef rinf = LLVMBuildNot(BLD, is_finite(E, r), "");
    rinf = LLVMBuildAnd(BLD, rinf, LLVMBuildNot(BLD, f_isnan(E, r), ""), "");
    LLVMValueRef c = LLVMBuildAnd(BLD, rinf, inputs_finite, "");
    LLVMValueRef s = LLVMBuildNeg(BLD, sign_of(E, r), "");
    return sel(E, c, s, rs);
}

static LLVMValueRef fma_rt(emit_ctx *E, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c) {
    LLVMValueRef args[3] = {a, b, c};
    /* llvm.fma is the exactly rounded fused operation; without FMA hardware it would become a libm call (an
     * undefined symbol the code object must not have), so only host-native code on an FMA CPU uses it */
    if (E->native_fma) {
        LLVMTypeRef ty = LLVMTypeOf(a);
        return intrin(E, "llvm.fma", &ty, 1, args, 3);
    }
    bool d = is_f64(E, a);
    LLVMTypeRef ft = LLVMTypeOf(a);
    LLVMTypeRef fty = LLVMFunctionType(ft, (LLVMTypeRef[]){ft, ft, ft}, 3, 0);
    LLVMValueRef fn = rt_fn(E, d ? RT_FMA : RT_FMAF);
    return LLVMBuildCall2(BLD, fty, fn, args, 3, "");
}

/* s + err == a + b exactly. Fast2Sum on the operands ordered by magnitude (|x| >= |y|): z = s - x and y - z
 * are exact, and z cannot overflow while s is finite. Knuth's branch-free TwoSum computes s - a, which
 * overflows for operands near the format's maximum with cancellation (FLT_MAX + -1.06e38 under .rz gave
 * err = NaN, so the rounded sum was not corrected). An infinite s is corrected by ovf_fix, not by err. */
static void two_sum(emit_ctx *E, LLVMValueRef a, LLVMValueRef b, LLVMValueRef *s, LLVMValueRef *err) {
    LLVMTypeRef ft = LLVMTypeOf(a);
    LLVMValueRef aa = intrin(E, "llvm.fabs", &ft, 1, &a, 1), ab = intrin(E, "llvm.fabs", &ft, 1, &b, 1);
    LLVMValueRef a_big = LLVMBuildFCmp(BLD, LLVMRealOGE, aa, ab, "");
    LLVMValueRef x = sel(E, a_big, a, b), y = sel(E, a_big, b, a);
    *s = LLVMBuildFAdd(BLD, a, b, "");
    LLVMValueRef z = LLVMBuildFSub(BLD, *s, x, "");
    *err = LLVMBuildFSub(BLD, y, z, "");
}

static LLVMValueRef both_finite(emit_ctx *E, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildAnd(BLD, is_finite(E, a), is_finite(E, b), "");
}

static LLVMValueRef f_add(emit_ctx *E, LLVMValueRef a, LLVMValueRef b, ir_mod mode) {
    LLVMValueRef s, err;
    if (mode != IR_M_RZ && mode != IR_M_RM && mode != IR_M_RP) return LLVMBuildFAdd(BLD, a, b, "");
    two_sum(E, a, b, &s, &err);
    LLVMValueRef rs = ovf_fix(E, s, sign_of(E, err), both_finite(E, a, b));
    LLVMValueRef r = f_directed(E, s, rs, mode);
    if (mode == IR_M_RM) {
        /* exact zero sum: -0 unless both operands are +0 */
        LLVMTypeRef it = int_for(E, a);
        LLVMValueRef ab = LLVMBuildOr(BLD, LLVMBuildBitCast(BLD, a, it, ""), LLVMBuildBitCast(BLD, b, it, ""), "");
        LLVMValueRef bothpz = LLVMBuildICmp(BLD, LLVMIntEQ, ab, ci(it, 0), "");
        LLVMValueRef z = LLVMBuildFCmp(BLD, LLVMRealOEQ, s, fc(s, 0), "");
        LLVMValueRef ez = LLVMBuildFCmp(BLD, LLVMRealOEQ, err, fc(s, 0), "");
        r = sel(E, LLVMBuildAnd(BLD, z, ez, ""), sel(E, bothpz, fc(s, 0.0), fc(s, -0.0)), r);
    }
    return r;
}

/* x * 2^k where cond holds (exact: callers only scale values far from overflow) */
static LLVMValueRef scale_if(emit_ctx *E, LLVMValueRef cond, LLVMValueRef x, int k) {
    return sel(E, cond, LLVMBuildFMul(BLD, x, fc(x, ldexp(1.0, k)), ""), x);
}

static LLVMValueRef abs_lt(emit_ctx *E, LLVMValueRef x, double lim) {
    LLVMValueRef ax = intrin(E, "llvm.fabs", (LLVMTypeRef[]){LLVMTypeOf(x)}, 1, &x, 1);
    return LLVMBuildFCmp(BLD, LLVMRealOLT, ax, fc(x, lim), "");
}

static LLVMValueRef f_mul(emit_ctx *E, LLVMValueRef a, LLVMValueRef b, ir_mod mode) {
    if (mode != IR_M_RZ && mode != IR_M_RM && mode != IR_M_RP) return LLVMBuildFMul(BLD, a, b, "");
    if (!is_f64(E, a)) {
        LLVMValueRef p = LLVMBuildFMul(BLD, LLVMBuildFPExt(BLD, a, E->f64, ""), LLVMBuildFPExt(BLD, b, E->f64, ""), "");
        LLVMValueRef r = LLVMBuildFPTrunc(BLD, p, E->f32, "");
        LLVMValueRef rs = sign_of(E, LLVMBuildFSub(BLD, p, LLVMBuildFPExt(BLD, r, E->f64, ""), ""));
        rs = ovf_fix(E, r, rs, is_finite(E, p));
        return f_directed(E, r, rs, mode);
    }
    LLVMValueRef r = LLVMBuildFMul(BLD, a, b, "");
    /* a*b - r underflows when r is tiny: scale the smaller operand and r by 2^600 (exact); a product that
     * rounds to zero has the residual sign of the exact product */
    LLVMValueRef tiny = abs_lt(E, r, 0x1p-900);
    LLVMValueRef a_small = LLVMBuildFCmp(BLD, LLVMRealOLE, intrin(E, "llvm.fabs", (LLVMTypeRef[]){E->f64}, 1, &a, 1),
                                         intrin(E, "llvm.fabs", (LLVMTypeRef[]){E->f64}, 1, &b, 1), "");
    LLVMValueRef as = scale_if(E, LLVMBuildAnd(BLD, tiny, a_small, ""), a, 600);
    LLVMValueRef bs = scale_if(E, LLVMBuildAnd(BLD, tiny, LLVMBuildNot(BLD, a_small, ""), ""), b, 600);
    LLVMValueRef err = fma_rt(E, as, bs, LLVMBuildFNeg(BLD, scale_if(E, tiny, r, 600), ""));
    LLVMValueRef rz = LLVMBuildFCmp(BLD, LLVMRealOEQ, r, fc(r, 0), "");
    LLVMValueRef es = sel(E, rz, LLVMBuildMul(BLD, sign_of(E, a), sign_of(E, b), ""), sign_of(E, err));
    LLVMValueRef rs = ovf_fix(E, r, es, both_finite(E, a, b));
    return f_directed(E, r, rs, mode);
}

static LLVMValueRef f_div(emit_ctx *E, LLVMValueRef a, LLVMValueRef b, ir_mod mode) {
    LLVMValueRef r = LLVMBuildFDiv(BLD, a, b, "");
    if (mode != IR_M_RZ && mode != IR_M_RM && mode != IR_M_RP) return r;
    LLVMValueRef rem;
    if (!is_f64(E, a)) {
        LLVMValueRef ad = LLVMBuildFPExt(BLD, a, E->f64, ""), bd = LLVMBuildFPExt(BLD, b, E->f64, "");
        rem = LLVMBuildFSub(BLD, ad, LLVMBuildFMul(BLD, LLVMBuildFPExt(BLD, r, E->f64, ""), bd, ""), "");
    } else {
        /* a - r*b underflows for tiny a: scale a and r by 2^600 (|r| <= 2^174 there), exact */
        LLVMValueRef tiny = abs_lt(E, a, 0x1p-900);
        rem = fma_rt(E, LLVMBuildFNeg(BLD, scale_if(E, tiny, r, 600), ""), b, scale_if(E, tiny, a, 600));
    }
    LLVMValueRef rs = LLVMBuildMul(BLD, sign_of(E, rem), sign_of(E, b), "");
    rs = sel(E, is_finite(E, b), rs, c32(E, 0));
    /* division of a finite value by zero is an exact infinity in every rounding mode (NVIDIA) */
    LLVMValueRef bnz = LLVMBuildFCmp(BLD, LLVMRealONE, b, fc(b, 0), "");
    rs = ovf_fix(E, r, rs, LLVMBuildAnd(BLD, both_finite(E, a, b), bnz, ""));
    return f_directed(E, r, rs, mode);
}

static LLVMValueRef f_sqrt(emit_ctx *E, LLVMValueRef a, ir_mod mode) {
    LLVMTypeRef ft = LLVMTypeOf(a);
    LLVMValueRef r = intrin(E, "llvm.sqrt", &ft, 1, &a, 1);
    if (mode != IR_M_RZ && mode != IR_M_RM && mode != IR_M_RP) return r;
    LLVMValueRef rem;
    if (!is_f64(E, a)) {
        LLVMValueRef rd_ = LLVMBuildFPExt(BLD, r, E->f64, "");
        rem = LLVMBuildFSub(BLD, LLVMBuildFPExt(BLD, a, E->f64, ""), LLVMBuildFMul(BLD, rd_, rd_, ""), "");
    } else {
        LLVMValueRef tiny = abs_lt(E, a, 0x1p-900); /* a - r*r underflows: scale a by 2^600, r by 2^300 */
        LLVMValueRef rr = scale_if(E, tiny, r, 300);
        rem = fma_rt(E, LLVMBuildFNeg(BLD, rr, ""), rr, scale_if(E, tiny, a, 600));
    }
    LLVMValueRef rs = sel(E, is_finite(E, r), sign_of(E, rem), c32(E, 0));
    return f_directed(E, r, rs, mode);
}

static LLVMValueRef f_fma(emit_ctx *E, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c, ir_mod mode) {
    LLVMValueRef r = fma_rt(E, a, b, c);
    if (mode != IR_M_RZ && mode != IR_M_RM && mode != IR_M_RP) return r;
    LLVMValueRef rs;
    if (!is_f64(E, a)) {
        LLVMValueRef p = LLVMBuildFMul(BLD, LLVMBuildFPExt(BLD, a, E->f64, ""), LLVMBuildFPExt(BLD, b, E->f64, ""), "");
        LLVMValueRef s, e;
        two_sum(E, p, LLVMBuildFPExt(BLD, c, E->f64, ""), &s, &e);
        LLVMValueRef t = LLVMBuildFSub(BLD, s, LLVMBuildFPExt(BLD, r, E->f64, ""), "");
        rs = sign_of(E, LLVMBuildFAdd(BLD, t, e, ""));
        rs = ovf_fix(E, r, rs, is_finite(E, s));
    } else {
        /* everything tiny (product, addend, result): scale the smaller factor, c and r by 2^600 so that the
         * residual computations do not underflow (exact) */
        LLVMValueRef p0 = LLVMBuildFMul(BLD, a, b, "");
        LLVMValueRef tiny = LLVMBuildAnd(BLD, LLVMBuildAnd(BLD, abs_lt(E, p0, 0x1p-900), abs_lt(E, c, 0x1p-900), ""),
                                         abs_lt(E, r, 0x1p-900), "");
        LLVMValueRef a_small = LLVMBuildFCmp(BLD, LLVMRealOLE, intrin(E, "llvm.fabs", (LLVMTypeRef[]){E->f64}, 1, &a, 1),
                                             intrin(E, "llvm.fabs", (LLVMTypeRef[]){E->f64}, 1, &b, 1), "");
        LLVMValueRef as = scale_if(E, LLVMBuildAnd(BLD, tiny, a_small, ""), a, 600);
        LLVMValueRef bs = scale_if(E, LLVMBuildAnd(BLD, tiny, LLVMBuildNot(BLD, a_small, ""), ""), b, 600);
        LLVMValueRef cs = scale_if(E, tiny, c, 600), rsc = scale_if(E, tiny, r, 600);
        LLVMValueRef p = LLVMBuildFMul(BLD, as, bs, "");
        LLVMValueRef pe = fma_rt(E, as, bs, LLVMBuildFNeg(BLD, p, ""));
        LLVMValueRef s1, e1;
        two_sum(E, p, cs, &s1, &e1);
        LLVMValueRef t = LLVMBuildFSub(BLD, s1, rsc, "");
        rs = sign_of(E, LLVMBuildFAdd(BLD, LLVMBuildFAdd(BLD, t, e1, ""), pe, ""));
        /* r == c: the residual is exactly a*b (whose sign survives even when a*b underflows) */
        LLVMValueRef req = LLVMBuildAnd(BLD, LLVMBuildFCmp(BLD, LLVMRealOEQ, r, c, ""), is_finite(E, c), "");
        rs = sel(E, req, LLVMBuildMul(BLD, sign_of(E, a), sign_of(E, b), ""), rs);
        rs = ovf_fix(E, r, rs, LLVMBuildAnd(BLD, both_finite(E, a, b), is_finite(E, c), ""));
    }
    LLVMValueRef res = f_directed(E, r, rs, mode);
    if (mode == IR_M_RM) {
        /* exact zero a*b + c: -0 unless both a*b and c are +0 (IEEE sum-of-zeros rule in round-down) */
        LLVMTypeRef it = int_for(E, a);
        LLVMValueRef psg = LLVMBuildXor(BLD, LLVMBuildBitCast(BLD, a, it, ""), LLVMBuildBitCast(BLD, b, it, ""), "");
        LLVMValueRef anyneg = LLVMBuildICmp(BLD, LLVMIntSLT, LLVMBuildOr(BLD, psg, LLVMBuildBitCast(BLD, c, it, ""), ""), ci(it, 0), "");
        LLVMValueRef ez = LLVMBuildAnd(BLD, LLVMBuildFCmp(BLD, LLVMRealOEQ, r, fc(r, 0), ""),
                                       LLVMBuildICmp(BLD, LLVMIntEQ, rs, c32(E, 0), ""), "");
        res = sel(E, LLVMBuildAnd(BLD, ez, anyneg, ""), fc(r, -0.0), res);
    }
    return res;
}

/* min/max with PTX NaN rules: one NaN -> the other operand, both NaN -> canonical NaN; -0 < +0 */
static LLVMValueRef f_minmax(emit_ctx *E, LLVMValueRef a, LLVMValueRef b, bool is_max, bool nan_prop) {
    LLVMTypeRef it = int_for(E, a);
    bool d = is_f64(E, a);
    LLVMValueRef an = f_isnan(E, a), bn = f_isnan(E, b);
    LLVMValueRef lt = LLVMBuildFCmp(BLD, is_max ? LLVMRealOGT : LLVMRealOLT, a, b, "");
    LLVMValueRef eq = LLVMBuildFCmp(BLD, LLVMRealOEQ, a, b, "");
    LLVMValueRef ai = LLVMBuildBitCast(BLD, a, it, ""), bi = LLVMBuildBitCast(BLD, b, it, "");
    LLVMValueRef eqv = LLVMBuildBitCast(BLD, is_max ? LLVMBuildAnd(BLD, ai, bi, "") : LLVMBuildOr(BLD, ai, bi, ""), LLVMTypeOf(a), "");
    LLVMValueRef r = sel(E, lt, a, sel(E, eq, eqv, b));
    LLVMValueRef cnan = LLVMBuildBitCast(BLD, ci(it, d ? 0x7fffffffffffffffull : 0x7fffffff), LLVMTypeOf(a), "");
    if (nan_prop) return sel(E, LLVMBuildOr(BLD, an, bn, ""), cnan, r);
    r = sel(E, an, b, sel(E, bn, a, r));
    /* both NaN: f32 gives the canonical NaN; f64 gives the second operand (quieted) (NVIDIA) */
    LLVMValueRef both = d ? LLVMBuildBitCast(BLD, LLVMBuildOr(BLD, bi, ci(it, 0x0008000000000000ull), ""), LLVMTypeOf(a), "") : cnan;
    return sel(E, LLVMBuildAnd(BLD, an, bn, ""), both, r);
}

/* ---------------------------------------------------------------- f16 / bf16 */

LLVMValueRef half_to_float(emit_ctx *E, LLVMValueRef h, bool bf) {
    LLVMValueRef x = zext_to(E, h, E->i32);
    if (bf) return LLVMBuildBitCast(BLD, LLVMBuildShl(BLD, x, c32(E, 16), ""), E->f32, "");
    LLVMValueRef s = LLVMBuildShl(BLD, LLVMBuildAnd(BLD, x, c32(E, 0x8000), ""), c32(E, 16), "");
    LLVMValueRef e = LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, x, c32(E, 10), ""), c32(E, 0x1f), "");
    LLVMValueRef m = LLVMBuildAnd(BLD, x, c32(E, 0x3ff), "");
    LLVMValueRef norm = LLVMBuildOr(BLD, LLVMBuildShl(BLD, LLVMBuildAdd(BLD, e, c32(E, 112), ""), c32(E, 23), ""),
                                    LLVMBuildShl(BLD, m, c32(E, 13), ""), "");
    LLVMValueRef infn = LLVMBuildOr(BLD, c32(E, 0x7f800000), LLVMBuildShl(BLD, m, c32(E, 13), ""), "");
    LLVMValueRef subf = LLVMBuildFMul(BLD, LLVMBuildUIToFP(BLD, m, E->f32, ""), LLVMConstReal(E->f32, 0x1p-24), "");
    LLVMValueRef sub = LLVMBuildBitCast(BLD, subf, E->i32, "");
    LLVMValueRef v = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, e, c32(E, 0), ""), sub,
                         sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, e, c32(E, 31), ""), infn, norm));
    return LLVMBuildBitCast(BLD, LLVMBuildOr(BLD, v, s, ""), E->f32, "");
}

/* Narrows an IEEE value (integer bits, W = 32 or 64, SM mantissa bits, SB bias) to a format with TM mantissa
 * and TE exponent bits, one rounding in `mode`. Result: i16 bits. NaN -> 0x7fff. */
static LLVMValueRef narrow_x(emit_ctx *E, LLVMValueRef bits, unsigned W, unsigned SM, unsigned SB, unsigned TM, unsigned TE,
                             ir_mod mode, bool relu, bool satfinite, bool no_inf, uint64_t nan_t);
static LLVMValueRef narrow(emit_ctx *E, LLVMValueRef bits, unsigned W, unsigned SM, unsigned SB, unsigned TM, unsigned TE,
                           ir_mod mode, bool relu, bool satfinite) {
    return narrow_x(E, bits, W, SM, SB, TM, TE, mode, relu, satfinite, false, 0x7fff);
}

/* f32 -> FP8 (e4m3: no infinities, 0x7f is NaN, max 448; e5m2: IEEE-like), one byte in an i16 */
LLVMValueRef float_to_fp8(emit_ctx *E, LLVMValueRef f, bool e4m3, bool satfinite, bool relu);
LLVMValueRef float_to_fp8(emit_ctx *E, LLVMValueRef f, bool e4m3, bool satfinite, bool relu) {
    LLVMValueRef b = LLVMBuildBitCast(BLD, f, E->i32, "");
    return e4m3 ? narrow_x(E, b, 32, 23, 127, 3, 4, IR_M_RN, relu, satfinite, true, 0x7f)
                : narrow_x(E, b, 32, 23, 127, 2, 5, IR_M_RN, relu, satfinite, false, 0x7f);
}

static LLVMValueRef narrow_core(emit_ctx *E, LLVMValueRef bits, unsigned W, unsigned SM, unsigned SB, unsigned TM,
                                unsigned TE, ir_mod mode, bool relu, bool satfinite, bool no_inf, uint64_t nan_t,
                                LLVMValueRef rnd, unsigned rw);
static LLVMValueRef narrow_x(emit_ctx *E, LLVMValueRef bits, unsigned W, unsigned SM, unsigned SB, unsigned TM, unsigned TE,
                             ir_mod mode, bool relu, bool satfinite, bool no_inf, uint64_t nan_t) {
    return narrow_core(E, bits, W, SM, SB, TM, TE, mode, relu, satfinite, no_inf, nan_t, NULL, 0);
}

/* f32 -> a narrow format (for emit_cvt_fp4.c, emit_cvt_rs.c): see emit.h */
LLVMValueRef float_to_narrow(emit_ctx *E, LLVMValueRef f, unsigned TM, unsigned TE, ir_mod mode, bool relu,
                             bool satfinite, bool no_inf, uint64_t nan_t, LLVMValueRef rnd, unsigned rw) {
    return narrow_core(E, LLVMBuildBitCast(BLD, f, E->i32, ""), 32, 23, 127, TM, TE, mode, relu, satfinite, no_inf,
                       nan_t, rnd, rw);
}

static LLVMValueRef narrow_core(emit_ctx *E, LLVMValueRef bits, unsigned W, unsigned SM, unsigned SB, unsigned TM,
                                unsigned TE, ir_mod mode, bool relu, bool satfinite, bool no_inf, uint64_t nan_t,
                                LLVMValueRef rnd, unsigned rw) {
    LLVMTypeRef it = W == 64 ? E->i64 : E->i32;
    unsigned TB = (1u << (TE - 1)) - 1;
    uint64_t absmask = W == 64 ? 0x7fffffffffffffffull : 0x7fffffffull;
    uint64_t inf_src = ((W == 64 ? 0x7ffull : 0xffull) << SM);
    uint64_t inf_t = ((1ull << TE) - 1) << TM, max_t = inf_t - 1;
    if (no_inf) { inf_t = nan_t; max_t = nan_t - 1; } /* e4m3: overflow lands on the NaN pattern */
    LLVMValueRef a = LLVMBuildAnd(BLD, bits, ci(it, absmask), "");
    LLVMValueRef sgn = LLVMBuildICmp(BLD, LLVMIntNE, LLVMBuildLShr(BLD, bits, ci(it, W - 1), ""), ci(it, 0), "");
    LLVMValueRef isnan = LLVMBuildICmp(BLD, LLVMIntUGT, a, ci(it, inf_src), "");
    LLVMValueRef isinf = LLVMBuildICmp(BLD, LLVMIntEQ, a, ci(it, inf_src), "");
    LLVMValueRef e = LLVMBuildLShr(BLD, a, ci(it, SM), "");
    uint64_t min_norm_e = SB - TB + 1;
    unsigned drop = SM - TM;
    /* normal */
    LLVMValueRef hn = LLVMBuildSub(BLD, LLVMBuildLShr(BLD, a, ci(it, drop), ""), ci(it, (uint64_t)(SB - TB) << TM), "");
    LLVMValueRef remn = LLVMBuildAnd(BLD, a, ci(it, (1ull << drop) - 1), "");
    LLVMValueRef halfn = ci(it, 1ull << (drop - 1));
    /* subnormal */
    LLVMValueRef ez = LLVMBuildICmp(BLD, LLVMIntEQ, e, ci(it, 0), "");
    LLVMValueRef m = LLVMBuildOr(BLD, LLVMBuildAnd(BLD, a, ci(it, (1ull << SM) - 1), ""), sel(E, ez, ci(it, 0), ci(it, 1ull << SM)), "");
    LLVMValueRef e1 = sel(E, ez, ci(it, 1), e);
    LLVMValueRef shift = LLVMBuildSub(BLD, ci(it, (uint64_t)SB + SM + 1 - TB - TM), e1, "");
    LLVMValueRef far = LLVMBuildICmp(BLD, LLVMIntUGE, shift, ci(it, W - 1), "");
    LLVMValueRef sh = sel(E, far, ci(it, 1), shift);
    LLVMValueRef hs = sel(E, far, ci(it, 0), LLVMBuildLShr(BLD, m, sh, ""));
    LLVMValueRef rems = sel(E, far, zext_to(E, LLVMBuildICmp(BLD, LLVMIntNE, m, ci(it, 0), ""), it),
                            LLVMBuildAnd(BLD, m, LLVMBuildSub(BLD, LLVMBuildShl(BLD, ci(it, 1), sh, ""), ci(it, 1), ""), ""));
    LLVMValueRef halfs = sel(E, far, ci(it, 2), LLVMBuildShl(BLD, ci(it, 1), LLVMBuildSub(BLD, sh, ci(it, 1), ""), ""));
    LLVMValueRef isnorm = LLVMBuildICmp(BLD, LLVMIntUGE, e, ci(it, min_norm_e), "");
    LLVMValueRef h = sel(E, isnorm, hn, hs), rem = sel(E, isnorm, remn, rems), half = sel(E, isnorm, halfn, halfs);
    LLVMValueRef inexact = LLVMBuildICmp(BLD, LLVMIntNE, rem, ci(it, 0), "");
    LLVMValueRef inc;
    switch (mode) {
    case IR_M_RZ: inc = ci(E->i1, 0); break;
    case IR_M_RM: inc = LLVMBuildAnd(BLD, sgn, inexact, ""); break;
    case IR_M_RP: inc = LLVMBuildAnd(BLD, LLVMBuildNot(BLD, sgn, ""), inexact, ""); break;
    case IR_M_RNA: inc = LLVMBuildICmp(BLD, LLVMIntUGE, rem, half, ""); break;
    case IR_M_RS: {
        /* stochastic: the rw random bits are added to the d discarded bits, aligned with their most significant
         * end; a carry out of the discarded field rounds the magnitude up, otherwise it is truncated:
         *   rem + rnd * 2^(d - rw) >= 2^d  <=>  rem >= (2^rw - rnd) << (d - rw)
         * with d = drop (normal) or the subnormal shift, which may exceed the word (everything discarded: rem is
         * the whole significand m, below 2^(SM+1), so no carry once d - rw > 40). d >= rw for every format. */
        LLVMValueRef d = zext_to(E, sel(E, isnorm, ci(it, drop), shift), E->i64);
        LLVMValueRef remall = zext_to(E, sel(E, isnorm, remn, sel(E, far, m, rems)), E->i64);
        LLVMValueRef k = LLVMBuildSub(BLD, d, c64(E, rw), "");
        LLVMValueRef big = LLVMBuildICmp(BLD, LLVMIntUGT, k, c64(E, 40), "");
        LLVMValueRef need = LLVMBuildShl(BLD, LLVMBuildSub(BLD, c64(E, 1ull << rw), zext_to(E, rnd, E->i64), ""),
                                         sel(E, big, c64(E, 0), k), "");
        inc = LLVMBuildAnd(BLD, LLVMBuildNot(BLD, big, ""), LLVMBuildICmp(BLD, LLVMIntUGE, remall, need, ""), "");
        break;
    }
    default: {
        LLVMValueRef gt = LLVMBuildICmp(BLD, LLVMIntUGT, rem, half, "");
        LLVMValueRef tie = LLVMBuildAnd(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, rem, half, ""),
                                        LLVMBuildTrunc(BLD, h, E->i1, ""), "");
        inc = LLVMBuildOr(BLD, gt, tie, "");
    }
    }
    h = LLVMBuildAdd(BLD, h, zext_to(E, inc, it), "");
    LLVMValueRef ovf = LLVMBuildICmp(BLD, LLVMIntUGE, h, ci(it, inf_t), "");
    LLVMValueRef ovv;
    switch (mode) {
    case IR_M_RZ: ovv = ci(it, max_t); break;
    case IR_M_RM: ovv = sel(E, sgn, ci(it, inf_t), ci(it, max_t)); break;
    case IR_M_RP: ovv = sel(E, sgn, ci(it, max_t), ci(it, inf_t)); break;
    default: ovv = ci(it, inf_t);
    }
    h = sel(E, ovf, ovv, h);
    h = sel(E, isinf, ci(it, inf_t), h);
    if (satfinite) h = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, h, ci(it, inf_t), ""), ci(it, max_t), h);
    h = LLVMBuildOr(BLD, h, sel(E, sgn, ci(it, 1ull << (TM + TE)), ci(it, 0)), "");
    if (relu) h = sel(E, sgn, ci(it, 0), h);
    if (no_inf) { /* no infinity: overflow without .satfinite is NaN (sign dropped) */
        LLVMValueRef mag = LLVMBuildAnd(BLD, h, ci(it, (1ull << (TM + TE)) - 1), "");
        h = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, mag, ci(it, nan_t), ""), ci(it, nan_t), h);
    }
    h = sel(E, isnan, ci(it, nan_t), h);
    return LLVMBuildTrunc(BLD, h, E->i16, "");
}

LLVMValueRef float_to_half(emit_ctx *E, LLVMValueRef f, bool bf, ir_mod mode, bool relu, bool satfinite) {
    LLVMValueRef b = LLVMBuildBitCast(BLD, f, E->i32, "");
    return bf ? narrow(E, b, 32, 23, 127, 7, 8, mode, relu, satfinite) : narrow(E, b, 32, 23, 127, 10, 5, mode, relu, satfinite);
}

LLVMValueRef double_to_half(emit_ctx *E, LLVMValueRef d, bool bf, ir_mod mode) {
    LLVMValueRef b = LLVMBuildBitCast(BLD, d, E->i64, "");
    return bf ? narrow(E, b, 64, 52, 1023, 7, 8, mode, false, false) : narrow(E, b, 64, 52, 1023, 10, 5, mode, false, false);
}

LLVMValueRef f_round_int(emit_ctx *E, LLVMValueRef v, ir_mod mode) {
    LLVMTypeRef ft = LLVMTypeOf(v);
    const char *n = mode == IR_M_RZI ? "llvm.trunc" : mode == IR_M_RMI ? "llvm.floor" : mode == IR_M_RPI ? "llvm.ceil"
                                                                                             : "llvm.roundeven";
    return intrin(E, n, &ft, 1, &v, 1);
}

static LLVMValueRef h_ftz(emit_ctx *E, LLVMValueRef h, bool bf) {
    /* flush a 16-bit subnormal to signed zero */
    LLVMValueRef e = LLVMBuildAnd(BLD, h, ci(E->i16, bf ? 0x7f80 : 0x7c00), "");
    return sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, e, ci(E->i16, 0), ""), LLVMBuildAnd(BLD, h, ci(E->i16, 0x8000), ""), h);
}

/* .ftz tininess for 16-bit results (NVIDIA, as for f32): the exact result w is rounded to the destination
 * precision with an unbounded exponent; if that is below the smallest normal the result is flushed (signed
 * zero) even when rounding on the subnormal grid gave the smallest normal. w: f64 (exact or correctly
 * rounded wider value). */
static LLVMValueRef h_ftz_tiny(emit_ctx *E, LLVMValueRef h, LLVMValueRef w, bool bf, ir_mod mode) {
    /* scale by 2^20 (f16) / 2^20 (bf16): tiny values land in the normal range of the format */
    LLVMValueRef ws = LLVMBuildFMul(BLD, w, LLVMConstReal(E->f64, 0x1p20), "");
    LLVMValueRef hs = double_to_half(E, ws, bf, mode);
    LLVMValueRef mag = LLVMBuildAnd(BLD, hs, ci(E->i16, 0x7fff), "");
    /* 2^-14 * 2^20 = 2^6 -> f16 0x5400; bf16: 2^-126 * 2^20 = 2^-106 -> 0x0a80 */
    LLVMValueRef tiny = LLVMBuildICmp(BLD, LLVMIntULT, mag, ci(E->i16, bf ? 0x0a80 : 0x5400), "");
    LLVMValueRef fin = LLVMBuildFCmp(BLD, LLVMRealOLT, intrin(E, "llvm.fabs", &E->f64, 1, &w, 1), LLVMConstReal(E->f64, 1.0), "");
    return sel(E, LLVMBuildAnd(BLD, tiny, fin, ""), LLVMBuildAnd(BLD, h, ci(E->i16, 0x8000), ""), h);
}

/* one 16-bit lane of an f16/bf16 instruction (x2: a lane of a packed one) */
static LLVMValueRef half_op(emit_ctx *E, const ir_ins *ins, bool bf, bool x2, LLVMValueRef *x, unsigned n, bool *ok) {
    bool ftz = ir_ins_has(ins, IR_M_FTZ), sat = ir_ins_has(ins, IR_M_SAT), relu = ir_ins_has(ins, IR_M_RELU);
    ir_mod zero_mode = IR_M_NONE; /* the mode whose sign an exact zero fma result takes, when not `mode` */
    *ok = true;
    if (bf && (ins->op == IR_OP_FMA || ins->op == IR_OP_MAD)) {
        ir_mod m = round_mode(ins);
        if (m == IR_M_RZ || m == IR_M_RM || m == IR_M_RP) {
            /* NVIDIA rule 21 (docs/nvidia-rules.md; H100, driver 580, sweep/fma_mad_bf16{,x2}): the directed
             * roundings of bf16 fma are not honoured. fma.{rz,rm,rp}{.relu}.bf16x2 is fma.rn{.relu}.bf16x2;
             * scalar fma.{rz,rm,rp}{.relu}.bf16 reads its operands and writes its result as f16 bit patterns,
             * rounds to nearest, ignores .relu, and an exact zero takes the sign of the asked mode (.rm: -0). */
            if (!x2) { bf = false; relu = false; zero_mode = m; }
        }
    }
    for (unsigned i = 0; i < n; i++)
        if (ftz) x[i] = h_ftz(E, x[i], bf);
    switch ((ir_opcode)ins->op) {
    case IR_OP_NEG:
    case IR_OP_ABS: {
        /* NaN -> canonical 0x7fff for f16 and bf16 (NVIDIA) */
        LLVMValueRef h = ins->op == IR_OP_NEG ? LLVMBuildXor(BLD, x[0], ci(E->i16, 0x8000), "") : LLVMBuildAnd(BLD, x[0], ci(E->i16, 0x7fff), "");
        LLVMValueRef mag = LLVMBuildAnd(BLD, x[0], ci(E->i16, 0x7fff), "");
        LLVMValueRef isnan = LLVMBuildICmp(BLD, LLVMIntUGT, mag, ci(E->i16, bf ? 0x7f80 : 0x7c00), "");
        return sel(E, isnan, ci(E->i16, 0x7fff), h);
    }
    default: break;
    }
    LLVMValueRef f[3];
    for (unsigned i = 0; i < n; i++) f[i] = half_to_float(E, x[i], bf);
    LLVMValueRef r;
    ir_mod mode = round_mode(ins);
    if (mode == IR_M_NONE) mode = IR_M_RN;
    if (bf && x2 && (ins->op == IR_OP_FMA || ins->op == IR_OP_MAD)) mode = IR_M_RN; /* rule 21, see above */
    if (zero_mode != IR_M_NONE) mode = IR_M_RN;
    switch ((ir_opcode)ins->op) {
    case IR_OP_ADD: r = LLVMBuildFAdd(BLD, f[0], f[1], ""); break;
    case IR_OP_SUB: r = LLVMBuildFSub(BLD, f[0], f[1], ""); break;
    case IR_OP_MUL: r = LLVMBuildFMul(BLD, f[0], f[1], ""); break;
    case IR_OP_FMA:
    case IR_OP_MAD: {
        LLVMValueRef p = LLVMBuildFMul(BLD, LLVMBuildFPExt(BLD, f[0], E->f64, ""), LLVMBuildFPExt(BLD, f[1], E->f64, ""), "");
        LLVMValueRef c = LLVMBuildFPExt(BLD, f[2], E->f64, "");
        LLVMValueRef s = LLVMBuildFAdd(BLD, p, c, "");
        {
            /* p is exact (two 11-bit significands), but p + c may round in f64 and then again to 16 bits: a sum
             * just below a 16-bit midpoint would round up (bf16round/fma_tie_double_rounding,
             * bf16_specials_all_modifiers on the H100: 3 * 1.0078125 - tiny -> 0x4041). Round the f64 sum to odd
             * (the exact error from TwoSum decides the sticky ulp), which makes the second rounding correct. */
            LLVMValueRef bp = LLVMBuildFSub(BLD, s, c, ""), bc = LLVMBuildFSub(BLD, s, bp, "");
            LLVMValueRef err = LLVMBuildFAdd(BLD, LLVMBuildFSub(BLD, p, bp, ""), LLVMBuildFSub(BLD, c, bc, ""), "");
            LLVMValueRef sb = LLVMBuildBitCast(BLD, s, E->i64, "");
            LLVMValueRef inexact = LLVMBuildAnd(BLD, LLVMBuildFCmp(BLD, LLVMRealONE, err, LLVMConstReal(E->f64, 0.0), ""),
                                                is_finite(E, s), "");
            LLVMValueRef even = LLVMBuildICmp(BLD, LLVMIntEQ, LLVMBuildAnd(BLD, sb, c64(E, 1), ""), c64(E, 0), "");
            /* towards err: magnitude up when err has the sign of s, down otherwise */
            LLVMValueRef sneg = LLVMBuildICmp(BLD, LLVMIntSLT, sb, c64(E, 0), "");
            LLVMValueRef eneg = LLVMBuildFCmp(BLD, LLVMRealOLT, err, LLVMConstReal(E->f64, 0.0), "");
            LLVMValueRef up = LLVMBuildICmp(BLD, LLVMIntEQ, sneg, eneg, "");
            LLVMValueRef adj = LLVMBuildBitCast(BLD, sel(E, up, LLVMBuildAdd(BLD, sb, c64(E, 1), ""), LLVMBuildSub(BLD, sb, c64(E, 1), "")), E->f64, "");
            s = sel(E, LLVMBuildAnd(BLD, inexact, even, ""), adj, s);
        }
        if (sat) s = f_sat(E, s);
        LLVMValueRef h = double_to_half(E, s, bf, mode);
        if (zero_mode == IR_M_RM) { /* rule 21: exact zero -> -0 unless a*b and c are both +0 */
            LLVMValueRef pz = LLVMBuildICmp(BLD, LLVMIntEQ, LLVMBuildBitCast(BLD, p, E->i64, ""), c64(E, 0), "");
            LLVMValueRef cz = LLVMBuildICmp(BLD, LLVMIntEQ, LLVMBuildBitCast(BLD, c, E->i64, ""), c64(E, 0), "");
            LLVMValueRef z = LLVMBuildFCmp(BLD, LLVMRealOEQ, s, LLVMConstReal(E->f64, 0.0), "");
            h = sel(E, z, sel(E, LLVMBuildAnd(BLD, pz, cz, ""), ci(E->i16, 0), ci(E->i16, 0x8000)), h);
        }
        /* .relu: any result with the sign bit set (negative or -0) becomes +0; NaN is canonical 0x7fff */
        if (relu) h = sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, h, ci(E->i16, 0), ""), ci(E->i16, 0), h);
        if (ftz) h = h_ftz_tiny(E, h, s, bf, mode);
        return ftz ? h_ftz(E, h, bf) : h;
    }
    case IR_OP_MIN:
    case IR_OP_MAX: {
        /* .xorsign.abs: min/max of the magnitudes, sign = sign(a) ^ sign(b) unless the result is NaN (as f32) */
        bool xs = ir_ins_has(ins, IR_M_XORSIGN);
        LLVMValueRef fa = f[0], fb = f[1];
        if (xs) {
            fa = intrin(E, "llvm.fabs", &E->f32, 1, &fa, 1);
            fb = intrin(E, "llvm.fabs", &E->f32, 1, &fb, 1);
        }
        r = f_minmax(E, fa, fb, ins->op == IR_OP_MAX, ir_ins_has(ins, IR_M_NAN));
        LLVMValueRef h = float_to_half(E, r, bf, IR_M_RN, false, false);
        if (xs) {
            LLVMValueRef sx = LLVMBuildAnd(BLD, LLVMBuildXor(BLD, x[0], x[1], ""), ci(E->i16, 0x8000), "");
            LLVMValueRef hn = LLVMBuildICmp(BLD, LLVMIntUGT, LLVMBuildAnd(BLD, h, ci(E->i16, 0x7fff), ""),
                                            ci(E->i16, bf ? 0x7f80 : 0x7c00), "");
            h = sel(E, hn, h, LLVMBuildOr(BLD, h, sx, ""));
        }
        if (relu) h = sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, h, ci(E->i16, 0), ""), ci(E->i16, 0), h);
        return h;
    }
    case IR_OP_EX2: {
        LLVMValueRef a1[1] = {f[0]};
        r = LLVMBuildCall2(BLD, LLVMFunctionType(E->f32, &E->f32, 1, 0), rt_fn(E, RT_EXP2F), a1, 1, "");
        break;
    }
    case IR_OP_TANH: {
        LLVMValueRef a1[1] = {f[0]};
        r = LLVMBuildCall2(BLD, LLVMFunctionType(E->f32, &E->f32, 1, 0), rt_fn(E, RT_TANHF), a1, 1, "");
        break;
    }
    default: *ok = false; return ci(E->i16, 0);
    }
    if (sat) r = f_sat(E, r);
    LLVMValueRef h = float_to_half(E, r, bf, mode, relu, false);
    if (relu) h = sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, h, ci(E->i16, 0), ""), ci(E->i16, 0), h);
    if (ftz) h = h_ftz_tiny(E, h, LLVMBuildFPExt(BLD, r, E->f64, ""), bf, mode);
    return ftz ? h_ftz(E, h, bf) : h;
}

static bool emit_half(emit_ctx *E, const ir_ins *ins, ir_type t) {
    const ir_operand *o = ins->ops;
    bool bf = t == IR_T_BF16 || t == IR_T_BF16X2, x2 = t == IR_T_F16X2 || t == IR_T_BF16X2;
    unsigned n = ins->nops - 1;
    if (n > 3) return false;
    if (ins->op == IR_OP_MIN || ins->op == IR_OP_MAX) { if (n != 2) return false; }
    if (ir_ins_has(ins, IR_M_XORSIGN) && (!ir_ins_has(ins, IR_M_ABS) || (ins->op != IR_OP_MIN && ins->op != IR_OP_MAX)))
        return false;
    bool ok = true;
    if (!x2) {
        LLVMValueRef x[3];
        for (unsigned i = 0; i < n; i++) x[i] = rd(E, &o[1 + i], IR_T_B16);
        LLVMValueRef r = half_op(E, ins, bf, false, x, n, &ok);
        if (!ok) return false;
        wr(E, &o[0], IR_T_B16, r);
        return true;
    }
    LLVMValueRef v[3], r = c32(E, 0);
    for (unsigned i = 0; i < n; i++) v[i] = rd(E, &o[1 + i], IR_T_B32);
    for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef x[3];
        for (unsigned i = 0; i < n; i++) x[i] = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, v[i], c32(E, 16 * h), ""), E->i16, "");
        LLVMValueRef y = half_op(E, ins, bf, true, x, n, &ok);
        if (!ok) return false;
        r = LLVMBuildOr(BLD, r, LLVMBuildShl(BLD, zext_to(E, y, E->i32), c32(E, 16 * h), ""), "");
    }
    wr(E, &o[0], IR_T_B32, r);
    return true;
}

/* ---------------------------------------------------------------- f32 / f64 */

static LLVMValueRef rt_unary(emit_ctx *E, unsigned slot, LLVMValueRef x) {
    LLVMValueRef a1[1] = {x};
    return LLVMBuildCall2(BLD, LLVMFunctionType(E->f32, &E->f32, 1, 0), rt_fn(E, slot), a1, 1, "");
}

/* f64 NaN operand made quiet (the quiet bit set, payload and sign kept) */
static LLVMValueRef f64_quiet(emit_ctx *E, LLVMValueRef v) {
    LLVMValueRef b = LLVMBuildOr(BLD, LLVMBuildBitCast(BLD, v, E->i64, ""), c64(E, 0x0008000000000000ull), "");
    return LLVMBuildBitCast(BLD, b, E->f64, "");
}

/* double __p2n_nan_f64_<k>(x0, .., xk-1): NVIDIA's f64 NaN result of an operation whose operands are x0.. in
 * NVIDIA's order (f_nan_result): the first NaN quieted, else the invalid-operation NaN. Internal, cold, never
 * inlined: one per module and arity. */
static LLVMValueRef f64_nan_helper(emit_ctx *E, unsigned k) {
    char name[32];
    snprintf(name, sizeof name, "__p2n_nan_f64_%u", k);
    LLVMValueRef fn = LLVMGetNamedFunction(E->M, name);
    if (fn) return fn;
    LLVMTypeRef pt[3] = {E->f64, E->f64, E->f64};
    fn = LLVMAddFunction(E->M, name, LLVMFunctionType(E->f64, pt, k, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    static const char *const attrs[] = {"noinline", "cold", "nounwind", "willreturn"};
    for (unsigned i = 0; i < 4; i++)
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                LLVMCreateEnumAttribute(E->C, LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i])), 0));
    LLVMBasicBlockRef saved = LLVMGetInsertBlock(BLD);
    LLVMPositionBuilderAtEnd(BLD, LLVMAppendBasicBlockInContext(E->C, fn, "entry"));
    LLVMValueRef v = LLVMBuildBitCast(BLD, c64(E, 0xfff8000000000000ull), E->f64, "");
    for (unsigned i = k; i-- > 0;) {
        LLVMValueRef xi = LLVMGetParam(fn, i);
        v = sel(E, f_isnan(E, xi), f64_quiet(E, xi), v);
    }
    LLVMBuildRet(BLD, v);
    LLVMPositionBuilderAtEnd(BLD, saved);
    return fn;
}

/* Whether the current function's f64 NaN results go out of line: the target allows it and the function has more
 * than F64_NAN_INLINE_MAX f64 arithmetic instructions. Small functions keep the inline selects: their loops stay
 * vectorisable (a call in a loop stops LLVM's loop vectoriser), and their compile time is small anyway. */
enum { F64_NAN_INLINE_MAX = 64 };
static unsigned f64_nan_inline_max(void) {
    /* $P2N_F64_NAN_INLINE_MAX: another limit, for tests (0: every function out of line) */
    const char *e = getenv("P2N_F64_NAN_INLINE_MAX");
    return e && *e ? (unsigned)strtoul(e, NULL, 10) : F64_NAN_INLINE_MAX;
}
static bool f64_nan_cold(emit_ctx *E) {
    if (!E->t->f64_nan_out_of_line || !E->f) return false;
    if (E->f64_cold_of != (int64_t)E->fidx) {   /* once per function */
        unsigned n = 0;
        for (uint32_t b = 0; b < E->f->nblocks; b++)
            for (uint32_t i = 0; i < E->f->blocks[b].n; i++) {
                const ir_ins *in = &E->f->blocks[b].ins[i];
                ir_opcode op = (ir_opcode)in->op;
                if ((op == IR_OP_ADD || op == IR_OP_SUB || op == IR_OP_MUL || op == IR_OP_FMA || op == IR_OP_MAD ||
                     op == IR_OP_DIV) && in->nops > 0 && ir_ins_type(in, 0) == IR_T_F64)
                    n++;
            }
        E->f64_cold_of = E->fidx;
        E->f64_cold = n > f64_nan_inline_max();
    }
    return E->f64_cold;
}

/* The NaN an f32/f64 arithmetic result carries on NVIDIA (learned from the H100 recordings nanbits/nan_f32,
 * nanbits/nan_f64, sweep/{add,sub,mul,fma_mad,div_rcp_sqrt}_{f32,f64}; the PTX ISA leaves NaN payloads open):
 *  - f32: every NaN result is the canonical 0x7fffffff, whatever the operands (add/sub/mul/fma/mad/div/rcp/sqrt
 *    and every .approx op); min/max, abs/neg and copysign have their own rules elsewhere.
 *  - f64: the first NaN operand in the order b, c, a (add/sub/mul/fma/mad) or a, b (div), or the operand
 *    (sqrt/rcp/rsqrt), with its quiet bit set; an invalid operation (inf-inf, 0*inf, 0/0, sqrt(-x)) gives
 *    0xfff8000000000000. rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64 give 0x7fffffff00000000 (they work on the
 *    upper word: f32 canonical NaN in the high half).
 * Done with explicit selects so every target (host, AMDGPU, SPIR-V) gives the same bits. */
static LLVMValueRef f_nan_result(emit_ctx *E, const ir_ins *ins, ir_type t, LLVMValueRef *x, unsigned n, LLVMValueRef r) {
    ir_opcode op = (ir_opcode)ins->op;
    bool arith = op == IR_OP_ADD || op == IR_OP_SUB || op == IR_OP_MUL || op == IR_OP_FMA || op == IR_OP_MAD ||
                 op == IR_OP_DIV || op == IR_OP_RCP || op == IR_OP_SQRT || op == IR_OP_RSQRT;
    if (t == IR_T_F32) {
        if (!arith && op != IR_OP_SIN && op != IR_OP_COS && op != IR_OP_LG2 && op != IR_OP_EX2 && op != IR_OP_TANH) return r;
        /* tested on the bits: a floating-point compare of the result lets LLVM fold isnan(sqrt(x)) into a test
         * of x that lost the NaN-input case (seen on nanbits/nan_f32's sqrt.rn) */
        LLVMValueRef mag = LLVMBuildAnd(BLD, LLVMBuildBitCast(BLD, r, E->i32, ""), c32(E, 0x7fffffff), "");
        LLVMValueRef nan = LLVMBuildICmp(BLD, LLVMIntUGT, mag, c32(E, 0x7f800000), "");
        return sel(E, nan, LLVMBuildBitCast(BLD, c32(E, 0x7fffffff), E->f32, ""), r);
    }
    if (t != IR_T_F64 || !arith) return r;
    if (ir_ins_has(ins, IR_M_APPROX) && ir_ins_has(ins, IR_M_FTZ) && (op == IR_OP_RCP || op == IR_OP_RSQRT))
        return sel(E, f_isnan(E, r), LLVMBuildBitCast(BLD, c64(E, 0x7fffffff00000000ull), E->f64, ""), r);
    unsigned ord[3], k = 0;
    if (op == IR_OP_DIV || n == 1) for (unsigned i = 0; i < n; i++) ord[k++] = i;
    else { ord[k++] = 1; if (n == 3) ord[k++] = 2; ord[k++] = 0; }
    if (!f64_nan_cold(E)) {
        /* the first NaN operand (else the invalid-operation NaN, already quiet), quieted once */
        LLVMValueRef v = LLVMBuildBitCast(BLD, c64(E, 0xfff8000000000000ull), E->f64, "");
        for (unsigned i = k; i-- > 0;) v = sel(E, f_isnan(E, x[ord[i]]), x[ord[i]], v);
        return sel(E, f_isnan(E, r), f64_quiet(E, v), r);
    }
    /* on a cold path: the selects are a call of a helper (one per arity, operands in NVIDIA's order), so an f64
     * operation costs a compare and a branch where the NaN rule inline costs eleven instructions (cuFFT's f64
     * kernels: most of their compile time, bench/compile-speed/RESULTS.md) */
    LLVMValueRef xs[3];
    for (unsigned i = 0; i < k; i++) xs[i] = x[ord[i]];
    LLVMValueRef helper = f64_nan_helper(E, k);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(BLD), fix = new_bb(E, "nan64"), cont = new_bb(E, "nan64.done");
    LLVMValueRef br = LLVMBuildCondBr(BLD, f_isnan(E, r), fix, cont);
    LLVMMetadataRef wm[3] = {LLVMMDStringInContext2(E->C, "branch_weights", 14),
                             LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(E->C), 1, 0)),
                             LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(E->C), 1 << 20, 0))};
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(E->C, "prof", 4), LLVMMetadataAsValue(E->C, LLVMMDNodeInContext2(E->C, wm, 3)));
    LLVMPositionBuilderAtEnd(BLD, fix);
    LLVMValueRef v = LLVMBuildCall2(BLD, LLVMGlobalGetValueType(helper), helper, xs, k, "");
    LLVMBuildBr(BLD, cont);
    LLVMPositionBuilderAtEnd(BLD, cont);
    LLVMValueRef phi = LLVMBuildPhi(BLD, E->f64, "");
    LLVMValueRef vals[2] = {r, v};
    LLVMBasicBlockRef bbs[2] = {pre, fix};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return phi;
}

static bool f_arith(emit_ctx *E, const ir_ins *ins, ir_type t, LLVMValueRef *x, unsigned n, LLVMValueRef *out);

bool emit_float(emit_ctx *E, const ir_ins *ins) {
    const ir_operand *o = ins->ops;
    ir_type t = ir_ins_type(ins, 0);
    if (t == IR_T_F16 || t == IR_T_BF16 || t == IR_T_F16X2 || t == IR_T_BF16X2) return emit_half(E, ins, t);
    if (ins->op == IR_OP_TESTP) {
        LLVMValueRef a = rd(E, &o[1], t);
        if (!t_float(t)) return false;
        bool d = t == IR_T_F64;
        LLVMTypeRef it = d ? E->i64 : E->i32;
        LLVMValueRef mag = LLVMBuildAnd(BLD, LLVMBuildBitCast(BLD, a, it, ""), ci(it, d ? 0x7fffffffffffffffull : 0x7fffffff), "");
        LLVMValueRef inf = ci(it, d ? 0x7ff0000000000000ull : 0x7f800000), minn = ci(it, d ? 0x0010000000000000ull : 0x00800000);
        LLVMValueRef r;
        if (ir_ins_has(ins, IR_M_FINITE)) r = LLVMBuildICmp(BLD, LLVMIntULT, mag, inf, "");
        else if (ir_ins_has(ins, IR_M_INFINITE)) r = LLVMBuildICmp(BLD, LLVMIntEQ, mag, inf, "");
        else if (ir_ins_has(ins, IR_M_NUMBER)) r = LLVMBuildICmp(BLD, LLVMIntULE, mag, inf, "");
        else if (ir_ins_has(ins, IR_M_NOTANUMBER)) r = LLVMBuildICmp(BLD, LLVMIntUGT, mag, inf, "");
        else if (ir_ins_has(ins, IR_M_NORMAL))
            r = LLVMBuildOr(BLD, LLVMBuildAnd(BLD, LLVMBuildICmp(BLD, LLVMIntUGE, mag, minn, ""), LLVMBuildICmp(BLD, LLVMIntULT, mag, inf, ""), ""),
                            LLVMBuildICmp(BLD, LLVMIntEQ, mag, ci(it, 0), ""), ""); /* NVIDIA: normal(±0) is true */
        else if (ir_ins_has(ins, IR_M_SUBNORMAL))
            r = LLVMBuildAnd(BLD, LLVMBuildICmp(BLD, LLVMIntULT, mag, minn, ""), LLVMBuildICmp(BLD, LLVMIntNE, mag, ci(it, 0), ""), "");
        else return false;
        wr(E, &o[0], IR_T_PRED, r);
        return true;
    }
    unsigned n = ins->nops - 1;
    if (n > 3 || n < 1) return false;
    LLVMValueRef x[3], r;
    if (t == IR_T_F32X2) {
        /* add/sub/mul{.rnd}{.ftz}.f32x2, fma.rnd{.ftz}.f32x2 (PTX ISA 9.0, sm_100+): element i is bits
         * [32i, 32i+31] of each .b64 operand; d[i] = the f32 operation on the elements, each rounded on its own
         * (fA[i] * fB[i] + fC[i] for fma). No .sat and no other operation exist for .f32x2. */
        bool fma = ins->op == IR_OP_FMA;
        if ((ins->op != IR_OP_ADD && ins->op != IR_OP_SUB && ins->op != IR_OP_MUL && !fma) || ir_ins_has(ins, IR_M_SAT) ||
            n != (fma ? 3u : 2u) || (fma && round_mode(ins) == IR_M_NONE))
            return false;
        LLVMValueRef w[3], res = c64(E, 0);
        for (unsigned i = 0; i < n; i++) w[i] = rd(E, &o[1 + i], IR_T_B64);
        for (unsigned k = 0; k < 2; k++) {
            for (unsigned i = 0; i < n; i++)
                x[i] = LLVMBuildBitCast(BLD, LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, w[i], c64(E, 32 * k), ""), E->i32, ""), E->f32, "");
            if (!f_arith(E, ins, IR_T_F32, x, n, &r)) return false;
            r = LLVMBuildZExt(BLD, LLVMBuildBitCast(BLD, r, E->i32, ""), E->i64, "");
            res = LLVMBuildOr(BLD, res, LLVMBuildShl(BLD, r, c64(E, 32 * k), ""), "");
        }
        wr(E, &o[0], IR_T_B64, res);
        return true;
    }
    if (!t_float(t)) return false;
    for (unsigned i = 0; i < n; i++) x[i] = rd(E, &o[1 + i], t);
    if (!f_arith(E, ins, t, x, n, &r)) return false;
    wr(E, &o[0], t, r);
    return true;
}

/* the f32/f64 operation of ins on the operand values x (read as t), result in *out; false: no such form */
static bool f_arith(emit_ctx *E, const ir_ins *ins, ir_type t, LLVMValueRef *x, unsigned n, LLVMValueRef *out) {
    bool ftz = ir_ins_has(ins, IR_M_FTZ) && t == IR_T_F32, sat = ir_ins_has(ins, IR_M_SAT);
    ir_mod mode = round_mode(ins);
    bool approx = ir_ins_has(ins, IR_M_APPROX), full = ir_ins_has(ins, IR_M_FULL);
    for (unsigned i = 0; i < n; i++)
        if (ftz || (approx && t == IR_T_F64 && ir_ins_has(ins, IR_M_FTZ))) x[i] = f_ftz_in(E, x[i]);
    if (approx && t == IR_T_F64 && ir_ins_has(ins, IR_M_FTZ) && (ins->op == IR_OP_RCP || ins->op == IR_OP_RSQRT)) {
        /* rcp/rsqrt.approx.ftz.f64 read only the upper 32 bits of the operand (PTX ISA: "the lower 32 bits of the
         * mantissa are ignored"); H100 (nanbits/nan_f64): 0x7ff0000000000001 -> rcp 0 */
        x[0] = LLVMBuildBitCast(BLD, LLVMBuildAnd(BLD, LLVMBuildBitCast(BLD, x[0], E->i64, ""), c64(E, 0xffffffff00000000ull), ""), E->f64, "");
    }
    LLVMValueRef r;
    LLVMTypeRef ft = ty_of(E, t);
    switch ((ir_opcode)ins->op) {
    case IR_OP_ADD: r = f_add(E, x[0], x[1], mode); break;
    case IR_OP_SUB: r = f_add(E, x[0], LLVMBuildFNeg(BLD, x[1], ""), mode); break;
    case IR_OP_MUL: r = f_mul(E, x[0], x[1], mode); break;
    case IR_OP_FMA:
    case IR_OP_MAD: if (n != 3) return false; r = f_fma(E, x[0], x[1], x[2], mode); break;
    case IR_OP_DIV:
        if (approx && t == IR_T_F32) {
            /* a * (1/b) with the reciprocal flushed for |b| > 2^126 (as the hardware's approximation does) */
            LLVMValueRef bb = intrin(E, "llvm.fabs", &ft, 1, &x[1], 1);
            LLVMValueRef big = LLVMBuildFCmp(BLD, LLVMRealOGT, bb, LLVMConstReal(E->f32, 0x1p126), "");
            LLVMValueRef q = LLVMBuildFDiv(BLD, x[0], x[1], "");
            LLVMValueRef zr = LLVMBuildFMul(BLD, x[0], LLVMBuildFMul(BLD, LLVMConstReal(E->f32, 0.0),
                              intrin(E, "llvm.copysign", &ft, 1, (LLVMValueRef[]){LLVMConstReal(E->f32, 1.0), x[1]}, 2), ""), "");
            r = sel(E, LLVMBuildAnd(BLD, big, is_finite(E, x[1]), ""), zr, q);
        } else r = f_div(E, x[0], x[1], full ? IR_M_RN : mode);
        break;
    case IR_OP_RCP: r = f_div(E, LLVMConstReal(ft, 1.0), x[0], approx ? IR_M_RN : mode); break;
    case IR_OP_SQRT: r = f_sqrt(E, x[0], approx ? IR_M_RN : mode); break;
    case IR_OP_RSQRT: {
        if (t == IR_T_F32) {
            LLVMValueRef dd = LLVMBuildFPExt(BLD, x[0], E->f64, "");
            r = LLVMBuildFPTrunc(BLD, LLVMBuildFDiv(BLD, LLVMConstReal(E->f64, 1.0), intrin(E, "llvm.sqrt", &E->f64, 1, &dd, 1), ""), E->f32, "");
        } else r = LLVMBuildFDiv(BLD, LLVMConstReal(E->f64, 1.0), intrin(E, "llvm.sqrt", &E->f64, 1, &x[0], 1), "");
        break;
    }
    case IR_OP_ABS:
    case IR_OP_NEG: {
        r = ins->op == IR_OP_ABS ? intrin(E, "llvm.fabs", &ft, 1, &x[0], 1) : LLVMBuildFNeg(BLD, x[0], "");
        /* NaN (NVIDIA): f32 gives the canonical 0x7fffffff; f64 returns the operand quieted, sign kept (H100
         * recordings nanbits/nan_f64, sweep/minmax_absneg_f64) */
        LLVMValueRef nv = t == IR_T_F64 ? f64_quiet(E, x[0]) : LLVMBuildBitCast(BLD, c32(E, 0x7fffffff), E->f32, "");
        r = sel(E, f_isnan(E, x[0]), nv, r);
        break;
    }
    case IR_OP_MIN:
    case IR_OP_MAX:
        if (ir_ins_has(ins, IR_M_XORSIGN)) {
            /* min/max.xorsign.abs: magnitude = min/max(|a|, |b|), sign = sign(a) ^ sign(b); NaN stays canonical */
            if (n != 2 || t != IR_T_F32 || !ir_ins_has(ins, IR_M_ABS)) return false;
            LLVMValueRef aa = intrin(E, "llvm.fabs", &ft, 1, &x[0], 1), ab = intrin(E, "llvm.fabs", &ft, 1, &x[1], 1);
            r = f_minmax(E, aa, ab, ins->op == IR_OP_MAX, ir_ins_has(ins, IR_M_NAN));
            LLVMValueRef sx = LLVMBuildAnd(BLD, LLVMBuildXor(BLD, LLVMBuildBitCast(BLD, x[0], E->i32, ""), LLVMBuildBitCast(BLD, x[1], E->i32, ""), ""),
                                           c32(E, 0x80000000u), "");
            LLVMValueRef rb = LLVMBuildBitCast(BLD, r, E->i32, "");
            r = sel(E, f_isnan(E, r), r, LLVMBuildBitCast(BLD, LLVMBuildOr(BLD, rb, sx, ""), E->f32, ""));
            break;
        }
        r = f_minmax(E, x[0], x[1], ins->op == IR_OP_MAX, ir_ins_has(ins, IR_M_NAN));
        if (n == 3) r = f_minmax(E, r, x[2], ins->op == IR_OP_MAX, ir_ins_has(ins, IR_M_NAN));
        break;
    case IR_OP_COPYSIGN: r = intrin(E, "llvm.copysign", &ft, 1, (LLVMValueRef[]){x[1], x[0]}, 2); break;
    case IR_OP_SIN: case IR_OP_COS: case IR_OP_LG2: case IR_OP_EX2: case IR_OP_TANH: {
        if (t != IR_T_F32) return false;
        unsigned slot = ins->op == IR_OP_SIN ? RT_SINF : ins->op == IR_OP_COS ? RT_COSF : ins->op == IR_OP_LG2 ? RT_LOG2F
                      : ins->op == IR_OP_EX2 ? RT_EXP2F : RT_TANHF;
        LLVMValueRef a = x[0];
        if (ins->op == IR_OP_SIN || ins->op == IR_OP_COS) {
            /* NVIDIA reduces the argument as t = x * (1/2pi) rounded to f32 and takes sin/cos(2pi * frac(t)):
             * for |x| large enough that t is an integer the result is sin 0 / cos 0 (H100 recording
             * sweep/approx_transcendental: sin.approx(FLT_MAX) = 0, and errors of |x| * 2^-24 for |x| ~ 2^10). The
             * PTX ISA bounds the absolute error by 2^-20.5 in [-pi, pi] only; this keeps that bound. */
            LLVMValueRef t = LLVMBuildFMul(BLD, a, LLVMConstReal(E->f32, 0.15915494309189535), "");
            LLVMValueRef ti = intrin(E, "llvm.roundeven", &E->f32, 1, &t, 1);
            LLVMValueRef fr = LLVMBuildFSub(BLD, t, ti, "");
            LLVMValueRef red = LLVMBuildFPTrunc(BLD, LLVMBuildFMul(BLD, LLVMBuildFPExt(BLD, fr, E->f64, ""),
                                                LLVMConstReal(E->f64, 6.283185307179586), ""), E->f32, "");
            /* +-0 stays itself (sin(-0) = -0: approx/sin_approx_ftz_f32_specials) */
            a = sel(E, LLVMBuildFCmp(BLD, LLVMRealOEQ, a, LLVMConstReal(E->f32, 0.0), ""), a, red);
        }
        r = rt_unary(E, slot, a);
        break;
    }
    default: return false;
    }
    if (sat) r = f_sat(E, r);
    if (ftz && (ins->op == IR_OP_MUL || ins->op == IR_OP_DIV || ins->op == IR_OP_FMA || ins->op == IR_OP_MAD)) {
        /* NVIDIA detects tininess after rounding to 24 bits with an unbounded exponent: a result that rounds
         * up to 2^-126 only because of the subnormal grid is still flushed */
        LLVMValueRef xa = LLVMBuildFPExt(BLD, x[0], E->f64, ""), xb = LLVMBuildFPExt(BLD, x[1], E->f64, ""), w;
        if (ins->op == IR_OP_DIV) w = LLVMBuildFDiv(BLD, xa, xb, "");
        else {
            w = LLVMBuildFMul(BLD, xa, xb, "");
            if (n == 3) w = LLVMBuildFAdd(BLD, w, LLVMBuildFPExt(BLD, x[2], E->f64, ""), "");
        }
        LLVMValueRef sc = LLVMBuildFPTrunc(BLD, LLVMBuildFMul(BLD, w, LLVMConstReal(E->f64, 0x1p64), ""), E->f32, "");
        LLVMValueRef asc = intrin(E, "llvm.fabs", &E->f32, 1, &sc, 1);
        LLVMValueRef tiny = LLVMBuildFCmp(BLD, LLVMRealOLT, asc, LLVMConstReal(E->f32, 0x1p-62), "");
        LLVMValueRef z = LLVMBuildBitCast(BLD, LLVMBuildAnd(BLD, LLVMBuildBitCast(BLD, r, E->i32, ""), c32(E, 0x80000000u), ""), E->f32, "");
        r = sel(E, tiny, z, r);
    }
    if (ftz || (approx && ir_ins_has(ins, IR_M_FTZ))) r = f_ftz_in(E, r);
    r = f_nan_result(E, ins, t, x, n, r);
    *out = r;
    return true;
}
