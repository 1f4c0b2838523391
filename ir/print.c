/* print.c — writes the IR as PTX text. The output is valid input for our front end (round trip) and, for
 * modules that came from PTX, close to what ptxas accepts: floats are printed as exact 0f/0d bit patterns,
 * registers by their declared names, words in the order the author wrote them. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

typedef struct sbuf { char *s; size_t n, cap; } sbuf;

static void put(sbuf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap * 2 : 1 << 16;
        while (c < b->n + n + 1) c *= 2;
        char *t = realloc(b->s, c);
        if (!t) { fputs("ptx2native: out of memory\n", stderr); abort(); }
        b->s = t;
        b->cap = c;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}
static void puts_(sbuf *b, const char *s) { put(b, s, strlen(s)); }
static void printf_(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void printf_(sbuf *b, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) { put(b, tmp, (size_t)n); return; }
    char *big = malloc((size_t)n + 1);
    if (!big) abort();
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    put(b, big, (size_t)n);
    free(big);
}
static void put_str(sbuf *b, const ir_module *m, uint32_t id) { put(b, ir_str(m, id), ir_strlen(m, id)); }

static const char *linkage_name(uint8_t l) {
    switch (l) {
    case IR_LINK_VISIBLE: return ".visible ";
    case IR_LINK_EXTERN: return ".extern ";
    case IR_LINK_WEAK: return ".weak ";
    case IR_LINK_COMMON: return ".common ";
    default: return "";
    }
}

static void print_init(sbuf *b, const ir_module *m, const ir_var *v) {
    if (v->nattrs) {
        puts_(b, " = { ");
        for (uint32_t i = 0; i + 1 < v->nattrs; i += 2) {
            if (i) puts_(b, ", ");
            put_str(b, m, v->attrs[i]);
            puts_(b, " = ");
            put_str(b, m, v->attrs[i + 1]);
        }
        puts_(b, " }");
        return;
    }
    if (!v->ninit) return;
    puts_(b, " = ");
    bool need_comma = false;
    for (uint32_t i = 0; i < v->ninit; i++) {
        const ir_init *e = &v->init[i];
        if (e->kind == IR_INIT_CLOSE) { puts_(b, "}"); need_comma = true; continue; }
        if (need_comma) puts_(b, ", ");
        need_comma = true;
        switch (e->kind) {
        case IR_INIT_OPEN: puts_(b, "{"); need_comma = false; break;
        case IR_INIT_INT: printf_(b, "%" PRId64, e->val); break;
        case IR_INIT_F32: printf_(b, "0f%08" PRIX32, (uint32_t)e->val); break;
        case IR_INIT_F64: printf_(b, "0d%016" PRIX64, (uint64_t)e->val); break;
        case IR_INIT_FUNC: put_str(b, m, m->funcs[e->sym].name); break;
        case IR_INIT_MASK:
            printf_(b, "0x%" PRIX64 "(%s", e->mask, e->generic ? "generic(" : "");
            put_str(b, m, m->vars[e->sym].name);
            if (e->generic) puts_(b, ")");
            if (e->val) printf_(b, "%+" PRId64, e->val);
            puts_(b, ")");
            break;
        case IR_INIT_VAR:
        case IR_INIT_GENERIC:
            if (e->kind == IR_INIT_GENERIC) puts_(b, "generic(");
            put_str(b, m, m->vars[e->sym].name);
            if (e->kind == IR_INIT_GENERIC) puts_(b, ")");
            if (e->val) printf_(b, "%+" PRId64, e->val);
            break;
        }
    }
}

/* `.space [.align N] [.vN] .type name[dims]` — shared by variables and parameters. */
static void print_var_decl(sbuf *b, const ir_module *m, const ir_var *v, bool with_init) {
    puts_(b, linkage_name(v->linkage));
    printf_(b, ".%s", ir_space_names[v->space]);
    if (v->managed || v->unified) {
        puts_(b, " .attribute(");
        if (v->managed) puts_(b, ".managed");
        if (v->unified)
            printf_(b, "%s.unified(%" PRIu64 ", %" PRIu64 ")", v->managed ? ", " : "", v->unified_uuid[0], v->unified_uuid[1]);
        puts_(b, ")");
    }
    if (v->align) printf_(b, " .align %u", v->align);
    if (v->vec) printf_(b, " .v%u", v->vec);
    printf_(b, " .%s", ir_type_names[v->type]);
    if (v->is_ptr) {
        puts_(b, " .ptr");
        if (v->ptr_space) printf_(b, " .%s", ir_space_names[v->ptr_space]);
        if (v->ptr_align) printf_(b, " .align %u", v->ptr_align);
    }
    puts_(b, " ");
    put_str(b, m, v->name);
    for (unsigned i = 0; i < v->ndims; i++) {
        if (i == 0 && v->unsized_first) puts_(b, "[]");
        else printf_(b, "[%" PRIu64 "]", v->dims[i]);
    }
    if (with_init) print_init(b, m, v);
}

