/* spirv_barrier.c — the PTX barriers OpControlBarrier cannot express on SPIR-V: bar.arrive, bar.sync/bar.red with
 * a thread count, and bar.sync on a barrier that some bar.arrive also targets. The AMDGPU target's algorithms,
 * shared code (targets/llvm/emit_lanes.c: lanes_count_barrier, lanes_barrier_red): a counting barrier in a
 * Workgroup word with workgroup-scope atomics and a spin-wait, which needs forward progress between sub-groups (Intel GPUs give it;
 * PoCL's CPU device, P2N_LACKS_FORWARD_PROGRESS, does not: diagnosed there). */
#include <stdio.h>
#include <string.h>

#include "host_abi.h"
#include "llvm_pass.h"
#include "spirv_collectives.h"
#include "spirv_target.h"

#define BLD E->B

static bool is_const(LLVMValueRef v, uint64_t k) { return LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == k; }

static unsigned wg_scope(emit_ctx *E) { return LLVMGetSyncScopeID(E->C, "workgroup", 9); }

/* word `base + (id & 15)` of the module's Workgroup sync words (zeroed by spirv_sync_init in each kernel) */
static LLVMValueRef sync_word(emit_ctx *E, unsigned base, LLVMValueRef id) {
    LLVMValueRef g = LLVMGetNamedGlobal(E->M, SPIRV_SYNC_WORDS);
    LLVMTypeRef ty = LLVMArrayType2(E->i32, SPIRV_SYNC_NWORDS);
    if (!g) {
        g = LLVMAddGlobalInAddressSpace(E->M, ty, SPIRV_SYNC_WORDS, E->t->as_shared);
        LLVMSetInitializer(g, LLVMGetUndef(ty));
        LLVMSetLinkage(g, LLVMInternalLinkage);
        LLVMSetAlignment(g, 16);
    }
    LLVMValueRef idx[2] = {c32(E, 0), LLVMBuildAdd(BLD, LLVMBuildAnd(BLD, id, c32(E, 15), ""), c32(E, base), "")};
    return LLVMBuildGEP2(BLD, ty, g, idx, 2, "");
}

/* Bit k: some bar.arrive/barrier.arrive of function f targets barrier k; bit 16: one with a register id (any
 * barrier). */
static uint32_t arrives_in(const ir_func *f) {
    uint32_t ids = 0;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        const ir_block *bl = &f->blocks[b];
        for (uint32_t i = 0; i < bl->n; i++) {
            const ir_ins *ins = &bl->ins[i];
            if ((ins->op != IR_OP_BAR && ins->op != IR_OP_BARRIER) || !ir_ins_has(ins, IR_M_ARRIVE)) continue;
            if (ins->nops == 0) ids |= 1u;
            else if (ins->ops[0].kind == IR_OPND_IMM) ids |= 1u << (ins->ops[0].val & 15);
            else ids |= 1u << 16;
        }
    }
    return ids;
}

/* The barriers a bar.arrive may target in the same launch as a barrier of the current function: the arrivals of
 * this function and of every .func of the module (a .func may be called from any kernel; another kernel's own
 * arrivals happen in other launches). Cached per function as named metadata. */
static uint32_t arrive_ids(emit_ctx *E) {
    char key[48];
    snprintf(key, sizeof key, "p2n.spirv.arrive.%u", E->fidx);
    if (LLVMGetNamedMetadataNumOperands(E->M, key)) {
        LLVMValueRef op, v = NULL;
        LLVMGetNamedMetadataOperands(E->M, key, &op);
        LLVMGetMDNodeOperands(op, &v);
        return (uint32_t)LLVMConstIntGetZExtValue(v);
    }
    uint32_t ids = arrives_in(E->f);
    for (uint32_t f = 0; f < E->m->nfuncs; f++)
        if (!E->m->funcs[f].is_entry) ids |= arrives_in(&E->m->funcs[f]);
    LLVMMetadataRef v = LLVMValueAsMetadata(c32(E, ids));
    LLVMAddNamedMetadataOperand(E->M, key, LLVMMetadataAsValue(E->C, LLVMMDNodeInContext2(E->C, &v, 1)));
    return ids;
}

