/* standin.c — TEST-ONLY stand-in for ROCm's libamdhip64.so.5 (never installed). It implements, on the host, the
 * HIP 5.2 entry points driver-stub/hip/backend_hip.c uses, and executes kernels on tinygrad's AMD ISA emulator
 * (test/mockgpu/amd/emu.py, run_asm) through embedded Python, in this very process: device pointers are host
 * pointers, so kernarg, buffers and code live in ordinary memory. See tests/hip/README.md and
 * /work/shared/docs/amd-emulator.md for what a launch needs and the emulator's limits.
 *
 * Environment: P2N_TINYGRAD = root of a tinygrad checkout (required to launch; `clang` must be on PATH for it);
 * P2N_HIP_STANDIN_ARCH = gfx1100 (default) | gfx950 | gfx1201: the emulated device (gfx906: a device the
 * backend must refuse, for selection tests);
 * P2N_HIP_STANDIN_VERBOSE=1: Python tracebacks of failed launches.
 *
 * Launch set-up, as a HIP runtime + the hardware would do it: PT_LOAD segments mapped at one base, .rela.dyn
 * applied; the kernel descriptor `<kernel>.kd` gives entry, rsrc1/2 and the enabled user SGPRs (AMDGPUUsage
 * "Initial Kernel Execution State" order); the dispatch pointer points at a real hsa_kernel_dispatch_packet_t;
 * kernarg = the explicit argument bytes (HIP_LAUNCH_PARAM_BUFFER_POINTER) + every hidden argument of the
 * metadata with COV5 values; LDS for the launch = static + dynamic; the emulator's DAZ/FTZ float mode is turned
 * off (our kernels ask for IEEE denormals). Errors of a grid (emulator exceptions) are reported by the next
 * hipDeviceSynchronize, as HIP reports asynchronous errors. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dlfcn.h>
#include <elf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define __HIP_PLATFORM_AMD__
#include <hip/hip_runtime_api.h>

#include "amd_codeobj.h"

#define EXPORT __attribute__((visibility("default")))

typedef struct arch_desc {
    const char *proc, *gcn, *emu, *name;
    int wave;
} arch_desc;

static const arch_desc arches[] = {
    {"gfx1100", "gfx1100", "rdna3", "Emulated AMD Radeon RX 7900 XTX (gfx1100, tinygrad emulator)", 32},
    {"gfx950", "gfx950:sramecc+:xnack-", "cdna", "Emulated AMD Instinct MI355X (gfx950, tinygrad emulator)", 64},
    {"gfx1201", "gfx1201", "rdna4", "Emulated AMD Radeon RX 9070 XT (gfx1201, tinygrad emulator)", 32},
    /* a processor ptx2native does not compile for: device selection tests only (never launched) */
    {"gfx906", "gfx906:sramecc+:xnack-", NULL, "Pretend AMD Radeon VII (gfx906, selection tests only)", 64},
};

static const arch_desc *A;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static hipError_t pending = hipSuccess; /* error of the last grid, returned by the next synchronisation */
static PyObject *run_asm;
static void *heap_buf, *hostcall_buf, *queue_buf;

typedef struct sym {
    char *name;
    uint64_t value, size;
} sym;

struct ihipModule_t {
    uint8_t *base;
    size_t span;
    amd_meta meta;
    sym *syms;
    size_t nsyms;
};
struct ihipModuleSymbol_t {
    struct ihipModule_t *m;
    const amd_kernel *ak;
    const uint8_t *kd;
};

EXPORT hipError_t hipInit(unsigned int flags)
{
    (void)flags;
    const char *want = getenv("P2N_HIP_STANDIN_ARCH");
    A = &arches[0];
    if (want && *want) {
        A = NULL;
        for (size_t i = 0; i < sizeof arches / sizeof arches[0]; i++)
            if (strcmp(want, arches[i].proc) == 0)
                A = &arches[i];
        if (!A) {
            fprintf(stderr, "hip stand-in: P2N_HIP_STANDIN_ARCH=%s: not gfx1100, gfx950, gfx1201 or gfx906\n", want);
            return hipErrorNoDevice;
        }
    }
    return hipSuccess;
}

