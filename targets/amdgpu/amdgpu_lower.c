/* amdgpu_lower.c — the host-model LLVM module emit_module produced -> an AMDGPU (HSA, COV5) module.
 *
 * emit_module builds every kernel as `void body(ptr params, ptr ctx)` reading ids and sizes from the
 * p2n_thread_ctx (abi/host_abi.h) and describes the kernels (parameter layout, LDS window, flags, ntid bounds)
 * in its emit_desc (targets/llvm/emit.h). Here each kernel gets an `amdgpu_kernel` wrapper whose explicit
 * arguments ARE the PTX parameter buffer (byte arrays at the PTX offsets, padding between), which fills a ctx
 * with the shared-memory window and calls the (always inlined) body; special registers do not go through ctx on
 * AMDGPU (intrinsics in every function, amdgpu_hooks.c), and calls pass no ctx when no device function reads it
 * (drop_unread_ctx), so SROA removes it. Shared memory: one static LDS window per kernel (its own statics) plus
 * the external zero-size LDS array for dynamic shared memory, which the back end places after all static LDS of
 * the kernel. */
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amdgpu_internal.h"
#include "amdgpu_kinfo.h"
#include "host_abi.h"
#include "llvm_pass.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void init(void) {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    LLVMInitializeAMDGPUAsmParser(); /* ockl.bc (printf, malloc) holds inline assembly */
}
void amdgpu_init_llvm(void) { pthread_once(&once, init); }

typedef struct lower {
    LLVMContextRef C;
    LLVMModuleRef M;
    LLVMBuilderRef B;
    const target_desc *t;
    p2n_diags *d;
    LLVMTypeRef i1, i8, i16, i32, i64, ptr, p3, p4, vd;
} lower;

static LLVMValueRef k32(lower *L, uint64_t v) { return LLVMConstInt(L->i32, v, 0); }
static LLVMValueRef k64(lower *L, uint64_t v) { return LLVMConstInt(L->i64, v, 0); }

static LLVMValueRef call_intrin(lower *L, const char *name, LLVMTypeRef *tys, unsigned nt, LLVMValueRef *a, unsigned n) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(L->M, id, tys, nt);
    return LLVMBuildCall2(L->B, LLVMIntrinsicGetType(L->C, id, tys, nt), fn, a, n, "");
}

static void add_str_attr(lower *L, LLVMValueRef f, const char *k, const char *v) {
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(L->C, k, (unsigned)strlen(k), v, (unsigned)strlen(v)));
}

static LLVMValueRef load_dp(lower *L, LLVMValueRef dp, unsigned off, LLVMTypeRef ty) {
    LLVMValueRef o = k64(L, off);
    LLVMValueRef p = LLVMBuildGEP2(L->B, L->i8, dp, &o, 1, "");
    LLVMValueRef v = LLVMBuildLoad2(L->B, ty, p, "");
    LLVMSetAlignment(v, ty == L->i16 ? 2 : 4);
    return LLVMBuildZExt(L->B, v, L->i32, "");
}

static void store_ctx(lower *L, LLVMValueRef ctx, unsigned off, LLVMValueRef v) {
    LLVMValueRef o = k64(L, off);
    LLVMBuildStore(L->B, v, LLVMBuildGEP2(L->B, L->i8, ctx, &o, 1, ""));
}

/* The kernel's launch attributes that the AMDGPU metadata has no field for: .reqntid per dimension and the
 * P2N_KERNEL_* flags (.explicitcluster, .reqnctapercluster; P2N_KERNEL_REPORTS_ERRORS when some code of the module
 * (of the -j partition) reports into the error record, amdgpu_report_errors.c), as a 16-byte constant "__p2n_kinfo.<kernel>" = {reqntid
 * x, y, z, flags} (abi/amdgpu_kinfo.h) in the code object's dynamic symbol table. The HIP backend reads it
 * (driver-stub/hip/amd_codeobj.c amd_read_kinfo) to refuse launches as the other backends do (launch.c). */
