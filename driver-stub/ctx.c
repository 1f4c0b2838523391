/* ctx.c — contexts: per-thread context stacks, created contexts, primary contexts, synchronisation,
 * sticky errors and the device printf buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define STACK_MAX 128

static _Thread_local p2n_ctx *ctx_stack[STACK_MAX];
static _Thread_local int ctx_depth;

/* release hooks of the subsystems (p2n_drv_ctx_on_release), by slot */
static void (*release_hooks[P2N_CTX_RELEASE_NSLOTS])(p2n_ctx *c);

void p2n_drv_ctx_on_release(p2n_ctx_release_slot slot, void (*hook)(p2n_ctx *c))
{
    release_hooks[slot] = hook;
}

static void run_release_hook(p2n_ctx_release_slot slot, p2n_ctx *c)
{
    if (release_hooks[slot])
        release_hooks[slot](c);
}

static p2n_ctx *current(void)
{
    return ctx_depth > 0 ? ctx_stack[ctx_depth - 1] : NULL;
}

static void activate(p2n_ctx *c)
{
    if (!c->active) {
        c->active = 1;
        c->sticky = CUDA_SUCCESS;
    }
}

static CUresult (*drain_hook)(p2n_ctx *c);

void p2n_drv_ctx_on_drain(CUresult (*drain)(p2n_ctx *c))
{
    drain_hook = drain;
}

/* a dying context's queued stream work finishes first, outside the driver lock (queued operations may need it) */
static void drain_queues(p2n_ctx *c)
{
    if (drain_hook)
        drain_hook(c);
}

static void release_resources(p2n_ctx *c)
{
    if (p2n_drv.be && p2n_drv.be->synchronize)
        p2n_drv.be->synchronize();
    p2n_drv_ctx_flush_printf(c);
    for (int slot = P2N_CTX_RELEASE_CLS + 1; slot < P2N_CTX_RELEASE_NSLOTS; slot++)
        run_release_hook((p2n_ctx_release_slot)slot, c);
    c->sticky = CUDA_SUCCESS;
    c->active = 0;
}

static CUresult lookup(CUcontext h, int sticky_fails, p2n_ctx **out)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    p2n_ctx *c = h ? (p2n_ctx *)h : current();
    if (!c || !p2n_drv_is_live(c, P2N_MAGIC_CTX))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (c->is_primary)
        activate(c);   /* cudart makes the primary context current before retaining it */
    if (sticky_fails && c->sticky != CUDA_SUCCESS)
        return c->sticky;
    *out = c;
    return CUDA_SUCCESS;
}

CUresult p2n_drv_get_ctx(CUcontext explicit_ctx, p2n_ctx **out)
{
    return lookup(explicit_ctx, 1, out);
}

CUresult p2n_drv_get_ctx_nosticky(CUcontext explicit_ctx, p2n_ctx **out)
{
    return lookup(explicit_ctx, 0, out);
}

void p2n_drv_ctx_printf(void *user, const char *text, size_t len)
{
    p2n_ctx *c = user;
    pthread_mutex_lock(&c->printf_lock);
    if (c->printf_len + len > c->printf_cap) {
        size_t cap = c->printf_cap ? c->printf_cap : 4096;
        while (cap < c->printf_len + len)
            cap *= 2;
        char *nb = realloc(c->printf_buf, cap);
        if (!nb) {
            pthread_mutex_unlock(&c->printf_lock);
            return;
        }
        c->printf_buf = nb;
        c->printf_cap = cap;
    }
    memcpy(c->printf_buf + c->printf_len, text, len);
    c->printf_len += len;
    pthread_mutex_unlock(&c->printf_lock);
}

void p2n_drv_ctx_flush_printf(p2n_ctx *c)
{
    pthread_mutex_lock(&c->printf_lock);
    if (c->printf_len) {
        fflush(stdout);
        fwrite(c->printf_buf, 1, c->printf_len, stdout);
        fflush(stdout);
        c->printf_len = 0;
    }
    pthread_mutex_unlock(&c->printf_lock);
}

CUresult p2n_drv_ctx_finish(p2n_ctx *c)
{
    CUresult r = CUDA_SUCCESS;
    if (p2n_drv.be->synchronize)
        r = p2n_drv.be->synchronize();
    p2n_drv_ctx_flush_printf(c);
    if (c->sticky != CUDA_SUCCESS)
        return c->sticky;
    return r;
}

