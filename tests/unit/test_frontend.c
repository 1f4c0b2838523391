/* test_frontend.c — unit tests of the lexer, the IR tables, the printer and the verifier. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "lexer.h"
#include "parser.h"

static int failures, checks;
#define CHECK(cond)                                                                   \
    do {                                                                              \
        checks++;                                                                     \
        if (!(cond)) { failures++; fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } \
    } while (0)

static void test_lexer(void) {
    const char *src = "ld.global.v4.f32 {%f1,_}, [%rd1+-8]; // c\n0x1F 017 0b101 42U 0f3F800000 0d4000000000000000 1.5 "
                      "\"s\" .shared::cta <<";
    lexer lx;
    lex_init(&lx, src, strlen(src));
    tok_kind want[] = {TK_IDENT, TK_DOTWORD, TK_DOTWORD, TK_DOTWORD, TK_PUNCT, TK_IDENT, TK_PUNCT, TK_IDENT, TK_PUNCT,
                       TK_PUNCT, TK_PUNCT, TK_IDENT, TK_PUNCT, TK_PUNCT, TK_INT, TK_PUNCT, TK_PUNCT,
                       TK_INT, TK_INT, TK_INT, TK_INT, TK_F32, TK_F64, TK_F64, TK_STRING, TK_DOTWORD, TK_PUNCT, TK_EOF};
    token t;
    unsigned i = 0;
    uint64_t ints[4];
    unsigned ni = 0;
    do {
        t = lex_next(&lx);
        CHECK(i < sizeof want / sizeof want[0] && t.kind == want[i]);
        if (t.kind == TK_INT && ni < 4 && t.line == 2) ints[ni++] = t.u;
        if (t.kind == TK_F32) CHECK(t.u == 0x3F800000u);
        if (t.kind == TK_DOTWORD && t.len == 11) CHECK(memcmp(t.text, "shared::cta", 11) == 0);
        if (t.kind == TK_PUNCT && t.len == 2) CHECK(t.punct == PUNCT2('<', '<'));
        i++;
    } while (t.kind != TK_EOF && i < 64);
    CHECK(ni == 4 && ints[0] == 31 && ints[1] == 15 && ints[2] == 5 && ints[3] == 42);
    CHECK(t.line == 2);
}

static void test_tables(void) {
    ir_word_info wi;
    CHECK(ir_lookup_word("f32", 3, &wi) && wi.kind == IR_W_TYPE && wi.id == IR_T_F32);
    CHECK(ir_lookup_word("shared::cluster", 15, &wi) && wi.kind == IR_W_SPACE && wi.id == IR_S_SHARED_CLUSTER);
    CHECK(ir_lookup_word("L2::cache_hint", 14, &wi) && wi.kind == IR_W_MOD && wi.id == IR_M_L2_CACHE_HINT);
    CHECK(!ir_lookup_word("nonsense", 8, &wi));
    /* a spelling with two meanings keeps the first table's: texref is a type */
    CHECK(ir_lookup_word("texref", 6, &wi) && wi.kind == IR_W_TYPE && wi.id == IR_T_TEXREF);
    /* cp.async is an opcode and the prefix of cp.async.bulk */
    CHECK(ir_lookup_opcode("cp.async", 8) == IR_OP_CP_ASYNC && ir_is_opcode_prefix("cp.async", 8));
    CHECK(ir_lookup_opcode("cp.async.bulk.tensor", 20) == IR_OP_CP_ASYNC_BULK_TENSOR);
    CHECK(ir_is_opcode_prefix("cp", 2) && ir_is_opcode_prefix("cp.async", 8));
    CHECK(!ir_is_opcode_prefix("add", 3));
    uint16_t idx;
    CHECK(ir_lookup_sreg("%envreg7", 8, &idx) == IR_SR_ENVREG && idx == 7);
    CHECK(ir_lookup_sreg("%pm3_64", 7, &idx) == IR_SR_PM && idx == 11);
    CHECK(ir_lookup_sreg("%lanemask_lt", 12, &idx) == IR_SR_LANEMASK_LT);
    bool ok;
    int64_t sel = ir_sel_pack("b3210", 5, &ok);
    char buf[16];
    CHECK(ok);
    ir_sel_format(sel, buf, sizeof buf);
    CHECK(strcmp(buf, ".b3210") == 0);
    ir_sel_pack("q1", 2, &ok);
    CHECK(!ok);
}

