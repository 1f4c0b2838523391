/* spirv_codegen_child.c — LLVM's SPIR-V back end runs in a child process, one per module.
 *
 * Why: LLVM 22's SPIR-V back end keeps its module analysis in a process-wide static (SPIRVModuleAnalysis::MAI,
 * llvm-project issue #160613; PR #160956 makes it a member of the pass, not in our 22.1.8). Most of it is reset for
 * each module, but the table of basic-block ids (BBNumToRegMap, keyed by MachineFunction address and block number) is
 * never cleared: a later module whose MachineFunction is allocated where an earlier module's was takes that
 * module's OpLabel ids, which collide with its own ("Id N is defined more than once"). So every compile after the
 * first in a process (the driver stub loading modules, the fatbin tool, a test that reloads a module) could fail,
 * depending on the heap; concurrent SPIR-V compiles on several threads (ptx2native-fatbin -j N) even share the
 * table. Neither a fresh TargetMachine nor anything in the C API resets it. A forked child starts from the
 * parent's copy of the static, and the parent never runs the back end on a module with functions, so every child
 * starts from an empty table and leaves nothing behind.
 * How: fork; the child emits, sends one record {u32 kind, u64 length, bytes} (kind 0: the object, 1: LLVM's error
 * message, 2: an LLVM fatal error) through a pipe and _exits; the parent reads exactly one record and reaps it.
 * An LLVM crash in the back end becomes an internal compiler error instead of killing the application.
 * Forking a threaded process: the child only needs locks no other thread keeps. Every compile holds the fork
 * gate (../fork_gate.h), and the fork waits until no other thread of ours does: none is then inside an allocation
 * or libLLVM (AddressSanitizer's allocator, unlike glibc's malloc, does not lock itself around fork). LLVM takes
 * the pass registry's write lock when a pass is first registered, so before the first fork the parent runs the
 * back end once on an empty module (no functions: nothing enters the table), and every pass the child needs is
 * registered already.
 * $P2N_SPIRV_CODEGEN_IN_PROCESS=1 (debugging the back end in one process, e.g. under gdb): no child; the second
 * and later modules of the process may then fail validation (never wrong code: spirv_finish validates). */
#include <errno.h>
#include <fcntl.h>
#include <llvm-c/Core.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/TargetMachine.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fork_gate.h"
#include "spirv_target.h"
#include "support.h"

enum { REC_OBJECT = 0, REC_ERROR = 1, REC_FATAL = 2 };

static pthread_mutex_t in_process_lock = PTHREAD_MUTEX_INITIALIZER; /* warm-up and in-process emission */
static bool warmed_up;
static int child_fd = -1; /* the child's end of the pipe, for the fatal error handler */

static void send_record(int fd, uint32_t kind, const void *data, uint64_t len) {
    char head[12];
    memcpy(head, &kind, 4);
    memcpy(head + 4, &len, 8);
    if (p2n_write_all(fd, head, sizeof head)) p2n_write_all(fd, data, (size_t)len);
}

static void child_fatal(const char *reason) {
    send_record(child_fd, REC_FATAL, reason, strlen(reason));
    _exit(3);
}

static bool emit_here(LLVMTargetMachineRef TM, LLVMModuleRef M, LLVMCodeGenFileType type, char **err,
                      LLVMMemoryBufferRef *out) {
    return !LLVMTargetMachineEmitToMemoryBuffer(TM, M, type, err, out);
}

/* Registers every pass of the back end's pipeline in the parent (see above). An empty module leaves nothing in the
 * back end's static tables, and a TargetMachine of its own (same target and CPU, and the code generation level
 * make_tm gives every SPIR-V one: none) keeps the caller's subtarget state untouched. Called with in_process_lock
 * held. */
static void warm_up(LLVMTargetMachineRef like_tm, LLVMModuleRef like) {
    char *triple = LLVMGetTargetMachineTriple(like_tm), *cpu = LLVMGetTargetMachineCPU(like_tm);
    char *features = LLVMGetTargetMachineFeatureString(like_tm);
    LLVMTargetMachineRef TM = LLVMCreateTargetMachine(LLVMGetTargetMachineTarget(like_tm), triple, cpu, features,
                                                      LLVMCodeGenLevelNone, LLVMRelocPIC, LLVMCodeModelDefault);
    LLVMContextRef C = LLVMContextCreate();
    LLVMModuleRef E = LLVMModuleCreateWithNameInContext("p2n.spirv.warm_up", C);
    LLVMSetTarget(E, LLVMGetTarget(like));
    LLVMSetDataLayout(E, LLVMGetDataLayoutStr(like));
    char *err = NULL;
    LLVMMemoryBufferRef buf = NULL;
    if (TM && emit_here(TM, E, LLVMObjectFile, &err, &buf)) LLVMDisposeMemoryBuffer(buf);
    if (err) LLVMDisposeMessage(err);
    LLVMDisposeModule(E);
    LLVMContextDispose(C);
    if (TM) LLVMDisposeTargetMachine(TM);
    LLVMDisposeMessage(triple);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);
}

