/* spirv_atomics.c — after optimisation, every atomicrmw / cmpxchg / atomic load / atomic store / fence becomes
 * an explicit __spirv_* call (OpAtomic*, OpMemoryBarrier) with
 *  - the SPIR-V Scope from the instruction's syncscope (target_desc.syncscopes names it from the PTX scope),
 *  - memory semantics = ordering bits | the storage-class bit of the memory it touches.
 * Why: LLVM's SPIR-V back end never sets WorkgroupMemory (0x100) / CrossWorkgroupMemory (0x200), and under
 * the OpenCL memory model acquire/release semantics (and fences) without storage-class bits order nothing
 * (../shared/docs/targets.md §2.4).
 *
 * Address spaces: a pointer provably derived from a CrossWorkgroup (1) or Workgroup (3) pointer is used in
 * that space with that one bit. A generic pointer of unknown origin (CUDA pointers arrive as integers) goes
 * through a small helper that tests it with to_local (OpGenericCastToPtrExplicit) and runs the atomic on the
 * Workgroup or the CrossWorkgroup pointer: each branch then carries its exact storage-class bit, and the
 * module needs no generic-address-space atomics, which PoCL's kernel library lacks (llvm-spirv 15 maps them
 * to atomic_*(generic T*), undefined there). PTX atomics on .local memory are undefined behaviour, so
 * "not Workgroup" may be taken as CrossWorkgroup.
 *
 * 16-bit compare-exchange (f16/bf16 atomics' loops, atom.cas.b16) has no OpenCL equivalent: it becomes a
 * 32-bit compare-exchange loop on the aligned word that holds the halfword. */
#include <stdio.h>
#include <string.h>

#include "spirv_target.h"

enum { SC_CROSS_DEVICE = 0, SC_DEVICE = 1, SC_WORKGROUP = 2, SC_SUBGROUP = 3, SC_INVOCATION = 4 };
enum { SEM_ACQ = 0x2, SEM_REL = 0x4, SEM_ACQREL = 0x8, SEM_SEQCST = 0x10, SEM_WG = 0x100, SEM_CWG = 0x200 };

typedef struct actx {
    LLVMModuleRef M;
    LLVMContextRef C;
    LLVMBuilderRef B;
    LLVMTypeRef i1, i32, i64, vd;
    unsigned ss_single, ss_sub, ss_wg, ss_dev, ss_svm;
    LLVMValueRef at; /* the instruction being replaced: code goes before it */
} actx;


/* LLVM syncscope -> SPIR-V Scope. The system scope (no syncscope: what the emission uses when the target has
 * no scope table, and the PTX default scope of atom/red is .gpu) is Device; only an explicit
 * "all_svm_devices" (PTX .sys through spirv_syncscopes) is CrossDevice — host-visible SVM atomics. */
static unsigned spv_scope(const actx *A, unsigned id) {
    if (id == A->ss_single) return SC_INVOCATION;
    if (id == A->ss_sub) return SC_SUBGROUP;
    if (id == A->ss_wg) return SC_WORKGROUP;
    if (id == A->ss_svm) return SC_CROSS_DEVICE;
    return SC_DEVICE;
}

static unsigned order_bits(LLVMAtomicOrdering o) {
    switch (o) {
    case LLVMAtomicOrderingAcquire: return SEM_ACQ;
    case LLVMAtomicOrderingRelease: return SEM_REL;
    case LLVMAtomicOrderingAcquireRelease: return SEM_ACQREL;
    case LLVMAtomicOrderingSequentiallyConsistent: return SEM_SEQCST;
    default: return 0; /* relaxed: storage-class bits would be meaningless */
    }
}

static unsigned semantics(LLVMAtomicOrdering o, unsigned as) {
    unsigned ob = order_bits(o);
    if (!ob) return 0;
    return ob | (as == 3 ? SEM_WG : as == 1 ? SEM_CWG : SEM_WG | SEM_CWG);
}