EXPORT hipError_t hipGetDeviceCount(int *count)
{
    if (!count) return hipErrorInvalidValue;
    *count = A ? 1 : 0;
    return A ? hipSuccess : hipErrorNoDevice;
}

EXPORT hipError_t hipSetDevice(int deviceId) { return A && deviceId == 0 ? hipSuccess : hipErrorInvalidDevice; }

EXPORT hipError_t hipGetDeviceProperties(hipDeviceProp_t *p, int deviceId)
{
    if (!A || deviceId != 0) return hipErrorInvalidDevice;
    if (!p) return hipErrorInvalidValue;
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", A->name);
    snprintf(p->gcnArchName, sizeof p->gcnArchName, "%s", A->gcn);
    p->totalGlobalMem = 16ull << 30;
    p->sharedMemPerBlock = 65536;
    p->maxSharedMemoryPerMultiProcessor = 65536;
    p->regsPerBlock = 65536;
    p->warpSize = A->wave;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = p->maxThreadsDim[2] = 1024;
    p->maxGridSize[0] = p->maxGridSize[1] = p->maxGridSize[2] = 2147483647;
    p->clockRate = 2000000;
    p->memoryClockRate = 1000000;
    p->memoryBusWidth = 256;
    p->multiProcessorCount = 4;
    p->major = A->proc[3] == '9' ? 9 : A->proc[4] == '1' ? 11 : 12;
    p->pciBusID = 3;
    return hipSuccess;
}

EXPORT hipError_t hipRuntimeGetVersion(int *v)
{
    if (!v) return hipErrorInvalidValue;
    *v = 50221153; /* HIP 5.2.21153 (Debian's libamdhip64-5) */
    return hipSuccess;
}

EXPORT const char *hipGetErrorName(hipError_t e)
{
    switch (e) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
    case hipErrorNoDevice: return "hipErrorNoDevice";
    case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
    case hipErrorInvalidImage: return "hipErrorInvalidImage";
    case hipErrorNotFound: return "hipErrorNotFound";
    case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
    case hipErrorNotSupported: return "hipErrorNotSupported";
    default: return "hipErrorUnknown";
    }
}

/* ---- memory: host memory (the emulator's device addresses are host addresses) ---- */

EXPORT hipError_t hipMalloc(void **ptr, size_t size)
{
    if (!ptr) return hipErrorInvalidValue;
    size_t n = (size + 255) & ~(size_t)255;
    *ptr = aligned_alloc(256, n ? n : 256);
    if (!*ptr) return hipErrorOutOfMemory;
    memset(*ptr, 0, n ? n : 256);
    return hipSuccess;
}
EXPORT hipError_t hipFree(void *ptr) { free(ptr); return hipSuccess; }
EXPORT hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags)
{
    (void)flags;
    return hipMalloc(ptr, size);
}
EXPORT hipError_t hipHostFree(void *ptr) { free(ptr); return hipSuccess; }

EXPORT hipError_t hipMemcpy(void *dst, const void *src, size_t n, hipMemcpyKind kind)
{
    (void)kind;
    if (n && (!dst || !src)) return hipErrorInvalidValue;
    if (n) memmove(dst, src, n);
    return hipSuccess;
}
EXPORT hipError_t hipMemsetD8(hipDeviceptr_t d, unsigned char v, size_t n)
{
    if (n) memset(d, v, n);
    return hipSuccess;
}
EXPORT hipError_t hipMemsetD16(hipDeviceptr_t d, unsigned short v, size_t n)
{
    for (size_t i = 0; i < n; i++) memcpy((char *)d + 2 * i, &v, 2);
    return hipSuccess;
}
EXPORT hipError_t hipMemsetD32(hipDeviceptr_t d, int v, size_t n)
{
    for (size_t i = 0; i < n; i++) memcpy((char *)d + 4 * i, &v, 4);
    return hipSuccess;
}

