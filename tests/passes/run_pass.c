/* run_pass — parses a PTX file, runs one pass (by name), prints the IR (QBE-style pass tests). */
#include <stdio.h>
#include <stdlib.h>

#include "parser.h"
#include "passes.h"

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: run_pass PASS FILE.ptx\n"); return 2; }
    const pass_desc *pd = pass_find(argv[1]);
    if (!pd) { fprintf(stderr, "unknown pass '%s'\n", argv[1]); return 2; }
    FILE *f = fopen(argv[2], "rb");
    if (!f) { perror(argv[2]); return 2; }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *src = malloc((size_t)n + 1);
    if (!src || fread(src, 1, (size_t)n, f) != (size_t)n) { fclose(f); return 2; }
    fclose(f);
    p2n_diags d = {.file = argv[2]};
    ir_module *m = ptx_parse(src, (size_t)n, &d);
    free(src);
    int rc = 0;
    if (d.nerrors) { fputs(d.text ? d.text : "", stderr); rc = 1; goto out; }
    pass_options po = {.warp_size = 32, .diags = &d, .generic_is_global = 1, .lacks_forward_progress = 1};
    bool internal = false;
    if (!run_passes(m, pd, 1, &po, &internal)) { fputs(d.text ? d.text : "", stderr); rc = internal ? 2 : 1; goto out; }
    size_t len;
    char *text = ir_print_module(m, &len);
    fwrite(text, 1, len, stdout);
    free(text);
out:
    ir_module_free(m);
    diag_free(&d);
    return rc;
}
