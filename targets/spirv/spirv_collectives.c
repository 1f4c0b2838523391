/* spirv_collectives.c — match.any/all.sync, redux.sync (1.2, partial masks), ldmatrix/stmatrix for SPIR-V, with the
 * semantics of the CPU runtime (driver-stub/cpu/cpu_exec.c coll_compute, cpu_matrix.c ldst_matrix): the
 * participating lanes are the active lanes of the sub-group (= CUDA warp, size pinned to 32) named by
 * membermask. Built from ballot and shuffle (spirv_hooks.c), so the same code serves 1.4 (KHR non-uniform ops)
 * and 1.2 (SPV_INTEL_subgroups). Loops below run over a set of lanes that is the same for the whole sub-group
 * (membermask is warp-uniform in PTX), so every lane executes the same number of ballots/shuffles. */
#include "../../driver-stub/cpu/host_abi.h"
#include "spirv_collectives.h"
#include "spirv_target.h"

#define BLD E->B

/* Every entry here is reached through hook_rt_call, whose one gate (spirv_needs_subgroups, spirv_subgroups.c)
 * has already diagnosed it on devices without sub-groups of 32. */

static LLVMValueRef undef_or_null(LLVMTypeRef ret) {
    return LLVMGetTypeKind(ret) == LLVMVoidTypeKind ? NULL : LLVMGetUndef(ret);
}

static LLVMValueRef lane(emit_ctx *E) { return ctx_field(E, CTX_LANEID, E->i32); }

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

/* ------------------------------------------------------------------ ldmatrix / stmatrix */

/* word k of the lane's io block (emit_matrix.c: address in words 0-1, fragment registers from word 2) */
static LLVMValueRef io_word(emit_ctx *E, LLVMValueRef io, unsigned k) { return gep8(E, io, c64(E, 4ull * k)); }

/* the row address that lane `src` put in its io block, as a generic pointer plus `off` bytes */
static LLVMValueRef row_ptr(emit_ctx *E, LLVMValueRef lo, LLVMValueRef hi, LLVMValueRef src, LLVMValueRef off) {
    LLVMValueRef l = LLVMBuildZExt(BLD, spirv_sg_shuffle(E, lo, src), E->i64, "");
    LLVMValueRef h = LLVMBuildZExt(BLD, spirv_sg_shuffle(E, hi, src), E->i64, "");
    LLVMValueRef addr = LLVMBuildOr(BLD, l, LLVMBuildShl(BLD, h, c64(E, 32), ""), "");
    addr = LLVMBuildAdd(BLD, addr, LLVMBuildZExt(BLD, off, E->i64, ""), "");
    return LLVMBuildIntToPtr(BLD, addr, E->ptr, "");
}

/* m8n8 .b16, per matrix i: lane i*8+r supplies the address of row r. Lane l's fragment register i holds the
 * elements (r, c) for h = 0, 1 (low/high half): r = l/4, c = (l%4)*2 + h, or with .trans r = (l%4)*2 + h,
 * c = l/4. So each lane fetches the row addresses it needs by shuffles and moves its own 32 bits: one 4-byte
 * access without .trans (rows are 16-byte aligned), two 2-byte accesses with it. */
static void ldst_matrix(emit_ctx *E, unsigned op, LLVMValueRef io) {
    bool ld = (op & 0xffu) == P2N_MX_LDMATRIX, trans = op & P2N_MX_TRANS;
    unsigned n = P2N_MX_NUM(op);
    LLVMValueRef a64 = LLVMBuildLoad2(BLD, E->i64, io, "");
    LLVMSetAlignment(a64, 8);
    LLVMValueRef lo = LLVMBuildTrunc(BLD, a64, E->i32, "");
    LLVMValueRef hi = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, a64, c64(E, 32), ""), E->i32, "");
    LLVMValueRef l = lane(E), g = LLVMBuildLShr(BLD, l, c32(E, 2), ""), t = LLVMBuildAnd(BLD, l, c32(E, 3), "");
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef reg = io_word(E, io, 2 + i);
        if (!trans) {
            LLVMValueRef p = row_ptr(E, lo, hi, LLVMBuildAdd(BLD, g, c32(E, 8 * i), ""), LLVMBuildShl(BLD, t, c32(E, 2), ""));
            if (ld) {
                LLVMValueRef v = LLVMBuildLoad2(BLD, E->i32, p, "");
                LLVMSetAlignment(v, 4);
                LLVMBuildStore(BLD, v, reg);
            } else {
                LLVMSetAlignment(LLVMBuildStore(BLD, LLVMBuildLoad2(BLD, E->i32, reg, ""), p), 4);
            }
            continue;
        }
        LLVMValueRef half[2], word = ld ? NULL : LLVMBuildLoad2(BLD, E->i32, reg, "");
        for (unsigned h = 0; h < 2; h++) {
            LLVMValueRef r = LLVMBuildAdd(BLD, LLVMBuildShl(BLD, t, c32(E, 1), ""), c32(E, 8 * i + h), "");
            LLVMValueRef p = row_ptr(E, lo, hi, r, LLVMBuildShl(BLD, g, c32(E, 1), ""));
            if (ld) {
                LLVMValueRef v = LLVMBuildLoad2(BLD, E->i16, p, "");
                LLVMSetAlignment(v, 2);
                half[h] = LLVMBuildZExt(BLD, v, E->i32, "");
            } else {
                LLVMValueRef v = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, word, c32(E, 16 * h), ""), E->i16, "");
                LLVMSetAlignment(LLVMBuildStore(BLD, v, p), 2);
            }
        }
        if (ld) LLVMBuildStore(BLD, LLVMBuildOr(BLD, half[0], LLVMBuildShl(BLD, half[1], c32(E, 16), ""), ""), reg);
    }
}

/* a: ctx op io (emit_matrix.c); mma.sync and wmma in spirv_mma.c */
LLVMValueRef spirv_warp_matrix(emit_ctx *E, LLVMValueRef *a, LLVMTypeRef ret) {
    unsigned op = (unsigned)LLVMConstIntGetZExtValue(a[1]), kind = op & 0xffu;
    if (kind != P2N_MX_LDMATRIX && kind != P2N_MX_STMATRIX) {
        if (!spirv_mma(E, op, a[2])) emit_unsupported(E, "warp matrix operation (no SPIR-V lowering)");
        return undef_or_null(ret);
    }
    ldst_matrix(E, op, a[2]);
    return undef_or_null(ret);
}
