/* rewrite_addr.c — integer address arithmetic as pointer arithmetic, before the optimisation pipeline.
 *
 * Why: PTX registers hold addresses as 64-bit integers, so the shared emission computes every address in i64
 * and converts it with inttoptr at the memory access. SCEV does not look through inttoptr, so LLVM cannot see
 * that in[i] and in[i+1] are consecutive: PoCL's work-group vectoriser costs every access as a gather and
 * gives up (bench/pocl-runtime/RESULTS.md, finding 1), and loop/alias analyses lose the common base.
 *
 * What: every `inttoptr (i64 V)` becomes `getelementptr i8, (inttoptr ROOT), OFFSET` with V == ROOT + OFFSET
 * as integers. ROOT is the opaque start of V's add/sub chain (a load from the parameter buffer, an argument,
 * a call, a phi or select that does not decompose; a ptrtoint of a pointer of the right type is replaced by
 * that pointer). Each root gets ONE inttoptr per pointer type, placed right after its definition, shared by
 * all accesses, so SCEV sees ROOT + affine offset. Induction variables (`p = p + 4` in a loop) whose phi
 * mixes values of one root become offset phis relative to that root (the root must dominate the loop).
 *
 * Semantics: the new address has exactly the old integer value (a GEP without inbounds wraps like the add),
 * in the same address space; the integer computations stay for every other use (stores, compares, calls)
 * and dead ones go away in the pipeline. The GEPs are not inbounds: nothing guarantees that ROOT points into
 * an allocated object (it is an integer from the kernel's caller) nor that intermediate addresses stay inside
 * one (PTX code may form an address below an array and add the index later); inbounds would make such code
 * poison.
 */
#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

#define NIL UINT32_MAX

/* ---- pointer -> index map (open addressing) */
typedef struct {
    const void **keys;
    uint32_t *vals;
    uint32_t cap, n;
} pmap;

static uint32_t slot_of(const pmap *m, const void *k) {
    uintptr_t h = (uintptr_t)k;
    h ^= h >> 17;
    h *= 0x9e3779b97f4a7c15ull;
    uint32_t i = (uint32_t)(h >> 32) & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != k) i = (i + 1) & (m->cap - 1);
    return i;
}

static uint32_t pmap_get(const pmap *m, const void *k) {
    if (!m->cap) return NIL;
    uint32_t i = slot_of(m, k);
    return m->keys[i] ? m->vals[i] : NIL;
}

static bool pmap_put(pmap *m, const void *k, uint32_t v) {
    if (2 * (m->n + 1) > m->cap) {
        pmap g = {.cap = m->cap ? 2 * m->cap : 64};
        g.keys = calloc(g.cap, sizeof *g.keys);
        g.vals = malloc(g.cap * sizeof *g.vals);
        if (!g.keys || !g.vals) { free(g.keys); free(g.vals); return false; }
        for (uint32_t i = 0; i < m->cap; i++)
            if (m->keys[i]) {
                uint32_t s = slot_of(&g, m->keys[i]);
                g.keys[s] = m->keys[i];
                g.vals[s] = m->vals[i];
                g.n++;
            }
        free(m->keys);
        free(m->vals);
        *m = g;
    }
    uint32_t s = slot_of(m, k);
    if (!m->keys[s]) m->n++;
    m->keys[s] = k;
    m->vals[s] = v;
    return true;
}

static void pmap_free(pmap *m) {
    free(m->keys);
    free(m->vals);
}

/* ---- the analysis: each i64 value reaching an inttoptr through add/sub/phi/select is a node */
enum kind { K_SCALAR, K_OPAQUE, K_ADD, K_SUB, K_PHI, K_SELECT };
/* lattice: TOP (not known yet) above NONE (a pure offset: constants, indices) and ROOT r (r + offset) */
enum state { S_TOP, S_NONE, S_ROOT };

typedef struct {
    LLVMValueRef v, root, off;  /* off: the offset from root, built on demand */
    LLVMValueRef base;          /* root's pointer of type base_ty (nodes that are roots) */
    LLVMTypeRef base_ty;
    uint8_t kind, state;
} node;

typedef struct {
    LLVMContextRef C;
    LLVMBuilderRef B;
    LLVMTypeRef i64, i8;
    node *n;
    uint32_t nn, cap;
    pmap idx;
    /* dominators (computed when a phi's root is not trivially dominating) */
    bool have_dom, oom;
    pmap bbi;
    int32_t *idom; /* by reverse-postorder number; -1 unreachable */
    uint32_t *stk, nstk, capstk;    /* offset(): nodes to build */
    uint32_t *phis, nphis, capphis; /* offset phis whose incoming values are still to add */
} rw;

