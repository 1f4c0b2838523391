/* drop_fallback_entries.h — host kernels keep only the entry the runtime uses (drop_fallback_entries.c). */
#ifndef P2N_DROP_FALLBACK_ENTRIES_H
#define P2N_DROP_FALLBACK_ENTRIES_H

#include "llvm_pass.h"

/* The last lowering pass: unless p2n_options.host_fallback_entries, a kernel with a block entry or a coroutine
 * entry loses the entries the runtime uses only when told to (P2N_CPU_THREADLOOP=0, P2N_CPU_CORO=0,
 * P2N_CPU_WORK_ITEM_LOOPS=0): its fiber entry becomes a stub that traps (P2N_KERNEL_FIBER_STUB) and a
 * work-item-loop kernel's coroutine entry goes. */
bool host_pass_drop_fallback_entries(llvm_pass_ctx *X);

#endif
