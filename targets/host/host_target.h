/* host_target.h — the x86-64 host target (the CPU runtime's ELF shared objects, abi/host_abi.h). */
#ifndef P2N_HOST_TARGET_H
#define P2N_HOST_TARGET_H

#include "llvm_pass.h"

extern const target_desc target_host, target_host_native;

/* host_memfns.c: weak hidden memcpy/memmove/memset in the module (after the pipeline) */
bool host_define_memfns(llvm_pass_ctx *X);

#endif
