/* spirv_globals.c — module-scope variables in one runtime buffer, for OpenCL devices without program-scope
 * global variables (P2N_LACKS_PROGRAM_GLOBALS: CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE is 0, e.g. PoCL 3.1, which
 * builds each kernel into its own object with its own copy of every global, so what one launch writes the next
 * kernel never sees, and the host's cuModuleGetGlobal copy is a third one).
 *
 * Every writable CrossWorkgroup global (.global, .const — the host writes it —, module-scope .local) gets an
 * offset in one buffer the runtime allocates per module ("p2n:gbuf BYTES"); kernels take the buffer as their
 * last argument (after the error record, when there is one) and the wrapper keeps it in the ctx at
 * SPIRV_CTX_GBUF. Each use of such a global in a function of the shared emission becomes `base + offset`,
 * with base loaded from the function's ctx once at its entry; the constant expressions around the use
 * (addrspacecast, GEP, ptrtoint ...) are rebuilt as instructions. The globals themselves stay, as the initial
 * values: `__p2n_globals(out, buf)` (spirv_pass_globals below), which the runtime runs once after loading the module,
 * copies each into its slot, rewrites the addresses of other globals inside the initializers (emit_module.c's
 * packed structs of byte strings and 64-bit addresses) to their slots, and writes the slots' addresses to out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../llvm/emit.h"
#include "llvm_pass.h"
#include "spirv_target.h"

typedef struct {
    LLVMValueRef *g;
    uint64_t *off;
    unsigned n;
    uint64_t bytes;
} glayout;

static bool relocatable(LLVMValueRef g, unsigned as_global) {
    if (!LLVMGetInitializer(g) || LLVMIsGlobalConstant(g) || LLVMGetLinkage(g) != LLVMInternalLinkage) return false;
    /* nvcc's string literals ($str, $str$1, ...): never written (C forbids it), and printf needs its format as a
     * constant global (spirv_printf.c), so they stay per-kernel copies */
    size_t len;
    if (!strncmp(LLVMGetValueName2(g, &len), "$str", 4)) return false;
    return LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == as_global;
}

/* the same order and offsets every time it is called on the same module */
static glayout layout(LLVMModuleRef M, unsigned as_global) {
    glayout L = {0};
    for (LLVMValueRef g = LLVMGetFirstGlobal(M); g; g = LLVMGetNextGlobal(g)) {
        if (!relocatable(g, as_global)) continue;
        L.g = realloc(L.g, (L.n + 1) * sizeof *L.g);
        L.off = realloc(L.off, (L.n + 1) * sizeof *L.off);
        uint64_t a = LLVMGetAlignment(g);
        if (a < 16) a = 16;
        if (a > 128) a = 128; /* the runtime's allocation alignment (PoCL refuses more) */
        L.bytes = (L.bytes + a - 1) / a * a;
        L.g[L.n] = g;
        L.off[L.n++] = L.bytes;
        LLVMTypeRef t = LLVMGlobalGetValueType(g);
        uint64_t sz = 0;
        if (LLVMGetTypeKind(t) == LLVMArrayTypeKind) sz = LLVMGetArrayLength2(t);
        else {
            /* a packed struct of byte strings and 64-bit addresses (emit_module.c build_init) */
            for (unsigned i = 0, ne = LLVMCountStructElementTypes(t); i < ne; i++) {
                LLVMTypeRef e = LLVMStructGetTypeAtIndex(t, i);
                sz += LLVMGetTypeKind(e) == LLVMArrayTypeKind ? LLVMGetArrayLength2(e) : 8;
            }
        }
        L.bytes += sz ? sz : 1;
    }
    return L;
}

