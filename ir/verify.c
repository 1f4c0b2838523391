/* verify.c — structural invariants of the IR. Runs after parsing and, in debug and test builds, after every
 * pass: a pass that breaks an invariant is caught where it happens, not three passes later in LLVM. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

typedef struct vctx {
    const ir_module *m;
    const ir_func *f;
    char *text;
    size_t len, cap;
    unsigned nerr;
} vctx;

static void fail(vctx *v, const ir_ins *ins, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(vctx *v, const ir_ins *ins, const char *fmt, ...) {
    if (++v->nerr > 50) return;
    char buf[512];
    int n = 0;
    if (v->f) n = snprintf(buf, sizeof buf, "verifier: in '%s'", ir_str(v->m, v->f->name));
    else n = snprintf(buf, sizeof buf, "verifier:");
    if (ins && n >= 0 && (size_t)n < sizeof buf)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " at line %u ('%s')", ins->line, ir_opcodes[ins->op].name);
    if (n >= 0 && (size_t)n < sizeof buf) n += snprintf(buf + n, sizeof buf - (size_t)n, ": ");
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof buf) n += vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof buf - 1) n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    if (v->len + (size_t)n + 1 > v->cap) {
        v->cap = (v->cap + (size_t)n + 1) * 2;
        char *t = realloc(v->text, v->cap);
        if (!t) return;
        v->text = t;
    }
    memcpy(v->text + v->len, buf, (size_t)n);
    v->len += (size_t)n;
    v->text[v->len] = 0;
}

static void check_operand(vctx *v, const ir_ins *ins, const ir_operand *o, int depth) {
    const ir_func *f = v->f;
    switch ((ir_opnd_kind)o->kind) {
    case IR_OPND_REG:
        if (o->id >= f->nregs) fail(v, ins, "register %u out of range (%u registers)", o->id, f->nregs);
        break;
    case IR_OPND_SREG:
        if (o->id == IR_SR_NONE || o->id >= IR_SR_COUNT) fail(v, ins, "bad special register %u", o->id);
        break;
    case IR_OPND_VAR:
        if (o->id >= v->m->nvars) fail(v, ins, "variable %u out of range", o->id);
        break;
    case IR_OPND_FUNC:
        if (o->id >= v->m->nfuncs) fail(v, ins, "function %u out of range", o->id);
        break;
    case IR_OPND_LABEL:
        if (o->id >= f->nlabels) fail(v, ins, "label %u out of range", o->id);
        else if (!f->labels[o->id].defined) fail(v, ins, "label '%s' is never defined", ir_str(v->m, f->labels[o->id].name));
        break;
    case IR_OPND_ADDR:
        if ((o->flags & IR_OPNDF_BASE_REG) && o->id >= f->nregs) fail(v, ins, "address register out of range");
        if ((o->flags & IR_OPNDF_BASE_VAR) && o->id >= v->m->nvars) fail(v, ins, "address variable out of range");
        if ((o->flags & IR_OPNDF_BASE_FUNC) && o->id >= v->m->nfuncs) fail(v, ins, "address function out of range");
        if (!(o->flags & (IR_OPNDF_BASE_REG | IR_OPNDF_BASE_VAR | IR_OPNDF_BASE_FUNC | IR_OPNDF_ABS_ADDR)))
            fail(v, ins, "address without a base");
        break;
    case IR_OPND_VEC:
    case IR_OPND_LIST:
    case IR_OPND_TEXARGS:
        if (depth > 2) { fail(v, ins, "operand lists nested too deeply"); break; }
        if (o->aux && !ir_elems(o)) { fail(v, ins, "operand list without elements"); break; }
        for (unsigned i = 0; i < o->aux; i++) check_operand(v, ins, &ir_elems(o)[i], depth + 1);
        break;
    case IR_OPND_IMM:
    case IR_OPND_F32:
    case IR_OPND_F64:
    case IR_OPND_SINK:
        break;
    case IR_OPND_NONE:
    default:
        fail(v, ins, "operand of unknown kind %u", o->kind);
        break;
    }
}

static void check_ins(vctx *v, const ir_ins *ins) {
    if (ins->op == IR_OP_NONE || ins->op >= IR_OP_COUNT) { fail(v, ins, "bad opcode %u", ins->op); return; }
    if (ins->nops && !ins->ops) { fail(v, ins, "operands missing"); return; }
    const ir_opcode_info *info = &ir_opcodes[ins->op];
    unsigned counted = 0;
    for (unsigned i = 0; i < ins->nops; i++) counted += !(ins->ops[i].flags & IR_OPNDF_PIPE);
    if (counted < info->min_ops || counted > info->max_ops)
        fail(v, ins, "%u operands, expected %u..%u", counted, info->min_ops, info->max_ops);
    if (ins->guard) {
        if (ins->guard - 1 >= v->f->nregs) fail(v, ins, "guard register out of range");
        else if (ir_reg_type(v->f, ins->guard - 1) != IR_T_PRED) fail(v, ins, "guard is not a predicate");
    }
    if (ins->nwords > IR_MAX_WORDS) fail(v, ins, "too many words");
    for (unsigned i = 0; i < ins->nwords; i++) {
        unsigned id = IR_WORD_ID(ins->words[i]);
        switch (IR_WORD_KIND(ins->words[i])) {
        case IR_W_TYPE: if (!id || id >= IR_T_COUNT) fail(v, ins, "bad type word"); break;
        case IR_W_SPACE: if (!id || id >= IR_S_COUNT) fail(v, ins, "bad state-space word"); break;
        case IR_W_MOD: if (!id || id >= IR_M_COUNT) fail(v, ins, "bad modifier word"); break;
        case IR_W_SHAPE: if (!ins->shape) fail(v, ins, "shape word without a shape"); break;
        }
    }
    switch (ins->op) {
    case IR_OP_DECL_REG:
        if (ins->ops[0].id >= v->f->nregdecls) fail(v, ins, "register declaration out of range");
        return;
    case IR_OP_CALLPROTOTYPE:
        if (ins->nops != 2 || ins->ops[1].val < 0 || (uint64_t)ins->ops[1].val >= v->f->nprotos)
            fail(v, ins, "prototype out of range");
        return;
    case IR_OP_PRAGMA:
        if (ins->ops[0].id >= v->m->nstrings) fail(v, ins, "pragma string out of range");
        return;
    default: break;
    }
    if (ins->op != IR_OP_LOC)
        for (unsigned i = 0; i < ins->nops; i++) check_operand(v, ins, &ins->ops[i], 0);
}

static void check_func(vctx *v, const ir_func *f) {
    v->f = f;
    for (uint32_t i = 0; i < f->nregs; i++)
        if (f->regs[i].decl >= f->nregdecls) fail(v, NULL, "register %u has no declaration", i);
    uint8_t *seen = calloc(f->nlabels ? f->nlabels : 1, 1);
    if (!seen) abort();
    int depth = 0;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        const ir_block *bl = &f->blocks[b];
        if (bl->label) {
            if (bl->label - 1 >= f->nlabels) fail(v, NULL, "block %u has a bad label", b);
            else if (seen[bl->label - 1]++) fail(v, NULL, "label '%s' starts two blocks", ir_str(v->m, f->labels[bl->label - 1].name));
            else if (f->labels[bl->label - 1].defined != 1) fail(v, NULL, "block label '%s' is not a code label", ir_str(v->m, f->labels[bl->label - 1].name));
        }
        bool ended = false;
        for (uint32_t i = 0; i < bl->n; i++) {
            const ir_ins *ins = &bl->ins[i];
            if (ended && !ir_is_pseudo(ins)) fail(v, ins, "instruction after the end of its block");
            check_ins(v, ins);
            if (ins->op == IR_OP_SCOPE_BEGIN) depth++;
            if (ins->op == IR_OP_SCOPE_END && --depth < 0) fail(v, ins, "unbalanced '}'");
            if (!ir_is_pseudo(ins) && (ir_opcodes[ins->op].flags & IR_OPF_TERMINATOR)) ended = true;
        }
    }
    if (depth != 0) fail(v, NULL, "unbalanced '{'");
    free(seen);
    v->f = NULL;
}

bool ir_verify(const ir_module *m, char **errors) {
    vctx v = {.m = m};
    for (uint32_t i = 0; i < m->nitems; i++) {
        const ir_item *it = &m->items[i];
        uint32_t limit = it->kind == IR_ITEM_VAR ? m->nvars : it->kind == IR_ITEM_FUNC ? m->nfuncs
                       : it->kind == IR_ITEM_ALIAS ? m->naliases : it->kind == IR_ITEM_FILE ? m->nfiles : m->nstrings;
        if (it->id >= limit) fail(&v, NULL, "module item %u refers to a missing object", i);
    }
    for (uint32_t i = 0; i < m->nvars; i++) {
        const ir_var *var = &m->vars[i];
        if (!var->type || var->type >= IR_T_COUNT) fail(&v, NULL, "variable '%s' has no type", ir_str(m, var->name));
        if (var->func >= (int32_t)m->nfuncs) fail(&v, NULL, "variable '%s' has a bad owner", ir_str(m, var->name));
        for (uint32_t k = 0; k < var->ninit; k++) {
            const ir_init *e = &var->init[k];
            if ((e->kind == IR_INIT_VAR || e->kind == IR_INIT_GENERIC || e->kind == IR_INIT_MASK) && e->sym >= m->nvars)
                fail(&v, NULL, "initializer of '%s' names a missing variable", ir_str(m, var->name));
            if (e->kind == IR_INIT_FUNC && e->sym >= m->nfuncs)
                fail(&v, NULL, "initializer of '%s' names a missing function", ir_str(m, var->name));
        }
    }
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].has_body) check_func(&v, &m->funcs[i]);
    if (errors) *errors = v.text;
    else free(v.text);
    return v.nerr == 0;
}
