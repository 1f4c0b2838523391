/* emit.h — shared LLVM emission: internal interface between the instruction-family files.
 *
 * Model: every PTX register is an alloca holding an integer of the register's width (i1 for predicates);
 * instructions read operands as the LLVM type of their instruction type (ty_of) and write results back with
 * PTX's relaxed type rules (truncate / extend by signedness). mem2reg + instcombine remove the traffic.
 * Functions (.func) all share one LLVM type: void(ptr ctx, ptr retbuf, ptr parambuf) — the PTX parameter ABI
 * as byte buffers, so direct, indirect and recursive calls are the same thing. Kernels follow host_abi.h:
 * void(const uint8_t *params, p2n_thread_ctx *ctx).
 */
#ifndef P2N_EMIT_H
#define P2N_EMIT_H

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "host_abi.h"
#include "ir.h"
#include "target.h"

/* p2n_rt_table slots: byte offset = 8 + 8 * slot, from host_abi.h's struct (the first word is abi_version) */
#define P2N_RT_SLOT(field) ((offsetof(p2n_rt_table, field) - 8) / 8)
enum {
    RT_BARRIER = P2N_RT_SLOT(barrier), RT_BARRIER_RED = P2N_RT_SLOT(barrier_red), RT_SHFL = P2N_RT_SLOT(shfl),
    RT_VOTE = P2N_RT_SLOT(vote), RT_MATCH_ANY = P2N_RT_SLOT(match_any), RT_MATCH_ALL = P2N_RT_SLOT(match_all),
    RT_REDUX = P2N_RT_SLOT(redux), RT_ACTIVEMASK = P2N_RT_SLOT(activemask), RT_WARP_SYNC = P2N_RT_SLOT(warp_sync),
    RT_ELECT = P2N_RT_SLOT(elect), RT_YIELD = P2N_RT_SLOT(yield), RT_CLOCK64 = P2N_RT_SLOT(clock64),
    RT_GLOBALTIMER = P2N_RT_SLOT(globaltimer), RT_SMID = P2N_RT_SLOT(smid), RT_VPRINTF = P2N_RT_SLOT(vprintf),
    RT_TRAP = P2N_RT_SLOT(trap), RT_ASSERTFAIL = P2N_RT_SLOT(assertfail), RT_EXIT_THREAD = P2N_RT_SLOT(exit_thread),
    RT_SINF = P2N_RT_SLOT(sinf), RT_COSF = P2N_RT_SLOT(cosf), RT_EXP2F = P2N_RT_SLOT(exp2f),
    RT_LOG2F = P2N_RT_SLOT(log2f), RT_TANHF = P2N_RT_SLOT(tanhf), RT_FMA = P2N_RT_SLOT(fma),
    RT_FMAF = P2N_RT_SLOT(fmaf), RT_MALLOC = P2N_RT_SLOT(malloc), RT_FREE = P2N_RT_SLOT(free),
    RT_WARP_MATRIX = P2N_RT_SLOT(warp_matrix), RT_IS_LOCAL = P2N_RT_SLOT(is_local),
    RT_DEVICE_RUNTIME = P2N_RT_SLOT(device_runtime)
};
_Static_assert(offsetof(p2n_rt_table, barrier) == 8, "p2n_rt_table: slot 0 at byte 8");
/* p2n_thread_ctx field offsets (host_abi.h) */
enum {
    CTX_TID = offsetof(p2n_thread_ctx, tid), CTX_NTID = offsetof(p2n_thread_ctx, ntid),
    CTX_CTAID = offsetof(p2n_thread_ctx, ctaid), CTX_NCTAID = offsetof(p2n_thread_ctx, nctaid),
    CTX_LANEID = offsetof(p2n_thread_ctx, laneid), CTX_WARPID = offsetof(p2n_thread_ctx, warpid),
    CTX_NWARPID = offsetof(p2n_thread_ctx, nwarpid), CTX_DYN_SMEM = offsetof(p2n_thread_ctx, dynamic_smem_size),
    CTX_SMEM = offsetof(p2n_thread_ctx, smem), CTX_SMEM_SIZE = offsetof(p2n_thread_ctx, smem_size),
    CTX_YIELD = offsetof(p2n_thread_ctx, yield_budget), CTX_RT = offsetof(p2n_thread_ctx, rt),
    /* P2N_LAUNCH_*; SPIR-V keeps other words there and reads it through its ctx_field hook */
    CTX_LAUNCH_FLAGS = offsetof(p2n_thread_ctx, launch_flags),
    /* the cooperative launch's grid workspace (%envreg1/2, i64); targets whose driver refuses cooperative launch
     * answer it in their ctx_field hook (a null workspace) */
    CTX_GRID_WS = offsetof(p2n_thread_ctx, grid_workspace)
};

