/* work_item_loops.c — work-item loops for host kernels whose threads wait for each other only at block barriers
 * (abi/host_abi.h, "Work-item loops").
 *
 * Why: a kernel with __syncthreads runs its threads as coroutines (host_coro.c): every thread is resumed by an
 * indirect call at every barrier, its live values in a frame of its own, one thread at a time. CPU SPMD compilers
 * (PoCL's work-item loops, whole-function vectorisation) instead cut the kernel at its barriers into regions and
 * run each region as a loop over the block's threads: the code between two barriers is straight code again, the
 * loop invariants (parameters, block coordinates, shared-memory bases) are hoisted, and LLVM may vectorise across
 * threads. Values live across a barrier go to per-thread arrays (one array per value: thread t's copy at
 * frame + n * offset + t * size, so a region loop reads them with unit stride).
 *
 * Which kernels: those whose threads can wait for each other only at block barriers (thread_loop.c's analysis
 * with barriers allowed: no warp collectives, no timers, no spin loops — a strong access in a loop is one only if
 * some cycle through it passes no barrier), whose barriers all lie in the kernel's
 * own body and are bar.sync 0 / barrier.sync 0 without a thread count, with no activemask, isspacep.local,
 * stack save/restore, variable-size alloca, or call of a function that waits or ends the thread, at most
 * MAX_BARRIERS barriers. Every other kernel keeps its coroutine (or fiber) entry, which the runtime uses with
 * P2N_CPU_THREADLOOP=0 for these too: both ways must agree.
 *
 * Semantics kept: a barrier releases when every thread that has not exited has arrived at some bar.sync 0 (the
 * runtime's rule, cpu_bar_complete: exited threads count as arrived, and different bar.sync 0 sites release
 * together, as on sm_70+). The block entry runs in phases: in each phase every live thread runs once, from the
 * region it waits at (pc[t]) to its next barrier or its end; the phase's regions run in order, each as a loop over
 * the threads whose pc is that region. A thread's new pc carries the next phase's parity bit so that a later
 * region loop of the same phase does not run it again. Divergent barriers thus cost a phase with several region
 * loops, never a wrong result.
 *
 * The transform, for kernel K (K itself and K.coro stay):
 *   1. T = copy of K. Its loop back-edge yields go (no thread of such a kernel can spin on another), then blocks
 *      no longer reached. Each barrier call gets a block of its own, B_k = [call; br C_k]; the fences emitted
 *      around the call go (threads of a block run one after another on one OS thread here).
 *   2. A value v defined in block D is kept across barriers when some use U (a phi's use: the end of the incoming
 *      block) is reached from some C_k without passing D while B_k is reached from D: then a thread may reach U
 *      after a barrier with v from before it. Such a use loads v from v's array (stored after the definition);
 *      other uses keep v (the path argument: every path from C_k to such a use passes D). A value computable again
 *      from the thread's coordinates, the parameters and constants (a few pure instructions) is recomputed at the
 *      use instead. Allocas become per-thread arrays too.
 *   3. B_k becomes "pc[t] = k + 1; return", a return "pc[t] = DONE; return"; a new first block `dispatch`
 *      branches to the original entry (region 0) and to every C_k (region k + 1).
 *   4. T.region<r> = copy of T whose dispatch branches to region r only (internal, always inlined).
 *   5. K.wi(params, ctx), the kernel's block entry: frame = rt->coro_frame(ctx, per-thread bytes) (the runtime's
 *      n frames of thread 0 in a row: the block's arrays), pc[t] = 0, then the phases; the thread's coordinates go
 *      into ctx before each region call, where the region code (and any runtime function) reads them.
 * The descriptor names K.wi as block entry with P2N_KERNEL_THREAD_LOOP | P2N_KERNEL_WORK_ITEM_LOOPS.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Error.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "codegen.h"
#include "emit.h"
#include "host_coro.h"
#include "host_emit.h"
#include "host_rt_calls.h"
#include "work_item_loops.h"

enum { MAX_BARRIERS = 62,               /* regions fit the 64-bit mask of the phase loop */
       REMAT_MAX = 12,                  /* instructions a recomputed value may take */
       SEARCH_BUDGET = 50 * 1000 * 1000, /* block visits of the use analysis before the kernel keeps coroutines */
       COPY_BUDGET = 2 * 1000 * 1000 /* instructions of all region copies together (before dead code goes) */ };
#define PC_DONE 0xffffffffu
#define PC_PARITY 0x40000000u

typedef struct wi {
    LLVMContextRef C;
    LLVMModuleRef M;
    LLVMBuilderRef B;
    LLVMTargetDataRef TD;
    LLVMTypeRef ptr, i8, i32, i64;
    LLVMValueRef fn, ctx;
    /* blocks of T, in order, with their successors and predecessors */
    LLVMBasicBlockRef *bb;
    unsigned nbb;
    unsigned **succ, *nsucc, **pred, *npred;
    /* barrier k: its block B_k and continuation C_k (block indices) */
    unsigned *bar_blk, *cont_blk, nbar;
    uint64_t frame_bytes; /* per thread */
    uint64_t budget;
    /* the frame's arrays of kept values and pc, each its own alias scope (apply_scopes): the accesses to them */
    LLVMValueRef *acc;
    unsigned *acc_arr, narrays;
    size_t nacc, capacc;
    LLVMValueRef *scope, *others, all; /* per array: its scope list, the other arrays' list; all arrays */
    unsigned pc_arr;
    bool oom;
} wi;

/* ------------------------------------------------------------------------------------------- small helpers */

static bool run_function_passes(LLVMValueRef fn, const char *passes);

static LLVMValueRef k32(wi *W, uint64_t v) { return LLVMConstInt(W->i32, v, 0); }
static LLVMValueRef k64(wi *W, uint64_t v) { return LLVMConstInt(W->i64, v, 0); }

static LLVMValueRef ctx_addr(wi *W, LLVMValueRef ctx, uint64_t off) {
    LLVMValueRef o = k64(W, off);
    return LLVMBuildGEP2(W->B, W->i8, ctx, &o, 1, "");
}

static LLVMValueRef ctx_u32(wi *W, LLVMValueRef ctx, uint64_t off) {
    return LLVMBuildLoad2(W->B, W->i32, ctx_addr(W, ctx, off), "");
}

static bool is_zero(LLVMValueRef v) { return LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == 0; }

static bool is_intrinsic_named(LLVMValueRef call, const char *prefix) {
    if (!LLVMIsACallInst(call)) return false;
    LLVMValueRef f = LLVMGetCalledValue(call);
    if (!LLVMIsAFunction(f)) return false;
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    return len >= strlen(prefix) && memcmp(name, prefix, strlen(prefix)) == 0;
}

/* T's parameters after the kernel's (params, ctx): the frame, the thread's coordinates, its linear index, the
 * block's thread count */
enum { ARG_FRAME = 2, ARG_X, ARG_Y, ARG_Z, ARG_T, ARG_N, NARGS };

/* the address of thread t's copy in the array at `off` (elements of `size` bytes) */
static LLVMValueRef slot_addr(wi *W, uint64_t off, uint64_t size) {
    LLVMValueRef t = LLVMGetParam(W->fn, ARG_T), n = LLVMGetParam(W->fn, ARG_N);
    LLVMValueRef byte = LLVMBuildAdd(W->B, LLVMBuildMul(W->B, LLVMBuildZExt(W->B, n, W->i64, ""), k64(W, off), ""),
                                     LLVMBuildMul(W->B, LLVMBuildZExt(W->B, t, W->i64, ""), k64(W, size), ""), "");
    return LLVMBuildGEP2(W->B, W->i8, LLVMGetParam(W->fn, ARG_FRAME), &byte, 1, "");
}

