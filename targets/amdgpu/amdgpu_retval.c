/* amdgpu_retval.c — after the optimiser: a PTX .func's return value comes back in registers instead of through
 * a buffer in scratch.
 *
 * The shared emission gives a .func its `.param` return value as an out pointer: the caller allocates a buffer,
 * passes its (generic) address, and loads it after the call. For calls that stay calls on AMDGPU (recursion,
 * `.func`s with loops: target_hooks.keep_func_calls) that buffer lives in scratch: a flat pointer to it is built
 * from src_private_base, the callee stores through it with flat_store, and the caller reads it back with
 * scratch_load after each call. LLVM's AMDGPURewriteOutArguments does not apply (it wants private pointers and
 * an out argument the callee never reads). Here an internal function whose out parameter is only ever stored to
 * returns the stored value instead (v0 in the AMDGPU calling convention), and each caller stores the returned
 * value into its buffer after the call; the SROA run afterwards turns buffer + load into the value itself.
 *
 * Exact, not a heuristic: the rewrite applies only when the memory effects are identical.
 *   - the function is internal, not variadic, returns void, and every use of it is a direct call (its address
 *     is never taken, so no indirect call can reach it with the old signature);
 *   - every use of the parameter in the function is a simple (non-volatile, non-atomic) store of one type T to
 *     exactly that address (no load, offset, escape), and every block that returns holds such a store: so every
 *     return path ends with the buffer fully holding the last stored T, which is what is returned;
 *   - at every call site the argument is a private alloca (possibly cast to generic) whose only other uses are
 *     simple loads and lifetime markers: nothing else can read or write the buffer while the callee runs, so
 *     storing the value after the call instead of inside it cannot be observed.
 * Anything else (a struct returned in several stores, a buffer that escapes, a store on only some paths) is left
 * as it is. */
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdlib.h>
#include <string.h>

#include "amdgpu_target.h"

static bool simple(LLVMValueRef mem) { return !LLVMGetVolatile(mem) && LLVMGetOrdering(mem) == LLVMAtomicOrderingNotAtomic; }

static bool is_lifetime(LLVMValueRef i) {
    if (!LLVMIsACallInst(i)) return false;
    LLVMValueRef f = LLVMGetCalledValue(i);
    size_t n;
    const char *s = f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &n) : NULL;
    return s && n >= 13 && !strncmp(s, "llvm.lifetime", 13);
}

/* every use of f is a direct call of f (f is not also passed as an argument) */
static bool only_direct_calls(LLVMValueRef f) {
    for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef c = LLVMGetUser(u);
        if (!LLVMIsACallInst(c) || LLVMGetCalledValue(c) != f) return false;
        for (unsigned k = 0, n = LLVMGetNumArgOperands(c); k < n; k++)
            if (LLVMGetOperand(c, k) == f) return false;
    }
    return true;
}

static bool returnable(LLVMTypeRef t) {
    switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind: case LLVMHalfTypeKind: case LLVMBFloatTypeKind: case LLVMFloatTypeKind:
    case LLVMDoubleTypeKind: case LLVMPointerTypeKind: case LLVMVectorTypeKind: return true;
    default: return false;
    }
}

/* The type T when p is an out parameter as described above (only stores of T to p, one in every returning
 * block); NULL otherwise. */
static LLVMTypeRef out_param_type(LLVMValueRef f, LLVMValueRef p) {
    LLVMTypeRef t = NULL;
    for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef s = LLVMGetUser(u);
        if (!LLVMIsAStoreInst(s) || !simple(s) || LLVMGetOperand(s, 1) != p || LLVMGetOperand(s, 0) == p) return NULL;
        LLVMTypeRef vt = LLVMTypeOf(LLVMGetOperand(s, 0));
        if (t && vt != t) return NULL;
        t = vt;
    }
    if (!t || !returnable(t)) return NULL;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
        LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
        if (!term || LLVMGetInstructionOpcode(term) != LLVMRet) continue;
        bool stored = false;
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && !stored; i = LLVMGetNextInstruction(i))
            stored = LLVMIsAStoreInst(i) && LLVMGetOperand(i, 1) == p;
        if (!stored) return NULL;
    }
    return t;
}

/* c is a call of f with v as argument pi and nowhere else */
static bool only_arg_pi(LLVMValueRef c, LLVMValueRef v, LLVMValueRef f, unsigned pi) {
    if (!LLVMIsACallInst(c) || LLVMGetCalledValue(c) != f) return false;
    for (unsigned k = 0, n = LLVMGetNumArgOperands(c); k < n; k++)
        if ((LLVMGetOperand(c, k) == v) != (k == pi)) return false;
    return true;
}

