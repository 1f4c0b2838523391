/* spirv_target.h — the SPIR-V (OpenCL Kernel model) target: hooks for the shared LLVM emission, the module
 * lowering that runs after it, and the finishing step after LLVM's SPIR-V back end (docs/spirv.md). */
#ifndef P2N_SPIRV_TARGET_H
#define P2N_SPIRV_TARGET_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "ir.h"
#include "ptx2native.h"
#include "target.h"
#include "spirv_meta.h"
#include "error_record.h"
#include "../llvm/codegen.h"

extern const target_desc target_spirv64, target_spirv64_12; /* spirv_target.c */

extern const target_hooks spirv_hooks;
extern const char *const spirv_syncscopes[P2N_SCOPE_COUNT]; /* target_desc.syncscopes */

/* Declares (once) a SPIR-V built-in function; barriers and group/sub-group built-ins get `convergent` so the
 * optimiser never duplicates them into divergent paths (spirv_hooks.c). */
LLVMValueRef spirv_builtin(LLVMModuleRef M, const char *name, LLVMTypeRef ft);

/* LLVM's SPIR-V target (target_desc.init_llvm) and the process-global options it needs (--spirv-ext;
 * target_desc.llvm_options, parsed by codegen.c with every target's). */
void spirv_init_llvm(void);
extern const char *const spirv_llvm_options[];
/* LLVMTargetMachineEmitToMemoryBuffer for a SPIR-V module, run in a child process (spirv_codegen_child.c: LLVM 22's
 * SPIR-V back end keeps per-process state that corrupts later modules). False: *err (LLVMDisposeMessage). */
bool spirv_emit_isolated(LLVMTargetMachineRef TM, LLVMModuleRef M, LLVMCodeGenFileType type, char **err,
                         LLVMMemoryBufferRef *out);

/* After emit_module: the target's lowering list (spirv_target.c), in this order: function pointers as ids
 * (spirv_fnptr.c), the module's ABI markers (faults, heap, trap, gbuf), isspacep.local (spirv_private.c), OpenCL
 * kernel wrappers (PTX params as kernel arguments, the ctx the shared emission reads built from OpenCL builtins, a
 * __local window for .shared), trap markers (spirv_trap.c), the globals-address kernel (spirv_globals.c), the
 * fences around barriers (spirv_barrier.c), then checks for what SPIR-V cannot express (spirv_lower.c). The
 * kernels' parameter layouts, the shared window and the globals come from emission's description (emit.h
 * emit_desc); what one pass decides for a later one is module metadata (spirv_meta_find). False: diagnosed
 * (internal set when it is our bug). */
struct llvm_pass_ctx;
bool spirv_pass_fnptrs(struct llvm_pass_ctx *X);
bool spirv_pass_mark_module(struct llvm_pass_ctx *X);
bool spirv_pass_is_local(struct llvm_pass_ctx *X);
bool spirv_pass_kernel_wrappers(struct llvm_pass_ctx *X);
bool spirv_pass_traps(struct llvm_pass_ctx *X);
bool spirv_pass_globals(struct llvm_pass_ctx *X);
bool spirv_pass_drop_barrier_fences(struct llvm_pass_ctx *X);
bool spirv_pass_check_calls(struct llvm_pass_ctx *X);
/* The ABI strings of named metadata p2n.spirv ("kernel ...", "trap", "gbuf BYTES", ...; spirv_finish writes them
 * as OpModuleProcessed): spirv_add_meta appends one; spirv_meta_find: whether an entry is `key` or `key N`, N in
 * *value (value may be NULL) (spirv_lower.c). */
void spirv_add_meta(LLVMModuleRef M, const char *s);
bool spirv_meta_find(LLVMModuleRef M, const char *key, uint64_t *value);

/* P2N_LACKS_PROGRAM_GLOBALS (spirv_globals.c): the writable CrossWorkgroup globals live in one buffer the runtime
 * allocates per module (metadata "p2n:gbuf BYTES"), a trailing kernel argument kept in the ctx at SPIRV_CTX_GBUF.
 * spirv_globals_bytes: the buffer's size (0: nothing to move). spirv_relocate_globals: every use in a function of
 * the shared emission becomes base + offset; __p2n_globals(out, buf) gets the initial copy. False: diagnosed. */
uint64_t spirv_globals_bytes(LLVMModuleRef M, unsigned as_global);
bool spirv_relocate_globals(LLVMContextRef C, LLVMModuleRef M, unsigned as_global, p2n_diags *d);
/* The thread context argument of a function of the shared emission (kernel body or .func), else NULL. */
LLVMValueRef spirv_fn_ctx(LLVMValueRef fn);

/* trap / __assertfail / exit-from-.func (spirv_trap.c): the hooks call SPIRV_TRAP_MARKER(ctx, i32 code,
 * msg, file, i32 line, function); spirv_lower_traps (the spirv-traps pass) turns the markers into a write
 * of the launch's error record + an early return. The record is a hidden trailing kernel argument (metadata
 * "p2n:trap") that the wrapper keeps in the thread context at SPIRV_CTX_TRAP; SPIR-V work-items also have a
 * `dead` word at SPIRV_CTX_DEAD (both after host_abi.h's fields, of which SPIR-V code uses none past CTX_RT). */