LLVMValueRef spirv_fn_ctx(LLVMValueRef fn) {
    if (LLVMIsDeclaration(fn) || LLVMGetFunctionCallConv(fn) == 76) return NULL;
    LLVMTypeRef ft = LLVMGlobalGetValueType(fn);
    unsigned np = LLVMCountParamTypes(ft);
    if (LLVMGetTypeKind(LLVMGetReturnType(ft)) != LLVMVoidTypeKind || (np != 2 && np != 3)) return NULL;
    LLVMTypeRef pt[3];
    LLVMGetParamTypes(ft, pt);
    for (unsigned i = 0; i < np; i++)
        if (LLVMGetTypeKind(pt[i]) != LLVMPointerTypeKind) return NULL;
    /* kernel bodies: (params, ctx); .funcs and runtime stubs: (ctx, retbuf, params) */
    return LLVMGetParam(fn, np == 2 ? 1 : 0);
}

static int slot_of(const glayout *L, LLVMValueRef g) {
    for (unsigned i = 0; i < L->n; i++)
        if (L->g[i] == g) return (int)i;
    return -1;
}

static bool refers(const glayout *L, LLVMValueRef c) {
    if (LLVMIsAGlobalVariable(c)) return slot_of(L, c) >= 0;
    if (!LLVMIsAConstant(c) || LLVMIsAGlobalValue(c)) return false;
    for (int i = 0, n = LLVMGetNumOperands(c); i < n; i++)
        if (refers(L, LLVMGetOperand(c, i))) return true;
    return false;
}

/* constant c rebuilt with instructions at B, each relocated global as base + offset; NULL where c has an
 * unexpected shape (the caller diagnoses) */
static LLVMValueRef rebuild(LLVMBuilderRef B, LLVMContextRef C, const glayout *L, LLVMValueRef base, LLVMValueRef c) {
    if (!refers(L, c)) return c;
    if (LLVMIsAGlobalVariable(c)) {
        LLVMValueRef o = LLVMConstInt(LLVMInt64TypeInContext(C), L->off[slot_of(L, c)], 0);
        return LLVMBuildGEP2(B, LLVMInt8TypeInContext(C), base, &o, 1, "");
    }
    if (!LLVMIsAConstantExpr(c)) return NULL;
    LLVMOpcode op = LLVMGetConstOpcode(c);
    unsigned n = (unsigned)LLVMGetNumOperands(c);
    LLVMValueRef ops[8];
    if (n > 8) return NULL;
    for (unsigned i = 0; i < n; i++)
        if (!(ops[i] = rebuild(B, C, L, base, LLVMGetOperand(c, i)))) return NULL;
    switch (op) {
    case LLVMAddrSpaceCast: case LLVMBitCast: case LLVMPtrToInt: case LLVMIntToPtr: case LLVMTrunc: case LLVMZExt:
    case LLVMSExt:
        return LLVMBuildCast(B, op, ops[0], LLVMTypeOf(c), "");
    case LLVMGetElementPtr:
        return LLVMBuildGEP2(B, LLVMGetGEPSourceElementType(c), ops[0], ops + 1, n - 1, "");
    case LLVMAdd: case LLVMSub: case LLVMXor: case LLVMMul: case LLVMShl: case LLVMAnd: case LLVMOr:
        return LLVMBuildBinOp(B, op, ops[0], ops[1], "");
    default: return NULL;
    }
}

/* the ctx word holding the buffer, loaded at the function's entry */
static LLVMValueRef base_in(LLVMBuilderRef B, LLVMContextRef C, LLVMValueRef fn, unsigned as_global) {
    LLVMValueRef ctx = spirv_fn_ctx(fn);
    if (!ctx) return NULL;
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
    LLVMValueRef first = LLVMGetFirstInstruction(entry);
    if (first) LLVMPositionBuilderBefore(B, first);
    else LLVMPositionBuilderAtEnd(B, entry);
    LLVMValueRef o = LLVMConstInt(LLVMInt64TypeInContext(C), SPIRV_CTX_GBUF, 0);
    LLVMValueRef p = LLVMBuildGEP2(B, LLVMInt8TypeInContext(C), ctx, &o, 1, "");
    LLVMValueRef v = LLVMBuildLoad2(B, LLVMPointerTypeInContext(C, as_global), p, "gbuf");
    LLVMSetAlignment(v, 8);
    return v;
}

