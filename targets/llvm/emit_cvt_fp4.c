/* emit_cvt_fp4.c — the microscaling formats of PTX ISA 8.6+ (sm_100a/sm_120a) in cvt:
 *   cvt.rn.satfinite{.relu}.{e2m1x2,e2m3x2,e3m2x2}.f32 d, a, b     (d: .b8 for e2m1x2, .b16 otherwise)
 *   cvt.rn{.relu}.f16x2.{e2m1x2,e2m3x2,e3m2x2}          d, a
 *   cvt.{rz,rp}{.satfinite}.ue8m0x2.{f32 (d, a, b), bf16x2 (d, a)}
 *   cvt.rn.bf16x2.ue8m0x2                               d, a
 * Packing (ISA, cvt semantics): the value from a (or from the upper half of a packed source) goes to the upper
 * field of d: e2m1x2 d[7:4] = a, d[3:0] = b; e2m3x2/e3m2x2 d[13:8] = a, d[5:0] = b with the two MSBs of each byte
 * zero; ue8m0x2 d[15:8] = a, d[7:0] = b; the f16x2/bf16x2 results take the upper field of a into d[31:16].
 *
 * Formats (ISA "Alternate Floating-Point Data Formats"): e2m1 = 1 sign, 2 exponent (bias 1), 1 mantissa bit,
 * e2m3 = 2 exponent (bias 1), 3 mantissa, e3m2 = 3 exponent (bias 3), 2 mantissa; none of them has infinities or
 * NaN, every exponent value encodes numbers (max 6, 7.5, 28). ue8m0 = 8 exponent bits (bias 127), no sign, no
 * mantissa, no infinity, 0xff = NaN: code c is 2^(c-127).
 * Rules: round to nearest even; .satfinite (mandatory for the e*m* forms) clamps overflow and infinities to the
 * sign-preserving largest finite value; .relu turns negative results into +0. The ISA defines no NaN encoding for
 * e2m1/e2m3/e3m2 and does not say what a NaN input becomes: we give +MAX_NORM (what .satfinite does to values
 * outside the finite range); this has no NVIDIA recording (sm_100a only) — see the report of this work.
 * ue8m0 from f32/bf16: .rz takes the exponent (truncation of a positive value), .rp rounds up when the mantissa
 * is not zero; a value above 2^127 (or infinity) is NaN (0xff) without .satfinite, 2^127 (0xfe) with it; NaN is
 * 0xff; zero, negative values and values below 2^-127 give the smallest code 0 (2^-127): the format has no zero
 * and no sign, and the ISA defines nothing else for them (also an assumption to check). */
#include <math.h>

#include "emit.h"

#define BLD E->B

typedef struct narrow_fmt {
    unsigned tm, te;  /* mantissa and exponent bits */
    unsigned bias;
    uint32_t maxc;    /* largest finite magnitude code */
} narrow_fmt;

static const narrow_fmt E2M1 = {1, 2, 1, 0x7}, E2M3 = {3, 2, 1, 0x1f}, E3M2 = {2, 3, 3, 0x1f};

static const narrow_fmt *fmt_of(ir_type t) {
    switch (t) {
    case IR_T_E2M1X2: case IR_T_E2M1X4: return &E2M1;
    case IR_T_E2M3X2: case IR_T_E2M3X4: return &E2M3;
    case IR_T_E3M2X2: case IR_T_E3M2X4: return &E3M2;
    default: return NULL;
    }
}

/* f32 -> code of fmt (sign at bit tm+te) in an i32; mode IR_M_RN or IR_M_RS (rnd, rw: emit_cvt_rs.c) */
LLVMValueRef float_to_fp4_fp6(emit_ctx *E, LLVMValueRef f, ir_type t, ir_mod mode, bool relu, LLVMValueRef rnd,
                              unsigned rw);
LLVMValueRef float_to_fp4_fp6(emit_ctx *E, LLVMValueRef f, ir_type t, ir_mod mode, bool relu, LLVMValueRef rnd,
                              unsigned rw) {
    const narrow_fmt *F = fmt_of(t);
    /* no infinity: the first code past the largest finite one stands for "overflow", .satfinite maps it back */
    LLVMValueRef c = float_to_narrow(E, f, F->tm, F->te, mode, relu, true, true, F->maxc + 1, rnd, rw);
    c = zext_to(E, c, E->i32);
    return sel(E, f_isnan(E, f), c32(E, F->maxc), c);
}

