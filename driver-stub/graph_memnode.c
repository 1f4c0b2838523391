/* graph_memnode.c — graph memory: allocation nodes (cuGraphAddMemAllocNode, cuMemAllocAsync on a capturing
 * stream), free nodes (cuGraphAddMemFreeNode, cuMemFreeAsync on a capturing stream), their parameters,
 * cuDeviceGraphMemTrim and cuDevice{Get,Set}GraphMemAttribute.
 *
 * CUDA fixes an allocation node's address when the node is added (programs put it into later nodes' parameters)
 * and keeps it for every launch. Here the node gets backend device memory at that moment, so each allocation has
 * an address no other allocation has (what CUDA promises for graphs that may run at once). The memory is valid
 * from the node's execution until a free node, cuMemFree or cuMemFreeAsync frees it (it is in the allocation
 * table, kind GRAPH, only then: copies and kernels outside that window are refused as for freed memory). The
 * storage is given back when neither a node (the graph's, or its copy in a clone or exec) nor a valid allocation
 * refers to it: an allocation a launch left valid outlives its graph and exec, as in CUDA.
 *
 * What CUDA does and we do not: physical memory shared between allocations whose lifetimes do not overlap (each
 * allocation has its own), so RESERVED_MEM counts every allocation node alive and cuDeviceGraphMemTrim has
 * nothing to give back. cuGraphAddMemAllocNode and cuGraphAddMemFreeNode are cuGraphAddNode's (graph_build.c);
 * cuMemAllocAsync and cuMemFreeAsync on a capturing stream (mempool.c) come here.
 */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

enum { GMEM_MAX_DEVICES = 64 };

struct p2n_graph_mem {
    int refs;                   /* nodes + 1 while valid; under gm_lock */
    int valid;                  /* in the allocation table */
    uint64_t base;
    size_t size;
    p2n_ctx *ctx;
    CUmemPoolProps props;
    CUmemAccessDesc *access;    /* the node's access descriptors, as cuGraphMemAllocNodeGetParams returns them */
    size_t naccess;
};

static pthread_mutex_t gm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    uint64_t used, used_high, reserved, reserved_high;
} usage[GMEM_MAX_DEVICES];

static int device_of(const p2n_graph_mem *m) { return m->props.location.id; }

/* gm_lock held */
static void count(uint64_t *cur, uint64_t *high, size_t add)
{
    *cur += add;
    if (*cur > *high)
        *high = *cur;
}

static void mem_ref(p2n_graph_mem *m)
{
    pthread_mutex_lock(&gm_lock);
    m->refs++;
    pthread_mutex_unlock(&gm_lock);
}

/* gm_lock held; returns 1 when m must be freed (after the lock is dropped) */
static int unref_locked(p2n_graph_mem *m)
{
    if (--m->refs > 0)
        return 0;
    usage[device_of(m)].reserved -= m->size;
    return 1;
}

static void destroy(p2n_graph_mem *m)
{
    p2n_drv_alloc_reserve(m->base, m->size, 0);
    p2n_drv.be->mem_free((void *)(uintptr_t)m->base);
    free(m->access);
    free(m);
}

static void mem_unref(p2n_graph_mem *m)
{
    pthread_mutex_lock(&gm_lock);
    int last = unref_locked(m);
    pthread_mutex_unlock(&gm_lock);
    if (last)
        destroy(m);
}

/* the allocation left the table (a free node, cuMemFree, cuMemFreeAsync, its context destroyed): called with
 * the table's lock possibly held, so it never calls the table */
static void invalidate(const p2n_alloc *a)
{
    p2n_graph_mem *m = a->owner;
    pthread_mutex_lock(&gm_lock);
    m->valid = 0;
    usage[device_of(m)].used -= m->size;
    int last = unref_locked(m);
    pthread_mutex_unlock(&gm_lock);
    if (last)
        destroy(m);
}

/* an allocation node released or copied (graph_core.c's hooks): the copy allocates the same memory at the same
 * address */
static void node_release(p2n_graph_node *n)
{
    if (n->p.alloc)
        mem_unref(n->p.alloc);
    n->p.alloc = NULL;
}
static CUresult node_copy(p2n_graph_node *dst, const p2n_graph_node *src)
{
    if (src->p.alloc)
        mem_ref(src->p.alloc);
    dst->p.alloc = src->p.alloc;
    return CUDA_SUCCESS;
}

__attribute__((constructor)) static void register_hooks(void)
{
    p2n_drv_alloc_on_release(P2N_ALLOC_GRAPH, invalidate);
    p2n_drv_graph_node_hooks_set(CU_GRAPH_NODE_TYPE_MEM_ALLOC, (p2n_graph_node_hooks){node_release, node_copy});
}

