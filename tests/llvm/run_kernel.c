/* run_kernel — test-only loader for host code objects: runs kernel `k` of a .so on ONE thread with a
 * stub runtime table, passing a zeroed 4 KiB output buffer as the first parameter, then prints the first
 * N 32-bit words in hex. (The real CPU runtime lives in driver-stub/cpu; this only checks arithmetic.) */
#include <dlfcn.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_abi.h"

static jmp_buf done;
static void barrier(p2n_thread_ctx *c, uint32_t id, uint32_t n, uint32_t a) { (void)c; (void)id; (void)n; (void)a; }
static uint32_t barrier_red(p2n_thread_ctx *c, uint32_t id, uint32_t n, uint32_t op, uint32_t p) {
    (void)c; (void)id; (void)n; (void)op; return p;
}
static uint32_t shfl(p2n_thread_ctx *c, uint32_t mode, uint32_t v, uint32_t b, uint32_t cc, uint32_t m, uint32_t *in) {
    (void)c; (void)mode; (void)b; (void)cc; (void)m; *in = 1; return v;
}
static uint32_t vote(p2n_thread_ctx *c, uint32_t mode, uint32_t p, uint32_t m) { (void)c; (void)m; return mode == P2N_VOTE_UNI ? 1 : p; }
static uint32_t match_any(p2n_thread_ctx *c, uint64_t v, uint32_t m) { (void)c; (void)v; (void)m; return 1; }
static uint32_t match_all(p2n_thread_ctx *c, uint64_t v, uint32_t m, uint32_t *p) { (void)c; (void)v; (void)m; *p = 1; return 1; }
static uint32_t redux(p2n_thread_ctx *c, uint32_t op, uint32_t v, uint32_t m) { (void)c; (void)op; (void)m; return v; }
static uint32_t activemask(p2n_thread_ctx *c) { (void)c; return 1; }
static void warp_sync(p2n_thread_ctx *c, uint32_t m) { (void)c; (void)m; }
static uint32_t elect(p2n_thread_ctx *c, uint32_t m, uint32_t *l) { (void)c; (void)m; *l = 1; return 0; }
static void yield(p2n_thread_ctx *c) { c->yield_budget = 1000; }
static uint64_t clock64(p2n_thread_ctx *c) { (void)c; return 0; }
static uint32_t smid(p2n_thread_ctx *c) { (void)c; return 0; }
static int32_t vprintf_(p2n_thread_ctx *c, const char *f, const void *a) { (void)c; (void)a; printf("printf: %s", f); return 0; }
static void trap(p2n_thread_ctx *c) { (void)c; puts("trap"); longjmp(done, 2); }
static void assertfail(p2n_thread_ctx *c, const char *m, const char *f, uint32_t l, const char *fn, uint64_t cs) {
    (void)c; (void)f; (void)l; (void)fn; (void)cs; printf("assert: %s\n", m); longjmp(done, 3);
}
static void exit_thread(p2n_thread_ctx *c) { (void)c; longjmp(done, 1); }
static void *dmalloc(p2n_thread_ctx *c, uint64_t n) { (void)c; return malloc(n); }
static void dfree(p2n_thread_ctx *c, void *p) { (void)c; free(p); }

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: run_kernel K.so NWORDS\n"); return 2; }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return 2; }
    const p2n_module_desc *md = dlsym(h, "__p2n_module");
    const p2n_rt_table **rtp = dlsym(h, "__p2n_rt");
    if (!md || !rtp || md->abi_version != P2N_HOST_ABI_VERSION) { fprintf(stderr, "bad module\n"); return 2; }
    static p2n_rt_table rt = {P2N_HOST_ABI_VERSION, barrier, barrier_red, shfl, vote, match_any, match_all, redux,
                              activemask, warp_sync, elect, yield, clock64, clock64, smid, vprintf_, trap, assertfail,
                              exit_thread, sinf, cosf, exp2f, log2f, tanhf, fma, fmaf, dmalloc, dfree, NULL, NULL, NULL, NULL,
                              NULL};
    *rtp = &rt;
    const p2n_kernel_desc *k = NULL;
    for (uint32_t i = 0; i < md->nkernels; i++)
        if (strcmp(md->kernels[i].name, "k") == 0) k = &md->kernels[i];
    if (!k) { fprintf(stderr, "no kernel 'k'\n"); return 2; }
    if (k->flags & P2N_KERNEL_FIBER_STUB) { /* this runner calls the fiber entry: ask for it */
        fprintf(stderr, "kernel 'k' has only its block or coroutine entry: compile with --host-entries=all\n");
        return 2;
    }
    static uint32_t out[1024];
    static uint8_t smem[65536] __attribute__((aligned(64)));
    uint8_t params[256] __attribute__((aligned(16)));
    memset(params, 0, sizeof params);
    uint64_t p = (uint64_t)(uintptr_t)out;
    memcpy(params, &p, 8);
    p2n_thread_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    for (int d = 0; d < 3; d++) ctx.ntid[d] = ctx.nctaid[d] = 1;
    ctx.nwarpid = 1;
    ctx.smem = smem;
    ctx.smem_size = k->static_smem_bytes;
    ctx.yield_budget = 1000;
    ctx.rt = &rt;
    if (setjmp(done) == 0) k->entry(params, &ctx);
    int n = atoi(argv[2]);
    for (int i = 0; i < n && i < 1024; i++) printf("%08x\n", out[i]);
    return 0;
}
