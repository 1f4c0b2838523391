/* emit_multimem.c — multimem.ld_reduce, multimem.st, multimem.red (sm_90) on a single device.
 *
 * A multimem address names one location in every member of a multicast group (cuMulticast*: one physical
 * allocation bound per device). Our runtimes drive one device per context, so the group this code can see has
 * one member: the multicast address maps to the one bound allocation, and the ISA's operations become
 *   ld_reduce: the reduction over one loaded value is that value — a load (.weak: plain; .relaxed/.acquire:
 *              an atomic load with that ordering, scope .sys unless named);
 *   st:        a store with the given semantics (.weak plain, .relaxed, .release);
 *   red:       an atomic reduction, .relaxed and .sys unless named (integer .add .min .max .and .or .xor;
 *              floating-point .add: f32/f64 atomicrmw fadd, f16/bf16 lanes compare-exchange loops with one
 *              rounding to nearest even, emit_atom_vector.c).
 * Vector forms (.v2 .v4 .v8) act per element, like vector atom/red: each element is its own access or
 * atomic. .acc::f32 / .acc::f16 (the precision of the accumulation across members) change nothing with one
 * member. */
#include "emit_atom.h"

#define BLD E->B

static unsigned vec_count(const ir_ins *ins) {
    return ir_ins_has(ins, IR_M_V2) ? 2 : ir_ins_has(ins, IR_M_V4) ? 4 : ir_ins_has(ins, IR_M_V8) ? 8 : 1;
}

static ir_type bits_type(unsigned bits) {
    return bits == 8 ? IR_T_B8 : bits == 16 ? IR_T_B16 : bits == 32 ? IR_T_B32 : IR_T_B64;
}

/* the elements of a (possibly vector) operand: a brace list of n, or the operand itself when n == 1 */
static const ir_operand *elems(const ir_operand *o, unsigned n) {
    if (n == 1) return o->kind == IR_OPND_VEC ? (o->aux == 1 ? ir_elems(o) : NULL) : o;
    return o->kind == IR_OPND_VEC && o->aux == n ? ir_elems(o) : NULL;
}

static bool is_half_type(ir_type t) {
    return t == IR_T_F16 || t == IR_T_BF16 || t == IR_T_F16X2 || t == IR_T_BF16X2;
}

/* one element of multimem.red: the atomic reduction of v (read as the element's bits) into p */
static bool red_elem(emit_ctx *E, LLVMValueRef p, ir_type t, ir_mod op, LLVMValueRef v, LLVMAtomicOrdering ord,
                     unsigned ssid) {
    if (is_half_type(t)) {
        if (op != IR_M_ADD) return false;
        atom_half_rmw(E, p, tbits(t) / 16, t == IR_T_BF16 || t == IR_T_BF16X2, op, v, ord, ssid);
        return true;
    }
    LLVMAtomicRMWBinOp bop;
    bool isf = t == IR_T_F32 || t == IR_T_F64, s = t_signed(t);
    switch (op) {
    case IR_M_ADD: bop = isf ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd; break;
    case IR_M_MIN: bop = s ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin; break;
    case IR_M_MAX: bop = s ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax; break;
    case IR_M_AND: bop = LLVMAtomicRMWBinOpAnd; break;
    case IR_M_OR: bop = LLVMAtomicRMWBinOpOr; break;
    case IR_M_XOR: bop = LLVMAtomicRMWBinOpXor; break;
    default: return false;
    }
    if (isf && op != IR_M_ADD) return false;
    if (isf) v = LLVMBuildBitCast(BLD, v, ty_of(E, t), "");
    LLVMValueRef r = LLVMBuildAtomicRMWSyncScope(BLD, bop, p, v, ord, ssid);
    LLVMSetAlignment(r, tbits(t) / 8);
    return true;
}