static bool push(rw *w, uint32_t **a, uint32_t *n, uint32_t *cap, uint32_t v) {
    if (*n == *cap) {
        uint32_t nc = *cap ? 2 * *cap : 64;
        uint32_t *na = realloc(*a, nc * sizeof *na);
        if (!na) { w->oom = true; return false; }
        *a = na;
        *cap = nc;
    }
    (*a)[(*n)++] = v;
    return true;
}

static bool is_i64(rw *w, LLVMValueRef v) { return LLVMTypeOf(v) == w->i64; }

static uint8_t classify(LLVMValueRef v) {
    if (LLVMIsAConstant(v)) {
        /* integers and undef are offsets; other constant expressions (ptrtoint of a global) are bases */
        if (LLVMIsAConstantInt(v) || LLVMIsUndef(v) || !LLVMIsAConstantExpr(v)) return K_SCALAR;
        return K_OPAQUE;
    }
    if (!LLVMIsAInstruction(v)) return K_OPAQUE;
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMAdd: return K_ADD;
    case LLVMSub: return K_SUB;
    case LLVMOr: return LLVMGetIsDisjoint(v) ? K_ADD : K_OPAQUE;
    case LLVMPHI: return K_PHI;
    case LLVMSelect: return K_SELECT;
    /* index arithmetic: a scaled or extended index is never the base of an address */
    case LLVMSExt: case LLVMZExt: case LLVMTrunc: case LLVMShl: case LLVMMul: case LLVMUDiv: case LLVMSDiv:
    case LLVMURem: case LLVMSRem: case LLVMLShr: case LLVMAShr: case LLVMFPToSI: case LLVMFPToUI:
        return K_SCALAR;
    default: return K_OPAQUE;
    }
}

static uint32_t node_of(rw *w, LLVMValueRef v) { return pmap_get(&w->idx, v); }

/* adds v (and, depth first, the operands it decomposes through) to the node set */
static void collect(rw *w, LLVMValueRef v0) {
    LLVMValueRef *stack = NULL;
    size_t sp = 0, scap = 0;
    LLVMValueRef v = v0;
    for (;;) {
        if (node_of(w, v) == NIL) {
            if (w->nn == w->cap) {
                uint32_t nc = w->cap ? 2 * w->cap : 64;
                node *nn = realloc(w->n, nc * sizeof *nn);
                if (!nn) { w->oom = true; break; }
                w->n = nn;
                w->cap = nc;
            }
            node *n = &w->n[w->nn];
            *n = (node){.v = v, .kind = classify(v)};
            if (!pmap_put(&w->idx, v, w->nn)) { w->oom = true; break; }
            w->nn++;
            unsigned lo = 0, hi = 0;
            if (n->kind == K_ADD || n->kind == K_SUB) hi = 2;
            else if (n->kind == K_PHI) hi = LLVMCountIncoming(v);
            else if (n->kind == K_SELECT) lo = 1, hi = 3;
            for (unsigned i = lo; i < hi; i++) {
                LLVMValueRef o = n->kind == K_PHI ? LLVMGetIncomingValue(v, i) : LLVMGetOperand(v, i);
                if (sp == scap) {
                    scap = scap ? 2 * scap : 64;
                    LLVMValueRef *ns = realloc(stack, scap * sizeof *ns);
                    if (!ns) { w->oom = true; goto out; }
                    stack = ns;
                }
                stack[sp++] = o;
            }
        }
        if (!sp) break;
        v = stack[--sp];
    }
out:
    free(stack);
}

