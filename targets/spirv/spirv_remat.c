/* spirv_remat.c — recomputes cheap address arithmetic after each work-group barrier instead of carrying it
 * across the barrier (a pre_codegen pass of the SPIR-V target, after O2).
 *
 * Why: a CPU OpenCL implementation (PoCL) runs the code between two barriers as a loop over the work-items and
 * keeps every value that is live across a barrier in a per-work-item "context array" (one slot per work-item,
 * stored before the barrier and loaded after it). O2's LICM/GVN hoist the address computations of a tiled
 * loop (`&As[ty][k]`, `&Bs[k][tx]` for every unrolled k) out of the loop that contains the barriers, so each of
 * them became such an array: the matmul bench had 46 of them against 15 for the same kernel written in
 * OpenCL C, and its inner product read 32 pointers per work-item back from memory, which also hides from
 * PoCL's loop vectoriser that `&Bs[k][tx]` is consecutive in the work-item. GPU compilers (IGC) recompute or
 * CSE such values themselves, so recomputing them costs nothing there.
 *
 * What: in a function that contains a barrier (a call of __spirv_ControlBarrier, or of a function that
 * contains one), every use of a pure integer/pointer computation (GEP, integer arithmetic except division,
 * casts, icmp, select, and the work-item builtins get_local_id & co. with a constant argument) that is
 * reached from its definition only through a barrier gets its own copy of the computation, built from
 * kernel arguments, constants and values that do not cross a barrier (at most REMAT_BUDGET instructions per
 * use; larger chains stay as they are; uniform values, which PoCL does not copy per work-item, are reused as
 * they are; functions of more than REMAT_MAX_BLOCKS blocks are left alone). Copies are placed right before the use (a phi's: at the end of the
 * incoming block). Semantics are unchanged: the copy computes the same pure function of the same inputs (the
 * inputs are arguments, constants, builtins that are constant for the work-item, or values that dominate the
 * use without a barrier in between, as the original did), and the use was dominated by the original, so the
 * copy runs only where the original had run.
 *
 * Second step (guard_phi_folds, below): loop counters of barrier loops are kept in a form that PoCL's own
 * InstCombine does not fold into the loop header. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spirv_target.h"

#define REMAT_BUDGET 32
#define REMAT_MAX_BLOCKS 4096

/* pointer -> 64-bit value, open addressing (blocks -> index, instructions -> position and barrier count) */
typedef struct {
    const void **k;
    uint64_t *v;
    size_t cap;
} ptrmap;
static size_t pm_slot(const ptrmap *m, const void *k) {
    size_t h = ((uintptr_t)k >> 4) * 0x9E3779B97F4A7C15ull;
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1))
        if (m->k[i] == k || !m->k[i]) return i;
}
static void pm_init(ptrmap *m, size_t n) {
    m->cap = 16;
    while (m->cap < 2 * n + 2) m->cap *= 2;
    m->k = calloc(m->cap, sizeof *m->k);
    m->v = calloc(m->cap, sizeof *m->v);
}
static void pm_put(ptrmap *m, const void *k, uint64_t v) {
    size_t i = pm_slot(m, k);
    m->k[i] = k;
    m->v[i] = v;
}
static bool pm_get(const ptrmap *m, const void *k, uint64_t *v) {
    size_t i = pm_slot(m, k);
    if (!m->k[i]) return false;
    *v = m->v[i];
    return true;
}
static void pm_free(ptrmap *m) { free(m->k); free(m->v); }

typedef struct {
    LLVMBasicBlockRef *blocks;
    unsigned nb;
    unsigned words;          /* 64-bit words per bitset */
    uint64_t *reach;         /* reach[b]: blocks whose start is reachable from the end of b */
    uint64_t *after_bar;     /* after_bar[b]: blocks whose start is reachable from the end of b through a barrier */
    uint64_t *bar_reach;     /* bar_reach[b]: barrier blocks reachable from the end of b */
    unsigned *nbar;          /* barriers in block b */
    ptrmap bidx;             /* block -> index */
    ptrmap ipos;             /* original instruction -> position << 32 | barriers before it in its block */
    ptrmap barfn;            /* functions that contain a barrier (directly or through calls) */
} remat_fn;