/* every use of v (the buffer or its generic cast) is a simple load from it, a lifetime marker, or argument pi of
 * a call of f; a cast of the alloca is looked through once */
static bool buffer_uses_ok(LLVMValueRef v, LLVMValueRef f, unsigned pi, bool is_alloca) {
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef x = LLVMGetUser(u);
        if ((LLVMIsALoadInst(x) && simple(x)) || is_lifetime(x) || only_arg_pi(x, v, f, pi)) continue;
        if (is_alloca && LLVMIsAAddrSpaceCastInst(x) && buffer_uses_ok(x, f, pi, false)) continue;
        return false;
    }
    return true;
}

/* the call-site argument is a private buffer nothing else can touch during the call (see the file comment) */
static bool private_buffer(LLVMValueRef arg, LLVMValueRef f, unsigned pi, LLVMTargetDataRef DL, LLVMTypeRef t) {
    LLVMValueRef a = LLVMIsAAddrSpaceCastInst(arg) ? LLVMGetOperand(arg, 0) : arg;
    if (!LLVMIsAAllocaInst(a) || !LLVMIsConstant(LLVMGetOperand(a, 0))) return false;
    if (LLVMABISizeOfType(DL, LLVMGetAllocatedType(a)) < LLVMStoreSizeOfType(DL, t)) return false;
    return buffer_uses_ok(a, f, pi, true);
}

static void copy_attrs(LLVMValueRef from, LLVMAttributeIndex fi, LLVMValueRef to, LLVMAttributeIndex ti) {
    unsigned n = LLVMGetAttributeCountAtIndex(from, fi);
    if (!n) return;
    LLVMAttributeRef *a = malloc(n * sizeof *a);
    if (!a) return;
    LLVMGetAttributesAtIndex(from, fi, a);
    for (unsigned k = 0; k < n; k++) LLVMAddAttributeAtIndex(to, ti, a[k]);
    free(a);
}

/* f(..., ptr %out, ...) -> T nf(...); calls store the result into their buffer. */
static void rewrite(LLVMModuleRef M, LLVMBuilderRef B, LLVMValueRef f, unsigned pi, LLVMTypeRef t) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMTypeRef ft = LLVMGlobalGetValueType(f);
    unsigned n = LLVMCountParamTypes(ft);
    LLVMTypeRef *pt = malloc((n + 1) * sizeof *pt);
    LLVMValueRef *args = malloc((n + 1) * sizeof *args);
    LLVMValueRef *calls = NULL;
    if (!pt || !args) goto out;
    LLVMGetParamTypes(ft, pt);
    memmove(pt + pi, pt + pi + 1, (n - pi - 1) * sizeof *pt);
    LLVMTypeRef nft = LLVMFunctionType(t, pt, n - 1, 0);

    size_t len;
    char *name = strdup(LLVMGetValueName2(f, &len));
    if (!name) goto out;
    LLVMSetValueName2(f, "", 0);
    LLVMValueRef nf = LLVMAddFunction(M, name, nft);
    free(name);
    LLVMSetLinkage(nf, LLVMGetLinkage(f));
    LLVMSetVisibility(nf, LLVMGetVisibility(f));
    LLVMSetUnnamedAddress(nf, LLVMGetUnnamedAddress(f));
    LLVMSetFunctionCallConv(nf, LLVMGetFunctionCallConv(f));
    copy_attrs(f, LLVMAttributeFunctionIndex, nf, LLVMAttributeFunctionIndex);
    for (unsigned k = 0; k < n; k++)
        if (k != pi) copy_attrs(f, k + 1, nf, (k < pi ? k : k - 1) + 1);
    size_t nmd;
    LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(f, &nmd);
    for (size_t k = 0; k < nmd; k++)
        LLVMGlobalSetMetadata(nf, LLVMValueMetadataEntriesGetKind(md, (unsigned)k), LLVMValueMetadataEntriesGetMetadata(md, (unsigned)k));
    if (md) LLVMDisposeValueMetadataEntries(md);

    /* the body moves over; parameters are renumbered, the out parameter becomes a local slot */
    LLVMBasicBlockRef pos = LLVMAppendBasicBlockInContext(C, nf, "");
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f), next; bb; bb = next) {
        next = LLVMGetNextBasicBlock(bb);
        LLVMMoveBasicBlockAfter(bb, pos);
        pos = bb;
    }
    LLVMDeleteBasicBlock(LLVMGetFirstBasicBlock(nf));
    for (unsigned k = 0; k < n; k++) {
        if (k == pi) continue;
        LLVMValueRef o = LLVMGetParam(f, k), p = LLVMGetParam(nf, k < pi ? k : k - 1);
        const char *pn = LLVMGetValueName2(o, &len);
        LLVMSetValueName2(p, pn, len);
        LLVMReplaceAllUsesWith(o, p);
    }
    LLVMValueRef out = LLVMGetParam(f, pi);
    LLVMPositionBuilderBefore(B, LLVMGetFirstInstruction(LLVMGetFirstBasicBlock(nf)));
    LLVMValueRef slot = LLVMBuildAlloca(B, t, "retval");
    LLVMReplaceAllUsesWith(out, LLVMBuildAddrSpaceCast(B, slot, LLVMTypeOf(out), ""));
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(nf); bb; bb = LLVMGetNextBasicBlock(bb)) {
        LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
        if (!term || LLVMGetInstructionOpcode(term) != LLVMRet) continue;
        LLVMPositionBuilderBefore(B, term);
        LLVMBuildRet(B, LLVMBuildLoad2(B, t, slot, ""));
        LLVMInstructionEraseFromParent(term);
    }

    /* the calls (collected first: rewriting them edits f's use list) */
    unsigned nc = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) nc++;
    calls = malloc((nc + 1) * sizeof *calls);
    if (!calls) goto out;
    nc = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) calls[nc++] = LLVMGetUser(u);
    for (unsigned c = 0; c < nc; c++) {
        LLVMValueRef old = calls[c], buf = LLVMGetOperand(old, pi);
        unsigned m = 0;
        for (unsigned k = 0; k < n; k++)
            if (k != pi) args[m++] = LLVMGetOperand(old, k);
        LLVMPositionBuilderBefore(B, old);
        LLVMSetCurrentDebugLocation2(B, LLVMInstructionGetDebugLoc(old));
        LLVMValueRef call = LLVMBuildCall2(B, nft, nf, args, m, "");
        LLVMSetInstructionCallConv(call, LLVMGetInstructionCallConv(old));
        LLVMSetTailCall(call, LLVMIsTailCall(old));
        LLVMValueRef a = LLVMIsAAddrSpaceCastInst(buf) ? LLVMGetOperand(buf, 0) : buf;
        LLVMValueRef st = LLVMBuildStore(B, call, a); /* the alloca itself: its own alignment holds at offset 0 */
        LLVMSetAlignment(st, LLVMGetAlignment(a));
        LLVMSetCurrentDebugLocation2(B, NULL);
        LLVMInstructionEraseFromParent(old);
        if (buf != a && !LLVMGetFirstUse(buf)) LLVMInstructionEraseFromParent(buf);
    }
    LLVMDeleteFunction(f);