/* ---- dominators (Cooper, Harvey & Kennedy) over reverse postorder, only for phi roots outside the entry */
static bool compute_dom(rw *w, LLVMValueRef fn) {
    w->have_dom = true;
    unsigned nb = LLVMCountBasicBlocks(fn);
    LLVMBasicBlockRef *rpo = malloc(nb * sizeof *rpo), *stk = malloc(nb * sizeof *stk);
    unsigned *succ_i = calloc(nb, sizeof *succ_i), *npred = calloc(nb + 1, sizeof *npred), *pred = NULL;
    uint8_t *seen = calloc(nb, 1);
    w->idom = malloc(nb * sizeof *w->idom);
    bool ok = rpo && stk && succ_i && npred && seen && w->idom;
    /* iterative DFS; postorder fills rpo from the back */
    unsigned sp = 0, post = nb, k = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); ok && b; b = LLVMGetNextBasicBlock(b))
        ok = pmap_put(&w->bbi, b, k++); /* first: any order, to mark blocks seen */
    if (ok) {
        stk[sp++] = LLVMGetEntryBasicBlock(fn);
        seen[0] = 1;
    }
    while (ok && sp) {
        LLVMBasicBlockRef b = stk[sp - 1];
        uint32_t bi = pmap_get(&w->bbi, b);
        LLVMValueRef t = LLVMGetBasicBlockTerminator(b);
        unsigned ns = t ? LLVMGetNumSuccessors(t) : 0;
        if (succ_i[bi] < ns) {
            LLVMBasicBlockRef s = LLVMGetSuccessor(t, succ_i[bi]++);
            uint32_t si = pmap_get(&w->bbi, s);
            if (si != NIL && !seen[si]) {
                seen[si] = 1;
                stk[sp++] = s;
            }
        } else {
            rpo[--post] = b;
            sp--;
        }
    }
    unsigned nr = nb - post; /* reachable blocks: rpo[post .. nb), renumbered 0 .. nr in that order */
    for (unsigned i = 0; ok && i < nb; i++) /* unreachable blocks map to NIL */
        ok = i < post || pmap_put(&w->bbi, rpo[i], i - post);
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); ok && b; b = LLVMGetNextBasicBlock(b)) {
        uint32_t bi = pmap_get(&w->bbi, b);
        if (bi < nr && rpo[post + bi] == b) continue;
        ok = pmap_put(&w->bbi, b, NIL);
    }
    /* predecessor lists (CSR) of reachable blocks */
    for (unsigned i = 0; ok && i < nr; i++) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(rpo[post + i]);
        for (unsigned s = 0, ns = t ? LLVMGetNumSuccessors(t) : 0; s < ns; s++) {
            uint32_t si = pmap_get(&w->bbi, LLVMGetSuccessor(t, s));
            if (si != NIL) npred[si + 1]++;
        }
    }
    for (unsigned i = 0; i < nr; i++) npred[i + 1] += npred[i];
    if (ok) ok = (pred = malloc((npred[nr] + 1) * sizeof *pred)) != NULL;
    if (ok) memset(succ_i, 0, nb * sizeof *succ_i); /* now: how many predecessors of each are filled in */
    for (unsigned i = 0; ok && i < nr; i++) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(rpo[post + i]);
        for (unsigned s = 0, ns = t ? LLVMGetNumSuccessors(t) : 0; s < ns; s++) {
            uint32_t si = pmap_get(&w->bbi, LLVMGetSuccessor(t, s));
            if (si != NIL) pred[npred[si] + succ_i[si]++] = i;
        }
    }
    if (ok) {
        for (unsigned i = 0; i < nr; i++) w->idom[i] = -1;
        w->idom[0] = 0;
        for (bool changed = true; changed;) {
            changed = false;
            for (unsigned i = 1; i < nr; i++) {
                int32_t nd = -1;
                for (unsigned q = npred[i]; q < npred[i + 1]; q++) {
                    int32_t a = (int32_t)pred[q], c = nd;
                    if (w->idom[a] < 0) continue;
                    if (nd < 0) { nd = a; continue; }
                    while (a != c) {
                        while (a > c) a = w->idom[a];
                        while (c > a) c = w->idom[c];
                    }
                    nd = a;
                }
                if (nd >= 0 && w->idom[i] != nd) {
                    w->idom[i] = nd;
                    changed = true;
                }
            }
        }
    }
    free(rpo);
    free(stk);
    free(succ_i);
    free(npred);
    free(pred);
    free(seen);
    if (!ok) w->oom = true;
    return ok;
}

/* does the definition of root r dominate the start of block b? */
static bool dominates(rw *w, LLVMValueRef r, LLVMBasicBlockRef b) {
    if (!LLVMIsAInstruction(r)) return true; /* argument or constant */
    LLVMBasicBlockRef rb = LLVMGetInstructionParent(r);
    LLVMValueRef fn = LLVMGetBasicBlockParent(rb);
    if (rb == LLVMGetEntryBasicBlock(fn)) return b != rb;
    if (rb == b) return false; /* defined inside b, after its start */
    if (!w->have_dom && !compute_dom(w, fn)) return false;
    uint32_t ri = pmap_get(&w->bbi, rb), bi = pmap_get(&w->bbi, b);
    if (ri == NIL || bi == NIL) return false;
    for (int32_t x = (int32_t)bi; x > 0;) {
        x = w->idom[x];
        if (x == (int32_t)ri) return true;
        if (x < 0) return false;
    }
    return ri == 0;
}

