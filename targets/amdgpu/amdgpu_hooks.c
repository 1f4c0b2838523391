/* amdgpu_hooks.c — AMDGPU lowering of what the host target sends through the p2n_rt_table: barriers, warp
 * operations, clocks, traps and the approximate math, as llvm.amdgcn.* intrinsics (docs/amdgpu.md).
 *
 * Warp model: RDNA (gfx10+) runs wave32, one CUDA warp per wave. CDNA (gfx9) runs wave64 holding TWO CUDA
 * warps: laneid = hwlane & 31, the warp's half is hwlane & 32; ballots use llvm.amdgcn.ballot.i64 shifted by
 * the half, shuffles read lane (hwlane & 32) | src through ds_bpermute. */
#include <stdio.h>
#include <string.h>

#include "amdgpu_internal.h"
#include "error_record.h"
#include "host_abi.h"

#define BLD (E->B)

bool amd_wave64(emit_ctx *E) { return E->t->wave_size == 64; }

/* hardware lane within the wave */
LLVMValueRef amd_hw_lane(emit_ctx *E) {
    LLVMValueRef a[2] = {c32(E, 0xffffffffu), c32(E, 0)};
    LLVMValueRef lo = intrin(E, "llvm.amdgcn.mbcnt.lo", NULL, 0, a, 2);
    if (!amd_wave64(E)) return lo;
    LLVMValueRef b[2] = {c32(E, 0xffffffffu), lo};
    return intrin(E, "llvm.amdgcn.mbcnt.hi", NULL, 0, b, 2);
}

/* bit offset of this lane's CUDA warp inside the wave's 64-bit ballot: 0, or 32 for the upper warp on wave64 */
LLVMValueRef amd_warp_half(emit_ctx *E) {
    if (!amd_wave64(E)) return c32(E, 0);
    return LLVMBuildAnd(BLD, amd_hw_lane(E), c32(E, 32), "");
}

/* 32-bit ballot of this lane's CUDA warp */
LLVMValueRef amd_ballot32(emit_ctx *E, LLVMValueRef pred_i1) {
    LLVMValueRef b = intrin(E, "llvm.amdgcn.ballot", &E->i64, 1, &pred_i1, 1);
    if (amd_wave64(E)) b = LLVMBuildLShr(BLD, b, LLVMBuildZExt(BLD, amd_warp_half(E), E->i64, ""), "");
    return LLVMBuildTrunc(BLD, b, E->i32, "");
}

LLVMValueRef amd_laneid(emit_ctx *E) { return LLVMBuildAnd(BLD, amd_hw_lane(E), c32(E, 31), ""); }

void amd_workgroup_fence(emit_ctx *E, LLVMAtomicOrdering ord) {
    LLVMBuildFenceSyncScope(BLD, ord, LLVMGetSyncScopeID(E->C, "workgroup", 9), "");
}

bool amd_is_const(LLVMValueRef v, uint64_t k) { return LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == k; }

/* The generation of the ISA: 9, 10, 11, 12 */
static unsigned gfx_major(emit_ctx *E) {
    const char *c = E->t->cpu;
    return c[3] == '9' ? 9 : (unsigned)((c[3] - '0') * 10 + (c[4] - '0'));
}

/* a 64-bit counter: shader clock (clock64) or the 100 MHz real-time counter (globaltimer, scaled to ns) */
static LLVMValueRef counter(emit_ctx *E, bool realtime) {
    unsigned g = gfx_major(E);
    LLVMValueRef r;
    if (g >= 11) {
        /* s_sendmsg_rtn_b64 MSG_RTN_GET_REALTIME (0x83) / MSG_RTN_GET_TMA... : use realtime for both */
        LLVMValueRef m = c32(E, 0x83);
        r = intrin(E, "llvm.amdgcn.s.sendmsg.rtn", &E->i64, 1, &m, 1);
        if (!realtime) return r;
    } else if (realtime) {
        r = intrin(E, "llvm.amdgcn.s.memrealtime", NULL, 0, NULL, 0);
    } else {
        return intrin(E, "llvm.amdgcn.s.memtime", NULL, 0, NULL, 0);
    }
    return LLVMBuildMul(BLD, r, c64(E, 10), ""); /* 100 MHz -> ns */
}