/* The kernel reads the thread's coordinates from ctx: T takes them as arguments instead (the region loops' induction
 * variables once inlined; the block entry still writes them into ctx for the calls that look there). */
static void coordinates_from_arguments(wi *W) {
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(W->fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb), next; I; I = next) {
            next = LLVMGetNextInstruction(I);
            if (!LLVMIsALoadInst(I) || LLVMGetVolatile(I) || LLVMTypeOf(I) != W->i32) continue;
            LLVMValueRef a = LLVMGetOperand(I, 0);
            uint64_t off = 0; /* tid.x is ctx's first field: its load may take ctx itself */
            if (a != W->ctx) {
                if (!LLVMIsAGetElementPtrInst(a) || LLVMGetNumOperands(a) != 2 || LLVMGetOperand(a, 0) != W->ctx ||
                    LLVMGetGEPSourceElementType(a) != W->i8 || !LLVMIsAConstantInt(LLVMGetOperand(a, 1)))
                    continue;
                off = LLVMConstIntGetZExtValue(LLVMGetOperand(a, 1));
            }
            LLVMValueRef v = NULL, t = LLVMGetParam(W->fn, ARG_T);
            LLVMPositionBuilderBefore(W->B, I);
            if (off == CTX_TID) v = LLVMGetParam(W->fn, ARG_X);
            else if (off == CTX_TID + 4) v = LLVMGetParam(W->fn, ARG_Y);
            else if (off == CTX_TID + 8) v = LLVMGetParam(W->fn, ARG_Z);
            else if (off == CTX_LANEID) v = LLVMBuildAnd(W->B, t, k32(W, 31), "");
            else if (off == CTX_WARPID) v = LLVMBuildLShr(W->B, t, k32(W, 5), "");
            if (!v) continue;
            LLVMReplaceAllUsesWith(I, v);
            LLVMInstructionEraseFromParent(I);
        }
}

/* Whether region function f may look at the thread's coordinates in ctx: it calls anything but intrinsics, or
 * uses ctx otherwise than through constant byte offsets away from them (coordinates_from_arguments replaced
 * the loads it recognised; anything else keeps the stores). */
static bool calls_out(LLVMValueRef f) {
    LLVMValueRef ctx = LLVMGetParam(f, 1);
    for (LLVMUseRef u = LLVMGetFirstUse(ctx); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef g = LLVMGetUser(u);
        if (!LLVMIsAGetElementPtrInst(g) || LLVMGetNumOperands(g) != 2 || LLVMGetOperand(g, 0) != ctx ||
            !LLVMIsAConstantInt(LLVMGetOperand(g, 1)) ||
            LLVMGetTypeKind(LLVMGetGEPSourceElementType(g)) != LLVMIntegerTypeKind ||
            LLVMGetIntTypeWidth(LLVMGetGEPSourceElementType(g)) != 8)
            return true;
        uint64_t off = LLVMConstIntGetZExtValue(LLVMGetOperand(g, 1));
        if (!LLVMGetFirstUse(g)) continue; /* left by coordinates_from_arguments */
        if (off < CTX_TID + 12 || (off >= CTX_LANEID && off < CTX_LANEID + 4) || (off >= CTX_WARPID && off < CTX_WARPID + 4))
            return true;
    }
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
            if (!LLVMIsACallInst(I)) continue;
            LLVMValueRef c = LLVMGetCalledValue(I);
            if (LLVMIsAInlineAsm(c) || (LLVMIsAFunction(c) && LLVMGetIntrinsicID(c))) continue;
            return true;
        }
    return false;
}

/* a new array of n elements of `size` bytes aligned to `align` in the frame: its offset per thread */
static uint64_t new_array(wi *W, uint64_t size, uint64_t align) {
    uint64_t off = (W->frame_bytes + align - 1) & ~(align - 1);
    W->frame_bytes = off + size;
    return off;
}

/* I accesses frame array `arr` (value arrays and pc, numbered in creation order); false: out of memory */
static bool note_access(wi *W, LLVMValueRef I, unsigned arr) {
    if (W->nacc == W->capacc) {
        size_t cap = W->capacc ? 2 * W->capacc : 64;
        LLVMValueRef *a = realloc(W->acc, cap * sizeof *a);
        if (!a) return false;
        W->acc = a;
        unsigned *b = realloc(W->acc_arr, cap * sizeof *b);
        if (!b) return false;
        W->acc_arr = b;
        W->capacc = cap;
    }
    W->acc[W->nacc] = I;
    W->acc_arr[W->nacc++] = arr;
    return true;
}

/* Alias scopes: each frame array of kept values (and pc) is memory no kernel pointer reaches, and the arrays are
 * disjoint; without saying so LLVM guards every vectorised region loop with run-time overlap checks of each
 * array against each shared/global access (dozens of them per loop run, more than the loop's work at 16
 * threads a row). Accesses to array i get !alias.scope {i} and !noalias {the others}; every other memory access
 * and call of T gets !noalias {all arrays}. */
static bool apply_scopes(wi *W, const char *kname) {
    if (!W->narrays) return true;
    LLVMContextRef C = W->C;
    size_t len = strlen(kname) + 48;
    char *nm = malloc(len);
    LLVMMetadataRef *sc = calloc(W->narrays, sizeof *sc), *tmp = calloc(W->narrays, sizeof *tmp);
    W->scope = calloc(W->narrays, sizeof *W->scope);
    W->others = calloc(W->narrays, sizeof *W->others);
    if (!nm || !sc || !tmp || !W->scope || !W->others) {
        free(nm); free(sc); free(tmp);
        return false;
    }
    snprintf(nm, len, "p2n.work-item-loops.%s", kname);
    LLVMMetadataRef dstr = LLVMMDStringInContext2(C, nm, strlen(nm));
    LLVMMetadataRef domain = LLVMMDNodeInContext2(C, &dstr, 1);
    for (unsigned i = 0; i < W->narrays; i++) {
        snprintf(nm, len, "p2n.work-item-loops.%s.%u", kname, i);
        LLVMMetadataRef ops[2] = {LLVMMDStringInContext2(C, nm, strlen(nm)), domain};
        sc[i] = LLVMMDNodeInContext2(C, ops, 2);
        W->scope[i] = LLVMMetadataAsValue(C, LLVMMDNodeInContext2(C, &sc[i], 1));
    }
    W->all = LLVMMetadataAsValue(C, LLVMMDNodeInContext2(C, sc, W->narrays));
    for (unsigned i = 0; i < W->narrays; i++) {
        unsigned n = 0;
        for (unsigned j = 0; j < W->narrays; j++)
            if (j != i) tmp[n++] = sc[j];
        W->others[i] = LLVMMetadataAsValue(C, LLVMMDNodeInContext2(C, tmp, n));
    }
    free(nm);
    free(sc);
    free(tmp);
    unsigned kscope = LLVMGetMDKindIDInContext(C, "alias.scope", 11), knoalias = LLVMGetMDKindIDInContext(C, "noalias", 7);
    for (size_t a = 0; a < W->nacc; a++) {
        LLVMSetMetadata(W->acc[a], kscope, W->scope[W->acc_arr[a]]);
        LLVMSetMetadata(W->acc[a], knoalias, W->others[W->acc_arr[a]]);
    }
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(W->fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
            if (!LLVMIsALoadInst(I) && !LLVMIsAStoreInst(I) && !LLVMIsACallInst(I) && !LLVMIsAAtomicRMWInst(I) &&
                !LLVMIsAAtomicCmpXchgInst(I))
                continue;
            if (LLVMGetMetadata(I, kscope)) continue; /* a frame array's */
            LLVMSetMetadata(I, knoalias, W->all);
        }
    return true;
}

/* ------------------------------------------------------------------------------------------------ checks */