bool emit_multimem(emit_ctx *E, const ir_ins *ins) {
    const ir_operand *o = ins->ops;
    if (ins->nops < 2) return false;
    ir_type t = ir_ins_type(ins, 0);
    unsigned bits = t == IR_T_NONE ? 0 : tbits(t), n = vec_count(ins);
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return false;
    bool weak = !ir_ins_has(ins, IR_M_RELAXED) && !ir_ins_has(ins, IR_M_ACQUIRE) && !ir_ins_has(ins, IR_M_RELEASE);
    LLVMAtomicOrdering ord = atom_ordering(ins);
    unsigned ssid = scope_id(E, ins_scope(ins, P2N_SCOPE_SYS));
    ir_type et = bits_type(bits);
    unsigned eb = bits / 8;
    switch ((ir_opcode)ins->op) {
    case IR_OP_MULTIMEM_LD_REDUCE: {
        const ir_operand *d = elems(&o[0], n);
        if (!d) return false;
        LLVMValueRef p = mem_addr(E, &o[1], ir_ins_space(ins));
        LLVMValueRef v[8];
        for (unsigned k = 0; k < n; k++) {
            v[k] = LLVMBuildLoad2(BLD, ty_of(E, et), gep8(E, p, c64(E, (uint64_t)k * eb)), "");
            LLVMSetAlignment(v[k], eb);
            if (!weak) {
                LLVMSetOrdering(v[k], ord == LLVMAtomicOrderingAcquire ? ord : LLVMAtomicOrderingMonotonic);
                LLVMSetAtomicSyncScopeID(v[k], ssid);
            }
        }
        for (unsigned k = 0; k < n; k++)
            if (d[k].kind != IR_OPND_SINK) wr(E, &d[k], et, v[k]);
        return true;
    }
    case IR_OP_MULTIMEM_ST: {
        const ir_operand *b = elems(&o[1], n);
        if (!b) return false;
        LLVMValueRef p = mem_addr(E, &o[0], ir_ins_space(ins));
        for (unsigned k = 0; k < n; k++) {
            if (b[k].kind == IR_OPND_SINK) continue;
            LLVMValueRef s = LLVMBuildStore(BLD, rd(E, &b[k], et), gep8(E, p, c64(E, (uint64_t)k * eb)));
            LLVMSetAlignment(s, eb);
            if (!weak) {
                LLVMSetOrdering(s, ord == LLVMAtomicOrderingRelease ? ord : LLVMAtomicOrderingMonotonic);
                LLVMSetAtomicSyncScopeID(s, ssid);
            }
        }
        return true;
    }
    case IR_OP_MULTIMEM_RED: {
        const ir_operand *b = elems(&o[1], n);
        if (!b) return false;
        static const ir_mod ops[] = {IR_M_ADD, IR_M_MIN, IR_M_MAX, IR_M_AND, IR_M_OR, IR_M_XOR};
        ir_mod op = IR_M_NONE;
        for (unsigned k = 0; k < sizeof ops / sizeof ops[0]; k++)
            if (ir_ins_has(ins, ops[k])) { op = ops[k]; break; }
        if (op == IR_M_NONE || bits < 16) return false;
        LLVMValueRef p = mem_addr(E, &o[0], ir_ins_space(ins));
        LLVMValueRef v[8];
        for (unsigned k = 0; k < n; k++) v[k] = rd(E, &b[k], et);
        /* .v2/.v4/.v8 .f16/.bf16: pairs of elements share a word (the vector is aligned to its size) */
        bool pair = (t == IR_T_F16 || t == IR_T_BF16) && n > 1;
        for (unsigned k = 0; k < n; k += pair ? 2 : 1) {
            LLVMValueRef pk = gep8(E, p, c64(E, (uint64_t)k * eb)), x = v[k];
            ir_type tt = t;
            if (pair) {
                x = LLVMBuildOr(BLD, zext_to(E, v[k], E->i32), LLVMBuildShl(BLD, zext_to(E, v[k + 1], E->i32), c32(E, 16), ""), "");
                tt = t == IR_T_F16 ? IR_T_F16X2 : IR_T_BF16X2;
            }
            if (!red_elem(E, pk, tt, op, x, ord, ssid)) return false;
        }
        return true;
    }
    default: return false;
    }
}
