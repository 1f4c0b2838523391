/* eliminate_recursion.h — recursion without a call stack (eliminate_recursion.c). */
#ifndef P2N_ELIMINATE_RECURSION_H
#define P2N_ELIMINATE_RECURSION_H

#include <llvm-c/Core.h>
#include <stdbool.h>

#include "diag.h"
#include "target.h"

/* Per-work-item bytes of the explicit stack when p2n_options.recursion_stack is 0. CUDA's default 1 KiB is
 * sized for NVIDIA frames (registers allocated by ptxas, typically 16-64 bytes a call); a frame here holds
 * the PTX parameter and return buffers of every call site and every value live across a call, in 8-16-byte
 * slots: 64-300 bytes for typical device functions, so 16 KiB allows about 50-250 levels (e.g. 146 for a
 * two-argument tail like ctrl.cu's depth_sum) — more than a 1 KiB NVIDIA stack usually does. */
#define P2N_RECURSION_STACK_DEFAULT (16u * 1024u)

/* Rewrites every cycle of the call graph of M (an emitted module: functions of the shared type
 * void(ctx, retbuf, parambuf)) into one function per strongly connected component that runs the
 * component's bodies as a loop over an explicit stack in private memory (the comment at the top of the
 * .c file says how). stack_bytes: per-work-item budget (0: P2N_RECURSION_STACK_DEFAULT); a call that would
 * overflow it takes the target's trap path. verbose: one line per component on stderr (frame sizes).
 * False with a diagnostic when a cycle cannot be rewritten (recursion through an indirect call, dynamic
 * alloca); *internal says whether that is a compiler bug. The module passes LLVMVerifyModule afterwards. */
bool llvm_eliminate_recursion(LLVMModuleRef M, const target_desc *t, unsigned stack_bytes, bool verbose,
                              p2n_diags *d, bool *internal);

#endif