/* Whether kernel k fits (the rules at the top); *nbar gets its barrier count. */
static bool kernel_fits(host_seen *S, LLVMValueRef k, unsigned *nbar) {
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(k);
    unsigned n = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(k); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
            if (LLVMGetInstructionOpcode(I) == LLVMIndirectBr) return false; /* brx.idx: block addresses to copy */
            if (LLVMIsAAllocaInst(I)) {
                if (bb != entry || !LLVMIsAConstant(LLVMGetOperand(I, 0)) || LLVMGetAlignment(I) > 64) return false;
                continue;
            }
            if (!LLVMIsACallInst(I)) continue;
            int slot = host_rt_slot(I);
            if (slot >= 0) {
                if (slot == RT_BARRIER) {
                    if (LLVMGetNumArgOperands(I) != 4 || !is_zero(LLVMGetOperand(I, 1)) ||
                        !is_zero(LLVMGetOperand(I, 2)) || !is_zero(LLVMGetOperand(I, 3)))
                        return false;
                    n++;
                } else if (slot == RT_ACTIVEMASK || slot == RT_IS_LOCAL ||
                           (host_slot_waits((unsigned)slot) && slot != RT_YIELD)) {
                    return false;
                }
                continue;
            }
            LLVMValueRef callee = LLVMGetCalledValue(I);
            if (LLVMIsAInlineAsm(callee)) continue;
            if (!LLVMIsAFunction(callee)) return false;
            if (is_intrinsic_named(I, "llvm.stacksave") || is_intrinsic_named(I, "llvm.stackrestore")) return false;
            if (!host_callee_clean(S, callee)) return false;
        }
    *nbar = n;
    return n > 0 && n <= MAX_BARRIERS;
}

/* ------------------------------------------------------------------------------------------- CFG tables */

typedef struct bmap {
    LLVMBasicBlockRef *key;
    unsigned *val, cap;
} bmap;

static unsigned bmap_hash(LLVMBasicBlockRef b, unsigned cap) {
    uint64_t x = (uint64_t)(uintptr_t)b;
    x ^= x >> 17;
    x *= 0x9e3779b97f4a7c15ull;
    return (unsigned)(x >> 32) & (cap - 1);
}

static bool bmap_init(bmap *m, unsigned n) {
    m->cap = 16;
    while (m->cap < 2 * n) m->cap *= 2;
    m->key = calloc(m->cap, sizeof *m->key);
    m->val = calloc(m->cap, sizeof *m->val);
    return m->key && m->val;
}

static void bmap_put(bmap *m, LLVMBasicBlockRef b, unsigned v) {
    unsigned h = bmap_hash(b, m->cap);
    while (m->key[h] && m->key[h] != b) h = (h + 1) & (m->cap - 1);
    m->key[h] = b;
    m->val[h] = v;
}

static unsigned bmap_get(const bmap *m, LLVMBasicBlockRef b) {
    unsigned h = bmap_hash(b, m->cap);
    while (m->key[h] && m->key[h] != b) h = (h + 1) & (m->cap - 1);
    return m->key[h] ? m->val[h] : ~0u;
}

static void free_cfg(wi *W) {
    for (unsigned i = 0; i < W->nbb; i++) {
        if (W->succ) free(W->succ[i]);
        if (W->pred) free(W->pred[i]);
    }
    free(W->succ);
    free(W->pred);
    free(W->nsucc);
    free(W->npred);
    free(W->bb);
    W->succ = W->pred = NULL;
    W->nsucc = W->npred = NULL;
    W->bb = NULL;
    W->nbb = 0;
}

static bool build_cfg(wi *W, bmap *map) {
    unsigned n = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(W->fn); b; b = LLVMGetNextBasicBlock(b)) n++;
    W->nbb = n;
    W->bb = calloc(n, sizeof *W->bb);
    W->succ = calloc(n, sizeof *W->succ);
    W->pred = calloc(n, sizeof *W->pred);
    W->nsucc = calloc(n, sizeof *W->nsucc);
    W->npred = calloc(n, sizeof *W->npred);
    if (!W->bb || !W->succ || !W->pred || !W->nsucc || !W->npred || !bmap_init(map, n)) return false;
    unsigned i = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(W->fn); b; b = LLVMGetNextBasicBlock(b), i++) {
        W->bb[i] = b;
        bmap_put(map, b, i);
    }
    for (i = 0; i < n; i++) {
        LLVMValueRef term = LLVMGetBasicBlockTerminator(W->bb[i]);
        unsigned ns = term ? LLVMGetNumSuccessors(term) : 0;
        W->succ[i] = calloc(ns + 1, sizeof **W->succ);
        if (!W->succ[i]) return false;
        for (unsigned s = 0; s < ns; s++) {
            unsigned j = bmap_get(map, LLVMGetSuccessor(term, s));
            if (j == ~0u) return false;
            W->succ[i][W->nsucc[i]++] = j;
            W->npred[j]++;
        }
    }
    unsigned *fill = calloc(n, sizeof *fill);
    if (!fill) return false;
    for (i = 0; i < n; i++) {
        W->pred[i] = calloc(W->npred[i] + 1, sizeof **W->pred);
        if (!W->pred[i]) { free(fill); return false; }
    }
    for (i = 0; i < n; i++)
        for (unsigned s = 0; s < W->nsucc[i]; s++) {
            unsigned j = W->succ[i][s];
            W->pred[j][fill[j]++] = i;
        }
    free(fill);
    return true;
}

/* marks in `seen` every block reached from `from` along `dir` (successors or predecessors) without entering
 * `avoid` (~0u: none); `from` itself is marked. Counts visits against the budget. */
static bool reach(wi *W, unsigned from, unsigned avoid, bool backward, uint8_t *seen, unsigned *stack) {
    memset(seen, 0, W->nbb);
    if (from == avoid) return true;
    unsigned sp = 0;
    stack[sp++] = from;
    seen[from] = 1;
    while (sp) {
        unsigned b = stack[--sp];
        if (W->budget-- == 0) return false;
        unsigned ns = backward ? W->npred[b] : W->nsucc[b];
        unsigned *to = backward ? W->pred[b] : W->succ[b];
        for (unsigned s = 0; s < ns; s++) {
            unsigned j = to[s];
            if (seen[j] || j == avoid) continue;
            seen[j] = 1;
            stack[sp++] = j;
        }
    }
    return true;
}

/* ------------------------------------------------------------------------------------- recomputed values */

/* Whether v can be computed again anywhere in the thread from constants, the arguments, the thread's ctx fields
 * (coordinates, sizes, shared-memory base: fixed for the thread's life) and the read-only parameters, in at most
 * *left more pure instructions. */
static bool remat_ok(wi *W, LLVMValueRef v, int *left) {
    if (LLVMIsAConstant(v) || LLVMIsAArgument(v)) return true;
    if (!LLVMIsAInstruction(v) || --*left < 0) return false;
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMLShr: case LLVMAShr: case LLVMAnd:
    case LLVMOr: case LLVMXor: case LLVMZExt: case LLVMSExt: case LLVMTrunc: case LLVMICmp: case LLVMSelect:
    case LLVMGetElementPtr: case LLVMPtrToInt: case LLVMIntToPtr: case LLVMBitCast:
        break;
    case LLVMLoad: {
        if (LLVMGetVolatile(v) || LLVMGetOrdering(v) != LLVMAtomicOrderingNotAtomic) return false;
        LLVMValueRef a = LLVMGetOperand(v, 0);
        if (LLVMIsAArgument(a)) return a == LLVMGetParam(W->fn, 0) || a == W->ctx; /* params, ctx->tid.x */
        if (!LLVMIsAGetElementPtrInst(a) || LLVMGetNumOperands(a) != 2 ||
            LLVMGetGEPSourceElementType(a) != W->i8)
            return false;
        LLVMValueRef base = LLVMGetOperand(a, 0), off = LLVMGetOperand(a, 1);
        if (!LLVMIsAConstantInt(off)) return false;
        if (base == LLVMGetParam(W->fn, 0)) return true;                 /* a parameter: read-only */
        return base == W->ctx && LLVMConstIntGetZExtValue(off) < CTX_YIELD; /* fixed ctx fields */
    }
    default:
        return false;
    }
    unsigned n = (unsigned)LLVMGetNumOperands(v);
    for (unsigned i = 0; i < n; i++)
        if (!remat_ok(W, LLVMGetOperand(v, i), left)) return false;
    return true;
}

