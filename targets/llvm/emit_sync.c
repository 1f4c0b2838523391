/* emit_sync.c — special registers, barriers, fences, atomics (atom/red), warp operations through the
 * runtime table (host_abi.h). */
#include <string.h>

#include "emit.h"
#include "emit_atom.h"
#include "../ptx2native.h"
#include "host_abi.h"

#define BLD E->B

/* ---------------------------------------------------------------- special registers */

LLVMValueRef emit_sreg(emit_ctx *E, const ir_operand *o);
LLVMValueRef emit_sreg(emit_ctx *E, const ir_operand *o) {
    unsigned comp = o->aux;
    LLVMValueRef a1[1] = {E->ctx};
    switch ((ir_sreg)o->id) {
    case IR_SR_TID: case IR_SR_NTID: case IR_SR_CTAID: case IR_SR_NCTAID: {
        unsigned base = o->id == IR_SR_TID ? CTX_TID : o->id == IR_SR_NTID ? CTX_NTID : o->id == IR_SR_CTAID ? CTX_CTAID : CTX_NCTAID;
        if (comp < 1 || comp > 4) { emit_unsupported(E, "special register without a component"); return c32(E, 0); }
        if (comp == 4) return c32(E, 0);
        return ctx_field(E, base + 4 * (comp - 1), E->i32);
    }
    case IR_SR_LANEID: return ctx_field(E, CTX_LANEID, E->i32);
    case IR_SR_WARPID: return ctx_field(E, CTX_WARPID, E->i32);
    case IR_SR_NWARPID: return ctx_field(E, CTX_NWARPID, E->i32);
    case IR_SR_SMID: return rt_call(E, RT_SMID, E->i32, a1, 1);
    case IR_SR_NSMID: return c32(E, 1);
    case IR_SR_GRIDID: return c64(E, 0);
    case IR_SR_LANEMASK_EQ: case IR_SR_LANEMASK_LE: case IR_SR_LANEMASK_LT: case IR_SR_LANEMASK_GE:
    case IR_SR_LANEMASK_GT: {
        LLVMValueRef l = zext_to(E, ctx_field(E, CTX_LANEID, E->i32), E->i64);
        LLVMValueRef eq = LLVMBuildShl(BLD, c64(E, 1), l, "");
        LLVMValueRef lt = LLVMBuildSub(BLD, eq, c64(E, 1), "");
        LLVMValueRef le = LLVMBuildOr(BLD, lt, eq, "");
        LLVMValueRef v = o->id == IR_SR_LANEMASK_EQ ? eq : o->id == IR_SR_LANEMASK_LT ? lt : o->id == IR_SR_LANEMASK_LE ? le
                       : o->id == IR_SR_LANEMASK_GE ? LLVMBuildNot(BLD, lt, "") : LLVMBuildNot(BLD, le, "");
        return LLVMBuildTrunc(BLD, v, E->i32, "");
    }
    case IR_SR_CLOCK: return LLVMBuildTrunc(BLD, rt_call(E, RT_CLOCK64, E->i64, a1, 1), E->i32, "");
    case IR_SR_CLOCK_HI:
        return LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, rt_call(E, RT_CLOCK64, E->i64, a1, 1), c64(E, 32), ""), E->i32, "");
    case IR_SR_CLOCK64: return rt_call(E, RT_CLOCK64, E->i64, a1, 1);
    case IR_SR_GLOBALTIMER: return rt_call(E, RT_GLOBALTIMER, E->i64, a1, 1);
    case IR_SR_GLOBALTIMER_LO: return LLVMBuildTrunc(BLD, rt_call(E, RT_GLOBALTIMER, E->i64, a1, 1), E->i32, "");
    case IR_SR_GLOBALTIMER_HI:
        return LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, rt_call(E, RT_GLOBALTIMER, E->i64, a1, 1), c64(E, 32), ""), E->i32, "");
    case IR_SR_DYNAMIC_SMEM_SIZE: return ctx_field(E, CTX_DYN_SMEM, E->i32);
    case IR_SR_TOTAL_SMEM_SIZE: case IR_SR_AGGR_SMEM_SIZE: return ctx_field(E, CTX_SMEM_SIZE, E->i32);
    /* every CTA is a cluster of one */
    case IR_SR_CLUSTERID: case IR_SR_NCLUSTERID: {
        unsigned base = o->id == IR_SR_CLUSTERID ? CTX_CTAID : CTX_NCTAID;
        if (comp < 1 || comp > 4) return c32(E, 0);
        if (comp == 4) return c32(E, 0);
        return ctx_field(E, base + 4 * (comp - 1), E->i32);
    }
    case IR_SR_CLUSTER_CTAID: return c32(E, 0);
    case IR_SR_CLUSTER_NCTAID: return c32(E, comp == 4 ? 0 : 1);
    case IR_SR_CLUSTER_CTARANK: return c32(E, 0);
    case IR_SR_CLUSTER_NCTARANK: return c32(E, 1);
    case IR_SR_IS_EXPLICIT_CLUSTER: /* a kernel that names its cluster shape, or a launch that gave cluster dimensions */
        return LLVMBuildZExt(BLD, emit_cluster_launch(E), E->i32, "");
    case IR_SR_CURRENT_GRAPH_EXEC: return c64(E, 0);
    case IR_SR_ENVREG:
        /* %envreg1/%envreg2: the grid workspace's address (HIGH/low half: load_env_reg64<1, 2> of
         * cooperative_groups/details/driver_abi.h takes <HiReg, LoReg>; host_abi.h grid_workspace), what CUDA's
         * cooperative groups take for grid.sync(); the other environment registers are not used by CUDA's headers
         * (%envreg0 is loaded but read nowhere) and stay 0 */
        if (comp == 1 || comp == 2) {
            LLVMValueRef ws = ctx_field(E, CTX_GRID_WS, E->i64);
            if (comp == 1) ws = LLVMBuildLShr(BLD, ws, c64(E, 32), "");
            return LLVMBuildTrunc(BLD, ws, E->i32, "");
        }
        return c32(E, 0);
    case IR_SR_PM: case IR_SR_RESERVED_SMEM_OFFSET_BEGIN: case IR_SR_RESERVED_SMEM_OFFSET_END:
    case IR_SR_RESERVED_SMEM_OFFSET_CAP: case IR_SR_RESERVED_SMEM_OFFSET_0: case IR_SR_RESERVED_SMEM_OFFSET_1:
        return c32(E, 0);
    default: emit_unsupported(E, "special register"); return c32(E, 0);
    }
}