/* ---- fixpoint */
static bool eval(rw *w, uint32_t i) {
    node *n = &w->n[i];
    uint8_t st = n->state;
    LLVMValueRef r = n->root;
    switch (n->kind) {
    case K_SCALAR: st = S_NONE; r = NULL; break;
    case K_OPAQUE: st = S_ROOT; r = n->v; break;
    case K_ADD:
    case K_SUB: {
        node *a = &w->n[node_of(w, LLVMGetOperand(n->v, 0))], *b = &w->n[node_of(w, LLVMGetOperand(n->v, 1))];
        if (a->state == S_ROOT) st = S_ROOT, r = a->root;        /* root + x, root - x */
        else if (a->state == S_TOP) st = S_TOP;
        else if (n->kind == K_ADD) st = b->state, r = b->root;  /* x + root */
        else if (b->state == S_TOP) st = S_TOP;
        else if (b->state == S_NONE) st = S_NONE, r = NULL;
        else st = S_ROOT, r = n->v;                             /* x - root: opaque */
        break;
    }
    case K_PHI:
    case K_SELECT: {
        unsigned cnt = n->kind == K_PHI ? LLVMCountIncoming(n->v) : 2;
        unsigned none = 0, roots = 0;
        LLVMValueRef rr = NULL;
        bool mixed = false;
        for (unsigned k = 0; k < cnt; k++) {
            LLVMValueRef o = n->kind == K_PHI ? LLVMGetIncomingValue(n->v, k) : LLVMGetOperand(n->v, k + 1);
            if (LLVMIsUndef(o)) continue; /* any offset will do: the original address is undefined too */
            node *a = &w->n[node_of(w, o)];
            if (a->state == S_NONE) none++;
            else if (a->state == S_ROOT) {
                if (roots++ && a->root != rr) mixed = true;
                rr = a->root;
            }
        }
        if (!roots && !none) st = S_TOP;
        else if (!roots) st = S_NONE, r = NULL;
        else if (mixed || none || rr == n->v ||
                 (n->kind == K_PHI && !dominates(w, rr, LLVMGetInstructionParent(n->v))))
            st = S_ROOT, r = n->v; /* does not decompose: a root of its own */
        else st = S_ROOT, r = rr;
        break;
    }
    }
    bool changed = st != n->state || r != n->root;
    n->state = st;
    n->root = r;
    return changed;
}

static bool solve(rw *w) {
    for (unsigned round = 0; round < 64 && !w->oom; round++) {
        bool changed = false;
        for (uint32_t i = w->nn; i-- > 0;) changed |= eval(w, i); /* operands were collected after users */
        if (changed) continue;
        /* cycles no value enters (unreachable code): make their phis roots and go on */
        bool top = false;
        for (uint32_t i = 0; i < w->nn; i++)
            if (w->n[i].state == S_TOP && (w->n[i].kind == K_PHI || w->n[i].kind == K_SELECT)) {
                w->n[i].kind = K_OPAQUE;
                top = true;
            }
        if (!top) return true;
    }
    return false;
}

/* ---- building offsets */
static void after(rw *w, LLVMValueRef v) {
    if (LLVMGetInstructionOpcode(v) == LLVMPHI) {
        LLVMValueRef i = LLVMGetFirstInstruction(LLVMGetInstructionParent(v));
        while (LLVMGetInstructionOpcode(i) == LLVMPHI) i = LLVMGetNextInstruction(i);
        LLVMPositionBuilderBefore(w->B, i);
    } else LLVMPositionBuilderBefore(w->B, LLVMGetNextInstruction(v));
}

static bool is_zero(LLVMValueRef v) { return LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == 0; }

/* the operands whose offsets node i's offset is built from (none for phis: their incoming values are filled
 * in later, as they may depend on the phi itself) */
