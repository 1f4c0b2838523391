/* thread_loop.h — the host target's thread-loop fast path (thread_loop.c: which kernels; emit_block.c: the
 * entries). See host_abi.h for the contract with the CPU runtime. */
#ifndef P2N_THREAD_LOOP_H
#define P2N_THREAD_LOOP_H

#include <stdbool.h>

#include "emit.h"

/* Per function (index = ir function): true for the kernels whose threads may run one after another to
 * completion. malloc'd; NULL only when out of memory. */
bool *thread_loop_kernels(const ir_module *m);

/* For such a kernel the body is emitted into `<kernel>.body(params, ctx, tid.x, tid.y, tid.z, laneid, warpid,
 * i1 fiber)` (always inlined): tl_begin creates it and points E at it, tl_finish then fills the fiber entry
 * E->fn[fi] and creates `<kernel>.block`, returned (E->block_fn[fi]). */
void tl_begin(emit_ctx *E, uint32_t fi);
void tl_finish(emit_ctx *E, uint32_t fi);

/* Before a call that may look at the thread's ctx (runtime calls, device functions): store the body's thread
 * coordinates into it. No-op outside a thread-loop body. */
void tl_sync_ctx(emit_ctx *E);

/* Host code compiled for the CPU it runs on (target host-native): target-cpu/target-features on every
 * defined function; *fma tells whether the CPU has FMA (fma.rn then needs no runtime call). */
void host_native_attrs(emit_ctx *E);
bool host_native_fma(void);

#endif
