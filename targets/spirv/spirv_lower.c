/* spirv_lower.c — turns the module the shared emission produced (kernels `void(params*, ctx*)`, generic
 * pointers) into an OpenCL SPIR-V module. The SPIR-V target's lowering list (spirv_target.c) runs these
 * passes in this order, each in the file of its concern:
 *  - spirv-fnptrs: function pointers as integer ids + indirect calls as switches (spirv_fnptr.c); first, as
 *    an unknown id traps and a module that traps takes the error record;
 *  - spirv-mark-module: the ABI metadata that decides the kernels' trailing arguments (here): faults, heap,
 *    trap, gbuf. The later passes read these entries back from the module, never from pass-local state;
 *  - spirv-is-local: isspacep.local by the work-item's local window (spirv_private.c);
 *  - spirv-kernel-wrappers: one spir_kernel per PTX entry (here): the PTX parameters as kernel arguments
 *    (scalars by value, aggregates byval), then `__local` window for .shared (static + dynamic bytes) and the
 *    dynamic byte count (i32); it builds the parameter buffer and the thread context (host_abi.h layout) from
 *    OpenCL builtins and calls the body; sub-group size pinned to 32 (!intel_reqd_sub_group_size);
 *  - spirv-traps: trap/assert/exit as an error record + early return (spirv_trap.c);
 *  - spirv-globals: `__p2n_globals(ulong *out)`, a kernel writing the address of every module-scope global, so
 *    runtimes without a global-pointer query can implement cuModuleGetGlobal, and the module variables moved
 *    into the runtime's buffer with gbuf (spirv_globals.c);
 *  - spirv-drop-barrier-fences: the fences that surround a barrier are dropped (spirv_barrier.c; the
 *    OpControlBarrier carries the semantics); the others, and all atomics, become __spirv_* calls after O2
 *    (spirv_atomics.c);
 *  - spirv-check-calls: what SPIR-V cannot express (unresolved imports, indirect calls) (here).
 * The ABI metadata (named metadata p2n.spirv) is written as OpModuleProcessed by spirv_finish. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "../llvm/emit.h"
#include "host_abi.h"
#include "llvm_pass.h"
#include "spirv_target.h"
#include "spirv_collectives.h"

typedef struct sb {
    char *s;
    size_t n, cap;
} sb;
static void sbf(sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sbf(sb *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char tmp[1024];
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    if ((size_t)k >= sizeof tmp) k = sizeof tmp - 1;
    if (b->n + (size_t)k + 1 > b->cap) {
        b->cap = (b->n + (size_t)k + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, tmp, (size_t)k + 1);
    b->n += (size_t)k;
}

void spirv_add_meta(LLVMModuleRef M, const char *s) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMValueRef str = LLVMMDStringInContext(C, s, (unsigned)strlen(s));
    LLVMValueRef node = LLVMMDNodeInContext(C, &str, 1);
    LLVMAddNamedMetadataOperand(M, "p2n.spirv", node);
}

bool spirv_meta_find(LLVMModuleRef M, const char *key, uint64_t *value) {
    unsigned n = LLVMGetNamedMetadataNumOperands(M, "p2n.spirv");
    if (!n) return false;
    LLVMValueRef *ops = calloc(n, sizeof *ops);
    LLVMGetNamedMetadataOperands(M, "p2n.spirv", ops);
    size_t kl = strlen(key);
    bool found = false;
    for (unsigned i = 0; i < n && !found; i++) {
        unsigned len = 0;
        const char *s = LLVMGetMDString(LLVMGetOperand(ops[i], 0), &len);
        if (!s || len < kl || memcmp(s, key, kl) || (len > kl && s[kl] != ' ')) continue;
        found = true;
        if (value) {
            char num[32] = "0";
            if (len > kl + 1 && len - kl - 1 < sizeof num) {
                memcpy(num, s + kl + 1, len - kl - 1);
                num[len - kl - 1] = 0;
            }
            *value = strtoull(num, NULL, 10);
        }
    }
    free(ops);
    return found;
}

static LLVMValueRef builtin_id(LLVMModuleRef M, LLVMBuilderRef B, LLVMContextRef C, const char *name, unsigned dim) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(C), i64 = LLVMInt64TypeInContext(C);
    LLVMTypeRef ft = LLVMFunctionType(i64, &i32, 1, 0);
    LLVMValueRef f = spirv_builtin(M, name, ft);
    LLVMValueRef a = LLVMConstInt(i32, dim, 0);
    return LLVMBuildTrunc(B, LLVMBuildCall2(B, ft, f, &a, 1, ""), i32, "");
}

static bool known_import(const char *n) {
    return !strncmp(n, "llvm.", 5) || !strncmp(n, "_Z", 2) || !strncmp(n, "__spirv_", 8) ||
           !strcmp(n, SPIRV_VPRINTF_MARKER);
}

/* What decides the kernels' trailing arguments, as module metadata the later passes (and the runtime) read:
 * a memory fault would kill the process, so null-page tests after O2 report it in the record (spirv_faults.c);
 * device malloc/free find the heap through the record (spirv_heap.c); with no program-scope variables on the
 * device, module variables live in a runtime buffer (spirv_globals.c). */