/* ---------------------------------------------------------------- scopes */

p2n_scope ins_scope(const ir_ins *ins, p2n_scope dflt) {
    if (ir_ins_has(ins, IR_M_CTA)) return P2N_SCOPE_CTA;
    if (ir_ins_has(ins, IR_M_CLUSTER)) return P2N_SCOPE_CLUSTER;
    if (ir_ins_has(ins, IR_M_GPU) || ir_ins_has(ins, IR_M_GL)) return P2N_SCOPE_GPU;
    if (ir_ins_has(ins, IR_M_SYS)) return P2N_SCOPE_SYS;
    return dflt;
}

unsigned scope_id(emit_ctx *E, p2n_scope s) {
    const char *n = E->t->syncscopes ? E->t->syncscopes[s] : "";
    return LLVMGetSyncScopeID(E->C, n, strlen(n));
}

static LLVMValueRef fence_in(emit_ctx *E, p2n_scope s) {
    return LLVMBuildFenceSyncScope(BLD, LLVMAtomicOrderingSequentiallyConsistent, scope_id(E, s), "");
}

/* The CTA fence on one side of bar/barrier: `acq_rel` (release before, acquire after) where the target asks for
 * it (target_hooks.barrier_acq_rel: the fence; s_barrier; fence pattern of the AMDGPU memory model, what HIP's
 * __syncthreads emits: gfx11 then needs no L0 invalidate before the barrier); a barrier every participant must
 * reach orders nothing more with seq_cst. Other targets keep seq_cst (the host's runtime call orders anyway;
 * SPIR-V consumers see the same fences as before). */
static void bar_fence(emit_ctx *E, LLVMAtomicOrdering acq_rel) {
    bool split = E->t->hooks && E->t->hooks->barrier_acq_rel;
    LLVMAtomicOrdering o = split ? acq_rel : LLVMAtomicOrderingSequentiallyConsistent;
    LLVMBuildFenceSyncScope(BLD, o, scope_id(E, P2N_SCOPE_CTA), "");
}

/* ---------------------------------------------------------------- atomics */

/* the LLVM read-modify-write operation of a PTX atom/red operation (isf: float data, s: signed integer data);
 * false for operations atomicrmw has none for (cas); which ones apply to floats the callers check */
