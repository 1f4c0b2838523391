/* spirv_hooks.c — SPIR-V lowering of what the host target sends through the p2n_rt_table: barriers, warp
 * operations (sub-group ops, size pinned to 32), math library calls (OpenCL.std). */
#include <stdlib.h>
#include <string.h>

#include "../llvm/emit.h"
#include "host_abi.h"
#include "spirv_target.h"
#include "spirv_collectives.h"

#define BLD E->B

static bool v12(emit_ctx *E) { return E->t->spirv_version < 0x10400; } /* SPIR-V 1.2: SPV_INTEL_subgroups */

LLVMValueRef spirv_builtin(LLVMModuleRef M, const char *name, LLVMTypeRef ft) {
    LLVMValueRef f = LLVMGetNamedFunction(M, name);
    if (!f) {
        f = LLVMAddFunction(M, name, ft);
        unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                LLVMCreateEnumAttribute(LLVMGetModuleContext(M), nounwind, 0));
        /* barriers and group/sub-group operations: O2 must not duplicate them into divergent paths (jump
         * threading put a printf's barrier on two paths; PoCL 3.1 crashed compiling that) */
        if (strstr(name, "Barrier") || strstr(name, "Group") || strstr(name, "sub_group")) {
            unsigned conv = LLVMGetEnumAttributeKindForName("convergent", 10);
            LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                    LLVMCreateEnumAttribute(LLVMGetModuleContext(M), conv, 0));
        }
    }
    return f;
}

