/* cpu_devrt.c — CUDA's device runtime on the CPU backend: dynamic parallelism, a kernel launching kernels
 * (host_abi.h's device_runtime slot; the functions and their arguments: abi/device_runtime.def).
 *
 * Schedule: a child grid (cudaGetParameterBufferV2 + cudaLaunchDeviceV2) is recorded in the launching grid's
 * launch record and runs after every block of that grid has finished, before the launch that started the grid
 * returns (cpu_launch.c), children in the order they were launched, each with its own children before the next.
 * CUDA allows it: a child may start at any time after its launch and its parent grid completes only once the child
 * has; CUDA 12+ device code cannot wait for a child (no device-side cudaDeviceSynchronize), and launches into one
 * stream run in order, which the single order keeps. Device-side cudaMemcpyAsync / cudaMemsetAsync are ordered
 * with the children the same way (they may read a child's results). Every stream and event operation is then
 * already satisfied: streams and events are numbers, cudaStreamWaitEvent and cudaEventRecord succeed.
 * Differences from CUDA: a parent spinning until a child writes a flag never finishes (CUDA does not promise
 * that either, but a GPU may run them at once); cudaGetLastError reports the grid's last device-runtime error,
 * not the calling thread's. Device-side cudaMalloc/cudaFree are device malloc/free (CUDA: the same heap). */
#include "cpu_exec.h"

#include <stdlib.h>
#include <string.h>

/* cudaError_t values device code sees */
enum { E_SUCCESS = 0, E_INVALID_VALUE = 1, E_MEMORY_ALLOCATION = 2, E_INVALID_CONFIGURATION = 9,
       E_INVALID_DEVICE_FUNCTION = 98, E_NOT_SUPPORTED = 801 };

static uint64_t fail(launch *L, uint32_t err)
{
    atomic_store(&L->cdp_last_error, err);
    return err;
}

static cdp_op *new_op(launch *L, int kind, size_t param_size)
{
    size_t size = (offsetof(cdp_op, params) + param_size + 63) & ~(size_t)63;
    cdp_op *op = aligned_alloc(64, size);
    if (!op)
        return NULL;
    memset(op, 0, offsetof(cdp_op, params));
    op->kind = kind;
    op->param_size = param_size;
    pthread_mutex_lock(&L->cdp_lock);
    op->all_next = L->cdp_all;
    L->cdp_all = op;
    pthread_mutex_unlock(&L->cdp_lock);
    return op;
}

static void enqueue(launch *L, cdp_op *op)
{
    pthread_mutex_lock(&L->cdp_lock);
    op->launched = true;
    if (L->cdp_tail)
        L->cdp_tail->next = op;
    else
        L->cdp_head = op;
    L->cdp_tail = op;
    pthread_mutex_unlock(&L->cdp_lock);
}

/* the kernel of the calling grid's module whose entry is `func` (a kernel's address in device code), or NULL */
static const cpu_kernel *kernel_at(const launch *L, uint64_t func)
{
    const struct cpu_module *m = L->k->module;
    for (uint32_t i = 0; i < m->nkernels; i++)
        if ((uint64_t)(uintptr_t)m->kernels[i].desc->entry == func)
            return &m->kernels[i];
    return NULL;
}

/* the grid op whose parameter buffer is p and that is not launched yet, or NULL */
static cdp_op *op_of_buffer(launch *L, uint64_t p)
{
    cdp_op *found = NULL;
    pthread_mutex_lock(&L->cdp_lock);
    for (cdp_op *op = L->cdp_all; op; op = op->all_next)
        if ((uint64_t)(uintptr_t)op->params == p && op->kind == CDP_GRID && !op->launched) {
            found = op;
            break;
        }
    pthread_mutex_unlock(&L->cdp_lock);
    return found;
}

static void set_dims(cdp_op *op, const uint32_t *grid, const uint32_t *block, uint32_t smem)
{
    memcpy(op->grid, grid, sizeof op->grid);
    memcpy(op->block, block, sizeof op->block);
    op->smem = smem;
}

/* what cudaLaunchDevice checks before the grid is queued (the rest is checked when it runs, as on the host) */
static uint64_t launch_op(launch *L, cdp_op *op)
{
    if (!op || !op->k)
        return fail(L, op ? E_INVALID_DEVICE_FUNCTION : E_INVALID_VALUE);
    uint64_t threads = (uint64_t)op->block[0] * op->block[1] * op->block[2];
    if (!threads || threads > 1024 || !op->grid[0] || !op->grid[1] || !op->grid[2])
        return fail(L, E_INVALID_CONFIGURATION);
    enqueue(L, op);
    return E_SUCCESS;
}

static const char *error_text(uint64_t e, bool name)
{
    switch (e) {
    case E_SUCCESS: return name ? "cudaSuccess" : "no error";
    case E_INVALID_VALUE: return name ? "cudaErrorInvalidValue" : "invalid argument";
    case E_MEMORY_ALLOCATION: return name ? "cudaErrorMemoryAllocation" : "out of memory";
    case E_INVALID_CONFIGURATION: return name ? "cudaErrorInvalidConfiguration" : "invalid configuration argument";
    case E_INVALID_DEVICE_FUNCTION: return name ? "cudaErrorInvalidDeviceFunction" : "invalid device function";
    case E_NOT_SUPPORTED: return name ? "cudaErrorNotSupported" : "operation not supported";
    default: return name ? "cudaErrorUnknown" : "unknown error";
    }
}

