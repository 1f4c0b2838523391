/* parser.c — recursive-descent PTX parser building the IR directly.
 *
 * Error handling: every error is reported with its position and the parser resynchronises at the next `;`
 * (or `}` at function level), so one run lists every error in the file. A function with an error is still
 * recorded (never silently dropped); the caller refuses to compile a module with errors.
 *
 * Names: module symbols live in a table indexed by string id; function-scope names (registers, variables,
 * parameters) in a second table whose entries chain to the declaration they shadow, unwound at `}` — PTX
 * allows `{ .param .b32 param0; ... }` blocks that redeclare names, and nvcc emits one per call.
 */
#include "parser.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lexer.h"

typedef enum sym_kind { SYM_NONE = 0, SYM_REG, SYM_REGRANGE, SYM_VAR, SYM_FUNC } sym_kind;

typedef struct fsym {
    uint8_t kind;
    uint32_t id;    /* register, regdecl (ranges), or variable */
    uint32_t name;
    uint32_t prev;  /* entry this one shadows, +1; 0 = none */
} fsym;

typedef struct parser {
    lexer lx;
    token tok;
    token ahead;
    bool has_ahead;
    ir_module *m;
    p2n_diags *d;
    /* module scope: string id -> (kind << 28 | id) + 1 */
    uint32_t *msym;
    uint32_t cap_msym;
    /* function scope */
    ir_func *f;
    uint32_t fidx;
    ir_block *blk;
    uint32_t *fhead;          /* string id -> fsym index + 1 */
    uint32_t cap_fhead;
    fsym *fsyms;
    uint32_t nfsyms, cap_fsyms;
    uint32_t *scope_marks;    /* nfsyms at each open `{` */
    uint32_t nscopes, cap_scopes;
    uint32_t *flabel;         /* string id -> label id + 1 */
    uint32_t cap_flabel;
    uint32_t *touched_labels; /* string ids to clear at function end */
    uint32_t ntouched, cap_touched;
    bool stmt_error;          /* an error was reported in the current statement */
    uint32_t n_reg_imm;       /* registers made for `%r + imm` operands (reg_plus_imm) */
    /* instructions of the open block collect here and move to the block, exactly sized, when it closes:
     * growing every block's vector by doubling cost more than the rest of the parser */
    ir_ins *scratch;
    uint32_t nscratch, cap_scratch;
} parser;

/* ---------------------------------------------------------------- small helpers */

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) abort();
    return q;
}

static void ensure_u32(uint32_t **arr, uint32_t *cap, uint32_t need) {
    if (need <= *cap) return;
    uint32_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    *arr = xrealloc(*arr, c * sizeof **arr);
    memset(*arr + *cap, 0, (c - *cap) * sizeof **arr);
    *cap = c;
}

static void next(parser *p) {
    if (p->has_ahead) {
        p->tok = p->ahead;
        p->has_ahead = false;
    } else {
        p->tok = lex_next(&p->lx);
    }
    if (p->tok.kind == TK_ERROR) {
        diag_error(p->d, p->tok.line, p->tok.col, "%.*s", (int)p->tok.len, p->tok.text);
        p->stmt_error = true;
        p->tok = lex_next(&p->lx); /* skip the bad token; the statement will most likely fail later */
        if (p->tok.kind == TK_ERROR) next(p);
    }
}

static token *peek(parser *p) {
    if (!p->has_ahead) {
        p->ahead = lex_next(&p->lx);
        p->has_ahead = true;
    }
    return &p->ahead;
}

static bool is_punct(const token *t, int c) { return t->kind == TK_PUNCT && t->punct == c; }
static bool is_dot(const token *t, const char *w) {
    return t->kind == TK_DOTWORD && t->len == strlen(w) && memcmp(t->text, w, t->len) == 0;
}
static bool is_ident(const token *t, const char *w) {
    return t->kind == TK_IDENT && t->len == strlen(w) && memcmp(t->text, w, t->len) == 0;
}

