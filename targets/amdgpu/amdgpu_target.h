/* amdgpu_target.h — the AMDGPU target (HSA code objects, COV5): hooks for the shared LLVM emission and the
 * module lowering that runs after it (docs/amdgpu.md). */
#ifndef P2N_AMDGPU_TARGET_H
#define P2N_AMDGPU_TARGET_H

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/TargetMachine.h>
#include <stdbool.h>

#include "diag.h"
#include "ir.h"
#include "target.h"

extern const target_desc target_gfx90a, target_gfx942, target_gfx950, target_gfx1030, target_gfx1100,
    target_gfx1101, target_gfx1102, target_gfx1200, target_gfx1201; /* amdgpu_target.c */

extern const target_hooks amdgpu_hooks;
/* PTX scope -> AMDGPU syncscope: .cta workgroup, .cluster and .gpu agent (a cluster is one CTA here, but
 * agent stays correct if clusters ever span workgroups), .sys system */
extern const char *const amdgpu_syncscopes[P2N_SCOPE_COUNT];

/* LLVM's AMDGPU target; called once from codegen's init. */
void amdgpu_init_llvm(void);

/* After emit_module (host model: ctx + runtime calls replaced by the hooks): the target's lowering list
 * (amdgpu_target.c), in this order: the AMDGPU data layout, printf markers as ockl calls (amdgpu_printf.c), no ctx
 * where no device function reads it, amdgpu_kernel wrappers whose explicit kernel arguments are the PTX parameter
 * buffer (the ctx built from the dispatch packet, LDS for .shared), the host-only globals dropped, the device
 * libraries linked (amdgpu_devlibs.c), IEEE denormals, globals in addrspace(1), allocas in addrspace(5), kernel
 * exit as a return, the COV5 module flag (amdgpu_lower.c). False: diagnosed (internal set when it is our bug). */
struct llvm_pass_ctx;
bool amdgpu_pass_data_layout(struct llvm_pass_ctx *X);
bool amdgpu_pass_lower_printf(struct llvm_pass_ctx *X);
bool amdgpu_pass_drop_unread_ctx(struct llvm_pass_ctx *X);
bool amdgpu_pass_kernel_wrappers(struct llvm_pass_ctx *X);
bool amdgpu_pass_drop_host_globals(struct llvm_pass_ctx *X);
bool amdgpu_pass_link_devlibs(struct llvm_pass_ctx *X);
bool amdgpu_pass_fp_env(struct llvm_pass_ctx *X);
bool amdgpu_pass_retarget_globals(struct llvm_pass_ctx *X);
bool amdgpu_pass_retarget_allocas(struct llvm_pass_ctx *X);
bool amdgpu_pass_lower_exit(struct llvm_pass_ctx *X);
bool amdgpu_pass_code_object_version(struct llvm_pass_ctx *X);

/* After the optimiser (codegen.c): a kernel's private copy of kernarg bytes (nvcc's .local copy of a by-value
 * struct parameter it indexes dynamically) is read from the kernarg segment instead of scratch. */
void amdgpu_forward_kernarg_copies(LLVMModuleRef M);

/* After the optimiser: an internal function's out-pointer return value (the emission's `.param` return buffer)
 * is returned in registers when that is exactly equivalent (amdgpu_retval.c); runs SROA & co. if it changed
 * anything. */
LLVMErrorRef amdgpu_return_values_in_registers(LLVMModuleRef M, LLVMTargetMachineRef TM);

/* volatile loads/stores of shared memory through their LDS pointer (amdgpu_volatile_lds.c), after the optimiser */
bool amdgpu_volatile_lds_pass(struct llvm_pass_ctx *X);
/* a divergent lane's trap where the lane reaches it, not after the rest of the function (amdgpu_trap_in_place.c),
 * after the optimiser */
bool amdgpu_trap_in_place_pass(struct llvm_pass_ctx *X);
/* amdgpu_report_errors.c: a trapping, asserting or faulting lane reports into the module's error record
 * (abi/error_record.h) and its wave ends. The hooks and build_trap call amd_build_error_report (the marker
 * AMD_ERROR_MARKER, noreturn; msg/file/func NULL: none, line NULL: 0); amdgpu_define_error_record defines the
 * record (before the bodies); amd_module_reports_errors: some marker call is left; amdgpu_report_errors_pass
 * (after the optimiser, after amdgpu-trap-in-place) lowers the markers. */
#define AMD_ERROR_MARKER "__p2n_amd_error"
/* amd_build_abort_check: a poll of a wait (the RT_YIELD hook) ends the wave once the grid has failed */
#define AMD_ABORT_CHECK_MARKER "__p2n_amd_abort_check"
void amd_build_abort_check(LLVMBuilderRef B, LLVMModuleRef M);
void amd_build_error_report(LLVMBuilderRef B, LLVMModuleRef M, LLVMValueRef code, LLVMValueRef msg, LLVMValueRef file,
                            LLVMValueRef line, LLVMValueRef func);
bool amd_is_error_marker(LLVMValueRef callee);
bool amd_module_reports_errors(LLVMModuleRef M);
void amdgpu_define_error_record(LLVMModuleRef M);
bool amdgpu_report_errors_pass(struct llvm_pass_ctx *X);
/* amdgpu_bound_schedule_regions.c: a scheduling boundary every few hundred instructions of a long block */
bool amdgpu_bound_schedule_regions_pass(struct llvm_pass_ctx *X);
#endif