typedef struct emit_ctx {
    ir_module *m;
    const target_desc *t;
    p2n_diags *d;
    LLVMContextRef C;
    LLVMModuleRef M;
    LLVMBuilderRef B, AB; /* AB: allocas at the entry block */
    LLVMTypeRef i1, i8, i16, i32, i64, i128, f32, f64, ptr, vd, fn_ty, kern_ty;
    /* module */
    LLVMValueRef *gvar;     /* per variable: global (global/const), NULL otherwise */
    uint64_t *var_off;      /* per variable: shared offset or parameter-buffer offset */
    uint64_t *var_size;
    LLVMValueRef *fn;       /* per function */
    uint32_t static_smem, dyn_align;
    /* AMDGPU (per-kernel LDS): per function, the static shared bytes of that kernel (module-scope statics, then its
     * own entry-scoped ones overlaid at the same offset as every other kernel's); NULL: one module-wide window */
    uint32_t *kern_smem;
    uint32_t module_flags;  /* P2N_KERNEL_* over all functions (conservative) */
    uint32_t *fn_flags;     /* per function: P2N_KERNEL_* a kernel's own body needs (its descriptor's, with the above) */
    /* function */
    ir_func *f;
    uint32_t fidx;
    LLVMValueRef cur, ctx, kparams, retbuf, parambuf;
    LLVMValueRef *regs;     /* per register: alloca */
    LLVMValueRef *lvar;     /* per variable id: alloca of a function-local variable (.local, call-site .param) */
    LLVMBasicBlockRef *bbs;
    uint32_t cur_block;
    int32_t *label_block;   /* label id -> block index */
    int32_t *label_proto;   /* label id -> prototype index (callprototype), -1 */
    int32_t *label_tgts;    /* label id -> index of the BRANCHTARGETS pseudo in (block << 20 | ins), -1 */
    LLVMValueRef cc;        /* carry flag (add.cc / addc), i1 alloca */
    const ir_ins *ins;      /* instruction being emitted (diagnostics) */
    int failed;
    bool internal_error;
    /* a kernel body in a function of the target's (target_hooks.kernel_body_begin: the host's thread loop) */
    bool *tl_ok;            /* per function: the target's plan, kernel gets such a body and a `.block` entry */
    LLVMValueRef *block_fn; /* per function: that entry (the descriptor names it; deferred stubs delete it) */
    LLVMValueRef tl_args[5];/* in such a body: tid.x, tid.y, tid.z, laneid, warpid arguments */
    LLVMValueRef tl_fiber;  /* in such a body: i1, true when called by the fiber entry (may yield) */
    LLVMValueRef ybud;      /* host: i32 alloca, the function's copy of ctx->yield_budget */
    LLVMValueRef stalls;    /* SPIR-V without forward progress: i32 alloca, failed mbarrier polls (spirv_barrier.c) */
    bool native_fma;        /* code for a CPU with FMA (target_hooks.before_bodies): fma.rn is llvm.fma */
    int64_t f64_cold_of;    /* emit_float.c: the function (index) f64_cold is for, -1 none yet */
    bool f64_cold;          /* its f64 NaN results go out of line */
    unsigned device_lacks;  /* p2n_options.device_lacks (P2N_LACKS_*) */
    bool defer_unsupported; /* p2n_options.defer_unsupported */
    bool fp_atomics_native; /* p2n_options.fp_atomics_native, AMDGPU only */
    struct defer_state *defer; /* functions found unsupported under defer_unsupported (defer_unsupported.c) */
    struct line_info *line_info; /* --line-info: the DWARF builder and scopes (emit_line_info.c); NULL without */
} emit_ctx;