static void err(parser *p, const token *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err(parser *p, const token *t, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    diag_error(p->d, t->line, t->col, "%s", buf);
    p->stmt_error = true;
}

static const char *tok_desc(const token *t, char *buf, size_t n) {
    switch (t->kind) {
    case TK_EOF: return "end of file";
    case TK_DOTWORD: snprintf(buf, n, "'.%.*s'", (int)(t->len > 40 ? 40 : t->len), t->text); return buf;
    case TK_STRING: return "string";
    default: snprintf(buf, n, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->text); return buf;
    }
}

static bool expect_punct(parser *p, int c, const char *what) {
    if (is_punct(&p->tok, c)) {
        next(p);
        return true;
    }
    char b[64];
    err(p, &p->tok, "expected '%c' %s, found %s", c, what, tok_desc(&p->tok, b, sizeof b));
    return false;
}

/* Skips to the end of the statement: past the next `;`, or up to a `}` / EOF. */
static void sync_stmt(parser *p) {
    while (p->tok.kind != TK_EOF && !is_punct(&p->tok, ';') && !is_punct(&p->tok, '}')) {
        if (is_punct(&p->tok, '{')) { /* skip a nested initializer or vector as a whole */
            int depth = 0;
            do {
                if (is_punct(&p->tok, '{')) depth++;
                if (is_punct(&p->tok, '}')) depth--;
                next(p);
            } while (depth > 0 && p->tok.kind != TK_EOF);
            continue;
        }
        next(p);
    }
    if (is_punct(&p->tok, ';')) next(p);
}

static uint32_t intern_tok(parser *p, const token *t) { return ir_intern(p->m, t->text, t->len); }

/* ---------------------------------------------------------------- symbol tables */

static uint32_t msym_get(parser *p, uint32_t name, sym_kind *kind) {
    if (name >= p->cap_msym || !p->msym[name]) { *kind = SYM_NONE; return 0; }
    uint32_t v = p->msym[name] - 1;
    *kind = (sym_kind)(v >> 28);
    return v & 0x0fffffffu;
}
static void msym_set(parser *p, uint32_t name, sym_kind kind, uint32_t id) {
    ensure_u32(&p->msym, &p->cap_msym, name + 1);
    p->msym[name] = ((uint32_t)kind << 28 | id) + 1;
}

static fsym *fsym_get(parser *p, uint32_t name) {
    if (name >= p->cap_fhead || !p->fhead[name]) return NULL;
    return &p->fsyms[p->fhead[name] - 1];
}

/* Declares a function-scope name. Returns false if the same scope already declares it. */
static bool fsym_declare(parser *p, uint32_t name, sym_kind kind, uint32_t id) {
    ensure_u32(&p->fhead, &p->cap_fhead, name + 1);
    uint32_t scope_start = p->nscopes ? p->scope_marks[p->nscopes - 1] : 0;
    if (p->fhead[name] && p->fhead[name] - 1 >= scope_start) return false;
    if (p->nfsyms + 1 > p->cap_fsyms) {
        p->cap_fsyms = p->cap_fsyms ? p->cap_fsyms * 2 : 256;
        p->fsyms = xrealloc(p->fsyms, p->cap_fsyms * sizeof *p->fsyms);
    }
    p->fsyms[p->nfsyms] = (fsym){(uint8_t)kind, id, name, p->fhead[name]};
    p->fhead[name] = ++p->nfsyms;
    return true;
}

static void scope_push(parser *p) {
    ensure_u32(&p->scope_marks, &p->cap_scopes, p->nscopes + 1);
    p->scope_marks[p->nscopes++] = p->nfsyms;
}

static void scope_pop(parser *p) {
    uint32_t mark = p->nscopes ? p->scope_marks[--p->nscopes] : 0;
    while (p->nfsyms > mark) {
        fsym *s = &p->fsyms[--p->nfsyms];
        p->fhead[s->name] = s->prev;
    }
}

static uint32_t label_get(parser *p, uint32_t name, const token *at) {
    ensure_u32(&p->flabel, &p->cap_flabel, name + 1);
    if (p->flabel[name]) return p->flabel[name] - 1;
    uint32_t id = ir_add_label(p->f, name, at->line, at->col);
    p->flabel[name] = id + 1;
    ensure_u32(&p->touched_labels, &p->cap_touched, p->ntouched + 1);
    p->touched_labels[p->ntouched++] = name;
    return id;
}

/* ---------------------------------------------------------------- constant expressions */

static bool parse_expr(parser *p, int64_t *out, int prec);

static bool parse_primary(parser *p, int64_t *out) {
    token t = p->tok;
    if (t.kind == TK_INT) { *out = (int64_t)t.u; next(p); return true; }
    if (is_ident(&t, "WARP_SZ")) { *out = 32; next(p); return true; }
    if (is_punct(&t, '(')) {
        next(p);
        if (!parse_expr(p, out, 0)) return false;
        return expect_punct(p, ')', "to close the expression");
    }
    if (is_punct(&t, '-') || is_punct(&t, '~') || is_punct(&t, '!') || is_punct(&t, '+')) {
        next(p);
        int64_t v;
        if (!parse_primary(p, &v)) return false;
        *out = t.punct == '-' ? (int64_t)(0 - (uint64_t)v) : t.punct == '~' ? ~v : t.punct == '!' ? !v : v;
        return true;
    }
    char b[64];
    err(p, &t, "expected an integer constant, found %s", tok_desc(&t, b, sizeof b));
    return false;
}

static int binop_prec(const token *t) {
    if (t->kind != TK_PUNCT) return -1;
    switch (t->punct) {
    case '*': case '/': case '%': return 10;
    case '+': case '-': return 9;
    case PUNCT2('<', '<'): case PUNCT2('>', '>'): return 8;
    case '<': case '>': case PUNCT2('<', '='): case PUNCT2('>', '='): return 7;
    case PUNCT2('=', '='): case PUNCT2('!', '='): return 6;
    case '&': return 5;
    case '^': return 4;
    case '|': return 3;
    case PUNCT2('&', '&'): return 2;
    case PUNCT2('|', '|'): return 1;
    default: return -1;
    }
}

/* Precedence climbing over C's integer operators (PTX constant expressions use C semantics on 64 bits). */
static bool parse_expr(parser *p, int64_t *out, int min_prec) {
    int64_t lhs;
    if (!parse_primary(p, &lhs)) return false;
    for (;;) {
        int prec = binop_prec(&p->tok);
        if (prec < 0 || prec < min_prec) break;
        token op = p->tok;
        next(p);
        int64_t rhs;
        if (!parse_expr(p, &rhs, prec + 1)) return false;
        uint64_t a = (uint64_t)lhs, b = (uint64_t)rhs;
        switch (op.punct) {
        case '*': lhs = (int64_t)(a * b); break;
        case '/': case '%':
            if (rhs == 0) { err(p, &op, "division by zero in constant expression"); return false; }
            if (lhs == INT64_MIN && rhs == -1) lhs = op.punct == '/' ? INT64_MIN : 0;
            else lhs = op.punct == '/' ? lhs / rhs : lhs % rhs;
            break;
        case '+': lhs = (int64_t)(a + b); break;
        case '-': lhs = (int64_t)(a - b); break;
        case PUNCT2('<', '<'): lhs = b >= 64 ? 0 : (int64_t)(a << b); break;
        case PUNCT2('>', '>'): lhs = b >= 64 ? (lhs < 0 ? -1 : 0) : lhs >> b; break;
        case '<': lhs = lhs < rhs; break;
        case '>': lhs = lhs > rhs; break;
        case PUNCT2('<', '='): lhs = lhs <= rhs; break;
        case PUNCT2('>', '='): lhs = lhs >= rhs; break;
        case PUNCT2('=', '='): lhs = lhs == rhs; break;
        case PUNCT2('!', '='): lhs = lhs != rhs; break;
        case '&': lhs = (int64_t)(a & b); break;
        case '^': lhs = (int64_t)(a ^ b); break;
        case '|': lhs = (int64_t)(a | b); break;
        case PUNCT2('&', '&'): lhs = lhs && rhs; break;
        case PUNCT2('|', '|'): lhs = lhs || rhs; break;
        }
    }
    if (min_prec == 0 && is_punct(&p->tok, '?')) { /* c ? a : b */
        next(p);
        int64_t a, b;
        if (!parse_expr(p, &a, 0) || !expect_punct(p, ':', "in a conditional expression") || !parse_expr(p, &b, 0))
            return false;
        lhs = lhs ? a : b;
    }
    *out = lhs;
    return true;
}

static bool parse_uint(parser *p, uint64_t *out, const char *what) {
    int64_t v;
    token at = p->tok;
    if (!parse_expr(p, &v, 0)) return false;
    if (v < 0) { err(p, &at, "%s must not be negative", what); return false; }
    *out = (uint64_t)v;
    return true;
}

/* ---------------------------------------------------------------- operands */

static bool resolve_name(parser *p, const token *t, ir_operand *o, bool want_label) {
    uint32_t name = ir_lookup_string(p->m, t->text, t->len);
    if (want_label) {
        if (name == UINT32_MAX) name = intern_tok(p, t);
        o->kind = IR_OPND_LABEL;
        o->id = label_get(p, name, t);
        return true;
    }
    if (name != UINT32_MAX) {
        fsym *s = p->f ? fsym_get(p, name) : NULL;
        if (s && (s->kind == SYM_REG || s->kind == SYM_REGRANGE)) {
            if (s->kind == SYM_REGRANGE) {
                err(p, t, "'%.*s' names a register range; use an element such as '%.*s0'", (int)t->len, t->text,
                    (int)t->len, t->text);
                return false;
            }
            o->kind = IR_OPND_REG;
            o->id = s->id;
            return true;
        }
        if (s && s->kind == SYM_VAR) { o->kind = IR_OPND_VAR; o->id = s->id; return true; }
        sym_kind k;
        uint32_t id = msym_get(p, name, &k);
        if (k == SYM_VAR) { o->kind = IR_OPND_VAR; o->id = id; return true; }
        if (k == SYM_FUNC) { o->kind = IR_OPND_FUNC; o->id = id; return true; }
    }
    /* %r57: element 57 of a parameterized declaration %r<N> */
    size_t digits = 0;
    while (digits < t->len && t->text[t->len - 1 - digits] >= '0' && t->text[t->len - 1 - digits] <= '9') digits++;
    if (p->f && digits && digits < t->len && digits <= 9 && !(digits > 1 && t->text[t->len - digits] == '0')) {
        uint32_t prefix = ir_lookup_string(p->m, t->text, t->len - digits);
        fsym *s = prefix != UINT32_MAX ? fsym_get(p, prefix) : NULL;
        if (s && s->kind == SYM_REGRANGE) {
            uint32_t idx = (uint32_t)strtoul(t->text + t->len - digits, NULL, 10);
            /* an inner `{ .reg .b32 %r<4>; }` shadows %r0..%r3 only: %r99 is still the outer %r<100>'s */
            const fsym *in = s;
            while (s && (s->kind != SYM_REGRANGE || idx >= p->f->regdecls[s->id].count))
                s = s->prev ? &p->fsyms[s->prev - 1] : NULL;
            if (!s) {
                const ir_regdecl *rd = &p->f->regdecls[in->id];
                err(p, t, "register '%.*s' is outside its declaration %s<%u>", (int)t->len, t->text,
                    ir_str(p->m, rd->name), rd->count);
                return false;
            }
            const ir_regdecl *rd = &p->f->regdecls[s->id];
            o->kind = IR_OPND_REG;
            o->id = rd->first_reg + idx * (rd->vec ? rd->vec : 1);
            return true;
        }
    }
    if (t->text[0] == '%') {
        uint16_t index;
        ir_sreg sr = ir_lookup_sreg(t->text, t->len, &index);
        if (sr != IR_SR_NONE) {
            o->kind = IR_OPND_SREG;
            o->id = sr;
            o->aux = index;
            return true;
        }
    }
    err(p, t, "use of undeclared identifier '%.*s'", (int)t->len, t->text);
    return false;
}

static bool parse_operand(parser *p, ir_operand *o, bool want_label);

/* Elements of {a, b} / (a, b) / [a, b, {c}] up to the closing punctuation. */
static bool parse_list(parser *p, ir_operand *o, ir_opnd_kind kind, int close, bool labels) {
    ir_operand tmp[64];
    unsigned n = 0;
    token open = p->tok;
    memset(o, 0, sizeof *o);
    next(p);
    if (!is_punct(&p->tok, close)) {
        for (;;) {
            if (n == 64) { err(p, &open, "too many elements in a list (at most 64)"); return false; }
            if (!parse_operand(p, &tmp[n], labels)) return false;
            if (tmp[n].kind == IR_OPND_REG && is_punct(&p->tok, '+')) { /* ptxas refuses it here too */
                err(p, &p->tok, "a register plus a constant is not accepted inside '%c%c'", open.text[0], close);
                while (p->tok.kind != TK_EOF && !is_punct(&p->tok, close) && !is_punct(&p->tok, ';')) next(p);
                if (is_punct(&p->tok, close)) next(p); /* resynchronise after the list, not inside it */
                return false;
            }
            n++;
            if (is_punct(&p->tok, '|') && n < 64) { /* a predicate appended to a texture result */
                next(p);
                if (!parse_operand(p, &tmp[n], false)) return false;
                tmp[n++].flags |= IR_OPNDF_PIPE;
            }
            if (is_punct(&p->tok, ',')) { next(p); continue; }
            break;
        }
    }
    char b[64];
    if (!is_punct(&p->tok, close)) {
        err(p, &p->tok, "expected ',' or '%c' in list, found %s", close, tok_desc(&p->tok, b, sizeof b));
        return false;
    }
    next(p);
    ir_operand *e = ir_alloc_operands(p->m, n);
    memcpy(e, tmp, n * sizeof *e);
    o->kind = (uint8_t)kind;
    ir_set_elems(o, e, n);
    return true;
}

/* [reg], [reg+imm], [var], [var+imm], [imm], or the texture form [tex, sampler, {coords}] */
static bool parse_address(parser *p, ir_operand *o) {
    token open = p->tok;
    next(p);
    ir_operand base;
    memset(&base, 0, sizeof base);
    if (p->tok.kind == TK_IDENT) {
        if (!parse_operand(p, &base, false)) return false;
    } else {
        int64_t v;
        if (!parse_expr(p, &v, 0)) return false;
        base.kind = IR_OPND_IMM;
        base.val = v;
    }
    if (is_punct(&p->tok, ',')) { /* texture / surface operand list */
        ir_operand tmp[8];
        unsigned n = 0;
        tmp[n++] = base;
        while (is_punct(&p->tok, ',')) {
            next(p);
            if (n == 8) { err(p, &open, "too many elements in a texture operand"); return false; }
            if (!parse_operand(p, &tmp[n++], false)) return false;
        }
        if (!expect_punct(p, ']', "to close the texture operand")) return false;
        ir_operand *e = ir_alloc_operands(p->m, n);
        memcpy(e, tmp, n * sizeof *e);
        o->kind = IR_OPND_TEXARGS;
        ir_set_elems(o, e, n);
        return true;
    }
    int64_t off = 0;
    if (base.kind == IR_OPND_VAR) off = base.val; /* [sym+4] already folded by parse_operand */
    if (is_punct(&p->tok, '+') || is_punct(&p->tok, '-')) {
        bool neg = p->tok.punct == '-';
        next(p);
        int64_t v;
        if (!parse_expr(p, &v, 9 + 1)) return false; /* multiplicative precedence and tighter */
        off += neg ? -v : v;
        while (is_punct(&p->tok, '+') || is_punct(&p->tok, '-')) {
            neg = p->tok.punct == '-';
            next(p);
            if (!parse_expr(p, &v, 10)) return false;
            off += neg ? -v : v;
        }
    }
    if (!expect_punct(p, ']', "to close the address")) return false;
    memset(o, 0, sizeof *o);
    o->kind = IR_OPND_ADDR;
    o->val = off;
    switch (base.kind) {
    case IR_OPND_REG: o->flags = IR_OPNDF_BASE_REG; o->id = base.id; break;
    case IR_OPND_VAR: o->flags = IR_OPNDF_BASE_VAR; o->id = base.id; break;
    case IR_OPND_FUNC: o->flags = IR_OPNDF_BASE_FUNC; o->id = base.id; break;
    case IR_OPND_IMM: o->flags = IR_OPNDF_ABS_ADDR; o->val = base.val + (off - 0); break;
    default:
        err(p, &open, "an address must be a register, a variable or a constant");
        return false;
    }
    if (base.kind == IR_OPND_IMM) o->val = base.val + off;
    return true;
}

/* a video byte/half selector or SIMD mask after a register (%r1.b0, %r2.h10, %r3.b7654): kept in o->val */
static void reg_selector(parser *p, ir_operand *o) {
    bool ok;
    int64_t sel = ir_sel_pack(p->tok.text, p->tok.len, &ok);
    if (ok) {
        o->val = sel;
        next(p);
    }
}

/* After a register that names a vector register (`.reg .v4 .f32 %v;`), o->id is its .x component. `%v.y`
 * (or `.r .g .b .a`) selects a component, which is a register of its own; the whole register stands for the
 * brace list of its components ({%v.x, %v.y, ...}), the form every vector operand already has in the IR. */
static bool vector_reg_operand(parser *p, ir_operand *o) {
    if (o->kind != IR_OPND_REG || !p->f) return true;
    const ir_regdecl *rd = &p->f->regdecls[p->f->regs[o->id].decl];
    if (!rd->vec) return true;
    if (p->tok.kind == TK_DOTWORD && p->tok.len == 1) {
        static const char comps[] = "xyzwrgba";
        const char *c = strchr(comps, p->tok.text[0]);
        if (c) {
            unsigned k = (unsigned)(c - comps) & 3u;
            if (k >= rd->vec) { /* ptxas takes %v.z of a .v2 register without complaint; its meaning is unknown */
                err(p, &p->tok, "vector register '%s' is a .v%u: it has no component '.%c'", ir_str(p->m, rd->name),
                    rd->vec, *c);
                return false;
            }
            o->id += k;
            next(p);
            return true;
        }
    }
    if (o->flags) {
        err(p, &p->tok, "a whole vector register cannot be negated; select a component such as '.x'");
        return false;
    }
    ir_operand *e = ir_alloc_operands(p->m, rd->vec);
    for (unsigned k = 0; k < rd->vec; k++) e[k] = (ir_operand){.kind = IR_OPND_REG, .id = o->id + k};
    memset(o, 0, sizeof *o);
    o->kind = IR_OPND_VEC;
    ir_set_elems(o, e, rd->vec);
    return true;
}

static bool parse_operand(parser *p, ir_operand *o, bool want_label) {
    memset(o, 0, sizeof *o);
    token t = p->tok;
    char b[64];
    switch (t.kind) {
    case TK_IDENT: {
        if (t.len == 1 && t.text[0] == '_') { next(p); o->kind = IR_OPND_SINK; return true; }
        if (is_ident(&t, "WARP_SZ")) break; /* constant expression */
        next(p);
        if (!resolve_name(p, &t, o, want_label)) return false;
        if (!vector_reg_operand(p, o)) return false;
        /* component / selector: %tid.x, %r1.b0, %v.x.b0 */
        if (p->tok.kind == TK_DOTWORD && (o->kind == IR_OPND_SREG || o->kind == IR_OPND_REG)) {
            token w = p->tok;
            if (o->kind == IR_OPND_SREG) {
                static const char comps[] = "xyzw";
                if (w.len == 1 && strchr(comps, w.text[0])) {
                    o->aux = (uint16_t)(strchr(comps, w.text[0]) - comps + 1);
                    next(p);
                }
            } else {
                reg_selector(p, o);
            }
        }
        if (o->kind == IR_OPND_VAR && (is_punct(&p->tok, '+') || is_punct(&p->tok, '-')) &&
            (peek(p)->kind == TK_INT || is_punct(peek(p), '('))) {
            bool neg = p->tok.punct == '-';
            next(p);
            int64_t v;
            if (!parse_expr(p, &v, 10)) return false;
            o->val = neg ? -v : v;
        }
        return true;
    }
    case TK_F32: o->kind = IR_OPND_F32; o->val = (int64_t)t.u; next(p); return true;
    case TK_F64: o->kind = IR_OPND_F64; o->val = (int64_t)t.u; next(p); return true;
    case TK_PUNCT:
        if (t.punct == '{') return parse_list(p, o, IR_OPND_VEC, '}', false);
        if (t.punct == '[') return parse_address(p, o);
        if (t.punct == '!') {
            next(p);
            if (p->tok.kind != TK_IDENT) { err(p, &p->tok, "expected a predicate after '!'"); return false; }
            token r = p->tok;
            next(p);
            if (!resolve_name(p, &r, o, false)) return false;
            o->flags |= IR_OPNDF_NOT;
            return vector_reg_operand(p, o);
        }
        if (t.punct == '-' && peek(p)->kind == TK_IDENT && !is_ident(peek(p), "WARP_SZ")) {
            next(p);
            token r = p->tok;
            next(p);
            if (!resolve_name(p, &r, o, false)) return false;
            o->flags |= IR_OPNDF_NEG;
            if (!vector_reg_operand(p, o)) return false;
            if (o->kind == IR_OPND_REG && p->tok.kind == TK_DOTWORD) reg_selector(p, o); /* vmad -%r.b1 */
            return true;
        }
        if (t.punct == '-' && (peek(p)->kind == TK_F32 || peek(p)->kind == TK_F64)) {
            next(p);
            o->kind = p->tok.kind == TK_F32 ? IR_OPND_F32 : IR_OPND_F64;
            o->val = (int64_t)(p->tok.u ^ (p->tok.kind == TK_F32 ? 0x80000000ull : 0x8000000000000000ull));
            next(p);
            return true;
        }
        break;
    case TK_INT: break;
    default:
        err(p, &t, "expected an operand, found %s", tok_desc(&t, b, sizeof b));
        return false;
    }
    int64_t v;
    bool uns = t.kind == TK_INT && t.is_unsigned;
    if (!parse_expr(p, &v, 0)) return false;
    o->kind = IR_OPND_IMM;
    o->val = v;
    if (uns) o->flags |= IR_OPNDF_UNSIGNED;
    return true;
}

/* ---------------------------------------------------------------- instructions */

static bool parse_shape(const char *s, size_t len, uint32_t *shape) {
    /* m<digits>n<digits>[k<digits>] */
    unsigned v[3] = {0, 0, 0};
    const char keys[3] = {'m', 'n', 'k'};
    size_t i = 0;
    for (int part = 0; part < 3; part++) {
        if (i >= len) { if (part == 2) break; return false; }
        if (s[i] != keys[part]) return false;
        i++;
        size_t start = i;
        while (i < len && s[i] >= '0' && s[i] <= '9') v[part] = v[part] * 10 + (unsigned)(s[i++] - '0');
        if (i == start || v[part] == 0 || v[part] > 1023) return false;
    }
    if (i != len) return false;
    *shape = v[0] | v[1] << 10 | v[2] << 20;
    return true;
}

/* Moves the collected instructions into the open block and closes it. */
static void flush_block(parser *p) {
    if (p->blk && p->nscratch) {
        ir_block *b = p->blk;
        b->ins = malloc(p->nscratch * sizeof *b->ins);
        if (!b->ins) abort();
        memcpy(b->ins, p->scratch, p->nscratch * sizeof *b->ins);
        b->n = b->cap = p->nscratch;
    }
    p->nscratch = 0;
    p->blk = NULL;
}

static void append_ins(parser *p, const ir_ins *ins) {
    if (!p->blk) p->blk = ir_add_block(p->f, 0);
    if (p->nscratch == p->cap_scratch) {
        p->cap_scratch = p->cap_scratch ? p->cap_scratch * 2 : 256;
        p->scratch = xrealloc(p->scratch, p->cap_scratch * sizeof *p->scratch);
    }
    p->scratch[p->nscratch++] = *ins;
    if (ir_opcodes[ins->op].flags & IR_OPF_TERMINATOR) flush_block(p);
}

/* A declaration pseudo-instruction (declarations stay where they were written, docs/architecture.md): op
 * IR_OP_DECL_REG with the register declaration's index, or IR_OP_DECL_VAR with the variable's id. */
static void append_decl(parser *p, ir_opcode op, uint32_t line, ir_opnd_kind kind, uint32_t id) {
    ir_ins ins;
    memset(&ins, 0, sizeof ins);
    ins.op = op;
    ins.line = line;
    ins.nops = 1;
    ins.ops = ir_alloc_operands(p->m, 1);
    ins.ops[0].kind = kind;
    ins.ops[0].id = id;
    append_ins(p, &ins);
}

static void parse_call_operands(parser *p, ir_ins *ins, ir_operand *ops, unsigned *nops) {
    /* call (ret), target, (args), proto;   call target, (args);   call (ret), target;   call target; */
    if (is_punct(&p->tok, '(')) {
        if (!parse_list(p, &ops[(*nops)++], IR_OPND_LIST, ')', false)) return;
        if (!expect_punct(p, ',', "after the call's return list")) return;
    }
    if (p->tok.kind != TK_IDENT) {
        char b[64];
        err(p, &p->tok, "expected the called function, found %s", tok_desc(&p->tok, b, sizeof b));
        return;
    }
    if (!parse_operand(p, &ops[(*nops)++], false)) return;
    if (is_punct(&p->tok, ',')) {
        next(p);
        if (is_punct(&p->tok, '(')) {
            if (!parse_list(p, &ops[(*nops)++], IR_OPND_LIST, ')', false)) return;
        } else {
            if (!parse_operand(p, &ops[(*nops)++], true)) return;
            return;
        }
    }
    if (is_punct(&p->tok, ',')) { /* prototype or .calltargets label of an indirect call */
        next(p);
        parse_operand(p, &ops[(*nops)++], true);
    }
    (void)ins;
}

/* `%r + 4` as a source operand (ptxas accepts a register plus a constant in any source position, not inside
 * braces): the value of the register plus the constant, in the register's width. The front end lowers it on
 * the spot to `add.sN %__p2n_ro<k>, %r, 4;` into a fresh register declared just before the instruction, so
 * nothing after the parser sees a new operand form and the printed IR is plain PTX that re-parses to itself.
 * Destinations and non-integer registers are refused (ptxas wants a result register; it crashes on a float
 * register plus a constant). */
static bool reg_plus_imm(parser *p, ir_operand *o, bool is_dest, const token *head) {
    token plus = p->tok;
    ir_type ty = ir_reg_type(p->f, o->id);
    unsigned bits = ir_type_bits[ty];
    const char *tn = ir_type_names[ty];
    if (is_dest) {
        err(p, &plus, "a register plus a constant cannot be the destination of '%.*s'", (int)head->len, head->text);
        return false;
    }
    if (o->val || o->flags || !((tn[0] == 'b' || tn[0] == 'u' || tn[0] == 's') && tn[1] >= '1' && tn[1] <= '9') || (bits != 16 && bits != 32 && bits != 64)) {
        err(p, &plus, "a register plus a constant needs a 16-, 32- or 64-bit integer register without selector");
        return false;
    }
    next(p);
    int64_t v;
    if (!parse_expr(p, &v, 0)) return false;
    char name[40];
    uint32_t nm;
    do {
        int l = snprintf(name, sizeof name, "%%__p2n_ro%u", p->n_reg_imm++);
        nm = ir_intern(p->m, name, (size_t)l);
    } while (fsym_get(p, nm));
    ir_regdecl rd;
    memset(&rd, 0, sizeof rd);
    rd.name = nm;
    rd.type = (uint8_t)ty;
    uint32_t di = ir_add_regdecl(p->f, &rd);
    uint32_t tmp = p->f->regdecls[di].first_reg;
    fsym_declare(p, nm, SYM_REG, tmp);
    append_decl(p, IR_OP_DECL_REG, plus.line, IR_OPND_IMM, di);
    ir_ins ins;
    memset(&ins, 0, sizeof ins);
    ins.op = IR_OP_ADD;
    ins.line = plus.line;
    ins.col = (uint16_t)(plus.col > 65535 ? 65535 : plus.col);
    ins.nwords = 1;
    ins.words[0] = IR_WORD(IR_W_TYPE, bits == 16 ? IR_T_S16 : bits == 32 ? IR_T_S32 : IR_T_S64);
    ins.nops = 3;
    ins.ops = ir_alloc_operands(p->m, 3);
    ins.ops[0] = (ir_operand){.kind = IR_OPND_REG, .id = tmp};
    ins.ops[1] = *o;
    ins.ops[2] = (ir_operand){.kind = IR_OPND_IMM, .val = v};
    append_ins(p, &ins);
    o->id = tmp;
    return true;
}

static void parse_instruction(parser *p, uint32_t guard, uint8_t guard_neg) {
    token head = p->tok;
    next(p);
    /* gather the dotted words */
    token words[32];
    unsigned nw = 0;
    while (p->tok.kind == TK_DOTWORD) {
        if (nw == 32) { err(p, &p->tok, "too many modifiers"); sync_stmt(p); return; }
        words[nw++] = p->tok;
        next(p);
    }
    /* longest opcode spelling that prefixes head.words... */
    char name[256];
    size_t nl = head.len < sizeof name ? head.len : sizeof name - 1;
    memcpy(name, head.text, nl);
    ir_opcode op = ir_lookup_opcode(name, nl);
    unsigned used = 0;
    bool prefix = ir_is_opcode_prefix(name, nl);
    for (unsigned k = 0; k < nw && prefix; k++) {
        if (nl + 1 + words[k].len >= sizeof name) break;
        name[nl++] = '.';
        memcpy(name + nl, words[k].text, words[k].len);
        nl += words[k].len;
        ir_opcode o2 = ir_lookup_opcode(name, nl);
        if (o2) { op = o2; used = k + 1; }
        prefix = ir_is_opcode_prefix(name, nl);
    }
    if (!op) {
        err(p, &head, "unknown instruction '%.*s'", (int)head.len, head.text);
        sync_stmt(p);
        return;
    }
    ir_ins ins;
    memset(&ins, 0, sizeof ins);
    ins.op = (uint16_t)op;
    ins.guard = guard;
    ins.guard_neg = guard_neg;
    ins.line = head.line;
    ins.col = (uint16_t)(head.col > 65535 ? 65535 : head.col);
    for (unsigned k = used; k < nw; k++) {
        ir_word_info wi;
        if (ins.nwords == IR_MAX_WORDS) {
            err(p, &words[k], "too many modifiers on '%s' (at most %d)", ir_opcodes[op].name, IR_MAX_WORDS);
            break;
        }
        if (ir_lookup_word(words[k].text, words[k].len, &wi)) {
            ins.words[ins.nwords++] = IR_WORD(wi.kind, wi.id);
        } else if (!ins.shape && parse_shape(words[k].text, words[k].len, &ins.shape)) {
            ins.words[ins.nwords++] = IR_WORD(IR_W_SHAPE, 0);
        } else {
            err(p, &words[k], "unknown modifier '.%.*s' on instruction '%s'", (int)words[k].len, words[k].text,
                ir_opcodes[op].name);
        }
    }
    ir_operand ops[16];
    memset(ops, 0, sizeof ops);
    unsigned nops = 0;
    const ir_opcode_info *info = &ir_opcodes[op];
    if (op == IR_OP_CALL) {
        parse_call_operands(p, &ins, ops, &nops);
    } else if (!is_punct(&p->tok, ';')) {
        for (;;) {
            if (nops == 16) { err(p, &p->tok, "too many operands"); break; }
            bool want_label = (info->flags & IR_OPF_BRANCH) && (op == IR_OP_BRA || nops == 1);
            if (!parse_operand(p, &ops[nops], want_label)) break;
            if (ops[nops].kind == IR_OPND_REG && is_punct(&p->tok, '+') &&
                !reg_plus_imm(p, &ops[nops], nops == 0 && op != IR_OP_BAR && op != IR_OP_BARRIER, &head))
                break;
            nops++;
            if (is_punct(&p->tok, '|')) {
                next(p);
                if (nops == 16 || !parse_operand(p, &ops[nops], false)) break;
                ops[nops++].flags |= IR_OPNDF_PIPE;
            }
            if (!is_punct(&p->tok, ',')) break;
            next(p);
        }
    }
    /* byte/half selectors (%r1.b0, %r2.h1) belong to the video instructions: elsewhere `%r.x` of a scalar
     * register is a mistake ptxas refuses ("unknown video selector"), never something to compile */
    if (!p->stmt_error && (ir_opcodes[op].name[0] != 'v' || op == IR_OP_VOTE)) {
        for (unsigned i = 0; i < nops; i++) {
            if (ops[i].kind != IR_OPND_REG || !ops[i].val) continue;
            char sel[16], rn[64];
            ir_sel_format(ops[i].val, sel, sizeof sel);
            ir_reg_name(p->m, p->f, ops[i].id, rn, sizeof rn);
            err(p, &head, "selector '%s' on register '%s' of '%s': only video instructions take selectors, and "
                "only vector registers have components", sel, rn, info->name);
            break;
        }
    }
    if (p->stmt_error) { sync_stmt(p); return; }
    if (!is_punct(&p->tok, ';')) {
        char b[64];
        err(p, &p->tok, "expected ';' after '%s' instruction, found %s", info->name, tok_desc(&p->tok, b, sizeof b));
        sync_stmt(p);
        return;
    }
    next(p);
    unsigned counted = 0;
    for (unsigned i = 0; i < nops; i++) counted += !(ops[i].flags & IR_OPNDF_PIPE);
    if (counted < info->min_ops || counted > info->max_ops) {
        if (info->min_ops == info->max_ops)
            err(p, &head, "'%s' takes %u operand%s, found %u", info->name, info->min_ops, info->min_ops == 1 ? "" : "s",
                counted);
        else
            err(p, &head, "'%s' takes %u to %u operands, found %u", info->name, info->min_ops, info->max_ops, counted);
        return;
    }
    ins.nops = (uint8_t)nops;
    ins.ops = ir_alloc_operands(p->m, nops);
    memcpy(ins.ops, ops, nops * sizeof *ops);
    append_ins(p, &ins);
}

/* ---------------------------------------------------------------- declarations */

typedef struct decl_head {
    ir_linkage linkage;
    ir_space space;
    ir_type type;
    uint8_t vec;
    uint32_t align;
    uint8_t is_ptr, ptr_space;
    uint32_t ptr_align;
    uint8_t managed, unified;
    uint64_t unified_uuid[2];
    token at;
} decl_head;

static bool space_of(const token *t, ir_space *out) {
    ir_word_info wi;
    if (t->kind == TK_DOTWORD && ir_lookup_word(t->text, t->len, &wi) && wi.kind == IR_W_SPACE) {
        *out = (ir_space)wi.id;
        return true;
    }
    return false;
}

/* Parses `.align N`, `.vN`, the type and `.ptr...` attributes after a state space. */
static bool parse_decl_attrs(parser *p, decl_head *h) {
    for (;;) {
        token t = p->tok;
        if (t.kind != TK_DOTWORD) break;
        ir_word_info wi;
        ir_space ptr_space;
        if (is_dot(&t, "align")) {
            next(p);
            uint64_t a;
            if (!parse_uint(p, &a, "alignment")) return false;
            if (a == 0 || (a & (a - 1)) || a > (1u << 20)) { err(p, &t, "alignment %llu is not a power of two", (unsigned long long)a); return false; }
            if (h->is_ptr) h->ptr_align = (uint32_t)a; /* `.ptr.global.align 16` */
            else h->align = (uint32_t)a;
        } else if (is_dot(&t, "v2") || is_dot(&t, "v4") || is_dot(&t, "v8")) {
            h->vec = (uint8_t)(t.text[1] - '0');
            next(p);
        } else if (is_dot(&t, "attribute")) { /* .attribute(.managed) / .attribute(.unified(a, b)) */
            next(p);
            if (!expect_punct(p, '(', "after .attribute")) return false;
            for (;;) {
                if (is_dot(&p->tok, "managed")) { h->managed = 1; next(p); }
                else if (is_dot(&p->tok, "unified")) {
                    next(p);
                    if (!expect_punct(p, '(', "after .unified") || !parse_uint(p, &h->unified_uuid[0], "uuid") ||
                        !expect_punct(p, ',', "between the .unified uuids") || !parse_uint(p, &h->unified_uuid[1], "uuid") ||
                        !expect_punct(p, ')', "after the .unified uuids"))
                        return false;
                    h->unified = 1;
                } else {
                    char b[64];
                    err(p, &p->tok, "unknown variable attribute %s", tok_desc(&p->tok, b, sizeof b));
                    return false;
                }
                if (!is_punct(&p->tok, ',')) break;
                next(p);
            }
            if (!expect_punct(p, ')', "to close .attribute(")) return false;
            continue;
        } else if (is_dot(&t, "ptr")) {
            h->is_ptr = 1;
            next(p);
        } else if (h->is_ptr && space_of(&t, &ptr_space)) {
            h->ptr_space = (uint8_t)ptr_space;
            next(p);
        } else if (ir_lookup_word(t.text, t.len, &wi) && wi.kind == IR_W_TYPE) {
            if (h->type) { err(p, &t, "a declaration has one type"); return false; }
            h->type = (ir_type)wi.id;
            next(p);
        } else {
            break;
        }
    }
    if (!h->type) {
        char b[64];
        err(p, &p->tok, "expected a type in declaration, found %s", tok_desc(&p->tok, b, sizeof b));
        return false;
    }
    return true;
}

static bool parse_init_elem(parser *p, ir_init *out) {
    memset(out, 0, sizeof *out);
    token t = p->tok;
    if (t.kind == TK_F32) { out->kind = IR_INIT_F32; out->val = (int64_t)t.u; next(p); return true; }
    if (t.kind == TK_F64) { out->kind = IR_INIT_F64; out->val = (int64_t)t.u; next(p); return true; }
    if (is_punct(&t, '-') && (peek(p)->kind == TK_F32 || peek(p)->kind == TK_F64)) {
        next(p);
        bool f32 = p->tok.kind == TK_F32;
        out->kind = f32 ? IR_INIT_F32 : IR_INIT_F64;
        out->val = (int64_t)(p->tok.u ^ (f32 ? 0x80000000ull : 0x8000000000000000ull));
        next(p);
        return true;
    }
    if (t.kind == TK_IDENT && !is_ident(&t, "WARP_SZ")) {
        bool generic = is_ident(&t, "generic");
        if (generic) {
            next(p);
            if (!expect_punct(p, '(', "after generic")) return false;
            t = p->tok;
            if (t.kind != TK_IDENT) { err(p, &t, "expected a variable inside generic()"); return false; }
        }
        next(p);
        uint32_t name = ir_lookup_string(p->m, t.text, t.len);
        sym_kind k = SYM_NONE;
        uint32_t id = name == UINT32_MAX ? 0 : msym_get(p, name, &k);
        if (k == SYM_NONE) { err(p, &t, "initializer uses undeclared symbol '%.*s'", (int)t.len, t.text); return false; }
        out->sym = id;
        out->kind = k == SYM_FUNC ? IR_INIT_FUNC : generic ? IR_INIT_GENERIC : IR_INIT_VAR;
        if (k == SYM_FUNC && generic) { err(p, &t, "generic() takes a variable, not a function"); return false; }
        if (is_punct(&p->tok, '+') || is_punct(&p->tok, '-')) {
            bool neg = p->tok.punct == '-';
            next(p);
            int64_t v;
            if (!parse_expr(p, &v, 10)) return false;
            out->val = neg ? -v : v;
        }
        if (generic) {
            if (!expect_punct(p, ')', "to close generic(")) return false;
            if (is_punct(&p->tok, '+') || is_punct(&p->tok, '-')) { /* generic(sym)+4 */
                bool neg = p->tok.punct == '-';
                next(p);
                int64_t v;
                if (!parse_expr(p, &v, 10)) return false;
                out->val += neg ? -v : v;
            }
        }
        if (k == SYM_FUNC && out->val) { err(p, &t, "a function address cannot have an offset"); return false; }
        return true;
    }
    int64_t v;
    if (!parse_expr(p, &v, 0)) return false;
    out->kind = IR_INIT_INT;
    out->val = v;
    if (is_punct(&p->tok, '(')) { /* 0xFF00(sym+off), 0xFF(generic(sym)) : bytes of an address */
        next(p);
        token t = p->tok;
        bool generic = is_ident(&t, "generic");
        if (generic) {
            next(p);
            if (!expect_punct(p, '(', "after generic")) return false;
            t = p->tok;
        }
        if (t.kind != TK_IDENT) { err(p, &t, "expected a symbol in a mask initializer"); return false; }
        next(p);
        uint32_t name = ir_lookup_string(p->m, t.text, t.len);
        sym_kind k = SYM_NONE;
        uint32_t id = name == UINT32_MAX ? 0 : msym_get(p, name, &k);
        if (k != SYM_VAR) { err(p, &t, "mask initializer needs a declared variable, '%.*s' is not one", (int)t.len, t.text); return false; }
        if (generic && !expect_punct(p, ')', "to close generic(")) return false;
        int64_t off = 0;
        while (is_punct(&p->tok, '+') || is_punct(&p->tok, '-')) {
            bool neg = p->tok.punct == '-';
            next(p);
            int64_t x;
            if (!parse_expr(p, &x, 10)) return false;
            off += neg ? -x : x;
        }
        if (!expect_punct(p, ')', "to close the mask initializer")) return false;
        out->kind = IR_INIT_MASK;
        out->mask = (uint64_t)v;
        out->sym = id;
        out->val = off;
        out->generic = generic;
    }
    return true;
}

typedef struct init_buf { ir_init *v; uint32_t n, cap; } init_buf;
static void init_push(init_buf *b, const ir_init *e) {
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->v = xrealloc(b->v, b->cap * sizeof *b->v);
    }
    b->v[b->n++] = *e;
}

