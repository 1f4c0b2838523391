/* spirv_printf.c — CUDA's vprintf(format, argument buffer) as OpenCL printf (OpenCL.std printf).
 *
 * The vprintf hook (spirv_hooks.c) emits SPIRV_VPRINTF_MARKER(format, args); after O2 has inlined nvcc's
 * vprintf stubs the format is a constant string global. Each marker becomes a call of
 * `_Z18__spirv_ocl_printfPU3AS2c` (the form spirv-val accepts, shared/docs/targets.md §2.6) with a copy of the
 * format in UniformConstant (addrspace 2) and the arguments loaded from the buffer per CUDA's packing: each
 * argument aligned to its size, integers 4 bytes (8 with l/ll/z/j/t), floating point as double, %s/%p 8.
 * OpenCL printf has no `ll`/`z`/`j`/`t`: they become `l` (64-bit there). %s needs a constant string in
 * UniformConstant as well: the argument is loaded as an integer, store-to-load forwarding (gvn) resolves it to
 * the string's address, and the string is copied; anything else is diagnosed, as are formats that are not
 * constant (a kernel parameter, ...). At -O0 the stub is inlined here first
 * (printf_resolve_formats, targets/llvm/printf_format.c, which also walks the formats). */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Transforms/PassBuilder.h>

#include "spirv_target.h"
#include "../llvm/printf_format.h"

#define OCL_PRINTF "_Z18__spirv_ocl_printfPU3AS2c"

static LLVMValueRef uniform_string(LLVMModuleRef M, const char *s, size_t n) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    size_t len = n + 1;
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

/* One marker -> OpenCL printf. False: diagnosed. */
static bool lower_one(LLVMModuleRef M, LLVMValueRef I, const target_desc *t, p2n_diags *d) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMTypeRef i8 = LLVMInt8TypeInContext(C), i32 = LLVMInt32TypeInContext(C), i64 = LLVMInt64TypeInContext(C);
    LLVMTypeRef f64 = LLVMDoubleTypeInContext(C), cptr = LLVMPointerTypeInContext(C, 2);
    size_t n;
    const char *fmt = printf_const_string(LLVMGetOperand(I, 0), &n);
    if (!fmt) { printf_unsupported(d, t, I, "the format is not a constant string"); return false; }
    n = strlen(fmt);
    char *out = malloc(2 * n + 2); /* room for the 'l' added to floating-point conversions */
    size_t o = 0;
    LLVMValueRef args[33];
    unsigned na = 1;
    uint64_t off = 0;
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    LLVMPositionBuilderBefore(B, I);
    LLVMValueRef buf = LLVMGetOperand(I, 1);
    bool ok = true;
    size_t last = 0; /* fmt[last..] not yet copied to out */
    size_t i = 0;
    printf_conv c;
    const char *why = NULL;
    while (ok && printf_next_conv(fmt, &i, &c, &why)) {
        /* text up to the conversion, its flags, width and precision; OpenCL printf has no ll/z/j/t: 'l' */
        memcpy(out + o, fmt + last, c.spec_end - last);
        o += c.spec_end - last;
        if (c.length == 'l') out[o++] = 'l';
        else if (c.length == 'h') { /* h or hh as written */
            memcpy(out + o, fmt + c.spec_end, c.end - 1 - c.spec_end);
            o += c.end - 1 - c.spec_end;
        }
        /* floating point: CUDA passes double; PoCL 3.1 prints an unmodified %f/%e/%g argument as a float
         * (printf.c reads the double and narrows it), 'l' (no effect in C99) makes it print the double */
        if (c.fp && out[o - 1] != 'l') out[o++] = 'l';
        out[o++] = c.conv;
        last = c.end;
        if (na == 33) { printf_unsupported(d, t, I, "more than 32 arguments"); ok = false; break; }
        unsigned size = c.size;
        off = (off + size - 1) / size * size;
        LLVMValueRef o_ = LLVMConstInt(i64, off, 0);
        LLVMValueRef p = LLVMBuildGEP2(B, i8, buf, &o_, 1, "");
        LLVMTypeRef lt = c.fp ? f64 : size == 8 ? i64 : i32;
        LLVMValueRef v = LLVMBuildLoad2(B, lt, p, "");
        LLVMSetAlignment(v, size);
        if (c.string) v = LLVMBuildIntToPtr(B, v, cptr, ""); /* resolved by spirv_printf_strings */
        else if (c.conv == 'p') v = LLVMBuildIntToPtr(B, v, LLVMPointerTypeInContext(C, 4), "");
        args[na++] = v;
        off += size;
    }
    if (ok && why) { printf_unsupported(d, t, I, why); ok = false; }
    if (ok) { /* the text after the last conversion */
        memcpy(out + o, fmt + last, n - last);
        o += n - last;
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
    printf_resolve_formats(M, marker); /* -O0: nvcc's stub still takes the format as a parameter */
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
    LLVMErrorRef e = LLVMRunPasses(M, "function(gvn,instcombine<no-verify-fixpoint>)", NULL, po);
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
            const char *s = printf_const_string(v, &n);
            if (!s) { printf_unsupported(d, t, I, "%s with a string that is not a constant"); return false; }
            LLVMValueRef g = uniform_string(M, s, strlen(s));
            LLVMValueRef zero = LLVMConstInt(LLVMInt64TypeInContext(LLVMGetModuleContext(M)), 0, 0);
            LLVMValueRef z[2] = {zero, zero};
            LLVMSetOperand(I, a, LLVMConstInBoundsGEP2(LLVMGlobalGetValueType(g), g, z, 2));
        }
    }
    return true;
}

/* LLVM 22's check of the format's storage class (SPIRVModuleAnalysis, addPrintfRequirements) looks the format's
 * virtual register up in whichever machine function was compiled last, so with several functions it can read an
 * unrelated register's type and abort ("SPV_EXT_relaxed_printf_string_address_space is required"). The extension
 * is therefore enabled (spirv_init_llvm) and its OpExtension removed here: every format lower_one emits is a
 * UniformConstant array, and the validation that follows (spirv_finish) holds the module to the plain rule. */
size_t spirv_drop_printf_ext(uint32_t *w, size_t nw) {
    static const char ext[] = "SPV_EXT_relaxed_printf_string_address_space";
    for (size_t pos = 5; pos < nw;) {
        unsigned wc = w[pos] >> 16, op = w[pos] & 0xffff;
        if (!wc || pos + wc > nw) break;
        if (op == 10 /* OpExtension */ && (wc - 1) * 4 >= sizeof ext &&
            !memcmp(w + pos + 1, ext, sizeof ext)) {
            memmove(w + pos, w + pos + wc, (nw - pos - wc) * 4);
            nw -= wc;
            continue;
        }
        if (op == 54 /* OpFunction: past the preamble */) break;
        pos += wc;
    }
    return nw;
}
