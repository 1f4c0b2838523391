/* vmm.c — virtual memory management: address reservations (cuMemAddressReserve/Free), physical allocations
 * (cuMemCreate/Release, retained and exported handles), mappings (cuMemMap/Unmap) and their access
 * (cuMemSetAccess/GetAccess), granularity and properties.
 *
 * Only where kernels dereference any host pointer (backend `reads_host_memory`: the CPU backend), because there the
 * process's own page tables are the device's: a reservation is a PROT_NONE anonymous mapping, a physical allocation
 * is a memfd of its size, cuMemMap maps the memfd MAP_SHARED|MAP_FIXED over the reservation (still PROT_NONE, as
 * CUDA's mappings start without access), and cuMemSetAccess is mprotect. A kernel touching an unmapped or
 * inaccessible page faults as at a wild pointer (CUDA_ERROR_ILLEGAL_ADDRESS). Elsewhere every function says
 * CUDA_ERROR_NOT_SUPPORTED and CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED is 0.
 *
 * The read-write parts of a reservation are in the allocation table (P2N_ALLOC_VMM, no context: a reservation
 * belongs to the process), one entry per run of adjacent read-write mappings, so that copies, memsets and pointer
 * queries accept them, across mapping boundaries too. Read-only mappings are left out of the table: a copy into one
 * would fault in the driver itself, so copies from them fail as well (kernels read them).
 *
 * A POSIX file descriptor export is a dup of the memfd (and an import maps the file another process sent); other
 * handle types are not supported.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* memfd_create */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

enum { VMM_MAX_DEVICES = 8 };
static const size_t VMM_RECOMMENDED = 2u << 20;   /* a huge page: fewer mappings for large allocations */

typedef struct vmm_handle {
    uint32_t magic;
    int fd;
    size_t size;
    CUmemAllocationProp prop;
    int user_refs;                  /* cuMemCreate / import / cuMemRetainAllocationHandle minus cuMemRelease */
    int map_refs;                   /* mappings of it; freed when both are 0 */
} vmm_handle;

typedef struct vmm_map {
    uint64_t va;
    size_t size;
    vmm_handle *h;
    unsigned char access[VMM_MAX_DEVICES];   /* CUmemAccess_flags per device */
} vmm_map;

typedef struct vmm_resv {
    uint64_t base;
    size_t size;
    vmm_map *maps;                  /* sorted by address */
    size_t nmaps, capmaps;
    uint64_t *runs;                 /* bases of this reservation's allocation-table entries */
    size_t nruns, capruns;
} vmm_resv;

static vmm_resv *resvs;
static size_t nresvs, capresvs;
static pthread_mutex_t vmm_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* the prologue of every entry point: initialised, and a device whose kernels use the process's page tables */
static CUresult vmm_check(void)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    return p2n_drv.dev.reads_host_memory ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED;
}

static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 1;
    size_t nc = *cap ? *cap * 2 : 8;
    void *na = realloc(*arr, nc * elem);
    if (!na)
        return 0;
    *arr = na;
    *cap = nc;
    return 1;
}

/* the reservation containing [p, p+n), or NULL; vmm_lock held */
static vmm_resv *resv_of(uint64_t p, size_t n)
{
    for (size_t i = 0; i < nresvs; i++)
        if (p >= resvs[i].base && p - resvs[i].base < resvs[i].size && n <= resvs[i].size - (p - resvs[i].base))
            return &resvs[i];
    return NULL;
}