static bool parse_init(parser *p, init_buf *b, int depth) {
    if (is_punct(&p->tok, '{')) {
        if (depth > IR_MAX_DIMS + 1) { err(p, &p->tok, "initializer nested too deeply"); return false; }
        next(p);
        ir_init open = {.kind = IR_INIT_OPEN};
        init_push(b, &open);
        if (!is_punct(&p->tok, '}')) {
            for (;;) {
                if (!parse_init(p, b, depth + 1)) return false;
                if (!is_punct(&p->tok, ',')) break;
                next(p);
            }
        }
        if (!expect_punct(p, '}', "to close the initializer")) return false;
        ir_init close = {.kind = IR_INIT_CLOSE};
        init_push(b, &close);
        return true;
    }
    ir_init e;
    if (!parse_init_elem(p, &e)) return false;
    init_push(b, &e);
    return true;
}

/* texref/samplerref/surfref field initialisers: { filter_mode = nearest, width = 64 } */
static bool parse_ref_init(parser *p, ir_var *v) {
    if (!expect_punct(p, '{', "to start the texture/sampler initializer")) return false;
    uint32_t tmp[64];
    uint32_t n = 0;
    while (!is_punct(&p->tok, '}')) {
        if (p->tok.kind != TK_IDENT || n + 2 > 64) { err(p, &p->tok, "expected a field name"); return false; }
        tmp[n++] = intern_tok(p, &p->tok);
        next(p);
        if (!expect_punct(p, '=', "after the field name")) return false;
        if (p->tok.kind != TK_IDENT && p->tok.kind != TK_INT) { err(p, &p->tok, "expected a field value"); return false; }
        tmp[n++] = intern_tok(p, &p->tok);
        next(p);
        if (!is_punct(&p->tok, ',')) break;
        next(p);
    }
    if (!expect_punct(p, '}', "to close the initializer")) return false;
    v->nattrs = n;
    v->attrs = ir_alloc(p->m, n * sizeof(uint32_t));
    memcpy(v->attrs, tmp, n * sizeof(uint32_t));
    return true;
}

