/* host_emit.h — the host target's own steps of the shared LLVM emission (targets/llvm/, emit.h), reached through
 * its target_hooks (host_hooks.c): the thread-loop fast path (thread_loop.c: which kernels; host_entries.c: the
 * entries) and the host-native CPU attributes. See host_abi.h for the
 * contract with the CPU runtime. Private to targets/host/. */
#ifndef P2N_HOST_EMIT_H
#define P2N_HOST_EMIT_H

#include <stdbool.h>

#include "emit.h"

/* Per function (index = ir function): true for the kernels whose threads may run one after another to
 * completion. malloc'd; NULL only when out of memory. */
bool *thread_loop_kernels(const ir_module *m);

/* The same with block barriers (bar.sync/barrier.sync without .red or .arrive) allowed: kernels whose threads
 * wait for each other only there, so that the code between two barriers may run for one thread after another
 * (work_item_loops.c). */
bool *barrier_region_kernels(const ir_module *m);

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

/* host_hooks.c: the hooks of target_host and target_host_native */
extern const target_hooks host_hooks, host_native_hooks;

#endif
