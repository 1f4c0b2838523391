/* test_spirv_recompile.c — the same PTX compiled to SPIR-V many times in one process gives the same, valid module
 * every time (no OpenCL runtime needed: p2n_compile validates every SPIR-V module in process).
 *
 * Why: LLVM 22's SPIR-V back end keeps its module analysis in a static (SPIRVModuleAnalysis::MAI, llvm-project
 * issue #160613) whose basic-block -> id table is keyed by MachineFunction address and never cleared. A later
 * compile in the same process whose MachineFunction lands at an address an earlier one had takes that earlier
 * compile's OpLabel ids: "Id N is defined more than once" (spirv.opencl.pocl.cluster failed 1 run in 2 once
 * test_cluster.c loaded cluster.ptx five times). targets/spirv/spirv_codegen_child.c runs the back end in a
 * child process; this test compiles each module `rounds` times, alternating them so that the heap is reused in
 * different patterns, and wants every result OK and byte-identical to the first compile of that module; with
 * THREADS > 1 the rounds after the first run on that many threads at once (forks while other threads are in LLVM).
 * Usage: test_spirv_recompile ROUNDS THREADS FILE.ptx... */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx2native.h"

static char *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(len > 0 ? (size_t)len : 1);
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) { free(b); b = NULL; }
    fclose(f);
    *n = (size_t)len;
    return b;
}

typedef struct work {
    int rounds, nfiles, bad;
    char **ptx, **names;
    size_t *len;
    p2n_result *first;
    const p2n_options *o;
} work;

/* compiles every module `rounds` times; first[i].data == NULL: this compile becomes first[i] */
static void *compile_rounds(void *arg) {
    work *w = arg;
    for (int r = 0; r < w->rounds; r++)
        for (int i = 0; i < w->nfiles; i++) {
            p2n_result res = {0};
            p2n_status st = p2n_compile(w->ptx[i], w->len[i], w->names[i], w->o, &res);
            if (st != P2N_OK) {
                fprintf(stderr, "check failed: round %d, %s: status %d\n%s", r, w->names[i], (int)st,
                        res.diagnostics ? res.diagnostics : "");
                w->bad++;
            } else if (!w->first[i].data) {
                w->first[i] = res;
                continue;
            } else if (res.size != w->first[i].size || memcmp(res.data, w->first[i].data, res.size)) {
                fprintf(stderr, "check failed: round %d, %s: %zu bytes differ from the first compile's %zu\n", r,
                        w->names[i], res.size, w->first[i].size);
                w->bad++;
            }
            p2n_result_free(&res);
        }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: test_spirv_recompile ROUNDS THREADS FILE.ptx...\n"); return 2; }
    int rounds = atoi(argv[1]), nthreads = atoi(argv[2]), nfiles = argc - 3, bad = 0;
    if (nthreads < 1 || nthreads > 16) nthreads = 1;
    char **ptx = calloc((size_t)nfiles, sizeof *ptx);
    size_t *len = calloc((size_t)nfiles, sizeof *len);
    p2n_result *first = calloc((size_t)nfiles, sizeof *first);
    /* what the driver stub asks for on PoCL's CPU device (driver-stub/module.c parse_jit) */
    p2n_options o = {.arch = "spirv64", .opt_level = 3, .emit = P2N_EMIT_OBJ, .defer_unsupported = 1,
                     .device_lacks = P2N_LACKS_SUBGROUPS | P2N_LACKS_FORWARD_PROGRESS | P2N_LACKS_WG_COLLECTIVES |
                                     P2N_LACKS_PROGRAM_GLOBALS | P2N_LACKS_FAULT_ISOLATION | P2N_LACKS_SPACE_QUERY |
                                     P2N_LACKS_RECURSION};
    for (int i = 0; i < nfiles; i++)
        if (!(ptx[i] = read_all(argv[3 + i], &len[i]))) {
            fprintf(stderr, "test_spirv_recompile: cannot read %s; cannot continue\n", argv[3 + i]);
            return 1;
        }
    /* the first compile of each module on this thread, then the other rounds on `nthreads` threads at once (as
     * ptx2native-fatbin -j N does): every compile forks while the others run LLVM */
    work w0 = {.rounds = 1, .nfiles = nfiles, .ptx = ptx, .names = argv + 3, .len = len, .first = first, .o = &o};
    compile_rounds(&w0);
    bad += w0.bad;
    work *w = calloc((size_t)nthreads, sizeof *w);
    pthread_t th[16];
    for (int t = 0; t < nthreads; t++) {
        w[t] = w0;
        w[t].rounds = (rounds - 1 + nthreads - 1) / nthreads;
        w[t].bad = 0;
        if (t > 0 && pthread_create(&th[t], NULL, compile_rounds, &w[t]) != 0) {
            fprintf(stderr, "test_spirv_recompile: cannot start a thread; cannot continue\n");
            return 1;
        }
    }
    compile_rounds(&w[0]);
    for (int t = 1; t < nthreads; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < nthreads; t++) bad += w[t].bad;
    for (int i = 0; i < nfiles; i++) { p2n_result_free(&first[i]); free(ptx[i]); }
    free(w);
    free(first);
    free(ptx);
    free(len);
    if (bad) { fprintf(stderr, "test_spirv_recompile: %d failures\n", bad); return 1; }
    printf("test_spirv_recompile: all checks passed (%d rounds of %d modules on %d threads)\n",
           1 + (rounds - 1 + nthreads - 1) / nthreads * nthreads, nfiles, nthreads);
    return 0;
}