/* Itanium code of a scalar type (the back end demangles the name to find the builtin) */
static const char *tcode(LLVMTypeRef t) {
    switch (LLVMGetTypeKind(t)) {
    case LLVMFloatTypeKind: return "f";
    case LLVMDoubleTypeKind: return "d";
    case LLVMHalfTypeKind: return "Dh";
    case LLVMIntegerTypeKind:
        switch (LLVMGetIntTypeWidth(t)) {
        case 8: return "c";
        case 16: return "s";
        case 32: return "i";
        default: return "l";
        }
    default: return "l";
    }
}

static unsigned bits_of_vt(LLVMTypeRef t) {
    return LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t) : LLVMGetTypeKind(t) == LLVMDoubleTypeKind ? 64 : 32;
}

/* __spirv_<op>(T AS* p, int scope, int sem..., T v...) with a correctly length-prefixed mangled name */
static LLVMValueRef spv_call(actx *A, const char *op, LLVMTypeRef ret, LLVMTypeRef vt, LLVMValueRef *args,
                             unsigned n, unsigned nsem) {
    char name[128], base[64];
    snprintf(base, sizeof base, "__spirv_%s", op);
    unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(args[0]));
    int k = snprintf(name, sizeof name, "_Z%zu%sPU3AS%u%si", strlen(base), base, as, tcode(vt));
    for (unsigned i = 0; i < nsem && k < (int)sizeof name - 2; i++) k += snprintf(name + k, sizeof name - (size_t)k, "i");
    for (unsigned i = 2 + nsem; i < n && k < (int)sizeof name - 4; i++)
        k += snprintf(name + k, sizeof name - (size_t)k, "%s", tcode(vt));
    LLVMTypeRef at[8];
    for (unsigned i = 0; i < n; i++) at[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef ft = LLVMFunctionType(ret, at, n, 0);
    LLVMValueRef f = LLVMGetNamedFunction(A->M, name);
    if (!f) {
        f = LLVMAddFunction(A->M, name, ft);
        unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(A->C, nounwind, 0));
    }
    return LLVMBuildCall2(A->B, ft, f, args, n, "");
}

/* what one atomic instruction does, independent of the pointer's address space */
typedef enum akind { AK_RMW, AK_CAS, AK_LOAD, AK_STORE } akind;
typedef struct aop {
    akind kind;
    const char *op;          /* __spirv_ name without the prefix */
    LLVMTypeRef vt;          /* value type as the builtin sees it (integer, or float for FAddEXT) */
    LLVMAtomicOrdering ord, ord_fail;
    unsigned scope;
} aop;

/* the __spirv_ call on pointer p (addrspace 1, 3 or 4); v = operands after the pointer (already vt) */
static LLVMValueRef emit_op(actx *A, const aop *o, LLVMValueRef p, LLVMValueRef *v) {
    unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(p));
    LLVMValueRef sc = LLVMConstInt(A->i32, o->scope, 0), s1 = LLVMConstInt(A->i32, semantics(o->ord, as), 0);
    switch (o->kind) {
    case AK_LOAD: {
        LLVMValueRef a[3] = {p, sc, s1};
        return spv_call(A, o->op, o->vt, o->vt, a, 3, 1);
    }
    case AK_STORE: {
        LLVMValueRef a[4] = {p, sc, s1, v[0]};
        spv_call(A, o->op, A->vd, o->vt, a, 4, 1);
        return NULL;
    }
    case AK_CAS: {
        LLVMValueRef s2 = LLVMConstInt(A->i32, semantics(o->ord_fail, as), 0);
        /* OpAtomicCompareExchange(ptr, scope, eq, neq, value, comparator) */
        LLVMValueRef a[6] = {p, sc, s1, s2, v[1], v[0]};
        return spv_call(A, o->op, o->vt, o->vt, a, 6, 2);
    }
    default: {
        LLVMValueRef a[4] = {p, sc, s1, v[0]};
        return spv_call(A, o->op, o->vt, o->vt, a, 4, 1);
    }
    }
}

