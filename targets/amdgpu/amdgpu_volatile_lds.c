/* amdgpu_volatile_lds.c — after the optimiser: volatile accesses to shared memory through LDS pointers.
 *
 * The emission reaches .shared memory through generic pointers into the kernel's LDS window, and LLVM's
 * infer-address-spaces turns each access into an LDS one (ds_*) — except volatile ones, which it leaves alone
 * (TargetTransformInfo::hasVolatileVariant), so a PTX ld.volatile.shared / st.volatile.shared (the classic
 * `volatile __shared__` warp reduction, spin flags in shared memory) becomes flat_load / flat_store through the
 * shared aperture: slower than ds_* and waiting on both the vector-memory and LDS counters. Here a volatile load or
 * store (atomic or not) whose pointer is an address-space cast of an LDS pointer (the cast instruction or constant
 * expression that inference left in place) takes the LDS pointer instead. The same bytes, the same volatility and
 * ordering: only the instruction that reaches them changes. */
#include <llvm-c/Core.h>

#include "amdgpu_target.h"
#include "llvm_pass.h"

enum { AS_FLAT = 0, AS_LDS = 3 };   /* LLVM's AMDGPU address spaces */

/* the LDS pointer p was cast from, or NULL */
static LLVMValueRef lds_source(LLVMValueRef p) {
    LLVMValueRef src = NULL;
    if (LLVMIsAAddrSpaceCastInst(p)) src = LLVMGetOperand(p, 0);
    else if (LLVMIsAConstantExpr(p) && LLVMGetConstOpcode(p) == LLVMAddrSpaceCast) src = LLVMGetOperand(p, 0);
    if (!src || LLVMGetPointerAddressSpace(LLVMTypeOf(src)) != AS_LDS) return NULL;
    return LLVMGetPointerAddressSpace(LLVMTypeOf(p)) == AS_FLAT ? src : NULL;
}

bool amdgpu_volatile_lds_pass(llvm_pass_ctx *X) {
    for (LLVMValueRef f = LLVMGetFirstFunction(X->M); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
            for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
                unsigned ptr_op;
                if (LLVMIsALoadInst(i)) ptr_op = 0;
                else if (LLVMIsAStoreInst(i)) ptr_op = 1;
                else continue;
                if (!LLVMGetVolatile(i)) continue;
                LLVMValueRef lds = lds_source(LLVMGetOperand(i, ptr_op));
                if (lds) LLVMSetOperand(i, ptr_op, lds);
            }
    return true;
}
