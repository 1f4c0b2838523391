/* link_modules.c — several parsed PTX modules become one (nvcc -rdc=true: each translation unit's PTX names
 * the others' functions and variables with .extern). See link_modules.h for the rules.
 *
 * Three steps: (1) resolve every symbol with linkage across the modules and check declarations against the
 * chosen definition; (2) give every kept function and variable its id in the new module (dropped
 * declarations map to the id of what they resolve to), renaming private symbols whose name is taken; (3) copy
 * contents, remapping string, variable, function and .file ids and offsetting line numbers, and rebuild the
 * item list in input order (the first mention of a symbol places it; the definition's item carries the body). */
#include "link_modules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SYM_VAR = 1, SYM_FUNC = 2 };

/* a symbol with linkage, keyed by the id of its name in the output module */
typedef struct lsym {
    uint8_t kind;
    uint8_t defined;           /* the winner is a definition */
    uint8_t use_reported;
    uint32_t align;            /* largest alignment of its variable declarations (dynamic .extern .shared) */
    unsigned wmod, fmod;       /* winner; first declaration (locations in messages) */
    uint32_t wid, fid;
} lsym;

typedef struct linker {
    ir_module *const *mods;
    const char *const *files;
    unsigned n;
    p2n_diags *d;
    const uint32_t *base;      /* line offset per input */
    ir_module *out;
    uint32_t **smap;           /* per input: string id -> output string id (UINT32_MAX until interned) */
    uint32_t **vmap, **fmap;   /* per input: var/func id -> output id (UINT32_MAX: dropped, never referenced) */
    uint8_t **vkeep, **fkeep;  /* per input: this input's entity is the one copied */
    uint32_t *fbase;           /* per input: offset added to .file indices */
    lsym *syms;                /* indexed by output string id (sym_cap entries) */
    uint32_t sym_cap;
    uint8_t *taken;            /* output string id is a symbol name already used (sym_cap entries) */
    bool internal;
} linker;

static void *xcalloc(size_t n, size_t s) {
    void *p = calloc(n ? n : 1, s);
    if (!p) { fputs("ptx2native: out of memory\n", stderr); abort(); }
    return p;
}

static uint32_t S(linker *L, unsigned k, uint32_t sid) {
    if (L->smap[k][sid] == UINT32_MAX)
        L->smap[k][sid] = ir_intern(L->out, ir_str(L->mods[k], sid), ir_strlen(L->mods[k], sid));
    return L->smap[k][sid];
}

static void sym_room(linker *L, uint32_t sid) {
    if (sid < L->sym_cap) return;
    uint32_t c = L->sym_cap ? L->sym_cap : 256;
    while (c <= sid) c *= 2;
    lsym *ns = realloc(L->syms, c * sizeof *ns);
    uint8_t *nt = realloc(L->taken, c);
    if (!ns || !nt) { fputs("ptx2native: out of memory\n", stderr); abort(); }
    memset(ns + L->sym_cap, 0, (c - L->sym_cap) * sizeof *ns);
    memset(nt + L->sym_cap, 0, c - L->sym_cap);
    L->syms = ns;
    L->taken = nt;
    L->sym_cap = c;
}

/* ---------------------------------------------------------------- step 1: resolution */

static bool var_linked(const ir_var *v) { return v->func < 0 && v->linkage != IR_LINK_NONE; }
static bool func_linked(const ir_func *f) { return f->linkage != IR_LINK_NONE || f->is_entry; }
static bool var_is_def(const ir_var *v) { return v->linkage != IR_LINK_EXTERN; }

/* 3 strong, 2 common, 1 weak, 0 a declaration */
static int strength(linker *L, unsigned k, int kind, uint32_t id) {
    if (kind == SYM_VAR) {
        const ir_var *v = &L->mods[k]->vars[id];
        return !var_is_def(v) ? 0 : v->linkage == IR_LINK_WEAK ? 1 : v->linkage == IR_LINK_COMMON ? 2 : 3;
    }
    const ir_func *f = &L->mods[k]->funcs[id];
    return !f->has_body ? 0 : f->linkage == IR_LINK_WEAK ? 1 : 3;
}