/* 1 or 3 when p is provably derived (GEPs, casts) from a pointer of that space; else its own space */
static unsigned origin_space(LLVMValueRef p) {
    for (unsigned depth = 0; depth < 16 && p; depth++) {
        unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(p));
        if (as != 4) return as;
        if (LLVMIsAGetElementPtrInst(p) || LLVMIsAAddrSpaceCastInst(p) || LLVMIsABitCastInst(p)) {
            p = LLVMGetOperand(p, 0);
            continue;
        }
        if (LLVMIsAConstantExpr(p)) {
            LLVMOpcode op = LLVMGetConstOpcode(p);
            if (op == LLVMGetElementPtr || op == LLVMAddrSpaceCast || op == LLVMBitCast) {
                p = LLVMGetOperand(p, 0);
                continue;
            }
        }
        return 4;
    }
    return 4;
}

/* At the end of the builder's (unterminated) block in function fn: l = to_local(gp); if (l) op(l) else
 * op((global)gp); leaves the builder at the end of the join block and returns the result (NULL: store). */
static LLVMValueRef dispatch(actx *A, LLVMValueRef fn, const aop *o, LLVMValueRef gp, LLVMValueRef *v) {
    LLVMBasicBlockRef bl = LLVMAppendBasicBlockInContext(A->C, fn, "local"),
                      bg = LLVMAppendBasicBlockInContext(A->C, fn, "global"),
                      join = LLVMAppendBasicBlockInContext(A->C, fn, "join");
    LLVMTypeRef lptr = LLVMPointerTypeInContext(A->C, 3), gpt = LLVMTypeOf(gp);
    LLVMTypeRef tlt = LLVMFunctionType(lptr, &gpt, 1, 0);
    LLVMValueRef tl = LLVMGetNamedFunction(A->M, "_Z8to_localPU3AS4v");
    if (!tl) tl = LLVMAddFunction(A->M, "_Z8to_localPU3AS4v", tlt);
    /* to_local's operand and result are used only as integers: llvm-spirv 15 declares one `__to_local` per
     * module from the pointee types the back end infers, and two atomic widths would clash */
    LLVMValueRef gi = LLVMBuildIntToPtr(A->B, LLVMBuildPtrToInt(A->B, gp, A->i64, ""), gpt, "");
    LLVMValueRef lp = LLVMBuildCall2(A->B, tlt, tl, &gi, 1, "");
    /* integer compare: OpPtrNotEqual is not understood by llvm-spirv 15 */
    LLVMValueRef isl = LLVMBuildICmp(A->B, LLVMIntNE, LLVMBuildPtrToInt(A->B, lp, A->i64, ""), LLVMConstNull(A->i64), "");
    LLVMBuildCondBr(A->B, isl, bl, bg);
    LLVMPositionBuilderAtEnd(A->B, bl);
    LLVMValueRef rl = emit_op(A, o, LLVMBuildAddrSpaceCast(A->B, gp, lptr, ""), v);
    LLVMBuildBr(A->B, join);
    LLVMPositionBuilderAtEnd(A->B, bg);
    LLVMValueRef rg = emit_op(A, o, LLVMBuildAddrSpaceCast(A->B, gp, LLVMPointerTypeInContext(A->C, 1), ""), v);
    LLVMBuildBr(A->B, join);
    LLVMPositionBuilderAtEnd(A->B, join);
    if (!rl) return NULL;
    LLVMValueRef phi = LLVMBuildPhi(A->B, LLVMTypeOf(rl), "");
    LLVMAddIncoming(phi, (LLVMValueRef[]){rl, rg}, (LLVMBasicBlockRef[]){bl, bg}, 2);
    return phi;
}

/* a generic pointer of unknown space: an internal helper(p, v...) holding the dispatch (the C API cannot
 * split the caller's block) */
