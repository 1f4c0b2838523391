/* emit_lanes.h — CUDA warp collectives and the counting barrier, written once against a handful of lane
 * primitives that each GPU target supplies (AMDGPU: mbcnt/ballot/ds_bpermute on a wave's 32-lane half;
 * SPIR-V: sub-group ballot/shuffle with the sub-group pinned to 32). Only the primitives differ between targets;
 * the algorithms, and therefore their CUDA semantics, are the same code. */
#ifndef P2N_EMIT_LANES_H
#define P2N_EMIT_LANES_H

#include "emit.h"

typedef struct lane_ops {
    /* i32 ballot of this lane's CUDA warp: bit = %laneid of each active lane whose pred_i1 is true */
    LLVMValueRef (*ballot)(emit_ctx *E, LLVMValueRef pred_i1);
    /* the i32 value v of CUDA lane `lane` (an active lane of this warp) */
    LLVMValueRef (*read_lane)(emit_ctx *E, LLVMValueRef v, LLVMValueRef lane);
    LLVMValueRef (*laneid)(emit_ctx *E); /* CUDA %laneid, i32 */
    /* the i32 sync word `which` (LANES_WORD_*) of barrier `id` in work-group memory, zeroed before first use */
    LLVMValueRef (*sync_word)(emit_ctx *E, unsigned which, LLVMValueRef id);
    void (*pause)(emit_ctx *E); /* between polls of a spin-wait; NULL: poll again at once */
    /* bar.red (lanes_barrier_red): the i32 number of lanes of this lane's hardware group (a wave, a sub-group)
     * whose pred_i1 holds, and i1 "this lane is its group's first active lane": each group adds its count once.
     * NULL: the CUDA warp is the group (popcount of ballot, lowest lane of ballot(true)). */
    LLVMValueRef (*group_count)(emit_ctx *E, LLVMValueRef pred_i1);
    LLVMValueRef (*group_leader)(emit_ctx *E);
    /* bar.red: the CTA barrier `id` with thread count `cnt` (i32, 0: all threads) around reading the total */
    void (*red_barrier)(emit_ctx *E, LLVMValueRef id, LLVMValueRef cnt);
} lane_ops;

enum { LANES_WORD_BAR, LANES_WORD_RED };

/* shfl.sync (PTX ISA pseudo code): a: ctx mode(P2N_SHFL_*, constant) value b c membermask in_range_ptr -> the
 * i32 value of the source lane, or this lane's own where that lane is out of its segment (*in_range_ptr 0) */
LLVMValueRef lanes_shfl(emit_ctx *E, const lane_ops *L, LLVMValueRef *a);
/* bar.red.popc/.and/.or by counting (a: ctx id count op(P2N_RED_*, constant) pred): every group adds the number
 * of its lanes with the (for .and: negated) predicate to the sync word LANES_WORD_RED of barrier id, a barrier
 * (L->red_barrier), everyone reads the total, a second barrier, every group takes its part back out */
LLVMValueRef lanes_barrier_red(emit_ctx *E, const lane_ops *L, LLVMValueRef *a);
/* vote.sync (a: ctx mode(P2N_VOTE_*, constant) pred(i32) membermask) -> i32: the members' ballot, or 0/1 */
LLVMValueRef lanes_vote(emit_ctx *E, const lane_ops *L, LLVMValueRef *a);
/* elect.sync (a: ctx membermask leader_ptr) -> the leader's %laneid (the lowest member); *leader_ptr = i32 "this
 * lane leads" */
LLVMValueRef lanes_elect(emit_ctx *E, const lane_ops *L, LLVMValueRef *a);
/* a: ctx value(i64) membermask -> i32 lanes holding this lane's value */
LLVMValueRef lanes_match_any(emit_ctx *E, const lane_ops *L, LLVMValueRef *a);
/* a: ctx value(i64) membermask pred_ptr -> members, or 0; *pred_ptr = all equal */
LLVMValueRef lanes_match_all(emit_ctx *E, const lane_ops *L, LLVMValueRef *a);
/* bar.arrive / bar.sync with a thread count or on a barrier a bar.arrive targets (wait = sync) */
void lanes_count_barrier(emit_ctx *E, const lane_ops *L, LLVMValueRef id, LLVMValueRef cnt, bool wait);
/* ldmatrix/stmatrix/mma.sync/wmma kinds (P2N_MX_*, host_abi.h) on the lane's io block of emit_matrix.c; false for
 * a kind or shape without a lowering (emit_lanes_matrix.c) */
bool lanes_warp_matrix(emit_ctx *E, const lane_ops *L, unsigned op, LLVMValueRef io);
/* the generic forms of abi/mx_forms.h (emit_lanes_mma.c); false for another kind */
bool lanes_mma_generic(emit_ctx *E, const lane_ops *L, unsigned op, LLVMValueRef io);
/* the tensor-core (HMMA) f32 result c + sum a[k] b[k] (f32 values) -> f32 bits; emin: the inputs' least exponent
 * (mx_forms.h P2N_TC_EMIN_*; emit_lanes_mma.c) */
LLVMValueRef lanes_tc_dot_f32(emit_ctx *E, LLVMValueRef c, const LLVMValueRef *a, const LLVMValueRef *b, unsigned n,
                              int emin);
LLVMValueRef lanes_cttz32(emit_ctx *E, LLVMValueRef v); /* 32 for 0 */

#endif
