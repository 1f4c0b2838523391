/* parallel.c — -j N: optimise and compile the partitions of a module on N threads, then link them.
 *
 * An LLVMContext (and everything in it) is not thread-safe, so the planned module is written to bitcode
 * once and every worker parses it into a context of its own, cuts it down to its partition (split_apply),
 * and runs the same pipeline + code generation as the serial path. Parsing the whole module per partition
 * costs little next to optimisation, and keeps the serial part (planning, one bitcode write) short. */
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen.h"
#include "split.h"

typedef struct part_job {
    LLVMMemoryBufferRef obj; /* the partition's object file */
    char err[1024];
    double times[2];
    double cpu; /* CPU seconds of the thread on this partition: contention-independent balance figure */
} part_job;

typedef struct shared_work {
    const char *bc;
    size_t bclen;
    const split_plan *plan;
    const target_desc *t;
    const p2n_options *opt;
    part_job *jobs;
    atomic_uint next;
} shared_work;

static double cpu_now(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void run_part(shared_work *w, unsigned p) {
    part_job *j = &w->jobs[p];
    double c0 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
    LLVMContextRef C = LLVMContextCreate();
    LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRange(w->bc, w->bclen, "p2n-partition", 0);
    LLVMModuleRef M = NULL;
    if (LLVMParseBitcodeInContext2(C, mb, &M)) {
        snprintf(j->err, sizeof j->err, "cannot read back the bitcode of partition %u", p);
    } else if (!split_apply(M, w->plan, p)) {
        snprintf(j->err, sizeof j->err, "partition %u does not match its plan", p);
    } else {
        const char *dump = getenv("P2N_SPLIT_DUMP"); /* debugging aid: DIR/partN.ll before optimisation */
        if (dump && *dump) {
            char path[4200];
            snprintf(path, sizeof path, "%s/part%u.ll", dump, p);
            char *msg = NULL;
            if (LLVMPrintModuleToFile(M, path, &msg)) LLVMDisposeMessage(msg);
        }
        llvm_opt_emit(M, w->t, w->opt, &j->obj, j->err, sizeof j->err, j->times);
    }
    LLVMDisposeMemoryBuffer(mb);
    if (M) LLVMDisposeModule(M);
    LLVMContextDispose(C);
    j->cpu = cpu_now(CLOCK_THREAD_CPUTIME_ID) - c0;
}

static void *worker(void *arg) {
    shared_work *w = arg;
    for (unsigned p; (p = atomic_fetch_add(&w->next, 1)) < w->plan->nparts;) run_part(w, p);
    return NULL;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

p2n_status llvm_codegen_parallel(LLVMContextRef C, LLVMModuleRef M, const split_plan *plan, const target_desc *t,
                                 const p2n_options *opt, p2n_diags *d, uint8_t **data, size_t *size,
                                 double *times) {
    double t0 = now();
    const char *dump = getenv("P2N_SPLIT_DUMP");
    if (dump && *dump) {
        char path[4200], *msg = NULL;
        snprintf(path, sizeof path, "%s/whole.ll", dump);
        if (LLVMPrintModuleToFile(M, path, &msg)) LLVMDisposeMessage(msg);
    }
    LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(M);
    /* the workers own everything from here on: free the caller's module before they allocate theirs */
    LLVMDisposeModule(M);
    LLVMContextDispose(C);
    unsigned np = plan->nparts, nthreads = llvm_jobs(opt);
    if (nthreads > np) nthreads = np;
    part_job *jobs = calloc(np, sizeof *jobs);
    pthread_t *tid = calloc(nthreads, sizeof *tid);
    p2n_status st = P2N_INTERNAL_ERROR;
    if (!bc || !jobs || !tid) {
        diag_plain(d, "error", "internal compiler error: out of memory in parallel code generation");
        goto out;
    }
    shared_work w = {LLVMGetBufferStart(bc), LLVMGetBufferSize(bc), plan, t, opt, jobs, 0};
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 16u << 20); /* LLVM recurses deeply on big functions: not ulimit's 8M */
    unsigned started = 0;
    for (; started + 1 < nthreads; started++)
        if (pthread_create(&tid[started], &attr, worker, &w) != 0) break;
    pthread_attr_destroy(&attr);
    worker(&w); /* the calling thread is one of the workers (and does all the work if none started) */
    for (unsigned k = 0; k < started; k++) pthread_join(tid[k], NULL);
    double t1 = now();
    const void **objs = calloc(np, sizeof *objs);
    size_t *lens = calloc(np, sizeof *lens);
    bool ok = objs && lens;
    double opt_max = 0, cg_max = 0;
    for (unsigned p = 0; p < np && ok; p++) {
        if (!jobs[p].obj) {
            diag_plain(d, "error", "internal compiler error: %s", jobs[p].err[0] ? jobs[p].err : "partition failed");
            ok = false;
            break;
        }
        objs[p] = LLVMGetBufferStart(jobs[p].obj);
        lens[p] = LLVMGetBufferSize(jobs[p].obj);
        if (jobs[p].times[0] > opt_max) opt_max = jobs[p].times[0];
        if (jobs[p].times[1] > cg_max) cg_max = jobs[p].times[1];
    }
    if (ok && llvm_link(t, objs, lens, np, d, data, size)) st = P2N_OK;
    if (times) {
        /* wall time of the parallel part, split like the serial path's stages by the slowest partition */
        double par = t1 - t0, sum = opt_max + cg_max;
        times[0] = sum > 0 ? par * opt_max / sum : par;
        times[1] = par - times[0];
        times[2] = now() - t1;
    }
    if (opt->verbose) {
        /* CPU seconds per partition and of everything else so far: with a core per thread the wall time
         * would be about serial + the largest partition, whatever else loads the machine now */
        double sum = 0, mx = 0;
        fprintf(stderr, "ptx2native: -j%u: %u partitions on %u threads (estimated speed-up %.2fx); partition CPU",
                llvm_jobs(opt), np, nthreads, plan->gain);
        for (unsigned p = 0; p < np; p++) {
            fprintf(stderr, " %.3fs", jobs[p].cpu);
            sum += jobs[p].cpu;
            if (jobs[p].cpu > mx) mx = jobs[p].cpu;
        }
        double serial = cpu_now(CLOCK_PROCESS_CPUTIME_ID) - sum;
        fprintf(stderr, "; serial CPU %.3fs; critical path %.3fs\n", serial, serial + mx);
    }
    free(objs);
    free(lens);
out:
    if (jobs)
        for (unsigned p = 0; p < np; p++) if (jobs[p].obj) LLVMDisposeMemoryBuffer(jobs[p].obj);
    free(jobs);
    free(tid);
    if (bc) LLVMDisposeMemoryBuffer(bc);
    return st;
}
