/* lexer.c — turns PTX text into tokens. Speed matters (the driver stub may parse megabytes at load time):
 * one pass over the bytes, a character-class table, no allocation. */
#include "lexer.h"

#include <stdlib.h>
#include <string.h>

enum { C_ID0 = 1, C_ID = 2, C_DIGIT = 4, C_HEX = 8, C_SPACE = 16 };
static uint8_t cls[256];

static void init_classes(void) {
    if (cls['a']) return;
    for (int c = 'a'; c <= 'z'; c++) cls[c] |= C_ID0 | C_ID;
    for (int c = 'A'; c <= 'Z'; c++) cls[c] |= C_ID0 | C_ID;
    for (int c = '0'; c <= '9'; c++) cls[c] |= C_ID | C_DIGIT | C_HEX;
    for (int c = 'a'; c <= 'f'; c++) cls[c] |= C_HEX;
    for (int c = 'A'; c <= 'F'; c++) cls[c] |= C_HEX;
    cls['_'] |= C_ID0 | C_ID;
    cls['$'] |= C_ID0 | C_ID;
    cls['%'] |= C_ID0;
    cls[' '] = cls['\t'] = cls['\r'] = cls['\n'] = cls['\f'] = cls['\v'] = C_SPACE;
}

void lex_init(lexer *lx, const char *src, size_t len) {
    init_classes();
    lx->src = lx->p = lx->line_start = src;
    lx->end = src + len;
    lx->line = 1;
}

static token make(lexer *lx, tok_kind k, const char *start) {
    return (token){.kind = k, .text = start, .len = (size_t)(lx->p - start), .line = lx->line,
                   .col = (uint32_t)(start - lx->line_start) + 1};
}

static token error(lexer *lx, const char *start, const char *msg) {
    token t = make(lx, TK_ERROR, start);
    t.text = msg;
    t.len = strlen(msg);
    return t;
}

/* Skips blanks and comments, counting lines. Returns an error message for an unterminated comment. */
static const char *skip_space(lexer *lx) {
    const char *p = lx->p, *end = lx->end;
    for (;;) {
        while (p < end && (cls[(uint8_t)*p] & C_SPACE)) {
            if (*p == '\n') { lx->line++; lx->line_start = p + 1; }
            p++;
        }
        if (p + 1 < end && p[0] == '/' && p[1] == '/') {
            while (p < end && *p != '\n') p++;
            continue;
        }
        if (p + 1 < end && p[0] == '/' && p[1] == '*') {
            uint32_t line0 = lx->line;
            const char *ls0 = lx->line_start;
            const char *q = p + 2;
            while (q + 1 < end && !(q[0] == '*' && q[1] == '/')) {
                if (*q == '\n') { lx->line++; lx->line_start = q + 1; }
                q++;
            }
            if (q + 1 >= end) { /* report where the comment starts */
                lx->line = line0;
                lx->line_start = ls0;
                lx->p = p;
                return "unterminated /* comment";
            }
            p = q + 2;
            continue;
        }
        break;
    }
    lx->p = p;
    return NULL;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return c - 'A' + 10;
}

static token lex_number(lexer *lx) {
    const char *s = lx->p, *p = s, *end = lx->end;
    /* 0f / 0d: exact IEEE bit patterns */
    if (p + 1 < end && p[0] == '0' && (p[1] == 'f' || p[1] == 'F' || p[1] == 'd' || p[1] == 'D')) {
        bool dbl = p[1] == 'd' || p[1] == 'D';
        unsigned want = dbl ? 16 : 8;
        p += 2;
        uint64_t v = 0;
        unsigned n = 0;
        while (p < end && (cls[(uint8_t)*p] & C_HEX)) { v = v << 4 | (uint64_t)hexval(*p); p++; n++; }
        lx->p = p;
        if (n != want) return error(lx, s, dbl ? "0d float literal needs exactly 16 hex digits"
                                               : "0f float literal needs exactly 8 hex digits");
        token t = make(lx, dbl ? TK_F64 : TK_F32, s);
        t.u = v;
        return t;
    }
    uint64_t v = 0;
    bool overflow = false;
    if (p + 1 < end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        const char *d = p;
        while (p < end && (cls[(uint8_t)*p] & C_HEX)) {
            if (v >> 60) overflow = true;
            v = v << 4 | (uint64_t)hexval(*p++);
        }
        if (p == d) { lx->p = p; return error(lx, s, "hex literal without digits"); }
    } else if (p + 1 < end && p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
        p += 2;
        const char *d = p;
        while (p < end && (*p == '0' || *p == '1')) {
            if (v >> 63) overflow = true;
            v = v << 1 | (uint64_t)(*p++ - '0');
        }
        if (p == d) { lx->p = p; return error(lx, s, "binary literal without digits"); }
    } else {
        const char *d = p;
        while (p < end && (cls[(uint8_t)*p] & C_DIGIT)) p++;
        bool is_float = false;
        if (p < end && *p == '.' && !(p + 1 < end && (cls[(uint8_t)p[1]] & C_ID0))) {
            is_float = true;
            p++;
            while (p < end && (cls[(uint8_t)*p] & C_DIGIT)) p++;
        }
        if (p < end && (*p == 'e' || *p == 'E')) {
            const char *q = p + 1;
            if (q < end && (*q == '+' || *q == '-')) q++;
            if (q < end && (cls[(uint8_t)*q] & C_DIGIT)) {
                is_float = true;
                p = q;
                while (p < end && (cls[(uint8_t)*p] & C_DIGIT)) p++;
            }
        }
        if (is_float) {
            char buf[128];
            size_t n = (size_t)(p - s);
            if (n >= sizeof buf) { lx->p = p; return error(lx, s, "float literal too long"); }
            memcpy(buf, s, n);
            buf[n] = 0;
            double dv = strtod(buf, NULL);
            lx->p = p;
            token t = make(lx, TK_F64, s);
            memcpy(&t.u, &dv, sizeof dv);
            return t;
        }
        if (d[0] == '0' && p - d > 1) { /* octal */
            for (const char *q = d + 1; q < p; q++) {
                if (*q > '7') { lx->p = p; return error(lx, s, "invalid digit in octal literal"); }
                if (v >> 61) overflow = true;
                v = v << 3 | (uint64_t)(*q - '0');
            }
        } else {
            for (const char *q = d; q < p; q++) {
                uint64_t nv = v * 10 + (uint64_t)(*q - '0');
                if (v > UINT64_MAX / 10 || nv < v * 10) overflow = true;
                v = nv;
            }
        }
    }
    bool uns = false;
    if (p < end && (*p == 'U' || *p == 'u')) { uns = true; p++; }
    if (p < end && (cls[(uint8_t)*p] & C_ID)) {
        while (p < end && (cls[(uint8_t)*p] & C_ID)) p++;
        lx->p = p;
        return error(lx, s, "malformed number");
    }
    lx->p = p;
    if (overflow) return error(lx, s, "integer literal does not fit in 64 bits");
    token t = make(lx, TK_INT, s);
    t.u = v;
    t.is_unsigned = uns;
    return t;
}

