/* host_coro.c — coroutine entries of host kernels (abi/host_abi.h, "Coroutine entry").
 *
 * Why: on the CPU every CUDA thread of a kernel that waits for other threads (barriers, warp collectives, warp
 * matrix operations, spin loops that yield) runs on a fiber with a stack of its own, and a wait is a stack
 * switch: a block of 256 threads touches 256 stacks at every __syncthreads (about 30 ns per thread per barrier,
 * bench/cpu). LLVM's coroutine lowering (the switch ABI of C++20 coroutines, a library we keep rather than a
 * region splitter of our own) turns the kernel into a state machine whose frame holds only the values that are
 * live across a wait: resuming a thread is an indirect call, the whole block runs on one stack, and loops with
 * waits inside (tiled matmul, tree reductions) need no special shape.
 *
 * Which kernels: suspension must happen in the coroutine itself, so every wait must lie in the kernel's own
 * body. A kernel keeps fibers only (and P2N_VERBOSE says nothing: it simply has no coroutine entry) when
 *   - a function it calls (directly or not) waits, exits, or calls through a pointer;
 *   - it calls activemask (the runtime groups lanes by call site, and a resumed thread calls from another
 *     function than a started one) or isspacep.local (the runtime checks the thread's stack, and a coroutine's
 *     locals live in its frame);
 *   - it calls through a pointer, has an alloca outside its entry block or of variable size, or saves/restores
 *     the stack pointer;
 *   - it is a thread-loop kernel (it never waits: thread_loop.c).
 * The runtime calls are known by their shape (rt_slot below).
 *
 * The transform, on a copy K.coro of kernel K (K stays: P2N_CPU_CORO=0 runs fibers, and both ways must agree):
 *   entry:   id = coro.id(64, null, null, null); frame = rt->coro_frame(ctx, coro.size()); coro.begin(id, frame);
 *            ctx->coro_frame = frame
 *   wait:    r = rt->shfl(...)            ; unchanged call
 *            if (ctx->suspend) { switch (coro.suspend()) { 0: r = rt->coro_result(ctx, out); 1: cleanup;
 *                                                          default: return to the runtime } }
 *   ret / exit through the runtime: -> coro.free, coro.end, return
 * and K's descriptor entry gets coro_entry = K.coro and P2N_KERNEL_CORO. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm-c/Error.h>
#include "codegen.h"
#include "emit.h"
#include "host_coro.h"
#include "host_rt_calls.h"

enum { RT_CORO_FRAME = P2N_RT_SLOT(coro_frame), RT_CORO_RESULT = P2N_RT_SLOT(coro_result) };

/* the argument where a waiting call's second result goes (rt->coro_result's res2), -1: none */
static int slot_res2_arg(unsigned slot) {
    return slot == RT_SHFL ? 6 : slot == RT_MATCH_ALL ? 3 : slot == RT_ELECT ? 2 : -1;
}

/* Whether kernel k can have a coroutine entry (the rules at the top); true only if it waits somewhere. */
static bool kernel_fits(host_seen *S, LLVMValueRef k) {
    LLVMContextRef C = LLVMGetModuleContext(LLVMGetGlobalParent(k));
    LLVMTypeRef i32 = LLVMInt32TypeInContext(C), vd = LLVMVoidTypeInContext(C);
    unsigned save = LLVMLookupIntrinsicID("llvm.stacksave", 14), restore = LLVMLookupIntrinsicID("llvm.stackrestore", 17);
    bool waits = false;
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(k);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(k); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
            if (LLVMIsAAllocaInst(I)) {
                if (bb != entry || !LLVMIsAConstant(LLVMGetOperand(I, 0))) return false;
                continue;
            }
            if (!LLVMIsACallInst(I)) continue;
            int slot = host_rt_slot(I);
            if (slot >= 0) {
                if (slot == RT_ACTIVEMASK || slot == RT_IS_LOCAL) return false;
                if (host_slot_waits((unsigned)slot)) {
                    LLVMTypeRef rt = LLVMTypeOf(I);
                    if (rt != vd && rt != i32) return false; /* coro_result hands back 32 bits */
                    waits = true;
                }
                continue;
            }
            LLVMValueRef callee = LLVMGetCalledValue(I);
            if (LLVMIsAInlineAsm(callee)) continue;
            if (!LLVMIsAFunction(callee)) return false;
            unsigned id = LLVMGetIntrinsicID(callee);
            if (id && (id == save || id == restore)) return false;
            if (!host_callee_clean(S, callee)) return false;
        }
    return waits;
}

