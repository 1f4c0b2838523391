/* amdgpu_target.c — the AMDGPU targets' entries (HSA code objects, COV5; docs/amdgpu.md) and their calls: the
 * recursion transform's trap (an error report, amdgpu_report_errors.c), the pass lists and the link with the
 * metadata-note merge. */
#include <llvm-c/Core.h>
#include <stdlib.h>

#include "amdgpu_target.h"
#include "codegen.h"
#include "error_record.h"
#include "container.h"
#include "llvm_pass.h"
#include "note_merge.h"

/* a stack overflow of the recursion transform: CUDA_ERROR_LAUNCH_FAILED, as a trap */
static void amdgpu_build_trap(LLVMBuilderRef B, LLVMModuleRef M, LLVMValueRef ctx) {
    (void)ctx;
    LLVMValueRef code = LLVMConstInt(LLVMInt32TypeInContext(LLVMGetModuleContext(M)), P2N_REC_TRAP, 0);
    amd_build_error_report(B, M, code, NULL, NULL, NULL, NULL);
}

static bool amdgpu_forward_kernarg_pass(llvm_pass_ctx *X) {
    if (X->opt->opt_level > 0) amdgpu_forward_kernarg_copies(X->M);
    return true;
}

static bool amdgpu_retval_pass(llvm_pass_ctx *X) {
    if (X->opt->opt_level > 0) X->error = amdgpu_return_values_in_registers(X->M, X->TM);
    return !X->error;
}

/* objects of a -j split each carry a metadata note: merged into one after linking */
static int amdgpu_finish(const target_desc *t, LLVMModuleRef M, const void *const *objs, const size_t *lens,
                         unsigned nobj, p2n_diags *d, uint8_t **data, size_t *size) {
    (void)M;
    if (!llvm_link(t, objs, lens, nobj, d, data, size)) return P2N_INTERNAL_ERROR;
    if (nobj > 1 && !amdgpu_merge_metadata_notes(*data, *size)) {
        diag_plain(d, "error", "internal compiler error: cannot merge the AMDGPU metadata notes of %u objects", nobj);
        free(*data);
        *data = NULL;
        return P2N_INTERNAL_ERROR;
    }
    return P2N_OK;
}

/* the emitted module -> an AMDGPU module (amdgpu_lower.c). The emission's allocas are in address space 0, which
 * the verifier refuses in an amdgcn module ("alloca on amdgpu must be in addrspace(5)"): the module is valid only
 * once amdgpu-retarget-allocas has moved them (the recursion transform's included), so the passes before it are
 * unverified. The order matters: printf before the device libraries (ockl), the libraries before the FP
 * attributes (which cover their code), the data layout before everything that builds allocas. */
static const llvm_pass amdgpu_lower[] = {
    {"eliminate-recursion", llvm_pass_eliminate_recursion, true},
    {"amdgpu-data-layout", amdgpu_pass_data_layout, true},
    {"amdgpu-lower-printf", amdgpu_pass_lower_printf, true},
    {"amdgpu-drop-unread-ctx", amdgpu_pass_drop_unread_ctx, true},
    {"amdgpu-kernel-wrappers", amdgpu_pass_kernel_wrappers, true},
    {"amdgpu-drop-host-globals", amdgpu_pass_drop_host_globals, true},
    {"amdgpu-link-devlibs", amdgpu_pass_link_devlibs, true},
    {"amdgpu-fp-env", amdgpu_pass_fp_env, true},
    {"amdgpu-retarget-globals", amdgpu_pass_retarget_globals, true},
    {"amdgpu-retarget-allocas", amdgpu_pass_retarget_allocas, false},
    {"amdgpu-lower-exit", amdgpu_pass_lower_exit, false},
    {"amdgpu-code-object-version", amdgpu_pass_code_object_version, false},
    {NULL, NULL, false},
};
static const llvm_pass amdgpu_post_opt[] = {
    {"amdgpu-forward-kernarg-copies", amdgpu_forward_kernarg_pass, false},
    {"amdgpu-return-values-in-registers", amdgpu_retval_pass, false},
    {"amdgpu-volatile-lds", amdgpu_volatile_lds_pass, false},
    {"amdgpu-trap-in-place", amdgpu_trap_in_place_pass, false},
    {"amdgpu-report-errors", amdgpu_report_errors_pass, false},
    {"amdgpu-bound-schedule-regions", amdgpu_bound_schedule_regions_pass, false},
    {NULL, NULL, false},
};

