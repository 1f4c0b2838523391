/* parallel.c — -j N: optimise and compile the partitions of a module on N threads, then link them.
 *
 * An LLVMContext (and everything in it) is not thread-safe, so every partition other than the caller's needs a
 * copy of the module in a context of its own. Two routes to that copy:
 *   early   (the usual one) the partition threads start before the caller emits the module and emit their own
 *           copy from the same IR, at the same time (llvm_early_start; emission is deterministic, and
 *           split_apply replays the plan's promotions and checks every item's name). When the plan is made
 *           they cut their copy down and compile it: the critical path has no bitcode write and read (on
 *           many_kernels.ptx, gfx942, ~0.035 s + ~0.04 s of a ~0.85 s -j2 compile).
 *   bitcode the planned module is written to bitcode once; each thread reads it lazily into its own context,
 *           so that only the bodies its partition defines are parsed (split_apply). Used when no early
 *           threads were started (-j by default on a busy machine, or P2N_SPLIT_BITCODE=1, which the tests
 *           use to check that both routes give the same bytes).
 * Either way the calling thread cuts the module it already holds down to partition 0 (the plan's largest) and
 * compiles it while the other threads take the remaining partitions from a shared queue, largest first. Each
 * partition runs the serial path's pipeline and code generation; the objects are linked in partition order,
 * so the output does not depend on which thread compiled what. */
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "codegen.h"
#include "split.h"
#include "support.h"

typedef struct part_job {
    LLVMMemoryBufferRef obj; /* the partition's object file */
    char err[1024];
    double times[2];
    double cpu; /* CPU seconds of the thread on this partition: contention-independent balance figure */
} part_job;

typedef struct shared_work {
    const char *bc; /* the planned module's bitcode; NULL: early workers emit their own copies */
    size_t bclen;
    const split_plan *plan;
    const target_desc *t;
    const p2n_options *opt;
    part_job *jobs;
    atomic_uint next; /* the queue: partitions 1 .. nparts-1 in plan order (largest first) */
    const char *datalayout; /* early copies: the caller's module's (llvm_codegen sets it after emission) */
} shared_work;

struct llvm_early_workers {
    llvm_emit_fn emit;
    void *ctx;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    shared_work *work; /* set when the split is made */
    bool stop;         /* no split: discard the copies */
    bool joined;
    unsigned started;
    _Atomic double emit_cpu; /* CPU seconds of the copies emitted before the plan: parallel, not serial */
    pthread_t tid[];
};

