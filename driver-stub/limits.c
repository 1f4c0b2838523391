/* limits.c — the limits cuCtxSetLimit sets (stack, printf FIFO, device heap) and the device heap's claim by a
 * backend. Lowest layer: backends call p2n_drv_heap_claim, so this file calls nothing else of the stub (ctx.c checks
 * the context, then calls p2n_drv_limit_get/set). */
#include "internal.h"

/* the persisting-L2 default: 30% of the maximum, as the H100 reports before any set (9830400 of 32768000) */
static size_t limit_stack = 1024, limit_printf = 1 << 20, limit_heap = 8 << 20,
              limit_persisting_l2 = (size_t)P2N_MAX_PERSISTING_L2 / 10 * 3;
static int stack_limit_set;
/* set once a backend has built the device heap (a kernel calling malloc/free was launched): its size is fixed
 * from then on, and cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE) fails as CUDA's does */
static int heap_claimed;

size_t p2n_drv_heap_claim(void)
{
    heap_claimed = 1;
    return limit_heap;
}

size_t p2n_drv_stack_limit_set(void) { return stack_limit_set ? limit_stack : 0; }

CUresult p2n_drv_limit_get(CUlimit limit, size_t *pvalue)
{
    switch (limit) {
    case CU_LIMIT_STACK_SIZE: *pvalue = limit_stack; break;
    case CU_LIMIT_PRINTF_FIFO_SIZE: *pvalue = limit_printf; break;
    case CU_LIMIT_MALLOC_HEAP_SIZE: *pvalue = limit_heap; break;
    case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH: *pvalue = 2; break;
    case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: *pvalue = 2048; break;
    case CU_LIMIT_MAX_L2_FETCH_GRANULARITY: *pvalue = 64; break;
    case CU_LIMIT_PERSISTING_L2_CACHE_SIZE: *pvalue = limit_persisting_l2; break;
    default: return CUDA_ERROR_UNSUPPORTED_LIMIT;
    }
    return CUDA_SUCCESS;
}

CUresult p2n_drv_limit_set(CUlimit limit, size_t value)
{
    switch (limit) {
    case CU_LIMIT_STACK_SIZE: limit_stack = value; stack_limit_set = 1; break;
    case CU_LIMIT_PRINTF_FIFO_SIZE: limit_printf = value; break;
    case CU_LIMIT_MALLOC_HEAP_SIZE:
        /* CUDA: "must be performed before launching any kernel that uses the malloc() or free() device system
         * calls, otherwise CUDA_ERROR_INVALID_VALUE will be returned" */
        if (heap_claimed)
            return CUDA_ERROR_INVALID_VALUE;
        limit_heap = value;
        break;
    case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH:
    case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT:
    case CU_LIMIT_MAX_L2_FETCH_GRANULARITY: break;
    case CU_LIMIT_PERSISTING_L2_CACHE_SIZE:   /* a hint; above the device's maximum: INVALID_VALUE (H100) */
        if (value > (size_t)P2N_MAX_PERSISTING_L2)
            return CUDA_ERROR_INVALID_VALUE;
        limit_persisting_l2 = value;
        break;
    default: return CUDA_ERROR_UNSUPPORTED_LIMIT;
    }
    return CUDA_SUCCESS;
}