/* --------------------------------------------------------------------------------------------- transform */

typedef struct coro {
    LLVMContextRef C;
    LLVMModuleRef M;
    LLVMBuilderRef B;
    LLVMTypeRef ptr, i1, i8, i32, i64, vd, tok;
    LLVMValueRef ctx, id, hdl;
    LLVMBasicBlockRef cleanup, end;
} coro;

static LLVMValueRef call_intrinsic(coro *K, const char *name, LLVMTypeRef *ovl, size_t novl, LLVMValueRef *args,
                                   unsigned nargs) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(K->M, id, ovl, novl);
    return LLVMBuildCall2(K->B, LLVMIntrinsicGetType(K->C, id, ovl, novl), fn, args, nargs, "");
}

/* rt->slot(args) through ctx->rt, as emit_ops.c rt_call emits it */
static LLVMValueRef call_rt(coro *K, unsigned slot, LLVMTypeRef ret, LLVMValueRef *args, unsigned nargs) {
    LLVMValueRef o = LLVMConstInt(K->i64, CTX_RT, 0);
    LLVMValueRef rt = LLVMBuildLoad2(K->B, K->ptr, LLVMBuildGEP2(K->B, K->i8, K->ctx, &o, 1, ""), "");
    o = LLVMConstInt(K->i64, 8 + 8 * (uint64_t)slot, 0);
    LLVMValueRef fn = LLVMBuildLoad2(K->B, K->ptr, LLVMBuildGEP2(K->B, K->i8, rt, &o, 1, ""), "");
    LLVMTypeRef at[2];
    for (unsigned i = 0; i < nargs; i++) at[i] = LLVMTypeOf(args[i]);
    return LLVMBuildCall2(K->B, LLVMFunctionType(ret, at, nargs, 0), fn, args, nargs, "");
}

/* After waiting call I: suspend when the runtime said so, and take the result from rt->coro_result once resumed. */
static void add_suspend(coro *K, LLVMValueRef I, unsigned slot) {
    LLVMBasicBlockRef pre = LLVMGetInstructionParent(I);
    LLVMValueRef fn = LLVMGetBasicBlockParent(pre);
    LLVMBasicBlockRef cont = llvm_split_after(K->C, K->B, I);
    LLVMBasicBlockRef susp = LLVMAppendBasicBlockInContext(K->C, fn, "coro.suspend");
    LLVMBasicBlockRef resumed = LLVMAppendBasicBlockInContext(K->C, fn, "coro.resumed");
    LLVMMoveBasicBlockAfter(susp, pre);
    LLVMMoveBasicBlockAfter(resumed, susp);

    LLVMPositionBuilderAtEnd(K->B, pre);
    LLVMValueRef o = LLVMConstInt(K->i64, offsetof(p2n_thread_ctx, suspend), 0);
    LLVMValueRef flag = LLVMBuildLoad2(K->B, K->i32, LLVMBuildGEP2(K->B, K->i8, K->ctx, &o, 1, ""), "");
    LLVMBuildCondBr(K->B, LLVMBuildICmp(K->B, LLVMIntNE, flag, LLVMConstInt(K->i32, 0, 0), ""), susp, cont);

    LLVMPositionBuilderAtEnd(K->B, susp);
    LLVMValueRef sargs[2] = {LLVMConstNull(K->tok), LLVMConstInt(K->i1, 0, 0)};
    LLVMValueRef x = call_intrinsic(K, "llvm.coro.suspend", NULL, 0, sargs, 2);
    LLVMValueRef sw = LLVMBuildSwitch(K->B, x, K->end, 2); /* default (-1): suspended, back to the runtime */
    LLVMAddCase(sw, LLVMConstInt(K->i8, 0, 0), resumed);
    LLVMAddCase(sw, LLVMConstInt(K->i8, 1, 0), K->cleanup);

    LLVMPositionBuilderAtEnd(K->B, resumed);
    LLVMValueRef r2 = NULL;
    if (LLVMTypeOf(I) != K->vd) {
        int a = slot_res2_arg(slot);
        LLVMValueRef args[2] = {K->ctx, a >= 0 && (unsigned)a < LLVMGetNumArgOperands(I) ? LLVMGetOperand(I, (unsigned)a)
                                                                                         : LLVMConstNull(K->ptr)};
        r2 = call_rt(K, RT_CORO_RESULT, K->i32, args, 2);
    }
    LLVMBuildBr(K->B, cont);
    if (r2) {
        LLVMPositionBuilderBefore(K->B, LLVMGetFirstInstruction(cont));
        LLVMValueRef phi = LLVMBuildPhi(K->B, K->i32, "");
        LLVMReplaceAllUsesWith(I, phi);
        LLVMValueRef vals[2] = {I, r2};
        LLVMBasicBlockRef from[2] = {pre, resumed};
        LLVMAddIncoming(phi, vals, from, 2);
    }
}

