/* codegen.h — the LLVM half of p2n_compile(): emission, verification, optimisation, code generation, link. */
#ifndef P2N_CODEGEN_H
#define P2N_CODEGEN_H

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/TargetMachine.h>
#include <stdbool.h>

#include "diag.h"
#include "ir.h"
#include "ptx2native.h"
#include "target.h"

/* Takes ownership of C and M. times (optional): [0] optimisation, [1] code generation, [2] link, seconds. */
struct llvm_early_workers; /* below */
p2n_status llvm_codegen(LLVMContextRef C, LLVMModuleRef M, const target_desc *t, const p2n_options *opt,
                        struct llvm_early_workers *early, p2n_diags *d, uint8_t **data, size_t *size,
                        double *times);

/* Threads for per-kernel parallel code generation: opt->jobs, else $P2N_JOBS, else 1 (negative: CPUs). */
unsigned llvm_jobs(const p2n_options *opt);
/* A process-global LLVM option a target needs (target_desc.llvm_options), before the first compilation (compile.c) */
void llvm_add_global_option(const char *opt);
bool llvm_jobs_automatic(const p2n_options *opt); /* "one per CPU" (the command line's default) */

/* Thread-safe (own TargetMachine; M must be alone in its context): the new-PM pipeline for opt->opt_level,
 * then an object file. times: [0] optimisation, [1] code generation. */
bool llvm_opt_emit(LLVMModuleRef M, const target_desc *t, const p2n_options *opt, LLVMMemoryBufferRef *obj,
                   char *err, size_t errlen, double times[2]);

/* Links relocatable objects into the target's shared object / code object (in-process lld). */
bool llvm_link(const target_desc *t, const void *const *objs, const size_t *lens, unsigned nobj, p2n_diags *d,
               uint8_t **data, size_t *size);

/* -j N (parallel.c): the threads that will compile partitions 1.. start before the caller emits the module and
 * emit their own copy (emit: a fresh context and module, identical item for item to the caller's), so that no
 * partition waits for a bitcode write and read of the whole module. NULL when no split can happen (one thread
 * or kernel, text output, SPIR-V). The caller hands the workers to llvm_codegen, then calls llvm_early_finish
 * (which also stops them if no split was made) before it frees what emit reads. */
typedef bool (*llvm_emit_fn)(void *ctx, LLVMContextRef *C, LLVMModuleRef *M);
typedef struct llvm_early_workers llvm_early_workers;
llvm_early_workers *llvm_early_start(const target_desc *t, const p2n_options *opt, unsigned nkernels,
                                     llvm_emit_fn emit, void *ctx);
void llvm_early_stop(llvm_early_workers *h); /* no split after all: the copies go now (memory) */
void llvm_early_finish(llvm_early_workers *h);

struct split_plan;
/* parallel.c: the -j N path of llvm_codegen (C, M verified, plan made on M). Takes ownership of C and M.
 * early: NULL, or the workers that emitted copies (else partitions 1.. read a bitcode copy of M). */
p2n_status llvm_codegen_parallel(LLVMContextRef C, LLVMModuleRef M, const struct split_plan *plan,
                                 const target_desc *t, const p2n_options *opt, llvm_early_workers *early,
                                 p2n_diags *d, uint8_t **data, size_t *size, double *times);

/* rewrite_addr.c: SROA, then every inttoptr(i64) address as a GEP from one inttoptr per root value, so that
 * LLVM sees base + offset (integer address arithmetic hides strides from SCEV); verified in P2N_VERIFY_PASSES
 * builds. The optimisation function runs it first at -O1 and above. NULL, or the error. */
LLVMErrorRef llvm_rewrite_addrs(LLVMModuleRef M, LLVMTargetMachineRef TM);
/* split_block.c: everything after I moves to a new block (returned); I's block is left unterminated */
LLVMBasicBlockRef llvm_split_after(LLVMContextRef C, LLVMBuilderRef B, LLVMValueRef I);
/* Splits fn's blocks (not the entry block) into runs of at most max instructions, for mem2reg's sake (split_block.c) */
bool llvm_split_long_blocks(LLVMContextRef C, LLVMBuilderRef B, LLVMValueRef fn, unsigned max);
/* llvm_split_long_blocks' length for every target before promotion */
enum { LLVM_LONG_BLOCK = 4096 };

#endif
