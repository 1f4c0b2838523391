/* thread_loop.c — the host target's thread-loop fast path: which kernels may run their block's threads one
 * after another to completion, and the `<kernel>.block` entry that does so (host_abi.h).
 *
 * Why sequential execution is a legal schedule for some kernels: the CPU runtime runs each CUDA thread on a
 * fiber so that a thread can wait for another one (barrier, warp collective, a spin-wait on a flag). A kernel
 * none of whose threads can wait for another is correctly executed by running thread 0 to completion, then
 * thread 1, and so on: PTX gives independent threads no progress or interleaving guarantee. A thread can only
 * wait for another through
 *   - barriers and warp-synchronous operations (bar, barrier, bar.warp.sync, shfl, vote, match, redux, elect,
 *     activemask, mma/ldmatrix/wmma, mbarrier, cluster barriers, async bulk copies completing on mbarriers),
 *   - or a loop that observes memory another thread writes. Under the PTX memory model a weak ld carries no
 *     visibility guarantee, so such a loop needs a strong operation: an atomic, a volatile/relaxed/acquire/sc
 *     access, a fence, nanosleep. Those are fine outside loops (nothing can wait then); inside a loop, or in a
 *     function called from a loop or recursively, they disqualify the kernel — except red and an atom whose old
 *     value no instruction reads, which observe nothing (a histogram's atomicAdd in its grid-stride loop).
 * Reading %clock/%globaltimer disqualifies it too (a timed wait loop needs nothing else), as do dynamic
 * alloca, indirect calls, calls of functions without a body (other than the runtime's vprintf, malloc, free,
 * __assertfail) and `exit` in a device function (the runtime could not resume the loop after it).
 * The analysis is a whitelist: an opcode it does not know is unsafe.
 *
 * Loops: a block lies in a loop only if it lies in the index range [target, source] of some backward branch
 * (target index <= source index). Any CFG cycle visits blocks between its lowest and highest index, and the
 * descent from the highest to the lowest crosses every point in between with a backward edge, so this range
 * test over-approximates "in a cycle" without computing one.
 */
#include <stdlib.h>
#include <string.h>

#include "host_emit.h"
#include "host_abi.h"

enum { OP_SAFE, OP_SYNC, OP_UNSAFE };

static bool strong_access(const ir_ins *ins) {
    return ir_ins_has(ins, IR_M_VOLATILE) || ir_ins_has(ins, IR_M_RELAXED) || ir_ins_has(ins, IR_M_ACQUIRE) ||
           ir_ins_has(ins, IR_M_RELEASE) || ir_ins_has(ins, IR_M_ACQ_REL) || ir_ins_has(ins, IR_M_SC) ||
           ir_ins_has(ins, IR_M_MMIO);
}

/* bar.sync / barrier.sync / barrier.cluster.wait: a wait of the whole block, which work-item loops
 * (work_item_loops.c) turn into the boundary between two loops over the block's threads; bar.red and bar.arrive
 * are not (the LLVM pass checks the barrier number and count) */
static bool block_barrier(const ir_ins *ins) {
    if (ins->op == IR_OP_BARRIER_CLUSTER) return !ir_ins_has(ins, IR_M_ARRIVE);
    return (ins->op == IR_OP_BAR || ins->op == IR_OP_BARRIER) && !ir_ins_has(ins, IR_M_RED) &&
           !ir_ins_has(ins, IR_M_ARRIVE);
}