bool spirv_pass_mark_module(llvm_pass_ctx *X) {
    LLVMContextRef C = X->C;
    LLVMModuleRef M = X->M;
    unsigned lacks = X->opt->device_lacks;
    bool faults = lacks & P2N_LACKS_FAULT_ISOLATION;
    if (faults) LLVMAddNamedMetadataOperand(M, SPIRV_FAULTS_MD, LLVMMDNodeInContext(C, NULL, 0));
    bool heap = spirv_module_heap(M);
    if (heap) spirv_add_meta(M, "heap");
    /* the trap markers are gone once spirv-traps has run: "trap" is what tells the wrappers afterwards */
    if (spirv_module_traps(M) || faults || heap) spirv_add_meta(M, "trap");
    uint64_t gbuf = lacks & P2N_LACKS_PROGRAM_GLOBALS ? spirv_globals_bytes(M, X->t->as_global) : 0;
    if (gbuf) {
        char s[48];
        snprintf(s, sizeof s, "gbuf %llu", (unsigned long long)gbuf);
        spirv_add_meta(M, s);
    }
    return true;
}

bool spirv_pass_kernel_wrappers(llvm_pass_ctx *X) {
    LLVMContextRef C = X->C;
    LLVMModuleRef M = X->M;
    const emit_desc *desc = X->desc;
    const target_desc *t = X->t;
    p2n_diags *d = X->d;
    bool ok = true;
    LLVMTypeRef i8 = LLVMInt8TypeInContext(C), i32 = LLVMInt32TypeInContext(C), i64 = LLVMInt64TypeInContext(C);
    LLVMTypeRef vd = LLVMVoidTypeInContext(C);
    LLVMTypeRef gptr = LLVMPointerTypeInContext(C, t->as_generic);
    LLVMTypeRef pptr = LLVMPointerTypeInContext(C, 0);
    LLVMTypeRef lptr = LLVMPointerTypeInContext(C, t->as_shared);
    LLVMTypeRef g1ptr = LLVMPointerTypeInContext(C, t->as_global);
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    sb meta = {0};

    /* static .shared bytes (the module's one window, emission's layout): dynamic shared memory starts there */
    uint64_t smem = desc->static_smem;
    /* the trailing arguments spirv-mark-module decided */
    bool traps = spirv_meta_find(M, "trap", NULL);
    uint64_t gbuf = 0;
    spirv_meta_find(M, "gbuf", &gbuf);
    unsigned mdk = LLVMGetMDKindIDInContext(C, "intel_reqd_sub_group_size", 25);
    for (uint32_t ki = 0; ki < desc->nkernels; ki++) {
        const emit_kernel *kd = &desc->kernels[ki];
        const char *name = kd->name;
        LLVMValueRef body = LLVMGetNamedFunction(M, name);
        if (!body) { diag_plain(d, "error", "internal compiler error: SPIR-V: kernel '%s' not emitted", name); X->internal = true; ok = false; continue; }
        char bname[512];
        snprintf(bname, sizeof bname, "%s.p2n.body", name);
        LLVMSetValueName2(body, bname, strlen(bname));
        uint32_t np = kd->nparams;
        if (np > 64) { diag_plain(d, "error", "unsupported PTX construct for target %s: kernel '%s' has more than 64 parameters", t->name, name); ok = false; continue; }
        LLVMTypeRef *at = calloc(np + 5, sizeof *at);
        for (uint32_t i = 0; i < np; i++) {
            uint64_t s = kd->params[i].size;
            at[i] = (s == 1 || s == 2 || s == 4 || s == 8) ? LLVMIntTypeInContext(C, (unsigned)(8 * s)) : pptr;
        }
        uint64_t pbsize = kd->param_bytes ? kd->param_bytes : 1;
        at[np] = lptr;
        at[np + 1] = i32;
        at[np + 2] = g1ptr; /* error record (only when the module traps) */
        at[np + 2 + traps] = g1ptr; /* module variables' buffer (only with gbuf) */
        LLVMTypeRef kt = LLVMFunctionType(vd, at, np + 2 + traps + (gbuf != 0), 0);
        LLVMValueRef k = LLVMAddFunction(M, name, kt);
        LLVMSetFunctionCallConv(k, 76 /* SPIR_KERNEL */);
        LLVMMetadataRef sg = LLVMValueAsMetadata(LLVMConstInt(i32, 32, 0));
        LLVMMetadataRef sgm = LLVMMDNodeInContext2(C, &sg, 1);
        LLVMGlobalSetMetadata(k, mdk, sgm);
        for (uint32_t i = 0; i < np; i++)
            if (at[i] == pptr) {
                unsigned kind = LLVMGetEnumAttributeKindForName("byval", 5);
                LLVMAddAttributeAtIndex(k, i + 1, LLVMCreateTypeAttribute(C, kind, LLVMArrayType2(i8, kd->params[i].size)));
            }
        LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(C, k, "entry");
        LLVMPositionBuilderAtEnd(B, bb);
        /* fixed-size array types: an array alloca needs SPV_INTEL_variable_length_array */
        LLVMValueRef pb = LLVMBuildAlloca(B, LLVMArrayType2(i8, pbsize), "params");
        LLVMSetAlignment(pb, 16);
        LLVMValueRef ctx = LLVMBuildAlloca(B, LLVMArrayType2(i8, SPIRV_CTX_SIZE), "ctx");
        LLVMSetAlignment(ctx, 16);
        for (uint32_t i = 0; i < np; i++) {
            LLVMValueRef o = LLVMConstInt(i64, kd->params[i].offset, 0);
            LLVMValueRef dst = LLVMBuildGEP2(B, i8, pb, &o, 1, "");
            LLVMValueRef arg = LLVMGetParam(k, i);
            if (at[i] == pptr) LLVMBuildMemCpy(B, dst, 1, arg, 1, LLVMConstInt(i64, kd->params[i].size, 0));
            else LLVMSetAlignment(LLVMBuildStore(B, arg, dst), 1);
        }
#define CTXST(off, val)                                                                                           \
    do {                                                                                                          \
        LLVMValueRef o_ = LLVMConstInt(i64, (off), 0);                                                            \
        LLVMBuildStore(B, (val), LLVMBuildGEP2(B, i8, ctx, &o_, 1, ""));                                          \
    } while (0)
        LLVMValueRef tid[3], ntid[3];
        for (unsigned dm = 0; dm < 3; dm++) {
            tid[dm] = builtin_id(M, B, C, "_Z12get_local_idj", dm);
            ntid[dm] = builtin_id(M, B, C, "_Z14get_local_sizej", dm);
            CTXST(0 + 4 * dm, tid[dm]);
            CTXST(12 + 4 * dm, ntid[dm]);
            CTXST(24 + 4 * dm, builtin_id(M, B, C, "_Z12get_group_idj", dm));
            CTXST(36 + 4 * dm, builtin_id(M, B, C, "_Z14get_num_groupsj", dm));
        }
        /* linear thread index; with the sub-group size pinned to 32 the lanes of sub-group k are the linear
         * ids 32k..32k+31 (Intel), which is what CUDA's warps are */
        LLVMValueRef lin = LLVMBuildAdd(B, tid[0], LLVMBuildMul(B, ntid[0], LLVMBuildAdd(B, tid[1], LLVMBuildMul(B, ntid[1], tid[2], ""), ""), ""), "");
        LLVMValueRef nthr = LLVMBuildMul(B, ntid[0], LLVMBuildMul(B, ntid[1], ntid[2], ""), "");
        CTXST(48, LLVMBuildAnd(B, lin, LLVMConstInt(i32, 31, 0), ""));
        CTXST(52, LLVMBuildLShr(B, lin, LLVMConstInt(i32, 5, 0), ""));
        CTXST(56, LLVMBuildLShr(B, LLVMBuildAdd(B, nthr, LLVMConstInt(i32, 31, 0), ""), LLVMConstInt(i32, 5, 0), ""));
        LLVMValueRef dyn = LLVMGetParam(k, np + 1);
        CTXST(60, dyn);
        CTXST(64, LLVMBuildAddrSpaceCast(B, LLVMGetParam(k, np), gptr, ""));
        CTXST(72, LLVMBuildAdd(B, dyn, LLVMConstInt(i32, smem, 0), ""));
        CTXST(76, LLVMConstInt(i32, 0, 0));
        CTXST(80, LLVMConstNull(gptr));
        CTXST(SPIRV_CTX_DEAD, LLVMConstInt(i32, 0, 0));
        if (traps) CTXST(SPIRV_CTX_TRAP, LLVMGetParam(k, np + 2));
        if (gbuf) CTXST(SPIRV_CTX_GBUF, LLVMGetParam(k, np + 2 + traps));
        CTXST(SPIRV_CTX_LOCAL_LO, LLVMConstInt(i64, ~0ull, 0)); /* empty local window (spirv_private.c) */
        CTXST(SPIRV_CTX_LOCAL_HI, LLVMConstInt(i64, 0, 0));
#undef CTXST
        spirv_sync_init(C, M, B, lin); /* counting barriers' Workgroup words (spirv_barrier.c) */
        LLVMValueRef args[2] = {LLVMBuildAddrSpaceCast(B, pb, gptr, ""), LLVMBuildAddrSpaceCast(B, ctx, gptr, "")};
        LLVMBuildCall2(B, LLVMGlobalGetValueType(body), body, args, 2, "");
        LLVMBuildRetVoid(B);
        sbf(&meta, "kernel %s %u %llu %llu", name, np, (unsigned long long)pbsize, (unsigned long long)smem);
        for (uint32_t i = 0; i < np; i++)
            sbf(&meta, " %llu:%llu", (unsigned long long)kd->params[i].offset, (unsigned long long)kd->params[i].size);
        spirv_add_meta(M, meta.s);
        meta.n = 0;
        if (kd->flags & P2N_KERNEL_CLUSTER_LAUNCH) { /* cluster dimensions at launch */
            sbf(&meta, "xcluster %s", name);
            spirv_add_meta(M, meta.s);
            meta.n = 0;
        }
        if (kd->flags & P2N_KERNEL_CLUSTER_DIMS) { /* every launch a cluster launch (the record's launch flags) */
            sbf(&meta, "rcluster %s", name);
            spirv_add_meta(M, meta.s);
            meta.n = 0;
        }
        free(at);
    }

    free(meta.s);
    LLVMDisposeBuilder(B);
    return ok;
}

