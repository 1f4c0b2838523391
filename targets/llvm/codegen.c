/* codegen.c — LLVM module -> verified, optimised -> text, object, or linked ELF shared object (host). */
#include <errno.h>
#include <fcntl.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
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
#include "../spirv/spirv_target.h"
#include "../amdgpu/amdgpu_target.h"

extern char **environ;
int p2n_lld_link_elf(const char *const *args, int nargs, char *err, unsigned long errlen);

#ifndef P2N_LD_LLD
#define P2N_LD_LLD "ld.lld-22"
#endif

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static void init_llvm(void) {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    spirv_init_llvm();
    amdgpu_init_llvm();
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool write_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, n, f) == n;
    ok &= fclose(f) == 0;
    return ok;
}

static bool read_file(const char *path, uint8_t **data, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
    bool ok = buf && len >= 0 && fread(buf, 1, (size_t)len, f) == (size_t)len;
    fclose(f);
    if (!ok) { free(buf); return false; }
    *data = buf;
    *n = (size_t)len;
    return true;
}

/* ELF shared object from one relocatable object: lld in process, or ld.lld as a subprocess. */
static bool link_shared(const void *obj, size_t objlen, p2n_diags *d, uint8_t **data, size_t *size) {
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/p2n-link-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        diag_plain(d, "error", "cannot create a temporary directory for linking: %s", strerror(errno));
        return false;
    }
    char in[4200], out[4200];
    snprintf(in, sizeof in, "%s/k.o", dir);
    snprintf(out, sizeof out, "%s/k.so", dir);
    bool ok = false;
    if (!write_file(in, obj, objlen)) {
        diag_plain(d, "error", "cannot write '%s': %s", in, strerror(errno));
        goto done;
    }
    const char *args[] = {"ld.lld", "-shared", "--no-undefined", "--threads=1", "-z", "noexecstack", "--hash-style=both",
                          "-o", out, in, NULL};
    int nargs = (int)(sizeof args / sizeof args[0]) - 1;
    char err[4096] = "";
    int rc = getenv("P2N_LLD_SUBPROCESS") ? -1 : p2n_lld_link_elf(args, nargs, err, sizeof err);
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
    ok = read_file(out, data, size);
    if (!ok) diag_plain(d, "error", "internal compiler error: cannot read the linked object");
done:
    unlink(in);
    unlink(out);
    rmdir(dir);
    return ok;
}

p2n_status llvm_codegen(LLVMContextRef C, LLVMModuleRef M, const target_desc *t, const p2n_options *opt,
                        p2n_diags *d, uint8_t **data, size_t *size, double *times) {
    pthread_once(&init_once, init_llvm);
    p2n_status st = P2N_INTERNAL_ERROR;
    char *err = NULL;
    LLVMTargetRef T;
    LLVMTargetMachineRef TM = NULL;
    double t0 = now();
    if (LLVMGetTargetFromTriple(t->triple, &T, &err)) {
        diag_plain(d, "error", "internal compiler error: no LLVM target for %s: %s", t->triple, err);
        goto out;
    }
    LLVMCodeGenOptLevel lvl = opt->opt_level <= 0 ? LLVMCodeGenLevelNone : opt->opt_level == 1 ? LLVMCodeGenLevelLess
                              : opt->opt_level == 2 ? LLVMCodeGenLevelDefault : LLVMCodeGenLevelAggressive;
    TM = LLVMCreateTargetMachine(T, t->triple, t->cpu, "", lvl, LLVMRelocPIC, LLVMCodeModelDefault);
    LLVMTargetDataRef DL = LLVMCreateTargetDataLayout(TM);
    LLVMSetModuleDataLayout(M, DL);
    LLVMDisposeTargetData(DL);
    if (LLVMVerifyModule(M, LLVMReturnStatusAction, &err)) {
        diag_plain(d, "error", "internal compiler error: invalid LLVM IR: %.2000s", err ? err : "");
        goto out;
    }
    LLVMDisposeMessage(err);
    err = NULL;
    char pipeline[32];
    snprintf(pipeline, sizeof pipeline, "default<O%d>", opt->opt_level < 0 ? 0 : opt->opt_level > 3 ? 3 : opt->opt_level);
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(M, pipeline, TM, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) {
        char *msg = LLVMGetErrorMessage(e);
        diag_plain(d, "error", "internal compiler error: LLVM passes failed: %s", msg);
        LLVMDisposeErrorMessage(msg);
        goto out;
    }
    double t1 = now();
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
    if (t->family == TARGET_SPIRV && !spirv_check_module(M, t, d)) {
        st = P2N_UNSUPPORTED;
        goto out;
    }
    LLVMMemoryBufferRef buf;
    if (LLVMTargetMachineEmitToMemoryBuffer(TM, M, opt->emit == P2N_EMIT_ASM ? LLVMAssemblyFile : LLVMObjectFile,
                                            &err, &buf)) {
        diag_plain(d, "error", "internal compiler error: code generation failed: %s", err ? err : "");
        goto out;
    }
    double t2 = now();
    if (times) times[1] = t2 - t1;
    const char *bytes = LLVMGetBufferStart(buf);
    size_t n = LLVMGetBufferSize(buf);
    if (opt->emit == P2N_EMIT_ASM) {
        *data = malloc(n + 1);
        memcpy(*data, bytes, n);
        (*data)[n] = 0;
        *size = n;
        st = P2N_OK;
    } else if (t->family == TARGET_SPIRV) {
        st = spirv_finish(M, t, bytes, n, d, data, size); /* metadata, in-process validation */
    } else if (link_shared(bytes, n, d, data, size)) {
        st = P2N_OK;
    }
    if (times) times[2] = now() - t2;
    LLVMDisposeMemoryBuffer(buf);
out:
    if (err) LLVMDisposeMessage(err);
    if (TM) LLVMDisposeTargetMachine(TM);
    LLVMDisposeModule(M);
    LLVMContextDispose(C);
    return st;
}
