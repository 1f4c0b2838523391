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

// A copy of fn named `name` whose parameters are fn's followed by nextra more of the given types (the copy's body
// does not use them yet): work_item_loops.c passes each thread's coordinates and the frame this way.
extern "C" LLVMValueRef host_clone_function_extended(LLVMValueRef fn, const char *name, LLVMTypeRef *extra,
                                                     unsigned nextra) {
    llvm::Function *F = llvm::unwrap<llvm::Function>(fn);
    llvm::SmallVector<llvm::Type *, 8> params(F->getFunctionType()->params().begin(),
                                              F->getFunctionType()->params().end());
    for (unsigned i = 0; i < nextra; i++) params.push_back(llvm::unwrap(extra[i]));
    llvm::FunctionType *ty = llvm::FunctionType::get(F->getReturnType(), params, false);
    llvm::Function *copy = llvm::Function::Create(ty, F->getLinkage(), F->getAddressSpace(), name, F->getParent());
    llvm::ValueToValueMapTy map;
    auto to = copy->arg_begin();
    for (llvm::Argument &a : F->args()) {
        to->setName(a.getName());
        map[&a] = &*to++;
    }
    llvm::SmallVector<llvm::ReturnInst *, 8> returns;
    llvm::CloneFunctionInto(copy, F, map, llvm::CloneFunctionChangeType::LocalChangesOnly, returns);
    return llvm::wrap(copy);
}
