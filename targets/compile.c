/* compile.c — p2n_compile(): the pipeline front end -> verifier -> passes -> target, in process. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fork_gate.h"
#include "ir.h"
#include "parser.h"
#include "passes.h"
#include "link_modules.h"
#include "ptx2native.h"
#include "target.h"
#include "llvm/codegen.h"
#include "llvm/emit.h"
#include "llvm/llvm_pass.h"
#include "support.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>

static const char *const *names_list(void) {
    static const char *names[32];
    if (!names[0]) {
        unsigned n;
        const target_desc *const *t = target_all(&n);
        for (unsigned i = 0; i < n && i < 31; i++) names[i] = t[i]->name;
    }
    return names;
}

const char *const *p2n_target_names(void) { return names_list(); }

int p2n_target_ready(const char *arch) {
    const target_desc *t = arch ? target_find(arch) : NULL;
    return t && t->ready;
}

/* LLVM's registration of every target (target_desc.init_llvm, each function once), before the first emission
 * and before llvm_codegen parses the process-global LLVM options */
static pthread_once_t backends_once = PTHREAD_ONCE_INIT;
static void init_backends(void) {
    unsigned nt;
    const target_desc *const *all = target_all(&nt);
    for (unsigned i = 0; i < nt; i++) {
        bool seen = false;
        for (unsigned k = 0; k < i; k++) seen |= all[k]->init_llvm == all[i]->init_llvm;
        if (!seen && all[i]->init_llvm) all[i]->init_llvm();
        for (const char *const *o = all[i]->llvm_options; o && *o; o++) llvm_add_global_option(*o);
    }
}

#include "build_id.h"
/* Version + a hash of the compiler's sources (cmake/BuildId.cmake): part of every cache key, so a new build
 * never reuses code compiled by an old one. */
const char *p2n_build_id(void) { return "ptx2native-" P2N_VERSION_STRING "-" P2N_BUILD_ID; }

void p2n_result_free(p2n_result *r) {
    if (!r) return;
    free(r->data);
    free(r->diagnostics);
    memset(r, 0, sizeof *r);
}

static p2n_status finish(p2n_result *out, p2n_diags *d, p2n_status st) {
    out->status = st;
    out->diagnostics = d->text ? d->text : calloc(1, 1);
    d->text = NULL;
    if (st != P2N_OK) {
        free(out->data);
        out->data = NULL;
        out->size = 0;
    }
    return st;
}

static p2n_status compile_ir(ir_module *m, const target_desc *target, const p2n_options *opt, p2n_diags *dp,
                             p2n_result *out, double t_parse);

/* Parses one input into *m (NULL after errors, reported in d under the input's name). */
static ir_module *parse_input(const p2n_input *in, p2n_diags *d) {
    d->file = in->filename ? in->filename : "<input>";
    size_t len = in->len;
    /* fatbin payloads end in NULs; they are not part of the text */
    while (len && in->ptx[len - 1] == 0) len--;
    if (memchr(in->ptx, 0, len)) {
        diag_plain(d, "error", "input contains NUL bytes: not PTX text");
        return NULL;
    }
    unsigned errors0 = d->nerrors;
    ir_module *m = ptx_parse(in->ptx, len, d);
    if (d->nerrors != errors0) {
        ir_module_free(m);
        return NULL;
    }
    return m;
}

static p2n_status compile_inputs(const p2n_input *inputs, unsigned n, bool link, const p2n_options *opt,
                                 p2n_result *out);

/* every compile holds the fork gate: SPIR-V code generation forks, and must not do it while this thread is in
 * the middle of an allocation or of libLLVM (fork_gate.h) */
static p2n_status compile_gated(const p2n_input *inputs, unsigned n, bool link, const p2n_options *opt,
                                p2n_result *out) {
    p2n_fork_gate_enter();
    p2n_status st = compile_inputs(inputs, n, link, opt, out);
    p2n_fork_gate_leave();
    return st;
}

p2n_status p2n_compile(const char *ptx, size_t len, const char *filename, const p2n_options *opt,
                       p2n_result *out) {
    p2n_input in = {ptx, len, filename};
    return compile_gated(&in, 1, false, opt, out);
}

