/* emit_matrix.c — warp-wide matrix instructions (ldmatrix, stmatrix, mma.sync, wmma) through the runtime's
 * warp_matrix entry (host_abi.h): each lane writes its operands into a block of 32-bit words on its stack, the
 * runtime gathers the blocks of all lanes of the warp, computes per the PTX ISA fragment layouts and writes
 * every lane's results back into its block. */
#include "emit.h"
#include "host_abi.h"

#define BLD E->B

static bool is_shape(const ir_ins *ins, unsigned m, unsigned n, unsigned k) {
    return ins->shape == (m | n << 10 | k << 20);
}

static const ir_operand *vec_of(const ir_operand *o, unsigned n) {
    if (o->kind != IR_OPND_VEC || o->aux != n) return NULL;
    return ir_elems(o);
}

static LLVMValueRef io_block(emit_ctx *E, unsigned words) {
    LLVMValueRef a = LLVMBuildAlloca(E->AB, LLVMArrayType(E->i32, words), "mx");
    LLVMSetAlignment(a, 8);
    return a;
}

static LLVMValueRef io_at(emit_ctx *E, LLVMValueRef io, unsigned k) { return gep8(E, io, c64(E, 4ull * k)); }

static void io_put(emit_ctx *E, LLVMValueRef io, unsigned k, const ir_operand *src) {
    LLVMValueRef v = src->kind == IR_OPND_SINK ? c32(E, 0) : rd(E, src, IR_T_B32);
    LLVMBuildStore(BLD, v, io_at(E, io, k));
}

static void io_put_vec(emit_ctx *E, LLVMValueRef io, unsigned k, const ir_operand *el, unsigned n) {
    for (unsigned i = 0; i < n; i++) io_put(E, io, k + i, &el[i]);
}

static void io_get_vec(emit_ctx *E, LLVMValueRef io, unsigned k, const ir_operand *el, unsigned n) {
    for (unsigned i = 0; i < n; i++) {
        if (el[i].kind == IR_OPND_SINK) continue;
        wr(E, &el[i], IR_T_B32, LLVMBuildLoad2(BLD, E->i32, io_at(E, io, k + i), ""));
    }
}

static void io_put_addr(emit_ctx *E, LLVMValueRef io, LLVMValueRef p) {
    LLVMValueRef st = LLVMBuildStore(BLD, LLVMBuildPtrToInt(BLD, p, E->i64, ""), io);
    LLVMSetAlignment(st, 8);
}

static void call_mx(emit_ctx *E, uint32_t op, LLVMValueRef io) {
    LLVMValueRef args[3] = {E->ctx, c32(E, op), io};
    rt_call(E, RT_WARP_MATRIX, E->vd, args, 3);
    note_flags(E, P2N_KERNEL_USES_WARP_OPS);
}

static unsigned num_mats(const ir_ins *ins) {
    return ir_ins_has(ins, IR_M_X4) ? 4 : ir_ins_has(ins, IR_M_X2) ? 2 : ir_ins_has(ins, IR_M_X1) ? 1 : 0;
}