static _Noreturn void child_main(int fd, LLVMTargetMachineRef TM, LLVMModuleRef M, LLVMCodeGenFileType type) {
    child_fd = fd;
    LLVMInstallFatalErrorHandler(child_fatal);
    char *err = NULL;
    LLVMMemoryBufferRef buf = NULL;
    if (emit_here(TM, M, type, &err, &buf))
        send_record(fd, REC_OBJECT, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf));
    else
        send_record(fd, REC_ERROR, err ? err : "", err ? strlen(err) : 0);
    _exit(0); /* no atexit handlers, no flush of the parent's stdio buffers */
}

/* How the child ended, for a message: "exit status N" / "signal N" */
static void reap(pid_t pid, char *how, size_t n) {
    int status = 0;
    pid_t r;
    while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {}
    if (r < 0) snprintf(how, n, "not known: %s", strerror(errno)); /* reaped elsewhere (SIGCHLD ignored) */
    else if (WIFSIGNALED(status)) snprintf(how, n, "signal %d", WTERMSIG(status));
    else snprintf(how, n, "exit status %d", WEXITSTATUS(status));
}

static char *message(const char *fmt, const char *a) {
    char s[4096];
    snprintf(s, sizeof s, fmt, a);
    return LLVMCreateMessage(s);
}

bool spirv_emit_isolated(LLVMTargetMachineRef TM, LLVMModuleRef M, LLVMCodeGenFileType type, char **err,
                         LLVMMemoryBufferRef *out) {
    const char *inproc = getenv("P2N_SPIRV_CODEGEN_IN_PROCESS");
    pthread_mutex_lock(&in_process_lock);
    if (inproc && *inproc && *inproc != '0') {
        bool ok = emit_here(TM, M, type, err, out);
        pthread_mutex_unlock(&in_process_lock);
        return ok;
    }
    if (!warmed_up) {
        warm_up(TM, M);
        warmed_up = true;
    }
    pthread_mutex_unlock(&in_process_lock);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        *err = message("cannot create a pipe for the SPIR-V code generation process: %s", strerror(errno));
        return false;
    }
    unsigned held;
    pid_t pid = p2n_fork_gate_fork(&held); /* no other thread of ours inside the compiler at the fork */
    if (pid == 0) {
        close(fds[0]);
        child_main(fds[1], TM, M, type);
    }
    int fork_errno = errno;
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        p2n_fork_gate_resume(held);
        *err = message("cannot start the SPIR-V code generation process: %s", strerror(fork_errno));
        return false;
    }
    /* exactly one record: another thread's child may hold a copy of the write end, so EOF is not the end */
    char head[12];
    uint32_t kind = 0;
    uint64_t len = 0;
    char *data = NULL;
    bool got = p2n_read_all(fds[0], head, sizeof head);
    if (got) {
        memcpy(&kind, head, 4);
        memcpy(&len, head + 4, 8);
        data = malloc(len + 1);
        got = data && p2n_read_all(fds[0], data, (size_t)len);
    }
    close(fds[0]);
    char how[128];
    reap(pid, how, sizeof how);
    p2n_fork_gate_resume(held); /* other threads compiled (and forked) while this child worked */
    if (!got) {
        free(data);
        *err = message("the SPIR-V code generation process ended without a result (%s)", how);
        return false;
    }
    data[len] = 0;
    bool ok = kind == REC_OBJECT;
    if (ok) {
        *out = LLVMCreateMemoryBufferWithMemoryRangeCopy(data, (size_t)len, "spirv");
    } else {
        while (len && (data[len - 1] == '\n' || data[len - 1] == ' ')) data[--len] = 0; /* one diagnostic line */
        *err = kind == REC_ERROR ? LLVMCreateMessage(data)
                                 : message("LLVM fatal error in the SPIR-V back end: %s", data);
    }
    free(data);
    return ok;
}