CUresult p2n_drv_ctx_sync(p2n_ctx *c)
{
    CUresult q = drain_hook ? drain_hook(c) : CUDA_SUCCESS;   /* every created stream's queue (stream_queue.c) */
    CUresult r = p2n_drv_ctx_finish(c);
    return r != CUDA_SUCCESS ? r : q;
}

/* ---- created contexts ---- */

static CUresult ctx_create(CUcontext *pctx, unsigned flags, CUdevice dev)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    if (ctx_depth >= STACK_MAX)
        return CUDA_ERROR_OUT_OF_MEMORY;
    p2n_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    c->magic = P2N_MAGIC_CTX;
    c->device = dev;
    c->flags = flags;
    c->refcount = 1;
    c->active = 1;
    pthread_mutex_init(&c->printf_lock, NULL);
    p2n_drv_register(c);
    ctx_stack[ctx_depth++] = c;
    *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return ctx_create(pctx, flags, dev);
}

CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return ctx_create(pctx, flags, dev);
}

CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams, unsigned int flags,
                        CUdevice dev)
{
    if (numParams < 0 || (numParams > 0 && !paramsArray))
        return CUDA_ERROR_INVALID_VALUE;
    if (numParams > 0)
        return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
    return ctx_create(pctx, flags, dev);
}

CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags, CUdevice dev)
{
    if (ctxCreateParams && (ctxCreateParams->numExecAffinityParams > 0 || ctxCreateParams->cigParams))
        return CUDA_ERROR_NOT_SUPPORTED;
    return ctx_create(pctx, flags, dev);
}

static void remove_from_stack(p2n_ctx *c)
{
    int j = 0;
    for (int i = 0; i < ctx_depth; i++)
        if (ctx_stack[i] != c)
            ctx_stack[j++] = ctx_stack[i];
    ctx_depth = j;
}

CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    p2n_ctx *c = (p2n_ctx *)ctx;
    if (!c || !p2n_drv_is_live(c, P2N_MAGIC_CTX))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (c->is_primary)
        return CUDA_ERROR_INVALID_CONTEXT;
    run_release_hook(P2N_CTX_RELEASE_CLS, c);
    drain_queues(c);
    release_resources(c);
    remove_from_stack(c);
    p2n_drv_unregister(c);
    c->magic = 0;
    free(c->printf_buf);
    pthread_mutex_destroy(&c->printf_lock);
    free(c);
    return CUDA_SUCCESS;
}

CUresult cuCtxDestroy(CUcontext ctx)
{
    return cuCtxDestroy_v2(ctx);
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!ctx) {
        if (ctx_depth > 0)
            ctx_depth--;
        return CUDA_SUCCESS;
    }
    if (!p2n_drv_is_live(ctx, P2N_MAGIC_CTX))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (ctx_depth == 0)
        ctx_depth = 1;
    ctx_stack[ctx_depth - 1] = (p2n_ctx *)ctx;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = (CUcontext)current();
    return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!ctx || !p2n_drv_is_live(ctx, P2N_MAGIC_CTX))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (ctx_depth >= STACK_MAX)
        return CUDA_ERROR_OUT_OF_MEMORY;
    ctx_stack[ctx_depth++] = (p2n_ctx *)ctx;
    return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent(CUcontext ctx)
{
    return cuCtxPushCurrent_v2(ctx);
}

CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (ctx_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    p2n_ctx *c = ctx_stack[--ctx_depth];
    if (pctx)
        *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent(CUcontext *pctx)
{
    return cuCtxPopCurrent_v2(pctx);
}

CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(ctx, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    *device = c->device;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *device)
{
    return cuCtxGetDevice_v2(device, NULL);
}

static CUresult (*sync_guard)(void);

void p2n_drv_ctx_on_sync(CUresult (*guard)(void))
{
    sync_guard = guard;
}

CUresult cuCtxSynchronize_v2(CUcontext ctx)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(ctx, &c);
    if (r == CUDA_SUCCESS && sync_guard)
        r = sync_guard();
    if (r != CUDA_SUCCESS)
        return r;
    return p2n_drv_ctx_sync(c);
}