uint64_t cpu_rt_device_runtime(p2n_thread_ctx *ctx, uint32_t fn, const uint64_t *a)
{
    launch *L = F(ctx)->w->L;
    static _Atomic uint64_t next_handle = 1;
    switch (fn) {
    case P2N_DEVRT_GET_PARAMETER_BUFFER_V2: {
        const cpu_kernel *k = kernel_at(L, a[0]);
        if (!k) {
            fail(L, E_INVALID_DEVICE_FUNCTION);
            return 0;
        }
        cdp_op *op = new_op(L, CDP_GRID, k->desc->param_buffer_size);
        if (!op) {
            fail(L, E_MEMORY_ALLOCATION);
            return 0;
        }
        op->k = k;
        set_dims(op, (const uint32_t *)(uintptr_t)a[1], (const uint32_t *)(uintptr_t)a[2], (uint32_t)a[3]);
        return (uint64_t)(uintptr_t)op->params;
    }
    case P2N_DEVRT_LAUNCH_DEVICE_V2:
        return launch_op(L, op_of_buffer(L, a[0]));
    case P2N_DEVRT_GET_PARAMETER_BUFFER: {
        /* (alignment, size): the kernel is named at cudaLaunchDevice; 64-byte alignment covers any asked for */
        if (a[0] > 64 || a[1] > ((uint64_t)1 << 20)) {
            fail(L, E_INVALID_VALUE);
            return 0;
        }
        cdp_op *op = new_op(L, CDP_GRID, (size_t)a[1]);
        if (!op)
            fail(L, E_MEMORY_ALLOCATION);
        return op ? (uint64_t)(uintptr_t)op->params : 0;
    }
    case P2N_DEVRT_LAUNCH_DEVICE: {
        cdp_op *op = op_of_buffer(L, a[1]);
        if (op) {
            op->k = kernel_at(L, a[0]);
            if (op->k && op->param_size < op->k->desc->param_buffer_size)
                return fail(L, E_INVALID_VALUE);
            set_dims(op, (const uint32_t *)(uintptr_t)a[2], (const uint32_t *)(uintptr_t)a[3], (uint32_t)a[4]);
        }
        return launch_op(L, op);
    }
    case P2N_DEVRT_STREAM_CREATE_WITH_FLAGS:
    case P2N_DEVRT_EVENT_CREATE_WITH_FLAGS:
        if (!a[0])
            return fail(L, E_INVALID_VALUE);
        *(uint64_t *)(uintptr_t)a[0] = atomic_fetch_add(&next_handle, 1) << 4;
        return E_SUCCESS;
    case P2N_DEVRT_STREAM_DESTROY:
    case P2N_DEVRT_EVENT_RECORD:
    case P2N_DEVRT_EVENT_RECORD_WITH_FLAGS:
    case P2N_DEVRT_EVENT_DESTROY:
    case P2N_DEVRT_STREAM_WAIT_EVENT:
        return E_SUCCESS;
    case P2N_DEVRT_MALLOC: {
        if (!a[0])
            return fail(L, E_INVALID_VALUE);
        void *p = ctx->rt->malloc(ctx, a[1]);
        *(void **)(uintptr_t)a[0] = p;
        return p || !a[1] ? E_SUCCESS : fail(L, E_MEMORY_ALLOCATION);
    }
    case P2N_DEVRT_FREE:
        ctx->rt->free(ctx, (void *)(uintptr_t)a[0]);
        return E_SUCCESS;
    case P2N_DEVRT_GET_LAST_ERROR:
        return atomic_exchange(&L->cdp_last_error, E_SUCCESS);
    case P2N_DEVRT_PEEK_AT_LAST_ERROR:
        return atomic_load(&L->cdp_last_error);
    case P2N_DEVRT_GET_ERROR_STRING:
    case P2N_DEVRT_GET_ERROR_NAME:
        return (uint64_t)(uintptr_t)error_text(a[0] & 0xffffffffu, fn == P2N_DEVRT_GET_ERROR_NAME);
    case P2N_DEVRT_GET_DEVICE:
        if (!a[0])
            return fail(L, E_INVALID_VALUE);
        *(int *)(uintptr_t)a[0] = 0;
        return E_SUCCESS;
    case P2N_DEVRT_RUNTIME_GET_VERSION:
        if (!a[0])
            return fail(L, E_INVALID_VALUE);
        *(int *)(uintptr_t)a[0] = 13000;
        return E_SUCCESS;
    case P2N_DEVRT_MEMCPY_ASYNC:
    case P2N_DEVRT_MEMSET_ASYNC: {
        cdp_op *op = new_op(L, fn == P2N_DEVRT_MEMCPY_ASYNC ? CDP_COPY : CDP_FILL, 0);
        if (!op)
            return fail(L, E_MEMORY_ALLOCATION);
        op->dst = (void *)(uintptr_t)a[0];
        if (fn == P2N_DEVRT_MEMCPY_ASYNC) {
            op->src = (const void *)(uintptr_t)a[1];
            op->n = (size_t)a[2];
        } else {
            op->value = (int)a[1];
            op->n = (size_t)a[2];
        }
        enqueue(L, op);
        return E_SUCCESS;
    }
    default:
        return fail(L, E_NOT_SUPPORTED);
    }
}

void cpu_devrt_free(launch *L)
{
    for (cdp_op *op = L->cdp_all, *next; op; op = next) {
        next = op->all_next;
        free(op);
    }
    L->cdp_all = L->cdp_head = L->cdp_tail = NULL;
}
