/* spirv_trap.c — trap, __assertfail and `exit` inside a .func on SPIR-V.
 *
 * An OpenCL work-item cannot abort its launch, so the hooks (spirv_hooks.c) emit a marker call
 * `__p2n_spirv_trap(ctx, code, msg, file, line, function)` and this pass lowers it:
 *  - code != 0 (1 trap, 2 assert): the first failing work-item claims the launch's error record (a hidden
 *    kernel argument, kept in the ctx at SPIRV_CTX_TRAP; compare-exchange of word 0 from 0 to code) and writes
 *    line, string addresses, block and thread into it; the OpenCL runtime passes a per-module buffer and reads
 *    and clears it after every launch (driver-stub/opencl) and reports
 *    CUDA_ERROR_LAUNCH_FAILED / CUDA_ERROR_ASSERT like the CPU runtime;
 *  - every code (0 = exit): the work-item sets the `dead` word of its thread context (SPIRV_CTX_DEAD) and
 *    returns; after each call of a function that may do this the caller tests the word and returns too, so
 *    the work-item ends as a whole (a PTX thread that traps or exits never resumes).
 * Record layout (i32 words, 128 bytes): [0] code, [1] line, [2..3] message, [4..5] file, [6..7] function
 * (generic addresses of constant strings), [8..10] %ctaid, [11..13] %tid, [14..15] unused; the runtime reads and
 * clears words 0..15 after each launch. [16..17] the launch's start time in ns (u64, written by the runtime
 * before each launch), [18..19] the clock counter (u64, kept across launches). (Not a program-scope variable:
 * on PoCL 3.1 the host and the kernels do not see the same copy of one that a kernel writes.)
 *
 * Clocks (no Kernel-model clock instruction: spirv_hooks.c): every read of %clock/%clock64 is one atomic
 * increment of the device-wide counter and returns the new count, %globaltimer returns start time + that
 * count. So successive reads in a work-item strictly increase (CUDA's guarantee), the 32-bit clock changes
 * on every read, and %globaltimer never goes backwards within a launch — but these are event counts, not
 * cycles or time. */
#include <stdlib.h>
#include <string.h>

#include "llvm_pass.h"
#include "spirv_target.h"

static LLVMValueRef ctx_gep(LLVMBuilderRef B, LLVMContextRef C, LLVMValueRef ctx, unsigned off) {
    LLVMValueRef o = LLVMConstInt(LLVMInt64TypeInContext(C), off, 0);
    return LLVMBuildGEP2(B, LLVMInt8TypeInContext(C), ctx, &o, 1, "");
}


static bool in_list(LLVMValueRef *l, unsigned n, LLVMValueRef f) {
    for (unsigned i = 0; i < n; i++)
        if (l[i] == f) return true;
    return false;
}

/* The marker: claim the record (code != 0), mark the work-item dead, return. */
static void lower_marker(LLVMContextRef C, LLVMBuilderRef B, LLVMValueRef I) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(C), i64 = LLVMInt64TypeInContext(C), i8 = LLVMInt8TypeInContext(C);
    LLVMValueRef ctx = LLVMGetOperand(I, 0), code = LLVMGetOperand(I, 1);
    LLVMValueRef strs[3] = {LLVMGetOperand(I, 2), LLVMGetOperand(I, 3), LLVMGetOperand(I, 5)};
    LLVMValueRef line = LLVMGetOperand(I, 4);
    LLVMBasicBlockRef bb = LLVMGetInstructionParent(I);
    LLVMValueRef fn = LLVMGetBasicBlockParent(bb);
    /* the rest of the block (unreachable, or the stub's ret) is dead */
    for (LLVMValueRef x = LLVMGetLastInstruction(bb);;) {
        LLVMValueRef px = LLVMGetPreviousInstruction(x);
        bool last = x == I;
        if (LLVMGetTypeKind(LLVMTypeOf(x)) != LLVMVoidTypeKind) LLVMReplaceAllUsesWith(x, LLVMGetUndef(LLVMTypeOf(x)));
        LLVMInstructionEraseFromParent(x);
        if (last) break;
        x = px;
    }
    LLVMPositionBuilderAtEnd(B, bb);
    if (!LLVMIsAConstantInt(code) || LLVMConstIntGetZExtValue(code)) {
        LLVMValueRef rec = LLVMBuildLoad2(B, LLVMPointerTypeInContext(C, 1), ctx_gep(B, C, ctx, SPIRV_CTX_TRAP), "");
        LLVMBasicBlockRef wr = LLVMAppendBasicBlockInContext(C, fn, "trap.rec"),
                          done = LLVMAppendBasicBlockInContext(C, fn, "trap.done");
        LLVMValueRef cx = LLVMBuildAtomicCmpXchg(B, rec, LLVMConstInt(i32, 0, 0), code, LLVMAtomicOrderingMonotonic,
                                                 LLVMAtomicOrderingMonotonic, 0);
        LLVMBuildCondBr(B, LLVMBuildExtractValue(B, cx, 1, ""), wr, done);
        LLVMPositionBuilderAtEnd(B, wr);
#define REC(off, v)                                                                                                \
    do {                                                                                                           \
        LLVMValueRef o_ = LLVMConstInt(i64, (off), 0);                                                             \
        LLVMSetAlignment(LLVMBuildStore(B, (v), LLVMBuildGEP2(B, i8, rec, &o_, 1, "")), 4);                        \
    } while (0)
        REC(4, line);
        for (unsigned s = 0; s < 3; s++) REC(8 + 8 * s, LLVMBuildPtrToInt(B, strs[s], i64, ""));
        for (unsigned k = 0; k < 3; k++) {
            REC(32 + 4 * k, LLVMBuildLoad2(B, i32, ctx_gep(B, C, ctx, 24 + 4 * k), ""));
            REC(44 + 4 * k, LLVMBuildLoad2(B, i32, ctx_gep(B, C, ctx, 0 + 4 * k), ""));
        }
#undef REC
        LLVMBuildBr(B, done);
        LLVMPositionBuilderAtEnd(B, done);
    }
    LLVMBuildStore(B, LLVMConstInt(i32, 1, 0), ctx_gep(B, C, ctx, SPIRV_CTX_DEAD));
    LLVMBuildRetVoid(B);
}