static bool rmw_binop(ir_mod op, bool isf, bool s, LLVMAtomicRMWBinOp *bop) {
    switch (op) {
    case IR_M_AND: *bop = LLVMAtomicRMWBinOpAnd; return true;
    case IR_M_OR: *bop = LLVMAtomicRMWBinOpOr; return true;
    case IR_M_XOR: *bop = LLVMAtomicRMWBinOpXor; return true;
    case IR_M_EXCH: *bop = LLVMAtomicRMWBinOpXchg; return true;
    case IR_M_ADD: *bop = isf ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd; return true;
    case IR_M_INC: *bop = LLVMAtomicRMWBinOpUIncWrap; return true;
    case IR_M_DEC: *bop = LLVMAtomicRMWBinOpUDecWrap; return true;
    case IR_M_MIN: *bop = isf ? LLVMAtomicRMWBinOpFMin : s ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin; return true;
    case IR_M_MAX: *bop = isf ? LLVMAtomicRMWBinOpFMax : s ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax; return true;
    default: return false;
    }
}

static bool emit_atom(emit_ctx *E, const ir_ins *ins) {
    bool red = ins->op == IR_OP_RED;
    const ir_operand *o = ins->ops;
    const ir_operand *dst = red ? NULL : &o[0], *addr = red ? &o[0] : &o[1];
    const ir_operand *ob = red ? &o[1] : &o[2], *oc = (!red && ins->nops > 3) ? &o[3] : NULL;
    ir_type t = ir_ins_type(ins, 0);
    if (ir_ins_has(ins, IR_M_V2) || ir_ins_has(ins, IR_M_V4) || ir_ins_has(ins, IR_M_V8))
        return emit_atom_vector(E, ins); /* emit_atom_vector.c */
    if (t == IR_T_B128) return emit_atom_b128(E, ins); /* emit_atom_b128.c */
    if (t == IR_T_NONE) return false;
    static const ir_mod ops[] = {IR_M_AND, IR_M_OR, IR_M_XOR, IR_M_EXCH, IR_M_ADD, IR_M_INC, IR_M_DEC, IR_M_MIN,
                                 IR_M_MAX, IR_M_CAS};
    ir_mod op = IR_M_NONE;
    for (unsigned k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (ir_ins_has(ins, ops[k])) { op = ops[k]; break; }
    if (op == IR_M_NONE) return false;
    LLVMAtomicOrdering ord = atom_ordering(ins);
    unsigned ssid = scope_id(E, ins_scope(ins, P2N_SCOPE_GPU)); /* atom/red without a scope are .gpu */
    LLVMValueRef p = mem_addr(E, addr, ir_ins_space(ins));
    bool isf = t_float(t);
    if (t == IR_T_F16 || t == IR_T_BF16 || t == IR_T_F16X2 || t == IR_T_BF16X2) {
        if (op != IR_M_ADD && op != IR_M_MIN && op != IR_M_MAX) {
            if (op != IR_M_EXCH && op != IR_M_CAS) return false;
        } else {
            LLVMValueRef b = rd(E, ob, tbits(t) == 16 ? IR_T_B16 : IR_T_B32);
            LLVMValueRef old = atom_half_rmw(E, p, tbits(t) / 16, t == IR_T_BF16 || t == IR_T_BF16X2, op, b, ord, ssid);
            if (dst) wr(E, dst, tbits(t) == 16 ? IR_T_B16 : IR_T_B32, old);
            return true;
        }
    }
    ir_type vt = isf ? t : t;
    if (op == IR_M_CAS) {
        ir_type it = tbits(t) == 16 ? IR_T_B16 : tbits(t) == 32 ? IR_T_B32 : IR_T_B64;
        LLVMValueRef cmp = rd(E, ob, it), nv = rd(E, oc ? oc : ob, it);
        LLVMValueRef cx = LLVMBuildAtomicCmpXchgSyncScope(BLD, p, cmp, nv,
                                                          ord == LLVMAtomicOrderingMonotonic ? ord : LLVMAtomicOrderingSequentiallyConsistent,
                                                          LLVMAtomicOrderingMonotonic, ssid);
        if (dst) wr(E, dst, it, LLVMBuildExtractValue(BLD, cx, 0, ""));
        return true;
    }
    LLVMAtomicRMWBinOp bop;
    bool s = t_signed(t);
    if (!rmw_binop(op, isf, s, &bop)) return false;
    if (isf && op != IR_M_ADD && op != IR_M_EXCH && op != IR_M_MIN && op != IR_M_MAX) return false;
    if (isf && op == IR_M_EXCH) vt = tbits(t) == 32 ? IR_T_B32 : IR_T_B64;
    LLVMValueRef b = rd(E, ob, vt);
    LLVMValueRef r = t == IR_T_F32 && op == IR_M_ADD ? atom_add_f32(E, p, ir_ins_space(ins), b, ord, ssid)
                                                     : LLVMBuildAtomicRMWSyncScope(BLD, bop, p, b, ord, ssid);
    if (dst) wr(E, dst, vt, r);
    return true;
}


/* ---------------------------------------------------------------- mbarrier
 * A 64-bit object in memory: bits 0..19 pending arrivals, 20..39 expected arrivals, 40..62 pending
 * transaction bytes, bit 63 the phase. The phase completes when arrivals and transactions both reach zero;
 * the state token handed to test_wait/try_wait is the object's value before the arrival. */
enum { MB_PEND_MASK = 0xfffff, MB_EXP_SHIFT = 20, MB_TX_SHIFT = 40 };

typedef struct mb_arg { LLVMValueRef arrive, tx_add, drop; } mb_arg;

static LLVMValueRef mb_combine(emit_ctx *E, LLVMValueRef old, const void *arg) {
    const mb_arg *a = arg;
    LLVMValueRef pend = LLVMBuildAnd(BLD, old, c64(E, MB_PEND_MASK), "");
    LLVMValueRef exp = LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, old, c64(E, MB_EXP_SHIFT), ""), c64(E, MB_PEND_MASK), "");
    LLVMValueRef tx = LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, old, c64(E, MB_TX_SHIFT), ""), c64(E, 0x7fffff), "");
    LLVMValueRef phase = LLVMBuildLShr(BLD, old, c64(E, 63), "");
    pend = LLVMBuildAnd(BLD, LLVMBuildSub(BLD, pend, a->arrive, ""), c64(E, MB_PEND_MASK), "");
    exp = sel(E, a->drop, LLVMBuildAnd(BLD, LLVMBuildSub(BLD, exp, a->arrive, ""), c64(E, MB_PEND_MASK), ""), exp);
    tx = LLVMBuildAnd(BLD, LLVMBuildAdd(BLD, tx, a->tx_add, ""), c64(E, 0x7fffff), "");
    LLVMValueRef complete = LLVMBuildAnd(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, pend, c64(E, 0), ""),
                                         LLVMBuildICmp(BLD, LLVMIntEQ, tx, c64(E, 0), ""), "");
    pend = sel(E, complete, exp, pend);
    phase = sel(E, complete, LLVMBuildXor(BLD, phase, c64(E, 1), ""), phase);
    LLVMValueRef nv = LLVMBuildOr(BLD, pend, LLVMBuildShl(BLD, exp, c64(E, MB_EXP_SHIFT), ""), "");
    nv = LLVMBuildOr(BLD, nv, LLVMBuildShl(BLD, tx, c64(E, MB_TX_SHIFT), ""), "");
    return LLVMBuildOr(BLD, nv, LLVMBuildShl(BLD, phase, c64(E, 63), ""), "");
}