static LLVMValueRef emit_generic(actx *A, const aop *o, LLVMValueRef p, LLVMValueRef *v, unsigned nv) {
    LLVMTypeRef ret = o->kind == AK_STORE ? A->vd : o->vt;
    LLVMTypeRef at[4] = {LLVMTypeOf(p)};
    for (unsigned i = 0; i < nv; i++) at[1 + i] = LLVMTypeOf(v[i]);
    LLVMTypeRef ft = LLVMFunctionType(ret, at, 1 + nv, 0);
    /* one helper per distinct operation (kind, type, orderings, scope): less code for the driver to build */
    char name[96];
    snprintf(name, sizeof name, "__p2n_spv_%s.%s%u.%d.%d.%u", o->op, tcode(o->vt), bits_of_vt(o->vt), (int)o->ord,
             (int)o->ord_fail, o->scope);
    LLVMValueRef fn = LLVMGetNamedFunction(A->M, name);
    if (!fn) {
        fn = LLVMAddFunction(A->M, name, ft);
        LLVMSetLinkage(fn, LLVMInternalLinkage);
        LLVMPositionBuilderAtEnd(A->B, LLVMAppendBasicBlockInContext(A->C, fn, "entry"));
        LLVMValueRef fv[3];
        for (unsigned i = 0; i < nv; i++) fv[i] = LLVMGetParam(fn, 1 + i);
        LLVMValueRef r = dispatch(A, fn, o, LLVMGetParam(fn, 0), fv);
        if (r) LLVMBuildRet(A->B, r); else LLVMBuildRetVoid(A->B);
        LLVMPositionBuilderBefore(A->B, A->at);
    }
    LLVMValueRef args[4] = {p};
    for (unsigned i = 0; i < nv; i++) args[1 + i] = v[i];
    return LLVMBuildCall2(A->B, ft, fn, args, 1 + nv, "");
}

static LLVMValueRef emit_any(actx *A, const aop *o, LLVMValueRef p, LLVMValueRef *v, unsigned nv) {
    unsigned as = origin_space(p);
    if (as == 1 || as == 3) {
        if (LLVMGetPointerAddressSpace(LLVMTypeOf(p)) != as)
            p = LLVMBuildAddrSpaceCast(A->B, p, LLVMPointerTypeInContext(A->C, as), "");
        return emit_op(A, o, p, v);
    }
    if (as == 0) p = LLVMBuildAddrSpaceCast(A->B, p, LLVMPointerTypeInContext(A->C, 4), "");
    return emit_generic(A, o, p, v, nv);
}

/* value of type t as the integer of the same width (the builtins are integer-typed) */
static LLVMValueRef as_int(actx *A, LLVMValueRef v, LLVMTypeRef it) {
    LLVMTypeRef t = LLVMTypeOf(v);
    if (t == it) return v;
    if (LLVMGetTypeKind(t) == LLVMPointerTypeKind) return LLVMBuildPtrToInt(A->B, v, it, "");
    return LLVMBuildBitCast(A->B, v, it, "");
}
static LLVMValueRef from_int(actx *A, LLVMValueRef v, LLVMTypeRef t) {
    if (LLVMTypeOf(v) == t) return v;
    if (LLVMGetTypeKind(t) == LLVMPointerTypeKind) return LLVMBuildIntToPtr(A->B, v, t, "");
    return LLVMBuildBitCast(A->B, v, t, "");
}

static unsigned bits_of(LLVMTypeRef t) {
    switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind: return LLVMGetIntTypeWidth(t);
    case LLVMFloatTypeKind: return 32;
    case LLVMDoubleTypeKind: case LLVMPointerTypeKind: return 64;
    case LLVMHalfTypeKind: case LLVMBFloatTypeKind: return 16;
    default: return 0;
    }
}

static const char *rmw_name(LLVMAtomicRMWBinOp op, bool fp) {
    switch (op) {
    case LLVMAtomicRMWBinOpXchg: return "AtomicExchange";
    case LLVMAtomicRMWBinOpAdd: return "AtomicIAdd";
    case LLVMAtomicRMWBinOpSub: return "AtomicISub";
    case LLVMAtomicRMWBinOpAnd: return "AtomicAnd";
    case LLVMAtomicRMWBinOpOr: return "AtomicOr";
    case LLVMAtomicRMWBinOpXor: return "AtomicXor";
    case LLVMAtomicRMWBinOpMax: return "AtomicSMax";
    case LLVMAtomicRMWBinOpMin: return "AtomicSMin";
    case LLVMAtomicRMWBinOpUMax: return "AtomicUMax";
    case LLVMAtomicRMWBinOpUMin: return "AtomicUMin";
    case LLVMAtomicRMWBinOpFAdd: return fp ? "AtomicFAddEXT" : NULL;
    default: return NULL;
    }
}

