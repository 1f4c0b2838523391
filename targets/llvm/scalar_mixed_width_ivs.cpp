// scalar_mixed_width_ivs.cpp — keeps scalar the loops LLVM 22.1.8's loop vectoriser would miscompile.
//
// Why: when a loop uses its induction variable extended from two different narrow widths (say a 32-bit shared
// address, `zext i28 {1,+,1}`, and a table index `i & 7`, `zext i3 {1,+,1}`), the vectoriser needs a run-time
// check that neither narrow recurrence wraps. LLVM keeps the first such wrap predicate and drops the second as
// "implied" by it — but a recurrence not wrapping in 28 bits says nothing of 3 bits. The vectorised loop then
// reads `tab[i & 7]` as one 16-lane load, lanes 8..15 past the table (tests/llvm/vectorizer_masked_iv).
//
// What: right before the vectoriser (its start extension point), every innermost loop in whose expressions
// ScalarEvolution finds zero- or sign-extended recurrences of that loop in two or more widths gets
// llvm.loop.vectorize.enable = false. Other loops vectorise as before, under run-time predicates where they need
// them (a loop with one such width, as stencil2d's 32-bit indices, needs one predicate and is correct).
#include <llvm/ADT/SmallSet.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

#include "scalar_mixed_width_ivs.h"

using namespace llvm;

namespace {

// the widths of this loop's recurrences that appear under an extension in S
struct ExtendedWidths {
    const Loop *L;
    SmallSet<unsigned, 4> &widths;
    bool follow(const SCEV *S) {
        if (isa<SCEVZeroExtendExpr>(S) || isa<SCEVSignExtendExpr>(S))
            if (const auto *ar = dyn_cast<SCEVAddRecExpr>(cast<SCEVCastExpr>(S)->getOperand()))
                if (ar->getLoop() == L && ar->getType()->isIntegerTy()) widths.insert(ar->getType()->getIntegerBitWidth());
        return true;
    }
    bool isDone() const { return false; }
};

struct ScalarMixedWidthIVs : PassInfoMixin<ScalarMixedWidthIVs> {
    PreservedAnalyses run(Function &F, FunctionAnalysisManager &AM) {
        auto &LI = AM.getResult<LoopAnalysis>(F);
        auto &SE = AM.getResult<ScalarEvolutionAnalysis>(F);
        for (Loop *L : LI.getLoopsInPreorder()) {
            if (!L->isInnermost()) continue; // the vectoriser's loops
            SmallSet<unsigned, 4> widths;
            ExtendedWidths visit{L, widths};
            SCEVTraversal<ExtendedWidths> walk(visit);
            for (BasicBlock *BB : L->blocks())
                for (Instruction &I : *BB)
                    if (SE.isSCEVable(I.getType())) walk.visitAll(SE.getSCEV(&I));
            if (widths.size() >= 2) addStringMetadataToLoop(L, "llvm.loop.vectorize.enable", 0);
        }
        return PreservedAnalyses::all(); // loop metadata only
    }
    static bool isRequired() { return true; }
};

} // namespace

void p2n_add_scalar_mixed_width_ivs(FunctionPassManager &FPM) { FPM.addPass(ScalarMixedWidthIVs()); }
StringRef p2n_scalar_mixed_width_ivs_class() { return ScalarMixedWidthIVs::name(); }