p2n_status p2n_compile_linked(const p2n_input *inputs, unsigned n, const p2n_options *opt, p2n_result *out) {
    return compile_gated(inputs, n, true, opt, out);
}

/* link: resolve symbols (passes/link_modules.c) even for one input, so that an .extern nothing defines is a
 * link error; without it (p2n_compile) the module compiles alone, its externs left to the target. */
static p2n_status compile_inputs(const p2n_input *inputs, unsigned n, bool link, const p2n_options *opt,
                                 p2n_result *out) {
    memset(out, 0, sizeof *out);
    p2n_options defaults = {.opt_level = 2};
    if (!opt) opt = &defaults;
    p2n_diags d = {.file = n && inputs[0].filename ? inputs[0].filename : "<input>"};
    const char *arch = opt->arch ? opt->arch : "host";
    const target_desc *target = target_find(arch);
    if (!target) {
        diag_plain(&d, "error", "unknown target '%s' (see --print-targets)", arch);
        return finish(out, &d, P2N_BAD_INPUT);
    }
    if (!n) {
        diag_plain(&d, "error", "no PTX input");
        return finish(out, &d, P2N_BAD_INPUT);
    }
    double t_parse = p2n_now_s();
    if (n == 1 && !link) {
        ir_module *m = parse_input(&inputs[0], &d);
        if (!m) return finish(out, &d, P2N_BAD_INPUT);
        return compile_ir(m, target, opt, &d, out, p2n_now_s() - t_parse);
    }
    /* separate compilation: parse every input, then link them into one module (passes/link_modules.c) */
    ir_module **mods = calloc(n, sizeof *mods);
    const char **names = calloc(n, sizeof *names);
    uint32_t *lines = calloc(n, sizeof *lines), *seg_base = calloc(n, sizeof *seg_base);
    ir_module *m = NULL;
    if (!mods || !names || !lines || !seg_base) {
        diag_plain(&d, "error", "out of memory");
        goto out;
    }
    for (unsigned k = 0; k < n; k++) {
        names[k] = inputs[k].filename ? inputs[k].filename : "<input>";
        uint32_t nl = 1;
        for (size_t i = 0; i < inputs[k].len; i++) nl += inputs[k].ptx[i] == '\n';
        lines[k] = nl;
        mods[k] = parse_input(&inputs[k], &d);
    }
    d.file = names[0];
    if (!d.nerrors) m = link_modules(mods, names, lines, n, &d, seg_base);
out:
    for (unsigned k = 0; mods && k < n; k++) ir_module_free(mods[k]);
    free(mods);
    free(lines);
    p2n_status st = P2N_BAD_INPUT;
    if (m) st = compile_ir(m, target, opt, &d, out, p2n_now_s() - t_parse);
    else finish(out, &d, st);
    free(names);
    free(seg_base);
    return st;
}

/* The LLVM module of m for the target: emission, then the target's lowering pass list (target_desc.lower:
 * the recursion transform first, so that it sees ordinary functions, then the target's module lowering). False
 * after a diagnostic in d (*internal: a compiler bug); nothing to dispose of then. */
static bool emit_lowered(ir_module *m, const target_desc *target, const p2n_options *opt, p2n_diags *d,
                         emit_result *er, bool *internal) {
    if (!emit_module(m, target, opt, d, er, internal)) return false;
    llvm_pass_ctx X = {.C = er->C, .M = er->M, .m = m, .desc = er->desc, .t = target, .opt = opt, .d = d};
    bool ok = llvm_run_passes(target->lower, &X);
    *internal = X.internal;
    emit_desc_free(er->desc); /* what the lowering needed of the emission */
    er->desc = NULL;
    if (!ok) {
        LLVMDisposeModule(er->M);
        LLVMContextDispose(er->C);
    }
    return ok;
}

/* A second emission of the same module on a -j worker thread (llvm_early_start): emission is deterministic, so
 * the copy matches the caller's module item for item (split_apply checks the names). Its diagnostics repeat the
 * caller's and are dropped; verbose output (recursion notes) is the caller's alone. */