static unsigned offset_deps(rw *w, uint32_t i, LLVMValueRef dep[2]) {
    node *n = &w->n[i];
    if (n->root == n->v) return 0;
    LLVMValueRef a = LLVMGetOperand(n->v, 0);
    switch (n->kind) {
    case K_ADD: dep[0] = w->n[node_of(w, a)].state == S_ROOT ? a : LLVMGetOperand(n->v, 1); return 1;
    case K_SUB: dep[0] = a; return 1;
    case K_SELECT: dep[0] = LLVMGetOperand(n->v, 1), dep[1] = LLVMGetOperand(n->v, 2); return 2;
    default: return 0;
    }
}

static LLVMValueRef built(rw *w, LLVMValueRef v) {
    return LLVMIsUndef(v) ? LLVMGetUndef(w->i64) : w->n[node_of(w, v)].off;
}

/* node i's offset from its root, its dependencies built */
static LLVMValueRef build_offset(rw *w, uint32_t i) {
    node *n = &w->n[i];
    LLVMValueRef v = n->v, a = n->kind == K_OPAQUE || n->kind == K_SCALAR ? NULL : LLVMGetOperand(v, 0);
    if (n->root == v || !a) return LLVMConstInt(w->i64, 0, 0);
    switch (n->kind) {
    case K_ADD: {
        LLVMValueRef b = LLVMGetOperand(v, 1), x, y;
        if (w->n[node_of(w, a)].state == S_ROOT) x = built(w, a), y = b;
        else x = a, y = built(w, b);
        if (is_zero(x)) return y;
        if (is_zero(y)) return x;
        after(w, v);
        return LLVMBuildAdd(w->B, x, y, "");
    }
    case K_SUB:
        after(w, v);
        return LLVMBuildSub(w->B, built(w, a), LLVMGetOperand(v, 1), "");
    case K_SELECT:
        after(w, v);
        return LLVMBuildSelect(w->B, a, built(w, LLVMGetOperand(v, 1)), built(w, LLVMGetOperand(v, 2)), "");
    case K_PHI:
        LLVMPositionBuilderBefore(w->B, LLVMGetFirstInstruction(LLVMGetInstructionParent(v)));
        if (!push(w, &w->phis, &w->nphis, &w->capphis, i)) return NULL;
        return LLVMBuildPhi(w->B, w->i64, "");
    default: return LLVMConstInt(w->i64, 0, 0);
    }
}

/* v's offset from its root, built in postorder with an explicit stack (address chains can be long) */
static LLVMValueRef offset(rw *w, LLVMValueRef v) {
    if (LLVMIsUndef(v)) return LLVMGetUndef(w->i64);
    uint32_t i0 = node_of(w, v);
    w->nstk = 0;
    if (!w->n[i0].off && !push(w, &w->stk, &w->nstk, &w->capstk, i0)) return NULL;
    while (w->nstk && !w->oom) {
        uint32_t i = w->stk[w->nstk - 1];
        if (w->n[i].off) { w->nstk--; continue; }
        LLVMValueRef dep[2];
        unsigned nd = offset_deps(w, i, dep);
        bool ready = true;
        for (unsigned k = 0; k < nd; k++) {
            if (LLVMIsUndef(dep[k])) continue;
            uint32_t j = node_of(w, dep[k]);
            if (!w->n[j].off) {
                ready = false;
                if (!push(w, &w->stk, &w->nstk, &w->capstk, j)) return NULL;
            }
        }
        if (!ready) continue;
        if (!(w->n[i].off = build_offset(w, i))) return NULL;
        w->nstk--;
    }
    return w->oom ? NULL : w->n[i0].off;
}

/* the incoming offsets of the offset phis made so far (which may make more) */
static bool fill_phis(rw *w) {
    for (uint32_t k = 0; k < w->nphis; k++) {
        node *n = &w->n[w->phis[k]];
        LLVMValueRef v = n->v, r = n->off;
        for (unsigned j = 0, cnt = LLVMCountIncoming(v); j < cnt; j++) {
            LLVMValueRef x = offset(w, LLVMGetIncomingValue(v, j));
            if (!x) return false;
            LLVMBasicBlockRef from = LLVMGetIncomingBlock(v, j);
            LLVMAddIncoming(r, &x, &from, 1);
        }
    }
    w->nphis = 0;
    return true;
}