/* Markers the module lowering resolves (they need the function context: kernel exit = return). */
static LLVMValueRef marker(emit_ctx *E, const char *name) {
    LLVMValueRef f = LLVMGetNamedFunction(E->M, name);
    LLVMTypeRef ft = LLVMFunctionType(E->vd, NULL, 0, 0);
    if (!f) f = LLVMAddFunction(E->M, name, ft);
    return LLVMBuildCall2(BLD, ft, f, NULL, 0, "");
}

static LLVMValueRef amd_rt_call(emit_ctx *E, unsigned slot, LLVMTypeRef ret, LLVMValueRef *a, unsigned n) {
    (void)n;
    switch (slot) {
    case RT_BARRIER: amd_barrier(E, a); return NULL;
    case RT_BARRIER_RED: return amd_barrier_red(E, a);
    case RT_REDUX: return amd_redux(E, a);
    case RT_MATCH_ANY: return amd_match_any(E, a);
    case RT_MATCH_ALL: return amd_match_all(E, a);
    case RT_ELECT: return amd_elect(E, a);
    case RT_WARP_MATRIX: amd_warp_matrix(E, a); return NULL;
    case RT_WARP_SYNC:
        intrin(E, "llvm.amdgcn.wave.barrier", NULL, 0, NULL, 0);
        return NULL;
    case RT_SHFL: return amd_shfl(E, a);
    case RT_VOTE: return amd_vote(E, a);
    case RT_ACTIVEMASK: return amd_ballot32(E, LLVMConstInt(E->i1, 1, 0));
    case RT_YIELD: { /* a failed poll of a wait, nanosleep: the wave ends there if the grid has failed */
        LLVMValueRef k = c32(E, 1);
        intrin(E, "llvm.amdgcn.s.sleep", NULL, 0, &k, 1);
        amd_build_abort_check(BLD, E->M);
        return NULL;
    }
    case RT_SMID: return c32(E, 0); /* %nsmid is 1 in the shared emission: 0 is the one valid SM number */
    case RT_CLOCK64: return counter(E, false);
    case RT_GLOBALTIMER: return counter(E, true);
    /* (ctx) / (ctx, message, file, line, function, char size): an error report (amdgpu_report_errors.c) */
    case RT_TRAP: amd_build_error_report(BLD, E->M, c32(E, P2N_REC_TRAP), NULL, NULL, NULL, NULL); return NULL;
    case RT_ASSERTFAIL: { /* char sizes that are codes (host_abi.h): the fault kinds generated code detects */
        unsigned code = p2n_rec_code_of_assert(LLVMIsAConstantInt(a[5]) ? LLVMConstIntGetZExtValue(a[5]) : 0);
        amd_build_error_report(BLD, E->M, c32(E, code), a[1], a[2], a[3], a[4]);
        return NULL;
    }
    case RT_EXIT_THREAD:
        if (E->ins && E->f && E->f->is_entry) return marker(E, "__p2n_amd_exit");
        emit_unsupported(E, "exit inside a device function");
        return NULL;
    case RT_IS_LOCAL: {
        LLVMValueRef p = LLVMBuildIntToPtr(BLD, a[1], E->ptr, "");
        LLVMValueRef r = intrin(E, "llvm.amdgcn.is.private", NULL, 0, &p, 1);
        return LLVMBuildZExt(BLD, r, E->i32, "");
    }
    /* HIP's hostcall printf and device heap (ockl), amdgpu_printf.c */
    case RT_VPRINTF: return amd_vprintf(E, a);
    case RT_MALLOC: return amd_malloc(E, a);
    case RT_FREE: amd_free(E, a); return NULL;
    default: {
        static const char *const names[] = {
            "bar.red", "bar.red", "shfl", "vote", "match.any", "match.all", "redux", "activemask", "bar.warp.sync",
            "elect", "yield", "clock64", "globaltimer", "%smid", "printf", "trap", "assert", "exit", "sin", "cos",
            "ex2", "lg2", "tanh", "fma", "fma", "malloc", "free", "warp matrix operation", "isspacep.local"};
        char why[160];
        snprintf(why, sizeof why, "%s is not implemented for AMDGPU yet",
                 slot < sizeof names / sizeof names[0] ? names[slot] : "runtime operation");
        emit_unsupported(E, why);
        return ret == E->vd ? NULL : LLVMGetPoison(ret);
    }
    }
}