bool spirv_module_traps(LLVMModuleRef M) {
    LLVMValueRef marker = LLVMGetNamedFunction(M, SPIRV_TRAP_MARKER);
    LLVMValueRef clock = LLVMGetNamedFunction(M, SPIRV_CLOCK_MARKER);
    LLVMValueRef launch = LLVMGetNamedFunction(M, SPIRV_LAUNCH_MARKER);
    return (marker && LLVMGetFirstUse(marker)) || (clock && LLVMGetFirstUse(clock)) ||
           (launch && LLVMGetFirstUse(launch));
}

/* SPIRV_CLOCK_MARKER(ctx, globaltimer) -> i64: counter += 1 (device-wide atomic; spirv_atomics.c gives it
 * Device scope and CrossWorkgroup semantics), returns the new count (+ the launch's start time) */
static void lower_clocks(LLVMContextRef C, LLVMModuleRef M, LLVMBuilderRef B) {
    LLVMValueRef marker = LLVMGetNamedFunction(M, SPIRV_CLOCK_MARKER);
    if (!marker) return;
    LLVMTypeRef i64 = LLVMInt64TypeInContext(C), i8 = LLVMInt8TypeInContext(C);
    while (LLVMGetFirstUse(marker)) {
        LLVMValueRef I = LLVMGetUser(LLVMGetFirstUse(marker));
        LLVMPositionBuilderBefore(B, I);
        LLVMValueRef rec = LLVMBuildLoad2(B, LLVMPointerTypeInContext(C, 1),
                                          ctx_gep(B, C, LLVMGetOperand(I, 0), SPIRV_CTX_TRAP), "");
        LLVMValueRef o = LLVMConstInt(i64, SPIRV_REC_CLOCK_OFF, 0);
        LLVMValueRef old = LLVMBuildAtomicRMW(B, LLVMAtomicRMWBinOpAdd, LLVMBuildGEP2(B, i8, rec, &o, 1, ""),
                                              LLVMConstInt(i64, 1, 0), LLVMAtomicOrderingMonotonic, 0);
        LLVMValueRef v = LLVMBuildAdd(B, old, LLVMConstInt(i64, 1, 0), "");
        LLVMValueRef kind = LLVMGetOperand(I, 1);
        if (!LLVMIsAConstantInt(kind) || LLVMConstIntGetZExtValue(kind)) {
            o = LLVMConstInt(i64, SPIRV_REC_TIME_OFF, 0);
            LLVMValueRef base = LLVMBuildLoad2(B, i64, LLVMBuildGEP2(B, i8, rec, &o, 1, ""), "");
            LLVMSetAlignment(base, 8);
            v = LLVMBuildAdd(B, base, v, "");
        }
        LLVMReplaceAllUsesWith(I, v);
        LLVMInstructionEraseFromParent(I);
    }
    LLVMDeleteFunction(marker);
}

