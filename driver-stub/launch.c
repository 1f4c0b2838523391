/* launch.c — cuLaunchKernel (kernelParams and `extra`), cuLaunchKernelEx, function attributes, occupancy.
 *
 * A launch on a created stream is queued there (stream_queue.c); others run to completion inside the call. Errors
 * that CUDA reports
 * asynchronously (trap → LAUNCH_FAILED, assert → ASSERT, bad address → ILLEGAL_ADDRESS) make the launch call
 * itself succeed and poison the context: the next call that uses it (cuCtxSynchronize, a copy, ...) returns
 * the error, and so does every later one until the context is destroyed or the primary context reset —
 * CUDA's sticky errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_abi.h" /* P2N_LAUNCH_* */
#include "graph.h"   /* stream capture hooks */

static int is_sticky(CUresult r)
{
    switch (r) {
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
        return 1;
    default:
        return 0;
    }
}

static CUresult get_func(CUfunction f, p2n_func **out)
{
    if (!p2n_drv_is_live(f, P2N_MAGIC_FUNC))
        return CUDA_ERROR_INVALID_HANDLE;
    *out = (p2n_func *)f;
    return CUDA_SUCCESS;
}

/* Packs the parameter buffer from kernelParams (array of pointers to values) or from `extra`
 * (CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE / _END). *buf is malloc'd. Graph kernel nodes keep such a copy. */
CUresult p2n_drv_pack_params(const p2n_func *f, void **kernelParams, void **extra, uint8_t **buf)
{
    const p2n_bk_kernel_info *ki = &f->info;
    size_t size = ki->param_buffer_size;
    uint8_t *b = calloc(1, size ? size : 1);
    if (!b)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (kernelParams && extra) {
        free(b);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (extra) {
        const void *ptr = NULL;
        size_t len = 0;
        int have_ptr = 0, have_size = 0;
        for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
            if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
                ptr = extra[i + 1];
                have_ptr = 1;
            } else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
                if (!extra[i + 1]) {
                    free(b);
                    return CUDA_ERROR_INVALID_VALUE;
                }
                len = *(const size_t *)extra[i + 1];
                have_size = 1;
            } else {
                free(b);
                return CUDA_ERROR_INVALID_VALUE;
            }
        }
        if (ki->num_params > 0) {
            if (!have_ptr || !have_size || !ptr) {
                free(b);
                return CUDA_ERROR_INVALID_VALUE;
            }
            /* every parameter must be covered; trailing padding may be left out */
            uint32_t last = ki->num_params - 1;
            size_t need = (size_t)ki->param_offsets[last] + ki->param_sizes[last];
            if (len < need) {
                free(b);
                return CUDA_ERROR_INVALID_VALUE;
            }
            memcpy(b, ptr, len < size ? len : size);
        }
    } else if (ki->num_params > 0) {
        if (!kernelParams) {
            free(b);
            return CUDA_ERROR_INVALID_VALUE;
        }
        for (unsigned i = 0; i < ki->num_params; i++) {
            if (!kernelParams[i]) {
                free(b);
                return CUDA_ERROR_INVALID_VALUE;
            }
            memcpy(b + ki->param_offsets[i], kernelParams[i], ki->param_sizes[i]);
        }
    }
    *buf = b;
    return CUDA_SUCCESS;
}

static CUresult cooperative_grid_fits(p2n_func *f, const unsigned grid[3], uint64_t threads, unsigned shmem);

/* one launch with its own copy of the arguments: run here (default streams) or queued (stream_queue.c) */
typedef struct op_launch {
    p2n_op op;
    p2n_func *f;
    p2n_bk_launch l;
} op_launch;

static CUresult run_launch(p2n_op *op, p2n_ctx *c)
{
    op_launch *o = (op_launch *)op;
    char *err = NULL;
    CUresult r = p2n_drv.be->launch(o->f->bk, &o->l, &err);
    free((void *)o->l.params);
    free(o);
    if (r != CUDA_SUCCESS && err && (r == CUDA_ERROR_ASSERT || p2n_drv_verbose())) {
        /* CUDA prints failed device assertions on stderr; other messages only when asked */
        fprintf(stderr, "%s%s", err, err[0] && err[strlen(err) - 1] == '\n' ? "" : "\n");
    }
    free(err);
    if (is_sticky(r)) {
        c->sticky = r;
        return CUDA_SUCCESS;   /* reported at the next call, as on a GPU */
    }
    return r;
}

