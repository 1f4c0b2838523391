/* codegen.c — LLVM module -> verified, optimised -> text, object, or linked ELF shared object (host). */
#include <errno.h>
#include <fcntl.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "codegen.h"
#include "default_pipeline.h"
#include "llvm_pass.h"
#include "split.h"
#include "support.h"

extern char **environ;
int p2n_lld_link_elf(const char *const *args, int nargs, char *err, unsigned long errlen);

#ifndef P2N_LD_LLD
#define P2N_LD_LLD "ld.lld-22"
#endif

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* The process-global LLVM options (cl::opt), kept for llvm_link: in-process lld resets EVERY cl::opt of the process
 * to its default (lld's driver calls cl::ResetAllOptionOccurrences() before parsing its -mllvm options), so after
 * a host or AMDGPU link the SPIR-V back end lost --spirv-ext (spirv64-1.2's intel_sub_group_* builtins then abort
 * with "requires SPV_INTEL_subgroups") and AMDGPU its scalar-IR-passes setting. Ours go to lld as -mllvm options,
 * which lld parses right after its reset; the user's ($P2N_LLVM_ARGS, possibly unknown to LLVM, which lld would
 * not ignore) are parsed again after the link. */
static const char *llvm_opts[64] = {"ptx2native"};
static int llvm_nown, llvm_nopts; /* [1, llvm_nown): ours; [llvm_nown, llvm_nopts): the user's */
static char *llvm_user_copy; /* $P2N_LLVM_ARGS, split: the user's options point into it */
static const char *target_opts[32];
static int n_target_opts;

void llvm_add_global_option(const char *opt) {
    for (int i = 0; i < n_target_opts; i++)
        if (!strcmp(target_opts[i], opt)) return;
    if (n_target_opts < 32) target_opts[n_target_opts++] = opt;
}

static void init_llvm(void) {
    /* (the targets' registration, target_desc.init_llvm, ran before: compile.c) */
    /* Process-global LLVM options, parsed once: every target's (llvm_add_global_option, from compile.c), unless
     * $P2N_LLVM_ARGS sets the same option, then the user's: more options, space-separated, e.g. "-time-passes"
     * (an option LLVM does not know is ignored: the C API parses silently). */
    const char *extra = getenv("P2N_LLVM_ARGS");
    char *copy = extra && *extra ? strdup(extra) : NULL;
    int argc = 1;
    for (int i = 0; i < n_target_opts && argc < 32; i++) {
        const char *o = target_opts[i], *eq = strchr(o, '=');
        size_t len = eq ? (size_t)(eq - o) : strlen(o);
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)len, o);
        if (!copy || !strstr(copy, name + strspn(name, "-"))) llvm_opts[argc++] = o;
    }
    llvm_nown = argc;
    for (char *tok = copy ? strtok(copy, " ") : NULL; tok && argc < 63; tok = strtok(NULL, " ")) llvm_opts[argc++] = tok;
    llvm_nopts = argc;
    llvm_user_copy = copy; /* the tokens point into it */
    LLVMParseCommandLineOptions(argc, llvm_opts, NULL);
    if (extra && strstr(extra, "-time-passes"))
        atexit(LLVMShutdown); /* LLVM prints those reports when it shuts down */
}

static bool write_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, n, f) == n;
    ok &= fclose(f) == 0;
    return ok;
}

/* ELF shared object from relocatable objects (one per partition): lld in process, or ld.lld as a
 * subprocess (the finish call of the host and AMDGPU targets). */