#define SPIRV_TRAP_MARKER "__p2n_spirv_trap"
/* marker code of a kernel stubbed by --defer-unsupported (targets/llvm/defer_unsupported.c): the message operand
 * is the whole text ("kernel 'K': ... at file:line:col"); the runtime prints it and returns
 * CUDA_ERROR_NOT_SUPPORTED (codes 0 exit, 1 trap, 2 assert: above) */
#define SPIRV_TRAP_NOT_SUPPORTED P2N_REC_NOT_SUPPORTED
/* marker code of a failed null-page check (spirv_faults.c): the message operand is the address; the runtime
 * returns CUDA_ERROR_ILLEGAL_ADDRESS */
#define SPIRV_TRAP_ILLEGAL_ADDRESS P2N_REC_ILLEGAL_ADDRESS
/* marker code of a misaligned surface access (rt assertfail with char size P2N_ASSERT_MISALIGNED_ADDRESS,
 * spirv_hooks.c; an out-of-range .trap one takes code 4): the message operand is the address; the runtime
 * returns CUDA_ERROR_MISALIGNED_ADDRESS */
#define SPIRV_TRAP_MISALIGNED_ADDRESS P2N_REC_MISALIGNED_ADDRESS
/* marker code of an instruction NVIDIA refuses in this launch (rt assertfail with char size
 * P2N_ASSERT_ILLEGAL_INSTRUCTION: a shared::cluster async operation outside a cluster launch, emit_cluster.c): the
 * message operand names it; the runtime returns CUDA_ERROR_ILLEGAL_INSTRUCTION */
#define SPIRV_TRAP_ILLEGAL_INSTRUCTION P2N_REC_ILLEGAL_INSTRUCTION
/* the ctx launch_flags word (emit.h CTX_LAUNCH_FLAGS; spirv_hooks.c ctx_field): SPIRV_LAUNCH_MARKER(ctx) -> i32,
 * lowered with the trap markers to a load of the record's SPIRV_REC_LAUNCH_OFF word, which the runtime writes before
 * each launch; a module that reads it takes the record */
#define SPIRV_LAUNCH_MARKER "__p2n_spirv_launch_flags"
/* P2N_LACKS_FAULT_ISOLATION (spirv_faults.c): spirv-mark-module adds the named metadata SPIRV_FAULTS_MD and
 * the error record argument; after O2, spirv_check_faults (a pre_codegen pass, before the atomics are
 * lowered) makes global/generic loads, stores and atomics test their address against the null page: below 4096
 * the first one claims the record with code 4 and the access goes to a harmless block instead. Returns the
 * number of tests. */
#define SPIRV_FAULTS_MD "p2n.spirv.faults"
/* P2N_LACKS_SPACE_QUERY (spirv_private.c): RT_IS_LOCAL calls SPIRV_IS_LOCAL_MARKER(ctx, i64 address) -> i32;
 * spirv_lower_is_local (the spirv-is-local pass) answers it with the work-item's local window, ctx words
 * SPIRV_CTX_LOCAL_LO/HI, widened at each function's entry by its generic-cast allocas. */
#define SPIRV_IS_LOCAL_MARKER "__p2n_spirv_is_local"
void spirv_lower_is_local(LLVMContextRef C, LLVMModuleRef M, unsigned as_generic);
unsigned spirv_check_faults(LLVMModuleRef M, unsigned as_generic, unsigned as_global, unsigned as_shared);
enum { SPIRV_CTX_DEAD = 88, SPIRV_CTX_TRAP = 96, SPIRV_CTX_GBUF = 104, SPIRV_CTX_LOCAL_LO = 112,
       SPIRV_CTX_LOCAL_HI = 120, SPIRV_CTX_SIZE = 128 };
/* %clock/%clock64/%globaltimer: SPIRV_CLOCK_MARKER(ctx, i32 globaltimer) -> i64, lowered with the trap markers
 * to reads of counters in the error record (words 16..19, spirv_trap.c), so a module that reads them gets the
 * record argument too */
#define SPIRV_CLOCK_MARKER "__p2n_spirv_clock"
bool spirv_module_traps(LLVMModuleRef M); /* any trap or clock marker left to lower: the kernels take the record */
/* device malloc/free (spirv_heap.c): RT_MALLOC (ctx, size) / RT_FREE (ctx, p) become calls of the internal
 * functions SPIRV_HEAP_MALLOC / SPIRV_HEAP_FREE, built on first use, which find the heap through the error
 * record (its address at SPIRV_REC_HEAP_OFF, written by the runtime); a module that calls them is marked
 * "p2n:heap" and takes the record (spirv-mark-module, spirv_lower.c). */