/* Process-global LLVM options. The back end's "scalar IR passes" (separate constant offsets from GEPs, straight-line
 * strength reduction, n-ary reassociation, two GVN/EarlyCSE rounds) cost ~10 % of a compile (SLSR alone 6-9 % on
 * bench/compile-speed's many_kernels) and change nothing in our code: addresses reach the back end as GEPs with
 * their constant offsets already folded (rewrite_addr.c + the O2/O3 pipeline), and the instruction counts of
 * bench/amdgpu-quality (47 kernels) and the compile-speed modules stay within +-1 % (bench/compile-speed/RESULTS.md).
 * "-amdgpu-scalar-ir-passes=true" in $P2N_LLVM_ARGS measures against LLVM's default. */
static const char *const amdgpu_llvm_options[] = {"-amdgpu-scalar-ir-passes=false", NULL};

/* "-trap-handler": llvm.trap compiles to an s_endpgm the wave takes where any lane reaches it, instead of s_trap,
 * which HSA's trap handler turns into the end of the process; every llvm.trap is an error report's
 * (amdgpu_report_errors.c), so the runtime learns why the wave ended */
#define AMDGPU_COMMON                                                                                        \
    .triple = "amdgcn-amd-amdhsa", .features = "-trap-handler", .code_kind = P2N_CODE_AMDGPU_HSACO,          \
    .ready = true, .as_global = 0, .as_shared = 1, .as_local = 3, .as_const = 5, .as_generic = 4,            \
    .ptr_as = 0, .smem_in_ctx = true, .smem_per_kernel = true, .host_descriptor = true,                      \
    .fp_atomics_native_ok = true, .hooks = &amdgpu_hooks, .syncscopes = amdgpu_syncscopes,                   \
    .split_kernels = true, .init_llvm = amdgpu_init_llvm, .llvm_options = amdgpu_llvm_options,               \
    .build_trap = amdgpu_build_trap, .lower = amdgpu_lower, .post_opt = amdgpu_post_opt,                     \
    .finish = amdgpu_finish

const target_desc target_gfx90a = {.name = "gfx90a", .cpu = "gfx90a", .wave_size = 64,
                                   .description = "AMD CDNA2 (MI200), wave64", AMDGPU_COMMON};
const target_desc target_gfx942 = {.name = "gfx942", .cpu = "gfx942", .wave_size = 64,
                                   .description = "AMD CDNA3 (MI300), wave64", AMDGPU_COMMON};
const target_desc target_gfx950 = {.name = "gfx950", .cpu = "gfx950", .wave_size = 64,
                                   .description = "AMD CDNA4 (MI350), wave64", AMDGPU_COMMON};
/* RDNA: default<O3> without the SLP vectoriser. RDNA has no packed f32 or 64-bit VALU operations (CDNA's v_pk_fma_f32,
 * v_pk_mov_b32), so SLP trees buy it almost nothing, and the pass was the largest single cost of compiling real
 * modules (26 % of cuFFT's libcufft.so.5546 for gfx1100). Without it: compile time 25-50 % lower on the toolkit
 * corpus's modules, instruction counts within -1..+5 % there and bench/amdgpu-quality's 55 kernels unchanged but for
 * one 1 % smaller (bench/compile-speed/RESULTS.md, twenty-second session). CDNA keeps it: +11-12 % instructions
 * without it (the packed f32 forms). */
#define AMDGPU_RDNA AMDGPU_COMMON, .wave_size = 32, .no_slp_vectorizer = true
const target_desc target_gfx1030 = {.name = "gfx1030", .cpu = "gfx1030", .description = "AMD RDNA2, wave32",
                                    AMDGPU_RDNA};
const target_desc target_gfx1100 = {.name = "gfx1100", .cpu = "gfx1100", .description = "AMD RDNA3, wave32",
                                    AMDGPU_RDNA};
const target_desc target_gfx1101 = {.name = "gfx1101", .cpu = "gfx1101", .description = "AMD RDNA3, wave32",
                                    AMDGPU_RDNA};
const target_desc target_gfx1102 = {.name = "gfx1102", .cpu = "gfx1102", .description = "AMD RDNA3, wave32",
                                    AMDGPU_RDNA};
const target_desc target_gfx1200 = {.name = "gfx1200", .cpu = "gfx1200", .description = "AMD RDNA4, wave32",
                                    AMDGPU_RDNA};
const target_desc target_gfx1201 = {.name = "gfx1201", .cpu = "gfx1201", .description = "AMD RDNA4, wave32",
                                    AMDGPU_RDNA};
