/* defer_unsupported.c — p2n_options.defer_unsupported: a kernel that cannot run on the target (or on the device
 * the driver stub found, p2n_options.device_lacks) fails when it is launched, not the module when it is loaded.
 *
 * Why: CUDA loads a module whatever its kernels do; an application (or a test) that never launches the kernel
 * with a clock read or a warp shuffle must still be able to run the others of the same module.
 * How: emit_unsupported asks defer_note first; a deferred construct marks the function being emitted (its first
 * reason and PTX position are kept) and is reported as a warning. After every body is emitted, defer_finish
 *  - propagates "unsupported" up the PTX call graph (direct calls; an indirect call may reach any function whose
 *    address is taken), the position staying the innermost one (or the call site when the callee has none);
 *  - replaces every marked kernel by a stub that fails its launch with CUDA_ERROR_NOT_SUPPORTED and the message
 *    "kernel 'K': <diagnostic> at file:line:col", and every .func that itself holds unsupported code (its body
 *    is half emitted) by a stub that does the same (reachable only from stubbed kernels, so never run);
 *  - leaves out of the module every kernel that reaches a DEFER_ABSENT construct (emit_unsupported_as: txq of
 *    an attribute NVIDIA's JIT does not compile, whose kernel its cuModuleGetFunction does not find): no
 *    function, no kernel table entry, no wrapper; the warning names the kernel (DEFER_NEVER constructs are
 *    never deferred: NVIDIA refuses the whole module);
 *  - drops the declarations the half-emitted bodies left unused (SPIR-V: a declared sub-group built-in would
 *    still make the module unbuildable on a device without sub-groups).
 * Stubs per target: SPIR-V: the trap marker with code 3 (spirv_trap.c; the OpenCL runtime reports 801 and
 * prints the message); host: rt->assertfail with char_size P2N_ASSERT_NOT_SUPPORTED (host_abi.h; the CPU
 * runtime reports 801 and prints the message); AMDGPU: llvm.trap (no message: no HIP runtime path yet). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "host_abi.h"

typedef struct defer_fn {
    char *text;            /* the diagnostic, NULL = supported */
    uint32_t line, col;    /* PTX position, 0 = none known */
    bool own;              /* the body holds the unsupported construct (half emitted) */
    defer_kind kind;       /* DEFER_ABSENT wins over DEFER_STUB (the kernel is not compiled at all) */
    LLVMValueRef body_fn;  /* the LLVM function the body was emitted into */
} defer_fn;

struct defer_state {
    defer_fn *fn; /* per IR function */
    unsigned nmarked;
};

bool defer_supported_target(const target_desc *t) { return t->hooks || t->rt_table; }

bool defer_note(emit_ctx *E, const char *text) { return defer_note_as(E, text, DEFER_STUB); }

/* df takes `text` at line:col as its reason unless it already has one of the same or a higher kind (the first
 * reason of the highest kind reached is the one reported), and at least `kind`; true when either changed */
static bool take_reason(defer_fn *df, const char *text, defer_kind kind, uint32_t line, uint32_t col) {
    bool changed = false;
    if (df->text && kind > df->kind) {
        free(df->text);
        df->text = NULL;
    }
    if (!df->text) {
        df->text = strdup(text);
        df->line = line;
        df->col = col;
        changed = true;
    }
    if (kind > df->kind) {
        df->kind = kind;
        changed = true;
    }
    return changed;
}

bool defer_note_as(emit_ctx *E, const char *text, defer_kind kind) {
    if (!E->defer_unsupported || !E->f || !defer_supported_target(E->t)) return false;
    if (!E->defer) {
        E->defer = calloc(1, sizeof *E->defer);
        E->defer->fn = calloc(E->m->nfuncs + 1, sizeof *E->defer->fn);
    }
    defer_fn *df = &E->defer->fn[E->fidx];
    if (!df->text) E->defer->nmarked++;
    take_reason(df, text, kind, E->ins ? E->ins->line : 0, E->ins ? E->ins->col : 0);
    df->own = true;
    df->body_fn = E->cur;
    return true;
}

/* ---------------------------------------------------------------- call graph */

static bool opnd_has_func(const ir_operand *o) {
    if (o->kind == IR_OPND_FUNC) return true;
    if (o->kind == IR_OPND_VEC || o->kind == IR_OPND_LIST) {
        const ir_operand *e = ir_elems(o);
        for (unsigned i = 0; i < o->aux; i++)
            if (opnd_has_func(&e[i])) return true;
    }
    return false;
}

/* position of a call's target operand (after an optional return list) */
static unsigned call_target(const ir_ins *ins) { return ins->nops && ins->ops[0].kind == IR_OPND_LIST ? 1 : 0; }

