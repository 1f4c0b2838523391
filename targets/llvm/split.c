/* split.c — the per-kernel partition plan and its application to a parsed copy (see split.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "split.h"

enum { K_DECL, K_ROOT, K_DUP, K_SINGLE, K_DEAD };

/* edges[] entries: item index, with this bit when the use takes a function's address (not a direct call) */
#define ADDR_USE 0x80000000u

/* The module's reference graph: item x references edges[eoff[x] .. eoff[x+1]). */
typedef struct graph {
    unsigned n;
    LLVMValueRef *val;
    uint8_t *kind, *live;
    uint64_t *ninstr;
    uint32_t *eoff, *edges;
    size_t nedges, ecap;
    LLVMValueRef *hkey; /* open-addressing map value -> item index */
    uint32_t *hidx;
    size_t hmask;
    bool oom;
} graph;

static size_t hslot(const graph *G, LLVMValueRef v) {
    size_t h = (size_t)(((uintptr_t)v >> 4) * 0x9E3779B97F4A7C15ull);
    return (h ^ (h >> 29)) & G->hmask;
}

static long lookup(const graph *G, LLVMValueRef v) {
    for (size_t s = hslot(G, v);; s = (s + 1) & G->hmask) {
        if (!G->hkey[s]) return -1;
        if (G->hkey[s] == v) return G->hidx[s];
    }
}

static void add_edge(graph *G, uint32_t to) {
    if (G->nedges == G->ecap) {
        size_t nc = G->ecap ? 2 * G->ecap : 1024;
        uint32_t *e = realloc(G->edges, nc * sizeof *e);
        if (!e) { G->oom = true; return; }
        G->edges = e;
        G->ecap = nc;
    }
    G->edges[G->nedges++] = to;
}

/* Records the global values v refers to (through constant expressions and aggregates). `callee`: v is the
 * called operand of a direct call, the one use of a function that does not take its address. */
static void scan(graph *G, LLVMValueRef v, bool callee) {
    if (LLVMIsAGlobalValue(v)) {
        long i = lookup(G, v);
        if (i < 0) return;
        add_edge(G, (uint32_t)i | (!callee && LLVMIsAFunction(v) ? ADDR_USE : 0));
        return;
    }
    if (!LLVMIsAConstant(v)) return;
    int n = LLVMGetNumOperands(v);
    for (int k = 0; k < n; k++) scan(G, LLVMGetOperand(v, (unsigned)k), false);
}

static void scan_function(graph *G, uint32_t x) {
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(G->val[x]); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            G->ninstr[x]++;
            int n = LLVMGetNumOperands(in);
            bool call = LLVMIsACallInst(in) != NULL;
            for (int k = 0; k < n; k++) scan(G, LLVMGetOperand(in, (unsigned)k), call && k == n - 1);
        }
}

/* The host descriptor lists kernels by address: every function in __p2n_kernels' initializer is a root. */
static void mark_roots(graph *G, LLVMValueRef v) {
    if (LLVMIsAFunction(v)) {
        long i = lookup(G, v);
        if (i >= 0 && G->kind[i] != K_DECL) G->kind[i] = K_ROOT;
        return;
    }
    if (LLVMIsAGlobalValue(v) || !LLVMIsAConstant(v)) return;
    int n = LLVMGetNumOperands(v);
    for (int k = 0; k < n; k++) mark_roots(G, LLVMGetOperand(v, (unsigned)k));
}

static bool is_local(LLVMValueRef v) {
    LLVMLinkage l = LLVMGetLinkage(v);
    return l == LLVMInternalLinkage || l == LLVMPrivateLinkage;
}

static void graph_free(graph *G) {
    free(G->val); free(G->kind); free(G->live); free(G->ninstr); free(G->eoff); free(G->edges);
    free(G->hkey); free(G->hidx);
}

