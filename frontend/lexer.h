/* lexer.h — PTX tokens. Hand-written, allocation-free: tokens point into the source buffer. */
#ifndef P2N_LEXER_H
#define P2N_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum tok_kind {
    TK_EOF = 0,
    TK_IDENT,    /* foo, %r1, $L__BB0_1, _ */
    TK_DOTWORD,  /* .global, .shared::cta, .m16n8k16, .x (text excludes the dot) */
    TK_INT,      /* value in u; is_unsigned for a U suffix */
    TK_F32,      /* 0fXXXXXXXX: bits in u */
    TK_F64,      /* 0dXXXXXXXXXXXXXXXX or decimal float: bits in u */
    TK_STRING,   /* "...": text excludes the quotes */
    TK_PUNCT,    /* one or two characters: , ; : { } [ ] ( ) + - * / % < > = ! | & ^ ~ ? @ << >> <= >= == != && || */
    TK_ERROR,    /* malformed token; text says what */
} tok_kind;

typedef struct token {
    tok_kind kind;
    uint8_t is_unsigned;
    uint16_t punct;      /* TK_PUNCT: first char, or first | second << 8 */
    uint32_t line, col;
    const char *text;
    size_t len;
    uint64_t u;
} token;

typedef struct lexer {
    const char *src, *end, *p;
    const char *line_start;
    uint32_t line;
} lexer;

void lex_init(lexer *lx, const char *src, size_t len);
token lex_next(lexer *lx);
/* For a `.section` body we do not use: skip to the matching close brace. Returns false at end of input. */
bool lex_skip_braced(lexer *lx);

#define PUNCT2(a, b) ((uint16_t)((uint8_t)(a) | (uint8_t)(b) << 8))

#endif
