/* defer_early_exits.c — for devices without forward progress between the work-items of a group (PoCL's CPU
 * device): a thread that leaves a kernel before a barrier the others still reach stays until the end, with
 * its instructions predicated off, so that every work-item meets every barrier.
 *
 * CUDA lets threads exit before a bar.sync (the barrier then waits for the threads that have not exited),
 * and nvcc compiles the common `if (i >= n) return; ... __syncthreads();` to a branch around the barrier:
 *     @%p bra RET;   ...; bar.sync 0; ...;   RET: ret;
 * OpenCL requires every work-item of a group to reach each barrier, and PoCL 3.1's kernel compiler crashes on
 * such a kernel (the whole module fails to load, signal 11). Rewritten here as
 *     or.pred %exited, %exited, %p;   @!%exited ...; bar.sync 0; @!%exited ...;   ret;
 * An exited thread stores nothing, loads nothing and arrives on nothing; it only passes the barriers, which is
 * what the others see on NVIDIA too (a barrier does not wait for exited threads).
 *
 * Only where that is exact: in a kernel (not a .func), from the first early exit — a guarded ret/exit, or a
 * guarded branch to a block that only returns — to the end, the code is straight-line: no other branches,
 * no calls (a callee's barriers), no branch from elsewhere into it except to a return block, and its barriers
 * are plain bar.sync/barrier.sync (no thread count, bar.arrive or bar.red: their counts would change) and no
 * warp-collective or matrix operations (an exited lane must not take part). Other kernels keep their code. */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

/* a block that only returns: pseudo instructions, then an unguarded ret/exit */
static bool returns_only(const ir_block *B) {
    if (!B->n) return false;
    for (uint32_t i = 0; i + 1 < B->n; i++)
        if (!ir_is_pseudo(&B->ins[i])) return false;
    const ir_ins *t = &B->ins[B->n - 1];
    return (t->op == IR_OP_RET || t->op == IR_OP_EXIT) && !t->guard;
}

/* a guarded ret/exit, or a guarded branch to a block that only returns */
static bool early_exit(const ir_func *f, const ir_ins *ins) {
    if (!ins->guard) return false;
    if (ins->op == IR_OP_RET || ins->op == IR_OP_EXIT) return true;
    if (ins->op != IR_OP_BRA || ins->nops < 1 || ins->ops[0].kind != IR_OPND_LABEL) return false;
    int32_t t = ir_label_block(f, ins->ops[0].id);
    return t >= 0 && returns_only(&f->blocks[t]);
}

static bool plain_barrier(const ir_ins *ins) {
    return (ins->op == IR_OP_BAR || ins->op == IR_OP_BARRIER) && !ir_ins_has(ins, IR_M_RED) &&
           !ir_ins_has(ins, IR_M_ARRIVE) && ins->nops <= 1 && !ins->guard;
}

/* what an exited thread must not take part in, and what this pass does not model */
static bool refused(const ir_ins *ins) {
    switch ((ir_opcode)ins->op) {
    case IR_OP_BAR: case IR_OP_BARRIER: return !plain_barrier(ins);
    case IR_OP_BRX: case IR_OP_CALL: case IR_OP_BAR_WARP_SYNC: case IR_OP_SHFL: case IR_OP_VOTE:
    case IR_OP_MATCH: case IR_OP_ACTIVEMASK: case IR_OP_REDUX: case IR_OP_ELECT: case IR_OP_BARRIER_CLUSTER:
    case IR_OP_WMMA_LOAD: case IR_OP_WMMA_STORE: case IR_OP_WMMA_MMA: case IR_OP_MMA: case IR_OP_LDMATRIX:
    case IR_OP_STMATRIX: case IR_OP_MOVMATRIX: case IR_OP_WGMMA_MMA_ASYNC: case IR_OP_TCGEN05_MMA:
        return true;
    default: return false;
    }
}

static void insert_at(ir_block *B, uint32_t at, const ir_ins *ins) {
    ir_block_append(B, ins); /* grows the block */
    memmove(&B->ins[at + 1], &B->ins[at], (B->n - 1 - at) * sizeof *B->ins);
    B->ins[at] = *ins;
}

static ir_ins pred_op(ir_module *m, ir_opcode op, const ir_ins *pos, uint32_t d, uint32_t a, uint32_t b, bool two) {
    ir_ins x = {0};
    x.op = (uint16_t)op;
    x.line = pos->line;
    x.col = pos->col;
    x.nwords = 1;
    x.words[0] = IR_WORD(IR_W_TYPE, IR_T_PRED);
    x.nops = two ? 3 : 2;
    x.ops = ir_alloc_operands(m, x.nops);
    x.ops[0] = (ir_operand){.kind = IR_OPND_REG, .id = d};
    x.ops[1] = (ir_operand){.kind = IR_OPND_REG, .id = a};
    if (two) x.ops[2] = (ir_operand){.kind = IR_OPND_REG, .id = b};
    return x;
}

static uint32_t new_pred(ir_module *m, ir_func *f, const char *name) {
    ir_regdecl d = {.name = ir_intern(m, name, strlen(name)), .type = IR_T_PRED};
    uint32_t di = ir_add_regdecl(f, &d);
    ir_ins decl = {0};
    decl.op = IR_OP_DECL_REG;
    decl.nops = 1;
    decl.ops = ir_alloc_operands(m, 1);
    decl.ops[0] = (ir_operand){.kind = IR_OPND_IMM, .id = di};
    insert_at(&f->blocks[0], 0, &decl);
    return f->regdecls[di].first_reg;
}

