// host_clone.cpp — the one LLVM call the coroutine pass (host_coro.c) needs that LLVM's C API lacks: a copy of a
// function inside its own module (llvm::CloneFunction).
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>
#include <llvm-c/Core.h>

#include "host_coro.h"

extern "C" LLVMValueRef host_clone_function(LLVMValueRef fn, const char *name) {
    llvm::Function *F = llvm::unwrap<llvm::Function>(fn);
    llvm::ValueToValueMapTy map;
    llvm::Function *copy = llvm::CloneFunction(F, map);
    copy->setName(name);
    return llvm::wrap(copy);
}