/* Can OpControlBarrier (all work-items of the group) implement this one? */
static bool plain_barrier(emit_ctx *E, LLVMValueRef id, LLVMValueRef cnt, bool arrive) {
    if (arrive || !is_const(cnt, 0)) return false;
    uint32_t ids = arrive_ids(E);
    if (!ids) return true;
    return LLVMIsAConstantInt(id) && !(ids & (1u << 16)) && !(ids & (1u << (LLVMConstIntGetZExtValue(id) & 15)));
}

static bool lacks_progress(emit_ctx *E, const char *what) {
    if (!(E->device_lacks & P2N_LACKS_FORWARD_PROGRESS)) return false;
    char why[200];
    snprintf(why, sizeof why, "%s (needs forward progress between work-items, which the device does not give)", what);
    emit_unsupported(E, why);
    return true;
}

static LLVMValueRef laneid(emit_ctx *E) { return ctx_field(E, CTX_LANEID, E->i32); }
static LLVMValueRef lanes_word(emit_ctx *E, unsigned which, LLVMValueRef id) {
    return sync_word(E, which == LANES_WORD_BAR ? SPIRV_SYNC_BAR : SPIRV_SYNC_RED, id);
}
static void red_barrier(emit_ctx *E, LLVMValueRef id, LLVMValueRef cnt);
/* the sub-group (= CUDA warp) primitives for the shared algorithms (targets/llvm/emit_lanes.c); bar.red counts per
 * sub-group, i.e. per CUDA warp (the default group) */
const lane_ops spirv_lanes = {.ballot = spirv_sg_ballot, .read_lane = spirv_sg_shuffle, .laneid = laneid,
                              .sync_word = lanes_word, .red_barrier = red_barrier};

static void count_barrier(emit_ctx *E, LLVMValueRef id, LLVMValueRef cnt, bool wait) {
    lanes_count_barrier(E, &spirv_lanes, id, cnt, wait);
}
static void red_barrier(emit_ctx *E, LLVMValueRef id, LLVMValueRef cnt) { count_barrier(E, id, cnt, true); }

bool spirv_barrier(emit_ctx *E, LLVMValueRef *a) {
    bool arrive = !is_const(a[3], 0);
    if (plain_barrier(E, a[1], a[2], arrive)) return false;
    const char *what = arrive ? "bar.arrive: a counting barrier"
                              : "barrier with a thread count or a bar.arrive partner: a counting barrier";
    /* built on sub-group ballots, and waiters spin for other work-items: both needed (sub-groups named first) */
    if (spirv_needs_subgroups(E, what) && !lacks_progress(E, what)) count_barrier(E, a[1], a[2], !arrive);
    return true;
}

/* RT_YIELD: nothing to do on a GPU. On a device without forward progress (PoCL's CPU device runs a work-group's
 * work-items one after another between barriers) it is also called on the "not yet" path of mbarrier.try_wait
 * and test_wait (emit_sync.c): the caller polls until other work-items arrive, and there a failed poll succeeds
 * later only if the arrivals are made by work-items that run before it. Such kernels are common (every thread
 * arrives, then every thread waits; or thread 0 completes the phase and all wait), so they are not refused:
 * failed polls are counted per work-item and call, and the STALL_POLLS-th ends the launch with "not supported"
 * naming the wait, where the kernel would otherwise hang. On such a device nothing but the work-group's own
 * work-items completes an mbarrier phase (bulk copies complete theirs synchronously, a cluster is one block),
 * so a work-item that polled that often would poll forever. */
enum { STALL_POLLS = 1 << 16 };

