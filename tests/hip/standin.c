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
     * EE0B007C, a scope in the second word, 00000000) become s_nop (BF800000). Exact whole-instruction
     * encodings, matched at 4-byte boundaries of the executable segments only. */
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
        /* our kernels ask for IEEE denormals: no DAZ/FTZ around execution (the emulator's default is RDNA's) */
        PyObject *ctxlib = PyImport_ImportModule("contextlib");
        PyObject *nc = ctxlib ? PyObject_GetAttrString(ctxlib, "nullcontext") : NULL;
        if (nc) PyObject_SetAttrString(mod, "_MXCSRContext", nc);
        Py_XDECREF(nc);
        Py_XDECREF(ctxlib);
        /* program-counter instructions: s_getpc_b64 and s_swappc_b64 fail to compile on the emulator ("unknown
         * variable: PC"), and s_setpc_b64 compiles to a no-op (emu.py's compile_sop_pcode/scalar_stores drop the
         * assignment to PC, so a function's return falls through into the next function). All three (calls,
         * returns, PC-relative globals) get a runner of ours that reads and writes the wave's SGPR file (the PC is
         * SGPR 256/257 there); everything else goes to the emulator unchanged. On CDNA, FLAT-segment instructions
         * get their SADDR field set to 0x7f ("off") in the loaded code object before the emulator compiles them:
         * the ISA ignores SADDR for the FLAT segment and LLVM encodes it as 0, but emu.py's _compile_mem_op adds
         * s[saddr:saddr+1] to the address whenever the field is below 124 (make_addr), so a generic-pointer access on
         * gfx950 went to s[0:1] + the pointer's low half (SIGSEGV in the software texture sampler). In memory, not
         * in a copy: the emulator's runners read an instruction's fields from memory at the PC when they run
         * (emu.py inst_word); patching only the bytes handed to its compiler (as first done here) changed nothing.
         * Then the emulator's inline-constant slot clash (below). */
        static const char pc_ops[] =
            "import ctypes, types\n"
            "_p2n_orig_decode = emu._decode_at\n"
            "def _p2n_decode_at(pc, arch):\n"
            "  try: inst = emu.decode_inst(bytes((ctypes.c_char * 16).from_address(pc).raw), arch)\n"
            "  except Exception: return _p2n_orig_decode(pc, arch)\n"
            "  name = getattr(getattr(inst, 'op', None), 'name', '')\n"
            "  if arch == 'cdna' and type(inst).__name__ == 'FLAT' and (inst.to_bytes()[6] & 0x7f) != 0x7f:\n"
            "    ctypes.c_uint8.from_address(pc + 6).value |= 0x7f\n"
            "    return _p2n_orig_decode(pc, arch)\n"
            "  if name == 'DS_BPERMUTE_B32': return _p2n_bpermute(inst, pc, arch), inst\n"
            "  if name.split('_ATOMIC_')[-1] in _p2n_rmw64: return _p2n_atomic64(inst, pc, arch, name), inst\n"
            "  if name in ('V_ADD_NC_I16', 'V_SUB_NC_I16') and int(getattr(inst, 'clmp', 0) or 0):\n"
            "    r = _p2n_i16sat(inst, pc, arch, name)\n"
            "    if r: return r, inst\n"
            "  if type(inst).__name__ == 'VOP2_SDWA' and name.replace('_E32', '') in _p2n_co:\n"
            "    r = _p2n_valu_runner(inst, pc, arch, name.replace('_E32', ''))\n"
            "    if r: return r, inst\n"
            "  if name.replace('_E32', '').replace('_E64', '') in _p2n_valu:\n"
            "    r = _p2n_valu_runner(inst, pc, arch, name.replace('_E32', '').replace('_E64', ''))\n"
            "    if r: return r, inst\n"
            "  if name in ('V_MOVRELD_B32_E32', 'V_MOVRELS_B32_E32', 'V_MOVRELD_B32_E64', 'V_MOVRELS_B32_E64'):\n"
            "    r = _p2n_movrel(inst, pc, arch, name)\n"
            "    if r: return r, inst\n"
            "  if name not in ('S_GETPC_B64', 'S_SETPC_B64', 'S_SWAPPC_B64'): return _p2n_orig_decode(pc, arch)\n"
            "  d, s, nxt = inst.sdst.offset, inst.ssrc0.offset, pc + inst.size()\n"
            "  lo, hi = emu.PC_LO_IDX, emu.PC_HI_IDX\n"
            "  def fxn(sgpr, *rest):\n"
            "    r = (ctypes.c_uint32 * emu.SGPR_COUNT).from_address(sgpr.value)\n"
            "    tgt = r[s] | (r[s + 1] << 32)\n"
            "    if name != 'S_SETPC_B64': r[d], r[d + 1] = nxt & 0xffffffff, nxt >> 32\n"
            "    n = nxt if name == 'S_GETPC_B64' else tgt\n"
            "    r[lo], r[hi] = n & 0xffffffff, n >> 32\n"
            "  prg = types.SimpleNamespace(arg=types.SimpleNamespace(globals=[0]))\n"
            "  return (prg, types.SimpleNamespace(fxn=fxn)), inst\n"
            /* ds_bpermute_b32: the emulator's runner reads VGPR[src_lane] for every lane, inactive lanes too, and with
             * the garbage an inactive lane's address register holds it reads outside the register file (SIGSEGV;
             * on wave64 a 32-thread warp leaves half the lanes inactive). This runner follows the ISA's pseudocode:
             * src_lane = (ADDR + offset) / 4 mod wave size; an inactive source lane gives 0; only active lanes are
             * written. globals [0, 1] = the wave's SGPR and VGPR files (VGPR r of lane l at r * wave size + l). */
            "def _p2n_bpermute(inst, pc, arch):\n"
            "  ws = 64 if arch == 'cdna' else 32\n"
            "  a, d0, vd = inst.addr.offset - 256, inst.data0.offset - 256, inst.vdst.offset - 256\n"
            "  off, nxt = int(inst.offset0) | (int(inst.offset1) << 8), pc + inst.size()\n"
            "  lo, hi, ex_lo = emu.PC_LO_IDX, emu.PC_HI_IDX, emu.EXEC_LO.offset\n"
            "  def fxn(sgpr, vgpr, *rest):\n"
            "    r = (ctypes.c_uint32 * emu.SGPR_COUNT).from_address(sgpr.value)\n"
            "    v = (ctypes.c_uint32 * (256 * ws)).from_address(vgpr.value)\n"
            "    ex = r[ex_lo] | (r[ex_lo + 1] << 32) if ws == 64 else r[ex_lo]\n"
            "    res = {}\n"
            "    for i in range(ws):\n"
            "      if ex >> i & 1:\n"
            "        sl = ((v[a * ws + i] + off) & 0xffffffff) // 4 % ws\n"
            "        res[i] = v[d0 * ws + sl] if ex >> sl & 1 else 0\n"
            "    for i, x in res.items(): v[vd * ws + i] = x\n"
            "    r[lo], r[hi] = nxt & 0xffffffff, nxt >> 32\n"
            "  prg = types.SimpleNamespace(arg=types.SimpleNamespace(globals=[0, 1]))\n"
            "  return (prg, types.SimpleNamespace(fxn=fxn))\n"
            /* 64-bit compare-and-swap and min/max (FLAT/GLOBAL, CDNA _X2 and RDNA _B64/_I64/_U64 names): the
             * emulator leaves memory unchanged for cmpswap and compares only the low halves for max (atom.max.s64 and
             * .u64 both gave the same low-half maximum). This runner does them lane by lane in lane order (a wave's
             * atomics to one address are serialised on the GPU too); with GLC/SC0 the old value goes to VDST.
             * cmpswap DATA = {src lo, src hi, cmp lo, cmp hi}; GLOBAL with an SADDR below 124 = SGPR pair + unsigned
             * 32-bit VADDR, else the 64-bit VADDR; the 13-bit signed offset is added. globals [0, 1, 2] = SGPRs,
             * VGPRs and the whole address space (device pointers are host pointers here). */
            "_p2n_s64 = lambda x: x - (1 << 64) if x >> 63 else x\n"
            "_p2n_rmw64 = {'CMPSWAP_X2': None, 'CMPSWAP_B64': None,\n"
            "  'SMAX_X2': lambda o, x: x if _p2n_s64(x) > _p2n_s64(o) else o, 'MAX_I64': lambda o, x: x if _p2n_s64(x) > _p2n_s64(o) else o,\n"
            "  'SMIN_X2': lambda o, x: x if _p2n_s64(x) < _p2n_s64(o) else o, 'MIN_I64': lambda o, x: x if _p2n_s64(x) < _p2n_s64(o) else o,\n"
            "  'UMAX_X2': max, 'MAX_U64': max, 'UMIN_X2': min, 'MIN_U64': min}\n"
            "def _p2n_atomic64(inst, pc, arch, name):\n"
            "  op = _p2n_rmw64[name.split('_ATOMIC_')[-1]]\n"
            "  ws = 64 if arch == 'cdna' else 32\n"
            "  a, d, vd = inst.addr.offset - 256, inst.data.offset - 256, inst.vdst.offset - 256\n"
            "  sa = inst.saddr.offset if hasattr(inst.saddr, 'offset') else int(inst.saddr)\n"
            "  use_sa = type(inst).__name__ == 'GLOBAL' and sa < 124\n"
            "  fo = type(inst).offset\n"
            "  w = fo.hi - fo.lo + 1\n"
            "  off = int(inst.offset)\n"
            "  off = off - (1 << w) if off >> (w - 1) & 1 else off\n"
            "  rtn = bool(getattr(inst, 'sc0', 0) if arch == 'cdna' else getattr(inst, 'glc', 0))\n"
            "  lo, hi, ex_lo, nxt = emu.PC_LO_IDX, emu.PC_HI_IDX, emu.EXEC_LO.offset, pc + inst.size()\n"
            "  def fxn(sgpr, vgpr, vmem, *rest):\n"
            "    r = (ctypes.c_uint32 * emu.SGPR_COUNT).from_address(sgpr.value)\n"
            "    v = (ctypes.c_uint32 * (256 * ws)).from_address(vgpr.value)\n"
            "    ex = r[ex_lo] | (r[ex_lo + 1] << 32) if ws == 64 else r[ex_lo]\n"
            "    V = lambda reg, l: v[(reg) * ws + l]\n"
            "    for l in range(ws):\n"
            "      if not ex >> l & 1: continue\n"
            "      base = (r[sa] | r[sa + 1] << 32) + V(a, l) if use_sa else V(a, l) | V(a + 1, l) << 32\n"
            "      m = ctypes.c_uint64.from_address((base + off) & 0xffffffffffffffff)\n"
            "      old, src = m.value, V(d, l) | V(d + 1, l) << 32\n"
            "      if op: m.value = op(old, src)\n"
            "      elif old == V(d + 2, l) | V(d + 3, l) << 32: m.value = src\n"
            "      if rtn: v[vd * ws + l], v[(vd + 1) * ws + l] = old & 0xffffffff, old >> 32\n"
            "    r[lo], r[hi] = nxt & 0xffffffff, nxt >> 32\n"
            "  prg = types.SimpleNamespace(arg=types.SimpleNamespace(globals=[0, 1, 2]))\n"
            "  return (prg, types.SimpleNamespace(fxn=fxn))\n"
            /* v_movreld_b32 (VGPR[vdst + M0] = src0) and v_movrels_b32 (VGPR[vdst] = VGPR[src0 + M0]), RDNA: the
             * emulator cannot compile them ("unknown variable: DST" / "SRC0"); LLVM uses them for a VGPR array
             * indexed at run time (our sparse-mma metadata selection). src0 from a VGPR, an SGPR or an integer
             * inline constant; anything else is left to the emulator. M0 is SGPR 125 on RDNA. */
            "def _p2n_movrel(inst, pc, arch, name):\n"
            "  if arch == 'cdna': return None\n"
            "  ws, m0, s0, vd = 32, 125, inst.src0.offset, inst.vdst.offset - 256\n"
            "  if 'MOVRELS' in name and s0 < 256: return None\n"
            "  if not (s0 >= 256 or s0 < 128 or 128 <= s0 <= 208): return None\n"
            "  lo, hi, ex_lo, nxt = emu.PC_LO_IDX, emu.PC_HI_IDX, emu.EXEC_LO.offset, pc + inst.size()\n"
            "  def fxn(sgpr, vgpr, *rest):\n"
            "    r = (ctypes.c_uint32 * emu.SGPR_COUNT).from_address(sgpr.value)\n"
            "    v = (ctypes.c_uint32 * (256 * ws)).from_address(vgpr.value)\n"
            "    ex, k = r[ex_lo], r[m0]\n"
            "    for l in range(ws):\n"
            "      if not ex >> l & 1: continue\n"
            "      if 'MOVRELS' in name: v[vd * ws + l] = v[(s0 - 256 + k) * ws + l]\n"
            "      else:\n"
            "        x = v[(s0 - 256) * ws + l] if s0 >= 256 else r[s0] if s0 < 128 else (s0 - 128 if s0 <= 192 else (192 - s0) & 0xffffffff)\n"
            "        v[(vd + k) * ws + l] = x\n"
            "    r[lo], r[hi] = nxt & 0xffffffff, nxt >> 32\n"
            "  prg = types.SimpleNamespace(arg=types.SimpleNamespace(globals=[0, 1]))\n"
            "  return (prg, types.SimpleNamespace(fxn=fxn))\n"
            /* 24-bit multiplies and v_rndne_f32, which the emulator computes wrongly (its pseudocode reader has no
             * 24-bit types: S0.i24 / S0.u24 are read as whole 32-bit values, so the truncation is lost and the i24
             * forms multiply as unsigned; v_rndne_f32 is floor(x + 0.5), which rounds halves up and loses -0). The
             * ISA's definitions, lane by lane: 24-bit sources sign/zero-extended, low or high 32 bits of the product,
             * mad adds S2; rndne = round half to even, -0 and |x| < 0.5 negative give -0, NaN quietened. Sources
             * from VGPRs, SGPRs, integer inline constants or the literal; an instruction with other sources, or with
             * clamp/omod/neg/abs, is left to the emulator. */
            "import struct\n"
            "_p2n_s24 = lambda x: ((x & 0xffffff) ^ 0x800000) - 0x800000\n"
            "def _p2n_rndne_f32(a, *_):\n"
            "  x = struct.unpack('<f', struct.pack('<I', a))[0]\n"
            "  if x != x: return a | 0x400000\n"
            "  if abs(x) >= 8388608.0: return a\n"
            "  return struct.unpack('<I', struct.pack('<f', __import__('math').copysign(float(round(x)), x)))[0]\n"
            "_p2n_valu = {\n"
            "  'V_MUL_I32_I24': lambda a, b, c: _p2n_s24(a) * _p2n_s24(b),\n"
            "  'V_MUL_HI_I32_I24': lambda a, b, c: (_p2n_s24(a) * _p2n_s24(b)) >> 32,\n"
            "  'V_MUL_U32_U24': lambda a, b, c: (a & 0xffffff) * (b & 0xffffff),\n"
            "  'V_MUL_HI_U32_U24': lambda a, b, c: ((a & 0xffffff) * (b & 0xffffff)) >> 32,\n"
            "  'V_MAD_I32_I24': lambda a, b, c: _p2n_s24(a) * _p2n_s24(b) + c,\n"
            "  'V_MAD_U32_U24': lambda a, b, c: (a & 0xffffff) * (b & 0xffffff) + c,\n"
            "  'V_RNDNE_F32': _p2n_rndne_f32,\n"
            "  'V_ADD_I32': lambda a, b, c: _p2n_s32(a) + _p2n_s32(b), 'V_SUB_I32': lambda a, b, c: _p2n_s32(a) - _p2n_s32(b)}\n"
            /* CDNA's v_add_i32/v_sub_i32 with clamp saturate to [-2^31, 2^31 - 1]; the emulator clamps only the
             * _NC_/_MAD_ names, so these wrapped. Taken here only with clamp (without it the emulator is right). */
            "_p2n_s32 = lambda x: x - (1 << 32) if x >> 31 & 1 else x\n"
            "_p2n_sat = {'V_ADD_I32', 'V_SUB_I32'}\n"
            /* v_cvt_i32_f32 / v_cvt_i32_f64 saturate on the GPU (NaN gives 0); the emulator's f32_to_i32 / f64_to_i32
             * (pcode.py) truncate and cast, which gives 0x80000000 for every out-of-range value */
            "def _p2n_cvt_i32(x):\n"
            "  if x != x: return 0\n"
            "  return max(min(int(x), 0x7fffffff), -0x80000000) if abs(x) != float('inf') else (0x7fffffff if x > 0 else -0x80000000)\n"
            "_p2n_valu['V_CVT_I32_F32'] = lambda a, b, c: _p2n_cvt_i32(struct.unpack('<f', struct.pack('<I', a))[0])\n"
            "_p2n_valu['V_CVT_I32_F64'] = lambda a, b, c: _p2n_cvt_i32(struct.unpack('<d', struct.pack('<Q', a))[0])\n"
            /* SDWA forms with a carry-out to VCC: the emulator's lane loop rewrites the whole mask for each lane from
             * the old mask, so VCC kept only the last lane of each 32-bit half (checked: 64 lanes without borrow left
             * VCC = 0x7fffffff7fffffff). Here: every active lane's carry/borrow, inactive lanes' bits 0. */
            "_p2n_co = {'V_ADD_CO_U32': lambda a, b: (a + b, (a + b) >> 32),\n"
            "  'V_SUB_CO_U32': lambda a, b: (a - b, int(b > a)), 'V_SUBREV_CO_U32': lambda a, b: (b - a, int(a > b))}\n"
            "def _p2n_valu_runner(inst, pc, arch, base):\n"
            "  ws, cls, co = (64 if arch == 'cdna' else 32), type(inst).__name__, base in _p2n_co\n"
            "  op = _p2n_co[base] if co else _p2n_valu[base]\n"
            "  F = lambda k: int(getattr(inst, k, 0) or 0)\n"
            "  sat = base in _p2n_sat\n"
            "  if sat != bool(F('clmp')): return None\n"
            "  if any(F(k) for k in ('omod', 'neg', 'abs', 'opsel', 'src0_neg', 'src0_abs', 'src1_neg', 'src1_abs')): return None\n"
            "  if ('SDWA' in cls and cls != 'VOP2_SDWA') or 'DPP' in cls: return None\n"
            "  sel = None\n"
            "  if cls == 'VOP2_SDWA':\n"
            /* SDWA (gfx9): sources from VGPRs (an SGPR where S0/S1 is set), each narrowed to the byte/word its
             * SEL names (6 = the dword), sign-extended where SEXT is set; the result goes to DST_SEL's field,
             * the rest of the register zeroed (UNUSED_PAD), sign-filled (UNUSED_SEXT) or kept (UNUSED_PRESERVE) */
            "    n = lambda f: f.offset - 256 if hasattr(f, 'offset') else int(f)\n"
            "    srcs = [n(inst.vsrc0) + (0 if F('s0') else 256), n(inst.vsrc1) + (0 if F('s1') else 256)]\n"
            "    sel = ((F('src0_sel'), F('src0_sext')), (F('src1_sel'), F('src1_sext')), F('dst_sel'), F('dst_unused'))\n"
            "  else:\n"
            "    srcs = [getattr(inst, k) for k in ('src0', 'vsrc1', 'src1', 'src2') if getattr(inst, k, None) is not None]\n"
            "    srcs = [x.offset if hasattr(x, 'offset') else int(x) for x in srcs]\n"
            "  if any(not (o >= 256 or o < 128 or 128 <= o <= 208 or o == 255) for o in srcs): return None\n"
            "  wide = base == 'V_CVT_I32_F64'\n"
            "  if wide and any(128 <= o < 256 for o in srcs): return None\n"
            "  lit = int(getattr(inst, 'literal', 0) or 0)\n"
            "  vd, nxt = inst.vdst.offset - 256, pc + inst.size()\n"
            "  lo, hi, ex_lo, vcc = emu.PC_LO_IDX, emu.PC_HI_IDX, emu.EXEC_LO.offset, emu.VCC_LO.offset\n"
            "  def fxn(sgpr, vgpr, *rest):\n"
            "    r = (ctypes.c_uint32 * emu.SGPR_COUNT).from_address(sgpr.value)\n"
            "    v = (ctypes.c_uint32 * (256 * ws)).from_address(vgpr.value)\n"
            "    ex = r[ex_lo] | (r[ex_lo + 1] << 32) if ws == 64 else r[ex_lo]\n"
            "    def rd(o, l):\n"
            "      if o >= 256: return v[(o - 256) * ws + l]\n"
            "      if o == 255: return lit\n"
            "      if o >= 193: return (192 - o) & 0xffffffff\n"
            "      if o >= 128: return o - 128\n"
            "      return r[o]\n"
            "    def narrow(x, s):\n"
            "      if s[0] >= 6: return x\n"
            "      sh, w = (8 * s[0], 8) if s[0] < 4 else (16 * (s[0] - 4), 16)\n"
            "      x = x >> sh & ((1 << w) - 1)\n"
            "      return (x - (1 << w)) & 0xffffffff if s[1] and x >> (w - 1) else x\n"
            "    def place(x, old):\n"
            "      if sel[2] >= 6: return x\n"
            "      sh, w = (8 * sel[2], 8) if sel[2] < 4 else (16 * (sel[2] - 4), 16)\n"
            "      m = ((1 << w) - 1) << sh\n"
            "      y = (x << sh) & m\n"
            "      if sel[3] == 2: return (old & ~m & 0xffffffff) | y\n"
            "      if sel[3] == 1 and x >> (w - 1) & 1: return (y | (0xffffffff << (sh + w))) & 0xffffffff\n"
            "      return y\n"
            "    res, carry = {}, 0\n"
            "    for l in range(ws):\n"
            "      if not ex >> l & 1: continue\n"
            "      a = [rd(o, l) | rd(o + 1, l) << 32 if wide else rd(o, l) for o in srcs]\n"
            "      if sel: a = [narrow(a[0], sel[0]), narrow(a[1], sel[1])]\n"
            "      if co:\n"
            "        x, c = op(*a)\n"
            "        carry |= (c & 1) << l\n"
            "      else: x = op(*a, *([0] * (3 - len(a))))\n"
            "      x = (min(max(x, -0x80000000), 0x7fffffff) if sat else x) & 0xffffffff\n"
            "      res[l] = place(x, v[vd * ws + l]) if sel else x\n"
            "    for l, x in res.items(): v[vd * ws + l] = x\n"
            "    if co:\n"
            "      r[vcc] = carry & 0xffffffff\n"
            "      if ws == 64: r[vcc + 1] = carry >> 32\n"
            "    r[lo], r[hi] = nxt & 0xffffffff, nxt >> 32\n"
            "  prg = types.SimpleNamespace(arg=types.SimpleNamespace(globals=[0, 1]))\n"
            "  return (prg, types.SimpleNamespace(fxn=fxn))\n"
            /* CDNA names the "return the pre-op value" bit of an atomic SC0, RDNA GLC; the emulator asks only for
             * 'glc' (emu.py _compile_mem_op), so no atomic returned its old value on gfx950: atom.add tickets were
             * all 0 and every compare-and-swap loop spun forever. Answer 'glc' with SC0 where an instruction has no
             * GLC field. */
            "_p2n_orig_iattr = emu._iattr\n"
            "def _p2n_iattr(inst, name, default=0):\n"
            "  if name == 'glc' and not hasattr(inst, 'glc') and hasattr(inst, 'sc0'): name = 'sc0'\n"
            "  return _p2n_orig_iattr(inst, name, default)\n"
            "emu._iattr = _p2n_iattr\n"
            /* DS loads: the emulator reads LDS at every lane's address, inactive lanes too (_compile_mem_op gives DS
             * sources no '_active', so pcode.py's _handle_mem_load loads ungated), and an inactive lane's stale
             * address register can point past the LDS buffer (SIGSEGV) — a block's last thread reading s[4092]
             * alone, a spinning half-wave. Give DS sources the lane's EXEC bit, as FLAT/GLOBAL ones have: the
             * handler records the instruction's context, parse_pcode adds '_active' from it. */
            "_p2n_mem_ctx = [None, None]\n"
            "_p2n_orig_mem_op = emu._compile_mem_op\n"
            "def _p2n_mem_op(inst, ctx):\n"
            "  _p2n_mem_ctx[:] = [ctx, inst]\n"
            "  try: return _p2n_orig_mem_op(inst, ctx)\n"
            "  finally: _p2n_mem_ctx[:] = [None, None]\n"
            "for _k, _h in list(emu._INST_HANDLERS.items()):\n"
            "  if _h is _p2n_orig_mem_op: emu._INST_HANDLERS[_k] = _p2n_mem_op\n"
            "_p2n_orig_parse = emu.parse_pcode\n"
            "def _p2n_parse(pcode, srcs=None):\n"
            "  c = _p2n_mem_ctx[0]\n"
            "  if c is not None and srcs and '_lds' in srcs and '_active' not in srcs and 'laneId' in srcs:\n"
            "    srcs = dict(srcs, _active=emu._lane_active(c.rexec(), srcs['laneId']))\n"
            /* DS d16 loads write one half of VDST and keep the other (ds_load_u16_d16 / _d16_hi and the byte forms);
             * the emulator wrote the loaded half zero-extended into the whole register (for _hi into the low half):
             * merge it with the register's old value here. */
            "  pv, assigns = _p2n_orig_parse(pcode, srcs)\n"
            "  inst = _p2n_mem_ctx[1]\n"
            "  if c is not None and srcs and '_lds' in srcs and 'D16' in getattr(getattr(inst, 'op', None), 'name', ''):\n"
            "    old = c.rvgpr_dyn(c.inst_field(type(inst).vdst), srcs['laneId'])\n"
            "    out = []\n"
            "    for d, v in assigns:\n"
            "      if d.startswith('RETURN_DATA[15') or d.startswith('RETURN_DATA[31'):\n"
            "        v16 = v.cast(emu.dtypes.uint32) & emu._c(0xffff)\n"
            "        v = (old & emu._c(0xffff0000)) | v16 if d.startswith('RETURN_DATA[15') else (old & emu._c(0xffff)) | (v16 << emu._c(16))\n"
            "        d = 'RETURN_DATA[31:0]'\n"
            "      out.append((d, v))\n"
            "    assigns = out\n"
            "  return pv, assigns\n"
            "emu.parse_pcode = _p2n_parse\n"
            /* RDNA v_add_nc_i16 / v_sub_nc_i16 with clamp: the emulator skips the clamp of 16-bit signed ops
             * (emu.py _int_clamp), so saturating 16-bit adds wrapped. OPSEL bit 0/1 picks the high half of src0/src1,
             * bit 3 the half of VDST written (the other half is kept, as for a true16 register half). */
            "def _p2n_i16sat(inst, pc, arch, name):\n"
            "  ws, os_ = 32, int(getattr(inst, 'opsel', 0) or 0)\n"
            "  if any(int(getattr(inst, k, 0) or 0) for k in ('omod', 'neg', 'abs')): return None\n"
            "  s0, s1 = inst.src0.offset, inst.src1.offset\n"
            "  if any(not (o >= 256 or o < 128 or 128 <= o <= 208) for o in (s0, s1)): return None\n"
            "  vd, nxt = inst.vdst.offset - 256, pc + inst.size()\n"
            "  lo, hi, ex_lo = emu.PC_LO_IDX, emu.PC_HI_IDX, emu.EXEC_LO.offset\n"
            "  x16 = lambda x, h: (lambda y: y - 0x10000 if y & 0x8000 else y)(x >> 16 & 0xffff if h else x & 0xffff)\n"
            "  def fxn(sgpr, vgpr, *rest):\n"
            "    r = (ctypes.c_uint32 * emu.SGPR_COUNT).from_address(sgpr.value)\n"
            "    v = (ctypes.c_uint32 * (256 * ws)).from_address(vgpr.value)\n"
            "    ex = r[ex_lo]\n"
            "    def rd(o, l):\n"
            "      if o >= 256: return v[(o - 256) * ws + l]\n"
            "      if o >= 193: return (192 - o) & 0xffffffff\n"
            "      if o >= 128: return o - 128\n"
            "      return r[o]\n"
            "    for l in range(ws):\n"
            "      if not ex >> l & 1: continue\n"
            "      a, b = x16(rd(s0, l), os_ & 1), x16(rd(s1, l), os_ >> 1 & 1)\n"
            "      x = min(max(a + b if name == 'V_ADD_NC_I16' else a - b, -0x8000), 0x7fff) & 0xffff\n"
            "      old = v[vd * ws + l]\n"
            "      v[vd * ws + l] = (old & 0xffff) | x << 16 if os_ >> 3 & 1 else (old & 0xffff0000) | x\n"
            "    r[lo], r[hi] = nxt & 0xffffffff, nxt >> 32\n"
            "  prg = types.SimpleNamespace(arg=types.SimpleNamespace(globals=[0, 1]))\n"
            "  return (prg, types.SimpleNamespace(fxn=fxn))\n"
            "emu._decode_at = _p2n_decode_at\n"
            /* the emulator keeps inline constants in the SGPR file (slot 240 + k) and HW_REGISTERS at slots
             * SGPR_COUNT-16.. (= 244..259): _init_wave's HW_ID (HW_REGISTERS[4]) lands on slot 248, the inline
             * constant 1/(2*pi), so v_mul_f32 v0, 0.15915494, v1 multiplies by the wave's index (0 for wave 0).
             * LLVM uses that constant for every sin/cos range reduction. Restore it: our code objects never read
             * HW_ID (no s_getreg_b32). */
            "_p2n_orig_init_wave = emu._init_wave\n"
            "def _p2n_init_wave(*a, **k):\n"
            "  st = _p2n_orig_init_wave(*a, **k)\n"
            "  st._write_sgpr(248, emu.F32_INLINE[248])\n"
            "  return st\n"
            "emu._init_wave = _p2n_init_wave\n";
        PyObject *g = PyDict_New();
        PyObject *bi = PyEval_GetBuiltins();
        if (g && bi) {
            PyDict_SetItemString(g, "__builtins__", bi);
            PyDict_SetItemString(g, "emu", mod);
            PyObject *rr = PyRun_String(pc_ops, Py_file_input, g, g);
            if (!rr) PyErr_Print();
            Py_XDECREF(rr);
            /* a debugging aid: $P2N_HIP_STANDIN_PY names a Python file run here with `emu` bound (e.g. to wrap
             * emu._decode_at and print registers after each instruction) */
            const char *extra = getenv("P2N_HIP_STANDIN_PY");
            FILE *ef = extra && *extra ? fopen(extra, "r") : NULL;
            if (ef) {
                PyObject *er = PyRun_File(ef, extra, Py_file_input, g, g);
                if (!er) PyErr_Print();
                Py_XDECREF(er);
                fclose(ef);
            } else if (extra && *extra) {
                fprintf(stderr, "hip stand-in: P2N_HIP_STANDIN_PY: cannot open %s\n", extra);
            }
        }
        Py_XDECREF(g);
        run_asm = PyObject_GetAttrString(mod, "run_asm");
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
