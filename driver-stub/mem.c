/* mem.c — device/host allocations, the allocation table, copies, memsets, pointer attributes.
 *
 * Every allocation the application can name is in one table sorted by base address: device memory
 * (cuMemAlloc), page-locked host memory (cuMemAllocHost/cuMemHostAlloc) and module globals (entered by
 * module.c, not freeable). Copies check that each device-side range lies inside one entry, so a bad pointer
 * gives CUDA_ERROR_INVALID_VALUE instead of a crash; cuMemFree accepts only the base of a device
 * allocation. On backends with host_access (CPU) the bytes are moved with memcpy/memset. cuMemHostRegister
 * enters the application's own memory (P2N_ALLOC_REGISTERED) where kernels read any host memory (the CPU
 * backend; OpenCL with fine-grained system SVM): there a host pointer is a device pointer; elsewhere the device
 * could not reach it, and registering says CUDA_ERROR_NOT_SUPPORTED.
 * Managed memory (managed.c), pool blocks (mempool.c) and mapped VMM ranges (vmm.c) are entries too; their files
 * own the storage, and an entry of theirs that cuMemFree or a dying context removes goes to their release hook.
 *
 * Streams: a 1-D *Async copy or memset on a created stream is queued on it (stream_queue.c); every other
 * operation on a stream runs to completion before it returns, after what it must follow (p2n_drv_stream_order).
 * Frees wait for every queue first (the memory may still be in use there).
 */
#include <stdlib.h>
#include <string.h>

#include "graph.h"   /* stream capture hooks */

static p2n_alloc *tab;
static size_t ntab, captab;
static uint64_t next_id = 1;
static pthread_mutex_t tab_lock = PTHREAD_MUTEX_INITIALIZER;
/* who gives back the storage of the kinds mem.c does not own (managed.c, mempool.c, vmm.c) */
static p2n_alloc_release_fn release_hooks[P2N_ALLOC_NKINDS];

void p2n_drv_alloc_on_release(int kind, p2n_alloc_release_fn fn)
{
    if (kind > 0 && kind < P2N_ALLOC_NKINDS)
        release_hooks[kind] = fn;
}

