/* fuzz_parser.c — mutation test of the front end: corpus files damaged in random (seeded, repeatable) ways
 * must never crash the parser; a mutant the parser accepts without errors must pass the verifier and
 * round-trip like any valid module. usage: fuzz-parser ITERATIONS SEED FILE... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "parser.h"
#include "test_file.h"

static uint64_t rng_state;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}


static const char junk[] = "{}[](),;:.%@!|_<>+-*/\"0x1f 0f 0d9 .reg .b32 %r<4> bra $L ::";

static size_t mutate(char *buf, size_t len, size_t cap) {
    int kind = (int)(rnd() % 5);
    if (!len) return len;
    size_t at = rnd() % len;
    size_t n = 1 + rnd() % 16;
    if (at + n > len) n = len - at;
    switch (kind) {
    case 0: memmove(buf + at, buf + at + n, len - at - n); return len - n;          /* delete */
    case 1: for (size_t i = 0; i < n; i++) buf[at + i] = junk[rnd() % (sizeof junk - 1)]; return len;
    case 2: if (len + n <= cap) { memmove(buf + at + n, buf + at, len - at); return len + n; } return len; /* duplicate */
    case 3: return at;                                                              /* truncate */
    default: buf[at] = (char)(rnd() & 0xff); return len;                            /* any byte */
    }
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: %s ITERATIONS SEED FILE...\n", argv[0]); return 2; }
    long iters = atol(argv[1]);
    rng_state = strtoull(argv[2], NULL, 0);
    int nfiles = argc - 3;
    long accepted = 0, rejected = 0, bad = 0;
    for (long it = 0; it < iters; it++) {
        size_t len;
        char *orig = test_read_file(argv[3 + rnd() % (unsigned)nfiles], &len);
        if (!orig) { fprintf(stderr, "cannot read input\n"); return 2; }
        size_t cap = len + 1024;
        char *buf = malloc(cap);
        memcpy(buf, orig, len);
        int muts = 1 + (int)(rnd() % 4);
        for (int k = 0; k < muts; k++) len = mutate(buf, len, cap);
        p2n_diags d = {.file = "mutant"};
        ir_module *m = ptx_parse(buf, len, &d);
        if (d.nerrors) rejected++;
        else {
            accepted++;
            char *errs = NULL;
            if (!ir_verify(m, &errs)) {
                fprintf(stderr, "iteration %ld: accepted mutant fails the verifier:\n%s", it, errs);
                bad++;
            }
            free(errs);
            size_t l1;
            char *p1 = ir_print_module(m, &l1);
            p2n_diags d2 = {.file = "printed"};
            ir_module *m2 = ptx_parse(p1, l1, &d2);
            if (d2.nerrors) { fprintf(stderr, "iteration %ld: printed mutant does not parse:\n%s", it, d2.text); bad++; }
            ir_module_free(m2);
            diag_free(&d2);
            free(p1);
        }
        ir_module_free(m);
        diag_free(&d);
        free(buf);
        free(orig);
    }
    printf("%ld mutants: %ld rejected with diagnostics, %ld accepted, %ld invariant violations\n", iters, rejected,
           accepted, bad);
    printf("%ld passed, %ld failed\n", iters - bad, bad);
    return bad != 0;
}
