/* printf_format.c — the target-independent half of device printf (printf_format.h): format strings found at
 * compile time and walked with CUDA's argument-buffer packing. The targets turn each conversion into their own
 * calls (spirv_printf.c, amdgpu_printf.c). */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Transforms/PassBuilder.h>

#include "printf_format.h"

#include "diag.h"
#include "target.h"

const char *printf_const_string(LLVMValueRef v, size_t *len) {
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

bool printf_next_conv(const char *fmt, size_t *pos, printf_conv *c, const char **why) {
    size_t i = *pos;
    *why = NULL;
    for (;;) {
        while (fmt[i] && fmt[i] != '%') i++;
        if (!fmt[i]) { *pos = i; return false; }
        if (fmt[i + 1] != '%') break;
        i += 2;
    }
    memset(c, 0, sizeof *c);
    c->start = i++;
    while (fmt[i] && strchr("-+ #0", fmt[i])) i++;
    while (fmt[i] >= '0' && fmt[i] <= '9') i++;
    if (fmt[i] == '.') {
        i++;
        while (fmt[i] >= '0' && fmt[i] <= '9') i++;
    }
    if (fmt[i] == '*') { *why = "'*' width or precision"; return false; }
    c->spec_end = i;
    c->size = 4;
    if (fmt[i] == 'h') {
        c->length = 'h';
        i += fmt[i + 1] == 'h' ? 2 : 1;
    } else if (fmt[i] == 'l' || fmt[i] == 'z' || fmt[i] == 'j' || fmt[i] == 't') {
        c->length = 'l';
        c->size = 8;
        i += fmt[i] == 'l' && fmt[i + 1] == 'l' ? 2 : 1;
    } else if (fmt[i] == 'L') {
        *why = "long double conversion";
        return false;
    }
    c->conv = fmt[i];
    if (!c->conv || !strchr("diuxXocfFeEgGaAsp", c->conv)) { *why = "unknown conversion"; return false; }
    c->fp = strchr("fFeEgGaA", c->conv) != NULL;
    c->string = c->conv == 's';
    if (c->fp || c->string || c->conv == 'p') c->size = 8;
    c->end = ++i;
    *pos = i;
    return true;
}

/* the function holding a marker call whose format is not (yet) a constant string, or NULL */
static LLVMValueRef unresolved(LLVMValueRef marker) {
    for (LLVMUseRef u = LLVMGetFirstUse(marker); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef I = LLVMGetUser(u);
        size_t n;
        if (LLVMIsACallInst(I) && !printf_const_string(LLVMGetOperand(I, 0), &n))
            return LLVMGetBasicBlockParent(LLVMGetInstructionParent(I));
    }
    return NULL;
}

void printf_resolve_formats(LLVMModuleRef M, LLVMValueRef marker) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    unsigned ai = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
    unsigned ni = LLVMGetEnumAttributeKindForName("noinline", 8);
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    for (int round = 0; round < 4; round++) {
        LLVMValueRef f = unresolved(marker);
        if (!f || !LLVMGetFirstUse(f)) break;
        unsigned cc = LLVMGetFunctionCallConv(f);
        if (cc == LLVMSPIRKERNELCallConv || cc == LLVMAMDGPUKERNELCallConv) break; /* nothing to inline into */
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

void printf_unsupported(p2n_diags *d, const target_desc *t, LLVMValueRef call, const char *why) {
    size_t len;
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
    diag_plain(d, "error", "unsupported PTX construct for target %s: 'call vprintf' (printf) in '%s': %s", t->name,
               LLVMGetValueName2(fn, &len), why);
}
