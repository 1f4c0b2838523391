/* spirv_target.h — the SPIR-V (OpenCL Kernel model) target: hooks for the shared LLVM emission, the module
 * lowering that runs after it, and the finishing step after LLVM's SPIR-V back end (docs/spirv.md). */
#ifndef P2N_SPIRV_TARGET_H
#define P2N_SPIRV_TARGET_H

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "ir.h"
#include "ptx2native.h"
#include "target.h"
#include "spirv_meta.h"

extern const target_hooks spirv_hooks;

/* LLVM's SPIR-V target + its cl::opts (--spirv-ext); called once from codegen's init. */
void spirv_init_llvm(void);

/* After emit_module: OpenCL kernel wrappers (PTX params as kernel arguments, the ctx the shared emission
 * reads built from OpenCL builtins, a __local window for .shared), fences as __spirv_MemoryBarrier, the
 * globals-address kernel, and checks for what SPIR-V cannot express. False: diagnosed (internal set when
 * it is our bug). */
bool spirv_lower_module(LLVMContextRef C, LLVMModuleRef M, const ir_module *m, const target_desc *t,
                        p2n_diags *d, bool *internal);

/* After optimisation, before the SPIR-V back end: false (diagnosed) if the module holds what the back end
 * would abort on (integers wider than 64 bits). */
bool spirv_check_module(LLVMModuleRef M, const target_desc *t, p2n_diags *d);

/* After code generation: adds the p2n metadata strings (OpModuleProcessed), validates the module with
 * SPIRV-Tools in process; invalid output is an internal error and is never returned. */
p2n_status spirv_finish(LLVMModuleRef M, const target_desc *t, const char *bytes, size_t n, p2n_diags *d,
                        uint8_t **data, size_t *size);

/* Validates a SPIR-V binary (SPIRV-Tools, env from the module version: spv1.4 / opencl2.2 for <= 1.2).
 * Returns true when valid; else a malloc'd message in *msg. */
bool spirv_validate(const uint32_t *words, size_t nwords, char **msg);

#endif
