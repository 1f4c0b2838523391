/* recursion_graph.h — analyses for the recursion transform (recursion_graph.c, used by eliminate_recursion.c). */
#ifndef P2N_RECURSION_GRAPH_H
#define P2N_RECURSION_GRAPH_H

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* pointer -> index map, open addressing, capacity fixed by rec_map_init for n keys */
typedef struct rec_map {
    const void **k;
    uint32_t *v;
    uint32_t mask;
} rec_map;
bool rec_map_init(rec_map *m, uint32_t n);
void rec_map_free(rec_map *m);
void rec_map_put(rec_map *m, const void *p, uint32_t v);
bool rec_map_get(const rec_map *m, const void *p, uint32_t *v);

/* *a grows (doubling) to hold at least need elements of elem bytes; false when out of memory */
bool rec_grow(void **a, uint32_t *cap, uint32_t need, size_t elem);

/* The call graph of the defined functions of a module and its SCCs. An edge is a direct call, or (marked
 * EDGE_INDIRECT) an indirect call to an address-taken function of the call's type: conservatively, an
 * indirect call may reach each of them. Calls through a loaded pointer (the host runtime table) are not
 * edges: they never reach a PTX function. */
#define EDGE_INDIRECT 0x80000000u
typedef struct rec_graph {
    LLVMValueRef *fn;
    uint32_t n;
    rec_map idx;
    uint32_t **succ, *nsucc, *capsucc;
    bool *self, *addr_taken;
    /* Tarjan */
    int32_t *order, *low;
    bool *onstack;
    uint32_t *stack, sp, *scc, nscc;
    int32_t counter;
} rec_graph;
bool rec_graph_build(rec_graph *G, LLVMModuleRef M);
void rec_graph_free(rec_graph *G);

/* The SSA values of fn (instructions, not allocas) live into any of conts[0..ncont): *live (malloc'd,
 * may be NULL when none) and *nlive. False when out of memory. */
bool rec_live_into(LLVMValueRef fn, const LLVMBasicBlockRef *conts, uint32_t ncont, LLVMValueRef **live,
                   uint32_t *nlive);

#endif
