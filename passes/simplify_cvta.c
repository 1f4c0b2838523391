/* simplify_cvta.c — on targets whose .global (and .const/.param/.local) window addresses are generic addresses
 * (the host CPU), `cvta{.to}.global.u64 d, a` is a copy: rewrite it as `mov.b64 d, a` (u32 forms: mov.b32).
 * .shared conversions stay: they depend on the block's shared-memory base. */
#include "passes.h"

bool pass_simplify_cvta(ir_module *m, const pass_options *opt) {
    if (!opt->generic_is_global) return false;
    bool changed = false;
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
        ir_func *f = &m->funcs[fi];
        for (uint32_t b = 0; b < f->nblocks; b++) {
            for (uint32_t i = 0; i < f->blocks[b].n; i++) {
                ir_ins *ins = &f->blocks[b].ins[i];
                if (ins->op != IR_OP_CVTA || ins->nops != 2) continue;
                ir_space s = ir_space_base[ir_ins_space(ins)];
                if (s != IR_S_GLOBAL && s != IR_S_CONST && s != IR_S_PARAM && s != IR_S_LOCAL) continue;
                ir_type t = ir_ins_type(ins, 0);
                if (t == IR_T_NONE) continue;
                /* a variable operand (cvta.global.u64 d, var) stays a variable: mov takes its address too */
                ins->op = IR_OP_MOV;
                ins->nwords = 1;
                ins->words[0] = IR_WORD(IR_W_TYPE, ir_type_bits[t] == 32 ? IR_T_B32 : IR_T_B64);
                changed = true;
            }
        }
    }
    return changed;
}