static bool bit(const uint64_t *s, unsigned i) { return (s[i / 64] >> (i % 64)) & 1; }
static void setbit(uint64_t *s, unsigned i) { s[i / 64] |= 1ull << (i % 64); }

/* a call that is (or may contain) a work-group barrier */
static bool is_barrier(const remat_fn *R, LLVMValueRef I) {
    if (!LLVMIsACallInst(I)) return false;
    LLVMValueRef f = LLVMGetCalledValue(I);
    if (!f || !LLVMIsAFunction(f)) return false;
    size_t n;
    if (strstr(LLVMGetValueName2(f, &n), "__spirv_ControlBarrier")) return true;
    uint64_t v;
    return pm_get(&R->barfn, f, &v);
}

static unsigned block_index(const remat_fn *R, LLVMBasicBlockRef b) {
    uint64_t v = 0;
    pm_get(&R->bidx, b, &v);
    return (unsigned)v;
}

/* work-item builtins: constant for the work-item, so a copy is the same value */
static bool is_id_builtin(LLVMValueRef I) {
    if (!LLVMIsACallInst(I)) return false;
    LLVMValueRef f = LLVMGetCalledValue(I);
    if (!f || !LLVMIsAFunction(f)) return false;
    static const char *const names[] = {"_Z12get_local_idj", "_Z14get_local_sizej", "_Z12get_group_idj",
                                        "_Z14get_num_groupsj", "_Z13get_global_idj", "_Z15get_global_sizej",
                                        "_Z17get_global_offsetj", "_Z20get_enqueued_local_sizej"};
    size_t n;
    const char *s = LLVMGetValueName2(f, &n);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(s, names[i])) return LLVMIsAConstantInt(LLVMGetOperand(I, 0)) != NULL;
    return false;
}

/* the same for every work-item of the work-group: PoCL keeps no per-work-item copy of such a value, so it is
 * reused as it is (arguments, constants, the uniform builtins and pure operations on uniform values) */
static bool is_pure_op(LLVMValueRef I);
static bool is_uniform(LLVMValueRef v, int depth) {
    if (!LLVMIsAInstruction(v)) return true;
    if (LLVMIsACallInst(v)) {
        LLVMValueRef f = LLVMGetCalledValue(v);
        size_t n;
        const char *s = f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &n) : "";
        return is_id_builtin(v) && strcmp(s, "_Z12get_local_idj") && strcmp(s, "_Z13get_global_idj");
    }
    if (depth > 8 || LLVMIsAPHINode(v) || !is_pure_op(v)) return false;
    int n = LLVMGetNumOperands(v);
    for (int i = 0; i < n; i++)
        if (!is_uniform(LLVMGetOperand(v, i), depth + 1)) return false;
    return true;
}

static bool is_pure_op(LLVMValueRef I) {
    switch (LLVMGetInstructionOpcode(I)) {
    case LLVMGetElementPtr: case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMLShr: case LLVMAShr:
    case LLVMAnd: case LLVMOr: case LLVMXor: case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMIntToPtr:
    case LLVMPtrToInt: case LLVMAddrSpaceCast: case LLVMICmp: case LLVMSelect:
        return true;
    case LLVMBitCast: {
        LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(I));
        return k == LLVMIntegerTypeKind || k == LLVMPointerTypeKind;
    }
    case LLVMCall: return is_id_builtin(I);
    default: return false;
    }
}

/* Is the value of instruction d, used at point p (an original instruction; the use reads d just before p),
 * carried across a barrier? Conservative (true when unsure) except that a use after d in d's own block with no
 * barrier between them reads the value d just computed. */
static bool crosses(const remat_fn *R, LLVMValueRef d, LLVMValueRef p) {
    uint64_t dv, pv;
    if (!LLVMIsAInstruction(d) || !pm_get(&R->ipos, d, &dv) || !pm_get(&R->ipos, p, &pv)) return false;
    unsigned dpos = (unsigned)(dv >> 32), dbar = (unsigned)dv, ppos = (unsigned)(pv >> 32), pbar = (unsigned)pv;
    LLVMBasicBlockRef db = LLVMGetInstructionParent(d), pb = LLVMGetInstructionParent(p);
    unsigned b = block_index(R, db), y = block_index(R, pb);
    if (db == pb && ppos > dpos) return pbar > dbar; /* d is not a barrier: pure op */
    /* p before d in d's block (around a loop) or in another block: through the end of db */
    if (bit(R->reach + (size_t)b * R->words, y) && R->nbar[b] > dbar) return true;
    if (bit(R->after_bar + (size_t)b * R->words, y)) return true;
    return bit(R->bar_reach + (size_t)b * R->words, y) && pbar > 0;
}

