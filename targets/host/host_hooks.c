/* host_hooks.c — the host target's hooks of the shared emission (target.h target_hooks): what only the CPU
 * runtime's code objects have. Runtime calls, math slots and special registers keep the emission's defaults
 * (ctx and the p2n_rt_table: target_desc.rt_table); the hooks add
 *   - the thread-loop fast path: kernels that may run their block's threads one after another get a body with
 *     the thread's coordinates as arguments and a `.block` entry (thread_loop.c, host_entries.c),
 *   - host-native: code for the CPU this process runs on (its name and features as function attributes; FMA).
 */
#include "host_emit.h"

/* before the bodies: the plan of which kernels get a thread-loop body */
static void host_before_bodies(emit_ctx *E) { E->tl_ok = thread_loop_kernels(E->m); }

static void host_native_before_bodies(emit_ctx *E) {
    host_before_bodies(E);
    E->native_fma = host_native_fma();
}

static bool host_kernel_body_begin(emit_ctx *E, uint32_t fi) {
    if (!E->tl_ok || !E->tl_ok[fi]) return false;
    tl_begin(E, fi); /* the body goes into K.body; the entries call it (host_entries.c) */
    return true;
}

/* in a thread-loop kernel body the thread's coordinates are arguments (host_entries.c); elsewhere ctx's */
static LLVMValueRef host_ctx_field(emit_ctx *E, unsigned off, LLVMTypeRef t) {
    if (!E->tl_fiber || t != E->i32) return NULL;
    if (off == CTX_TID || off == CTX_TID + 4 || off == CTX_TID + 8) return E->tl_args[(off - CTX_TID) / 4];
    if (off == CTX_LANEID) return E->tl_args[3];
    if (off == CTX_WARPID) return E->tl_args[4];
    return NULL;
}

/* after the bodies and the descriptor: the CPU's name and features on every function */
static void host_native_after_bodies(emit_ctx *E, const emit_desc *D) {
    (void)D;
    host_native_attrs(E);
}

#define HOST_HOOKS                                                                                          \
    .ctx_field = host_ctx_field, .kernel_body_begin = host_kernel_body_begin, .kernel_body_end = tl_finish, \
    .before_call = tl_sync_ctx

const target_hooks host_hooks = {
    HOST_HOOKS,
    .before_bodies = host_before_bodies,
};

const target_hooks host_native_hooks = {
    HOST_HOOKS,
    .before_bodies = host_native_before_bodies,
    .after_bodies = host_native_after_bodies,
};