static void print_param_list(sbuf *b, const ir_module *m, const uint32_t *ids, uint32_t n, bool multiline) {
    puts_(b, "(");
    for (uint32_t i = 0; i < n; i++) {
        if (i) puts_(b, ",");
        if (multiline) puts_(b, "\n\t");
        else if (i) puts_(b, " ");
        print_var_decl(b, m, &m->vars[ids[i]], false);
    }
    if (multiline && n) puts_(b, "\n");
    puts_(b, ")");
}

static void print_operand(sbuf *b, const ir_module *m, const ir_func *f, const ir_operand *o) {
    char tmp[96];
    if (o->flags & IR_OPNDF_NOT) puts_(b, "!");
    if (o->flags & IR_OPNDF_NEG) puts_(b, "-");
    switch ((ir_opnd_kind)o->kind) {
    case IR_OPND_NONE: puts_(b, "<none>"); break;
    case IR_OPND_REG:
        ir_reg_name(m, f, o->id, tmp, sizeof tmp);
        puts_(b, tmp);
        if (o->val) { ir_sel_format(o->val, tmp, sizeof tmp); puts_(b, tmp); }
        break;
    case IR_OPND_SREG:
        puts_(b, ir_sreg_names[o->id]);
        if (o->id == IR_SR_ENVREG) printf_(b, "%u", o->aux);
        else if (o->id == IR_SR_PM) printf_(b, o->aux >= 8 ? "%u_64" : "%u", o->aux & 7u);
        else if (o->aux) printf_(b, ".%c", "xyzw"[o->aux - 1]);
        break;
    case IR_OPND_IMM:
        if (o->flags & IR_OPNDF_UNSIGNED) printf_(b, "%" PRIu64 "U", (uint64_t)o->val);
        else printf_(b, "%" PRId64, o->val);
        break;
    case IR_OPND_F32: printf_(b, "0f%08" PRIX32, (uint32_t)o->val); break;
    case IR_OPND_F64: printf_(b, "0d%016" PRIX64, (uint64_t)o->val); break;
    case IR_OPND_VAR:
        put_str(b, m, m->vars[o->id].name);
        if (o->val) printf_(b, "%+" PRId64, o->val);
        break;
    case IR_OPND_FUNC: put_str(b, m, m->funcs[o->id].name); break;
    case IR_OPND_LABEL: put_str(b, m, f->labels[o->id].name); break;
    case IR_OPND_ADDR:
        puts_(b, "[");
        if (o->flags & IR_OPNDF_BASE_REG) { ir_reg_name(m, f, o->id, tmp, sizeof tmp); puts_(b, tmp); }
        else if (o->flags & IR_OPNDF_BASE_VAR) put_str(b, m, m->vars[o->id].name);
        else if (o->flags & IR_OPNDF_BASE_FUNC) put_str(b, m, m->funcs[o->id].name);
        if (o->flags & IR_OPNDF_ABS_ADDR) printf_(b, "%" PRId64, o->val);
        else if (o->val) printf_(b, "+%" PRId64, o->val);
        puts_(b, "]");
        break;
    case IR_OPND_VEC:
    case IR_OPND_LIST:
    case IR_OPND_TEXARGS: {
        const char *open = o->kind == IR_OPND_VEC ? "{" : o->kind == IR_OPND_LIST ? "(" : "[";
        const char *close = o->kind == IR_OPND_VEC ? "}" : o->kind == IR_OPND_LIST ? ")" : "]";
        puts_(b, open);
        const ir_operand *e = ir_elems(o);
        for (unsigned i = 0; i < o->aux; i++) {
            if (i) puts_(b, (e[i].flags & IR_OPNDF_PIPE) ? "|" : ", ");
            print_operand(b, m, f, &e[i]);
        }
        puts_(b, close);
        break;
    }
    case IR_OPND_SINK: puts_(b, "_"); break;
    }
}