/* bytes of a variable; 0 when its first dimension is unsized (`[]`: an extern array of any length) */
static uint64_t var_size(const ir_var *v) {
    uint64_t s = (uint64_t)(ir_type_bits[v->type] / 8) * (v->vec ? v->vec : 1);
    if (!s) s = 8; /* .texref and friends: opaque handles */
    for (unsigned i = 0; i < v->ndims; i++) {
        if (i == 0 && v->unsized_first) return 0;
        s *= v->dims[i];
    }
    return s;
}

static void where(linker *L, unsigned k, int kind, uint32_t id, char *buf, size_t n) {
    uint32_t line = kind == SYM_VAR ? L->mods[k]->vars[id].line : L->mods[k]->funcs[id].line;
    uint32_t col = kind == SYM_VAR ? L->mods[k]->vars[id].col : L->mods[k]->funcs[id].col;
    snprintf(buf, n, "%s:%u:%u", L->files[k], line, col);
}

static uint32_t line_of(linker *L, unsigned k, int kind, uint32_t id) {
    return L->base[k] + (kind == SYM_VAR ? L->mods[k]->vars[id].line : L->mods[k]->funcs[id].line);
}
static uint32_t col_of(linker *L, unsigned k, int kind, uint32_t id) {
    return kind == SYM_VAR ? L->mods[k]->vars[id].col : L->mods[k]->funcs[id].col;
}

/* An error at (k, id) naming the other location (ok, oid): "<head> '<name>' <tail> <file:line:col>". */
static void err2(linker *L, unsigned k, int kind, uint32_t id, unsigned ok, int okind, uint32_t oid,
                 const char *head, const char *name, const char *tail) {
    char at[512];
    where(L, ok, okind, oid, at, sizeof at);
    diag_error(L->d, line_of(L, k, kind, id), col_of(L, k, kind, id), "%s'%s'%s %s", head, name, tail, at);
}

static void declare(linker *L, unsigned k, int kind, uint32_t id, uint32_t name_sid) {
    uint32_t name = S(L, k, name_sid);
    sym_room(L, name);
    lsym *s = &L->syms[name];
    const char *nm = ir_str(L->out, name);
    if (!s->kind) {
        *s = (lsym){.kind = (uint8_t)kind, .wmod = k, .wid = id, .fmod = k, .fid = id};
        s->defined = strength(L, k, kind, id) > 0;
        return;
    }
    if (s->kind != kind) {
        err2(L, k, kind, id, s->fmod, s->kind, s->fid, "", nm,
             kind == SYM_VAR ? " is a variable here and a function at" : " is a function here and a variable at");
        return;
    }
    int now = strength(L, k, kind, id), win = strength(L, s->wmod, kind, s->wid);
    if (now == 3 && win == 3) {
        err2(L, k, kind, id, s->wmod, kind, s->wid, "duplicate definition of ", nm, ", first defined at");
        return;
    }
    bool take = now > win && !(now == 2 && win == 3);
    if (now == 2 && win == 2) /* .common: the largest wins */
        take = var_size(&L->mods[k]->vars[id]) > var_size(&L->mods[s->wmod]->vars[s->wid]);
    if (take) {
        s->wmod = k;
        s->wid = id;
        s->defined = 1;
    }
}

static bool same_param(const ir_var *a, const ir_var *b) {
    return a->space == b->space && var_size(a) == var_size(b) &&
           (ir_type_bits[a->type] == ir_type_bits[b->type]);
}

/* A declaration (k, id) that does not fit the winner: a type or size mismatch. */
static void check_decl(linker *L, unsigned k, int kind, uint32_t id, uint32_t name_sid) {
    uint32_t name = S(L, k, name_sid);
    lsym *s = &L->syms[name];
    if (kind == SYM_VAR && L->mods[k]->vars[id].align > s->align) s->align = L->mods[k]->vars[id].align;
    /* declarations that nothing defines (dynamic .extern .shared arrays: one window whatever their element
     * types) are not compared */
    if (s->kind != kind || (s->wmod == k && s->wid == id) || !s->defined) return;
    const char *nm = ir_str(L->out, name);
    const ir_module *a = L->mods[k], *b = L->mods[s->wmod];
    bool bad = false;
    if (kind == SYM_VAR) {
        const ir_var *x = &a->vars[id], *y = &b->vars[s->wid];
        uint64_t sx = var_size(x), sy = var_size(y);
        bad = x->space != y->space || ir_type_bits[x->type] != ir_type_bits[y->type] || (x->vec ? x->vec : 1) != (y->vec ? y->vec : 1);
        if (x->linkage == IR_LINK_COMMON) bad |= sx > sy; /* the definition must hold the largest .common */
        else if (sx && sy) bad |= sx != sy;
        if (x->linkage == IR_LINK_COMMON && y->linkage == IR_LINK_COMMON && x->space == y->space) bad = false;
    } else {
        const ir_func *x = &a->funcs[id], *y = &b->funcs[s->wid];
        bad = x->is_entry != y->is_entry || x->sig.nret != y->sig.nret || x->sig.nparam != y->sig.nparam;
        for (uint32_t i = 0; !bad && i < x->sig.nret; i++) bad = !same_param(&a->vars[x->sig.ret[i]], &b->vars[y->sig.ret[i]]);
        for (uint32_t i = 0; !bad && i < x->sig.nparam; i++)
            bad = !same_param(&a->vars[x->sig.param[i]], &b->vars[y->sig.param[i]]);
    }
    if (bad)
        err2(L, k, kind, id, s->wmod, kind, s->wid, kind == SYM_VAR ? "type or size of variable " : "signature of function ",
              nm, " differs from its definition at");
}