/* the initial values into the buffer and the slots' addresses out (the __p2n_globals kernel) */
static bool init_kernel(LLVMBuilderRef B, LLVMContextRef C, const glayout *L, LLVMValueRef k) {
    LLVMTypeRef i8 = LLVMInt8TypeInContext(C), i64 = LLVMInt64TypeInContext(C);
    LLVMValueRef base = LLVMGetParam(k, 1);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(k);
    LLVMPositionBuilderBefore(B, LLVMGetFirstInstruction(entry));
    for (unsigned i = 0; i < L->n; i++) {
        LLVMValueRef o = LLVMConstInt(i64, L->off[i], 0);
        LLVMValueRef dst = LLVMBuildGEP2(B, i8, base, &o, 1, "");
        LLVMTypeRef t = LLVMGlobalGetValueType(L->g[i]);
        LLVMValueRef init = LLVMGetInitializer(L->g[i]);
        if (LLVMGetTypeKind(t) == LLVMArrayTypeKind) {
            LLVMBuildMemCpy(B, dst, 16, L->g[i], 16, LLVMConstInt(i64, LLVMGetArrayLength2(t), 0));
            continue;
        }
        /* packed struct: bytes as they are, addresses of relocated globals rebuilt */
        uint64_t at = 0;
        for (unsigned e = 0, ne = LLVMCountStructElementTypes(t); e < ne; e++) {
            LLVMTypeRef et = LLVMStructGetTypeAtIndex(t, e);
            LLVMValueRef ev = LLVMGetOperand(init, e);
            LLVMValueRef eo = LLVMConstInt(i64, L->off[i] + at, 0);
            LLVMValueRef edst = LLVMBuildGEP2(B, i8, base, &eo, 1, "");
            if (LLVMGetTypeKind(et) == LLVMArrayTypeKind) {
                uint64_t len = LLVMGetArrayLength2(et);
                LLVMValueRef so = LLVMConstInt(i64, at, 0);
                LLVMValueRef src = LLVMBuildGEP2(B, i8, L->g[i], &so, 1, "");
                LLVMBuildMemCpy(B, edst, 1, src, 1, LLVMConstInt(i64, len, 0));
                at += len;
                continue;
            }
            if (LLVMGetTypeKind(et) != LLVMPointerTypeKind && LLVMGetTypeKind(et) != LLVMIntegerTypeKind) return false;
            LLVMValueRef v = rebuild(B, C, L, base, ev);
            if (!v) return false;
            LLVMSetAlignment(LLVMBuildStore(B, v, edst), 1);
            at += 8;
        }
    }
    return true;
}

bool spirv_relocate_globals(LLVMContextRef C, LLVMModuleRef M, unsigned as_global, p2n_diags *d) {
    glayout L = layout(M, as_global);
    bool ok = true;
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    LLVMValueRef k = LLVMGetNamedFunction(M, "__p2n_globals");
    for (LLVMValueRef fn = LLVMGetFirstFunction(M); fn && ok && L.n; fn = LLVMGetNextFunction(fn)) {
        if (LLVMIsDeclaration(fn)) continue;
        LLVMValueRef base = NULL;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && ok; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I && ok; I = LLVMGetNextInstruction(I)) {
                for (int i = 0, n = LLVMGetNumOperands(I); i < n && ok; i++) {
                    LLVMValueRef c = LLVMGetOperand(I, i);
                    if (!c || !LLVMIsAConstant(c) || !refers(&L, c)) continue;
                    if (!base) {
                        if (fn == k) base = LLVMGetParam(fn, 1);
                        else if (!(base = base_in(B, C, fn, as_global))) {
                            size_t len;
                            diag_plain(d, "error", "internal compiler error: SPIR-V: function '%s' uses a module "
                                       "variable but has no thread context", LLVMGetValueName2(fn, &len));
                            ok = false;
                            break;
                        }
                    }
                    if (LLVMIsAPHINode(I)) LLVMPositionBuilderBefore(B, LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(I, (unsigned)i)));
                    else LLVMPositionBuilderBefore(B, I);
                    LLVMValueRef v = rebuild(B, C, &L, base, c);
                    if (!v) {
                        size_t len;
                        diag_plain(d, "error", "internal compiler error: SPIR-V: unexpected use of a module "
                                   "variable in '%s' (program-scope variables in a buffer)", LLVMGetValueName2(fn, &len));
                        ok = false;
                        break;
                    }
                    LLVMSetOperand(I, (unsigned)i, v);
                }
            }
    }
    if (ok && L.n && (!k || LLVMCountParams(k) != 2 || !init_kernel(B, C, &L, k))) {
        diag_plain(d, "error", "internal compiler error: SPIR-V: cannot build the initialisation of the module "
                   "variables' buffer");
        ok = false;
    }
    LLVMDisposeBuilder(B);
    free(L.g);
    free(L.off);
    return ok;
}