/* Items, kinds and edges; false when the module is not one this splitter handles. */
static bool graph_build(graph *G, LLVMModuleRef M, const target_desc *t) {
    if (LLVMGetFirstGlobalAlias(M) || LLVMGetFirstGlobalIFunc(M)) return false;
    unsigned n = 0;
    for (LLVMValueRef g = LLVMGetFirstGlobal(M); g; g = LLVMGetNextGlobal(g)) n++;
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) n++;
    G->n = n;
    size_t hcap = 16;
    while (hcap < 2 * (size_t)n + 2) hcap *= 2;
    G->hmask = hcap - 1;
    G->val = calloc(n + 1, sizeof *G->val);
    G->kind = calloc(n + 1, 1);
    G->live = calloc(n + 1, 1);
    G->ninstr = calloc(n + 1, sizeof *G->ninstr);
    G->eoff = calloc(n + 2, sizeof *G->eoff);
    G->hkey = calloc(hcap, sizeof *G->hkey);
    G->hidx = calloc(hcap, sizeof *G->hidx);
    if (!G->val || !G->kind || !G->live || !G->ninstr || !G->eoff || !G->hkey || !G->hidx) return false;
    unsigned i = 0;
    for (LLVMValueRef g = LLVMGetFirstGlobal(M); g; g = LLVMGetNextGlobal(g)) G->val[i++] = g;
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) G->val[i++] = f;
    for (i = 0; i < n; i++) {
        size_t s = hslot(G, G->val[i]);
        while (G->hkey[s]) s = (s + 1) & G->hmask;
        G->hkey[s] = G->val[i];
        G->hidx[s] = i;
    }
    for (i = 0; i < n; i++) {
        LLVMValueRef v = G->val[i];
        if (LLVMGetLinkage(v) == LLVMAppendingLinkage) return false; /* llvm.used & co: keep whole */
        G->kind[i] = LLVMIsDeclaration(v) ? K_DECL : K_SINGLE;
    }
    for (i = 0; i < n; i++) {
        G->eoff[i] = (uint32_t)G->nedges;
        if (G->kind[i] == K_DECL) continue;
        if (LLVMIsAFunction(G->val[i])) scan_function(G, i);
        else scan(G, LLVMGetInitializer(G->val[i]), false);
        if (G->oom || G->nedges > UINT32_MAX / 2) return false;
    }
    G->eoff[n] = (uint32_t)G->nedges;
    /* Live: what the externally visible definitions reach. A lowering may leave unreferenced local globals
     * behind (AMDGPU keeps the host kernel table, whose users are dead constants); they get no partition. */
    uint32_t *stack = malloc((n + 1) * sizeof *stack);
    if (!stack) return false;
    unsigned sp = 0;
    for (i = 0; i < n; i++)
        if (G->kind[i] != K_DECL && !is_local(G->val[i])) { G->live[i] = 1; stack[sp++] = i; }
    while (sp) {
        uint32_t x = stack[--sp];
        for (uint32_t e = G->eoff[x]; e < G->eoff[x + 1]; e++) {
            uint32_t y = G->edges[e] & ~ADDR_USE;
            if (!G->live[y]) { G->live[y] = 1; stack[sp++] = y; }
        }
    }
    free(stack);
    for (i = 0; i < n; i++) {
        LLVMValueRef v = G->val[i];
        if (G->kind[i] == K_DECL) continue;
        if (!G->live[i]) G->kind[i] = K_DEAD;
        else if (LLVMIsAFunction(v)) G->kind[i] = is_local(v) ? K_DUP : K_ROOT;
        else if (is_local(v) && ((LLVMIsGlobalConstant(v) && LLVMGetUnnamedAddress(v) != LLVMNoUnnamedAddr) ||
                                 (t->smem_per_kernel &&
                                  LLVMGetPointerAddressSpace(LLVMTypeOf(v)) == t->as_shared)))
            G->kind[i] = K_DUP;
    }
    LLVMValueRef kt = LLVMGetNamedGlobal(M, "__p2n_kernels");
    long kti = kt ? lookup(G, kt) : -1;
    if (kti >= 0 && G->live[kti]) mark_roots(G, LLVMGetInitializer(kt));
    /* a helper whose address escapes may be called from any partition: its single identity and (AMDGPU)
     * the LDS it touches would span objects, so such modules are compiled whole */
    for (i = 0; i < n; i++)
        if (G->live[i])
            for (uint32_t e = G->eoff[i]; e < G->eoff[i + 1]; e++)
                if ((G->edges[e] & ADDR_USE) && G->kind[G->edges[e] & ~ADDR_USE] == K_DUP) return false;
    return true;
}

