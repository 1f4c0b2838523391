/* host_rt_calls.h — runtime calls of emitted host code, seen in LLVM IR (host_rt_calls.c). Private to
 * targets/host/. */
#ifndef P2N_HOST_RT_CALLS_H
#define P2N_HOST_RT_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>

#include "emit.h"

/* The runtime slot (RT_*) instruction I calls, -1 for any other instruction. Before optimisation every runtime
 * call has the shape emit_ops.c rt_fn gives it: call (load (gep i8 (load (gep i8 ctx, CTX_RT)), 8 + 8 * slot)). */
int host_rt_slot(LLVMValueRef I);

/* Whether a call of that slot may wait for other threads of the block (barriers, warp collectives, yield). */
bool host_slot_waits(unsigned slot);

/* Functions already looked at by host_callee_clean (zero-initialise; free fn and clean after use). */
typedef struct host_seen {
    LLVMValueRef *fn;
    unsigned char *clean;
    size_t n, cap;
} host_seen;

/* Whether calling fn can neither wait nor leave the thread: no waiting/activemask/is_local/exit runtime call, no
 * call through a pointer, in fn or anything it calls. */
bool host_callee_clean(host_seen *S, LLVMValueRef fn);

/* Fields of a kernel's element of __p2n_kernels, the initializer of abi/host_abi.h's p2n_kernel_desc array */
enum { HOST_KD_ENTRY = 1, HOST_KD_FLAGS = 11, HOST_KD_BLOCK_ENTRY = 12, HOST_KD_CORO_ENTRY = 13, HOST_KD_FIELDS = 15 };

/* The host descriptor's element of each kernel kern[j] gets fn[j] in `field` (HOST_KD_*) and `flags` added. */
void host_name_entries(LLVMModuleRef M, LLVMValueRef const *kern, LLVMValueRef const *fn, size_t n, unsigned field,
                       uint32_t flags);

#endif
