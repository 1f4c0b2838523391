/* work_item_loops.h — work-item loops of host kernels that wait only at block barriers (work_item_loops.c). */
#ifndef P2N_WORK_ITEM_LOOPS_H
#define P2N_WORK_ITEM_LOOPS_H

#include "llvm_pass.h"

/* The lowering pass: gives every such kernel a block entry `<kernel>.wi` running the code between two barriers
 * as a loop over the block's threads, named in its descriptor entry (P2N_KERNEL_THREAD_LOOP |
 * P2N_KERNEL_WORK_ITEM_LOOPS). Runs after host_pass_make_coroutines, whose coroutine entry the kernel keeps. */
bool host_pass_form_work_item_loops(llvm_pass_ctx *X);

#endif