/* 16-bit cmpxchg: helper(p, cmp, new) looping a 32-bit compare-exchange on the containing word */
static LLVMValueRef cas16(actx *A, const aop *o32, LLVMValueRef p, LLVMValueRef cmp, LLVMValueRef nv) {
    LLVMTypeRef i16 = LLVMInt16TypeInContext(A->C);
    LLVMTypeRef at[3] = {LLVMTypeOf(p), i16, i16};
    LLVMTypeRef ft = LLVMFunctionType(i16, at, 3, 0);
    char name[96];
    snprintf(name, sizeof name, "__p2n_spv_cas16.as%u.%d.%d.%u", LLVMGetPointerAddressSpace(at[0]), (int)o32->ord,
             (int)o32->ord_fail, o32->scope);
    LLVMValueRef fn = LLVMGetNamedFunction(A->M, name);
    if (fn) return LLVMBuildCall2(A->B, ft, fn, (LLVMValueRef[]){p, cmp, nv}, 3, "");
    fn = LLVMAddFunction(A->M, name, ft);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(A->C, fn, "entry"),
                      loop = LLVMAppendBasicBlockInContext(A->C, fn, "loop"),
                      tryb = LLVMAppendBasicBlockInContext(A->C, fn, "try"),
                      done = LLVMAppendBasicBlockInContext(A->C, fn, "done");
    LLVMPositionBuilderAtEnd(A->B, entry);
    LLVMValueRef hp = LLVMGetParam(fn, 0), c = LLVMGetParam(fn, 1), n = LLVMGetParam(fn, 2);
    LLVMTypeRef pt = LLVMTypeOf(hp);
    LLVMValueRef addr = LLVMBuildPtrToInt(A->B, hp, A->i64, "");
    LLVMValueRef off = LLVMBuildAnd(A->B, addr, LLVMConstInt(A->i64, 3, 0), "");
    /* the word's pointer as a GEP on the halfword's (keeps the address space and its provenance) */
    LLVMValueRef wp = LLVMBuildGEP2(A->B, LLVMInt8TypeInContext(A->C), hp, (LLVMValueRef[]){LLVMBuildNeg(A->B, off, "")}, 1, "");
    LLVMValueRef sh = LLVMBuildTrunc(A->B, LLVMBuildShl(A->B, off, LLVMConstInt(A->i64, 3, 0), ""), A->i32, "");
    LLVMValueRef mask = LLVMBuildShl(A->B, LLVMConstInt(A->i32, 0xffff, 0), sh, "");
    LLVMValueRef first = LLVMBuildLoad2(A->B, A->i32, wp, "");
    LLVMSetVolatile(first, 1);
    LLVMBuildBr(A->B, loop);
    LLVMPositionBuilderAtEnd(A->B, loop);
    LLVMValueRef cur = LLVMBuildPhi(A->B, A->i32, "");
    LLVMValueRef half = LLVMBuildTrunc(A->B, LLVMBuildLShr(A->B, cur, sh, ""), i16, "");
    LLVMBuildCondBr(A->B, LLVMBuildICmp(A->B, LLVMIntEQ, half, c, ""), tryb, done);
    LLVMPositionBuilderAtEnd(A->B, tryb);
    LLVMValueRef want = LLVMBuildOr(A->B, LLVMBuildAnd(A->B, cur, LLVMBuildNot(A->B, mask, ""), ""),
                                    LLVMBuildShl(A->B, LLVMBuildZExt(A->B, n, A->i32, ""), sh, ""), "");
    LLVMValueRef v[2] = {cur, want}, seen;
    if (LLVMGetPointerAddressSpace(pt) == 4) seen = dispatch(A, fn, o32, wp, v);
    else seen = emit_op(A, o32, wp, v);
    LLVMBasicBlockRef tail = LLVMGetInsertBlock(A->B);
    LLVMBuildCondBr(A->B, LLVMBuildICmp(A->B, LLVMIntEQ, seen, cur, ""), done, loop);
    LLVMAddIncoming(cur, (LLVMValueRef[]){first, seen}, (LLVMBasicBlockRef[]){entry, tail}, 2);
    LLVMPositionBuilderAtEnd(A->B, done);
    /* success: the old halfword is cmp; failure: the halfword that differed */
    LLVMValueRef res = LLVMBuildPhi(A->B, i16, "");
    LLVMAddIncoming(res, (LLVMValueRef[]){half, c}, (LLVMBasicBlockRef[]){loop, tail}, 2);
    LLVMBuildRet(A->B, res);
    LLVMPositionBuilderBefore(A->B, A->at);
    LLVMValueRef args[3] = {p, cmp, nv};
    return LLVMBuildCall2(A->B, ft, fn, args, 3, "");
}