/* ---------------------------------------------------------------- step 2: ids */

static uint32_t unique_name(linker *L, unsigned k, uint32_t sid) {
    uint32_t name = S(L, k, sid);
    sym_room(L, name);
    if (!L->taken[name]) { L->taken[name] = 1; return name; }
    char buf[512];
    for (unsigned c = 1;; c++) {
        snprintf(buf, sizeof buf, "%s$p2n%u", ir_str(L->mods[k], sid), c);
        uint32_t nn = ir_intern(L->out, buf, strlen(buf));
        sym_room(L, nn);
        if (!L->taken[nn] && !L->syms[nn].kind) { L->taken[nn] = 1; return nn; }
    }
}

/* ---------------------------------------------------------------- step 3: contents */

static uint32_t map_var(linker *L, unsigned k, uint32_t id) {
    uint32_t r = L->vmap[k][id];
    if (r == UINT32_MAX) { L->internal = true; return 0; }
    return r;
}
static uint32_t map_func(linker *L, unsigned k, uint32_t id) {
    uint32_t r = L->fmap[k][id];
    if (r == UINT32_MAX) { L->internal = true; return 0; }
    return r;
}

/* A use of a symbol that no input defines: an error at the use, once per symbol. */
static void check_use(linker *L, unsigned k, int kind, uint32_t id, const ir_ins *ins) {
    const ir_module *m = L->mods[k];
    uint32_t name_sid;
    if (kind == SYM_VAR) {
        const ir_var *v = &m->vars[id];
        if (!var_linked(v) || v->space == IR_S_SHARED) return; /* dynamic shared memory stays .extern */
        name_sid = v->name;
    } else {
        const ir_func *f = &m->funcs[id];
        const char *fname = ir_str(m, f->name);
        if (!func_linked(f) || ir_is_runtime_extern(fname) || ir_is_device_runtime(fname)) return;
        name_sid = f->name;
    }
    lsym *s = &L->syms[S(L, k, name_sid)];
    if (s->defined || s->use_reported) return;
    s->use_reported = 1;
    diag_error(L->d, L->base[k] + ins->line, ins->col,
               "'%s' is .extern in every module linked (%u) and never defined; used by '%s' here",
               ir_str(m, name_sid), L->n, ir_opcodes[ins->op].name);
}

static void copy_operand(linker *L, unsigned k, const ir_ins *ins, ir_operand *dst, const ir_operand *src) {
    *dst = *src;
    switch ((ir_opnd_kind)src->kind) {
    case IR_OPND_VAR:
        check_use(L, k, SYM_VAR, src->id, ins);
        dst->id = map_var(L, k, src->id);
        break;
    case IR_OPND_FUNC:
        check_use(L, k, SYM_FUNC, src->id, ins);
        dst->id = map_func(L, k, src->id);
        break;
    case IR_OPND_ADDR:
        if (src->flags & IR_OPNDF_BASE_VAR) { check_use(L, k, SYM_VAR, src->id, ins); dst->id = map_var(L, k, src->id); }
        if (src->flags & IR_OPNDF_BASE_FUNC) { check_use(L, k, SYM_FUNC, src->id, ins); dst->id = map_func(L, k, src->id); }
        break;
    case IR_OPND_VEC:
    case IR_OPND_LIST:
    case IR_OPND_TEXARGS: {
        ir_operand *e = ir_alloc(L->out, sizeof *e * (src->aux ? src->aux : 1));
        for (unsigned i = 0; i < src->aux; i++) copy_operand(L, k, ins, &e[i], &ir_elems(src)[i]);
        ir_set_elems(dst, e, src->aux);
        break;
    }
    default: break;
    }
}

