/* compiler_loader.c — p2n_compile() and friends for programs that load the compiler only when they compile:
 * the fatbin tool (a fully cached rewrite compiles nothing) and libcuda.so.1 (precompiled native code needs
 * no compiler; only the JIT fallback does). The compiler is libp2n_compiler.so, which holds LLVM: loading it
 * costs tens of milliseconds and ~100 MB of mappings that an application running precompiled code should
 * not pay. The build id is compiled in here, so cache keys and the native-code lookup need no compiler;
 * the library must carry the same build id, or it is refused (its code could differ from what the keys name).
 *
 * Search order: $P2N_COMPILER_LIB; libp2n_compiler.so next to the object that contains this file (the
 * executable, or libcuda.so.1), in ../lib and in P2N_COMPILER_REL_DIR (the installed layout's path from the
 * executables' directory to the private library directory, e.g. ../lib/ptx2native) from it; the same from the
 * running executable. Only relative paths: an installed tree can be moved. The build tree makes the first rule
 * work with a link next to libcuda.so.1 (cmake/Install.cmake), so no build path is compiled in. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_id.h"
#include "ptx2native.h"

#ifndef P2N_COMPILER_REL_DIR
#define P2N_COMPILER_REL_DIR "../lib/ptx2native"
#endif

#define LOADER_BUILD_ID "ptx2native-" P2N_VERSION_STRING "-" P2N_BUILD_ID

typedef p2n_status (*compile_fn)(const char *, size_t, const char *, const p2n_options *, p2n_result *);
typedef p2n_status (*compile_linked_fn)(const p2n_input *, unsigned, const p2n_options *, p2n_result *);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static compile_fn fn_compile;
static compile_linked_fn fn_compile_linked;
static void (*fn_free)(p2n_result *);
static char load_error[1024];

const char *p2n_build_id(void) { return LOADER_BUILD_ID; }

static void *try_open(const char *path) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h && !load_error[0]) snprintf(load_error, sizeof load_error, "%s", dlerror());
    return h;
}

/* libp2n_compiler.so in the directory of `file`, then in ../lib and P2N_COMPILER_REL_DIR from there. */
static void *open_near(const char *file) {
    if (!file || !strchr(file, '/')) return NULL;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", file);
    *strrchr(dir, '/') = 0;
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/libp2n_compiler.so", dir);
    if (access(path, F_OK) == 0) return try_open(path);
    snprintf(path, sizeof path, "%s/../lib/libp2n_compiler.so", dir);
    if (access(path, F_OK) == 0) return try_open(path);
    snprintf(path, sizeof path, "%s/" P2N_COMPILER_REL_DIR "/libp2n_compiler.so", dir);
    if (access(path, F_OK) == 0) return try_open(path);
    return NULL;
}

static void load(void) {
    void *h = NULL;
    const char *env = getenv("P2N_COMPILER_LIB");
    if (env && *env) h = try_open(env);
    Dl_info self;
    if (!h && dladdr((void *)&load, &self)) h = open_near(self.dli_fname);
    if (!h) {
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) {
            exe[n] = 0;
            h = open_near(exe);
        }
    }
    if (!h) {
        if (!load_error[0])
            snprintf(load_error, sizeof load_error,
                     "libp2n_compiler.so not found (next to this program or libcuda.so.1, in ../lib or "
                     P2N_COMPILER_REL_DIR " from there, or at $P2N_COMPILER_LIB)");
        return;
    }
    const char *(*bid)(void) = (const char *(*)(void))dlsym(h, "p2n_build_id");
    fn_compile = (compile_fn)dlsym(h, "p2n_compile");
    fn_compile_linked = (compile_linked_fn)dlsym(h, "p2n_compile_linked");
    fn_free = (void (*)(p2n_result *))dlsym(h, "p2n_result_free");
    if (!bid || !fn_compile || !fn_compile_linked || !fn_free) {
        snprintf(load_error, sizeof load_error, "libp2n_compiler.so lacks the p2n_* entry points");
        fn_compile = NULL;
        return;
    }
    if (strcmp(bid(), LOADER_BUILD_ID) != 0) {
        snprintf(load_error, sizeof load_error, "libp2n_compiler.so is build %s, this program is build %s", bid(),
                 LOADER_BUILD_ID);
        fn_compile = NULL;
    }
}

static p2n_status load_failed(p2n_result *out) {
    memset(out, 0, sizeof *out);
    out->status = P2N_INTERNAL_ERROR;
    size_t n = strlen(load_error) + 64;
    out->diagnostics = malloc(n);
    if (out->diagnostics) snprintf(out->diagnostics, n, "cannot load the compiler: %s\n", load_error);
    return P2N_INTERNAL_ERROR;
}

p2n_status p2n_compile(const char *ptx, size_t len, const char *filename, const p2n_options *opt, p2n_result *out) {
    pthread_once(&once, load);
    if (fn_compile) return fn_compile(ptx, len, filename, opt, out);
    return load_failed(out);
}

p2n_status p2n_compile_linked(const p2n_input *inputs, unsigned n, const p2n_options *opt, p2n_result *out) {
    pthread_once(&once, load);
    if (fn_compile) return fn_compile_linked(inputs, n, opt, out);
    return load_failed(out);
}

void p2n_result_free(p2n_result *r) {
    if (!r) return;
    if (fn_compile) { fn_free(r); return; } /* the library's results (the same malloc, but its call) */
    free(r->data);
    free(r->diagnostics);
    memset(r, 0, sizeof *r);
}
