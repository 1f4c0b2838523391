/* target.h — the one boundary between the shared compiler and a back end (QBE / Mesa NIR style).
 *
 * Each target folder (targets/host/, targets/amdgpu/, targets/spirv/) defines its target_desc entries with
 * designated initialisers; targets/targets.c only lists them. The entry holds data (triple, CPU, wave size,
 * address spaces, syncscopes, what the target always lacks, its shared-memory model, container code kind,
 * code-generation choices) and the only calls the shared code makes into a target: the emission hooks
 * (special registers / ctx fields, runtime calls, lowering choices), the trap of the recursion transform, the
 * LLVM pass lists (lowering before optimisation, before/after the optimiser, before code generation), object
 * emission and the finishing step (link, metadata merge, SPIR-V validation). Shared code never asks which
 * target it is compiling for: it asks the entry for the property. */
#ifndef P2N_TARGET_H
#define P2N_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* PTX memory-model scopes (.cta .cluster .gpu .sys; membar.gl is .gpu), index of target_desc.syncscopes */
typedef enum p2n_scope { P2N_SCOPE_CTA, P2N_SCOPE_CLUSTER, P2N_SCOPE_GPU, P2N_SCOPE_SYS, P2N_SCOPE_COUNT } p2n_scope;

struct emit_ctx;
struct LLVMOpaqueValue;
struct LLVMOpaqueType;
struct LLVMOpaqueModule;
struct LLVMOpaqueBuilder;
struct LLVMOpaqueTargetMachine;
struct LLVMOpaqueMemoryBuffer;
struct p2n_diags;
struct llvm_pass; /* targets/llvm/llvm_pass.h */
struct emit_desc; /* targets/llvm/emit.h: what emission produced (kernels, layouts, globals) */

