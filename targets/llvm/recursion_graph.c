/* recursion_graph.c — analyses for eliminate_recursion.c: a pointer map, the call graph's strongly connected
 * components (Tarjan), and which SSA values are live into given blocks (backward data flow on bit sets). */
#include <stdlib.h>
#include <string.h>

#include "recursion_graph.h"

/* ---- pointer -> index map (open addressing; capacity fixed at creation) */

bool rec_map_init(rec_map *m, uint32_t n) {
    uint32_t cap = 16;
    while (cap < 2 * n + 2) cap *= 2;
    m->k = calloc(cap, sizeof *m->k);
    m->v = calloc(cap, sizeof *m->v);
    m->mask = cap - 1;
    return m->k && m->v;
}
void rec_map_free(rec_map *m) { free(m->k); free(m->v); }
static uint32_t rec_map_slot(const rec_map *m, const void *p) {
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
    uint32_t i = (uint32_t)(h >> 32) & m->mask;
    while (m->k[i] && m->k[i] != p) i = (i + 1) & m->mask;
    return i;
}
void rec_map_put(rec_map *m, const void *p, uint32_t v) {
    uint32_t i = rec_map_slot(m, p);
    m->k[i] = p;
    m->v[i] = v;
}
bool rec_map_get(const rec_map *m, const void *p, uint32_t *v) {
    uint32_t i = rec_map_slot(m, p);
    if (!m->k[i]) return false;
    *v = m->v[i];
    return true;
}

bool rec_grow(void **a, uint32_t *cap, uint32_t need, size_t elem) {
    if (need <= *cap) return true;
    uint32_t c = *cap ? *cap * 2 : 16;
    while (c < need) c *= 2;
    void *n = realloc(*a, (size_t)c * elem);
    if (!n) return false;
    *a = n;
    *cap = c;
    return true;
}

/* ---- call graph and its strongly connected components (Tarjan) */

static bool add_edge(rec_graph *G, uint32_t a, uint32_t b) {
    if ((b & ~EDGE_INDIRECT) == a) G->self[a] = true;
    if (!rec_grow((void **)&G->succ[a], &G->capsucc[a], G->nsucc[a] + 1, sizeof **G->succ)) return false;
    G->succ[a][G->nsucc[a]++] = b;
    return true;
}

/* A use of F other than as the callee of a call takes its address. */
static bool address_taken(LLVMValueRef F) {
    for (LLVMUseRef u = LLVMGetFirstUse(F); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef U = LLVMGetUser(u);
        if (!LLVMIsACallInst(U) || LLVMGetCalledValue(U) != F) return true;
        for (unsigned i = 0, n = LLVMGetNumArgOperands(U); i < n; i++)
            if (LLVMGetOperand(U, i) == F) return true;
    }
    return false;
}

static void tarjan(rec_graph *G, uint32_t v) {
    G->order[v] = G->low[v] = G->counter++;
    G->stack[G->sp++] = v;
    G->onstack[v] = true;
    for (uint32_t k = 0; k < G->nsucc[v]; k++) {
        uint32_t w = G->succ[v][k] & ~EDGE_INDIRECT;
        if (G->order[w] < 0) {
            tarjan(G, w);
            if (G->low[w] < G->low[v]) G->low[v] = G->low[w];
        } else if (G->onstack[w] && G->order[w] < G->low[v]) G->low[v] = G->order[w];
    }
    if (G->low[v] != G->order[v]) return;
    uint32_t w;
    do {
        w = G->stack[--G->sp];
        G->onstack[w] = false;
        G->scc[w] = G->nscc;
    } while (w != v);
    G->nscc++;
}

void rec_graph_free(rec_graph *G) {
    for (uint32_t i = 0; i < G->n; i++) free(G->succ[i]);
    free(G->fn); free(G->succ); free(G->nsucc); free(G->capsucc); free(G->self); free(G->addr_taken);
    free(G->order); free(G->low); free(G->onstack); free(G->stack); free(G->scc);
    rec_map_free(&G->idx);
}