/* SPIRV_LAUNCH_MARKER(ctx) -> i32: the launch flags the runtime wrote into the record before the launch */
static void lower_launch_flags(LLVMContextRef C, LLVMModuleRef M, LLVMBuilderRef B) {
    LLVMValueRef marker = LLVMGetNamedFunction(M, SPIRV_LAUNCH_MARKER);
    if (!marker) return;
    LLVMTypeRef i64 = LLVMInt64TypeInContext(C), i8 = LLVMInt8TypeInContext(C), i32 = LLVMInt32TypeInContext(C);
    while (LLVMGetFirstUse(marker)) {
        LLVMValueRef I = LLVMGetUser(LLVMGetFirstUse(marker));
        LLVMPositionBuilderBefore(B, I);
        LLVMValueRef rec = LLVMBuildLoad2(B, LLVMPointerTypeInContext(C, 1),
                                          ctx_gep(B, C, LLVMGetOperand(I, 0), SPIRV_CTX_TRAP), "");
        LLVMValueRef o = LLVMConstInt(i64, SPIRV_REC_LAUNCH_OFF, 0);
        LLVMValueRef v = LLVMBuildLoad2(B, i32, LLVMBuildGEP2(B, i8, rec, &o, 1, ""), "");
        LLVMSetAlignment(v, 4);
        LLVMReplaceAllUsesWith(I, v);
        LLVMInstructionEraseFromParent(I);
    }
    LLVMDeleteFunction(marker);
}

void spirv_lower_traps(LLVMContextRef C, LLVMModuleRef M) {
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    lower_clocks(C, M, B);
    lower_launch_flags(C, M, B);
    LLVMValueRef marker = LLVMGetNamedFunction(M, SPIRV_TRAP_MARKER);
    if (!marker) { LLVMDisposeBuilder(B); return; }
    LLVMTypeRef i32 = LLVMInt32TypeInContext(C);

    /* functions that may end the work-item: the markers' callers, then their callers (to a fixpoint) */
    unsigned nf = 0, cap = 16;
    LLVMValueRef *fl = malloc(cap * sizeof *fl);
    LLVMValueRef *calls = NULL;
    unsigned nc = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(marker); u; u = LLVMGetNextUse(u)) {
        calls = realloc(calls, (nc + 1) * sizeof *calls);
        calls[nc++] = LLVMGetUser(u);
    }
    for (unsigned i = 0; i < nc; i++) {
        LLVMValueRef f = LLVMGetBasicBlockParent(LLVMGetInstructionParent(calls[i]));
        if (!in_list(fl, nf, f)) {
            if (nf == cap) fl = realloc(fl, (cap *= 2) * sizeof *fl);
            fl[nf++] = f;
        }
        lower_marker(C, B, calls[i]);
    }
    free(calls);
    for (unsigned w = 0; w < nf; w++) {
        LLVMValueRef f = fl[w];
        nc = 0;
        calls = NULL;
        for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            if (!LLVMIsACallInst(user) || LLVMGetCalledValue(user) != f) continue;
            LLVMValueRef g = LLVMGetBasicBlockParent(LLVMGetInstructionParent(user));
            if (LLVMGetFunctionCallConv(g) == 76) continue; /* a kernel wrapper: returns right after */
            calls = realloc(calls, (nc + 1) * sizeof *calls);
            calls[nc++] = user;
            if (!in_list(fl, nf, g)) {
                if (nf == cap) fl = realloc(fl, (cap *= 2) * sizeof *fl);
                fl[nf++] = g;
            }
        }
        for (unsigned i = 0; i < nc; i++) {
            /* .func type void(ctx, retbuf, parambuf): the callee shares the caller's ctx */
            LLVMValueRef I = calls[i];
            LLVMValueRef g = LLVMGetBasicBlockParent(LLVMGetInstructionParent(I));
            LLVMBasicBlockRef cont = llvm_split_after(C, B, I);
            LLVMBasicBlockRef dead = LLVMAppendBasicBlockInContext(C, g, "dead");
            LLVMPositionBuilderAtEnd(B, dead);
            LLVMBuildRetVoid(B);
            LLVMPositionBuilderAtEnd(B, LLVMGetInstructionParent(I));
            LLVMValueRef flag = LLVMBuildLoad2(B, i32, ctx_gep(B, C, LLVMGetOperand(I, 0), SPIRV_CTX_DEAD), "");
            LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntNE, flag, LLVMConstInt(i32, 0, 0), ""), dead, cont);
        }
        free(calls);
    }
    free(fl);
    LLVMDeleteFunction(marker);
    LLVMDisposeBuilder(B);
}

/* The lowering list's spirv-traps pass: after spirv-kernel-wrappers, which give the kernels of a module marked
 * "trap" the error record argument the lowered markers write. */
bool spirv_pass_traps(llvm_pass_ctx *X) {
    spirv_lower_traps(X->C, X->M);
    return true;
}
