/* backend_opencl.c — P2N_BACKEND=opencl: runs ptx2native's SPIR-V (arch spirv64) through an OpenCL 2.x/3.0
 * platform that accepts IL (clCreateProgramWithIL). libOpenCL.so.1 is dlopen'ed, so libcuda.so.1 does not
 * depend on it. Device memory is SVM (clSVMAlloc): CUDA's raw 64-bit pointers are passed to kernels as
 * integers; fine-grained buffer SVM (PoCL's CPU device) makes them host-dereferenceable (host_access = 1),
 * coarse-grained SVM copies through clEnqueueSVMMemcpy. Kernel ABI: targets/spirv/spirv_lower.c. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend.h"
#include "../spirv_launch.h"
#include "spirv_null_fix.h"
#include "spirv_meta.h"
#include "ptx2native.h"

#define CLFNS(X)                                                                                                  \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo) X(clCreateContext)              \
    X(clCreateCommandQueueWithProperties) X(clCreateProgramWithIL) X(clBuildProgram) X(clGetProgramBuildInfo)     \
    X(clCreateKernel) X(clSetKernelArg) X(clSetKernelArgSVMPointer) X(clSetKernelExecInfo)                        \
    X(clEnqueueNDRangeKernel) X(clFinish) X(clSVMAlloc) X(clSVMFree) X(clEnqueueSVMMemcpy) X(clEnqueueSVMMemFill) \
    X(clReleaseProgram) X(clReleaseKernel) X(clGetKernelWorkGroupInfo)

static struct {
#define DECL(f) __typeof__(f) *f;
    CLFNS(DECL)
#undef DECL
} cl;

static struct {
    void *lib;
    cl_platform_id plat;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    int fine, system, is_pocl;   /* fine-grained buffer SVM; fine-grained system SVM */
    pthread_mutex_t lock;
    void **allocs;
    size_t nallocs, cap;
    void *heap; /* device malloc/free (targets/spirv/spirv_heap.c), built at the first launch that needs it */
} S = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct p2n_bk_module {
    cl_program prog;
    spirv_module_meta meta;
    uint64_t *gaddr;
    uint32_t *trap_rec; /* SVM error record passed to every kernel of a trapping module (meta "p2n:trap"), or NULL */
    void *gbuf;         /* the module variables (meta "p2n:gbuf", P2N_LACKS_PROGRAM_GLOBALS), or NULL */
    struct p2n_bk_kernel *kernels; /* every kernel handed out (module.c asks once per name), released on unload */
};
struct p2n_bk_kernel {
    cl_kernel k;
    const spirv_kernel_meta *km;
    p2n_bk_module *mod;
    uint32_t wgmax;
    struct p2n_bk_kernel *next;
};


/* What ptx2native must not expect of this device (P2N_LACKS_*). Warp operations are sub-group operations of
 * size 32: they need cl_khr_subgroups / cl_intel_subgroups with 32 among the sizes (Intel's query), or, without
 * that query, a device reporting sub-groups at all. A CPU device (PoCL) runs the work-items of a group one after
 * another between barriers, so a work-item waiting for another's store without a barrier never returns. */
