// scalar_mixed_width_ivs.h — the loop-vectoriser guard (scalar_mixed_width_ivs.cpp), for default_pipeline.cpp.
#pragma once
#include <llvm/IR/PassManager.h>

void p2n_add_scalar_mixed_width_ivs(llvm::FunctionPassManager &FPM);
