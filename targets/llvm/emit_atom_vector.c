/* emit_atom_vector.c — atom/red .v2/.v4/.v8 (sm_90) and the 16-bit float lane arithmetic of atomics.
 *
 * PTX ISA (atom, red): a vector atom/red accesses adjacent scalar elements; "the atomicity is guaranteed
 * separately for each of the individual scalar elements; the entire atom is not guaranteed to be atomic as a
 * single access". So each element (each 16-bit lane of .f16x2/.bf16x2 too) is its own atomic read-modify-write,
 * and `atom` returns the vector of old elements. Forms:
 *   .v2/.v4 .f32 .add;  .v2/.v4/.v8 .f16/.bf16 and .v2/.v4 .f16x2/.bf16x2 .add/.min/.max, all with .noftz.
 * .f32 elements are added as the scalar atom.add.f32 (atom_add_f32: subnormals flushed outside shared memory).
 * 16-bit elements are compare-exchange loops on the 32-bit word holding two of them (atom_half_rmw; a vector of
 * 16-bit elements is aligned to its whole size, so pairs never straddle a word); a word CAS is atomic for both
 * lanes, which is more than the ISA asks. The lane arithmetic is in emit_atom_rmw.c. */
#include "emit_atom.h"

#define BLD E->B

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
            old[k] = atom_add_f32(E, gep8(E, p, c64(E, 4 * k)), ir_ins_space(ins), v[k], ord, ssid);
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