/* a copy of v's computation at the builder's position (remat_ok said yes) */
static LLVMValueRef remat(wi *W, LLVMValueRef v) {
    if (!LLVMIsAInstruction(v)) return v;
    LLVMValueRef c = LLVMInstructionClone(v);
    unsigned n = (unsigned)LLVMGetNumOperands(v);
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef o = LLVMGetOperand(v, i);
        if (LLVMIsAInstruction(o)) LLVMSetOperand(c, i, remat(W, o));
    }
    LLVMInsertIntoBuilder(W->B, c);
    return c;
}

/* ------------------------------------------------------------------------------------------ the transform */

/* Positions the builder where a use of operand `op` of `user` is evaluated: before the user, or for a phi at the
 * end of the incoming block (before its terminator). Returns that block. */
static LLVMBasicBlockRef position_at_use(wi *W, LLVMValueRef user, unsigned op) {
    if (LLVMIsAPHINode(user)) {
        LLVMBasicBlockRef in = LLVMGetIncomingBlock(user, op);
        LLVMPositionBuilderBefore(W->B, LLVMGetBasicBlockTerminator(in));
        return in;
    }
    LLVMPositionBuilderBefore(W->B, user);
    return LLVMGetInstructionParent(user);
}

/* Per-thread arrays for the allocas of T (all in its entry block). */
static bool allocas_to_arrays(wi *W) {
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(W->fn);
    for (LLVMValueRef I = LLVMGetFirstInstruction(entry), next; I; I = next) {
        next = LLVMGetNextInstruction(I);
        if (!LLVMIsAAllocaInst(I)) continue;
        LLVMTypeRef t = LLVMGetAllocatedType(I);
        uint64_t count = LLVMConstIntGetZExtValue(LLVMGetOperand(I, 0));
        uint64_t align = LLVMGetAlignment(I);
        if (align < LLVMABIAlignmentOfType(W->TD, t)) align = LLVMABIAlignmentOfType(W->TD, t);
        if (!align) align = 1;
        uint64_t size = LLVMABISizeOfType(W->TD, t) * count;
        size = (size + align - 1) & ~(align - 1);
        if (!size) size = align;
        uint64_t off = new_array(W, size, align);
        /* users first: lifetime markers name allocas only, so they go */
        size_t nu = 0, cap = 8;
        LLVMValueRef *users = malloc(cap * sizeof *users);
        if (!users) return false;
        for (LLVMUseRef u = LLVMGetFirstUse(I); u; u = LLVMGetNextUse(u)) {
            if (nu == cap) {
                LLVMValueRef *nb = realloc(users, (cap *= 2) * sizeof *users);
                if (!nb) { free(users); return false; }
                users = nb;
            }
            users[nu++] = LLVMGetUser(u);
        }
        for (size_t k = 0; k < nu; k++) {
            LLVMValueRef u = users[k];
            bool dup = false;
            for (size_t j = 0; j < k; j++) dup |= users[j] == u;
            if (dup) continue;
            if (is_intrinsic_named(u, "llvm.lifetime.")) {
                LLVMInstructionEraseFromParent(u);
                continue;
            }
            unsigned n = (unsigned)LLVMGetNumOperands(u);
            for (unsigned i = 0; i < n; i++) {
                if (LLVMGetOperand(u, i) != I) continue;
                position_at_use(W, u, i);
                LLVMSetOperand(u, i, slot_addr(W, off, size));
            }
        }
        free(users);
        LLVMInstructionEraseFromParent(I);
    }
    return true;
}

typedef struct use_site {
    LLVMValueRef user;
    unsigned op, block;
} use_site;

/* Step 2 of the transform for every value of T. */
static bool keep_values_across(wi *W, bmap *map) {
    uint8_t *to_bar = calloc((size_t)W->nbar * W->nbb, 1); /* to_bar[k * nbb + b]: B_k reached from b */
    uint8_t *seen = malloc(W->nbb), *after = malloc(W->nbb);
    unsigned *stack = malloc(((size_t)W->nbb + 1) * sizeof *stack);
    bool ok = to_bar && seen && after && stack;
    for (unsigned k = 0; ok && k < W->nbar; k++)
        ok = reach(W, W->bar_blk[k], ~0u, true, to_bar + (size_t)k * W->nbb, stack);
    size_t cap = 16;
    use_site *us = malloc(cap * sizeof *us);
    ok = ok && us;
    for (unsigned b = 0; ok && b < W->nbb; b++) {
        bool after_done = false; /* `after`: blocks a thread may reach after a barrier passed since D */
        for (LLVMValueRef v = LLVMGetFirstInstruction(W->bb[b]), next; ok && v; v = next) {
            next = LLVMGetNextInstruction(v);
            if (LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVoidTypeKind) continue;
            size_t nu = 0;
            for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
                LLVMValueRef user = LLVMGetUser(u);
                if (!LLVMIsAInstruction(user)) continue;
                unsigned n = (unsigned)LLVMGetNumOperands(user);
                for (unsigned i = 0; i < n; i++) {
                    if (LLVMGetOperand(user, i) != v) continue;
                    LLVMBasicBlockRef ub = LLVMIsAPHINode(user) ? LLVMGetIncomingBlock(user, i)
                                                                 : LLVMGetInstructionParent(user);
                    unsigned ui = bmap_get(map, ub);
                    if (ui == b || ui == ~0u) continue; /* same block: the same instance of v */
                    bool dup = false;
                    for (size_t j = 0; j < nu; j++) dup |= us[j].user == user && us[j].op == i;
                    if (dup) continue;
                    if (nu == cap) {
                        use_site *nb = realloc(us, (cap *= 2) * sizeof *us);
                        if (!nb) { ok = false; break; }
                        us = nb;
                    }
                    us[nu++] = (use_site){user, i, ui};
                }
            }
            if (!ok || !nu) continue;
            if (!after_done) {
                memset(after, 0, W->nbb);
                for (unsigned k = 0; ok && k < W->nbar; k++) {
                    if (!to_bar[(size_t)k * W->nbb + b]) continue;
                    ok = reach(W, W->cont_blk[k], b, false, seen, stack);
                    for (unsigned j = 0; j < W->nbb; j++) after[j] |= seen[j];
                }
                after_done = true;
            }
            bool any = false;
            for (size_t j = 0; j < nu; j++) any |= after[us[j].block];
            if (!ok || !any) continue;
            int left = REMAT_MAX;
            bool re = remat_ok(W, v, &left);
            uint64_t size = 0, off = 0;
            unsigned arr = 0;
            if (!re) {
                LLVMTypeRef t = LLVMTypeOf(v);
                uint64_t align = LLVMABIAlignmentOfType(W->TD, t);
                size = LLVMABISizeOfType(W->TD, t);
                size = (size + align - 1) & ~(align - 1);
                off = new_array(W, size, align);
                arr = W->narrays++;
                LLVMValueRef at = v;
                if (LLVMIsAPHINode(v)) {
                    at = LLVMGetFirstInstruction(W->bb[b]);
                    while (LLVMIsAPHINode(at)) at = LLVMGetNextInstruction(at);
                    LLVMPositionBuilderBefore(W->B, at);
                } else {
                    LLVMValueRef nx = LLVMGetNextInstruction(v);
                    if (!nx) { ok = false; break; } /* a value-producing terminator: none in emitted code */
                    LLVMPositionBuilderBefore(W->B, nx);
                }
                ok = note_access(W, LLVMBuildStore(W->B, v, slot_addr(W, off, size)), arr);
            }
            for (size_t j = 0; j < nu; j++) {
                if (!after[us[j].block]) continue;
                position_at_use(W, us[j].user, us[j].op);
                LLVMValueRef nv = re ? remat(W, v) : LLVMBuildLoad2(W->B, LLVMTypeOf(v), slot_addr(W, off, size), "");
                if (!re) ok = note_access(W, nv, arr) && ok;
                LLVMSetOperand(us[j].user, us[j].op, nv);
            }
        }
    }
    free(us);
    free(to_bar);
    free(seen);
    free(after);
    free(stack);
    return ok;
}