bool llvm_link(const target_desc *t, const void *const *objs, const size_t *lens, unsigned nobj, p2n_diags *d,
               uint8_t **data, size_t *size) {
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/p2n-link-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        diag_plain(d, "error", "cannot create a temporary directory for linking: %s", strerror(errno));
        return false;
    }
    char out[4200];
    char **in = calloc(nobj + 1, sizeof *in);
    const char **args = calloc(nobj + 16 + 2 * 64, sizeof *args);
    snprintf(out, sizeof out, "%s/k.so", dir);
    bool ok = false;
    unsigned written = 0;
    if (!in || !args) {
        diag_plain(d, "error", "internal compiler error: out of memory while linking");
        goto done;
    }
    int nargs = 0;
    const char *fixed[] = {"ld.lld", "-shared", "--no-undefined", "--threads=1", "-z", "noexecstack",
                           "--hash-style=both", "-o", out};
    for (unsigned k = 0; k < sizeof fixed / sizeof fixed[0]; k++) args[nargs++] = fixed[k];
    for (; written < nobj; written++) {
        in[written] = malloc(4200);
        if (!in[written]) break;
        snprintf(in[written], 4200, "%s/k%u.o", dir, written);
        if (!write_file(in[written], objs[written], lens[written])) {
            diag_plain(d, "error", "cannot write '%s': %s", in[written], strerror(errno));
            written++;
            goto done;
        }
        args[nargs++] = in[written];
    }
    /* in process only: our LLVM options again after lld's reset of all of them (init_llvm) */
    int nlink = nargs;
    for (int k = 1; k < llvm_nown; k++) {
        args[nlink++] = "-mllvm";
        args[nlink++] = llvm_opts[k];
    }
    args[nlink] = NULL;
    char err[4096] = "";
    int rc = getenv("P2N_LLD_SUBPROCESS") ? -1 : p2n_lld_link_elf(args, nlink, err, sizeof err);
    if (rc >= 0 && llvm_nopts > llvm_nown) {
        const char *user[64] = {"ptx2native"};
        int nuser = 1;
        for (int k = llvm_nown; k < llvm_nopts; k++) user[nuser++] = llvm_opts[k];
        LLVMParseCommandLineOptions(nuser, user, NULL);
    }
    args[nargs] = NULL;
    if (rc < 0) {
        /* in-process lld is unusable: run it as a subprocess */
        pid_t pid;
        args[0] = P2N_LD_LLD;
        int st = posix_spawnp(&pid, P2N_LD_LLD, NULL, NULL, (char *const *)args, environ);
        int status = 0;
        if (st != 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            diag_plain(d, "error", "internal compiler error: linking with %s failed", P2N_LD_LLD);
            goto done;
        }
    } else if (rc != 0) {
        diag_plain(d, "error", "internal compiler error: lld failed: %s", err);
        goto done;
    }
    ok = (p2n_read_file(out, data, size) == 0);
    if (!ok) diag_plain(d, "error", "internal compiler error: cannot read the linked object");
done:
    for (unsigned k = 0; k < written; k++) if (in[k]) { unlink(in[k]); free(in[k]); }
    free(in);
    free(args);
    unlink(out);
    rmdir(dir);
    return ok;
}

static long jobs_asked(const p2n_options *opt) {
    long j = opt->jobs;
    if (!j) {
        const char *e = getenv("P2N_JOBS");
        j = e && *e ? strtol(e, NULL, 10) : 1;
    }
    return j;
}

bool llvm_jobs_automatic(const p2n_options *opt) { return jobs_asked(opt) < 0; }

/* Threads for per-kernel code generation: the option, else $P2N_JOBS (so whole test suites can run
 * partitioned), else 1. Negative: one per online CPU. */
unsigned llvm_jobs(const p2n_options *opt) {
    long j = jobs_asked(opt);
    if (j < 0) j = sysconf(_SC_NPROCESSORS_ONLN);
    return j < 1 ? 1 : j > 256 ? 256 : (unsigned)j;
}

/* "One per CPU" (the command line's default) splits only where split.c's cost model expects this speed-up on
 * idle cores: below it the second thread's fixed costs (its own TargetMachine, bitcode read, a second object
 * to link) eat the gain, and on a loaded machine (make -j) they are pure extra CPU. An explicit -j N >= 2
 * splits every module it can. */
#define AUTO_MIN_GAIN 1.25

static LLVMTargetMachineRef make_tm(const target_desc *t, const p2n_options *opt, char **err) {
    LLVMTargetRef T;
    if (LLVMGetTargetFromTriple(t->triple, &T, err)) return NULL;
    LLVMCodeGenOptLevel lvl = opt->opt_level <= 0 ? LLVMCodeGenLevelNone : opt->opt_level == 1 ? LLVMCodeGenLevelLess
                              : opt->opt_level == 2 ? LLVMCodeGenLevelDefault : LLVMCodeGenLevelAggressive;
    /* SPIR-V: the module is already optimised (default<O2>) and every driver compiles it again; the code
     * generator's own IR passes at -O1+ (loop strength reduction, then CodeGenPrepare) turn a counted loop's
     * `i + 1 == 0` exit test into llvm.uadd.with.overflow = OpIAddCarry, which PoCL's llvm-spirv 15 cannot read
     * ("Unimplemented opcode 149": the fill loop of tests/conformance/ptx/heap/heap.ptx) */
    if (t->codegen_o0) lvl = LLVMCodeGenLevelNone;
    return LLVMCreateTargetMachine(T, t->triple, t->cpu, t->features ? t->features : "", lvl, LLVMRelocPIC,
                                   LLVMCodeModelDefault);
}

