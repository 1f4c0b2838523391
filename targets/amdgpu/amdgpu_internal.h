/* amdgpu_internal.h — lane and ballot helpers shared by the AMDGPU hooks (amdgpu_hooks.c) and the
 * collectives/barriers built on them (amdgpu_sync.c). Not part of the target's interface. */
#ifndef P2N_AMDGPU_INTERNAL_H
#define P2N_AMDGPU_INTERNAL_H

#include "amdgpu_target.h"
#include "../llvm/emit.h"

/* AMD-private LDS words the hooks need (bar.red counters, counting barriers); the lowering (amdgpu_lower.c) places
 * them in front of the module's shared window so the dynamic-LDS placement assumption still holds. */
#define AMDGPU_LDS_PRIV "__p2n_amd_lds_priv"
enum { AMDGPU_PRIV_RED = 0, AMDGPU_PRIV_BAR = 16, AMDGPU_PRIV_WORDS = 32 };

bool amd_wave64(emit_ctx *E);
LLVMValueRef amd_hw_lane(emit_ctx *E);                       /* lane within the hardware wave */
LLVMValueRef amd_warp_half(emit_ctx *E);                     /* 0, or 32 for the upper CUDA warp of a wave64 */
LLVMValueRef amd_laneid(emit_ctx *E);                        /* CUDA %laneid */
LLVMValueRef amd_ballot32(emit_ctx *E, LLVMValueRef pred_i1); /* ballot of this lane's CUDA warp */
void amd_workgroup_fence(emit_ctx *E, LLVMAtomicOrdering ord);
bool amd_is_const(LLVMValueRef v, uint64_t k);

/* amdgpu_sync.c: the warp and barrier rt_call slots (a: the shared emission's arguments, host_abi.h) */
LLVMValueRef amd_shfl(emit_ctx *E, LLVMValueRef *a);
LLVMValueRef amd_redux(emit_ctx *E, LLVMValueRef *a);
LLVMValueRef amd_match_any(emit_ctx *E, LLVMValueRef *a);
LLVMValueRef amd_match_all(emit_ctx *E, LLVMValueRef *a);
LLVMValueRef amd_elect(emit_ctx *E, LLVMValueRef *a);
LLVMValueRef amd_vote(emit_ctx *E, LLVMValueRef *a);
void amd_warp_matrix(emit_ctx *E, LLVMValueRef *a); /* ldmatrix/stmatrix/mma/wmma (emit_lanes_matrix.c) */
void amd_barrier(emit_ctx *E, LLVMValueRef *a);
LLVMValueRef amd_barrier_red(emit_ctx *E, LLVMValueRef *a);

/* amdgpu_printf.c: vprintf (a marker until amdgpu_lower_printf), malloc, free (a: the stubs' arguments) */
LLVMValueRef amd_vprintf(emit_ctx *E, LLVMValueRef *a);
LLVMValueRef amd_malloc(emit_ctx *E, LLVMValueRef *a);
void amd_free(emit_ctx *E, LLVMValueRef *a);
/* before optimisation: the markers -> ockl hostcall printf calls (formats must be constant). False: diagnosed. */
bool amdgpu_lower_printf(LLVMModuleRef M, const target_desc *t, p2n_diags *d);

/* amdgpu_devlibs.c: when the module calls __ocml_* / __ockl_* functions, link ocml.bc / ockl.bc (in process) and
 * define the __oclc_* control constants for t afterwards; library code becomes internal. False: diagnosed. */
bool amdgpu_link_devlibs(LLVMContextRef C, LLVMModuleRef M, const target_desc *t, p2n_diags *d, bool *internal);

#endif
