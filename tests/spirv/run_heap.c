/* run_heap.c — device malloc/free on the OpenCL backend (targets/spirv/spirv_heap.c) through libcuda.so.1, with
 * tests/spirv/heap.ptx: 1024 work-items at once allocate, write, check (in a later launch: the heap persists),
 * free and allocate again; the limit (CU_LIMIT_MALLOC_HEAP_SIZE) is fixed once a kernel used the heap; a heap too
 * small for every request returns NULL to some work-items and valid, disjoint blocks to the others; freed blocks
 * serve later requests of their size class and, split, of smaller ones. */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../driver/check.h"

enum { BLOCKS = 4, THREADS = 256, N = BLOCKS * THREADS };

static CUfunction k_alloc, k_check, k_free;
static CUdeviceptr d_ptrs, d_out;

static void launch(CUfunction f, void **args) {
    MUST(cuLaunchKernel(f, BLOCKS, 1, 1, THREADS, 1, 1, 0, NULL, args, NULL));
    MUST(cuCtxSynchronize());
}

/* malloc(size) in every work-item; the pointers in p[], per work-item 1 (contents kept), 2 (NULL) or 0 in st[] */
static void alloc_all(uint64_t size, uint64_t *p, uint32_t *st) {
    void *a[] = {&d_ptrs, &size};
    launch(k_alloc, a);
    void *c[] = {&d_ptrs, &d_out, &size};
    launch(k_check, c);
    MUST(cuMemcpyDtoH(p, d_ptrs, N * 8));
    MUST(cuMemcpyDtoH(st, d_out, N * 4));
}

static void free_all(void) {
    void *a[] = {&d_ptrs};
    launch(k_free, a);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* the non-NULL pointers are 16-byte aligned and their blocks [p, p + size) do not overlap; returns how many */
static unsigned check_blocks(const uint64_t *p, uint64_t size, const char *what) {
    uint64_t s[N];
    unsigned n = 0;
    for (unsigned i = 0; i < N; i++)
        if (p[i]) s[n++] = p[i];
    qsort(s, n, 8, cmp_u64);
    for (unsigned i = 0; i < n; i++) {
        if (s[i] % 16) { fprintf(stderr, "%s: pointer 0x%llx not 16-byte aligned\n", what, (unsigned long long)s[i]); check_failures++; }
        if (i && s[i] - s[i - 1] < size) {
            fprintf(stderr, "%s: blocks at 0x%llx and 0x%llx overlap\n", what, (unsigned long long)s[i - 1],
                    (unsigned long long)s[i]);
            check_failures++;
        }
    }
    return n;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: run_heap heap.ptx\n"); return 2; }
    CUmodule mod = must_load_ptx(argv[1]);
    MUST(cuModuleGetFunction(&k_alloc, mod, "k_alloc"));
    MUST(cuModuleGetFunction(&k_check, mod, "k_check"));
    MUST(cuModuleGetFunction(&k_free, mod, "k_free"));
    MUST(cuMemAlloc(&d_ptrs, N * 8));
    MUST(cuMemAlloc(&d_out, N * 4));

    /* the limit: CUDA's 8 MiB default, settable until a kernel uses the heap */
    size_t lim = 0;
    OK(cuCtxGetLimit(&lim, CU_LIMIT_MALLOC_HEAP_SIZE));
    TRUE(lim == 8u << 20);
    OK(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 1u << 20));
    OK(cuCtxGetLimit(&lim, CU_LIMIT_MALLOC_HEAP_SIZE));
    TRUE(lim == 1u << 20);

    static uint64_t a[N], b[N];
    static uint32_t st[N];
    /* 1024 x 256 bytes (272 with the header): all fit in 1 MiB */
    alloc_all(256, a, st);
    for (unsigned i = 0; i < N; i++)
        if (st[i] != 1) { fprintf(stderr, "256-byte blocks: work-item %u: status %u\n", i, st[i]); check_failures++; break; }
    TRUE(check_blocks(a, 256, "256-byte blocks") == N);

    /* fixed now, as in CUDA */
    EXPECT(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 4u << 20), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxGetLimit(&lim, CU_LIMIT_MALLOC_HEAP_SIZE));
    TRUE(lim == 1u << 20);

    /* freed blocks come back: the same 1024 blocks serve the same requests again */
    free_all();
    alloc_all(256, b, st);
    for (unsigned i = 0; i < N; i++)
        if (st[i] != 1) { fprintf(stderr, "reallocated: work-item %u: status %u\n", i, st[i]); check_failures++; break; }
    qsort(a, N, 8, cmp_u64);
    uint64_t bs[N];
    memcpy(bs, b, sizeof bs);
    qsort(bs, N, 8, cmp_u64);
    TRUE(memcmp(a, bs, sizeof a) == 0);
    free_all();

    /* exhaustion: 1024 x 4 KiB do not fit in what is left of 1 MiB: some get NULL, the others valid blocks */
    alloc_all(4096, a, st);
    unsigned got = 0, null = 0;
    for (unsigned i = 0; i < N; i++) {
        if (st[i] == 1) got++;
        else if (st[i] == 2) null++;
        else { fprintf(stderr, "4 KiB blocks: work-item %u: contents overwritten\n", i); check_failures++; }
    }
    TRUE(null > 0 && got > 0 && got + null == N);
    TRUE(check_blocks(a, 4096, "4 KiB blocks") == got);
    printf("heap: 1 MiB, 1024 x 4 KiB requests: %u served, %u NULL\n", got, null);
    free_all();

    /* with the heap's end reached, 64-byte requests are served by splitting freed larger blocks */
    alloc_all(64, a, st);
    for (unsigned i = 0; i < N; i++)
        if (st[i] != 1) { fprintf(stderr, "64-byte blocks after exhaustion: work-item %u: status %u\n", i, st[i]); check_failures++; break; }
    TRUE(check_blocks(a, 64, "64-byte blocks") == N);
    free_all();

    /* larger than the heap: NULL everywhere */
    alloc_all(2u << 20, a, st);
    for (unsigned i = 0; i < N; i++)
        if (st[i] != 2) { fprintf(stderr, "2 MiB request: work-item %u: status %u\n", i, st[i]); check_failures++; break; }

    OK(cuMemFree(d_ptrs));
    OK(cuMemFree(d_out));
    OK(cuModuleUnload(mod));
    if (check_failures) { fprintf(stderr, "run_heap: %d check(s) failed\n", check_failures); return 1; }
    printf("run_heap: all checks passed\n");
    return 0;
}
