// debug_locs.cpp — keeps --line-info's locations valid when code moves between functions.
//
// Our own transforms build functions from other functions' code (the host's work-item-loop regions and block
// entries, entry wrappers around a kernel's body): the moved instructions keep locations whose subprogram is the
// function they came from, which LLVM rejects ("!dbg attachment points at wrong subprogram"), and a function
// without a subprogram gets no line table at all. After each such step every function that holds located code
// gets a subprogram of its own, and every location is re-scoped to it, keeping its PTX line and column (the
// inlining chain is flattened: the line is that of the innermost PTX instruction, which is what a profile of
// PTX wants). A call without a location into a function with one gets line 0 (LLVM requires a location there).
#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm-c/Core.h>

#include "debug_locs.h"

using namespace llvm;

static DISubprogram *own_subprogram(Function &F, DICompileUnit *CU, const DILocation *first) {
    DIBuilder DIB(*F.getParent(), false, CU);
    DIFile *file = first->getFile();
    DISubroutineType *ty = DIB.createSubroutineType(DIB.getOrCreateTypeArray({}));
    DISubprogram *SP = DIB.createFunction(file, F.getName(), F.getName(), file, first->getLine(), ty,
                                          first->getLine(), DINode::FlagArtificial,
                                          DISubprogram::SPFlagDefinition | DISubprogram::SPFlagLocalToUnit |
                                              DISubprogram::SPFlagOptimized);
    F.setSubprogram(SP);
    DIB.finalizeSubprogram(SP);
    return SP;
}

extern "C" void debug_locs_rehome(LLVMModuleRef mod) {
    Module *M = unwrap(mod);
    if (M->debug_compile_units().empty()) return;
    DICompileUnit *CU = *M->debug_compile_units().begin();
    LLVMContext &C = M->getContext();
    // subprograms first, all of them: whether a call needs a location depends on its callee having one
    for (Function &F : *M) {
        if (F.isDeclaration() || F.getSubprogram()) continue;
        for (Instruction &I : instructions(F))
            if (const DILocation *first = I.getDebugLoc().get()) {
                own_subprogram(F, CU, first);
                break;
            }
    }
    for (Function &F : *M) {
        DISubprogram *SP = F.getSubprogram();
        if (F.isDeclaration() || !SP) continue;
        for (Instruction &I : instructions(F)) {
            if (const DILocation *L = I.getDebugLoc().get()) {
                if (L->getInlinedAtScope()->getSubprogram() != SP)
                    I.setDebugLoc(DILocation::get(C, L->getLine(), L->getColumn(), SP));
            } else if (auto *call = dyn_cast<CallBase>(&I)) {
                Function *callee = call->getCalledFunction();
                if (callee && callee->getSubprogram()) I.setDebugLoc(DILocation::get(C, 0, 0, SP));
            }
        }
    }
}