static LLVMValueRef mb_update(emit_ctx *E, LLVMValueRef p, LLVMValueRef arrive, LLVMValueRef tx_add, LLVMValueRef drop) {
    /* arrive: arrivals to subtract (i64); tx_add: transaction bytes to add (i64, may be negative);
     * drop: also lower the expected count by `arrive`. Returns the old value. .shared::cta objects: CTA scope. */
    mb_arg a = {arrive, tx_add, drop};
    return cas_rmw(E, p, 8, LLVMAtomicOrderingAcquireRelease, scope_id(E, P2N_SCOPE_CTA), mb_combine, &a);
}

/* transaction bytes completed on the mbarrier at p by an asynchronous copy/store/reduction (emit_cluster.c) */
void emit_mbarrier_complete_tx(emit_ctx *E, LLVMValueRef p, LLVMValueRef bytes) {
    mb_update(E, p, c64(E, 0), LLVMBuildNeg(BLD, zext_to(E, bytes, E->i64), ""), ci(E->i1, 0));
}

/* one atomic read-modify-write of PTX operation op (.add .min .max .inc .dec .and .or .xor .exch) on type t, as
 * atom/red do it (f16/bf16 through a compare-exchange loop); NULL when the combination has no lowering */
LLVMValueRef emit_atomic_rmw(emit_ctx *E, LLVMValueRef p, ir_type t, ir_mod op, LLVMValueRef v, unsigned ssid) {
    LLVMAtomicOrdering ord = LLVMAtomicOrderingMonotonic;
    if (t == IR_T_F16 || t == IR_T_BF16) {
        if (op != IR_M_ADD && op != IR_M_MIN && op != IR_M_MAX) return NULL;
        return atom_half_rmw(E, p, 1, t == IR_T_BF16, op, v, ord, ssid);
    }
    bool isf = t_float(t), s = t_signed(t);
    LLVMAtomicRMWBinOp bop;
    if (!rmw_binop(op, isf, s, &bop)) return NULL;
    if (isf && op != IR_M_ADD) return NULL;
    if (!isf && tbits(t) != 32 && tbits(t) != 64) return NULL;
    return LLVMBuildAtomicRMWSyncScope(BLD, bop, p, v, ord, ssid);
}