/* the one pointer of type t for root r; NULL where none can be placed */
static LLVMValueRef base_of(rw *w, LLVMValueRef r, LLVMTypeRef t) {
    node *n = &w->n[node_of(w, r)];
    if (n->base && n->base_ty == t) return n->base;
    LLVMValueRef p = NULL;
    bool p2i = LLVMIsAPtrToIntInst(r) || (LLVMIsAConstantExpr(r) && LLVMGetConstOpcode(r) == LLVMPtrToInt);
    if (p2i && LLVMTypeOf(LLVMGetOperand(r, 0)) == t) p = LLVMGetOperand(r, 0);
    else if (LLVMIsAConstant(r)) p = LLVMConstIntToPtr(r, t);
    else if (LLVMIsAArgument(r)) {
        LLVMValueRef i = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(LLVMGetParamParent(r)));
        while (LLVMIsAAllocaInst(i)) i = LLVMGetNextInstruction(i);
        LLVMPositionBuilderBefore(w->B, i);
        p = LLVMBuildIntToPtr(w->B, r, t, "");
    } else if (!LLVMIsATerminatorInst(r)) {
        after(w, r);
        p = LLVMBuildIntToPtr(w->B, r, t, "");
    }
    if (!n->base) n->base = p, n->base_ty = t; /* the first type asked for is cached; others are rare */
    return p;
}

static unsigned rewrite_function(rw *w, LLVMValueRef fn) {
    LLVMValueRef *sites = NULL;
    size_t ns = 0, cap = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
            if (!LLVMIsAIntToPtrInst(i) || !is_i64(w, LLVMGetOperand(i, 0))) continue;
            if (ns == cap) {
                cap = cap ? 2 * cap : 64;
                LLVMValueRef *s = realloc(sites, cap * sizeof *s);
                if (!s) { free(sites); return 0; }
                sites = s;
            }
            sites[ns++] = i;
        }
    unsigned done = 0;
    for (size_t k = 0; k < ns && !w->oom; k++) collect(w, LLVMGetOperand(sites[k], 0));
    if (ns && !w->oom && solve(w))
        for (size_t k = 0; k < ns; k++) {
            LLVMValueRef I = sites[k], v = LLVMGetOperand(I, 0);
            node *n = &w->n[node_of(w, v)];
            if (n->state != S_ROOT) continue; /* a constant or a pure index: nothing to gain */
            LLVMValueRef base = base_of(w, n->root, LLVMTypeOf(I));
            if (!base || base == I) continue;
            LLVMValueRef off = offset(w, v), p = base;
            if (!off) break;
            if (!is_zero(off)) {
                LLVMPositionBuilderBefore(w->B, I);
                p = LLVMBuildGEP2(w->B, w->i8, base, &off, 1, "");
            }
            LLVMReplaceAllUsesWith(I, p);
            LLVMInstructionEraseFromParent(I);
            done++;
        }
    /* a phi left without its incoming values would be invalid IR: fill them even after an allocation failure
     * stopped the loop above (offset() then fails too, and the caller reports the verifier's complaint) */
    fill_phis(w);
    free(sites);
    return done;
}

static unsigned rewrite_module(LLVMModuleRef M) {
    rw w = {.C = LLVMGetModuleContext(M)};
    w.B = LLVMCreateBuilderInContext(w.C);
    w.i64 = LLVMInt64TypeInContext(w.C);
    w.i8 = LLVMInt8TypeInContext(w.C);
    unsigned done = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) {
        if (LLVMIsDeclaration(f)) continue;
        done += rewrite_function(&w, f);
        pmap_free(&w.idx);
        pmap_free(&w.bbi);
        free(w.idom);
        w.idx = w.bbi = (pmap){0};
        w.idom = NULL;
        w.nn = w.nphis = 0;
        w.have_dom = w.oom = false;
    }
    free(w.n);
    free(w.stk);
    free(w.phis);
    LLVMDisposeBuilder(w.B);
    return done;
}

LLVMErrorRef llvm_rewrite_addrs(LLVMModuleRef M, LLVMTargetMachineRef TM) {
    /* registers are allocas until promoted: the chains are only visible in SSA form (SROA rather than mem2reg:
     * it also promotes the AMDGPU allocas, which are reached through an addrspacecast from addrspace(5)) */
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(M, "function(sroa)", TM, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) return e;
    rewrite_module(M);
#ifdef P2N_VERIFY_PASSES
    char *msg = NULL;
    if (LLVMVerifyModule(M, LLVMReturnStatusAction, &msg)) {
        char buf[2200];
        snprintf(buf, sizeof buf, "address rewrite produced invalid IR: %.2000s", msg ? msg : "");
        LLVMDisposeMessage(msg);
        return LLVMCreateStringError(buf);
    }
    LLVMDisposeMessage(msg);
#endif
    return NULL;
}
