/* spirv_private.c — isspacep.local without to_private (P2N_LACKS_SPACE_QUERY: PoCL 3.1's CPU device implements
 * to_private/to_local as plain casts, so `to_private(p) != 0` holds for every address).
 *
 * The hook for RT_IS_LOCAL (spirv_hooks.c) then calls SPIRV_IS_LOCAL_MARKER(ctx, i64 address) -> i32, and this
 * pass answers it with the work-item's local window: the smallest address range [lo, hi) that holds every
 * PTX-visible private object the work-item has created so far (ctx words SPIRV_CTX_LOCAL_LO/HI, the wrapper
 * starts them at [~0, 0)). Each function of the shared emission widens the range at its entry by its allocas
 * that are seen through generic pointers (the .local variables and address-taken .reg/.param ones of
 * emit_ops.c local_alloca; the registers' own allocas are never cast, and mem2reg still removes them).
 *
 * Why this is exact on such a device: a work-group runs on one worker thread and all of a work-item's private
 * memory (its allocas, and the device's per-work-item context arrays, also allocas) is on that thread's stack,
 * one contiguous mapping that holds no global, constant or shared (__local) memory. So no address of another
 * state space falls in the range, and every live .local address does. Like CUDA's local window, the range also
 * holds addresses no variable occupies (between frames, other work-items' copies): those are local addresses
 * too, and isspacep.global is false for them. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "llvm_pass.h"
#include "spirv_target.h"

static bool generic_cast(LLVMValueRef a, unsigned as_generic) {
    for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (LLVMIsAAddrSpaceCastInst(user) && LLVMGetPointerAddressSpace(LLVMTypeOf(user)) == as_generic) return true;
    }
    return false;
}

/* the entry block's PTX-visible allocas widen the ctx's local window (before its terminator) */
static void widen(LLVMContextRef C, LLVMBuilderRef B, LLVMTargetDataRef TD, LLVMValueRef fn, unsigned as_generic) {
    LLVMTypeRef i8 = LLVMInt8TypeInContext(C), i64 = LLVMInt64TypeInContext(C);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
    LLVMValueRef term = LLVMGetBasicBlockTerminator(entry), lo = NULL, hi = NULL;
    if (!term) return;
    LLVMPositionBuilderBefore(B, term);
    for (LLVMValueRef I = LLVMGetFirstInstruction(entry); I; I = LLVMGetNextInstruction(I)) {
        if (!LLVMIsAAllocaInst(I) || !generic_cast(I, as_generic)) continue;
        LLVMValueRef count = LLVMGetOperand(I, 0);
        uint64_t n = LLVMIsAConstantInt(count) ? LLVMConstIntGetZExtValue(count) : 1;
        uint64_t bytes = n * LLVMABISizeOfType(TD, LLVMGetAllocatedType(I));
        LLVMValueRef a = LLVMBuildPtrToInt(B, I, i64, "");
        LLVMValueRef e = LLVMBuildAdd(B, a, LLVMConstInt(i64, bytes ? bytes : 1, 0), "");
        lo = lo ? LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntULT, a, lo, ""), a, lo, "") : a;
        hi = hi ? LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGT, e, hi, ""), e, hi, "") : e;
    }
    if (!lo) return;
    LLVMValueRef ctx = spirv_fn_ctx(fn);
    LLVMValueRef o[2] = {LLVMConstInt(i64, SPIRV_CTX_LOCAL_LO, 0), LLVMConstInt(i64, SPIRV_CTX_LOCAL_HI, 0)};
    LLVMValueRef plo = LLVMBuildGEP2(B, i8, ctx, &o[0], 1, ""), phi = LLVMBuildGEP2(B, i8, ctx, &o[1], 1, "");
    LLVMValueRef clo = LLVMBuildLoad2(B, i64, plo, ""), chi = LLVMBuildLoad2(B, i64, phi, "");
    LLVMBuildStore(B, LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntULT, lo, clo, ""), lo, clo, ""), plo);
    LLVMBuildStore(B, LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGT, hi, chi, ""), hi, chi, ""), phi);
}

void spirv_lower_is_local(LLVMContextRef C, LLVMModuleRef M, unsigned as_generic) {
    LLVMValueRef marker = LLVMGetNamedFunction(M, SPIRV_IS_LOCAL_MARKER);
    if (!marker) return;
    LLVMTypeRef i8 = LLVMInt8TypeInContext(C), i32 = LLVMInt32TypeInContext(C), i64 = LLVMInt64TypeInContext(C);
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    LLVMTargetDataRef TD = LLVMCreateTargetData(LLVMGetDataLayoutStr(M));
    if (LLVMGetFirstUse(marker))
        for (LLVMValueRef fn = LLVMGetFirstFunction(M); fn; fn = LLVMGetNextFunction(fn))
            if (spirv_fn_ctx(fn)) widen(C, B, TD, fn, as_generic);
    while (LLVMGetFirstUse(marker)) {
        LLVMValueRef I = LLVMGetUser(LLVMGetFirstUse(marker));
        LLVMValueRef ctx = LLVMGetOperand(I, 0), a = LLVMGetOperand(I, 1);
        LLVMPositionBuilderBefore(B, I);
        LLVMValueRef o[2] = {LLVMConstInt(i64, SPIRV_CTX_LOCAL_LO, 0), LLVMConstInt(i64, SPIRV_CTX_LOCAL_HI, 0)};
        LLVMValueRef lo = LLVMBuildLoad2(B, i64, LLVMBuildGEP2(B, i8, ctx, &o[0], 1, ""), "");
        LLVMValueRef hi = LLVMBuildLoad2(B, i64, LLVMBuildGEP2(B, i8, ctx, &o[1], 1, ""), "");
        LLVMValueRef in = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntUGE, a, lo, ""), LLVMBuildICmp(B, LLVMIntULT, a, hi, ""), "");
        LLVMReplaceAllUsesWith(I, LLVMBuildZExt(B, in, i32, ""));
        LLVMInstructionEraseFromParent(I);
    }
    LLVMDeleteFunction(marker);
    LLVMDisposeTargetData(TD);
    LLVMDisposeBuilder(B);
}

/* The lowering list's spirv-is-local pass (before spirv-kernel-wrappers, which start the window empty). */
bool spirv_pass_is_local(llvm_pass_ctx *X) {
    spirv_lower_is_local(X->C, X->M, X->t->as_generic);
    return true;
}