void spirv_yield(emit_ctx *E) {
    if (!E->ins || (E->ins->op != IR_OP_MBARRIER_TRY_WAIT && E->ins->op != IR_OP_MBARRIER_TEST_WAIT)) return;
    if (!(E->device_lacks & P2N_LACKS_FORWARD_PROGRESS)) return;
    if (!E->stalls) {
        E->stalls = LLVMBuildAlloca(E->AB, E->i32, "stalls");
        LLVMBuildStore(E->AB, c32(E, 0), E->stalls);
    }
    LLVMValueRef n = LLVMBuildAdd(BLD, LLVMBuildLoad2(BLD, E->i32, E->stalls, ""), c32(E, 1), "");
    LLVMBuildStore(BLD, n, E->stalls);
    LLVMBasicBlockRef stop = new_bb(E, "stalled"), go = new_bb(E, "polling");
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntUGE, n, c32(E, STALL_POLLS), ""), stop, go);
    LLVMPositionBuilderAtEnd(BLD, stop);
    char msg[240];
    snprintf(msg, sizeof msg, "mbarrier.%s at line %u waits for arrivals of work-items that run after it: the "
             "device gives no forward progress between work-items", E->ins->op == IR_OP_MBARRIER_TRY_WAIT ?
             "try_wait" : "test_wait", (unsigned)E->ins->line);
    /* __assertfail with the "not supported" code, as deferred kernels report (defer_unsupported.c): the hook
     * makes it the trap marker, and spirv_trap.c ends the work-item there */
    LLVMValueRef nul = LLVMConstNull(E->ptr);
    LLVMValueRef a[6] = {E->ctx, device_cstr(E, msg, ".p2n.stalled"), nul, c32(E, 0), nul,
                         c64(E, P2N_ASSERT_NOT_SUPPORTED)};
    rt_call(E, RT_ASSERTFAIL, E->vd, a, 6);
    LLVMBuildBr(BLD, go);
    LLVMPositionBuilderAtEnd(BLD, go);
}

/* a: ctx id count op pred (count != 0): counted per sub-group in a Workgroup word around the counting barrier
 * (lanes_barrier_red, emit_lanes.c) */
LLVMValueRef spirv_barrier_red_count(emit_ctx *E, LLVMValueRef *a) {
    const char *what = "barrier reduction with a thread count: a counting barrier";
    if (!spirv_needs_subgroups(E, what) || lacks_progress(E, what)) return LLVMGetUndef(E->i32);
    return lanes_barrier_red(E, &spirv_lanes, a);
}

/* In the kernel wrapper (spirv_lower.c), in uniform control flow before the body: Workgroup variables start
 * undefined, so work-items 0..31 zero the words, then a work-group barrier. */
void spirv_sync_init(LLVMContextRef C, LLVMModuleRef M, LLVMBuilderRef B, LLVMValueRef lin) {
    LLVMValueRef g = LLVMGetNamedGlobal(M, SPIRV_SYNC_WORDS);
    if (!g) return;
    LLVMTypeRef i32 = LLVMInt32TypeInContext(C), ty = LLVMArrayType2(i32, SPIRV_SYNC_NWORDS);
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(B));
    LLVMBasicBlockRef zero = LLVMAppendBasicBlockInContext(C, fn, "sync.zero"),
                      join = LLVMAppendBasicBlockInContext(C, fn, "sync.join");
    LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntULT, lin, LLVMConstInt(i32, SPIRV_SYNC_NWORDS, 0), ""), zero, join);
    LLVMPositionBuilderAtEnd(B, zero);
    LLVMValueRef idx[2] = {LLVMConstInt(i32, 0, 0), lin};
    LLVMSetAlignment(LLVMBuildStore(B, LLVMConstInt(i32, 0, 0), LLVMBuildGEP2(B, ty, g, idx, 2, "")), 4);
    LLVMBuildBr(B, join);
    LLVMPositionBuilderAtEnd(B, join);
    LLVMTypeRef at[3] = {i32, i32, i32};
    LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(C), at, 3, 0);
    LLVMValueRef f = spirv_builtin(M, "_Z22__spirv_ControlBarrieriii", ft); /* convergent */
    /* Workgroup execution and memory scope, AcquireRelease | WorkgroupMemory */
    LLVMValueRef args[3] = {LLVMConstInt(i32, 2, 0), LLVMConstInt(i32, 2, 0), LLVMConstInt(i32, 0x108, 0)};
    LLVMBuildCall2(B, ft, f, args, 3, "");
}

