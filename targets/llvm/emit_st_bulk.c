/* emit_st_bulk.c — st.bulk{.weak}{.shared::cta} [a], size, initval (sm_100).
 *
 * PTX ISA: initialises the `size` bytes at [a, a + size) with initval, which must be the constant 0; size is
 * a multiple of 8 and a is 8-byte aligned; the stores are weak. Only sm_100a-class devices run it, so the truth
 * here is the ISA text (our H200 cannot record it). Lowered as a loop of 8-byte zero stores that never writes
 * at or past a + size (a size that is not a multiple of 8, undefined by the ISA, leaves its tail bytes alone). */
#include "emit_atom.h"

#define BLD E->B

bool emit_st_bulk(emit_ctx *E, const ir_ins *ins) {
    if (ins->nops != 3) return false;
    const ir_operand *o = ins->ops;
    if (o[2].kind != IR_OPND_IMM || o[2].val != 0) {
        emit_unsupported(E, "st.bulk's initval must be the constant 0");
        return true;
    }
    LLVMValueRef p = mem_addr(E, &o[0], ir_ins_space(ins));
    LLVMValueRef size = rd(E, &o[1], IR_T_U64);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(BLD), head = new_bb(E, "stbulk"), body = new_bb(E, "stbulk.body");
    LLVMBasicBlockRef done = new_bb(E, "stbulk.done");
    LLVMBuildBr(BLD, head);
    LLVMPositionBuilderAtEnd(BLD, head);
    LLVMValueRef i = LLVMBuildPhi(BLD, E->i64, "");
    LLVMValueRef next = LLVMBuildAdd(BLD, i, c64(E, 8), "");
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntULE, next, size, ""), body, done);
    LLVMPositionBuilderAtEnd(BLD, body);
    LLVMValueRef s = LLVMBuildStore(BLD, c64(E, 0), gep8(E, p, i));
    LLVMSetAlignment(s, 8);
    LLVMBuildBr(BLD, head);
    LLVMValueRef inv[2] = {c64(E, 0), next};
    LLVMBasicBlockRef inb[2] = {pre, body};
    LLVMAddIncoming(i, inv, inb, 2);
    LLVMPositionBuilderAtEnd(BLD, done);
    return true;
}