static void add_kernel_attrs(lower *L, const emit_kernel *kd, const char *kernel) {
    uint32_t flags = kd->flags | (amd_module_reports_errors(L->M) ? P2N_KERNEL_REPORTS_ERRORS : 0);
    LLVMValueRef v[P2N_AMD_KINFO_WORDS] = {k32(L, kd->reqntid[0]), k32(L, kd->reqntid[1]), k32(L, kd->reqntid[2]),
                                           k32(L, flags)};
    LLVMValueRef init = LLVMConstArray2(L->i32, v, P2N_AMD_KINFO_WORDS);
    size_t n = strlen(P2N_AMD_KINFO_PREFIX) + strlen(kernel) + 1;
    char *sym = malloc(n);
    if (!sym) return;
    snprintf(sym, n, "%s%s", P2N_AMD_KINFO_PREFIX, kernel);
    LLVMValueRef g = LLVMAddGlobalInAddressSpace(L->M, LLVMTypeOf(init), sym, 4);
    free(sym);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetVisibility(g, LLVMProtectedVisibility);
    LLVMSetAlignment(g, 4);
}

/* one kernel of emission's description -> the amdgpu_kernel wrapper of its body */
/* win: this kernel's (addrspace 3) shared window, its statics only (NULL: none); dyn: the external zero-size
 * LDS array, which the back end places after all static LDS the kernel uses */
static bool wrap_kernel(lower *L, const emit_kernel *kd, LLVMValueRef win, LLVMValueRef dyn) {
    LLVMValueRef body = LLVMGetNamedFunction(L->M, kd->name);
    if (!body) return false;
    unsigned np = kd->nparams;
    size_t nl = strlen(kd->name);
    char *name = strdup(kd->name);
    char *bname = malloc(nl + 16);
    snprintf(bname, nl + 16, "%s.p2n.body", name);
    LLVMSetValueName2(body, bname, strlen(bname));
    free(bname);
    LLVMAddAttributeAtIndex(body, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(L->C, LLVMGetEnumAttributeKindForName("alwaysinline", 12), 0));
    /* explicit kernel arguments = the PTX parameter buffer; then, when some code of the module reads the launch
     * flags (P2N_KERNEL_LAUNCH_FLAGS: a shared::cluster async operation tests for a cluster launch, emit_cluster.c),
     * a hidden u32 __p2n_launch_flags at the next 4-byte boundary that the runtime appends (P2N_LAUNCH_*) */
    bool lflags = (kd->flags & P2N_KERNEL_LAUNCH_FLAGS) != 0;
    LLVMTypeRef *at = calloc(2 * np + 3, sizeof *at);
    bool *pad = calloc(2 * np + 3, sizeof *pad); /* padding arguments: named __p2n_pad, so a runtime reading the
                                                  * metadata (driver-stub/hip) tells them from PTX parameters */
    unsigned na = 0;
    uint64_t cur = 0;
    for (unsigned i = 0; i < np; i++) {
        uint64_t o = kd->params[i].offset, s = kd->params[i].size;
        if (o < cur) { free(at); free(pad); free(name); return false; }
        if (o > cur) { pad[na] = true; at[na++] = LLVMArrayType2(L->i8, o - cur); }
        at[na++] = LLVMArrayType2(L->i8, s ? s : 1);
        cur = o + (s ? s : 1);
    }
    unsigned flags_arg = 0;
    if (lflags) {
        if (cur % 4) { pad[na] = true; at[na++] = LLVMArrayType2(L->i8, 4 - cur % 4); }
        flags_arg = na;
        at[na++] = L->i32;
    }
    LLVMValueRef k = LLVMAddFunction(L->M, name, LLVMFunctionType(L->vd, at, na, 0));
    if (lflags) LLVMSetValueName2(LLVMGetParam(k, flags_arg), "__p2n_launch_flags", 18);
    for (unsigned i = 0; i < na; i++)
        if (pad[i]) LLVMSetValueName2(LLVMGetParam(k, i), "__p2n_pad", 9);
    free(pad);
    free(at);
    LLVMSetFunctionCallConv(k, LLVMAMDGPUKERNELCallConv);
    LLVMSetVisibility(k, LLVMProtectedVisibility);
    unsigned fx = 1, fy = 1, fz = 1;
    bool req = kd->reqntid[0] != 0, maxn = kd->maxntid[0] != 0;
    char buf[64];
    if (req || maxn) {
        const uint32_t *v = req ? kd->reqntid : kd->maxntid;
        fx = v[0];
        fy = v[1] ? v[1] : 1;
        fz = v[2] ? v[2] : 1;
        unsigned tot = fx * fy * fz;
        snprintf(buf, sizeof buf, "%u,%u", req ? tot : 1, tot);
    } else {
        snprintf(buf, sizeof buf, "1,1024");
    }
    add_str_attr(L, k, "amdgpu-flat-work-group-size", buf);
    add_str_attr(L, k, "uniform-work-group-size", "true");
    add_kernel_attrs(L, kd, name);
    LLVMAddAttributeAtIndex(k, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(L->C, LLVMGetEnumAttributeKindForName("nounwind", 8), 0));
    free(name);

    LLVMPositionBuilderAtEnd(L->B, LLVMAppendBasicBlockInContext(L->C, k, "entry"));
    LLVMTypeRef ctx_ty = LLVMArrayType2(L->i8, sizeof(p2n_thread_ctx));
    LLVMValueRef ctx5 = LLVMBuildAlloca(L->B, ctx_ty, "ctx");
    LLVMSetAlignment(ctx5, 8);
    LLVMValueRef ctx = LLVMBuildAddrSpaceCast(L->B, ctx5, L->ptr, "");
    LLVMValueRef dp = call_intrin(L, "llvm.amdgcn.dispatch.ptr", NULL, 0, NULL, 0);
    /* tid/ntid/ctaid/nctaid/laneid/warpid/nwarpid are not stored: every function reads them from intrinsics
     * (amd_ctx_field in amdgpu_hooks.c); ctx holds the shared-memory window and the host-model constants */
    /* group_segment_size = static + dynamic LDS; dynamic LDS starts at dyn, so the window spans win..end and the
     * dynamic part sits at offset dyn - win in it (what the emission reads as smem_size - dynamic_smem_size) */
    LLVMValueRef gseg = load_dp(L, dp, 28, L->i32);
    LLVMValueRef smem = win ? win : dyn;
    store_ctx(L, ctx, offsetof(p2n_thread_ctx, dynamic_smem_size),
              LLVMBuildSub(L->B, gseg, LLVMBuildPtrToInt(L->B, dyn, L->i32, ""), ""));
    store_ctx(L, ctx, offsetof(p2n_thread_ctx, smem), LLVMBuildAddrSpaceCast(L->B, smem, L->ptr, ""));
    store_ctx(L, ctx, offsetof(p2n_thread_ctx, smem_size),
              LLVMBuildSub(L->B, gseg, LLVMBuildPtrToInt(L->B, smem, L->i32, ""), ""));
    store_ctx(L, ctx, offsetof(p2n_thread_ctx, yield_budget), k32(L, 0x7fffffff));
    store_ctx(L, ctx, offsetof(p2n_thread_ctx, rt), LLVMConstNull(L->ptr));
    if (lflags) store_ctx(L, ctx, offsetof(p2n_thread_ctx, launch_flags), LLVMGetParam(k, flags_arg));
    LLVMValueRef ka = call_intrin(L, "llvm.amdgcn.kernarg.segment.ptr", NULL, 0, NULL, 0);
    LLVMValueRef args[2] = {LLVMBuildAddrSpaceCast(L->B, ka, L->ptr, ""), ctx};
    LLVMTypeRef bt[2] = {L->ptr, L->ptr};
    LLVMBuildCall2(L->B, LLVMFunctionType(L->vd, bt, 2, 0), body, args, 2, "");
    LLVMBuildRetVoid(L->B);
    return true;
}

