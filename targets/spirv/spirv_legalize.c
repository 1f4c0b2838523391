/* spirv_legalize.c — rewrites, after optimisation, of IR that the SPIR-V back end emits but SPIR-V
 * consumers cannot take:
 *  - 64x64 multiplies that O2 turned into i128 (AggressiveInstCombine recognises the 32-bit-piece mul.hi
 *    formula and folds it back): the high half from 32-bit pieces again, the low half as an i64 multiply —
 *    SPIR-V has no integer wider than 64 bits and the back end aborts on one;
 *  - llvm.{u,s}{add,sub}.with.overflow: the back end emits OpIAddCarry/OpISubBorrow, which llvm-spirv 15
 *    (PoCL, the SPIR-V→LLVM route of older runtimes) does not implement; plain add + compare is exact;
 *  - pointer compares (OpPtrEqual/OpPtrNotEqual are SPIR-V 1.4 opcodes llvm-spirv 15 rejects): compare the
 *    addresses as integers, which is the same thing with Physical64 addressing. */
#include <stdlib.h>
#include <string.h>

#include "spirv_target.h"

/* high 64 bits of a*b (both i64), signed or unsigned, from 32-bit pieces */
static LLVMValueRef mulhi64(LLVMBuilderRef B, LLVMTypeRef i64, LLVMValueRef a, LLVMValueRef b, bool s) {
    LLVMValueRef m32 = LLVMConstInt(i64, 0xffffffffu, 0), k32 = LLVMConstInt(i64, 32, 0);
    LLVMValueRef al = LLVMBuildAnd(B, a, m32, ""), ah = LLVMBuildLShr(B, a, k32, "");
    LLVMValueRef bl = LLVMBuildAnd(B, b, m32, ""), bh = LLVMBuildLShr(B, b, k32, "");
    LLVMValueRef ll = LLVMBuildMul(B, al, bl, ""), lh = LLVMBuildMul(B, al, bh, "");
    LLVMValueRef hl = LLVMBuildMul(B, ah, bl, ""), hh = LLVMBuildMul(B, ah, bh, "");
    /* middle column: at most 3 * (2^32 - 1), no overflow in 64 bits */
    LLVMValueRef mid = LLVMBuildAdd(B, LLVMBuildLShr(B, ll, k32, ""), LLVMBuildAnd(B, lh, m32, ""), "");
    mid = LLVMBuildAdd(B, mid, LLVMBuildAnd(B, hl, m32, ""), "");
    LLVMValueRef hi = LLVMBuildAdd(B, hh, LLVMBuildLShr(B, lh, k32, ""), "");
    hi = LLVMBuildAdd(B, hi, LLVMBuildLShr(B, hl, k32, ""), "");
    hi = LLVMBuildAdd(B, hi, LLVMBuildLShr(B, mid, k32, ""), "");
    if (!s) return hi;
    /* two's complement: hi_s = hi_u - (a < 0 ? b : 0) - (b < 0 ? a : 0) (mod 2^64) */
    LLVMValueRef z = LLVMConstNull(i64);
    hi = LLVMBuildSub(B, hi, LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, a, z, ""), b, z, ""), "");
    return LLVMBuildSub(B, hi, LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, b, z, ""), a, z, ""), "");
}

/* x is `zext/sext i64 to i128` (or a constant that fits): the i64 value and whether it was signed */
static LLVMValueRef narrow64(LLVMBuilderRef B, LLVMTypeRef i64, LLVMValueRef x, int *sign) {
    if (LLVMIsAConstantInt(x)) {
        /* small constants only: their i64 value is the same under both extensions when non-negative */
        unsigned long long v = LLVMConstIntGetZExtValue(x);
        if (v >> 62) return NULL;
        (void)B;
        return LLVMConstInt(i64, v, 0);
    }
    if (!LLVMIsAInstruction(x)) return NULL;
    LLVMOpcode op = LLVMGetInstructionOpcode(x);
    if (op != LLVMZExt && op != LLVMSExt) return NULL;
    LLVMValueRef v = LLVMGetOperand(x, 0);
    if (LLVMTypeOf(v) != i64) return NULL;
    int s = op == LLVMSExt;
    if (*sign >= 0 && *sign != s) return NULL;
    *sign = s;
    return v;
}