struct emit_ctx;
#define SPIRV_HEAP_MALLOC "__p2n_heap_malloc"
#define SPIRV_HEAP_FREE "__p2n_heap_free"
LLVMValueRef spirv_heap_call(struct emit_ctx *E, bool is_malloc, LLVMValueRef *a);
bool spirv_module_heap(LLVMModuleRef M);
void spirv_lower_traps(LLVMContextRef C, LLVMModuleRef M);
/* Moves the instructions after I into a new block placed after I's (successor phis updated); I's block is left
 * without a terminator for the caller to finish. */
/* llvm_split_after (targets/llvm/codegen.h) splits a block after an instruction */
/* Function pointers as small integer ids, indirect calls as switches over the address-taken functions
 * (spirv_fnptr.c); runs before spirv_lower_traps (unknown ids trap). False: a call of an unexpected type. */
bool spirv_lower_fnptrs(LLVMContextRef C, LLVMModuleRef M);

/* The one gate for operations that exchange data between the lanes of a warp (shuffle, vote, ballot,
 * activemask, match, redux, elect, ldmatrix/stmatrix, mma fragments, bar.warp.sync): they need sub-groups of
 * 32 work-items. True when the device has them (p2n_options.device_lacks without P2N_LACKS_SUBGROUPS); false
 * after diagnosing `what` as unsupported (deferred to launch under --defer-unsupported) — the caller then
 * returns an undefined value (spirv_subgroups.c). */
struct emit_ctx;
bool spirv_needs_subgroups(struct emit_ctx *E, const char *what);

/* printf (spirv_printf.c): the vprintf hook calls SPIRV_VPRINTF_MARKER(format, args) -> i32; after O2,
 * spirv_lower_printf (a pre_codegen pass) makes OpenCL printf calls of it. False: diagnosed. */
#define SPIRV_VPRINTF_MARKER "__p2n_spirv_vprintf"
bool spirv_lower_printf(LLVMModuleRef M, const target_desc *t, p2n_diags *d);
/* Removes OpExtension "SPV_EXT_relaxed_printf_string_address_space" from a module (in place; returns the new word
 * count). LLVM 22 adds it when its printf check reads another function's register types (spirv_printf.c); every
 * format we emit is UniformConstant, which spirv-val then checks without the extension. */
size_t spirv_drop_printf_ext(uint32_t *words, size_t nwords);

/* After optimisation, before the SPIR-V back end (spirv_lower.c): the target's pre_codegen passes, in this order
 * (spirv_target.c), for what the back end would abort on or cannot select. False: diagnosed. */
struct llvm_pass_ctx;
bool spirv_pass_lower_printf(struct llvm_pass_ctx *X);
bool spirv_pass_check_faults(struct llvm_pass_ctx *X);
bool spirv_pass_legalize(struct llvm_pass_ctx *X);
bool spirv_pass_expand(struct llvm_pass_ctx *X);
bool spirv_pass_lower_atomics(struct llvm_pass_ctx *X);
bool spirv_pass_legalize_odd_ints(struct llvm_pass_ctx *X);
bool spirv_pass_remat(struct llvm_pass_ctx *X);
bool spirv_pass_check_ints(struct llvm_pass_ctx *X); /* integers wider than 64 bits; verifies the module */

/* A pre_codegen pass: i128 multiplies back to i64 pieces, overflow intrinsics and pointer compares
 * to plain integer code (spirv_legalize.c). */
void spirv_legalize(LLVMModuleRef M);
/* A pre_codegen pass: a constant-count array alloca as an alloca of an array type; false for a
 * run-time count (spirv_legalize.c). */
bool spirv_static_alloca(LLVMValueRef I);
/* A pre_codegen pass: integers of widths other than 1/8/16/32/64 carried in i64 (spirv_legalize.c);
 * false when some use needs bits the i64 cannot hold (the caller diagnoses what remains). */
bool spirv_legalize_odd_ints(LLVMModuleRef M);
/* A pre_codegen pass: pure address arithmetic that O2 hoisted across a work-group barrier is
 * recomputed after it, so CPU runtimes (PoCL) need no per-work-item copy of it (spirv_remat.c). */
void spirv_remat_across_barriers(LLVMModuleRef M);

/* A pre_codegen pass: atomicrmw/cmpxchg/fence -> __spirv_* calls with scope and storage-class
 * semantics (spirv_atomics.c). False: diagnosed. */
bool spirv_lower_atomics(LLVMModuleRef M, const target_desc *t, p2n_diags *d);

/* After code generation: adds the p2n metadata strings (OpModuleProcessed), validates the module with
 * SPIRV-Tools in process; invalid output is an internal error and is never returned. */
p2n_status spirv_finish(LLVMModuleRef M, const target_desc *t, const char *bytes, size_t n, p2n_diags *d,
                        uint8_t **data, size_t *size);

/* Validates a SPIR-V binary (SPIRV-Tools, env from the module version: spv1.4 / opencl2.2 for <= 1.2).
 * Returns true when valid; else a malloc'd message in *msg. */
bool spirv_validate(const uint32_t *words, size_t nwords, char **msg);

#endif
