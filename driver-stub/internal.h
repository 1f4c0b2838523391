/* internal.h — shared state of the driver stub (libcuda.so.1). Not installed; nothing here is exported
 * (the version script exports cu* only, and every helper here is named p2n_drv_*). */
#ifndef P2N_DRIVER_INTERNAL_H
#define P2N_DRIVER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "cuda_types.h"

#define P2N_DRV_VERSION 13000
#define P2N_DRV_HIDDEN __attribute__((visibility("hidden")))

/* ---- handle kinds: every handle starts with a magic; handles are also kept in a registry so that a stale
 * or garbage handle is rejected without being dereferenced ---- */
enum {
    P2N_MAGIC_CTX = 0x43545821u,    /* "CTX!" */
    P2N_MAGIC_MODULE = 0x4d4f4421u,
    P2N_MAGIC_FUNC = 0x46554e21u,
    P2N_MAGIC_STREAM = 0x53545221u,
    P2N_MAGIC_EVENT = 0x45564e21u,
    P2N_MAGIC_POOL = 0x504f4f21u,   /* mempool.c: CUmemoryPool */
    P2N_MAGIC_VMM = 0x564d4d21u,    /* vmm.c: CUmemGenericAllocationHandle */
};

typedef struct p2n_ctx {
    uint32_t magic;
    int device;
    int is_primary;
    int active;                     /* primary: resources exist (retained, or used before retain) */
    unsigned flags;
    int refcount;                   /* primary: retain count; created contexts: 1 */
    CUresult sticky;                /* CUDA_SUCCESS, or the launch error that poisoned the context */
    size_t max_dyn_default;
    /* device printf output waiting for the next synchronisation */
    char *printf_buf;
    size_t printf_len, printf_cap;
    pthread_mutex_t printf_lock;
} p2n_ctx;

typedef struct p2n_func p2n_func;

typedef struct p2n_module {
    uint32_t magic;
    p2n_ctx *ctx;                   /* NULL for a library loaded without a context */
    p2n_bk_module *bk;
    int ptx_target;                 /* XX of the `.target sm_XX` of the PTX it came from; 0 = unknown */
    uint8_t *image;                 /* the code object bytes (kept while the module lives) */
    size_t nfuncs, capfuncs;
    p2n_func **funcs;               /* handles handed out, one per kernel name */
    size_t nglobals, capglobals;
    uint64_t *globals;              /* global ranges entered in the allocation table */
} p2n_module;

struct p2n_func {
    uint32_t magic;
    p2n_module *module;
    p2n_bk_kernel *bk;
    p2n_bk_kernel_info info;
    char *name;
    int max_dynamic_shared;         /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
    int carveout;
    int req_cluster[3];             /* CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH set at run time (0: not) */
};

/* the stream attributes cuStreamSetAttribute stores (CUlaunchAttributeID values valid for streams, other than
 * the priority, which is `priority`); hints here, kept so that cuStreamGetAttribute returns them */
enum { P2N_STREAM_ATTR_SLOTS = CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING + 1 };
typedef struct p2n_stream_attrs {
    unsigned set;   /* bit per attribute id: stored (else the default) */
    CUlaunchAttributeValue value[P2N_STREAM_ATTR_SLOTS];
} p2n_stream_attrs;

/* one queued operation of an asynchronous stream (stream_queue.c): run() does it on the stream's worker thread,
 * frees the operation and returns its error (a sticky one it has put on the context itself) */
typedef struct p2n_op {
    struct p2n_op *next;
    CUresult (*run)(struct p2n_op *op, p2n_ctx *c);
} p2n_op;

typedef struct p2n_stream {
    uint32_t magic;
    p2n_ctx *ctx;
    unsigned flags;
    int priority;
    p2n_stream_attrs attrs;
    /* stream_queue.c (its q_lock guards them) */
    p2n_op *q_head, *q_tail;
    int q_busy, q_stop, q_started;
    CUresult q_error;               /* the first failure of a queued operation since the last synchronisation */
    pthread_t q_thread;
    struct p2n_stream *q_next;      /* the streams with a worker */
} p2n_stream;

typedef struct p2n_event {
    uint32_t magic;
    p2n_ctx *ctx;
    unsigned flags;
    int recorded;
    double time_ms;                 /* CLOCK_MONOTONIC when its record completed (the work before it had) */
    uint64_t rec_seq, done_seq;     /* records submitted / completed (stream_queue.c's q_lock); equal: complete */
    unsigned waiters;               /* queued cuStreamWaitEvent operations that name it */
    uint64_t ipc_serial;            /* ipc.c: its number in this process once a handle was made of it, else 0 */
    int ipc_imported;               /* ipc.c: opened from another process's handle */
} p2n_event;