/* ---- helpers (emit_ops.c) */
LLVMTypeRef ty_of(emit_ctx *E, ir_type t);
unsigned tbits(ir_type t);
bool t_signed(ir_type t);
bool t_float(ir_type t); /* f32 f64 (scalar IEEE kinds computed natively) */
LLVMValueRef ci(LLVMTypeRef t, uint64_t v);
LLVMValueRef c32(emit_ctx *E, uint64_t v);
LLVMValueRef c64(emit_ctx *E, uint64_t v);
LLVMValueRef rd(emit_ctx *E, const ir_operand *o, ir_type t);
void wr(emit_ctx *E, const ir_operand *o, ir_type t, LLVMValueRef v);
LLVMValueRef reg_slot(emit_ctx *E, uint32_t reg);
LLVMValueRef ctx_field(emit_ctx *E, unsigned off, LLVMTypeRef t);
LLVMValueRef rt_fn(emit_ctx *E, unsigned slot);
LLVMValueRef rt_call(emit_ctx *E, unsigned slot, LLVMTypeRef ret, LLVMValueRef *args, unsigned n);
bool rt_slot_is_collective(unsigned slot);
/* P2N_DEVRT_* of a CUDA device-runtime function name (abi/device_runtime.def), 0 if it is none */
unsigned devrt_id(const char *name);
LLVMValueRef smem_base(emit_ctx *E);
LLVMValueRef addr_in_shared(emit_ctx *E, LLVMValueRef a); /* i1: generic address a (i64) in the shared window */
LLVMValueRef as_generic(emit_ctx *E, LLVMValueRef p); /* alloca -> E->ptr (addrspacecast on SPIR-V) */
LLVMValueRef addr_of(emit_ctx *E, const ir_operand *o, ir_space space); /* ptr for a memory operand */
LLVMValueRef mem_addr(emit_ctx *E, const ir_operand *o, ir_space space); /* same, for the access: may be addrspace(1) */
/* the address space of module-scope variables and the emission's own tables (lock table, lookup tables,
 * strings, the empty texture): SPIR-V's CrossWorkgroup; 0 elsewhere (AMDGPU moves those globals to its global
 * address space after emission, the host has one) */
unsigned module_var_as(const emit_ctx *E);
/* a private constant C string the device reads through a generic pointer, for a runtime's report (SPIR-V:
 * CrossWorkgroup, as the error record names it, cast to generic); `name` names the global */
