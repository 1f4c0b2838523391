/* export_ctx_storage.c — CONTEXT_LOCAL_STORAGE_INTERFACE_V0301 (c693336e…): cudart keeps its per-context
 * state here, keyed by (context, cudart object). put/delete/get are slots 0/1/2 of the table (exports.c);
 * the result codes are the ones NVIDIA's driver gave in cudart-driver.md §2–§3: get answers 201 when there is
 * no current context or the current one is a primary context not retained yet, 400 when nothing is stored.
 * When a context dies (primary reset / last release, created context destroyed) its entries are dropped and
 * each entry's destructor — a cudart function registered with put — is called as dtor(ctx, key, value), the
 * order ZLUDA documents (not traced on NVIDIA's driver: cudart-driver.md §3). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exports.h"

typedef void (*cls_dtor)(CUcontext ctx, void *key, void *value);

typedef struct cls_entry {
    struct cls_entry *next;
    p2n_ctx *ctx;
    void *key;
    void *value;
    cls_dtor dtor;
} cls_entry;

static pthread_mutex_t cls_lock = PTHREAD_MUTEX_INITIALIZER;
static cls_entry *cls_head;

/* ctx, or the calling thread's current context; 201 when there is none or it is an unretained primary */
static CUresult resolve(CUcontext ctx, p2n_ctx **out)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!ctx && cuCtxGetCurrent(&ctx) != CUDA_SUCCESS)
        return CUDA_ERROR_INVALID_CONTEXT;
    p2n_ctx *c = (p2n_ctx *)ctx;
    if (!c || !p2n_drv_is_live(c, P2N_MAGIC_CTX) || (c->is_primary && c->refcount <= 0))
        return CUDA_ERROR_INVALID_CONTEXT;
    *out = c;
    return CUDA_SUCCESS;
}

static cls_entry **find(p2n_ctx *c, void *key)
{
    cls_entry **pp = &cls_head;
    while (*pp && !((*pp)->ctx == c && (*pp)->key == key))
        pp = &(*pp)->next;
    return pp;
}

CUresult p2n_drv_cls_put(CUcontext ctx, void *key, void *value, void *dtor)
{
    p2n_ctx *c;
    CUresult r = resolve(ctx, &c);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&cls_lock);
    cls_entry **pp = find(c, key);
    if (!*pp) {
        *pp = calloc(1, sizeof **pp);
        if (!*pp) {
            pthread_mutex_unlock(&cls_lock);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        (*pp)->ctx = c;
        (*pp)->key = key;
    }
    (*pp)->value = value;
    /* cudart hands a function pointer as void *; POSIX guarantees the round trip */
    memcpy(&(*pp)->dtor, &dtor, sizeof(*pp)->dtor);
    pthread_mutex_unlock(&cls_lock);
    return CUDA_SUCCESS;
}

CUresult p2n_drv_cls_delete(CUcontext ctx, void *key)
{
    p2n_ctx *c;
    CUresult r = resolve(ctx, &c);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&cls_lock);
    cls_entry **pp = find(c, key), *e = *pp;
    if (e)
        *pp = e->next;
    pthread_mutex_unlock(&cls_lock);
    free(e);   /* cudart asked: it disposes of the value itself, the destructor is not called */
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult p2n_drv_cls_get(void **value, CUcontext ctx, void *key)
{
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    p2n_ctx *c;
    CUresult r = resolve(ctx, &c);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&cls_lock);
    cls_entry *e = *find(c, key);
    if (e)
        *value = e->value;
    pthread_mutex_unlock(&cls_lock);
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static void p2n_drv_cls_release_ctx(p2n_ctx *c)
{
    /* unlink first, call destructors after: a destructor may call back into the driver */
    cls_entry *dead = NULL;
    pthread_mutex_lock(&cls_lock);
    for (cls_entry **pp = &cls_head; *pp;) {
        cls_entry *e = *pp;
        if (e->ctx == c) {
            *pp = e->next;
            e->next = dead;
            dead = e;
        } else {
            pp = &e->next;
        }
    }
    pthread_mutex_unlock(&cls_lock);
    while (dead) {
        cls_entry *e = dead;
        dead = e->next;
        if (p2n_drv_verbose())
            fprintf(stderr, "ptx2native libcuda: context %p dies: context-local storage key %p, destructor %s\n",
                    (void *)c, e->key, e->dtor ? "called" : "none");
        if (e->dtor)
            e->dtor((CUcontext)c, e->key, e->value);
        free(e);
    }
}

__attribute__((constructor)) static void register_release_hook(void)
{
    p2n_drv_ctx_on_release(P2N_CTX_RELEASE_CLS, p2n_drv_cls_release_ctx);
}