/* ---- code objects ---- */

static int load_elf(struct ihipModule_t *m, const uint8_t *img, size_t n)
{
    Elf64_Ehdr eh;
    memcpy(&eh, img, sizeof eh);
    if (eh.e_phoff > n || (n - eh.e_phoff) / sizeof(Elf64_Phdr) < eh.e_phnum || eh.e_shoff > n ||
        (n - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum)
        return -1;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(img + eh.e_phoff);
    uint64_t span = 0;
    for (unsigned i = 0; i < eh.e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr + ph[i].p_memsz > span) span = ph[i].p_vaddr + ph[i].p_memsz;
    m->span = (span + 4095) & ~(uint64_t)4095;
    void *b = mmap(NULL, m->span ? m->span : 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b == MAP_FAILED) return -1;
    m->base = b;
    for (unsigned i = 0; i < eh.e_phnum; i++)
        if (ph[i].p_type == PT_LOAD) {
            if (ph[i].p_offset > n || ph[i].p_filesz > n - ph[i].p_offset) return -1;
            memcpy(m->base + ph[i].p_vaddr, img + ph[i].p_offset, ph[i].p_filesz);
        }
    /* Cache maintenance the emulator cannot decode, and which has no effect on it (it has no caches): gfx11
     * buffer_gl0_inv / buffer_gl1_inv (E0AC0000 / E0B00000 00000000), gfx12 global_inv / global_wb (EE0AC07C /
     * EE0B007C, a scope in the second word, 00000000) become s_nop (BF800000); on CDNA (gfx9 machine numbers)
     * also buffer_wbl2 / buffer_inv with any sc0/sc1 bits (E0A0?000 / E0A4?000, bits 14-15, then 00000000), which
     * the emulator runs as a buffer access through s[0:3] (SIGSEGV: the release/acquire fences of cluster-scope
     * barriers, cluster/barrier_cluster). Exact whole-instruction encodings, matched at 4-byte boundaries of the
     * executable segments only. */
    int cdna = (eh.e_flags & 0xff) == 0x03f || (eh.e_flags & 0xff) == 0x04c || (eh.e_flags & 0xff) == 0x04f;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X)) continue;
        uint32_t *w = (uint32_t *)(m->base + (ph[i].p_vaddr & ~(uint64_t)3));
        size_t nw = ph[i].p_filesz / 4;
        for (size_t j = 0; j + 1 < nw; j++) {
            if ((w[j] == 0xE0AC0000u || w[j] == 0xE0B00000u) && w[j + 1] == 0)
                w[j] = w[j + 1] = 0xBF800000u;
            else if ((w[j] == 0xEE0AC07Cu || w[j] == 0xEE0B007Cu) && j + 2 < nw && !(w[j + 1] & ~0x000C0000u) &&
                     w[j + 2] == 0)
                w[j] = w[j + 1] = w[j + 2] = 0xBF800000u;
            else if (cdna && ((w[j] & 0xFFFF3FFFu) == 0xE0A00000u || (w[j] & 0xFFFF3FFFu) == 0xE0A40000u) &&
                     w[j + 1] == 0)
                w[j] = w[j + 1] = 0xBF800000u;
        }
    }
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh.e_shoff);
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh.e_shnum) continue;
        const Elf64_Sym *s = (const Elf64_Sym *)(img + sh[i].sh_offset);
        const char *str = (const char *)img + sh[sh[i].sh_link].sh_offset;
        size_t ns = sh[i].sh_size / sizeof *s;
        m->syms = calloc(ns ? ns : 1, sizeof *m->syms);
        for (size_t j = 0; j < ns; j++)
            if (s[j].st_shndx != SHN_UNDEF && s[j].st_name) {
                m->syms[m->nsyms].name = strdup(str + s[j].st_name);
                m->syms[m->nsyms].value = s[j].st_value;
                m->syms[m->nsyms++].size = s[j].st_size;
            }
        /* relocations against this symbol table */
        for (unsigned r = 0; r < eh.e_shnum; r++) {
            if (sh[r].sh_type != SHT_RELA) continue;
            const Elf64_Rela *ra = (const Elf64_Rela *)(img + sh[r].sh_offset);
            for (size_t k = 0; k < sh[r].sh_size / sizeof *ra; k++) {
                uint32_t type = ELF64_R_TYPE(ra[k].r_info), si = ELF64_R_SYM(ra[k].r_info);
                uint64_t S = si && si < ns ? (uint64_t)(uintptr_t)m->base + s[si].st_value : 0;
                uint64_t v = S + (uint64_t)ra[k].r_addend;
                uint8_t *at = m->base + ra[k].r_offset;
                switch (type) {
                case 13: v = (uint64_t)(uintptr_t)m->base + (uint64_t)ra[k].r_addend; memcpy(at, &v, 8); break; /* RELATIVE64 */
                case 3: memcpy(at, &v, 8); break;                                              /* ABS64 */
                case 1: { uint32_t lo = (uint32_t)v; memcpy(at, &lo, 4); break; }             /* ABS32_LO */
                case 2: { uint32_t hi = (uint32_t)(v >> 32); memcpy(at, &hi, 4); break; }     /* ABS32_HI */
                case 6: { uint32_t lo = (uint32_t)v; memcpy(at, &lo, 4); break; }             /* ABS32 */
                default: fprintf(stderr, "hip stand-in: relocation type %u not applied\n", type); break;
                }
            }
        }
        break;
    }
    return 0;
}