uint64_t spirv_globals_bytes(LLVMModuleRef M, unsigned as_global) {
    glayout L = layout(M, as_global);
    free(L.g);
    free(L.off);
    return L.bytes;
}

/* The lowering list's spirv-globals pass (after spirv-kernel-wrappers and spirv-traps):
 * __p2n_globals(ulong addrspace(1) *out[, buffer]) writes every module-scope global's address (a "global NAME
 * SIZE INDEX" entry each), then with gbuf (the "gbuf BYTES" entry spirv-mark-module wrote) the module variables
 * move into the buffer. */
bool spirv_pass_globals(llvm_pass_ctx *X) {
    LLVMContextRef C = X->C;
    LLVMModuleRef M = X->M;
    const emit_desc *desc = X->desc;
    unsigned as_global = X->t->as_global;
    LLVMTypeRef i64 = LLVMInt64TypeInContext(C), g1ptr = LLVMPointerTypeInContext(C, as_global);
    uint64_t gbuf = 0;
    spirv_meta_find(M, "gbuf", &gbuf);
    unsigned ng = 0;
    LLVMValueRef *gs = calloc(desc->nglobals + 1, sizeof *gs);
    for (uint32_t i = 0; i < desc->nglobals; i++) {
        const emit_global *eg = &desc->globals[i];
        if (eg->space != IR_S_GLOBAL && eg->space != IR_S_CONST) continue;
        LLVMValueRef g = LLVMGetNamedGlobal(M, eg->name);
        if (!g || !LLVMGetInitializer(g)) continue;
        gs[ng] = g;
        size_t n = strlen(eg->name) + 64;
        char *entry = malloc(n);
        snprintf(entry, n, "global %s %llu %u", eg->name, (unsigned long long)eg->size, ng);
        spirv_add_meta(M, entry);
        free(entry);
        ng++;
    }
    if (ng || gbuf) {
        LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
        LLVMTypeRef gat[2] = {g1ptr, g1ptr}; /* (out, the module variables' buffer with gbuf) */
        LLVMTypeRef kt = LLVMFunctionType(LLVMVoidTypeInContext(C), gat, gbuf ? 2 : 1, 0);
        LLVMValueRef k = LLVMAddFunction(M, "__p2n_globals", kt);
        LLVMSetFunctionCallConv(k, 76 /* SPIR_KERNEL */);
        LLVMPositionBuilderAtEnd(B, LLVMAppendBasicBlockInContext(C, k, "entry"));
        for (unsigned i = 0; i < ng; i++) {
            LLVMValueRef o = LLVMConstInt(i64, i, 0);
            LLVMValueRef dst = LLVMBuildGEP2(B, i64, LLVMGetParam(k, 0), &o, 1, "");
            LLVMBuildStore(B, LLVMBuildPtrToInt(B, gs[i], i64, ""), dst);
        }
        LLVMBuildRetVoid(B);
        LLVMDisposeBuilder(B);
    }
    free(gs);
    if (gbuf && !spirv_relocate_globals(C, M, as_global, X->d)) {
        X->internal = true;
        return false;
    }
    return true;
}
