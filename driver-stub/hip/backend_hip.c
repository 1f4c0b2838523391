/* backend_hip.c — P2N_BACKEND=hip: runs ptx2native's AMDGPU code objects (docs/amdgpu.md) on AMD GPUs through
 * ROCm's HIP runtime. libamdhip64.so.5 (Debian libamdhip64-5, HIP 5.2 ABI: hipGetDeviceProperties and its
 * hipDeviceProp_t are those of /usr/include/hip) is dlopen'ed; nothing of ROCm is linked. $P2N_HIP_LIBRARY
 * names another file (tests: tests/hip/ builds a stand-in that runs kernels on tinygrad's ISA emulator).
 *
 *  - Code: the stub hands over a code object for `code_arch`, the processor of the device's gcnArchName
 *    ("gfx90a" of "gfx90a:sramecc+:xnack-"): the `.p2n_native` entry of that name or PTX JIT-compiled for it.
 *    module_load checks the object against the full gcnArchName the way ROCm's loader does (amd_compatible:
 *    same processor; xnack/sramecc "any" or unsupported, or equal to the device's setting); a mismatch is
 *    CUDA_ERROR_NO_BINARY_FOR_GPU with both names.
 *  - Kernel ABI: explicit kernel arguments = the PTX parameter buffer (+ the trailing __p2n_launch_flags word of
 *    kernels that read it); the metadata note tells parameters from padding (arguments named __p2n_pad*) and
 *    gives the flags word's offset. Launches pass the explicit bytes with HIP_LAUNCH_PARAM_BUFFER_POINTER: the
 *    HIP runtime appends every hidden argument the metadata lists (block counts, group sizes, heap, hostcall
 *    buffer for printf, ...), as for any clang-compiled kernel.
 *  - Memory: hipMalloc (device memory, not host-accessible: host_access = 0, every copy/fill goes through
 *    hipMemcpy/hipMemset*); pinned host memory hipHostMalloc.
 *  - Launches are synchronous inside the backend (hipModuleLaunchKernel on the null stream +
 *    hipDeviceSynchronize): backend.h has no stream hooks (created streams are asynchronous to the host one level
 *    up, stream_queue.c); errors of the grid come from hipDeviceSynchronize.
 *  - Device-side errors: a trapping, asserting or faulting lane of our code writes the module's error record (abi/
 *    error_record.h, targets/amdgpu/amdgpu_report_errors.c) and its wave ends; after a launch of a kernel whose
 *    kinfo says it may (P2N_KERNEL_REPORTS_ERRORS) the record is read and cleared and reported as on the CPU
 *    backend (error_report.c: CUDA_ERROR_ASSERT with the assert's line, LAUNCH_FAILED, ILLEGAL_ADDRESS, ...). The
 *    strings it names are read from the backend's copy of the code object, not from the device.
 * Reviewed against the HIP 5.2 headers: docs/hip-review.md. UNTESTED on AMD hardware; tested end to end on the
 * emulator stand-in (tests/hip/README.md). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#include "../backend.h"
#include "../error_report.h"
#include "amd_codeobj.h"
#include "host_abi.h"

#define HIPFNS(X)                                                                                                 \
    X(hipInit) X(hipGetDeviceCount) X(hipGetDeviceProperties) X(hipSetDevice) X(hipMalloc) X(hipFree)             \
    X(hipHostMalloc) X(hipHostFree) X(hipMemcpy) X(hipMemsetD8) X(hipMemsetD16) X(hipMemsetD32)                  \
    X(hipModuleLoadData) X(hipModuleUnload) X(hipModuleGetFunction) X(hipModuleGetGlobal)                         \
    X(hipModuleLaunchKernel) X(hipDeviceSynchronize) X(hipGetErrorName)

static struct {
#define DECL(f) __typeof__(f) *f;
    HIPFNS(DECL)
#undef DECL
} hip;

static struct {
    void *lib;
    char arch[64];          /* processor: the code arch ("gfx1100") */
    char gcn[256];          /* gcnArchName with features */
    size_t lds;             /* sharedMemPerBlock */
    pthread_mutex_t lock;   /* launch + synchronize as one step */
} S = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct p2n_bk_kernel {
    hipFunction_t f;
    const amd_kernel *ak;
    unsigned nparams;
    uint32_t *offs, *sizes;
    uint32_t param_bytes;   /* PTX parameter buffer */
    uint32_t explicit_bytes;/* explicit kernel arguments (PTX buffer, padding, launch flags) */
    int flags_off;          /* offset of __p2n_launch_flags, -1 when the kernel has none */
    struct p2n_bk_module *mod;
    struct p2n_bk_kernel *next;
};
struct p2n_bk_module {
    hipModule_t mod;
    amd_meta meta;
    struct p2n_bk_kernel *kernels;
    uint64_t rec;           /* device address of the error record, 0 when the code object has none */
    uint64_t rec_vaddr;     /* its address in the code object */
    uint8_t *image;         /* a copy of the code object (the record's strings), with the record */
    size_t image_size;
};