static void print_regdecl(sbuf *b, const ir_module *m, const ir_regdecl *d) {
    puts_(b, ".reg");
    if (d->vec) printf_(b, " .v%u", d->vec);
    printf_(b, " .%s ", ir_type_names[d->type]);
    put_str(b, m, d->name);
    if (d->count) printf_(b, "<%u>", d->count);
    puts_(b, ";");
}

static void print_ins(sbuf *b, const ir_module *m, const ir_func *f, const ir_ins *ins, int depth) {
    for (int i = 0; i < depth; i++) puts_(b, "\t");
    char tmp[96];
    switch ((ir_opcode)ins->op) {
    case IR_OP_DECL_REG: print_regdecl(b, m, &f->regdecls[ins->ops[0].id]); return;
    case IR_OP_DECL_VAR: print_var_decl(b, m, &m->vars[ins->ops[0].id], true); puts_(b, ";"); return;
    case IR_OP_SCOPE_BEGIN: puts_(b, "{"); return;
    case IR_OP_SCOPE_END: puts_(b, "}"); return;
    case IR_OP_LOC:
        printf_(b, ".loc %" PRId64 " %" PRId64 " %" PRId64, ins->ops[0].val, ins->ops[1].val, ins->ops[2].val);
        return;
    case IR_OP_PRAGMA: puts_(b, ".pragma \""); put_str(b, m, ins->ops[0].id); puts_(b, "\";"); return;
    case IR_OP_BRANCHTARGETS:
    case IR_OP_CALLTARGETS:
        put_str(b, m, f->labels[ins->ops[0].id].name);
        puts_(b, ins->op == IR_OP_BRANCHTARGETS ? ": .branchtargets " : ": .calltargets ");
        for (unsigned i = 1; i < ins->nops; i++) {
            if (i > 1) puts_(b, ", ");
            print_operand(b, m, f, &ins->ops[i]);
        }
        puts_(b, ";");
        return;
    case IR_OP_CALLPROTOTYPE: {
        const ir_proto *pr = &f->protos[ins->ops[1].val];
        put_str(b, m, f->labels[ins->ops[0].id].name);
        puts_(b, ": .callprototype ");
        if (pr->nret) { print_param_list(b, m, pr->ret, pr->nret, false); puts_(b, " "); }
        puts_(b, "_ ");
        print_param_list(b, m, pr->param, pr->nparam, false);
        if (pr->noreturn) puts_(b, " .noreturn");
        puts_(b, ";");
        return;
    }
    default: break;
    }
    if (ins->guard) {
        ir_reg_name(m, f, ins->guard - 1, tmp, sizeof tmp);
        printf_(b, "@%s%s ", ins->guard_neg ? "!" : "", tmp);
    }
    puts_(b, ir_opcodes[ins->op].name);
    for (unsigned i = 0; i < ins->nwords; i++) {
        ir_word_format(ins, i, tmp, sizeof tmp);
        puts_(b, tmp);
    }
    for (unsigned i = 0; i < ins->nops; i++) {
        if (i == 0) puts_(b, " ");
        else puts_(b, (ins->ops[i].flags & IR_OPNDF_PIPE) ? "|" : ", ");
        print_operand(b, m, f, &ins->ops[i]);
    }
    puts_(b, ";");
}

static void print_perf(sbuf *b, const ir_perf *pf) {
    static const char *const names[3] = {".maxntid", ".reqntid", ".reqnctapercluster"};
    const uint32_t *vals[3] = {pf->maxntid, pf->reqntid, pf->reqnctapercluster};
    const uint8_t counts[3] = {pf->n_maxntid, pf->n_reqntid, pf->n_reqnctapercluster};
    for (int k = 0; k < 3; k++) {
        if (!counts[k]) continue;
        printf_(b, "%s ", names[k]);
        for (unsigned i = 0; i < counts[k]; i++) printf_(b, i ? ", %u" : "%u", vals[k][i]);
        puts_(b, "\n");
    }
    if (pf->has_minnctapersm) printf_(b, ".minnctapersm %u\n", pf->minnctapersm);
    if (pf->has_maxnctapersm) printf_(b, ".maxnctapersm %u\n", pf->maxnctapersm);
    if (pf->has_maxnreg) printf_(b, ".maxnreg %u\n", pf->maxnreg);
    if (pf->has_maxclusterrank) printf_(b, ".maxclusterrank %u\n", pf->maxclusterrank);
    if (pf->explicitcluster) puts_(b, ".explicitcluster\n");
    if (pf->blocksareclusters) puts_(b, ".blocksareclusters\n");
    if (pf->has_abi_preserve) printf_(b, ".abi_preserve %u\n", pf->abi_preserve);
    if (pf->has_abi_preserve_control) printf_(b, ".abi_preserve_control %u\n", pf->abi_preserve_control);
}

