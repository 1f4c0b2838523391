/* llvm_pass.h — LLVM-level transforms of the emitted module as passes with one signature, run from the
 * target's lists (target_desc.lower / pre_opt / post_opt / pre_codegen) by one runner. */
#ifndef P2N_LLVM_PASS_H
#define P2N_LLVM_PASS_H

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/TargetMachine.h>
#include <stdbool.h>

#include "diag.h"
#include "ir.h"
#include "ptx2native.h"
#include "target.h"

typedef struct llvm_pass_ctx {
    LLVMContextRef C;
    LLVMModuleRef M;
    LLVMTargetMachineRef TM;   /* pre_opt / post_opt / pre_codegen; NULL for the lowering list */
    const ir_module *m;        /* the lowering list: the IR module that was emitted; NULL later */
    const struct emit_desc *desc; /* the lowering list: what emission produced (emit.h); NULL later */
    const target_desc *t;
    const p2n_options *opt;
    p2n_diags *d;              /* NULL on -j worker threads: a failure goes to error */
    bool internal;             /* set by a failing pass when the failure is a compiler bug */
    LLVMErrorRef error;        /* a failing pass of the optimisation lists may leave LLVM's error here */
} llvm_pass_ctx;

/* false: the pass failed (a diagnostic in d, or error set; internal says whether it is our bug) */
typedef bool llvm_pass_fn(llvm_pass_ctx *X);

typedef struct llvm_pass {
    const char *name;
    llvm_pass_fn *run;
    /* the module may be invalid after this pass until a later pass of the same list makes it valid (AMDGPU:
     * allocas move to addrspace(5) in its lowering): the runner does not verify after it */
    bool unverified;
} llvm_pass;

/* Runs the NULL-name-terminated list in order (list may be NULL). In P2N_VERIFY_PASSES builds (all test
 * builds) LLVMVerifyModule runs after each pass and a broken module is an internal error naming the pass. */
bool llvm_run_passes(const llvm_pass *list, llvm_pass_ctx *X);

/* Shared passes that targets list. */
bool llvm_pass_eliminate_recursion(llvm_pass_ctx *X); /* when opt->device_lacks | t->always_lacks has RECURSION */
bool llvm_pass_rewrite_addrs(llvm_pass_ctx *X);       /* rewrite_addr.c, -O1 and above */
bool llvm_pass_defer_nan_canon(llvm_pass_ctx *X);     /* defer_nan_canon.c, -O1 and above */

#endif
