/* emit_redux_f32.c — redux.sync.{min,max}{.abs}{.NaN}.f32 (PTX ISA 8.6+, sm_100a) on every target, through the
 * integer redux.sync lowering (RT_REDUX: the CPU runtime, amdgpu_sync.c, the SPIR-V hooks).
 *
 * ISA rules (redux.sync): "+0.0 > -0.0"; .abs reduces |input|; with .NaN the result is the canonical NaN when any
 * participating input is NaN; without it only non-NaN inputs count and the result is the canonical NaN when all
 * inputs are NaN.
 *
 * Every non-NaN f32 maps to a 32-bit key whose unsigned order is the float order with -0 < +0: a positive value
 * (sign 0) gets its sign bit set, a negative value is inverted. So min/max are umin/umax of the keys. Keys 0 and
 * 0xffffffff decode to NaN bit patterns (0xffffffff, 0x7fffffff), never to a number: a NaN input becomes the key
 * that loses (without .NaN: the identity of the reduction) or wins (.NaN) every comparison, and a result that
 * decodes to NaN is replaced by the canonical NaN 0x7fffffff. */
#include "emit.h"
#include "../ptx2native.h"
#include "host_abi.h"

#define BLD E->B

bool emit_redux_f32(emit_ctx *E, const ir_ins *ins) {
    const ir_operand *o = ins->ops;
    bool is_min = ir_ins_has(ins, IR_M_MIN), is_max = ir_ins_has(ins, IR_M_MAX);
    if (ins->nops != 3 || is_min == is_max) return false;
    note_flags(E, P2N_KERNEL_USES_WARP_OPS);
    LLVMValueRef x = rd(E, &o[1], IR_T_B32);
    if (ir_ins_has(ins, IR_M_ABS)) x = LLVMBuildAnd(BLD, x, c32(E, 0x7fffffff), "");
    LLVMValueRef nan = LLVMBuildICmp(BLD, LLVMIntUGT, LLVMBuildAnd(BLD, x, c32(E, 0x7fffffff), ""), c32(E, 0x7f800000), "");
    LLVMValueRef neg = LLVMBuildICmp(BLD, LLVMIntSLT, x, c32(E, 0), "");
    LLVMValueRef key = LLVMBuildXor(BLD, x, sel(E, neg, c32(E, 0xffffffff), c32(E, 0x80000000u)), "");
    bool wins = ir_ins_has(ins, IR_M_NAN); /* .NaN: a NaN decides the result */
    uint32_t nan_key = (is_min == wins) ? 0u : 0xffffffffu;
    key = sel(E, nan, c32(E, nan_key), key);
    LLVMValueRef a[4] = {E->ctx, c32(E, is_min ? P2N_REDUX_UMIN : P2N_REDUX_UMAX), key, rd(E, &o[2], IR_T_U32)};
    LLVMValueRef r = rt_call(E, RT_REDUX, E->i32, a, 4);
    LLVMValueRef rpos = LLVMBuildICmp(BLD, LLVMIntSLT, r, c32(E, 0), ""); /* key sign bit set: a positive value */
    LLVMValueRef bits = LLVMBuildXor(BLD, r, sel(E, rpos, c32(E, 0x80000000u), c32(E, 0xffffffff)), "");
    LLVMValueRef rnan = LLVMBuildICmp(BLD, LLVMIntUGT, LLVMBuildAnd(BLD, bits, c32(E, 0x7fffffff), ""), c32(E, 0x7f800000), "");
    wr(E, &o[0], IR_T_B32, sel(E, rnan, c32(E, 0x7fffffff), bits));
    return true;
}