/* ---- global state ---- */
typedef struct p2n_driver {
    pthread_mutex_t lock;           /* registry, allocation table, primary contexts */
    atomic_int initialized;         /* cuInit succeeded */
    CUresult init_result;           /* result of the first cuInit (a failed backend choice is final) */
    const p2n_backend_ops *be;
    p2n_bk_device_info dev;
    int device_count;
    int cc_major, cc_minor;
    p2n_ctx *primary;               /* one per device (device_count entries), stable handles */
} p2n_driver;

extern p2n_driver p2n_drv P2N_DRV_HIDDEN;

/* init.c */
P2N_DRV_HIDDEN CUresult p2n_drv_check_init(void);
P2N_DRV_HIDDEN CUresult p2n_drv_check_device(CUdevice dev);
P2N_DRV_HIDDEN int p2n_drv_verbose(void);

/* handles.c: registry of live handles */
P2N_DRV_HIDDEN void p2n_drv_register(void *h);
P2N_DRV_HIDDEN void p2n_drv_unregister(void *h);
P2N_DRV_HIDDEN int p2n_drv_is_live(const void *h, uint32_t magic);

/* ctx.c */
/* The context a call works on: `explicit_ctx` when non-NULL, else the calling thread's current one.
 * Returns NOT_INITIALIZED, INVALID_CONTEXT, or the context's sticky error; activates a primary context
 * used before being retained. */
P2N_DRV_HIDDEN CUresult p2n_drv_get_ctx(CUcontext explicit_ctx, p2n_ctx **out);
/* Same but a sticky error does not fail the call (for destroy/query paths). */
P2N_DRV_HIDDEN CUresult p2n_drv_get_ctx_nosticky(CUcontext explicit_ctx, p2n_ctx **out);
P2N_DRV_HIDDEN void p2n_drv_ctx_printf(void *user, const char *text, size_t len);
P2N_DRV_HIDDEN void p2n_drv_ctx_flush_printf(p2n_ctx *c);
/* cuCtxSynchronize: every queue of c drained (stream_queue.c), then ctx_finish: the backend synchronised, printf
 * output flushed, the sticky error */
P2N_DRV_HIDDEN CUresult p2n_drv_ctx_sync(p2n_ctx *c);
P2N_DRV_HIDDEN CUresult p2n_drv_ctx_finish(p2n_ctx *c);
/* Context release hooks. ctx.c calls no subsystem above it: a file that keeps per-context resources registers its
 * hook (from a constructor), and a context that dies (cuCtxDestroy, last cuDevicePrimaryCtxRelease,
 * cuDevicePrimaryCtxReset) runs the hooks in slot order: P2N_CTX_RELEASE_CLS first and outside the driver lock
 * (cudart's destructors may call the driver), then, after the backend synchronised and pending printf output was
 * written, the others under the lock. One hook per slot. */
typedef enum p2n_ctx_release_slot {
    P2N_CTX_RELEASE_CLS,        /* export_ctx_storage.c: cudart's context-local storage */
    P2N_CTX_RELEASE_GRAPHS,     /* graph_capture_state.c: captures, then graphs and execs (graph_core.c) */
    P2N_CTX_RELEASE_STREAMS,    /* stream.c: streams and events */
    P2N_CTX_RELEASE_MODULES,    /* module.c: modules, their functions and globals */
    P2N_CTX_RELEASE_TEXOBJS,    /* texobj.c: texture and surface objects */
    P2N_CTX_RELEASE_ARRAYS,     /* array.c: CUDA arrays */
    P2N_CTX_RELEASE_MEMORY,     /* mem.c: every allocation left */
    P2N_CTX_RELEASE_NSLOTS
} p2n_ctx_release_slot;
P2N_DRV_HIDDEN void p2n_drv_ctx_on_release(p2n_ctx_release_slot slot, void (*hook)(p2n_ctx *c));
/* A check cuCtxSynchronize runs first (graph_capture_state.c registers it from a constructor: a synchronisation
 * is an unsafe call while streams capture); its error fails the call. */
P2N_DRV_HIDDEN void p2n_drv_ctx_on_sync(CUresult (*guard)(void));
/* What p2n_drv_ctx_sync waits for first (stream_queue.c registers its queue drain from a constructor: ctx.c calls
 * no subsystem above it). */
