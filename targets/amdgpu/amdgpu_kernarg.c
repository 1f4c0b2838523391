/* amdgpu_kernarg.c — after the optimiser: a private copy of kernel parameters whose only writes copy bytes of
 * the kernarg segment (at one fixed distance) is read from the kernarg segment instead.
 *
 * nvcc copies a by-value struct parameter that the kernel indexes dynamically (`m.i[t % 3]`) into its
 * `.local` depot field by field, each value loaded with ld.param. After SROA that is an alloca in
 * addrspace(5) with mixed-type stores and a variable-offset load: promote-alloca cannot make a vector of it, so
 * it stays in scratch (stores + scratch_load). The kernarg segment is read-only for the whole dispatch, so every
 * byte the copy holds equals the kernarg byte at the same distance, and a byte the copy never wrote is undefined
 * anyway: reading the kernarg segment at that distance is a refinement. The alloca, its stores and lifetime
 * markers go; each load becomes a load of addrspace(4) (s_load when uniform, global_load otherwise).
 *
 * Conditions (else the alloca is left alone): it is a fixed-size alloca of an amdgpu_kernel; every use, through
 * GEPs and addrspacecasts, is a simple load, a lifetime marker, or a simple store whose address is a constant
 * offset c into the alloca and whose value is a simple load from llvm.amdgcn.kernarg.segment.ptr + k of a type
 * of whole bytes, with k - c >= 0 the same for every store, and the copy's last byte maps below the end of some
 * kernarg load of the kernel (so every in-bounds load of the copy stays in the segment). Anything else (the address escapes, is compared,
 * selected, passed to a call, stored as a value; memcpy/memset; volatile or atomic access) keeps it. */
#include <llvm-c/Target.h>
#include <stdlib.h>
#include <string.h>

#include "amdgpu_target.h"

#define KARG "llvm.amdgcn.kernarg.segment.ptr"

typedef struct fwd {
    LLVMModuleRef M;
    LLVMTargetDataRef DL;
    LLVMValueRef *v;     /* alloca-derived instructions in visiting order (operands before users) */
    uint32_t n, cap;
    bool have_delta;
    int64_t delta;       /* kernarg offset - alloca offset, the same for every store */
    int64_t seg_end;     /* the largest kernarg offset + size the function loads: those bytes exist */
} fwd;

static bool is_call_to(LLVMValueRef i, const char *name, size_t len) {
    if (!LLVMIsACallInst(i)) return false;
    LLVMValueRef f = LLVMGetCalledValue(i);
    if (!f || !LLVMIsAFunction(f)) return false;
    size_t n;
    const char *s = LLVMGetValueName2(f, &n);
    return n >= len && !strncmp(s, name, len);
}

/* p = root + constant byte offset through `getelementptr i8, p, C` (the optimiser's canonical form) */
static LLVMValueRef strip_const_gep(LLVMValueRef p, int64_t *off) {
    *off = 0;
    while (LLVMIsAGetElementPtrInst(p) && LLVMGetNumIndices(p) == 1 &&
           LLVMGetGEPSourceElementType(p) == LLVMInt8TypeInContext(LLVMGetTypeContext(LLVMTypeOf(p)))) {
        LLVMValueRef idx = LLVMGetOperand(p, 1);
        if (!LLVMIsAConstantInt(idx)) break;
        *off += LLVMConstIntGetSExtValue(idx);
        p = LLVMGetOperand(p, 0);
    }
    return p;
}

static bool simple(LLVMValueRef mem) { return !LLVMGetVolatile(mem) && LLVMGetOrdering(mem) == LLVMAtomicOrderingNotAtomic; }

static bool push(fwd *F, LLVMValueRef i) {
    if (F->n == F->cap) {
        uint32_t c = F->cap ? 2 * F->cap : 32;
        LLVMValueRef *nv = realloc(F->v, c * sizeof *nv);
        if (!nv) return false;
        F->v = nv;
        F->cap = c;
    }
    F->v[F->n++] = i;
    return true;
}

/* a store into the copy: its value must be the kernarg bytes at the common distance */
static bool store_ok(fwd *F, LLVMValueRef st, LLVMValueRef alloca) {
    LLVMValueRef val = LLVMGetOperand(st, 0);
    if (!simple(st) || !LLVMIsALoadInst(val) || !simple(val)) return false;
    LLVMTypeRef ty = LLVMTypeOf(val);
    if (LLVMSizeOfTypeInBits(F->DL, ty) != 8 * LLVMStoreSizeOfType(F->DL, ty)) return false; /* i1, i4, ... */
    int64_t c, k;
    if (strip_const_gep(LLVMGetOperand(st, 1), &c) != alloca) return false;
    LLVMValueRef root = strip_const_gep(LLVMGetOperand(val, 0), &k);
    if (!is_call_to(root, KARG, sizeof KARG - 1)) return false;
    if (F->have_delta && F->delta != k - c) return false;
    F->have_delta = true;
    F->delta = k - c;
    return true;
}

