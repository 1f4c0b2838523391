/* pass_manager.c — runs passes in order with the verifier in between. */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

bool run_passes(ir_module *m, const pass_desc *passes, unsigned n, const pass_options *opt, bool *internal) {
    *internal = false;
    for (unsigned i = 0; i < n; i++) {
        unsigned before = opt->diags->nerrors;
        passes[i].run(m, opt);
        if (opt->diags->nerrors > before) return false;
#ifdef P2N_VERIFY_PASSES
        char *errors = NULL;
        if (!ir_verify(m, &errors)) {
            diag_plain(opt->diags, "error", "internal compiler error: IR invalid after pass '%s':\n%s",
                       passes[i].name, errors ? errors : "");
            free(errors);
            *internal = true;
            return false;
        }
        free(errors);
#endif
    }
    return true;
}

const pass_desc p2n_llvm_passes[] = {
    {"strip_debug", pass_strip_debug},
    {"simplify_cvta", pass_simplify_cvta},
    {"defer_early_exits", pass_defer_early_exits},
    {"synchronize_wait_loops", pass_synchronize_wait_loops},
};
const unsigned p2n_llvm_npasses = sizeof p2n_llvm_passes / sizeof p2n_llvm_passes[0];

const pass_desc *pass_find(const char *name) {
    for (unsigned i = 0; i < p2n_llvm_npasses; i++)
        if (strcmp(p2n_llvm_passes[i].name, name) == 0) return &p2n_llvm_passes[i];
    return NULL;
}