static int classify(const ir_ins *ins, bool allow_barriers) {
    if (allow_barriers && block_barrier(ins)) return OP_SAFE;
    switch ((ir_opcode)ins->op) {
    case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_MAD: case IR_OP_MUL24: case IR_OP_MAD24:
    case IR_OP_SAD: case IR_OP_DIV: case IR_OP_REM: case IR_OP_ABS: case IR_OP_NEG: case IR_OP_MIN: case IR_OP_MAX:
    case IR_OP_POPC: case IR_OP_CLZ: case IR_OP_BFIND: case IR_OP_FNS: case IR_OP_BREV: case IR_OP_BFE:
    case IR_OP_BFI: case IR_OP_SZEXT: case IR_OP_BMSK: case IR_OP_DP4A: case IR_OP_DP2A: case IR_OP_ADDC:
    case IR_OP_SUBC: case IR_OP_MADC: case IR_OP_FMA: case IR_OP_RCP: case IR_OP_SQRT: case IR_OP_RSQRT:
    case IR_OP_SIN: case IR_OP_COS: case IR_OP_LG2: case IR_OP_EX2: case IR_OP_TANH: case IR_OP_COPYSIGN:
    case IR_OP_TESTP: case IR_OP_SET: case IR_OP_SETP: case IR_OP_SELP: case IR_OP_SLCT: case IR_OP_AND:
    case IR_OP_OR: case IR_OP_XOR: case IR_OP_NOT: case IR_OP_CNOT: case IR_OP_LOP3: case IR_OP_SHF:
    case IR_OP_SHL: case IR_OP_SHR: case IR_OP_MOV: case IR_OP_PRMT: case IR_OP_LDU: case IR_OP_PREFETCH:
    case IR_OP_PREFETCHU: case IR_OP_APPLYPRIORITY: case IR_OP_DISCARD: case IR_OP_CREATEPOLICY:
    case IR_OP_ISSPACEP: case IR_OP_CVTA: case IR_OP_CVT: case IR_OP_CVT_PACK: case IR_OP_CP_ASYNC:
    case IR_OP_CP_ASYNC_COMMIT_GROUP: case IR_OP_CP_ASYNC_WAIT_GROUP: case IR_OP_CP_ASYNC_WAIT_ALL:
    case IR_OP_BRA: case IR_OP_BRX: case IR_OP_CALL: case IR_OP_RET: case IR_OP_EXIT: case IR_OP_TRAP:
    case IR_OP_BRKPT: case IR_OP_VADD: case IR_OP_VSUB: case IR_OP_VABSDIFF: case IR_OP_VMIN: case IR_OP_VMAX:
    case IR_OP_VSHL: case IR_OP_VSHR: case IR_OP_VMAD: case IR_OP_VSET: case IR_OP_VADD2: case IR_OP_VSUB2:
    case IR_OP_VAVRG2: case IR_OP_VABSDIFF2: case IR_OP_VMIN2: case IR_OP_VMAX2: case IR_OP_VSET2:
    case IR_OP_VADD4: case IR_OP_VSUB4: case IR_OP_VAVRG4: case IR_OP_VABSDIFF4: case IR_OP_VMIN4:
    case IR_OP_VMAX4: case IR_OP_VSET4: case IR_OP_PMEVENT: case IR_OP_GRIDDEPCONTROL: case IR_OP_SETMAXNREG:
    case IR_OP_STACKSAVE: case IR_OP_STACKRESTORE:
    case IR_OP_TEX: case IR_OP_TLD4: case IR_OP_TXQ: case IR_OP_ISTYPEP: case IR_OP_SULD: case IR_OP_SUST:
    case IR_OP_SUQ: /* weak loads and stores of texture/surface memory (emit_texture.c) */
        return OP_SAFE;
    case IR_OP_LD: case IR_OP_ST: return strong_access(ins) ? OP_SYNC : OP_SAFE;
    case IR_OP_ATOM: case IR_OP_RED: case IR_OP_SURED: case IR_OP_MEMBAR: case IR_OP_FENCE: return OP_SYNC;
    default: return OP_UNSAFE; /* barriers, warp collectives, matrix ops, mbarrier, nanosleep, alloca, ... */
    }
}

