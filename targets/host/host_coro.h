/* host_coro.h — coroutine entries of host kernels (host_coro.c, abi/host_abi.h "Coroutine entry"). */
#ifndef P2N_HOST_CORO_H
#define P2N_HOST_CORO_H

#include <llvm-c/Core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A copy of fn in fn's module, named name (host_clone.cpp: LLVM's C API has no function cloning). */
LLVMValueRef host_clone_function(LLVMValueRef fn, const char *name);
/* The same with nextra more parameters of the given types after fn's (unused by the copy's body). */
LLVMValueRef host_clone_function_extended(LLVMValueRef fn, const char *name, LLVMTypeRef *extra, unsigned nextra);

#ifndef __cplusplus
#include "llvm_pass.h"
/* The lowering pass: gives every kernel whose waits all lie in its own body a coroutine entry `<kernel>.coro`
 * and names it in the kernel's descriptor entry (P2N_KERNEL_CORO). */
bool host_pass_make_coroutines(llvm_pass_ctx *X);
#endif

#ifdef __cplusplus
}
#endif
#endif