static void retarget_globals(lower *L) {
    for (LLVMValueRef g = LLVMGetFirstGlobal(L->M), nx; g; g = nx) {
        nx = LLVMGetNextGlobal(g);
        if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != 0) continue;
        size_t nl;
        char *name = strdup(LLVMGetValueName2(g, &nl));
        LLVMValueRef n = LLVMAddGlobalInAddressSpace(L->M, LLVMGlobalGetValueType(g), "", 1);
        LLVMSetAlignment(n, LLVMGetAlignment(g));
        LLVMSetGlobalConstant(n, LLVMIsGlobalConstant(g));
        LLVMValueRef init = LLVMGetInitializer(g);
        bool named = name[0] && name[0] != '.' && strncmp(name, "__p2n", 5) != 0;
        LLVMLinkage lk = LLVMGetLinkage(g);
        if (named && init && lk == LLVMInternalLinkage) {
            /* PTX globals are found by name (cuModuleGetGlobal): export them */
            lk = LLVMExternalLinkage;
            LLVMSetVisibility(n, LLVMProtectedVisibility);
        }
        LLVMSetLinkage(n, lk);
        if (init) LLVMSetInitializer(n, init);
        LLVMReplaceAllUsesWith(g, LLVMConstAddrSpaceCast(n, L->ptr));
        LLVMDeleteGlobal(g);
        LLVMSetValueName2(n, name, nl);
        free(name);
    }
}

