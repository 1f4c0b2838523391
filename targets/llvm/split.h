/* split.h — per-kernel partitioning of an LLVM module for parallel optimisation + code generation.
 *
 * llvm-c has no SplitModule, so the plan is made here with the C API. Every defined global value is one of:
 *   root    a kernel (an externally visible function, or one the host descriptor __p2n_kernels lists):
 *           defined in exactly one partition;
 *   dup     internal helpers only ever called directly, unnamed_addr internal constants, and (AMDGPU) LDS
 *           variables: copied into every partition that reaches them, keeping their local linkage — a
 *           helper then inlines exactly as in the whole module, and LDS is per kernel anyway;
 *   single  everything else (mutable globals, __p2n_rt, the host descriptor): defined in exactly one
 *           partition (the first that reaches it, partition 0 if none does) and declared in the others.
 * A local root/single referenced from another partition is promoted to external + hidden, so the linked
 * object's dynamic symbols (kernels, globals, __p2n_module) are those of the serial compile.
 *
 * Kernels sharing most of their code (a helper at least half the size of either) stay together, so that no
 * partition repeats the serial compile's work on it; the others are spread longest first (LPT), and the
 * partitions are numbered by decreasing estimated load.
 *
 * The plan is made on the caller's module (which it may rename/promote), which is then written to bitcode
 * once (parallel.c); the caller cuts its own module to partition 0, each other partition reads the bitcode
 * lazily into its own LLVMContext and calls split_apply() for its part. */
#ifndef P2N_SPLIT_H
#define P2N_SPLIT_H

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stdint.h>

#include "target.h"

typedef struct split_plan {
    unsigned nparts, nitems;  /* items: global variables, then functions, in module order */
    double gain;              /* estimated speed-up on idle cores (split_plan_make's model), for -v */
    uint8_t *define;          /* nparts * nitems: 1 = this partition keeps the definition */
    char **names;             /* item names, checked against the parsed copy (order must match) */
    uint8_t *promote;         /* nitems: a local made external + hidden (and named, if it had no name) */
} split_plan;

/* Plans at most `jobs` partitions. Returns false (module untouched) when the module should be compiled
 * whole: fewer than two kernels, or constructs this splitter does not handle (aliases, appending globals,
 * address-taken helpers, whose identity and — on AMDGPU — LDS use must not cross partitions), or — when
 * min_gain > 0 (-j by default) — an estimated speed-up below min_gain (*gain says what it was; see split.c). */
bool split_plan_make(LLVMModuleRef M, const target_desc *t, unsigned jobs, double min_gain, split_plan *plan,
                     double *gain);

/* Reduces the planned module, a copy read from its bitcode (lazily or not), or a copy emitted again from the
 * same IR (parallel.c's early workers: the plan's promotions are applied to it first) to partition `part`:
 * reads the bodies the partition defines and replaces every other definition by a declaration. False if the
 * copy does not match the plan. */
bool split_apply(LLVMModuleRef M, const split_plan *plan, unsigned part);

void split_plan_free(split_plan *plan);

#endif
