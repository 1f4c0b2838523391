/* host_target.c — the host target's entries (x86-64, the CPU runtime) and its calls: LLVM's X86 target, the
 * recursion transform's trap (rt->trap), the pass lists and the link (lld). */
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include "codegen.h"
#include "container.h"
#include "emit.h"
#include "host_coro.h"
#include "work_item_loops.h"
#include "drop_fallback_entries.h"
#include "host_emit.h"
#include "host_target.h"

static void host_init_llvm(void) {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
}

/* rt->trap(ctx): unwinds the thread's fiber and fails the launch */
static void host_build_trap(LLVMBuilderRef B, LLVMModuleRef M, LLVMValueRef ctx) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMTypeRef vd = LLVMVoidTypeInContext(C), pt = LLVMTypeOf(ctx), i8 = LLVMInt8TypeInContext(C);
    LLVMValueRef o = LLVMConstInt(LLVMInt64TypeInContext(C), CTX_RT, 0);
    LLVMValueRef rt = LLVMBuildLoad2(B, pt, LLVMBuildGEP2(B, i8, ctx, &o, 1, ""), "");
    o = LLVMConstInt(LLVMInt64TypeInContext(C), 8 + 8 * RT_TRAP, 0);
    LLVMValueRef fn = LLVMBuildLoad2(B, pt, LLVMBuildGEP2(B, i8, rt, &o, 1, ""), "");
    LLVMTypeRef ft = LLVMFunctionType(vd, &pt, 1, 0);
    LLVMBuildCall2(B, ft, fn, &ctx, 1, "");
}

/* Host objects are linked --no-undefined and import nothing: keep the optimiser from turning loops into
 * memset/memcpy calls (loop idiom recognition, e.g. in the thread-loop entries of host_entries.c). */
static bool host_forbid_libcalls(llvm_pass_ctx *X) {
    for (LLVMValueRef f = LLVMGetFirstFunction(X->M); f; f = LLVMGetNextFunction(f))
        if (!LLVMIsDeclaration(f))
            LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                    LLVMCreateStringAttribute(X->C, "no-builtins", 11, "", 0));
    return true;
}

static int host_finish(const target_desc *t, LLVMModuleRef M, const void *const *objs, const size_t *lens,
                       unsigned nobj, p2n_diags *d, uint8_t **data, size_t *size) {
    (void)M;
    return llvm_link(t, objs, lens, nobj, d, data, size) ? P2N_OK : P2N_INTERNAL_ERROR;
}

static const llvm_pass host_lower[] = {
    {"eliminate-recursion", llvm_pass_eliminate_recursion, false},
    {"make-coroutines", host_pass_make_coroutines, false},
    {"form-work-item-loops", host_pass_form_work_item_loops, false},
    {"drop-fallback-entries", host_pass_drop_fallback_entries, false},
    {NULL, NULL, false},
};
static const llvm_pass host_pre_opt[] = {
    {"forbid-libcalls", host_forbid_libcalls, false},
    {NULL, NULL, false},
};
static const llvm_pass host_pre_codegen[] = {
    {"define-memfns", host_define_memfns, false},
    {NULL, NULL, false},
};

#define HOST_COMMON                                                                                          \
    .triple = "x86_64-pc-linux-gnu", .cpu = "x86-64-v2", .wave_size = 32, .code_kind = P2N_CODE_HOST_ELF,   \
    .ready = true, .as_global = 0, .as_shared = 0, .as_local = 0, .as_const = 0, .as_generic = 0,            \
    .ptr_as = 0, .generic_is_global = true, .smem_in_ctx = true, .rt_table = true, .host_descriptor = true, .f64_nan_out_of_line = true,  \
    .device_runtime = true,                                                                                  \
    .atomic_b128_native = true, .syncscopes = NULL,                                                          \
    .split_kernels = true, .init_llvm = host_init_llvm, .build_trap = host_build_trap, .lower = host_lower,  \
    .pre_opt = host_pre_opt, .pre_codegen = host_pre_codegen, .finish = host_finish

const target_desc target_host = {
    .name = "host",
    .description = "x86-64 CPU (the CPU runtime)",
    .hooks = &host_hooks,
    HOST_COMMON,
};

const target_desc target_host_native = {
    .name = "host-native",
    .description = "x86-64 CPU this process runs on (not portable)",
    /* code for the CPU this process runs on (host CPU name and features as function attributes, host_hooks.c);
     * the JIT of the driver stub uses it, AOT output stays portable unless asked (docs/architecture.md) */
    .hooks = &host_native_hooks,
    HOST_COMMON,
};