/* functions whose address is taken (operands outside a call's target position, initializers) */
static bool *address_taken(const ir_module *m) {
    bool *at = calloc(m->nfuncs + 1, sizeof *at);
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
        const ir_func *f = &m->funcs[fi];
        for (uint32_t b = 0; b < f->nblocks; b++)
            for (uint32_t i = 0; i < f->blocks[b].n; i++) {
                const ir_ins *ins = &f->blocks[b].ins[i];
                for (unsigned k = 0; k < ins->nops; k++) {
                    if (ins->op == IR_OP_CALL && k == call_target(ins)) continue;
                    const ir_operand *o = &ins->ops[k];
                    if (o->kind == IR_OPND_FUNC && o->id < m->nfuncs) at[o->id] = true;
                    else if (opnd_has_func(o)) /* in a list: mark every function named there */
                        for (unsigned e = 0; e < o->aux; e++)
                            if (ir_elems(o)[e].kind == IR_OPND_FUNC && ir_elems(o)[e].id < m->nfuncs)
                                at[ir_elems(o)[e].id] = true;
                }
            }
    }
    for (uint32_t v = 0; v < m->nvars; v++)
        for (uint32_t k = 0; k < m->vars[v].ninit; k++)
            if (m->vars[v].init[k].kind == IR_INIT_FUNC && m->vars[v].init[k].sym < m->nfuncs)
                at[m->vars[v].init[k].sym] = true;
    return at;
}

/* g reaches callee: g is marked with callee's reason and position (the call's when callee has none), unless g
 * has its own of the same or a higher kind, and at least callee's kind; true when that changed g */
static bool mark_from(defer_fn *g, const defer_fn *callee, const ir_ins *call) {
    return take_reason(g, callee->text, callee->kind, callee->line ? callee->line : call->line,
                       callee->line ? callee->col : call->col);
}

/* Marks every function that reaches a marked one (with the highest kind it reaches), to a fixpoint. */
static void propagate(emit_ctx *E) {
    const ir_module *m = E->m;
    defer_fn *df = E->defer->fn;
    bool *at = address_taken(m);
    for (bool changed = true; changed;) {
        changed = false;
        /* what an indirect call may reach: the first marked address-taken function of the highest kind */
        int32_t indirect = -1;
        for (uint32_t fi = 0; fi < m->nfuncs; fi++)
            if (df[fi].text && at[fi] && !m->funcs[fi].is_entry && (indirect < 0 || df[fi].kind > df[indirect].kind))
                indirect = (int32_t)fi;
        for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
            const ir_func *f = &m->funcs[fi];
            if (df[fi].kind == DEFER_ABSENT || !f->has_body) continue; /* nothing more to learn */
            for (uint32_t b = 0; b < f->nblocks; b++)
                for (uint32_t i = 0; i < f->blocks[b].n; i++) {
                    const ir_ins *ins = &f->blocks[b].ins[i];
                    if (ins->op != IR_OP_CALL || call_target(ins) >= ins->nops) continue;
                    const ir_operand *t = &ins->ops[call_target(ins)];
                    if (t->kind == IR_OPND_FUNC && t->id < m->nfuncs && df[t->id].text)
                        changed |= mark_from(&df[fi], &df[t->id], ins);
                    else if (t->kind != IR_OPND_FUNC && indirect >= 0)
                        changed |= mark_from(&df[fi], &df[indirect], ins);
                }
        }
    }
    free(at);
}

/* ---------------------------------------------------------------- stubs */

/* A fresh function with F's type, name and attributes-that-matter takes F's place; F (with the half-emitted
 * or now pointless body) is deleted. Returns the new function, positioned at its entry. */
static LLVMValueRef replace_fn(emit_ctx *E, uint32_t fi) {
    LLVMValueRef old = E->fn[fi];
    LLVMValueRef nf = LLVMAddFunction(E->M, "", LLVMGlobalGetValueType(old));
    LLVMSetLinkage(nf, LLVMGetLinkage(old));
    unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
    LLVMAddAttributeAtIndex(nf, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(E->C, nounwind, 0));
    LLVMReplaceAllUsesWith(old, nf);
    size_t n;
    char *name = strdup(LLVMGetValueName2(old, &n));
    LLVMDeleteFunction(old);
    LLVMSetValueName2(nf, name, n);
    free(name);
    for (uint32_t j = 0; j < E->m->nfuncs; j++) /* fi itself, and any `.alias` name of it (emit_module.c) */
        if (E->fn[j] == old) E->fn[j] = nf;
    LLVMPositionBuilderAtEnd(E->B, LLVMAppendBasicBlockInContext(E->C, nf, "unsupported"));
    return nf;
}