/* Estimated work of a kernel: instructions of every function it pulls in (helpers are copied). */
static uint64_t root_cost(const graph *G, uint32_t r, uint32_t *stamp, uint32_t *stack) {
    uint64_t cost = 0;
    unsigned sp = 0;
    stack[sp++] = r;
    stamp[r] = r + 1;
    while (sp) {
        uint32_t x = stack[--sp];
        cost += G->ninstr[x];
        for (uint32_t e = G->eoff[x]; e < G->eoff[x + 1]; e++) {
            uint32_t y = G->edges[e] & ~ADDR_USE;
            if (stamp[y] == r + 1 || G->kind[y] == K_DECL || G->kind[y] == K_ROOT) continue;
            stamp[y] = r + 1;
            stack[sp++] = y;
        }
    }
    return cost;
}

static uint32_t uf_find(uint32_t *up, uint32_t a) {
    while (up[a] != a) a = up[a] = up[up[a]];
    return a;
}

/* Kernels that share a helper making up at least half of either one's cost go to the same partition: split,
 * each partition would optimise the helper before inlining it (the serial compile does that once). The host
 * target's thread-loop entry K.block and its per-thread entry K both wrap one body, K.body (targets/host/host_entries.c);
 * helpers every kernel calls a little of (math library slow paths) stay shared. grp[k]: the group of roots[k]. */
static void share_groups(const graph *G, const uint32_t *roots, unsigned nroots, const uint64_t *cost,
                         uint32_t *stamp, uint32_t *stack, uint32_t *grp) {
    uint32_t *owner = malloc((G->n + 1) * sizeof *owner), *seen = calloc(G->n + 1, sizeof *seen);
    uint32_t *hstack = malloc((G->n + 1) * sizeof *hstack);
    uint64_t *hcost = calloc(G->n + 1, sizeof *hcost);
    for (unsigned k = 0; k < nroots; k++) grp[k] = k;
    if (!owner || !seen || !hstack || !hcost) goto out; /* no grouping: only slower */
    memset(stamp, 0, (G->n + 1) * sizeof *stamp); /* root_cost's marks, reused for the helpers' costs */
    for (uint32_t i = 0; i < G->n; i++) owner[i] = UINT32_MAX;
    for (unsigned k = 0; k < nroots; k++) {
        unsigned sp = 0;
        stack[sp++] = roots[k];
        seen[roots[k]] = k + 1;
        while (sp) {
            uint32_t x = stack[--sp];
            if (x != roots[k] && LLVMIsAFunction(G->val[x])) {
                if (owner[x] == UINT32_MAX) {
                    owner[x] = k;
                } else if (uf_find(grp, owner[x]) != uf_find(grp, k)) {
                    if (!hcost[x]) hcost[x] = root_cost(G, x, stamp, hstack) + 1;
                    uint64_t a = cost[roots[k]], b = cost[roots[owner[x]]];
                    if (2 * hcost[x] >= (a < b ? a : b)) grp[uf_find(grp, k)] = uf_find(grp, owner[x]);
                }
            }
            for (uint32_t e = G->eoff[x]; e < G->eoff[x + 1]; e++) {
                uint32_t y = G->edges[e] & ~ADDR_USE;
                if (seen[y] == k + 1 || G->kind[y] != K_DUP) continue;
                seen[y] = k + 1;
                stack[sp++] = y;
            }
        }
    }
    for (unsigned k = 0; k < nroots; k++) grp[k] = uf_find(grp, k);
out:
    free(owner); free(seen); free(hstack); free(hcost);
}

typedef struct planner {
    const graph *G;
    split_plan *P;
    int32_t *home;   /* partition defining a root/single item; -1 none yet */
    uint8_t *cross;  /* referenced from a partition other than its home */
    uint32_t *stack;
} planner;

