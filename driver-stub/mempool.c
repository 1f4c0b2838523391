/* mempool.c — memory pools and stream-ordered allocation: cuMemAllocAsync, cuMemAllocFromPoolAsync, cuMemFreeAsync,
 * each device's default and current pool, cuMemPoolCreate/Destroy, pool attributes, trimming, access.
 *
 * A pool hands out blocks of backend device memory (mem_alloc, so every backend has pools). A freed block goes
 * back to its pool, which keeps freed blocks for reuse while the memory it holds (CU_MEMPOOL_ATTR_RESERVED_MEM_*:
 * blocks in use and kept) stays within its release threshold, and gives the rest back to the backend, largest
 * first: what users of cudaMallocAsync measure. cuMemFreeAsync runs after its stream's queued work
 * (p2n_drv_stream_order, stream_queue.c), so a free has completed when it returns: the block is reusable at once by any stream, whatever the reuse flags say (they are
 * kept for cuMemPoolGetAttribute), and a pool trims to its threshold at the free rather than at the next
 * synchronisation as CUDA does. Blocks in use are in the allocation table (P2N_ALLOC_POOL, owner = the pool), so
 * copies, launches, pointer attributes (MEMPOOL_HANDLE) and cuMemFree know them.
 *
 * IPC (where the backend shares device memory, ipc.c: the CPU backend): a pool created with
 * CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR exports a file descriptor of a small memory file naming it (our magic,
 * the process, the pool's number); the importing process gets a pool that stands for it, and
 * cuMemPoolImportPointer maps a block whose export data names that pool (the backend's bytes of ipc.c's memory
 * handles). An imported block is allocation kind POOL_IMPORT: cuMemFree / cuMemFreeAsync unmap it.
 *
 * Not here: pools of host or managed memory, and graph memory: these calls on a capturing stream make graph
 * allocation and free nodes (graph_memnode.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "graph.h"   /* stream capture: p2n_drv_capture_active */
#include "internal.h"

enum { POOL_GRANULE = 256, POOL_MAX_DEVICES = 64 };

typedef struct pool_block {
    uint64_t base;
    size_t size;
} pool_block;

typedef struct p2n_pool {
    uint32_t magic;
    int device;
    int is_default;
    int destroyed;                  /* cuMemPoolDestroy'ed with blocks in use: freed with the last one */
    size_t max_size;                /* 0: no limit but the device's */
    uint64_t release_threshold;
    int reuse_follow_events, reuse_opportunistic, reuse_internal_deps;
    uint64_t reserved, reserved_high, used, used_high;
    pool_block *kept, *in_use;      /* freed blocks held for reuse; blocks handed out */
    size_t nkept, capkept, nin_use, capin_use;
    unsigned char access[POOL_MAX_DEVICES];   /* CUmemAccess_flags of each device */
    int ipc;                        /* made with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR */
    uint64_t serial;                /* its number in this process (IPC export data names it) */
    int32_t src_pid;                /* imported: the exporting process and its pool's number; else 0 */
    uint64_t src_serial;
} p2n_pool;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static p2n_pool **default_pools, **current_pools;   /* per device, made at first use */

static int push_block(pool_block **arr, size_t *n, size_t *cap, pool_block b)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        pool_block *na = realloc(*arr, nc * sizeof *na);
        if (!na)
            return 0;
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = b;
    return 1;
}

static p2n_pool *pool_new(int device, size_t max_size, int is_default)
{
    static uint64_t next_serial;
    p2n_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->serial = ++next_serial;   /* pool_lock held */
    p->magic = P2N_MAGIC_POOL;
    p->device = device;
    p->is_default = is_default;
    p->max_size = max_size;
    p->reuse_follow_events = p->reuse_opportunistic = p->reuse_internal_deps = 1;
    for (int d = 0; d < POOL_MAX_DEVICES; d++)
        p->access[d] = d == device ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : CU_MEM_ACCESS_FLAGS_PROT_NONE;
    p2n_drv_register(p);
    return p;
}

static void pool_free_struct(p2n_pool *p)
{
    free(p->kept);
    free(p->in_use);
    p->magic = 0;
    free(p);
}

/* Gives kept blocks back to the backend, largest first, until the pool reserves at most `keep` bytes; pool_lock
 * held. */
