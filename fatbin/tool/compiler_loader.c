/* compiler_loader.c — the fatbin tool loads the compiler (libp2n_compiler.so, which pulls in LLVM) only when
 * a compilation misses the cache. Loading LLVM costs ~50 ms of start-up (relocations and static
 * constructors), which dominated a fully cached `rewrite`; the build id is compiled in, so cache keys need
 * no compiler at all. The library must carry the same build id, or the tool refuses to use it.
 *
 * Search order: $P2N_COMPILER_LIB, then libp2n_compiler.so next to the executable, then ../lib/ from it. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_id.h"
#include "ptx2native.h"

#define TOOL_BUILD_ID "ptx2native-" P2N_VERSION_STRING "-" P2N_BUILD_ID

static pthread_once_t once = PTHREAD_ONCE_INIT;
static p2n_status (*fn_compile)(const char *, size_t, const char *, const p2n_options *, p2n_result *);
static void (*fn_free)(p2n_result *);
static char load_error[1024];

const char *p2n_build_id(void) { return TOOL_BUILD_ID; }

static void *try_open(const char *path) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h && !load_error[0]) snprintf(load_error, sizeof load_error, "%s", dlerror());
    return h;
}

static void load(void) {
    void *h = NULL;
    const char *env = getenv("P2N_COMPILER_LIB");
    if (env && *env) h = try_open(env);
    if (!h) {
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) {
            exe[n] = 0;
            char *slash = strrchr(exe, '/');
            if (slash) {
                *slash = 0;
                char path[PATH_MAX + 64];
                snprintf(path, sizeof path, "%s/libp2n_compiler.so", exe);
                if (!(h = try_open(path))) {
                    snprintf(path, sizeof path, "%s/../lib/libp2n_compiler.so", exe);
                    h = try_open(path);
                }
            }
        }
    }
    if (!h) return;
    const char *(*bid)(void) = (const char *(*)(void))dlsym(h, "p2n_build_id");
    fn_compile = (p2n_status(*)(const char *, size_t, const char *, const p2n_options *, p2n_result *))dlsym(h, "p2n_compile");
    fn_free = (void (*)(p2n_result *))dlsym(h, "p2n_result_free");
    if (!bid || !fn_compile || !fn_free) {
        snprintf(load_error, sizeof load_error, "libp2n_compiler.so lacks the p2n_* entry points");
        fn_compile = NULL;
        return;
    }
    if (strcmp(bid(), TOOL_BUILD_ID) != 0) {
        snprintf(load_error, sizeof load_error, "libp2n_compiler.so is build %s, this tool is build %s", bid(),
                 TOOL_BUILD_ID);
        fn_compile = NULL;
    }
}

p2n_status p2n_compile(const char *ptx, size_t len, const char *filename, const p2n_options *opt, p2n_result *out) {
    pthread_once(&once, load);
    if (fn_compile) return fn_compile(ptx, len, filename, opt, out);
    memset(out, 0, sizeof *out);
    out->status = P2N_INTERNAL_ERROR;
    size_t n = strlen(load_error) + 64;
    out->diagnostics = malloc(n);
    if (out->diagnostics) snprintf(out->diagnostics, n, "cannot load the compiler: %s\n", load_error);
    return P2N_INTERNAL_ERROR;
}

void p2n_result_free(p2n_result *r) {
    if (!r) return;
    if (fn_free) { fn_free(r); return; }
    free(r->data);
    free(r->diagnostics);
    memset(r, 0, sizeof *r);
}
