/* emit_cvt.c — cvt between integer, f16/bf16, tf32, f32 and f64 types with rounding, saturation, .ftz,
 * .relu, .satfinite and NVIDIA's NaN-to-integer rule. */
#include <math.h>

#include "emit.h"

#define BLD E->B

static bool is_int(ir_type t) {
    switch (t) {
    case IR_T_U8: case IR_T_U16: case IR_T_U32: case IR_T_U64: case IR_T_S8: case IR_T_S16: case IR_T_S32:
    case IR_T_S64: case IR_T_B8: case IR_T_B16: case IR_T_B32: case IR_T_B64: return true;
    default: return false;
    }
}
static bool is_half(ir_type t) { return t == IR_T_F16 || t == IR_T_BF16; }

/* source value as f32/f64 (exact), NULL if not a float type */
static LLVMValueRef as_float(emit_ctx *E, ir_type st, LLVMValueRef v) {
    if (is_half(st)) return half_to_float(E, v, st == IR_T_BF16);
    if (st == IR_T_TF32) return LLVMBuildBitCast(BLD, v, E->f32, "");
    return v;
}

static LLVMValueRef int_to_float(emit_ctx *E, LLVMValueRef x, bool s, LLVMTypeRef ft, ir_mod mode) {
    LLVMValueRef r = s ? LLVMBuildSIToFP(BLD, x, ft, "") : LLVMBuildUIToFP(BLD, x, ft, "");
    if (mode != IR_M_RZ && mode != IR_M_RM && mode != IR_M_RP) return r;
    LLVMTypeRef it = LLVMTypeOf(x);
    unsigned w = LLVMGetIntTypeWidth(it);
    double lim = s ? ldexp(1.0, (int)w - 1) : ldexp(1.0, (int)w);
    LLVMValueRef big = LLVMBuildFCmp(BLD, LLVMRealOGE, r, LLVMConstReal(ft, lim), "");
    LLVMValueRef back = s ? LLVMBuildFPToSI(BLD, sel(E, big, LLVMConstReal(ft, 0), r), it, "")
                          : LLVMBuildFPToUI(BLD, sel(E, big, LLVMConstReal(ft, 0), r), it, "");
    LLVMValueRef gt = LLVMBuildICmp(BLD, s ? LLVMIntSGT : LLVMIntUGT, x, back, "");
    LLVMValueRef lt = LLVMBuildICmp(BLD, s ? LLVMIntSLT : LLVMIntULT, x, back, "");
    LLVMValueRef rs = sel(E, gt, c32(E, 1), sel(E, lt, c32(E, (uint32_t)-1), c32(E, 0)));
    rs = sel(E, big, c32(E, (uint32_t)-1), rs);
    return f_directed(E, r, rs, mode);
}

/* a 64-bit integer as an f64 that rounds to f16/bf16 exactly as the integer itself: rounding it to f64 first
 * (round to nearest) and then to 16 bits rounds twice (cvt.rz.bf16.s64 0x3fffffffffffff gave 0x5a80, H100
 * 0x5a7f). A magnitude >= 2^40 has its 20 low bits folded into a sticky bit 20: at most 44 significant bits
 * remain (exact in f64), and bit 20 lies below the round bit of an 11-bit (f16) or 8-bit (bf16) result (bit 29
 * or above there), so every rounding mode sees the same round bit and whether anything below it is set. */