static void pool_trim(p2n_pool *p, uint64_t keep)
{
    while (p->reserved > keep && p->nkept > 0) {
        size_t big = 0;
        for (size_t i = 1; i < p->nkept; i++)
            if (p->kept[i].size > p->kept[big].size)
                big = i;
        p2n_drv.be->mem_free((void *)(uintptr_t)p->kept[big].base);
        p->reserved -= p->kept[big].size;
        p->kept[big] = p->kept[--p->nkept];
    }
}

/* The release hook of P2N_ALLOC_POOL entries (cuMemFree, cuMemFreeAsync, a dying context): the block goes back
 * to its pool. */
static void pool_block_release(const p2n_alloc *a)
{
    p2n_pool *p = a->owner;
    pthread_mutex_lock(&pool_lock);
    for (size_t i = 0; i < p->nin_use; i++) {
        if (p->in_use[i].base != a->base)
            continue;
        pool_block b = p->in_use[i];
        p->in_use[i] = p->in_use[--p->nin_use];
        p->used -= b.size;
        if (p->destroyed || !push_block(&p->kept, &p->nkept, &p->capkept, b)) {
            p2n_drv.be->mem_free((void *)(uintptr_t)b.base);
            p->reserved -= b.size;
        }
        break;
    }
    if (p->destroyed) {
        if (p->nin_use == 0)
            pool_free_struct(p);
    } else {
        pool_trim(p, p->release_threshold);
    }
    pthread_mutex_unlock(&pool_lock);
}

__attribute__((constructor)) static void register_release_hook(void)
{
    p2n_drv_alloc_on_release(P2N_ALLOC_POOL, pool_block_release);
}

/* device dev's default pool, and the current pool table; pool_lock held, dev valid */
static p2n_pool *default_pool(int dev)
{
    if (!default_pools) {
        default_pools = calloc((size_t)p2n_drv.device_count, sizeof *default_pools);
        current_pools = calloc((size_t)p2n_drv.device_count, sizeof *current_pools);
        if (!default_pools || !current_pools) {
            free(default_pools);
            free(current_pools);
            default_pools = current_pools = NULL;
            return NULL;
        }
    }
    if (!default_pools[dev])
        default_pools[dev] = pool_new(dev, 0, 1);
    return default_pools[dev];
}

static p2n_pool *current_pool(int dev)
{
    p2n_pool *d = default_pool(dev);
    return d && current_pools[dev] ? current_pools[dev] : d;
}

/* a live pool handle (a destroyed pool is not one) */
static int pool_ok(CUmemoryPool h)
{
    return h && p2n_drv_is_live(h, P2N_MAGIC_POOL);
}

/* ---- allocation ---- */

static CUresult pool_alloc(p2n_pool *p, size_t bytesize, p2n_ctx *c, CUdeviceptr *out)
{
    size_t need = (bytesize + POOL_GRANULE - 1) / POOL_GRANULE * POOL_GRANULE;
    if (need < bytesize)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&pool_lock);
    /* the smallest kept block that fits and wastes at most as much as it holds */
    long best = -1;
    for (size_t i = 0; i < p->nkept; i++)
        if (p->kept[i].size >= need && p->kept[i].size / 2 <= need &&
            (best < 0 || p->kept[i].size < p->kept[best].size))
            best = (long)i;
    pool_block b = {0, 0};
    CUresult r = CUDA_SUCCESS;
    if (best >= 0) {
        b = p->kept[best];
        p->kept[best] = p->kept[--p->nkept];
    } else {
        if (p->max_size && p->reserved + need > p->max_size)
            pool_trim(p, need <= p->max_size ? p->max_size - need : 0);
        if (p->max_size && p->reserved + need > p->max_size) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            void *mem = NULL;
            r = p2n_drv.be->mem_alloc(need, &mem);
            if (r != CUDA_SUCCESS) {   /* kept blocks may be what stands in the way */
                pool_trim(p, 0);
                r = p2n_drv.be->mem_alloc(need, &mem);
            }
            if (r == CUDA_SUCCESS) {
                b = (pool_block){(uint64_t)(uintptr_t)mem, need};
                p->reserved += need;
                if (p->reserved > p->reserved_high)
                    p->reserved_high = p->reserved;
            }
        }
    }
    if (r == CUDA_SUCCESS && !push_block(&p->in_use, &p->nin_use, &p->capin_use, b)) {
        p2n_drv.be->mem_free((void *)(uintptr_t)b.base);
        p->reserved -= b.size;
        r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (r == CUDA_SUCCESS) {
        p->used += b.size;
        if (p->used > p->used_high)
            p->used_high = p->used;
    }
    pthread_mutex_unlock(&pool_lock);
    if (r != CUDA_SUCCESS)
        return r;
    /* entered after pool_lock is dropped: the table's lock is never taken inside the pool's */
    p2n_drv_alloc_add_owned(b.base, bytesize, P2N_ALLOC_POOL, c, p);
    *out = (CUdeviceptr)b.base;
    return CUDA_SUCCESS;
}