static uint32_t *map_ids(linker *L, unsigned k, const uint32_t *ids, uint32_t n) {
    if (!n) return NULL;
    uint32_t *r = ir_alloc(L->out, n * sizeof *r);
    for (uint32_t i = 0; i < n; i++) r[i] = map_var(L, k, ids[i]);
    return r;
}

static void *dup_heap(const void *p, size_t bytes) {
    if (!bytes) return NULL;
    void *q = malloc(bytes);
    if (!q) { fputs("ptx2native: out of memory\n", stderr); abort(); }
    memcpy(q, p, bytes);
    return q;
}

static void copy_var(linker *L, unsigned k, uint32_t id, uint32_t name) {
    const ir_var *v = &L->mods[k]->vars[id];
    ir_var *o = &L->out->vars[L->vmap[k][id]];
    *o = *v;
    o->name = name;
    o->func = v->func < 0 ? -1 : (int32_t)map_func(L, k, (uint32_t)v->func);
    o->line = v->line ? L->base[k] + v->line : 0;
    if (var_linked(v) && v->linkage == IR_LINK_EXTERN) { /* one window for every declaration: the largest alignment */
        const lsym *s = &L->syms[S(L, k, v->name)];
        if (s->align > o->align) o->align = s->align;
    }
    if (v->ninit) {
        o->init = ir_alloc(L->out, v->ninit * sizeof *o->init);
        for (uint32_t i = 0; i < v->ninit; i++) {
            o->init[i] = v->init[i];
            switch ((ir_init_kind)v->init[i].kind) {
            case IR_INIT_VAR:
            case IR_INIT_GENERIC:
            case IR_INIT_MASK: o->init[i].sym = map_var(L, k, v->init[i].sym); break;
            case IR_INIT_FUNC: o->init[i].sym = map_func(L, k, v->init[i].sym); break;
            default: break;
            }
        }
    }
    if (v->nattrs) {
        o->attrs = ir_alloc(L->out, v->nattrs * sizeof *o->attrs);
        for (uint32_t i = 0; i < v->nattrs; i++) o->attrs[i] = S(L, k, v->attrs[i]);
    }
}

static void copy_func(linker *L, unsigned k, uint32_t id, uint32_t name) {
    const ir_func *f = &L->mods[k]->funcs[id];
    ir_func *o = &L->out->funcs[L->fmap[k][id]];
    memset(o, 0, sizeof *o);
    o->name = name;
    o->is_entry = f->is_entry;
    o->linkage = f->linkage;
    o->has_body = f->has_body;
    o->is_alias_target_only = f->is_alias_target_only;
    o->line = f->line ? L->base[k] + f->line : 0;
    o->col = f->col;
    o->sig = f->sig;
    o->sig.ret = map_ids(L, k, f->sig.ret, f->sig.nret);
    o->sig.param = map_ids(L, k, f->sig.param, f->sig.nparam);
    o->perf = f->perf;
    o->regs = dup_heap(f->regs, f->nregs * sizeof *f->regs);
    o->nregs = o->cap_regs = f->nregs;
    o->regdecls = dup_heap(f->regdecls, f->nregdecls * sizeof *f->regdecls);
    o->nregdecls = o->cap_regdecls = f->nregdecls;
    for (uint32_t i = 0; i < f->nregdecls; i++) o->regdecls[i].name = S(L, k, f->regdecls[i].name);
    o->labels = dup_heap(f->labels, f->nlabels * sizeof *f->labels);
    o->nlabels = o->cap_labels = f->nlabels;
    for (uint32_t i = 0; i < f->nlabels; i++) {
        o->labels[i].name = S(L, k, f->labels[i].name);
        if (o->labels[i].line) o->labels[i].line += L->base[k];
    }
    o->protos = dup_heap(f->protos, f->nprotos * sizeof *f->protos);
    o->nprotos = o->cap_protos = f->nprotos;
    for (uint32_t i = 0; i < f->nprotos; i++) {
        o->protos[i].ret = map_ids(L, k, f->protos[i].ret, f->protos[i].nret);
        o->protos[i].param = map_ids(L, k, f->protos[i].param, f->protos[i].nparam);
    }
    for (uint32_t b = 0; b < f->nblocks; b++) {
        const ir_block *sb = &f->blocks[b];
        ir_block *db = ir_add_block(o, sb->label);
        for (uint32_t i = 0; i < sb->n; i++) {
            const ir_ins *si = &sb->ins[i];
            ir_ins ins = *si;
            ins.line = si->line ? L->base[k] + si->line : 0;
            ins.ops = si->nops ? ir_alloc_operands(L->out, si->nops) : NULL;
            for (unsigned j = 0; j < si->nops; j++) copy_operand(L, k, si, &ins.ops[j], &si->ops[j]);
            if (si->op == IR_OP_PRAGMA) ins.ops[0].id = S(L, k, si->ops[0].id);
            if (si->op == IR_OP_LOC) ins.ops[0].val += L->fbase[k];
            ir_block_append(db, &ins);
        }
    }
}