/* cluster_dims: the launch names cluster dimensions (cuLaunchKernelEx's CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
 * cooperative: cuLaunchCooperativeKernel or CU_LAUNCH_ATTRIBUTE_COOPERATIVE (all blocks at once, grid.sync()) */
static CUresult launch(CUfunction hf, const unsigned grid[3], const unsigned block[3], unsigned shmem,
                       CUstream hStream, void **kernelParams, void **extra, int cluster_dims, int cooperative)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_func *f;
    r = get_func(hf, &f);
    if (r != CUDA_SUCCESS)
        return r;
    r = p2n_drv_check_stream(hStream, c);
    if (r == CUDA_SUCCESS)
        r = p2n_drv_capture_legacy_check(hStream);
    if (r != CUDA_SUCCESS)
        return r;
    static const unsigned max_grid[3] = {2147483647u, 65535u, 65535u}, max_block[3] = {1024u, 1024u, 64u};
    uint64_t threads = 1;
    for (int d = 0; d < 3; d++) {
        if (grid[d] == 0 || block[d] == 0 || grid[d] > max_grid[d] || block[d] > max_block[d])
            return CUDA_ERROR_INVALID_VALUE;
        threads *= block[d];
    }
    if (threads > (uint64_t)p2n_drv.dev.max_threads_per_block)
        return CUDA_ERROR_INVALID_VALUE;
    /* cluster dimensions set with cuFuncSetAttribute (REQUIRED_CLUSTER_*): all three or none (CUDA's rule); only
     * clusters of one block run (launch_ex) */
    const int *rc = f->req_cluster;
    if (!cluster_dims && (rc[0] || rc[1] || rc[2])) {
        if (!rc[0] || !rc[1] || !rc[2])
            return CUDA_ERROR_INVALID_CLUSTER_SIZE;
        if ((uint64_t)rc[0] * (uint64_t)rc[1] * (uint64_t)rc[2] > 1) {
            fprintf(stderr, "ptx2native: cuLaunchKernel: thread-block clusters of %dx%dx%d blocks are not supported "
                    "(only clusters of one block)\n", rc[0], rc[1], rc[2]);
            return CUDA_ERROR_NOT_SUPPORTED;
        }
        cluster_dims = 1;
    }
    /* NVIDIA (recorded, conformance case cluster/sreg_explicitcluster_plain_launch): a kernel declared
     * .explicitcluster without .reqnctapercluster cannot be launched without cluster dimensions */
    if (f->info.cluster_launch && !cluster_dims)
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    if (f->info.max_threads_per_block && threads > f->info.max_threads_per_block)
        return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    if (f->info.reqntid[0] && (block[0] != f->info.reqntid[0] || block[1] != (f->info.reqntid[1] ? f->info.reqntid[1] : 1) ||
                               block[2] != (f->info.reqntid[2] ? f->info.reqntid[2] : 1)))
        return CUDA_ERROR_INVALID_VALUE;
    if (shmem > (unsigned)f->max_dynamic_shared ||
        (uint64_t)shmem + f->info.static_shared_bytes > (uint64_t)p2n_drv.dev.max_shared_per_block_optin)
        return CUDA_ERROR_INVALID_VALUE;
    if (cooperative) {
        if (!p2n_drv.dev.cooperative_launch)
            return CUDA_ERROR_NOT_SUPPORTED; /* the backend's device attribute COOPERATIVE_LAUNCH is 0 */
        r = cooperative_grid_fits(f, grid, threads, shmem);
        if (r != CUDA_SUCCESS)
            return r;
    }
    r = p2n_drv_refs_sync(f->module); /* texture/surface references bound since the last launch */
    if (r != CUDA_SUCCESS)
        return r;
    uint8_t *params = NULL;
    r = p2n_drv_pack_params(f, kernelParams, extra, &params);
    if (r != CUDA_SUCCESS)
        return r;
    if (p2n_drv_capture_active(hStream))   /* a kernel node with a copy of the arguments instead (graph.h) */
        return p2n_drv_capture_kernel(hStream, f, cluster_dims, cooperative, grid, block, shmem, params);
    op_launch *o = calloc(1, sizeof *o);
    if (!o) {
        free(params);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    o->op.run = run_launch;
    o->f = f;
    o->l = (p2n_bk_launch){
        .grid = {grid[0], grid[1], grid[2]},
        .block = {block[0], block[1], block[2]},
        .dynamic_shared_bytes = shmem,
        .stack_bytes = p2n_drv_stack_limit_set(),
        .params = params,
        .printf_sink = p2n_drv_ctx_printf,
        .printf_user = c,
        /* a cluster launch (shared::cluster async operations fault outside one, as on NVIDIA: emit_cluster.c) */
        .launch_flags = (cluster_dims || f->info.cluster_dims_fixed ? P2N_LAUNCH_CLUSTER : 0) |
                        (cooperative ? P2N_LAUNCH_COOPERATIVE : 0),
    };
    if (p2n_drv_stream_queues(hStream))    /* a created stream: its thread runs it (stream_queue.c) */
        return p2n_drv_stream_enqueue(hStream, &o->op);
    p2n_drv_stream_order(hStream, c);
    return run_launch(&o->op, c);
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                        unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                        unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)
{
    const unsigned g[3] = {gridDimX, gridDimY, gridDimZ}, b[3] = {blockDimX, blockDimY, blockDimZ};
    return launch(f, g, b, sharedMemBytes, hStream, kernelParams, extra, 0, 0);
}

CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                             unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                             unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)
{
    const unsigned g[3] = {gridDimX, gridDimY, gridDimZ}, b[3] = {blockDimX, blockDimY, blockDimZ};
    return launch(f, g, b, sharedMemBytes, hStream, kernelParams, extra, 0, 0);
}

/* cuda.h: kernelParams only (no `extra`); the grid must fit at once (cooperative_grid_fits) */
CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                   unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                   unsigned int sharedMemBytes, CUstream hStream, void **kernelParams)
{
    const unsigned g[3] = {gridDimX, gridDimY, gridDimZ}, b[3] = {blockDimX, blockDimY, blockDimZ};
    return launch(f, g, b, sharedMemBytes, hStream, kernelParams, NULL, 0, 1);
}

CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                        unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                        unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                        void **kernelParams)
{
    const unsigned g[3] = {gridDimX, gridDimY, gridDimZ}, b[3] = {blockDimX, blockDimY, blockDimZ};
    return launch(f, g, b, sharedMemBytes, hStream, kernelParams, NULL, 0, 1);
}

static CUresult launch_ex(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)
{
    if (!config || (config->numAttrs && !config->attrs))
        return CUDA_ERROR_INVALID_VALUE;
    int cluster_dims = 0, cooperative = 0;
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const CUlaunchAttribute *a = &config->attrs[i];
        switch (a->id) {
        case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
            cooperative = a->value.cooperative != 0;   /* the last one given counts */
            break;
        case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
            cluster_dims = 1;
            /* no backend launches clusters: every block is a cluster of one (targets/llvm/emit_cluster.c); a kernel
             * whose .reqnctapercluster asks for more is a stub that fails the same way (emit_module.c) */
            if ((uint64_t)a->value.clusterDim.x * a->value.clusterDim.y * a->value.clusterDim.z > 1) {
                /* printed like a deferred unsupported kernel's reason (driver-stub/error_report.c, cpu/cpu_rt_table.c) */
                fprintf(stderr, "ptx2native: cuLaunchKernelEx: thread-block clusters of %ux%ux%u blocks are not "
                        "supported (only clusters of one block)\n", a->value.clusterDim.x, a->value.clusterDim.y,
                        a->value.clusterDim.z);
                return CUDA_ERROR_NOT_SUPPORTED;
            }
            break;
        default:
            break;   /* priorities, access policy, sync policy ...: hints */
        }
    }
    const unsigned g[3] = {config->gridDimX, config->gridDimY, config->gridDimZ};
    const unsigned b[3] = {config->blockDimX, config->blockDimY, config->blockDimZ};
    return launch(f, g, b, config->sharedMemBytes, config->hStream, kernelParams, extra, cluster_dims, cooperative);
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)
{
    return launch_ex(config, f, kernelParams, extra);
}

CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)
{
    return launch_ex(config, f, kernelParams, extra);
}

/* ---- function attributes ---- */

static CUresult func_attribute(int *pi, CUfunction_attribute attrib, p2n_func *f)
{
    const p2n_bk_kernel_info *ki = &f->info;
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: {
        uint32_t m = ki->max_threads_per_block ? ki->max_threads_per_block : 1024;
        *pi = (int)(m < (uint32_t)p2n_drv.dev.max_threads_per_block ? m : (uint32_t)p2n_drv.dev.max_threads_per_block);
        break;
    }
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = (int)ki->static_shared_bytes; break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = (int)ki->local_bytes; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = ki->num_regs ? (int)ki->num_regs : 32; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
        /* the virtual architecture (`.target`), not the PTX ISA version: see parse_ptx_target (module.c) */
        *pi = f->module->ptx_target ? f->module->ptx_target : p2n_drv.cc_major * 10 + p2n_drv.cc_minor;
        break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = p2n_drv.cc_major * 10 + p2n_drv.cc_minor; break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = f->max_dynamic_shared; break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = f->carveout; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
        /* .reqnctapercluster kernels that load are 1x1x1 (larger ones are stubs: emit_module.c) */
        *pi = ki->cluster_dims_fixed ? 1 : f->req_cluster[attrib - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH];
        break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *pi = 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

static CUresult func_set_attribute(p2n_func *f, CUfunction_attribute attrib, int value)
{
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        if (value < 0 || (uint64_t)value + f->info.static_shared_bytes > (uint64_t)p2n_drv.dev.max_shared_per_block_optin)
            return CUDA_ERROR_INVALID_VALUE;
        f->max_dynamic_shared = value;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        if (value < -1 || value > 100)
            return CUDA_ERROR_INVALID_VALUE;
        f->carveout = value;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
        /* cuda.h: "If the value is set during compile time, it cannot be set at runtime" (NOT_PERMITTED); the
         * dimensions are checked at launch */
        if (f->info.cluster_dims_fixed)
            return CUDA_ERROR_NOT_PERMITTED;
        if (value < 0)
            return CUDA_ERROR_INVALID_VALUE;
        f->req_cluster[attrib - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH] = value;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    p2n_func *f;
    r = get_func(hfunc, &f);
    if (r != CUDA_SUCCESS)
        return r;
    return func_attribute(pi, attrib, f);
}

CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    p2n_func *f;
    r = get_func(hfunc, &f);
    if (r != CUDA_SUCCESS)
        return r;
    return func_set_attribute(f, attrib, value);
}

CUresult cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    return cuFuncGetAttribute(pi, attrib, (CUfunction)kernel);
}

CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    return cuFuncSetAttribute((CUfunction)kernel, attrib, val);
}

CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    p2n_func *f;
    return get_func(hfunc, &f);
}

/* Kepler's 4/8-byte bank switch: devices since Maxwell ignore it and CUDA accepts it (a no-op), as here */
CUresult cuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig config)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if ((unsigned)config > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE)
        return CUDA_ERROR_INVALID_VALUE;
    p2n_func *f;
    return get_func(hfunc, &f);
}

/* cudart 12+ sets a kernel's cache preference here (cudaFuncSetCacheConfig): a hint, like cuFuncSetCacheConfig */
CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if ((unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL)
        return CUDA_ERROR_INVALID_VALUE;
    return cuFuncSetCacheConfig((CUfunction)kernel, config);
}

/* cuKernel* twins of cuFunc* (CUkernel = CUfunction here; CUlibrary = CUmodule) */
CUresult cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset, size_t *paramSize)
{
    return cuFuncGetParamInfo((CUfunction)kernel, paramIndex, paramOffset, paramSize);
}

CUresult cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel)
{
    return cuFuncGetModule((CUmodule *)pLib, (CUfunction)kernel);
}

/* The prologue of a cuFunc* query: the driver initialised, the output pointer given, the handle valid. */
static CUresult func_query(CUfunction h, const void *out, p2n_func **f)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    return get_func(h, f);
}

/* a function is loaded when its handle exists (modules load all their kernels at once) */
CUresult cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction function)
{
    p2n_func *f;
    CUresult r = func_query(function, state, &f);
    if (r == CUDA_SUCCESS)
        *state = CU_FUNCTION_LOADING_STATE_LOADED;
    return r;
}

