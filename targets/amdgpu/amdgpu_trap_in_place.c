/* amdgpu_trap_in_place.c — after the optimiser: a lane's trap executes where the lane reaches it.
 *
 * A trap block (`call @llvm.trap(); unreachable`, or the error-report marker that becomes one,
 * amdgpu_report_errors.c) entered under a divergent branch is an exit of the function, and LLVM's AMDGPU back end
 * (AMDGPUUnifyDivergentExitNodes, then the structurizer) places divergent exits after the rest of the function:
 * the wave's other lanes run to the end first, and only then does the wave reach the trap. Where those lanes wait
 * for something the trapping lane would have done (lane 0 traps on a cluster operation in a launch without a
 * cluster while lanes 1-31 spin on the mbarrier its copy would complete), the kernel hangs instead of failing — on
 * hardware as on the emulator. Here each such edge gets its own trap block that, after the trap, branches on to
 * the other successor of the branch that led to it: the block is no longer an exit, so the structurizer keeps it
 * in place and the wave ends there (the trap is an s_endpgm taken when any lane is active, amdgpu_target.c)
 * before it goes on. Nothing runs after the trap, the branch only shapes the control flow. It runs after the
 * optimiser, whose CFG simplification would turn the code after a no-return call back into `unreachable`; the
 * code generator's IR passes leave it (checked with llc-22, tests/amdgpu/trap_in_place.ptx). */
#include <llvm-c/Core.h>
#include <string.h>

#include "amdgpu_target.h"
#include "llvm_pass.h"

/* a call of llvm.trap or of the error-report marker (amdgpu_report_errors.c) followed by unreachable, and nothing
 * else in the block but phis (the marker's operands where the optimiser merged reports) */
static LLVMValueRef trap_call_of(LLVMBasicBlockRef b) {
    LLVMValueRef call = LLVMGetFirstInstruction(b), term = LLVMGetBasicBlockTerminator(b);
    while (call && LLVMIsAPHINode(call)) call = LLVMGetNextInstruction(call);
    if (!call || !term || !LLVMIsAUnreachableInst(term) || LLVMGetNextInstruction(call) != term) return NULL;
    if (!LLVMIsACallInst(call)) return NULL;
    LLVMValueRef callee = LLVMGetCalledValue(call);
    if (amd_is_error_marker(callee)) return call;
    size_t len = 0;
    const char *name = callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : NULL;
    return name && len == 9 && memcmp(name, "llvm.trap", 9) == 0 ? call : NULL;
}

/* operand v of the trap call as seen from the edge p -> t: a phi of t gives its value from p */
static LLVMValueRef operand_from(LLVMValueRef v, LLVMBasicBlockRef t, LLVMBasicBlockRef p) {
    if (!LLVMIsAPHINode(v) || LLVMGetInstructionParent(v) != t) return v;
    for (unsigned i = 0, n = LLVMCountIncoming(v); i < n; i++)
        if (LLVMGetIncomingBlock(v, i) == p) return LLVMGetIncomingValue(v, i);
    return LLVMGetPoison(LLVMTypeOf(v));
}

/* p's conditional branch sends successor k to the trap block t and the other one to c: give that edge its own
 * block `trap; br c` (c's phis take from it what they take from p) */
static void trap_then_continue(LLVMBuilderRef bld, LLVMValueRef br, unsigned k, LLVMValueRef trap) {
    LLVMBasicBlockRef p = LLVMGetInstructionParent(br), c = LLVMGetSuccessor(br, 1 - k);
    LLVMValueRef fn = LLVMGetBasicBlockParent(p);
    LLVMBasicBlockRef nb = LLVMAppendBasicBlockInContext(LLVMGetTypeContext(LLVMTypeOf(fn)), fn, "trap_in_place");
    LLVMMoveBasicBlockAfter(nb, p);
    LLVMPositionBuilderAtEnd(bld, nb);
    LLVMValueRef callee = LLVMGetCalledValue(trap);
    LLVMBasicBlockRef t = LLVMGetInstructionParent(trap);
    LLVMValueRef args[8];
    unsigned na = (unsigned)LLVMGetNumArgOperands(trap);
    for (unsigned i = 0; i < na && i < 8; i++) args[i] = operand_from(LLVMGetOperand(trap, i), t, p);
    LLVMBuildCall2(bld, LLVMGetCalledFunctionType(trap), callee, args, na, "");
    LLVMBuildBr(bld, c);
    for (LLVMValueRef phi = LLVMGetFirstInstruction(c); phi && LLVMIsAPHINode(phi);
         phi = LLVMGetNextInstruction(phi)) {
        unsigned n = LLVMCountIncoming(phi);
        for (unsigned i = 0; i < n; i++)
            if (LLVMGetIncomingBlock(phi, i) == p) {
                LLVMValueRef v = LLVMGetIncomingValue(phi, i);
                LLVMAddIncoming(phi, &v, &nb, 1);
                break;
            }
    }
    LLVMSetSuccessor(br, k, nb);
}

static void place_traps(LLVMBuilderRef bld, LLVMValueRef fn) {
    for (LLVMBasicBlockRef t = LLVMGetFirstBasicBlock(fn); t; t = LLVMGetNextBasicBlock(t)) {
        LLVMValueRef trap = trap_call_of(t);
        if (!trap) continue;
        /* every conditional branch into t whose other successor is a different block */
        for (LLVMBasicBlockRef p = LLVMGetFirstBasicBlock(fn); p; p = LLVMGetNextBasicBlock(p)) {
            LLVMValueRef br = LLVMGetBasicBlockTerminator(p);
            if (!br || !LLVMIsABranchInst(br) || !LLVMIsConditional(br)) continue;
            LLVMBasicBlockRef s0 = LLVMGetSuccessor(br, 0), s1 = LLVMGetSuccessor(br, 1);
            if (s0 == t && s1 != t) trap_then_continue(bld, br, 0, trap);
            else if (s1 == t && s0 != t) trap_then_continue(bld, br, 1, trap);
        }
        /* a trap block left without predecessors goes (a function's entry block has none to begin with) */
        if (t != LLVMGetEntryBasicBlock(fn) && !LLVMGetFirstUse(LLVMBasicBlockAsValue(t))) {
            LLVMBasicBlockRef prev = LLVMGetPreviousBasicBlock(t);
            LLVMDeleteBasicBlock(t);
            t = prev;
        }
    }
}

bool amdgpu_trap_in_place_pass(llvm_pass_ctx *X) {
    LLVMBuilderRef bld = LLVMCreateBuilderInContext(LLVMGetModuleContext(X->M));
    for (LLVMValueRef f = LLVMGetFirstFunction(X->M); f; f = LLVMGetNextFunction(f))
        if (LLVMGetFirstBasicBlock(f)) place_traps(bld, f);
    LLVMDisposeBuilder(bld);
    return true;
}