/* every use of p (alloca-derived) is one we can rewrite; collects them */
static bool uses_ok(fwd *F, LLVMValueRef p, LLVMValueRef alloca) {
    for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef i = LLVMGetUser(u);
        if (LLVMIsALoadInst(i)) {
            if (!simple(i) || !push(F, i)) return false;
        } else if (LLVMIsAStoreInst(i)) {
            if (LLVMGetOperand(i, 1) != p || !store_ok(F, i, alloca) || !push(F, i)) return false;
        } else if (LLVMIsAGetElementPtrInst(i) ||
                   (LLVMIsAAddrSpaceCastInst(i) && !LLVMGetPointerAddressSpace(LLVMTypeOf(i)))) {
            if (LLVMGetOperand(i, 0) != p || !push(F, i) || !uses_ok(F, i, alloca)) return false;
        } else if (is_call_to(i, "llvm.lifetime.", 14)) {
            if (!push(F, i)) return false;
        } else {
            return false;
        }
    }
    return true;
}

static unsigned low_bit_align(int64_t d) {
    unsigned a = 1;
    while (a < 16 && !(d & a)) a <<= 1;
    return a;
}

/* the value mapped for an alloca-derived pointer: o[i] for F->v[i], `base` for the alloca */
static LLVMValueRef mapped(fwd *F, LLVMValueRef *o, LLVMValueRef alloca, LLVMValueRef base, LLVMValueRef p) {
    if (p == alloca) return base;
    for (uint32_t i = 0; i < F->n; i++)
        if (F->v[i] == p) return o[i];
    return NULL;
}

/* A load whose address is the alloca plus one-index i8 GEPs with 32-bit (private pointer) offsets, at least one
 * of them variable: base + zext of their 32-bit sum. An in-bounds load of the alloca has its total offset in
 * [0, size): one index may be negative, the wrapped 32-bit sum is not. Zero-extending the sum keeps the
 * address, and the back end sees a non-negative 32-bit offset (saddr + voffset addressing, what clang's
 * by-value parameters get) instead of each index sign-extended into a 64-bit add. NULL: any other form. */
static LLVMValueRef zext_sum_address(LLVMBuilderRef B, LLVMValueRef p, LLVMValueRef alloca, LLVMValueRef base) {
    LLVMContextRef C = LLVMGetTypeContext(LLVMTypeOf(p));
    LLVMTypeRef i8 = LLVMInt8TypeInContext(C), i32 = LLVMInt32TypeInContext(C);
    bool variable = false;
    unsigned n = 0;
    for (LLVMValueRef q = p; q != alloca; q = LLVMGetOperand(q, 0)) {
        if (!LLVMIsAGetElementPtrInst(q) || LLVMGetNumIndices(q) != 1 || LLVMGetGEPSourceElementType(q) != i8 ||
            LLVMTypeOf(LLVMGetOperand(q, 1)) != i32 || ++n > 8)
            return NULL;
        variable |= !LLVMIsAConstantInt(LLVMGetOperand(q, 1));
    }
    if (!variable) return NULL;
    LLVMValueRef sum = NULL;
    for (LLVMValueRef q = p; q != alloca; q = LLVMGetOperand(q, 0))
        sum = sum ? LLVMBuildAdd(B, sum, LLVMGetOperand(q, 1), "") : LLVMGetOperand(q, 1);
    LLVMValueRef off = LLVMBuildZExt(B, sum, LLVMInt64TypeInContext(C), "");
    return LLVMBuildGEP2(B, i8, base, &off, 1, "");
}