/* The name of a declaration: reports and resynchronises when the token is not an identifier. */
static bool take_name(parser *p, const char *what, token *out) {
    if (p->tok.kind != TK_IDENT) {
        char b[64];
        err(p, &p->tok, "expected a %s, found %s", what, tok_desc(&p->tok, b, sizeof b));
        sync_stmt(p);
        return false;
    }
    *out = p->tok;
    next(p);
    return true;
}

/* `[N][M]...` or `[]` first: array dimensions of a variable or parameter. */
static bool parse_array_dims(parser *p, ir_var *v) {
    while (is_punct(&p->tok, '[')) {
        token lb = p->tok;
        next(p);
        if (v->ndims == IR_MAX_DIMS) { err(p, &lb, "too many array dimensions (at most %d)", IR_MAX_DIMS); return false; }
        if (is_punct(&p->tok, ']')) {
            if (v->ndims) { err(p, &lb, "only the first array dimension may be left empty"); return false; }
            v->unsized_first = 1;
            v->dims[v->ndims++] = 0;
        } else {
            uint64_t n;
            if (!parse_uint(p, &n, "array size")) return false;
            v->dims[v->ndims++] = n;
        }
        if (!expect_punct(p, ']', "to close the array size")) return false;
    }
    return true;
}

/* After the head: name[dims] [= init] {, name[dims] [= init]} ;   Declares each as a variable. */
static void parse_var_names(parser *p, const decl_head *h, bool in_func) {
    for (;;) {
        token nt;
        if (!take_name(p, "variable name", &nt)) return;
        ir_var v;
        memset(&v, 0, sizeof v);
        v.name = intern_tok(p, &nt);
        v.func = in_func ? (int32_t)p->fidx : -1;
        v.space = (uint8_t)h->space;
        v.linkage = (uint8_t)h->linkage;
        v.type = (uint8_t)h->type;
        v.vec = h->vec;
        v.align = h->align;
        v.managed = h->managed;
        v.unified = h->unified;
        v.unified_uuid[0] = h->unified_uuid[0];
        v.unified_uuid[1] = h->unified_uuid[1];
        v.line = nt.line;
        v.col = nt.col;
        if (!parse_array_dims(p, &v)) { sync_stmt(p); return; }
        if (is_punct(&p->tok, '=')) {
            token eq = p->tok;
            next(p);
            if (h->type == IR_T_TEXREF || h->type == IR_T_SAMPLERREF || h->type == IR_T_SURFREF) {
                if (!parse_ref_init(p, &v)) { sync_stmt(p); return; }
            } else {
                init_buf b = {0};
                if (!parse_init(p, &b, 0)) { free(b.v); sync_stmt(p); return; }
                v.ninit = b.n;
                v.init = ir_alloc(p->m, b.n * sizeof *b.v);
                memcpy(v.init, b.v, b.n * sizeof *b.v);
                free(b.v);
                if (h->space != IR_S_GLOBAL && h->space != IR_S_CONST)
                    err(p, &eq, "only .global and .const variables can have initializers");
            }
        }
        uint32_t id = ir_add_var(p->m, &v);
        if (in_func) {
            if (!fsym_declare(p, v.name, SYM_VAR, id))
                err(p, &nt, "redeclaration of '%.*s' in the same scope", (int)nt.len, nt.text);
            append_decl(p, IR_OP_DECL_VAR, nt.line, IR_OPND_VAR, id);
        } else {
            sym_kind k;
            msym_get(p, v.name, &k);
            if (k != SYM_NONE && h->linkage != IR_LINK_EXTERN) {
                /* An .extern declaration followed by the definition is fine; two definitions are not. */
                uint32_t old = msym_get(p, v.name, &k);
                if (k != SYM_VAR || p->m->vars[old].linkage != IR_LINK_EXTERN)
                    err(p, &nt, "redefinition of '%.*s'", (int)nt.len, nt.text);
            }
            msym_set(p, v.name, SYM_VAR, id);
            ir_add_item(p->m, IR_ITEM_VAR, id);
        }
        if (!is_punct(&p->tok, ',')) break;
        next(p);
    }
    if (!expect_punct(p, ';', "after the declaration")) sync_stmt(p);
}