static bool is_const(LLVMValueRef v, unsigned long long c) {
    return v && LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == c;
}

/* mul i128 (ext a), (ext b) whose uses are all trunc / (lshr|ashr 64 -> trunc): rewritten in i64 */
static bool legalize_mul128(LLVMContextRef C, LLVMBuilderRef B, LLVMValueRef I) {
    LLVMTypeRef i64 = LLVMInt64TypeInContext(C);
    int sign = -1;
    LLVMPositionBuilderBefore(B, I);
    LLVMValueRef a = narrow64(B, i64, LLVMGetOperand(I, 0), &sign);
    LLVMValueRef b = a ? narrow64(B, i64, LLVMGetOperand(I, 1), &sign) : NULL;
    if (!a || !b) return false;
    for (LLVMUseRef u = LLVMGetFirstUse(I); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef us = LLVMGetUser(u);
        LLVMOpcode op = LLVMGetInstructionOpcode(us);
        if (op == LLVMTrunc && LLVMTypeOf(us) == i64) continue;
        if ((op != LLVMLShr && op != LLVMAShr) || !is_const(LLVMGetOperand(us, 1), 64)) return false;
        for (LLVMUseRef u2 = LLVMGetFirstUse(us); u2; u2 = LLVMGetNextUse(u2)) {
            LLVMValueRef t = LLVMGetUser(u2);
            if (LLVMGetInstructionOpcode(t) != LLVMTrunc || LLVMTypeOf(t) != i64) return false;
        }
    }
    LLVMValueRef lo = LLVMBuildMul(B, a, b, "");
    LLVMValueRef hi = mulhi64(B, i64, a, b, sign == 1);
    /* collect first, then replace: replacing while walking the use list would skip uses */
    LLVMValueRef dead[64];
    unsigned nd = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(I); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef us = LLVMGetUser(u);
        if (LLVMGetInstructionOpcode(us) == LLVMTrunc) {
            if (nd < 64) dead[nd++] = us;
            continue;
        }
        for (LLVMUseRef u2 = LLVMGetFirstUse(us); u2; u2 = LLVMGetNextUse(u2))
            if (nd < 64) dead[nd++] = LLVMGetUser(u2);
    }
    if (nd == 64) return false;
    for (unsigned i = 0; i < nd; i++) {
        bool high = LLVMGetOperand(dead[i], 0) != I;
        LLVMReplaceAllUsesWith(dead[i], high ? hi : lo);
        LLVMInstructionEraseFromParent(dead[i]);
    }
    /* the shifts, the multiply and the i128 extensions are now dead */
    while (LLVMGetFirstUse(I)) LLVMInstructionEraseFromParent(LLVMGetUser(LLVMGetFirstUse(I)));
    LLVMValueRef ops[2] = {LLVMGetOperand(I, 0), LLVMGetOperand(I, 1)};
    LLVMInstructionEraseFromParent(I);
    for (unsigned i = 0; i < 2; i++)
        if (LLVMIsAInstruction(ops[i]) && !LLVMGetFirstUse(ops[i]) && (i == 0 || ops[1] != ops[0]))
            LLVMInstructionEraseFromParent(ops[i]);
    return true;
}

/* llvm.[us](add|sub).with.overflow.iN -> { op, overflow } from plain arithmetic */
static bool expand_overflow(LLVMContextRef C, LLVMBuilderRef B, LLVMValueRef I, const char *name) {
    bool add = strstr(name, "add") != NULL, sgn = name[5] == 's';
    LLVMValueRef a = LLVMGetOperand(I, 0), b = LLVMGetOperand(I, 1);
    LLVMTypeRef ty = LLVMTypeOf(a);
    LLVMPositionBuilderBefore(B, I);
    LLVMValueRef r = add ? LLVMBuildAdd(B, a, b, "") : LLVMBuildSub(B, a, b, "");
    LLVMValueRef o;
    if (!sgn) {
        o = add ? LLVMBuildICmp(B, LLVMIntULT, r, a, "") : LLVMBuildICmp(B, LLVMIntULT, a, b, "");
    } else {
        /* signed overflow: the sign of r differs from a's where b's sign is (add) / is not (sub) a's */
        LLVMValueRef z = LLVMConstNull(ty);
        LLVMValueRef x = LLVMBuildXor(B, a, r, "");
        LLVMValueRef y = add ? LLVMBuildXor(B, b, r, "") : LLVMBuildXor(B, a, b, "");
        o = LLVMBuildICmp(B, LLVMIntSLT, LLVMBuildAnd(B, x, y, ""), z, "");
    }
    LLVMTypeRef st = LLVMTypeOf(I);
    LLVMValueRef agg = LLVMBuildInsertValue(B, LLVMGetUndef(st), r, 0, "");
    agg = LLVMBuildInsertValue(B, agg, LLVMBuildZExt(B, o, LLVMStructGetTypeAtIndex(st, 1), ""), 1, "");
    (void)C;
    LLVMReplaceAllUsesWith(I, agg);
    LLVMInstructionEraseFromParent(I);
    return true;
}