EXPORT hipError_t hipModuleLoadData(hipModule_t *module, const void *image)
{
    if (!module || !image) return hipErrorInvalidValue;
    const uint8_t *img = image;
    Elf64_Ehdr eh;
    memcpy(&eh, img, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return hipErrorInvalidImage;
    /* the size of an ELF image: the end of its section header table (our objects end with it) */
    size_t n = eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
    const char *proc;
    int xn, se;
    if (!amd_elf_target(img, n, &proc, &xn, &se) || !proc || strcmp(proc, A->proc) != 0) return hipErrorNoBinaryForGpu;
    struct ihipModule_t *m = calloc(1, sizeof *m);
    char err[256];
    if (!m) return hipErrorOutOfMemory;
    if (amd_read_meta(img, n, &m->meta, err, sizeof err) != 0 || load_elf(m, img, n) != 0) {
        fprintf(stderr, "hip stand-in: cannot load the code object: %s\n", err);
        free(m);
        return hipErrorInvalidImage;
    }
    *module = m;
    return hipSuccess;
}

EXPORT hipError_t hipModuleUnload(hipModule_t m)
{
    if (!m) return hipErrorInvalidValue;
    amd_meta_free(&m->meta);
    for (size_t i = 0; i < m->nsyms; i++) free(m->syms[i].name);
    free(m->syms);
    munmap(m->base, m->span ? m->span : 4096);
    free(m);
    return hipSuccess;
}

static const sym *find_sym(hipModule_t m, const char *name)
{
    for (size_t i = 0; i < m->nsyms; i++)
        if (strcmp(m->syms[i].name, name) == 0) return &m->syms[i];
    return NULL;
}

EXPORT hipError_t hipModuleGetFunction(hipFunction_t *f, hipModule_t m, const char *name)
{
    if (!f || !m || !name) return hipErrorInvalidValue;
    const amd_kernel *ak = amd_meta_kernel(&m->meta, name);
    const sym *kd = ak ? find_sym(m, ak->symbol) : NULL;
    if (!kd) return hipErrorNotFound;
    struct ihipModuleSymbol_t *fn = calloc(1, sizeof *fn);
    if (!fn) return hipErrorOutOfMemory;
    fn->m = m;
    fn->ak = ak;
    fn->kd = m->base + kd->value;
    *f = fn; /* kept until exit, as HIP keeps functions until their module is unloaded */
    return hipSuccess;
}

EXPORT hipError_t hipModuleGetGlobal(hipDeviceptr_t *dptr, size_t *bytes, hipModule_t m, const char *name)
{
    if (!m || !name) return hipErrorInvalidValue;
    const sym *s = find_sym(m, name);
    if (!s) return hipErrorNotFound;
    if (dptr) *dptr = m->base + s->value;
    if (bytes) *bytes = s->size;
    return hipSuccess;
}

/* ---- execution ---- */

/* runs the Python file at path with globals g; 1 when it ran to the end (an error is printed) */
static int run_py_file(const char *path, PyObject *g)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "hip stand-in: cannot open %s\n", path);
        return 0;
    }
    PyObject *r = PyRun_File(f, path, Py_file_input, g, g);
    fclose(f);
    if (!r) PyErr_Print();
    Py_XDECREF(r);
    return r != NULL;
}

