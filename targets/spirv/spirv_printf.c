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
 * constant (a kernel parameter, ...). At -O0 the stub is inlined here first (resolve_formats). */
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

static void fail(p2n_diags *d, const target_desc *t, LLVMValueRef I, const char *why) {
    size_t len;
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(I));
    diag_plain(d, "error", "unsupported PTX construct for target %s: 'call vprintf' (printf) in '%s': %s", t->name,
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
    char *out = malloc(2 * n + 2); /* room for the 'l' added to floating-point conversions */
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
        /* floating point: CUDA passes double; PoCL 3.1 prints an unmodified %f/%e/%g argument as a float
         * (printf.c reads the double and narrows it), 'l' (no effect in C99) makes it print the double */
        if (strchr("fFeEgGaA", c) && out[o - 1] != 'l') out[o++] = 'l';
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

/* the function holding a marker whose format is not (yet) a constant string, or NULL */
static LLVMValueRef unresolved(LLVMValueRef marker) {
    for (LLVMUseRef u = LLVMGetFirstUse(marker); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef I = LLVMGetUser(u);
        size_t n;
        if (LLVMIsACallInst(I) && !const_string(LLVMGetOperand(I, 0), &n))
            return LLVMGetBasicBlockParent(LLVMGetInstructionParent(I));
    }
    return NULL;
}

/* Unoptimised code (-O0) still has nvcc's vprintf stub (and any .func passing a format on) as a function whose
 * format is a parameter: such functions are inlined into their callers and the callers' allocas promoted
 * (sroa, instcombine, gvn on those functions only), a few levels up, until the formats are constants. */
static void resolve_formats(LLVMModuleRef M, LLVMValueRef marker) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    unsigned ai = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
    unsigned ni = LLVMGetEnumAttributeKindForName("noinline", 8);
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    for (int round = 0; round < 4; round++) {
        LLVMValueRef f = unresolved(marker);
        if (!f || LLVMGetFunctionCallConv(f) == 76 /* a kernel: nothing to inline into */ || !LLVMGetFirstUse(f))
            break;
        LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, ni);
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(C, ai, 0));
        LLVMValueRef callers[64];
        unsigned nc = 0;
        for (LLVMUseRef u = LLVMGetFirstUse(f); u && nc < 64; u = LLVMGetNextUse(u))
            if (LLVMIsACallInst(LLVMGetUser(u)))
                callers[nc++] = LLVMGetBasicBlockParent(LLVMGetInstructionParent(LLVMGetUser(u)));
        /* the always-inliner deletes f itself once it is dead and internal: keep only its name */
        size_t nl;
        const char *nm = LLVMGetValueName2(f, &nl);
        char *name = nl ? malloc(nl + 1) : NULL;
        if (name) memcpy(name, nm, nl), name[nl] = 0;
        f = NULL;
        LLVMErrorRef e = LLVMRunPasses(M, "always-inline", NULL, po);
        for (unsigned i = 0; !e && i < nc; i++)
            e = LLVMRunPassesOnFunction(callers[i], "sroa,early-cse,instcombine<no-verify-fixpoint>,gvn", NULL, po);
        if (name) f = LLVMGetNamedFunction(M, name);
        free(name);
        if (e) { LLVMConsumeError(e); break; }
        if (f && !LLVMGetFirstUse(f) && LLVMGetLinkage(f) == LLVMInternalLinkage) LLVMDeleteFunction(f);
    }
    LLVMDisposePassBuilderOptions(po);
}

bool spirv_lower_printf(LLVMModuleRef M, const target_desc *t, p2n_diags *d) {
    LLVMValueRef marker = LLVMGetNamedFunction(M, SPIRV_VPRINTF_MARKER);
    if (!marker) return true;
    resolve_formats(M, marker);
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
