/* defer_nan_canon.c — one NaN canonicalisation at the end of an f32 arithmetic chain instead of one per step.
 *
 * Why: NVIDIA gives every f32 arithmetic NaN result as 0x7fffffff, so emit_float.c follows each f32 add, mul,
 * fma, div, ... with `select(isnan_bits(r), 0x7fffffff, r)` (a test on the bits, five instructions on x86). In
 * `acc = fma(a[k], b[k], acc)` chains (every matrix product, every dot product) that select sits on the chain's
 * critical path and keeps LLVM from seeing a plain reduction: the tiled matrix products of NVIDIA's samples ran at
 * a third of their speed for it.
 *
 * Why it is exact: the select only changes a NaN's bits. A canonicalised value whose every use is an operand of
 * a NaN-propagating operation (fadd, fsub, fmul, fdiv, fneg, llvm.fma, llvm.fmuladd: a NaN operand gives a NaN
 * result on every target, IEEE 754) whose own result is canonicalised — directly, or through more such steps —
 * can skip its own select: when it is a NaN, so is every result it reaches, and those are canonicalised; when it is
 * not, the select changed nothing. Bit casts to i32 and straight back (how emission keeps .b32 registers) are
 * looked through. Stores, phis, compares, bit casts, calls and everything else keep the select.
 * f64 is left alone (its NaN result depends on which operand was a NaN, not canonical).
 *
 * Runs before the optimiser, every target, -O1 and above (codegen.c's shared_pre_opt), after rewrite_addr.c,
 * whose SROA has made the registers SSA values. */
#include <stdint.h>
#include <string.h>

#include "llvm_pass.h"

enum { DEPTH = 4 }; /* steps from one select to the one that covers it (1 in program order: a chain's next step) */

typedef struct canon_ctx {
    LLVMTypeRef i32, f32;
    const char *fma_call; /* the target's f32 fma function where it is not llvm.fma (target_desc.fma_f32_call) */
    LLVMValueRef nan_f32; /* the float constant 0x7fffffff */
} canon_ctx;

static bool const_int_is(LLVMValueRef v, uint64_t k) {
    return v && LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == k;
}

static bool one_use(LLVMValueRef v) {
    LLVMUseRef u = LLVMGetFirstUse(v);
    return u && !LLVMGetNextUse(u);
}

/* r when s is emit_float.c's f32 canonicalisation of r:
 *   %b = bitcast float %r to i32; %m = and i32 %b, 0x7fffffff; %c = icmp ugt i32 %m, 0x7f800000;
 *   %s = select i1 %c, float <0x7fffffff>, float %r
 * (the test's three instructions used by the select alone), else NULL */
static LLVMValueRef canonicalised(const canon_ctx *K, LLVMValueRef s) {
    if (!LLVMIsASelectInst(s) || LLVMTypeOf(s) != K->f32 || LLVMGetOperand(s, 1) != K->nan_f32) return NULL;
    LLVMValueRef r = LLVMGetOperand(s, 2), c = LLVMGetOperand(s, 0);
    if (!LLVMIsAICmpInst(c) || LLVMGetICmpPredicate(c) != LLVMIntUGT || !one_use(c) ||
        !const_int_is(LLVMGetOperand(c, 1), 0x7f800000))
        return NULL;
    LLVMValueRef m = LLVMGetOperand(c, 0);
    if (!LLVMIsAInstruction(m) || LLVMGetInstructionOpcode(m) != LLVMAnd || !one_use(m) ||
        !const_int_is(LLVMGetOperand(m, 1), 0x7fffffff))
        return NULL;
    LLVMValueRef b = LLVMGetOperand(m, 0);
    if (!LLVMIsAInstruction(b) || LLVMGetInstructionOpcode(b) != LLVMBitCast || !one_use(b) || LLVMGetOperand(b, 0) != r)
        return NULL;
    return r;
}

