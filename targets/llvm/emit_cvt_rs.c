/* emit_cvt_rs.c — cvt with stochastic rounding (.rs, PTX ISA 8.7+, sm_100a/sm_103a):
 *   cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32                          d, a, b, rbits
 *   cvt.rs{.relu}.satfinite.{e4m3x4,e5m2x4,e2m3x4,e3m2x4,e2m1x4}.f32      d, {a, b, e, f}, rbits
 *
 * Rounding (emit_float.c narrow_core, IR_M_RS): the random bits are added to the bits the conversion discards,
 * aligned with their most significant end; a carry out rounds the magnitude up, otherwise the value is truncated.
 * So rbits = 0 is truncation toward zero, and all-ones random bits round up every value whose discarded bits
 * reach the weight of the lowest random bit. Overflow, .satfinite, .relu and NaN as for .rn of the same format.
 *
 * Which bits of rbits feed which operand (ISA, cvt, "rbits"):
 *   f16x2:  a <- rbits[28:16], b <- rbits[12:0] (13 bits each: the 13 mantissa bits an f32 -> f16 drops);
 *   bf16x2: a <- rbits[31:16], b <- rbits[15:0] (16 bits each);
 *   e4m3x4/e5m2x4/e2m3x4/e3m2x4: "lower 16-bits are used for operands e, f and upper 16 bits for operands a, b":
 *           read here as a and b both using rbits[31:16], e and f both rbits[15:0] (16 bits each);
 *   e2m1x4: "lower 8-bits from both 16-bit halves for operands e, f and upper 8-bits from both halves for a, b":
 *           read here as a <- rbits[31:24], b <- rbits[15:8], e <- rbits[23:16], f <- rbits[7:0].
 * The two x4 readings follow the ISA's wording; its figure of the layout is not in the text we have, and no
 * NVIDIA device we can record on runs these forms (sm_100a): rbits of 0 and of all ones do not depend on them.
 * Packing: d holds a in its most significant field, then b, e, f (d[31:24] = a for the 8-bit formats, with the
 * 2 MSBs of each byte zero for e2m3/e3m2; d[15:12] = a for e2m1x4; d[31:16] = a for f16x2/bf16x2). */
#include "emit.h"

#define BLD E->B

LLVMValueRef float_to_fp4_fp6(emit_ctx *E, LLVMValueRef f, ir_type t, ir_mod mode, bool relu, LLVMValueRef rnd,
                              unsigned rw); /* emit_cvt_fp4.c */

static LLVMValueRef bits_of(emit_ctx *E, LLVMValueRef v, unsigned lo, unsigned n) {
    return LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, v, c32(E, lo), ""), c32(E, (1u << n) - 1), "");
}

bool emit_cvt_rs(emit_ctx *E, const ir_ins *ins) {
    const ir_operand *o = ins->ops;
    ir_type dt = ir_ins_type(ins, 0), st = ir_ins_type(ins, 1);
    bool relu = ir_ins_has(ins, IR_M_RELU), satfinite = ir_ins_has(ins, IR_M_SATFINITE);
    if (st != IR_T_F32 || ir_ins_has(ins, IR_M_FTZ) || ir_ins_has(ins, IR_M_SAT)) return false;
    if (dt == IR_T_F16X2 || dt == IR_T_BF16X2) {
        if (ins->nops != 4) return false;
        bool bf = dt == IR_T_BF16X2;
        unsigned rw = bf ? 16 : 13;
        LLVMValueRef rbits = rd(E, &o[3], IR_T_B32), r = c32(E, 0);
        for (unsigned k = 0; k < 2; k++) { /* k = 0: a (upper half of d and of rbits) */
            LLVMValueRef rnd = bits_of(E, rbits, k ? 0 : 16, rw);
            LLVMValueRef x = rd(E, &o[1 + k], IR_T_F32);
            LLVMValueRef h = float_to_narrow(E, x, bf ? 7 : 10, bf ? 8 : 5, IR_M_RS, relu, satfinite, false, 0x7fff, rnd, rw);
            r = LLVMBuildOr(BLD, r, LLVMBuildShl(BLD, zext_to(E, h, E->i32), c32(E, k ? 0 : 16), ""), "");
        }
        wr(E, &o[0], IR_T_B32, r);
        return true;
    }
    bool fp8 = dt == IR_T_E4M3X4 || dt == IR_T_E5M2X4, fp6 = dt == IR_T_E2M3X4 || dt == IR_T_E3M2X4;
    bool fp4 = dt == IR_T_E2M1X4;
    if (!fp8 && !fp6 && !fp4) return false;
    if (!satfinite || ins->nops != 3 || o[1].kind != IR_OPND_VEC || o[1].aux != 4) return false;
    const ir_operand *el = ir_elems(&o[1]);
    LLVMValueRef rbits = rd(E, &o[2], IR_T_B32), d = c32(E, 0);
    for (unsigned k = 0; k < 4; k++) { /* a, b, e, f */
        LLVMValueRef x = rd(E, &el[k], IR_T_F32), c, rnd;
        static const unsigned fp4_lo[4] = {24, 8, 16, 0};
        if (fp4) rnd = bits_of(E, rbits, fp4_lo[k], 8);
        else rnd = bits_of(E, rbits, k < 2 ? 16 : 0, 16);
        if (fp8) {
            bool e4 = dt == IR_T_E4M3X4;
            c = zext_to(E, float_to_narrow(E, x, e4 ? 3 : 2, e4 ? 4 : 5, IR_M_RS, relu, true, e4, 0x7f, rnd, 16), E->i32);
        } else {
            c = float_to_fp4_fp6(E, x, dt, IR_M_RS, relu, rnd, fp4 ? 8 : 16);
        }
        unsigned w = fp4 ? 4 : 8;
        d = LLVMBuildOr(BLD, d, LLVMBuildShl(BLD, c, c32(E, w * (3 - k)), ""), "");
    }
    wr(E, &o[0], fp4 ? IR_T_B16 : IR_T_B32, d);
    return true;
}