static const char *ename(hipError_t e)
{
    const char *s = hip.hipGetErrorName ? hip.hipGetErrorName(e) : NULL;
    return s ? s : "?";
}

/* HIP's error codes (hip_runtime_api.h hipError_t) → the CUresult a CUDA program expects for the same event */
static CUresult cu_of(hipError_t e)
{
    switch (e) {
    case hipSuccess: return CUDA_SUCCESS;
    case hipErrorInvalidValue: return CUDA_ERROR_INVALID_VALUE;
    case hipErrorOutOfMemory: return CUDA_ERROR_OUT_OF_MEMORY;
    case hipErrorNotInitialized: return CUDA_ERROR_NOT_INITIALIZED;
    case hipErrorNoDevice: return CUDA_ERROR_NO_DEVICE;
    case hipErrorInvalidDevice: return CUDA_ERROR_INVALID_DEVICE;
    case hipErrorInvalidImage: return CUDA_ERROR_INVALID_IMAGE;
    case hipErrorNoBinaryForGpu: return CUDA_ERROR_NO_BINARY_FOR_GPU;
    case hipErrorNotFound: return CUDA_ERROR_NOT_FOUND;
    case hipErrorIllegalAddress: return CUDA_ERROR_ILLEGAL_ADDRESS;
    case hipErrorLaunchOutOfResources: return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    case hipErrorLaunchTimeOut: return CUDA_ERROR_LAUNCH_TIMEOUT;
    case hipErrorAssert: return CUDA_ERROR_ASSERT;
    case hipErrorNotSupported: return CUDA_ERROR_NOT_SUPPORTED;
    case hipErrorInvalidConfiguration: return CUDA_ERROR_INVALID_VALUE;
    case hipErrorLaunchFailure: return CUDA_ERROR_LAUNCH_FAILED;
    default: return CUDA_ERROR_LAUNCH_FAILED; /* hipErrorUnknown, hipErrorIllegalState, a lost device... */
    }
}

static CUresult hip_init(p2n_bk_device_info *info, char **err)
{
    const char *lib = getenv("P2N_HIP_LIBRARY");
    if (!lib || !*lib)
        lib = "libamdhip64.so.5";
    S.lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!S.lib) {
        if (err) *err = p2n_bk_msg("cannot load %s (ROCm's HIP runtime, package libamdhip64-5): %s", lib, dlerror());
        return CUDA_ERROR_NO_DEVICE;
    }
