/* cpu_launch.c — cpu_launch_kernel: launch checks, the launch record, hand-over to the pool (the CPU backend's grid
 * execution: see cpu_exec.h). */
#include "cpu_exec.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static cpu_status config_error(char **error, cpu_status st, const cpu_kernel *k, const char *what) {
    if (error)
        *error = cpu_fmt("kernel '%s': %s", k->desc->name, what);
    return st;
}

/* CUDA's device runtime: what the finished grid launched from the device runs now, in launch order, each child
 * grid with its own children before the next (cpu_devrt.c says why this schedule is one CUDA allows). */
static cpu_status run_device_launches(launch *L, const cpu_launch *cl, char **error) {
    for (const cdp_op *op = L->cdp_head; op; op = op->next) {
        if (op->kind == CDP_COPY) {
            memmove(op->dst, op->src, op->n);
            continue;
        }
        if (op->kind == CDP_FILL) {
            memset(op->dst, op->value, op->n);
            continue;
        }
        cpu_launch c = *cl;
        memcpy(c.grid, op->grid, sizeof c.grid);
        memcpy(c.block, op->block, sizeof c.block);
        c.dynamic_shared_bytes = op->smem;
        c.params = op->params;
        c.launch_flags = 0;
        char *err = NULL;
        cpu_status st = cpu_launch_kernel((cpu_kernel *)op->k, &c, &err);
        if (st != CPU_OK) {
            *error = cpu_fmt("a grid kernel '%s' launched from the device failed: %s", L->kd->name,
                             err ? err : "(no message)");
            free(err);
            return st;
        }
    }
    return CPU_OK;
}

