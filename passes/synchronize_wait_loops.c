/* synchronize_wait_loops.c — for devices without forward progress between the work-items of a group (PoCL's
 * CPU device runs them one after another between barriers): make mbarrier wait loops that every thread of the
 * block executes together wait in step, through a block-wide barrier in each round.
 *
 * The common mbarrier pattern is "every thread arrives, then every thread waits":
 *     mbarrier.arrive ...;
 *   L: mbarrier.try_wait / test_wait p, [mb], ...;   (maybe selp/setp on p)
 *     @!p bra L;
 * Run one work-item after another, thread 0 polls before thread 1 has arrived and would poll forever. With
 *     L: mbarrier.try_wait p, ...;  bar.red.and.pred p, 0, p;  @!p bra L;
 * every work-item polls, then all meet at the barrier (by then all have arrived), and the loop continues while
 * any of them still waits: two rounds here. The loop condition becomes uniform, as a barrier in a loop needs.
 * A thread whose wait has completed may poll again: try_wait may return false before completion anyway, the
 * re-poll sees the same phase (the other threads are all in this loop, so none can arrive on the next phase),
 * and the loop has no other effects (checked below).
 *
 * Only where that is sound: the loop is one block whose only instructions are one mbarrier poll, register
 * moves/compares and the guarded branch back to itself (no memory effects to repeat); the function is a
 * kernel without indirect branches, bar.arrive or counted barriers; every path from the kernel's entry to
 * an exit passes through the loop (no thread skips it or exits before it; calls, which may exit, must not
 * precede it) and the loop is in no other cycle (every thread enters it exactly once). Other waits are left
 * alone; the SPIR-V target bounds their polling on such devices (targets/spirv/spirv_barrier.c). */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

static bool is_poll(const ir_ins *ins) {
    return ins->op == IR_OP_MBARRIER_TRY_WAIT || ins->op == IR_OP_MBARRIER_TEST_WAIT;
}

/* instructions allowed in the loop besides the poll and the branch: no memory, no side effects (pseudo
 * instructions: `{ .reg .pred p; ... }` scopes of inline asm, .loc) */
static bool is_pure(const ir_ins *ins) {
    if (ir_is_pseudo(ins)) return true;
    switch ((ir_opcode)ins->op) {
    case IR_OP_MOV: case IR_OP_SELP: case IR_OP_SETP: case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR:
    case IR_OP_NOT: case IR_OP_CVT:
        return true;
    default: return false;
    }
}

/* Successors of block b: branch targets and the fall-through; *exits: a ret/exit/call is in the block (a call
 * may run `exit` in the callee). Returns false on what the analysis does not model (brx). */
static bool successors(const ir_func *f, uint32_t b, int32_t *succ, unsigned *n, bool *exits) {
    *n = 0;
    *exits = false;
    const ir_block *B = &f->blocks[b];
    bool falls = true;
    for (uint32_t i = 0; i < B->n && falls; i++) {
        const ir_ins *ins = &B->ins[i];
        switch ((ir_opcode)ins->op) {
        case IR_OP_BRX: return false;
        case IR_OP_BRA: {
            if (ins->nops < 1 || ins->ops[0].kind != IR_OPND_LABEL) return false;
            int32_t t = ir_label_block(f, ins->ops[0].id);
            if (t < 0) return false;
            if (*n < 3) succ[(*n)++] = t;
            else return false;
            if (!ins->guard) falls = false;
            break;
        }
        case IR_OP_RET: case IR_OP_EXIT:
            *exits = true;
            if (!ins->guard) falls = false;
            break;
        case IR_OP_TRAP: /* ends the launch: no thread continues past it, none needs to meet the others */
            if (!ins->guard) falls = false;
            break;
        case IR_OP_CALL: *exits = true; break;
        default: break;
        }
    }
    if (falls) {
        if (b + 1 < f->nblocks) succ[(*n)++] = (int32_t)(b + 1);
        else *exits = true; /* falls off the end: returns */
    }
    return true;
}