/* Defines x in partition p, then everything x needs that p must define itself. */
static void claim(planner *L, unsigned p, uint32_t x) {
    const graph *G = L->G;
    uint8_t *def = L->P->define + (size_t)p * G->n;
    unsigned sp = 0;
    def[x] = 1;
    L->stack[sp++] = x;
    while (sp) {
        uint32_t y = L->stack[--sp];
        for (uint32_t e = G->eoff[y]; e < G->eoff[y + 1]; e++) {
            uint32_t z = G->edges[e] & ~ADDR_USE;
            if (def[z]) continue;
            switch (G->kind[z]) {
            case K_DECL: continue;
            case K_ROOT: if (L->home[z] != (int32_t)p) L->cross[z] = 1; continue;
            case K_SINGLE:
                if (L->home[z] >= 0 && L->home[z] != (int32_t)p) { L->cross[z] = 1; continue; }
                L->home[z] = (int32_t)p;
                break;
            default: break; /* K_DUP: a copy in every partition that reaches it */
            }
            def[z] = 1;
            L->stack[sp++] = z; /* each item is pushed at most once per partition: stack of n suffices */
        }
    }
}

/* The -j cost model, in units of one LLVM instruction before optimisation (~25 us of optimisation + code
 * generation at -O3 on AMDGPU, less on the host). Fixed costs measured with `ptx2native -j2 -v` (CPU seconds of
 * the serial part and of each partition) on tests/parallel/multi.ptx, templates.sm_80.ptx, math_double.sm_80.ptx
 * and bench/compile-speed/many_kernels.ptx: ~0.1 s serial (process start-up, parse, emission, link) whatever
 * the split, and ~0.04 s per partition (its own TargetMachine, bitcode read, pass set-up). */
enum { SERIAL_COST = 4000, PARTITION_COST = 1600 };

/* Speed-up of the split on idle cores: serial compile / (serial part + most loaded partition). */
static double estimate_gain(uint64_t total, uint64_t max_load) {
    return (double)(SERIAL_COST + total) / (double)(SERIAL_COST + PARTITION_COST + max_load);
}