typedef struct emit_job {
    ir_module *m;
    const target_desc *target;
    const p2n_options *opt;
} emit_job;

static bool emit_copy(void *ctx, LLVMContextRef *C, LLVMModuleRef *M) {
    emit_job *j = ctx;
    p2n_options quiet = *j->opt;
    quiet.verbose = 0;
    p2n_diags d = {.file = "<copy>"};
    emit_result er;
    bool internal = false;
    bool ok = emit_lowered(j->m, j->target, &quiet, &d, &er, &internal);
    diag_free(&d);
    if (ok) { *C = er.C; *M = er.M; }
    return ok;
}

static unsigned count_kernels(const ir_module *m) {
    unsigned n = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++) n += m->funcs[i].is_entry && m->funcs[i].has_body;
    return n;
}

/* The rest of the pipeline on a parsed (and, for several inputs, linked) module; frees it. */
static p2n_status compile_ir(ir_module *m, const target_desc *target, const p2n_options *opt, p2n_diags *dp,
                             p2n_result *out, double t_parse) {
    p2n_diags d = *dp; /* by value below, as before; handed back through finish() */
    char *verr = NULL;
    if (!ir_verify(m, &verr)) {
        diag_plain(&d, "error", "internal compiler error: parser (or linker) produced invalid IR:\n%s", verr ? verr : "");
        free(verr);
        ir_module_free(m);
        return finish(out, &d, P2N_INTERNAL_ERROR);
    }
    free(verr);
    if (opt->emit == P2N_EMIT_IR) {
        out->data = (uint8_t *)ir_print_module(m, &out->size);
        ir_module_free(m);
        return finish(out, &d, P2N_OK);
    }
    if (!target->ready) {
        ir_module_free(m);
        diag_plain(&d, "error", "code generation for target '%s' (%s) is not implemented yet in this build; "
                   "only --emit=ir is available", target->name, target->description);
        return finish(out, &d, P2N_UNSUPPORTED);
    }
    pthread_once(&backends_once, init_backends);
    double t_pass = p2n_now_s();
    pass_options po = {.warp_size = target->wave_size, .no_fmad = opt->no_fmad, .diags = &d,
                       .generic_is_global = target->generic_is_global,
                       .lacks_forward_progress = (opt->device_lacks & P2N_LACKS_FORWARD_PROGRESS) != 0};
    bool internal = false;
    if (!run_passes(m, p2n_llvm_passes, p2n_llvm_npasses, &po, &internal)) {
        ir_module_free(m);
        return finish(out, &d, internal ? P2N_INTERNAL_ERROR : P2N_BAD_INPUT);
    }
    t_pass = p2n_now_s() - t_pass;
    double t_emit = p2n_now_s();
    /* -j N: the threads that will compile partitions emit their own copy of the module now, while this thread
     * emits (targets/llvm/parallel.c); not when emission may change the IR (deferred kernels leave it) */
    emit_job ej = {m, target, opt};
    llvm_early_workers *early = NULL;
    if (!opt->defer_unsupported) early = llvm_early_start(target, opt, count_kernels(m), emit_copy, &ej);
    emit_result er;
    if (!emit_lowered(m, target, opt, &d, &er, &internal)) {
        llvm_early_finish(early);
        ir_module_free(m);
        return finish(out, &d, internal ? P2N_INTERNAL_ERROR : P2N_UNSUPPORTED);
    }
    t_emit = p2n_now_s() - t_emit;
    if (!early) ir_module_free(m);
    double times[3] = {0, 0, 0};
    p2n_status st = llvm_codegen(er.C, er.M, target, opt, early, &d, &out->data, &out->size, times);
    if (early) {
        llvm_early_finish(early); /* they read m */
        ir_module_free(m);
    }
    if (opt->verbose)
        fprintf(stderr, "ptx2native: times: parse %.3fs passes %.3fs emit %.3fs opt %.3fs codegen %.3fs link %.3fs\n",
                t_parse, t_pass, t_emit, times[0], times[1], times[2]);
    return finish(out, &d, st);
}