typedef struct { LLVMValueRef orig, at, copy; } memo;
typedef struct { memo *m; unsigned n, cap; } memos;

static bool can_remat(const remat_fn *R, LLVMValueRef v, LLVMValueRef p, int *budget) {
    if (!LLVMIsAInstruction(v) || !crosses(R, v, p) || is_uniform(v, 0)) return true;
    if (LLVMIsAPHINode(v) || !is_pure_op(v) || --*budget < 0) return false;
    int n = LLVMGetNumOperands(v);
    if (LLVMIsACallInst(v)) n = 1; /* the argument; the callee is the last operand */
    for (int i = 0; i < n; i++)
        if (!can_remat(R, LLVMGetOperand(v, i), p, budget)) return false;
    return true;
}

/* A copy of a work-item builtin call goes through a small helper `__p2n_wi.<builtin>.<dim>` that calls it.
 * Why: PoCL 3.1's first kernel-compiler pass (OptimizeWorkItemFuncCalls) moves every get_local_id & co. call
 * with a constant argument into the entry block (so the copy would again be carried across the barrier by a
 * context array); it leaves functions whose name starts with '_' alone. Its inliner then inlines the helper,
 * and the builtin becomes a read of the work-item loop's index after the barrier, which nothing hoists over
 * the barrier (a memory clobber). Other consumers inline or call the helper: same value. */
static LLVMValueRef id_helper(LLVMValueRef call) {
    LLVMValueRef callee = LLVMGetCalledValue(call);
    LLVMModuleRef M = LLVMGetGlobalParent(callee);
    LLVMContextRef C = LLVMGetModuleContext(M);
    size_t len;
    const char *bn = LLVMGetValueName2(callee, &len);
    unsigned long long dim = LLVMConstIntGetZExtValue(LLVMGetOperand(call, 0));
    char name[128];
    snprintf(name, sizeof name, "__p2n_wi.%s.%llu", bn, dim);
    LLVMValueRef h = LLVMGetNamedFunction(M, name);
    if (h) return h;
    LLVMTypeRef bt = LLVMGlobalGetValueType(callee), rt = LLVMGetReturnType(bt);
    h = LLVMAddFunction(M, name, LLVMFunctionType(rt, NULL, 0, 0));
    LLVMSetLinkage(h, LLVMInternalLinkage);
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    LLVMPositionBuilderAtEnd(B, LLVMAppendBasicBlockInContext(C, h, "entry"));
    LLVMValueRef a = LLVMGetOperand(call, 0);
    LLVMBuildRet(B, LLVMBuildCall2(B, bt, callee, &a, 1, ""));
    LLVMDisposeBuilder(B);
    return h;
}

/* the copy of v valid just before p (v already checked by can_remat) */
static LLVMValueRef remat(const remat_fn *R, LLVMBuilderRef B, LLVMValueRef v, LLVMValueRef p, memos *ms) {
    if (!LLVMIsAInstruction(v) || !crosses(R, v, p) || is_uniform(v, 0)) return v;
    for (unsigned i = 0; i < ms->n; i++)
        if (ms->m[i].orig == v && ms->m[i].at == p) return ms->m[i].copy;
    LLVMValueRef c;
    if (LLVMIsACallInst(v)) {
        LLVMValueRef h = id_helper(v);
        LLVMPositionBuilderBefore(B, p);
        c = LLVMBuildCall2(B, LLVMGlobalGetValueType(h), h, NULL, 0, "");
    } else {
        c = LLVMInstructionClone(v);
        int n = LLVMGetNumOperands(v);
        for (int i = 0; i < n; i++) {
            LLVMValueRef o = LLVMGetOperand(v, i);
            LLVMValueRef oc = remat(R, B, o, p, ms);
            if (oc != o) LLVMSetOperand(c, (unsigned)i, oc);
        }
        LLVMPositionBuilderBefore(B, p);
        LLVMInsertIntoBuilder(B, c);
    }
    if (ms->n == ms->cap) {
        ms->cap = ms->cap ? 2 * ms->cap : 16;
        ms->m = realloc(ms->m, ms->cap * sizeof *ms->m);
    }
    ms->m[ms->n++] = (memo){v, p, c};
    return c;
}