/* Last of the lowering list: what SPIR-V cannot express: calls of functions this module does not define (no
 * SPIR-V linking) and indirect calls (no SPV_INTEL_function_pointers; spirv-fnptrs turned those of .func types
 * into switches). Every one is diagnosed before failing. */
bool spirv_pass_check_calls(llvm_pass_ctx *X) {
    const target_desc *t = X->t;
    p2n_diags *d = X->d;
    bool ok = true;
    for (LLVMValueRef fn = LLVMGetFirstFunction(X->M); fn; fn = LLVMGetNextFunction(fn)) {
        size_t len;
        const char *fname = LLVMGetValueName2(fn, &len);
        if (LLVMIsDeclaration(fn)) {
            if (!known_import(fname)) {
                diag_plain(d, "error", "unsupported PTX construct for target %s: call of '%s', which this module "
                           "does not define (no SPIR-V linking)", t->name, fname);
                ok = false;
            }
            continue;
        }
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
                if (LLVMGetInstructionOpcode(I) != LLVMCall) continue;
                LLVMValueRef callee = LLVMGetCalledValue(I);
                if (!LLVMIsAFunction(callee) && !LLVMIsAInlineAsm(callee)) {
                    diag_plain(d, "error", "unsupported PTX construct for target %s: indirect call in '%s' "
                               "(SPIR-V without SPV_INTEL_function_pointers)", t->name, fname);
                    ok = false;
                }
            }
    }
    return ok;
}