/* .reg [.vN] .type name, %r<100>, ...; */
static void parse_reg_decl(parser *p) {
    token at = p->tok;
    next(p); /* .reg */
    decl_head h;
    memset(&h, 0, sizeof h);
    h.space = IR_S_REG;
    h.at = at;
    if (!parse_decl_attrs(p, &h)) { sync_stmt(p); return; }
    for (;;) {
        token nt;
        if (!take_name(p, "register name", &nt)) return;
        ir_regdecl rd;
        memset(&rd, 0, sizeof rd);
        rd.name = intern_tok(p, &nt);
        rd.type = (uint8_t)h.type;
        rd.vec = h.vec;
        if (rd.vec && (rd.vec > 4 || h.type == IR_T_PRED)) {
            err(p, &nt, "vector registers are .v2 or .v4 of a non-predicate type");
            sync_stmt(p);
            return;
        }
        if (is_punct(&p->tok, '<')) {
            next(p);
            uint32_t most = (1u << 24) / (rd.vec ? rd.vec : 1); /* every vector component is a register */
            if (p->tok.kind != TK_INT || p->tok.u == 0 || p->tok.u > most) {
                err(p, &p->tok, "expected a register count between 1 and %u", most);
                sync_stmt(p);
                return;
            }
            rd.count = (uint32_t)p->tok.u;
            next(p);
            if (!expect_punct(p, '>', "to close the register count")) { sync_stmt(p); return; }
        }
        uint32_t di = ir_add_regdecl(p->f, &rd);
        bool ok = rd.count ? fsym_declare(p, rd.name, SYM_REGRANGE, di)
                           : fsym_declare(p, rd.name, SYM_REG, p->f->regdecls[di].first_reg);
        if (!ok) err(p, &nt, "redeclaration of register '%.*s' in the same scope", (int)nt.len, nt.text);
        append_decl(p, IR_OP_DECL_REG, nt.line, IR_OPND_IMM, di);
        if (!is_punct(&p->tok, ',')) break;
        next(p);
    }
    if (!expect_punct(p, ';', "after the register declaration")) sync_stmt(p);
}