static void reach_from(remat_fn *R, unsigned b, uint64_t *out, unsigned *stack) {
    unsigned sp = 0;
    LLVMValueRef term = LLVMGetBasicBlockTerminator(R->blocks[b]);
    unsigned ns = term ? LLVMGetNumSuccessors(term) : 0;
    for (unsigned s = 0; s < ns; s++) stack[sp++] = block_index(R, LLVMGetSuccessor(term, s));
    while (sp) {
        unsigned x = stack[--sp];
        if (bit(out, x)) continue;
        setbit(out, x);
        LLVMValueRef t = LLVMGetBasicBlockTerminator(R->blocks[x]);
        unsigned n = t ? LLVMGetNumSuccessors(t) : 0;
        for (unsigned s = 0; s < n; s++) {
            unsigned y = block_index(R, LLVMGetSuccessor(t, s));
            if (!bit(out, y)) stack[sp++] = y;
        }
    }
}

/* Keeps PoCL's InstCombine from pulling the update of a barrier loop's counter into the loop header.
 *
 * Why: the classic tree reduction `for (d = blockDim.x / 2; d > 0; d >>= 1) { ...; __syncthreads(); }` reaches
 * us as a header phi `d = phi [lshr(ntid, 1), preheader], [lshr(d, 1), latch]`. PoCL 3.1 runs LLVM 15's -O3
 * on the kernel before it cuts the barrier regions, and its InstCombine folds a phi whose incoming values are
 * all the same operation with the same constant (foldPHIArgOpIntoPHI) into `d = lshr(phi [ntid, d_prev], 1)`,
 * then tests the exit on the phi (`phi < 4`). Both the phi and d are then live across the barrier: two
 * per-work-item context arrays plus a 1 KiB copy between them per iteration, and a shift in the work-item loop,
 * where the OpenCL C kernel (whose initial value comes as `trunc(lshr(size_t))`, a different operation) keeps
 * d itself in the phi and shifts it in PoCL's vectorised latch region. On the reduce bench the tree phase cost
 * 1.3-1.5x the OpenCL C kernel's (perf samples); with the fold prevented 0.8-1.06x.
 *
 * What: in a loop that contains a barrier, an integer header phi whose incoming values are all the same binary
 * operation with the same constant right operand gets each value that enters from outside the loop wrapped in
 * `select(get_work_dim() != 0, v, -1)`. get_work_dim() is 1, 2 or 3 (OpenCL 1.2 §6.12.1), so the select is
 * always v; the incoming values are no longer the same operation, so the fold does not apply, and PoCL's
 * InstCombine cannot see through the builtin (it becomes a constant only after the regions are formed). The
 * other arm is -1, not 0: `select(c, lshr(x, k), 0)` is folded back to `lshr(select(c, x, 0), k)`. Cost:
 * one builtin call, compare and select before the loop. */
static bool same_constant_binop(LLVMValueRef phi) {
    unsigned n = LLVMCountIncoming(phi);
    LLVMValueRef first = NULL;
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef v = LLVMGetIncomingValue(phi, i);
        if (!LLVMIsABinaryOperator(v)) return false;
        if (!first) {
            first = v;
            if (!LLVMIsAConstantInt(LLVMGetOperand(v, 1))) return false;
        } else if (LLVMGetInstructionOpcode(v) != LLVMGetInstructionOpcode(first) ||
                   LLVMGetOperand(v, 1) != LLVMGetOperand(first, 1)) {
            return false;
        }
    }
    return first != NULL && n >= 2;
}

/* b and the header h are on one cycle (b is in h's loop) */
static bool in_loop(const remat_fn *R, unsigned h, unsigned b) {
    return bit(R->reach + (size_t)h * R->words, b) && bit(R->reach + (size_t)b * R->words, h);
}

