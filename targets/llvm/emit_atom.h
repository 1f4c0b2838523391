/* emit_atom.h — the atomic forms added for sm_90/sm_100 (shared LLVM emission, every target):
 *  - emit_atom_vector.c: atom/red .v2/.v4/.v8 (f32 add; f16/bf16/f16x2/bf16x2 add/min/max .noftz);
 *  - emit_atom_rmw.c:    the compare-exchange loops: 16-bit float lanes, atom.add.f32's subnormal flush;
 *  - emit_atom_b128.c:   atom.cas.b128 / atom.exch.b128;
 *  - emit_multimem.c:    multimem.ld_reduce / multimem.st / multimem.red on a single device;
 *  - emit_st_bulk.c:     st.bulk (sm_100).
 * Each emit_* returns false when the form has no lowering (the caller diagnoses it), like emit.h's families. */
#ifndef P2N_EMIT_ATOM_H
#define P2N_EMIT_ATOM_H

#include "emit.h"

bool emit_atom_vector(emit_ctx *E, const ir_ins *ins); /* atom/red with .v2 .v4 .v8 */
bool emit_atom_b128(emit_ctx *E, const ir_ins *ins);   /* atom.cas.b128, atom.exch.b128 */
bool emit_multimem(emit_ctx *E, const ir_ins *ins);    /* multimem.ld_reduce, multimem.st, multimem.red */
bool emit_st_bulk(emit_ctx *E, const ir_ins *ins);     /* st.bulk */

/* combine(old) -> the new value of a compare-exchange loop (integer of the loop's width); arg: its operands */
typedef LLVMValueRef (*rmw_combine)(emit_ctx *E, LLVMValueRef old, const void *arg);
/* the compare-exchange loop on the `bytes`-wide integer at p (aligned to its size): a relaxed load, then
 * cmpxchg(old, combine(old)) with ordering `success` until it succeeds; returns the old value */
LLVMValueRef cas_rmw(emit_ctx *E, LLVMValueRef p, unsigned bytes, LLVMAtomicOrdering success, unsigned ssid,
                     rmw_combine combine, const void *arg);

/* the LLVM ordering of an atom/red/multimem .sem qualifier (.relaxed or none: monotonic) */
LLVMAtomicOrdering atom_ordering(const ir_ins *ins);
/* the success ordering of a compare-exchange that implements an operation of ordering `ord` (the convention of
 * emit_sync.c's loops: relaxed stays relaxed, anything stronger becomes seq_cst) */
LLVMAtomicOrdering atom_cas_ordering(LLVMAtomicOrdering ord);

/* One atomic read-modify-write of `lanes` (1 or 2) f16 (bf = false) or bf16 (bf = true) values packed in the
 * 16- or 32-bit word at p (aligned to its size), lane h in bits 16h..16h+15: op .add (one rounding to nearest
 * even, subnormals kept: .noftz), .min or .max (PTX rules: -0 < +0, one NaN operand gives the other operand,
 * two give the canonical NaN 0x7fff). b: the operand word (i16 or i32). Returns the old word. */
LLVMValueRef atom_half_rmw(emit_ctx *E, LLVMValueRef p, unsigned lanes, bool bf, ir_mod op, LLVMValueRef b,
                           LLVMAtomicOrdering ord, unsigned ssid);

/* atom/red .add.f32 of v at p in state space sp as NVIDIA does it: outside shared memory subnormal inputs and the
 * result are flushed to sign-preserving zero (generic addresses decide at run time), shared memory keeps them.
 * Returns the old value (f32). */
LLVMValueRef atom_add_f32(emit_ctx *E, LLVMValueRef p, ir_space sp, LLVMValueRef v, LLVMAtomicOrdering ord,
                          unsigned ssid);

#endif