/* index of the last entry with base <= p, or -1 */
static long floor_idx(uint64_t p)
{
    long lo = 0, hi = (long)ntab - 1, ans = -1;
    while (lo <= hi) {
        long mid = (lo + hi) / 2;
        if (tab[mid].base <= p) {
            ans = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return ans;
}

int p2n_drv_alloc_find(uint64_t p, size_t n, p2n_alloc *out)
{
    pthread_mutex_lock(&tab_lock);
    long i = floor_idx(p);
    int ok = 0;
    if (i >= 0) {
        const p2n_alloc *a = &tab[i];
        uint64_t off = p - a->base;
        if (off < a->size && n <= a->size - off) {
            ok = 1;
            if (out)
                *out = *a;
        } else if (n == 0 && off <= a->size) {
            ok = 1;
            if (out)
                *out = *a;
        }
    }
    pthread_mutex_unlock(&tab_lock);
    return ok;
}

/* graph memory: each graph allocation node's range, from the node's creation to its end (graph_memnode.c) */
static struct reserved {
    uint64_t base;
    size_t size;
} *resv;
static size_t nresv, capresv;
/* its own lock: a release hook running under tab_lock may end a range */
static pthread_mutex_t resv_lock = PTHREAD_MUTEX_INITIALIZER;

void p2n_drv_alloc_reserve(uint64_t base, size_t size, int on)
{
    pthread_mutex_lock(&resv_lock);
    if (on) {
        if (nresv == capresv) {
            size_t nc = capresv ? capresv * 2 : 16;
            struct reserved *na = realloc(resv, nc * sizeof *na);
            if (!na)
                abort();   /* as alloc_insert: the table cannot be left inconsistent */
            resv = na;
            capresv = nc;
        }
        resv[nresv++] = (struct reserved){base, size};
    } else {
        for (size_t i = 0; i < nresv; i++)
            if (resv[i].base == base) {
                resv[i] = resv[--nresv];
                break;
            }
    }
    pthread_mutex_unlock(&resv_lock);
}

/* [p, p+n) lies in a range (start_only: one starts at p) */
static int reserved(uint64_t p, size_t n, int start_only)
{
    pthread_mutex_lock(&resv_lock);
    int ok = 0;
    for (size_t i = 0; i < nresv && !ok; i++)
        ok = start_only ? resv[i].base == p
                        : p >= resv[i].base && p - resv[i].base <= resv[i].size &&
                              n <= resv[i].size - (p - resv[i].base);
    pthread_mutex_unlock(&resv_lock);
    return ok;
}

int p2n_drv_alloc_reserved(uint64_t p, size_t n) { return reserved(p, n, 0); }
int p2n_drv_alloc_reserved_at(uint64_t base) { return reserved(base, 0, 1); }

/* inserts an entry; tab_lock held */
static void alloc_insert(uint64_t base, size_t size, int kind, p2n_ctx *ctx, unsigned host_flags, void *owner)
{
    if (ntab == captab) {
        size_t nc = captab ? captab * 2 : 64;
        p2n_alloc *nt = realloc(tab, nc * sizeof *nt);
        if (!nt)
            abort();
        tab = nt;
        captab = nc;
    }
    long i = floor_idx(base) + 1;
    memmove(&tab[i + 1], &tab[i], (ntab - (size_t)i) * sizeof *tab);
    tab[i] = (p2n_alloc){.base = base, .size = size, .kind = kind, .ctx = ctx, .host_flags = host_flags,
                         .id = next_id++, .owner = owner};
    ntab++;
}

void p2n_drv_alloc_add(uint64_t base, size_t size, int kind, p2n_ctx *ctx, unsigned host_flags)
{
    pthread_mutex_lock(&tab_lock);
    alloc_insert(base, size, kind, ctx, host_flags, NULL);
    pthread_mutex_unlock(&tab_lock);
}

void p2n_drv_alloc_add_owned(uint64_t base, size_t size, int kind, p2n_ctx *ctx, void *owner)
{
    pthread_mutex_lock(&tab_lock);
    alloc_insert(base, size, kind, ctx, 0, owner);
    pthread_mutex_unlock(&tab_lock);
}

/* Inserts [base, base+size) unless it overlaps an entry (one lock: two threads registering overlapping ranges
 * cannot both succeed); returns 0 on overlap. */
static int alloc_add_exclusive(uint64_t base, size_t size, int kind, p2n_ctx *ctx, unsigned host_flags)
{
    pthread_mutex_lock(&tab_lock);
    /* entries do not overlap each other, so the last one starting before the range's end is the only candidate */
    long i = floor_idx(base + size - 1);
    int free_range = i < 0 || tab[i].base + tab[i].size <= base;
    if (free_range)
        alloc_insert(base, size, kind, ctx, host_flags, NULL);
    pthread_mutex_unlock(&tab_lock);
    return free_range;
}

void p2n_drv_alloc_remove(uint64_t base)
{
    pthread_mutex_lock(&tab_lock);
    long i = floor_idx(base);
    if (i >= 0 && tab[i].base == base) {
        memmove(&tab[i], &tab[i + 1], (ntab - (size_t)i - 1) * sizeof *tab);
        ntab--;
    }
    pthread_mutex_unlock(&tab_lock);
}

int p2n_drv_alloc_take(uint64_t base, int kind, p2n_alloc *out)
{
    pthread_mutex_lock(&tab_lock);
    long i = floor_idx(base);
    int found = i >= 0 && tab[i].base == base && tab[i].kind == kind;
    if (found) {
        *out = tab[i];
        memmove(&tab[i], &tab[i + 1], (ntab - (size_t)i - 1) * sizeof *tab);
        ntab--;
    }
    pthread_mutex_unlock(&tab_lock);
    return found;
}

static void p2n_drv_alloc_release_ctx(p2n_ctx *c)
{
    pthread_mutex_lock(&tab_lock);
    size_t j = 0;
    for (size_t i = 0; i < ntab; i++) {
        if (tab[i].ctx != c) {
            tab[j++] = tab[i];
            continue;
        }
        if (tab[i].kind == P2N_ALLOC_DEVICE)
            p2n_drv.be->mem_free((void *)(uintptr_t)tab[i].base);
        else if (tab[i].kind == P2N_ALLOC_HOST)
            p2n_drv.be->mem_host_free((void *)(uintptr_t)tab[i].base);
        else if (release_hooks[tab[i].kind])
            release_hooks[tab[i].kind](&tab[i]);
    }
    ntab = j;
    if (ntab == 0) {
        free(tab);
        tab = NULL;
        captab = 0;
    }
    pthread_mutex_unlock(&tab_lock);
}

__attribute__((constructor)) static void register_release_hook(void)
{
    p2n_drv_ctx_on_release(P2N_CTX_RELEASE_MEMORY, p2n_drv_alloc_release_ctx);
}

/* ---- allocation ---- */

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!dptr || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    void *p = NULL;
    r = p2n_drv.be->mem_alloc(bytesize, &p);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_drv_alloc_add((uint64_t)(uintptr_t)p, bytesize, P2N_ALLOC_DEVICE, c, 0);
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

/* Frees the allocation starting at p when its kind is `kind` (cuMemFree also takes managed memory and pool
 * blocks: `alt_kinds`, a bit per kind). */
static CUresult free_kind(uint64_t p, int kind, unsigned alt_kinds)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (p == 0)
        return CUDA_SUCCESS;
    p2n_alloc a;
    if (!p2n_drv_alloc_find(p, 0, &a) || a.base != p || (a.kind != kind && !(alt_kinds & (1u << a.kind))))
        return CUDA_ERROR_INVALID_VALUE;
    p2n_drv_streams_drain(NULL);   /* queued work may still use it (CUDA's frees wait for the device too) */
    p2n_drv_alloc_remove(p);
    if (a.kind == P2N_ALLOC_DEVICE)
        p2n_drv.be->mem_free((void *)(uintptr_t)p);
    else if (a.kind == P2N_ALLOC_HOST)
        p2n_drv.be->mem_host_free((void *)(uintptr_t)p);
    else if (release_hooks[a.kind])
        release_hooks[a.kind](&a);
    return CUDA_SUCCESS;
}

/* memory from cuMemAllocAsync may be freed here too, without waiting for the stream (CUDA says so), and so may a
 * graph allocation a launch left valid */
CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    return free_kind(dptr, P2N_ALLOC_DEVICE, 1u << P2N_ALLOC_MANAGED | 1u << P2N_ALLOC_POOL | 1u << P2N_ALLOC_GRAPH |
                                             1u << P2N_ALLOC_POOL_IMPORT);
}