/* Step 1a: no yields (then the blocks no longer reached go: run_function_passes). */
static bool drop_yields(wi *W) {
    size_t ny = 0, capy = 16;
    LLVMValueRef *ys = malloc(capy * sizeof *ys);
    if (!ys) return false;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(W->fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
            if (host_rt_slot(I) != RT_YIELD) continue;
            if (ny == capy) {
                LLVMValueRef *nb = realloc(ys, (capy *= 2) * sizeof *ys);
                if (!nb) { free(ys); return false; }
                ys = nb;
            }
            ys[ny++] = I;
        }
    /* a back-edge yield sits in a block of its own that the budget test enters (emit_ctrl.c backedge): that test
     * now always goes on; the block itself becomes dead */
    for (size_t i = 0; i < ny; i++) {
        LLVMBasicBlockRef yb = LLVMGetInstructionParent(ys[i]);
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(W->fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
            LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
            if (!t || !LLVMIsABranchInst(t) || !LLVMIsConditional(t) || LLVMGetSuccessor(t, 0) != yb) continue;
            LLVMBasicBlockRef other = LLVMGetSuccessor(t, 1);
            LLVMPositionBuilderBefore(W->B, t);
            LLVMBuildBr(W->B, other);
            LLVMInstructionEraseFromParent(t);
        }
        LLVMInstructionEraseFromParent(ys[i]);
    }
    free(ys);
    return true;
}

/* Step 1b: one block per barrier call (returned in bars, n of them, in order). */
static bool isolate_barriers(wi *W, LLVMValueRef **bars_out, unsigned *nbars) {
    size_t n = 0, cap = 16;
    LLVMValueRef *bars = malloc(cap * sizeof *bars);
    if (!bars) return false;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(W->fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
            if (host_rt_slot(I) != RT_BARRIER) continue;
            if (n == cap) {
                LLVMValueRef *nb = realloc(bars, (cap *= 2) * sizeof *bars);
                if (!nb) { free(bars); return false; }
                bars = nb;
            }
            bars[n++] = I;
        }
    /* the fences around each barrier call order nothing among threads that run one after another */
    for (size_t i = 0; i < n; i++) {
        /* emit_sync.c: fence; the call's table loads; call; fence */
        LLVMValueRef p = LLVMGetPreviousInstruction(bars[i]), q = LLVMGetNextInstruction(bars[i]);
        while (p && (LLVMIsALoadInst(p) || LLVMIsAGetElementPtrInst(p))) p = LLVMGetPreviousInstruction(p);
        if (p && LLVMIsAFenceInst(p)) LLVMInstructionEraseFromParent(p);
        if (q && LLVMIsAFenceInst(q)) LLVMInstructionEraseFromParent(q);
    }
    /* last to first, as host_coro.c splits (each split moves only up to the previous one) */
    for (size_t i = n; i-- > 0;) {
        LLVMValueRef I = bars[i];
        LLVMBasicBlockRef cont = llvm_split_after(W->C, W->B, I);
        LLVMPositionBuilderAtEnd(W->B, LLVMGetInstructionParent(I));
        LLVMBuildBr(W->B, cont);
        LLVMValueRef p = LLVMGetPreviousInstruction(I);
        if (p) {
            LLVMBasicBlockRef own = llvm_split_after(W->C, W->B, p);
            LLVMPositionBuilderAtEnd(W->B, LLVMGetInstructionParent(p));
            LLVMBuildBr(W->B, own);
        }
    }
    *bars_out = bars;
    *nbars = (unsigned)n;
    return true;
}

/* Step 3: the exits write the thread's next pc; a dispatch block enters any region. */
static void rewrite_exits(wi *W, LLVMValueRef *bars, uint64_t pc_off) {
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(W->C, W->fn, "wi.done");
    LLVMPositionBuilderAtEnd(W->B, done);
    W->oom |= !note_access(W, LLVMBuildStore(W->B, k32(W, PC_DONE), slot_addr(W, pc_off, 4)), W->pc_arr);
    LLVMBuildRetVoid(W->B);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(W->fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        if (bb == done) continue;
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb), next; I; I = next) {
            next = LLVMGetNextInstruction(I);
            bool ret = LLVMIsAReturnInst(I), exit = host_rt_slot(I) == RT_EXIT_THREAD;
            if (!ret && !exit) continue;
            LLVMPositionBuilderBefore(W->B, I);
            LLVMBuildBr(W->B, done);
            for (LLVMValueRef x = I, nx; x; x = nx) { /* an exit call is followed by unreachable */
                nx = LLVMGetNextInstruction(x);
                LLVMInstructionEraseFromParent(x);
            }
            break;
        }
    }
    for (unsigned k = 0; k < W->nbar; k++) {
        LLVMValueRef I = bars[k];
        LLVMBasicBlockRef bb = LLVMGetInstructionParent(I);
        LLVMInstructionEraseFromParent(LLVMGetBasicBlockTerminator(bb));
        LLVMInstructionEraseFromParent(I);
        LLVMPositionBuilderAtEnd(W->B, bb);
        W->oom |= !note_access(W, LLVMBuildStore(W->B, k32(W, k + 1), slot_addr(W, pc_off, 4)), W->pc_arr);
        LLVMBuildRetVoid(W->B);
    }
    /* dispatch: region 0 is the entry, region k + 1 starts at C_k */
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(W->fn);
    LLVMBasicBlockRef disp = LLVMInsertBasicBlockInContext(W->C, entry, "wi.dispatch");
    LLVMPositionBuilderAtEnd(W->B, disp);
    LLVMValueRef sel = LLVMBuildLoad2(W->B, W->i32, ctx_addr(W, W->ctx, offsetof(p2n_thread_ctx, suspend)), "");
    LLVMValueRef sw = LLVMBuildSwitch(W->B, sel, entry, W->nbar);
    for (unsigned k = 0; k < W->nbar; k++) LLVMAddCase(sw, k32(W, k + 1), W->bb[W->cont_blk[k]]);
}

/* Step 4: T.region<r>: a copy of T entering region r only. */
static LLVMValueRef region_copy(wi *W, const char *kname, unsigned r, unsigned entry_index) {
    size_t len = strlen(kname) + 32;
    char *name = malloc(len);
    if (!name) return NULL;
    snprintf(name, len, "%s.region%u", kname, r);
    LLVMValueRef c = host_clone_function(W->fn, name);
    free(name);
    LLVMSetLinkage(c, LLVMInternalLinkage);
    LLVMAddAttributeAtIndex(c, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(W->C, LLVMGetEnumAttributeKindForName("alwaysinline", 12), 0));
    /* the copy's blocks are in T's order; its first block is the dispatch, T's block i is its block i + 1 */
    LLVMBasicBlockRef disp = LLVMGetFirstBasicBlock(c), target = disp;
    for (unsigned i = 0; i <= entry_index && target; i++) target = LLVMGetNextBasicBlock(target);
    if (!target) return NULL;
    LLVMInstructionEraseFromParent(LLVMGetBasicBlockTerminator(disp));
    LLVMPositionBuilderAtEnd(W->B, disp);
    LLVMBuildBr(W->B, target);
    /* the other regions' blocks are unreachable here: gone now, so that the passes before the optimiser see a
     * function whose every block has a dominator (rewrite_addr.c leaves a function with dead blocks alone) */
    run_function_passes(c, "unreachableblockelim");
    return c;
}

