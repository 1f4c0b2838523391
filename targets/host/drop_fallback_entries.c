/* drop_fallback_entries.c — compile each host kernel once, not three times.
 *
 * Why: the lowering gives a kernel up to three ways to run (host_abi.h): the fiber entry K (one stack per CUDA
 * thread), the coroutine entry K.coro (host_coro.c) and a block entry (K.block for a thread loop, K.wi for
 * work-item loops between barriers). The runtime takes the fastest one there is; the others exist for
 * comparisons and diagnosis (P2N_CPU_THREADLOOP=0 names a faulting thread, the suites run both ways). Each one
 * is a full copy of the kernel through LLVM's optimiser and code generator: on the CUDA toolkit's own PTX the
 * host target spent most of its time compiling entries no launch would use (bench/compile-speed/RESULTS.md).
 *
 * So by default (p2n_options.host_fallback_entries == 0) a kernel with a block or coroutine entry keeps only
 * the fastest: its fiber entry's body becomes `rt->trap(ctx); ret` — the symbol stays, its address names the
 * kernel (device-side launches, cpu_devrt.c) — and a kernel with work-item loops loses K.coro. The descriptor
 * says so (P2N_KERNEL_FIBER_STUB, P2N_KERNEL_CORO cleared), and the runtime keeps the fast entry when one of
 * those variables asks for another (cpu_launch.c). The driver stub's JIT asks for every entry whenever one of
 * the variables is set (driver-stub/module.c), and `ptx2native --host-entries=all` does for objects built ahead
 * of time. Kernels with only a fiber entry are left alone.
 */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "drop_fallback_entries.h"
#include "host_abi.h"
#include "host_rt_calls.h"

/* the coroutine's own intrinsics may name it (llvm.coro.id); nothing else may, or it stays */
static bool only_self_uses(LLVMValueRef fn) {
    for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (!LLVMIsAInstruction(user) || LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)) != fn) return false;
    }
    return true;
}

/* a new function of K's type, name and linkage whose body traps; K's uses move to it and K goes */
static void stub_out(llvm_pass_ctx *X, LLVMValueRef k) {
    LLVMTypeRef ft = LLVMGlobalGetValueType(k);
    size_t len;
    const char *nm = LLVMGetValueName2(k, &len);
    char *name = malloc(len + 1);
    if (!name) return; /* the kernel keeps its fiber entry */
    memcpy(name, nm, len);
    name[len] = 0;
    LLVMSetValueName2(k, "", 0);
    LLVMValueRef s = LLVMAddFunction(X->M, name, ft);
    free(name);
    LLVMSetLinkage(s, LLVMGetLinkage(k));
    LLVMSetVisibility(s, LLVMGetVisibility(k));
    LLVMBuilderRef B = LLVMCreateBuilderInContext(X->C);
    LLVMPositionBuilderAtEnd(B, LLVMAppendBasicBlockInContext(X->C, s, "stub"));
    X->t->build_trap(B, X->M, LLVMGetParam(s, 1));
    LLVMBuildRetVoid(B);
    LLVMDisposeBuilder(B);
    LLVMReplaceAllUsesWith(k, s);
    LLVMDeleteFunction(k);
}

bool host_pass_drop_fallback_entries(llvm_pass_ctx *X) {
    if (!X->opt || X->opt->host_fallback_entries) return true;
    LLVMValueRef karr = LLVMGetNamedGlobal(X->M, "__p2n_kernels");
    if (!karr || !LLVMGetInitializer(karr)) return true;
    LLVMValueRef init = LLVMGetInitializer(karr);
    unsigned ne = (unsigned)LLVMGetArrayLength2(LLVMTypeOf(init));
    LLVMValueRef *els = malloc((ne + 1) * sizeof *els), *stub = calloc(ne + 1, sizeof *stub),
                 *gone = calloc(ne + 1, sizeof *gone);
    if (!els || !stub || !gone) {
        free(els), free(stub), free(gone);
        return true; /* only a saving: the kernels keep every entry */
    }
    for (unsigned i = 0; i < ne; i++) {
        LLVMValueRef el = LLVMGetAggregateElement(init, i), f[HOST_KD_FIELDS];
        els[i] = el;
        for (unsigned c = 0; c < HOST_KD_FIELDS; c++) f[c] = LLVMGetAggregateElement(el, c);
        uint64_t flags = LLVMConstIntGetZExtValue(f[HOST_KD_FLAGS]);
        bool block = flags & P2N_KERNEL_THREAD_LOOP, coro = flags & P2N_KERNEL_CORO;
        if (!block && !coro) continue;
        if (block && coro) { /* work-item loops: the coroutine entry is a fallback too */
            gone[i] = f[HOST_KD_CORO_ENTRY];
            f[HOST_KD_CORO_ENTRY] = LLVMConstNull(LLVMTypeOf(f[HOST_KD_CORO_ENTRY]));
            flags &= ~(uint64_t)P2N_KERNEL_CORO;
        }
        stub[i] = f[HOST_KD_ENTRY];
        f[HOST_KD_FLAGS] = LLVMConstInt(LLVMTypeOf(f[HOST_KD_FLAGS]), flags | P2N_KERNEL_FIBER_STUB, 0);
        els[i] = LLVMConstNamedStruct(LLVMTypeOf(el), f, HOST_KD_FIELDS);
    }
    LLVMSetInitializer(karr, LLVMConstArray2(LLVMGetElementType(LLVMTypeOf(init)), els, ne));
    for (unsigned i = 0; i < ne; i++) {
        if (gone[i] && LLVMIsAFunction(gone[i]) && only_self_uses(gone[i])) {
            LLVMReplaceAllUsesWith(gone[i], LLVMConstNull(LLVMTypeOf(gone[i])));
            LLVMDeleteFunction(gone[i]);
        }
        if (stub[i] && LLVMIsAFunction(stub[i])) stub_out(X, stub[i]);
    }
    free(els), free(stub), free(gone);
    return true;
}