static bool rmw_native(LLVMAtomicRMWBinOp op, LLVMTypeRef ty) {
    bool fp = LLVMGetTypeKind(ty) == LLVMFloatTypeKind || LLVMGetTypeKind(ty) == LLVMDoubleTypeKind;
    switch (op) {
    case LLVMAtomicRMWBinOpXchg: case LLVMAtomicRMWBinOpAdd: case LLVMAtomicRMWBinOpSub: case LLVMAtomicRMWBinOpAnd:
    case LLVMAtomicRMWBinOpOr: case LLVMAtomicRMWBinOpXor: case LLVMAtomicRMWBinOpMax: case LLVMAtomicRMWBinOpMin:
    case LLVMAtomicRMWBinOpUMax: case LLVMAtomicRMWBinOpUMin: return true;
    case LLVMAtomicRMWBinOpFAdd: return fp;
    default: return false;
    }
}

/* llvm.bitreverse needs SPV_KHR_bit_instructions (the back end aborts without it): swap steps instead. */
static bool expand_bitreverse(LLVMModuleRef M, LLVMValueRef I) {
    LLVMValueRef x = LLVMGetOperand(I, 0);
    LLVMTypeRef ty = LLVMTypeOf(x);
    if (LLVMGetTypeKind(ty) != LLVMIntegerTypeKind) return false;
    unsigned w = LLVMGetIntTypeWidth(ty);
    if (w != 8 && w != 16 && w != 32 && w != 64) return false;
    LLVMBuilderRef B = LLVMCreateBuilderInContext(LLVMGetModuleContext(M));
    LLVMPositionBuilderBefore(B, I);
    static const uint64_t masks[6] = {0x5555555555555555ull, 0x3333333333333333ull, 0x0f0f0f0f0f0f0f0full,
                                      0x00ff00ff00ff00ffull, 0x0000ffff0000ffffull, 0x00000000ffffffffull};
    LLVMValueRef v = x;
    for (unsigned i = 0, sh = 1; sh < w; i++, sh *= 2) {
        LLVMValueRef m = LLVMConstInt(ty, masks[i], 0), c = LLVMConstInt(ty, sh, 0);
        LLVMValueRef lo = LLVMBuildShl(B, LLVMBuildAnd(B, v, m, ""), c, "");
        LLVMValueRef hi = LLVMBuildAnd(B, LLVMBuildLShr(B, v, c, ""), m, "");
        v = LLVMBuildOr(B, lo, hi, "");
    }
    LLVMReplaceAllUsesWith(I, v);
    LLVMInstructionEraseFromParent(I);
    LLVMDisposeBuilder(B);
    return true;
}