/* One parameter of an .entry/.func/.callprototype: `.param .align 8 .b8 name[16]`, `.reg .b32 name`. */
static bool parse_param(parser *p, uint32_t *out, bool in_proto) {
    token at = p->tok;
    decl_head h;
    memset(&h, 0, sizeof h);
    h.at = at;
    if (!space_of(&at, &h.space) || (ir_space_base[h.space] != IR_S_PARAM && h.space != IR_S_REG)) {
        char b[64];
        err(p, &at, "expected '.param' or '.reg' in a parameter list, found %s", tok_desc(&at, b, sizeof b));
        return false;
    }
    next(p);
    if (!parse_decl_attrs(p, &h)) return false;
    ir_var v;
    memset(&v, 0, sizeof v);
    v.func = (int32_t)p->fidx;
    v.space = (uint8_t)h.space;
    v.type = (uint8_t)h.type;
    v.vec = h.vec;
    v.align = h.align;
    v.is_ptr = h.is_ptr;
    v.ptr_space = h.ptr_space;
    v.ptr_align = h.ptr_align;
    v.line = p->tok.line;
    v.col = p->tok.col;
    if (p->tok.kind == TK_IDENT) {
        v.name = intern_tok(p, &p->tok);
        next(p);
    } else if (!in_proto) {
        err(p, &p->tok, "expected a parameter name");
        return false;
    } else {
        v.name = ir_intern(p->m, "_", 1);
    }
    if (!parse_array_dims(p, &v)) return false;
    *out = ir_add_var(p->m, &v);
    return true;
}

static bool parse_param_list(parser *p, uint32_t **ids, uint32_t *n, bool in_proto) {
    if (!expect_punct(p, '(', "to start the parameter list")) return false;
    uint32_t tmp[1024];
    uint32_t cnt = 0;
    if (!is_punct(&p->tok, ')')) {
        for (;;) {
            if (cnt == 1024) { err(p, &p->tok, "too many parameters"); return false; }
            if (!parse_param(p, &tmp[cnt], in_proto)) return false;
            cnt++;
            if (!is_punct(&p->tok, ',')) break;
            next(p);
        }
    }
    if (!expect_punct(p, ')', "to close the parameter list")) return false;
    *n = cnt;
    *ids = ir_alloc(p->m, cnt * sizeof(uint32_t));
    memcpy(*ids, tmp, cnt * sizeof(uint32_t));
    return true;
}

static bool parse_dims(parser *p, uint32_t *v, uint8_t *n, const char *what) {
    *n = 0;
    for (;;) {
        uint64_t x;
        if (!parse_uint(p, &x, what)) return false;
        if (*n == 3) { err(p, &p->tok, "%s takes at most 3 values", what); return false; }
        v[(*n)++] = (uint32_t)x;
        if (!is_punct(&p->tok, ',')) return true;
        next(p);
    }
}

/* Performance-tuning directives; returns false when the token is not one. */
static bool parse_perf_directive(parser *p, ir_perf *pf, bool *ok) {
    token t = p->tok;
    *ok = true;
    if (t.kind != TK_DOTWORD) return false;
    uint64_t v = 0;
    if (is_dot(&t, "maxntid")) { next(p); *ok = parse_dims(p, pf->maxntid, &pf->n_maxntid, ".maxntid"); }
    else if (is_dot(&t, "reqntid")) { next(p); *ok = parse_dims(p, pf->reqntid, &pf->n_reqntid, ".reqntid"); }
    else if (is_dot(&t, "reqnctapercluster")) { next(p); *ok = parse_dims(p, pf->reqnctapercluster, &pf->n_reqnctapercluster, ".reqnctapercluster"); }
    else if (is_dot(&t, "minnctapersm")) { next(p); *ok = parse_uint(p, &v, ".minnctapersm"); pf->minnctapersm = (uint32_t)v; pf->has_minnctapersm = 1; }
    else if (is_dot(&t, "maxnctapersm")) { next(p); *ok = parse_uint(p, &v, ".maxnctapersm"); pf->maxnctapersm = (uint32_t)v; pf->has_maxnctapersm = 1; }
    else if (is_dot(&t, "maxnreg")) { next(p); *ok = parse_uint(p, &v, ".maxnreg"); pf->maxnreg = (uint32_t)v; pf->has_maxnreg = 1; }
    else if (is_dot(&t, "maxclusterrank")) { next(p); *ok = parse_uint(p, &v, ".maxclusterrank"); pf->maxclusterrank = (uint32_t)v; pf->has_maxclusterrank = 1; }
    else if (is_dot(&t, "explicitcluster")) { next(p); pf->explicitcluster = 1; }
    else if (is_dot(&t, "blocksareclusters")) { next(p); pf->blocksareclusters = 1; }
    else if (is_dot(&t, "abi_preserve")) { next(p); *ok = parse_uint(p, &v, ".abi_preserve"); pf->abi_preserve = (uint32_t)v; pf->has_abi_preserve = 1; }
    else if (is_dot(&t, "abi_preserve_control")) { next(p); *ok = parse_uint(p, &v, ".abi_preserve_control"); pf->abi_preserve_control = (uint32_t)v; pf->has_abi_preserve_control = 1; }
    else if (is_dot(&t, "noreturn")) { next(p); pf->noreturn = 1; }
    else return false;
    return true;
}

static void parse_body(parser *p);

static void reset_function_scope(parser *p) {
    while (p->nscopes) scope_pop(p);
    scope_pop(p);
    for (uint32_t i = 0; i < p->ntouched; i++) p->flabel[p->touched_labels[i]] = 0;
    p->ntouched = 0;
}