/* Makes k (a copy of the kernel) the coroutine: the frame at entry, suspension after each wait, one way out. */
static void make_coroutine(coro *K, LLVMValueRef k) {
    K->ctx = LLVMGetParam(k, 1);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(k);
    LLVMValueRef first = LLVMGetFirstInstruction(entry);
    while (first && LLVMIsAAllocaInst(first)) first = LLVMGetNextInstruction(first);
    LLVMPositionBuilderBefore(K->B, first);
    LLVMValueRef idargs[4] = {LLVMConstInt(K->i32, 64, 0), LLVMConstNull(K->ptr), LLVMConstNull(K->ptr),
                              LLVMConstNull(K->ptr)};
    K->id = call_intrinsic(K, "llvm.coro.id", NULL, 0, idargs, 4);
    LLVMValueRef size = call_intrinsic(K, "llvm.coro.size", &K->i64, 1, NULL, 0);
    LLVMValueRef fargs[2] = {K->ctx, size};
    LLVMValueRef mem = call_rt(K, RT_CORO_FRAME, K->ptr, fargs, 2);
    LLVMValueRef bargs[2] = {K->id, mem};
    K->hdl = call_intrinsic(K, "llvm.coro.begin", NULL, 0, bargs, 2);
    /* publish the frame: a frame the optimiser can prove unreachable after the return would lose the stores
     * that record where to resume */
    LLVMValueRef o = LLVMConstInt(K->i64, offsetof(p2n_thread_ctx, coro_frame), 0);
    LLVMBuildStore(K->B, K->hdl, LLVMBuildGEP2(K->B, K->i8, K->ctx, &o, 1, ""));

    /* collect first: the rewrites below split blocks */
    size_t n = 0, cap = 16;
    LLVMValueRef *calls = malloc(cap * sizeof *calls), *rets = malloc(cap * sizeof *rets);
    size_t nr = 0, capr = cap;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(k); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
            int slot = host_rt_slot(I);
            bool ret = LLVMIsAReturnInst(I);
            if (!ret && !(slot >= 0 && (host_slot_waits((unsigned)slot) || slot == RT_EXIT_THREAD))) continue;
            if (ret) {
                if (nr == capr) rets = realloc(rets, (capr *= 2) * sizeof *rets);
                rets[nr++] = I;
            } else {
                if (n == cap) calls = realloc(calls, (cap *= 2) * sizeof *calls);
                calls[n++] = I;
            }
        }

    K->end = LLVMAppendBasicBlockInContext(K->C, k, "coro.end");
    K->cleanup = LLVMAppendBasicBlockInContext(K->C, k, "coro.cleanup");
    LLVMPositionBuilderAtEnd(K->B, K->cleanup);
    LLVMValueRef fr[2] = {K->id, K->hdl};
    call_intrinsic(K, "llvm.coro.free", NULL, 0, fr, 2); /* the runtime owns the frame: nothing to free */
    LLVMBuildBr(K->B, K->end);
    LLVMPositionBuilderAtEnd(K->B, K->end);
    LLVMValueRef eargs[3] = {K->hdl, LLVMConstInt(K->i1, 0, 0), LLVMConstNull(K->tok)};
    call_intrinsic(K, "llvm.coro.end", NULL, 0, eargs, 3);
    LLVMBuildRetVoid(K->B);

    for (size_t i = 0; i < nr; i++) { /* the thread ends: through the cleanup */
        LLVMPositionBuilderBefore(K->B, rets[i]);
        LLVMBuildBr(K->B, K->cleanup);
        LLVMInstructionEraseFromParent(rets[i]);
    }
    /* last to first: each split moves only what follows the call up to the previous split, not the rest of a
     * block that holds many waits (an unrolled tensor-core loop: thousands of warp_matrix calls in one block made
     * the forward order quadratic, minutes of JIT) */
    for (size_t i = n; i-- > 0;) {
        LLVMValueRef I = calls[i];
        unsigned slot = (unsigned)host_rt_slot(I);
        if (slot != RT_EXIT_THREAD) {
            add_suspend(K, I, slot);
            continue;
        }
        /* PTX exit in the kernel itself: the thread ends here (the call is followed by unreachable) */
        LLVMValueRef next = LLVMGetNextInstruction(I);
        LLVMPositionBuilderBefore(K->B, I);
        LLVMBuildBr(K->B, K->cleanup);
        while (next) {
            LLVMValueRef nn = LLVMGetNextInstruction(next);
            LLVMInstructionEraseFromParent(next);
            next = nn;
        }
        LLVMInstructionEraseFromParent(I);
    }
    free(calls);
    free(rets);
    LLVMAddAttributeAtIndex(k, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(K->C, LLVMGetEnumAttributeKindForName("presplitcoroutine", 17), 0));
}