static bool lower_one(actx *A, LLVMValueRef I, const target_desc *t, p2n_diags *d, const char *fname) {
    LLVMOpcode opc = LLVMGetInstructionOpcode(I);
    LLVMPositionBuilderBefore(A->B, I);
    A->at = I;
    aop o = {.scope = spv_scope(A, LLVMGetAtomicSyncScopeID(I))};
    if (opc == LLVMFence) {
        unsigned sem = order_bits(LLVMGetOrdering(I));
        if (!sem) sem = SEM_SEQCST;
        LLVMValueRef a[2] = {LLVMConstInt(A->i32, o.scope, 0), LLVMConstInt(A->i32, sem | SEM_WG | SEM_CWG, 0)};
        LLVMTypeRef at[2] = {A->i32, A->i32};
        LLVMTypeRef ft = LLVMFunctionType(A->vd, at, 2, 0);
        LLVMValueRef f = LLVMGetNamedFunction(A->M, "_Z21__spirv_MemoryBarrierii");
        if (!f) f = LLVMAddFunction(A->M, "_Z21__spirv_MemoryBarrierii", ft);
        LLVMBuildCall2(A->B, ft, f, a, 2, "");
        LLVMInstructionEraseFromParent(I);
        return true;
    }
    LLVMValueRef p = LLVMGetOperand(I, opc == LLVMStore ? 1 : 0);
    LLVMTypeRef ty = opc == LLVMStore ? LLVMTypeOf(LLVMGetOperand(I, 0)) : opc == LLVMLoad ? LLVMTypeOf(I)
                   : LLVMTypeOf(LLVMGetOperand(I, 1));
    unsigned bits = bits_of(ty);
    if (bits != 16 && bits != 32 && bits != 64) goto unsupported;
    LLVMTypeRef it = LLVMIntTypeInContext(A->C, bits);
    o.ord = LLVMGetOrdering(I);
    o.vt = it;
    LLVMValueRef r, v[2];
    switch (opc) {
    case LLVMLoad:
        o.kind = AK_LOAD, o.op = "AtomicLoad";
        if (bits == 16) { /* OpenCL has no 16-bit atomics: load the aligned word that holds it */
            LLVMValueRef off = LLVMBuildAnd(A->B, LLVMBuildPtrToInt(A->B, p, A->i64, ""), LLVMConstInt(A->i64, 3, 0), "");
            LLVMValueRef wp = LLVMBuildGEP2(A->B, LLVMInt8TypeInContext(A->C), p, (LLVMValueRef[]){LLVMBuildNeg(A->B, off, "")}, 1, "");
            LLVMValueRef sh = LLVMBuildTrunc(A->B, LLVMBuildShl(A->B, off, LLVMConstInt(A->i64, 3, 0), ""), A->i32, "");
            o.vt = A->i32;
            LLVMValueRef w = emit_any(A, &o, wp, NULL, 0);
            r = from_int(A, LLVMBuildTrunc(A->B, LLVMBuildLShr(A->B, w, sh, ""), it, ""), ty);
            break;
        }
        r = from_int(A, emit_any(A, &o, p, NULL, 0), ty);
        break;
    case LLVMStore:
        if (bits == 16) goto unsupported;
        o.kind = AK_STORE, o.op = "AtomicStore";
        v[0] = as_int(A, LLVMGetOperand(I, 0), it);
        emit_any(A, &o, p, v, 1);
        r = NULL;
        break;
    case LLVMAtomicRMW: {
        if (bits == 16) goto unsupported;
        bool fp = LLVMGetTypeKind(ty) == LLVMFloatTypeKind || LLVMGetTypeKind(ty) == LLVMDoubleTypeKind;
        LLVMAtomicRMWBinOp bop = LLVMGetAtomicRMWBinOp(I);
        o.kind = AK_RMW, o.op = rmw_name(bop, fp);
        if (!o.op) goto unsupported;
        if (bop == LLVMAtomicRMWBinOpFAdd) o.vt = ty;
        v[0] = bop == LLVMAtomicRMWBinOpFAdd ? LLVMGetOperand(I, 1) : as_int(A, LLVMGetOperand(I, 1), it);
        r = from_int(A, emit_any(A, &o, p, v, 1), ty);
        break;
    }
    case LLVMAtomicCmpXchg: {
        o.kind = AK_CAS, o.op = "AtomicCompareExchange";
        o.ord = LLVMGetCmpXchgSuccessOrdering(I);
        o.ord_fail = LLVMGetCmpXchgFailureOrdering(I);
        v[0] = as_int(A, LLVMGetOperand(I, 1), it);
        v[1] = as_int(A, LLVMGetOperand(I, 2), it);
        LLVMValueRef old;
        if (bits == 16) {
            aop o32 = o;
            o32.vt = A->i32;
            old = cas16(A, &o32, p, v[0], v[1]);
        } else {
            old = emit_any(A, &o, p, v, 2);
        }
        LLVMValueRef okv = LLVMBuildICmp(A->B, LLVMIntEQ, old, v[0], "");
        LLVMTypeRef st = LLVMTypeOf(I);
        r = LLVMBuildInsertValue(A->B, LLVMGetUndef(st), from_int(A, old, LLVMStructGetTypeAtIndex(st, 0)), 0, "");
        r = LLVMBuildInsertValue(A->B, r, okv, 1, "");
        break;
    }
    default: goto unsupported;
    }
    if (r) LLVMReplaceAllUsesWith(I, r);
    LLVMInstructionEraseFromParent(I);
    return true;
unsupported:
    diag_plain(d, "error", "unsupported PTX construct for target %s: %u-bit atomic operation (opcode %d) in '%s' "
               "(no SPIR-V lowering)", t->name, bits_of(ty), (int)opc, fname);
    return false;
}