static void legalize_ptr_cmp(LLVMContextRef C, LLVMBuilderRef B, LLVMValueRef I) {
    LLVMTypeRef i64 = LLVMInt64TypeInContext(C);
    LLVMPositionBuilderBefore(B, I);
    LLVMValueRef a = LLVMBuildPtrToInt(B, LLVMGetOperand(I, 0), i64, "");
    LLVMValueRef b = LLVMBuildPtrToInt(B, LLVMGetOperand(I, 1), i64, "");
    LLVMValueRef r = LLVMBuildICmp(B, LLVMGetICmpPredicate(I), a, b, "");
    LLVMReplaceAllUsesWith(I, r);
    LLVMInstructionEraseFromParent(I);
}

/* CodeGenPrepare turns `add; icmp ult sum, a` (and `sub; icmp ult a, b`) back into uadd/usub.with.overflow,
 * i.e. OpIAddCarry/OpISubBorrow. A freeze between the arithmetic and the compare hides the pattern (and is
 * a no-op on values that are never poison). */
static void hide_carry(LLVMBuilderRef B, LLVMValueRef I) {
    LLVMIntPredicate p = LLVMGetICmpPredicate(I);
    if (p != LLVMIntULT && p != LLVMIntUGT && p != LLVMIntULE && p != LLVMIntUGE) return;
    for (unsigned i = 0; i < 2; i++) {
        LLVMValueRef x = LLVMGetOperand(I, i);
        if (LLVMIsConstant(x) || LLVMIsAFreezeInst(x)) continue;
        LLVMPositionBuilderBefore(B, I);
        LLVMSetOperand(I, i, LLVMBuildFreeze(B, x, ""));
    }
}

/* `alloca T, N` with a constant N != 1 is an array allocation, which the back end only emits with
 * SPV_INTEL_variable_length_array (it aborts otherwise; at -O0 nothing folds it): allocate [N x T] instead.
 * False for a run-time count (no SPIR-V form). */
bool spirv_static_alloca(LLVMValueRef I) {
    LLVMValueRef n = LLVMGetOperand(I, 0);
    if (!LLVMIsAConstantInt(n)) return false;
    unsigned long long cnt = LLVMConstIntGetZExtValue(n);
    if (cnt == 1) return true;
    LLVMBuilderRef B = LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(
        LLVMGetBasicBlockParent(LLVMGetInstructionParent(I)))));
    LLVMPositionBuilderBefore(B, I);
    LLVMValueRef a = LLVMBuildAlloca(B, LLVMArrayType2(LLVMGetAllocatedType(I), cnt ? cnt : 1), "");
    LLVMSetAlignment(a, LLVMGetAlignment(I));
    LLVMReplaceAllUsesWith(I, a);
    LLVMInstructionEraseFromParent(I);
    LLVMDisposeBuilder(B);
    return true;
}

