/* cpu_arena.c — device memory of the CPU backend: mmap'ed regions with guards, NVIDIA-like rounding
 * (cpu_arena.h says what and why).
 *
 * Regions: mmap(PROT_NONE, MAP_NORESERVE) of guard + data + guard (+ alignment slack, left PROT_NONE), then
 * the 2 MiB-aligned data part mapped read/write over it with MAP_FIXED (without MAP_NORESERVE, so the kernel's
 * overcommit check sees the real size). munmap of the whole reservation frees it.
 *
 * Small allocations: a chunk is 4096 units of 512 bytes; `len[u]` is the length in units of the allocation
 * starting at unit u (0: u is free or inside an allocation). A first-fit scan walks allocations by their
 * lengths and free units one by one. Freed runs of 64 KiB or more give their whole pages back.
 * The metadata lives in malloc'ed memory; only device bytes are in the regions.
 *
 * Backing: every region's data is a range of one memory file of the process (memfd, "device memory file"),
 * mapped shared, so that another process can map the same pages (CUDA IPC, cuIpcGetMemHandle: the handle names
 * the file's descriptor and the range; cpu_arena_export/cpu_arena_map_foreign). The file only grows (offsets are
 * never reused; freed ranges become holes, FALLOC_FL_PUNCH_HOLE, which gives the memory back). Where memfd_create
 * is refused (an old kernel, a seccomp filter) regions are private anonymous memory and export says so.
 */
#include "cpu_arena.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define UNITS (CPU_ARENA_CHUNK / CPU_ARENA_SMALL_UNIT)

typedef struct region {
    struct region *next;
    uintptr_t base;     /* data, CPU_ARENA_CHUNK aligned */
    size_t size;        /* data bytes (rounded) */
    void *map;          /* the whole reservation */
    size_t map_len;
    off_t off;          /* the data's offset in the device memory file; -1: private anonymous memory */
} region;

typedef struct chunk {
    region r;
    unsigned free_units;
    uint16_t len[UNITS];
} chunk;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
/* another process's memory mapped here (cpu_arena_map_foreign) */
typedef struct foreign {
    struct foreign *next;
    uintptr_t p;        /* what the caller got */
    void *map;          /* the reservation (guards included) */
    size_t map_len;
} foreign;

static chunk *g_chunks;     /* chunks holding small allocations (r.next links them) */
static foreign *g_foreign;
static chunk *g_spare;      /* one empty chunk kept for reuse */
static region *g_large;     /* large allocations */
static size_t g_in_use;     /* rounded bytes of live allocations */
static size_t g_limit;      /* physical memory */
static int g_fd = -2;       /* the device memory file; -2: not made yet, -1: memfd_create refused */
static off_t g_file_end;    /* its size: the end of the last region given out */

static int memory_file(void)
{
    if (g_fd == -2) {
        g_fd = memfd_create("ptx2native-device-memory", MFD_CLOEXEC);
        if (g_fd < 0)
            g_fd = -1;
    }
    return g_fd;
}

/* Reserves guard + `size` bytes (alignment `align`) + guard of inaccessible address space; returns the data's
 * address, the whole reservation in *map / *len. 0: refused. */