out:
    free(pt);
    free(args);
    free(calls);
}

/* the parameter index to rewrite, or -1 */
static int rewritable(LLVMValueRef f, LLVMTargetDataRef DL, LLVMTypeRef *t) {
    LLVMLinkage l = LLVMGetLinkage(f);
    LLVMTypeRef ft = LLVMGlobalGetValueType(f);
    if (LLVMIsDeclaration(f) || (l != LLVMInternalLinkage && l != LLVMPrivateLinkage) || LLVMIsFunctionVarArg(ft) ||
        LLVMGetTypeKind(LLVMGetReturnType(ft)) != LLVMVoidTypeKind || !LLVMGetFirstUse(f) || !only_direct_calls(f))
        return -1;
    for (unsigned k = 0, n = LLVMCountParams(f); k < n; k++) {
        LLVMValueRef p = LLVMGetParam(f, k);
        if (LLVMGetTypeKind(LLVMTypeOf(p)) != LLVMPointerTypeKind || !(*t = out_param_type(f, p))) continue;
        bool ok = true;
        for (LLVMUseRef u = LLVMGetFirstUse(f); u && ok; u = LLVMGetNextUse(u))
            ok = private_buffer(LLVMGetOperand(LLVMGetUser(u), k), f, k, DL, *t);
        if (ok) return (int)k;
    }
    return -1;
}

LLVMErrorRef amdgpu_return_values_in_registers(LLVMModuleRef M, LLVMTargetMachineRef TM) {
    LLVMTargetDataRef DL = LLVMGetModuleDataLayout(M);
    LLVMBuilderRef B = LLVMCreateBuilderInContext(LLVMGetModuleContext(M));
    unsigned done = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(M), next; f; f = next) {
        next = LLVMGetNextFunction(f);
        LLVMTypeRef t;
        int pi = rewritable(f, DL, &t);
        if (pi < 0) continue;
        rewrite(M, B, f, (unsigned)pi, t);
        done++;
    }
    LLVMDisposeBuilder(B);
    if (!done) return NULL;
    /* the callers' buffers (store after the call, load) and the callees' slots become values */
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(M, "function(sroa,early-cse,instcombine,simplifycfg)", TM, po);
    LLVMDisposePassBuilderOptions(po);
    return e;
}
