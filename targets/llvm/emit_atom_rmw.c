/* emit_atom_rmw.c — atomic read-modify-write operations that no target has as one instruction with PTX's
 * semantics, built as compare-exchange loops in the shared emission (every target):
 *  - 16-bit float lanes (atom/red .f16 .bf16 .f16x2 .bf16x2 .add/.min/.max .noftz, their vector forms, multimem,
 *    red.async / cp.reduce.async.bulk): .add rounds once to nearest even (f16/bf16 + f16/bf16 is exact in f32, which
 *    has more than 2p+2 bits for both formats, then rounded once) and keeps subnormals (.noftz); .min/.max follow
 *    PTX's min/max (-0 < +0, a NaN operand gives the other one, two NaNs the canonical NaN 0x7fff; H200: conformance
 *    atom/vec_minmax_special), compared as integers so no target floating-point mode can flush a bf16 subnormal;
 *  - atom/red .add.f32 outside shared memory, which flushes subnormal inputs and results to sign-preserving zero
 *    (PTX ISA, atom; H200: conformance atom/add_f32_subnormal — global scalar, red and .v2 forms flush, an
 *    atom.shared.add.f32 keeps them, as AMD's LDS atomics do). No target's atomicrmw fadd gives those bits on
 *    global memory: the host and SPIR-V keep subnormals, AMD's global float add keeps them on gfx942/gfx11+ and
 *    flushes on gfx90a (docs/atomics.md).
 * The loop (cas_rmw, also mbarrier's state update in emit_sync.c): one relaxed load, then compare-exchange of
 * combine(old) until it succeeds; the old value is returned. */
#include <string.h>

#include "emit_atom.h"

#define BLD E->B

LLVMAtomicOrdering atom_ordering(const ir_ins *ins) {
    if (ir_ins_has(ins, IR_M_ACQ_REL)) return LLVMAtomicOrderingAcquireRelease;
    if (ir_ins_has(ins, IR_M_ACQUIRE)) return LLVMAtomicOrderingAcquire;
    if (ir_ins_has(ins, IR_M_RELEASE)) return LLVMAtomicOrderingRelease;
    if (ir_ins_has(ins, IR_M_SC)) return LLVMAtomicOrderingSequentiallyConsistent;
    return LLVMAtomicOrderingMonotonic;
}

LLVMAtomicOrdering atom_cas_ordering(LLVMAtomicOrdering ord) {
    return ord == LLVMAtomicOrderingMonotonic ? ord : LLVMAtomicOrderingSequentiallyConsistent;
}

static LLVMValueRef is_nan16(emit_ctx *E, LLVMValueRef h, bool bf) {
    LLVMValueRef mag = LLVMBuildAnd(BLD, h, ci(E->i16, 0x7fff), "");
    return LLVMBuildICmp(BLD, LLVMIntUGT, mag, ci(E->i16, bf ? 0x7f80 : 0x7c00), "");
}

/* a key whose unsigned order is the numeric order of 16-bit IEEE patterns (not NaN), -0 just below +0:
 * negative values bit-inverted, non-negative ones with the sign bit set */
static LLVMValueRef order_key(emit_ctx *E, LLVMValueRef h) {
    LLVMValueRef neg = LLVMBuildICmp(BLD, LLVMIntSLT, h, ci(E->i16, 0), "");
    return sel(E, neg, LLVMBuildNot(BLD, h, ""), LLVMBuildOr(BLD, h, ci(E->i16, 0x8000), ""));
}

/* one lane: x (memory) op y (operand), i16 bits in and out */
static LLVMValueRef half_lane(emit_ctx *E, ir_mod op, bool bf, LLVMValueRef x, LLVMValueRef y) {
    if (op == IR_M_ADD) {
        LLVMValueRef s = LLVMBuildFAdd(BLD, half_to_float(E, x, bf), half_to_float(E, y, bf), "");
        return float_to_half(E, s, bf, IR_M_RN, false, false); /* NaN -> 0x7fff */
    }
    LLVMValueRef take_x = LLVMBuildICmp(BLD, op == IR_M_MIN ? LLVMIntULE : LLVMIntUGE, order_key(E, x), order_key(E, y), "");
    LLVMValueRef r = sel(E, take_x, x, y);
    LLVMValueRef xn = is_nan16(E, x, bf), yn = is_nan16(E, y, bf);
    r = sel(E, xn, y, sel(E, yn, x, r));
    return sel(E, LLVMBuildAnd(BLD, xn, yn, ""), ci(E->i16, 0x7fff), r);
}