bool rec_graph_build(rec_graph *G, LLVMModuleRef M) {
    memset(G, 0, sizeof *G);
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) G->n += !LLVMIsDeclaration(f);
    uint32_t n = G->n;
    G->fn = calloc(n + 1, sizeof *G->fn);
    G->succ = calloc(n + 1, sizeof *G->succ);
    G->nsucc = calloc(n + 1, sizeof *G->nsucc);
    G->capsucc = calloc(n + 1, sizeof *G->capsucc);
    G->self = calloc(n + 1, 1);
    G->addr_taken = calloc(n + 1, 1);
    G->order = calloc(n + 1, sizeof *G->order);
    G->low = calloc(n + 1, sizeof *G->low);
    G->onstack = calloc(n + 1, 1);
    G->stack = calloc(n + 1, sizeof *G->stack);
    G->scc = calloc(n + 1, sizeof *G->scc);
    if (!rec_map_init(&G->idx, n) || !G->fn || !G->succ || !G->nsucc || !G->capsucc || !G->self || !G->addr_taken ||
        !G->order || !G->low || !G->onstack || !G->stack || !G->scc)
        return false;
    uint32_t i = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) {
        if (LLVMIsDeclaration(f)) continue;
        G->fn[i] = f;
        rec_map_put(&G->idx, f, i);
        G->addr_taken[i] = address_taken(f);
        i++;
    }
    for (i = 0; i < n; i++)
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(G->fn[i]); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
                if (!LLVMIsACallInst(I)) continue;
                LLVMValueRef c = LLVMGetCalledValue(I);
                uint32_t j;
                if (LLVMIsAFunction(c)) {
                    if (rec_map_get(&G->idx, c, &j) && !add_edge(G, i, j)) return false;
                } else if (!LLVMIsAInlineAsm(c) && !LLVMIsALoadInst(c)) {
                    /* a PTX indirect call (inttoptr of a register): conservatively, it may reach every
                     * address-taken function of its type (.funcs, not kernels: those have another type) */
                    LLVMTypeRef ft = LLVMGetCalledFunctionType(I);
                    for (j = 0; j < n; j++)
                        if (G->addr_taken[j] && LLVMGlobalGetValueType(G->fn[j]) == ft &&
                            !add_edge(G, i, j | EDGE_INDIRECT))
                            return false;
                }
            }
    for (i = 0; i < n; i++) G->order[i] = -1;
    for (i = 0; i < n; i++)
        if (G->order[i] < 0) tarjan(G, i);
    return true;
}

/* ---- liveness of SSA values (not allocas, not arguments) */
typedef struct live {
    uint32_t nb, nv, w;
    uint64_t *in, *out, *ue, *def, *gen;
} live;

#define BIT(set, b, i) ((set)[(size_t)(b) * L.w + ((i) >> 6)] & (1ull << ((i) & 63)))
#define SETBIT(set, b, i) ((set)[(size_t)(b) * L.w + ((i) >> 6)] |= 1ull << ((i) & 63))

