/* amdgpu_printf.c — device printf, malloc and free on AMDGPU, the way clang's HIP does them, so that HIP's
 * runtime (CLR) services them: ockl's hostcall printf and device heap (docs/amdgpu.md "printf, malloc and free").
 *
 * printf: CUDA's vprintf(format, argument buffer) arrives in nvcc's runtime stub with the format as a parameter,
 * so the hook leaves a marker call (AMDGPU_VPRINTF_MARKER); amdgpu_lower_printf, before optimisation, inlines
 * the stubs until the formats are constant strings (printf_resolve_formats) and replaces each marker by what
 * clang emits for a HIP printf: __ockl_printf_begin, the format through __ockl_printf_append_string_n, then per
 * conversion one __ockl_printf_append_args (the value as 64 bits: 32-bit integers zero-extended, doubles as
 * their bits) or, for %s, append_string_n with the string's length; the last call says it is the last. The
 * arguments are read from CUDA's buffer layout (printf_format.c). malloc/free: __ockl_dm_alloc/_dealloc.
 * amdgpu_link_devlibs links ockl.bc afterwards. The back end then lists the hidden hostcall buffer / heap
 * argument in the kernel metadata: the library code reads them from the implicit arguments, and nothing of ours
 * marks a kernel amdgpu-no-hostcall-ptr / amdgpu-no-heap-ptr. */
#include <stdlib.h>
#include <string.h>

#include "amdgpu_internal.h"
#include "llvm_pass.h"
#include "../llvm/printf_format.h"

#define AMDGPU_VPRINTF_MARKER "__p2n_amd_vprintf"
#define AMDGPU_STRLEN "__p2n_amd_strlen"

/* f declared in M with type ft, convergent nounwind (as HIP declares the ockl functions: they use wave-wide
 * operations inside) */
static LLVMValueRef declare(LLVMModuleRef M, const char *name, LLVMTypeRef ft) {
    LLVMValueRef f = LLVMGetNamedFunction(M, name);
    if (f) return f;
    f = LLVMAddFunction(M, name, ft);
    LLVMContextRef C = LLVMGetModuleContext(M);
    const char *attrs[2] = {"convergent", "nounwind"};
    for (unsigned i = 0; i < 2; i++) {
        unsigned kind = LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i]));
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(C, kind, 0));
    }
    return f;
}

static LLVMValueRef call(LLVMBuilderRef B, LLVMModuleRef M, const char *name, LLVMTypeRef ft, LLVMValueRef *a,
                         unsigned n) {
    return LLVMBuildCall2(B, ft, declare(M, name, ft), a, n, "");
}

/* a: (ctx, format, args) as the shared emission's vprintf stub passes them */
LLVMValueRef amd_vprintf(emit_ctx *E, LLVMValueRef *a) {
    LLVMTypeRef pt[2] = {E->ptr, E->ptr};
    LLVMValueRef x[2] = {a[1], a[2]};
    return call(E->B, E->M, AMDGPU_VPRINTF_MARKER, LLVMFunctionType(E->i32, pt, 2, 0), x, 2);
}

/* a: (ctx, size) -> a generic pointer (global memory: the same address) */
LLVMValueRef amd_malloc(emit_ctx *E, LLVMValueRef *a) {
    LLVMTypeRef p1 = LLVMPointerTypeInContext(E->C, 1);
    LLVMValueRef r = call(E->B, E->M, "__ockl_dm_alloc", LLVMFunctionType(p1, &E->i64, 1, 0), &a[1], 1);
    return LLVMBuildAddrSpaceCast(E->B, r, E->ptr, "");
}

/* a: (ctx, generic pointer) */
void amd_free(emit_ctx *E, LLVMValueRef *a) {
    LLVMValueRef p = LLVMBuildPtrToInt(E->B, a[1], E->i64, "");
    call(E->B, E->M, "__ockl_dm_dealloc", LLVMFunctionType(E->vd, &E->i64, 1, 0), &p, 1);
}