#define LOAD(f)                                                                                                   \
    if (!(hip.f = (__typeof__(f) *)dlsym(S.lib, #f))) {                                                           \
        if (err) *err = p2n_bk_msg("%s lacks %s (a HIP 5.x runtime is needed)", lib, #f);                        \
        return CUDA_ERROR_NO_DEVICE;                                                                              \
    }
    HIPFNS(LOAD)
#undef LOAD
    int n = 0;
    hipError_t e = hip.hipInit(0);
    if (e == hipSuccess)
        e = hip.hipGetDeviceCount(&n);
    if (e != hipSuccess || n < 1) {
        if (err) *err = p2n_bk_msg("no AMD GPU through HIP (%s: hipInit/hipGetDeviceCount: %s, %d devices)", lib,
                                   e == hipSuccess ? "hipSuccess" : ename(e), n);
        return CUDA_ERROR_NO_DEVICE;
    }
    hipDeviceProp_t p;
    memset(&p, 0, sizeof p);
    if ((e = hip.hipSetDevice(0)) != hipSuccess || (e = hip.hipGetDeviceProperties(&p, 0)) != hipSuccess) {
        if (err) *err = p2n_bk_msg("HIP device 0: hipSetDevice/hipGetDeviceProperties failed: %s", ename(e));
        return CUDA_ERROR_NO_DEVICE;
    }
    p.gcnArchName[sizeof p.gcnArchName - 1] = 0;
    p.name[sizeof p.name - 1] = 0;
    snprintf(S.gcn, sizeof S.gcn, "%s", p.gcnArchName);
    int xn, se;
    amd_parse_arch_name(S.gcn, S.arch, sizeof S.arch, &xn, &se);
    if (strncmp(S.arch, "gfx", 3) != 0) {
        if (err) *err = p2n_bk_msg("HIP device 0 '%s' has no gfx architecture name ('%s')", p.name, p.gcnArchName);
        return CUDA_ERROR_NO_DEVICE;
    }
    /* the processors ptx2native compiles for (docs/amdgpu.md): on any other there can be neither JIT nor
     * `.p2n_native` code (only this compiler writes it), so no CUDA device; "auto" then goes on to the next backend */
    static const char *const ours[] = {"gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1101", "gfx1102",
                                       "gfx1200", "gfx1201"};
    int known = 0;
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
        known |= strcmp(S.arch, ours[i]) == 0;
    if (!known) {
        if (err) *err = p2n_bk_msg("HIP device 0 '%s' is %s: ptx2native compiles for gfx90a, gfx942, gfx950, gfx1030, "
                                   "gfx1100-gfx1102, gfx1200 and gfx1201 only", p.name, S.gcn);
        return CUDA_ERROR_NO_DEVICE;
    }
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%.170s (HIP, ptx2native; %.60s)", p.name, S.gcn);
    info->total_mem = p.totalGlobalMem;
    info->multiprocessor_count = p.multiProcessorCount;
    info->clock_rate_khz = p.clockRate;
    info->max_threads_per_block = p.maxThreadsPerBlock > 1024 || p.maxThreadsPerBlock <= 0 ? 1024 : p.maxThreadsPerBlock;
    S.lds = p.sharedMemPerBlock;
    info->max_shared_per_block = p.sharedMemPerBlock < 49152 ? (int)p.sharedMemPerBlock : 49152;
    info->max_shared_per_block_optin = (int)p.sharedMemPerBlock;
    info->max_shared_per_sm = p.maxSharedMemoryPerMultiProcessor ? (int)p.maxSharedMemoryPerMultiProcessor
                                                                 : (int)p.sharedMemPerBlock;
    info->warp_size = 32;   /* CUDA warps: one per wave32, two per wave64 (docs/amdgpu.md) */
    info->integrated = p.integrated;
    info->host_access = 0;  /* hipMalloc memory: copies go through HIP */
    info->reads_host_memory = 0;   /* hipHostRegister is not wired */
    /* hipDeviceProp_t (5.2) has no UUID: derive one from the PCI location and the name */
    uint64_t h = 1469598103934665603ull;
    for (const char *s = p.name; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
    h ^= (uint64_t)(unsigned)p.pciDomainID << 40 ^ (uint64_t)(unsigned)p.pciBusID << 20 ^ (unsigned)p.pciDeviceID;
    memcpy(info->uuid, &h, 8);
    memcpy(info->uuid + 8, "p2n-hip\0", 8);
    info->device_lacks = 0;
    /* a kernel the target cannot compile fails at its launch (a trapping stub, defer_unsupported.c), not the module:
     * CUDA loads a module whatever its kernels do */
    info->defer_unsupported = 1;
    return CUDA_SUCCESS;
}

static int hip_device_count(void) { return 1; }

static CUresult hip_mem_alloc(size_t size, void **out)
{
    *out = NULL;
    hipError_t e = hip.hipMalloc(out, size ? size : 1);
    return e == hipSuccess ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
static void hip_mem_free(void *p) { if (p) hip.hipFree(p); }
static CUresult hip_host_alloc(size_t size, void **out)
{
    *out = NULL;
    return hip.hipHostMalloc(out, size ? size : 1, hipHostMallocDefault) == hipSuccess ? CUDA_SUCCESS
                                                                                        : CUDA_ERROR_OUT_OF_MEMORY;
}
static void hip_host_free(void *p) { if (p) hip.hipHostFree(p); }

static CUresult copy(void *dst, const void *src, size_t n, hipMemcpyKind kind)
{
    if (!n) return CUDA_SUCCESS;
    /* hipMemcpy is synchronous with respect to the host and ordered after earlier work of the null stream */
    hipError_t e = hip.hipMemcpy(dst, src, n, kind);
    return e == hipSuccess ? CUDA_SUCCESS : e == hipErrorInvalidValue ? CUDA_ERROR_INVALID_VALUE : cu_of(e);
}
static CUresult hip_htod(uint64_t dst, const void *src, size_t n)
{
    return copy((void *)(uintptr_t)dst, src, n, hipMemcpyHostToDevice);
}
static CUresult hip_dtoh(void *dst, uint64_t src, size_t n)
{
    return copy(dst, (const void *)(uintptr_t)src, n, hipMemcpyDeviceToHost);
}
static CUresult hip_dtod(uint64_t dst, uint64_t src, size_t n)
{
    return copy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n, hipMemcpyDeviceToDevice);
}
static CUresult hip_memset(uint64_t dst, const void *pattern, unsigned ps, size_t count)
{
    hipDeviceptr_t d = (hipDeviceptr_t)(uintptr_t)dst;
    hipError_t e;
    if (!count) return CUDA_SUCCESS;
    if (ps == 1) e = hip.hipMemsetD8(d, *(const uint8_t *)pattern, count);
    else if (ps == 2) { uint16_t v; memcpy(&v, pattern, 2); e = hip.hipMemsetD16(d, v, count); }
    else if (ps == 4) { uint32_t v; memcpy(&v, pattern, 4); e = hip.hipMemsetD32(d, (int)v, count); }
    else return CUDA_ERROR_INVALID_VALUE;
    if (e == hipSuccess) e = hip.hipDeviceSynchronize(); /* hipMemsetD* may be asynchronous to the host */
    return cu_of(e);
}

static void hip_module_unload(p2n_bk_module *m);

/* our kinfo says code the kernel reaches may write the module's error record */
static int may_report(const amd_kernel *ak)
{
    return ak->has_kinfo && (ak->kinfo[P2N_AMD_KINFO_FLAGS] & P2N_KERNEL_REPORTS_ERRORS);
}

/* The module's error record (abi/error_record.h), when some kernel may report into it: its device address, and a
 * copy of the code object for the strings a report names */
static CUresult find_error_record(p2n_bk_module *m, const void *image, size_t size, char **err)
{
    int reports = 0;
    for (unsigned i = 0; i < m->meta.nkernels; i++)
        reports |= may_report(&m->meta.k[i]);
    uint64_t vaddr = 0, bytes = 0;
    if (!reports || !amd_symbol_address(image, size, P2N_AMD_ERROR_RECORD, &vaddr, &bytes)) return CUDA_SUCCESS;
    hipDeviceptr_t p = NULL;
    size_t n = 0;
    hipError_t e = hip.hipModuleGetGlobal(&p, &n, m->mod, P2N_AMD_ERROR_RECORD);
    if (e != hipSuccess || !p || n < P2N_REC_ERR_WORDS * 4) {
        if (err) *err = p2n_bk_msg("hipModuleGetGlobal(%s) failed: %s", P2N_AMD_ERROR_RECORD, ename(e));
        return CUDA_ERROR_INVALID_IMAGE;
    }
    if (!(m->image = malloc(size))) return CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(m->image, image, size);
    m->image_size = size;
    m->rec = (uint64_t)(uintptr_t)p;
    m->rec_vaddr = vaddr;
    return CUDA_SUCCESS;
}

/* p2n_rec_read_fn: n bytes at a device address of the module's code object, from the copy (the record's strings
 * are constants of the code object); anything else from the device */
static CUresult read_module(void *ctx, void *dst, uint64_t src, size_t n)
{
    const p2n_bk_module *m = ctx;
    uint64_t vaddr = src - m->rec + m->rec_vaddr;
    if (amd_read_vaddr(m->image, m->image_size, vaddr, dst, n)) return CUDA_SUCCESS;
    return copy(dst, (const void *)(uintptr_t)src, n, hipMemcpyDeviceToHost);
}

/* after a launch of k: the first failure its grid reported, read and cleared (S.lock held) */
static CUresult check_error_record(const p2n_bk_kernel *k, p2n_bk_module *m, char **err)
{
    if (!m->rec || !may_report(k->ak)) return CUDA_SUCCESS;
    uint32_t r[P2N_REC_ERR_WORDS];
    void *rec = (void *)(uintptr_t)m->rec;
    CUresult cr = copy(r, rec, sizeof r, hipMemcpyDeviceToHost);
    if (cr != CUDA_SUCCESS || !r[P2N_REC_CODE]) return cr;
    static const uint32_t zero[P2N_REC_ERR_WORDS];
    cr = copy(rec, zero, sizeof zero, hipMemcpyHostToDevice);
    CUresult rep = p2n_rec_report(r, k->ak->name, read_module, m, err);
    return rep != CUDA_SUCCESS ? rep : cr;
}

static CUresult hip_module_load(const void *image, size_t size, p2n_bk_module **out, char **err)
{
    char why[512];
    if (!amd_compatible(image, size, S.gcn, why, sizeof why)) {
        if (err) *err = p2n_bk_msg("no code object for this GPU: %s", why);
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    p2n_bk_module *m = calloc(1, sizeof *m);
    if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
    if (amd_read_meta(image, size, &m->meta, why, sizeof why) != 0) {
        free(m);
        if (err) *err = p2n_bk_msg("code object metadata: %s", why);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    for (unsigned i = 0; i < m->meta.nkernels; i++)
        m->meta.k[i].has_kinfo = amd_read_kinfo(image, size, m->meta.k[i].name, m->meta.k[i].kinfo);
    hipError_t e = hip.hipModuleLoadData(&m->mod, image);
    if (e != hipSuccess) {
        amd_meta_free(&m->meta);
        free(m);
        if (err) *err = p2n_bk_msg("hipModuleLoadData (%s, %zu bytes) failed: %s", S.gcn, size, ename(e));
        return e == hipErrorOutOfMemory ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    CUresult r = find_error_record(m, image, size, err);
    if (r != CUDA_SUCCESS) {
        hip_module_unload(m);
        return r;
    }
    *out = m;
    return CUDA_SUCCESS;
}

static void free_kernel(p2n_bk_kernel *k)
{
    free(k->offs);
    free(k->sizes);
    free(k);
}

static void hip_module_unload(p2n_bk_module *m)
{
    if (!m) return;
    for (p2n_bk_kernel *k = m->kernels, *n; k; k = n) {
        n = k->next;
        free_kernel(k);
    }
    hip.hipModuleUnload(m->mod);
    amd_meta_free(&m->meta);
    free(m->image);
    free(m);
}

static CUresult hip_get_kernel(p2n_bk_module *m, const char *name, p2n_bk_kernel **out)
{
    for (p2n_bk_kernel *k = m->kernels; k; k = k->next)
        if (strcmp(k->ak->name, name) == 0) { *out = k; return CUDA_SUCCESS; }
    const amd_kernel *ak = amd_meta_kernel(&m->meta, name);
    if (!ak) return CUDA_ERROR_NOT_FOUND;
    p2n_bk_kernel *k = calloc(1, sizeof *k);
    if (!k) return CUDA_ERROR_OUT_OF_MEMORY;
    k->ak = ak;
    k->mod = m;
    k->flags_off = -1;
    k->offs = calloc(ak->nargs + 1, sizeof *k->offs);
    k->sizes = calloc(ak->nargs + 1, sizeof *k->sizes);
    if (!k->offs || !k->sizes) { free_kernel(k); return CUDA_ERROR_OUT_OF_MEMORY; }
    for (unsigned i = 0; i < ak->nargs; i++) {
        const amd_arg *a = &ak->args[i];
        if (strncmp(a->kind, "hidden_", 7) == 0)
            continue; /* the runtime's */
        uint32_t end = a->offset + a->size;
        if (end > k->explicit_bytes) k->explicit_bytes = end;
        if (strncmp(a->name, AMD_ARG_PAD, strlen(AMD_ARG_PAD)) == 0)
            continue;
        if (strcmp(a->name, AMD_ARG_LAUNCH_FLAGS) == 0) { k->flags_off = (int)a->offset; continue; }
        k->offs[k->nparams] = a->offset;
        k->sizes[k->nparams++] = a->size;
        if (end > k->param_bytes) k->param_bytes = end;
    }
    hipError_t e = hip.hipModuleGetFunction(&k->f, m->mod, name);
    if (e != hipSuccess) { free_kernel(k); return e == hipErrorNotFound ? CUDA_ERROR_NOT_FOUND : cu_of(e); }
    k->next = m->kernels;
    m->kernels = k;
    *out = k;
    return CUDA_SUCCESS;
}

static CUresult hip_get_global(p2n_bk_module *m, const char *name, uint64_t *addr, size_t *size)
{
    hipDeviceptr_t p = NULL;
    size_t n = 0;
    hipError_t e = hip.hipModuleGetGlobal(&p, &n, m->mod, name);
    if (e != hipSuccess) return CUDA_ERROR_NOT_FOUND;
    *addr = (uint64_t)(uintptr_t)p;
    *size = n;
    return CUDA_SUCCESS;
}

static void hip_kernel_info(const p2n_bk_kernel *k, p2n_bk_kernel_info *out)
{
    memset(out, 0, sizeof *out);
    out->name = k->ak->name;
    out->num_params = k->nparams;
    out->param_offsets = k->offs;
    out->param_sizes = k->sizes;
    out->param_buffer_size = k->param_bytes;
    out->static_shared_bytes = k->ak->group_fixed;
    out->local_bytes = k->ak->private_fixed;
    out->max_threads_per_block = k->ak->max_flat_wg;
    out->num_regs = k->ak->vgpr_count;
    /* .reqntid per dimension and the cluster attributes: our constant beside the metadata (abi/amdgpu_kinfo.h);
     * without it (a code object not made by ptx2native-22 of this era) they stay 0: launches are not checked */
    const amd_kernel *ak = k->ak;
    if (ak->has_kinfo) {
        for (int d = 0; d < 3; d++) out->reqntid[d] = ak->kinfo[d];
        out->cluster_launch = (ak->kinfo[P2N_AMD_KINFO_FLAGS] & P2N_KERNEL_CLUSTER_LAUNCH) != 0;
        out->cluster_dims_fixed = (ak->kinfo[P2N_AMD_KINFO_FLAGS] & P2N_KERNEL_CLUSTER_DIMS) != 0;
    }
}

static CUresult hip_launch(p2n_bk_kernel *k, const p2n_bk_launch *l, char **err)
{
    const amd_kernel *ak = k->ak;
    if ((uint64_t)ak->group_fixed + l->dynamic_shared_bytes > S.lds) {
        if (err) *err = p2n_bk_msg("%s: %u bytes of static + %u of dynamic shared memory exceed the %zu bytes of LDS of %s",
                                   ak->name, ak->group_fixed, l->dynamic_shared_bytes, S.lds, S.gcn);
        return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    }
    size_t n = k->explicit_bytes ? k->explicit_bytes : 4;
    uint8_t *buf = calloc(1, n);
    if (!buf) return CUDA_ERROR_OUT_OF_MEMORY;
    if (l->params && k->param_bytes) memcpy(buf, l->params, k->param_bytes);
    if (k->flags_off >= 0 && (size_t)k->flags_off + 4 <= n) memcpy(buf + k->flags_off, &l->launch_flags, 4);
    void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, buf, HIP_LAUNCH_PARAM_BUFFER_SIZE, &n, HIP_LAUNCH_PARAM_END};
    pthread_mutex_lock(&S.lock);
    hipError_t e = hip.hipModuleLaunchKernel(k->f, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
                                             l->block[2], l->dynamic_shared_bytes, NULL, NULL, extra);
    int launched = e == hipSuccess;
    if (launched) e = hip.hipDeviceSynchronize();
    CUresult reported = e == hipSuccess ? check_error_record(k, k->mod, err) : CUDA_SUCCESS;
    pthread_mutex_unlock(&S.lock);
    free(buf);
    if (e == hipSuccess) return reported;
    CUresult r = cu_of(e);
    if (!launched && r == CUDA_ERROR_LAUNCH_FAILED) r = CUDA_ERROR_INVALID_VALUE; /* refused: not sticky */
    if (err)
        *err = p2n_bk_msg("%s of %s (%s) failed: %s", launched ? "the grid" : "hipModuleLaunchKernel", ak->name,
                          S.gcn, ename(e));
    return r;
}

static CUresult hip_synchronize(void) { return cu_of(hip.hipDeviceSynchronize()); }

/* code_arch points into S: the stub reads it after init (native lookup key, JIT arch) */
const p2n_backend_ops p2n_backend_hip = {
    .name = "hip",
    .code_arch = S.arch,
    .init = hip_init,
    .device_count = hip_device_count,
    .mem_alloc = hip_mem_alloc,
    .mem_free = hip_mem_free,
    .mem_host_alloc = hip_host_alloc,
    .mem_host_free = hip_host_free,
    .memcpy_htod = hip_htod,
    .memcpy_dtoh = hip_dtoh,
    .memcpy_dtod = hip_dtod,
    .memset = hip_memset,
    .module_load = hip_module_load,
    .module_unload = hip_module_unload,
    .module_get_kernel = hip_get_kernel,
    .module_get_global = hip_get_global,
    .kernel_info = hip_kernel_info,
    .launch = hip_launch,
    .synchronize = hip_synchronize,
};