/* ------------------------------------------------------------------------------------------ the block entry */

typedef struct loop1 {
    LLVMValueRef var;
    LLVMBasicBlockRef head, body, next;
} loop1;

/* for (var = 0; var < n; var++) { body }: returns with the builder in the body; the body ends with br next */
static loop1 loop_open(wi *W, LLVMValueRef fn, LLVMValueRef var, LLVMValueRef n, LLVMBasicBlockRef after) {
    loop1 L = {var, LLVMAppendBasicBlockInContext(W->C, fn, "wi.head"), LLVMAppendBasicBlockInContext(W->C, fn, "wi.body"),
               LLVMAppendBasicBlockInContext(W->C, fn, "wi.next")};
    LLVMBuildStore(W->B, k32(W, 0), var);
    LLVMBuildBr(W->B, L.head);
    LLVMPositionBuilderAtEnd(W->B, L.head);
    LLVMValueRef v = LLVMBuildLoad2(W->B, W->i32, var, "");
    LLVMBuildCondBr(W->B, LLVMBuildICmp(W->B, LLVMIntULT, v, n, ""), L.body, after);
    LLVMPositionBuilderAtEnd(W->B, L.next);
    LLVMBuildStore(W->B, LLVMBuildAdd(W->B, LLVMBuildLoad2(W->B, W->i32, var, ""), k32(W, 1), ""), var);
    LLVMBuildBr(W->B, L.head);
    LLVMPositionBuilderAtEnd(W->B, L.body);
    return L;
}

/* a driver access of the pc array: its alias scope (apply_scopes) */
static LLVMValueRef pc_access(wi *W, LLVMValueRef I) {
    if (W->scope) {
        LLVMSetMetadata(I, LLVMGetMDKindIDInContext(W->C, "alias.scope", 11), W->scope[W->pc_arr]);
        LLVMSetMetadata(I, LLVMGetMDKindIDInContext(W->C, "noalias", 7), W->others[W->pc_arr]);
    }
    return I;
}

/* thread t's pc, addressed as slot_addr addresses it in the regions (zero-extended index, byte offset): the same
 * address to LLVM, which otherwise guards the vectorised loops with an overlap check of pc against itself */
static LLVMValueRef pc_slot(wi *W, LLVMValueRef pc, LLVMValueRef t) {
    LLVMValueRef byte = LLVMBuildMul(W->B, LLVMBuildZExt(W->B, t, W->i64, ""), k64(W, 4), "");
    return LLVMBuildGEP2(W->B, W->i8, pc, &byte, 1, "");
}

/* rt->coro_frame(ctx, bytes) through ctx->rt (emit_ops.c's call shape) */
static LLVMValueRef call_coro_frame(wi *W, LLVMValueRef ctx, uint64_t bytes) {
    LLVMValueRef rt = LLVMBuildLoad2(W->B, W->ptr, ctx_addr(W, ctx, CTX_RT), "");
    LLVMValueRef o = k64(W, 8 + 8 * (uint64_t)P2N_RT_SLOT(coro_frame));
    LLVMValueRef fn = LLVMBuildLoad2(W->B, W->ptr, LLVMBuildGEP2(W->B, W->i8, rt, &o, 1, ""), "");
    LLVMTypeRef at[2] = {W->ptr, W->i64};
    LLVMValueRef args[2] = {ctx, k64(W, bytes)};
    return LLVMBuildCall2(W->B, LLVMFunctionType(W->ptr, at, 2, 0), fn, args, 2, "");
}

typedef struct driver {
    LLVMValueRef fn, params, ctx, frame, n, pc, vx, vy, vz, vt, vnext, vdone, par, nx, ny, nz;
} driver;

/* One region loop: the block's threads in the fiber runtime's order (x fastest, linear index t) run region r,
 * all of them (a phase where every thread is live and waits at r), or (checked) those whose pc says r. After a
 * thread: its next region into the next phase's mask and, with the next parity, into pc; exits counted. */
static void region_loop(wi *W, driver *D, LLVMValueRef region, unsigned r, bool checked, LLVMBasicBlockRef after) {
    loop1 lz = loop_open(W, D->fn, D->vz, D->nz, after);
    loop1 ly = loop_open(W, D->fn, D->vy, D->ny, lz.next);
    loop1 lx = loop_open(W, D->fn, D->vx, D->nx, ly.next);
    /* t = (z * ny + y) * nx + x, no wrap (t < n < 2^31): x is the loop's only induction variable, t and the
     * coordinates derive from it (a running counter as a second induction variable made LLVM 22's vectoriser
     * guard the loop with predicates on it and drop the one a masked index of x needed) */
    LLVMValueRef row = LLVMBuildNUWMul(W->B, LLVMBuildNUWAdd(W->B, LLVMBuildNUWMul(W->B, LLVMBuildLoad2(W->B, W->i32, D->vz, ""),
                                                                               D->ny, ""),
                                                         LLVMBuildLoad2(W->B, W->i32, D->vy, ""), ""), D->nx, "");
    LLVMValueRef t = LLVMBuildNUWAdd(W->B, row, LLVMBuildLoad2(W->B, W->i32, D->vx, ""), "");
    LLVMValueRef pct = pc_slot(W, D->pc, t);
    if (checked) {
        LLVMValueRef cur = pc_access(W, LLVMBuildLoad2(W->B, W->i32, pct, ""));
        LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(W->C, D->fn, "wi.thread");
        LLVMValueRef want = LLVMBuildOr(W->B, D->par, k32(W, r), "");
        LLVMBuildCondBr(W->B, LLVMBuildICmp(W->B, LLVMIntEQ, cur, want, ""), go, lx.next);
        LLVMPositionBuilderAtEnd(W->B, go);
    }
    LLVMValueRef x = LLVMBuildLoad2(W->B, W->i32, D->vx, ""), y = LLVMBuildLoad2(W->B, W->i32, D->vy, "");
    LLVMValueRef z = LLVMBuildLoad2(W->B, W->i32, D->vz, "");
    if (calls_out(region)) { /* runtime functions and device functions read the thread's coordinates in ctx */
        LLVMBuildStore(W->B, x, ctx_addr(W, D->ctx, CTX_TID));
        LLVMBuildStore(W->B, y, ctx_addr(W, D->ctx, CTX_TID + 4));
        LLVMBuildStore(W->B, z, ctx_addr(W, D->ctx, CTX_TID + 8));
        LLVMBuildStore(W->B, LLVMBuildAnd(W->B, t, k32(W, 31), ""), ctx_addr(W, D->ctx, CTX_LANEID));
        LLVMBuildStore(W->B, LLVMBuildLShr(W->B, t, k32(W, 5), ""), ctx_addr(W, D->ctx, CTX_WARPID));
    }
    LLVMValueRef args[NARGS] = {D->params, D->ctx, D->frame, x, y, z, t, D->n};
    LLVMValueRef call = LLVMBuildCall2(W->B, LLVMGlobalGetValueType(region), region, args, NARGS, "");
    /* the checked loop (threads at different barriers, or some exited) calls the region: inlining it a second
     * time would double the kernel's optimisation and code generation for the rare phase */
    if (checked)
        LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                                 LLVMCreateEnumAttribute(W->C, LLVMGetEnumAttributeKindForName("noinline", 8), 0));
    /* branch-free, so that the loop stays one block where the region is */
    LLVMValueRef k = pc_access(W, LLVMBuildLoad2(W->B, W->i32, pct, ""));
    LLVMValueRef ended = LLVMBuildICmp(W->B, LLVMIntEQ, k, k32(W, PC_DONE), "");
    LLVMValueRef bit = LLVMBuildShl(W->B, k64(W, 1), LLVMBuildZExt(W->B, LLVMBuildAnd(W->B, k, k32(W, 63), ""), W->i64, ""), "");
    bit = LLVMBuildSelect(W->B, ended, k64(W, 0), bit, "");
    LLVMBuildStore(W->B, LLVMBuildOr(W->B, LLVMBuildLoad2(W->B, W->i64, D->vnext, ""), bit, ""), D->vnext);
    LLVMBuildStore(W->B, LLVMBuildAdd(W->B, LLVMBuildLoad2(W->B, W->i32, D->vdone, ""),
                                      LLVMBuildZExt(W->B, ended, W->i32, ""), ""), D->vdone);
    LLVMValueRef npar = LLVMBuildXor(W->B, D->par, k32(W, PC_PARITY), "");
    pc_access(W, LLVMBuildStore(W->B, LLVMBuildSelect(W->B, ended, k, LLVMBuildOr(W->B, k, npar, ""), ""), pct));
    LLVMBuildBr(W->B, lx.next);
}