static void guard_phi_folds(remat_fn *R, LLVMValueRef fn) {
    LLVMModuleRef M = LLVMGetGlobalParent(fn);
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(C);
    LLVMTypeRef wdt = LLVMFunctionType(i32, NULL, 0, 0);
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    for (unsigned h = 0; h < R->nb; h++) {
        int barrier_loop = -1; /* unknown until a candidate phi is seen */
        for (LLVMValueRef phi = LLVMGetFirstInstruction(R->blocks[h]); phi && LLVMIsAPHINode(phi);
             phi = LLVMGetNextInstruction(phi)) {
            LLVMTypeRef ty = LLVMTypeOf(phi);
            if (LLVMGetTypeKind(ty) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(ty) < 8) continue;
            if (!same_constant_binop(phi)) continue;
            if (barrier_loop < 0) {
                barrier_loop = 0;
                for (unsigned z = 0; z < R->nb && !barrier_loop; z++) barrier_loop = R->nbar[z] && in_loop(R, h, z);
            }
            if (!barrier_loop) break;
            unsigned n = LLVMCountIncoming(phi);
            bool inside = false, outside = false; /* only a phi that carries a value around the loop */
            for (unsigned i = 0; i < n; i++) {
                if (in_loop(R, h, block_index(R, LLVMGetIncomingBlock(phi, i)))) inside = true;
                else outside = true;
            }
            if (!inside || !outside) continue;
            for (unsigned i = 0; i < n; i++) {
                LLVMBasicBlockRef from = LLVMGetIncomingBlock(phi, i);
                if (in_loop(R, h, block_index(R, from))) continue;
                bool done = false; /* the same edge may appear more than once (switch): one select for all */
                for (unsigned k = 0; k < i && !done; k++) done = LLVMGetIncomingBlock(phi, k) == from;
                if (done) continue;
                LLVMPositionBuilderBefore(B, LLVMGetBasicBlockTerminator(from));
                LLVMValueRef wd = LLVMBuildCall2(B, wdt, spirv_builtin(M, "_Z12get_work_dimv", wdt), NULL, 0, "");
                LLVMValueRef c = LLVMBuildICmp(B, LLVMIntNE, wd, LLVMConstInt(i32, 0, 0), "");
                LLVMValueRef v = LLVMBuildSelect(B, c, LLVMGetIncomingValue(phi, i), LLVMConstAllOnes(ty), "");
                for (unsigned j = i; j < n; j++)
                    if (LLVMGetIncomingBlock(phi, j) == from) LLVMSetOperand(phi, j, v);
            }
        }
    }
    LLVMDisposeBuilder(B);
}