/* Math the host takes from the runtime table. fma: llvm.fma (native, exactly rounded). The .approx
 * transcendentals (sin/cos/ex2/lg2/tanh f32, and the f16/bf16 ex2/tanh the emission widens to f32) call the
 * ROCm device library, linked by the amdgpu-link-devlibs pass (amdgpu_devlibs.c): the bare instructions are outside the
 * PTX bounds — v_sin/v_cos(x/2pi) loses the argument's low bits beyond |x| ~ 11, v_exp_f32 does not produce
 * subnormal results nor v_log_f32 take subnormal inputs (PTX's non-.ftz forms do), and 1 - 2/(e^2x + 1)
 * cancels for small |x| — while ocml reduces arguments exactly, rescales around the subnormal range and
 * switches tanh to a polynomial near 0 (docs/amdgpu.md "Math" has the error argument per function). */
static LLVMValueRef amd_rt_fn(emit_ctx *E, unsigned slot) {
    LLVMTypeRef ty = slot == RT_FMA ? E->f64 : E->f32;
    if (slot == RT_FMA || slot == RT_FMAF) {
        unsigned id = LLVMLookupIntrinsicID("llvm.fma", 8);
        return LLVMGetIntrinsicDeclaration(E->M, id, &ty, 1);
    }
    const char *name = slot == RT_SINF ? "__ocml_sin_f32" : slot == RT_COSF ? "__ocml_cos_f32"
                     : slot == RT_EXP2F ? "__ocml_exp2_f32" : slot == RT_LOG2F ? "__ocml_log2_f32"
                     : slot == RT_TANHF ? "__ocml_tanh_f32" : NULL;
    if (!name) {
        emit_unsupported(E, "runtime function not available on AMDGPU");
        return LLVMGetPoison(E->ptr);
    }
    LLVMValueRef f = LLVMGetNamedFunction(E->M, name);
    if (!f) f = LLVMAddFunction(E->M, name, LLVMFunctionType(E->f32, &E->f32, 1, 0));
    return f;
}

const char *const amdgpu_syncscopes[P2N_SCOPE_COUNT] = {
    [P2N_SCOPE_CTA] = "workgroup", [P2N_SCOPE_CLUSTER] = "agent", [P2N_SCOPE_GPU] = "agent", [P2N_SCOPE_SYS] = ""};

/* HSA dispatch packet field (ntid: workgroup_size_x/y/z at 4, grid: grid_size_x/y/z at 12), zero-extended. The
 * packet does not change while the kernel runs: invariant, so the reads of every use CSE into one. */
static LLVMValueRef dispatch_u32(emit_ctx *E, unsigned off, LLVMTypeRef ty) {
    LLVMValueRef dp = intrin(E, "llvm.amdgcn.dispatch.ptr", NULL, 0, NULL, 0);
    LLVMValueRef o = c64(E, off);
    LLVMValueRef v = LLVMBuildLoad2(BLD, ty, LLVMBuildGEP2(BLD, E->i8, dp, &o, 1, ""), "");
    LLVMSetAlignment(v, ty == E->i16 ? 2 : 4);
    LLVMSetMetadata(v, LLVMGetMDKindIDInContext(E->C, "invariant.load", 14),
                    LLVMMetadataAsValue(E->C, LLVMMDNodeInContext2(E->C, NULL, 0)));
    return LLVMBuildZExt(BLD, v, E->i32, "");
}

static LLVMValueRef ntid(emit_ctx *E, unsigned c) { return dispatch_u32(E, 4 + 2 * c, E->i16); }

/* Special registers straight from intrinsics and the dispatch packet, in kernels and device functions alike
 * (the workitem ids and the dispatch pointer reach callees through the calling convention): ctx then carries
 * only the shared-memory window (amdgpu_lower.c), and a kernel whose callees do not read it passes no ctx at
 * all, where filling it in scratch around (indirect, recursive) calls cost two udivs and a dozen stores.
 * Same values as the ctx the wrapper used to fill: laneid/warpid from the linear thread index. */