/* full work-group ControlBarrier: Workgroup execution and memory scope, AcqRel | Workgroup | CrossWorkgroup */
static void wg_barrier(emit_ctx *E) {
    LLVMTypeRef at[3] = {E->i32, E->i32, E->i32};
    LLVMTypeRef ft = LLVMFunctionType(E->vd, at, 3, 0);
    LLVMValueRef args[3] = {c32(E, 2), c32(E, 2), c32(E, 0x308)};
    LLVMBuildCall2(BLD, ft, spirv_builtin(E->M, "_Z22__spirv_ControlBarrieriii", ft), args, 3, "");
}

/* a: ctx id count(0) op pred — bar.red over the whole block on a device without work-group collective functions
 * (PoCL 3.1): every work-item adds its (for .and: negated) predicate to a Workgroup counter, a barrier, everyone
 * reads the total, a barrier, everyone takes its part back out. No work-item waits for another except at the two
 * work-group barriers, so it needs no forward progress; the counter is 0 again before any later bar.red reads it
 * (that read comes after that bar.red's first barrier, which every work-item reaches after its subtraction). */
LLVMValueRef spirv_barrier_red_atomic(emit_ctx *E, LLVMValueRef *a) {
    unsigned op = (unsigned)LLVMConstIntGetZExtValue(a[3]);
    LLVMValueRef p = LLVMBuildICmp(BLD, op == P2N_RED_AND ? LLVMIntEQ : LLVMIntNE, a[4], c32(E, 0), "");
    LLVMValueRef part = LLVMBuildZExt(BLD, p, E->i32, "");
    LLVMValueRef w = sync_word(E, SPIRV_SYNC_RED, a[1]);
    LLVMBuildAtomicRMWSyncScope(BLD, LLVMAtomicRMWBinOpAdd, w, part, LLVMAtomicOrderingMonotonic, wg_scope(E));
    wg_barrier(E);
    LLVMValueRef tot = LLVMBuildLoad2(BLD, E->i32, w, "");
    LLVMSetOrdering(tot, LLVMAtomicOrderingMonotonic);
    LLVMSetAtomicSyncScopeID(tot, wg_scope(E));
    LLVMSetAlignment(tot, 4);
    wg_barrier(E);
    LLVMBuildAtomicRMWSyncScope(BLD, LLVMAtomicRMWBinOpSub, w, part, LLVMAtomicOrderingMonotonic, wg_scope(E));
    if (op == P2N_RED_POPC) return tot;
    return LLVMBuildZExt(BLD, LLVMBuildICmp(BLD, op == P2N_RED_AND ? LLVMIntEQ : LLVMIntNE, tot, c32(E, 0), ""), E->i32, "");
}

static bool is_barrier_call(LLVMValueRef I) {
    if (!I || !LLVMIsACallInst(I)) return false;
    LLVMValueRef f = LLVMGetCalledValue(I);
    if (!f || !LLVMIsAFunction(f)) return false;
    size_t len;
    const char *n = LLVMGetValueName2(f, &len);
    return strstr(n, "__spirv_ControlBarrier") != NULL;
}

/* The lowering list's spirv-drop-barrier-fences pass: the fences the shared emission puts around a barrier go,
 * as the OpControlBarrier carries their semantics; the other fences become __spirv_MemoryBarrier with their
 * scope after O2 (spirv_atomics.c). */
bool spirv_pass_drop_barrier_fences(llvm_pass_ctx *X) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(X->M); fn; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef I = LLVMGetFirstInstruction(bb), next; I; I = next) {
                next = LLVMGetNextInstruction(I);
                if (LLVMGetInstructionOpcode(I) != LLVMFence) continue;
                if (is_barrier_call(LLVMGetPreviousInstruction(I)) || is_barrier_call(next))
                    LLVMInstructionEraseFromParent(I);
            }
    return true;
}
