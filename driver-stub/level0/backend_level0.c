/* backend_level0.c — P2N_BACKEND=level0: runs ptx2native's SPIR-V (arch spirv64) on Intel GPUs through Level
 * Zero. libze_loader.so.1 is dlopen'ed (Debian libze1). Device memory is USM (zeMemAllocShared, so CUDA's raw
 * pointers are valid on both sides; host_access = 1 like an integrated device); modules come from
 * zeModuleCreate(ZE_MODULE_FORMAT_IL_SPIRV); one command list + synchronous queue pair executes launches
 * (close, execute, zeCommandQueueSynchronize, reset; no events: errors come from the return codes and the error
 * record). Kernel ABI: targets/spirv/spirv_lower.c.
 * Reviewed against the Level Zero spec / ze_api.h v1.4: docs/level-zero-review.md.
 * UNTESTED on hardware (no Intel GPU here): without a driver, init fails with a clear message. */
#include <dlfcn.h>
#include <level_zero/ze_api.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend.h"
#include "../spirv_launch.h"
#include "spirv_meta.h"
#include "ptx2native.h"

#define ZEFNS(X)                                                                                                  \
    X(zeInit) X(zeDriverGet) X(zeDeviceGet) X(zeDeviceGetProperties) X(zeDeviceGetComputeProperties)              \
    X(zeDeviceGetModuleProperties) X(zeContextCreate) X(zeCommandQueueCreate) X(zeCommandListCreate)              \
    X(zeCommandListReset) X(zeCommandListClose) X(zeCommandQueueExecuteCommandLists) X(zeCommandQueueSynchronize) \
    X(zeCommandListAppendLaunchKernel) X(zeCommandListAppendMemoryCopy) X(zeCommandListAppendMemoryFill)          \
    X(zeMemAllocShared) X(zeMemAllocHost) X(zeMemFree) X(zeModuleCreate) X(zeModuleDestroy)                       \
    X(zeModuleBuildLogGetString) X(zeModuleBuildLogDestroy) X(zeModuleGetGlobalPointer) X(zeKernelCreate)         \
    X(zeKernelSetArgumentValue) X(zeKernelSetGroupSize) X(zeKernelSetIndirectAccess) X(zeKernelGetProperties)     \
    X(zeKernelDestroy) X(zeDeviceGetCommandQueueGroupProperties) X(zeDeviceGetMemoryProperties)                  \
    X(zeMemGetAllocProperties)

static struct {
#define DECL(f) __typeof__(f) *f;
    ZEFNS(DECL)
#undef DECL
} ze;

static struct {
    void *lib;
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    ze_context_handle_t ctx;
    ze_command_queue_handle_t q;
    ze_command_list_handle_t cl;
    ze_device_compute_properties_t cp; /* group size/count limits, checked before every launch */
    void *stage; /* zeMemAllocHost bytes for reading device memory (the strings an assert names), on first use */
    void *heap;  /* device malloc/free (targets/spirv/spirv_heap.c): shared USM, built at the first launch needing it */
    uint64_t max_alloc; /* ze_device_properties_t.maxMemAllocSize */
    ze_result_t last;   /* the failing Level Zero result of run_list, for messages */
    /* spec: a command list and a kernel handle "must not" be used from simultaneous threads (zeCommandListAppend*,
     * zeKernelSetArgumentValue/SetGroupSize); the stub does not serialize launches, so l0_launch does */
    pthread_mutex_t lock;
} S = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct p2n_bk_module {
    ze_module_handle_t mod;
    spirv_module_meta meta;
    struct p2n_bk_kernel *kernels; /* every kernel created from mod: destroyed before the module (spec) */
    uint32_t *rec; /* shared-USM error record passed to every kernel (meta "p2n:trap"; error_report.h), or NULL */
};
struct p2n_bk_kernel {
    ze_kernel_handle_t k;
    p2n_bk_module *m;
    const spirv_kernel_meta *km;
    uint32_t max_threads; /* from ze_kernel_properties_t (0 = unknown) */
    int bad_sg;           /* the driver did not compile it with sub-groups of 32: fails at launch */
    struct p2n_bk_kernel *next;
};


static CUresult l0_init(p2n_bk_device_info *info, char **err) {
    S.lib = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!S.lib) { if (err) *err = p2n_bk_msg("cannot load libze_loader.so.1 (package libze1): %s", dlerror()); return CUDA_ERROR_NO_DEVICE; }