/* The 32-bit (CUDA 3.1 and older) entry points work when the address fits. */
CUresult cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize)
{
    if (!dptr)
        return CUDA_ERROR_INVALID_VALUE;
    CUdeviceptr p = 0;
    CUresult r = cuMemAlloc_v2(&p, bytesize);
    if (r != CUDA_SUCCESS)
        return r;
    if (p > 0xffffffffu) {
        cuMemFree_v2(p);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *dptr = (CUdeviceptr_v1)p;
    return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr_v1 dptr)
{
    return cuMemFree_v2(dptr);
}

CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!free_bytes || !total)
        return CUDA_ERROR_INVALID_VALUE;
    size_t used = 0;
    pthread_mutex_lock(&tab_lock);
    for (size_t i = 0; i < ntab; i++)
        if (tab[i].kind == P2N_ALLOC_DEVICE || tab[i].kind == P2N_ALLOC_MANAGED || tab[i].kind == P2N_ALLOC_POOL)
            used += tab[i].size;
    pthread_mutex_unlock(&tab_lock);
    *total = (size_t)p2n_drv.dev.total_mem;
    *free_bytes = used < *total ? *total - used : 0;
    return CUDA_SUCCESS;
}

CUresult cuMemGetInfo(unsigned int *free_bytes, unsigned int *total)
{
    if (!free_bytes || !total)
        return CUDA_ERROR_INVALID_VALUE;
    size_t f, t;
    CUresult r = cuMemGetInfo_v2(&f, &t);
    if (r == CUDA_SUCCESS) {
        *free_bytes = f > 0xffffffffu ? 0xffffffffu : (unsigned)f;
        *total = t > 0xffffffffu ? 0xffffffffu : (unsigned)t;
    }
    return r;
}

CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pp || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (Flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED))
        return CUDA_ERROR_INVALID_VALUE;
    void *p = NULL;
    r = p2n_drv.be->mem_host_alloc(bytesize, &p);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_drv_alloc_add((uint64_t)(uintptr_t)p, bytesize, P2N_ALLOC_HOST, c, Flags);
    *pp = p;
    return CUDA_SUCCESS;
}

CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    return cuMemHostAlloc(pp, bytesize, 0);
}

CUresult cuMemAllocHost(void **pp, unsigned int bytesize)
{
    return cuMemHostAlloc(pp, bytesize, 0);
}

CUresult cuMemFreeHost(void *p)
{
    return free_kind((uint64_t)(uintptr_t)p, P2N_ALLOC_HOST, 0);
}

/* Rows of WidthInBytes padded to a multiple of the texture pitch alignment the device reports, so a pitched
 * allocation can be bound to a 2D texture as CUDA promises; ElementSizeBytes is checked and otherwise a hint. */
CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height,
                            unsigned int ElementSizeBytes)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!dptr || !pPitch || WidthInBytes == 0 || Height == 0 ||
        (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
        return CUDA_ERROR_INVALID_VALUE;
    int align = 0;
    r = cuDeviceGetAttribute(&align, CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, c->device);
    if (r != CUDA_SUCCESS)
        return r;
    if (align <= 0)
        align = 1;
    size_t pitch, bytes;
    if (__builtin_add_overflow(WidthInBytes, (size_t)align - 1, &pitch))
        return CUDA_ERROR_OUT_OF_MEMORY;
    pitch -= pitch % (size_t)align;
    if (__builtin_mul_overflow(pitch, Height, &bytes))
        return CUDA_ERROR_OUT_OF_MEMORY;
    r = cuMemAlloc_v2(dptr, bytes);
    if (r == CUDA_SUCCESS)
        *pPitch = pitch;
    return r;
}

CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    const unsigned known = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_IOMEMORY |
                           CU_MEMHOSTREGISTER_READ_ONLY;
    uint64_t base = (uint64_t)(uintptr_t)p;
    if (!p || bytesize == 0 || (Flags & ~known) || base + bytesize < base)
        return CUDA_ERROR_INVALID_VALUE;
    if (!p2n_drv.dev.reads_host_memory)   /* CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED is 0 there */
        return CUDA_ERROR_NOT_SUPPORTED;
    if (!alloc_add_exclusive(base, bytesize, P2N_ALLOC_REGISTERED, c, Flags))
        return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    return CUDA_SUCCESS;
}

/* the CUDA 4.0 ABI: same arguments */
CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)
{
    return cuMemHostRegister_v2(p, bytesize, Flags);
}

CUresult cuMemHostUnregister(void *p)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_alloc a;
    uint64_t base = (uint64_t)(uintptr_t)p;
    if (!p || !p2n_drv_alloc_find(base, 0, &a) || a.base != base || a.kind != P2N_ALLOC_REGISTERED)
        return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    p2n_drv_alloc_remove(base);
    return CUDA_SUCCESS;
}

static int is_host_kind(int kind)
{
    return kind == P2N_ALLOC_HOST || kind == P2N_ALLOC_REGISTERED;
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pdptr || Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    p2n_alloc a;
    if (!p2n_drv_alloc_find((uint64_t)(uintptr_t)p, 0, &a) || !is_host_kind(a.kind) || !p2n_drv.dev.host_access)
        return CUDA_ERROR_INVALID_VALUE;
    *pdptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_alloc a;
    if (!pFlags || !p2n_drv_alloc_find((uint64_t)(uintptr_t)p, 0, &a) || !is_host_kind(a.kind))
        return CUDA_ERROR_INVALID_VALUE;
    *pFlags = a.host_flags;
    return CUDA_SUCCESS;
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_alloc a;
    if (!p2n_drv_alloc_find(dptr, 1, &a))
        return CUDA_ERROR_NOT_FOUND;
    if (pbase)
        *pbase = a.base;
    if (psize)
        *psize = a.size;
    return CUDA_SUCCESS;
}

/* ---- copies ---- */

/* A device-side range: inside one allocation (device, pinned host or module global). */
static int dev_range_ok(uint64_t p, size_t n)
{
    return p2n_drv_alloc_find(p, n, NULL);
}

/* a device range an operation on stream s may name: allocated now, or graph memory an operation recorded by a
 * capture names before its allocation node has run */
static int range_ok(CUstream s, int sync, uint64_t p, size_t n)
{
    return dev_range_ok(p, n) || (!sync && p2n_drv_alloc_reserved(p, n) && p2n_drv_capture_active(s));
}

static CUresult copy_prologue(CUstream s, p2n_ctx **c)
{
    CUresult r = p2n_drv_get_ctx(NULL, c);
    if (r != CUDA_SUCCESS)
        return r;
    r = p2n_drv_check_stream(s, *c);
    return r != CUDA_SUCCESS ? r : p2n_drv_capture_legacy_check(s);
}

CUresult p2n_drv_copy_bytes(uint64_t dst, int dst_dev, uint64_t src, int src_dev, size_t n)
{
    const p2n_backend_ops *be = p2n_drv.be;
    void *d = (void *)(uintptr_t)dst;
    const void *s = (const void *)(uintptr_t)src;
    if (n == 0)
        return CUDA_SUCCESS;
    if (dst_dev && src_dev && be->memcpy_dtod)
        return be->memcpy_dtod(dst, src, n);
    if (dst_dev && !src_dev && be->memcpy_htod)
        return be->memcpy_htod(dst, s, n);
    if (!dst_dev && src_dev && be->memcpy_dtoh)
        return be->memcpy_dtoh(d, src, n);
    if ((dst_dev || src_dev) && !p2n_drv.dev.host_access)
        return CUDA_ERROR_INVALID_VALUE;
    memmove(d, s, n);
    return CUDA_SUCCESS;
}

/* ---- copies and memsets of a created stream run on its thread (stream_queue.c) ---- */

typedef struct op_copy {
    p2n_op op;
    int dst_dev, src_dev;   /* device-side ends (p2n_drv_copy_bytes) */
    uint64_t dst, src;
    size_t n;
    void *staging;   /* a pageable source's bytes as they were at the call (CUDA stages those) */
} op_copy;

static CUresult run_copy(p2n_op *op, p2n_ctx *c)
{
    (void)c;
    op_copy *o = (op_copy *)op;
    CUresult r = p2n_drv_copy_bytes(o->dst, o->dst_dev, o->staging ? (uint64_t)(uintptr_t)o->staging : o->src,
                                    o->src_dev, o->n);
    free(o->staging);
    free(o);
    return r;
}

/* a copy on stream s: queued on a created stream, else done here after what it must follow. A pageable host
 * source is copied at the call (the caller may reuse it when the call returns); a pageable host destination
 * makes the copy synchronous (CUDA: device-to-pageable copies return when done). */