/* atomicrmw kinds the SPIR-V back end cannot select (inc/dec wrap, nand, fsub, fmin/fmax, half types):
 * a helper function with a compare-exchange loop, called in place of the instruction. */
static bool expand_rmw(LLVMModuleRef M, LLVMValueRef I) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMAtomicRMWBinOp op = LLVMGetAtomicRMWBinOp(I);
    LLVMValueRef ptr = LLVMGetOperand(I, 0), val = LLVMGetOperand(I, 1);
    LLVMTypeRef ty = LLVMTypeOf(val), pty = LLVMTypeOf(ptr);
    LLVMTypeKind k = LLVMGetTypeKind(ty);
    unsigned bits = k == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(ty) : k == LLVMFloatTypeKind ? 32
                  : k == LLVMDoubleTypeKind ? 64 : k == LLVMHalfTypeKind || k == LLVMBFloatTypeKind ? 16 : 0;
    if (!bits) return false;
    LLVMTypeRef ity = LLVMIntTypeInContext(C, bits);
    unsigned scope = LLVMGetAtomicSyncScopeID(I);
    LLVMAtomicOrdering ord = LLVMGetOrdering(I);
    char name[96];
    snprintf(name, sizeof name, "__p2n_atomic_%d_%u_%d_as%u_o%d_s%u", (int)op, bits, (int)k,
             LLVMGetPointerAddressSpace(pty), (int)ord, scope);
    LLVMValueRef fn = LLVMGetNamedFunction(M, name);
    LLVMTypeRef at[2] = {pty, ty};
    LLVMTypeRef ft = LLVMFunctionType(ty, at, 2, 0);
    if (!fn) {
        fn = LLVMAddFunction(M, name, ft);
        LLVMSetLinkage(fn, LLVMInternalLinkage);
        LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
        LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(C, fn, "entry"),
                          loop = LLVMAppendBasicBlockInContext(C, fn, "loop"),
                          done = LLVMAppendBasicBlockInContext(C, fn, "done");
        LLVMPositionBuilderAtEnd(B, entry);
        LLVMValueRef p = LLVMGetParam(fn, 0), v = LLVMGetParam(fn, 1);
        LLVMValueRef init = LLVMBuildLoad2(B, ity, p, "");
        LLVMSetAlignment(init, bits / 8);
        LLVMBuildBr(B, loop);
        LLVMPositionBuilderAtEnd(B, loop);
        LLVMValueRef cur = LLVMBuildPhi(B, ity, "");
        LLVMValueRef c = k == LLVMIntegerTypeKind ? cur : LLVMBuildBitCast(B, cur, ty, "");
        LLVMValueRef nv;
        switch (op) {
        case LLVMAtomicRMWBinOpUIncWrap:
            nv = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGE, c, v, ""), LLVMConstNull(ty),
                                 LLVMBuildAdd(B, c, LLVMConstInt(ty, 1, 0), ""), "");
            break;
        case LLVMAtomicRMWBinOpUDecWrap:
            nv = LLVMBuildSelect(B, LLVMBuildOr(B, LLVMBuildICmp(B, LLVMIntEQ, c, LLVMConstNull(ty), ""),
                                                LLVMBuildICmp(B, LLVMIntUGT, c, v, ""), ""),
                                 v, LLVMBuildSub(B, c, LLVMConstInt(ty, 1, 0), ""), "");
            break;
        case LLVMAtomicRMWBinOpNand: nv = LLVMBuildNot(B, LLVMBuildAnd(B, c, v, ""), ""); break;
        case LLVMAtomicRMWBinOpFSub: nv = LLVMBuildFSub(B, c, v, ""); break;
        case LLVMAtomicRMWBinOpFAdd: nv = LLVMBuildFAdd(B, c, v, ""); break;
        case LLVMAtomicRMWBinOpUSubCond:
            nv = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGE, c, v, ""), LLVMBuildSub(B, c, v, ""), c, "");
            break;
        case LLVMAtomicRMWBinOpUSubSat:
            nv = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGT, c, v, ""), LLVMBuildSub(B, c, v, ""), LLVMConstNull(ty), "");
            break;
        case LLVMAtomicRMWBinOpFMax: case LLVMAtomicRMWBinOpFMin: case LLVMAtomicRMWBinOpFMaximum:
        case LLVMAtomicRMWBinOpFMinimum: {
            const char *in = op == LLVMAtomicRMWBinOpFMax ? "llvm.maxnum" : op == LLVMAtomicRMWBinOpFMin ? "llvm.minnum"
                           : op == LLVMAtomicRMWBinOpFMaximum ? "llvm.maximum" : "llvm.minimum";
            unsigned id = LLVMLookupIntrinsicID(in, strlen(in));
            LLVMValueRef decl = LLVMGetIntrinsicDeclaration(M, id, &ty, 1);
            LLVMValueRef a2[2] = {c, v};
            nv = LLVMBuildCall2(B, LLVMIntrinsicGetType(C, id, &ty, 1), decl, a2, 2, "");
            break;
        }
        default:
            LLVMDisposeBuilder(B);
            LLVMDeleteFunction(fn);
            return false;
        }
        LLVMValueRef ni = k == LLVMIntegerTypeKind ? nv : LLVMBuildBitCast(B, nv, ity, "");
        LLVMValueRef cx = LLVMBuildAtomicCmpXchg(B, p, cur, ni, ord == LLVMAtomicOrderingNotAtomic ? LLVMAtomicOrderingMonotonic : ord,
                                                 LLVMAtomicOrderingMonotonic, 0);
        LLVMSetAtomicSyncScopeID(cx, scope);
        LLVMValueRef seen = LLVMBuildExtractValue(B, cx, 0, ""), ok = LLVMBuildExtractValue(B, cx, 1, "");
        LLVMBuildCondBr(B, ok, done, loop);
        LLVMValueRef inc[2] = {init, seen};
        LLVMBasicBlockRef from[2] = {entry, loop};
        LLVMAddIncoming(cur, inc, from, 2);
        LLVMPositionBuilderAtEnd(B, done);
        LLVMBuildRet(B, k == LLVMIntegerTypeKind ? seen : LLVMBuildBitCast(B, seen, ty, ""));
        LLVMDisposeBuilder(B);
    }
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    LLVMPositionBuilderBefore(B, I);
    LLVMValueRef a2[2] = {ptr, val};
    LLVMValueRef r = LLVMBuildCall2(B, ft, fn, a2, 2, "");
    LLVMReplaceAllUsesWith(I, r);
    LLVMInstructionEraseFromParent(I);
    LLVMDisposeBuilder(B);
    return true;
}