static uint32_t add_file(linker *L, unsigned k, uint32_t fi) {
    ir_module *o = L->out;
    if (o->nfiles == o->cap_files) {
        o->cap_files = o->cap_files ? o->cap_files * 2 : 8;
        o->files = realloc(o->files, o->cap_files * sizeof *o->files);
        if (!o->files) { fputs("ptx2native: out of memory\n", stderr); abort(); }
    }
    ir_file f = L->mods[k]->files[fi];
    f.index += L->fbase[k];
    f.name = S(L, k, f.name);
    o->files[o->nfiles] = f;
    return o->nfiles++;
}

static uint32_t add_alias(linker *L, unsigned k, uint32_t ai) {
    ir_module *o = L->out;
    if (o->naliases == o->cap_aliases) {
        o->cap_aliases = o->cap_aliases ? o->cap_aliases * 2 : 8;
        o->aliases = realloc(o->aliases, o->cap_aliases * sizeof *o->aliases);
        if (!o->aliases) { fputs("ptx2native: out of memory\n", stderr); abort(); }
    }
    const ir_alias *a = &L->mods[k]->aliases[ai];
    o->aliases[o->naliases] = (ir_alias){map_func(L, k, a->alias), map_func(L, k, a->aliasee)};
    return o->naliases++;
}

/* sm_90a -> 90; 0 for other .target words */
static unsigned sm_number(const char *t) {
    if (strncmp(t, "sm_", 3) != 0) return 0;
    return (unsigned)strtoul(t + 3, NULL, 10);
}

/* ---------------------------------------------------------------- driver */

static void header(linker *L) {
    ir_module *o = L->out;
    const ir_module *m0 = L->mods[0];
    unsigned best = 0, best_sm = 0;
    o->address_size = m0->address_size;
    for (unsigned k = 0; k < L->n; k++) {
        const ir_module *m = L->mods[k];
        if (m->address_size != m0->address_size)
            diag_error(L->d, L->base[k] + 1, 1, ".address_size %u differs from .address_size %u of %s", m->address_size,
                       m0->address_size, L->files[0]);
        if (m->version_major > o->version_major || (m->version_major == o->version_major && m->version_minor > o->version_minor)) {
            o->version_major = m->version_major;
            o->version_minor = m->version_minor;
        }
        for (unsigned t = 0; t < m->ntargets; t++) {
            unsigned sm = sm_number(ir_str(m, m->targets[t]));
            if (sm > best_sm) { best_sm = sm; best = k; }
        }
    }
    /* the highest .target of the inputs (its whole list: sm_NN plus texmode/debug words) */
    o->ntargets = L->mods[best]->ntargets;
    for (unsigned t = 0; t < o->ntargets; t++) o->targets[t] = S(L, best, L->mods[best]->targets[t]);
}