/* i64 __p2n_amd_strlen(ptr s): 0 for a null pointer, else strlen(s) + 1 (what append_string_n takes: clang's
 * HIP printf computes the same inline). A function, because the LLVM-C API cannot split the marker's block. */
static LLVMValueRef strlen_fn(LLVMModuleRef M) {
    LLVMValueRef f = LLVMGetNamedFunction(M, AMDGPU_STRLEN);
    if (f) return f;
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMTypeRef i8 = LLVMInt8TypeInContext(C), i64 = LLVMInt64TypeInContext(C), ptr = LLVMPointerTypeInContext(C, 0);
    f = LLVMAddFunction(M, AMDGPU_STRLEN, LLVMFunctionType(i64, &ptr, 1, 0));
    LLVMSetLinkage(f, LLVMInternalLinkage);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(C, f, "entry"),
                      loop = LLVMAppendBasicBlockInContext(C, f, "loop"),
                      done = LLVMAppendBasicBlockInContext(C, f, "done"),
                      null = LLVMAppendBasicBlockInContext(C, f, "null");
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    LLVMValueRef s = LLVMGetParam(f, 0), zero = LLVMConstInt(i64, 0, 0), one = LLVMConstInt(i64, 1, 0);
    LLVMPositionBuilderAtEnd(B, entry);
    LLVMBuildCondBr(B, LLVMBuildIsNull(B, s, ""), null, loop);
    LLVMPositionBuilderAtEnd(B, loop);
    LLVMValueRef n = LLVMBuildPhi(B, i64, "n");
    LLVMValueRef ch = LLVMBuildLoad2(B, i8, LLVMBuildGEP2(B, i8, s, &n, 1, ""), "");
    LLVMValueRef n1 = LLVMBuildAdd(B, n, one, "");
    LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntEQ, ch, LLVMConstInt(i8, 0, 0), ""), done, loop);
    LLVMValueRef inc[2] = {zero, n1};
    LLVMBasicBlockRef from[2] = {entry, loop};
    LLVMAddIncoming(n, inc, from, 2);
    LLVMPositionBuilderAtEnd(B, done);
    LLVMBuildRet(B, n1);
    LLVMPositionBuilderAtEnd(B, null);
    LLVMBuildRet(B, zero);
    LLVMDisposeBuilder(B);
    return f;
}