#define LOAD(f)                                                                                                   \
    if (!(ze.f = (__typeof__(f) *)dlsym(S.lib, #f))) {                                                           \
        if (err) *err = p2n_bk_msg("libze_loader.so.1 lacks %s", #f);                                                    \
        return CUDA_ERROR_NO_DEVICE;                                                                              \
    }
    ZEFNS(LOAD)
#undef LOAD
    ze_result_t r = ze.zeInit(ZE_INIT_FLAG_GPU_ONLY);
    uint32_t nd = 0;
    if (r == ZE_RESULT_SUCCESS) r = ze.zeDriverGet(&nd, NULL);
    if (r != ZE_RESULT_SUCCESS || !nd) {
        if (err) *err = p2n_bk_msg("no Level Zero GPU driver (zeInit/zeDriverGet: 0x%x, %u drivers); an Intel GPU and "
                            "intel-level-zero-gpu (compute-runtime) are needed", (unsigned)r, nd);
        return CUDA_ERROR_NO_DEVICE;
    }
    nd = 1;
    /* spec: zeDriverGet's result must be checked like any other; with *pCount = 1 only the first handle is written */
    if (ze.zeDriverGet(&nd, &S.drv) != ZE_RESULT_SUCCESS || !nd || !S.drv) {
        if (err) *err = p2n_bk_msg("zeDriverGet failed to return a driver handle");
        return CUDA_ERROR_NO_DEVICE;
    }
    uint32_t ndev = 1;
    if (ze.zeDeviceGet(S.drv, &ndev, &S.dev) != ZE_RESULT_SUCCESS || !ndev) {
        if (err) *err = p2n_bk_msg("the Level Zero driver has no device");
        return CUDA_ERROR_NO_DEVICE;
    }
    ze_device_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ze_device_compute_properties_t cp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    ze_device_module_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
    /* the queries can fail (ZE_RESULT_ERROR_DEVICE_LOST, ...): zeroed structures would give misleading limits */
    ze_result_t qr = ze.zeDeviceGetProperties(S.dev, &dp);
    if (qr == ZE_RESULT_SUCCESS) qr = ze.zeDeviceGetComputeProperties(S.dev, &cp);
    if (qr == ZE_RESULT_SUCCESS) qr = ze.zeDeviceGetModuleProperties(S.dev, &mp);
    if (qr != ZE_RESULT_SUCCESS) {
        if (err) *err = p2n_bk_msg("Level Zero device property queries failed (0x%x)", (unsigned)qr);
        return CUDA_ERROR_NO_DEVICE;
    }
    S.max_alloc = dp.maxMemAllocSize;
    int has32 = 0;
    /* subGroupSizes has ZE_SUBGROUPSIZE_COUNT entries: never read past it whatever numSubGroupSizes says */
    for (uint32_t i = 0; i < cp.numSubGroupSizes && i < ZE_SUBGROUPSIZE_COUNT; i++) has32 |= cp.subGroupSizes[i] == 32;
    if (!has32) { if (err) *err = p2n_bk_msg("the device has no sub-group size 32 (CUDA warps need it)"); return CUDA_ERROR_NO_DEVICE; }
    S.cp = cp;
    /* The queue and the list must name the same queue group, and it must accept compute commands: the spec
     * defines ordinals only through zeDeviceGetCommandQueueGroupProperties (0 is not guaranteed compute). */
    uint32_t ngroups = 0, ordinal = UINT32_MAX;
    ze.zeDeviceGetCommandQueueGroupProperties(S.dev, &ngroups, NULL);
    ze_command_queue_group_properties_t gp[16];
    if (ngroups > 16) ngroups = 16;
    for (uint32_t i = 0; i < ngroups; i++) gp[i] = (ze_command_queue_group_properties_t){.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
    if (ngroups && ze.zeDeviceGetCommandQueueGroupProperties(S.dev, &ngroups, gp) == ZE_RESULT_SUCCESS)
        for (uint32_t i = 0; i < ngroups && ordinal == UINT32_MAX; i++)
            if (gp[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) ordinal = i;
    if (ordinal == UINT32_MAX) { if (err) *err = p2n_bk_msg("the Level Zero device has no compute queue group"); return CUDA_ERROR_NO_DEVICE; }
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, .ordinal = ordinal,
                                  .mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS};
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, .commandQueueGroupOrdinal = ordinal};
    if (ze.zeContextCreate(S.drv, &cd, &S.ctx) != ZE_RESULT_SUCCESS ||
        ze.zeCommandQueueCreate(S.ctx, S.dev, &qd, &S.q) != ZE_RESULT_SUCCESS ||
        ze.zeCommandListCreate(S.ctx, S.dev, &ld, &S.cl) != ZE_RESULT_SUCCESS) {
        if (err) *err = p2n_bk_msg("cannot create a Level Zero context/queue");
        return CUDA_ERROR_NO_DEVICE;
    }
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%.200s (Level Zero, ptx2native; SPIR-V %u.%u)", dp.name,
             ZE_MAJOR_VERSION(mp.spirvVersionSupported), ZE_MINOR_VERSION(mp.spirvVersionSupported));
    /* cuDeviceTotalMem: the sum of the device's memories (one HBM/GDDR entry on discrete GPUs) */
    uint32_t nmem = 0;
    ze.zeDeviceGetMemoryProperties(S.dev, &nmem, NULL);
    ze_device_memory_properties_t mem[8];
    if (nmem > 8) nmem = 8;
    for (uint32_t i = 0; i < nmem; i++) mem[i] = (ze_device_memory_properties_t){.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
    info->total_mem = 0;
    if (nmem && ze.zeDeviceGetMemoryProperties(S.dev, &nmem, mem) == ZE_RESULT_SUCCESS)
        for (uint32_t i = 0; i < nmem; i++) info->total_mem += mem[i].totalSize;
    info->multiprocessor_count = (int)(dp.numSlices * dp.numSubslicesPerSlice);
    info->clock_rate_khz = (int)dp.coreClockRate * 1000;
    info->max_threads_per_block = cp.maxTotalGroupSize > 1024 ? 1024 : (int)cp.maxTotalGroupSize;
    info->max_shared_per_block = cp.maxSharedLocalMemory < 49152 ? (int)cp.maxSharedLocalMemory : 49152;
    info->max_shared_per_block_optin = (int)cp.maxSharedLocalMemory;
    info->max_shared_per_sm = (int)cp.maxSharedLocalMemory;
    info->warp_size = 32;
    info->integrated = (dp.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) != 0;
    info->host_access = 1; /* shared USM */
    info->reads_host_memory = 0; /* system allocations in kernels (sharedSystemAllocCapabilities) are not queried */
    memcpy(info->uuid, dp.uuid.id, 16);
    /* warp operations are sub-groups of 32 (targets/spirv/spirv_subgroups.c) */
    bool sg32 = false;
    for (uint32_t i = 0; i < cp.numSubGroupSizes && i < ZE_SUBGROUPSIZE_COUNT; i++) sg32 |= cp.subGroupSizes[i] == 32;
    info->device_lacks = sg32 ? 0 : P2N_LACKS_SUBGROUPS;
    /* a kernel this device cannot run fails at its launch (code 3 in the error record, p2n_spv_record_check) */
    info->defer_unsupported = 1;
    return CUDA_SUCCESS;
}

static int l0_device_count(void) { return 1; }

static CUresult l0_mem_alloc(size_t size, void **out) {
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    /* spec: size must be less than ze_device_properties_t.maxMemAllocSize (4 GiB on many Intel GPUs) unless
     * ze_relaxed_allocation_limits_exp_desc_t (MAX_SIZE) is chained to the device descriptor; the modules are
     * built with -ze-opt-greater-than-4GB-buffer-required for exactly these buffers */
    ze_relaxed_allocation_limits_exp_desc_t rl = {.stype = ZE_STRUCTURE_TYPE_RELAXED_ALLOCATION_LIMITS_EXP_DESC,
                                                  .flags = ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE};
    if (S.max_alloc && size >= S.max_alloc) dd.pNext = &rl;
    return ze.zeMemAllocShared(S.ctx, &dd, &hd, size ? size : 1, 256, S.dev, out) == ZE_RESULT_SUCCESS
               ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
static void l0_mem_free(void *p) { if (p) ze.zeMemFree(S.ctx, p); }
static CUresult l0_host_alloc(size_t size, void **out) {
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    /* the same maxMemAllocSize rule; the relaxed-limits descriptor may also chain to the host descriptor */
    ze_relaxed_allocation_limits_exp_desc_t rl = {.stype = ZE_STRUCTURE_TYPE_RELAXED_ALLOCATION_LIMITS_EXP_DESC,
                                                  .flags = ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE};
    if (S.max_alloc && size >= S.max_alloc) hd.pNext = &rl;
    return ze.zeMemAllocHost(S.ctx, &hd, size ? size : 1, 64, out) == ZE_RESULT_SUCCESS ? CUDA_SUCCESS
                                                                                          : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult run_list(void) {
    ze_result_t r = ze.zeCommandListClose(S.cl);
    if (r == ZE_RESULT_SUCCESS) r = ze.zeCommandQueueExecuteCommandLists(S.q, 1, &S.cl, NULL);
    if (r == ZE_RESULT_SUCCESS) r = ze.zeCommandQueueSynchronize(S.q, UINT64_MAX);
    /* always back to the empty, open state (also after a failed close, which left the appended commands in it);
     * spec: reset only once the device no longer references the list — Synchronize(UINT64_MAX) returned */
    ze.zeCommandListReset(S.cl);
    S.last = r;
    return r == ZE_RESULT_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_LAUNCH_FAILED;
}

static CUresult l0_module_load(const void *image, size_t size, p2n_bk_module **out, char **err) {
    if (size % 4 || size < 20 || *(const uint32_t *)image != 0x07230203) {
        if (err) *err = p2n_bk_msg("not a SPIR-V module (the level0 backend loads arch spirv64 code)");
        return CUDA_ERROR_INVALID_IMAGE;
    }
    p2n_bk_module *m = calloc(1, sizeof *m);
    if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
    spirv_read_meta(image, size / 4, &m->meta);
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC, .format = ZE_MODULE_FORMAT_IL_SPIRV,
                           .inputSize = size, .pInputModule = image,
                           .pBuildFlags = "-ze-opt-greater-than-4GB-buffer-required"};
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = ze.zeModuleCreate(S.ctx, S.dev, &md, &m->mod, &log);
    if (r != ZE_RESULT_SUCCESS) {
        size_t ln = 0;
        char *text = NULL;
        if (log && ze.zeModuleBuildLogGetString(log, &ln, NULL) == ZE_RESULT_SUCCESS && ln) {
            text = calloc(1, ln + 1);
            ze.zeModuleBuildLogGetString(log, &ln, text);
        }
        if (err) *err = p2n_bk_msg("zeModuleCreate failed (0x%x): %.800s", (unsigned)r, text ? text : "");
        free(text);
        if (log) ze.zeModuleBuildLogDestroy(log);
        spirv_meta_free(&m->meta);
        free(m);
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    if (log) ze.zeModuleBuildLogDestroy(log);
    if (m->meta.trap_arg) {
        /* the trap/assert/clock record (targets/spirv/spirv_trap.c): a hidden trailing argument of every kernel;
         * shared USM, so the host reads and clears it directly once the queue is synchronized */
        ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
        ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
        void *p = NULL;
        if (ze.zeMemAllocShared(S.ctx, &dd, &hd, SPIRV_REC_BYTES, 64, S.dev, &p) != ZE_RESULT_SUCCESS || !p) {
            ze.zeModuleDestroy(m->mod);
            spirv_meta_free(&m->meta);
            free(m);
            if (err) *err = p2n_bk_msg("cannot allocate the module's trap record");
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        memset(p, 0, SPIRV_REC_BYTES);
        m->rec = p;
    }
    *out = m;
    return CUDA_SUCCESS;
}

static void l0_module_unload(p2n_bk_module *m) {
    if (!m) return;
    for (p2n_bk_kernel *k = m->kernels, *nx; k; k = nx) { /* kernels first: the module must outlive them */
        nx = k->next;
        ze.zeKernelDestroy(k->k);
        free(k);
    }
    ze.zeModuleDestroy(m->mod);
    if (m->rec) ze.zeMemFree(S.ctx, m->rec);
    spirv_meta_free(&m->meta);
    free(m);
}

static CUresult l0_get_kernel(p2n_bk_module *m, const char *name, p2n_bk_kernel **out) {
    for (unsigned i = 0; i < m->meta.nkernels; i++) {
        if (strcmp(m->meta.kernels[i].name, name)) continue;
        ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = name};
        ze_kernel_handle_t k;
        if (ze.zeKernelCreate(m->mod, &kd, &k) != ZE_RESULT_SUCCESS) return CUDA_ERROR_NOT_FOUND;
        /* kernels dereference pointers they were not given as arguments (CUDA pointers in structs, globals);
         * without the flags the driver need not make those allocations resident, so a failure is fatal here */
        p2n_bk_kernel *bk = NULL;
        if (ze.zeKernelSetIndirectAccess(k, ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE | ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST |
                                                ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED) != ZE_RESULT_SUCCESS ||
            !(bk = calloc(1, sizeof *bk))) {
            ze.zeKernelDestroy(k);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        /* Every kernel carries SubgroupSize 32 (spirv_lower.c, intel_reqd_sub_group_size). The backend interface
         * has no "unusable" marker (max_threads_per_block 0 means "no limit" to the stub, launch.c), so a kernel
         * the driver did not pin fails at its launch. ze_kernel_properties_t: requiredSubgroupSize (0 = none),
         * maxSubgroupSize, maxNumSubgroups (per group: the group size limit is maxNumSubgroups * 32). */
        ze_kernel_properties_t kp = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
        if (ze.zeKernelGetProperties(k, &kp) == ZE_RESULT_SUCCESS) {
            bk->bad_sg = kp.requiredSubgroupSize ? kp.requiredSubgroupSize != 32
                                                 : (kp.maxSubgroupSize && kp.maxSubgroupSize < 32);
            if (kp.maxNumSubgroups) bk->max_threads = kp.maxNumSubgroups * 32u;
        }
        bk->k = k;
        bk->m = m;
        bk->km = &m->meta.kernels[i];
        bk->next = m->kernels;
        m->kernels = bk;
        *out = bk;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_NOT_FOUND;
}

static CUresult l0_get_global(p2n_bk_module *m, const char *name, uint64_t *addr, size_t *size) {
    void *p = NULL;
    size_t s = 0;
    if (ze.zeModuleGetGlobalPointer(m->mod, name, &s, &p) != ZE_RESULT_SUCCESS) return CUDA_ERROR_NOT_FOUND;
    if (addr) *addr = (uint64_t)(uintptr_t)p;
    if (size) *size = s;
    return CUDA_SUCCESS;
}

static void l0_kernel_info(const p2n_bk_kernel *k, p2n_bk_kernel_info *o) {
    memset(o, 0, sizeof *o);
    o->name = k->km->name;
    o->num_params = k->km->nparams;
    o->param_offsets = k->km->offs;
    o->param_sizes = k->km->sizes;
    o->param_buffer_size = k->km->pbsize;
    o->static_shared_bytes = k->km->static_smem;
    o->cluster_launch = k->km->cluster_launch;
    o->cluster_dims_fixed = k->km->cluster_dims_fixed;
    /* the kernel's own limit (zeKernelGetProperties at creation), within the device's maxTotalGroupSize */
    uint32_t mt = S.cp.maxTotalGroupSize < 1024 ? S.cp.maxTotalGroupSize : 1024;
    if (k->max_threads && k->max_threads < mt) mt = k->max_threads;
    o->max_threads_per_block = mt ? mt : 1024;
}

enum { STAGE = 1 << 16 }; /* bytes of S.stage */

static CUresult ensure_stage(void) {
    if (!S.stage) {
        ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
        if (ze.zeMemAllocHost(S.ctx, &hd, STAGE, 64, &S.stage) != ZE_RESULT_SUCCESS) {
            S.stage = NULL;
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    return CUDA_SUCCESS;
}

/* n bytes of device memory at src (any USM or module-global address) through the staging buffer */
static CUresult read_dev(void *ctx, void *dst, uint64_t src, size_t n) {
    (void)ctx;
    CUresult sr = ensure_stage();
    if (sr != CUDA_SUCCESS) return sr;
    for (size_t done = 0; done < n;) {
        size_t c = n - done < STAGE ? n - done : STAGE;
        if (ze.zeCommandListAppendMemoryCopy(S.cl, S.stage, (const void *)(uintptr_t)(src + done), c, NULL, 0, NULL) !=
            ZE_RESULT_SUCCESS) {
            ze.zeCommandListReset(S.cl);
            return CUDA_ERROR_INVALID_VALUE;
        }
        CUresult cr = run_list();
        if (cr != CUDA_SUCCESS) return cr;
        memcpy((char *)dst + done, S.stage, c);
        done += c;
    }
    return CUDA_SUCCESS;
}

/* the error record and the heap are shared USM: the host writes and reads them directly */
static CUresult host_copy(void *dst, const void *src, size_t n) {
    memcpy(dst, src, n);
    return CUDA_SUCCESS;
}

static CUresult launch_locked(p2n_bk_kernel *k, const p2n_bk_launch *l, char **err) {
    const spirv_kernel_meta *km = k->km;
    ze_result_t r = ZE_RESULT_SUCCESS;
    if (k->bad_sg) {
        if (err) *err = p2n_bk_msg("%s: the Level Zero driver did not compile it with sub-groups of 32 (CUDA warps)",
                                   km->name);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    /* the device's limits first (ze_device_compute_properties_t; maxTotalGroupSize bounds X*Y*Z), so that
     * zeKernelSetGroupSize/AppendLaunchKernel see only valid sizes and the message names the cause */
    if (l->grid[0] > S.cp.maxGroupCountX || l->grid[1] > S.cp.maxGroupCountY || l->grid[2] > S.cp.maxGroupCountZ ||
        l->block[0] > S.cp.maxGroupSizeX || l->block[1] > S.cp.maxGroupSizeY || l->block[2] > S.cp.maxGroupSizeZ ||
        (uint64_t)l->block[0] * l->block[1] * l->block[2] > S.cp.maxTotalGroupSize) {
        if (err) *err = p2n_bk_msg("launch of %s exceeds the device's group count or size limits", km->name);
        return CUDA_ERROR_INVALID_VALUE;
    }
    void *rec = k->m->rec;
    if (rec) {
        /* the device heap (header: spirv_meta.h); kernels reach it through indirect access
         * (zeKernelSetIndirectAccess DEVICE|HOST|SHARED at kernel creation). Lives as long as the backend. */
        if (k->m->meta.heap && !S.heap) {
            CUresult cr = p2n_spv_heap_create(l0_mem_alloc, l0_mem_free, host_copy, &S.heap, err);
            if (cr != CUDA_SUCCESS) return cr;
        }
        p2n_spv_record_prepare(rec, l, k->m->meta.heap ? S.heap : NULL, host_copy);
    }
    p2n_spv_args args;
    p2n_spv_launch_args(km, l, rec, NULL, &args);
    for (unsigned i = 0; i < args.n && r == ZE_RESULT_SUCCESS; i++) {
        const p2n_spv_arg *a = &args.a[i];
        /* a pointer argument's value is the pointer */
        r = ze.zeKernelSetArgumentValue(k->k, i, a->size, a->kind == P2N_SPV_ARG_POINTER ? (const void *)&a->ptr
                                                                                         : a->value);
    }
    if (r == ZE_RESULT_SUCCESS) r = ze.zeKernelSetGroupSize(k->k, l->block[0], l->block[1], l->block[2]);
    if (r != ZE_RESULT_SUCCESS) {
        if (err) *err = p2n_bk_msg("Level Zero kernel setup failed (0x%x)", (unsigned)r);
        return CUDA_ERROR_INVALID_VALUE;
    }
    ze_group_count_t gc = {l->grid[0], l->grid[1], l->grid[2]};
    r = ze.zeCommandListAppendLaunchKernel(S.cl, k->k, &gc, NULL, 0, NULL);
    if (r != ZE_RESULT_SUCCESS) {
        ze.zeCommandListReset(S.cl);
        if (err) *err = p2n_bk_msg("zeCommandListAppendLaunchKernel of %s failed (0x%x)", km->name, (unsigned)r);
        return CUDA_ERROR_LAUNCH_FAILED;
    }
    CUresult cr = run_list();
    if (cr != CUDA_SUCCESS) {
        if (err) *err = p2n_bk_msg("Level Zero launch of %s failed (0x%x)", km->name, (unsigned)S.last);
        return cr;
    }
    /* the first trap/assert of the grid left its record: read and clear it, report like the OpenCL backend and the
     * CPU runtime */
    return p2n_spv_record_check(rec, km->name, host_copy, host_copy, read_dev, err);
}

/* Copies and fills. cuMemAlloc memory is shared USM, which the host reaches, but module globals
 * (zeModuleGetGlobalPointer) are only promised to the device, and a command-list copy may only touch memory
 * the device can access (spec: zeCommandListAppendMemoryCopy), not malloc'ed host memory. So: shared/host USM
 * on both sides is copied by the CPU; otherwise through the command list, host bytes staged in S.stage. */
static bool host_reaches(uint64_t p) {
    ze_memory_allocation_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    ze_device_handle_t d = NULL;
    if (ze.zeMemGetAllocProperties(S.ctx, (const void *)(uintptr_t)p, &mp, &d) != ZE_RESULT_SUCCESS) return false;
    return mp.type == ZE_MEMORY_TYPE_SHARED || mp.type == ZE_MEMORY_TYPE_HOST;
}

static CUresult append_copy(void *dst, const void *src, size_t n) {
    if (ze.zeCommandListAppendMemoryCopy(S.cl, dst, src, n, NULL, 0, NULL) != ZE_RESULT_SUCCESS) {
        ze.zeCommandListReset(S.cl);
        return CUDA_ERROR_INVALID_VALUE;
    }
    return run_list();
}

static CUresult l0_htod(uint64_t dst, const void *src, size_t n) {
    if (host_reaches(dst)) { memmove((void *)(uintptr_t)dst, src, n); return CUDA_SUCCESS; }
    pthread_mutex_lock(&S.lock);
    CUresult cr = ensure_stage();
    for (size_t done = 0; cr == CUDA_SUCCESS && done < n;) {
        size_t c = n - done < STAGE ? n - done : STAGE;
        memcpy(S.stage, (const char *)src + done, c);
        cr = append_copy((void *)(uintptr_t)(dst + done), S.stage, c);
        done += c;
    }
    pthread_mutex_unlock(&S.lock);
    return cr;
}

static CUresult l0_dtoh(void *dst, uint64_t src, size_t n) {
    if (host_reaches(src)) { memmove(dst, (const void *)(uintptr_t)src, n); return CUDA_SUCCESS; }
    pthread_mutex_lock(&S.lock);
    CUresult cr = read_dev(NULL, dst, src, n);
    pthread_mutex_unlock(&S.lock);
    return cr;
}

static CUresult l0_dtod(uint64_t dst, uint64_t src, size_t n) {
    if (host_reaches(dst) && host_reaches(src)) {
        memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
        return CUDA_SUCCESS;
    }
    pthread_mutex_lock(&S.lock); /* both are device-accessible (USM or module globals) */
    CUresult cr = append_copy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    pthread_mutex_unlock(&S.lock);
    return cr;
}

static CUresult l0_memset(uint64_t dst, const void *pattern, unsigned ps, size_t count) {
    if (host_reaches(dst)) {
        for (size_t i = 0; i < count; i++) memcpy((char *)(uintptr_t)dst + i * ps, pattern, ps);
        return CUDA_SUCCESS;
    }
    pthread_mutex_lock(&S.lock); /* spec: the pattern size is a power of two up to the device's maximum */
    CUresult cr = CUDA_ERROR_INVALID_VALUE;
    if (ze.zeCommandListAppendMemoryFill(S.cl, (void *)(uintptr_t)dst, pattern, ps, count * ps, NULL, 0, NULL) ==
        ZE_RESULT_SUCCESS)
        cr = run_list();
    else
        ze.zeCommandListReset(S.cl);
    pthread_mutex_unlock(&S.lock);
    return cr;
}

static CUresult l0_launch(p2n_bk_kernel *k, const p2n_bk_launch *l, char **err) {
    pthread_mutex_lock(&S.lock); /* one command list and per-kernel argument state: see S.lock */
    CUresult cr = launch_locked(k, l, err);
    pthread_mutex_unlock(&S.lock);
    return cr;
}

const p2n_backend_ops p2n_backend_level0 = {
    .name = "level0",
    .code_arch = "spirv64",
    .init = l0_init,
    .device_count = l0_device_count,
    .mem_alloc = l0_mem_alloc,
    .mem_free = l0_mem_free,
    .mem_host_alloc = l0_host_alloc,
    .mem_host_free = l0_mem_free,
    .memcpy_htod = l0_htod,
    .memcpy_dtoh = l0_dtoh,
    .memcpy_dtod = l0_dtod,
    .memset = l0_memset,
    .module_load = l0_module_load,
    .module_unload = l0_module_unload,
    .module_get_kernel = l0_get_kernel,
    .module_get_global = l0_get_global,
    .kernel_info = l0_kernel_info,
    .launch = l0_launch,
    .synchronize = NULL,
};