/* allocas in address space 0 (emitted before the data layout was known) -> addrspace(5) + cast */
static void retarget_allocas(lower *L) {
    for (LLVMValueRef f = LLVMGetFirstFunction(L->M); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb), nx; i; i = nx) {
                nx = LLVMGetNextInstruction(i);
                if (!LLVMIsAAllocaInst(i) || LLVMGetPointerAddressSpace(LLVMTypeOf(i)) != 0) continue;
                LLVMPositionBuilderBefore(L->B, i);
                LLVMValueRef a = LLVMBuildArrayAlloca(L->B, LLVMGetAllocatedType(i), LLVMGetOperand(i, 0), "");
                LLVMSetAlignment(a, LLVMGetAlignment(i));
                LLVMValueRef c = LLVMBuildAddrSpaceCast(L->B, a, L->ptr, "");
                LLVMReplaceAllUsesWith(i, c);
                LLVMInstructionEraseFromParent(i);
            }
}

/* Is param `p` (a ctx) only handed on as the ctx (first) argument of calls to device functions (`dev`, or
 * indirect: PTX calls only .func functions indirectly)? */
static bool ctx_only_passed(LLVMValueRef p, LLVMValueRef *dev, unsigned ndev) {
    for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef c = LLVMGetUser(u);
        if (!LLVMIsACallInst(c) || LLVMGetNumArgOperands(c) < 1 || LLVMGetOperand(c, 0) != p) return false;
        for (int i = 1; i < LLVMGetNumOperands(c); i++)
            if (LLVMGetOperand(c, i) == p) return false;
        LLVMValueRef callee = LLVMGetCalledValue(c);
        if (!LLVMIsAFunction(callee)) continue;
        bool found = false;
        for (unsigned i = 0; i < ndev && !found; i++) found = dev[i] == callee;
        if (!found) return false;
    }
    return true;
}

/* Device functions take ctx first (emit.h). With the special registers read by intrinsics, ctx holds only
 * the shared-memory window; when no device function reads it (each only passes it on), every call to one gets
 * poison instead, so the kernel's ctx does not escape into (indirect, recursive) calls and SROA deletes it
 * (it was built in scratch around every such call). */
static void drop_unread_ctx(lower *L, const ir_module *m) {
    LLVMValueRef *dev = calloc(m->nfuncs + 1, sizeof *dev);
    unsigned ndev = 0;
    bool ok = true;
    for (uint32_t fi = 0; fi < m->nfuncs && ok; fi++) {
        const ir_func *f = &m->funcs[fi];
        if (f->is_entry || !f->has_body) continue;
        LLVMValueRef fn = LLVMGetNamedFunction(L->M, ir_str(m, f->name));
        ok = fn && LLVMCountParams(fn) == 3 && LLVMGetFirstBasicBlock(fn);
        if (ok) dev[ndev++] = fn;
    }
    /* an indirect call could reach an external .func (no body here) only if its address is taken: then keep ctx */
    for (uint32_t fi = 0; fi < m->nfuncs && ok; fi++) {
        const ir_func *f = &m->funcs[fi];
        LLVMValueRef fn = f->is_entry || f->has_body ? NULL : LLVMGetNamedFunction(L->M, ir_str(m, f->name));
        for (LLVMUseRef u = fn ? LLVMGetFirstUse(fn) : NULL; u && ok; u = LLVMGetNextUse(u))
            ok = LLVMIsACallInst(LLVMGetUser(u)) && LLVMGetCalledValue(LLVMGetUser(u)) == fn;
    }
    for (unsigned i = 0; i < ndev && ok; i++) ok = ctx_only_passed(LLVMGetParam(dev[i], 0), dev, ndev);
    if (ok && ndev) {
        LLVMValueRef none = LLVMGetPoison(L->ptr);
        for (unsigned i = 0; i < ndev; i++) LLVMReplaceAllUsesWith(LLVMGetParam(dev[i], 0), none);
        for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
            const ir_func *f = &m->funcs[fi];
            LLVMValueRef fn = f->is_entry ? LLVMGetNamedFunction(L->M, ir_str(m, f->name)) : NULL;
            if (!fn || LLVMCountParams(fn) != 2) continue;
            LLVMValueRef ctx = LLVMGetParam(fn, 1);
            for (LLVMUseRef u = LLVMGetFirstUse(ctx), nx; u; u = nx) {
                nx = LLVMGetNextUse(u);
                LLVMValueRef c = LLVMGetUser(u), callee = LLVMIsACallInst(c) ? LLVMGetCalledValue(c) : NULL;
                if (!callee || LLVMGetOperand(c, 0) != ctx) continue;
                bool to_dev = !LLVMIsAFunction(callee);
                for (unsigned i = 0; i < ndev && !to_dev; i++) to_dev = dev[i] == callee;
                if (to_dev) LLVMSetOperand(c, 0, none);
            }
        }
    }
    free(dev);
}