/* Depth-first from `from`, never entering `avoid`: does it reach a block that exits (want_exit) or `target`? */
static bool reaches(const ir_func *f, uint32_t from, int32_t avoid, int32_t target, bool want_exit, uint8_t *seen,
                    uint32_t *stack, bool *unknown) {
    memset(seen, 0, f->nblocks);
    uint32_t sp = 0;
    if ((int32_t)from == avoid) return false;
    stack[sp++] = from;
    seen[from] = 1;
    while (sp) {
        uint32_t b = stack[--sp];
        if ((int32_t)b == target) return true;
        int32_t succ[4]; /* blocks end at their first terminator: at most a branch target and the fall-through */
        unsigned n;
        bool exits;
        if (!successors(f, b, succ, &n, &exits)) { *unknown = true; return true; }
        if (exits && want_exit) return true;
        for (unsigned k = 0; k < n; k++) {
            int32_t s = succ[k];
            if (s == avoid || seen[s]) continue;
            seen[s] = 1;
            stack[sp++] = (uint32_t)s;
        }
    }
    return false;
}

/* bar.arrive or a bar/barrier with a thread count: named-barrier protocols the added barrier 0 could meet */
static bool uses_counted_barriers(const ir_func *f) {
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t i = 0; i < f->blocks[b].n; i++) {
            const ir_ins *ins = &f->blocks[b].ins[i];
            if (ins->op != IR_OP_BAR && ins->op != IR_OP_BARRIER) continue;
            if (ir_ins_has(ins, IR_M_ARRIVE)) return true;
            unsigned ncount = ir_ins_has(ins, IR_M_RED) ? 4 : 2; /* operand count when a thread count is given */
            if (ins->nops >= ncount) return true;
        }
    return false;
}

/* Is block b a wait loop of the form above? Returns the index of its back-edge branch, or -1. */
static int loop_shape(const ir_func *f, uint32_t b) {
    const ir_block *B = &f->blocks[b];
    if (!B->label || B->n < 2) return -1;
    const ir_ins *br = &B->ins[B->n - 1];
    if (br->op != IR_OP_BRA || !br->guard || br->nops < 1 || br->ops[0].kind != IR_OPND_LABEL ||
        br->ops[0].id + 1 != B->label)
        return -1;
    unsigned polls = 0;
    for (uint32_t i = 0; i + 1 < B->n; i++) {
        const ir_ins *ins = &B->ins[i];
        if (is_poll(ins)) polls++;
        else if (!is_pure(ins)) return -1;
    }
    return polls == 1 ? (int)(B->n - 1) : -1;
}

static bool synchronize_function(ir_module *m, ir_func *f) {
    if (!f->is_entry || !f->has_body || !f->nblocks || uses_counted_barriers(f)) return false;
    uint8_t *seen = malloc(f->nblocks);
    uint32_t *stack = malloc(f->nblocks * sizeof *stack);
    bool changed = false;
    if (!seen || !stack) goto out;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        int k = loop_shape(f, b);
        if (k < 0) continue;
        bool unknown = false;
        /* every path from the entry to an exit passes through b */
        if (reaches(f, 0, (int32_t)b, -1, true, seen, stack, &unknown) || unknown) continue;
        /* b lies on no cycle but its own: from its fall-through, b is unreachable */
        if (b + 1 < f->nblocks && (reaches(f, b + 1, -1, (int32_t)b, false, seen, stack, &unknown) || unknown))
            continue;
        /* insert `bar.red.{and,or}.pred g, 0, g` before the branch: @!g bra loops while any g is false (and),
         * @g bra while any g is true (or) */
        ir_block *B = &f->blocks[b];
        const ir_ins br = B->ins[k];
        ir_ins red = {0};
        red.op = IR_OP_BAR;
        red.line = br.line;
        red.col = br.col;
        red.nwords = 3;
        red.words[0] = IR_WORD(IR_W_MOD, IR_M_RED);
        red.words[1] = IR_WORD(IR_W_MOD, br.guard_neg ? IR_M_AND : IR_M_OR);
        red.words[2] = IR_WORD(IR_W_TYPE, IR_T_PRED);
        red.nops = 3;
        red.ops = ir_alloc_operands(m, 3);
        red.ops[0] = (ir_operand){.kind = IR_OPND_REG, .id = br.guard - 1};
        red.ops[1] = (ir_operand){.kind = IR_OPND_IMM, .val = 0};
        red.ops[2] = (ir_operand){.kind = IR_OPND_REG, .id = br.guard - 1};
        ir_block_append(B, &br);             /* grows the block: the branch moves one slot down */
        B->ins[k] = red;
        changed = true;
    }
out:
    free(seen);
    free(stack);
    return changed;
}

bool pass_synchronize_wait_loops(ir_module *m, const pass_options *opt) {
    if (!opt->lacks_forward_progress) return false;
    bool changed = false;
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) changed |= synchronize_function(m, &m->funcs[fi]);
    return changed;
}