static unsigned device_lacks(cl_device_id dev) {
    unsigned lacks = 0;
    size_t n = 0;
    char *ext = NULL;
    if (cl.clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &n) == CL_SUCCESS && (ext = calloc(1, n + 1)))
        cl.clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, n, ext, NULL);
    bool sg = ext && (strstr(ext, "cl_khr_subgroups") || strstr(ext, "cl_intel_subgroups"));
    free(ext);
    size_t sizes[32];
    size_t got = 0;
    bool has32 = false;
    if (sg && cl.clGetDeviceInfo(dev, 0x4108 /* CL_DEVICE_SUB_GROUP_SIZES_INTEL */, sizeof sizes, sizes, &got) ==
                  CL_SUCCESS) {
        for (size_t i = 0; i < got / sizeof *sizes; i++) has32 |= sizes[i] == 32;
    } else if (sg) {
        cl_uint maxsg = 0;
        cl.clGetDeviceInfo(dev, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof maxsg, &maxsg, NULL);
        has32 = maxsg > 0;
    }
    if (!has32) lacks |= P2N_LACKS_SUBGROUPS;
    /* work-group collectives: mandatory in OpenCL 2.x, optional in 3.0 (PoCL 3.1: the query fails) */
    char ver[128] = "";
    cl_bool wgc = CL_FALSE;
    cl.clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof ver, ver, NULL);
    if (!strncmp(ver, "OpenCL 3.", 9) &&
        (cl.clGetDeviceInfo(dev, 0x1073 /* CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT */, sizeof wgc, &wgc,
                            NULL) != CL_SUCCESS || !wgc))
        lacks |= P2N_LACKS_WG_COLLECTIVES;
    cl_device_type type = 0;
    cl.clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    if (type & CL_DEVICE_TYPE_CPU) lacks |= P2N_LACKS_FORWARD_PROGRESS;
    /* a fault on a CPU device's worker thread kills the process; null-page checks turn a null-pointer access into
     * CUDA_ERROR_ILLEGAL_ADDRESS, but they cost 2-4x on streaming kernels (docs/spirv.md), so they are a debugging
     * aid that P2N_OPENCL_FAULT_CHECKS=1 turns on, not the default */
    const char *fc = getenv("P2N_OPENCL_FAULT_CHECKS");
    if ((type & CL_DEVICE_TYPE_CPU) && fc && !strcmp(fc, "1")) lacks |= P2N_LACKS_FAULT_ISOLATION;
    /* PoCL's CPU device: to_private/to_local are plain casts (isspacep.local by the local window instead) */
    if ((type & CL_DEVICE_TYPE_CPU) && S.is_pocl) lacks |= P2N_LACKS_SPACE_QUERY;
    /* program-scope variables (OpenCL 3.0 optional; PoCL 3.1 reports 0 and gives each kernel its own copy) */
    size_t gvmax = 0;
    if (cl.clGetDeviceInfo(dev, CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, sizeof gvmax, &gvmax, NULL) != CL_SUCCESS ||
        !gvmax)
        lacks |= P2N_LACKS_PROGRAM_GLOBALS;
    return lacks;
}

static CUresult ocl_init(p2n_bk_device_info *info, char **err) {
    S.lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!S.lib) { if (err) *err = p2n_bk_msg("cannot load libOpenCL.so.1: %s", dlerror()); return CUDA_ERROR_NO_DEVICE; }