static uintptr_t reserve(size_t size, size_t align, void **map, size_t *len)
{
    *len = CPU_ARENA_GUARD + align + size + CPU_ARENA_GUARD;
    if (*len < size)
        return 0;
    void *m = mmap(NULL, *len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return 0;
    *map = m;
    return ((uintptr_t)m + CPU_ARENA_GUARD + align - 1) & ~(uintptr_t)(align - 1);
}

static int region_map(region *r, size_t size)
{
    void *m;
    size_t len;
    uintptr_t d = reserve(size, CPU_ARENA_CHUNK, &m, &len);
    if (!d)
        return -1;
    int fd = memory_file();
    off_t off = g_file_end;
    void *got = MAP_FAILED;
    if (fd >= 0 && (off_t)size > 0 && off + (off_t)size > off && ftruncate(fd, off + (off_t)size) == 0) {
        got = mmap((void *)d, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, off);
        if (got != MAP_FAILED)
            g_file_end = off + (off_t)size;
    } else {
        off = -1;
        got = mmap((void *)d, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    }
    if (got == MAP_FAILED) {
        munmap(m, len);
        return -1;
    }
    r->base = d;
    r->size = size;
    r->map = m;
    r->map_len = len;
    r->off = off;
    return 0;
}

/* Gives the pages of [p, p+n) (page-aligned, inside region r) back to the system; they read as zeros after. */
static void release_pages(const region *r, uintptr_t p, size_t n)
{
    if (r->off >= 0)
        fallocate(g_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, r->off + (off_t)(p - r->base), (off_t)n);
    else
        madvise((void *)p, n, MADV_DONTNEED);
}

static void region_unmap(region *r)
{
    if (r->off >= 0)
        fallocate(g_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, r->off, (off_t)r->size);
    munmap(r->map, r->map_len);
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
                region_unmap(&c->r);
                free(c);
            } else {
                release_pages(&c->r, c->r.base, c->r.size);
                g_spare = c;
            }
        } else if ((size_t)n * CPU_ARENA_SMALL_UNIT >= ((size_t)64 << 10)) {
            size_t pg = (size_t)sysconf(_SC_PAGESIZE);
            uintptr_t lo = (a + pg - 1) & ~(uintptr_t)(pg - 1);
            uintptr_t hi = (a + (size_t)n * CPU_ARENA_SMALL_UNIT) & ~(uintptr_t)(pg - 1);
            if (hi > lo)
                release_pages(&c->r, lo, hi - lo);
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
            region_unmap(r);
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

/* ---- sharing with other processes (CUDA IPC) ---- */

/* the region holding address a (its lock held), or NULL */
static const region *region_of(uintptr_t a)
{
    uintptr_t cb = a & ~(uintptr_t)(CPU_ARENA_CHUNK - 1);
    for (const chunk *c = g_chunks; c; c = (const chunk *)c->r.next)
        if (c->r.base == cb)
            return &c->r;
    for (const region *r = g_large; r; r = r->next)
        if (a >= r->base && a - r->base < r->size)
            return r;
    return NULL;
}

int cpu_arena_export(const void *p, size_t size, cpu_arena_share *out)
{
    uintptr_t a = (uintptr_t)p;
    int rc = -1;
    pthread_mutex_lock(&g_lock);
    const region *r = region_of(a);
    if (r && size <= r->size - (a - r->base)) {
        rc = -2;
        if (r->off >= 0) {
            struct stat st;
            if (fstat(g_fd, &st) == 0) {
                out->fd = g_fd;
                out->dev = (uint64_t)st.st_dev;
                out->ino = (uint64_t)st.st_ino;
                out->off = (uint64_t)r->off + (a - r->base);
                rc = 0;
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

void *cpu_arena_map_foreign(int fd, uint64_t off, size_t size)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    uint64_t lo = off & ~(uint64_t)(pg - 1);
    size_t len = (size_t)(off - lo) + size;
    if (len < size || size == 0 || (off_t)lo < 0)
        return NULL;
    len = (len + pg - 1) & ~(pg - 1);
    void *m;
    size_t mlen;
    uintptr_t d = reserve(len, pg, &m, &mlen);
    if (!d)
        return NULL;
    if (mmap((void *)d, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, (off_t)lo) == MAP_FAILED) {
        munmap(m, mlen);
        return NULL;
    }
    foreign *f = malloc(sizeof *f);
    if (!f) {
        munmap(m, mlen);
        return NULL;
    }
    f->p = d + (uintptr_t)(off - lo);
    f->map = m;
    f->map_len = mlen;
    pthread_mutex_lock(&g_lock);
    f->next = g_foreign;
    g_foreign = f;
    pthread_mutex_unlock(&g_lock);
    return (void *)f->p;
}

int cpu_arena_unmap_foreign(void *p)
{
    pthread_mutex_lock(&g_lock);
    foreign *f = NULL;
    for (foreign **pf = &g_foreign; *pf; pf = &(*pf)->next)
        if ((*pf)->p == (uintptr_t)p) {
            f = *pf;
            *pf = f->next;
            break;
        }
    pthread_mutex_unlock(&g_lock);
    if (!f)
        return -1;
    munmap(f->map, f->map_len);
    free(f);
    return 0;
}