static bool emit_mbarrier(emit_ctx *E, const ir_ins *ins) {
    const ir_operand *o = ins->ops;
    ir_space sp = ir_ins_space(ins);
    switch ((ir_opcode)ins->op) {
    case IR_OP_MBARRIER_INIT: {
        LLVMValueRef p = addr_of(E, &o[0], sp);
        LLVMValueRef n = LLVMBuildAnd(BLD, zext_to(E, rd(E, &o[1], IR_T_U32), E->i64), c64(E, MB_PEND_MASK), "");
        LLVMValueRef v = LLVMBuildOr(BLD, n, LLVMBuildShl(BLD, n, c64(E, MB_EXP_SHIFT), ""), "");
        LLVMValueRef s = LLVMBuildStore(BLD, v, p);
        LLVMSetOrdering(s, LLVMAtomicOrderingRelease);
        LLVMSetAtomicSyncScopeID(s, scope_id(E, P2N_SCOPE_CTA));
        LLVMSetAlignment(s, 8);
        return true;
    }
    case IR_OP_MBARRIER_INVAL: return true;
    case IR_OP_CP_ASYNC_MBARRIER_ARRIVE:
        if (!ir_ins_has(ins, IR_M_NOINC)) return true; /* copies are already complete: +1 then -1 */
        mb_update(E, addr_of(E, &o[0], sp), c64(E, 1), c64(E, 0), ci(E->i1, 0));
        return true;
    case IR_OP_MBARRIER_EXPECT_TX:
    case IR_OP_MBARRIER_COMPLETE_TX: {
        LLVMValueRef n = zext_to(E, rd(E, &o[1], IR_T_U32), E->i64);
        if (ins->op == IR_OP_MBARRIER_COMPLETE_TX) n = LLVMBuildNeg(BLD, n, "");
        mb_update(E, addr_of(E, &o[0], sp), c64(E, 0), n, ci(E->i1, 0));
        return true;
    }
    case IR_OP_MBARRIER_ARRIVE:
    case IR_OP_MBARRIER_ARRIVE_DROP: {
        /* mbarrier.arrive{.expect_tx}{.noComplete} state, [addr]{, count or txCount} */
        bool has_state = o[0].kind != IR_OPND_ADDR;
        const ir_operand *addr = has_state ? &o[1] : &o[0];
        unsigned next = has_state ? 2 : 1;
        LLVMValueRef cnt = c64(E, 1), tx = c64(E, 0);
        if (ir_ins_has(ins, IR_M_EXPECT_TX)) {
            if (ins->nops > next) tx = zext_to(E, rd(E, &o[next], IR_T_U32), E->i64);
        } else if (ins->nops > next) cnt = zext_to(E, rd(E, &o[next], IR_T_U32), E->i64);
        LLVMValueRef p = addr_of(E, addr, sp);
        LLVMValueRef old = tx != c64(E, 0) || ir_ins_has(ins, IR_M_EXPECT_TX)
                               ? (mb_update(E, p, c64(E, 0), tx, ci(E->i1, 0)), mb_update(E, p, cnt, c64(E, 0), ci(E->i1, ins->op == IR_OP_MBARRIER_ARRIVE_DROP)))
                               : mb_update(E, p, cnt, c64(E, 0), ci(E->i1, ins->op == IR_OP_MBARRIER_ARRIVE_DROP));
        if (has_state) wr(E, &o[0], IR_T_B64, old);
        return true;
    }
    case IR_OP_MBARRIER_TEST_WAIT:
    case IR_OP_MBARRIER_TRY_WAIT: {
        LLVMValueRef p = addr_of(E, &o[1], sp);
        LLVMValueRef cur = LLVMBuildLoad2(BLD, E->i64, p, "");
        LLVMSetOrdering(cur, LLVMAtomicOrderingAcquire);
        LLVMSetAtomicSyncScopeID(cur, scope_id(E, P2N_SCOPE_CTA));
        LLVMSetAlignment(cur, 8);
        LLVMValueRef ph = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, cur, c64(E, 63), ""), E->i1, "");
        LLVMValueRef want = ir_ins_has(ins, IR_M_PARITY) ? LLVMBuildTrunc(BLD, rd(E, &o[2], IR_T_U32), E->i1, "")
                                                         : LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, rd(E, &o[2], IR_T_B64), c64(E, 63), ""), E->i1, "");
        LLVMValueRef done = LLVMBuildICmp(BLD, LLVMIntNE, ph, want, "");
        /* test_wait is a poll, which a kernel repeats while other threads arrive: where work-items of a group
         * run one after another the target counts the failed polls (RT_YIELD hook, spirv_barrier.c) */
        if (ins->op == IR_OP_MBARRIER_TRY_WAIT || (E->device_lacks & P2N_LACKS_FORWARD_PROGRESS)) {
            /* not complete yet: let the other threads run before the caller polls again */
            LLVMBasicBlockRef y = new_bb(E, "mbyield"), c = new_bb(E, "mbcont");
            LLVMBuildCondBr(BLD, done, c, y);
            LLVMPositionBuilderAtEnd(BLD, y);
            LLVMValueRef a[1] = {E->ctx};
            rt_call(E, RT_YIELD, E->vd, a, 1);
            LLVMBuildBr(BLD, c);
            LLVMPositionBuilderAtEnd(BLD, c);
            note_flags(E, P2N_KERNEL_MAY_SPIN);
        }
        wr(E, &o[0], IR_T_PRED, done);
        return true;
    }
    case IR_OP_MBARRIER_PENDING_COUNT:
        wr(E, &o[0], IR_T_U32, LLVMBuildTrunc(BLD, LLVMBuildAnd(BLD, rd(E, &o[1], IR_T_B64), c64(E, MB_PEND_MASK), ""), E->i32, ""));
        return true;
    default: return false;
    }
}