/* code of fmt (low tm+te+1 bits of c, an i32) -> f32, exact */
static LLVMValueRef fp4_fp6_to_float(emit_ctx *E, LLVMValueRef c, const narrow_fmt *F) {
    unsigned sb = F->tm + F->te;
    LLVMValueRef e = LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, c, c32(E, F->tm), ""), c32(E, (1u << F->te) - 1), "");
    LLVMValueRef m = LLVMBuildAnd(BLD, c, c32(E, (1u << F->tm) - 1), "");
    LLVMValueRef norm = LLVMBuildOr(BLD, LLVMBuildShl(BLD, LLVMBuildAdd(BLD, e, c32(E, 127 - F->bias), ""), c32(E, 23), ""),
                                    LLVMBuildShl(BLD, m, c32(E, 23 - F->tm), ""), "");
    /* e == 0: m * 2^(1 - bias - tm) (0 for m == 0) */
    LLVMValueRef sub = LLVMBuildFMul(BLD, LLVMBuildUIToFP(BLD, m, E->f32, ""),
                                     LLVMConstReal(E->f32, ldexp(1.0, 1 - (int)F->bias - (int)F->tm)), "");
    LLVMValueRef mag = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, e, c32(E, 0), ""), LLVMBuildBitCast(BLD, sub, E->i32, ""), norm);
    LLVMValueRef sg = LLVMBuildShl(BLD, LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, c, c32(E, sb), ""), c32(E, 1), ""), c32(E, 31), "");
    return LLVMBuildBitCast(BLD, LLVMBuildOr(BLD, mag, sg, ""), E->f32, "");
}

/* f32 -> ue8m0 code (i32), .rz or .rp */
static LLVMValueRef float_to_ue8m0(emit_ctx *E, LLVMValueRef f, bool up, bool satfinite) {
    LLVMValueRef b = LLVMBuildBitCast(BLD, f, E->i32, "");
    LLVMValueRef e = LLVMBuildLShr(BLD, b, c32(E, 23), ""); /* sign included: negative values are >= 256 */
    LLVMValueRef m = LLVMBuildAnd(BLD, b, c32(E, 0x7fffff), "");
    LLVMValueRef c;
    if (up) {
        /* normal: e + (m != 0); subnormal (e == 0): 2^-127 = 0x00400000 and below round up to code 0, above to 1 */
        LLVMValueRef inc = LLVMBuildICmp(BLD, LLVMIntNE, m, c32(E, 0), "");
        LLVMValueRef sub = zext_to(E, LLVMBuildICmp(BLD, LLVMIntUGT, m, c32(E, 0x400000), ""), E->i32);
        c = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, e, c32(E, 0), ""), sub, LLVMBuildAdd(BLD, e, zext_to(E, inc, E->i32), ""));
    } else {
        c = e; /* subnormals (e == 0) truncate to the smallest code 0 */
    }
    /* above 2^127 (codes 255 from rounding up 2^127 * (1 + m), or infinity's exponent): NaN or, .satfinite, 0xfe */
    c = sel(E, LLVMBuildICmp(BLD, LLVMIntUGE, c, c32(E, 0xff), ""), c32(E, satfinite ? 0xfe : 0xff), c);
    LLVMValueRef nonpos = LLVMBuildFCmp(BLD, LLVMRealOLE, f, LLVMConstReal(E->f32, 0.0), "");
    c = sel(E, nonpos, c32(E, 0), c);
    return sel(E, f_isnan(E, f), c32(E, 0xff), c);
}

static LLVMValueRef byte_of(emit_ctx *E, LLVMValueRef v, unsigned k) {
    return LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, v, c32(E, 8 * k), ""), c32(E, 0xff), "");
}