/* After optimisation, before the back end (which aborts on them): the pre_codegen passes of the SPIR-V target
 * (spirv_target.c lists them in this order). */
bool spirv_pass_lower_printf(llvm_pass_ctx *X) { return spirv_lower_printf(X->M, X->t, X->d); }

bool spirv_pass_check_faults(llvm_pass_ctx *X) { /* P2N_LACKS_FAULT_ISOLATION only */
    spirv_check_faults(X->M, X->t->as_generic, X->t->as_global, X->t->as_shared);
    return true;
}

/* Whether the module holds a value or a memory slot of an integer type wider than 64 bits. */
static bool has_wide_ints(LLVMModuleRef M) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(M); fn; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
                LLVMTypeRef ty = LLVMGetInstructionOpcode(I) == LLVMAlloca ? LLVMGetAllocatedType(I) : LLVMTypeOf(I);
                if (LLVMGetTypeKind(ty) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(ty) > 64) return true;
            }
    return false;
}

bool spirv_pass_legalize(llvm_pass_ctx *X) {
    /* -O0 keeps a .b128 register as an i128 alloca whose halves are moved with i128 shifts and ors; O1+ folds that
     * away. Promote and fold it here too (only then: -O0 stays -O0 elsewhere), or -O0 refused what -O2 compiles. */
    if (X->opt->opt_level <= 0 && has_wide_ints(X->M)) {
        LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
        LLVMErrorRef e = LLVMRunPasses(X->M, "function(sroa,instcombine<no-verify-fixpoint>)", X->TM, po);
        LLVMDisposePassBuilderOptions(po);
        if (e) {
            X->error = e;
            return false;
        }
    }
    spirv_legalize(X->M);
    return true;
}

