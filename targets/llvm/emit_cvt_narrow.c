/* emit_cvt_narrow.c — cvt forms that pack several narrow results into one register: FP8 pairs from f16x2
 * sources (cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2) and cvt.pack.sat to 16/8/4/2-bit integer fields. */
#include "emit.h"

#define BLD E->B

LLVMValueRef float_to_fp8(emit_ctx *E, LLVMValueRef f, bool e4m3, bool satfinite, bool relu); /* emit_float.c */

/* cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a: each half of a to one byte of d (upper half -> upper
 * byte). f16 -> f32 is exact, so the one rounding happens in float_to_fp8 (ptxas requires .satfinite here). */
bool emit_cvt_fp8_f16x2(emit_ctx *E, const ir_ins *ins) {
    ir_type dt = ir_ins_type(ins, 0);
    if (ins->nops != 2 || (dt != IR_T_E4M3X2 && dt != IR_T_E5M2X2)) return false;
    if (round_mode(ins) != IR_M_RN) return false;
    bool relu = ir_ins_has(ins, IR_M_RELU), satfinite = ir_ins_has(ins, IR_M_SATFINITE);
    LLVMValueRef v = rd(E, &ins->ops[1], IR_T_B32), r = ci(E->i16, 0);
    for (unsigned k = 0; k < 2; k++) {
        LLVMValueRef h = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, v, c32(E, 16 * k), ""), E->i16, "");
        LLVMValueRef b = float_to_fp8(E, half_to_float(E, h, false), dt == IR_T_E4M3X2, satfinite, relu);
        r = LLVMBuildOr(BLD, r, LLVMBuildShl(BLD, b, ci(E->i16, 8 * k), ""), "");
    }
    wr(E, &ins->ops[0], IR_T_B16, r);
    return true;
}

/* cvt.pack.sat.T.s32{.b32} d, a, b{, c}: n = width of T; sat(x) clamps x to T's range;
 * d = c << 2n | (sat(a) mod 2^n) << n | (sat(b) mod 2^n)  (T = u16/s16 has no c: d = sat(a) << 16 | sat(b)). */
bool emit_cvt_pack(emit_ctx *E, const ir_ins *ins) {
    ir_type dt = ir_ins_type(ins, 0), st = ir_ins_type(ins, 1);
    if (!ir_ins_has(ins, IR_M_SAT) || st != IR_T_S32) return false;
    unsigned n;
    bool sg;
    switch (dt) {
    case IR_T_U16: n = 16; sg = false; break;
    case IR_T_S16: n = 16; sg = true; break;
    case IR_T_U8: n = 8; sg = false; break;
    case IR_T_S8: n = 8; sg = true; break;
    case IR_T_U4: n = 4; sg = false; break;
    case IR_T_S4: n = 4; sg = true; break;
    case IR_T_U2: n = 2; sg = false; break;
    case IR_T_S2: n = 2; sg = true; break;
    default: return false;
    }
    bool has_c = n < 16;
    if (ins->nops != (has_c ? 4u : 3u)) return false;
    if (has_c && ir_ins_type(ins, 2) != IR_T_B32) return false;
    int32_t lo = sg ? -(1 << (n - 1)) : 0, hi = sg ? (1 << (n - 1)) - 1 : (int32_t)((1u << n) - 1);
    uint32_t mask = (1u << n) - 1;
    LLVMValueRef f[2];
    for (unsigned i = 0; i < 2; i++) {
        LLVMValueRef x = rd(E, &ins->ops[1 + i], IR_T_S32);
        x = sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, x, c32(E, (uint32_t)lo), ""), c32(E, (uint32_t)lo), x);
        x = sel(E, LLVMBuildICmp(BLD, LLVMIntSGT, x, c32(E, (uint32_t)hi), ""), c32(E, (uint32_t)hi), x);
        f[i] = LLVMBuildAnd(BLD, x, c32(E, mask), "");
    }
    LLVMValueRef d = LLVMBuildOr(BLD, LLVMBuildShl(BLD, f[0], c32(E, n), ""), f[1], "");
    if (has_c) d = LLVMBuildOr(BLD, d, LLVMBuildShl(BLD, rd(E, &ins->ops[3], IR_T_B32), c32(E, 2 * n), ""), "");
    wr(E, &ins->ops[0], IR_T_B32, d);
    return true;
}