static bool timer_operand(const ir_operand *o) {
    if (o->kind == IR_OPND_VEC || o->kind == IR_OPND_LIST) {
        for (unsigned k = 0; k < o->aux; k++)
            if (timer_operand(&ir_elems(o)[k])) return true;
        return false;
    }
    if (o->kind != IR_OPND_SREG) return false;
    switch ((ir_sreg)o->id) {
    case IR_SR_CLOCK: case IR_SR_CLOCK_HI: case IR_SR_CLOCK64: case IR_SR_GLOBALTIMER:
    case IR_SR_GLOBALTIMER_LO: case IR_SR_GLOBALTIMER_HI: return true;
    default: return false;
    }
}

static bool runtime_extern(const ir_module *m, uint32_t fi) {
    /* CUDA's device runtime (the host target provides it) waits for no other thread either */
    const char *name = ir_str(m, m->funcs[fi].name);
    return ir_is_runtime_extern(name) || devrt_id(name);
}

/* counts every mention of each register in f (operands at any depth, address bases, guards) into n[] */
static void count_operand(const ir_operand *o, uint32_t *n, uint32_t nregs) {
    if (o->kind == IR_OPND_VEC || o->kind == IR_OPND_LIST || o->kind == IR_OPND_TEXARGS) {
        for (unsigned k = 0; k < o->aux; k++) count_operand(&ir_elems(o)[k], n, nregs);
        return;
    }
    if ((o->kind == IR_OPND_REG || (o->kind == IR_OPND_ADDR && (o->flags & IR_OPNDF_BASE_REG))) && o->id < nregs)
        n[o->id]++;
}

static uint32_t *register_mentions(const ir_func *f) {
    uint32_t *n = calloc(f->nregs + 1, sizeof *n);
    if (!n) return NULL;
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t i = 0; i < f->blocks[b].n; i++) {
            const ir_ins *ins = &f->blocks[b].ins[i];
            if (ins->guard && ins->guard - 1 < f->nregs) n[ins->guard - 1]++;
            for (unsigned k = 0; k < ins->nops; k++) count_operand(&ins->ops[k], n, f->nregs);
        }
    return n;
}

/* An atom whose old value nobody reads (its destination is `_` or a register mentioned nowhere else) observes
 * nothing another thread wrote: in a loop it is a counter update, not a spin-wait (histograms). */
static bool atom_result_unused(const ir_ins *ins, const uint32_t *mentions, uint32_t nregs) {
    if (ins->op != IR_OP_ATOM || ins->nops < 1) return false;
    const ir_operand *d = &ins->ops[0];
    if (d->kind == IR_OPND_SINK) return true;
    return d->kind == IR_OPND_REG && mentions && d->id < nregs && mentions[d->id] == 1;
}

/* Per function facts: unsafe; has a strong memory operation; has one in a loop (which makes it unsafe). */
enum { F_UNSAFE = 1, F_SYNC = 2, F_LOOP_SYNC = 4 };

typedef struct tl_state {
    const ir_module *m;
    bool allow_barriers;  /* block barriers count as safe (barrier_region_kernels) */
    uint8_t *done;       /* 0 unvisited, 1 on the DFS stack, 2 finished */
    uint8_t *res;        /* closed F_* */
} tl_state;

/* marks [target, source] ranges of backward branches; returns a per-block "in a loop" array */
static uint8_t *loop_blocks(const ir_func *f) {
    uint8_t *in = calloc(f->nblocks + 1, 1);
    int32_t *lb = malloc((f->nlabels + 1) * sizeof *lb);
    if (!in || !lb) { free(lb); free(in); return NULL; }
    for (uint32_t i = 0; i <= f->nlabels; i++) lb[i] = -1;
    for (uint32_t b = 0; b < f->nblocks; b++)
        if (f->blocks[b].label && f->blocks[b].label - 1 < f->nlabels) lb[f->blocks[b].label - 1] = (int32_t)b;
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t i = 0; i < f->blocks[b].n; i++) {
            const ir_ins *ins = &f->blocks[b].ins[i];
            /* brx.idx jumps to a .branchtargets list declared elsewhere: rare, so no range analysis for it */
            if (ins->op == IR_OP_BRX) { memset(in, 1, f->nblocks); goto out; }
            if (ir_is_pseudo(ins) || ins->op == IR_OP_CALL) continue;
            for (unsigned k = 0; k < ins->nops; k++) {
                const ir_operand *o = &ins->ops[k];
                if (o->kind != IR_OPND_LABEL || o->id >= f->nlabels || lb[o->id] < 0) continue;
                uint32_t t = (uint32_t)lb[o->id];
                if (t <= b) memset(in + t, 1, b - t + 1);
            }
        }