void spirv_legalize(LLVMModuleRef M) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    for (LLVMValueRef fn = LLVMGetFirstFunction(M); fn; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef I = LLVMGetFirstInstruction(bb), next; I; I = next) {
                next = LLVMGetNextInstruction(I);
                LLVMOpcode op = LLVMGetInstructionOpcode(I);
                if (op == LLVMICmp) {
                    LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(I, 0)));
                    if (k == LLVMPointerTypeKind) legalize_ptr_cmp(C, B, I);
                    else if (k == LLVMIntegerTypeKind) hide_carry(B, I);
                } else if (op == LLVMCall) {
                    LLVMValueRef callee = LLVMGetCalledValue(I);
                    size_t n;
                    const char *cn = callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &n) : "";
                    if (!strncmp(cn, "llvm.", 5) && strstr(cn, ".with.overflow.") &&
                        (strstr(cn, "add") || strstr(cn, "sub")))
                        expand_overflow(C, B, I, cn);
                } else if (op == LLVMMul) {
                    LLVMTypeRef t = LLVMTypeOf(I);
                    if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 128) {
                        /* `next` may have been erased (a user or an operand): rescan the block, the
                         * rewrites above are idempotent */
                        if (legalize_mul128(C, B, I)) next = LLVMGetFirstInstruction(bb);
                    }
                }
            }
    LLVMDisposeBuilder(B);
}

/* ---- integers of odd widths (i33 from IndVars' trip-count arithmetic, i65 from -O0 extension chains):
 * SPIR-V has only 8/16/32/64-bit integers. Each such value is carried in an i64 that holds its low bits
 * exactly and garbage above bit N (N < 64); add/sub/mul/shl/and/or/xor/trunc only read low bits, so they
 * run as they are; what reads the high bits (right shifts, division, compares, widening) first re-extends
 * from bit N. For N > 64 only the low-64-bit operations are possible. */
static bool odd_width(LLVMTypeRef t) {
    if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind) return false;
    unsigned w = LLVMGetIntTypeWidth(t);
    return w != 1 && w != 8 && w != 16 && w != 32 && w != 64;
}

typedef struct odd_map {
    LLVMValueRef *from, *to;
    unsigned n, cap;
} odd_map;

static LLVMValueRef odd_get(odd_map *m, LLVMTypeRef i64, LLVMValueRef v) {
    for (unsigned i = 0; i < m->n; i++)
        if (m->from[i] == v) return m->to[i];
    if (LLVMIsAConstantInt(v)) return LLVMConstInt(i64, LLVMConstIntGetZExtValue(v), 0); /* low 64 bits */
    return NULL;
}

/* v (i64 carrying an iN) -> zero- or sign-extended from bit N; NULL for N > 64 */
static LLVMValueRef odd_norm(LLVMBuilderRef B, LLVMTypeRef i64, LLVMValueRef v, unsigned w, bool sgn) {
    if (!v || w > 64) return NULL;
    if (w == 64) return v;
    if (!sgn) return LLVMBuildAnd(B, v, LLVMConstInt(i64, (1ull << w) - 1, 0), "");
    LLVMValueRef sh = LLVMConstInt(i64, 64 - w, 0);
    return LLVMBuildAShr(B, LLVMBuildShl(B, v, sh, ""), sh, "");
}

static unsigned odd_w(LLVMValueRef v) { return LLVMGetIntTypeWidth(LLVMTypeOf(v)); }