static ir_module *parse(const char *src, unsigned *nerr) {
    p2n_diags d = {.file = "t.ptx"};
    ir_module *m = ptx_parse(src, strlen(src), &d);
    *nerr = d.nerrors;
    diag_free(&d);
    return m;
}

static void test_modifier_order_and_queries(void) {
    const char *src = ".version 9.0\n.target sm_90\n.address_size 64\n"
                      ".entry k(.param .u64 p) {\n.reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n"
                      "ld.param.u64 %rd1, [p];\nld.cs.global.b32 %r1, [%rd1];\nld.global.cs.b32 %r2, [%rd1];\n"
                      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%r1,%r1,%r1,%r1}, {%r1,%r1,%r1,%r1}, {%r1,%r1}, {%r1,%r1,%r1,%r1};\n"
                      "ret;\n}\n";
    unsigned nerr;
    ir_module *m = parse(src, &nerr);
    CHECK(nerr == 0);
    ir_func *f = &m->funcs[0];
    ir_ins *a = &f->blocks[0].ins[3], *b = &f->blocks[0].ins[4], *mma = &f->blocks[0].ins[5];
    CHECK(a->op == IR_OP_LD && b->op == IR_OP_LD);
    /* order-independent questions give the same answers */
    CHECK(ir_ins_has(a, IR_M_CS) && ir_ins_has(b, IR_M_CS));
    CHECK(ir_ins_space(a) == IR_S_GLOBAL && ir_ins_space(b) == IR_S_GLOBAL);
    CHECK(ir_ins_type(a, 0) == IR_T_B32 && ir_ins_ntypes(a) == 1);
    CHECK(mma->op == IR_OP_MMA && mma->shape == (16u | 8u << 10 | 16u << 20));
    CHECK(ir_ins_type(mma, 1) == IR_T_BF16 && ir_ins_ntypes(mma) == 4);
    char *errs = NULL;
    CHECK(ir_verify(m, &errs));
    free(errs);
    /* break an invariant: the verifier must notice */
    a->ops[0].id = 999;
    CHECK(!ir_verify(m, &errs));
    CHECK(errs && strstr(errs, "register 999 out of range"));
    free(errs);
    ir_module_free(m);
}

static void test_scopes_and_printer(void) {
    const char *src = ".version 9.0\n.target sm_90\n.address_size 64\n"
                      ".func (.param .b32 r) f(.param .b32 x) { .reg .b32 %a; ld.param.b32 %a, [x]; st.param.b32 [r], %a; ret; }\n"
                      ".entry k() {\n.reg .b32 %v;\n"
                      "{ .param .b32 param0; .param .b32 retval0; st.param.b32 [param0], 1; call.uni (retval0), f, (param0); }\n"
                      "{ .param .b32 param0; .param .b32 retval0; st.param.b32 [param0], 2; call.uni (retval0), f, (param0); ld.param.b32 %v, [retval0]; }\n"
                      "ret;\n}\n";
    unsigned nerr;
    ir_module *m = parse(src, &nerr);
    CHECK(nerr == 0);
    size_t len;
    char *text = ir_print_module(m, &len);
    CHECK(strstr(text, "call.uni (retval0), f, (param0);") != NULL);
    /* the two param0 declarations are distinct variables */
    unsigned n = 0;
    for (uint32_t i = 0; i < m->nvars; i++) n += strcmp(ir_str(m, m->vars[i].name), "param0") == 0;
    CHECK(n == 2);
    unsigned nerr2;
    ir_module *m2 = parse(text, &nerr2);
    CHECK(nerr2 == 0);
    size_t len2;
    char *text2 = ir_print_module(m2, &len2);
    CHECK(len == len2 && memcmp(text, text2, len) == 0);
    free(text);
    free(text2);
    ir_module_free(m);
    ir_module_free(m2);
}

int main(void) {
    test_lexer();
    test_tables();
    test_modifier_order_and_queries();
    test_scopes_and_printer();
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures != 0;
}
