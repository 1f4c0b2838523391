/* roundtrip.c — test driver: every file must parse with zero errors, verify, and round-trip:
 * print(parse(f)) == print(parse(print(parse(f)))). Prints one line per file and exits non-zero on failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "parser.h"
#include "test_file.h"


static char *parse_print(const char *name, const char *src, size_t len, size_t *out_len, int *ok) {
    p2n_diags d = {.file = name};
    ir_module *m = ptx_parse(src, len, &d);
    char *errs = NULL;
    *ok = d.nerrors == 0;
    if (!*ok) fprintf(stderr, "%s", d.text ? d.text : "");
    else if (!ir_verify(m, &errs)) {
        fprintf(stderr, "%s: verifier rejected the parsed module:\n%s", name, errs ? errs : "");
        *ok = 0;
    }
    free(errs);
    char *out = *ok ? ir_print_module(m, out_len) : NULL;
    ir_module_free(m);
    diag_free(&d);
    return out;
}

int main(int argc, char **argv) {
    int failed = 0, passed = 0;
    for (int i = 1; i < argc; i++) {
        size_t len, l1, l2;
        char *src = test_read_file(argv[i], &len);
        if (!src) { fprintf(stderr, "FAIL %s: cannot read\n", argv[i]); failed++; continue; }
        int ok;
        char *p1 = parse_print(argv[i], src, len, &l1, &ok);
        char *p2 = ok ? parse_print("<printed>", p1, l1, &l2, &ok) : NULL;
        if (ok && (l1 != l2 || memcmp(p1, p2, l1) != 0)) {
            size_t k = 0;
            while (k < l1 && k < l2 && p1[k] == p2[k]) k++;
            fprintf(stderr, "FAIL %s: round trip differs at byte %zu\n", argv[i], k);
            ok = 0;
        }
        if (ok) passed++; else failed++;
        printf("%s %s\n", ok ? "PASS" : "FAIL", argv[i]);
        free(src);
        free(p1);
        free(p2);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