static int map_writable(const vmm_map *m)
{
    for (int d = 0; d < VMM_MAX_DEVICES; d++)
        if (m->access[d] == CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return 1;
    return 0;
}

/* Re-enters the reservation's read-write runs in the allocation table; vmm_lock held. */
static void resv_sync_table(vmm_resv *r)
{
    for (size_t i = 0; i < r->nruns; i++)
        p2n_drv_alloc_remove(r->runs[i]);
    r->nruns = 0;
    for (size_t i = 0; i < r->nmaps;) {
        if (!map_writable(&r->maps[i])) {
            i++;
            continue;
        }
        uint64_t start = r->maps[i].va, end = start + r->maps[i].size;
        size_t j = i + 1;
        while (j < r->nmaps && r->maps[j].va == end && map_writable(&r->maps[j]))
            end += r->maps[j++].size;
        if (grow((void **)&r->runs, &r->capruns, r->nruns, sizeof *r->runs)) {
            r->runs[r->nruns++] = start;
            p2n_drv_alloc_add(start, (size_t)(end - start), P2N_ALLOC_VMM, NULL, 0);
        }
        i = j;
    }
}

static void handle_put(vmm_handle *h)
{
    if (h->user_refs == 0 && h->map_refs == 0) {
        close(h->fd);
        h->magic = 0;
        free(h);
    }
}

static vmm_handle *handle_of(CUmemGenericAllocationHandle handle)
{
    void *p = (void *)(uintptr_t)handle;
    return p && p2n_drv_is_live(p, P2N_MAGIC_VMM) ? p : NULL;
}

/* ---- reservations ---- */

CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                             unsigned long long flags)
{
    CUresult r = vmm_check();
    if (r != CUDA_SUCCESS)
        return r;
    size_t pg = page_size();
    if (!ptr || size == 0 || size % pg || addr % pg || flags != 0 || (alignment & (alignment - 1)))
        return CUDA_ERROR_INVALID_VALUE;
    if (alignment < pg)
        alignment = pg;
    size_t span;
    if (__builtin_add_overflow(size, alignment - pg, &span))
        return CUDA_ERROR_OUT_OF_MEMORY;
    /* more than asked for, then the ends that break the alignment are given back */
    void *m = mmap((void *)(uintptr_t)addr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return CUDA_ERROR_OUT_OF_MEMORY;
    uint64_t raw = (uint64_t)(uintptr_t)m, base = (raw + alignment - 1) & ~(uint64_t)(alignment - 1);
    if (base > raw)
        munmap(m, (size_t)(base - raw));
    if (base + size < raw + span)
        munmap((void *)(uintptr_t)(base + size), (size_t)(raw + span - base - size));
    pthread_mutex_lock(&vmm_lock);
    if (!grow((void **)&resvs, &capresvs, nresvs, sizeof *resvs)) {
        pthread_mutex_unlock(&vmm_lock);
        munmap((void *)(uintptr_t)base, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    resvs[nresvs++] = (vmm_resv){.base = base, .size = size};
    pthread_mutex_unlock(&vmm_lock);
    *ptr = (CUdeviceptr)base;
    return CUDA_SUCCESS;
}

/* Unmaps maps [i, j) of r (whole mappings): the pages become reserved again; vmm_lock held */
static void unmap_range(vmm_resv *r, size_t i, size_t j)
{
    for (size_t k = i; k < j; k++) {
        vmm_map *m = &r->maps[k];
        mmap((void *)(uintptr_t)m->va, m->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
             -1, 0);
        m->h->map_refs--;
        handle_put(m->h);
    }
    memmove(&r->maps[i], &r->maps[j], (r->nmaps - j) * sizeof *r->maps);
    r->nmaps -= j - i;
}

/* The reservation must be given exactly; mappings still in it are unmapped first. */
CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    CUresult r = vmm_check();
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&vmm_lock);
    vmm_resv *v = resv_of(ptr, 1);
    if (!v || v->base != ptr || v->size != size) {
        pthread_mutex_unlock(&vmm_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    unmap_range(v, 0, v->nmaps);
    resv_sync_table(v);
    munmap((void *)(uintptr_t)v->base, v->size);
    free(v->maps);
    free(v->runs);
    *v = resvs[--nresvs];
    if (nresvs == 0) {
        free(resvs);
        resvs = NULL;
        capresvs = 0;
    }
    pthread_mutex_unlock(&vmm_lock);
    return CUDA_SUCCESS;
}

/* ---- physical allocations ---- */

/* What we make: pinned device memory of a device of ours, exportable as a POSIX fd at most. */
static CUresult check_prop(const CUmemAllocationProp *prop)
{
    if (!prop || prop->type == CU_MEM_ALLOCATION_TYPE_INVALID || prop->type > CU_MEM_ALLOCATION_TYPE_MANAGED)
        return CUDA_ERROR_INVALID_VALUE;
    switch (prop->location.type) {
    case CU_MEM_LOCATION_TYPE_DEVICE:
        if (prop->location.id < 0 || prop->location.id >= p2n_drv.device_count)
            return CUDA_ERROR_INVALID_DEVICE;
        break;
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
        return CUDA_ERROR_NOT_SUPPORTED;   /* HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 0 */
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
        (prop->requestedHandleTypes & ~(unsigned)CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ||
        prop->allocFlags.compressionType || prop->allocFlags.gpuDirectRDMACapable || prop->allocFlags.usage)
        return CUDA_ERROR_NOT_SUPPORTED;
    return CUDA_SUCCESS;
}

CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                       CUmemAllocationGranularity_flags option)
{
    CUresult r = vmm_check();
    if (r != CUDA_SUCCESS)
        return r;
    if (!granularity || (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = check_prop(prop)) != CUDA_SUCCESS)
        return r;
    size_t pg = page_size();
    *granularity = option == CU_MEM_ALLOC_GRANULARITY_MINIMUM ? pg : (VMM_RECOMMENDED > pg ? VMM_RECOMMENDED : pg);
    return CUDA_SUCCESS;
}

static CUresult handle_new(int fd, size_t size, const CUmemAllocationProp *prop, CUmemGenericAllocationHandle *out)
{
    vmm_handle *h = calloc(1, sizeof *h);
    if (!h)
        return CUDA_ERROR_OUT_OF_MEMORY;
    h->magic = P2N_MAGIC_VMM;
    h->fd = fd;
    h->size = size;
    h->prop = *prop;
    h->user_refs = 1;
    p2n_drv_register(h);
    *out = (CUmemGenericAllocationHandle)(uintptr_t)h;
    return CUDA_SUCCESS;
}

CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
                     unsigned long long flags)
{
    CUresult r = vmm_check();
    if (r != CUDA_SUCCESS)
        return r;
    if (!handle || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = check_prop(prop)) != CUDA_SUCCESS)
        return r;
    if (size == 0 || size % page_size())   /* a multiple of the minimum granularity */
        return CUDA_ERROR_INVALID_VALUE;
    int fd = memfd_create("p2n-cuMemCreate", MFD_CLOEXEC);
    if (fd < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&vmm_lock);
    r = handle_new(fd, size, prop, handle);
    pthread_mutex_unlock(&vmm_lock);
    if (r != CUDA_SUCCESS)
        close(fd);
    return r;
}

/* The handle stops being usable; the memory goes when its last mapping does. */
CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    CUresult r = vmm_check();
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&vmm_lock);
    vmm_handle *h = handle_of(handle);
    if (!h) {
        r = CUDA_ERROR_INVALID_VALUE;
    } else if (--h->user_refs == 0) {
        p2n_drv_unregister(h);
        handle_put(h);
    }
    pthread_mutex_unlock(&vmm_lock);
    return r;
}

CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop, CUmemGenericAllocationHandle handle)
{
    CUresult r = vmm_check();
    if (r != CUDA_SUCCESS)
        return r;
    if (!prop)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&vmm_lock);
    vmm_handle *h = handle_of(handle);
    if (h)
        *prop = h->prop;
    else
        r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_unlock(&vmm_lock);
    return r;
}

/* ---- mappings ---- */

/* index of the mapping containing p in r, or -1; vmm_lock held */
static long map_at(const vmm_resv *r, uint64_t p)
{
    for (size_t i = 0; i < r->nmaps; i++)
        if (p >= r->maps[i].va && p - r->maps[i].va < r->maps[i].size)
            return (long)i;
    return -1;
}

CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                  unsigned long long flags)
{
    CUresult r = vmm_check();
    if (r != CUDA_SUCCESS)
        return r;
    size_t pg = page_size();
    if (size == 0 || ptr % pg || size % pg || offset != 0 || flags != 0)   /* "offset: currently must be zero" */
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&vmm_lock);
    vmm_handle *h = handle_of(handle);
    vmm_resv *v = resv_of(ptr, size);
    if (!h || !v || size > h->size) {
        pthread_mutex_unlock(&vmm_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    /* only on pages not mapped yet; the sorted position of the new mapping */
    size_t at = 0;
    for (; at < v->nmaps && v->maps[at].va < ptr; at++)
        ;
    if ((at > 0 && v->maps[at - 1].va + v->maps[at - 1].size > ptr) || (at < v->nmaps && v->maps[at].va < ptr + size) ||
        !grow((void **)&v->maps, &v->capmaps, v->nmaps, sizeof *v->maps)) {
        pthread_mutex_unlock(&vmm_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    void *m = mmap((void *)(uintptr_t)ptr, size, PROT_NONE, MAP_SHARED | MAP_FIXED, h->fd, 0);
    if (m == MAP_FAILED) {
        pthread_mutex_unlock(&vmm_lock);
        return errno == ENOMEM ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_VALUE;
    }
    memmove(&v->maps[at + 1], &v->maps[at], (v->nmaps - at) * sizeof *v->maps);
    v->maps[at] = (vmm_map){.va = ptr, .size = size, .h = h};   /* no access yet, as in CUDA */
    v->nmaps++;
    h->map_refs++;
    pthread_mutex_unlock(&vmm_lock);
    return CUDA_SUCCESS;
}

/* The whole mappings [ptr, ptr+size) consists of, with no gap: maps [*first, *end) of *out. */
static int whole_maps(uint64_t ptr, size_t size, vmm_resv **out, size_t *first, size_t *end)
{
    vmm_resv *v = size ? resv_of(ptr, size) : NULL;
    if (!v)
        return 0;
    long i = map_at(v, ptr);
    if (i < 0 || v->maps[i].va != ptr)
        return 0;
    uint64_t at = ptr;
    size_t j = (size_t)i;
    while (j < v->nmaps && v->maps[j].va == at && at < ptr + size)
        at += v->maps[j++].size;
    if (at != ptr + size)
        return 0;
    *out = v;
    *first = (size_t)i;
    *end = j;
    return 1;
}

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    CUresult r = vmm_check();
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&vmm_lock);
    vmm_resv *v = NULL;
    size_t i = 0, j = 0;
    if (!whole_maps(ptr, size, &v, &i, &j)) {   /* not a sub-range of a mapping, nor unmapped pages */
        pthread_mutex_unlock(&vmm_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    unmap_range(v, i, j);
    resv_sync_table(v);
    pthread_mutex_unlock(&vmm_lock);
    return CUDA_SUCCESS;
}

/* Devices share one address space here: the pages get the widest access any device is given. */
CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
    CUresult r = vmm_check();
    if (r != CUDA_SUCCESS)
        return r;
    if (!desc || count == 0)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t k = 0; k < count; k++) {
        if (desc[k].location.type != CU_MEM_LOCATION_TYPE_DEVICE)
            return CUDA_ERROR_INVALID_VALUE;   /* host access is for host allocations, which we do not make */
        if (desc[k].location.id < 0 || desc[k].location.id >= p2n_drv.device_count ||
            desc[k].location.id >= VMM_MAX_DEVICES)
            return CUDA_ERROR_INVALID_DEVICE;
        if (desc[k].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && desc[k].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
            desc[k].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&vmm_lock);
    vmm_resv *v = NULL;
    size_t i = 0, j = 0;
    if (!whole_maps(ptr, size, &v, &i, &j)) {
        pthread_mutex_unlock(&vmm_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (size_t m = i; m < j; m++) {
        vmm_map *mp = &v->maps[m];
        for (size_t k = 0; k < count; k++)
            mp->access[desc[k].location.id] = (unsigned char)desc[k].flags;
        int prot = PROT_NONE;
        for (int d = 0; d < VMM_MAX_DEVICES; d++) {
            if (mp->access[d] == CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
                prot = PROT_READ | PROT_WRITE;
            else if (mp->access[d] == CU_MEM_ACCESS_FLAGS_PROT_READ && prot == PROT_NONE)
                prot = PROT_READ;
        }
        if (mprotect((void *)(uintptr_t)mp->va, mp->size, prot) != 0)
            r = CUDA_ERROR_INVALID_VALUE;
    }
    resv_sync_table(v);
    pthread_mutex_unlock(&vmm_lock);
    return r;
}

CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr)
{
    CUresult r = vmm_check();
    if (r != CUDA_SUCCESS)
        return r;
    if (!flags || !location)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&vmm_lock);
    vmm_resv *v = resv_of(ptr, 1);
    long i = v ? map_at(v, ptr) : -1;
    if (i < 0) {
        r = CUDA_ERROR_INVALID_VALUE;
    } else if (location->type == CU_MEM_LOCATION_TYPE_DEVICE) {
        if (location->id < 0 || location->id >= p2n_drv.device_count || location->id >= VMM_MAX_DEVICES)
            r = CUDA_ERROR_INVALID_DEVICE;
        else
            *flags = v->maps[i].access[location->id];
    } else if (location->type == CU_MEM_LOCATION_TYPE_HOST) {
        *flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    } else {
        r = CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_unlock(&vmm_lock);
    return r;
}

/* The handle of the allocation mapped at addr, with one more reference (cuMemRelease it). */
CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
    CUresult r = vmm_check();
    if (r != CUDA_SUCCESS)
        return r;
    if (!handle)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&vmm_lock);
    uint64_t p = (uint64_t)(uintptr_t)addr;
    vmm_resv *v = resv_of(p, 1);
    long i = v ? map_at(v, p) : -1;
    if (i < 0) {
        r = CUDA_ERROR_INVALID_VALUE;
    } else {
        vmm_handle *h = v->maps[i].h;
        if (h->user_refs++ == 0)
            p2n_drv_register(h);   /* released, still mapped: usable again */
        *handle = (CUmemGenericAllocationHandle)(uintptr_t)h;
    }
    pthread_mutex_unlock(&vmm_lock);
    return r;
}

/* ---- shareable handles: POSIX file descriptors ---- */

CUresult cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle,
                                      CUmemAllocationHandleType handleType, unsigned long long flags)
{
    CUresult r = vmm_check();
    if (r != CUDA_SUCCESS)
        return r;
    if (!shareableHandle || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_NOT_SUPPORTED;
    pthread_mutex_lock(&vmm_lock);
    vmm_handle *h = handle_of(handle);
    if (!h || !(h->prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)) {
        r = CUDA_ERROR_INVALID_VALUE;   /* unknown, or not created exportable this way */
    } else {
        int fd = fcntl(h->fd, F_DUPFD_CLOEXEC, 0);
        if (fd < 0)
            r = CUDA_ERROR_OUT_OF_MEMORY;
        else
            *(int *)shareableHandle = fd;
    }
    pthread_mutex_unlock(&vmm_lock);
    return r;
}

/* osHandle is the descriptor itself (cast to a pointer), as CUDA takes it; the caller keeps its descriptor. */
CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle,
                                        CUmemAllocationHandleType shHandleType)
{
    CUresult r = vmm_check();
    if (r != CUDA_SUCCESS)
        return r;
    if (!handle)
        return CUDA_ERROR_INVALID_VALUE;
    if (shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_NOT_SUPPORTED;
    int src = (int)(intptr_t)osHandle;
    struct stat st;
    if (src < 0 || fstat(src, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (size_t)st.st_size % page_size())
        return CUDA_ERROR_INVALID_VALUE;
    int fd = fcntl(src, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    pthread_mutex_lock(&vmm_lock);
    r = handle_new(fd, (size_t)st.st_size, &prop, handle);
    pthread_mutex_unlock(&vmm_lock);
    if (r != CUDA_SUCCESS)
        close(fd);
    return r;
}
