/* cpu_arena.c — device memory of the CPU backend: mmap'ed regions with guards, NVIDIA-like rounding
 * (cpu_arena.h says what and why).
 *
 * Regions: mmap(PROT_NONE, MAP_NORESERVE) of guard + data + guard (+ alignment slack, left PROT_NONE), then
 * the 2 MiB-aligned data part mapped read/write over it with MAP_FIXED (without MAP_NORESERVE, so the kernel's
 * overcommit check sees the real size). munmap of the whole reservation frees it.
 *
 * Small allocations: a chunk is 4096 units of 512 bytes; `len[u]` is the length in units of the allocation
 * starting at unit u (0: u is free or inside an allocation). A first-fit scan walks allocations by their
 * lengths and free units one by one. Freed runs of 64 KiB or more give their whole pages back (MADV_DONTNEED).
 * The metadata lives in malloc'ed memory; only device bytes are in the regions.
 */
#include "cpu_arena.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define UNITS (CPU_ARENA_CHUNK / CPU_ARENA_SMALL_UNIT)

typedef struct region {
    struct region *next;
    uintptr_t base;     /* data, CPU_ARENA_CHUNK aligned */
    size_t size;        /* data bytes (rounded) */
    void *map;          /* the whole reservation */
    size_t map_len;
} region;

typedef struct chunk {
    region r;
    unsigned free_units;
    uint16_t len[UNITS];
} chunk;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static chunk *g_chunks;     /* chunks holding small allocations (r.next links them) */
static chunk *g_spare;      /* one empty chunk kept for reuse */
static region *g_large;     /* large allocations */
static size_t g_in_use;     /* rounded bytes of live allocations */
static size_t g_limit;      /* physical memory */

static int region_map(region *r, size_t size)
{
    size_t len = CPU_ARENA_GUARD + CPU_ARENA_CHUNK + size + CPU_ARENA_GUARD;
    if (len < size)
        return -1;
    void *m = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    uintptr_t d = ((uintptr_t)m + CPU_ARENA_GUARD + CPU_ARENA_CHUNK - 1) & ~(uintptr_t)(CPU_ARENA_CHUNK - 1);
    if (mmap((void *)d, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
        munmap(m, len);
        return -1;
    }
    r->base = d;
    r->size = size;
    r->map = m;
    r->map_len = len;
    return 0;
}

static size_t limit(void)
{
    if (!g_limit) {
        long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
        g_limit = pages > 0 && psize > 0 ? (size_t)pages * (size_t)psize : (size_t)8 << 30;
    }
    return g_limit;
}

/* first fit of n units in c, or -1 */
static long chunk_fit(const chunk *c, unsigned n)
{
    unsigned u = 0;
    while (u + n <= UNITS) {
        if (c->len[u]) {
            u += c->len[u];
            continue;
        }
        unsigned e = u + 1;
        while (e < UNITS && e - u < n && !c->len[e])
            e++;
        if (e - u >= n)
            return (long)u;
        u = e; /* e is the start of an allocation (or the end) */
    }
    return -1;
}

static void *small_alloc(size_t rounded)
{
    unsigned n = (unsigned)(rounded / CPU_ARENA_SMALL_UNIT);
    for (chunk *c = g_chunks; c; c = (chunk *)c->r.next) {
        if (c->free_units < n)
            continue;
        long u = chunk_fit(c, n);
        if (u >= 0) {
            c->len[u] = (uint16_t)n;
            c->free_units -= n;
            return (void *)(c->r.base + (size_t)u * CPU_ARENA_SMALL_UNIT);
        }
    }
    chunk *c = g_spare;
    g_spare = NULL;
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c)
            return NULL;
        if (region_map(&c->r, CPU_ARENA_CHUNK)) {
            free(c);
            return NULL;
        }
        c->free_units = UNITS;
    }
    c->r.next = (region *)g_chunks;
    g_chunks = c;
    c->len[0] = (uint16_t)n;
    c->free_units -= n;
    return (void *)c->r.base;
}

void *cpu_arena_alloc(size_t size)
{
    if (size == 0)
        size = 1;
    int small = size <= CPU_ARENA_SMALL_MAX;
    size_t gran = small ? CPU_ARENA_SMALL_UNIT : CPU_ARENA_CHUNK;
    size_t rounded = (size + gran - 1) & ~(gran - 1);
    if (rounded < size)
        return NULL;
    void *p = NULL;
    pthread_mutex_lock(&g_lock);
    if (rounded <= limit() && g_in_use <= limit() - rounded) {
        if (small) {
            p = small_alloc(rounded);
        } else {
            region *r = calloc(1, sizeof *r);
            if (r && region_map(r, rounded) == 0) {
                r->next = g_large;
                g_large = r;
                p = (void *)r->base;
            } else {
                free(r);
            }
        }
        if (p)
            g_in_use += rounded;
    }
    pthread_mutex_unlock(&g_lock);
    return p;
}

int cpu_arena_free(void *p)
{
    uintptr_t a = (uintptr_t)p;
    int rc = -1;
    pthread_mutex_lock(&g_lock);
    uintptr_t cb = a & ~(uintptr_t)(CPU_ARENA_CHUNK - 1);
    for (chunk **pc = &g_chunks; *pc; pc = (chunk **)&(*pc)->r.next) {
        chunk *c = *pc;
        if (c->r.base != cb)
            continue;
        size_t u = (a - cb) / CPU_ARENA_SMALL_UNIT;
        if ((a - cb) % CPU_ARENA_SMALL_UNIT || !c->len[u])
            break;
        unsigned n = c->len[u];
        c->len[u] = 0;
        c->free_units += n;
        g_in_use -= (size_t)n * CPU_ARENA_SMALL_UNIT;
        rc = 0;
        if (c->free_units == UNITS) {
            *pc = (chunk *)c->r.next;
            if (g_spare) {
                munmap(c->r.map, c->r.map_len);
                free(c);
            } else {
                madvise((void *)c->r.base, c->r.size, MADV_DONTNEED);
                g_spare = c;
            }
        } else if ((size_t)n * CPU_ARENA_SMALL_UNIT >= ((size_t)64 << 10)) {
            size_t pg = (size_t)sysconf(_SC_PAGESIZE);
            uintptr_t lo = (a + pg - 1) & ~(uintptr_t)(pg - 1);
            uintptr_t hi = (a + (size_t)n * CPU_ARENA_SMALL_UNIT) & ~(uintptr_t)(pg - 1);
            if (hi > lo)
                madvise((void *)lo, hi - lo, MADV_DONTNEED);
        }
        break;
    }
    if (rc) {
        for (region **pr = &g_large; *pr; pr = &(*pr)->next) {
            region *r = *pr;
            if (r->base != a)
                continue;
            *pr = r->next;
            g_in_use -= r->size;
            munmap(r->map, r->map_len);
            free(r);
            rc = 0;
            break;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

size_t cpu_arena_in_use(void)
{
    pthread_mutex_lock(&g_lock);
    size_t n = g_in_use;
    pthread_mutex_unlock(&g_lock);
    return n;
}
