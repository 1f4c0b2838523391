/* amdgpu_sync.c — the CUDA warp collectives beyond shfl/vote (redux, match, elect) and the barriers s_barrier
 * alone cannot express (named barriers, thread counts, bar.arrive, bar.red) for AMDGPU, with the CUDA 32-lane
 * semantics of the host runtime (driver-stub/cpu/cpu_exec.c) on wave32 and on wave64 (two CUDA warps per
 * wave: every loop below runs per 32-lane half and only reads lanes of its own half).
 *
 * The participating lanes of a collective are the active lanes of the CUDA warp named by membermask (PTX
 * leaves lanes outside membermask undefined; exited lanes are inactive, as the CPU runtime drops them).
 * ds_bpermute is only ever pointed at participating (hence active) lanes: reading an inactive lane yields 0. */
#include "amdgpu_internal.h"
#include "../../driver-stub/cpu/host_abi.h"

#define BLD (E->B)

static LLVMValueRef bperm(emit_ctx *E, LLVMValueRef src_hw, LLVMValueRef v) {
    LLVMValueRef a[2] = {LLVMBuildShl(BLD, src_hw, c32(E, 2), ""), v};
    return intrin(E, "llvm.amdgcn.ds.bpermute", NULL, 0, a, 2);
}

static LLVMValueRef cttz32(emit_ctx *E, LLVMValueRef v) {
    LLVMValueRef a[2] = {v, LLVMConstInt(E->i1, 0, 0)};
    return intrin(E, "llvm.cttz", &E->i32, 1, a, 2);
}

/* participating lanes of this CUDA warp (bit = %laneid) */
static LLVMValueRef members(emit_ctx *E, LLVMValueRef mask) {
    return LLVMBuildAnd(BLD, amd_ballot32(E, LLVMConstInt(E->i1, 1, 0)), mask, "");
}

/* hardware lane of CUDA lane `l` of this lane's warp */
static LLVMValueRef hw_of(emit_ctx *E, LLVMValueRef l) { return LLVMBuildOr(BLD, l, amd_warp_half(E), ""); }

/* ------------------------------------------------------------------ redux.sync */

enum { C_ADD, C_OR, C_XOR, C_UMAX };

static LLVMValueRef combine(emit_ctx *E, unsigned c, LLVMValueRef x, LLVMValueRef y) {
    switch (c) {
    case C_ADD: return LLVMBuildAdd(BLD, x, y, "");
    case C_OR: return LLVMBuildOr(BLD, x, y, "");
    case C_XOR: return LLVMBuildXor(BLD, x, y, "");
    default: {
        LLVMValueRef a[2] = {x, y};
        return intrin(E, "llvm.umax", &E->i32, 1, a, 2);
    }
    }
}

/* a: ctx op value membermask. Every operation is mapped (x = v ^ flip) onto add/or/xor/umax, whose identity is
 * 0: and = ~or(~v), umin = ~umax(~v), signed max/min = umax on the order-preserving flips. A full warp (all 32
 * lanes participate) reduces by a 5-step butterfly inside its half; otherwise a loop visits the participating
 * lanes (uniform within the warp, since they share the membermask). */
