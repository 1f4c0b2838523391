/* host_entries.c — entries of the host thread-loop fast path (host_emit.h) and host-native CPU attributes.
 *
 * A kernel that may run its threads sequentially (thread_loop.c) is emitted as
 *     internal alwaysinline void K.body(params, ctx, tid.x, tid.y, tid.z, laneid, warpid, i1 fiber)
 *     void K(params, ctx)        fiber entry: K.body(params, ctx, ctx->tid..., ctx->laneid, ctx->warpid, true)
 *     void K.block(params, ctx)  for z, y, x over ctx->ntid: K.body(params, ctx, x, y, z, t & 31, t >> 5, false)
 * Inlined into K.block, the body sees the thread coordinates as loop induction variables and ntid/ctaid/params
 * as loop invariants (params and ctx are noalias: kernel memory never overlaps them), so LLVM hoists them and
 * may vectorise across threads. `fiber` guards the loop back-edge yields: false in K.block, where nothing can
 * wait for another thread. The body writes its coordinates into ctx only before calls (runtime or device
 * functions), which read them from there (trap/assert messages, printf, %tid in device functions).
 */
#include <llvm-c/TargetMachine.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_emit.h"
#include "host_abi.h"

static void fn_attr(emit_ctx *E, LLVMValueRef fn, unsigned idx, const char *name) {
    unsigned k = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAddAttributeAtIndex(fn, idx, LLVMCreateEnumAttribute(E->C, k, 0));
}

static LLVMValueRef named_fn(emit_ctx *E, uint32_t fi, const char *suffix, LLVMTypeRef ty) {
    const char *k = ir_str(E->m, E->m->funcs[fi].name);
    size_t n = strlen(k) + strlen(suffix) + 1;
    char *name = malloc(n);
    if (!name) return NULL;
    snprintf(name, n, "%s%s", k, suffix);
    LLVMValueRef fn = LLVMAddFunction(E->M, name, ty);
    free(name);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    fn_attr(E, fn, LLVMAttributeFunctionIndex, "nounwind");
    /* kernel parameters are read-only and no kernel pointer reaches the runtime's ctx */
    fn_attr(E, fn, 1, "noalias");
    fn_attr(E, fn, 2, "noalias");
    return fn;
}

static LLVMTypeRef body_type(emit_ctx *E) {
    LLVMTypeRef a[8] = {E->ptr, E->ptr, E->i32, E->i32, E->i32, E->i32, E->i32, E->i1};
    return LLVMFunctionType(E->vd, a, 8, 0);
}

/* params and ctx are whole objects of known size: their loads may be hoisted out of conditional code */
static void deref_attrs(emit_ctx *E, uint32_t fi, LLVMValueRef fn) {
    const ir_func *f = &E->m->funcs[fi];
    uint64_t pb = 0;
    for (uint32_t i = 0; i < f->sig.nparam; i++)
        if (E->var_off[f->sig.param[i]] + E->var_size[f->sig.param[i]] > pb)
            pb = E->var_off[f->sig.param[i]] + E->var_size[f->sig.param[i]];
    unsigned k = LLVMGetEnumAttributeKindForName("dereferenceable", 15);
    if (pb) LLVMAddAttributeAtIndex(fn, 1, LLVMCreateEnumAttribute(E->C, k, pb));
    LLVMAddAttributeAtIndex(fn, 2, LLVMCreateEnumAttribute(E->C, k, sizeof(p2n_thread_ctx)));
}

void tl_begin(emit_ctx *E, uint32_t fi) {
    LLVMValueRef fn = named_fn(E, fi, ".body", body_type(E));
    fn_attr(E, fn, LLVMAttributeFunctionIndex, "alwaysinline");
    deref_attrs(E, fi, fn);
    E->cur = fn;
    for (unsigned i = 0; i < 5; i++) E->tl_args[i] = LLVMGetParam(fn, 2 + i);
    E->tl_fiber = LLVMGetParam(fn, 7);
}

static LLVMValueRef load_ctx(emit_ctx *E, LLVMValueRef ctx, unsigned off) {
    LLVMValueRef o = c64(E, off);
    return LLVMBuildLoad2(E->B, E->i32, LLVMBuildGEP2(E->B, E->i8, ctx, &o, 1, ""), "");
}

/* for (v = 0; v < n; v++) with v in an alloca: returns the body block; *latch gets the increment block */
typedef struct loop3 { LLVMValueRef var; LLVMBasicBlockRef head, body, next; } loop3;

static loop3 loop_open(emit_ctx *E, LLVMValueRef fn, LLVMValueRef var, LLVMValueRef n, LLVMBasicBlockRef after) {
    loop3 L = {var, LLVMAppendBasicBlockInContext(E->C, fn, "head"), LLVMAppendBasicBlockInContext(E->C, fn, "body"),
               LLVMAppendBasicBlockInContext(E->C, fn, "next")};
    LLVMBuildStore(E->B, c32(E, 0), var);
    LLVMBuildBr(E->B, L.head);
    LLVMPositionBuilderAtEnd(E->B, L.head);
    LLVMValueRef v = LLVMBuildLoad2(E->B, E->i32, var, "");
    LLVMBuildCondBr(E->B, LLVMBuildICmp(E->B, LLVMIntULT, v, n, ""), L.body, after);
    LLVMPositionBuilderAtEnd(E->B, L.next);
    LLVMBuildStore(E->B, LLVMBuildAdd(E->B, LLVMBuildLoad2(E->B, E->i32, var, ""), c32(E, 1), ""), var);
    LLVMBuildBr(E->B, L.head);
    LLVMPositionBuilderAtEnd(E->B, L.body);
    return L;
}