static void print_func(sbuf *b, const ir_module *m, const ir_func *f, bool decl_only) {
    puts_(b, linkage_name(f->linkage));
    puts_(b, f->is_entry ? ".entry " : ".func ");
    if (!f->is_entry && f->sig.nret) {
        print_param_list(b, m, f->sig.ret, f->sig.nret, false);
        puts_(b, " ");
    }
    put_str(b, m, f->name);
    print_param_list(b, m, f->sig.param, f->sig.nparam, true);
    if (f->sig.noreturn) puts_(b, " .noreturn");
    puts_(b, "\n");
    print_perf(b, &f->perf);
    if (decl_only || !f->has_body) { puts_(b, ";\n\n"); return; }
    puts_(b, "{\n");
    int depth = 1;
    for (uint32_t bi = 0; bi < f->nblocks; bi++) {
        const ir_block *bl = &f->blocks[bi];
        if (bl->label) {
            put_str(b, m, f->labels[bl->label - 1].name);
            puts_(b, ":\n");
        }
        for (uint32_t i = 0; i < bl->n; i++) {
            const ir_ins *ins = &bl->ins[i];
            if (ins->op == IR_OP_SCOPE_END && depth > 1) depth--;
            print_ins(b, m, f, ins, depth);
            puts_(b, "\n");
            if (ins->op == IR_OP_SCOPE_BEGIN) depth++;
        }
    }
    puts_(b, "}\n\n");
}

char *ir_print_module(const ir_module *m, size_t *len_out) {
    sbuf b = {0};
    printf_(&b, ".version %u.%u\n", m->version_major, m->version_minor);
    if (m->ntargets) {
        puts_(&b, ".target ");
        for (uint32_t i = 0; i < m->ntargets; i++) {
            if (i) puts_(&b, ", ");
            put_str(&b, m, m->targets[i]);
        }
        puts_(&b, "\n");
    }
    printf_(&b, ".address_size %u\n\n", m->address_size);
    for (uint32_t i = 0; i < m->nitems; i++) {
        const ir_item *it = &m->items[i];
        switch ((ir_item_kind)it->kind) {
        case IR_ITEM_VAR: print_var_decl(&b, m, &m->vars[it->id], true); puts_(&b, ";\n"); break;
        case IR_ITEM_FUNC: {
            const ir_func *f = &m->funcs[it->id];
            /* the body goes with the item that defined it; every other mention is a declaration */
            print_func(&b, m, f, it->is_decl_only);
            break;
        }
        case IR_ITEM_ALIAS:
            puts_(&b, ".alias ");
            put_str(&b, m, m->funcs[m->aliases[it->id].alias].name);
            puts_(&b, ", ");
            put_str(&b, m, m->funcs[m->aliases[it->id].aliasee].name);
            puts_(&b, ";\n");
            break;
        case IR_ITEM_PRAGMA: puts_(&b, ".pragma \""); put_str(&b, m, it->id); puts_(&b, "\";\n"); break;
        case IR_ITEM_SECTION: put_str(&b, m, it->id); puts_(&b, "\n"); break;
        case IR_ITEM_FILE: {
            const ir_file *fl = &m->files[it->id];
            printf_(&b, ".file %u \"", fl->index);
            put_str(&b, m, fl->name);
            puts_(&b, "\"");
            if (fl->has_meta) printf_(&b, ", %" PRIu64 ", %" PRIu64, fl->timestamp, fl->size);
            puts_(&b, "\n");
            break;
        }
        }
    }
    if (len_out) *len_out = b.n;
    if (!b.s) {
        b.s = malloc(1);
        if (!b.s) abort();
        b.s[0] = 0;
    }
    return b.s;
}