CUresult cuFuncLoad(CUfunction function)
{
    p2n_func *f = NULL;
    return func_query(function, &f, &f);
}

CUresult cuFuncGetName(const char **name, CUfunction hfunc)
{
    p2n_func *f;
    CUresult r = func_query(hfunc, name, &f);
    if (r == CUDA_SUCCESS)
        *name = f->name;
    return r;
}

CUresult cuFuncGetModule(CUmodule *hmod, CUfunction hfunc)
{
    p2n_func *f;
    CUresult r = func_query(hfunc, hmod, &f);
    if (r == CUDA_SUCCESS)
        *hmod = (CUmodule)f->module;
    return r;
}

CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset, size_t *paramSize)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    p2n_func *f;
    r = get_func(func, &f);
    if (r != CUDA_SUCCESS)
        return r;
    if (paramIndex >= f->info.num_params)
        return CUDA_ERROR_INVALID_VALUE;
    if (paramOffset)
        *paramOffset = f->info.param_offsets[paramIndex];
    if (paramSize)
        *paramSize = f->info.param_sizes[paramIndex];
    return CUDA_SUCCESS;
}

/* ---- occupancy: a "multiprocessor" holds as many blocks as the limits the device attributes report allow
 * (threads, blocks, registers and shared memory per multiprocessor; cuDeviceGetAttribute), so the numbers agree
 * with what a program computes from cudaGetDeviceProperties. Block sizes count in whole warps, as CUDA's do. ---- */

typedef struct sm_limits {
    int threads, blocks, regs, smem, smem_reserved, smem_block_optin, warp, sm_count;
} sm_limits;

static CUresult current_sm_limits(sm_limits *l)
{
    CUdevice dev;
    CUresult r = cuCtxGetDevice(&dev);
    if (r != CUDA_SUCCESS)
        return r;
    const struct {
        int *out;
        CUdevice_attribute a;
    } q[] = {
        {&l->threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR},
        {&l->blocks, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR},
        {&l->regs, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR},
        {&l->smem, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR},
        {&l->smem_reserved, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK},
        {&l->smem_block_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN},
        {&l->warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE},
        {&l->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
    };
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        r = cuDeviceGetAttribute(q[i].out, q[i].a, dev);
        if (r != CUDA_SUCCESS)
            return r;
    }
    return CUDA_SUCCESS;
}

/* blocks of blockSize threads with dyn_smem bytes of dynamic shared memory that fit one multiprocessor; 0 when
 * one block does not fit (too many threads for the function, too much shared memory) */
static int blocks_per_sm(const sm_limits *l, p2n_func *f, int blockSize, size_t dyn_smem)
{
    int max_threads = 0, regs = 0;
    func_attribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
    func_attribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
    if (blockSize <= 0 || blockSize > max_threads)
        return 0;
    int warp = l->warp > 0 ? l->warp : 32;
    long threads = ((long)blockSize + warp - 1) / warp * warp;
    long n = l->threads / threads;
    if (n > l->blocks)
        n = l->blocks;
    if (regs > 0 && n > l->regs / (regs * threads))
        n = l->regs / (regs * threads);
    size_t smem = dyn_smem + f->info.static_shared_bytes;
    if (smem > (size_t)l->smem_block_optin)
        return 0;
    if (smem > 0) {
        size_t by_smem = (size_t)l->smem / (smem + (size_t)l->smem_reserved);
        if ((size_t)n > by_smem)
            n = (long)by_smem;
    }
    return (int)n;
}

static CUresult occupancy_prologue(CUfunction func, p2n_func **f, sm_limits *l)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    r = get_func(func, f);
    if (r != CUDA_SUCCESS)
        return r;
    return current_sm_limits(l);
}

static CUresult occupancy(int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize, unsigned flags)
{
    if (!numBlocks || blockSize <= 0 || (flags & ~(unsigned)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE))
        return CUDA_ERROR_INVALID_VALUE;
    p2n_func *f;
    sm_limits l;
    CUresult r = occupancy_prologue(func, &f, &l);
    if (r != CUDA_SUCCESS)
        return r;
    *numBlocks = blocks_per_sm(&l, f, blockSize, dynamicSMemSize);
    return CUDA_SUCCESS;
}

