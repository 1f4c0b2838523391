// default_pipeline.cpp — LLVM's default<On> pipeline, as LLVMRunPasses builds it for the C API, plus our passes
// at its extension points (the C API has no way to add them): codegen.c calls it between the targets' pre_opt and
// post_opt passes.
#include <llvm-c/TargetMachine.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/Error.h>
#include <llvm/Target/TargetMachine.h>

#include "default_pipeline.h"
#include "scalar_mixed_width_ivs.h"

using namespace llvm;

extern "C" LLVMErrorRef p2n_run_default_pipeline(LLVMModuleRef M, LLVMTargetMachineRef TM, int level) {
    Module *mod = unwrap(M);
    PassInstrumentationCallbacks PIC;
    // PipelineTuningOptions as the C API's defaults (loop vectoriser on, SLP vectoriser off): the code so far
    PassBuilder PB(reinterpret_cast<TargetMachine *>(TM), PipelineTuningOptions(), std::nullopt, &PIC);
    PB.registerVectorizerStartEPCallback(
        [](FunctionPassManager &FPM, OptimizationLevel) { p2n_add_scalar_mixed_width_ivs(FPM); });
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
    MPM.run(*mod, MAM);
    return LLVMErrorSuccess;
}
