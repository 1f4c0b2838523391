/* spirv_printf.c — CUDA's vprintf(format, argument buffer) as OpenCL printf (OpenCL.std printf).
 *
 * The vprintf hook (spirv_hooks.c) emits SPIRV_VPRINTF_MARKER(format, args); after O2 has inlined nvcc's
 * vprintf stubs the format is a constant string global. Each marker becomes a call of
 * `_Z18__spirv_ocl_printfPU3AS2c` (the form spirv-val accepts, shared/docs/targets.md §2.6) with a copy of the
 * format in UniformConstant (addrspace 2) and the arguments loaded from the buffer per CUDA's packing: each
 * argument aligned to its size, integers 4 bytes (8 with l/ll/z/j/t), floating point as double, %s/%p 8.
 * OpenCL printf has no `ll`/`z`/`j`/`t`: they become `l` (64-bit there). %s needs a constant string in
 * UniformConstant as well: the argument is loaded as an integer, store-to-load forwarding (gvn) resolves it to
 * the string's address, and spirv_printf_strings copies the string; anything else is diagnosed, as are formats
 * that are not constant (e.g. at -O0, where the stub is not inlined). */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Transforms/PassBuilder.h>

#include "spirv_target.h"

#define OCL_PRINTF "_Z18__spirv_ocl_printfPU3AS2c"

/* a constant string global behind casts/zero GEPs; NULL if v is not one */
static const char *const_string(LLVMValueRef v, size_t *len) {
    for (int depth = 0; depth < 8 && v; depth++) {
        if (LLVMIsAGlobalVariable(v)) {
            LLVMValueRef init = LLVMGetInitializer(v);
            if (!init || !LLVMIsAConstantDataSequential(init)) return NULL;
            const char *s = LLVMGetAsString(init, len);
            return s && memchr(s, 0, *len) ? s : NULL;
        }
        if (!LLVMIsAConstantExpr(v)) return NULL;
        LLVMOpcode op = LLVMGetConstOpcode(v);
        if (op == LLVMGetElementPtr) {
            for (int i = 1; i < LLVMGetNumOperands(v); i++) {
                LLVMValueRef ix = LLVMGetOperand(v, (unsigned)i);
                if (!LLVMIsAConstantInt(ix) || LLVMConstIntGetZExtValue(ix)) return NULL;
            }
        } else if (op != LLVMAddrSpaceCast && op != LLVMBitCast && op != LLVMIntToPtr && op != LLVMPtrToInt) {
            return NULL;
        }
        v = LLVMGetOperand(v, 0);
    }
    return NULL;
}

/* is [n x i8] the type of a global outside UniformConstant? */
static bool size_taken(LLVMModuleRef M, size_t n) {
    for (LLVMValueRef g = LLVMGetFirstGlobal(M); g; g = LLVMGetNextGlobal(g)) {
        LLVMTypeRef t = LLVMGlobalGetValueType(g);
        if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != 2 && LLVMGetTypeKind(t) == LLVMArrayTypeKind &&
            LLVMGetArrayLength2(t) == n && LLVMGetElementType(t) == LLVMInt8TypeInContext(LLVMGetModuleContext(M)))
            return true;
    }
    return false;
}

static LLVMValueRef uniform_string(LLVMModuleRef M, const char *s, size_t n) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    /* LLVM 22's back end gives a pointer to [N x i8] one storage class per array type: when a CrossWorkgroup
     * global (the PTX original) has the same type, printf's format is taken for a CrossWorkgroup pointer and
     * the back end aborts (SPV_EXT_relaxed_printf_string_address_space); extra NULs make the type distinct */
    size_t len = n + 1;
    while (size_taken(M, len)) len++;
    char *buf = calloc(1, len);
    memcpy(buf, s, n);
    LLVMValueRef init = LLVMConstStringInContext2(C, buf, len, 1);
    free(buf);
    LLVMValueRef g = LLVMAddGlobalInAddressSpace(M, LLVMTypeOf(init), ".p2n.str", 2);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    return g;
}

static void fail(p2n_diags *d, const target_desc *t, LLVMValueRef I, const char *why) {
    size_t len;
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(I));
    diag_plain(d, "error", "unsupported PTX construct for target %s: printf in '%s': %s", t->name,
               LLVMGetValueName2(fn, &len), why);
}