static bool rewrite(fwd *F, LLVMBuilderRef B, LLVMValueRef alloca) {
    LLVMValueRef kf = LLVMGetNamedFunction(F->M, KARG);
    LLVMValueRef *o = calloc(F->n + 1, sizeof *o);
    if (!kf || !o) { free(o); return false; }
    LLVMContextRef C = LLVMGetModuleContext(F->M);
    LLVMTypeRef i8 = LLVMInt8TypeInContext(C), i64 = LLVMInt64TypeInContext(C);
    LLVMPositionBuilderBefore(B, alloca);
    LLVMValueRef seg = LLVMBuildCall2(B, LLVMGlobalGetValueType(kf), kf, NULL, 0, "");
    LLVMValueRef d = LLVMConstInt(i64, (unsigned long long)F->delta, 1);
    LLVMValueRef base = LLVMBuildGEP2(B, i8, seg, &d, 1, "kernarg.copy");
    /* the copy's loads assumed the alloca's alignment; at a distance delta only its low bits still hold */
    unsigned dalign = F->delta ? low_bit_align(F->delta) : 16;
    for (uint32_t i = 0; i < F->n; i++) {
        LLVMValueRef in = F->v[i];
        LLVMPositionBuilderBefore(B, in);
        if (LLVMIsAGetElementPtrInst(in)) {
            unsigned ni = LLVMGetNumIndices(in);
            LLVMValueRef idx[8]; /* geps_small() */
            for (unsigned k = 0; k < ni; k++) idx[k] = LLVMGetOperand(in, k + 1);
            o[i] = LLVMBuildGEP2(B, LLVMGetGEPSourceElementType(in), mapped(F, o, alloca, base, LLVMGetOperand(in, 0)), idx, ni, "");
        } else if (LLVMIsAAddrSpaceCastInst(in)) {
            o[i] = LLVMBuildAddrSpaceCast(B, mapped(F, o, alloca, base, LLVMGetOperand(in, 0)), LLVMTypeOf(in), "");
        } else if (LLVMIsALoadInst(in)) {
            LLVMValueRef at = zext_sum_address(B, LLVMGetOperand(in, 0), alloca, base);
            LLVMValueRef l = LLVMBuildLoad2(B, LLVMTypeOf(in), at ? at : mapped(F, o, alloca, base, LLVMGetOperand(in, 0)), "");
            unsigned a = LLVMGetAlignment(in);
            LLVMSetAlignment(l, a < dalign ? a : dalign);
            o[i] = l;
        }
    }
    /* users before operands: loads get their replacement, stores / markers / GEPs / casts go */
    for (uint32_t i = F->n; i-- > 0;) {
        if (o[i] && LLVMIsALoadInst(F->v[i])) LLVMReplaceAllUsesWith(F->v[i], o[i]);
        LLVMValueRef val = LLVMIsAStoreInst(F->v[i]) ? LLVMGetOperand(F->v[i], 0) : NULL;
        LLVMInstructionEraseFromParent(F->v[i]);
        if (val && !LLVMGetFirstUse(val)) { /* the kernarg load it copied, and that load's address */
            LLVMValueRef a = LLVMGetOperand(val, 0);
            LLVMInstructionEraseFromParent(val);
            if (LLVMIsAGetElementPtrInst(a) && !LLVMGetFirstUse(a)) LLVMInstructionEraseFromParent(a);
        }
    }
    /* the stores' new addresses are unused */
    for (uint32_t i = F->n; i-- > 0;)
        if (o[i] && !LLVMIsALoadInst(o[i]) && !LLVMGetFirstUse(o[i])) LLVMInstructionEraseFromParent(o[i]);
    if (!LLVMGetFirstUse(base)) {
        LLVMInstructionEraseFromParent(base);
        LLVMInstructionEraseFromParent(seg);
    }
    LLVMInstructionEraseFromParent(alloca);
    free(o);
    return true;
}

/* the largest kernarg offset + size any load of f reads (constant offsets from the segment pointer) */
static int64_t kernarg_end(const fwd *F, LLVMValueRef f) {
    int64_t end = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
            int64_t k;
            if (!LLVMIsALoadInst(i) || !is_call_to(strip_const_gep(LLVMGetOperand(i, 0), &k), KARG, sizeof KARG - 1))
                continue;
            int64_t e = k + (int64_t)LLVMStoreSizeOfType(F->DL, LLVMTypeOf(i));
            end = e > end ? e : end;
        }
    return end;
}

/* GEPs with more indices than rewrite() handles are rare; refuse them before changing anything */
static bool geps_small(const fwd *F) {
    for (uint32_t i = 0; i < F->n; i++)
        if (LLVMIsAGetElementPtrInst(F->v[i]) && LLVMGetNumIndices(F->v[i]) > 8) return false;
    return true;
}

void amdgpu_forward_kernarg_copies(LLVMModuleRef M) {
    if (!LLVMGetNamedFunction(M, KARG)) return;
    fwd F = {.M = M, .DL = LLVMCreateTargetData(LLVMGetDataLayoutStr(M))};
    LLVMBuilderRef B = LLVMCreateBuilderInContext(LLVMGetModuleContext(M));
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) {
        if (LLVMIsDeclaration(f) || LLVMGetFunctionCallConv(f) != LLVMAMDGPUKERNELCallConv) continue;
        LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(f);
        /* a rewrite erases instructions of the entry block (markers, kernarg loads): rescan from its start;
         * each rescan has one alloca fewer */
        for (bool again = true; again;) {
            again = false;
            for (LLVMValueRef in = LLVMGetFirstInstruction(entry); in; in = LLVMGetNextInstruction(in)) {
                if (!LLVMIsAAllocaInst(in) || !LLVMIsAConstantInt(LLVMGetOperand(in, 0))) continue;
                F.n = 0;
                F.have_delta = false;
                /* every byte of the copy must map below a kernarg byte the kernel loads (an in-bounds load of the
                 * copy then stays inside the kernarg segment, whatever its variable offset) */
                int64_t bytes = (int64_t)(LLVMStoreSizeOfType(F.DL, LLVMGetAllocatedType(in)) *
                                          LLVMConstIntGetZExtValue(LLVMGetOperand(in, 0)));
                if (uses_ok(&F, in, in) && F.have_delta && F.delta >= 0 && F.delta + bytes <= kernarg_end(&F, f) &&
                    geps_small(&F)) {
                    again = rewrite(&F, B, in); /* false: out of memory, nothing changed */
                    break;
                }
            }
        }
    }
    LLVMDisposeBuilder(B);
    LLVMDisposeTargetData(F.DL);
    free(F.v);
}
