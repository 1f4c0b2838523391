/* emit_lanes.c — CUDA warp collectives and the counting barrier for the GPU targets (emit_lanes.h), with the
 * semantics of the CPU runtime (driver-stub/cpu/cpu_exec.c): the participating lanes of a collective are the
 * active lanes of the CUDA warp named by membermask (PTX leaves lanes outside membermask undefined; exited lanes
 * are inactive). Loops run over a lane set that is the same for the whole warp (membermask is warp-uniform in
 * PTX), so every lane executes the same number of ballots and lane reads, and a lane read only ever names a
 * participating (hence active) lane. */
#include "emit_lanes.h"
#include "host_abi.h"

#define BLD (E->B)

LLVMValueRef lanes_cttz32(emit_ctx *E, LLVMValueRef v) {
    LLVMValueRef a[2] = {v, ci(E->i1, 0)};
    return intrin(E, "llvm.cttz", &E->i32, 1, a, 2);
}

/* participating lanes: active lanes of this warp in membermask */
static LLVMValueRef members(emit_ctx *E, const lane_ops *L, LLVMValueRef mask) {
    return LLVMBuildAnd(BLD, L->ballot(E, ci(E->i1, 1)), mask, "");
}

/* vote.sync: the ballot of the members' predicates, or whether it is every member's (all), some member's
 * (any), or every or no member's (uni) */
LLVMValueRef lanes_vote(emit_ctx *E, const lane_ops *L, LLVMValueRef *a) {
    unsigned mode = (unsigned)LLVMConstIntGetZExtValue(a[1]);
    LLVMValueRef pred = LLVMBuildICmp(BLD, LLVMIntNE, a[2], c32(E, 0), "");
    LLVMValueRef b = LLVMBuildAnd(BLD, L->ballot(E, pred), a[3], "");
    if (mode == P2N_VOTE_BALLOT) return b;
    LLVMValueRef act = members(E, L, a[3]);
    LLVMValueRef r;
    if (mode == P2N_VOTE_ANY) r = LLVMBuildICmp(BLD, LLVMIntNE, b, c32(E, 0), "");
    else if (mode == P2N_VOTE_ALL) r = LLVMBuildICmp(BLD, LLVMIntEQ, b, act, "");
    else {
        LLVMValueRef none = LLVMBuildICmp(BLD, LLVMIntEQ, b, c32(E, 0), "");
        LLVMValueRef all = LLVMBuildICmp(BLD, LLVMIntEQ, b, act, "");
        r = LLVMBuildOr(BLD, none, all, "");
    }
    return LLVMBuildZExt(BLD, r, E->i32, "");
}

/* elect.sync: the lowest member leads; *leader_ptr = whether this lane is it */
LLVMValueRef lanes_elect(emit_ctx *E, const lane_ops *L, LLVMValueRef *a) {
    LLVMValueRef l = lanes_cttz32(E, members(E, L, a[1]));
    LLVMBuildStore(BLD, LLVMBuildZExt(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, L->laneid(E), l, ""), E->i32, ""), a[2]);
    return l;
}

/* the i64 match value as two i32 halves; hi is NULL for a zero-extended b32 value (one lane read per compare) */
static void split64(emit_ctx *E, LLVMValueRef v, LLVMValueRef *lo, LLVMValueRef *hi) {
    if (LLVMIsAZExtInst(v) && LLVMTypeOf(LLVMGetOperand(v, 0)) == E->i32) {
        *lo = LLVMGetOperand(v, 0);
        *hi = NULL;
        return;
    }
    *lo = LLVMBuildTrunc(BLD, v, E->i32, "");
    *hi = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, v, c64(E, 32), ""), E->i32, "");
}

/* does this lane's value equal the one of lane `src`? */
static LLVMValueRef same_as(emit_ctx *E, const lane_ops *L, LLVMValueRef src, LLVMValueRef lo, LLVMValueRef hi) {
    LLVMValueRef eq = LLVMBuildICmp(BLD, LLVMIntEQ, L->read_lane(E, lo, src), lo, "");
    if (hi) eq = LLVMBuildAnd(BLD, eq, LLVMBuildICmp(BLD, LLVMIntEQ, L->read_lane(E, hi, src), hi, ""), "");
    return eq;
}

/* match.any: one iteration per distinct value among the participating lanes — the lowest unvisited lane's value,
 * the ballot of the lanes holding it (they leave the work set). Result: the lanes equal to mine. */
