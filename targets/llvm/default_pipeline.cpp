// default_pipeline.cpp — LLVM's default<On> pipeline, as LLVMRunPasses builds it for the C API, plus our passes
// at its extension points (the C API has no way to add them): codegen.c calls it between the targets' pre_opt and
// post_opt passes.
#include <llvm-c/TargetMachine.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "default_pipeline.h"
#include "scalar_mixed_width_ivs.h"

using namespace llvm;

// The pipeline's text, by the passes' registered names (re-parsable: what opt's -print-pipeline-passes prints)
static std::string pipeline_text(ModulePassManager &MPM, PassInstrumentationCallbacks &PIC) {
    std::string text;
    raw_string_ostream os(text);
    MPM.printPipeline(os, [&PIC](StringRef cls) {
        StringRef name = PIC.getPassNameForClassName(cls);
        return name.empty() ? cls : name;
    });
    return text;
}

// MPM without its SLP vectoriser runs (target_desc.no_slp_vectorizer). LLVM 22's default<On> adds the pass
// whatever PipelineTuningOptions::SLPVectorization says, and its only off switch, -vectorize-slp, is
// process-global (other targets compile in the same process, and need it), so the pipeline is rebuilt from its
// text without them: the same passes in the same order. Printing is "best effort" in LLVM (a few internal
// settings are not printed, so instructions may be placed a little differently than by the original pipeline):
// the rebuilt pipeline is used only if it prints back as exactly the text it was parsed from; otherwise MPM stays
// as it is (SLP included).
static void drop_slp_vectorizer(PassBuilder &PB, PassInstrumentationCallbacks &PIC, ModulePassManager &MPM) {
    std::string text = pipeline_text(MPM, PIC), out;
    static const std::string slp = "slp-vectorizer";
    for (size_t i = 0; i < text.size();) {
        bool start = i == 0 || text[i - 1] == ',' || text[i - 1] == '(';
        size_t end = i + slp.size();
        if (start && text.compare(i, slp.size(), slp) == 0 && (end == text.size() || text[end] == ',' || text[end] == ')')) {
            if (end < text.size() && text[end] == ',') end++;                        // "slp-vectorizer," goes
            else if (!out.empty() && out.back() == ',') out.pop_back();             // ",slp-vectorizer)": the comma
            i = end;
            continue;
        }
        out += text[i++];
    }
    if (out == text) return;
    ModulePassManager rebuilt;
    if (Error e = PB.parsePassPipeline(rebuilt, out)) {
        consumeError(std::move(e));
        return;
    }
    if (pipeline_text(rebuilt, PIC) == out) MPM = std::move(rebuilt);
}

extern "C" LLVMErrorRef p2n_run_default_pipeline(LLVMModuleRef M, LLVMTargetMachineRef TM, int level, int slp) {
    Module *mod = unwrap(M);
    PassInstrumentationCallbacks PIC;
    // PipelineTuningOptions as the C API's defaults
    PassBuilder PB(reinterpret_cast<TargetMachine *>(TM), PipelineTuningOptions(), std::nullopt, &PIC);
    PB.registerVectorizerStartEPCallback(
        [](FunctionPassManager &FPM, OptimizationLevel) { p2n_add_scalar_mixed_width_ivs(FPM); });
    // our pass by name, for pipelines rebuilt from text (drop_slp_vectorizer)
    PIC.addClassToPassName(p2n_scalar_mixed_width_ivs_class(), P2N_SCALAR_MIXED_WIDTH_IVS);
    PB.registerPipelineParsingCallback(
        [](StringRef name, FunctionPassManager &FPM, ArrayRef<PassBuilder::PipelineElement>) {
            if (name != P2N_SCALAR_MIXED_WIDTH_IVS) return false;
            p2n_add_scalar_mixed_width_ivs(FPM);
            return true;
        });
    LoopAnalysisManager LAM;
    FunctionAnalysisManager FAM;
    CGSCCAnalysisManager CGAM;
    ModuleAnalysisManager MAM;
    PB.registerLoopAnalyses(LAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerModuleAnalyses(MAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    StandardInstrumentations SI(mod->getContext(), false, false);
    SI.registerCallbacks(PIC, &MAM);
    char pipeline[16];
    snprintf(pipeline, sizeof pipeline, "default<O%d>", level < 0 ? 0 : level > 3 ? 3 : level);
    ModulePassManager MPM;
    if (Error e = PB.parsePassPipeline(MPM, pipeline)) return wrap(std::move(e));
    if (!slp) drop_slp_vectorizer(PB, PIC, MPM);
    MPM.run(*mod, MAM);
    return LLVMErrorSuccess;
}