/* very long blocks cut into runs before rewrite-addrs' SROA promotes the registers (split_block.c says why) */
static bool pass_split_long_blocks(llvm_pass_ctx *X) {
    if (X->opt->opt_level <= 0) return true;
    LLVMBuilderRef B = LLVMCreateBuilderInContext(X->C);
    for (LLVMValueRef fn = LLVMGetFirstFunction(X->M); fn; fn = LLVMGetNextFunction(fn))
        if (!LLVMIsDeclaration(fn)) llvm_split_long_blocks(X->C, B, fn, LLVM_LONG_BLOCK);
    LLVMDisposeBuilder(B);
    return true;
}

/* before the optimiser, shared by every target at -O1 and above: addresses as GEPs (rewrite_addr.c), one f32 NaN
 * canonicalisation per arithmetic chain (defer_nan_canon.c) */
static const llvm_pass shared_pre_opt[] = {
    {"split-long-blocks", pass_split_long_blocks, false},
    {"rewrite-addrs", llvm_pass_rewrite_addrs, false},
    {"defer-nan-canon", llvm_pass_defer_nan_canon, false},
    {NULL, NULL, false},
};

static LLVMErrorRef pass_error(llvm_pass_ctx *X) {
    return X->error ? X->error : LLVMCreateStringError("an LLVM pass failed");
}

/* target pre_opt passes, the shared ones, default<On>, target post_opt passes (no diagnostics here: thread-safe
 * for -j partitions; a failure is the returned error) */
static LLVMErrorRef run_pipeline(LLVMModuleRef M, LLVMTargetMachineRef TM, const target_desc *t, const p2n_options *opt) {
    llvm_pass_ctx X = {.C = LLVMGetModuleContext(M), .M = M, .TM = TM, .t = t, .opt = opt};
    if (!llvm_run_passes(t->pre_opt, &X) || !llvm_run_passes(shared_pre_opt, &X)) return pass_error(&X);
    LLVMErrorRef e = p2n_run_default_pipeline(M, TM, opt->opt_level, !t->no_slp_vectorizer);
    if (!e && !llvm_run_passes(t->post_opt, &X)) e = pass_error(&X);
    return e;
}

bool llvm_opt_emit(LLVMModuleRef M, const target_desc *t, const p2n_options *opt, LLVMMemoryBufferRef *obj,
                   char *err, size_t errlen, double times[2]) {
    char *msg = NULL;
    bool ok = false;
    double t0 = p2n_now_s();
    LLVMTargetMachineRef TM = make_tm(t, opt, &msg);
    if (!TM) {
        snprintf(err, errlen, "no LLVM target for %s: %s", t->triple, msg ? msg : "");
        goto out;
    }
    LLVMErrorRef e = run_pipeline(M, TM, t, opt);
    llvm_pass_ctx X = {.C = LLVMGetModuleContext(M), .M = M, .TM = TM, .t = t, .opt = opt};
    if (!e && !llvm_run_passes(t->pre_codegen, &X)) e = pass_error(&X);
    if (e) {
        char *m = LLVMGetErrorMessage(e);
        snprintf(err, errlen, "LLVM passes failed: %s", m);
        LLVMDisposeErrorMessage(m);
        goto out;
    }
    double t1 = p2n_now_s();
    if (t->emit_object ? !t->emit_object(TM, M, LLVMObjectFile, &msg, obj)
                       : LLVMTargetMachineEmitToMemoryBuffer(TM, M, LLVMObjectFile, &msg, obj)) {
        snprintf(err, errlen, "code generation failed: %s", msg ? msg : "");
        goto out;
    }
    times[0] = t1 - t0;
    times[1] = p2n_now_s() - t1;
    ok = true;
out:
    if (msg) LLVMDisposeMessage(msg);
    if (TM) LLVMDisposeTargetMachine(TM);
    return ok;
}