LLVMValueRef lanes_match_any(emit_ctx *E, const lane_ops *L, LLVMValueRef *a) {
    LLVMValueRef lo, hi;
    split64(E, a[1], &lo, &hi);
    LLVMValueRef m = members(E, L, a[2]);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(BLD), loop = new_bb(E, "match.loop"), done = new_bb(E, "match.done");
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntNE, m, c32(E, 0), ""), loop, done);
    LLVMPositionBuilderAtEnd(BLD, loop);
    LLVMValueRef rem = LLVMBuildPhi(BLD, E->i32, ""), res = LLVMBuildPhi(BLD, E->i32, "");
    LLVMValueRef eq = same_as(E, L, lanes_cttz32(E, rem), lo, hi);
    LLVMValueRef b = LLVMBuildAnd(BLD, L->ballot(E, eq), m, "");
    LLVMValueRef res2 = sel(E, eq, b, res);
    LLVMValueRef rem2 = LLVMBuildAnd(BLD, rem, LLVMBuildNot(BLD, b, ""), "");
    LLVMBasicBlockRef end = LLVMGetInsertBlock(BLD);
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntNE, rem2, c32(E, 0), ""), loop, done);
    LLVMAddIncoming(rem, (LLVMValueRef[]){m, rem2}, (LLVMBasicBlockRef[]){pre, end}, 2);
    LLVMAddIncoming(res, (LLVMValueRef[]){c32(E, 0), res2}, (LLVMBasicBlockRef[]){pre, end}, 2);
    LLVMPositionBuilderAtEnd(BLD, done);
    LLVMValueRef r = LLVMBuildPhi(BLD, E->i32, "");
    LLVMAddIncoming(r, (LLVMValueRef[]){c32(E, 0), res2}, (LLVMBasicBlockRef[]){pre, end}, 2);
    /* a lane outside membermask that executes it anyway is not a member: its own bit only if it matched */
    return LLVMBuildAnd(BLD, r, m, "");
}

/* match.all: every participating lane holds the lowest one's value -> (members, pred 1), else (0, 0) */
LLVMValueRef lanes_match_all(emit_ctx *E, const lane_ops *L, LLVMValueRef *a) {
    LLVMValueRef lo, hi;
    split64(E, a[1], &lo, &hi);
    LLVMValueRef m = members(E, L, a[2]);
    LLVMValueRef eq = same_as(E, L, lanes_cttz32(E, m), lo, hi);
    LLVMValueRef all = LLVMBuildICmp(BLD, LLVMIntEQ, LLVMBuildAnd(BLD, L->ballot(E, eq), m, ""), m, "");
    LLVMBuildStore(BLD, LLVMBuildZExt(BLD, all, E->i32, ""), a[3]);
    return sel(E, all, m, c32(E, 0));
}

/* shfl.sync: the source lane j of the PTX ISA's pseudo code from b (lane offset / index) and c (clamp in bits
 * 0-4, segment mask in bits 8-12), all 5-bit values; p: j lies in this lane's segment (up: j >= maxLane, else
 * j <= maxLane), otherwise the lane reads its own value. */
LLVMValueRef lanes_shfl(emit_ctx *E, const lane_ops *L, LLVMValueRef *a) {
    unsigned mode = (unsigned)LLVMConstIntGetZExtValue(a[1]);
    LLVMValueRef lane = L->laneid(E);
    LLVMValueRef bval = LLVMBuildAnd(BLD, a[3], c32(E, 31), "");
    LLVMValueRef cval = LLVMBuildAnd(BLD, a[4], c32(E, 31), "");
    LLVMValueRef seg = LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, a[4], c32(E, 8), ""), c32(E, 31), "");
    LLVMValueRef nseg = LLVMBuildXor(BLD, seg, c32(E, 31), "");
    LLVMValueRef maxl = LLVMBuildOr(BLD, LLVMBuildAnd(BLD, lane, seg, ""), LLVMBuildAnd(BLD, cval, nseg, ""), "");
    LLVMValueRef minl = LLVMBuildAnd(BLD, lane, seg, "");
    LLVMValueRef j, p;
    switch (mode) {
    case P2N_SHFL_UP:
        j = LLVMBuildSub(BLD, lane, bval, "");
        p = LLVMBuildICmp(BLD, LLVMIntSGE, j, maxl, "");
        break;
    case P2N_SHFL_DOWN:
        j = LLVMBuildAdd(BLD, lane, bval, "");
        p = LLVMBuildICmp(BLD, LLVMIntSLE, j, maxl, "");
        break;
    case P2N_SHFL_BFLY:
        j = LLVMBuildXor(BLD, lane, bval, "");
        p = LLVMBuildICmp(BLD, LLVMIntSLE, j, maxl, "");
        break;
    default:
        j = LLVMBuildOr(BLD, minl, LLVMBuildAnd(BLD, bval, nseg, ""), "");
        p = LLVMBuildICmp(BLD, LLVMIntSLE, j, maxl, "");
        break;
    }
    /* j is a lane of the warp without a mask: lane, minl and maxl are in [0, 31]; where p holds, up gives
     * maxl <= j <= lane (signed compare, so a negative j fails), down j <= maxl, idx and bfly combine 5-bit
     * values; otherwise j = lane. (A `& 31` here cost a v_and per shuffle on AMDGPU that LLVM cannot prove
     * redundant.) */
    j = LLVMBuildSelect(BLD, p, j, lane, "");
    LLVMValueRef r = L->read_lane(E, a[2], j);
    LLVMBuildStore(BLD, LLVMBuildZExt(BLD, p, E->i32, ""), a[6]);
    return r;
}