static LLVMValueRef amd_ctx_field(emit_ctx *E, unsigned off, LLVMTypeRef t) {
    static const char *const wi[3] = {"llvm.amdgcn.workitem.id.x", "llvm.amdgcn.workitem.id.y",
                                      "llvm.amdgcn.workitem.id.z"};
    static const char *const wg[3] = {"llvm.amdgcn.workgroup.id.x", "llvm.amdgcn.workgroup.id.y",
                                      "llvm.amdgcn.workgroup.id.z"};
    /* no cooperative launch on AMDGPU (the driver refuses it, device attribute COOPERATIVE_LAUNCH = 0): never a
     * grid workspace, CUDA's grid.sync() traps as in a plain launch */
    if (off == CTX_GRID_WS) return LLVMConstNull(t);
    if (t != E->i32) return NULL;
    if (off < CTX_TID + 12 && off % 4 == 0) /* CTX_TID = 0 */
        return intrin(E, wi[(off - CTX_TID) / 4], NULL, 0, NULL, 0);
    if (off >= CTX_NTID && off < CTX_NTID + 12 && off % 4 == 0) return ntid(E, (off - CTX_NTID) / 4);
    if (off >= CTX_CTAID && off < CTX_CTAID + 12 && off % 4 == 0)
        return intrin(E, wg[(off - CTX_CTAID) / 4], NULL, 0, NULL, 0);
    if (off >= CTX_NCTAID && off < CTX_NCTAID + 12 && off % 4 == 0) {
        unsigned c = (off - CTX_NCTAID) / 4;
        return LLVMBuildUDiv(BLD, dispatch_u32(E, 12 + 4 * c, E->i32), ntid(E, c), "");
    }
    if (off == CTX_LANEID || off == CTX_WARPID) {
        LLVMValueRef tid[3];
        for (unsigned c = 0; c < 3; c++) tid[c] = intrin(E, wi[c], NULL, 0, NULL, 0);
        LLVMValueRef yz = LLVMBuildAdd(BLD, tid[1], LLVMBuildMul(BLD, ntid(E, 1), tid[2], ""), "");
        LLVMValueRef lin = LLVMBuildAdd(BLD, tid[0], LLVMBuildMul(BLD, ntid(E, 0), yz, ""), "");
        return off == CTX_LANEID ? LLVMBuildAnd(BLD, lin, c32(E, 31), "") : LLVMBuildLShr(BLD, lin, c32(E, 5), "");
    }
    if (off == CTX_NWARPID) {
        LLVMValueRef n = LLVMBuildMul(BLD, LLVMBuildMul(BLD, ntid(E, 0), ntid(E, 1), ""), ntid(E, 2), "");
        return LLVMBuildLShr(BLD, LLVMBuildAdd(BLD, n, c32(E, 31), ""), c32(E, 5), "");
    }
    return NULL;
}

/* --fp-atomics=native: without these the AMDGPU back end expands the add into its own compare-exchange loop: the
 * memory is not fine-grained host memory (device allocations), and the instruction's fixed denormal mode is
 * accepted (that is what the option asks for) */
static void amd_mark_native_fp_atomic(emit_ctx *E, LLVMValueRef r) {
    const char *kinds[] = {"amdgpu.no.fine.grained.memory", "amdgpu.ignore.denormal.mode"};
    for (unsigned k = 0; k < 2; k++)
        LLVMSetMetadata(r, LLVMGetMDKindIDInContext(E->C, kinds[k], (unsigned)strlen(kinds[k])),
                        LLVMMetadataAsValue(E->C, LLVMMDNodeInContext2(E->C, NULL, 0)));
}

/* the module's error record, once per emitted module (amdgpu_report_errors.c) */
static void amd_before_bodies(emit_ctx *E) { amdgpu_define_error_record(E->M); }

/* a kernel or .func stubbed by --defer-unsupported: its launches fail with CUDA_ERROR_NOT_SUPPORTED and msg */
static void amd_stub_not_supported(emit_ctx *E, LLVMValueRef ctx, const char *msg) {
    (void)ctx;
    amd_build_error_report(BLD, E->M, c32(E, P2N_REC_NOT_SUPPORTED), device_cstr(E, msg, ".p2n.unsupported"), NULL,
                           NULL, NULL);
}

const target_hooks amdgpu_hooks = {.before_bodies = amd_before_bodies, .stub_not_supported = amd_stub_not_supported,
                                   .rt_fn = amd_rt_fn, .rt_call = amd_rt_call, .ctx_field = amd_ctx_field,
                                   .barrier_acq_rel = true, .cvt_f64_s32_clamp = true, .keep_func_calls = true,
                                   .global_as = 1, .mark_native_fp_atomic = amd_mark_native_fp_atomic};
