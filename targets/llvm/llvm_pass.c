/* llvm_pass.c — the runner of the targets' LLVM pass lists (llvm_pass.h), and the shared passes they list. */
#include <llvm-c/Analysis.h>
#include <stdio.h>

#include "codegen.h"
#include "debug_locs.h"
#include "eliminate_recursion.h"
#include "llvm_pass.h"

bool llvm_run_passes(const llvm_pass *list, llvm_pass_ctx *X) {
    for (const llvm_pass *p = list; p && p->name; p++) {
        if (!p->run(X)) return false;
        if (X->opt && X->opt->line_info) debug_locs_rehome(X->M); /* the pass may have moved code (--line-info) */
#ifdef P2N_VERIFY_PASSES
        if (p->unverified) continue;
        char *err = NULL;
        if (LLVMVerifyModule(X->M, LLVMReturnStatusAction, &err)) {
            char msg[2300];
            snprintf(msg, sizeof msg, "internal compiler error: invalid LLVM IR after the LLVM pass '%s': %.2000s",
                     p->name, err ? err : "");
            if (X->d) diag_plain(X->d, "error", "%s", msg);
            else X->error = LLVMCreateStringError(msg);
            X->internal = true;
            LLVMDisposeMessage(err);
            return false;
        }
        LLVMDisposeMessage(err);
#endif
    }
    return true;
}

bool llvm_pass_eliminate_recursion(llvm_pass_ctx *X) {
    if (!((X->opt->device_lacks | X->t->always_lacks) & P2N_LACKS_RECURSION)) return true;
    return llvm_eliminate_recursion(X->M, X->t, X->opt->recursion_stack, X->opt->verbose, X->d, &X->internal);
}

bool llvm_pass_rewrite_addrs(llvm_pass_ctx *X) {
    if (X->opt->opt_level <= 0) return true;
    X->error = llvm_rewrite_addrs(X->M, X->TM);
    return !X->error;
}