static unsigned wg_scope(emit_ctx *E) { return LLVMGetSyncScopeID(E->C, "workgroup", 9); }

/* if (this lane leads its group) *w op= v */
static void group_leader_rmw(emit_ctx *E, const lane_ops *L, LLVMValueRef w, LLVMValueRef v, LLVMAtomicRMWBinOp op) {
    LLVMValueRef lead;
    if (L->group_leader) lead = L->group_leader(E);
    else {
        LLVMValueRef first = lanes_cttz32(E, L->ballot(E, ci(E->i1, 1)));
        lead = LLVMBuildICmp(BLD, LLVMIntEQ, L->laneid(E), first, "");
    }
    LLVMBasicBlockRef yes = new_bb(E, "red.leader"), join = new_bb(E, "red.join");
    LLVMBuildCondBr(BLD, lead, yes, join);
    LLVMPositionBuilderAtEnd(BLD, yes);
    LLVMBuildAtomicRMWSyncScope(BLD, op, w, v, LLVMAtomicOrderingMonotonic, wg_scope(E));
    LLVMBuildBr(BLD, join);
    LLVMPositionBuilderAtEnd(BLD, join);
}

/* bar.red by counting: after the first barrier everyone reads the total; after the second (nobody reads any
 * more) each group takes its part back out, so the word is 0 again for the next bar.red without a reset race. */
LLVMValueRef lanes_barrier_red(emit_ctx *E, const lane_ops *L, LLVMValueRef *a) {
    unsigned op = (unsigned)LLVMConstIntGetZExtValue(a[3]);
    LLVMValueRef p = LLVMBuildICmp(BLD, op == P2N_RED_AND ? LLVMIntEQ : LLVMIntNE, a[4], c32(E, 0), "");
    LLVMValueRef part = L->group_count ? L->group_count(E, p)
                                       : intrin(E, "llvm.ctpop", &E->i32, 1, (LLVMValueRef[]){L->ballot(E, p)}, 1);
    LLVMValueRef w = L->sync_word(E, LANES_WORD_RED, a[1]);
    group_leader_rmw(E, L, w, part, LLVMAtomicRMWBinOpAdd);
    L->red_barrier(E, a[1], a[2]);
    LLVMValueRef tot = LLVMBuildLoad2(BLD, E->i32, w, "");
    LLVMSetOrdering(tot, LLVMAtomicOrderingMonotonic);
    LLVMSetAtomicSyncScopeID(tot, wg_scope(E));
    LLVMSetAlignment(tot, 4);
    L->red_barrier(E, a[1], a[2]);
    group_leader_rmw(E, L, w, part, LLVMAtomicRMWBinOpSub);
    if (op == P2N_RED_POPC) return tot;
    return LLVMBuildZExt(BLD, LLVMBuildICmp(BLD, op == P2N_RED_AND ? LLVMIntEQ : LLVMIntNE, tot, c32(E, 0), ""), E->i32, "");
}

static void wg_fence(emit_ctx *E, LLVMAtomicOrdering o) {
    LLVMBuildFenceSyncScope(BLD, o, LLVMGetSyncScopeID(E->C, "workgroup", 9), "");
}