P2N_DRV_HIDDEN void p2n_drv_ctx_on_drain(CUresult (*drain)(p2n_ctx *c));

/* limits.c: what cuCtxSetLimit set (ctx.c checks the context first); p2n_drv_heap_claim is in backend.h */
P2N_DRV_HIDDEN CUresult p2n_drv_limit_get(CUlimit limit, size_t *pvalue);
P2N_DRV_HIDDEN CUresult p2n_drv_limit_set(CUlimit limit, size_t value);
/* CU_LIMIT_STACK_SIZE as the program set it with cuCtxSetLimit, 0 if it never did */
P2N_DRV_HIDDEN size_t p2n_drv_stack_limit_set(void);

/* mem.c: allocation table */
/* REGISTERED: the application's own memory, page-locked by cuMemHostRegister (never freed by the driver).
 * MANAGED: cuMemAllocManaged (managed.c); POOL: a block of a memory pool handed out by cuMemAllocAsync /
 * cuMemAllocFromPoolAsync (mempool.c); VMM: a range of a cuMemAddressReserve reservation mapped by cuMemMap
 * (vmm.c); GRAPH: the memory of a graph allocation node between the node and its free (graph_memnode.c). The
 * files that make those kinds own their storage: mem.c hands an entry of such a kind that cuMemFree
 * or a dying context removes to the release hook its file registered (p2n_drv_alloc_on_release). */
enum {
    P2N_ALLOC_DEVICE = 1,
    P2N_ALLOC_HOST = 2,
    P2N_ALLOC_GLOBAL = 3,
    P2N_ALLOC_REGISTERED = 4,
    P2N_ALLOC_MANAGED = 5,
    P2N_ALLOC_POOL = 6,
    P2N_ALLOC_VMM = 7,
    P2N_ALLOC_GRAPH = 8,
    P2N_ALLOC_IPC = 9,              /* another process's device memory, opened by cuIpcOpenMemHandle (ipc.c) */
    P2N_ALLOC_POOL_IMPORT = 10,     /* a block of another process's pool, cuMemPoolImportPointer (mempool.c) */
    P2N_ALLOC_NKINDS
};
typedef struct p2n_alloc {
    uint64_t base;
    size_t size;
    int kind;
    p2n_ctx *ctx;
    unsigned host_flags;
    uint64_t id;
    void *owner;                    /* POOL: the pool (CUmemoryPool) the block belongs to; GRAPH: its p2n_graph_mem;
                                     * else NULL */
} p2n_alloc;
/* Moves n bytes between host and device-side memory (dst_dev / src_dev: the address is device-side), through
 * the backend's copy hooks where it has them (mem.c: array.c, memcpy3d.c, graph_cond.c and the 1-D copies). */
P2N_DRV_HIDDEN CUresult p2n_drv_copy_bytes(uint64_t dst, int dst_dev, uint64_t src, int src_dev, size_t n);
/* Finds the allocation containing [p, p+n); returns 1 and fills *out when found. */
P2N_DRV_HIDDEN int p2n_drv_alloc_find(uint64_t p, size_t n, p2n_alloc *out);
P2N_DRV_HIDDEN void p2n_drv_alloc_add(uint64_t base, size_t size, int kind, p2n_ctx *ctx, unsigned host_flags);
P2N_DRV_HIDDEN void p2n_drv_alloc_remove(uint64_t base);
/* Removes the entry starting exactly at base if it is of `kind` (one lock: of two threads freeing the same
 * pointer, one succeeds); returns 1 and fills *out when it did. */
P2N_DRV_HIDDEN int p2n_drv_alloc_take(uint64_t base, int kind, p2n_alloc *out);
/* Enters an allocation with an owner (a pool block); see p2n_alloc.owner. */
P2N_DRV_HIDDEN void p2n_drv_alloc_add_owned(uint64_t base, size_t size, int kind, p2n_ctx *ctx, void *owner);
/* Graph memory (graph_memnode.c): a graph allocation node's range for the node's whole life (on = 1 at its
 * creation, 0 at its end). It is in the table only while valid (between the node's execution and a free), but
 * operations recorded by a capture, and graph nodes, may name it before: p2n_drv_alloc_reserved says whether
 * [p, p+n) lies in such a range. */