/* kernel `exit`: the hook left a marker call followed by unreachable: return instead */
static void lower_exit(lower *L) {
    LLVMValueRef mk = LLVMGetNamedFunction(L->M, "__p2n_amd_exit");
    if (!mk) return;
    for (LLVMUseRef u; (u = LLVMGetFirstUse(mk));) {
        LLVMValueRef call = LLVMGetUser(u);
        LLVMPositionBuilderBefore(L->B, call);
        LLVMBuildRetVoid(L->B);
        for (LLVMValueRef i = call, nx; i; i = nx) {
            nx = LLVMGetNextInstruction(i);
            LLVMInstructionEraseFromParent(i);
        }
    }
    LLVMDeleteFunction(mk);
}

/* The lowering list's state is the module (and X->desc / X->m): each pass starts from the context's types. */
static lower lower_begin(llvm_pass_ctx *X) {
    lower L = {.C = X->C, .M = X->M, .t = X->t, .d = X->d};
    LLVMContextRef C = X->C;
    L.B = LLVMCreateBuilderInContext(C);
    L.i1 = LLVMInt1TypeInContext(C);
    L.i8 = LLVMInt8TypeInContext(C);
    L.i16 = LLVMInt16TypeInContext(C);
    L.i32 = LLVMInt32TypeInContext(C);
    L.i64 = LLVMInt64TypeInContext(C);
    L.ptr = LLVMPointerTypeInContext(C, 0);
    L.p3 = LLVMPointerTypeInContext(C, 3);
    L.p4 = LLVMPointerTypeInContext(C, 4);
    L.vd = LLVMVoidTypeInContext(C);
    return L;
}

/* The data layout first: new allocas (wrappers, printf) go to addrspace(5). Until amdgpu-retarget-allocas the
 * module is invalid: the emission's allocas are in address space 0, and the verifier requires an amdgcn
 * module's allocas in addrspace(5) (amdgpu_target.c lists those passes unverified). */
bool amdgpu_pass_data_layout(llvm_pass_ctx *X) {
    amdgpu_init_llvm();
    const target_desc *t = X->t;
    char *err = NULL;
    LLVMTargetRef T;
    if (LLVMGetTargetFromTriple(t->triple, &T, &err)) {
        diag_plain(X->d, "error", "internal compiler error: no LLVM target for %s: %s", t->triple, err ? err : "");
        LLVMDisposeMessage(err);
        X->internal = true;
        return false;
    }
    LLVMTargetMachineRef TM = LLVMCreateTargetMachine(T, t->triple, t->cpu, "", LLVMCodeGenLevelDefault, LLVMRelocPIC,
                                                      LLVMCodeModelDefault);
    LLVMTargetDataRef DL = LLVMCreateTargetDataLayout(TM);
    LLVMSetModuleDataLayout(X->M, DL);
    LLVMDisposeTargetData(DL);
    LLVMDisposeTargetMachine(TM);
    return true;
}

bool amdgpu_pass_drop_unread_ctx(llvm_pass_ctx *X) {
    lower L = lower_begin(X);
    drop_unread_ctx(&L, X->m);
    LLVMDisposeBuilder(L.B);
    return true;
}

/* LDS per kernel: its own window global holding the statics it can name (emit_module lays them out per kernel:
 * emit_kernel.static_smem), the dynamic part = the external zero-size array the back end places after ALL static
 * LDS of the kernel (its window, the hooks' private words if reachable), at the array's alignment. Offsets into
 * the window stay what the emission computed; LLVM's LDS lowering packs each kernel separately, so a kernel's
 * group segment holds only what it uses (not the whole module's shared memory). */