bool emit_cvt_fp4_fp6(emit_ctx *E, const ir_ins *ins) {
    const ir_operand *o = ins->ops;
    ir_type dt = ir_ins_type(ins, 0), st = ir_ins_type(ins, 1);
    ir_mod mode = round_mode(ins);
    bool relu = ir_ins_has(ins, IR_M_RELU), satfinite = ir_ins_has(ins, IR_M_SATFINITE);
    if (ir_ins_has(ins, IR_M_FTZ) || ir_ins_has(ins, IR_M_SAT)) return false;
    const narrow_fmt *F = fmt_of(dt);
    if (F && st == IR_T_F32 && ins->nops == 3 && dt != IR_T_E2M1X4) {
        /* ptxas requires .rn.satfinite; relu optional */
        if (mode != IR_M_RN || !satfinite) return false;
        LLVMValueRef a = float_to_fp4_fp6(E, rd(E, &o[1], IR_T_F32), dt, IR_M_RN, relu, NULL, 0);
        LLVMValueRef b = float_to_fp4_fp6(E, rd(E, &o[2], IR_T_F32), dt, IR_M_RN, relu, NULL, 0);
        bool fp4 = dt == IR_T_E2M1X2;
        LLVMValueRef d = LLVMBuildOr(BLD, LLVMBuildShl(BLD, a, c32(E, fp4 ? 4 : 8), ""), b, "");
        wr(E, &o[0], fp4 ? IR_T_B8 : IR_T_B16, d);
        return true;
    }
    F = fmt_of(st);
    if (F && dt == IR_T_F16X2 && ins->nops == 2 && st != IR_T_E2M1X4 && st != IR_T_E2M3X4 && st != IR_T_E3M2X4) {
        if (mode != IR_M_RN || satfinite) return false;
        bool fp4 = st == IR_T_E2M1X2;
        LLVMValueRef v = zext_to(E, rd(E, &o[1], fp4 ? IR_T_B8 : IR_T_B16), E->i32), r = c32(E, 0);
        for (unsigned k = 0; k < 2; k++) {
            /* e2m1: nibble k; e2m3/e3m2: the low 6 bits of byte k (the ISA has their 2 MSBs zero) */
            LLVMValueRef c = fp4 ? LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, v, c32(E, 4 * k), ""), c32(E, 0xf), "")
                                 : LLVMBuildAnd(BLD, byte_of(E, v, k), c32(E, 0x3f), "");
            /* every code is exactly an f16 normal or zero: the conversion is exact, relu clears negatives */
            LLVMValueRef h = float_to_half(E, fp4_fp6_to_float(E, c, F), false, IR_M_RN, relu, false);
            r = LLVMBuildOr(BLD, r, LLVMBuildShl(BLD, zext_to(E, h, E->i32), c32(E, 16 * k), ""), "");
        }
        wr(E, &o[0], IR_T_B32, r);
        return true;
    }
    if (dt == IR_T_UE8M0X2 && (st == IR_T_F32 || st == IR_T_BF16X2)) {
        if ((mode != IR_M_RZ && mode != IR_M_RP) || relu) return false;
        LLVMValueRef x[2];
        if (st == IR_T_F32) {
            if (ins->nops != 3) return false;
            x[0] = rd(E, &o[1], IR_T_F32);
            x[1] = rd(E, &o[2], IR_T_F32);
        } else {
            if (ins->nops != 2) return false;
            LLVMValueRef v = rd(E, &o[1], IR_T_B32); /* bf16 is the upper half of an f32: exact */
            x[0] = LLVMBuildBitCast(BLD, LLVMBuildAnd(BLD, v, c32(E, 0xffff0000u), ""), E->f32, "");
            x[1] = LLVMBuildBitCast(BLD, LLVMBuildShl(BLD, v, c32(E, 16), ""), E->f32, "");
        }
        LLVMValueRef a = float_to_ue8m0(E, x[0], mode == IR_M_RP, satfinite);
        LLVMValueRef b = float_to_ue8m0(E, x[1], mode == IR_M_RP, satfinite);
        wr(E, &o[0], IR_T_B16, LLVMBuildOr(BLD, LLVMBuildShl(BLD, a, c32(E, 8), ""), b, ""));
        return true;
    }
    if (dt == IR_T_BF16X2 && st == IR_T_UE8M0X2 && ins->nops == 2) {
        if (mode != IR_M_RN || relu || satfinite) return false;
        LLVMValueRef v = zext_to(E, rd(E, &o[1], IR_T_B16), E->i32), r = c32(E, 0);
        for (unsigned k = 0; k < 2; k++) {
            /* 2^(c-127): bf16 exponent field c for c >= 1, 2^-127 is the bf16 subnormal 0x0040; 0xff -> NaN 0x7fff */
            LLVMValueRef c = byte_of(E, v, k);
            LLVMValueRef h = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, c, c32(E, 0), ""), c32(E, 0x40),
                                 sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, c, c32(E, 0xff), ""), c32(E, 0x7fff),
                                     LLVMBuildShl(BLD, c, c32(E, 7), "")));
            r = LLVMBuildOr(BLD, r, LLVMBuildShl(BLD, h, c32(E, 16 * k), ""), "");
        }
        wr(E, &o[0], IR_T_B32, r);
        return true;
    }
    return false;
}