/* Step 5: K.wi, the phases over the regions (the top of the file). */
static LLVMValueRef block_entry(wi *W, LLVMValueRef kern, const char *kname, uint64_t param_bytes,
                                LLVMValueRef *region, unsigned nreg, uint64_t pc_off) {
    size_t len = strlen(kname) + 4;
    char *name = malloc(len);
    if (!name) return NULL;
    snprintf(name, len, "%s.wi", kname);
    LLVMValueRef fn = LLVMAddFunction(W->M, name, LLVMGlobalGetValueType(kern));
    free(name);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
    unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
    unsigned deref = LLVMGetEnumAttributeKindForName("dereferenceable", 15);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(W->C, nounwind, 0));
    /* as host_entries.c's block entry: kernel parameters are read-only and no kernel pointer reaches ctx; both are
     * whole objects, so their loads may be hoisted out of the conditional code of the loops */
    LLVMAddAttributeAtIndex(fn, 1, LLVMCreateEnumAttribute(W->C, noalias, 0));
    LLVMAddAttributeAtIndex(fn, 2, LLVMCreateEnumAttribute(W->C, noalias, 0));
    if (param_bytes) LLVMAddAttributeAtIndex(fn, 1, LLVMCreateEnumAttribute(W->C, deref, param_bytes));
    LLVMAddAttributeAtIndex(fn, 2, LLVMCreateEnumAttribute(W->C, deref, sizeof(p2n_thread_ctx)));
    /* the kernel's CPU and features (host-native): the regions are inlined here and compiled with these */
    static const char *const keep[] = {"target-cpu", "target-features"};
    for (unsigned i = 0; i < 2; i++) {
        LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(kern, LLVMAttributeFunctionIndex, keep[i], (unsigned)strlen(keep[i]));
        if (a) LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, a);
    }
    driver D = {.fn = fn, .params = LLVMGetParam(fn, 0), .ctx = LLVMGetParam(fn, 1)};
    LLVMPositionBuilderAtEnd(W->B, LLVMAppendBasicBlockInContext(W->C, fn, "entry"));
    D.vz = LLVMBuildAlloca(W->B, W->i32, "z");
    D.vy = LLVMBuildAlloca(W->B, W->i32, "y");
    D.vx = LLVMBuildAlloca(W->B, W->i32, "x");
    D.vt = LLVMBuildAlloca(W->B, W->i32, "t");
    LLVMValueRef vmask = LLVMBuildAlloca(W->B, W->i64, "mask"), vpar = LLVMBuildAlloca(W->B, W->i32, "parity");
    D.vnext = LLVMBuildAlloca(W->B, W->i64, "nmask");
    D.vdone = LLVMBuildAlloca(W->B, W->i32, "ndone");
    D.nx = ctx_u32(W, D.ctx, CTX_NTID);
    D.ny = ctx_u32(W, D.ctx, CTX_NTID + 4);
    D.nz = ctx_u32(W, D.ctx, CTX_NTID + 8);
    LLVMValueRef n = LLVMBuildMul(W->B, LLVMBuildMul(W->B, D.nx, D.ny, ""), D.nz, "");
    LLVMValueRef frame = call_coro_frame(W, D.ctx, W->frame_bytes);
    /* the runtime's frames: no kernel pointer reaches them, so the arrays never alias kernel memory; nor does the
     * runtime keep ctx (it owns it): no pointer the kernel loads can be ctx */
    LLVMAddCallSiteAttribute(frame, LLVMAttributeReturnIndex, LLVMCreateEnumAttribute(W->C, noalias, 0));
    LLVMAddCallSiteAttribute(frame, 1, LLVMCreateEnumAttribute(W->C, LLVMGetEnumAttributeKindForName("captures", 8), 0));
    D.frame = frame;
    D.n = n;
    LLVMValueRef pcb = LLVMBuildMul(W->B, LLVMBuildZExt(W->B, n, W->i64, ""), k64(W, pc_off), "");
    D.pc = LLVMBuildGEP2(W->B, W->i8, frame, &pcb, 1, "pc");
    LLVMBuildStore(W->B, k64(W, 1), vmask);
    LLVMBuildStore(W->B, k32(W, 0), vpar);
    LLVMBuildStore(W->B, k32(W, 0), D.vdone);
    LLVMBasicBlockRef phase = LLVMAppendBasicBlockInContext(W->C, fn, "wi.phase");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(W->C, fn, "wi.done");
    /* every thread starts in region 0 */
    loop1 li = loop_open(W, fn, D.vt, n, phase);
    LLVMValueRef ti = LLVMBuildLoad2(W->B, W->i32, D.vt, "");
    pc_access(W, LLVMBuildStore(W->B, k32(W, 0), pc_slot(W, D.pc, ti)));
    LLVMBuildBr(W->B, li.next);

    LLVMPositionBuilderAtEnd(W->B, phase);
    LLVMValueRef m = LLVMBuildLoad2(W->B, W->i64, vmask, "");
    LLVMBasicBlockRef test = LLVMAppendBasicBlockInContext(W->C, fn, "wi.test");
    LLVMBuildCondBr(W->B, LLVMBuildICmp(W->B, LLVMIntEQ, m, k64(W, 0), ""), done, test);
    LLVMPositionBuilderAtEnd(W->B, test);
    /* one region and no thread ended: every thread runs it (the common case, barriers reached by all) */
    LLVMValueRef one = LLVMBuildICmp(W->B, LLVMIntEQ, LLVMBuildAnd(W->B, m, LLVMBuildSub(W->B, m, k64(W, 1), ""), ""),
                                     k64(W, 0), "");
    LLVMValueRef all = LLVMBuildAnd(W->B, one, LLVMBuildICmp(W->B, LLVMIntEQ, LLVMBuildLoad2(W->B, W->i32, D.vdone, ""),
                                                             k32(W, 0), ""), "");
    LLVMBuildStore(W->B, k64(W, 0), D.vnext);
    D.par = LLVMBuildLoad2(W->B, W->i32, vpar, "");
    for (unsigned r = 0; r < nreg; r++) {
        LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(W->C, fn, "wi.region");
        LLVMBasicBlockRef every = LLVMAppendBasicBlockInContext(W->C, fn, "wi.every");
        LLVMBasicBlockRef some = LLVMAppendBasicBlockInContext(W->C, fn, "wi.some");
        LLVMBasicBlockRef skip = LLVMAppendBasicBlockInContext(W->C, fn, "wi.test");
        LLVMValueRef bit = LLVMBuildAnd(W->B, LLVMBuildLShr(W->B, m, k64(W, r), ""), k64(W, 1), "");
        LLVMBuildCondBr(W->B, LLVMBuildICmp(W->B, LLVMIntNE, bit, k64(W, 0), ""), run, skip);
        LLVMPositionBuilderAtEnd(W->B, run);
        LLVMBuildCondBr(W->B, all, every, some);
        LLVMPositionBuilderAtEnd(W->B, every);
        region_loop(W, &D, region[r], r, false, skip);
        LLVMPositionBuilderAtEnd(W->B, some);
        region_loop(W, &D, region[r], r, true, skip);
        LLVMPositionBuilderAtEnd(W->B, skip);
    }
    LLVMBuildStore(W->B, LLVMBuildLoad2(W->B, W->i64, D.vnext, ""), vmask);
    LLVMBuildStore(W->B, LLVMBuildXor(W->B, D.par, k32(W, PC_PARITY), ""), vpar);
    LLVMBuildBr(W->B, phase);
    LLVMPositionBuilderAtEnd(W->B, done);
    LLVMBuildRetVoid(W->B);
    return fn;
}