/* Word = generation << 16 | arrived threads. As on NVIDIA a warp arrives as 32 threads: its lowest active lane
 * adds 32; the arrival that reaches the expected count resets the count and bumps the generation in one atomic
 * add; waiters poll the generation. cnt 0 = all threads of the CTA rounded up to whole warps. Exited warps never
 * arrive. The spin-wait needs forward progress between warps (the callers diagnose devices without it); on
 * wave64 both CUDA warps of a wave take one path at a time, so a warp waiting for the other warp of its own wave
 * hangs (docs/amdgpu.md). */
void lanes_count_barrier(emit_ctx *E, const lane_ops *L, LLVMValueRef id, LLVMValueRef cnt, bool wait) {
    unsigned wg = LLVMGetSyncScopeID(E->C, "workgroup", 9);
    LLVMValueRef nt = LLVMBuildMul(BLD, ctx_field(E, CTX_NTID, E->i32), ctx_field(E, CTX_NTID + 4, E->i32), "");
    nt = LLVMBuildMul(BLD, nt, ctx_field(E, CTX_NTID + 8, E->i32), "");
    nt = LLVMBuildAnd(BLD, LLVMBuildAdd(BLD, nt, c32(E, 31), ""), c32(E, ~31u), "");
    LLVMValueRef expected = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, cnt, c32(E, 0), ""), nt, cnt);
    LLVMValueRef w = L->sync_word(E, LANES_WORD_BAR, id);
    wg_fence(E, LLVMAtomicOrderingRelease);
    LLVMValueRef leader_lane = lanes_cttz32(E, L->ballot(E, ci(E->i1, 1)));
    LLVMValueRef leader = LLVMBuildICmp(BLD, LLVMIntEQ, L->laneid(E), leader_lane, "");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(BLD), arr = new_bb(E, "bar.arrive"), rst = new_bb(E, "bar.reset"),
                      arrived = new_bb(E, "bar.arrived"), join = new_bb(E, "bar.join");
    LLVMBuildCondBr(BLD, leader, arr, join);
    LLVMPositionBuilderAtEnd(BLD, arr);
    LLVMValueRef old =
        LLVMBuildAtomicRMWSyncScope(BLD, LLVMAtomicRMWBinOpAdd, w, c32(E, 32), LLVMAtomicOrderingAcquireRelease, wg);
    LLVMValueRef g = LLVMBuildLShr(BLD, old, c32(E, 16), "");
    LLVMValueRef now = LLVMBuildAdd(BLD, LLVMBuildAnd(BLD, old, c32(E, 0xffff), ""), c32(E, 32), "");
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, now, expected, ""), rst, arrived);
    LLVMPositionBuilderAtEnd(BLD, rst);
    LLVMBuildAtomicRMWSyncScope(BLD, LLVMAtomicRMWBinOpAdd, w, LLVMBuildSub(BLD, c32(E, 0x10000), expected, ""),
                                LLVMAtomicOrderingAcquireRelease, wg);
    LLVMBuildBr(BLD, arrived);
    LLVMPositionBuilderAtEnd(BLD, arrived);
    LLVMBuildBr(BLD, join);
    LLVMPositionBuilderAtEnd(BLD, join);
    if (!wait) return;
    LLVMValueRef gen = LLVMBuildPhi(BLD, E->i32, "");
    LLVMAddIncoming(gen, (LLVMValueRef[]){c32(E, 0), g}, (LLVMBasicBlockRef[]){pre, arrived}, 2);
    gen = L->read_lane(E, gen, leader_lane); /* the generation this warp arrived in, from its leader */
    LLVMBasicBlockRef poll = new_bb(E, "bar.poll"), out = new_bb(E, "bar.done");
    LLVMBasicBlockRef nap = L->pause ? new_bb(E, "bar.sleep") : poll;
    LLVMBuildBr(BLD, poll);
    LLVMPositionBuilderAtEnd(BLD, poll);
    LLVMValueRef cur = LLVMBuildLoad2(BLD, E->i32, w, "");
    LLVMSetOrdering(cur, LLVMAtomicOrderingMonotonic);
    LLVMSetAtomicSyncScopeID(cur, wg);
    LLVMSetAlignment(cur, 4);
    LLVMValueRef moved = LLVMBuildICmp(BLD, LLVMIntNE, LLVMBuildLShr(BLD, cur, c32(E, 16), ""), gen, "");
    LLVMBuildCondBr(BLD, moved, out, nap);
    if (L->pause) {
        LLVMPositionBuilderAtEnd(BLD, nap);
        L->pause(E);
        LLVMBuildBr(BLD, poll);
    }
    LLVMPositionBuilderAtEnd(BLD, out);
    wg_fence(E, LLVMAtomicOrderingAcquire);
}