token lex_next(lexer *lx) {
    const char *err = skip_space(lx);
    if (err) {
        token t = error(lx, lx->p, err);
        lx->p = lx->end;
        return t;
    }
    const char *s = lx->p, *end = lx->end;
    if (s >= end) return make(lx, TK_EOF, s);
    uint8_t c = (uint8_t)*s;
    if (c == '%' && !(s + 1 < end && (cls[(uint8_t)s[1]] & C_ID0) && s[1] != '%')) {
        lx->p = s + 1; /* the remainder operator of a constant expression */
        token t = make(lx, TK_PUNCT, s);
        t.punct = '%';
        return t;
    }
    if (cls[c] & C_ID0) {
        const char *p = s + 1;
        while (p < end && (cls[(uint8_t)*p] & C_ID)) p++;
        lx->p = p;
        return make(lx, TK_IDENT, s);
    }
    if (cls[c] & C_DIGIT) return lex_number(lx);
    if (c == '.') {
        const char *p = s + 1;
        for (;;) {
            while (p < end && (cls[(uint8_t)*p] & C_ID) && *p != '$') p++;
            if (p + 2 < end && p[0] == ':' && p[1] == ':' && (cls[(uint8_t)p[2]] & C_ID)) { p += 2; continue; }
            break;
        }
        lx->p = p;
        if (p == s + 1) return error(lx, s, "stray '.'");
        token t = make(lx, TK_DOTWORD, s);
        t.text = s + 1;
        t.len = (size_t)(p - s - 1);
        return t;
    }
    if (c == '"') {
        const char *p = s + 1;
        while (p < end && *p != '"' && *p != '\n') p += (*p == '\\' && p + 1 < end) ? 2 : 1;
        if (p >= end || *p != '"') { lx->p = p; return error(lx, s, "unterminated string literal"); }
        lx->p = p + 1;
        token t = make(lx, TK_STRING, s);
        t.text = s + 1;
        t.len = (size_t)(p - s - 1);
        return t;
    }
    static const char two[][2] = {{'<', '<'}, {'>', '>'}, {'<', '='}, {'>', '='}, {'=', '='},
                                  {'!', '='}, {'&', '&'}, {'|', '|'}};
    if (s + 1 < end)
        for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
            if (s[0] == two[i][0] && s[1] == two[i][1]) {
                lx->p = s + 2;
                token t = make(lx, TK_PUNCT, s);
                t.punct = PUNCT2(s[0], s[1]);
                return t;
            }
    if (strchr(",;:{}[]()+-*/%<>=!|&^~?@", c) && c) {
        lx->p = s + 1;
        token t = make(lx, TK_PUNCT, s);
        t.punct = c;
        return t;
    }
    lx->p = s + 1;
    return error(lx, s, "unexpected character");
}

bool lex_skip_braced(lexer *lx) {
    int depth = 0;
    for (;;) {
        token t = lex_next(lx);
        if (t.kind == TK_EOF) return false;
        if (t.kind == TK_PUNCT && t.punct == '{') depth++;
        if (t.kind == TK_PUNCT && t.punct == '}' && --depth <= 0) return true;
    }
}