/* llvm.bitreverse expanded, allocas of a constant count checked, atomicrmw kinds the back end cannot select
 * expanded (to cmpxchg loops) */
bool spirv_pass_expand(llvm_pass_ctx *X) {
    LLVMModuleRef M = X->M;
    const target_desc *t = X->t;
    p2n_diags *d = X->d;
    for (LLVMValueRef fn = LLVMGetFirstFunction(M); fn; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef I = LLVMGetFirstInstruction(bb), next; I; I = next) {
                next = LLVMGetNextInstruction(I);
                if (LLVMGetInstructionOpcode(I) == LLVMCall) {
                    LLVMValueRef callee = LLVMGetCalledValue(I);
                    size_t n;
                    const char *cn = callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &n) : "";
                    if (!strncmp(cn, "llvm.bitreverse.", 16) && !expand_bitreverse(M, I)) {
                        diag_plain(d, "error", "unsupported PTX construct for target %s: %s", t->name, cn);
                        return false;
                    }
                    continue;
                }
                if (LLVMGetInstructionOpcode(I) == LLVMAlloca) {
                    if (!spirv_static_alloca(I)) {
                        size_t len;
                        diag_plain(d, "error", "unsupported PTX construct for target %s: alloca with a run-time "
                                   "size in '%s' (needs SPV_INTEL_variable_length_array)", t->name,
                                   LLVMGetValueName2(fn, &len));
                        return false;
                    }
                    continue;
                }
                if (LLVMGetInstructionOpcode(I) != LLVMAtomicRMW) continue;
                LLVMAtomicRMWBinOp op = LLVMGetAtomicRMWBinOp(I);
                if (rmw_native(op, LLVMTypeOf(LLVMGetOperand(I, 1)))) continue;
                if (!expand_rmw(M, I)) {
                    size_t len;
                    diag_plain(d, "error", "unsupported PTX construct for target %s: atomic operation %d in '%s' "
                               "(no SPIR-V lowering)", t->name, (int)op, LLVMGetValueName2(fn, &len));
                    return false;
                }
            }
    return true;
}