/* One marker -> the ockl calls. False: diagnosed. */
static bool lower_one(LLVMModuleRef M, LLVMValueRef I, const target_desc *t, p2n_diags *d) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMTypeRef i8 = LLVMInt8TypeInContext(C), i32 = LLVMInt32TypeInContext(C), i64 = LLVMInt64TypeInContext(C);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(C, 0);
    size_t n;
    LLVMValueRef fmtp = LLVMGetOperand(I, 0), buf = LLVMGetOperand(I, 1);
    const char *fmt = printf_const_string(fmtp, &n);
    if (!fmt) { printf_unsupported(d, t, I, "the format is not a constant string"); return false; }
    n = strlen(fmt);
    /* the conversions first: the last append call carries is_last */
    printf_conv *cv = malloc((n / 2 + 1) * sizeof *cv);
    unsigned nc = 0;
    size_t pos = 0;
    const char *why = NULL;
    while (printf_next_conv(fmt, &pos, &cv[nc], &why)) nc++;
    if (why) {
        printf_unsupported(d, t, I, why);
        free(cv);
        return false;
    }
    LLVMTypeRef begin_t = LLVMFunctionType(i64, &i64, 1, 0);
    LLVMTypeRef str_p[4] = {i64, ptr, i64, i32}, str_t = LLVMFunctionType(i64, str_p, 4, 0);
    LLVMTypeRef args_p[10] = {i64, i32, i64, i64, i64, i64, i64, i64, i64, i32};
    LLVMTypeRef args_t = LLVMFunctionType(i64, args_p, 10, 0);
    LLVMTypeRef slen_t = LLVMFunctionType(i64, &ptr, 1, 0);
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    LLVMPositionBuilderBefore(B, I);
    LLVMValueRef zero = LLVMConstInt(i64, 0, 0);
    LLVMValueRef desc = call(B, M, "__ockl_printf_begin", begin_t, &zero, 1);
    LLVMValueRef sa[4] = {desc, fmtp, LLVMConstInt(i64, n + 1, 0), LLVMConstInt(i32, nc == 0, 0)};
    desc = call(B, M, "__ockl_printf_append_string_n", str_t, sa, 4);
    uint64_t off = 0;
    for (unsigned k = 0; k < nc; k++) {
        const printf_conv *c = &cv[k];
        off = (off + c->size - 1) / c->size * c->size;
        LLVMValueRef o = LLVMConstInt(i64, off, 0);
        LLVMValueRef v = LLVMBuildLoad2(B, c->size == 8 ? i64 : i32, LLVMBuildGEP2(B, i8, buf, &o, 1, ""), "");
        LLVMSetAlignment(v, c->size);
        off += c->size;
        LLVMValueRef last = LLVMConstInt(i32, k + 1 == nc, 0);
        if (c->string) {
            LLVMValueRef s = LLVMBuildIntToPtr(B, v, ptr, "");
            LLVMValueRef a[4] = {desc, s, LLVMBuildCall2(B, slen_t, strlen_fn(M), &s, 1, ""), last};
            desc = call(B, M, "__ockl_printf_append_string_n", str_t, a, 4);
        } else {
            LLVMValueRef a[10] = {desc, LLVMConstInt(i32, 1, 0), LLVMBuildZExt(B, v, i64, ""), zero, zero, zero,
                                  zero, zero, zero, last};
            if (c->size == 8) a[2] = v;
            desc = call(B, M, "__ockl_printf_append_args", args_t, a, 10);
        }
    }
    /* vprintf's result: what HIP's printf returns (the low half of the final descriptor) */
    LLVMReplaceAllUsesWith(I, LLVMBuildTrunc(B, desc, i32, ""));
    LLVMInstructionEraseFromParent(I);
    LLVMDisposeBuilder(B);
    free(cv);
    return true;
}

/* Delete one internal function holding a marker that nothing references (nvcc's vprintf stub in a module that
 * declares vprintf and never calls it): dead code, whose format is a parameter. False: none left. */
static bool drop_dead(LLVMValueRef marker) {
    for (LLVMUseRef u = LLVMGetFirstUse(marker); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef I = LLVMGetUser(u);
        LLVMValueRef f = LLVMIsAInstruction(I) ? LLVMGetBasicBlockParent(LLVMGetInstructionParent(I)) : NULL;
        if (f && !LLVMGetFirstUse(f) && LLVMGetLinkage(f) == LLVMInternalLinkage) {
            LLVMDeleteFunction(f);
            return true;
        }
    }
    return false;
}

bool amdgpu_lower_printf(LLVMModuleRef M, const target_desc *t, p2n_diags *d) {
    LLVMValueRef marker = LLVMGetNamedFunction(M, AMDGPU_VPRINTF_MARKER);
    if (!marker) return true;
    while (drop_dead(marker)) {}
    printf_resolve_formats(M, marker);
    while (drop_dead(marker)) {}
    bool ok = true;
    while (ok && LLVMGetFirstUse(marker)) {
        LLVMValueRef I = LLVMGetUser(LLVMGetFirstUse(marker));
        if (!LLVMIsACallInst(I)) {
            diag_plain(d, "error", "internal compiler error: %s used other than by a call", AMDGPU_VPRINTF_MARKER);
            return false;
        }
        ok = lower_one(M, I, t, d);
    }
    if (ok) LLVMDeleteFunction(marker); /* no uses left */
    return ok;
}

/* The lowering list's amdgpu-lower-printf pass: before optimisation, while the formats can still be found; ockl
 * itself is linked by amdgpu-link-devlibs with the other device libraries. */
bool amdgpu_pass_lower_printf(llvm_pass_ctx *X) { return amdgpu_lower_printf(X->M, X->t, X->d); }
