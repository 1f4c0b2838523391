/* spirv_target.c — the SPIR-V targets' entries (OpenCL Kernel model; docs/spirv.md) and their calls: the
 * recursion transform's trap (the error-record marker), the pass lists, code generation in a child process and
 * the finishing step (metadata strings, validation). */
#include <llvm-c/Core.h>

#include "container.h"
#include "emit.h"
#include "llvm_pass.h"
#include "spirv_target.h"

/* the marker of spirv_trap.c: code 1 = trap */
static void spirv_build_trap(LLVMBuilderRef B, LLVMModuleRef M, LLVMValueRef ctx) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMTypeRef vd = LLVMVoidTypeInContext(C), pt = LLVMTypeOf(ctx), i32 = LLVMInt32TypeInContext(C);
    LLVMTypeRef at[6] = {pt, i32, pt, pt, i32, pt};
    LLVMTypeRef ft = LLVMFunctionType(vd, at, 6, 0);
    LLVMValueRef nul = LLVMConstNull(pt);
    LLVMValueRef a[6] = {ctx, LLVMConstInt(i32, 1, 0), nul, nul, LLVMConstInt(i32, 0, 0), nul};
    LLVMBuildCall2(B, ft, spirv_builtin(M, SPIRV_TRAP_MARKER, ft), a, 6, "");
}

/* in a child process, so that the back end's per-process state never sees two modules */
static bool spirv_emit_object(LLVMTargetMachineRef TM, LLVMModuleRef M, int type, char **err,
                              LLVMMemoryBufferRef *out) {
    return spirv_emit_isolated(TM, M, (LLVMCodeGenFileType)type, err, out);
}

static int spirv_finish_target(const target_desc *t, LLVMModuleRef M, const void *const *objs, const size_t *lens,
                               unsigned nobj, p2n_diags *d, uint8_t **data, size_t *size) {
    (void)nobj; /* never split (split_kernels false) */
    return spirv_finish(M, t, objs[0], lens[0], d, data, size); /* metadata, in-process validation */
}

/* the emitted module -> an OpenCL SPIR-V module (spirv_lower.c says what each pass does and why this order) */
static const llvm_pass spirv_lower[] = {
    {"eliminate-recursion", llvm_pass_eliminate_recursion, false},
    {"spirv-fnptrs", spirv_pass_fnptrs, false},
    {"spirv-mark-module", spirv_pass_mark_module, false},
    {"spirv-is-local", spirv_pass_is_local, false},
    {"spirv-kernel-wrappers", spirv_pass_kernel_wrappers, false},
    {"spirv-traps", spirv_pass_traps, false},
    {"spirv-globals", spirv_pass_globals, false},
    {"spirv-drop-barrier-fences", spirv_pass_drop_barrier_fences, false},
    {"spirv-check-calls", spirv_pass_check_calls, false},
    {NULL, NULL, false},
};
/* after O2: OpenCL printf calls, null-page checks (P2N_LACKS_FAULT_ISOLATION), legalisation, expansions, atomics
 * as __spirv_* calls, recomputation across barriers, then what the back end would abort on (spirv_lower.c) */
static const llvm_pass spirv_pre_codegen[] = {
    {"spirv-lower-printf", spirv_pass_lower_printf, false},
    {"spirv-check-faults", spirv_pass_check_faults, false},
    {"spirv-legalize", spirv_pass_legalize, false},
    {"spirv-expand", spirv_pass_expand, false},
    {"spirv-lower-atomics", spirv_pass_lower_atomics, false},
    {"spirv-legalize-odd-ints", spirv_pass_legalize_odd_ints, false},
    {"spirv-remat", spirv_pass_remat, false},
    {"spirv-check-ints", spirv_pass_check_ints, false},
    {NULL, NULL, false},
};

/* as_local is the Function class (0); smem_in_ctx: .shared addresses are offsets into one Workgroup window (a
 * __local kernel argument); see spirv_lower.c and docs/spirv.md. Recursion: OpenCL forbids it and PoCL 3.1
 * crashes building a module with a recursive function. no_slp_vectorizer: a SPIR-V kernel describes one
 * work-item, and every consumer compiles it again for its device — PoCL vectorises across work-items, Intel's
 * IGC scalarises vectors into SIMD lanes — so vectors made of one work-item's straight-line code buy nothing
 * there, while the SLP vectoriser took 2/3 of the optimiser's time on cuFFT's unrolled PTX
 * (bench/compile-speed/RESULTS.md) and once made 32-lane trees the back end cannot emit (-slp-max-vf=16). */
#define SPIRV_COMMON                                                                                         \
    .cpu = "", .wave_size = 32, .code_kind = P2N_CODE_SPIRV, .ready = true,                                  \
    .always_lacks = P2N_LACKS_RECURSION, .as_global = 1, .as_shared = 3, .as_local = 0, .as_const = 1,       \
    .as_generic = 4, .ptr_as = 4, .module_vars_in_global_as = true, .smem_in_ctx = true,                     \
    .split_b128_memory = true, .no_masked_load = true, .fma_f32_call = "_Z3fmafff", .f64_nan_out_of_line = true, .hooks = &spirv_hooks, .syncscopes = spirv_syncscopes, \
    .codegen_o0 = true, .no_slp_vectorizer = true,                                                           \
    .init_llvm = spirv_init_llvm, .llvm_options = spirv_llvm_options, .build_trap = spirv_build_trap, .lower = spirv_lower,                      \
    .pre_codegen = spirv_pre_codegen, .emit_object = spirv_emit_object, .finish = spirv_finish_target

const target_desc target_spirv64 = {
    .name = "spirv64",
    .description = "OpenCL SPIR-V 1.4 (Intel GPUs via Level Zero/OpenCL)",
    .triple = "spirv64v1.4-unknown-unknown",
    .spirv_version = 0x10400,
    SPIRV_COMMON,
};

const target_desc target_spirv64_12 = {
    .name = "spirv64-1.2",
    .description = "OpenCL SPIR-V 1.2 (older Intel drivers; SPV_INTEL_subgroups)",
    .triple = "spirv64v1.2-unknown-unknown",
    .spirv_version = 0x10200,
    SPIRV_COMMON,
};