p2n_status llvm_codegen(LLVMContextRef C, LLVMModuleRef M, const target_desc *t, const p2n_options *opt,
                        llvm_early_workers *early, p2n_diags *d, uint8_t **data, size_t *size, double *times) {
    pthread_once(&init_once, init_llvm);
    p2n_status st = P2N_INTERNAL_ERROR;
    char *err = NULL;
    LLVMTargetMachineRef TM = NULL;
    double t0 = p2n_now_s();
    if (!(TM = make_tm(t, opt, &err))) {
        diag_plain(d, "error", "internal compiler error: no LLVM target for %s: %s", t->triple, err ? err : "");
        goto out;
    }
    LLVMTargetDataRef DL = LLVMCreateTargetDataLayout(TM);
    LLVMSetModuleDataLayout(M, DL);
    LLVMDisposeTargetData(DL);
    /* -j N: one partition per group of kernels, optimised and compiled on N threads, linked into one
     * object (SPIR-V: the back end's output cannot be linked here, so it stays whole; text output too). The
     * plan only walks the IR; each partition is verified on its thread before any pass runs (parallel.c), so
     * the verification is off the serial path. */
    split_plan plan;
    unsigned jobs = llvm_jobs(opt);
    if (jobs > 1 && opt->emit == P2N_EMIT_OBJ && t->split_kernels) {
        bool automatic = jobs_asked(opt) < 0;
        double gain = 0;
        if (split_plan_make(M, t, jobs, automatic ? AUTO_MIN_GAIN : 0, &plan, &gain)) {
            LLVMDisposeTargetMachine(TM);
            st = llvm_codegen_parallel(C, M, &plan, t, opt, early, d, data, size, times);
            split_plan_free(&plan);
            return st; /* C and M are disposed there */
        }
        llvm_early_stop(early);
        if (opt->verbose && gain > 0)
            fprintf(stderr, "ptx2native: -j%u: compiled whole (estimated speed-up %.2fx < %.2fx)\n", jobs, gain,
                    AUTO_MIN_GAIN);
        else if (opt->verbose)
            fprintf(stderr, "ptx2native: -j%u: compiled whole (fewer than two kernels, or helpers whose address "
                    "is taken)\n", jobs);
    }
    if (LLVMVerifyModule(M, LLVMReturnStatusAction, &err)) {
        diag_plain(d, "error", "internal compiler error: invalid LLVM IR: %.2000s", err ? err : "");
        goto out;
    }
    LLVMDisposeMessage(err);
    err = NULL;
    LLVMErrorRef e = run_pipeline(M, TM, t, opt);
    if (e) {
        char *msg = LLVMGetErrorMessage(e);
        diag_plain(d, "error", "internal compiler error: LLVM passes failed: %s", msg);
        LLVMDisposeErrorMessage(msg);
        goto out;
    }
    double t1 = p2n_now_s();
    if (times) times[0] = t1 - t0;
    if (opt->emit == P2N_EMIT_LLVM) {
        char *s = LLVMPrintModuleToString(M);
        *size = strlen(s);
        *data = malloc(*size + 1);
        memcpy(*data, s, *size + 1);
        LLVMDisposeMessage(s);
        st = P2N_OK;
        goto out;
    }
    llvm_pass_ctx X = {.C = C, .M = M, .TM = TM, .t = t, .opt = opt, .d = d};
    if (!llvm_run_passes(t->pre_codegen, &X)) { /* e.g. SPIR-V: what its back end cannot take */
        st = X.internal ? P2N_INTERNAL_ERROR : P2N_UNSUPPORTED;
        if (X.error) {
            char *msg = LLVMGetErrorMessage(X.error);
            diag_plain(d, "error", "internal compiler error: %s", msg);
            LLVMDisposeErrorMessage(msg);
            st = P2N_INTERNAL_ERROR;
        }
        goto out;
    }
    LLVMMemoryBufferRef buf;
    LLVMCodeGenFileType ft = opt->emit == P2N_EMIT_ASM ? LLVMAssemblyFile : LLVMObjectFile;
    if (t->emit_object ? !t->emit_object(TM, M, ft, &err, &buf) : LLVMTargetMachineEmitToMemoryBuffer(TM, M, ft, &err, &buf)) {
        diag_plain(d, "error", "internal compiler error: code generation failed: %s", err ? err : "");
        goto out;
    }
    double t2 = p2n_now_s();
    if (times) times[1] = t2 - t1;
    const char *bytes = LLVMGetBufferStart(buf);
    size_t n = LLVMGetBufferSize(buf);
    if (opt->emit == P2N_EMIT_ASM) {
        *data = malloc(n + 1);
        memcpy(*data, bytes, n);
        (*data)[n] = 0;
        *size = n;
        st = P2N_OK;
    } else {
        st = t->finish(t, M, (const void *const *)&bytes, &n, 1, d, data, size); /* link, metadata, validation */
    }
    if (times) times[2] = p2n_now_s() - t2;
    LLVMDisposeMemoryBuffer(buf);
out:
    if (err) LLVMDisposeMessage(err);
    if (TM) LLVMDisposeTargetMachine(TM);
    LLVMDisposeModule(M);
    LLVMContextDispose(C);
    return st;
}