bool spirv_pass_lower_atomics(llvm_pass_ctx *X) { return spirv_lower_atomics(X->M, X->t, X->d); }

bool spirv_pass_legalize_odd_ints(llvm_pass_ctx *X) {
    spirv_legalize_odd_ints(X->M); /* what it cannot carry is diagnosed by spirv-check-ints */
    return true;
}

bool spirv_pass_remat(llvm_pass_ctx *X) {
    spirv_remat_across_barriers(X->M);
    return true;
}

/* Last: integer types SPIR-V cannot express. The rewrites above build IR by hand: a broken module would crash
 * the back end instead of failing, so the module is verified here in every build. */
bool spirv_pass_check_ints(llvm_pass_ctx *X) {
    LLVMModuleRef M = X->M;
    const target_desc *t = X->t;
    p2n_diags *d = X->d;
    char *vmsg = NULL;
    if (LLVMVerifyModule(M, LLVMReturnStatusAction, &vmsg)) {
        diag_plain(d, "error", "internal compiler error: SPIR-V lowering produced invalid IR: %.2000s", vmsg ? vmsg : "");
        LLVMDisposeMessage(vmsg);
        return false;
    }
    LLVMDisposeMessage(vmsg);
    for (LLVMValueRef fn = LLVMGetFirstFunction(M); fn; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
                size_t len;
                LLVMTypeRef rt = LLVMTypeOf(I);
                if (LLVMGetTypeKind(rt) != LLVMIntegerTypeKind) continue;
                unsigned w = LLVMGetIntTypeWidth(rt);
                if (w == 1 || w == 8 || w == 16 || w == 32 || w == 64) continue;
                diag_plain(d, "error", "unsupported PTX construct for target %s: %u-bit integer arithmetic in '%s' "
                           "(SPIR-V has no integers wider than 64 bits)", t->name, w, LLVMGetValueName2(fn, &len));
                return false;
            }
    return true;
}