static bool emit_matrix_fixed(emit_ctx *E, const ir_ins *ins) {
    if (!E->t->smem_in_ctx) return false; /* the runtime entry exists on the host target only */
    const ir_operand *o = ins->ops;
    switch ((ir_opcode)ins->op) {
    case IR_OP_LDMATRIX:
    case IR_OP_STMATRIX: {
        bool ld = ins->op == IR_OP_LDMATRIX;
        unsigned n = num_mats(ins);
        ir_type t = ir_ins_type(ins, 0);
        if (!n || !is_shape(ins, 8, 8, 0) || (t != IR_T_B16 && t != IR_T_NONE) || ins->nops != 2) return false;
        const ir_operand *regs = vec_of(&o[ld ? 0 : 1], n);
        if (!regs && n == 1 && o[ld ? 0 : 1].kind == IR_OPND_REG) regs = &o[ld ? 0 : 1];
        if (!regs) return false;
        ir_space sp = ir_ins_space(ins);
        LLVMValueRef p = addr_of(E, &o[ld ? 1 : 0], sp == IR_S_NONE ? IR_S_NONE : sp);
        LLVMValueRef io = io_block(E, 2 + n);
        io_put_addr(E, io, p);
        if (!ld) io_put_vec(E, io, 2, regs, n);
        call_mx(E, (ld ? P2N_MX_LDMATRIX : P2N_MX_STMATRIX) | n << 8 | (ir_ins_has(ins, IR_M_TRANS) ? P2N_MX_TRANS : 0) |
                       (sp == IR_S_SHARED ? P2N_MX_SHARED : 0), io);
        if (ld) io_get_vec(E, io, 2, regs, n);
        return true;
    }
    case IR_OP_MMA: {
        if (ins->nops != 4 || !ir_ins_has(ins, IR_M_ROW) || !ir_ins_has(ins, IR_M_COL)) return false;
        ir_type td = ir_ins_type(ins, 0), ta = ir_ins_type(ins, 1), tb = ir_ins_type(ins, 2), tc = ir_ins_type(ins, 3);
        uint32_t op;
        if (is_shape(ins, 16, 8, 16) && td == IR_T_F32 && ta == IR_T_F16 && tb == IR_T_F16 && tc == IR_T_F32)
            op = P2N_MX_MMA_F16_F32_M16N8K16;
        else if (is_shape(ins, 16, 8, 32) && td == IR_T_S32 && ta == IR_T_S8 && tb == IR_T_S8 && tc == IR_T_S32 &&
                 !ir_ins_has(ins, IR_M_SATFINITE))
            op = P2N_MX_MMA_S8_S32_M16N8K32;
        else return false;
        const ir_operand *d = vec_of(&o[0], 4), *a = vec_of(&o[1], 4), *b = vec_of(&o[2], 2), *c = vec_of(&o[3], 4);
        if (!d || !a || !b || !c) return false;
        LLVMValueRef io = io_block(E, 14);
        io_put_vec(E, io, 0, a, 4);
        io_put_vec(E, io, 4, b, 2);
        io_put_vec(E, io, 6, c, 4);
        call_mx(E, op, io);
        io_get_vec(E, io, 10, d, 4);
        return true;
    }
    case IR_OP_WMMA_MMA: {
        if (ins->nops != 4 || !is_shape(ins, 16, 16, 16)) return false;
        /* wmma.mma.sync.aligned.alayout.blayout.m16n16k16.f32.f32 (dtype.ctype, f16 inputs) */
        if (ir_ins_type(ins, 0) != IR_T_F32 || ir_ins_type(ins, 1) != IR_T_F32 || ir_ins_has(ins, IR_M_SATFINITE))
            return false;
        const ir_operand *d = vec_of(&o[0], 8), *a = vec_of(&o[1], 8), *b = vec_of(&o[2], 8), *c = vec_of(&o[3], 8);
        if (!d || !a || !b || !c) return false;
        LLVMValueRef io = io_block(E, 32);
        io_put_vec(E, io, 0, a, 8);
        io_put_vec(E, io, 8, b, 8);
        io_put_vec(E, io, 16, c, 8);
        call_mx(E, P2N_MX_WMMA_F16_F32_M16N16K16, io);
        io_get_vec(E, io, 24, d, 8);
        return true;
    }
    case IR_OP_WMMA_LOAD:
    case IR_OP_WMMA_STORE: {
        bool ld = ins->op == IR_OP_WMMA_LOAD;
        if (!is_shape(ins, 16, 16, 16) || ins->nops != 3) return false;
        ir_type t = ir_ins_type(ins, 0);
        uint32_t frag;
        if (ld && ir_ins_has(ins, IR_M_COMP_A) && t == IR_T_F16) frag = P2N_MX_FRAG_A;
        else if (ld && ir_ins_has(ins, IR_M_B) && t == IR_T_F16) frag = P2N_MX_FRAG_B;
        else if (ld && ir_ins_has(ins, IR_M_FRAG_C) && t == IR_T_F32) frag = P2N_MX_FRAG_C;
        else if (!ld && ir_ins_has(ins, IR_M_FRAG_D) && t == IR_T_F32) frag = P2N_MX_FRAG_C;
        else return false;
        const ir_operand *regs = vec_of(&o[ld ? 0 : 1], 8);
        if (!regs) return false;
        ir_space sp = ir_ins_space(ins);
        LLVMValueRef p = addr_of(E, &o[ld ? 1 : 0], sp);
        LLVMValueRef io = io_block(E, 11);
        io_put_addr(E, io, p);
        io_put(E, io, 2, &o[2]);
        if (!ld) io_put_vec(E, io, 3, regs, 8);
        call_mx(E, (ld ? P2N_MX_WMMA_LOAD : P2N_MX_WMMA_STORE) | frag |
                       (ir_ins_has(ins, IR_M_COL) ? P2N_MX_COLMAJOR : 0), io);
        if (ld) io_get_vec(E, io, 3, regs, 8);
        return true;
    }
    default: return false;
    }
}

bool emit_mma_generic(emit_ctx *E, const ir_ins *ins); /* emit_mma.c: every other shape and type */

bool emit_matrix(emit_ctx *E, const ir_ins *ins) {
    return emit_matrix_fixed(E, ins) || (E->t->smem_in_ctx && emit_mma_generic(E, ins));
}