ir_module *link_modules(ir_module *const *mods, const char *const *files, const uint32_t *lines, unsigned n,
                        p2n_diags *d, uint32_t *seg_base) {
    linker L = {.mods = mods, .files = files, .n = n, .d = d, .base = seg_base};
    for (unsigned k = 0; k < n; k++) seg_base[k] = k ? seg_base[k - 1] + lines[k - 1] : 0;
    d->nsegs = n;
    d->seg_file = files;
    d->seg_base = seg_base;
    unsigned errors0 = d->nerrors;
    L.out = ir_module_new();
    L.smap = xcalloc(n, sizeof *L.smap);
    L.vmap = xcalloc(n, sizeof *L.vmap);
    L.fmap = xcalloc(n, sizeof *L.fmap);
    L.vkeep = xcalloc(n, sizeof *L.vkeep);
    L.fkeep = xcalloc(n, sizeof *L.fkeep);
    L.fbase = xcalloc(n, sizeof *L.fbase);
    for (unsigned k = 0; k < n; k++) {
        const ir_module *m = mods[k];
        L.smap[k] = malloc((m->nstrings ? m->nstrings : 1) * sizeof **L.smap);
        L.vmap[k] = malloc((m->nvars ? m->nvars : 1) * sizeof **L.vmap);
        L.fmap[k] = malloc((m->nfuncs ? m->nfuncs : 1) * sizeof **L.fmap);
        if (!L.smap[k] || !L.vmap[k] || !L.fmap[k]) { fputs("ptx2native: out of memory\n", stderr); abort(); }
        memset(L.smap[k], 0xff, (m->nstrings ? m->nstrings : 1) * sizeof **L.smap);
        memset(L.vmap[k], 0xff, (m->nvars ? m->nvars : 1) * sizeof **L.vmap);
        memset(L.fmap[k], 0xff, (m->nfuncs ? m->nfuncs : 1) * sizeof **L.fmap);
        L.vkeep[k] = xcalloc(m->nvars, 1);
        L.fkeep[k] = xcalloc(m->nfuncs, 1);
        uint32_t maxf = 0;
        for (unsigned k2 = 0; k2 < k; k2++)
            for (uint32_t i = 0; i < mods[k2]->nfiles; i++)
                if (mods[k2]->files[i].index + L.fbase[k2] > maxf) maxf = mods[k2]->files[i].index + L.fbase[k2];
        L.fbase[k] = maxf;
    }
    header(&L);

    /* 1: resolution */
    for (unsigned k = 0; k < n; k++) {
        const ir_module *m = mods[k];
        for (uint32_t i = 0; i < m->nfuncs; i++)
            if (func_linked(&m->funcs[i])) declare(&L, k, SYM_FUNC, i, m->funcs[i].name);
        for (uint32_t i = 0; i < m->nvars; i++)
            if (var_linked(&m->vars[i])) declare(&L, k, SYM_VAR, i, m->vars[i].name);
    }
    for (unsigned k = 0; k < n && d->nerrors == errors0; k++) {
        const ir_module *m = mods[k];
        for (uint32_t i = 0; i < m->nfuncs; i++)
            if (func_linked(&m->funcs[i])) check_decl(&L, k, SYM_FUNC, i, m->funcs[i].name);
        for (uint32_t i = 0; i < m->nvars; i++)
            if (var_linked(&m->vars[i])) check_decl(&L, k, SYM_VAR, i, m->vars[i].name);
    }
    ir_module *out = L.out;
    uint32_t *fname = NULL, *vname = NULL; /* output name per output id */
    if (d->nerrors != errors0) goto done;

    /* 2: ids. Names with linkage are taken first, so a private symbol is the one renamed on a clash. */
    for (uint32_t s = 0; s < L.sym_cap; s++)
        if (L.syms[s].kind) L.taken[s] = 1;
    for (unsigned k = 0; k < n; k++) {
        const ir_module *m = mods[k];
        for (uint32_t i = 0; i < m->nfuncs; i++) {
            const ir_func *f = &m->funcs[i];
            const lsym *s = func_linked(f) ? &L.syms[S(&L, k, f->name)] : NULL;
            if (s && !(s->wmod == k && s->wid == i)) continue;
            L.fkeep[k][i] = 1;
            L.fmap[k][i] = ir_add_func(out, 0);
        }
    }
    for (unsigned k = 0; k < n; k++) {
        const ir_module *m = mods[k];
        for (uint32_t i = 0; i < m->nvars; i++) {
            const ir_var *v = &m->vars[i];
            if (v->func >= 0 ? !L.fkeep[k][v->func] : var_linked(v) && !(L.syms[S(&L, k, v->name)].wmod == k &&
                                                                         L.syms[S(&L, k, v->name)].wid == i))
                continue;
            ir_var z;
            memset(&z, 0, sizeof z);
            L.vkeep[k][i] = 1;
            L.vmap[k][i] = ir_add_var(out, &z);
        }
    }
    fname = xcalloc(out->nfuncs, sizeof *fname);
    vname = xcalloc(out->nvars, sizeof *vname);
    for (unsigned k = 0; k < n; k++) {
        const ir_module *m = mods[k];
        for (uint32_t i = 0; i < m->nfuncs; i++) {
            const ir_func *f = &m->funcs[i];
            if (!L.fkeep[k][i]) {
                const lsym *s = &L.syms[S(&L, k, f->name)];
                L.fmap[k][i] = L.fmap[s->wmod][s->wid];
            } else {
                fname[L.fmap[k][i]] = func_linked(f) ? S(&L, k, f->name) : unique_name(&L, k, f->name);
            }
        }
        for (uint32_t i = 0; i < m->nvars; i++) {
            const ir_var *v = &m->vars[i];
            if (L.vkeep[k][i]) {
                vname[L.vmap[k][i]] = v->func >= 0 || var_linked(v) ? S(&L, k, v->name) : unique_name(&L, k, v->name);
            } else if (v->func < 0) {
                const lsym *s = &L.syms[S(&L, k, v->name)];
                L.vmap[k][i] = L.vmap[s->wmod][s->wid];
            }
        }
    }

    /* 3: contents, then items in input order */
    for (unsigned k = 0; k < n; k++) {
        const ir_module *m = mods[k];
        for (uint32_t i = 0; i < m->nfuncs; i++)
            if (L.fkeep[k][i]) copy_func(&L, k, i, fname[L.fmap[k][i]]);
        for (uint32_t i = 0; i < m->nvars; i++)
            if (L.vkeep[k][i]) copy_var(&L, k, i, vname[L.vmap[k][i]]);
    }
    uint8_t *vplaced = xcalloc(out->nvars, 1), *fplaced = xcalloc(out->nfuncs, 1); /* 1 declared, 2 defined */
    for (unsigned k = 0; k < n; k++) {
        const ir_module *m = mods[k];
        for (uint32_t t = 0; t < m->nitems; t++) {
            const ir_item *it = &m->items[t];
            switch ((ir_item_kind)it->kind) {
            case IR_ITEM_VAR: {
                uint32_t o = L.vmap[k][it->id];
                if (o == UINT32_MAX || vplaced[o]) break;
                vplaced[o] = 1;
                ir_add_item(out, IR_ITEM_VAR, o);
                break;
            }
            case IR_ITEM_FUNC: {
                uint32_t o = L.fmap[k][it->id];
                bool def = L.fkeep[k][it->id] && !it->is_decl_only && out->funcs[o].has_body;
                if (def && fplaced[o] < 2) {
                    uint32_t item = ir_add_item(out, IR_ITEM_FUNC, o);
                    if (!fplaced[o]) out->funcs[o].decl_item = item;
                    fplaced[o] = 2;
                } else if (!fplaced[o]) {
                    uint32_t item = ir_add_item(out, IR_ITEM_FUNC, o);
                    out->items[item].is_decl_only = 1;
                    out->funcs[o].decl_item = item;
                    fplaced[o] = 1;
                }
                break;
            }
            case IR_ITEM_ALIAS: ir_add_item(out, IR_ITEM_ALIAS, add_alias(&L, k, it->id)); break;
            case IR_ITEM_PRAGMA:
            case IR_ITEM_SECTION: ir_add_item(out, (ir_item_kind)it->kind, S(&L, k, it->id)); break;
            case IR_ITEM_FILE: ir_add_item(out, IR_ITEM_FILE, add_file(&L, k, it->id)); break;
            }
        }
        out->debug_sections += m->debug_sections;
    }
    free(vplaced);
    free(fplaced);
    if (L.internal) {
        diag_plain(d, "error", "internal compiler error: linking referred to a dropped declaration");
    }
done:
    for (unsigned k = 0; k < n; k++) {
        free(L.smap[k]);
        free(L.vmap[k]);
        free(L.fmap[k]);
        free(L.vkeep[k]);
        free(L.fkeep[k]);
    }
    free(L.smap);
    free(L.vmap);
    free(L.fmap);
    free(L.vkeep);
    free(L.fkeep);
    free(L.fbase);
    free(L.syms);
    free(L.taken);
    free(fname);
    free(vname);
    if (d->nerrors != errors0) {
        ir_module_free(out);
        return NULL;
    }
    return out;
}