/* the i64 form of I (odd-width result), or the replacement of I (legal result); NULL: not expressible */
static LLVMValueRef odd_rewrite(LLVMBuilderRef B, LLVMTypeRef i64, odd_map *m, LLVMValueRef I) {
    LLVMOpcode op = LLVMGetInstructionOpcode(I);
    LLVMTypeRef rt = LLVMTypeOf(I);
    bool odd_r = odd_width(rt);
    unsigned rw = LLVMGetTypeKind(rt) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(rt) : 0;
    LLVMValueRef a = LLVMGetNumOperands(I) > 0 ? LLVMGetOperand(I, 0) : NULL;
    LLVMValueRef b = LLVMGetNumOperands(I) > 1 ? LLVMGetOperand(I, 1) : NULL;
    bool odd_a = a && odd_width(LLVMTypeOf(a));
    LLVMValueRef x = odd_a ? odd_get(m, i64, a) : a, y = b && odd_width(LLVMTypeOf(b)) ? odd_get(m, i64, b) : b;
    if (odd_a && !x) return NULL;
    switch (op) {
    case LLVMZExt: case LLVMSExt:
        if (odd_r && !odd_a) return op == LLVMZExt ? LLVMBuildZExt(B, a, i64, "") : LLVMBuildSExt(B, a, i64, "");
        if (odd_r || !odd_a) return NULL;
        x = odd_norm(B, i64, x, odd_w(a), op == LLVMSExt);
        return x && rw <= 64 ? (rw == 64 ? x : LLVMBuildTrunc(B, x, rt, "")) : NULL;
    case LLVMTrunc:
        if (odd_r) return odd_a ? x : odd_w(a) == 64 ? a : NULL;
        return odd_a ? (rw == 64 ? x : LLVMBuildTrunc(B, x, rt, "")) : NULL;
    case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMAnd: case LLVMOr: case LLVMXor:
        if (!odd_r || !x || !y) return NULL;
        return LLVMBuildBinOp(B, op, x, y, "");
    case LLVMShl: case LLVMLShr: case LLVMAShr: case LLVMUDiv: case LLVMSDiv: case LLVMURem: case LLVMSRem: {
        if (!odd_r || !x || !y) return NULL;
        bool sgn = op == LLVMAShr || op == LLVMSDiv || op == LLVMSRem;
        LLVMValueRef yy = odd_norm(B, i64, y, rw, sgn && op != LLVMAShr);
        LLVMValueRef xx = op == LLVMShl ? x : odd_norm(B, i64, x, rw, sgn);
        return xx && yy ? LLVMBuildBinOp(B, op, xx, yy, "") : NULL;
    }
    case LLVMICmp: {
        if (!odd_a || !y) return NULL;
        LLVMIntPredicate p = LLVMGetICmpPredicate(I);
        bool sgn = p == LLVMIntSGT || p == LLVMIntSGE || p == LLVMIntSLT || p == LLVMIntSLE;
        LLVMValueRef xx = odd_norm(B, i64, x, odd_w(a), sgn), yy = odd_norm(B, i64, y, odd_w(a), sgn);
        return xx && yy ? LLVMBuildICmp(B, p, xx, yy, "") : NULL;
    }
    case LLVMSelect: {
        if (!odd_r) return NULL;
        LLVMValueRef t = odd_get(m, i64, b), f = odd_get(m, i64, LLVMGetOperand(I, 2));
        return t && f ? LLVMBuildSelect(B, a, t, f, "") : NULL;
    }
    case LLVMFreeze: return odd_r ? x : NULL;
    default: return NULL;
    }
}

bool spirv_legalize_odd_ints(LLVMModuleRef M) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(C);
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    odd_map m = {0};
    bool ok = true;
    for (LLVMValueRef fn = LLVMGetFirstFunction(M); fn && ok; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && ok; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I && ok; I = LLVMGetNextInstruction(I)) {
                bool odd = odd_width(LLVMTypeOf(I));
                for (int k = 0; k < LLVMGetNumOperands(I) && !odd; k++) odd = odd_width(LLVMTypeOf(LLVMGetOperand(I, k)));
                if (!odd) continue;
                LLVMPositionBuilderBefore(B, I);
                LLVMValueRef nv = odd_rewrite(B, i64, &m, I);
                if (!nv) { ok = false; break; }
                if (m.n == m.cap) {
                    m.cap = m.cap ? 2 * m.cap : 32;
                    m.from = realloc(m.from, m.cap * sizeof *m.from);
                    m.to = realloc(m.to, m.cap * sizeof *m.to);
                }
                m.from[m.n] = I;
                m.to[m.n++] = nv;
            }
    if (ok) {
        /* legal results take their replacement; then the odd-width instructions go, users first */
        for (unsigned i = 0; i < m.n; i++)
            if (!odd_width(LLVMTypeOf(m.from[i]))) LLVMReplaceAllUsesWith(m.from[i], m.to[i]);
        for (unsigned i = m.n; i-- > 0;) {
            if (odd_width(LLVMTypeOf(m.from[i]))) LLVMReplaceAllUsesWith(m.from[i], LLVMGetPoison(LLVMTypeOf(m.from[i])));
            LLVMInstructionEraseFromParent(m.from[i]);
        }
    }
    /* on failure the partial i64 code is dead and the module still holds the odd type: the caller diagnoses */
    free(m.from);
    free(m.to);
    LLVMDisposeBuilder(B);
    return ok;
}