bool split_plan_make(LLVMModuleRef M, const target_desc *t, unsigned jobs, double min_gain, split_plan *plan,
                     double *gain) {
    memset(plan, 0, sizeof *plan);
    if (gain) *gain = 0;
    if (jobs < 2) return false;
    graph G;
    memset(&G, 0, sizeof G);
    bool ok = false;
    uint32_t *roots = NULL, *stamp = NULL, *stack = NULL;
    uint64_t *cost = NULL, *load = NULL, *gcost = NULL;
    unsigned *order = NULL;
    uint32_t *grp = NULL, *gidx = NULL;
    int32_t *home = NULL;
    uint8_t *cross = NULL;
    if (!graph_build(&G, M, t)) goto out;
    unsigned n = G.n, nroots = 0;
    roots = malloc((n + 1) * sizeof *roots);
    stamp = calloc(n + 1, sizeof *stamp);
    stack = malloc((n + 1) * sizeof *stack);
    cost = calloc(n + 1, sizeof *cost);
    home = malloc((n + 1) * sizeof *home);
    cross = calloc(n + 1, 1);
    if (!roots || !stamp || !stack || !cost || !home || !cross) goto out;
    for (uint32_t i = 0; i < n; i++) {
        home[i] = -1;
        if (G.kind[i] == K_ROOT) { roots[nroots++] = i; cost[i] = root_cost(&G, i, stamp, stack); }
    }
    if (nroots < 2) goto out;
    /* groups of kernels that share most of their code (share_groups): a group's cost is its members' */
    grp = malloc(nroots * sizeof *grp);
    gcost = calloc(nroots, sizeof *gcost);
    gidx = malloc(nroots * sizeof *gidx);
    if (!grp || !gcost || !gidx) goto out;
    share_groups(&G, roots, nroots, cost, stamp, stack, grp);
    unsigned ngroups = 0;
    for (unsigned k = 0; k < nroots; k++) {
        gcost[grp[k]] += cost[roots[k]] + 1;
        if (grp[k] == k) gidx[ngroups++] = k;
    }
    if (ngroups < 2) goto out;
    unsigned np = jobs < ngroups ? jobs : ngroups;
    /* longest first onto the least loaded partition (LPT): good balance for the few partitions we make */
    for (unsigned a = 1; a < ngroups; a++)
        for (unsigned b = a; b > 0 && gcost[gidx[b]] > gcost[gidx[b - 1]]; b--) {
            uint32_t tmp = gidx[b]; gidx[b] = gidx[b - 1]; gidx[b - 1] = tmp;
        }
    load = calloc(np, sizeof *load);
    order = calloc(np, sizeof *order);
    plan->define = calloc((size_t)np * n + 1, 1);
    plan->names = calloc(n + 1, sizeof *plan->names);
    plan->promote = calloc(n + 1, 1);
    if (!load || !order || !plan->define || !plan->names || !plan->promote) goto out;
    plan->nparts = np;
    plan->nitems = n;
    uint64_t total = 0, max_load = 0;
    for (unsigned g = 0; g < ngroups; g++) {
        unsigned best = 0;
        for (unsigned p = 1; p < np; p++) if (load[p] < load[best]) best = p;
        load[best] += gcost[gidx[g]];
        total += gcost[gidx[g]];
        for (unsigned k = 0; k < nroots; k++) if (grp[k] == gidx[g]) home[roots[k]] = (int32_t)best;
    }
    for (unsigned p = 0; p < np; p++) if (load[p] > max_load) max_load = load[p];
    /* number the partitions by decreasing load: the caller compiles 0 itself and queues the others in order,
     * so the largest are started first */
    for (unsigned a = 0; a < np; a++) {
        unsigned rank = 0;
        for (unsigned b = 0; b < np; b++) rank += load[b] > load[a] || (load[b] == load[a] && b < a);
        order[a] = rank;
    }
    for (unsigned k = 0; k < nroots; k++) home[roots[k]] = (int32_t)order[home[roots[k]]];
    /* a helper reached from several kernels counts once per kernel: the serial compile inlines it into each
     * (or, when it stays a call, a split compiles it once per partition), so total is about the serial work */
    plan->gain = estimate_gain(total, max_load);
    if (gain) *gain = plan->gain;
    if (min_gain > 0 && plan->gain < min_gain) goto out; /* nothing renamed or promoted yet */
    planner L = {&G, plan, home, cross, stack};
    for (unsigned p = 0; p < np; p++)
        for (uint32_t i = 0; i < n; i++)
            if (G.kind[i] == K_ROOT && home[i] == (int32_t)p) claim(&L, p, i);
    /* what no kernel reaches (the host descriptor, globals only the host reads) lives in partition 0 */
    for (uint32_t i = 0; i < n; i++)
        if (G.kind[i] == K_SINGLE && home[i] < 0) { home[i] = 0; claim(&L, 0, i); }
    for (uint32_t i = 0; i < n; i++) {
        LLVMValueRef v = G.val[i];
        if (cross[i] && is_local(v)) {
            size_t len;
            if (!*LLVMGetValueName2(v, &len)) {
                char nm[48];
                snprintf(nm, sizeof nm, "__p2n_split.%u", i);
                LLVMSetValueName2(v, nm, strlen(nm));
            }
            LLVMSetLinkage(v, LLVMExternalLinkage);
            LLVMSetVisibility(v, LLVMHiddenVisibility);
            plan->promote[i] = 1;
        }
        size_t len;
        const char *nm = LLVMGetValueName2(v, &len);
        plan->names[i] = strdup(nm);
        if (!plan->names[i]) goto out;
    }
    ok = true;
out:
    if (!ok) split_plan_free(plan);
    graph_free(&G);
    free(roots); free(stamp); free(stack); free(cost); free(load); free(order); free(home);
    free(grp); free(gcost); free(gidx); free(cross);
    return ok;
}