LLVMValueRef amd_redux(emit_ctx *E, LLVMValueRef *a) {
    unsigned op = (unsigned)LLVMConstIntGetZExtValue(a[1]), c = C_ADD;
    uint32_t flip = 0;
    switch (op) {
    case P2N_REDUX_ADD: break;
    case P2N_REDUX_OR: c = C_OR; break;
    case P2N_REDUX_XOR: c = C_XOR; break;
    case P2N_REDUX_AND: c = C_OR; flip = 0xffffffffu; break;
    case P2N_REDUX_UMAX: c = C_UMAX; break;
    case P2N_REDUX_UMIN: c = C_UMAX; flip = 0xffffffffu; break;
    case P2N_REDUX_MAX: c = C_UMAX; flip = 0x80000000u; break;
    default: c = C_UMAX; flip = 0x7fffffffu; break; /* signed min: ~(v ^ sign) */
    }
    LLVMValueRef x = LLVMBuildXor(BLD, a[2], c32(E, flip), "");
    LLVMValueRef m = members(E, a[3]);
    LLVMValueRef hw = amd_hw_lane(E), half = amd_warp_half(E);
    LLVMBasicBlockRef fast = new_bb(E, "redux.full"), slow = new_bb(E, "redux.part"), loop = new_bb(E, "redux.loop"),
                      done = new_bb(E, "redux.done");
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, m, c32(E, 0xffffffffu), ""), fast, slow);

    LLVMPositionBuilderAtEnd(BLD, fast);
    LLVMValueRef r = x;
    for (unsigned k = 1; k < 32; k <<= 1) r = combine(E, c, r, bperm(E, LLVMBuildXor(BLD, hw, c32(E, k), ""), r));
    LLVMBasicBlockRef fast_end = LLVMGetInsertBlock(BLD);
    LLVMBuildBr(BLD, done);

    LLVMPositionBuilderAtEnd(BLD, slow);
    LLVMBuildBr(BLD, loop);
    LLVMPositionBuilderAtEnd(BLD, loop);
    LLVMValueRef rem = LLVMBuildPhi(BLD, E->i32, ""), acc = LLVMBuildPhi(BLD, E->i32, "");
    LLVMValueRef y = bperm(E, LLVMBuildOr(BLD, cttz32(E, rem), half, ""), x);
    LLVMValueRef acc2 = combine(E, c, acc, y);
    LLVMValueRef rem2 = LLVMBuildAnd(BLD, rem, LLVMBuildSub(BLD, rem, c32(E, 1), ""), "");
    LLVMBasicBlockRef loop_end = LLVMGetInsertBlock(BLD);
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntNE, rem2, c32(E, 0), ""), loop, done);
    LLVMAddIncoming(rem, (LLVMValueRef[]){m, rem2}, (LLVMBasicBlockRef[]){slow, loop_end}, 2);
    LLVMAddIncoming(acc, (LLVMValueRef[]){c32(E, 0), acc2}, (LLVMBasicBlockRef[]){slow, loop_end}, 2);

    LLVMPositionBuilderAtEnd(BLD, done);
    LLVMValueRef res = LLVMBuildPhi(BLD, E->i32, "");
    LLVMAddIncoming(res, (LLVMValueRef[]){r, acc2}, (LLVMBasicBlockRef[]){fast_end, loop_end}, 2);
    return LLVMBuildXor(BLD, res, c32(E, flip), "");
}

/* ------------------------------------------------------------------ match.sync, elect.sync */

/* the 64-bit match value as two 32-bit halves; hi is NULL for a zero-extended b32 value */
static void split64(emit_ctx *E, LLVMValueRef v, LLVMValueRef *lo, LLVMValueRef *hi) {
    if (LLVMIsAZExtInst(v) && LLVMTypeOf(LLVMGetOperand(v, 0)) == E->i32) {
        *lo = LLVMGetOperand(v, 0);
        *hi = NULL;
        return;
    }
    *lo = LLVMBuildTrunc(BLD, v, E->i32, "");
    *hi = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, v, c64(E, 32), ""), E->i32, "");
}

/* does this lane's value equal the one of hardware lane `src`? */
static LLVMValueRef same_as(emit_ctx *E, LLVMValueRef src, LLVMValueRef lo, LLVMValueRef hi) {
    LLVMValueRef eq = LLVMBuildICmp(BLD, LLVMIntEQ, bperm(E, src, lo), lo, "");
    if (hi) eq = LLVMBuildAnd(BLD, eq, LLVMBuildICmp(BLD, LLVMIntEQ, bperm(E, src, hi), hi, ""), "");
    return eq;
}

/* a: ctx value(i64) membermask. One iteration per distinct value: the lowest unvisited lane's value, the
 * ballot of the lanes holding it, which leave the work set. */
LLVMValueRef amd_match_any(emit_ctx *E, LLVMValueRef *a) {
    LLVMValueRef lo, hi;
    split64(E, a[1], &lo, &hi);
    LLVMValueRef m = members(E, a[2]), half = amd_warp_half(E);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(BLD), loop = new_bb(E, "match.loop"), done = new_bb(E, "match.done");
    LLVMBuildBr(BLD, loop);
    LLVMPositionBuilderAtEnd(BLD, loop);
    LLVMValueRef rem = LLVMBuildPhi(BLD, E->i32, ""), res = LLVMBuildPhi(BLD, E->i32, "");
    LLVMValueRef eq = same_as(E, LLVMBuildOr(BLD, cttz32(E, rem), half, ""), lo, hi);
    LLVMValueRef b = LLVMBuildAnd(BLD, amd_ballot32(E, eq), m, "");
    LLVMValueRef res2 = LLVMBuildSelect(BLD, eq, b, res, "");
    LLVMValueRef rem2 = LLVMBuildAnd(BLD, rem, LLVMBuildNot(BLD, b, ""), "");
    LLVMBasicBlockRef end = LLVMGetInsertBlock(BLD);
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntNE, rem2, c32(E, 0), ""), loop, done);
    LLVMAddIncoming(rem, (LLVMValueRef[]){m, rem2}, (LLVMBasicBlockRef[]){pre, end}, 2);
    LLVMAddIncoming(res, (LLVMValueRef[]){c32(E, 0), res2}, (LLVMBasicBlockRef[]){pre, end}, 2);
    LLVMPositionBuilderAtEnd(BLD, done);
    return res2;
}

