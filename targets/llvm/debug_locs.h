/* debug_locs.h — --line-info's locations kept valid across transforms that move code between functions
 * (debug_locs.cpp). */
#ifndef P2N_DEBUG_LOCS_H
#define P2N_DEBUG_LOCS_H

#include <llvm-c/Core.h>

#ifdef __cplusplus
extern "C" {
#endif
/* Every function holding located code gets a subprogram of its own and its locations re-scoped to it; a call
 * without a location into a function with one gets line 0. No-op for a module without debug info. */
void debug_locs_rehome(LLVMModuleRef M);
#ifdef __cplusplus
}
#endif

#endif