bool rec_live_into(LLVMValueRef fn, const LLVMBasicBlockRef *conts, uint32_t ncont, LLVMValueRef **live_out,
                   uint32_t *nlive) {
    live L = {0};
    rec_map bidx = {0}, vidx = {0};
    LLVMValueRef *vals = NULL;
    LLVMBasicBlockRef *blocks = NULL;
    uint64_t *across = NULL;
    uint32_t capv = 0;
    bool ok = false;
    L.nb = LLVMCountBasicBlocks(fn);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
            if (LLVMGetTypeKind(LLVMTypeOf(I)) == LLVMVoidTypeKind || LLVMIsAAllocaInst(I)) continue;
            if (!rec_grow((void **)&vals, &capv, L.nv + 1, sizeof *vals)) goto done;
            vals[L.nv++] = I;
        }
    L.w = (L.nv + 63) / 64 + 1;
    size_t words = (size_t)L.nb * L.w;
    L.in = calloc(words, 8); L.out = calloc(words, 8); L.ue = calloc(words, 8); L.def = calloc(words, 8);
    L.gen = calloc(words, 8);
    blocks = calloc(L.nb + 1, sizeof *blocks);
    across = calloc(L.w, 8);
    if (!rec_map_init(&bidx, L.nb) || !rec_map_init(&vidx, L.nv) || !L.in || !L.out || !L.ue || !L.def || !L.gen ||
        !blocks || !across)
        goto done;
    for (uint32_t v = 0; v < L.nv; v++) rec_map_put(&vidx, vals[v], v);
    uint32_t b = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        rec_map_put(&bidx, bb, b);
        blocks[b++] = bb;
    }
    for (b = 0; b < L.nb; b++)
        for (LLVMValueRef I = LLVMGetFirstInstruction(blocks[b]); I; I = LLVMGetNextInstruction(I)) {
            uint32_t v;
            bool phi = LLVMIsAPHINode(I);
            for (int o = 0, n = LLVMGetNumOperands(I); o < n; o++) {
                LLVMValueRef op = LLVMGetOperand(I, o);
                if (!op || !rec_map_get(&vidx, op, &v)) continue;
                uint32_t pb;
                if (phi) { /* a phi operand is used at the end of its incoming block */
                    if (rec_map_get(&bidx, LLVMGetIncomingBlock(I, (unsigned)o), &pb)) SETBIT(L.gen, pb, v);
                } else if (!BIT(L.def, b, v)) {
                    SETBIT(L.ue, b, v);
                }
            }
            if (rec_map_get(&vidx, I, &v)) SETBIT(L.def, b, v);
        }
    /* out(B) = gen(B) | U in(S); in(B) = ue(B) | (out(B) & ~def(B)), to the fixed point */
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = L.nb; k-- > 0;) {
            uint64_t *out = &L.out[(size_t)k * L.w], *in = &L.in[(size_t)k * L.w];
            LLVMValueRef term = LLVMGetBasicBlockTerminator(blocks[k]);
            for (uint32_t i = 0; i < L.w; i++) out[i] = L.gen[(size_t)k * L.w + i];
            for (unsigned s = 0, ns = term ? LLVMGetNumSuccessors(term) : 0; s < ns; s++) {
                uint32_t sb;
                if (!rec_map_get(&bidx, LLVMGetSuccessor(term, s), &sb)) continue;
                for (uint32_t i = 0; i < L.w; i++) out[i] |= L.in[(size_t)sb * L.w + i];
            }
            for (uint32_t i = 0; i < L.w; i++) {
                uint64_t n = L.ue[(size_t)k * L.w + i] | (out[i] & ~L.def[(size_t)k * L.w + i]);
                if (n != in[i]) { in[i] = n; changed = true; }
            }
        }
    }
    for (uint32_t c = 0; c < ncont; c++) {
        uint32_t cb;
        if (!rec_map_get(&bidx, conts[c], &cb)) continue;
        for (uint32_t i = 0; i < L.w; i++) across[i] |= L.in[(size_t)cb * L.w + i];
    }
    ok = true;
    *live_out = NULL;
    *nlive = 0;
    uint32_t cap = 0;
    for (uint32_t v = 0; v < L.nv && ok; v++) {
        if (!(across[v >> 6] & (1ull << (v & 63)))) continue;
        ok = rec_grow((void **)live_out, &cap, *nlive + 1, sizeof **live_out);
        if (ok) (*live_out)[(*nlive)++] = vals[v];
    }
done:
    free(across);
    free(blocks);
    free(L.in); free(L.out); free(L.ue); free(L.def); free(L.gen);
    rec_map_free(&bidx);
    rec_map_free(&vidx);
    free(vals);
    return ok;
}
