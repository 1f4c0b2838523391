// scalar_mixed_width_ivs.h — the loop-vectoriser guard (scalar_mixed_width_ivs.cpp), for default_pipeline.cpp.
#pragma once
#include <llvm/IR/PassManager.h>

void p2n_add_scalar_mixed_width_ivs(llvm::FunctionPassManager &FPM);
// The pass's name in pipeline text, and its class name as printPipeline sees it (default_pipeline.cpp names it
// so, and parses the name back)
#define P2N_SCALAR_MIXED_WIDTH_IVS "p2n-scalar-mixed-width-ivs"
llvm::StringRef p2n_scalar_mixed_width_ivs_class();