/* [linkage] .entry name (params) {perf} body-or-;     [linkage] .func [(rets)] name (params) {perf} body-or-; */
static void parse_function(parser *p, ir_linkage linkage, bool is_entry) {
    token kw = p->tok;
    next(p);
    ir_proto sig;
    memset(&sig, 0, sizeof sig);
    ir_perf perf;
    memset(&perf, 0, sizeof perf);
    /* the function id must exist before parameters are declared (they name their owner) */
    uint32_t *ret = NULL;
    uint32_t nret = 0;
    bool has_ret_list = !is_entry && is_punct(&p->tok, '(');
    token name_tok;
    uint32_t saved_fidx = p->fidx;
    /* parameters are parsed with a provisional owner and fixed up below */
    p->fidx = p->m->nfuncs;
    if (has_ret_list && !parse_param_list(p, &ret, &nret, false)) goto fail;
    name_tok = p->tok;
    if (name_tok.kind != TK_IDENT) {
        char b[64];
        err(p, &name_tok, "expected a function name after '%s', found %s", is_entry ? ".entry" : ".func",
            tok_desc(&name_tok, b, sizeof b));
        goto fail;
    }
    next(p);
    uint32_t name = intern_tok(p, &name_tok);
    bool okp = true;
    while (parse_perf_directive(p, &perf, &okp)) if (!okp) goto fail;
    if (is_punct(&p->tok, '(')) {
        if (!parse_param_list(p, &sig.param, &sig.nparam, false)) goto fail;
    }
    while (parse_perf_directive(p, &perf, &okp)) if (!okp) goto fail;
    sig.ret = ret;
    sig.nret = nret;
    sig.noreturn = perf.noreturn;

    sym_kind k;
    uint32_t fid = msym_get(p, name, &k);
    bool redecl = false;
    if (k == SYM_FUNC) {
        redecl = true;
        if (p->m->funcs[fid].has_body && is_punct(&p->tok, '{')) {
            err(p, &name_tok, "redefinition of function '%.*s'", (int)name_tok.len, name_tok.text);
            goto fail;
        }
        if (p->m->funcs[fid].is_entry != is_entry) {
            err(p, &name_tok, "'%.*s' was declared as %s", (int)name_tok.len, name_tok.text,
                p->m->funcs[fid].is_entry ? ".entry" : ".func");
            goto fail;
        }
    } else if (k != SYM_NONE) {
        err(p, &name_tok, "'%.*s' is already declared as a variable", (int)name_tok.len, name_tok.text);
        goto fail;
    } else {
        fid = ir_add_func(p->m, name);
        msym_set(p, name, SYM_FUNC, fid);
    }
    /* fix up the owner of the parameters if the function already existed */
    for (uint32_t i = 0; i < sig.nret; i++) p->m->vars[sig.ret[i]].func = (int32_t)fid;
    for (uint32_t i = 0; i < sig.nparam; i++) p->m->vars[sig.param[i]].func = (int32_t)fid;
    ir_func *f = &p->m->funcs[fid];
    f->is_entry = is_entry;
    if (!redecl || linkage != IR_LINK_NONE) f->linkage = (uint8_t)linkage;
    f->line = kw.line;
    f->col = kw.col;
    f->sig = sig;
    f->perf = perf;
    uint32_t item = ir_add_item(p->m, IR_ITEM_FUNC, fid);
    if (!redecl) f->decl_item = item;

    if (is_punct(&p->tok, ';')) {
        next(p);
        p->m->items[item].is_decl_only = 1;
        p->fidx = saved_fidx;
        return;
    }
    if (!is_punct(&p->tok, '{')) {
        char b[64];
        err(p, &p->tok, "expected '{' or ';' after the function header, found %s", tok_desc(&p->tok, b, sizeof b));
        goto fail;
    }
    if (linkage == IR_LINK_EXTERN) err(p, &kw, ".extern function '%.*s' cannot have a body", (int)name_tok.len, name_tok.text);
    f->has_body = 1;
    p->f = f;
    p->fidx = fid;
    p->blk = NULL;
    /* parameters are visible in the body */
    scope_push(p);
    for (uint32_t i = 0; i < sig.nret; i++) fsym_declare(p, p->m->vars[sig.ret[i]].name, SYM_VAR, sig.ret[i]);
    for (uint32_t i = 0; i < sig.nparam; i++)
        if (!fsym_declare(p, p->m->vars[sig.param[i]].name, SYM_VAR, sig.param[i]))
            err(p, &name_tok, "duplicate parameter name '%s'", ir_str(p->m, p->m->vars[sig.param[i]].name));
    next(p); /* { */
    parse_body(p);
    flush_block(p);
    /* labels used but never defined */
    for (uint32_t i = 0; i < f->nlabels; i++)
        if (!f->labels[i].defined)
            diag_error(p->d, f->labels[i].line, f->labels[i].col, "use of undefined label '%s'",
                       ir_str(p->m, f->labels[i].name));
    reset_function_scope(p);
    p->f = NULL;
    p->blk = NULL;
    p->fidx = saved_fidx;
    return;
fail:
    p->fidx = saved_fidx;
    /* skip a whole body if one follows, so its statements are not read as module-level ones */
    while (p->tok.kind != TK_EOF && !is_punct(&p->tok, ';') && !is_punct(&p->tok, '{')) next(p);
    if (is_punct(&p->tok, ';')) { next(p); return; }
    if (is_punct(&p->tok, '{')) {
        int depth = 0;
        do {
            if (is_punct(&p->tok, '{')) depth++;
            else if (is_punct(&p->tok, '}')) depth--;
            next(p);
        } while (depth > 0 && p->tok.kind != TK_EOF);
    }
}

static void add_pseudo(parser *p, ir_opcode op, const ir_operand *ops, unsigned n, const token *at) {
    ir_ins ins;
    memset(&ins, 0, sizeof ins);
    ins.op = (uint16_t)op;
    ins.line = at->line;
    ins.col = (uint16_t)at->col;
    ins.nops = (uint8_t)n;
    ins.ops = ir_alloc_operands(p->m, n);
    if (n) memcpy(ins.ops, ops, n * sizeof *ops);
    append_ins(p, &ins);
}

/* .loc file line col [, function_name label [+ imm], inlined_at file line col] */
static void parse_loc(parser *p) {
    token at = p->tok;
    next(p);
    ir_operand ops[3];
    memset(ops, 0, sizeof ops);
    for (int i = 0; i < 3; i++) {
        if (p->tok.kind != TK_INT) { err(p, &p->tok, "expected a number in .loc"); sync_stmt(p); return; }
        ops[i].kind = IR_OPND_IMM;
        ops[i].val = (int64_t)p->tok.u;
        next(p);
    }
    /* the inlining attributes name DWARF labels we do not keep; skip them to the end of the line */
    while (is_punct(&p->tok, ',')) {
        uint32_t line = p->tok.line;
        while (p->tok.kind != TK_EOF && p->tok.line == line && !is_punct(&p->tok, ';') && !is_punct(&p->tok, '}') &&
               !(p->tok.kind == TK_DOTWORD && p->tok.line != line))
            next(p);
    }
    if (p->f) add_pseudo(p, IR_OP_LOC, ops, 3, &at);
}

static void parse_label_stmt(parser *p) {
    token lt = p->tok;
    next(p); /* name */
    next(p); /* : */
    uint32_t name = intern_tok(p, &lt);
    uint32_t lid = label_get(p, name, &lt);
    ir_label *L = &p->f->labels[lid];
    if (L->defined) {
        err(p, &lt, "redefinition of label '%.*s'", (int)lt.len, lt.text);
        return;
    }
    L->defined = 1;
    L->line = lt.line;
    L->col = lt.col;
    ir_operand ops[65];
    memset(ops, 0, sizeof ops);
    ops[0].kind = IR_OPND_LABEL;
    ops[0].id = lid;
    if (is_dot(&p->tok, "branchtargets") || is_dot(&p->tok, "calltargets")) {
        bool branch = is_dot(&p->tok, "branchtargets");
        token at = p->tok;
        L->defined = 2; /* a directive label, not a block */
        next(p);
        unsigned n = 1;
        for (;;) {
            if (n == 65) { err(p, &at, "too many targets (at most 64)"); sync_stmt(p); return; }
            if (p->tok.kind != TK_IDENT) { err(p, &p->tok, "expected a target name"); sync_stmt(p); return; }
            token t = p->tok;
            next(p);
            if (!resolve_name(p, &t, &ops[n], branch)) { sync_stmt(p); return; }
            if (!branch && ops[n].kind != IR_OPND_FUNC) { err(p, &t, "'.calltargets' lists functions"); sync_stmt(p); return; }
            n++;
            if (!is_punct(&p->tok, ',')) break;
            next(p);
        }
        if (!expect_punct(p, ';', "after the target list")) { sync_stmt(p); return; }
        add_pseudo(p, branch ? IR_OP_BRANCHTARGETS : IR_OP_CALLTARGETS, ops, n, &at);
        return;
    }
    if (is_dot(&p->tok, "callprototype")) {
        token at = p->tok;
        L->defined = 2;
        next(p);
        ir_proto pr;
        memset(&pr, 0, sizeof pr);
        if (is_punct(&p->tok, '(')) {
            if (!parse_param_list(p, &pr.ret, &pr.nret, true)) { sync_stmt(p); return; }
        }
        if (!is_ident(&p->tok, "_")) { err(p, &p->tok, "expected '_' in .callprototype"); sync_stmt(p); return; }
        next(p);
        if (is_punct(&p->tok, '(')) {
            if (!parse_param_list(p, &pr.param, &pr.nparam, true)) { sync_stmt(p); return; }
        }
        if (is_dot(&p->tok, "noreturn")) { pr.noreturn = 1; next(p); }
        if (!expect_punct(p, ';', "after .callprototype")) { sync_stmt(p); return; }
        ir_func *f = p->f;
        if (f->nprotos == f->cap_protos) {
            f->cap_protos = f->cap_protos ? f->cap_protos * 2 : 8;
            f->protos = xrealloc(f->protos, f->cap_protos * sizeof *f->protos);
        }
        f->protos[f->nprotos] = pr;
        ops[1].kind = IR_OPND_IMM;
        ops[1].val = f->nprotos++;
        add_pseudo(p, IR_OP_CALLPROTOTYPE, ops, 2, &at);
        return;
    }
    /* a code label starts a block (reusing an empty unlabeled one) */
    if (p->blk && p->nscratch == 0 && !p->blk->label) p->blk->label = lid + 1;
    else {
        flush_block(p);
        p->blk = ir_add_block(p->f, lid + 1);
    }
}

static void parse_body(parser *p) {
    int depth = 1;
    while (p->tok.kind != TK_EOF) {
        p->stmt_error = false;
        token t = p->tok;
        if (is_punct(&t, '}')) {
            next(p);
            if (--depth == 0) return;
            add_pseudo(p, IR_OP_SCOPE_END, NULL, 0, &t);
            scope_pop(p);
            continue;
        }
        if (is_punct(&t, '{')) {
            next(p);
            depth++;
            scope_push(p);
            add_pseudo(p, IR_OP_SCOPE_BEGIN, NULL, 0, &t);
            continue;
        }
        if (is_punct(&t, ';')) { next(p); continue; }
        if (t.kind == TK_IDENT && is_punct(peek(p), ':')) { parse_label_stmt(p); continue; }
        if (t.kind == TK_DOTWORD) {
            ir_space sp;
            if (is_dot(&t, "reg")) { parse_reg_decl(p); continue; }
            if (is_dot(&t, "loc")) { parse_loc(p); continue; }
            if (is_dot(&t, "pragma")) {
                next(p);
                ir_operand o;
                memset(&o, 0, sizeof o);
                if (p->tok.kind != TK_STRING) { err(p, &p->tok, "expected a string after .pragma"); sync_stmt(p); continue; }
                o.kind = IR_OPND_IMM;
                o.id = intern_tok(p, &p->tok);
                next(p);
                if (!expect_punct(p, ';', "after .pragma")) { sync_stmt(p); continue; }
                add_pseudo(p, IR_OP_PRAGMA, &o, 1, &t);
                continue;
            }
            if (space_of(&t, &sp) && sp != IR_S_SREG && sp != IR_S_TEX) {
                next(p);
                decl_head h;
                memset(&h, 0, sizeof h);
                h.space = sp;
                h.at = t;
                if (!parse_decl_attrs(p, &h)) { sync_stmt(p); continue; }
                parse_var_names(p, &h, true);
                continue;
            }
            err(p, &t, "unexpected directive '.%.*s' in a function body", (int)t.len, t.text);
            sync_stmt(p);
            continue;
        }
        uint32_t guard = 0;
        uint8_t neg = 0;
        if (is_punct(&t, '@')) {
            next(p);
            if (is_punct(&p->tok, '!')) { neg = 1; next(p); }
            token g = p->tok;
            ir_operand go;
            if (g.kind != TK_IDENT) { err(p, &g, "expected a predicate after '@'"); sync_stmt(p); continue; }
            next(p);
            if (!resolve_name(p, &g, &go, false)) { sync_stmt(p); continue; }
            if (go.kind != IR_OPND_REG || ir_reg_type(p->f, go.id) != IR_T_PRED) {
                err(p, &g, "guard '%.*s' is not a predicate register", (int)g.len, g.text);
                sync_stmt(p);
                continue;
            }
            guard = go.id + 1;
        }
        if (p->tok.kind != TK_IDENT) {
            char b[64];
            err(p, &p->tok, "expected an instruction, found %s", tok_desc(&p->tok, b, sizeof b));
            sync_stmt(p);
            continue;
        }
        parse_instruction(p, guard, neg);
    }
    err(p, &p->tok, "unexpected end of file inside a function body");
}

