/* split_block.c — splitting a basic block after an instruction, for the LLVM-level rewrites of every target
 * (SPIR-V traps, function pointers and fault checks; the recursion transform). */
#include <stdbool.h>

#include "codegen.h"

/* Moves everything after I into a new block placed right after I's block and returns it; I's block is left without
 * a terminator (the caller ends it). The successors' phis follow the edge: the C API cannot change an incoming
 * block, so a phi that names I's block is rebuilt. */
LLVMBasicBlockRef llvm_split_after(LLVMContextRef C, LLVMBuilderRef B, LLVMValueRef I) {
    LLVMBasicBlockRef old = LLVMGetInstructionParent(I);
    LLVMBasicBlockRef nb = LLVMAppendBasicBlockInContext(C, LLVMGetBasicBlockParent(old), "");
    LLVMMoveBasicBlockAfter(nb, old);
    LLVMPositionBuilderAtEnd(B, nb);
    for (LLVMValueRef x = LLVMGetNextInstruction(I), nx; x; x = nx) {
        nx = LLVMGetNextInstruction(x);
        LLVMInstructionRemoveFromParent(x);
        LLVMInsertIntoBuilder(B, x);
    }
    LLVMValueRef term = LLVMGetBasicBlockTerminator(nb);
    unsigned ns = term ? LLVMGetNumSuccessors(term) : 0;
    for (unsigned s = 0; s < ns; s++) {
        LLVMBasicBlockRef sb = LLVMGetSuccessor(term, s);
        for (LLVMValueRef phi = LLVMGetFirstInstruction(sb), np; phi && LLVMIsAPHINode(phi); phi = np) {
            np = LLVMGetNextInstruction(phi);
            unsigned n = LLVMCountIncoming(phi);
            bool touched = false;
            for (unsigned i = 0; i < n; i++) touched |= LLVMGetIncomingBlock(phi, i) == old;
            if (!touched) continue;
            /* the C API cannot retarget an incoming block: rebuild the phi */
            LLVMPositionBuilderBefore(B, phi);
            LLVMValueRef q = LLVMBuildPhi(B, LLVMTypeOf(phi), "");
            for (unsigned i = 0; i < n; i++) {
                LLVMValueRef v = LLVMGetIncomingValue(phi, i);
                LLVMBasicBlockRef b = LLVMGetIncomingBlock(phi, i);
                if (b == old) b = nb;
                LLVMAddIncoming(q, &v, &b, 1);
            }
            LLVMReplaceAllUsesWith(phi, q);
            LLVMInstructionEraseFromParent(phi);
        }
    }
    return nb;
}