/* An external declaration in place of a definition this partition does not own. */
static LLVMValueRef to_declaration(LLVMModuleRef M, LLVMValueRef v) {
    if (!LLVMIsAFunction(v)) {
        LLVMSetInitializer(v, NULL);
        if (is_local(v)) LLVMSetLinkage(v, LLVMExternalLinkage);
        return v;
    }
    /* llvm-c cannot delete a body: a fresh declaration takes over the uses and the name */
    size_t len;
    char *name = strdup(LLVMGetValueName2(v, &len));
    if (!name) return NULL;
    LLVMValueRef d = LLVMAddFunction(M, "", LLVMGlobalGetValueType(v));
    LLVMSetFunctionCallConv(d, LLVMGetFunctionCallConv(v));
    LLVMReplaceAllUsesWith(v, d);
    LLVMVisibility vis = is_local(v) ? LLVMDefaultVisibility : LLVMGetVisibility(v);
    LLVMDeleteFunction(v);
    LLVMSetValueName2(d, name, len);
    LLVMSetVisibility(d, vis);
    free(name);
    return d;
}

/* A lazily read copy (LLVMGetBitcodeModuleInContext2) holds the bodies still in the bitcode: such a function is
 * neither a declaration nor has a block yet. llvm-c reads a body only through the legacy function pass manager,
 * which materializes the function it runs on; with no passes added that is all it does. */
static void materialize(LLVMModuleRef M, LLVMPassManagerRef *fpm, LLVMValueRef f) {
    if (LLVMIsDeclaration(f) || LLVMGetFirstBasicBlock(f)) return;
    if (!*fpm) {
        *fpm = LLVMCreateFunctionPassManagerForModule(M);
        LLVMInitializeFunctionPassManager(*fpm);
    }
    LLVMRunFunctionPassManager(*fpm, f);
}

bool split_apply(LLVMModuleRef M, const split_plan *plan, unsigned part) {
    unsigned n = plan->nitems;
    LLVMValueRef *val = calloc(n + 1, sizeof *val);
    uint8_t *dropped = calloc(n + 1, 1);
    bool ok = false;
    if (!val || !dropped || part >= plan->nparts) goto out;
    unsigned i = 0;
    for (LLVMValueRef g = LLVMGetFirstGlobal(M); g; g = LLVMGetNextGlobal(g), i++) if (i < n) val[i] = g;
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f), i++) if (i < n) val[i] = f;
    if (i != n) goto out;
    for (i = 0; i < n; i++) {
        size_t len;
        if (plan->promote[i] && is_local(val[i])) { /* a copy emitted again: promote as split_plan_make did */
            if (!*LLVMGetValueName2(val[i], &len)) LLVMSetValueName2(val[i], plan->names[i], strlen(plan->names[i]));
            LLVMSetLinkage(val[i], LLVMExternalLinkage);
            LLVMSetVisibility(val[i], LLVMHiddenVisibility);
        }
        if (strcmp(LLVMGetValueName2(val[i], &len), plan->names[i]) != 0) goto out;
    }
    const uint8_t *def = plan->define + (size_t)part * n;
    /* every body this partition keeps is read before any other function is replaced by a declaration (the
     * bodies not read are then never parsed) */
    LLVMPassManagerRef fpm = NULL;
    for (i = 0; i < n; i++)
        if (def[i] && LLVMIsAFunction(val[i])) materialize(M, &fpm, val[i]);
    if (fpm) {
        LLVMFinalizeFunctionPassManager(fpm);
        LLVMDisposePassManager(fpm);
    }
    for (i = 0; i < n; i++) {
        if (def[i]) continue;
        if (LLVMIsDeclaration(val[i])) {
            /* a body the bitcode left out (parallel.c: partition 0's own) reads back as a local declaration */
            if (is_local(val[i])) {
                LLVMSetLinkage(val[i], LLVMExternalLinkage);
                dropped[i] = 1;
            }
            continue;
        }
        val[i] = to_declaration(M, val[i]);
        if (!val[i]) goto out;
        dropped[i] = 1;
    }
    for (i = 0; i < n; i++) {
        if (!dropped[i] || LLVMGetFirstUse(val[i])) continue;
        if (LLVMIsAFunction(val[i])) LLVMDeleteFunction(val[i]);
        else LLVMDeleteGlobal(val[i]);
    }
    ok = true;
out:
    free(val);
    free(dropped);
    return ok;
}

void split_plan_free(split_plan *plan) {
    if (plan->names)
        for (unsigned i = 0; i < plan->nitems; i++) free(plan->names[i]);
    free(plan->names);
    free(plan->define);
    free(plan->promote);
    memset(plan, 0, sizeof *plan);
}