static int py_start(void)
{
    if (run_asm) return 0;
    const char *root = getenv("P2N_TINYGRAD");
    if (!root || !*root) {
        fprintf(stderr, "hip stand-in: P2N_TINYGRAD is not set (root of a tinygrad checkout with "
                        "test/mockgpu/amd/emu.py): cannot run kernels\n");
        return -1;
    }
    /* the backend dlopen'ed this library RTLD_LOCAL, so libpython's symbols are not global: extension modules
     * (_ctypes, ...) could not resolve them. Promote libpython to RTLD_GLOBAL first. */
    Dl_info di;
    if (dladdr((void *)Py_InitializeEx, &di) && di.dli_fname)
        dlopen(di.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
    int started = !Py_IsInitialized();
    if (started) Py_InitializeEx(0);
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *sys_path = PySys_GetObject("path"); /* borrowed */
    PyObject *r = PyUnicode_FromString(root);
    if (sys_path && r) PyList_Insert(sys_path, 0, r);
    Py_XDECREF(r);
    PyObject *mod = PyImport_ImportModule("test.mockgpu.amd.emu");
    if (mod) {
        int ok_fixes = 0;
        PyObject *g = PyDict_New();
        PyObject *bi = PyEval_GetBuiltins();
        if (g && bi) {
            PyDict_SetItemString(g, "__builtins__", bi);
            PyDict_SetItemString(g, "emu", mod);
            /* the emulator workarounds (emu_fixes.py, beside this file; its path is compiled in) */
            ok_fixes = run_py_file(P2N_HIP_EMU_FIXES, g);
            /* a debugging aid: $P2N_HIP_STANDIN_PY names a Python file run here with `emu` bound (e.g. to wrap
             * emu._decode_at and print registers after each instruction) */
            const char *extra = getenv("P2N_HIP_STANDIN_PY");
            if (extra && *extra) run_py_file(extra, g);
        }
        Py_XDECREF(g);
        run_asm = ok_fixes ? PyObject_GetAttrString(mod, "run_asm") : NULL; /* never without the workarounds */
        Py_DECREF(mod);
    }
    if (!run_asm) {
        fprintf(stderr, "hip stand-in: cannot import tinygrad's emulator from %s:\n", root);
        PyErr_Print();
    }
    PyGILState_Release(g);
    if (started) PyEval_SaveThread(); /* let any thread take the GIL */
    return run_asm ? 0 : -1;
}

static void *zbuf(void **slot, size_t n)
{
    if (!*slot) { *slot = aligned_alloc(4096, n); if (*slot) memset(*slot, 0, n); }
    return *slot;
}

static void fill_hidden(const amd_kernel *ak, uint8_t *ka, const uint32_t g[3], const uint32_t b[3], uint32_t dyn)
{
    for (unsigned i = 0; i < ak->nargs; i++) {
        const amd_arg *a = &ak->args[i];
        const char *k = a->kind;
        if (strncmp(k, "hidden_", 7) != 0 || a->offset + a->size > ak->kernarg_size) continue;
        uint64_t v = 0;
        k += 7;
        if (!strncmp(k, "block_count_", 12)) v = g[k[12] - 'x'];
        else if (!strncmp(k, "group_size_", 11)) v = b[k[11] - 'x'];
        else if (!strcmp(k, "grid_dims")) v = g[2] > 1 ? 3 : g[1] > 1 ? 2 : 1;
        else if (!strcmp(k, "dynamic_lds_size")) v = dyn;
        else if (!strcmp(k, "heap_v1")) v = (uintptr_t)zbuf(&heap_buf, 8u << 20);
        else if (!strcmp(k, "hostcall_buffer") || !strcmp(k, "printf_buffer")) v = (uintptr_t)zbuf(&hostcall_buf, 1u << 20);
        else if (!strcmp(k, "queue_ptr")) v = (uintptr_t)zbuf(&queue_buf, 4096);
        /* remainders, global offsets, multigrid, default queue, completion action, apertures: 0 */
        memcpy(ka + a->offset, &v, a->size < 8 ? a->size : 8);
    }
}

EXPORT hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                        unsigned by, unsigned bz, unsigned dyn, hipStream_t stream,
                                        void **kernelParams, void **extra)
{
    (void)stream;
    if (!f || !gx || !gy || !gz || !bx || !by || !bz) return hipErrorInvalidValue;
    const amd_kernel *ak = f->ak;
    if ((uint64_t)bx * by * bz > ak->max_flat_wg || (uint64_t)ak->group_fixed + dyn > 65536)
        return hipErrorInvalidValue;
    if (!A->emu) return hipErrorNoBinaryForGpu;
    if (py_start() != 0) return hipErrorNotInitialized;
    size_t kn = ak->kernarg_size ? ak->kernarg_size : 16;
    uint8_t *ka = aligned_alloc(64, (kn + 63) & ~(size_t)63);
    if (!ka) return hipErrorOutOfMemory;
    memset(ka, 0, kn);
    if (extra) {
        void *buf = NULL;
        size_t *sz = NULL;
        for (int i = 0; extra[i] != HIP_LAUNCH_PARAM_END && i < 8; i += 2) {
            if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_POINTER) buf = extra[i + 1];
            else if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_SIZE) sz = extra[i + 1];
        }
        if (!buf || !sz) { free(ka); return hipErrorInvalidValue; }
        memcpy(ka, buf, *sz < kn ? *sz : kn);
    } else if (kernelParams) {
        unsigned j = 0;
        for (unsigned i = 0; i < ak->nargs; i++)
            if (strncmp(ak->args[i].kind, "hidden_", 7) != 0 && ak->args[i].offset + ak->args[i].size <= kn)
                memcpy(ka + ak->args[i].offset, kernelParams[j++], ak->args[i].size);
    }
    const uint32_t g[3] = {gx, gy, gz}, b[3] = {bx, by, bz};
    fill_hidden(ak, ka, g, b, dyn);

    /* hsa_kernel_dispatch_packet_t */
    struct {
        uint16_t header, setup, wg[3], r0;
        uint32_t grid[3], private_size, group_size;
        uint64_t kernel_object, kernarg, r2, signal;
    } pkt = {0};
    pkt.setup = gz > 1 ? 3 : gy > 1 ? 2 : 1;
    pkt.wg[0] = (uint16_t)bx; pkt.wg[1] = (uint16_t)by; pkt.wg[2] = (uint16_t)bz;
    pkt.grid[0] = gx * bx; pkt.grid[1] = gy * by; pkt.grid[2] = gz * bz;
    pkt.private_size = ak->private_fixed;
    pkt.group_size = ak->group_fixed + dyn;
    pkt.kernel_object = (uintptr_t)f->kd;
    pkt.kernarg = (uintptr_t)ka;

    const uint8_t *kd = f->kd;
    int64_t entry_off;
    uint32_t rsrc2;
    uint16_t props;
    memcpy(&entry_off, kd + 16, 8);
    memcpy(&rsrc2, kd + 52, 4);
    memcpy(&props, kd + 56, 2);
    uint64_t entry = (uintptr_t)kd + (uint64_t)entry_off;
    /* LDS of the launch: static + dynamic, in the 512-byte granules of rsrc2's field (bits 15..23) */
    uint32_t gran = (pkt.group_size + 511) / 512;
    rsrc2 = (rsrc2 & ~(0x1ffu << 15)) | (gran & 0x1ff) << 15;
    uint32_t scratch = ak->private_fixed + (ak->dynamic_stack ? 16384 : 0);

    /* user SGPRs, in order */
    uint64_t ud[16];
    int nu = 0;
    uint64_t dp = (uintptr_t)&pkt, qp = (uintptr_t)zbuf(&queue_buf, 4096), kp = (uintptr_t)ka;
    if (props & 1) for (int i = 0; i < 4; i++) ud[nu++] = 0;                       /* private segment buffer */
    if (props & 2) { ud[nu++] = (uint32_t)dp; ud[nu++] = dp >> 32; }               /* dispatch ptr */
    if (props & 4) { ud[nu++] = (uint32_t)qp; ud[nu++] = qp >> 32; }               /* queue ptr */
    if (props & 8) { ud[nu++] = (uint32_t)kp; ud[nu++] = kp >> 32; }               /* kernarg segment ptr */
    if (props & 16) { ud[nu++] = 0; ud[nu++] = 0; }                                /* dispatch id */
    if (props & 32) { ud[nu++] = 0; ud[nu++] = 0; }                                /* flat scratch init */
    if (props & 64) ud[nu++] = scratch;                                            /* private segment size */

    pthread_mutex_lock(&lock);
    PyGILState_STATE gs = PyGILState_Ensure();
    PyObject *udl = PyList_New(nu);
    for (int i = 0; i < nu; i++) PyList_SetItem(udl, i, PyLong_FromUnsignedLongLong(ud[i]));
    PyObject *args = Py_BuildValue("(KKIIIIIIKIIsO)", (unsigned long long)entry,
                                   (unsigned long long)(f->m->base + f->m->span - (uint8_t *)(uintptr_t)entry), gx, gy, gz,
                                   bx, by, bz, (unsigned long long)kp, rsrc2, scratch, A->emu, udl);
    PyObject *res = args ? PyObject_CallObject(run_asm, args) : NULL;
    hipError_t e = hipSuccess;
    if (!res) {
        e = hipErrorLaunchFailure;
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        PyObject *s = v ? PyObject_Str(v) : NULL;
        fprintf(stderr, "hip stand-in: %s on %s: emulator: %s\n", ak->name, A->proc,
                s ? PyUnicode_AsUTF8(s) : "(no message)");
        Py_XDECREF(s);
        const char *vb = getenv("P2N_HIP_STANDIN_VERBOSE");
        if (vb && *vb && strcmp(vb, "0") != 0) PyErr_Restore(t, v, tb), PyErr_Print();
        else Py_XDECREF(t), Py_XDECREF(v), Py_XDECREF(tb);
    }
    Py_XDECREF(res);
    Py_XDECREF(args);
    Py_XDECREF(udl);
    PyGILState_Release(gs);
    if (e != hipSuccess) pending = e;
    pthread_mutex_unlock(&lock);
    free(ka);
    return hipSuccess;
}

EXPORT hipError_t hipDeviceSynchronize(void)
{
    pthread_mutex_lock(&lock);
    hipError_t e = pending;
    pending = hipSuccess;
    pthread_mutex_unlock(&lock);
    return e;
}