static CUresult alloc_async(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream s)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = p2n_drv_check_stream(s, c)) != CUDA_SUCCESS)
        return r;
    if (!dptr || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (p2n_drv_capture_active(s)) {
        /* a graph memory allocation node: its memory is the graph's, at an address fixed now (CUDA takes only
         * the pool's location from an explicit pool) */
        int dev = c->device;
        if (pool) {
            pthread_mutex_lock(&pool_lock);
            int ok = pool_ok(pool);
            if (ok)
                dev = ((p2n_pool *)pool)->device;
            pthread_mutex_unlock(&pool_lock);
            if (!ok)
                return CUDA_ERROR_INVALID_VALUE;
        }
        return p2n_drv_capture_mem_alloc(s, dev, bytesize, dptr);
    }
    pthread_mutex_lock(&pool_lock);
    p2n_pool *p = NULL;
    if (!pool)
        p = current_pool(c->device);   /* the stream's device is the context's */
    else if (pool_ok(pool))
        p = (p2n_pool *)pool;
    pthread_mutex_unlock(&pool_lock);
    if (!p)
        return pool ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_OUT_OF_MEMORY;
    return pool_alloc(p, bytesize, c, dptr);
}

CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return alloc_async(dptr, bytesize, NULL, hStream);
}
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return alloc_async(dptr, bytesize, NULL, hStream);
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)
{
    if (!pool)
        return CUDA_ERROR_INVALID_VALUE;
    return alloc_async(dptr, bytesize, pool, hStream);
}
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)
{
    return cuMemAllocFromPoolAsync(dptr, bytesize, pool, hStream);
}

static CUresult free_async(CUdeviceptr dptr, CUstream s)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = p2n_drv_check_stream(s, c)) != CUDA_SUCCESS)
        return r;
    if (p2n_drv_capture_active(s))   /* a graph memory free node (graph_memnode.c checks the pointer) */
        return p2n_drv_capture_mem_free(s, dptr);
    p2n_drv_stream_order(s, c);      /* the stream's queued work may still use it */
    p2n_alloc a;
    /* only stream-ordered allocations and graph allocations; taken out of the table at once, so a second free of
     * it fails */
    if (p2n_drv_alloc_take(dptr, P2N_ALLOC_POOL, &a))
        pool_block_release(&a);
    else if (p2n_drv_alloc_take(dptr, P2N_ALLOC_POOL_IMPORT, &a))
        p2n_drv.be->ipc_unmap(a.base);
    else if (p2n_drv_graph_mem_end(dptr) != CUDA_SUCCESS)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    return free_async(dptr, hStream);
}
CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
    return free_async(dptr, hStream);
}

/* ---- pools ---- */

CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!pool || !props)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof props->reserved; i++)
        if (props->reserved[i])
            return CUDA_ERROR_INVALID_VALUE;
    if (props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED && props->allocType != CU_MEM_ALLOCATION_TYPE_MANAGED)
        return CUDA_ERROR_INVALID_VALUE;
    if (props->location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
        (props->location.id < 0 || props->location.id >= p2n_drv.device_count ||
         props->location.id >= POOL_MAX_DEVICES))
        return CUDA_ERROR_INVALID_VALUE;
    if (props->location.type != CU_MEM_LOCATION_TYPE_DEVICE && props->location.type != CU_MEM_LOCATION_TYPE_HOST &&
        props->location.type != CU_MEM_LOCATION_TYPE_HOST_NUMA &&
        props->location.type != CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT)
        return CUDA_ERROR_INVALID_VALUE;
    /* what the device attributes say is absent: host and managed pools (HOST_MEMORY_POOLS_SUPPORTED = 0), IPC
     * handles (MEMPOOL_SUPPORTED_HANDLE_TYPES = 0), decompression */
    int ipc = props->handleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR && p2n_drv.be->ipc_export;
    if (props->location.type != CU_MEM_LOCATION_TYPE_DEVICE || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
        (props->handleTypes != CU_MEM_HANDLE_TYPE_NONE && !ipc) || props->usage != 0)
        return CUDA_ERROR_NOT_SUPPORTED;
    pthread_mutex_lock(&pool_lock);
    p2n_pool *p = pool_new(props->location.id, props->maxSize, 0);
    if (p)
        p->ipc = ipc;
    pthread_mutex_unlock(&pool_lock);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pool = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&pool_lock);
    if (!pool_ok(pool) || ((p2n_pool *)pool)->is_default) {   /* "a device's default memory pool cannot be destroyed" */
        pthread_mutex_unlock(&pool_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    p2n_pool *p = (p2n_pool *)pool;
    if (current_pools && current_pools[p->device] == p)
        current_pools[p->device] = NULL;   /* the default pool is current again */
    p2n_drv_unregister(p);
    pool_trim(p, 0);
    if (p->nin_use == 0)
        pool_free_struct(p);
    else
        p->destroyed = 1;   /* the last free of a block releases it */
    pthread_mutex_unlock(&pool_lock);
    return CUDA_SUCCESS;
}

CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&pool_lock);
    if (pool_ok(pool))
        pool_trim((p2n_pool *)pool, minBytesToKeep);
    else
        r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_unlock(&pool_lock);
    return r;
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&pool_lock);
    p2n_pool *p = (p2n_pool *)pool;
    if (!pool_ok(pool)) {
        r = CUDA_ERROR_INVALID_VALUE;
    } else {
        switch (attr) {
        case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: p->reuse_follow_events = *(int *)value != 0; break;
        case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: p->reuse_opportunistic = *(int *)value != 0; break;
        case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: p->reuse_internal_deps = *(int *)value != 0; break;
        case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
            p->release_threshold = *(cuuint64_t *)value;
            pool_trim(p, p->release_threshold);
            break;
        /* the high watermarks may only be reset (to the current value), by writing 0 */
        case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
        case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
            if (*(cuuint64_t *)value != 0)
                r = CUDA_ERROR_INVALID_VALUE;
            else if (attr == CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH)
                p->reserved_high = p->reserved;
            else
                p->used_high = p->used;
            break;
        default:   /* the current values are read-only */
            r = CUDA_ERROR_INVALID_VALUE;
            break;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    return r;
}

CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&pool_lock);
    const p2n_pool *p = (const p2n_pool *)pool;
    if (!pool_ok(pool)) {
        r = CUDA_ERROR_INVALID_VALUE;
    } else {
        switch (attr) {
        case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: *(int *)value = p->reuse_follow_events; break;
        case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: *(int *)value = p->reuse_opportunistic; break;
        case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: *(int *)value = p->reuse_internal_deps; break;
        case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: *(cuuint64_t *)value = p->release_threshold; break;
        case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: *(cuuint64_t *)value = p->reserved; break;
        case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: *(cuuint64_t *)value = p->reserved_high; break;
        case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: *(cuuint64_t *)value = p->used; break;
        case CU_MEMPOOL_ATTR_USED_MEM_HIGH: *(cuuint64_t *)value = p->used_high; break;
        default: r = CUDA_ERROR_INVALID_VALUE; break;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    return r;
}

/* The pool's own device always reads and writes it; other devices get what is set (peer access). */
CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (count && !map)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&pool_lock);
    p2n_pool *p = (p2n_pool *)pool;
    if (!pool_ok(pool))
        r = CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; r == CUDA_SUCCESS && i < count; i++) {   /* all checked before any is applied */
        const CUmemAccessDesc *d = &map[i];
        if (d->location.type != CU_MEM_LOCATION_TYPE_DEVICE || d->location.id < 0 ||
            d->location.id >= p2n_drv.device_count || d->location.id >= POOL_MAX_DEVICES ||
            (d->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && d->flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
             d->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) ||
            (d->location.id == p->device && d->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE))
            r = CUDA_ERROR_INVALID_VALUE;
    }
    for (size_t i = 0; r == CUDA_SUCCESS && i < count; i++)
        p->access[map[i].location.id] = (unsigned char)map[i].flags;
    pthread_mutex_unlock(&pool_lock);
    return r;
}