out:
    free(lb);
    return in;
}

/* With block barriers allowed (work-item loops run each thread from one barrier to the next): a strong access in
 * a loop can only spin on another thread if some cycle through it passes no barrier. Clears loop[b] for the blocks
 * of which every cycle holds a block barrier (all of a block runs when a cycle passes it). Blocks end at branches;
 * a block's successors are its branch targets and, unless it ends in an unguarded branch, ret or exit, the next
 * block. Large functions keep the plain range test (the search is quadratic). */
static void loops_without_barrier(const ir_func *f, uint8_t *loop) {
    uint32_t n = f->nblocks;
    if (n > 4000) return;
    uint8_t *bar = calloc(n + 1, 1), *seen = malloc(n + 1);
    uint32_t *stack = malloc((n + 1) * sizeof *stack);
    if (!bar || !seen || !stack) goto out;
    for (uint32_t b = 0; b < n; b++)
        for (uint32_t i = 0; i < f->blocks[b].n; i++)
            if (block_barrier(&f->blocks[b].ins[i])) bar[b] = 1;
    for (uint32_t b = 0; b < n; b++) {
        if (!loop[b]) continue;
        if (bar[b]) { loop[b] = 0; continue; }
        /* depth-first from b's successors through blocks without a barrier: back at b means a barrier-free cycle */
        memset(seen, 0, n);
        uint32_t sp = 0;
        bool cycle = false;
        stack[sp++] = b;
        while (sp && !cycle) {
            uint32_t x = stack[--sp];
            const ir_block *B = &f->blocks[x];
            bool falls = true;
            for (uint32_t i = 0; i < B->n && !cycle; i++) {
                const ir_ins *ins = &B->ins[i];
                int32_t t = -1;
                if (ins->op == IR_OP_BRX) { cycle = true; break; } /* not modelled: assume the worst */
                if (ins->op == IR_OP_RET || ins->op == IR_OP_EXIT) { if (!ins->guard) falls = false; continue; }
                if (ins->op != IR_OP_BRA) continue;
                if (ins->nops >= 1 && ins->ops[0].kind == IR_OPND_LABEL) t = ir_label_block(f, ins->ops[0].id);
                if (t < 0) { cycle = true; break; }
                if (!ins->guard) falls = false;
                if ((uint32_t)t == b) cycle = true;
                else if (!seen[t] && !bar[t]) { seen[t] = 1; stack[sp++] = (uint32_t)t; }
            }
            if (falls && !cycle && x + 1 < n) {
                if (x + 1 == b) cycle = true;
                else if (!seen[x + 1] && !bar[x + 1]) { seen[x + 1] = 1; stack[sp++] = x + 1; }
            }
        }
        if (!cycle) loop[b] = 0;
    }
out:
    free(bar);
    free(seen);
    free(stack);
}

