/* split_block.c — splitting a basic block after an instruction, for the LLVM-level rewrites of every target
 * (SPIR-V traps, function pointers and fault checks; the recursion transform). */
#include <stdbool.h>
#include <stdlib.h>

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

/* Splits every block of fn but the entry block (whose allocas must stay there) into runs of at most `max`
 * instructions, each ending in a branch to the next; returns whether it split one. Why: LLVM's mem2reg
 * (PromoteMem2Reg, run by SROA) scans a block from its start for each promoted alloca that is both stored and
 * loaded in it, so one block of n instructions naming k registers costs n * k — an unrolled tensor-core loop
 * (300k instructions, 35k registers) spent minutes there. SimplifyCFG merges the runs again after promotion. */
bool llvm_split_long_blocks(LLVMContextRef C, LLVMBuilderRef B, LLVMValueRef fn, unsigned max) {
    bool split = false;
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
    size_t nb = 0, cap = 0, np = 0, capp = 0;
    LLVMBasicBlockRef *blocks = NULL;
    LLVMValueRef *points = NULL;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        if (bb == entry) continue;
        if (nb == cap) {
            LLVMBasicBlockRef *n = realloc(blocks, (cap = cap ? 2 * cap : 64) * sizeof *n);
            if (!n) break;
            blocks = n;
        }
        blocks[nb++] = bb;
    }
    for (size_t b = 0; b < nb; b++) {
        np = 0;
        unsigned run = 0;
        for (LLVMValueRef I = LLVMGetFirstInstruction(blocks[b]); I; I = LLVMGetNextInstruction(I)) {
            if (++run < max || LLVMIsAPHINode(I) || !LLVMGetNextInstruction(I) || LLVMIsATerminatorInst(I)) continue;
            if (np == capp) {
                LLVMValueRef *n = realloc(points, (capp = capp ? 2 * capp : 64) * sizeof *n);
                if (!n) break;
                points = n;
            }
            points[np++] = I;
            run = 0;
        }
        /* last to first: each split moves only the run after its point */
        for (size_t i = np; i-- > 0;) {
            LLVMBasicBlockRef next = llvm_split_after(C, B, points[i]);
            LLVMPositionBuilderAtEnd(B, LLVMGetInstructionParent(points[i]));
            LLVMBuildBr(B, next);
            split = true;
        }
    }
    free(blocks);
    free(points);
    return split;
}