static bool defer_function(ir_module *m, ir_func *f) {
    if (!f->is_entry || !f->has_body || !f->nblocks) return false;
    /* the first early exit */
    uint32_t first = f->nblocks;
    for (uint32_t b = 0; b < f->nblocks && first == f->nblocks; b++)
        for (uint32_t i = 0; i < f->blocks[b].n; i++)
            if (early_exit(f, &f->blocks[b].ins[i])) { first = b; break; }
    if (first == f->nblocks) return false;
    /* from there on: straight-line, with a barrier, nothing refused, up to the first block that only returns */
    uint32_t end = f->nblocks; /* the return block the live threads fall into (or none: they fall off the end) */
    bool barrier = false;
    for (uint32_t b = first; b < f->nblocks; b++) {
        const ir_block *B = &f->blocks[b];
        if (b > first && returns_only(B)) { end = b; break; }
        for (uint32_t i = 0; i < B->n; i++) {
            const ir_ins *ins = &B->ins[i];
            if (refused(ins)) return false;
            if (plain_barrier(ins) && b > first) barrier = true;
            bool term = ir_opcodes[ins->op].flags & IR_OPF_TERMINATOR;
            if (term && !early_exit(f, ins) && !(i + 1 == B->n && !ins->guard && (ins->op == IR_OP_RET ||
                                                                               ins->op == IR_OP_EXIT)))
                return false; /* another branch, or a trap */
            if (term && !ins->guard) { end = b + 1; goto scanned; } /* the live threads return here */
        }
    }
scanned:
    if (!barrier) return false; /* nothing to meet: exiting early is fine */
    /* no branch from anywhere into [first + 1, end) */
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t i = 0; i < f->blocks[b].n; i++) {
            const ir_ins *ins = &f->blocks[b].ins[i];
            if (ins->op == IR_OP_BRX) return false;
            if (ins->op != IR_OP_BRA || ins->nops < 1 || ins->ops[0].kind != IR_OPND_LABEL) continue;
            int32_t t = ir_label_block(f, ins->ops[0].id);
            if (t < 0 || ((uint32_t)t > first && (uint32_t)t < end && !returns_only(&f->blocks[t]))) return false;
        }

    uint32_t exited = new_pred(m, f, "%__p2n_exited");
    uint32_t tmp = new_pred(m, f, "%__p2n_exited_t");
    /* exited = false at the kernel's start (after the declarations) */
    ir_block *B0 = &f->blocks[0];
    uint32_t at = 0;
    while (at < B0->n && ir_is_pseudo(&B0->ins[at])) at++;
    ir_ins init = {0};
    init.op = IR_OP_SETP;
    init.line = f->line;
    init.nwords = 2;
    init.words[0] = IR_WORD(IR_W_MOD, IR_M_NE);
    init.words[1] = IR_WORD(IR_W_TYPE, IR_T_U32);
    init.nops = 3;
    init.ops = ir_alloc_operands(m, 3);
    init.ops[0] = (ir_operand){.kind = IR_OPND_REG, .id = exited};
    init.ops[1] = (ir_operand){.kind = IR_OPND_IMM, .val = 0};
    init.ops[2] = (ir_operand){.kind = IR_OPND_IMM, .val = 0};
    insert_at(B0, at, &init);

    /* the early exit ends block `first` (a terminator): everything before it runs for every thread */
    for (uint32_t b = first; b < end && b < f->nblocks; b++) {
        ir_block *B = &f->blocks[b];
        for (uint32_t i = b == first ? B->n - 1 : 0; i < B->n; i++) {
            ir_ins *ins = &B->ins[i];
            if (ir_is_pseudo(ins) || plain_barrier(ins)) continue;
            bool last_ret = i + 1 == B->n && !ins->guard && (ins->op == IR_OP_RET || ins->op == IR_OP_EXIT);
            if (last_ret) continue;
            uint32_t g = ins->guard - 1;
            bool neg = ins->guard_neg;
            if (ins->guard && early_exit(f, ins)) {
                /* @p exit -> exited |= p;  @!p exit -> tmp = !p; exited |= tmp */
                ir_ins pos = *ins;
                if (neg) {
                    B->ins[i] = pred_op(m, IR_OP_NOT, &pos, tmp, g, 0, false);
                    ir_ins orr = pred_op(m, IR_OP_OR, &pos, exited, exited, tmp, true);
                    insert_at(B, ++i, &orr);
                } else {
                    B->ins[i] = pred_op(m, IR_OP_OR, &pos, exited, exited, g, true);
                }
                continue;
            }
            if (!ins->guard) {
                ins->guard = exited + 1;
                ins->guard_neg = 1;
            } else if (neg) { /* @!q ins -> tmp = q | exited; @!tmp ins */
                ir_ins orr = pred_op(m, IR_OP_OR, ins, tmp, g, exited, true);
                insert_at(B, i, &orr);
                ins = &B->ins[++i];
                ins->guard = tmp + 1;
            } else { /* @q ins -> tmp = !exited; tmp = tmp & q; @tmp ins */
                ir_ins nt = pred_op(m, IR_OP_NOT, ins, tmp, exited, 0, false);
                ir_ins an = pred_op(m, IR_OP_AND, ins, tmp, tmp, g, true);
                insert_at(B, i, &nt);
                insert_at(B, i + 1, &an);
                i += 2;
                ins = &B->ins[i];
                ins->guard = tmp + 1;
            }
        }
    }
    return true;
}

bool pass_defer_early_exits(ir_module *m, const pass_options *opt) {
    if (!opt->lacks_forward_progress) return false;
    bool changed = false;
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) changed |= defer_function(m, &m->funcs[fi]);
    return changed;
}
