/* managed.c — managed (unified) memory: cuMemAllocManaged, prefetch (single and batched), discards, advice, range
 * attributes, cuStreamAttachMemAsync.
 *
 * Managed memory exists only where device memory is host-dereferenceable (backend `host_access`: CPU, shared USM
 * of Level Zero, fine-grained SVM): one allocation that the host and kernels both use at the same address, so
 * nothing ever migrates. Elsewhere cuMemAllocManaged says CUDA_ERROR_NOT_SUPPORTED and
 * CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY is 0.
 *
 * Prefetches and advice change no placement (there is one copy) but are remembered per 4 KiB page, as CUDA
 * documents cuMemRangeGetAttribute(s): the advice in force and the last location asked for, for every page of the
 * queried range (or "invalid" where the pages disagree). Where kernels read any host memory
 * (CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS = 1) prefetch/advice of pageable memory is accepted and not
 * remembered. A prefetch, advice or attachment changes nothing here, so it neither waits for nor is queued on
 * its stream (stream_queue.c).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { UM_PAGE = 4096, UM_HOST_BIT = 31 };

/* what was advised for / asked of one page; type fields are CUmemLocationType (INVALID = none) */
typedef struct um_page {
    uint8_t read_mostly;
    uint8_t pref_type;
    uint8_t prefetch_type;
    int32_t pref_id;
    int32_t prefetch_id;
    uint32_t accessed_by;           /* bit d: device d; bit UM_HOST_BIT: the host */
} um_page;

typedef struct um_range {
    uint64_t base;
    size_t size;
    unsigned attach;                /* CU_MEM_ATTACH_GLOBAL / HOST / SINGLE (accepted; every stream sees it) */
    um_page *pages;                 /* NULL until the first advice or prefetch */
} um_range;

static um_range *ranges;
static size_t nranges, capranges;
/* Lock order: the allocation table's lock may be held when um_lock is taken (a dying context releases its managed
 * memory through um_release), so nothing here calls the table with um_lock held. */
static pthread_mutex_t um_lock = PTHREAD_MUTEX_INITIALIZER;

/* index of the range containing [p, p+n) (n >= 1), or -1; um_lock held */
static long range_of(uint64_t p, size_t n)
{
    for (size_t i = 0; i < nranges; i++)
        if (p >= ranges[i].base && p - ranges[i].base < ranges[i].size && n <= ranges[i].size - (p - ranges[i].base))
            return (long)i;
    return -1;
}

static void um_release(const p2n_alloc *a)
{
    pthread_mutex_lock(&um_lock);
    for (size_t i = 0; i < nranges; i++) {
        if (ranges[i].base == a->base) {
            free(ranges[i].pages);
            ranges[i] = ranges[--nranges];
            break;
        }
    }
    if (nranges == 0) {
        free(ranges);
        ranges = NULL;
        capranges = 0;
    }
    pthread_mutex_unlock(&um_lock);
    p2n_drv.be->mem_free((void *)(uintptr_t)a->base);
}