static CUresult copy_on(CUstream s, p2n_ctx *c, uint64_t dst, int dst_dev, uint64_t src, int src_dev, size_t n)
{
    /* (the ends' table lookups only where the copy could be queued) */
    int queue = p2n_drv_stream_queues(s) && (dst_dev || p2n_drv_alloc_find(dst, n, NULL));
    if (queue) {
        int pageable_src = !src_dev && !p2n_drv_alloc_find(src, n, NULL);
        op_copy *o = calloc(1, sizeof *o);
        if (!o)
            return CUDA_ERROR_OUT_OF_MEMORY;
        *o = (op_copy){.op.run = run_copy, .dst_dev = dst_dev, .src_dev = src_dev, .dst = dst, .src = src, .n = n};
        if (pageable_src) {
            if (!(o->staging = malloc(n))) {
                free(o);
                return CUDA_ERROR_OUT_OF_MEMORY;
            }
            memcpy(o->staging, (const void *)(uintptr_t)src, n);
        }
        return p2n_drv_stream_enqueue(s, &o->op);
    }
    p2n_drv_stream_order(s, c);
    return p2n_drv_copy_bytes(dst, dst_dev, src, src_dev, n);
}

static CUresult do_htod(CUdeviceptr dst, const void *src, size_t n, CUstream s, int sync)
{
    p2n_ctx *c;
    CUresult r = copy_prologue(s, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (n == 0)
        return CUDA_SUCCESS;
    if (!src || !range_ok(s, sync, dst, n))
        return CUDA_ERROR_INVALID_VALUE;
    if (!sync && p2n_drv_capture_active(s))
        return p2n_drv_capture_memcpy1d(s, dst, (CUdeviceptr)(uintptr_t)src, n);
    r = copy_on(s, c, dst, 1, (uint64_t)(uintptr_t)src, 0, n);
    if (sync)
        p2n_drv_ctx_flush_printf(c);
    return r;
}

static CUresult do_dtoh(void *dst, CUdeviceptr src, size_t n, CUstream s, int sync)
{
    p2n_ctx *c;
    CUresult r = copy_prologue(s, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (n == 0)
        return CUDA_SUCCESS;
    if (!dst || !range_ok(s, sync, src, n))
        return CUDA_ERROR_INVALID_VALUE;
    if (!sync && p2n_drv_capture_active(s))
        return p2n_drv_capture_memcpy1d(s, (CUdeviceptr)(uintptr_t)dst, src, n);
    r = copy_on(s, c, (uint64_t)(uintptr_t)dst, 0, src, 1, n);
    if (sync)
        p2n_drv_ctx_flush_printf(c);
    return r;
}

static CUresult do_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s, int sync)
{
    p2n_ctx *c;
    CUresult r = copy_prologue(s, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (n == 0)
        return CUDA_SUCCESS;
    if (!range_ok(s, sync, dst, n) || !range_ok(s, sync, src, n))
        return CUDA_ERROR_INVALID_VALUE;
    if (!sync && p2n_drv_capture_active(s))
        return p2n_drv_capture_memcpy1d(s, dst, src, n);
    r = copy_on(s, c, dst, 1, src, 1, n);
    if (sync)
        p2n_drv_ctx_flush_printf(c);
    return r;
}

/* cuMemcpy with unified addressing: a pointer in the table is device-side, anything else is pageable host
 * memory (the application's own). */
static CUresult do_unified(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s, int sync)
{
    p2n_ctx *c;
    CUresult r = copy_prologue(s, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (n == 0)
        return CUDA_SUCCESS;
    if (!dst || !src)
        return CUDA_ERROR_INVALID_VALUE;
    int dd = range_ok(s, sync, dst, n), sd = range_ok(s, sync, src, n);
    if (dd && sd)
        return do_dtod(dst, src, n, s, sync);
    if (dd)
        return do_htod(dst, (const void *)(uintptr_t)src, n, s, sync);
    if (sd)
        return do_dtoh((void *)(uintptr_t)dst, src, n, s, sync);
    if (!p2n_drv.dev.host_access)
        return CUDA_ERROR_INVALID_VALUE;
    if (!sync && p2n_drv_capture_active(s))
        return p2n_drv_capture_memcpy1d(s, dst, src, n);
    return copy_on(s, c, dst, 0, src, 0, n);
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{ return do_htod(dstDevice, srcHost, ByteCount, NULL, 1); }
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{ return do_htod(dstDevice, srcHost, ByteCount, NULL, 1); }
CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{ return do_dtoh(dstHost, srcDevice, ByteCount, NULL, 1); }
CUresult cuMemcpyDtoH_v2_ptds(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{ return do_dtoh(dstHost, srcDevice, ByteCount, NULL, 1); }
CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{ return do_dtod(dstDevice, srcDevice, ByteCount, NULL, 1); }
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{ return do_dtod(dstDevice, srcDevice, ByteCount, NULL, 1); }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream)
{ return do_htod(dstDevice, srcHost, ByteCount, hStream, 0); }
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream)
{ return do_htod(dstDevice, srcHost, ByteCount, hStream, 0); }
CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{ return do_dtoh(dstHost, srcDevice, ByteCount, hStream, 0); }
CUresult cuMemcpyDtoHAsync_v2_ptsz(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{ return do_dtoh(dstHost, srcDevice, ByteCount, hStream, 0); }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{ return do_dtod(dstDevice, srcDevice, ByteCount, hStream, 0); }
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{ return do_dtod(dstDevice, srcDevice, ByteCount, hStream, 0); }
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{ return do_unified(dst, src, ByteCount, NULL, 1); }
CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{ return do_unified(dst, src, ByteCount, NULL, 1); }
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{ return do_unified(dst, src, ByteCount, hStream, 0); }
CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{ return do_unified(dst, src, ByteCount, hStream, 0); }
/* 32-bit variants */
CUresult cuMemcpyHtoD(CUdeviceptr_v1 dstDevice, const void *srcHost, unsigned int ByteCount)
{ return do_htod(dstDevice, srcHost, ByteCount, NULL, 1); }
CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr_v1 srcDevice, unsigned int ByteCount)
{ return do_dtoh(dstHost, srcDevice, ByteCount, NULL, 1); }
CUresult cuMemcpyDtoD(CUdeviceptr_v1 dstDevice, CUdeviceptr_v1 srcDevice, unsigned int ByteCount)
{ return do_dtod(dstDevice, srcDevice, ByteCount, NULL, 1); }
CUresult cuMemcpyHtoDAsync(CUdeviceptr_v1 dstDevice, const void *srcHost, unsigned int ByteCount, CUstream hStream)
{ return do_htod(dstDevice, srcHost, ByteCount, hStream, 0); }
CUresult cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr_v1 srcDevice, unsigned int ByteCount, CUstream hStream)
{ return do_dtoh(dstHost, srcDevice, ByteCount, hStream, 0); }
CUresult cuMemcpyDtoDAsync(CUdeviceptr_v1 dstDevice, CUdeviceptr_v1 srcDevice, unsigned int ByteCount,
                           CUstream hStream)
{ return do_dtod(dstDevice, srcDevice, ByteCount, hStream, 0); }

/* ---- memset ---- */

static CUresult memset_now(CUdeviceptr dst, uint32_t value, unsigned esize, size_t count);

typedef struct op_memset {
    p2n_op op;
    CUdeviceptr dst;
    uint32_t value;
    unsigned esize;
    size_t count;
} op_memset;

static CUresult run_memset(p2n_op *op, p2n_ctx *c)
{
    (void)c;
    op_memset *o = (op_memset *)op;
    CUresult r = memset_now(o->dst, o->value, o->esize, o->count);
    free(o);
    return r;
}

static CUresult do_memset(CUdeviceptr dst, uint32_t value, unsigned esize, size_t count, CUstream s)
{
    p2n_ctx *c;
    CUresult r = copy_prologue(s, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (count == 0)
        return CUDA_SUCCESS;
    if (dst % esize != 0 || count > SIZE_MAX / esize || !range_ok(s, 0, dst, count * esize))
        return CUDA_ERROR_INVALID_VALUE;
    if (p2n_drv_capture_active(s))
        return p2n_drv_capture_memset(s, dst, count * esize, value, esize, count, 1);
    if (p2n_drv_stream_queues(s)) {
        op_memset *o = calloc(1, sizeof *o);
        if (!o)
            return CUDA_ERROR_OUT_OF_MEMORY;
        *o = (op_memset){.op.run = run_memset, .dst = dst, .value = value, .esize = esize, .count = count};
        return p2n_drv_stream_enqueue(s, &o->op);
    }
    p2n_drv_stream_order(s, c);
    return memset_now(dst, value, esize, count);
}

static CUresult memset_now(CUdeviceptr dst, uint32_t value, unsigned esize, size_t count)
{
    if (p2n_drv.be->memset)
        return p2n_drv.be->memset(dst, &value, esize, count);
    uint8_t *p = (uint8_t *)(uintptr_t)dst;
    if (esize == 1) {
        memset(p, (int)(value & 0xff), count);
    } else if (esize == 2) {
        uint16_t v = (uint16_t)value;
        for (size_t i = 0; i < count; i++)
            memcpy(p + 2 * i, &v, 2);
    } else {
        for (size_t i = 0; i < count; i++)
            memcpy(p + 4 * i, &value, 4);
    }
    return CUDA_SUCCESS;
}

CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{ return do_memset(dstDevice, uc, 1, N, NULL); }
CUresult cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{ return do_memset(dstDevice, uc, 1, N, NULL); }
CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N)
{ return do_memset(dstDevice, us, 2, N, NULL); }
CUresult cuMemsetD16_v2_ptds(CUdeviceptr dstDevice, unsigned short us, size_t N)
{ return do_memset(dstDevice, us, 2, N, NULL); }
CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{ return do_memset(dstDevice, ui, 4, N, NULL); }
CUresult cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{ return do_memset(dstDevice, ui, 4, N, NULL); }
CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)
{ return do_memset(dstDevice, uc, 1, N, hStream); }
CUresult cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)
{ return do_memset(dstDevice, uc, 1, N, hStream); }
CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream)
{ return do_memset(dstDevice, us, 2, N, hStream); }
CUresult cuMemsetD16Async_ptsz(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream)
{ return do_memset(dstDevice, us, 2, N, hStream); }
CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)
{ return do_memset(dstDevice, ui, 4, N, hStream); }
CUresult cuMemsetD32Async_ptsz(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)
{ return do_memset(dstDevice, ui, 4, N, hStream); }
CUresult cuMemsetD8(CUdeviceptr_v1 dstDevice, unsigned char uc, unsigned int N)
{ return do_memset(dstDevice, uc, 1, N, NULL); }
CUresult cuMemsetD16(CUdeviceptr_v1 dstDevice, unsigned short us, unsigned int N)
{ return do_memset(dstDevice, us, 2, N, NULL); }
CUresult cuMemsetD32(CUdeviceptr_v1 dstDevice, unsigned int ui, unsigned int N)
{ return do_memset(dstDevice, ui, 4, N, NULL); }