/* Optional per-target hooks of the shared LLVM emission (every field may be NULL / false / 0). */
typedef struct target_hooks {
    /* Steps of a target's own around the shared emission (the host: its thread-loop entries, its descriptor).
     * before_bodies: after the module's variables and function declarations, before the first body (a target's
     *   own globals; E->tl_ok: the kernels whose bodies kernel_body_begin takes);
     * kernel_body_begin: before a kernel's body; true: the hook made the function the body goes into (E->cur)
     *   and kernel_body_end, after the body, builds the kernel's entries around it (E->block_fn);
     * before_call: before a call that may read the thread's ctx (runtime calls but yield, device functions):
     *   store there what the body keeps elsewhere;
     * after_bodies: after every body and the deferred stubs, from the description D (the host: its kernel
     *   descriptor and CPU attributes). */
    void (*before_bodies)(struct emit_ctx *E);
    bool (*kernel_body_begin)(struct emit_ctx *E, uint32_t fi);
    void (*kernel_body_end)(struct emit_ctx *E, uint32_t fi);
    void (*before_call)(struct emit_ctx *E);
    void (*after_bodies)(struct emit_ctx *E, const struct emit_desc *D);
    /* replace p2n_rt_table function pointers (rt_fn: math slots) and calls (rt_call) by direct code */
    struct LLVMOpaqueValue *(*rt_fn)(struct emit_ctx *E, unsigned slot);
    struct LLVMOpaqueValue *(*rt_call)(struct emit_ctx *E, unsigned slot, struct LLVMOpaqueType *ret,
                                       struct LLVMOpaqueValue **args, unsigned n);
    /* a p2n_thread_ctx field (emit.h CTX_*) computed directly, e.g. a special register read by intrinsic, instead
     * of loaded from ctx; NULL (or a NULL result): the load from ctx */
    struct LLVMOpaqueValue *(*ctx_field)(struct emit_ctx *E, unsigned off, struct LLVMOpaqueType *t);
    /* the body of a kernel or .func stubbed by --defer-unsupported (defer_unsupported.c): report `msg` (a
     * whole text) so that the launch fails with CUDA_ERROR_NOT_SUPPORTED; the caller adds the unreachable. NULL:
     * the runtime table's assertfail (rt_table targets), else llvm.trap. */
    void (*stub_not_supported)(struct emit_ctx *E, struct LLVMOpaqueValue *ctx, const char *msg);
    /* --fp-atomics=native: mark a float atomicrmw so the back end keeps the device's own instruction (AMDGPU:
     * metadata, else it expands the add into a compare-exchange loop); NULL: nothing to mark */
    void (*mark_native_fp_atomic)(struct emit_ctx *E, struct LLVMOpaqueValue *rmw);
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

typedef struct target_desc target_desc;
struct target_desc {
    const char *name;          /* what --offload-arch takes */
    const char *description;
    const char *triple;
    const char *cpu;           /* LLVM CPU name (gfx942, x86-64, ...) */
    const char *features;      /* LLVM subtarget features of the code generator (NULL: the CPU's own) */
    unsigned wave_size;        /* hardware lanes a CUDA warp maps onto (32 or 64) */
    unsigned code_kind;        /* P2N_CODE_* of abi/container.h: what a fat container calls this code */
    unsigned spirv_version;    /* SPIR-V targets: 0x10400, 0x10200 (SPIR-V 1.4 / 1.2); 0 otherwise */
    bool ready;                /* code generation implemented */
    /* P2N_LACKS_* (ptx2native.h) the target always lacks, whatever p2n_options.device_lacks says (SPIR-V:
     * recursion, which OpenCL forbids) */
    unsigned always_lacks;

    /* What the shared LLVM emission (targets/llvm/) needs to know. Address spaces are LLVM numbers. */
    unsigned as_global, as_shared, as_local, as_const, as_generic;
    unsigned ptr_as;           /* the address space of the emission's untyped pointers (SPIR-V: generic, since
                                * address space 0 is the Function class there) */
    bool module_vars_in_global_as; /* module-scope variables (and texture tables) live in as_global */
    bool generic_is_global;    /* a generic address is always a global one (one flat address space: host) */
    /* Shared-memory model. smem_in_ctx: .shared addresses are offsets into one window (host: ctx->smem,
     * SPIR-V: a __local kernel argument, AMDGPU: LDS); smem_per_kernel: every kernel gets its own window
     * (AMDGPU LDS): module-scope statics at one offset each (overlapping where no kernel reaches both), each
     * kernel's entry-scoped ones after what it reaches */
    bool smem_in_ctx;
    bool smem_per_kernel;
    bool rt_table;             /* host: barriers, warp ops, math go through the p2n_rt_table */
    bool device_runtime;       /* CUDA's device runtime (dynamic parallelism, abi/device_runtime.def) through
                                * the rt table's device_runtime slot; false: kernels calling it are refused */
    bool host_descriptor;      /* the module gets the __p2n_rt slot and the kernel/global descriptor of
                                * host_abi.h (the CPU runtime reads it; AMDGPU's lowering needs it until it
                                * deletes it: it keeps the kernels referenced) */
    bool atomic_b128_native;   /* atom .b128 as an i128 atomicrmw/cmpxchg (x86-64 cmpxchg16b) */
    bool split_b128_memory;    /* ld/st .b128 as two 64-bit halves (no 128-bit scalar accesses) */
    bool no_masked_load;       /* the back end cannot lower llvm.masked.load (LLVM 22's SPIR-V back end aborts on
                                * it): cp.async zero-fill copies byte by byte instead (emit_mem.c) */
    bool f64_nan_out_of_line;  /* in functions with many f64 operations, NVIDIA's f64 NaN result is computed on a
                                * cold path by a helper call (emit_float.c) instead of inline selects: host, SPIR-V
                                * (calls are cheap there; on AMDGPU a call costs more than the selects) */
    const char *fma_f32_call;  /* the function emission calls for an f32 fma when not llvm.fma (SPIR-V: OpenCL's
                                * fma): NaN in, NaN out, for defer_nan_canon.c; NULL: none */
    bool fp_atomics_native_ok; /* p2n_options.fp_atomics_native applies (AMDGPU hardware float atomics) */
    bool no_slp_vectorizer;    /* default<On> without the SLP vectoriser (SPIR-V: see spirv_target.c) */
    const target_hooks *hooks; /* NULL: no hooks (every choice the generic one) */
    /* LLVM syncscope names for atomics and fences, per p2n_scope ("" = system). NULL: system scope for
     * everything (the host: one coherent address space, so narrower scopes would buy nothing). */
    const char *const *syncscopes;

    /* Code generation. */
    bool codegen_o0;           /* the code generator runs at -O0 whatever -O says (SPIR-V: every driver compiles
                                * the module again, and LLVM's codegen IR passes make what PoCL cannot read) */
    bool split_kernels;        /* -j N: per-kernel partitions compiled on threads and linked (finish takes
                                * several objects) */
    /* LLVM's target registration (once per process, compile.c) */
    void (*init_llvm)(void);
    /* Process-global LLVM options the target needs (NULL-terminated; NULL: none), parsed once with every
     * target's (codegen.c; an option whose name $P2N_LLVM_ARGS also sets is left to the user) and given to the
     * in-process linker again, which resets them all */
    const char *const *llvm_options;
    /* The trap path of the recursion transform (eliminate_recursion.c) at B's position: a stack overflow fails
     * the launch (CUDA_ERROR_LAUNCH_FAILED); ctx is the function's thread context pointer */
    void (*build_trap)(struct LLVMOpaqueBuilder *B, struct LLVMOpaqueModule *M, struct LLVMOpaqueValue *ctx);
    /* LLVM passes (targets/llvm/llvm_pass.h), NULL-terminated lists run by llvm_run_passes in this order:
     * lower: after emission, before the module is verified and optimised (compile.c);
     * pre_opt / post_opt: around the shared rewrite_addr + default<On> pipeline (codegen.c, every partition);
     * pre_codegen: on the optimised module before object (or assembly) emission, not for --emit=llvm */
    const struct llvm_pass *lower;
    const struct llvm_pass *pre_opt;
    const struct llvm_pass *post_opt;
    const struct llvm_pass *pre_codegen;
    /* object (or assembly: type 1 = LLVMAssemblyFile) emission; NULL: LLVMTargetMachineEmitToMemoryBuffer.
     * False: *err (LLVMDisposeMessage). */
    bool (*emit_object)(struct LLVMOpaqueTargetMachine *TM, struct LLVMOpaqueModule *M, int type, char **err,
                        struct LLVMOpaqueMemoryBuffer **out);
    /* The output from nobj objects (nobj > 1 only where split_kernels): link, merge metadata, validate. M is the
     * module of a single object (NULL after a split). 0 (P2N_OK) or a p2n_status after a diagnostic in d. */
    int (*finish)(const target_desc *t, struct LLVMOpaqueModule *M, const void *const *objs, const size_t *lens,
                  unsigned nobj, struct p2n_diags *d, uint8_t **data, size_t *size);
};

const target_desc *target_find(const char *name);
/* every target, in --print-targets order */
const target_desc *const *target_all(unsigned *count);

#endif