/* fadd/fsub/fmul/fdiv/fneg or a call of llvm.fma / llvm.fmuladd / the target's fma (f32) */
static bool propagates_nan(const canon_ctx *K, LLVMValueRef I) {
    switch (LLVMGetInstructionOpcode(I)) {
    case LLVMFAdd: case LLVMFSub: case LLVMFMul: case LLVMFDiv: case LLVMFNeg: return true;
    case LLVMCall: {
        LLVMValueRef f = LLVMGetCalledValue(I);
        size_t len = 0;
        const char *name = f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : "";
        return !strcmp(name, "llvm.fma.f32") || !strcmp(name, "llvm.fmuladd.f32") || (K->fma_call && !strcmp(name, K->fma_call));
    }
    default: return false;
    }
}

/* every use of v ends, through NaN-propagating steps, at a canonicalisation of their result */
static bool covered(const canon_ctx *K, LLVMValueRef v, unsigned depth) {
    if (depth > DEPTH) return false;
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (!LLVMIsAInstruction(user)) return false;
        if (LLVMIsABitCastInst(user)) { /* the test of v's own canonicalisation */
            LLVMValueRef m = LLVMGetFirstUse(user) ? LLVMGetUser(LLVMGetFirstUse(user)) : NULL;
            LLVMValueRef c = m && LLVMGetFirstUse(m) ? LLVMGetUser(LLVMGetFirstUse(m)) : NULL;
            LLVMValueRef s = c && LLVMGetFirstUse(c) ? LLVMGetUser(LLVMGetFirstUse(c)) : NULL;
            if (s && canonicalised(K, s) == v) continue;
            /* a register round trip (emission keeps .b32 registers as i32): float -> i32 -> float, the floats
             * covered in turn */
            if (LLVMTypeOf(user) != K->i32 || !LLVMGetFirstUse(user)) return false;
            for (LLVMUseRef w = LLVMGetFirstUse(user); w; w = LLVMGetNextUse(w)) {
                LLVMValueRef back = LLVMGetUser(w);
                if (!LLVMIsABitCastInst(back) || LLVMTypeOf(back) != K->f32 || !covered(K, back, depth)) return false;
            }
            continue;
        }
        if (canonicalised(K, user) == v) continue; /* v's own canonicalisation */
        if (LLVMTypeOf(user) != K->f32 || !propagates_nan(K, user) || !covered(K, user, depth + 1)) return false;
    }
    return LLVMGetFirstUse(v) != NULL;
}

static bool defer_in_function(const canon_ctx *K, LLVMValueRef fn) {
    bool changed = false;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb), next; I; I = next) {
            next = LLVMGetNextInstruction(I);
            LLVMValueRef r = canonicalised(K, I);
            if (!r || !covered(K, I, 1)) continue;
            LLVMValueRef c = LLVMGetOperand(I, 0), m = LLVMGetOperand(c, 0), b = LLVMGetOperand(m, 0);
            LLVMReplaceAllUsesWith(I, r); /* (the test's three instructions precede I: next stays valid) */
            LLVMInstructionEraseFromParent(I);
            LLVMInstructionEraseFromParent(c);
            LLVMInstructionEraseFromParent(m);
            LLVMInstructionEraseFromParent(b);
            changed = true;
        }
    return changed;
}

bool llvm_pass_defer_nan_canon(llvm_pass_ctx *X) {
    canon_ctx K = {.i32 = LLVMInt32TypeInContext(X->C), .f32 = LLVMFloatTypeInContext(X->C), .fma_call = X->t->fma_f32_call};
    LLVMBuilderRef B = LLVMCreateBuilderInContext(X->C);
    K.nan_f32 = LLVMBuildBitCast(B, LLVMConstInt(K.i32, 0x7fffffff, 0), K.f32, ""); /* folded: a constant */
    LLVMDisposeBuilder(B);
    for (LLVMValueRef fn = LLVMGetFirstFunction(X->M); fn; fn = LLVMGetNextFunction(fn))
        if (!LLVMIsDeclaration(fn)) defer_in_function(&K, fn);
    return true;
}