CUresult cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool, CUmemLocation *location)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!flags || !location)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&pool_lock);
    const p2n_pool *p = (const p2n_pool *)memPool;
    if (!pool_ok(memPool))
        r = CUDA_ERROR_INVALID_VALUE;
    else if (location->type == CU_MEM_LOCATION_TYPE_DEVICE)
        r = location->id >= 0 && location->id < p2n_drv.device_count && location->id < POOL_MAX_DEVICES
                ? (*flags = (CUmemAccess_flags)p->access[location->id], CUDA_SUCCESS)
                : CUDA_ERROR_INVALID_VALUE;
    else if (location->type == CU_MEM_LOCATION_TYPE_HOST || location->type == CU_MEM_LOCATION_TYPE_HOST_NUMA ||
             location->type == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT)
        *flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;   /* device pools: the host is not given access */
    else
        r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_unlock(&pool_lock);
    return r;
}

/* ---- a device's default and current pool ---- */

static CUresult device_pool(CUmemoryPool *out, CUdevice dev, int current)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = p2n_drv_check_device(dev)) != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&pool_lock);
    p2n_pool *p = current ? current_pool(dev) : default_pool(dev);
    pthread_mutex_unlock(&pool_lock);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *out = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
    return device_pool(pool_out, dev, 0);
}

CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
    return device_pool(pool, dev, 1);
}

CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = p2n_drv_check_device(dev)) != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&pool_lock);
    p2n_pool *p = (p2n_pool *)pool;
    if (!pool_ok(pool) || p->device != dev || !default_pool(dev))   /* "must be local to the device" */
        r = CUDA_ERROR_INVALID_VALUE;
    else
        current_pools[dev] = p->is_default ? NULL : p;
    pthread_mutex_unlock(&pool_lock);
    return r;
}

/* the CUDA 13 forms by location and allocation type: device locations and pinned memory only */
static CUresult location_device(const CUmemLocation *loc, CUmemAllocationType type, CUdevice *dev)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!loc || (type != CU_MEM_ALLOCATION_TYPE_PINNED && type != CU_MEM_ALLOCATION_TYPE_MANAGED))
        return CUDA_ERROR_INVALID_VALUE;
    if (loc->type == CU_MEM_LOCATION_TYPE_DEVICE) {
        if (loc->id < 0 || loc->id >= p2n_drv.device_count)
            return CUDA_ERROR_INVALID_VALUE;
    } else if (loc->type != CU_MEM_LOCATION_TYPE_HOST && loc->type != CU_MEM_LOCATION_TYPE_HOST_NUMA &&
               loc->type != CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (loc->type != CU_MEM_LOCATION_TYPE_DEVICE || type != CU_MEM_ALLOCATION_TYPE_PINNED)
        return CUDA_ERROR_NOT_SUPPORTED;   /* no host or managed pools */
    *dev = loc->id;
    return CUDA_SUCCESS;
}

CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool_out, CUmemLocation *location, CUmemAllocationType type)
{
    CUdevice dev = 0;
    CUresult r = location_device(location, type, &dev);
    return r != CUDA_SUCCESS ? r : device_pool(pool_out, dev, 0);
}

CUresult cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *location, CUmemAllocationType type)
{
    CUdevice dev = 0;
    CUresult r = location_device(location, type, &dev);
    return r != CUDA_SUCCESS ? r : device_pool(pool, dev, 1);
}

CUresult cuMemSetMemPool(CUmemLocation *location, CUmemAllocationType type, CUmemoryPool pool)
{
    CUdevice dev = 0;
    CUresult r = location_device(location, type, &dev);
    return r != CUDA_SUCCESS ? r : cuDeviceSetMemPool(dev, pool);
}

/* ---- IPC (the comment at the top says how) ---- */

typedef struct pool_token {
    char magic[8];
    int32_t pid;
    uint32_t zero;
    uint64_t serial;
} pool_token;
static const char POOL_MAGIC[8] = "p2nPOOL";

typedef struct pool_ptr_export {
    char magic[4];
    int32_t pid;
    uint64_t serial;
    uint64_t size;
    uint8_t bk[P2N_BK_IPC_BYTES];
} pool_ptr_export;
_Static_assert(sizeof(pool_ptr_export) == sizeof(CUmemPoolPtrExportData), "CUmemPoolPtrExportData layout");
static const char PTR_MAGIC[4] = {'p', '2', 'n', 'B'};