static void remat_function(remat_fn *R, LLVMValueRef fn) {
    R->nb = LLVMCountBasicBlocks(fn);
    /* the reachability sets are nb^2 bits each: an optimisation only, so huge functions are left as they are */
    if (R->nb > REMAT_MAX_BLOCKS) return;
    R->blocks = calloc(R->nb + 1, sizeof *R->blocks);
    LLVMGetBasicBlocks(fn, R->blocks);
    R->words = (R->nb + 63) / 64;
    size_t bs = (size_t)R->nb * R->words;
    R->reach = calloc(bs + 1, 8);
    R->after_bar = calloc(bs + 1, 8);
    R->bar_reach = calloc(bs + 1, 8);
    R->nbar = calloc(R->nb + 1, sizeof *R->nbar);
    size_t ninst = 0, edges = 0;
    for (unsigned b = 0; b < R->nb; b++)
        for (LLVMValueRef i = LLVMGetFirstInstruction(R->blocks[b]); i; i = LLVMGetNextInstruction(i)) ninst++;
    pm_init(&R->bidx, R->nb);
    pm_init(&R->ipos, ninst);
    for (unsigned b = 0; b < R->nb; b++) {
        pm_put(&R->bidx, R->blocks[b], b);
        LLVMValueRef t = LLVMGetBasicBlockTerminator(R->blocks[b]);
        edges += t ? LLVMGetNumSuccessors(t) : 0;
        unsigned pos = 0;
        for (LLVMValueRef i = LLVMGetFirstInstruction(R->blocks[b]); i; i = LLVMGetNextInstruction(i)) {
            pm_put(&R->ipos, i, (uint64_t)pos++ << 32 | R->nbar[b]);
            if (is_barrier(R, i)) R->nbar[b]++;
        }
    }
    /* the stack holds at most one entry per CFG edge */
    unsigned *stack = calloc(edges + 1, sizeof *stack);
    for (unsigned b = 0; b < R->nb; b++) reach_from(R, b, R->reach + (size_t)b * R->words, stack);
    free(stack);
    for (unsigned b = 0; b < R->nb; b++) {
        uint64_t *ab = R->after_bar + (size_t)b * R->words, *br = R->bar_reach + (size_t)b * R->words;
        const uint64_t *rb = R->reach + (size_t)b * R->words;
        for (unsigned z = 0; z < R->nb; z++)
            if (R->nbar[z] && bit(rb, z)) {
                setbit(br, z);
                const uint64_t *rz = R->reach + (size_t)z * R->words;
                for (unsigned w = 0; w < R->words; w++) ab[w] |= rz[w];
            }
    }

    /* candidates first: the copies are inserted while we walk (and are not in ipos: their operands never
     * cross a barrier to them, so they are skipped as users) */
    size_t nc = 0, cap = 64;
    LLVMValueRef *cand = malloc(cap * sizeof *cand);
    for (unsigned b = 0; b < R->nb; b++)
        for (LLVMValueRef i = LLVMGetFirstInstruction(R->blocks[b]); i; i = LLVMGetNextInstruction(i))
            if (is_pure_op(i) && !is_uniform(i, 0)) {
                if (nc == cap) cand = realloc(cand, (cap *= 2) * sizeof *cand);
                cand[nc++] = i;
            }
    LLVMBuilderRef B = LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(fn)));
    memos ms = {0};
    size_t ucap = 8;
    LLVMValueRef *users = malloc(ucap * sizeof *users);
    for (size_t c = 0; c < nc; c++) {
        LLVMValueRef d = cand[c];
        /* users first (replacing operands edits the use list) */
        size_t nu = 0;
        for (LLVMUseRef u = LLVMGetFirstUse(d); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef us = LLVMGetUser(u);
            uint64_t v;
            if (!LLVMIsAInstruction(us) || !pm_get(&R->ipos, us, &v)) continue;
            bool seen = false;
            for (size_t k = 0; k < nu && !seen; k++) seen = users[k] == us;
            if (seen) continue;
            if (nu == ucap) users = realloc(users, (ucap *= 2) * sizeof *users);
            users[nu++] = us;
        }
        for (size_t k = 0; k < nu; k++) {
            LLVMValueRef us = users[k];
            int n = LLVMGetNumOperands(us);
            for (int op = 0; op < n; op++) {
                if (LLVMGetOperand(us, (unsigned)op) != d) continue;
                LLVMValueRef p = LLVMIsAPHINode(us) ? LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(us, (unsigned)op)) : us;
                if (!crosses(R, d, p)) continue;
                int budget = REMAT_BUDGET;
                if (!can_remat(R, d, p, &budget)) continue;
                ms.n = 0; /* copies are shared between the operands of one use point only */
                LLVMSetOperand(us, (unsigned)op, remat(R, B, d, p, &ms));
            }
        }
    }
    free(users);
    free(ms.m);
    LLVMDisposeBuilder(B);
    free(cand);
    guard_phi_folds(R, fn); /* the CFG is unchanged: the reachability sets still hold */
    free(R->blocks);
    free(R->reach);
    free(R->after_bar);
    free(R->bar_reach);
    free(R->nbar);
    pm_free(&R->bidx);
    pm_free(&R->ipos);
}

void spirv_remat_across_barriers(LLVMModuleRef M) {
    remat_fn R = {0};
    size_t nf = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) nf++;
    pm_init(&R.barfn, nf);
    /* which functions contain a barrier, directly or through calls (fixpoint over the call graph) */
    for (bool changed = true; changed;) {
        changed = false;
        for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) {
            uint64_t v;
            if (LLVMIsDeclaration(f) || pm_get(&R.barfn, f, &v)) continue;
            bool has = false;
            for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb && !has; bb = LLVMGetNextBasicBlock(bb))
                for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I && !has; I = LLVMGetNextInstruction(I))
                    has = is_barrier(&R, I);
            if (has) { pm_put(&R.barfn, f, 1); changed = true; }
        }
    }
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) {
        uint64_t v;
        if (!LLVMIsDeclaration(f) && pm_get(&R.barfn, f, &v)) remat_function(&R, f);
    }
    pm_free(&R.barfn);
}