/* ---------------------------------------------------------------- module level */

static void parse_version(parser *p) {
    next(p);
    token t = p->tok;
    unsigned maj = 0, min = 0;
    if (t.kind == TK_F64 || t.kind == TK_INT) {
        const char *s = t.text, *e = t.text + t.len;
        while (s < e && *s >= '0' && *s <= '9') maj = maj * 10 + (unsigned)(*s++ - '0');
        if (s < e && *s == '.') {
            s++;
            while (s < e && *s >= '0' && *s <= '9') min = min * 10 + (unsigned)(*s++ - '0');
        }
        next(p);
    } else {
        err(p, &t, "expected a version such as 9.0 after .version");
        return;
    }
    if (maj > 9 || (maj == 9 && min > 1) || maj < 1) {
        diag_error(p->d, t.line, t.col, "PTX ISA version %u.%u is not supported (this compiler reads up to 9.1)", maj, min);
    }
    p->m->version_major = maj;
    p->m->version_minor = min;
}

static void parse_target(parser *p) {
    next(p);
    for (;;) {
        if (p->tok.kind != TK_IDENT) { err(p, &p->tok, "expected a target name after .target"); return; }
        if (p->m->ntargets < 8) p->m->targets[p->m->ntargets++] = intern_tok(p, &p->tok);
        next(p);
        if (!is_punct(&p->tok, ',')) break;
        next(p);
    }
}

static void parse_file_directive(parser *p) {
    next(p);
    ir_file fl;
    memset(&fl, 0, sizeof fl);
    if (p->tok.kind != TK_INT) { err(p, &p->tok, "expected a file number after .file"); sync_stmt(p); return; }
    fl.index = (uint32_t)p->tok.u;
    next(p);
    if (p->tok.kind != TK_STRING) { err(p, &p->tok, "expected a file name after .file"); sync_stmt(p); return; }
    fl.name = intern_tok(p, &p->tok);
    next(p);
    if (is_punct(&p->tok, ',')) {
        next(p);
        uint64_t a = 0, b = 0;
        if (!parse_uint(p, &a, "timestamp") || !expect_punct(p, ',', "after the timestamp") || !parse_uint(p, &b, "file size")) {
            sync_stmt(p);
            return;
        }
        fl.timestamp = a;
        fl.size = b;
        fl.has_meta = 1;
    }
    ir_module *m = p->m;
    if (m->nfiles == m->cap_files) {
        m->cap_files = m->cap_files ? m->cap_files * 2 : 8;
        m->files = xrealloc(m->files, m->cap_files * sizeof *m->files);
    }
    m->files[m->nfiles] = fl;
    ir_add_item(m, IR_ITEM_FILE, m->nfiles++);
}

static void parse_module(parser *p) {
    bool seen_version = false, seen_target = false;
    next(p);
    while (p->tok.kind != TK_EOF) {
        p->stmt_error = false;
        token t = p->tok;
        if (is_punct(&t, ';')) { next(p); continue; }
        if (t.kind != TK_DOTWORD) {
            char b[64];
            err(p, &t, "expected a directive at module scope, found %s", tok_desc(&t, b, sizeof b));
            sync_stmt(p);
            if (is_punct(&p->tok, '}')) next(p);
            continue;
        }
        if (is_dot(&t, "version")) {
            if (seen_version) err(p, &t, "duplicate .version directive");
            seen_version = true;
            parse_version(p);
            continue;
        }
        if (!seen_version) {
            err(p, &t, "a PTX module must start with a .version directive");
            seen_version = true; /* report once */
        }
        if (is_dot(&t, "target")) { seen_target = true; parse_target(p); continue; }
        if (is_dot(&t, "address_size")) {
            next(p);
            if (p->tok.kind != TK_INT || (p->tok.u != 32 && p->tok.u != 64)) err(p, &p->tok, ".address_size must be 32 or 64");
            else p->m->address_size = (uint32_t)p->tok.u;
            next(p);
            continue;
        }
        if (is_dot(&t, "file")) { parse_file_directive(p); continue; }
        if (is_dot(&t, "section")) {
            /* DWARF sections: not interpreted (debug info comes from .loc/.file), kept verbatim for printing */
            const char *start = t.text - 1; /* the dot */
            next(p);
            while (p->tok.kind == TK_DOTWORD || p->tok.kind == TK_IDENT) next(p);
            if (!is_punct(&p->tok, '{')) { err(p, &p->tok, "expected '{' after .section name"); sync_stmt(p); continue; }
            /* the lexer skips to the matching brace; the current token is the `{` */
            int depth = 1;
            token x;
            do {
                x = lex_next(&p->lx);
                if (x.kind == TK_PUNCT && x.punct == '{') depth++;
                if (x.kind == TK_PUNCT && x.punct == '}') depth--;
            } while (depth > 0 && x.kind != TK_EOF);
            if (x.kind == TK_EOF) err(p, &t, "unterminated .section");
            else ir_add_item(p->m, IR_ITEM_SECTION, ir_intern(p->m, start, (size_t)(x.text + x.len - start)));
            p->has_ahead = false;
            p->m->debug_sections++;
            next(p);
            continue;
        }
        if (is_dot(&t, "pragma")) {
            next(p);
            if (p->tok.kind != TK_STRING) { err(p, &p->tok, "expected a string after .pragma"); sync_stmt(p); continue; }
            ir_add_item(p->m, IR_ITEM_PRAGMA, intern_tok(p, &p->tok));
            next(p);
            if (!expect_punct(p, ';', "after .pragma")) sync_stmt(p);
            continue;
        }
        if (is_dot(&t, "alias")) {
            next(p);
            token a = p->tok, b;
            if (a.kind != TK_IDENT) { err(p, &a, "expected a function name after .alias"); sync_stmt(p); continue; }
            next(p);
            if (!expect_punct(p, ',', "between the .alias names")) { sync_stmt(p); continue; }
            b = p->tok;
            if (b.kind != TK_IDENT) { err(p, &b, "expected the aliased function"); sync_stmt(p); continue; }
            next(p);
            sym_kind ka, kb;
            uint32_t na = ir_lookup_string(p->m, a.text, a.len), nb = ir_lookup_string(p->m, b.text, b.len);
            uint32_t ia = na == UINT32_MAX ? 0 : msym_get(p, na, &ka), ib = nb == UINT32_MAX ? 0 : msym_get(p, nb, &kb);
            if (na == UINT32_MAX || ka != SYM_FUNC) { err(p, &a, "'.alias' needs a declared function, '%.*s' is not one", (int)a.len, a.text); sync_stmt(p); continue; }
            if (nb == UINT32_MAX || kb != SYM_FUNC) { err(p, &b, "'.alias' needs a declared function, '%.*s' is not one", (int)b.len, b.text); sync_stmt(p); continue; }
            ir_module *m = p->m;
            if (m->naliases == m->cap_aliases) {
                m->cap_aliases = m->cap_aliases ? m->cap_aliases * 2 : 8;
                m->aliases = xrealloc(m->aliases, m->cap_aliases * sizeof *m->aliases);
            }
            m->aliases[m->naliases] = (ir_alias){ia, ib};
            ir_add_item(m, IR_ITEM_ALIAS, m->naliases++);
            if (!expect_punct(p, ';', "after .alias")) sync_stmt(p);
            continue;
        }
        /* declarations: [linkage] (.entry | .func | .space ...) */
        ir_linkage link = IR_LINK_NONE;
        if (is_dot(&t, "visible")) link = IR_LINK_VISIBLE;
        else if (is_dot(&t, "extern")) link = IR_LINK_EXTERN;
        else if (is_dot(&t, "weak")) link = IR_LINK_WEAK;
        else if (is_dot(&t, "common")) link = IR_LINK_COMMON;
        if (link) next(p);
        token k = p->tok;
        if (is_dot(&k, "entry")) { parse_function(p, link, true); continue; }
        if (is_dot(&k, "func")) { parse_function(p, link, false); continue; }
        ir_space sp;
        if (space_of(&k, &sp) && sp != IR_S_REG && sp != IR_S_SREG && ir_space_base[sp] != IR_S_PARAM) {
            next(p);
            decl_head h;
            memset(&h, 0, sizeof h);
            h.linkage = link;
            h.space = sp;
            h.at = k;
            if (!parse_decl_attrs(p, &h)) { sync_stmt(p); continue; }
            parse_var_names(p, &h, false);
            continue;
        }
        char b[64];
        err(p, &k, "unexpected %s at module scope", tok_desc(&k, b, sizeof b));
        sync_stmt(p);
    }
    if (!seen_version) diag_error(p->d, 1, 1, "a PTX module must start with a .version directive");
    if (!seen_target) diag_error(p->d, 1, 1, "missing .target directive");
}

ir_module *ptx_parse(const char *src, size_t len, p2n_diags *diags) {
    parser p;
    memset(&p, 0, sizeof p);
    p.m = ir_module_new();
    p.d = diags;
    lex_init(&p.lx, src, len);
    parse_module(&p);
    free(p.msym);
    free(p.fhead);
    free(p.fsyms);
    free(p.scope_marks);
    free(p.flabel);
    free(p.touched_labels);
    free(p.scratch);
    return p.m;
}