P2N_DRV_HIDDEN void p2n_drv_alloc_reserve(uint64_t base, size_t size, int on);
P2N_DRV_HIDDEN int p2n_drv_alloc_reserved(uint64_t p, size_t n);
/* a graph allocation starts at base (what a free node may free) */
P2N_DRV_HIDDEN int p2n_drv_alloc_reserved_at(uint64_t base);
/* The storage of an allocation kind whose maker owns it is given back through this hook (called once per entry,
 * after the entry left the table, possibly with the table's lock held: the hook must not call the table). */
typedef void (*p2n_alloc_release_fn)(const p2n_alloc *a);
P2N_DRV_HIDDEN void p2n_drv_alloc_on_release(int kind, p2n_alloc_release_fn fn);

/* ipc.c: maps [size bytes] of device memory process `pid` exported (the backend's handle bytes `bk`); a failure is
 * explained on stderr under P2N_VERBOSE, naming `fn` */
P2N_DRV_HIDDEN CUresult p2n_drv_ipc_map(const char *fn, int pid, const uint8_t *bk, size_t size, uint64_t *base);

/* module.c */
P2N_DRV_HIDDEN void p2n_drv_module_destroy(p2n_module *m);
/* A hook called with every module about to be destroyed (texref.c registers one: files above module.c hear of
 * unloads this way, module.c never calls them). */
P2N_DRV_HIDDEN void p2n_drv_module_on_destroy(void (*hook)(p2n_module *m));

/* texref.c: texture/surface references. Before a launch of one of module m's kernels: a new object for each
 * reference whose state changed, its handle written into the module's global (the launch fails with the error) */
P2N_DRV_HIDDEN CUresult p2n_drv_refs_sync(p2n_module *m);

/* launch.c: a kernel's packed parameter buffer (f->info.param_buffer_size bytes, malloc'd) from kernelParams or extra */
P2N_DRV_HIDDEN CUresult p2n_drv_pack_params(const p2n_func *f, void **kernelParams, void **extra, uint8_t **buf);

/* stream.c */
/* Validates a stream handle (NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD = default stream) for context c. */
P2N_DRV_HIDDEN CUresult p2n_drv_check_stream(CUstream s, p2n_ctx *c);
/* stream_queue.c: asynchronous streams (the model is at the top of that file) */
P2N_DRV_HIDDEN int p2n_drv_stream_queues(CUstream s);          /* s queues its work (a created stream) */
P2N_DRV_HIDDEN CUresult p2n_drv_stream_enqueue(CUstream s, p2n_op *op);
/* before an operation on stream s runs on the calling thread: what it must follow has finished; returns the
 * kept error of a queued operation (the caller may ignore it: it is reported again by a synchronisation) */
P2N_DRV_HIDDEN CUresult p2n_drv_stream_order(CUstream s, p2n_ctx *c);
P2N_DRV_HIDDEN CUresult p2n_drv_stream_wait(CUstream s);        /* s idle; its kept error, cleared */
P2N_DRV_HIDDEN int p2n_drv_stream_busy(CUstream s);
P2N_DRV_HIDDEN CUresult p2n_drv_streams_drain(p2n_ctx *c);      /* every queue of c (NULL: all) idle */
P2N_DRV_HIDDEN void p2n_drv_stream_stop(p2n_stream *s);         /* idle, then its worker ends */
/* on: this thread runs every stream operation itself, unordered, until off (cuGraphLaunch's nodes, which it has
 * ordered as a whole) */
P2N_DRV_HIDDEN void p2n_drv_streams_inline(int on);
P2N_DRV_HIDDEN int p2n_drv_stream_is_own_worker(const p2n_stream *s); /* called from s's own worker thread */
/* the queues' lock and condition, for event state: wait_until calls done(arg) under the lock until true;
 * unlock wakes every waiter */
P2N_DRV_HIDDEN void p2n_drv_streams_wait_until(int (*done)(void *), void *arg);
P2N_DRV_HIDDEN void p2n_drv_streams_lock(void);
P2N_DRV_HIDDEN void p2n_drv_streams_unlock(void);
/* access-policy windows (stream and kernel-node attributes, cuLaunchKernelEx): hints, checked as CUDA checks them */
enum { P2N_MAX_PERSISTING_L2 = 20971520, P2N_MAX_ACCESS_POLICY_WINDOW = 134217728 };
P2N_DRV_HIDDEN CUresult p2n_drv_check_access_policy_window(const CUaccessPolicyWindow *w);

/* errors.c */
P2N_DRV_HIDDEN const char *p2n_drv_error_name(CUresult r);

/* procaddr.c / exports.c */
P2N_DRV_HIDDEN double p2n_drv_now_ms(void);

#endif