__attribute__((constructor)) static void register_release_hook(void)
{
    p2n_drv_alloc_on_release(P2N_ALLOC_MANAGED, um_release);
}

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!dptr || bytesize == 0 || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
        return CUDA_ERROR_INVALID_VALUE;
    if (!p2n_drv.dev.host_access)   /* CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY is 0 there */
        return CUDA_ERROR_NOT_SUPPORTED;
    void *p = NULL;
    r = p2n_drv.be->mem_alloc(bytesize, &p);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&um_lock);
    if (nranges == capranges) {
        size_t nc = capranges ? capranges * 2 : 16;
        um_range *nr = realloc(ranges, nc * sizeof *nr);
        if (!nr) {
            pthread_mutex_unlock(&um_lock);
            p2n_drv.be->mem_free(p);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        ranges = nr;
        capranges = nc;
    }
    ranges[nranges++] = (um_range){.base = (uint64_t)(uintptr_t)p, .size = bytesize, .attach = flags};
    pthread_mutex_unlock(&um_lock);
    p2n_drv_alloc_add((uint64_t)(uintptr_t)p, bytesize, P2N_ALLOC_MANAGED, c, flags);
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

/* ---- locations ---- */

/* A location a prefetch or an advice may name: a device, or the host (a NUMA node: node 0, the only one we
 * describe). Returns INVALID_DEVICE for a device ordinal out of range, INVALID_VALUE for anything else. */
static CUresult check_location(CUmemLocation *loc)
{
    switch (loc->type) {
    case CU_MEM_LOCATION_TYPE_DEVICE:
        return loc->id >= 0 && loc->id < p2n_drv.device_count ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
    case CU_MEM_LOCATION_TYPE_HOST:
        loc->id = 0;
        return CUDA_SUCCESS;
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
        return loc->id == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
        loc->type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
        loc->id = 0;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* the legacy CUdevice form: an ordinal, or CU_DEVICE_CPU for the host */
static CUmemLocation location_of_device(CUdevice d)
{
    if (d == CU_DEVICE_CPU)
        return (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_HOST, .id = 0};
    return (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = d};
}

static int legacy_device_of(uint8_t type, int32_t id)
{
    switch (type) {
    case CU_MEM_LOCATION_TYPE_DEVICE: return id;
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA: return CU_DEVICE_CPU;
    default: return CU_DEVICE_INVALID;
    }
}

/* ---- applying to pages ---- */

typedef enum um_op { UM_CHECK, UM_PREFETCH, UM_ADVISE } um_op;

/* Applies a prefetch or an advice to every page of [p, p+n) (rounded out to pages, within the allocation); UM_CHECK
 * only checks the range. Pageable memory (not in the table) is accepted where the device reads it and nothing is
 * kept. */
static CUresult apply(uint64_t p, size_t n, um_op op, CUmem_advise advice, CUmemLocation loc)
{
    if (n == 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&um_lock);
    long i = range_of(p, n);
    if (i < 0) {
        pthread_mutex_unlock(&um_lock);
        if (p2n_drv.dev.reads_host_memory && !p2n_drv_alloc_find(p, 1, NULL) && p + n > p)
            return CUDA_SUCCESS;
        return CUDA_ERROR_INVALID_VALUE;
    }
    um_range *u = &ranges[i];
    if (op == UM_CHECK) {
        pthread_mutex_unlock(&um_lock);
        return CUDA_SUCCESS;
    }
    size_t npages = (u->size + UM_PAGE - 1) / UM_PAGE;
    if (!u->pages) {
        u->pages = calloc(npages, sizeof *u->pages);
        if (!u->pages) {
            pthread_mutex_unlock(&um_lock);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    size_t first = (size_t)(p - u->base) / UM_PAGE, last = (size_t)(p - u->base + n - 1) / UM_PAGE;
    uint32_t bit = loc.type != CU_MEM_LOCATION_TYPE_DEVICE ? 1u << UM_HOST_BIT : loc.id < UM_HOST_BIT ? 1u << loc.id : 0;
    for (size_t k = first; k <= last; k++) {
        um_page *pg = &u->pages[k];
        if (op == UM_PREFETCH) {
            pg->prefetch_type = (uint8_t)loc.type;
            pg->prefetch_id = loc.id;
            continue;
        }
        switch (advice) {
        case CU_MEM_ADVISE_SET_READ_MOSTLY: pg->read_mostly = 1; break;
        case CU_MEM_ADVISE_UNSET_READ_MOSTLY: pg->read_mostly = 0; break;
        case CU_MEM_ADVISE_SET_PREFERRED_LOCATION:
            pg->pref_type = (uint8_t)loc.type;
            pg->pref_id = loc.id;
            break;
        case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
            pg->pref_type = CU_MEM_LOCATION_TYPE_INVALID;
            pg->pref_id = 0;
            break;
        case CU_MEM_ADVISE_SET_ACCESSED_BY: pg->accessed_by |= bit; break;
        case CU_MEM_ADVISE_UNSET_ACCESSED_BY: pg->accessed_by &= ~bit; break;
        }
    }
    pthread_mutex_unlock(&um_lock);
    return CUDA_SUCCESS;
}

/* ---- prefetch ---- */

static CUresult prefetch(CUdeviceptr p, size_t n, CUmemLocation loc, unsigned flags, CUstream s)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = p2n_drv_check_stream(s, c)) != CUDA_SUCCESS)
        return r;
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = check_location(&loc)) != CUDA_SUCCESS)
        return r;
    return apply(p, n, UM_PREFETCH, CU_MEM_ADVISE_SET_READ_MOSTLY, loc);
}

