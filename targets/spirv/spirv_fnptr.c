/* spirv_fnptr.c — function pointers without SPV_INTEL_function_pointers (PoCL 3.1 has none, nor do most
 * drivers): every function whose address the PTX code takes gets a small non-zero integer as its "address",
 * used wherever the address is materialised (registers, stores, global initialisers: one RAUW covers them);
 * each indirect call becomes a switch over the ids of the address-taken functions of the call's type, calling
 * each directly. All .func share one LLVM type (emit.h), so PTX's prototypes need no separate matching; a value
 * that is no function's id takes the trap path (spirv_trap.c), as a jump to garbage faults on a GPU. */
#include <stdlib.h>

#include "llvm_pass.h"
#include "spirv_target.h"

/* ids: (k + 1) * 16 — non-zero (null tests), 16-byte aligned like real code addresses */
static uint64_t fn_id(unsigned k) { return (uint64_t)(k + 1) * 16; }

static bool callee_use(LLVMValueRef user, LLVMValueRef f) {
    if (!LLVMIsACallInst(user) || LLVMGetCalledValue(user) != f) return false;
    for (unsigned i = 0, n = LLVMGetNumArgOperands(user); i < n; i++)
        if (LLVMGetOperand(user, i) == f) return false;
    return true;
}

bool spirv_lower_fnptrs(LLVMContextRef C, LLVMModuleRef M) {
    LLVMTypeRef i64 = LLVMInt64TypeInContext(C), i32 = LLVMInt32TypeInContext(C);
    unsigned n = 0, cap = 8;
    LLVMValueRef *fs = malloc(cap * sizeof *fs);
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) {
        if (LLVMIsDeclaration(f) || LLVMGetIntrinsicID(f)) continue;
        bool taken = false;
        for (LLVMUseRef u = LLVMGetFirstUse(f); u && !taken; u = LLVMGetNextUse(u))
            taken = !callee_use(LLVMGetUser(u), f);
        if (!taken) continue;
        if (n == cap) fs = realloc(fs, (cap *= 2) * sizeof *fs);
        fs[n++] = f;
    }
    for (unsigned k = 0; k < n; k++)
        LLVMReplaceAllUsesWith(fs[k], LLVMConstIntToPtr(LLVMConstInt(i64, fn_id(k), 0), LLVMTypeOf(fs[k])));

    /* the calls whose callee is not a function: the replaced direct calls and the real indirect ones */
    unsigned nc = 0, ccap = 16;
    LLVMValueRef *calls = malloc(ccap * sizeof *calls);
    for (LLVMValueRef fn = LLVMGetFirstFunction(M); fn; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
                if (!LLVMIsACallInst(I)) continue;
                LLVMValueRef v = LLVMGetCalledValue(I);
                if (LLVMIsAFunction(v) || LLVMIsAInlineAsm(v)) continue;
                if (nc == ccap) calls = realloc(calls, (ccap *= 2) * sizeof *calls);
                calls[nc++] = I;
            }
    bool ok = true;
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    for (unsigned c = 0; c < nc; c++) {
        LLVMValueRef I = calls[c], v = LLVMGetCalledValue(I);
        unsigned callee_op = (unsigned)LLVMGetNumOperands(I) - 1;
        LLVMTypeRef ft = LLVMGetCalledFunctionType(I);
        LLVMPositionBuilderBefore(B, I);
        LLVMValueRef iv = LLVMBuildPtrToInt(B, v, i64, "");
        if (LLVMIsAConstantInt(iv)) { /* a former direct call */
            uint64_t id = LLVMConstIntGetZExtValue(iv);
            if (id % 16 == 0 && id / 16 >= 1 && id / 16 <= n) {
                LLVMSetOperand(I, callee_op, fs[id / 16 - 1]);
                if (LLVMIsAInstruction(iv)) LLVMInstructionEraseFromParent(iv);
                continue;
            }
        }
        /* void(ctx, retbuf, parambuf) is the only type calls through registers have (emit.h) */
        if (LLVMGetTypeKind(LLVMGetReturnType(ft)) != LLVMVoidTypeKind || LLVMCountParamTypes(ft) != 3) {
            ok = false;
            continue;
        }
        LLVMBasicBlockRef here = LLVMGetInstructionParent(I);
        LLVMValueRef fn = LLVMGetBasicBlockParent(here);
        LLVMBasicBlockRef cont = llvm_split_after(C, B, I);
        LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(C, fn, "icall.bad");
        LLVMPositionBuilderAtEnd(B, here);
        unsigned nargs = LLVMGetNumArgOperands(I);
        LLVMValueRef args[3];
        for (unsigned i = 0; i < nargs && i < 3; i++) args[i] = LLVMGetOperand(I, i);
        unsigned ncases = 0;
        for (unsigned k = 0; k < n; k++) ncases += LLVMGlobalGetValueType(fs[k]) == ft;
        LLVMValueRef sw = LLVMBuildSwitch(B, iv, bad, ncases);
        for (unsigned k = 0; k < n; k++) {
            if (LLVMGlobalGetValueType(fs[k]) != ft) continue;
            LLVMBasicBlockRef cb = LLVMAppendBasicBlockInContext(C, fn, "icall");
            LLVMAddCase(sw, LLVMConstInt(i64, fn_id(k), 0), cb);
            LLVMPositionBuilderAtEnd(B, cb);
            LLVMBuildCall2(B, ft, fs[k], args, nargs, "");
            LLVMBuildBr(B, cont);
        }
        /* no such function: trap (ctx is the first argument) */
        LLVMPositionBuilderAtEnd(B, bad);
        LLVMTypeRef pt = LLVMTypeOf(args[0]);
        LLVMTypeRef mt[6] = {pt, i32, pt, pt, i32, pt};
        LLVMTypeRef mft = LLVMFunctionType(LLVMVoidTypeInContext(C), mt, 6, 0);
        LLVMValueRef marker = LLVMGetNamedFunction(M, SPIRV_TRAP_MARKER);
        if (!marker) marker = LLVMAddFunction(M, SPIRV_TRAP_MARKER, mft);
        LLVMValueRef nul = LLVMConstNull(pt);
        LLVMValueRef ma[6] = {args[0], LLVMConstInt(i32, 1, 0), nul, nul, LLVMConstInt(i32, 0, 0), nul};
        LLVMBuildCall2(B, mft, marker, ma, 6, "");
        LLVMBuildUnreachable(B);
        LLVMInstructionEraseFromParent(I);
    }
    free(calls);
    free(fs);
    LLVMDisposeBuilder(B);
    return ok;
}

/* The lowering list's spirv-fnptrs pass: first, as an unknown id traps, and a module that traps takes the error
 * record (spirv-mark-module looks for trap markers after it). */
bool spirv_pass_fnptrs(llvm_pass_ctx *X) {
    if (spirv_lower_fnptrs(X->C, X->M)) return true;
    diag_plain(X->d, "error", "unsupported PTX construct for target %s: indirect call of a non-.func type", X->t->name);
    return false;
}
