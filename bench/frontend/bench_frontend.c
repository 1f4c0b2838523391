/* bench_frontend.c — front-end throughput: lex + parse + IR build (and, separately, printing) of one PTX
 * file, repeated; reports MB/s and the process's peak RSS relative to the input size.
 * usage: bench-frontend FILE.ptx [repetitions] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "diag.h"
#include "ir.h"
#include "parser.h"

/* CPU time of this process (user + system): stable on a shared 2-core machine, unlike wall time */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s FILE.ptx [repetitions]\n", argv[0]); return 2; }
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    fseek(f, 0, SEEK_END);
    size_t len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *src = malloc(len);
    if (!src || fread(src, 1, len, f) != len) { fprintf(stderr, "read failed\n"); return 2; }
    fclose(f);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long rss_before_kb = ru.ru_maxrss;
    double best_parse = 1e30, best_print = 1e30;
    size_t instructions = 0;
    for (int r = 0; r < reps; r++) {
        p2n_diags d = {.file = argv[1]};
        double t0 = now();
        ir_module *m = ptx_parse(src, len, &d);
        double t1 = now();
        if (d.nerrors) { fprintf(stderr, "%s", d.text); return 1; }
        size_t out_len;
        char *text = ir_print_module(m, &out_len);
        double t2 = now();
        instructions = 0;
        for (uint32_t i = 0; i < m->nfuncs; i++)
            for (uint32_t b = 0; b < m->funcs[i].nblocks; b++) instructions += m->funcs[i].blocks[b].n;
        if (r == 0) { /* peak RSS while the module is alive */
            getrusage(RUSAGE_SELF, &ru);
        }
        free(text);
        ir_module_free(m);
        diag_free(&d);
        if (t1 - t0 < best_parse) best_parse = t1 - t0;
        if (t2 - t1 < best_print) best_print = t2 - t1;
    }
    double mb = (double)len / 1e6;
    printf("input            %.1f MB, %zu IR instructions\n", mb, instructions);
    printf("parse (lex+parse+IR)  %.3f s CPU = %.1f MB/s\n", best_parse, mb / best_parse);
    printf("print                 %.3f s CPU = %.1f MB/s\n", best_print, mb / best_print);
    printf("peak RSS          %.1f MB total, %.1f MB above the loaded input: %.2fx input size\n",
           ru.ru_maxrss / 1024.0, (ru.ru_maxrss - rss_before_kb) / 1024.0,
           (double)(ru.ru_maxrss * 1024.0) / (double)len);
    free(src);
    return 0;
}