static void build_stub(emit_ctx *E, uint32_t fi, const char *msg) {
    const ir_func *f = &E->m->funcs[fi];
    LLVMValueRef fn = replace_fn(E, fi);
    LLVMValueRef ctx = LLVMGetParam(fn, f->is_entry ? 1 : 0);
    if (E->t->hooks && E->t->hooks->stub_not_supported) {
        E->t->hooks->stub_not_supported(E, ctx, msg);
    } else if (E->t->rt_table) {
        E->ctx = ctx;
        E->tl_fiber = NULL; /* not a thread-loop body: no coordinates to store first */
        LLVMValueRef nul = LLVMConstNull(E->ptr);
        LLVMValueRef a[6] = {ctx, device_cstr(E, msg, ".p2n.unsupported"), nul, c32(E, 0), nul, c64(E, P2N_ASSERT_NOT_SUPPORTED)};
        rt_call(E, RT_ASSERTFAIL, E->vd, a, 6);
    } else {
        intrin(E, "llvm.trap", NULL, 0, NULL, 0);
    }
    LLVMBuildUnreachable(E->B);
}

static char *stub_message(emit_ctx *E, const char *what, uint32_t fi) {
    const defer_fn *df = &E->defer->fn[fi];
    const char *name = ir_str(E->m, E->m->funcs[fi].name);
    uint32_t line = df->line;
    const char *file = diag_locate(E->d, &line); /* the input it came from, when modules were linked */
    size_t n = strlen(what) + strlen(name) + strlen(df->text) + strlen(file) + 64;
    char *s = malloc(n);
    if (df->line) snprintf(s, n, "%s '%s': %s at %s:%u:%u", what, name, df->text, file, line, df->col);
    else snprintf(s, n, "%s '%s': %s", what, name, df->text);
    return s;
}

/* A DEFER_ABSENT kernel leaves the module: its function (and thread-loop entry) is deleted and the IR marks it
 * bodiless, so that no kernel table, wrapper or metadata names it (emit_descriptor and the SPIR-V and
 * AMDGPU kernel-wrapper passes skip kernels without a body). False when something still uses the function. */
static bool drop_kernel(emit_ctx *E, uint32_t fi) {
    defer_fn *df = &E->defer->fn[fi];
    LLVMValueRef k = E->fn[fi];
    if (LLVMGetFirstUse(k) || (E->block_fn && E->block_fn[fi] && LLVMGetFirstUse(E->block_fn[fi]))) return false;
    LLVMValueRef body = df->body_fn && df->body_fn != k && (!E->block_fn || df->body_fn != E->block_fn[fi])
                      ? df->body_fn : NULL;
    LLVMDeleteFunction(k);
    E->fn[fi] = NULL;
    if (E->block_fn && E->block_fn[fi]) {
        LLVMDeleteFunction(E->block_fn[fi]);
        E->block_fn[fi] = NULL;
    }
    if (body && !LLVMGetFirstUse(body)) LLVMDeleteFunction(body);
    E->m->funcs[fi].has_body = false;
    return true;
}

void defer_finish(emit_ctx *E) {
    struct defer_state *D = E->defer;
    if (!D) return;
    if (!E->failed) {
        propagate(E);
        const ir_module *m = E->m;
        for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
            defer_fn *df = &D->fn[fi];
            const ir_func *f = &m->funcs[fi];
            if (!df->text || !(f->is_entry || df->own)) continue;
            if (f->is_entry && df->kind == DEFER_ABSENT && drop_kernel(E, fi)) {
                char *msg = stub_message(E, "kernel", fi);
                diag_plain(E->d, "warning", "%s: the kernel is left out of the module", msg);
                free(msg);
                continue;
            }
            LLVMValueRef body = df->body_fn && df->body_fn != E->fn[fi] ? df->body_fn : NULL;
            char *msg = stub_message(E, f->is_entry ? "kernel" : "function", fi);
            build_stub(E, fi, msg);
            free(msg);
            if (E->block_fn && E->block_fn[fi]) { /* host thread-loop entry: the stub has none */
                LLVMDeleteFunction(E->block_fn[fi]);
                E->block_fn[fi] = NULL;
            }
            if (body && df->own && !LLVMGetFirstUse(body)) LLVMDeleteFunction(body);
        }
        /* declarations only the replaced bodies used */
        for (LLVMValueRef g = LLVMGetFirstFunction(E->M), ng; g; g = ng) {
            ng = LLVMGetNextFunction(g);
            if (LLVMIsDeclaration(g) && !LLVMGetIntrinsicID(g) && !LLVMGetFirstUse(g)) LLVMDeleteFunction(g);
        }
    }
    for (uint32_t fi = 0; fi < E->m->nfuncs; fi++) free(D->fn[fi].text);
    free(D->fn);
    free(D);
    E->defer = NULL;
}