CUresult cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream)
{
    return prefetch(devPtr, count, location_of_device(dstDevice), 0, hStream);
}
CUresult cuMemPrefetchAsync_ptsz(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream)
{
    return prefetch(devPtr, count, location_of_device(dstDevice), 0, hStream);
}
CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags,
                               CUstream hStream)
{
    return prefetch(devPtr, count, location, flags, hStream);
}
CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags,
                                    CUstream hStream)
{
    return prefetch(devPtr, count, location, flags, hStream);
}

/* What every batch call checks first: context, a stream other than the legacy NULL stream, flags 0, the ranges
 * (each managed or pageable memory, checked before anything is recorded). */
static CUresult batch_prologue(CUdeviceptr *dptrs, size_t *sizes, size_t count, unsigned long long flags, CUstream s,
                               int per_thread)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (s == CU_STREAM_LEGACY || (!s && !per_thread))   /* "must not be the legacy NULL stream" */
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = p2n_drv_check_stream(s, c)) != CUDA_SUCCESS)
        return r;
    if (flags != 0 || count == 0 || !dptrs || !sizes)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < count; i++)
        if ((r = apply(dptrs[i], sizes[i], UM_CHECK, CU_MEM_ADVISE_SET_READ_MOSTLY, (CUmemLocation){0})) != CUDA_SUCCESS)
            return r;
    return CUDA_SUCCESS;
}

/* Location k of a batch applies to the operations prefetchLocIdxs[k] .. prefetchLocIdxs[k+1]-1; the indices start
 * at 0 and rise. Everything is checked before any prefetch is recorded. */
static CUresult prefetch_batch(CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *locs, size_t *idxs,
                               size_t nlocs, unsigned long long flags, CUstream s, int per_thread)
{
    CUresult r = batch_prologue(dptrs, sizes, count, flags, s, per_thread);
    if (r != CUDA_SUCCESS)
        return r;
    if (!locs || !idxs || nlocs == 0 || nlocs > count || idxs[0] != 0)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t k = 0; k < nlocs; k++) {
        if ((k > 0 && idxs[k] <= idxs[k - 1]) || idxs[k] >= count)
            return CUDA_ERROR_INVALID_VALUE;
        CUmemLocation l = locs[k];
        if ((r = check_location(&l)) != CUDA_SUCCESS)
            return r;
    }
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        while (k + 1 < nlocs && idxs[k + 1] <= i)
            k++;
        CUmemLocation l = locs[k];
        (void)check_location(&l);
        if ((r = apply(dptrs[i], sizes[i], UM_PREFETCH, CU_MEM_ADVISE_SET_READ_MOSTLY, l)) != CUDA_SUCCESS)
            return r;
    }
    return CUDA_SUCCESS;
}

CUresult cuMemPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *prefetchLocs,
                                 size_t *prefetchLocIdxs, size_t numPrefetchLocs, unsigned long long flags,
                                 CUstream hStream)
{
    return prefetch_batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, hStream, 0);
}
CUresult cuMemPrefetchBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *prefetchLocs,
                                      size_t *prefetchLocIdxs, size_t numPrefetchLocs, unsigned long long flags,
                                      CUstream hStream)
{
    return prefetch_batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, hStream, 1);
}

/* Discarding says the contents no longer matter: with one copy and no migration there is nothing to drop, and
 * keeping the bytes is one of the "indeterminate" values CUDA allows a read of discarded memory to return. */
static CUresult discard_batch(CUdeviceptr *dptrs, size_t *sizes, size_t count, unsigned long long flags, CUstream s,
                              int per_thread)
{
    return batch_prologue(dptrs, sizes, count, flags, s, per_thread);
}

