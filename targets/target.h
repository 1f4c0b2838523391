/* target.h — what differs between back ends, in one small struct (QBE-style). The shared LLVM emission
 * reads it; each target folder provides one or more of these. */
#ifndef P2N_TARGET_H
#define P2N_TARGET_H

#include <stdbool.h>

typedef enum target_family { TARGET_HOST, TARGET_AMDGPU, TARGET_SPIRV } target_family;

/* PTX memory-model scopes (.cta .cluster .gpu .sys; membar.gl is .gpu), index of target_desc.syncscopes */
typedef enum p2n_scope { P2N_SCOPE_CTA, P2N_SCOPE_CLUSTER, P2N_SCOPE_GPU, P2N_SCOPE_SYS, P2N_SCOPE_COUNT } p2n_scope;

struct emit_ctx;
struct LLVMOpaqueValue;
struct LLVMOpaqueType;
/* Optional per-target lowering hooks for the shared LLVM emission (NULL on the host target). */
typedef struct target_hooks {
    /* replace p2n_rt_table function pointers (rt_fn: math slots) and calls (rt_call) by direct code */
    struct LLVMOpaqueValue *(*rt_fn)(struct emit_ctx *E, unsigned slot);
    struct LLVMOpaqueValue *(*rt_call)(struct emit_ctx *E, unsigned slot, struct LLVMOpaqueType *ret,
                                       struct LLVMOpaqueValue **args, unsigned n);
    /* a p2n_thread_ctx field (emit.h CTX_*) computed directly, e.g. a special register read by intrinsic, instead
     * of loaded from ctx; NULL (or a NULL result): the load from ctx */
    struct LLVMOpaqueValue *(*ctx_field)(struct emit_ctx *E, unsigned off, struct LLVMOpaqueType *t);
    /* Lowering choices of the shared emission (false/0: the generic form every target accepts). They change
     * the code's cost on one back end, never what it computes. */
    bool barrier_acq_rel;      /* release fence; barrier; acquire fence around bar/barrier instead of seq_cst
                                * fences (the AMDGPU memory model's pattern, what HIP's __syncthreads emits) */
    bool cvt_f64_s32_clamp;    /* cvt f64 -> s32 by AMDGPU's saturating v_cvt_i32_f64 itself (inline asm) + NaN
                                * select instead of fptosi.sat + NaN select (emit_cvt.c) */
    bool keep_func_calls;      /* a PTX .func with a loop stays a called function (noinline), as ptxas keeps the
                                * PTX's calls (CALL.REL): nvcc already inlined what it wanted to, and inlining a
                                * loop grows every caller while the call's cost is paid once per loop; .funcs
                                * without loops are still inlined (their .param buffers then vanish) */
    unsigned global_as;        /* non-zero: .global accesses through this LLVM address space, cast to generic
                                * (AMDGPU: global_* instead of flat_* once infer-address-spaces sees the cast) */
} target_hooks;

typedef struct target_desc {
    const char *name;          /* what --offload-arch takes */
    target_family family;
    const char *triple;
    const char *cpu;           /* LLVM CPU name (gfx942, x86-64, ...) */
    unsigned wave_size;        /* hardware lanes a CUDA warp maps onto (32 or 64) */
    const char *description;
    /* What the shared LLVM emission (targets/llvm/) needs to know. Address spaces are LLVM numbers. */
    unsigned as_global, as_shared, as_local, as_const, as_generic;
    bool smem_in_ctx;          /* host: .shared addresses are offsets into ctx->smem (host_abi.h) */
    bool rt_table;             /* host: barriers, warp ops, math go through the p2n_rt_table */
    bool ready;                /* code generation implemented */
    const target_hooks *hooks; /* NULL: the host model (ctx + p2n_rt_table) */
    /* LLVM syncscope names for atomics and fences, per p2n_scope ("" = system). NULL: system scope for
     * everything (the host: one coherent address space, so narrower scopes would buy nothing). */
    const char *const *syncscopes;
    /* host: code for the CPU this process runs on (host CPU name and features as function attributes); the
     * JIT of the driver stub uses it, AOT output stays portable unless asked (docs/architecture.md) */
    bool native_cpu;
} target_desc;

const target_desc *target_find(const char *name);
const target_desc *target_all(unsigned *count);

#endif