/* The block size with the most resident threads per multiprocessor (the largest such, trying the limit first,
 * then whole warps downwards), and the grid that fills every multiprocessor with it. */
static CUresult potential_block_size(int *minGridSize, int *blockSize, CUfunction func,
                                     CUoccupancyB2DSize smem_of_block, size_t dynamicSMemSize, int blockSizeLimit,
                                     unsigned flags)
{
    if (!minGridSize || !blockSize || blockSizeLimit < 0 || (flags & ~(unsigned)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE))
        return CUDA_ERROR_INVALID_VALUE;
    p2n_func *f;
    sm_limits l;
    CUresult r = occupancy_prologue(func, &f, &l);
    if (r != CUDA_SUCCESS)
        return r;
    int limit = 0;
    func_attribute(&limit, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
    if (blockSizeLimit > 0 && blockSizeLimit < limit)
        limit = blockSizeLimit;
    int warp = l.warp > 0 ? l.warp : 32;
    int best_size = 0, best_blocks = 0;
    long best_threads = 0;
    for (int aligned = (limit + warp - 1) / warp * warp; aligned > 0; aligned -= warp) {
        int size = aligned < limit ? aligned : limit;
        size_t smem = smem_of_block ? smem_of_block(size) : dynamicSMemSize;
        int n = blocks_per_sm(&l, f, size, smem);
        if ((long)n * size > best_threads) {
            best_threads = (long)n * size;
            best_size = size;
            best_blocks = n;
            if (best_threads >= l.threads)
                break;
        }
    }
    *blockSize = best_size;
    *minGridSize = best_blocks * l.sm_count;
    return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                                          CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize,
                                          int blockSizeLimit)
{
    return potential_block_size(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize,
                                blockSizeLimit, 0);
}

CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize, CUfunction func,
                                                   CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                   size_t dynamicSMemSize, int blockSizeLimit, unsigned int flags)
{
    return potential_block_size(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize,
                                blockSizeLimit, flags);
}

/* The most dynamic shared memory each of numBlocks blocks of blockSize threads can have, all resident on one
 * multiprocessor; 0 when that many blocks do not fit at all. */
CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, CUfunction func, int numBlocks,
                                                 int blockSize)
{
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    p2n_func *f;
    sm_limits l;
    CUresult r = occupancy_prologue(func, &f, &l);
    if (r != CUDA_SUCCESS)
        return r;
    *dynamicSmemSize = 0;
    if (blocks_per_sm(&l, f, blockSize, 0) < numBlocks)
        return CUDA_SUCCESS;
    size_t per_block = (size_t)l.smem / (size_t)numBlocks;
    size_t fixed = f->info.static_shared_bytes + (size_t)l.smem_reserved;
    size_t cap = (size_t)l.smem_block_optin > f->info.static_shared_bytes
                     ? (size_t)l.smem_block_optin - f->info.static_shared_bytes : 0;
    size_t avail = per_block > fixed ? per_block - fixed : 0;
    *dynamicSmemSize = avail < cap ? avail : cap;
    return CUDA_SUCCESS;
}

/* cuda.h, cuLaunchCooperativeKernel: the grid may have at most cuOccupancyMaxActiveBlocksPerMultiprocessor x
 * MULTIPROCESSOR_COUNT blocks (the same numbers the program computed them from), else
 * CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE */
static CUresult cooperative_grid_fits(p2n_func *f, const unsigned grid[3], uint64_t threads, unsigned shmem)
{
    sm_limits l;
    CUresult r = current_sm_limits(&l);
    if (r != CUDA_SUCCESS)
        return r;
    uint64_t sms = l.sm_count > 0 ? (uint64_t)l.sm_count : 0;
    uint64_t max_blocks = (uint64_t)blocks_per_sm(&l, f, (int)threads, shmem) * sms;
    if ((uint64_t)grid[0] * grid[1] * grid[2] > max_blocks)
        return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
    return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
                                                     size_t dynamicSMemSize)
{
    return occupancy(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func, int blockSize,
                                                              size_t dynamicSMemSize, unsigned int flags)
{
    return occupancy(numBlocks, func, blockSize, dynamicSMemSize, flags);
}