/* a: ctx value(i64) membermask pred_ptr: all participating lanes hold the lowest one's value */
LLVMValueRef amd_match_all(emit_ctx *E, LLVMValueRef *a) {
    LLVMValueRef lo, hi;
    split64(E, a[1], &lo, &hi);
    LLVMValueRef m = members(E, a[2]);
    LLVMValueRef eq = same_as(E, hw_of(E, cttz32(E, m)), lo, hi);
    LLVMValueRef all = LLVMBuildICmp(BLD, LLVMIntEQ, LLVMBuildAnd(BLD, amd_ballot32(E, eq), m, ""), m, "");
    LLVMBuildStore(BLD, LLVMBuildZExt(BLD, all, E->i32, ""), a[3]);
    return LLVMBuildSelect(BLD, all, m, c32(E, 0), "");
}

/* a: ctx membermask leader_ptr: the lowest participating lane leads (its %laneid is the result) */
LLVMValueRef amd_elect(emit_ctx *E, LLVMValueRef *a) {
    LLVMValueRef l = cttz32(E, members(E, a[1]));
    LLVMBuildStore(BLD, LLVMBuildZExt(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, amd_laneid(E), l, ""), E->i32, ""), a[2]);
    return l;
}

/* ------------------------------------------------------------------ barriers */

/* word `base + (id & 15)` of the AMD-private LDS area */
static LLVMValueRef priv_word(emit_ctx *E, unsigned base, LLVMValueRef id) {
    LLVMValueRef g = LLVMGetNamedGlobal(E->M, AMDGPU_LDS_PRIV);
    LLVMTypeRef ty = LLVMArrayType2(E->i32, AMDGPU_PRIV_WORDS);
    if (!g) {
        g = LLVMAddGlobalInAddressSpace(E->M, ty, AMDGPU_LDS_PRIV, 3);
        LLVMSetInitializer(g, LLVMGetPoison(ty));
        LLVMSetLinkage(g, LLVMInternalLinkage);
        LLVMSetAlignment(g, 16);
    }
    LLVMValueRef idx = LLVMBuildAdd(BLD, LLVMBuildAnd(BLD, id, c32(E, 15), ""), c32(E, base), "");
    return LLVMBuildGEP2(BLD, E->i32, g, &idx, 1, "");
}

static unsigned wg_scope(emit_ctx *E) { return LLVMGetSyncScopeID(E->C, "workgroup", 9); }

/* Is barrier 0 ever the target of bar.arrive / barrier.arrive in this module (or could it be: a register
 * id)? Then full-CTA bar.sync 0 must count arrivals in LDS too instead of using s_barrier. Cached as named
 * metadata so the module is scanned once. */
static bool arrive_on_zero(emit_ctx *E) {
    static const char key[] = "p2n.amd.arrive0";
    unsigned n = LLVMGetNamedMetadataNumOperands(E->M, key);
    if (n) {
        LLVMValueRef op;
        LLVMGetNamedMetadataOperands(E->M, key, &op);
        LLVMValueRef v = NULL;
        LLVMGetMDNodeOperands(op, &v);
        return LLVMConstIntGetZExtValue(v) != 0;
    }
    bool found = false;
    for (uint32_t f = 0; f < E->m->nfuncs && !found; f++)
        for (uint32_t b = 0; b < E->m->funcs[f].nblocks && !found; b++) {
            const ir_block *bl = &E->m->funcs[f].blocks[b];
            for (uint32_t i = 0; i < bl->n && !found; i++) {
                const ir_ins *ins = &bl->ins[i];
                if ((ins->op == IR_OP_BAR || ins->op == IR_OP_BARRIER) && ir_ins_has(ins, IR_M_ARRIVE))
                    found = ins->nops == 0 || ins->ops[0].kind != IR_OPND_IMM || ins->ops[0].val == 0;
            }
        }
    LLVMMetadataRef v = LLVMValueAsMetadata(c32(E, found));
    LLVMAddNamedMetadataOperand(E->M, key, LLVMMetadataAsValue(E->C, LLVMMDNodeInContext2(E->C, &v, 1)));
    return found;
}

/* full-CTA barrier 0 that s_barrier implements (hardware; exited waves count as arrived) */
static bool use_s_barrier(emit_ctx *E, LLVMValueRef id, LLVMValueRef cnt, bool arrive) {
    return !arrive && amd_is_const(id, 0) && amd_is_const(cnt, 0) && !arrive_on_zero(E);
}