static uint8_t own_facts(const ir_module *m, bool allow_barriers, uint32_t fi, uint32_t **callees, uint32_t *ncallees, uint8_t **call_in_loop) {
    const ir_func *f = &m->funcs[fi];
    uint8_t r = 0;
    *callees = NULL;
    *ncallees = 0;
    *call_in_loop = NULL;
    uint8_t *loop = loop_blocks(f);
    if (!loop) return F_UNSAFE;
    if (allow_barriers) loops_without_barrier(f, loop);
    uint32_t *mentions = register_mentions(f); /* NULL (out of memory): every atom counts as a possible spin */
    uint32_t cap = 0;
    for (uint32_t b = 0; b < f->nblocks && !(r & F_UNSAFE); b++)
        for (uint32_t i = 0; i < f->blocks[b].n; i++) {
            const ir_ins *ins = &f->blocks[b].ins[i];
            if (ir_is_pseudo(ins)) continue;
            int c = classify(ins, allow_barriers);
            if (c == OP_UNSAFE || (ins->op == IR_OP_EXIT && !f->is_entry)) { r |= F_UNSAFE; break; }
            for (unsigned k = 0; k < ins->nops; k++)
                if (timer_operand(&ins->ops[k])) r |= F_UNSAFE;
            if (c == OP_SYNC)
                r |= loop[b] && ins->op != IR_OP_RED && !atom_result_unused(ins, mentions, f->nregs)
                         ? (F_SYNC | F_LOOP_SYNC) : F_SYNC;
            if (ins->op != IR_OP_CALL) continue;
            const ir_operand *t = &ins->ops[ins->nops && ins->ops[0].kind == IR_OPND_LIST ? 1 : 0];
            if (t->kind != IR_OPND_FUNC || t->id >= m->nfuncs) { r |= F_UNSAFE; break; } /* indirect call */
            if (!m->funcs[t->id].has_body) {
                if (!runtime_extern(m, t->id)) r |= F_UNSAFE;
                continue;
            }
            if (*ncallees == cap) {
                cap = cap ? 2 * cap : 8;
                uint32_t *nc = realloc(*callees, cap * sizeof *nc);
                uint8_t *nl = realloc(*call_in_loop, cap);
                if (nc) *callees = nc;
                if (nl) *call_in_loop = nl;
                if (!nc || !nl) { r |= F_UNSAFE; free(loop); free(mentions); return r; }
            }
            (*call_in_loop)[*ncallees] = loop[b];
            (*callees)[(*ncallees)++] = t->id;
        }
    free(loop);
    free(mentions);
    return r;
}

static uint8_t close_over(tl_state *S, uint32_t fi) {
    if (S->done[fi] == 2) return S->res[fi];
    if (S->done[fi] == 1) return F_UNSAFE; /* recursion: a spin-wait could hide in it */
    S->done[fi] = 1;
    uint32_t *cs, nc;
    uint8_t *inl;
    uint8_t r = own_facts(S->m, S->allow_barriers, fi, &cs, &nc, &inl);
    for (uint32_t k = 0; k < nc && !(r & F_UNSAFE); k++) {
        uint8_t c = close_over(S, cs[k]);
        r |= c & (F_UNSAFE | F_SYNC | F_LOOP_SYNC);
        if (inl[k] && (c & F_SYNC)) r |= F_LOOP_SYNC;
    }
    if (r & F_LOOP_SYNC) r |= F_UNSAFE;
    free(cs);
    free(inl);
    S->done[fi] = 2;
    S->res[fi] = r;
    return r;
}

static bool *sequential_kernels(const ir_module *m, bool allow_barriers) {
    bool *ok = calloc(m->nfuncs + 1, sizeof *ok);
    tl_state S = {m, allow_barriers, calloc(m->nfuncs + 1, 1), calloc(m->nfuncs + 1, 1)};
    if (!ok || !S.done || !S.res) {
        free(S.done);
        free(S.res);
        return ok;
    }
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
        const ir_func *f = &m->funcs[fi];
        if (!f->is_entry || !f->has_body) continue;
        ok[fi] = !(close_over(&S, fi) & F_UNSAFE);
    }
    free(S.done);
    free(S.res);
    return ok;
}

bool *thread_loop_kernels(const ir_module *m) { return sequential_kernels(m, false); }

bool *barrier_region_kernels(const ir_module *m) { return sequential_kernels(m, true); }