CUresult cuMemDiscardBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count, unsigned long long flags,
                                CUstream hStream)
{
    return discard_batch(dptrs, sizes, count, flags, hStream, 0);
}
CUresult cuMemDiscardBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count, unsigned long long flags,
                                     CUstream hStream)
{
    return discard_batch(dptrs, sizes, count, flags, hStream, 1);
}

/* a discard and then the prefetch: the prefetch is all there is to do */
CUresult cuMemDiscardAndPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                           CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                           size_t numPrefetchLocs, unsigned long long flags, CUstream hStream)
{
    return prefetch_batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, hStream, 0);
}
CUresult cuMemDiscardAndPrefetchBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                                CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                                size_t numPrefetchLocs, unsigned long long flags, CUstream hStream)
{
    return prefetch_batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, hStream, 1);
}

/* ---- advice ---- */

static CUresult advise(CUdeviceptr p, size_t n, CUmem_advise advice, CUmemLocation loc)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    switch (advice) {
    case CU_MEM_ADVISE_SET_READ_MOSTLY:
    case CU_MEM_ADVISE_UNSET_READ_MOSTLY:
    case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
        break;   /* the location is ignored */
    case CU_MEM_ADVISE_SET_PREFERRED_LOCATION:
        if ((r = check_location(&loc)) != CUDA_SUCCESS)
            return r;
        break;
    case CU_MEM_ADVISE_SET_ACCESSED_BY:
    case CU_MEM_ADVISE_UNSET_ACCESSED_BY:
        /* a device or the host; "all other location types are invalid" */
        if (loc.type != CU_MEM_LOCATION_TYPE_DEVICE && loc.type != CU_MEM_LOCATION_TYPE_HOST)
            return CUDA_ERROR_INVALID_VALUE;
        if ((r = check_location(&loc)) != CUDA_SUCCESS)
            return r;
        break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    return apply(p, n, UM_ADVISE, advice, loc);
}

CUresult cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device)
{
    return advise(devPtr, count, advice, location_of_device(device));
}

CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUmemLocation location)
{
    return advise(devPtr, count, advice, location);
}

/* ---- range attributes ---- */

/* One attribute over [p, p+n): written into data (dataSize bytes, checked per attribute). um_lock held;
 * u is NULL for pageable memory (nothing advised, nothing prefetched). */
