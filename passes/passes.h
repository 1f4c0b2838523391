/* passes.h — the IR rewrite passes. One pass per file, named by what it does, Mesa-style:
 *     bool pass_name(ir_module *m, const pass_options *opt);   returns whether it changed anything.
 * The pass manager runs the verifier after each pass in debug and test builds (P2N_VERIFY_PASSES). */
#ifndef P2N_PASSES_H
#define P2N_PASSES_H

#include <stdbool.h>

#include "diag.h"
#include "ir.h"

typedef struct pass_options {
    unsigned warp_size;       /* lanes per hardware wave/sub-group the target runs a CUDA warp on */
    int no_fmad;              /* --fmad=false recorded in a fatbin */
    p2n_diags *diags;         /* unsupported-PTX diagnostics name the instruction and its line */
    int generic_is_global;    /* the target's .global addresses are generic addresses (host) */
    int lacks_forward_progress; /* P2N_LACKS_FORWARD_PROGRESS: work-items of a group run one after another */
} pass_options;

typedef bool (*pass_fn)(ir_module *m, const pass_options *opt);

typedef struct pass_desc {
    const char *name;
    pass_fn run;
} pass_desc;

/* Runs `passes` in order. Returns false when a pass reported an error (diagnostics say which) or the
 * verifier rejected a pass's output (an internal error: `internal` is set and `diags` has the details). */
bool run_passes(ir_module *m, const pass_desc *passes, unsigned n, const pass_options *opt, bool *internal);

/* ---- the passes (one per file) */
bool pass_strip_debug(ir_module *m, const pass_options *opt);    /* drop .loc / .pragma pseudo-ops */
bool pass_simplify_cvta(ir_module *m, const pass_options *opt);  /* cvta{.to}.global/.const/.param -> mov */
bool pass_defer_early_exits(ir_module *m, const pass_options *opt);      /* exits before barriers (no progress) */
bool pass_synchronize_wait_loops(ir_module *m, const pass_options *opt); /* mbarrier waits in step (no progress) */

/* what the LLVM targets run before emission, in order */
extern const pass_desc p2n_llvm_passes[];
extern const unsigned p2n_llvm_npasses;
/* looks a pass up by name (tests) */
const pass_desc *pass_find(const char *name);

#endif