cpu_status cpu_launch_kernel(cpu_kernel *k, const cpu_launch *cl, char **error) {
    if (error)
        *error = NULL;
    if (!k || !cl)
        return CPU_ERR_INVALID_VALUE;
    const p2n_kernel_desc *kd = k->desc;
    for (int i = 0; i < 3; i++)
        if (cl->block[i] == 0 || cl->grid[i] == 0)
            return config_error(error, CPU_ERR_INVALID_VALUE, k, "grid and block dimensions must be at least 1");
    if (cl->block[0] > 1024 || cl->block[1] > 1024 || cl->block[2] > 64)
        return config_error(error, CPU_ERR_INVALID_VALUE, k, "block dimensions exceed 1024 x 1024 x 64");
    if (cl->grid[0] > 0x7fffffffu || cl->grid[1] > 65535 || cl->grid[2] > 65535)
        return config_error(error, CPU_ERR_INVALID_VALUE, k, "grid dimensions exceed (2^31-1) x 65535 x 65535");
    uint64_t nthreads = (uint64_t)cl->block[0] * cl->block[1] * cl->block[2];
    if (nthreads > 1024)
        return config_error(error, CPU_ERR_INVALID_VALUE, k, "more than 1024 threads per block");
    if (kd->reqntid[0]) {
        for (int i = 0; i < 3; i++)
            if (cl->block[i] != (kd->reqntid[i] ? kd->reqntid[i] : 1))
                return config_error(error, CPU_ERR_INVALID_VALUE, k, "block dimensions differ from the kernel's .reqntid");
    }
    if (kd->maxntid[0]) {
        uint64_t maxn = (uint64_t)kd->maxntid[0] * (kd->maxntid[1] ? kd->maxntid[1] : 1) * (kd->maxntid[2] ? kd->maxntid[2] : 1);
        if (nthreads > maxn)
            return config_error(error, CPU_ERR_OUT_OF_RESOURCES, k, "more threads per block than the kernel's .maxntid");
    }
    uint32_t align = kd->dynamic_smem_align > 16 ? kd->dynamic_smem_align : 16;
    uint64_t dyn_off = ((uint64_t)kd->static_smem_bytes + align - 1) & ~(uint64_t)(align - 1);
    uint64_t smem = cl->dynamic_shared_bytes ? dyn_off + cl->dynamic_shared_bytes : kd->static_smem_bytes;
    /* CUDA's limit applies to what the kernel itself uses (its own statics and the dynamic part); the window
     * allocated (smem) holds the statics of every kernel of the module (host_abi.h own_smem_bytes) */
    uint64_t own = k->own_smem_valid ? kd->own_smem_bytes : kd->static_smem_bytes;
    if (own + cl->dynamic_shared_bytes > MAX_SMEM)
        return config_error(error, CPU_ERR_OUT_OF_RESOURCES, k, "shared memory exceeds 227 KiB per block");
    if (kd->num_params && !cl->params)
        return config_error(error, CPU_ERR_INVALID_VALUE, k, "no parameter buffer");

    launch L;
    memset(&L, 0, sizeof L);
    L.k = k;
    L.kd = kd;
    const char *tl_env = getenv("P2N_CPU_THREADLOOP");
    L.tl_entry = tl_env && tl_env[0] == '0' ? NULL : k->block_entry;
    /* coroutine threads (host_abi.h) unless disabled: P2N_CPU_CORO=0 runs such kernels on fibers, as before */
    const char *coro_env = getenv("P2N_CPU_CORO");
    L.coro_entry = L.tl_entry || (coro_env && coro_env[0] == '0') ? NULL : k->coro_entry;
    if (!L.tl_entry && !L.coro_entry && k->fiber_stub) { /* the object has only its fast entry */
        cpu_note_fast_only(k, k->block_entry ? "P2N_CPU_THREADLOOP" : "P2N_CPU_CORO");
        L.tl_entry = k->block_entry;
        L.coro_entry = L.tl_entry ? NULL : k->coro_entry;
    }
    L.params = cl->params;
    for (int i = 0; i < 3; i++) {
        L.grid[i] = cl->grid[i];
        L.block[i] = cl->block[i];
    }
    L.nblocks = (uint64_t)cl->grid[0] * cl->grid[1] * cl->grid[2];
    L.nthreads = (uint32_t)nthreads;
    L.nwarps = (L.nthreads + 31) / 32;
    L.dyn = cl->dynamic_shared_bytes;
    L.smem_size = (uint32_t)smem;
    L.launch_flags = cl->launch_flags;
    L.cooperative = (cl->launch_flags & P2N_LAUNCH_COOPERATIVE) != 0;
    L.grid_ws[0] = (uint32_t)sizeof L.grid_ws; /* wsSize; the barrier word starts at 0 */
    size_t stack = 128 * 1024;
    const char *e = getenv("P2N_CPU_STACK_KB");
    if (e && atoi(e) >= 16)
        stack = (size_t)atoi(e) * 1024;
    /* a stack the program asked for comes on top of our own need (the fibers' frames are larger than NVIDIA's,
     * and a recursion compiled for devices without a call stack keeps that much in one frame: module.c) */
    if (cl->stack_bytes)
        stack += cl->stack_bytes < ((size_t)1 << 30) ? (cl->stack_bytes + 4095) & ~(size_t)4095 : (size_t)1 << 30;
    L.stack_size = stack + (((size_t)kd->local_bytes + 4095) & ~(size_t)4095);
    L.budget = 1000;
    e = getenv("P2N_CPU_YIELD_BUDGET");
    if (e && atoi(e) >= 1)
        L.budget = atoi(e);
    atomic_init(&L.next_block, 0);
    atomic_init(&L.abort, 0);
    pthread_mutex_init(&L.err_lock, NULL);
    pthread_mutex_init(&L.cdp_lock, NULL);
    L.status = CPU_OK;

    if (!cpu_pool_run(&L, cl)) {
        cpu_devrt_free(&L);
        pthread_mutex_destroy(&L.cdp_lock);
        pthread_mutex_destroy(&L.err_lock);
        return config_error(error, CPU_ERR_NO_MEMORY, k, "cannot start the worker threads");
    }
    if (L.status == CPU_OK && L.cdp_head)
        L.status = run_device_launches(&L, cl, &L.error);
    cpu_devrt_free(&L);
    pthread_mutex_destroy(&L.cdp_lock);
    pthread_mutex_destroy(&L.err_lock);
    if (L.status != CPU_OK) {
        if (error)
            *error = L.error;
        else
            free(L.error);
    }
    return L.status;
}