static double cpu_now(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Partition p of the module M (alone in C): cut, optimise, emit; disposes of M and C. */
static void compile_part(shared_work *w, unsigned p, LLVMContextRef C, LLVMModuleRef M) {
    part_job *j = &w->jobs[p];
    char *msg = NULL;
    if (!split_apply(M, w->plan, p)) {
        snprintf(j->err, sizeof j->err, "partition %u does not match its plan", p);
    } else if (LLVMVerifyModule(M, LLVMReturnStatusAction, &msg)) { /* LLVM aborts on invalid IR */
        snprintf(j->err, sizeof j->err, "invalid LLVM IR in partition %u: %.900s", p, msg ? msg : "");
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
    if (msg) LLVMDisposeMessage(msg);
    LLVMDisposeModule(M);
    LLVMContextDispose(C);
}

static void run_part(shared_work *w, unsigned p) {
    part_job *j = &w->jobs[p];
    double c0 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
    LLVMContextRef C = LLVMContextCreate();
    LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRange(w->bc, w->bclen, "p2n-partition", 0);
    LLVMModuleRef M = NULL;
    /* lazy: function bodies stay in the bitcode until split_apply asks for them; the module owns mb */
    if (LLVMGetBitcodeModuleInContext2(C, mb, &M)) {
        snprintf(j->err, sizeof j->err, "cannot read back the bitcode of partition %u", p);
        LLVMDisposeMemoryBuffer(mb);
        LLVMContextDispose(C);
    } else {
        compile_part(w, p, C, M);
    }
    j->cpu = cpu_now(CLOCK_THREAD_CPUTIME_ID) - c0;
}

static void *worker(void *arg) {
    shared_work *w = arg;
    for (unsigned p; (p = atomic_fetch_add(&w->next, 1)) < w->plan->nparts;) run_part(w, p);
    return NULL;
}

/* Partition p on an early copy: C/M when M is not NULL (the worker's first copy), else a fresh one; records the
 * thread CPU it took. */
static void compile_copy(shared_work *w, llvm_early_workers *h, unsigned p, LLVMContextRef C, LLVMModuleRef M) {
    double c0 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
    if (M || h->emit(h->ctx, &C, &M)) {
        LLVMSetDataLayout(M, w->datalayout);
        compile_part(w, p, C, M);
    } else {
        snprintf(w->jobs[p].err, sizeof w->jobs[p].err, "partition %u: the module could not be emitted again", p);
    }
    w->jobs[p].cpu = cpu_now(CLOCK_THREAD_CPUTIME_ID) - c0;
}

/* An early worker: emits its copy while the caller emits the module, waits for the plan, then compiles
 * partitions from the queue, the first on that copy and any later one on a fresh copy. */
static void *early_main(void *arg) {
    llvm_early_workers *h = arg;
    double c0 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
    LLVMContextRef C = NULL;
    LLVMModuleRef M = NULL;
    bool have = h->emit(h->ctx, &C, &M);
    double spent = cpu_now(CLOCK_THREAD_CPUTIME_ID) - c0, cur = h->emit_cpu;
    while (!atomic_compare_exchange_weak(&h->emit_cpu, &cur, cur + spent)) {}
    pthread_mutex_lock(&h->mu);
    while (!h->work && !h->stop) pthread_cond_wait(&h->cv, &h->mu);
    shared_work *w = h->work;
    pthread_mutex_unlock(&h->mu);
    for (unsigned p; w && (p = atomic_fetch_add(&w->next, 1)) < w->plan->nparts; have = false)
        compile_copy(w, h, p, have ? C : NULL, have ? M : NULL);
    if (have) {
        LLVMDisposeModule(M);
        LLVMContextDispose(C);
    }
    return NULL;
}

llvm_early_workers *llvm_early_start(const target_desc *t, const p2n_options *opt, unsigned nkernels,
                                     llvm_emit_fn emit, void *ctx) {
    unsigned n = llvm_jobs(opt);
    if (n > nkernels) n = nkernels;
    if (n < 2 || opt->emit != P2N_EMIT_OBJ || !t->split_kernels) return NULL;
    const char *bc = getenv("P2N_SPLIT_BITCODE"); /* tests: the bitcode route must give the same bytes */
    if (bc && *bc && *bc != '0') return NULL;
    /* The copies are speculative: made before the plan says whether the module splits. With -j by default they
     * are made only while a core is idle (the 1-minute load average below the CPU count minus one), where
     * they cost no wall time; in a loaded build (make -j) a module that then compiles whole would pay a second
     * emission for nothing, and the bitcode route serves the modules that do split. */
    if (llvm_jobs_automatic(opt)) {
        double load;
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        if (getloadavg(&load, 1) != 1 || load > (double)cpus - 1.0) return NULL;
    }
    llvm_early_workers *h = calloc(1, sizeof *h + (n - 1) * sizeof(pthread_t));
    if (!h) return NULL; /* the bitcode route: only slower */
    h->emit = emit;
    h->ctx = ctx;
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 16u << 20); /* LLVM recurses deeply on big functions: not ulimit's 8M */
    while (h->started + 1 < n && pthread_create(&h->tid[h->started], &attr, early_main, h) == 0) h->started++;
    pthread_attr_destroy(&attr);
    if (!h->started) {
        llvm_early_finish(h);
        return NULL;
    }
    return h;
}

static void early_join(llvm_early_workers *h) {
    if (h->joined) return;
    for (unsigned k = 0; k < h->started; k++) pthread_join(h->tid[k], NULL);
    h->joined = true;
}

/* hands the plan's work to the early workers (NULL: none, they discard their copies) */
static void llvm_early_finish_work(llvm_early_workers *h, shared_work *w) {
    pthread_mutex_lock(&h->mu);
    h->work = w;
    h->stop = !w;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
}

void llvm_early_stop(llvm_early_workers *h) {
    if (h) llvm_early_finish_work(h, NULL);
}

void llvm_early_finish(llvm_early_workers *h) {
    if (!h) return;
    pthread_mutex_lock(&h->mu);
    h->stop = true;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    early_join(h);
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    free(h);
}

/* Bodies that only partition 0 defines stay out of the bitcode (the calling thread compiles partition 0 on the
 * module it holds): their blocks are taken out of the function while the bitcode is written, so that the
 * writer sees a declaration, and put back in the same order afterwards (same IR: no use, value or name
 * changes). That is about half of the write on two threads. split_apply makes such a (local) declaration an
 * external one, or drops it, in the other partitions, which never define it. */
typedef struct detached {
    LLVMValueRef f;
    LLVMBasicBlockRef *bbs;
    unsigned n;
} detached;

static unsigned detach_part0_bodies(LLVMModuleRef M, const split_plan *plan, detached *out) {
    unsigned nd = 0, i = 0, n = plan->nitems;
    for (LLVMValueRef g = LLVMGetFirstGlobal(M); g; g = LLVMGetNextGlobal(g)) i++;
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f && i < n; f = LLVMGetNextFunction(f), i++) {
        if (!plan->define[i] || LLVMIsDeclaration(f)) continue;
        bool elsewhere = false;
        for (unsigned p = 1; p < plan->nparts && !elsewhere; p++) elsewhere = plan->define[(size_t)p * n + i];
        if (elsewhere) continue;
        unsigned nb = LLVMCountBasicBlocks(f);
        LLVMBasicBlockRef *bbs = malloc(nb * sizeof *bbs);
        if (!bbs) continue; /* written whole: only slower */
        LLVMGetBasicBlocks(f, bbs);
        for (unsigned k = 0; k < nb; k++) LLVMRemoveBasicBlockFromParent(bbs[k]);
        out[nd++] = (detached){f, bbs, nb};
    }
    return nd;
}