LLVMValueRef cas_rmw(emit_ctx *E, LLVMValueRef p, unsigned bytes, LLVMAtomicOrdering success, unsigned ssid,
                     rmw_combine combine, const void *arg) {
    LLVMTypeRef it = LLVMIntTypeInContext(E->C, 8 * bytes);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(BLD), loop = new_bb(E, "casloop"), done = new_bb(E, "casdone");
    LLVMValueRef old0 = LLVMBuildLoad2(BLD, it, p, "");
    LLVMSetOrdering(old0, LLVMAtomicOrderingMonotonic);
    LLVMSetAtomicSyncScopeID(old0, ssid);
    LLVMSetAlignment(old0, bytes);
    LLVMBuildBr(BLD, loop);
    LLVMPositionBuilderAtEnd(BLD, loop);
    LLVMValueRef old = LLVMBuildPhi(BLD, it, "");
    LLVMValueRef nv = combine(E, old, arg);
    LLVMValueRef cx = LLVMBuildAtomicCmpXchgSyncScope(BLD, p, old, nv, success, LLVMAtomicOrderingMonotonic, ssid);
    LLVMSetAlignment(cx, bytes);
    LLVMValueRef got = LLVMBuildExtractValue(BLD, cx, 0, ""), ok = LLVMBuildExtractValue(BLD, cx, 1, "");
    LLVMBasicBlockRef here = LLVMGetInsertBlock(BLD);
    LLVMBuildCondBr(BLD, ok, done, loop);
    LLVMValueRef inv[2] = {old0, got};
    LLVMBasicBlockRef inb[2] = {pre, here};
    LLVMAddIncoming(old, inv, inb, 2);
    LLVMPositionBuilderAtEnd(BLD, done);
    return old;
}

typedef struct half_arg { unsigned lanes; bool bf; ir_mod op; LLVMValueRef b; } half_arg;

static LLVMValueRef half_combine(emit_ctx *E, LLVMValueRef old, const void *arg) {
    const half_arg *a = arg;
    LLVMTypeRef it = LLVMTypeOf(old);
    LLVMValueRef nv = ci(it, 0);
    for (unsigned h = 0; h < a->lanes; h++) {
        LLVMValueRef x = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, old, ci(it, 16 * h), ""), E->i16, "");
        LLVMValueRef y = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, a->b, ci(it, 16 * h), ""), E->i16, "");
        LLVMValueRef r = zext_to(E, half_lane(E, a->op, a->bf, x, y), it);
        nv = LLVMBuildOr(BLD, nv, LLVMBuildShl(BLD, r, ci(it, 16 * h), ""), "");
    }
    return nv;
}

LLVMValueRef atom_half_rmw(emit_ctx *E, LLVMValueRef p, unsigned lanes, bool bf, ir_mod op, LLVMValueRef b,
                           LLVMAtomicOrdering ord, unsigned ssid) {
    half_arg a = {lanes, bf, op, zext_to(E, b, lanes == 2 ? E->i32 : E->i16)};
    return cas_rmw(E, p, 2 * lanes, atom_cas_ordering(ord), ssid, half_combine, &a);
}

typedef struct f32_arg { LLVMValueRef v, flush; } f32_arg;

static LLVMValueRef f32_add_combine(emit_ctx *E, LLVMValueRef old, const void *arg) {
    const f32_arg *a = arg;
    LLVMValueRef x = LLVMBuildBitCast(BLD, old, E->f32, "");
    x = sel(E, a->flush, f_ftz_in(E, x), x);
    LLVMValueRef r = LLVMBuildFAdd(BLD, x, a->v, "");
    r = sel(E, a->flush, f_ftz_in(E, r), r);
    return LLVMBuildBitCast(BLD, r, E->i32, "");
}

LLVMValueRef atom_add_f32(emit_ctx *E, LLVMValueRef p, ir_space sp, LLVMValueRef v, LLVMAtomicOrdering ord,
                          unsigned ssid) {
    sp = ir_space_base[sp];
    if (sp == IR_S_SHARED) { /* shared memory keeps subnormals: the plain atomic add */
        LLVMValueRef r = LLVMBuildAtomicRMWSyncScope(BLD, LLVMAtomicRMWBinOpFAdd, p, v, ord, ssid);
        LLVMSetAlignment(r, 4);
        return r;
    }
    if (E->fp_atomics_native) { /* --fp-atomics=native: the device's add, whatever it does with subnormals */
        LLVMValueRef r = LLVMBuildAtomicRMWSyncScope(BLD, LLVMAtomicRMWBinOpFAdd, p, v, ord, ssid);
        LLVMSetAlignment(r, 4);
        if (E->t->hooks && E->t->hooks->mark_native_fp_atomic) E->t->hooks->mark_native_fp_atomic(E, r);
        return r;
    }
    /* a generic address flushes unless it points into the shared window (as isspacep.shared decides) */
    LLVMValueRef flush = sp == IR_S_GLOBAL ? ci(E->i1, 1)
                                           : LLVMBuildNot(BLD, addr_in_shared(E, LLVMBuildPtrToInt(BLD, p, E->i64, "")), "");
    f32_arg a = {sel(E, flush, f_ftz_in(E, v), v), flush};
    return LLVMBuildBitCast(BLD, cas_rmw(E, p, 4, atom_cas_ordering(ord), ssid, f32_add_combine, &a), E->f32, "");
}