bool host_pass_make_coroutines(llvm_pass_ctx *X) {
    const emit_desc *D = X->desc;
    if (!D || !D->nkernels) return true;
    coro K = {.C = X->C, .M = X->M, .B = LLVMCreateBuilderInContext(X->C)};
    K.ptr = LLVMPointerTypeInContext(X->C, 0);
    K.i1 = LLVMInt1TypeInContext(X->C);
    K.i8 = LLVMInt8TypeInContext(X->C);
    K.i32 = LLVMInt32TypeInContext(X->C);
    K.i64 = LLVMInt64TypeInContext(X->C);
    K.vd = LLVMVoidTypeInContext(X->C);
    K.tok = LLVMTokenTypeInContext(X->C);
    host_seen S = {0};
    LLVMValueRef *kern = calloc(D->nkernels, sizeof *kern), *cfn = calloc(D->nkernels, sizeof *cfn);
    size_t n = 0;
    for (uint32_t i = 0; i < D->nkernels; i++) {
        const emit_kernel *kd = &D->kernels[i];
        if (kd->flags & P2N_KERNEL_THREAD_LOOP) continue;
        LLVMValueRef k = LLVMGetNamedFunction(X->M, kd->name);
        if (!k || LLVMIsDeclaration(k) || !kernel_fits(&S, k)) continue;
        /* registers to SSA values first, while the kernel has its few blocks: the suspend points below add three
         * blocks per wait, and promoting 35k register allocas over 11k blocks (an unrolled tensor-core GEMM)
         * took LLVM's mem2reg 12 minutes; very long blocks are cut first (split_block.c says why) */
        llvm_split_long_blocks(K.C, K.B, k, LLVM_LONG_BLOCK);
        LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
        LLVMErrorRef e = LLVMRunPassesOnFunction(k, "sroa", NULL, po);
        LLVMDisposePassBuilderOptions(po);
        if (e) LLVMConsumeError(e);   /* only an optimisation: the pipeline promotes later otherwise */
        size_t len = strlen(kd->name);
        char *name = malloc(len + 6);
        memcpy(name, kd->name, len);
        memcpy(name + len, ".coro", 6);
        LLVMValueRef c = host_clone_function(k, name);
        free(name);
        make_coroutine(&K, c);
        kern[n] = k;
        cfn[n++] = c;
    }
    host_name_entries(X->M, kern, cfn, n, HOST_KD_CORO_ENTRY, P2N_KERNEL_CORO);
    free(kern);
    free(cfn);
    free(S.fn);
    free(S.clean);
    LLVMDisposeBuilder(K.B);
    return true;
}