static void s_barrier(emit_ctx *E) {
    amd_workgroup_fence(E, LLVMAtomicOrderingRelease);
    intrin(E, "llvm.amdgcn.s.barrier", NULL, 0, NULL, 0);
    amd_workgroup_fence(E, LLVMAtomicOrderingAcquire);
}

/* Counting barrier in LDS (named barriers, thread counts, bar.arrive). Word = generation << 16 | arrived
 * threads. As on NVIDIA a CUDA warp arrives as 32 threads: its lowest active lane adds 32; the arrival that
 * reaches the expected count resets the count and bumps the generation in one atomic add; waiters poll the
 * generation (s_sleep between polls). cnt 0 = all threads of the CTA (rounded up to whole warps). Exited warps
 * never arrive (unlike s_barrier), and on wave64 both CUDA warps of a wave take one path at a time, so a warp
 * waiting for the other warp of its own wave (warp-specialised producer/consumer) hangs. */
static void lds_barrier(emit_ctx *E, LLVMValueRef id, LLVMValueRef cnt, bool wait) {
    LLVMValueRef nt = LLVMBuildMul(BLD, ctx_field(E, CTX_NTID, E->i32), ctx_field(E, CTX_NTID + 4, E->i32), "");
    nt = LLVMBuildMul(BLD, nt, ctx_field(E, CTX_NTID + 8, E->i32), "");
    nt = LLVMBuildAnd(BLD, LLVMBuildAdd(BLD, nt, c32(E, 31), ""), c32(E, ~31u), "");
    LLVMValueRef expected = LLVMBuildSelect(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, cnt, c32(E, 0), ""), nt, cnt, "");
    LLVMValueRef w = priv_word(E, AMDGPU_PRIV_BAR, id);
    amd_workgroup_fence(E, LLVMAtomicOrderingRelease);
    LLVMValueRef leader_lane = cttz32(E, amd_ballot32(E, LLVMConstInt(E->i1, 1, 0)));
    LLVMValueRef leader = LLVMBuildICmp(BLD, LLVMIntEQ, amd_laneid(E), leader_lane, "");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(BLD), arr = new_bb(E, "bar.arrive"), rst = new_bb(E, "bar.reset"),
                      arrived = new_bb(E, "bar.arrived"), join = new_bb(E, "bar.join");
    LLVMBuildCondBr(BLD, leader, arr, join);
    LLVMPositionBuilderAtEnd(BLD, arr);
    LLVMValueRef old = LLVMBuildAtomicRMWSyncScope(BLD, LLVMAtomicRMWBinOpAdd, w, c32(E, 32),
                                                   LLVMAtomicOrderingAcquireRelease, wg_scope(E));
    LLVMValueRef g = LLVMBuildLShr(BLD, old, c32(E, 16), "");
    LLVMValueRef now = LLVMBuildAdd(BLD, LLVMBuildAnd(BLD, old, c32(E, 0xffff), ""), c32(E, 32), "");
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, now, expected, ""), rst, arrived);
    LLVMPositionBuilderAtEnd(BLD, rst);
    LLVMBuildAtomicRMWSyncScope(BLD, LLVMAtomicRMWBinOpAdd, w, LLVMBuildSub(BLD, c32(E, 0x10000), expected, ""),
                                LLVMAtomicOrderingAcquireRelease, wg_scope(E));
    LLVMBuildBr(BLD, arrived);
    LLVMPositionBuilderAtEnd(BLD, arrived);
    LLVMBuildBr(BLD, join);
    LLVMPositionBuilderAtEnd(BLD, join);
    if (!wait) return;
    LLVMValueRef gen = LLVMBuildPhi(BLD, E->i32, "");
    LLVMAddIncoming(gen, (LLVMValueRef[]){c32(E, 0), g}, (LLVMBasicBlockRef[]){pre, arrived}, 2);
    gen = bperm(E, hw_of(E, leader_lane), gen); /* the generation this warp arrived in, from its leader */
    LLVMBasicBlockRef poll = new_bb(E, "bar.poll"), nap = new_bb(E, "bar.sleep"), out = new_bb(E, "bar.done");
    LLVMBuildBr(BLD, poll);
    LLVMPositionBuilderAtEnd(BLD, poll);
    LLVMValueRef cur = LLVMBuildLoad2(BLD, E->i32, w, "");
    LLVMSetOrdering(cur, LLVMAtomicOrderingMonotonic);
    LLVMSetAtomicSyncScopeID(cur, wg_scope(E));
    LLVMSetAlignment(cur, 4);
    LLVMValueRef moved = LLVMBuildICmp(BLD, LLVMIntNE, LLVMBuildLShr(BLD, cur, c32(E, 16), ""), gen, "");
    LLVMBuildCondBr(BLD, moved, out, nap);
    LLVMPositionBuilderAtEnd(BLD, nap);
    LLVMValueRef one = c32(E, 1);
    intrin(E, "llvm.amdgcn.s.sleep", NULL, 0, &one, 1);
    LLVMBuildBr(BLD, poll);
    LLVMPositionBuilderAtEnd(BLD, out);
    amd_workgroup_fence(E, LLVMAtomicOrderingAcquire);
}