/* ---------------------------------------------------------------- barriers and warp operations */

static LLVMValueRef tmp_u32(emit_ctx *E) {
    LLVMValueRef a = LLVMBuildAlloca(E->AB, E->i32, "");
    return a;
}

static LLVMValueRef full_mask(emit_ctx *E) { return c32(E, 0xffffffff); }

bool emit_sync(emit_ctx *E, const ir_ins *ins) {
    const ir_operand *o = ins->ops;
    switch ((ir_opcode)ins->op) {
    case IR_OP_ATOM:
    case IR_OP_RED: return emit_atom(E, ins);
    case IR_OP_MBARRIER_INIT: case IR_OP_MBARRIER_INVAL: case IR_OP_MBARRIER_EXPECT_TX: case IR_OP_MBARRIER_COMPLETE_TX:
    case IR_OP_MBARRIER_ARRIVE: case IR_OP_MBARRIER_ARRIVE_DROP: case IR_OP_MBARRIER_TEST_WAIT:
    case IR_OP_MBARRIER_TRY_WAIT: case IR_OP_MBARRIER_PENDING_COUNT: case IR_OP_CP_ASYNC_MBARRIER_ARRIVE:
        /* .cluster scope and .shared::cluster objects: without cluster launch every block is a cluster of one,
         * so the object is this block's own (a shared::cluster address of it is its shared address: mapa) */
        return emit_mbarrier(E, ins);
    case IR_OP_MEMBAR:
    case IR_OP_FENCE:
        if (ir_ins_has(ins, IR_M_PROXY) || ir_ins_has(ins, IR_M_MBARRIER_INIT)) return true;
        fence_in(E, ins_scope(ins, P2N_SCOPE_SYS));
        return true;
    case IR_OP_BAR:
    case IR_OP_BARRIER: {
        note_flags(E, P2N_KERNEL_USES_BARRIERS);
        bool is_red = ir_ins_has(ins, IR_M_RED), arrive = ir_ins_has(ins, IR_M_ARRIVE);
        if (is_red) {
            unsigned n = ins->nops;
            if (n < 3) return false;
            LLVMValueRef id = rd(E, &o[1], IR_T_U32);
            LLVMValueRef cnt = n == 4 ? rd(E, &o[2], IR_T_U32) : c32(E, 0);
            LLVMValueRef pred = zext_to(E, rd(E, &o[n - 1], IR_T_PRED), E->i32);
            unsigned op = ir_ins_has(ins, IR_M_POPC) ? P2N_RED_POPC : ir_ins_has(ins, IR_M_AND) ? P2N_RED_AND : P2N_RED_OR;
            LLVMValueRef a[5] = {E->ctx, id, cnt, c32(E, op), pred};
            LLVMValueRef r = rt_call(E, RT_BARRIER_RED, E->i32, a, 5);
            if (op == P2N_RED_POPC) wr(E, &o[0], IR_T_U32, r);
            else wr(E, &o[0], IR_T_PRED, LLVMBuildICmp(BLD, LLVMIntNE, r, c32(E, 0), ""));
            return true;
        }
        LLVMValueRef id = ins->nops > 0 ? rd(E, &o[0], IR_T_U32) : c32(E, 0);
        LLVMValueRef cnt = ins->nops > 1 ? rd(E, &o[1], IR_T_U32) : c32(E, 0);
        bar_fence(E, LLVMAtomicOrderingRelease);
        LLVMValueRef a[4] = {E->ctx, id, cnt, c32(E, arrive ? 1 : 0)};
        rt_call(E, RT_BARRIER, E->vd, a, 4);
        bar_fence(E, LLVMAtomicOrderingAcquire);
        return true;
    }
    case IR_OP_BAR_WARP_SYNC: {
        note_flags(E, P2N_KERNEL_USES_WARP_OPS);
        LLVMValueRef a[2] = {E->ctx, rd(E, &o[0], IR_T_U32)};
        rt_call(E, RT_WARP_SYNC, E->vd, a, 2);
        return true;
    }
    case IR_OP_SHFL: {
        note_flags(E, P2N_KERNEL_USES_WARP_OPS);
        unsigned i = 0;
        const ir_operand *d = &o[i++], *p = NULL;
        if (i < ins->nops && (o[i].flags & IR_OPNDF_PIPE)) p = &o[i++];
        if (ins->nops < i + 3) return false;
        unsigned mode = ir_ins_has(ins, IR_M_UP) ? P2N_SHFL_UP : ir_ins_has(ins, IR_M_DOWN) ? P2N_SHFL_DOWN
                      : ir_ins_has(ins, IR_M_BFLY) ? P2N_SHFL_BFLY : P2N_SHFL_IDX;
        LLVMValueRef mask = ins->nops > i + 3 ? rd(E, &o[i + 3], IR_T_U32) : full_mask(E);
        LLVMValueRef inr = tmp_u32(E);
        LLVMValueRef a[7] = {E->ctx, c32(E, mode), rd(E, &o[i], IR_T_B32), rd(E, &o[i + 1], IR_T_U32),
                             rd(E, &o[i + 2], IR_T_U32), mask, inr};
        LLVMValueRef r = rt_call(E, RT_SHFL, E->i32, a, 7);
        wr(E, d, IR_T_B32, r);
        if (p) wr(E, p, IR_T_PRED, LLVMBuildICmp(BLD, LLVMIntNE, LLVMBuildLoad2(BLD, E->i32, inr, ""), c32(E, 0), ""));
        return true;
    }
    case IR_OP_VOTE: {
        note_flags(E, P2N_KERNEL_USES_WARP_OPS);
        unsigned mode = ir_ins_has(ins, IR_M_ALL) ? P2N_VOTE_ALL : ir_ins_has(ins, IR_M_ANY) ? P2N_VOTE_ANY
                      : ir_ins_has(ins, IR_M_UNI) ? P2N_VOTE_UNI : P2N_VOTE_BALLOT;
        LLVMValueRef mask = ins->nops > 2 ? rd(E, &o[2], IR_T_U32) : full_mask(E);
        LLVMValueRef a[4] = {E->ctx, c32(E, mode), zext_to(E, rd(E, &o[1], IR_T_PRED), E->i32), mask};
        LLVMValueRef r = rt_call(E, RT_VOTE, E->i32, a, 4);
        if (mode == P2N_VOTE_BALLOT) wr(E, &o[0], IR_T_B32, r);
        else wr(E, &o[0], IR_T_PRED, LLVMBuildICmp(BLD, LLVMIntNE, r, c32(E, 0), ""));
        return true;
    }
    case IR_OP_MATCH: {
        note_flags(E, P2N_KERNEL_USES_WARP_OPS);
        unsigned i = 0;
        const ir_operand *d = &o[i++], *p = NULL;
        if (i < ins->nops && (o[i].flags & IR_OPNDF_PIPE)) p = &o[i++];
        if (ins->nops < i + 2) return false;
        ir_type t = ir_ins_type(ins, 0);
        LLVMValueRef v = zext_to(E, rd(E, &o[i], tbits(t) == 64 ? IR_T_B64 : IR_T_B32), E->i64);
        LLVMValueRef mask = rd(E, &o[i + 1], IR_T_U32);
        if (ir_ins_has(ins, IR_M_ALL)) {
            LLVMValueRef pp = tmp_u32(E);
            LLVMValueRef a[4] = {E->ctx, v, mask, pp};
            wr(E, d, IR_T_B32, rt_call(E, RT_MATCH_ALL, E->i32, a, 4));
            if (p) wr(E, p, IR_T_PRED, LLVMBuildICmp(BLD, LLVMIntNE, LLVMBuildLoad2(BLD, E->i32, pp, ""), c32(E, 0), ""));
        } else {
            LLVMValueRef a[3] = {E->ctx, v, mask};
            wr(E, d, IR_T_B32, rt_call(E, RT_MATCH_ANY, E->i32, a, 3));
        }
        return true;
    }
    case IR_OP_REDUX: {
        note_flags(E, P2N_KERNEL_USES_WARP_OPS);
        ir_type t = ir_ins_type(ins, 0);
        if (t_float(t) || tbits(t) != 32) return false;
        bool s = t_signed(t);
        unsigned op = ir_ins_has(ins, IR_M_ADD) ? P2N_REDUX_ADD : ir_ins_has(ins, IR_M_MIN) ? (s ? P2N_REDUX_MIN : P2N_REDUX_UMIN)
                    : ir_ins_has(ins, IR_M_MAX) ? (s ? P2N_REDUX_MAX : P2N_REDUX_UMAX) : ir_ins_has(ins, IR_M_AND) ? P2N_REDUX_AND
                    : ir_ins_has(ins, IR_M_OR) ? P2N_REDUX_OR : P2N_REDUX_XOR;
        LLVMValueRef a[4] = {E->ctx, c32(E, op), rd(E, &o[1], IR_T_B32), rd(E, &o[2], IR_T_U32)};
        wr(E, &o[0], IR_T_B32, rt_call(E, RT_REDUX, E->i32, a, 4));
        return true;
    }
    case IR_OP_ACTIVEMASK: {
        note_flags(E, P2N_KERNEL_USES_WARP_OPS);
        LLVMValueRef a[1] = {E->ctx};
        wr(E, &o[0], IR_T_B32, rt_call(E, RT_ACTIVEMASK, E->i32, a, 1));
        return true;
    }
    case IR_OP_ELECT: {
        note_flags(E, P2N_KERNEL_USES_WARP_OPS);
        unsigned i = 0;
        const ir_operand *d = &o[i++], *p = NULL;
        if (i < ins->nops && (o[i].flags & IR_OPNDF_PIPE)) p = &o[i++];
        if (ins->nops < i + 1) return false;
        LLVMValueRef pp = tmp_u32(E);
        LLVMValueRef a[3] = {E->ctx, rd(E, &o[i], IR_T_U32), pp};
        LLVMValueRef r = rt_call(E, RT_ELECT, E->i32, a, 3);
        wr(E, d, IR_T_B32, r);
        if (p) wr(E, p, IR_T_PRED, LLVMBuildICmp(BLD, LLVMIntNE, LLVMBuildLoad2(BLD, E->i32, pp, ""), c32(E, 0), ""));
        return true;
    }
    case IR_OP_NANOSLEEP: {
        LLVMValueRef a[1] = {E->ctx};
        rt_call(E, RT_YIELD, E->vd, a, 1);
        return true;
    }
    case IR_OP_PMEVENT:
    case IR_OP_GRIDDEPCONTROL:
    case IR_OP_SETMAXNREG: return true;
    case IR_OP_BARRIER_CLUSTER: {
        /* a cluster is one CTA: arrive + wait is a block barrier at the wait */
        note_flags(E, P2N_KERNEL_USES_BARRIERS);
        if (ir_ins_has(ins, IR_M_ARRIVE)) {
            fence_in(E, P2N_SCOPE_CLUSTER);
            return true;
        }
        LLVMValueRef a[4] = {E->ctx, c32(E, 0), c32(E, 0), c32(E, 0)};
        rt_call(E, RT_BARRIER, E->vd, a, 4);
        fence_in(E, P2N_SCOPE_CLUSTER);
        return true;
    }
    default: return false;
    }
}