static LLVMValueRef call(emit_ctx *E, const char *name, LLVMTypeRef ret, LLVMValueRef *args, unsigned n) {
    LLVMTypeRef at[8];
    for (unsigned i = 0; i < n; i++) at[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef ft = LLVMFunctionType(ret, at, n, 0);
    LLVMValueRef f = spirv_builtin(E->M, name, ft);
    return LLVMBuildCall2(BLD, ft, f, args, n, "");
}

/* OpControlBarrier(exec, mem, semantics) */
static void control_barrier(emit_ctx *E, unsigned exec, unsigned mem, unsigned sem) {
    LLVMValueRef a[3] = {c32(E, exec), c32(E, mem), c32(E, sem)};
    call(E, "_Z22__spirv_ControlBarrieriii", E->vd, a, 3);
}

static LLVMValueRef lane(emit_ctx *E) { return ctx_field(E, CTX_LANEID, E->i32); }

/* sub-group ballot of an i1 (lanes 0..31) */
static LLVMValueRef ballot(emit_ctx *E, LLVMValueRef p) {
    if (v12(E)) {
        LLVMValueRef bit = LLVMBuildShl(BLD, c32(E, 1), lane(E), "");
        LLVMValueRef a[1] = {sel(E, p, bit, c32(E, 0))};
        return call(E, "_Z20sub_group_reduce_addj", E->i32, a, 1);
    }
    LLVMValueRef a[2] = {c32(E, 3), p};
    LLVMValueRef v = call(E, "__spirv_GroupNonUniformBallot", LLVMVectorType(E->i32, 4), a, 2);
    return LLVMBuildExtractElement(BLD, v, c32(E, 0), "");
}

static LLVMValueRef shuffle(emit_ctx *E, LLVMValueRef v, LLVMValueRef src) {
    LLVMValueRef a[3] = {c32(E, 3), v, src};
    if (v12(E)) return call(E, "_Z23intel_sub_group_shufflejj", E->i32, a + 1, 2);
    return call(E, "__spirv_GroupNonUniformShuffle", E->i32, a, 3);
}

/* for spirv_collectives.c / spirv_barrier.c */
LLVMValueRef spirv_sg_ballot(emit_ctx *E, LLVMValueRef p) { return ballot(E, p); }
LLVMValueRef spirv_sg_shuffle(emit_ctx *E, LLVMValueRef v, LLVMValueRef src) { return shuffle(E, v, src); }

static LLVMValueRef unsupported(emit_ctx *E, const char *why, LLVMTypeRef ret) {
    emit_unsupported(E, why);
    return LLVMGetTypeKind(ret) == LLVMVoidTypeKind ? NULL : LLVMGetUndef(ret);
}

/* SPIRV_TRAP_MARKER(ctx, code, msg, file, line, function): code 0 exit, 1 trap, 2 assert (spirv_trap.c) */
static LLVMValueRef trap_marker(emit_ctx *E, LLVMValueRef ctx, unsigned code, LLVMValueRef *as) {
    LLVMValueRef nul = LLVMConstNull(E->ptr);
    LLVMValueRef a[6] = {ctx, c32(E, code), as ? as[1] : nul, as ? as[2] : nul, as ? as[3] : c32(E, 0),
                         as ? as[4] : nul};
    call(E, SPIRV_TRAP_MARKER, E->vd, a, 6);
    return NULL;
}

static LLVMValueRef hook_rt_fn(emit_ctx *E, unsigned slot) {
    LLVMTypeRef f1 = LLVMFunctionType(E->f32, &E->f32, 1, 0);
    LLVMTypeRef f3t[3] = {E->f32, E->f32, E->f32}, d3t[3] = {E->f64, E->f64, E->f64};
    switch (slot) {
    case RT_SINF: return spirv_builtin(E->M, "_Z3sinf", f1);
    case RT_COSF: return spirv_builtin(E->M, "_Z3cosf", f1);
    case RT_EXP2F: return spirv_builtin(E->M, "_Z4exp2f", f1);
    case RT_LOG2F: return spirv_builtin(E->M, "_Z4log2f", f1);
    case RT_TANHF: return spirv_builtin(E->M, "_Z4tanhf", f1);
    case RT_FMAF: return spirv_builtin(E->M, "_Z3fmafff", LLVMFunctionType(E->f32, f3t, 3, 0));
    case RT_FMA: return spirv_builtin(E->M, "_Z3fmaddd", LLVMFunctionType(E->f64, d3t, 3, 0));
    default:
        emit_unsupported(E, "runtime function (no SPIR-V lowering)");
        return spirv_builtin(E->M, "__p2n_spirv_unsupported", LLVMFunctionType(E->vd, NULL, 0, 0));
    }
}

/* the runtime slots that exchange data between lanes: sub-group operations (spirv_subgroups.c gates them) */
static const char *warp_slot(unsigned slot) {
    switch (slot) {
    case RT_SHFL: return "shfl.sync";
    case RT_VOTE: return "vote.sync";
    case RT_ACTIVEMASK: return "activemask";
    case RT_ELECT: return "elect.sync";
    case RT_REDUX: return "redux.sync";
    case RT_MATCH_ANY: case RT_MATCH_ALL: return "match.sync";
    case RT_WARP_SYNC: return "bar.warp.sync";
    case RT_WARP_MATRIX: return "warp-wide matrix operation (ldmatrix/stmatrix/mma/wmma)";
    default: return NULL;
    }
}

static LLVMValueRef hook_rt_call(emit_ctx *E, unsigned slot, LLVMTypeRef ret, LLVMValueRef *a, unsigned n) {
    (void)n;
    const char *warp = warp_slot(slot);
    if (warp && !spirv_needs_subgroups(E, warp)) return LLVMGetTypeKind(ret) == LLVMVoidTypeKind ? NULL : LLVMGetUndef(ret);
    switch (slot) {
    case RT_BARRIER: {
        /* (ctx, id, count, arrive): a full work-group barrier, unless bar.arrive, a thread count or a
         * bar.arrive on the same id need the counting barrier (spirv_barrier.c) */
        if (spirv_barrier(E, a)) return NULL;
        control_barrier(E, 2, 2, 0x308); /* AcqRel | Workgroup | CrossWorkgroup memory */
        return NULL;
    }
    case RT_BARRIER_RED: {
        /* (ctx, id, count, op, pred) -> work-group reduction (OpGroup* Reduce, Workgroup scope) */
        if (!LLVMIsAConstantInt(a[2]) || LLVMConstIntGetZExtValue(a[2])) return spirv_barrier_red_count(E, a);
        if (E->device_lacks & P2N_LACKS_WG_COLLECTIVES) return spirv_barrier_red_atomic(E, a);
        unsigned op = (unsigned)LLVMConstIntGetZExtValue(a[3]);
        control_barrier(E, 2, 2, 0x308);
        LLVMValueRef p = LLVMBuildICmp(BLD, LLVMIntNE, a[4], c32(E, 0), "");
        if (op == P2N_RED_POPC) {
            LLVMValueRef x[3] = {c32(E, 2), c32(E, 0), a[4]};
            return call(E, "__spirv_GroupIAdd", E->i32, x, 3);
        }
        LLVMValueRef x[2] = {c32(E, 2), p};
        LLVMValueRef r = call(E, op == P2N_RED_AND ? "__spirv_GroupAll" : "__spirv_GroupAny", E->i1, x, 2);
        return LLVMBuildZExt(BLD, r, E->i32, "");
    }
    case RT_WARP_SYNC:
        control_barrier(E, 3, 3, 0x388); /* Subgroup scope */
        return NULL;
    case RT_SHFL: /* (ctx, mode, value, b, c, membermask, *in_range): the source lane's value by shuffle */
        return lanes_shfl(E, &spirv_lanes, a);
    case RT_VOTE: return lanes_vote(E, &spirv_lanes, a); /* (ctx, mode, pred, membermask) */
    case RT_ACTIVEMASK: return ballot(E, ci(E->i1, 1));
    case RT_ELECT: return lanes_elect(E, &spirv_lanes, a); /* (ctx, membermask, *is_leader) -> leader lane */
    case RT_REDUX: {
        /* (ctx, op, value, membermask): full-warp reduction */
        /* 1.2 has no non-uniform reductions; the KHR ones reduce over all active lanes, so a partial membermask
         * (lanes outside it may still be active) takes the shuffle loop over the members too */
        if (v12(E) || !LLVMIsAConstantInt(a[3]) || LLVMConstIntGetZExtValue(a[3]) != 0xffffffffu)
            return spirv_redux_loop(E, a);
        unsigned op = (unsigned)LLVMConstIntGetZExtValue(a[1]);
        static const char *const names[] = {"__spirv_GroupNonUniformIAdd", "__spirv_GroupNonUniformSMin",
                                            "__spirv_GroupNonUniformSMax", "__spirv_GroupNonUniformUMin",
                                            "__spirv_GroupNonUniformUMax", "__spirv_GroupNonUniformBitwiseAnd",
                                            "__spirv_GroupNonUniformBitwiseOr", "__spirv_GroupNonUniformBitwiseXor"};
        if (op > 7) return unsupported(E, "redux operation", ret);
        LLVMValueRef x[3] = {c32(E, 3), c32(E, 0), a[2]};
        return call(E, names[op], E->i32, x, 3);
    }
    case RT_IS_LOCAL: {
        /* (ctx, generic address): .local data are Function-class allocas seen through generic pointers; where
         * to_private is a plain cast (PoCL), the work-item's local window instead (spirv_private.c) */
        if (E->device_lacks & P2N_LACKS_SPACE_QUERY) return call(E, SPIRV_IS_LOCAL_MARKER, E->i32, a, 2);
        LLVMValueRef gp = LLVMBuildIntToPtr(BLD, a[1], E->ptr, "");
        LLVMValueRef pp = call(E, "_Z10to_privatePU3AS4v", LLVMPointerTypeInContext(E->C, 0), &gp, 1);
        return LLVMBuildZExt(BLD, LLVMBuildIsNotNull(BLD, pp, ""), E->i32, "");
    }
    case RT_YIELD: spirv_yield(E); return NULL;
    case RT_SMID: return c32(E, 0); /* any SM number is valid */
    case RT_MATCH_ANY: return spirv_match_any(E, a);
    case RT_MATCH_ALL: return spirv_match_all(E, a);
    case RT_WARP_MATRIX: return spirv_warp_matrix(E, a, ret);
    /* No OpReadClockKHR: its capability ShaderClockKHR implicitly declares Shader, after which spirv-val applies
     * the shader rules (structured control flow, constant WorkgroupSize) and rejects the module; PoCL has no
     * clock either. spirv_trap.c lowers the marker to counts kept in the launch's error record (docs/spirv.md). */
    case RT_CLOCK64: case RT_GLOBALTIMER: {
        LLVMValueRef x[2] = {a[0], c32(E, slot == RT_GLOBALTIMER)};
        return call(E, SPIRV_CLOCK_MARKER, E->i64, x, 2);
    }
    case RT_VPRINTF: { /* (ctx, format, args): spirv_printf.c, once O2 has made the format a constant */
        LLVMValueRef x[2] = {a[1], a[2]};
        return call(E, SPIRV_VPRINTF_MARKER, E->i32, x, 2);
    }
    /* (ctx) / (ctx, message, file, line, function, char size): spirv_trap.c lowers the marker */
    case RT_TRAP: return trap_marker(E, a[0], 1, NULL);
    case RT_ASSERTFAIL: { /* char sizes that are codes (host_abi.h): the fault kinds generated code detects */
        unsigned code = p2n_rec_code_of_assert(LLVMIsAConstantInt(a[5]) ? LLVMConstIntGetZExtValue(a[5]) : 0);
        return trap_marker(E, a[0], code, a);
    }
    case RT_EXIT_THREAD: return trap_marker(E, a[0], 0, NULL);
    case RT_MALLOC: case RT_FREE: return spirv_heap_call(E, slot == RT_MALLOC, a); /* spirv_heap.c */
    default: return unsupported(E, "runtime call (no SPIR-V lowering)", ret);
    }
}

/* PTX scope -> LLVM syncscope; spirv_atomics.c turns these into SPIR-V Scopes: a cluster is one CTA here, and
 * .sys is CrossDevice ("all_svm_devices") because device memory is SVM/USM shared with the host. */
const char *const spirv_syncscopes[P2N_SCOPE_COUNT] = {
    [P2N_SCOPE_CTA] = "workgroup", [P2N_SCOPE_CLUSTER] = "workgroup", [P2N_SCOPE_GPU] = "device",
    [P2N_SCOPE_SYS] = "all_svm_devices"};

/* The ctx words SPIR-V keeps elsewhere: launch_flags come from the error record (spirv_trap.c lowers the marker);
 * SPIR-V's own words sit where host_abi.h has it */
static LLVMValueRef hook_ctx_field(emit_ctx *E, unsigned off, LLVMTypeRef t) {
    /* no cooperative launch on SPIR-V backends (the driver refuses it, COOPERATIVE_LAUNCH = 0): never a grid
     * workspace, CUDA's grid.sync() traps as in a plain launch */
    if (off == CTX_GRID_WS) return LLVMConstNull(t);
    if (off != CTX_LAUNCH_FLAGS || t != E->i32) return NULL;
    return call(E, SPIRV_LAUNCH_MARKER, E->i32, &E->ctx, 1);
}

/* a kernel stubbed by --defer-unsupported: code 3 = not supported, the runtime prints the message and fails the
 * launch with 801 */
static void hook_stub_not_supported(emit_ctx *E, LLVMValueRef ctx, const char *msg) {
    LLVMTypeRef at[6] = {E->ptr, E->i32, E->ptr, E->ptr, E->i32, E->ptr};
    LLVMTypeRef ft = LLVMFunctionType(E->vd, at, 6, 0);
    LLVMValueRef marker = LLVMGetNamedFunction(E->M, SPIRV_TRAP_MARKER);
    if (!marker) marker = LLVMAddFunction(E->M, SPIRV_TRAP_MARKER, ft);
    LLVMValueRef nul = LLVMConstNull(E->ptr);
    LLVMValueRef a[6] = {ctx, c32(E, SPIRV_TRAP_NOT_SUPPORTED), device_cstr(E, msg, ".p2n.unsupported"), nul, c32(E, 0), nul};
    LLVMBuildCall2(E->B, ft, marker, a, 6, "");
}

const target_hooks spirv_hooks = {.rt_fn = hook_rt_fn, .rt_call = hook_rt_call, .ctx_field = hook_ctx_field,
                                  .stub_not_supported = hook_stub_not_supported};