int p2n_drv_graph_mem_valid(const p2n_graph_mem *m)
{
    pthread_mutex_lock(&gm_lock);
    int valid = m->valid;
    pthread_mutex_unlock(&gm_lock);
    return valid;
}

CUresult p2n_drv_graph_mem_begin(p2n_graph_mem *m, unsigned long long exec_flags)
{
    pthread_mutex_lock(&gm_lock);
    int valid = m->valid;
    pthread_mutex_unlock(&gm_lock);
    if (valid) {
        /* the previous launch's allocation was never freed: CUDA refuses to launch, unless the exec frees it */
        if (!(exec_flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH))
            return CUDA_ERROR_INVALID_VALUE;
        CUresult r = p2n_drv_graph_mem_end(m->base);
        if (r != CUDA_SUCCESS)
            return r;
    }
    pthread_mutex_lock(&gm_lock);
    m->valid = 1;
    m->refs++;
    count(&usage[device_of(m)].used, &usage[device_of(m)].used_high, m->size);
    pthread_mutex_unlock(&gm_lock);
    /* entered after gm_lock is dropped: the table's lock is never taken inside gm_lock */
    p2n_drv_alloc_add_owned(m->base, m->size, P2N_ALLOC_GRAPH, m->ctx, m);
    return CUDA_SUCCESS;
}

CUresult p2n_drv_graph_mem_end(CUdeviceptr dptr)
{
    p2n_alloc a;
    if (!p2n_drv_alloc_take(dptr, P2N_ALLOC_GRAPH, &a))
        return CUDA_ERROR_INVALID_VALUE;   /* not a valid graph allocation (never allocated, or freed twice) */
    invalidate(&a);
    return CUDA_SUCCESS;
}

/* ---- node parameters ---- */