/* One marker -> OpenCL printf. False: diagnosed. */
static bool lower_one(LLVMModuleRef M, LLVMValueRef I, const target_desc *t, p2n_diags *d) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMTypeRef i8 = LLVMInt8TypeInContext(C), i32 = LLVMInt32TypeInContext(C), i64 = LLVMInt64TypeInContext(C);
    LLVMTypeRef f64 = LLVMDoubleTypeInContext(C), cptr = LLVMPointerTypeInContext(C, 2);
    size_t n;
    const char *fmt = const_string(LLVMGetOperand(I, 0), &n);
    if (!fmt) { fail(d, t, I, "the format is not a constant string"); return false; }
    n = strlen(fmt);
    char *out = malloc(n + 1);
    size_t o = 0;
    LLVMValueRef args[33];
    unsigned na = 1;
    uint64_t off = 0;
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    LLVMPositionBuilderBefore(B, I);
    LLVMValueRef buf = LLVMGetOperand(I, 1);
    bool ok = true;
    for (size_t i = 0; i < n && ok;) {
        if (fmt[i] != '%') { out[o++] = fmt[i++]; continue; }
        out[o++] = fmt[i++];
        if (fmt[i] == '%') { out[o++] = fmt[i++]; continue; }
        while (fmt[i] && strchr("-+ #0", fmt[i])) out[o++] = fmt[i++];
        while (fmt[i] >= '0' && fmt[i] <= '9') out[o++] = fmt[i++];
        if (fmt[i] == '.') {
            out[o++] = fmt[i++];
            while (fmt[i] >= '0' && fmt[i] <= '9') out[o++] = fmt[i++];
        }
        if (fmt[i] == '*') { fail(d, t, I, "'*' width or precision"); ok = false; break; }
        unsigned size = 4;
        if (fmt[i] == 'h') {
            out[o++] = fmt[i++];
            if (fmt[i] == 'h') out[o++] = fmt[i++];
        } else if (fmt[i] == 'l' || fmt[i] == 'z' || fmt[i] == 'j' || fmt[i] == 't') {
            size = 8;
            out[o++] = 'l';
            i += fmt[i] == 'l' && fmt[i + 1] == 'l' ? 2 : 1;
        } else if (fmt[i] == 'L') {
            fail(d, t, I, "long double conversion");
            ok = false;
            break;
        }
        char c = fmt[i];
        if (!c || !strchr("diuxXocfFeEgGaAsp", c)) { fail(d, t, I, "unknown conversion"); ok = false; break; }
        out[o++] = fmt[i++];
        if (na == 33) { fail(d, t, I, "more than 32 arguments"); ok = false; break; }
        bool fp = strchr("fFeEgGaA", c) != NULL, wide = fp || c == 's' || c == 'p';
        if (wide) size = 8;
        off = (off + size - 1) / size * size;
        LLVMValueRef o_ = LLVMConstInt(i64, off, 0);
        LLVMValueRef p = LLVMBuildGEP2(B, i8, buf, &o_, 1, "");
        LLVMTypeRef lt = fp ? f64 : size == 8 ? i64 : i32;
        LLVMValueRef v = LLVMBuildLoad2(B, lt, p, "");
        LLVMSetAlignment(v, size);
        if (c == 's') v = LLVMBuildIntToPtr(B, v, cptr, ""); /* resolved by spirv_printf_strings */
        else if (c == 'p') v = LLVMBuildIntToPtr(B, v, LLVMPointerTypeInContext(C, 4), "");
        args[na++] = v;
        off += size;
    }
    if (ok) {
        LLVMValueRef g = uniform_string(M, out, o);
        LLVMValueRef z[2] = {LLVMConstInt(i64, 0, 0), LLVMConstInt(i64, 0, 0)};
        args[0] = LLVMConstInBoundsGEP2(LLVMGlobalGetValueType(g), g, z, 2);
        LLVMTypeRef ft = LLVMFunctionType(i32, &cptr, 1, 1);
        LLVMValueRef pf = LLVMGetNamedFunction(M, OCL_PRINTF);
        if (!pf) pf = LLVMAddFunction(M, OCL_PRINTF, ft);
        LLVMValueRef r = LLVMBuildCall2(B, ft, pf, args, na, "");
        LLVMReplaceAllUsesWith(I, r);
        LLVMInstructionEraseFromParent(I);
    }
    free(out);
    LLVMDisposeBuilder(B);
    return ok;
}

bool spirv_lower_printf(LLVMModuleRef M, const target_desc *t, p2n_diags *d) {
    LLVMValueRef marker = LLVMGetNamedFunction(M, SPIRV_VPRINTF_MARKER);
    if (!marker) return true;
    bool ok = true;
    while (ok && LLVMGetFirstUse(marker)) {
        LLVMValueRef I = LLVMGetUser(LLVMGetFirstUse(marker));
        if (!LLVMIsACallInst(I)) { ok = false; break; }
        ok = lower_one(M, I, t, d);
    }
    if (!ok) return false;
    LLVMDeleteFunction(marker);
    /* forward the buffer's stores to the new loads (the %s addresses) */
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(M, "function(gvn,instcombine)", NULL, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) {
        char *m = LLVMGetErrorMessage(e);
        diag_plain(d, "error", "internal compiler error: printf clean-up passes failed: %s", m);
        LLVMDisposeErrorMessage(m);
        return false;
    }
    /* %s: constant strings copied to UniformConstant */
    LLVMValueRef pf = LLVMGetNamedFunction(M, OCL_PRINTF);
    for (LLVMUseRef u = pf ? LLVMGetFirstUse(pf) : NULL; u; u = LLVMGetNextUse(u)) {
        LLVMValueRef I = LLVMGetUser(u);
        if (!LLVMIsACallInst(I)) continue;
        for (unsigned a = 1; a < LLVMGetNumArgOperands(I); a++) {
            LLVMValueRef v = LLVMGetOperand(I, a);
            LLVMTypeRef ty = LLVMTypeOf(v);
            if (LLVMGetTypeKind(ty) != LLVMPointerTypeKind || LLVMGetPointerAddressSpace(ty) != 2) continue;
            size_t n;
            const char *s = const_string(v, &n);
            if (!s) { fail(d, t, I, "%s with a string that is not a constant"); return false; }
            LLVMValueRef g = uniform_string(M, s, strlen(s));
            LLVMValueRef zero = LLVMConstInt(LLVMInt64TypeInContext(LLVMGetModuleContext(M)), 0, 0);
            LLVMValueRef z[2] = {zero, zero};
            LLVMSetOperand(I, a, LLVMConstInBoundsGEP2(LLVMGlobalGetValueType(g), g, z, 2));
        }
    }
    return true;
}