CUresult cuCtxSynchronize(void)
{
    return cuCtxSynchronize_v2(NULL);
}

CUresult cuCtxGetFlags(unsigned int *flags)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!flags)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = c->flags;
    return CUDA_SUCCESS;
}

CUresult cuCtxSetFlags(unsigned int flags)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    c->flags = flags;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(ctx, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    *version = 3020;   /* what NVIDIA's driver reports for contexts made through the current API */
    return CUDA_SUCCESS;
}

CUresult cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pvalue)
        return CUDA_ERROR_INVALID_VALUE;
    return p2n_drv_limit_get(limit, pvalue);
}

CUresult cuCtxSetLimit(CUlimit limit, size_t value)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    return p2n_drv_limit_set(limit, value);
}

CUresult cuCtxGetCacheConfig(CUfunc_cache *pconfig)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pconfig)
        return CUDA_ERROR_INVALID_VALUE;
    *pconfig = CU_FUNC_CACHE_PREFER_NONE;
    return CUDA_SUCCESS;
}

CUresult cuCtxSetCacheConfig(CUfunc_cache config)
{
    p2n_ctx *c;
    return p2n_drv_get_ctx_nosticky(NULL, &c);
}

/* access-policy windows are hints that persist nothing in these backends' caches: nothing to reset */
CUresult cuCtxResetPersistingL2Cache(void)
{
    p2n_ctx *c;
    return p2n_drv_get_ctx_nosticky(NULL, &c);
}

/* shared memory bank width: fixed at four bytes since Maxwell; setting it is accepted and changes nothing, as
 * CUDA documents for devices without a configurable bank size */
CUresult cuCtxGetSharedMemConfig(CUsharedconfig *pConfig)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pConfig)
        return CUDA_ERROR_INVALID_VALUE;
    *pConfig = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
    return CUDA_SUCCESS;
}

CUresult cuCtxSetSharedMemConfig(CUsharedconfig config)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    return (unsigned)config > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -5;
    return CUDA_SUCCESS;
}

/* ---- primary contexts ---- */

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&p2n_drv.lock);
    p2n_ctx *c = &p2n_drv.primary[dev];
    activate(c);
    c->refcount++;
    pthread_mutex_unlock(&p2n_drv.lock);
    *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&p2n_drv.lock);
    p2n_ctx *c = &p2n_drv.primary[dev];
    if (c->refcount <= 0) {
        pthread_mutex_unlock(&p2n_drv.lock);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    int last = --c->refcount == 0;
    pthread_mutex_unlock(&p2n_drv.lock);
    /* cudart's per-context state goes first (its destructors may call the driver: outside the lock) */
    if (last) {
        run_release_hook(P2N_CTX_RELEASE_CLS, c);
        drain_queues(c);
    }
    pthread_mutex_lock(&p2n_drv.lock);
    if (last && c->refcount == 0)
        release_resources(c);
    pthread_mutex_unlock(&p2n_drv.lock);
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
    return cuDevicePrimaryCtxRelease_v2(dev);
}

CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_ctx *c = &p2n_drv.primary[dev];
    run_release_hook(P2N_CTX_RELEASE_CLS, c);   /* before the lock: cudart's destructors may call the driver */
    drain_queues(c);
    pthread_mutex_lock(&p2n_drv.lock);
    release_resources(c);
    c->refcount = 0;
    c->flags = 0;
    pthread_mutex_unlock(&p2n_drv.lock);
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxReset(CUdevice dev)
{
    return cuDevicePrimaryCtxReset_v2(dev);
}

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!flags || !active)
        return CUDA_ERROR_INVALID_VALUE;
    p2n_ctx *c = &p2n_drv.primary[dev];
    *flags = c->flags;
    *active = c->refcount > 0;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (flags & ~(unsigned)(CU_CTX_SCHED_MASK | CU_CTX_MAP_HOST | CU_CTX_LMEM_RESIZE_TO_MAX |
                            CU_CTX_COREDUMP_ENABLE | CU_CTX_USER_COREDUMP_ENABLE | CU_CTX_SYNC_MEMOPS))
        return CUDA_ERROR_INVALID_VALUE;
    p2n_drv.primary[dev].flags = flags;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
    return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}