LLVMValueRef device_cstr(emit_ctx *E, const char *s, const char *name);
LLVMValueRef var_addr(emit_ctx *E, uint32_t var, ir_space use_space);   /* ptr to a variable's storage */
LLVMValueRef var_value(emit_ctx *E, uint32_t var, int64_t off);         /* i64 address value (mov r, var) */
LLVMValueRef gep8(emit_ctx *E, LLVMValueRef p, LLVMValueRef off);
LLVMValueRef intrin(emit_ctx *E, const char *name, LLVMTypeRef *tys, unsigned ntys, LLVMValueRef *args, unsigned n);
LLVMValueRef to_int(emit_ctx *E, LLVMValueRef v);   /* bitcast float to same-width int */
LLVMValueRef to_fp(emit_ctx *E, LLVMValueRef v, LLVMTypeRef ft);
LLVMValueRef sel(emit_ctx *E, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef zext_to(emit_ctx *E, LLVMValueRef v, LLVMTypeRef t);
LLVMValueRef sext_to(emit_ctx *E, LLVMValueRef v, LLVMTypeRef t);
LLVMValueRef resize(emit_ctx *E, LLVMValueRef v, LLVMTypeRef t, bool is_signed);
void emit_unsupported(emit_ctx *E, const char *why);
/* what --defer-unsupported makes of an unsupported construct (without it, each is an error): the kernels that
 * reach it fail at launch (CUDA_ERROR_NOT_SUPPORTED; emit_unsupported), are left out of the module as NVIDIA's
 * JIT leaves them (cuModuleGetFunction: CUDA_ERROR_NOT_FOUND), or the module fails as NVIDIA's does
 * (cuModuleLoadData: CUDA_ERROR_NOT_SUPPORTED) */
typedef enum defer_kind { DEFER_STUB, DEFER_ABSENT, DEFER_NEVER } defer_kind;
void emit_unsupported_as(emit_ctx *E, const char *why, defer_kind kind);
void emit_internal(emit_ctx *E, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *ins_name(emit_ctx *E, const ir_ins *ins, char *buf, size_t n);
LLVMBasicBlockRef new_bb(emit_ctx *E, const char *name);
void note_flags(emit_ctx *E, uint32_t flags);
ir_space var_space(emit_ctx *E, uint32_t var);
/* memory-model scopes (emit_sync.c): the scope an instruction names (.cta .cluster .gpu .sys, membar's .gl),
 * dflt when it names none; the LLVM syncscope id of a scope on this target (target_desc.syncscopes) */
p2n_scope ins_scope(const ir_ins *ins, p2n_scope dflt);
unsigned scope_id(emit_ctx *E, p2n_scope s);

/* ---- instruction families: return false when the form is not supported (the caller diagnoses) */
bool emit_int(emit_ctx *E, const ir_ins *ins);
bool emit_float(emit_ctx *E, const ir_ins *ins);
bool emit_cvt(emit_ctx *E, const ir_ins *ins);
bool emit_cvt_pack(emit_ctx *E, const ir_ins *ins);      /* cvt.pack.sat (emit_cvt_narrow.c) */
bool emit_cvt_fp8_f16x2(emit_ctx *E, const ir_ins *ins); /* f16x2 -> e4m3x2/e5m2x2 (emit_cvt_narrow.c) */
bool emit_cvt_fp4_fp6(emit_ctx *E, const ir_ins *ins);   /* e2m1/e2m3/e3m2/ue8m0 pairs (emit_cvt_fp4.c) */
bool emit_cvt_rs(emit_ctx *E, const ir_ins *ins);        /* cvt.rs stochastic rounding (emit_cvt_rs.c) */
bool emit_redux_f32(emit_ctx *E, const ir_ins *ins);     /* redux.sync min/max .f32 (emit_redux_f32.c) */
bool emit_clc(emit_ctx *E, const ir_ins *ins);           /* clusterlaunchcontrol (emit_clc.c) */
bool emit_mem(emit_ctx *E, const ir_ins *ins);
bool emit_ctrl(emit_ctx *E, const ir_ins *ins);
bool emit_sync(emit_ctx *E, const ir_ins *ins);
bool emit_matrix(emit_ctx *E, const ir_ins *ins); /* ldmatrix stmatrix mma wmma (emit_matrix.c) */
bool emit_video(emit_ctx *E, const ir_ins *ins);  /* scalar and SIMD video instructions (emit_video.c) */
/* sm_90 cluster forms in a cluster of one block: mapa getctarank cp.async.bulk cp.reduce.async.bulk st.async
 * red.async and the bulk groups (emit_cluster.c) */
bool emit_cluster(emit_ctx *E, const ir_ins *ins);
/* i1: this launch is a cluster launch (%is_explicit_cluster): a constant for a kernel that declares its cluster
 * shape, else ctx launch_flags & P2N_LAUNCH_CLUSTER (emit_cluster.c) */
LLVMValueRef emit_cluster_launch(emit_ctx *E);
/* emit_sync.c, for emit_cluster.c: transaction bytes completed on an mbarrier; one relaxed atomic RMW (NULL:
 * no lowering for that operation and type) */
void emit_mbarrier_complete_tx(emit_ctx *E, LLVMValueRef p, LLVMValueRef bytes);
LLVMValueRef emit_atomic_rmw(emit_ctx *E, LLVMValueRef p, ir_type t, ir_mod op, LLVMValueRef v, unsigned ssid);

/* float helpers shared by families (emit_float.c) */
LLVMValueRef f_ftz_in(emit_ctx *E, LLVMValueRef v);  /* flush a subnormal input to signed zero */
LLVMValueRef f_sat(emit_ctx *E, LLVMValueRef v);     /* clamp to [0,1], NaN -> 0 */
LLVMValueRef f_isnan(emit_ctx *E, LLVMValueRef v);
LLVMValueRef f_directed(emit_ctx *E, LLVMValueRef r, LLVMValueRef resid_sign, ir_mod mode);
LLVMValueRef half_to_float(emit_ctx *E, LLVMValueRef h, bool bf);   /* i16 bits -> float */
LLVMValueRef float_to_half(emit_ctx *E, LLVMValueRef f, bool bf, ir_mod mode, bool relu, bool satfinite);
LLVMValueRef double_to_half(emit_ctx *E, LLVMValueRef d, bool bf, ir_mod mode);
/* f32 -> a narrow format of TM mantissa and TE exponent bits (bias 2^(TE-1)-1), one rounding in mode; i16 bits of
 * the magnitude with the sign at bit TM+TE. no_inf: the format has no infinity, overflow goes to nan_t (or to the
 * largest finite value nan_t-1 with satfinite). mode IR_M_RS: rnd holds rw random bits (emit_cvt_rs.c). */
LLVMValueRef float_to_narrow(emit_ctx *E, LLVMValueRef f, unsigned TM, unsigned TE, ir_mod mode, bool relu,
                             bool satfinite, bool no_inf, uint64_t nan_t, LLVMValueRef rnd, unsigned rw);
LLVMValueRef f_round_int(emit_ctx *E, LLVMValueRef v, ir_mod mode); /* rni rzi rmi rpi in the same type */
ir_mod round_mode(const ir_ins *ins);

/* ---- deferred unsupported constructs (defer_unsupported.c): with E->defer_unsupported, what a function body
 * cannot compile makes that function unsupported (a warning) instead of failing the module. defer_note is
 * called by emit_unsupported with the diagnostic text: true when deferred (nothing counted as failed).
 * defer_finish, after all bodies: unsupported functions lose their bodies (trap stubs), every kernel that
 * reaches one becomes a stub that fails at launch with CUDA_ERROR_NOT_SUPPORTED and the reason. */
bool defer_note(emit_ctx *E, const char *text);
bool defer_note_as(emit_ctx *E, const char *text, defer_kind kind); /* DEFER_STUB or DEFER_ABSENT */
void defer_finish(emit_ctx *E);
bool defer_supported_target(const target_desc *t);

/* ---- what emission produced (emit_result.desc): the facts the targets' lowerings need about the module,
 * computed once by emit_module.c (the host's binary descriptor __p2n_module, abi/host_abi.h, is written from
 * it too), so that no target re-derives a layout from the IR or reads it back out of the LLVM module. */
typedef struct emit_param {
    uint64_t offset, size, align;  /* in the PTX parameter buffer */
} emit_param;

typedef struct emit_kernel {
    const char *name;        /* PTX name = the LLVM function emit_module made of the kernel body */
    uint32_t func;           /* index in ir_module.funcs */
    uint32_t nparams;
    emit_param *params;      /* PTX parameter layout, declaration order, increasing offsets */
    uint64_t param_bytes;    /* end of the last parameter (0: none) */
    uint32_t static_smem;    /* static shared bytes the kernel's window holds (rounded up to emit_desc.dyn_align):
                              * the module's (host, SPIR-V), or its own statics on AMDGPU (per_kernel_smem);
                              * dynamic shared memory starts there */
    uint32_t smem_align;     /* alignment of that window */
    uint32_t own_smem;       /* static shared bytes the kernel can name: statics of module or .func scope, then its
                              * own entry-scope ones (CUDA's SHARED_SIZE_BYTES; host descriptor own_smem_bytes) */
    uint64_t local_bytes;    /* its own .local variables */
    uint32_t flags;          /* P2N_KERNEL_* (host_abi.h), as in the host descriptor */
    uint32_t maxntid[3], reqntid[3]; /* .maxntid / .reqntid: all 0 when absent, missing dimensions 1 */
} emit_kernel;

typedef struct emit_shared_var {
    const char *name;
    uint32_t var;            /* index in ir_module.vars */
    int32_t func;            /* declaring function, -1: module scope */
    uint64_t offset, size, align; /* offset in the shared window (per kernel on AMDGPU); dynamic: the
                              * module-wide dynamic base (AMDGPU reads a kernel's from ctx instead) */
    bool dynamic;            /* extern (dynamic shared memory, or an unresolved extern) */
} emit_shared_var;

typedef struct emit_global {
    const char *name;
    uint32_t var;            /* index in ir_module.vars */
    ir_space space;          /* IR_S_GLOBAL, IR_S_CONST, IR_S_LOCAL (module-scope .local) */
    uint64_t size;           /* bytes of storage (unsized arrays: what the initializer fills) */
    bool initialized;        /* defined here with an initializer (LLVM global with a body) */
} emit_global;

typedef struct emit_desc {
    uint32_t nkernels;       /* kernels with a body, module order */
    emit_kernel *kernels;
    uint32_t nshared;        /* every .shared variable, module order */
    emit_shared_var *shared;
    uint32_t nglobals;       /* module-scope variables that got storage, module order */
    emit_global *globals;
    uint32_t static_smem;    /* module-wide static shared bytes, rounded up to dyn_align: the dynamic base */
    uint32_t dyn_align;      /* alignment of dynamic shared memory (>= 16) */
    uint32_t module_flags;   /* P2N_KERNEL_* over all functions */
    bool per_kernel_smem;    /* AMDGPU: each kernel its own window (module statics, then its own) */
} emit_desc;
void emit_desc_free(emit_desc *d);

/* ---- module driver (emit_module.c) */
typedef struct emit_result {
    LLVMContextRef C;
    LLVMModuleRef M;
    emit_desc *desc;         /* owned by the caller (emit_desc_free), once the target lowering has used it */
} emit_result;
struct p2n_options;
bool emit_module(ir_module *m, const target_desc *t, const struct p2n_options *opt, p2n_diags *d, emit_result *out,
                 bool *internal);

#endif
