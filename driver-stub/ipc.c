/* ipc.c — CUDA IPC: device memory and events shared between processes (cuIpcGetMemHandle / cuIpcOpenMemHandle /
 * cuIpcCloseMemHandle, cuIpcGetEventHandle / cuIpcOpenEventHandle).
 *
 * A memory handle is 64 bytes: our magic, the exporting process's id, the allocation's size and the backend's
 * bytes (P2N_BK_IPC_BYTES, backend.h: on the CPU backend the device memory file and the offset, cpu_arena.h).
 * The handle names the allocation, not the pointer: an interior pointer gives the same handle, and opening it
 * gives the allocation's base. In the importing process the memory is one more allocation of kind IPC: kernels
 * and copies take it, cuMemFree refuses it, cuIpcCloseMemHandle unmaps it once every open is closed (opening a
 * handle again returns the same address and counts, as CUDA does).
 *
 * Events: a handle names an event created with CU_EVENT_INTERPROCESS (and DISABLE_TIMING, which cuEventCreate
 * insists on). Where IPC is offered the backend is synchronous (all work before a record is done when
 * cuEventRecord returns), so an event recorded in one process is complete for every other process by the time
 * it could learn of the record; the opened event is a local event with the same flags.
 *
 * Return codes are those of NVIDIA's driver 580 on an H200 (a probe with two processes, 2026-12-06): flags
 * without CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, a NULL output, a pointer that is not cuMemAlloc memory (host,
 * managed, pool, unknown) or a malformed memory handle → CUDA_ERROR_INVALID_VALUE; opening a handle in the
 * process that made it → CUDA_ERROR_INVALID_CONTEXT; an event without CU_EVENT_INTERPROCESS, or an opened one,
 * has no handle → CUDA_ERROR_INVALID_HANDLE; a malformed event handle → CUDA_ERROR_MAP_FAILED. One difference:
 * NVIDIA maps a handle of memory its exporter has freed since; we do too while the range exists (it reads as
 * zeros), and refuse it once the exporting process has ended. Backends that cannot share memory (HIP, OpenCL,
 * Level Zero today) answer CUDA_ERROR_NOT_SUPPORTED and say so once on stderr.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

typedef struct ipc_mem_bytes {
    char magic[8];
    int32_t pid;
    uint32_t zero;
    uint64_t size;
    uint8_t bk[P2N_BK_IPC_BYTES];
} ipc_mem_bytes;
_Static_assert(sizeof(ipc_mem_bytes) == sizeof(CUipcMemHandle), "CUipcMemHandle layout");

typedef struct ipc_event_bytes {
    char magic[8];
    int32_t pid;
    uint32_t zero;
    uint64_t serial;
    uint8_t unused[40];
} ipc_event_bytes;
_Static_assert(sizeof(ipc_event_bytes) == sizeof(CUipcEventHandle), "CUipcEventHandle layout");

static const char MEM_MAGIC[8] = "p2nIPCm";    /* 7 characters and the NUL: 8 bytes */
static const char EVENT_MAGIC[8] = "p2nIPCe";

/* what this process opened: one entry per mapped allocation */
typedef struct import {
    struct import *next;
    ipc_mem_bytes key;
    uint64_t base;
    unsigned refs;
} import;

static pthread_mutex_t ipc_lock = PTHREAD_MUTEX_INITIALIZER;
static import *imports;
static atomic_uint_fast64_t event_serial;

/* CUDA_ERROR_NOT_SUPPORTED where the backend cannot share memory, with one line on stderr per function and
 * process (`said`: the calling function's flag) */
static CUresult unsupported_once(const char *fn, atomic_int *said)
{
    if (!atomic_exchange(said, 1))
        fprintf(stderr, "ptx2native: %s: the '%s' backend cannot share device memory or events with another "
                        "process (CUDA IPC works on the CPU backend)\n", fn, p2n_drv.be->name);
    return CUDA_ERROR_NOT_SUPPORTED;
}

static atomic_int said_cuIpcGetEventHandle;
static atomic_int said_cuIpcGetMemHandle;
static atomic_int said_cuIpcOpenEventHandle;
static atomic_int said_cuIpcOpenMemHandle;

CUresult p2n_drv_ipc_map(const char *fn, int pid, const uint8_t *bk, size_t size, uint64_t *base)
{
    char *err = NULL;
    CUresult r = p2n_drv.be->ipc_import(pid, bk, size, base, &err);
    if (r != CUDA_SUCCESS && err && getenv("P2N_VERBOSE"))
        fprintf(stderr, "ptx2native: %s: %s\n", fn, err);
    free(err);
    return r;
}

static int backend_shares(void) { return p2n_drv.be->ipc_export && p2n_drv.be->ipc_import && p2n_drv.be->ipc_unmap; }

CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_alloc a;
    if (!pHandle || !p2n_drv_alloc_find(dptr, 0, &a) || a.kind != P2N_ALLOC_DEVICE)
        return CUDA_ERROR_INVALID_VALUE;
    if (!backend_shares())
        return unsupported_once("cuIpcGetMemHandle", &said_cuIpcGetMemHandle);
    ipc_mem_bytes h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MEM_MAGIC, sizeof h.magic);
    h.pid = (int32_t)getpid();
    h.size = a.size;
    r = p2n_drv.be->ipc_export(a.base, a.size, h.bk);
    if (r != CUDA_SUCCESS)
        return r == CUDA_ERROR_NOT_SUPPORTED ? unsupported_once("cuIpcGetMemHandle", &said_cuIpcGetMemHandle) : r;
    memcpy(pHandle, &h, sizeof h);
    return CUDA_SUCCESS;
}

CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    ipc_mem_bytes h;
    memcpy(&h, &handle, sizeof h);
    if (!pdptr || !(Flags & CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) || memcmp(h.magic, MEM_MAGIC, sizeof h.magic) ||
        h.zero || h.pid <= 0 || h.size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (h.pid == (int32_t)getpid())
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!backend_shares())
        return unsupported_once("cuIpcOpenMemHandle", &said_cuIpcOpenMemHandle);
    pthread_mutex_lock(&ipc_lock);
    for (import *i = imports; i; i = i->next)
        if (!memcmp(&i->key, &h, sizeof h)) {
            i->refs++;
            *pdptr = (CUdeviceptr)i->base;
            pthread_mutex_unlock(&ipc_lock);
            return CUDA_SUCCESS;
        }
    import *im = calloc(1, sizeof *im);
    r = im ? p2n_drv_ipc_map("cuIpcOpenMemHandle", h.pid, h.bk, (size_t)h.size, &im->base) : CUDA_ERROR_OUT_OF_MEMORY;
    if (r == CUDA_SUCCESS) {
        im->key = h;
        im->refs = 1;
        im->next = imports;
        imports = im;
        *pdptr = (CUdeviceptr)im->base;
    } else {
        free(im);
        im = NULL;
    }
    uint64_t base = im ? im->base : 0;
    pthread_mutex_unlock(&ipc_lock);
    if (base)   /* outside ipc_lock (close_import says why); nobody else knows the address yet */
        p2n_drv_alloc_add(base, (size_t)h.size, P2N_ALLOC_IPC, c, 0);
    return r;
}

CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    return cuIpcOpenMemHandle_v2(pdptr, handle, Flags);
}

/* Takes one open of the import at base away; unmaps it (and drops its table entry when `in_table`) at the last.
 * Lock order: the allocation table's lock is never taken under ipc_lock (the release hook below runs under the
 * table's lock and takes ipc_lock). */
static int close_import(uint64_t base, int in_table)
{
    pthread_mutex_lock(&ipc_lock);
    import *im = NULL;
    for (import **pi = &imports; *pi; pi = &(*pi)->next)
        if ((*pi)->base == base) {
            im = *pi;
            if (--im->refs == 0 || !in_table)
                *pi = im->next;
            else
                im = NULL;   /* still open elsewhere */
            pthread_mutex_unlock(&ipc_lock);
            if (im) {
                p2n_alloc a;
                if (in_table)
                    p2n_drv_alloc_take(base, P2N_ALLOC_IPC, &a);
                p2n_drv.be->ipc_unmap(base);
                free(im);
            }
            return 1;
        }
    pthread_mutex_unlock(&ipc_lock);
    return 0;
}

CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    return dptr && close_import((uint64_t)dptr, 1) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* a dying context takes its imports with it (called with the allocation table's lock held: no table calls) */
static void release_import(const p2n_alloc *a) { close_import(a->base, 0); }

__attribute__((constructor)) static void register_release(void)
{
    p2n_drv_alloc_on_release(P2N_ALLOC_IPC, release_import);
}

CUresult cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pHandle)
        return CUDA_ERROR_INVALID_VALUE;
    if (!p2n_drv_is_live(event, P2N_MAGIC_EVENT))
        return CUDA_ERROR_INVALID_HANDLE;
    p2n_event *e = (p2n_event *)event;
    if (!(e->flags & CU_EVENT_INTERPROCESS) || e->ipc_imported)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!backend_shares())
        return unsupported_once("cuIpcGetEventHandle", &said_cuIpcGetEventHandle);
    ipc_event_bytes h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, EVENT_MAGIC, sizeof h.magic);
    h.pid = (int32_t)getpid();
    pthread_mutex_lock(&ipc_lock);
    if (!e->ipc_serial)
        e->ipc_serial = atomic_fetch_add(&event_serial, 1) + 1;
    h.serial = e->ipc_serial;
    pthread_mutex_unlock(&ipc_lock);
    memcpy(pHandle, &h, sizeof h);
    return CUDA_SUCCESS;
}

CUresult cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!phEvent)
        return CUDA_ERROR_INVALID_VALUE;
    ipc_event_bytes h;
    memcpy(&h, &handle, sizeof h);
    if (memcmp(h.magic, EVENT_MAGIC, sizeof h.magic) || h.zero || h.pid <= 0 || !h.serial)
        return CUDA_ERROR_MAP_FAILED;
    if (h.pid == (int32_t)getpid())
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!backend_shares())
        return unsupported_once("cuIpcOpenEventHandle", &said_cuIpcOpenEventHandle);
    CUevent ev;
    r = cuEventCreate(&ev, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING);
    if (r != CUDA_SUCCESS)
        return r;
    ((p2n_event *)ev)->ipc_imported = 1;
    *phEvent = ev;
    return CUDA_SUCCESS;
}