static void reattach(detached *d, unsigned nd) {
    for (unsigned k = 0; k < nd; k++) {
        for (unsigned b = 0; b < d[k].n; b++) LLVMAppendExistingBasicBlock(d[k].f, d[k].bbs[b]);
        free(d[k].bbs);
    }
}

/* Wall time of the partitions on n idle threads, from their CPU seconds: partition 0 on the first thread,
 * then each queued partition on the thread that frees up first (what the shared queue does). */
static double makespan(const part_job *jobs, unsigned np, unsigned n) {
    double load[256] = {0};
    if (n > 256) n = 256;
    load[0] = jobs[0].cpu;
    for (unsigned p = 1; p < np; p++) {
        unsigned k = 0;
        for (unsigned i = 1; i < n; i++) if (load[i] < load[k]) k = i;
        load[k] += jobs[p].cpu;
    }
    double mx = 0;
    for (unsigned i = 0; i < n; i++) if (load[i] > mx) mx = load[i];
    return mx;
}

p2n_status llvm_codegen_parallel(LLVMContextRef C, LLVMModuleRef M, const split_plan *plan, const target_desc *t,
                                 const p2n_options *opt, llvm_early_workers *early, p2n_diags *d, uint8_t **data,
                                 size_t *size, double *times) {
    double t0 = p2n_now_s();
    const char *dump = getenv("P2N_SPLIT_DUMP");
    if (dump && *dump) {
        char path[4200], *msg = NULL;
        snprintf(path, sizeof path, "%s/whole.ll", dump);
        if (LLVMPrintModuleToFile(M, path, &msg)) LLVMDisposeMessage(msg);
    }
    unsigned np = plan->nparts, nthreads = llvm_jobs(opt);
    if (nthreads > np) nthreads = np;
    part_job *jobs = calloc(np, sizeof *jobs);
    pthread_t *tid = calloc(nthreads, sizeof *tid);
    LLVMMemoryBufferRef bc = NULL;
    char *layout = NULL;
    p2n_status st = P2N_INTERNAL_ERROR;
    if (!early) {
        detached *det = calloc(plan->nitems + 1, sizeof *det);
        unsigned ndet = det ? detach_part0_bodies(M, plan, det) : 0;
        bc = LLVMWriteBitcodeToMemoryBuffer(M);
        reattach(det, ndet);
        free(det);
    } else {
        layout = strdup(LLVMGetDataLayoutStr(M));
    }
    if ((!early && !bc) || (early && !layout) || !jobs || !tid) {
        diag_plain(d, "error", "internal compiler error: out of memory in parallel code generation");
        LLVMDisposeModule(M);
        LLVMContextDispose(C);
        if (early) llvm_early_finish_work(early, NULL);
        goto out;
    }
    shared_work w = {bc ? LLVMGetBufferStart(bc) : NULL, bc ? LLVMGetBufferSize(bc) : 0, plan, t, opt, jobs, 1,
                     layout};
    unsigned started = 0;
    if (early) {
        llvm_early_finish_work(early, &w); /* its threads take partitions 1.. from the queue */
    } else {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 16u << 20); /* LLVM recurses deeply on big functions: not ulimit's 8M */
        for (; started + 1 < nthreads; started++)
            if (pthread_create(&tid[started], &attr, worker, &w) != 0) break;
        pthread_attr_destroy(&attr);
    }
    /* the calling thread compiles partition 0 on the module it holds, then helps with the queue (and does
     * all the work if no thread started) */
    double c0 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
    compile_part(&w, 0, C, M);
    jobs[0].cpu = cpu_now(CLOCK_THREAD_CPUTIME_ID) - c0;
    if (early) {
        for (unsigned p; (p = atomic_fetch_add(&w.next, 1)) < np;) compile_copy(&w, early, p, NULL, NULL);
        early_join(early);
    } else {
        worker(&w);
    }
    for (unsigned k = 0; k < started; k++) pthread_join(tid[k], NULL);
    double t1 = p2n_now_s();
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
    if (ok) st = t->finish(t, NULL, objs, lens, np, d, data, size); /* link, metadata merge */
    if (times) {
        /* wall time of the parallel part, split like the serial path's stages by the slowest partition */
        double par = t1 - t0, sum = opt_max + cg_max;
        times[0] = sum > 0 ? par * opt_max / sum : par;
        times[1] = par - times[0];
        times[2] = p2n_now_s() - t1;
    }
    if (opt->verbose) {
        /* CPU seconds per partition and of everything else so far: with a core per thread the wall time
         * would be about serial + the partitions' schedule on idle threads, whatever else loads the machine */
        double sum = 0;
        fprintf(stderr, "ptx2native: -j%u: %u partitions on %u threads (estimated speed-up %.2fx); partition CPU",
                llvm_jobs(opt), np, nthreads, plan->gain);
        for (unsigned p = 0; p < np; p++) {
            fprintf(stderr, " %.3fs", jobs[p].cpu);
            sum += jobs[p].cpu;
        }
        double serial = cpu_now(CLOCK_PROCESS_CPUTIME_ID) - sum - (early ? early->emit_cpu : 0);
        fprintf(stderr, "; serial CPU %.3fs; critical path %.3fs\n", serial, serial + makespan(jobs, np, nthreads));
    }
    free(objs);
    free(lens);
out:
    if (jobs)
        for (unsigned p = 0; p < np; p++) if (jobs[p].obj) LLVMDisposeMemoryBuffer(jobs[p].obj);
    free(jobs);
    free(tid);
    free(layout);
    if (bc) LLVMDisposeMemoryBuffer(bc);
    return st;
}