/* ---- 2D memsets (cudaMemset2D): Height rows of Width elements, dstPitch bytes apart ---- */

static CUresult do_memset_2d(CUdeviceptr dst, size_t pitch, uint32_t value, unsigned esize, size_t width,
                             size_t height, CUstream s)
{
    p2n_ctx *c;
    CUresult r = copy_prologue(s, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (width == 0 || height == 0)
        return CUDA_SUCCESS;
    if (height == 1)   /* the pitch is unused for one row (CUDA's documentation) */
        return do_memset(dst, value, esize, width, s);
    size_t row, span;
    if (__builtin_mul_overflow(width, (size_t)esize, &row) || pitch < row || pitch % esize != 0 ||
        __builtin_mul_overflow(pitch, height - 1, &span) || __builtin_add_overflow(span, row, &span))
        return CUDA_ERROR_INVALID_VALUE;
    /* the whole region first: a bad one must change nothing */
    if (dst % esize != 0 || !range_ok(s, 0, dst, span))
        return CUDA_ERROR_INVALID_VALUE;
    if (p2n_drv_capture_active(s))
        return p2n_drv_capture_memset(s, dst, pitch, value, esize, width, height);
    for (size_t y = 0; y < height && r == CUDA_SUCCESS; y++)
        r = do_memset(dst + y * pitch, value, esize, width, s);
    return r;
}

CUresult cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height)
{ return do_memset_2d(dstDevice, dstPitch, uc, 1, Width, Height, NULL); }
CUresult cuMemsetD2D8_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height)
{ return do_memset_2d(dstDevice, dstPitch, uc, 1, Width, Height, NULL); }
CUresult cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height)
{ return do_memset_2d(dstDevice, dstPitch, us, 2, Width, Height, NULL); }
CUresult cuMemsetD2D16_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height)
{ return do_memset_2d(dstDevice, dstPitch, us, 2, Width, Height, NULL); }
CUresult cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height)
{ return do_memset_2d(dstDevice, dstPitch, ui, 4, Width, Height, NULL); }
CUresult cuMemsetD2D32_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height)
{ return do_memset_2d(dstDevice, dstPitch, ui, 4, Width, Height, NULL); }
CUresult cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height,
                           CUstream hStream)
{ return do_memset_2d(dstDevice, dstPitch, uc, 1, Width, Height, hStream); }
CUresult cuMemsetD2D8Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width,
                                size_t Height, CUstream hStream)
{ return do_memset_2d(dstDevice, dstPitch, uc, 1, Width, Height, hStream); }
CUresult cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height,
                            CUstream hStream)
{ return do_memset_2d(dstDevice, dstPitch, us, 2, Width, Height, hStream); }
CUresult cuMemsetD2D16Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width,
                                 size_t Height, CUstream hStream)
{ return do_memset_2d(dstDevice, dstPitch, us, 2, Width, Height, hStream); }
CUresult cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height,
                            CUstream hStream)
{ return do_memset_2d(dstDevice, dstPitch, ui, 4, Width, Height, hStream); }
CUresult cuMemsetD2D32Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width,
                                 size_t Height, CUstream hStream)
{ return do_memset_2d(dstDevice, dstPitch, ui, 4, Width, Height, hStream); }