#define LOAD(f)                                                                                                   \
    if (!(cl.f = (__typeof__(f) *)dlsym(S.lib, #f))) {                                                           \
        if (err) *err = p2n_bk_msg("libOpenCL.so.1 lacks %s (OpenCL 2.1+ ICD loader needed)", #f);                       \
        return CUDA_ERROR_NO_DEVICE;                                                                              \
    }
    CLFNS(LOAD)
#undef LOAD
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (cl.clGetPlatformIDs(16, plats, &np) != CL_SUCCESS || !np) {
        if (err) *err = p2n_bk_msg("no OpenCL platform (check OCL_ICD_VENDORS / installed ICDs)");
        return CUDA_ERROR_NO_DEVICE;
    }
    /* first device that takes SPIR-V and has SVM; GPUs first */
    for (int pass = 0; pass < 2 && !S.dev; pass++)
        for (cl_uint p = 0; p < np && !S.dev; p++) {
            cl_device_id devs[16];
            cl_uint nd = 0;
            if (cl.clGetDeviceIDs(plats[p], pass ? CL_DEVICE_TYPE_ALL : CL_DEVICE_TYPE_GPU, 16, devs, &nd) != CL_SUCCESS) continue;
            for (cl_uint i = 0; i < nd && !S.dev; i++) {
                char il[256] = "";
                cl_device_svm_capabilities svm = 0;
                cl.clGetDeviceInfo(devs[i], CL_DEVICE_IL_VERSION, sizeof il, il, NULL);
                cl.clGetDeviceInfo(devs[i], CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL);
                if (!strstr(il, "SPIR-V") || !svm) continue;
                S.dev = devs[i];
                S.plat = plats[p];
                S.fine = (svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
                S.system = (svm & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) != 0;
            }
        }
    if (!S.dev) {
        if (err) *err = p2n_bk_msg("no OpenCL device accepts SPIR-V (CL_DEVICE_IL_VERSION) with SVM");
        return CUDA_ERROR_NO_DEVICE;
    }
    char pname[256] = "";
    cl.clGetPlatformInfo(S.plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    S.is_pocl = strstr(pname, "Portable Computing Language") != NULL;
    cl_int e;
    S.ctx = cl.clCreateContext(NULL, 1, &S.dev, NULL, NULL, &e);
    if (!S.ctx) { if (err) *err = p2n_bk_msg("clCreateContext failed (%d)", e); return CUDA_ERROR_NO_DEVICE; }
    S.q = cl.clCreateCommandQueueWithProperties(S.ctx, S.dev, NULL, &e);
    if (!S.q) { if (err) *err = p2n_bk_msg("clCreateCommandQueue failed (%d)", e); return CUDA_ERROR_NO_DEVICE; }
    memset(info, 0, sizeof *info);
    char dname[200] = "";
    cl.clGetDeviceInfo(S.dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
    snprintf(info->name, sizeof info->name, "%s (OpenCL, ptx2native)", dname);
    cl_ulong mem = 0, lmem = 0;
    cl_uint cus = 1, clk = 1000;
    size_t wg = 1024;
    cl.clGetDeviceInfo(S.dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
    cl.clGetDeviceInfo(S.dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
    cl.clGetDeviceInfo(S.dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    cl.clGetDeviceInfo(S.dev, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof clk, &clk, NULL);
    cl.clGetDeviceInfo(S.dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    info->total_mem = mem;
    info->multiprocessor_count = (int)cus;
    info->clock_rate_khz = (int)clk * 1000;
    info->max_threads_per_block = wg > 1024 ? 1024 : (int)wg;
    info->max_shared_per_block = lmem < 49152 ? (int)lmem : 49152;
    info->max_shared_per_block_optin = (int)lmem;
    info->max_shared_per_sm = (int)lmem;
    info->warp_size = 32;
    info->integrated = S.fine;
    info->host_access = S.fine;
    info->reads_host_memory = S.system;   /* fine-grained system SVM: any host pointer is valid in a kernel */
    info->device_lacks = device_lacks(S.dev);
    info->defer_unsupported = 1; /* a kernel this device cannot run fails at its launch, not the module */
    return CUDA_SUCCESS;
}

static int ocl_device_count(void) { return 1; }

static void track(void *p, int add) {
    pthread_mutex_lock(&S.lock);
    if (add) {
        if (S.nallocs == S.cap) {
            S.cap = S.cap ? 2 * S.cap : 64;
            S.allocs = realloc(S.allocs, S.cap * sizeof *S.allocs);
        }
        S.allocs[S.nallocs++] = p;
    } else {
        for (size_t i = 0; i < S.nallocs; i++)
            if (S.allocs[i] == p) { S.allocs[i] = S.allocs[--S.nallocs]; break; }
    }
    pthread_mutex_unlock(&S.lock);
}

static CUresult ocl_mem_alloc(size_t size, void **out) {
    void *p = cl.clSVMAlloc(S.ctx, CL_MEM_READ_WRITE | (S.fine ? CL_MEM_SVM_FINE_GRAIN_BUFFER : 0), size ? size : 1, 128); /* PoCL refuses alignments above 128 */
    if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
    track(p, 1);
    *out = p;
    return CUDA_SUCCESS;
}
static void ocl_mem_free(void *p) {
    if (!p) return;
    track(p, 0);
    cl.clSVMFree(S.ctx, p);
}
static CUresult cpy(void *dst, const void *src, size_t n) {
    return cl.clEnqueueSVMMemcpy(S.q, CL_TRUE, dst, src, n, 0, NULL, NULL) == CL_SUCCESS ? CUDA_SUCCESS
                                                                                         : CUDA_ERROR_INVALID_VALUE;
}
static CUresult ocl_htod(uint64_t dst, const void *src, size_t n) { return cpy((void *)(uintptr_t)dst, src, n); }
static CUresult ocl_dtoh(void *dst, uint64_t src, size_t n) { return cpy(dst, (const void *)(uintptr_t)src, n); }
static CUresult ocl_dtod(uint64_t dst, uint64_t src, size_t n) { return cpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n); }
static CUresult ocl_memset(uint64_t dst, const void *pat, unsigned ps, size_t count) {
    cl_int e = cl.clEnqueueSVMMemFill(S.q, (void *)(uintptr_t)dst, pat, ps, count * ps, 0, NULL, NULL);
    if (e == CL_SUCCESS) e = cl.clFinish(S.q);
    return e == CL_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
static CUresult ocl_host_alloc(size_t size, void **out) {
    /* pinned host memory: host-dereferenceable and kernel-visible only with fine-grained SVM */
    if (S.fine) return ocl_mem_alloc(size, out);
    *out = calloc(1, size ? size : 1);
    return *out ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
static void ocl_host_free(void *p) {
    if (S.fine) ocl_mem_free(p);
    else free(p);
}

static void set_svm_ptrs(cl_kernel k) {
    pthread_mutex_lock(&S.lock);
    if (S.nallocs) cl.clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, S.nallocs * sizeof(void *), S.allocs);
    pthread_mutex_unlock(&S.lock);
}

static CUresult ocl_module_load(const void *image, size_t size, p2n_bk_module **out, char **err) {
    if (size % 4 || size < 20 || *(const uint32_t *)image != 0x07230203) {
        if (err) *err = p2n_bk_msg("not a SPIR-V module (the opencl backend loads arch spirv64 code)");
        return CUDA_ERROR_INVALID_IMAGE;
    }
    p2n_bk_module *m = calloc(1, sizeof *m);
    if (!spirv_read_meta(image, size / 4, &m->meta)) {
        free(m);
        if (err) *err = p2n_bk_msg("SPIR-V module without ptx2native kernel metadata");
        return CUDA_ERROR_INVALID_IMAGE;
    }
    const void *il = image;
    uint32_t *fixed = NULL;
    size_t nfixed = size / 4;
    if (S.is_pocl || getenv("P2N_SPIRV_NULL_FIX")) {
        /* PoCL 3.1 reads SPIR-V through llvm-spirv-15, which rejects scalar OpConstantNull */
        fixed = spirv_fix_scalar_nulls(image, size / 4, &nfixed, NULL);
        if (fixed) il = fixed;
    }
    cl_int e;
    m->prog = cl.clCreateProgramWithIL(S.ctx, il, nfixed * 4, &e);
    free(fixed);
    if (!m->prog) {
        spirv_meta_free(&m->meta);
        free(m);
        if (err) *err = p2n_bk_msg("clCreateProgramWithIL failed (%d)", e);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    e = cl.clBuildProgram(m->prog, 1, &S.dev, "", NULL, NULL);
    if (e != CL_SUCCESS) {
        size_t ln = 0;
        cl.clGetProgramBuildInfo(m->prog, S.dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &ln);
        char *log = calloc(1, ln + 1);
        cl.clGetProgramBuildInfo(m->prog, S.dev, CL_PROGRAM_BUILD_LOG, ln, log, NULL);
        if (err) *err = p2n_bk_msg("OpenCL build of the SPIR-V failed (%d): %.800s", e, log);
        free(log);
        cl.clReleaseProgram(m->prog);
        spirv_meta_free(&m->meta);
        free(m);
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    if (m->meta.gbuf_bytes) {
        /* module variables in one buffer (targets/spirv/spirv_globals.c); __p2n_globals initialises it */
        m->gbuf = cl.clSVMAlloc(S.ctx, CL_MEM_READ_WRITE | (S.fine ? CL_MEM_SVM_FINE_GRAIN_BUFFER : 0),
                                m->meta.gbuf_bytes, 128);
        if (!m->gbuf) {
            cl.clReleaseProgram(m->prog);
            spirv_meta_free(&m->meta);
            free(m);
            if (err) *err = p2n_bk_msg("cannot allocate the module's variables");
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    if (m->meta.nglobals || m->gbuf) {
        /* addresses of module-scope globals: the __p2n_globals kernel writes them */
        cl_kernel gk = cl.clCreateKernel(m->prog, "__p2n_globals", &e);
        uint64_t *buf = cl.clSVMAlloc(S.ctx, CL_MEM_READ_WRITE | (S.fine ? CL_MEM_SVM_FINE_GRAIN_BUFFER : 0),
                                      8 * m->meta.nglobals + 8, 64);
        m->gaddr = calloc(m->meta.nglobals + 1, 8);
        size_t one = 1;
        if (!gk || !buf || cl.clSetKernelArgSVMPointer(gk, 0, buf) != CL_SUCCESS ||
            (m->gbuf && cl.clSetKernelArgSVMPointer(gk, 1, m->gbuf) != CL_SUCCESS) ||
            cl.clEnqueueNDRangeKernel(S.q, gk, 1, NULL, &one, &one, 0, NULL, NULL) != CL_SUCCESS ||
            (m->meta.nglobals && cpy(m->gaddr, buf, 8 * m->meta.nglobals) != CUDA_SUCCESS)) { /* OpenCL refuses 0-byte copies */
            if (err) *err = p2n_bk_msg("cannot query the module's global addresses");
            if (m->gbuf) { /* the variables were not initialised: the module cannot run */
                if (gk) cl.clReleaseKernel(gk);
                if (buf) cl.clSVMFree(S.ctx, buf);
                cl.clSVMFree(S.ctx, m->gbuf);
                cl.clReleaseProgram(m->prog);
                spirv_meta_free(&m->meta);
                free(m->gaddr);
                free(m);
                return CUDA_ERROR_INVALID_IMAGE;
            }
        }
        if (gk) cl.clReleaseKernel(gk);
        if (buf) cl.clSVMFree(S.ctx, buf);
    }
    if (m->meta.trap_arg) {
        /* the trap/assert record (targets/spirv/spirv_trap.c): a hidden trailing argument of every kernel */
        m->trap_rec = cl.clSVMAlloc(S.ctx, CL_MEM_READ_WRITE | (S.fine ? CL_MEM_SVM_FINE_GRAIN_BUFFER : 0),
                                    SPIRV_REC_BYTES, 64);
        uint32_t zero[SPIRV_REC_BYTES / 4] = {0};
        if (!m->trap_rec || cpy(m->trap_rec, zero, sizeof zero) != CUDA_SUCCESS) {
            if (m->trap_rec) cl.clSVMFree(S.ctx, m->trap_rec);
            if (m->gbuf) cl.clSVMFree(S.ctx, m->gbuf);
            cl.clReleaseProgram(m->prog);
            spirv_meta_free(&m->meta);
            free(m->gaddr);
            free(m);
            if (err) *err = p2n_bk_msg("cannot allocate the module's trap record");
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    *out = m;
    return CUDA_SUCCESS;
}

static void ocl_module_unload(p2n_bk_module *m) {
    if (!m) return;
    for (p2n_bk_kernel *k = m->kernels, *nk; k; k = nk) {
        nk = k->next;
        cl.clReleaseKernel(k->k);
        free(k);
    }
    cl.clReleaseProgram(m->prog);
    if (m->trap_rec) cl.clSVMFree(S.ctx, m->trap_rec);
    if (m->gbuf) cl.clSVMFree(S.ctx, m->gbuf);
    spirv_meta_free(&m->meta);
    free(m->gaddr);
    free(m);
}

static CUresult ocl_get_kernel(p2n_bk_module *m, const char *name, p2n_bk_kernel **out) {
    for (unsigned i = 0; i < m->meta.nkernels; i++) {
        if (strcmp(m->meta.kernels[i].name, name)) continue;
        cl_int e;
        cl_kernel k = cl.clCreateKernel(m->prog, name, &e);
        if (!k) return CUDA_ERROR_NOT_FOUND;
        p2n_bk_kernel *bk = calloc(1, sizeof *bk);
        bk->k = k;
        bk->km = &m->meta.kernels[i];
        bk->mod = m;
        size_t wg = 1024;
        cl.clGetKernelWorkGroupInfo(k, S.dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
        bk->wgmax = wg > 1024 ? 1024 : (uint32_t)wg;
        bk->next = m->kernels; /* owned by the module: released by ocl_module_unload */
        m->kernels = bk;
        *out = bk;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_NOT_FOUND;
}

static CUresult ocl_get_global(p2n_bk_module *m, const char *name, uint64_t *addr, size_t *size) {
    for (unsigned i = 0; i < m->meta.nglobals; i++)
        if (!strcmp(m->meta.globals[i].name, name)) {
            if (!m->gaddr) return CUDA_ERROR_NOT_FOUND;
            if (addr) *addr = m->gaddr[m->meta.globals[i].index];
            if (size) *size = m->meta.globals[i].size;
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_NOT_FOUND;
}

static void ocl_kernel_info(const p2n_bk_kernel *k, p2n_bk_kernel_info *o) {
    memset(o, 0, sizeof *o);
    o->name = k->km->name;
    o->num_params = k->km->nparams;
    o->param_offsets = k->km->offs;
    o->param_sizes = k->km->sizes;
    o->param_buffer_size = k->km->pbsize;
    o->static_shared_bytes = k->km->static_smem;
    o->max_threads_per_block = k->wgmax;
    o->cluster_launch = k->km->cluster_launch;
    o->cluster_dims_fixed = k->km->cluster_dims_fixed;
}

static CUresult read_dev(void *ctx, void *dst, uint64_t src, size_t n) {
    (void)ctx;
    return cpy(dst, (const void *)(uintptr_t)src, n);
}

/* writes into an SVM record: fine-grained SVM is visible to the launch that follows as it is */
static CUresult rec_write(void *dst, const void *src, size_t n) {
    if (S.fine) {
        memcpy(dst, src, n);
        return CUDA_SUCCESS;
    }
    return cpy(dst, src, n);
}

static CUresult ocl_launch(p2n_bk_kernel *k, const p2n_bk_launch *l, char **err) {
    const spirv_kernel_meta *km = k->km;
    cl_int e = CL_SUCCESS;
    void *rec = k->mod->trap_rec;
    if (rec) {
        /* the device heap: one SVM buffer for the process's context (tracked, so every launch passes it in
         * CL_KERNEL_EXEC_INFO_SVM_PTRS); it lives as long as the backend */
        if (k->mod->meta.heap && !S.heap) {
            CUresult r = p2n_spv_heap_create(ocl_mem_alloc, ocl_mem_free, cpy, &S.heap, err);
            if (r != CUDA_SUCCESS) return r;
        }
        if (p2n_spv_record_prepare(rec, l, k->mod->meta.heap ? S.heap : NULL, rec_write) != CUDA_SUCCESS)
            e = CL_INVALID_VALUE;
    }
    p2n_spv_args args;
    p2n_spv_launch_args(km, l, rec, k->mod->gbuf, &args);
    for (unsigned i = 0; i < args.n && e == CL_SUCCESS; i++) {
        const p2n_spv_arg *a = &args.a[i];
        e = a->kind == P2N_SPV_ARG_POINTER ? cl.clSetKernelArgSVMPointer(k->k, i, a->ptr)
                                           : cl.clSetKernelArg(k->k, i, a->size, a->value);
    }
    if (e != CL_SUCCESS) {
        if (err) *err = p2n_bk_msg("clSetKernelArg failed (%d)", e);
        return CUDA_ERROR_INVALID_VALUE;
    }
    set_svm_ptrs(k->k);
    size_t gsz[3], lsz[3];
    for (int d = 0; d < 3; d++) {
        lsz[d] = l->block[d];
        gsz[d] = (size_t)l->grid[d] * l->block[d];
    }
    /* device printf: PoCL write()s each work-group's output to fd 1, other drivers print through stdio at
     * clFinish; flushing on both sides keeps it in order with the host's own output (as the CPU backend does) */
    fflush(stdout);
    e = cl.clEnqueueNDRangeKernel(S.q, k->k, 3, NULL, gsz, lsz, 0, NULL, NULL);
    if (e == CL_SUCCESS) e = cl.clFinish(S.q);
    fflush(stdout);
    if (e != CL_SUCCESS) {
        if (err) *err = p2n_bk_msg("OpenCL launch failed (%d)", e);
        return e == CL_INVALID_WORK_GROUP_SIZE || e == CL_OUT_OF_RESOURCES ? CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
                                                                           : CUDA_ERROR_LAUNCH_FAILED;
    }
    /* the first trap/assert of the grid left its record: read and clear it, report like the CPU runtime */
    return p2n_spv_record_check(rec, km->name, cpy, cpy, read_dev, err);
}

static CUresult ocl_sync(void) { return cl.clFinish(S.q) == CL_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_LAUNCH_FAILED; }

const p2n_backend_ops p2n_backend_opencl = {
    .name = "opencl",
    .code_arch = "spirv64",
    .init = ocl_init,
    .device_count = ocl_device_count,
    .mem_alloc = ocl_mem_alloc,
    .mem_free = ocl_mem_free,
    .mem_host_alloc = ocl_host_alloc,
    .mem_host_free = ocl_host_free,
    .memcpy_htod = ocl_htod,
    .memcpy_dtoh = ocl_dtoh,
    .memcpy_dtod = ocl_dtod,
    .memset = ocl_memset,
    .module_load = ocl_module_load,
    .module_unload = ocl_module_unload,
    .module_get_kernel = ocl_get_kernel,
    .module_get_global = ocl_get_global,
    .kernel_info = ocl_kernel_info,
    .launch = ocl_launch,
    .synchronize = ocl_sync,
};