static LLVMValueRef int64_to_double_sticky(emit_ctx *E, LLVMValueRef x, bool s) {
    LLVMValueRef neg = s ? LLVMBuildICmp(BLD, LLVMIntSLT, x, c64(E, 0), "") : ci(E->i1, 0);
    LLVMValueRef m = s ? sel(E, neg, LLVMBuildSub(BLD, c64(E, 0), x, ""), x) : x; /* INT64_MIN: 2^63 unsigned */
    LLVMValueRef sticky = LLVMBuildICmp(BLD, LLVMIntNE, LLVMBuildAnd(BLD, m, c64(E, 0xfffff), ""), c64(E, 0), "");
    LLVMValueRef folded = LLVMBuildOr(BLD, LLVMBuildAnd(BLD, m, c64(E, ~0xfffffull), ""),
                                      sel(E, sticky, c64(E, 0x100000), c64(E, 0)), "");
    LLVMValueRef big = LLVMBuildICmp(BLD, LLVMIntUGE, m, c64(E, 1ull << 40), "");
    /* halved (exact: bits 0..19 of folded are clear) so that no operand of the conversion has bit 63 set */
    LLVMValueRef hm = LLVMBuildLShr(BLD, sel(E, big, folded, m), c64(E, 1), "");
    LLVMValueRef d = LLVMBuildSIToFP(BLD, hm, E->f64, "");
    d = sel(E, big, LLVMBuildFMul(BLD, d, LLVMConstReal(E->f64, 2.0), ""), LLVMBuildSIToFP(BLD, m, E->f64, ""));
    d = sel(E, neg, LLVMBuildFNeg(BLD, d, ""), d);
    if (!s) return d;
    /* INT64_MIN (exactly -2^63) by itself: on PoCL its magnitude computed as above came out 0 */
    LLVMValueRef is_min = LLVMBuildICmp(BLD, LLVMIntEQ, x, c64(E, 0x8000000000000000ull), "");
    return sel(E, is_min, LLVMConstReal(E->f64, -0x1p63), d);
}

static LLVMValueRef float_to_int(emit_ctx *E, LLVMValueRef f, ir_type st, ir_type dt, ir_mod mode) {
    unsigned w = tbits(dt);
    LLVMTypeRef it = LLVMIntTypeInContext(E->C, w);
    if (mode == IR_M_NONE) mode = IR_M_RZI;
    if (mode == IR_M_RN) mode = IR_M_RNI;
    if (mode == IR_M_RZ) mode = IR_M_RZI;
    if (mode == IR_M_RM) mode = IR_M_RMI;
    if (mode == IR_M_RP) mode = IR_M_RPI;
    /* fptosi/fptoui.sat truncate toward zero themselves (no llvm.trunc for .rzi) and give 0 for NaN, NVIDIA's
     * value except from f64 or to 64 bits (the sign bit) */
    LLVMValueRef r = mode == IR_M_RZI ? f : f_round_int(E, f, mode);
    if (E->t->hooks && E->t->hooks->cvt_f64_s32_clamp && st == IR_T_F64 && w == 32 && t_signed(dt)) {
        /* AMDGPU's v_cvt_i32_f64 truncates toward zero and saturates out-of-range values itself, NaN giving 0
         * (ISA manuals, every GCN/CDNA/RDNA generation; LLVM selects it for fptosi). LLVM promises neither
         * (fptosi is poison out of range, fptosi.sat adds bound compares and selects, maximumnum/minimumnum
         * clamping cost a canonicalising v_max and a 64-bit constant), so the instruction is used directly and
         * NVIDIA's NaN -> INT_MIN is one select: 3 instructions instead of 6. No side effects: LLVM may still
         * CSE, hoist or drop it. */
        LLVMTypeRef dt64 = LLVMTypeOf(r);
        LLVMTypeRef fty = LLVMFunctionType(it, &dt64, 1, 0);
        static const char text[] = "v_cvt_i32_f64 $0, $1", cons[] = "=v,v";
        LLVMValueRef cvt = LLVMGetInlineAsm(fty, text, sizeof text - 1, cons, sizeof cons - 1, 0, 0,
                                           LLVMInlineAsmDialectATT, 0);
        LLVMValueRef v = LLVMBuildCall2(BLD, fty, cvt, &r, 1, "");
        return sel(E, f_isnan(E, f), ci(it, 1ull << 31), v);
    }
    LLVMTypeRef tys[2] = {it, LLVMTypeOf(f)};
    LLVMValueRef v = intrin(E, t_signed(dt) ? "llvm.fptosi.sat" : "llvm.fptoui.sat", tys, 2, &r, 1);
    bool special = st == IR_T_F64 || w == 64;
    if (!special) return v;
    return sel(E, f_isnan(E, f), ci(it, 1ull << (w - 1)), v);
}