/* ---- peer copies: every context is on one device here, so a peer copy is a device-to-device copy once both
 * contexts are checked ---- */

static CUresult do_peer(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t n,
                        CUstream s, int sync)
{
    p2n_ctx *dc, *sc;
    CUresult r = p2n_drv_get_ctx_nosticky(dst_ctx, &dc);
    if (r == CUDA_SUCCESS)
        r = p2n_drv_get_ctx_nosticky(src_ctx, &sc);
    if (r != CUDA_SUCCESS)
        return r;
    return do_dtod(dst, src, n, s, sync);
}

CUresult cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext,
                      size_t ByteCount)
{ return do_peer(dstDevice, dstContext, srcDevice, srcContext, ByteCount, NULL, 1); }
CUresult cuMemcpyPeer_ptds(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext,
                           size_t ByteCount)
{ return do_peer(dstDevice, dstContext, srcDevice, srcContext, ByteCount, NULL, 1); }
CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext,
                           size_t ByteCount, CUstream hStream)
{ return do_peer(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream, 0); }
CUresult cuMemcpyPeerAsync_ptsz(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                                CUcontext srcContext, size_t ByteCount, CUstream hStream)
{ return do_peer(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream, 0); }

/* ---- pointer attributes ---- */

static CUresult pointer_attribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    p2n_alloc a;
    int found = p2n_drv_alloc_find(ptr, 1, &a);
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        if (!found)
            return CUDA_ERROR_INVALID_VALUE;
        *(CUcontext *)data = (CUcontext)a.ctx;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        if (!found)
            return CUDA_ERROR_INVALID_VALUE;
        *(unsigned *)data = is_host_kind(a.kind) ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        /* host memory has a device address only where the device reaches host memory (cuMemHostGetDevicePointer) */
        if (!found || (is_host_kind(a.kind) && !p2n_drv.dev.host_access))
            return CUDA_ERROR_INVALID_VALUE;
        *(CUdeviceptr *)data = ptr;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (!found || (!is_host_kind(a.kind) && !p2n_drv.dev.host_access))
            return CUDA_ERROR_INVALID_VALUE;
        *(void **)data = (void *)(uintptr_t)ptr;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        if (!found)
            return CUDA_ERROR_INVALID_VALUE;
        *(int *)data = a.kind == P2N_ALLOC_MANAGED;   /* CUDA writes a bool-sized int here as well */
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        if (!found)
            return CUDA_ERROR_INVALID_VALUE;
        *(int *)data = a.ctx ? a.ctx->device : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        if (!found)
            return CUDA_ERROR_INVALID_VALUE;
        *(CUdeviceptr *)data = a.base;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        if (!found)
            return CUDA_ERROR_INVALID_VALUE;
        *(size_t *)data = a.size;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        if (!found)
            return CUDA_ERROR_INVALID_VALUE;
        *(unsigned long long *)data = a.id;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED:
        *(int *)data = found;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
        if (!found)
            return CUDA_ERROR_INVALID_VALUE;
        *(int *)data = 1;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:   /* what cuIpcGetMemHandle takes (ipc.c) */
        if (!found)
            return CUDA_ERROR_INVALID_VALUE;
        *(int *)data = a.kind == P2N_ALLOC_DEVICE && p2n_drv.be->ipc_export;
        return CUDA_SUCCESS;
    /* what the memory we have is not: RDMA-capable, decompression-capable */
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
    case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
        if (!found)
            return CUDA_ERROR_INVALID_VALUE;
        *(int *)data = 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        if (!found)
            return CUDA_ERROR_INVALID_VALUE;
        *(CUmemoryPool *)data = a.kind == P2N_ALLOC_POOL ? (CUmemoryPool)a.owner : NULL;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!data)
        return CUDA_ERROR_INVALID_VALUE;
    return pointer_attribute(data, attribute, ptr);
}

CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes, void **data,
                                CUdeviceptr ptr)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (numAttributes && (!attributes || !data))
        return CUDA_ERROR_INVALID_VALUE;
    /* unlike the single query, an unknown pointer is not an error here: fields get "unregistered" values */
    for (unsigned i = 0; i < numAttributes; i++) {
        if (!data[i])
            return CUDA_ERROR_INVALID_VALUE;
        if (pointer_attribute(data[i], attributes[i], ptr) != CUDA_SUCCESS) {
            switch (attributes[i]) {
            case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)data[i] = NULL; break;
            case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned *)data[i] = 0; break;
            case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data[i] = -2; break;
            case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
            case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(CUdeviceptr *)data[i] = 0; break;
            case CU_POINTER_ATTRIBUTE_HOST_POINTER: *(void **)data[i] = NULL; break;
            case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data[i] = 0; break;
            case CU_POINTER_ATTRIBUTE_BUFFER_ID: *(unsigned long long *)data[i] = 0; break;
            default: *(int *)data[i] = 0; break;
            }
        }
    }
    return CUDA_SUCCESS;
}