bool amdgpu_pass_kernel_wrappers(llvm_pass_ctx *X) {
    const emit_desc *desc = X->desc;
    if (!desc->nkernels) return true;
    lower LL = lower_begin(X), *L = &LL;
    bool ok = true;
    uint64_t dyn_align = desc->dyn_align;
    LLVMValueRef dyn = LLVMAddGlobalInAddressSpace(X->M, LLVMArrayType2(L->i8, 0), "__p2n_dyn_lds", 3);
    LLVMSetLinkage(dyn, LLVMExternalLinkage);
    LLVMSetAlignment(dyn, (unsigned)(dyn_align > 16 ? dyn_align : 16));
    for (unsigned i = 0; i < desc->nkernels && ok; i++) {
        const emit_kernel *kd = &desc->kernels[i];
        LLVMValueRef win = NULL;
        uint64_t st = kd->static_smem;
        if (st) {
            size_t nl = strlen(kd->name);
            char *wn = malloc(nl + 16);
            snprintf(wn, nl + 16, "__p2n_lds.%s", kd->name);
            LLVMTypeRef ty = LLVMArrayType2(L->i8, st);
            win = LLVMAddGlobalInAddressSpace(X->M, ty, wn, 3);
            free(wn);
            LLVMSetInitializer(win, LLVMGetPoison(ty));
            LLVMSetLinkage(win, LLVMInternalLinkage);
            LLVMSetAlignment(win, kd->smem_align);
        }
        if (!wrap_kernel(L, kd, win, dyn)) {
            diag_plain(X->d, "error", "internal compiler error: kernel '%s': parameter layout not increasing, or "
                       "no body emitted", kd->name);
            X->internal = true;
            ok = false;
        }
    }
    LLVMDisposeBuilder(L->B);
    return ok;
}

/* the host descriptor and runtime-table pointer mean nothing here; nor do private globals nothing uses */
bool amdgpu_pass_drop_host_globals(llvm_pass_ctx *X) {
    LLVMModuleRef M = X->M;
    LLVMValueRef mod = LLVMGetNamedGlobal(M, "__p2n_module");
    if (mod) LLVMDeleteGlobal(mod);
    LLVMValueRef rt = LLVMGetNamedGlobal(M, "__p2n_rt");
    if (rt && !LLVMGetFirstUse(rt)) LLVMDeleteGlobal(rt);
    for (int pass = 0; pass < 3; pass++)
        for (LLVMValueRef g = LLVMGetFirstGlobal(M), nx; g; g = nx) {
            nx = LLVMGetNextGlobal(g);
            if (LLVMGetLinkage(g) == LLVMPrivateLinkage && !LLVMGetFirstUse(g)) LLVMDeleteGlobal(g);
        }
    return true;
}

/* FP environment: IEEE denormals for f32 and f16/f64 in every function (descriptor FLOAT_DENORM_MODE_* = flush
 * none). .ftz is emitted explicitly and directed rounding in software (emit_float.c), so the mode register never
 * changes inside a kernel (docs/amdgpu.md "FP modes"). After amdgpu-link-devlibs, so that the attributes cover
 * the library code (ocml) too. */
bool amdgpu_pass_fp_env(llvm_pass_ctx *X) {
    lower L = lower_begin(X);
    for (LLVMValueRef f = LLVMGetFirstFunction(X->M); f; f = LLVMGetNextFunction(f)) {
        if (!LLVMGetFirstBasicBlock(f)) continue;
        add_str_attr(&L, f, "denormal-fp-math", "ieee,ieee");
        add_str_attr(&L, f, "denormal-fp-math-f32", "ieee,ieee");
    }
    LLVMDisposeBuilder(L.B);
    return true;
}

bool amdgpu_pass_retarget_globals(llvm_pass_ctx *X) {
    lower L = lower_begin(X);
    retarget_globals(&L);
    LLVMDisposeBuilder(L.B);
    return true;
}

bool amdgpu_pass_retarget_allocas(llvm_pass_ctx *X) {
    lower L = lower_begin(X);
    retarget_allocas(&L);
    LLVMDisposeBuilder(L.B);
    return true;
}

bool amdgpu_pass_lower_exit(llvm_pass_ctx *X) {
    lower L = lower_begin(X);
    lower_exit(&L);
    LLVMDisposeBuilder(L.B);
    return true;
}

bool amdgpu_pass_code_object_version(llvm_pass_ctx *X) {
    LLVMMetadataRef v = LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(X->C), 500, 0));
    LLVMAddModuleFlag(X->M, LLVMModuleFlagBehaviorError, "amdhsa_code_object_version", 26, v);
    return true;
}