CUresult cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool, CUmemAllocationHandleType handleType,
                                          unsigned long long flags)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&pool_lock);
    int ok = pool_ok(pool) && ((p2n_pool *)pool)->ipc && !((p2n_pool *)pool)->src_pid;
    pool_token t = {.pid = (int32_t)getpid(), .serial = ok ? ((p2n_pool *)pool)->serial : 0};
    pthread_mutex_unlock(&pool_lock);
    if (!handle_out || !ok || handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || flags)
        return CUDA_ERROR_INVALID_VALUE;
    memcpy(t.magic, POOL_MAGIC, sizeof t.magic);
    int fd = memfd_create("ptx2native-pool", MFD_CLOEXEC);
    if (fd < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (pwrite(fd, &t, sizeof t, 0) != (ssize_t)sizeof t) {
        close(fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *(int *)handle_out = fd;
    return CUDA_SUCCESS;
}

CUresult cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle, CUmemAllocationHandleType handleType,
                                            unsigned long long flags)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pool_out || handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || flags)
        return CUDA_ERROR_INVALID_VALUE;
    if (!p2n_drv.be->ipc_import)
        return CUDA_ERROR_NOT_SUPPORTED;
    pool_token t;
    int fd = (int)(intptr_t)handle;
    if (fd < 0 || pread(fd, &t, sizeof t, 0) != (ssize_t)sizeof t || memcmp(t.magic, POOL_MAGIC, sizeof t.magic) ||
        t.zero || t.pid <= 0 || !t.serial)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&pool_lock);
    p2n_pool *p = pool_new(c->device, 0, 0);
    if (p) {
        p->ipc = 1;
        p->src_pid = t.pid;
        p->src_serial = t.serial;
    }
    pthread_mutex_unlock(&pool_lock);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pool_out = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

CUresult cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out, CUdeviceptr ptr)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    p2n_alloc a;
    if (!shareData_out || !p2n_drv_alloc_find(ptr, 0, &a) || a.kind != P2N_ALLOC_POOL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&pool_lock);
    p2n_pool *p = a.owner;
    int ipc = p->ipc && !p->src_pid;
    uint64_t serial = p->serial;
    pthread_mutex_unlock(&pool_lock);
    if (!ipc)
        return CUDA_ERROR_INVALID_VALUE;
    pool_ptr_export e = {.pid = (int32_t)getpid(), .serial = serial, .size = a.size};
    memcpy(e.magic, PTR_MAGIC, sizeof e.magic);
    r = p2n_drv.be->ipc_export(a.base, a.size, e.bk);
    if (r != CUDA_SUCCESS)
        return r;
    memcpy(shareData_out, &e, sizeof e);
    return CUDA_SUCCESS;
}

CUresult cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool, CUmemPoolPtrExportData *shareData)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!ptr_out || !shareData)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&pool_lock);
    int ok = pool_ok(pool) && ((p2n_pool *)pool)->src_pid;
    int32_t pid = ok ? ((p2n_pool *)pool)->src_pid : 0;
    uint64_t serial = ok ? ((p2n_pool *)pool)->src_serial : 0;
    pthread_mutex_unlock(&pool_lock);
    pool_ptr_export e;
    memcpy(&e, shareData, sizeof e);
    /* export data of another pool (or none) is refused: the sample programs try each pool in turn */
    if (!ok || memcmp(e.magic, PTR_MAGIC, sizeof e.magic) || e.pid != pid || e.serial != serial || !e.size)
        return CUDA_ERROR_INVALID_VALUE;
    uint64_t base = 0;
    r = p2n_drv_ipc_map("cuMemPoolImportPointer", pid, e.bk, (size_t)e.size, &base);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_drv_alloc_add(base, (size_t)e.size, P2N_ALLOC_POOL_IMPORT, c, 0);
    *ptr_out = (CUdeviceptr)base;
    return CUDA_SUCCESS;
}

/* an imported block its context takes away (cuMemFree goes through here too) */
static void pool_import_release(const p2n_alloc *a) { p2n_drv.be->ipc_unmap(a->base); }

__attribute__((constructor)) static void register_pool_import_release(void)
{
    p2n_drv_alloc_on_release(P2N_ALLOC_POOL_IMPORT, pool_import_release);
}
