/* spirv_collectives.h — SPIR-V lowerings of the CUDA warp collectives beyond vote (shfl, match, redux on 1.2,
 * ldmatrix/stmatrix/mma/wmma; the algorithms themselves are shared: targets/llvm/emit_lanes.h) and of the barriers OpControlBarrier cannot express (bar.arrive, thread counts, named
 * barriers targeted by bar.arrive). Called from spirv_hooks.c's rt_call arms. */
#ifndef P2N_SPIRV_COLLECTIVES_H
#define P2N_SPIRV_COLLECTIVES_H

#include "../llvm/emit_lanes.h"

/* sub-group primitives of spirv_hooks.c (1.4: KHR non-uniform ops, 1.2: SPV_INTEL_subgroups) */
LLVMValueRef spirv_sg_ballot(emit_ctx *E, LLVMValueRef p);                  /* i1 -> i32 bit per lane */
LLVMValueRef spirv_sg_shuffle(emit_ctx *E, LLVMValueRef v, LLVMValueRef src); /* i32 of lane src */
/* the two above + %laneid + sync words + bar.red's counting barrier, for emit_lanes.c (spirv_barrier.c) */
extern const lane_ops spirv_lanes;

/* a: the rt_call arguments of the shared emission (emit_sync.c / emit_matrix.c) */
LLVMValueRef spirv_match_any(emit_ctx *E, LLVMValueRef *a);  /* ctx value(i64) membermask */
LLVMValueRef spirv_match_all(emit_ctx *E, LLVMValueRef *a);  /* ctx value(i64) membermask pred_ptr */
LLVMValueRef spirv_redux_loop(emit_ctx *E, LLVMValueRef *a); /* ctx op value membermask (1.2) */
LLVMValueRef spirv_warp_matrix(emit_ctx *E, LLVMValueRef *a, LLVMTypeRef ret); /* ctx op io */

/* Barriers (spirv_barrier.c). spirv_barrier: false when a plain OpControlBarrier does (id 0 / no count / no
 * bar.arrive on that id), else the counting barrier was emitted (or diagnosed). */
bool spirv_barrier(emit_ctx *E, LLVMValueRef *a);            /* ctx id count arrive */
LLVMValueRef spirv_barrier_red_count(emit_ctx *E, LLVMValueRef *a); /* ctx id count op pred, count != 0 */
/* the same over the whole block without work-group collective functions (count == 0) */
LLVMValueRef spirv_barrier_red_atomic(emit_ctx *E, LLVMValueRef *a);
void spirv_yield(emit_ctx *E); /* RT_YIELD: diagnoses mbarrier.try_wait without forward progress */

/* Workgroup words of the counting barriers (module-scope Workgroup variable, created on first use):
 * words 0..15 bar.red totals, 16..31 barrier generation|arrivals, per barrier id & 15 */
#define SPIRV_SYNC_WORDS "__p2n_spirv_sync_words"
enum { SPIRV_SYNC_RED = 0, SPIRV_SYNC_BAR = 16, SPIRV_SYNC_NWORDS = 32 };
/* In a kernel wrapper before the body runs: zeroes the words (work-items with linear id < 32) followed by a
 * work-group barrier, when the module uses them. `lin` is the linear local id (i32). */
void spirv_sync_init(LLVMContextRef C, LLVMModuleRef M, LLVMBuilderRef B, LLVMValueRef lin);

#endif
