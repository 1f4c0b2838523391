/* host_descriptor.c — the host's binary descriptor __p2n_module (host_abi.h p2n_module_desc): the kernels (entry,
 * parameter layout, shared/local sizes, ntid bounds, flags, thread-loop entry) and the initialised globals, written
 * from emission's description (emit.h emit_desc) once every body exists; the CPU runtime's loader reads it. */
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "host_emit.h"

static LLVMValueRef cstr(emit_ctx *E, const char *s) {
    LLVMValueRef init = LLVMConstStringInContext2(E->C, s, strlen(s), 0);
    LLVMValueRef g = LLVMAddGlobal(E->M, LLVMTypeOf(init), ".str");
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    return g;
}

static LLVMValueRef u32_array(emit_ctx *E, const uint32_t *v, unsigned n) {
    if (!n) return LLVMConstNull(E->ptr);
    LLVMValueRef *c = malloc(n * sizeof *c);
    for (unsigned i = 0; i < n; i++) c[i] = c32(E, v[i]);
    LLVMValueRef init = LLVMConstArray2(E->i32, c, n);
    free(c);
    LLVMValueRef g = LLVMAddGlobal(E->M, LLVMTypeOf(init), ".u32s");
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    return g;
}

/* The host's binary descriptor __p2n_module (host_abi.h p2n_module_desc), written from the description. */
void host_emit_descriptor(emit_ctx *E, const emit_desc *D) {
    LLVMTypeRef a3 = LLVMArrayType2(E->i32, 3);
    LLVMTypeRef kt_el[] = {E->ptr, E->ptr, E->i32, E->ptr, E->ptr, E->i32, E->i32, E->i32, E->i32, a3, a3, E->i32,
                           E->ptr};
    LLVMTypeRef kt = LLVMStructTypeInContext(E->C, kt_el, 13, 0);
    LLVMTypeRef gt_el[] = {E->ptr, E->ptr, E->i64};
    LLVMTypeRef gt = LLVMStructTypeInContext(E->C, gt_el, 3, 0);
    LLVMTypeRef mt_el[] = {E->i32, E->i32, E->ptr, E->i32, E->ptr};
    LLVMTypeRef mt = LLVMStructTypeInContext(E->C, mt_el, 5, 0);

    LLVMValueRef *ks = calloc(D->nkernels + 1, sizeof *ks);
    unsigned nk = 0;
    for (uint32_t ki = 0; ki < D->nkernels; ki++) {
        const emit_kernel *k = &D->kernels[ki];
        uint32_t fi = k->func, np = k->nparams;
        uint32_t *offs = calloc(np + 1, 4), *sizes = calloc(np + 1, 4);
        for (uint32_t i = 0; i < np; i++) {
            offs[i] = (uint32_t)k->params[i].offset;
            sizes[i] = (uint32_t)k->params[i].size;
        }
        LLVMValueRef mx[3], rq[3];
        for (int c = 0; c < 3; c++) {
            mx[c] = c32(E, k->maxntid[c]);
            rq[c] = c32(E, k->reqntid[c]);
        }
        LLVMValueRef el[] = {cstr(E, k->name), E->fn[fi], c32(E, np), u32_array(E, offs, np),
                             u32_array(E, sizes, np), c32(E, (uint32_t)k->param_bytes), c32(E, k->static_smem),
                             c32(E, D->dyn_align), c32(E, (uint32_t)k->local_bytes), LLVMConstArray2(E->i32, mx, 3),
                             LLVMConstArray2(E->i32, rq, 3), c32(E, k->flags),
                             E->block_fn[fi] ? E->block_fn[fi] : LLVMConstNull(E->ptr)};
        ks[nk++] = LLVMConstNamedStruct(kt, el, 13);
        free(offs);
        free(sizes);
    }
    LLVMValueRef *gs = calloc(D->nglobals + 1, sizeof *gs);
    unsigned ng = 0;
    for (uint32_t i = 0; i < D->nglobals; i++) {
        const emit_global *g = &D->globals[i];
        if (!g->initialized) continue;
        LLVMValueRef el[] = {cstr(E, g->name), E->gvar[g->var], c64(E, g->size)};
        gs[ng++] = LLVMConstNamedStruct(gt, el, 3);
    }
    LLVMValueRef karr = LLVMConstNull(E->ptr), garr = LLVMConstNull(E->ptr);
    if (nk) {
        LLVMValueRef init = LLVMConstArray2(kt, ks, nk);
        karr = LLVMAddGlobal(E->M, LLVMTypeOf(init), "__p2n_kernels");
        LLVMSetInitializer(karr, init);
        LLVMSetGlobalConstant(karr, 1);
        LLVMSetLinkage(karr, LLVMPrivateLinkage);
    }
    if (ng) {
        LLVMValueRef init = LLVMConstArray2(gt, gs, ng);
        garr = LLVMAddGlobal(E->M, LLVMTypeOf(init), "__p2n_globals");
        LLVMSetInitializer(garr, init);
        LLVMSetGlobalConstant(garr, 1);
        LLVMSetLinkage(garr, LLVMPrivateLinkage);
    }
    LLVMValueRef mel[] = {c32(E, P2N_HOST_ABI_VERSION), c32(E, nk), karr, c32(E, ng), garr};
    LLVMValueRef md = LLVMAddGlobal(E->M, mt, "__p2n_module");
    LLVMSetInitializer(md, LLVMConstNamedStruct(mt, mel, 5));
    LLVMSetGlobalConstant(md, 1);
    LLVMSetVisibility(md, LLVMDefaultVisibility);
    free(ks);
    free(gs);
}