static void cta_barrier(emit_ctx *E, LLVMValueRef id, LLVMValueRef cnt, bool fast) {
    if (fast) s_barrier(E);
    else lds_barrier(E, id, cnt, true);
}

/* a: ctx id count arrive. The shared emission already brackets bar/barrier with CTA-scope fences
 * (workgroup here), so the s_barrier needs none of its own. */
void amd_barrier(emit_ctx *E, LLVMValueRef *a) {
    bool arrive = !amd_is_const(a[3], 0);
    if (use_s_barrier(E, a[1], a[2], arrive)) intrin(E, "llvm.amdgcn.s.barrier", NULL, 0, NULL, 0);
    else lds_barrier(E, a[1], a[2], !arrive);
}

/* if (hwlane is the wave's first active lane) *w += v (or -= v) */
static void wave_leader_rmw(emit_ctx *E, LLVMValueRef w, LLVMValueRef v, LLVMAtomicRMWBinOp op) {
    LLVMValueRef t = LLVMConstInt(E->i1, 1, 0);
    LLVMValueRef act = intrin(E, "llvm.amdgcn.ballot", &E->i64, 1, &t, 1);
    LLVMValueRef first = LLVMBuildTrunc(BLD, intrin(E, "llvm.cttz", &E->i64, 1, (LLVMValueRef[]){act, LLVMConstInt(E->i1, 0, 0)}, 2), E->i32, "");
    LLVMBasicBlockRef yes = new_bb(E, "red.leader"), join = new_bb(E, "red.join");
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, amd_hw_lane(E), first, ""), yes, join);
    LLVMPositionBuilderAtEnd(BLD, yes);
    LLVMBuildAtomicRMWSyncScope(BLD, op, w, v, LLVMAtomicOrderingMonotonic, wg_scope(E));
    LLVMBuildBr(BLD, join);
    LLVMPositionBuilderAtEnd(BLD, join);
}

/* a: ctx id count op pred. Each wave adds the number of its lanes with the (for .and: negated) predicate to
 * an LDS counter; after the barrier everyone reads the total; after a second barrier (nobody reads any more)
 * each wave takes its part back out, so the counter is 0 again for the next bar.red without a reset race. */
LLVMValueRef amd_barrier_red(emit_ctx *E, LLVMValueRef *a) {
    unsigned op = (unsigned)LLVMConstIntGetZExtValue(a[3]);
    LLVMValueRef p = LLVMBuildICmp(BLD, op == P2N_RED_AND ? LLVMIntEQ : LLVMIntNE, a[4], c32(E, 0), "");
    LLVMValueRef b = intrin(E, "llvm.amdgcn.ballot", &E->i64, 1, &p, 1);
    LLVMValueRef part = LLVMBuildTrunc(BLD, intrin(E, "llvm.ctpop", &E->i64, 1, &b, 1), E->i32, "");
    bool fast = use_s_barrier(E, a[1], a[2], false);
    LLVMValueRef w = priv_word(E, AMDGPU_PRIV_RED, a[1]);
    wave_leader_rmw(E, w, part, LLVMAtomicRMWBinOpAdd);
    cta_barrier(E, a[1], a[2], fast);
    LLVMValueRef tot = LLVMBuildLoad2(BLD, E->i32, w, "");
    LLVMSetOrdering(tot, LLVMAtomicOrderingMonotonic);
    LLVMSetAtomicSyncScopeID(tot, wg_scope(E));
    LLVMSetAlignment(tot, 4);
    cta_barrier(E, a[1], a[2], fast);
    wave_leader_rmw(E, w, part, LLVMAtomicRMWBinOpSub);
    if (op == P2N_RED_POPC) return tot;
    return LLVMBuildZExt(BLD, LLVMBuildICmp(BLD, op == P2N_RED_AND ? LLVMIntEQ : LLVMIntNE, tot, c32(E, 0), ""), E->i32, "");
}