bool emit_cvt(emit_ctx *E, const ir_ins *ins) {
    const ir_operand *o = ins->ops;
    if (ins->op == IR_OP_CVT_PACK) return emit_cvt_pack(E, ins);
    ir_type dt = ir_ins_type(ins, 0), st = ir_ins_type(ins, 1);
    if (dt == IR_T_NONE || st == IR_T_NONE) return false;
    ir_mod mode = round_mode(ins);
    if (mode == IR_M_RS) return emit_cvt_rs(E, ins);
    /* sm_100 microscaling formats (emit_cvt_fp4.c) */
    if (dt == IR_T_E2M1X2 || dt == IR_T_E2M3X2 || dt == IR_T_E3M2X2 || dt == IR_T_UE8M0X2 || st == IR_T_E2M1X2 ||
        st == IR_T_E2M3X2 || st == IR_T_E3M2X2 || st == IR_T_UE8M0X2)
        return emit_cvt_fp4_fp6(E, ins);
    bool ftz = ir_ins_has(ins, IR_M_FTZ), sat = ir_ins_has(ins, IR_M_SAT), relu = ir_ins_has(ins, IR_M_RELU);
    bool satfinite = ir_ins_has(ins, IR_M_SATFINITE);
    /* packed destinations: cvt.rn.f16x2.f32 d, a, b  (d.hi = a, d.lo = b) */
    if ((dt == IR_T_F16X2 || dt == IR_T_BF16X2) && st == IR_T_F32 && ins->nops == 3) {
        bool bf = dt == IR_T_BF16X2;
        LLVMValueRef a = rd(E, &o[1], IR_T_F32), b = rd(E, &o[2], IR_T_F32);
        if (mode == IR_M_NONE) mode = IR_M_RN;
        LLVMValueRef ha = float_to_half(E, a, bf, mode, relu, satfinite), hb = float_to_half(E, b, bf, mode, relu, satfinite);
        LLVMValueRef r = LLVMBuildOr(BLD, LLVMBuildShl(BLD, zext_to(E, ha, E->i32), c32(E, 16), ""), zext_to(E, hb, E->i32), "");
        wr(E, &o[0], IR_T_B32, r);
        return true;
    }
    /* FP8 pairs: cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 d, a, b (d.hi = a) and cvt.rn.f16x2.{e4m3x2,e5m2x2} d, a */
    if ((dt == IR_T_E4M3X2 || dt == IR_T_E5M2X2) && st == IR_T_F32 && ins->nops == 3) {
        extern LLVMValueRef float_to_fp8(emit_ctx *, LLVMValueRef, bool, bool, bool);
        bool e4 = dt == IR_T_E4M3X2;
        LLVMValueRef a = float_to_fp8(E, rd(E, &o[1], IR_T_F32), e4, satfinite, relu);
        LLVMValueRef b = float_to_fp8(E, rd(E, &o[2], IR_T_F32), e4, satfinite, relu);
        wr(E, &o[0], IR_T_B16, LLVMBuildOr(BLD, LLVMBuildShl(BLD, a, ci(E->i16, 8), ""), b, ""));
        return true;
    }
    if ((dt == IR_T_E4M3X2 || dt == IR_T_E5M2X2) && st == IR_T_F16X2) return emit_cvt_fp8_f16x2(E, ins);
    if (dt == IR_T_F16X2 && (st == IR_T_E4M3X2 || st == IR_T_E5M2X2) && ins->nops == 2) {
        LLVMValueRef v = rd(E, &o[1], IR_T_B16), r = c32(E, 0);
        for (unsigned k = 0; k < 2; k++) {
            LLVMValueRef byte = LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, zext_to(E, v, E->i32), c32(E, 8 * k), ""), c32(E, 0xff), "");
            LLVMValueRef h;
            if (st == IR_T_E5M2X2) {
                h = LLVMBuildShl(BLD, byte, c32(E, 8), ""); /* e5m2 is the top byte of an f16 */
                /* NaN -> canonical f16 NaN 0x7fff (NVIDIA) */
                LLVMValueRef isnan = LLVMBuildICmp(BLD, LLVMIntUGT, LLVMBuildAnd(BLD, byte, c32(E, 0x7f), ""), c32(E, 0x7c), "");
                h = sel(E, isnan, c32(E, 0x7fff), h);
            } else {
                LLVMValueRef sg = LLVMBuildShl(BLD, LLVMBuildAnd(BLD, byte, c32(E, 0x80), ""), c32(E, 8), "");
                LLVMValueRef e = LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, byte, c32(E, 3), ""), c32(E, 15), "");
                LLVMValueRef m = LLVMBuildAnd(BLD, byte, c32(E, 7), "");
                /* value = (e ? 8 + m : m) * 2^(max(e,1) - 10) -> f16 exactly: exponent e + 8, mantissa m << 7 */
                LLVMValueRef norm = LLVMBuildOr(BLD, LLVMBuildShl(BLD, LLVMBuildAdd(BLD, e, c32(E, 8), ""), c32(E, 10), ""),
                                                LLVMBuildShl(BLD, m, c32(E, 7), ""), "");
                LLVMValueRef subf = LLVMBuildFMul(BLD, LLVMBuildUIToFP(BLD, m, E->f32, ""), LLVMConstReal(E->f32, 0x1p-9), "");
                LLVMValueRef sub = zext_to(E, float_to_half(E, subf, false, IR_M_RN, false, false), E->i32);
                h = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, e, c32(E, 0), ""), sub, norm);
                LLVMValueRef isnan = LLVMBuildICmp(BLD, LLVMIntEQ, LLVMBuildAnd(BLD, byte, c32(E, 0x7f), ""), c32(E, 0x7f), "");
                h = sel(E, isnan, c32(E, 0x7fff), LLVMBuildOr(BLD, h, sg, ""));
            }
            if (relu) { /* .relu: a negative result (not NaN) becomes +0 */
                LLVMValueRef neg = LLVMBuildICmp(BLD, LLVMIntUGE, h, c32(E, 0x8000), "");
                LLVMValueRef mag = LLVMBuildAnd(BLD, h, c32(E, 0x7fff), "");
                LLVMValueRef num = LLVMBuildICmp(BLD, LLVMIntULE, mag, c32(E, 0x7c00), "");
                h = sel(E, LLVMBuildAnd(BLD, neg, num, ""), c32(E, 0), h);
            }
            r = LLVMBuildOr(BLD, r, LLVMBuildShl(BLD, h, c32(E, 16 * k), ""), "");
        }
        wr(E, &o[0], IR_T_B32, r);
        return true;
    }
    if (ins->nops != 2) return false;
    if (is_int(dt) && is_int(st)) {
        LLVMValueRef v = rd(E, &o[1], st);
        /* in the wider of the two widths (no (w+1)-bit integers: SPIR-V has no odd widths), compares in the
         * source's signedness against the destination's bounds where they are representable */
        unsigned sw = tbits(st), dw = tbits(dt), ww = sw > dw ? sw : dw;
        bool ss = t_signed(st);
        LLVMTypeRef wt = LLVMIntTypeInContext(E->C, ww);
        LLVMValueRef x = resize(E, v, wt, ss);
        if (sat) {
            int64_t lo = t_signed(dt) ? (int64_t)(~0ull << (dw - 1)) : 0; /* -2^(dw-1); negating INT64_MIN would be UB */
            uint64_t hi = t_signed(dt) ? (1ull << (dw - 1)) - 1 : (dw == 64 ? ~0ull : (1ull << dw) - 1);
            uint64_t smax = ww == 64 ? 0x7fffffffffffffffull : (1ull << (ww - 1)) - 1;
            LLVMValueRef clo = LLVMConstInt(wt, (uint64_t)lo, 1), chi = LLVMConstInt(wt, hi, 0);
            if (ss) /* below: signed compare (lo fits ww); above: only when hi is a signed ww-bit value */
                x = sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, x, clo, ""), clo, x);
            if (ss && hi <= smax) x = sel(E, LLVMBuildICmp(BLD, LLVMIntSGT, x, chi, ""), chi, x);
            if (!ss) x = sel(E, LLVMBuildICmp(BLD, LLVMIntUGT, x, chi, ""), chi, x); /* unsigned source: never < lo */
        }
        wr(E, &o[0], dt, LLVMBuildTrunc(BLD, x, ty_of(E, dt), ""));
        return true;
    }
    if (is_int(dt)) { /* float -> int */
        if (!(t_float(st) || is_half(st))) return false;
        LLVMValueRef f = as_float(E, st, rd(E, &o[1], st));
        if (ftz && st == IR_T_F32) f = f_ftz_in(E, f);
        wr(E, &o[0], dt, float_to_int(E, f, st, dt, mode));
        return true;
    }
    if (is_int(st)) { /* int -> float */
        LLVMValueRef x = rd(E, &o[1], st);
        bool s = t_signed(st);
        if (mode == IR_M_NONE) mode = IR_M_RN;
        if (is_half(dt)) {
            LLVMValueRef d = tbits(st) == 64 ? int64_to_double_sticky(E, x, s) : int_to_float(E, x, s, E->f64, IR_M_RN);
            if (sat) d = f_sat(E, d); /* .sat clamps to [0, 1] (PTX ISA cvt; H100: cvt.rn.sat.f16.u8 2 -> 1.0) */
            LLVMValueRef h = double_to_half(E, d, dt == IR_T_BF16, mode);
            wr(E, &o[0], dt, h);
            return true;
        }
        if (!t_float(dt)) return false;
        LLVMValueRef r = int_to_float(E, x, s, ty_of(E, dt), mode);
        if (sat) r = f_sat(E, r);
        wr(E, &o[0], dt, r);
        return true;
    }
    /* float -> float */
    LLVMValueRef v = rd(E, &o[1], st);
    if (dt == IR_T_TF32 && st == IR_T_F32) {
        LLVMValueRef b = LLVMBuildBitCast(BLD, v, E->i32, "");
        LLVMValueRef mag = LLVMBuildAnd(BLD, b, c32(E, 0x7fffffff), "");
        LLVMValueRef finite = LLVMBuildICmp(BLD, LLVMIntULT, mag, c32(E, 0x7f800000), "");
        LLVMValueRef r;
        if (mode == IR_M_RZ) r = LLVMBuildAnd(BLD, b, c32(E, 0xffffe000), "");
        else if (mode == IR_M_RN) {
            LLVMValueRef odd = LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, b, c32(E, 13), ""), c32(E, 1), "");
            r = LLVMBuildAnd(BLD, LLVMBuildAdd(BLD, b, LLVMBuildAdd(BLD, c32(E, 0xfff), odd, ""), ""), c32(E, 0xffffe000), "");
        } else r = LLVMBuildAnd(BLD, LLVMBuildAdd(BLD, b, c32(E, 0x1000), ""), c32(E, 0xffffe000), "");
        if (satfinite) {
            /* NVIDIA: a rounded magnitude >= 0x7f800000 (overflow, inf, and NaN alike) is moved down by one tf32
             * ulp, sign kept: inf -> 0x7f7fe000 (max), NaN 0x7fc00000 -> 0x7fbfe000 */
            LLVMValueRef sg = LLVMBuildAnd(BLD, b, c32(E, 0x80000000), "");
            LLVMValueRef rm = sel(E, finite, LLVMBuildAnd(BLD, r, c32(E, 0x7fffffff), ""), LLVMBuildAnd(BLD, mag, c32(E, 0x7fffe000), ""));
            LLVMValueRef ovf = LLVMBuildICmp(BLD, LLVMIntUGE, rm, c32(E, 0x7f800000), "");
            r = sel(E, ovf, LLVMBuildOr(BLD, sg, LLVMBuildSub(BLD, rm, c32(E, 0x2000), ""), ""), r);
            finite = LLVMBuildOr(BLD, finite, ovf, "");
        }
        /* NVIDIA (H100 recording tf32/cvt_tf32_all_modes): inf passes through; a NaN becomes the canonical
         * 0x7fffe000 for .rn/.rz, while .rna only clears the 13 low bits (0x7f800001 -> 0x7f800000, sign kept) */
        LLVMValueRef isnan = LLVMBuildICmp(BLD, LLVMIntUGT, mag, c32(E, 0x7f800000), "");
        LLVMValueRef nanv = (mode == IR_M_RN || mode == IR_M_RZ) ? c32(E, 0x7fffe000) : LLVMBuildAnd(BLD, b, c32(E, 0xffffe000), "");
        r = sel(E, finite, r, sel(E, isnan, nanv, b));
        if (relu) { /* .relu: every negative result (-0, -subnormal, -inf included) is +0; NaN stays canonical */
            LLVMValueRef neg = LLVMBuildAnd(BLD, LLVMBuildICmp(BLD, LLVMIntSLT, b, c32(E, 0), ""), LLVMBuildNot(BLD, isnan, ""), "");
            r = sel(E, neg, c32(E, 0), r);
        }
        wr(E, &o[0], IR_T_B32, r);
        return true;
    }
    if (is_half(dt)) {
        bool bf = dt == IR_T_BF16;
        if (mode == IR_M_NONE) mode = IR_M_RN;
        LLVMValueRef h;
        if (st == IR_T_F32) {
            /* H100 (sweep/cvt_float_from_f32): .ftz flushes an f32 subnormal input for a bf16 destination but
             * not for an f16 one (cvt.rm.ftz.f16.f32 of -2^-149 is 0x8001; flushed to -0 it would be 0x8000) */
            if (ftz && bf) v = f_ftz_in(E, v);
            if (sat) v = f_sat(E, v);
            h = float_to_half(E, v, bf, mode, relu, satfinite);
        } else if (st == IR_T_F64) {
            if (sat) v = f_sat(E, v);
            h = double_to_half(E, v, bf, mode);
            /* f64 NaN -> sign, the payload's top bits (truncated) and the quiet bit: 0x7ff8... -> 0x7e00 / 0x7fc0,
             * 0x7ff7ff... -> 0x7fff, 0xfff0...01 -> 0xfe00; unlike f32 -> f16/bf16, which always give 0x7fff
             * (H100 recordings sweep/cvt_float_from_f64, nanbits/nan_f64) */
            LLVMValueRef b = LLVMBuildBitCast(BLD, v, E->i64, "");
            LLVMValueRef nan = LLVMBuildICmp(BLD, LLVMIntUGT, LLVMBuildAnd(BLD, b, c64(E, 0x7fffffffffffffffull), ""),
                                             c64(E, 0x7ff0000000000000ull), "");
            unsigned tm = bf ? 7 : 10;
            LLVMValueRef sg = LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, b, c64(E, 48), ""), c64(E, 0x8000), "");
            LLVMValueRef pl = LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, b, c64(E, 52 - tm), ""), c64(E, (1u << tm) - 1), "");
            LLVMValueRef nb = LLVMBuildOr(BLD, LLVMBuildOr(BLD, sg, pl, ""), c64(E, bf ? 0x7fc0 : 0x7e00), "");
            h = sel(E, nan, LLVMBuildTrunc(BLD, nb, E->i16, ""), h);
        } else if (is_half(st)) {
            LLVMValueRef f = as_float(E, st, v);
            if (mode == IR_M_RNI || mode == IR_M_RZI || mode == IR_M_RMI || mode == IR_M_RPI) {
                /* round to an integer in f32 (exact for every f16/bf16, subnormals included: H100 gives
                 * cvt.rpi.f16.f16 0x0001 -> 1.0), then the exact conversion back */
                f = f_round_int(E, f, mode);
                mode = IR_M_RN;
            }
            if (sat) f = f_sat(E, f);
            h = float_to_half(E, f, bf, mode, relu, satfinite);
        } else return false;
        wr(E, &o[0], dt, h);
        return true;
    }
    if (!t_float(dt)) return false;
    if (!(t_float(st) || is_half(st))) return false;
    LLVMValueRef f = as_float(E, st, v);
    if (ftz && LLVMTypeOf(f) == E->f32) f = f_ftz_in(E, f);
    LLVMValueRef r;
    LLVMTypeRef ft = ty_of(E, dt);
    if (mode == IR_M_RNI || mode == IR_M_RZI || mode == IR_M_RMI || mode == IR_M_RPI) {
        if (LLVMTypeOf(f) != ft) f = LLVMTypeOf(f) == E->f32 ? LLVMBuildFPExt(BLD, f, ft, "") : LLVMBuildFPTrunc(BLD, f, ft, "");
        r = f_round_int(E, f, mode);
    } else if (LLVMTypeOf(f) == ft) r = f;
    else if (ft == E->f64) r = LLVMBuildFPExt(BLD, f, E->f64, "");
    else {
        r = LLVMBuildFPTrunc(BLD, f, E->f32, "");
        if (mode == IR_M_RZ || mode == IR_M_RM || mode == IR_M_RP) {
            LLVMValueRef back = LLVMBuildFPExt(BLD, r, E->f64, "");
            LLVMValueRef gt = LLVMBuildFCmp(BLD, LLVMRealOGT, f, back, ""), lt = LLVMBuildFCmp(BLD, LLVMRealOLT, f, back, "");
            LLVMValueRef rs = sel(E, gt, c32(E, 1), sel(E, lt, c32(E, (uint32_t)-1), c32(E, 0)));
            r = f_directed(E, r, rs, mode);
        }
    }
    if (sat) r = f_sat(E, r);
    if (ftz && ft == E->f32) r = f_ftz_in(E, r);
    /* NaN (H100 recordings sweep/cvt_float_from_{f16,bf16,f32}, nanbits/nan_f16, nanbits/nan_bf16): an f32 result
     * converted from f16, or from bf16/f32 with .ftz or an integer rounding, is the canonical 0x7fffffff
     * (.sat gives +0 instead); cvt.ftz.f64.f32 gives that NaN widened (0x7fffffffe0000000). Plain bf16->f32 and
     * f32<->f64 conversions keep the payload (quieted). */
    bool irnd = mode == IR_M_RNI || mode == IR_M_RZI || mode == IR_M_RMI || mode == IR_M_RPI;
    bool canon = !sat && (ft == E->f32 ? st == IR_T_F16 || ((st == IR_T_BF16 || st == IR_T_F32) && (ftz || irnd))
                                       : st == IR_T_F32 && ftz);
    if (canon) {
        LLVMValueRef cn = ft == E->f32 ? LLVMBuildBitCast(BLD, c32(E, 0x7fffffff), E->f32, "")
                                       : LLVMBuildBitCast(BLD, c64(E, 0x7fffffffe0000000ull), E->f64, "");
        LLVMValueRef vb = LLVMBuildBitCast(BLD, LLVMBuildFPExt(BLD, f, E->f64, ""), E->i64, "");
        LLVMValueRef nan = LLVMBuildICmp(BLD, LLVMIntUGT, LLVMBuildAnd(BLD, vb, c64(E, 0x7fffffffffffffffull), ""),
                                         c64(E, 0x7ff0000000000000ull), "");
        r = sel(E, nan, cn, r);
    }
    wr(E, &o[0], dt, r);
    return true;
}
