/* emit_clc.c — clusterlaunchcontrol (PTX ISA 8.6+, sm_100): work stealing by cancelling clusters not yet launched.
 *
 * try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes{.multicast::cluster::all}.b128 [addr], [mbar]
 *   The ISA: the instruction *requests* the cancellation of a cluster that has not started running; the request
 *   may fail, and it asynchronously writes an opaque 16-byte response to addr that says whether it succeeded, then
 *   performs complete-tx of the bytes written (16) on mbar. Our runtimes launch every block of the grid
 *   themselves and hand no not-yet-started cluster to a running one, so every request fails: we write the
 *   "not canceled" response at once and complete 16 transaction bytes on the mbarrier (the same accounting as
 *   cp.async.bulk, emit_mbarrier_complete_tx). That is a correct implementation, not an approximation: a program
 *   using clusterlaunchcontrol must handle a failed request (it is how it learns there is no more work to steal),
 *   and the blocks it would have stolen still run as ordinary blocks of the launch, so all work is done once.
 *   .multicast::cluster::all writes the response to the same offset in every CTA of the cluster: in a cluster of
 *   one (emit_cluster.c) that is this CTA.
 *
 * query_cancel.is_canceled.pred.b128 p, resp / .get_first_ctaid{::x,::y,::z}.b32.b128 r, resp /
 * .get_first_ctaid.v4.b32.b128 {x, y, z, _}, resp
 *   (These read a .b128 register: targets without 128-bit registers, SPIR-V, diagnose them as they do the ld.b128
 *   that loads the response.) The response is opaque (its layout is the implementation's). Ours: bit 0 of bytes 0-3 = canceled, bytes 4-7,
 *   8-11, 12-15 = ctaid.x, .y, .z of the first CTA of the canceled cluster. The ctaid is defined only for a
 *   canceled response; we return what the bits say (0 for ours). */
#include "emit.h"

#define BLD E->B

static LLVMValueRef resp_word(emit_ctx *E, LLVMValueRef q, unsigned k) {
    return LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, q, ci(E->i128, 32ull * k), ""), E->i32, "");
}

bool emit_clc(emit_ctx *E, const ir_ins *ins) {
    const ir_operand *o = ins->ops;
    if (ins->op == IR_OP_CLUSTERLAUNCHCONTROL_TRY_CANCEL) {
        /* `.async.shared::cta` is one modifier word (as for cp.async.bulk's completion forms) */
        bool cta = ir_ins_has(ins, IR_M_ASYNC_SHARED_CTA);
        if ((!cta && !ir_ins_has(ins, IR_M_ASYNC)) || !ir_ins_has(ins, IR_M_MBARRIER_COMPLETE_TX_BYTES) ||
            ins->nops != 2 || o[0].kind != IR_OPND_ADDR || o[1].kind != IR_OPND_ADDR)
            return false;
        ir_space sp = cta ? IR_S_SHARED : ir_ins_space(ins); /* .shared::cta or none (generic addresses) */
        /* 4 x i32, not i128: SPIR-V has no 128-bit integers */
        LLVMValueRef st = LLVMBuildStore(BLD, LLVMConstNull(LLVMVectorType(E->i32, 4)), mem_addr(E, &o[0], sp));
        LLVMSetAlignment(st, 16);
        emit_mbarrier_complete_tx(E, addr_of(E, &o[1], sp), c32(E, 16));
        return true;
    }
    if (ins->nops != 2 || ir_ins_type(ins, ir_ins_ntypes(ins) - 1) != IR_T_B128) return false;
    LLVMValueRef q = rd(E, &o[1], IR_T_B128);
    if (ir_ins_has(ins, IR_M_IS_CANCELED)) {
        wr(E, &o[0], IR_T_PRED, LLVMBuildTrunc(BLD, q, E->i1, ""));
        return true;
    }
    static const ir_mod dim[3] = {IR_M_GET_FIRST_CTAID_X, IR_M_GET_FIRST_CTAID_Y, IR_M_GET_FIRST_CTAID_Z};
    for (unsigned k = 0; k < 3; k++)
        if (ir_ins_has(ins, dim[k])) {
            wr(E, &o[0], IR_T_B32, resp_word(E, q, 1 + k));
            return true;
        }
    if (!ir_ins_has(ins, IR_M_GET_FIRST_CTAID) || o[0].kind != IR_OPND_VEC || o[0].aux != 4) return false;
    const ir_operand *el = ir_elems(&o[0]);
    for (unsigned k = 0; k < 4; k++) /* the fourth element is unused (the ISA writes it as `_`) */
        if (el[k].kind != IR_OPND_SINK) wr(E, &el[k], IR_T_B32, k < 3 ? resp_word(E, q, 1 + k) : c32(E, 0));
    return true;
}