CUresult p2n_drv_graph_set_mem_alloc(p2n_graph_node *n, CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
    if (n->p.alloc)
        return CUDA_ERROR_NOT_SUPPORTED;   /* CUDA cannot change an allocation node's parameters either */
    if (!p || p->bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    const CUmemPoolProps *pp = &p->poolProps;
    if (pp->allocType != CU_MEM_ALLOCATION_TYPE_PINNED || pp->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
        p2n_drv_check_device(pp->location.id) != CUDA_SUCCESS || pp->location.id >= GMEM_MAX_DEVICES ||
        pp->handleTypes != CU_MEM_HANDLE_TYPE_NONE || p->accessDescCount > (size_t)p2n_drv.device_count ||
        (p->accessDescCount && !p->accessDescs))
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < p->accessDescCount; i++) {
        const CUmemAccessDesc *d = &p->accessDescs[i];
        if (d->location.type != CU_MEM_LOCATION_TYPE_DEVICE || p2n_drv_check_device(d->location.id) != CUDA_SUCCESS ||
            d->flags > CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return CUDA_ERROR_INVALID_VALUE;
    }
    p2n_graph_mem *m = calloc(1, sizeof *m);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (p->accessDescCount) {
        m->access = malloc(p->accessDescCount * sizeof *m->access);
        if (!m->access) {
            free(m);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        memcpy(m->access, p->accessDescs, p->accessDescCount * sizeof *m->access);
        m->naccess = p->accessDescCount;
    }
    void *mem = NULL;
    CUresult r = p2n_drv.be->mem_alloc(p->bytesize, &mem);
    if (r != CUDA_SUCCESS) {
        free(m->access);
        free(m);
        return r;
    }
    m->refs = 1;   /* the node's */
    m->base = (uint64_t)(uintptr_t)mem;
    m->size = p->bytesize;
    m->ctx = n->graph->ctx;
    m->props = *pp;
    p2n_drv_alloc_reserve(m->base, m->size, 1);   /* the registry of graph allocations (mem.c) */
    pthread_mutex_lock(&gm_lock);
    count(&usage[device_of(m)].reserved, &usage[device_of(m)].reserved_high, m->size);
    pthread_mutex_unlock(&gm_lock);
    n->p.alloc = m;
    p->dptr = m->base;
    return CUDA_SUCCESS;
}

CUresult p2n_drv_graph_set_mem_free(p2n_graph_node *n, CUdeviceptr dptr)
{
    if (!p2n_drv_alloc_reserved_at(dptr))
        return CUDA_ERROR_INVALID_VALUE;   /* a free node frees graph allocations only */
    n->p.free_ptr = dptr;
    return CUDA_SUCCESS;
}

/* a node on a capturing stream. A free of memory that is no graph allocation is refused before anything is
 * recorded, the capture going on (CUDA, H100, recorded); any other failure invalidates the capture */
static CUresult capture(CUstream s, CUgraphNodeType type, CUDA_MEM_ALLOC_NODE_PARAMS *alloc, CUdeviceptr dptr)
{
    if (!alloc && !p2n_drv_alloc_reserved_at(dptr))
        return CUDA_ERROR_INVALID_VALUE;
    p2n_graph_node *n;
    CUresult r = p2n_drv_capture_node(s, type, &n);
    if (r != CUDA_SUCCESS)
        return r;
    r = alloc ? p2n_drv_graph_set_mem_alloc(n, alloc) : p2n_drv_graph_set_mem_free(n, dptr);
    if (r != CUDA_SUCCESS)
        p2n_drv_capture_invalidate(s);
    return r;
}

CUresult p2n_drv_capture_mem_alloc(CUstream s, int device, size_t bytesize, CUdeviceptr *dptr)
{
    CUDA_MEM_ALLOC_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    p.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.poolProps.location.id = device;
    p.bytesize = bytesize;
    CUresult r = capture(s, CU_GRAPH_NODE_TYPE_MEM_ALLOC, &p, 0);
    if (r == CUDA_SUCCESS)
        *dptr = p.dptr;
    return r;
}

CUresult p2n_drv_capture_mem_free(CUstream s, CUdeviceptr dptr)
{
    return capture(s, CU_GRAPH_NODE_TYPE_MEM_FREE, NULL, dptr);
}

CUresult cuGraphMemAllocNodeGetParams(CUgraphNode hNode, CUDA_MEM_ALLOC_NODE_PARAMS *params_out)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_typed(hNode, CU_GRAPH_NODE_TYPE_MEM_ALLOC, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (!params_out)
        return CUDA_ERROR_INVALID_VALUE;
    const p2n_graph_mem *m = n->p.alloc;
    memset(params_out, 0, sizeof *params_out);
    params_out->poolProps = m->props;
    params_out->accessDescs = m->access;
    params_out->accessDescCount = m->naccess;
    params_out->bytesize = m->size;
    params_out->dptr = m->base;
    return CUDA_SUCCESS;
}

CUresult cuGraphMemFreeNodeGetParams(CUgraphNode hNode, CUdeviceptr *dptr_out)
{
    p2n_graph_node *n;
    CUresult r = p2n_drv_graph_node_typed(hNode, CU_GRAPH_NODE_TYPE_MEM_FREE, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if (!dptr_out)
        return CUDA_ERROR_INVALID_VALUE;
    *dptr_out = n->p.free_ptr;
    return CUDA_SUCCESS;
}

/* ---- device-wide graph memory ---- */

static CUresult device_ok(CUdevice device)
{
    CUresult r = p2n_drv_check_init();
    if (r == CUDA_SUCCESS)
        r = p2n_drv_check_device(device);
    if (r == CUDA_SUCCESS && device >= GMEM_MAX_DEVICES)
        r = CUDA_ERROR_INVALID_DEVICE;
    return r;
}

/* nothing to give back: every allocation node keeps its own memory (see the top of this file) */
CUresult cuDeviceGraphMemTrim(CUdevice device) { return device_ok(device); }

CUresult cuDeviceGetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value)
{
    CUresult r = device_ok(device);
    if (r != CUDA_SUCCESS)
        return r;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    uint64_t v;
    pthread_mutex_lock(&gm_lock);
    switch (attr) {
    case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT: v = usage[device].used; break;
    case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH: v = usage[device].used_high; break;
    case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT: v = usage[device].reserved; break;
    case CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH: v = usage[device].reserved_high; break;
    default: r = CUDA_ERROR_INVALID_VALUE; break;
    }
    pthread_mutex_unlock(&gm_lock);
    if (r == CUDA_SUCCESS)
        *(cuuint64_t *)value = v;
    return r;
}

/* only the high watermarks can be set, and only to 0 (which resets them to the current amount) */
CUresult cuDeviceSetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value)
{
    CUresult r = device_ok(device);
    if (r != CUDA_SUCCESS)
        return r;
    if (!value || *(const cuuint64_t *)value != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&gm_lock);
    if (attr == CU_GRAPH_MEM_ATTR_USED_MEM_HIGH)
        usage[device].used_high = usage[device].used;
    else if (attr == CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH)
        usage[device].reserved_high = usage[device].reserved;
    else
        r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_unlock(&gm_lock);
    return r;
}