void tl_finish(emit_ctx *E, uint32_t fi) {
    LLVMValueRef body = E->cur, entry = E->fn[fi];
    LLVMTypeRef bt = body_type(E);
    E->tl_fiber = NULL;
    memset(E->tl_args, 0, sizeof E->tl_args);

    /* fiber entry: the runtime set this thread's coordinates in ctx */
    LLVMPositionBuilderAtEnd(E->B, LLVMAppendBasicBlockInContext(E->C, entry, "entry"));
    LLVMValueRef p = LLVMGetParam(entry, 0), ctx = LLVMGetParam(entry, 1);
    LLVMValueRef a[8] = {p, ctx, load_ctx(E, ctx, CTX_TID), load_ctx(E, ctx, CTX_TID + 4), load_ctx(E, ctx, CTX_TID + 8),
                         load_ctx(E, ctx, CTX_LANEID), load_ctx(E, ctx, CTX_WARPID), LLVMConstInt(E->i1, 1, 0)};
    LLVMBuildCall2(E->B, bt, body, a, 8, "");
    LLVMBuildRetVoid(E->B);

    /* block entry: the block's threads in the fiber runtime's order (x fastest), linear index t */
    LLVMValueRef blk = named_fn(E, fi, ".block", E->kern_ty);
    E->block_fn[fi] = blk;
    deref_attrs(E, fi, blk);
    LLVMPositionBuilderAtEnd(E->B, LLVMAppendBasicBlockInContext(E->C, blk, "entry"));
    p = LLVMGetParam(blk, 0);
    ctx = LLVMGetParam(blk, 1);
    LLVMValueRef nx = load_ctx(E, ctx, CTX_NTID), ny = load_ctx(E, ctx, CTX_NTID + 4);
    LLVMValueRef nz = load_ctx(E, ctx, CTX_NTID + 8);
    LLVMValueRef vz = LLVMBuildAlloca(E->B, E->i32, "z"), vy = LLVMBuildAlloca(E->B, E->i32, "y");
    LLVMValueRef vx = LLVMBuildAlloca(E->B, E->i32, "x"), vt = LLVMBuildAlloca(E->B, E->i32, "t");
    LLVMBuildStore(E->B, c32(E, 0), vt);
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(E->C, blk, "done");
    loop3 lz = loop_open(E, blk, vz, nz, done);
    loop3 ly = loop_open(E, blk, vy, ny, lz.next);
    loop3 lx = loop_open(E, blk, vx, nx, ly.next);
    (void)lx;
    LLVMValueRef t = LLVMBuildLoad2(E->B, E->i32, vt, "");
    LLVMValueRef b[8] = {p, ctx, LLVMBuildLoad2(E->B, E->i32, vx, ""), LLVMBuildLoad2(E->B, E->i32, vy, ""),
                         LLVMBuildLoad2(E->B, E->i32, vz, ""), LLVMBuildAnd(E->B, t, c32(E, 31), ""),
                         LLVMBuildLShr(E->B, t, c32(E, 5), ""), LLVMConstInt(E->i1, 0, 0)};
    LLVMBuildCall2(E->B, bt, body, b, 8, "");
    LLVMBuildStore(E->B, LLVMBuildAdd(E->B, t, c32(E, 1), ""), vt);
    LLVMBuildBr(E->B, lx.next);
    LLVMPositionBuilderAtEnd(E->B, done);
    LLVMBuildRetVoid(E->B);
}

void tl_sync_ctx(emit_ctx *E) {
    if (!E->tl_fiber) return;
    static const unsigned off[5] = {CTX_TID, CTX_TID + 4, CTX_TID + 8, CTX_LANEID, CTX_WARPID};
    for (unsigned i = 0; i < 5; i++) LLVMBuildStore(E->B, E->tl_args[i], gep8(E, E->ctx, c64(E, off[i])));
}

/* ---------------------------------------------------------------- host-native */

void host_native_attrs(emit_ctx *E) {
    char *cpu = LLVMGetHostCPUName(), *feat = LLVMGetHostCPUFeatures();
    for (LLVMValueRef fn = LLVMGetFirstFunction(E->M); fn; fn = LLVMGetNextFunction(fn)) {
        if (LLVMIsDeclaration(fn)) continue;
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                LLVMCreateStringAttribute(E->C, "target-cpu", 10, cpu, (unsigned)strlen(cpu)));
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                LLVMCreateStringAttribute(E->C, "target-features", 15, feat, (unsigned)strlen(feat)));
    }
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(feat);
}

bool host_native_fma(void) {
    char *feat = LLVMGetHostCPUFeatures();
    bool yes = false;
    for (const char *s = feat; s && (s = strstr(s, "+fma")) != NULL; s += 4)
        if ((s == feat || s[-1] == ',') && (s[4] == ',' || s[4] == 0)) yes = true;
    LLVMDisposeMessage(feat);
    return yes;
}
