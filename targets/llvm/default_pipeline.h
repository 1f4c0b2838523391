// default_pipeline.h — LLVM's default<On> pipeline with our passes at its extension points (default_pipeline.cpp).
#pragma once
#include <llvm-c/Error.h>
#include <llvm-c/TargetMachine.h>

#ifdef __cplusplus
extern "C" {
#endif
/* level clamped to 0..3; slp: run the SLP vectoriser (target_desc.no_slp_vectorizer); the error (none:
 * LLVMErrorSuccess) is the caller's to consume */
LLVMErrorRef p2n_run_default_pipeline(LLVMModuleRef M, LLVMTargetMachineRef TM, int level, int slp);
#ifdef __cplusplus
}
#endif
