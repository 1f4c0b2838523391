/* emit_atom_vector.c — atom/red .v2/.v4/.v8 (sm_90) and the 16-bit float lane arithmetic of atomics.
 *
 * PTX ISA (atom, red): a vector atom/red accesses adjacent scalar elements; "the atomicity is guaranteed
 * separately for each of the individual scalar elements; the entire atom is not guaranteed to be atomic as a
 * single access". So each element (each 16-bit lane of .f16x2/.bf16x2 too) is its own atomic read-modify-write,
 * and `atom` returns the vector of old elements. Forms:
 *   .v2/.v4 .f32 .add;  .v2/.v4/.v8 .f16/.bf16 and .v2/.v4 .f16x2/.bf16x2 .add/.min/.max, all with .noftz.
 * .f32 elements are atomicrmw fadd (as the scalar atom.add.f32). 16-bit elements have no atomic read-modify-
 * write on every target: they are compare-exchange loops on the 32-bit word holding two of them (a vector of
 * 16-bit elements is aligned to its whole size, so pairs never straddle a word); a word CAS is atomic for both
 * lanes, which is more than the ISA asks. Arithmetic: .add rounds once to nearest even (f16/bf16 + f16/bf16 is
 * computed exactly in f32 and rounded once: f32 has more than 2p+2 bits for both formats) and keeps subnormals
 * (.noftz); .min/.max follow PTX's min/max (-0 < +0, NaN operands ignored, two NaNs give the canonical NaN),
 * compared as integers so no target floating-point mode can flush a bf16 subnormal. */
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

LLVMValueRef atom_half_rmw(emit_ctx *E, LLVMValueRef p, unsigned lanes, bool bf, ir_mod op, LLVMValueRef b,
                           LLVMAtomicOrdering ord, unsigned ssid) {
    LLVMTypeRef it = lanes == 2 ? E->i32 : E->i16;
    b = zext_to(E, b, it);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(BLD), loop = new_bb(E, "hcas"), done = new_bb(E, "hcasdone");
    LLVMValueRef old0 = LLVMBuildLoad2(BLD, it, p, "");
    LLVMSetOrdering(old0, LLVMAtomicOrderingMonotonic);
    LLVMSetAtomicSyncScopeID(old0, ssid);
    LLVMSetAlignment(old0, 2 * lanes);
    LLVMBuildBr(BLD, loop);
    LLVMPositionBuilderAtEnd(BLD, loop);
    LLVMValueRef old = LLVMBuildPhi(BLD, it, "");
    LLVMValueRef nv = ci(it, 0);
    for (unsigned h = 0; h < lanes; h++) {
        LLVMValueRef x = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, old, ci(it, 16 * h), ""), E->i16, "");
        LLVMValueRef y = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, b, ci(it, 16 * h), ""), E->i16, "");
        LLVMValueRef r = zext_to(E, half_lane(E, op, bf, x, y), it);
        nv = LLVMBuildOr(BLD, nv, LLVMBuildShl(BLD, r, ci(it, 16 * h), ""), "");
    }
    LLVMValueRef cx = LLVMBuildAtomicCmpXchgSyncScope(BLD, p, old, nv, atom_cas_ordering(ord), LLVMAtomicOrderingMonotonic, ssid);
    LLVMSetAlignment(cx, 2 * lanes);
    LLVMValueRef got = LLVMBuildExtractValue(BLD, cx, 0, ""), ok = LLVMBuildExtractValue(BLD, cx, 1, "");
    LLVMBasicBlockRef here = LLVMGetInsertBlock(BLD);
    LLVMBuildCondBr(BLD, ok, done, loop);
    LLVMValueRef inv[2] = {old0, got};
    LLVMBasicBlockRef inb[2] = {pre, here};
    LLVMAddIncoming(old, inv, inb, 2);
    LLVMPositionBuilderAtEnd(BLD, done);
    return old;
}

static unsigned vec_count(const ir_ins *ins) {
    return ir_ins_has(ins, IR_M_V2) ? 2 : ir_ins_has(ins, IR_M_V4) ? 4 : ir_ins_has(ins, IR_M_V8) ? 8 : 1;
}