static uint64_t count_instructions(LLVMValueRef fn) {
    uint64_t n = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) n++;
    return n;
}

static bool run_function_passes(LLVMValueRef fn, const char *passes) {
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPassesOnFunction(fn, passes, NULL, po);
    LLVMDisposePassBuilderOptions(po);
    if (!e) return true;
    LLVMConsumeError(e);
    return false;
}

/* Kernel k (fits): its block entry, or NULL when a step gave up (k keeps its other entries). */
static LLVMValueRef form_loops(wi *W, LLVMValueRef k, const char *kname, uint64_t param_bytes) {
    size_t len = strlen(kname) + 16;
    char *name = malloc(len);
    if (!name) return NULL;
    snprintf(name, len, "%s.regions", kname);
    LLVMTypeRef extra[NARGS - 2] = {W->ptr, W->i32, W->i32, W->i32, W->i32, W->i32};
    W->fn = host_clone_function_extended(k, name, extra, NARGS - 2);
    free(name);
    W->ctx = LLVMGetParam(W->fn, 1);
    coordinates_from_arguments(W);
    W->frame_bytes = 0;
    W->budget = SEARCH_BUDGET;
    LLVMValueRef *bars = NULL, blk = NULL;
    LLVMValueRef region[MAX_BARRIERS + 1];
    unsigned nreg = 0;
    bmap map = {0};
    bool ok = drop_yields(W) && run_function_passes(W->fn, "unreachableblockelim,sroa") &&
              isolate_barriers(W, &bars, &W->nbar) && W->nbar > 0 && W->nbar <= MAX_BARRIERS &&
              (W->nbar + 1) * count_instructions(W->fn) <= COPY_BUDGET &&
              allocas_to_arrays(W) && build_cfg(W, &map);
    if (ok) {
        W->bar_blk = malloc(W->nbar * sizeof *W->bar_blk);
        W->cont_blk = malloc(W->nbar * sizeof *W->cont_blk);
        ok = W->bar_blk && W->cont_blk;
        for (unsigned b = 0; ok && b < W->nbar; b++) {
            unsigned i = bmap_get(&map, LLVMGetInstructionParent(bars[b]));
            ok = i != ~0u && W->nsucc[i] == 1;
            if (ok) {
                W->bar_blk[b] = i;
                W->cont_blk[b] = W->succ[i][0];
            }
        }
    }
    ok = ok && keep_values_across(W, &map);
    if (ok) {
        uint64_t pc_off = new_array(W, 4, 4);
        W->pc_arr = W->narrays++;
        unsigned *entry_of = malloc((W->nbar + 1) * sizeof *entry_of);
        ok = entry_of != NULL;
        if (ok) {
            entry_of[0] = 0;
            for (unsigned b = 0; b < W->nbar; b++) entry_of[b + 1] = W->cont_blk[b];
            rewrite_exits(W, bars, pc_off);
            ok = !W->oom && apply_scopes(W, kname);
            for (nreg = 0; ok && nreg <= W->nbar; nreg++) {
                region[nreg] = region_copy(W, kname, nreg, entry_of[nreg]);
                ok = region[nreg] != NULL;
            }
            free(entry_of);
        }
        if (ok) blk = block_entry(W, k, kname, param_bytes, region, nreg, pc_off);
    }
    if (!blk)
        for (unsigned r = 0; r < nreg; r++)
            if (region[r]) LLVMDeleteFunction(region[r]);
    LLVMDeleteFunction(W->fn);
    free(bars);
    free(W->acc);
    free(W->acc_arr);
    free(W->scope);
    free(W->others);
    W->acc = W->scope = W->others = NULL;
    W->acc_arr = NULL;
    W->nacc = W->capacc = 0;
    W->narrays = 0;
    W->oom = false;
    free(W->bar_blk);
    free(W->cont_blk);
    W->bar_blk = W->cont_blk = NULL;
    free(map.key);
    free(map.val);
    free_cfg(W);
    return blk;
}

bool host_pass_form_work_item_loops(llvm_pass_ctx *X) {
    const emit_desc *D = X->desc;
    if (!D || !D->nkernels || !X->m) return true;
    /* the module has no data layout yet at lowering time: the target's, for the sizes of the arrays */
    LLVMTargetRef target;
    char *err = NULL;
    if (LLVMGetTargetFromTriple(X->t->triple, &target, &err)) {
        LLVMDisposeMessage(err);
        return true; /* only an optimisation: the kernels keep their coroutine entries */
    }
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, X->t->triple, "", "", LLVMCodeGenLevelNone,
                                                      LLVMRelocPIC, LLVMCodeModelDefault);
    if (!tm) return true;
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
    LLVMDisposeTargetMachine(tm);
    bool *ok = barrier_region_kernels(X->m);
    if (!ok) {
        LLVMDisposeTargetData(td);
        return true;
    }
    wi W = {.C = X->C, .M = X->M, .B = LLVMCreateBuilderInContext(X->C), .TD = td};
    W.ptr = LLVMPointerTypeInContext(X->C, 0);
    W.i8 = LLVMInt8TypeInContext(X->C);
    W.i32 = LLVMInt32TypeInContext(X->C);
    W.i64 = LLVMInt64TypeInContext(X->C);
    host_seen S = {0};
    LLVMValueRef *kern = calloc(D->nkernels, sizeof *kern), *blk = calloc(D->nkernels, sizeof *blk);
    size_t n = 0;
    for (uint32_t i = 0; kern && blk && i < D->nkernels; i++) {
        const emit_kernel *kd = &D->kernels[i];
        unsigned nbar = 0;
        if ((kd->flags & P2N_KERNEL_THREAD_LOOP) || !ok[kd->func]) continue;
        LLVMValueRef k = LLVMGetNamedFunction(X->M, kd->name);
        if (!k || LLVMIsDeclaration(k) || !kernel_fits(&S, k, &nbar)) continue;
        LLVMValueRef b = form_loops(&W, k, kd->name, kd->param_bytes);
        if (!b) continue;
        kern[n] = k;
        blk[n++] = b;
    }
    host_name_entries(X->M, kern, blk, n, HOST_KD_BLOCK_ENTRY, P2N_KERNEL_THREAD_LOOP | P2N_KERNEL_WORK_ITEM_LOOPS);
    free(kern);
    free(blk);
    free(ok);
    free(S.fn);
    free(S.clean);
    LLVMDisposeTargetData(W.TD);
    LLVMDisposeBuilder(W.B);
    return true;
}
