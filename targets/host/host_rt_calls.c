/* host_rt_calls.c — recognising the runtime calls of emitted host code in LLVM IR, for the host target's
 * LLVM passes (host_coro.c, work_item_loops.c): which rt slot a call goes to, which slots wait for other
 * threads, whether a called function can wait or end the thread; and naming the entries they make in the
 * kernel descriptor. */
#include <stdlib.h>

#include "host_rt_calls.h"

bool host_slot_waits(unsigned slot) {
    switch (slot) {
    case RT_BARRIER: case RT_BARRIER_RED: case RT_SHFL: case RT_VOTE: case RT_MATCH_ANY: case RT_MATCH_ALL:
    case RT_REDUX: case RT_WARP_SYNC: case RT_ELECT: case RT_YIELD: case RT_WARP_MATRIX:
        return true;
    default:
        return false;
    }
}

/* g = getelementptr i8, base, C: C (and *base), else -1 */
static int64_t byte_gep(LLVMValueRef g, LLVMValueRef *base) {
    if (!g || !LLVMIsAGetElementPtrInst(g) || LLVMGetNumOperands(g) != 2) return -1;
    LLVMValueRef c = LLVMGetOperand(g, 1);
    LLVMTypeRef t = LLVMGetGEPSourceElementType(g);
    if (!LLVMIsAConstantInt(c) || LLVMGetTypeKind(t) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(t) != 8) return -1;
    *base = LLVMGetOperand(g, 0);
    return LLVMConstIntGetSExtValue(c);
}

/* The runtime slot a call goes to, -1 for any other instruction. Before optimisation every runtime call has the
 * shape emit_ops.c rt_fn gives it: call (load (gep i8 (load (gep i8 ctx, CTX_RT)), 8 + 8 * slot)). */
int host_rt_slot(LLVMValueRef I) {
    if (!LLVMIsACallInst(I)) return -1;
    LLVMValueRef fn = LLVMGetCalledValue(I), table, ctx;
    if (!LLVMIsALoadInst(fn)) return -1;
    int64_t off = byte_gep(LLVMGetOperand(fn, 0), &table);
    if (off < 8 || off % 8 || !LLVMIsALoadInst(table) || byte_gep(LLVMGetOperand(table, 0), &ctx) != CTX_RT) return -1;
    return (int)((off - 8) / 8);
}

/* ------------------------------------------------------------------------------------------------ analysis */


/* Whether calling fn can neither wait nor leave the thread: no waiting/activemask/is_local/exit runtime call,
 * no call through a pointer, in fn or anything it calls. A function met again while being scanned counts as
 * clean (recursion adds no wait that the other calls do not show). */
bool host_callee_clean(host_seen *S, LLVMValueRef fn) {
    if (LLVMIsDeclaration(fn)) return LLVMGetIntrinsicID(fn) != 0;
    for (size_t i = 0; i < S->n; i++)
        if (S->fn[i] == fn) return S->clean[i];
    if (S->n == S->cap) {
        S->cap = S->cap ? 2 * S->cap : 16;
        S->fn = realloc(S->fn, S->cap * sizeof *S->fn);
        S->clean = realloc(S->clean, S->cap);
    }
    size_t me = S->n++;
    S->fn[me] = fn;
    S->clean[me] = 1;
    bool ok = true;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && ok; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I && ok; I = LLVMGetNextInstruction(I)) {
            if (!LLVMIsACallInst(I)) continue;
            int slot = host_rt_slot(I);
            if (slot >= 0) {
                ok = !host_slot_waits((unsigned)slot) && slot != RT_ACTIVEMASK && slot != RT_IS_LOCAL &&
                     slot != RT_EXIT_THREAD;
                continue;
            }
            LLVMValueRef callee = LLVMGetCalledValue(I);
            if (LLVMIsAInlineAsm(callee)) continue;
            ok = LLVMIsAFunction(callee) && host_callee_clean(S, callee);
        }
    S->clean[me] = ok;
    return ok;
}


void host_name_entries(LLVMModuleRef M, LLVMValueRef const *kern, LLVMValueRef const *fn, size_t n, unsigned field,
                       uint32_t flags) {
    LLVMValueRef karr = LLVMGetNamedGlobal(M, "__p2n_kernels");
    if (!karr || !n) return;
    LLVMValueRef init = LLVMGetInitializer(karr);
    unsigned ne = (unsigned)LLVMGetArrayLength2(LLVMTypeOf(init));
    LLVMValueRef *els = malloc((ne + 1) * sizeof *els);
    if (!els) return; /* the kernels keep their other entries */
    for (unsigned i = 0; i < ne; i++) {
        LLVMValueRef el = LLVMGetAggregateElement(init, i);
        els[i] = el;
        LLVMValueRef entry = LLVMGetAggregateElement(el, HOST_KD_ENTRY);
        for (size_t j = 0; j < n; j++) {
            if (entry != kern[j]) continue;
            LLVMValueRef f[HOST_KD_FIELDS];
            for (unsigned c = 0; c < HOST_KD_FIELDS; c++) f[c] = LLVMGetAggregateElement(el, c);
            f[HOST_KD_FLAGS] = LLVMConstInt(LLVMTypeOf(f[HOST_KD_FLAGS]),
                                            LLVMConstIntGetZExtValue(f[HOST_KD_FLAGS]) | flags, 0);
            f[field] = fn[j];
            els[i] = LLVMConstNamedStruct(LLVMTypeOf(el), f, HOST_KD_FIELDS);
        }
    }
    LLVMSetInitializer(karr, LLVMConstArray2(LLVMGetElementType(LLVMTypeOf(init)), els, ne));
    free(els);
}
