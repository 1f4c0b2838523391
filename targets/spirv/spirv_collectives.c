/* spirv_collectives.c — match.any/all.sync, redux.sync (1.2, partial masks) and the warp matrix operations for
 * SPIR-V: the algorithms shared with AMDGPU (targets/llvm/emit_lanes.c, emit_lanes_matrix.c) on sub-group
 * primitives, and the 1.2 redux loop, with the semantics of the CPU runtime (driver-stub/cpu/cpu_exec.c): the
 * participating lanes are the active lanes of the sub-group (= CUDA warp, size pinned to 32) named by
 * membermask. Built from ballot and shuffle (spirv_hooks.c), so the same code serves 1.4 (KHR non-uniform ops)
 * and 1.2 (SPV_INTEL_subgroups). Loops below run over a set of lanes that is the same for the whole sub-group
 * (membermask is warp-uniform in PTX), so every lane executes the same number of ballots/shuffles. */
#include "host_abi.h"
#include "spirv_collectives.h"
#include "spirv_target.h"

#define BLD E->B

/* Every entry here is reached through hook_rt_call, whose one gate (spirv_needs_subgroups, spirv_subgroups.c)
 * has already diagnosed it on devices without sub-groups of 32. */

static LLVMValueRef undef_or_null(LLVMTypeRef ret) {
    return LLVMGetTypeKind(ret) == LLVMVoidTypeKind ? NULL : LLVMGetUndef(ret);
}

/* participating lanes: active lanes of this sub-group in membermask */
static LLVMValueRef members(emit_ctx *E, LLVMValueRef mask) {
    return LLVMBuildAnd(BLD, spirv_sg_ballot(E, ci(E->i1, 1)), mask, "");
}

LLVMValueRef spirv_match_any(emit_ctx *E, LLVMValueRef *a) { return lanes_match_any(E, &spirv_lanes, a); }
LLVMValueRef spirv_match_all(emit_ctx *E, LLVMValueRef *a) { return lanes_match_all(E, &spirv_lanes, a); }

/* redux.sync where SPIR-V 1.2 has no non-uniform reductions: the participating lanes' values, lowest lane
 * first (the CPU runtime's order; all operations are associative and commutative anyway), by shuffles. */
LLVMValueRef spirv_redux_loop(emit_ctx *E, LLVMValueRef *a) {
    unsigned op = (unsigned)LLVMConstIntGetZExtValue(a[1]);
    LLVMValueRef m = members(E, a[3]);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(BLD), loop = new_bb(E, "redux.loop"), done = new_bb(E, "redux.done");
    LLVMValueRef first = spirv_sg_shuffle(E, a[2], lanes_cttz32(E, m));
    LLVMValueRef rest = LLVMBuildAnd(BLD, m, LLVMBuildSub(BLD, m, c32(E, 1), ""), "");
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntNE, rest, c32(E, 0), ""), loop, done);
    LLVMPositionBuilderAtEnd(BLD, loop);
    LLVMValueRef rem = LLVMBuildPhi(BLD, E->i32, ""), acc = LLVMBuildPhi(BLD, E->i32, "");
    LLVMValueRef v = spirv_sg_shuffle(E, a[2], lanes_cttz32(E, rem)), acc2;
    switch (op) {
    case P2N_REDUX_ADD: acc2 = LLVMBuildAdd(BLD, acc, v, ""); break;
    case P2N_REDUX_MIN: acc2 = sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, v, acc, ""), v, acc); break;
    case P2N_REDUX_MAX: acc2 = sel(E, LLVMBuildICmp(BLD, LLVMIntSGT, v, acc, ""), v, acc); break;
    case P2N_REDUX_UMIN: acc2 = sel(E, LLVMBuildICmp(BLD, LLVMIntULT, v, acc, ""), v, acc); break;
    case P2N_REDUX_UMAX: acc2 = sel(E, LLVMBuildICmp(BLD, LLVMIntUGT, v, acc, ""), v, acc); break;
    case P2N_REDUX_AND: acc2 = LLVMBuildAnd(BLD, acc, v, ""); break;
    case P2N_REDUX_OR: acc2 = LLVMBuildOr(BLD, acc, v, ""); break;
    default: acc2 = LLVMBuildXor(BLD, acc, v, ""); break;
    }
    LLVMValueRef rem2 = LLVMBuildAnd(BLD, rem, LLVMBuildSub(BLD, rem, c32(E, 1), ""), "");
    LLVMBasicBlockRef end = LLVMGetInsertBlock(BLD);
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntNE, rem2, c32(E, 0), ""), loop, done);
    LLVMAddIncoming(rem, (LLVMValueRef[]){rest, rem2}, (LLVMBasicBlockRef[]){pre, end}, 2);
    LLVMAddIncoming(acc, (LLVMValueRef[]){first, acc2}, (LLVMBasicBlockRef[]){pre, end}, 2);
    LLVMPositionBuilderAtEnd(BLD, done);
    LLVMValueRef r = LLVMBuildPhi(BLD, E->i32, "");
    LLVMAddIncoming(r, (LLVMValueRef[]){first, acc2}, (LLVMBasicBlockRef[]){pre, end}, 2);
    return r;
}

/* a: ctx op io (emit_matrix.c): ldmatrix/stmatrix, mma.sync, wmma (targets/llvm/emit_lanes_matrix.c) */
LLVMValueRef spirv_warp_matrix(emit_ctx *E, LLVMValueRef *a, LLVMTypeRef ret) {
    if (!lanes_warp_matrix(E, &spirv_lanes, (unsigned)LLVMConstIntGetZExtValue(a[1]), a[2]))
        emit_unsupported(E, "warp matrix operation (no lowering for this shape)");
    return undef_or_null(ret);
}