static CUresult range_attribute(void *data, size_t size, CUmem_range_attribute attr, const um_range *u, uint64_t p,
                                size_t n)
{
    size_t first = 0, last = 0;
    if (u && u->pages) {
        first = (size_t)(p - u->base) / UM_PAGE;
        last = (size_t)(p - u->base + n - 1) / UM_PAGE;
    }
    const um_page none = {0};
    /* the pages agree on a field, or the first page's value is not the answer */
    int same_pref = 1, same_prefetch = 1, all_read_mostly = 1;
    uint32_t accessed = 0xffffffffu;
    const um_page *p0 = u && u->pages ? &u->pages[first] : &none;
    for (size_t k = first; k <= last; k++) {
        const um_page *pg = u && u->pages ? &u->pages[k] : &none;
        same_pref &= pg->pref_type == p0->pref_type && pg->pref_id == p0->pref_id;
        same_prefetch &= pg->prefetch_type == p0->prefetch_type && pg->prefetch_id == p0->prefetch_id;
        all_read_mostly &= pg->read_mostly;
        accessed &= pg->accessed_by;
    }
    uint8_t pref_type = same_pref ? p0->pref_type : CU_MEM_LOCATION_TYPE_INVALID;
    uint8_t prefetch_type = same_prefetch ? p0->prefetch_type : CU_MEM_LOCATION_TYPE_INVALID;
    switch (attr) {
    case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY:
        if (size != 4)
            return CUDA_ERROR_INVALID_VALUE;
        *(int32_t *)data = all_read_mostly;
        return CUDA_SUCCESS;
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION:
        if (size != 4)
            return CUDA_ERROR_INVALID_VALUE;
        *(int32_t *)data = legacy_device_of(pref_type, p0->pref_id);
        return CUDA_SUCCESS;
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION:
        if (size != 4)
            return CUDA_ERROR_INVALID_VALUE;
        *(int32_t *)data = legacy_device_of(prefetch_type, p0->prefetch_id);
        return CUDA_SUCCESS;
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE:
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE:
        if (size != sizeof(CUmemLocationType))
            return CUDA_ERROR_INVALID_VALUE;
        *(CUmemLocationType *)data =
            (CUmemLocationType)(attr == CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE ? pref_type : prefetch_type);
        return CUDA_SUCCESS;
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID:
        if (size != 4)
            return CUDA_ERROR_INVALID_VALUE;
        *(int32_t *)data = pref_type != CU_MEM_LOCATION_TYPE_INVALID ? p0->pref_id : 0;
        return CUDA_SUCCESS;
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID:
        if (size != 4)
            return CUDA_ERROR_INVALID_VALUE;
        *(int32_t *)data = prefetch_type != CU_MEM_LOCATION_TYPE_INVALID ? p0->prefetch_id : 0;
        return CUDA_SUCCESS;
    case CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY: {
        if (size == 0 || size % 4 != 0)
            return CUDA_ERROR_INVALID_VALUE;
        int32_t *out = data;
        size_t slots = size / 4, w = 0;
        for (int d = 0; d < p2n_drv.device_count && d < 31 && w < slots; d++)
            if (accessed & (1u << d))
                out[w++] = d;
        if (w < slots && (accessed & (1u << UM_HOST_BIT)))
            out[w++] = CU_DEVICE_CPU;
        while (w < slots)
            out[w++] = CU_DEVICE_INVALID;
        return CUDA_SUCCESS;
    }
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuMemRangeGetAttributes(void **data, size_t *dataSizes, CUmem_range_attribute *attributes,
                                 size_t numAttributes, CUdeviceptr devPtr, size_t count)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!data || !dataSizes || !attributes || numAttributes == 0 || count == 0 || devPtr + count < devPtr)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < numAttributes; i++)
        if (!data[i])
            return CUDA_ERROR_INVALID_VALUE;
    int pageable = p2n_drv.dev.reads_host_memory && !p2n_drv_alloc_find(devPtr, 1, NULL);
    pthread_mutex_lock(&um_lock);
    long i = range_of(devPtr, count);
    const um_range *u = i >= 0 ? &ranges[i] : NULL;
    if (!u && !pageable)
        r = CUDA_ERROR_INVALID_VALUE;   /* neither managed nor pageable memory the device reads */
    for (size_t k = 0; r == CUDA_SUCCESS && k < numAttributes; k++)
        r = range_attribute(data[k], dataSizes[k], attributes[k], u, devPtr, count);
    pthread_mutex_unlock(&um_lock);
    return r;
}

CUresult cuMemRangeGetAttribute(void *data, size_t dataSize, CUmem_range_attribute attribute, CUdeviceptr devPtr,
                                size_t count)
{
    return cuMemRangeGetAttributes(&data, &dataSize, &attribute, 1, devPtr, count);
}

/* ---- stream association ---- */

/* Every stream sees managed memory at all times here (CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = 1), so an
 * association only has to be valid. For a managed allocation `length` is 0 or its whole size, as CUDA requires. */
static CUresult attach(CUstream s, CUdeviceptr p, size_t length, unsigned flags)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = p2n_drv_check_stream(s, c)) != CUDA_SUCCESS)
        return r;
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST && flags != CU_MEM_ATTACH_SINGLE)
        return CUDA_ERROR_INVALID_VALUE;
    int pageable = p2n_drv.dev.reads_host_memory && !p2n_drv_alloc_find(p, 1, NULL);
    pthread_mutex_lock(&um_lock);
    long i = range_of(p, 1);
    if (i >= 0) {
        if (ranges[i].base != p || (length != 0 && length != ranges[i].size))
            r = CUDA_ERROR_INVALID_VALUE;
        else
            ranges[i].attach = flags;
    } else if (!pageable || length == 0) {
        r = CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_unlock(&um_lock);
    return r;
}

CUresult cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags)
{
    return attach(hStream, dptr, length, flags);
}
CUresult cuStreamAttachMemAsync_ptsz(CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags)
{
    return attach(hStream, dptr, length, flags);
}