bool spirv_lower_atomics(LLVMModuleRef M, const target_desc *t, p2n_diags *d) {
    actx A = {.M = M, .C = LLVMGetModuleContext(M)};
    A.B = LLVMCreateBuilderInContext(A.C);
    A.i1 = LLVMInt1TypeInContext(A.C), A.i32 = LLVMInt32TypeInContext(A.C), A.i64 = LLVMInt64TypeInContext(A.C);
    A.vd = LLVMVoidTypeInContext(A.C);
    A.ss_single = LLVMGetSyncScopeID(A.C, "singlethread", 12);
    A.ss_sub = LLVMGetSyncScopeID(A.C, "subgroup", 8);
    A.ss_wg = LLVMGetSyncScopeID(A.C, "workgroup", 9);
    A.ss_dev = LLVMGetSyncScopeID(A.C, "device", 6);
    A.ss_svm = LLVMGetSyncScopeID(A.C, "all_svm_devices", 15);
    bool ok = true;
    /* helpers are appended to the module while walking it: stop at the last function that existed */
    LLVMValueRef last = LLVMGetLastFunction(M);
    for (LLVMValueRef fn = LLVMGetFirstFunction(M); fn && ok; fn = fn == last ? NULL : LLVMGetNextFunction(fn)) {
        size_t len;
        const char *fname = LLVMGetValueName2(fn, &len);
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && ok; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef I = LLVMGetFirstInstruction(bb), next; I && ok; I = next) {
                next = LLVMGetNextInstruction(I);
                LLVMOpcode op = LLVMGetInstructionOpcode(I);
                bool atomic = op == LLVMFence || op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg ||
                              ((op == LLVMLoad || op == LLVMStore) && LLVMGetOrdering(I) != LLVMAtomicOrderingNotAtomic);
                if (atomic) ok = lower_one(&A, I, t, d, fname);
            }
    }
    LLVMDisposeBuilder(A.B);
    return ok;
}