static void wr_elem(emit_ctx *E, const ir_operand *d, unsigned k, ir_type t, LLVMValueRef v) {
    if (d && d[k].kind != IR_OPND_SINK) wr(E, &d[k], t, v);
}

bool emit_atom_vector(emit_ctx *E, const ir_ins *ins) {
    bool red = ins->op == IR_OP_RED;
    if (ins->nops < (red ? 2u : 3u)) return false;
    const ir_operand *o = ins->ops;
    const ir_operand *dst = red ? NULL : &o[0], *addr = &o[red ? 0 : 1], *src = &o[red ? 1 : 2];
    unsigned n = vec_count(ins);
    ir_type t = ir_ins_type(ins, 0);
    ir_mod op = ir_ins_has(ins, IR_M_ADD) ? IR_M_ADD : ir_ins_has(ins, IR_M_MIN) ? IR_M_MIN
              : ir_ins_has(ins, IR_M_MAX) ? IR_M_MAX : IR_M_NONE;
    bool half = t == IR_T_F16 || t == IR_T_BF16, packed = t == IR_T_F16X2 || t == IR_T_BF16X2;
    const char *bad = NULL;
    if (op == IR_M_NONE) bad = "vector atomics are .add, .min or .max";
    else if (t == IR_T_F32) { if (op != IR_M_ADD || n > 4) bad = ".f32 vector atomics are .v2/.v4 .add"; }
    else if (packed) { if (n > 4) bad = ".f16x2/.bf16x2 vector atomics are .v2/.v4"; }
    else if (!half) bad = "vector atomics take .f32, .f16, .bf16, .f16x2 or .bf16x2";
    if (bad) { emit_unsupported(E, bad); return true; }
    if (src->kind != IR_OPND_VEC || src->aux != n || (dst && (dst->kind != IR_OPND_VEC || dst->aux != n))) return false;
    const ir_operand *b = ir_elems(src), *d = dst ? ir_elems(dst) : NULL;
    LLVMAtomicOrdering ord = atom_ordering(ins);
    unsigned ssid = scope_id(E, ins_scope(ins, P2N_SCOPE_GPU)); /* no scope: .gpu */
    LLVMValueRef p = mem_addr(E, addr, ir_ins_space(ins));
    /* every source element is read before any destination is written: {d} and {b} may name the same registers */
    LLVMValueRef v[8], old[8];
    if (t == IR_T_F32) {
        for (unsigned k = 0; k < n; k++) v[k] = rd(E, &b[k], IR_T_F32);
        for (unsigned k = 0; k < n; k++) {
            old[k] = LLVMBuildAtomicRMWSyncScope(BLD, LLVMAtomicRMWBinOpFAdd, gep8(E, p, c64(E, 4 * k)), v[k], ord, ssid);
            LLVMSetAlignment(old[k], 4);
        }
        for (unsigned k = 0; k < n; k++) wr_elem(E, d, k, IR_T_F32, old[k]);
        return true;
    }
    bool bf = t == IR_T_BF16 || t == IR_T_BF16X2;
    unsigned words = packed ? n : n / 2;
    for (unsigned w = 0; w < words; w++) {
        if (packed) v[w] = rd(E, &b[w], IR_T_B32);
        else
            v[w] = LLVMBuildOr(BLD, zext_to(E, rd(E, &b[2 * w], IR_T_B16), E->i32),
                               LLVMBuildShl(BLD, zext_to(E, rd(E, &b[2 * w + 1], IR_T_B16), E->i32), c32(E, 16), ""), "");
    }
    for (unsigned w = 0; w < words; w++) old[w] = atom_half_rmw(E, gep8(E, p, c64(E, 4 * w)), 2, bf, op, v[w], ord, ssid);
    for (unsigned w = 0; w < words; w++) {
        if (packed) { wr_elem(E, d, w, IR_T_B32, old[w]); continue; }
        wr_elem(E, d, 2 * w, IR_T_B16, LLVMBuildTrunc(BLD, old[w], E->i16, ""));
        wr_elem(E, d, 2 * w + 1, IR_T_B16, LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, old[w], c32(E, 16), ""), E->i16, ""));
    }
    return true;
}
