/* amdgpu_devlibs.c — ROCm device libraries linked into the AMDGPU module in process: ocml.bc (math) and
 * ockl.bc (HIP's hostcall printf and device heap, amdgpu_printf.c), then the __oclc_* control constants the
 * libraries read are defined for the target (docs/amdgpu.md "Math", "printf, malloc and free").
 *
 * Only modules whose hooks called an __ocml_* / __ockl_* function pay for it (amd_rt_fn routes sin/cos/ex2/lg2/
 * tanh .approx to ocml; printf, malloc and free go to ockl). Each file is read once per process and cut down to
 * the functions we call (subset()); every compile parses that lazily in its own context, and since the libraries
 * define everything linkonce_odr, LLVMLinkModules2 pulls only the functions reachable from our calls (the IR
 * mover materialises linkonce definitions on reference) — no per-function walk needed. Measured cost:
 * docs/amdgpu.md "Math".
 *
 * Order matters (shared/docs/targets.md §1.8): the constants are given initialisers AFTER linking. A module of
 * linkonce constants linked first is dropped (nothing references it yet), the loads stay external, lld
 * rejects the undefined symbols, and __oclc_ISA_version does not fold, leaving gfx9-only code on gfx10+. */
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Linker.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amdgpu_internal.h"
#include "llvm_pass.h"
#include "support.h"

#ifndef P2N_ROCM_BITCODE_DIR
#define P2N_ROCM_BITCODE_DIR "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
#endif

/* The library functions the hooks call (amd_rt_fn, amdgpu_printf.c) and the PTX they implement (for
 * diagnostics). Only these and what they reach are kept in the per-process copies (subset()); a call to any
 * other library function is an internal error after linking, never an undefined symbol. */
static const char *const ocml_fns[][2] = {{"__ocml_sin_f32", "sin.approx"}, {"__ocml_cos_f32", "cos.approx"},
                                          {"__ocml_exp2_f32", "ex2.approx"}, {"__ocml_log2_f32", "lg2.approx"},
                                          {"__ocml_tanh_f32", "tanh.approx"}};
static const char *const ockl_fns[][2] = {
    {"__ockl_printf_begin", "printf"}, {"__ockl_printf_append_args", "printf"},
    {"__ockl_printf_append_string_n", "printf"}, {"__ockl_dm_alloc", "malloc"}, {"__ockl_dm_dealloc", "free"}};

/* one library: the process-wide copy of its bitcode (never freed: every later compile parses from it) */
typedef struct devlib {
    const char *file, *prefix; /* ocml.bc, "__ocml" */
    const char *const (*fns)[2];
    unsigned nfns;
    pthread_once_t once;
    char *bytes;
    size_t size;
    char where[1024]; /* the path read, or the places searched when not found */
} devlib;

static devlib libs[] = {
    {"ocml.bc", "__ocml", ocml_fns, sizeof ocml_fns / sizeof ocml_fns[0], PTHREAD_ONCE_INIT, NULL, 0, {0}},
    {"ockl.bc", "__ockl", ockl_fns, sizeof ockl_fns / sizeof ockl_fns[0], PTHREAD_ONCE_INIT, NULL, 0, {0}}};
enum { N_LIBS = sizeof libs / sizeof libs[0] };

static const char *ptx_name(const char *fn) {
    for (unsigned l = 0; l < N_LIBS; l++)
        for (unsigned i = 0; i < libs[l].nfns; i++)
            if (!strcmp(fn, libs[l].fns[i][0])) return libs[l].fns[i][1];
    return fn;
}

/* Replace the cached library (ocml.bc: 190 KB, ~500 functions) by bitcode holding only L->fns and what they
 * reach, still linkonce_odr: every compile then parses a few KB instead of the whole library's symbol table.
 * Built once, in a private context; on any failure the whole library stays. */
static void subset(devlib *L) {
    LLVMContextRef pc = LLVMContextCreate();
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(L->bytes, L->size, L->file, 0);
    LLVMModuleRef lib = NULL;
    if (LLVMGetBitcodeModuleInContext2(pc, buf, &lib)) {
        LLVMDisposeMemoryBuffer(buf);
        LLVMContextDispose(pc);
        return;
    }
    LLVMModuleRef seed = LLVMModuleCreateWithNameInContext("devlib-subset", pc);
    LLVMSetDataLayout(seed, LLVMGetDataLayoutStr(lib));
    LLVMSetTarget(seed, LLVMGetTarget(lib));
    bool all = true;
    for (unsigned i = 0; i < L->nfns && all; i++) { /* declared with the library's own types */
        LLVMValueRef f = LLVMGetNamedFunction(lib, L->fns[i][0]);
        all = f != NULL;
        if (all) LLVMAddFunction(seed, L->fns[i][0], LLVMGlobalGetValueType(f));
    }
    if (!all) LLVMDisposeModule(lib);
    /* a declaration in the destination pulls the linkonce definition and, through it, its callees */
    if (all && !LLVMLinkModules2(seed, lib)) {
        for (unsigned i = 0; i < L->nfns; i++)
            all = all && !LLVMIsDeclaration(LLVMGetNamedFunction(seed, L->fns[i][0]));
        LLVMMemoryBufferRef out = all ? LLVMWriteBitcodeToMemoryBuffer(seed) : NULL;
        size_t n = out ? LLVMGetBufferSize(out) : 0;
        char *copy = n ? malloc(n) : NULL;
        if (copy) {
            memcpy(copy, LLVMGetBufferStart(out), n);
            free(L->bytes);
            L->bytes = copy;
            L->size = n;
        }
        if (out) LLVMDisposeMemoryBuffer(out);
    }
    LLVMDisposeModule(seed);
    LLVMContextDispose(pc);
}

static void load(devlib *L) {
    /* P2N_ROCM_DEVICE_LIBS (a directory) replaces the built-in search path */
    const char *env = getenv("P2N_ROCM_DEVICE_LIBS");
    const char *dirs[] = {P2N_ROCM_BITCODE_DIR, "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode", "/opt/rocm/amdgcn/bitcode"};
    unsigned nd = sizeof dirs / sizeof dirs[0];
    if (env && *env) { dirs[0] = env; nd = 1; }
    size_t used = 0;
    L->where[0] = 0;
    for (unsigned i = 0; i < nd; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dirs[i], L->file);
        uint8_t *bytes = NULL;
        size_t size = 0;
        if (p2n_read_file(path, &bytes, &size) == 0 && size == 0) { /* an empty file is no library */
            free(bytes);
            bytes = NULL;
        }
        if (bytes) {
            L->bytes = (char *)bytes;
            L->size = size;
            snprintf(L->where, sizeof L->where, "%s", path);
            subset(L);
            return;
        }
        int w = snprintf(L->where + used, sizeof L->where - used, "%s%s", used ? ", " : "", path);
        if (w > 0 && (size_t)w < sizeof L->where - used) used += (size_t)w;
    }
}
static void load_ocml(void) { load(&libs[0]); }
static void load_ockl(void) { load(&libs[1]); }

/* gfxXYZ -> X*1000 + Y*100 + Z (Y, Z hex digits: gfx90a = 9.0.10 -> 9010, gfx1201 -> 12001) */
static int isa_version(const char *cpu) {
    size_t n = strlen(cpu);
    if (n < 6 || strncmp(cpu, "gfx", 3)) return -1;
    int major = 0;
    for (size_t i = 3; i < n - 2; i++) {
        if (cpu[i] < '0' || cpu[i] > '9') return -1;
        major = major * 10 + (cpu[i] - '0');
    }
    int d[2];
    for (unsigned k = 0; k < 2; k++) {
        char c = cpu[n - 2 + k];
        d[k] = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d[k] < 0) return -1;
    }
    return major * 1000 + d[0] * 100 + d[1];
}

static bool is_lib_fn(const char *name) { return !strncmp(name, "__ocml", 6) || !strncmp(name, "__ockl", 6); }

/* first function of library L our code calls, or NULL */
static const char *needs(LLVMModuleRef M, const devlib *L) {
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) {
        size_t n;
        const char *name = LLVMGetValueName2(f, &n);
        if (LLVMIsDeclaration(f) && !strncmp(name, L->prefix, 6) && LLVMGetFirstUse(f)) return name;
    }
    return NULL;
}

/* give the control constant NAME (declared by the library, or created) a private initialiser */
static void define_control(LLVMModuleRef M, const char *name, LLVMTypeRef ty, uint64_t value) {
    LLVMValueRef g = LLVMGetNamedGlobal(M, name);
    if (!g) g = LLVMAddGlobalInAddressSpace(M, ty, name, 4);
    if (!LLVMIsDeclaration(g)) return;
    LLVMSetInitializer(g, LLVMConstInt(LLVMGlobalGetValueType(g), value, 0));
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetVisibility(g, LLVMDefaultVisibility);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
}

static void internalize(LLVMValueRef g) {
    if (LLVMIsDeclaration(g)) return;
    size_t n;
    const char *name = LLVMGetValueName2(g, &n);
    LLVMLinkage lk = LLVMGetLinkage(g);
    if (!is_lib_fn(name) && lk != LLVMLinkOnceODRLinkage && lk != LLVMWeakODRLinkage) return;
    LLVMSetLinkage(g, LLVMInternalLinkage);
    LLVMSetVisibility(g, LLVMDefaultVisibility);
}

/* Link library L (needed for `first`) into M. Our declarations must have the library's types: another
 * rocm-device-libs release may change a signature (ockl's __ockl_dm_alloc once returned i64), and a call
 * through a mismatched type is undefined, not a link error. False: diagnosed. */
static bool link_one(LLVMContextRef C, LLVMModuleRef M, devlib *L, const char *first, const target_desc *t,
                     p2n_diags *d, bool *internal) {
    pthread_once(&L->once, L == &libs[0] ? load_ocml : load_ockl);
    if (!L->bytes) {
        diag_plain(d, "error", "ROCm device library %s not found (needed for %s on %s); searched: %s. Install "
                   "rocm-device-libs or set P2N_ROCM_DEVICE_LIBS to the directory holding %s",
                   L->file, ptx_name(first), t->name, L->where, L->file);
        return false;
    }
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(L->bytes, L->size, L->file, 0);
    LLVMModuleRef lib = NULL;
    if (LLVMGetBitcodeModuleInContext2(C, buf, &lib)) {
        LLVMDisposeMemoryBuffer(buf);
        diag_plain(d, "error", "ROCm device library %s is not bitcode this LLVM can read", L->where);
        return false;
    }
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) {
        size_t n;
        const char *name = LLVMGetValueName2(f, &n);
        if (!LLVMIsDeclaration(f) || strncmp(name, L->prefix, 6) || !LLVMGetFirstUse(f)) continue;
        LLVMValueRef lf = LLVMGetNamedFunction(lib, name);
        if (lf && LLVMGlobalGetValueType(lf) != LLVMGlobalGetValueType(f)) {
            diag_plain(d, "error", "ROCm device library %s defines %s (for %s) with another signature than this "
                       "ptx2native calls; use the rocm-device-libs it was built for", L->where, name, ptx_name(name));
            LLVMDisposeModule(lib);
            return false;
        }
    }
    /* same layout and triple as ours, so the linker has nothing to warn about (5.2 bitcode, older layout) */
    LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(M));
    LLVMSetTarget(lib, LLVMGetTarget(M));
    if (LLVMLinkModules2(M, lib)) { /* lib is destroyed either way */
        diag_plain(d, "error", "internal compiler error: linking the ROCm device library %s failed", L->where);
        *internal = true;
        return false;
    }
    return true;
}

bool amdgpu_link_devlibs(LLVMContextRef C, LLVMModuleRef M, const target_desc *t, p2n_diags *d, bool *internal) {
    const char *first[N_LIBS];
    bool any = false;
    for (unsigned l = 0; l < N_LIBS; l++) any |= (first[l] = needs(M, &libs[l])) != NULL;
    if (!any) return true;
    int isa = isa_version(t->cpu);
    if (isa < 0) {
        diag_plain(d, "error", "internal compiler error: no ISA version for %s", t->cpu);
        *internal = true;
        return false;
    }
    for (unsigned l = 0; l < N_LIBS; l++)
        if (first[l] && !link_one(C, M, &libs[l], first[l], t, d, internal)) return false;
    /* after linking (see the header): wave size, no DAZ / finite-only / unsafe math (IEEE, like our FP
     * environment), correctly rounded f32 sqrt, code object v5 */
    LLVMContextRef c = C;
    LLVMTypeRef i8 = LLVMInt8TypeInContext(c), i32 = LLVMInt32TypeInContext(c);
    bool w64 = t->wave_size == 64;
    define_control(M, "__oclc_ISA_version", i32, (uint64_t)isa);
    define_control(M, "__oclc_ABI_version", i32, 500);
    define_control(M, "__oclc_wavefrontsize64", i8, w64);
    define_control(M, "__oclc_wavefrontsize_log2", i8, w64 ? 6 : 5);
    define_control(M, "__oclc_daz_opt", i8, 0);
    define_control(M, "__oclc_finite_only_opt", i8, 0);
    define_control(M, "__oclc_unsafe_math_opt", i8, 0);
    define_control(M, "__oclc_correctly_rounded_sqrt32", i8, 1);
    /* no exported library symbols: everything linked becomes internal (dropped when unused after inlining) */
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) internalize(f);
    for (LLVMValueRef g = LLVMGetFirstGlobal(M); g; g = LLVMGetNextGlobal(g)) internalize(g);
    /* ockl has unnamed internal globals and functions: the AMDGPU asm printer and the MC lowering name them
     * __unnamed_N independently ("symbol '__unnamed_1' is already defined"), and the per-kernel split finds
     * values by name */
    unsigned anon = 0;
    char nm[32];
    for (LLVMValueRef g = LLVMGetFirstGlobal(M); g; g = LLVMGetNextGlobal(g)) {
        size_t n;
        LLVMGetValueName2(g, &n);
        if (!n) snprintf(nm, sizeof nm, "__p2n_devlib.%u", anon++), LLVMSetValueName2(g, nm, strlen(nm));
    }
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) {
        size_t n;
        LLVMGetValueName2(f, &n);
        if (!n) snprintf(nm, sizeof nm, "__p2n_devlib.%u", anon++), LLVMSetValueName2(f, nm, strlen(nm));
    }
    /* a control constant a library reads and we do not know, or a library function outside ocml_fns/ockl_fns,
     * would stay an undefined symbol */
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) {
        size_t n;
        const char *name = LLVMGetValueName2(f, &n);
        if (LLVMIsDeclaration(f) && is_lib_fn(name) && LLVMGetFirstUse(f)) {
            diag_plain(d, "error", "internal compiler error: %s is not in the ROCm device library subset", name);
            *internal = true;
            return false;
        }
    }
    for (LLVMValueRef g = LLVMGetFirstGlobal(M); g; g = LLVMGetNextGlobal(g)) {
        size_t n;
        const char *name = LLVMGetValueName2(g, &n);
        if (LLVMIsDeclaration(g) && !strncmp(name, "__oclc_", 7)) {
            diag_plain(d, "error", "internal compiler error: a ROCm device library reads an unknown control constant "
                       "%s", name);
            *internal = true;
            return false;
        }
    }
    return true;
}

/* The lowering list's amdgpu-link-devlibs pass: device-library math (ocml) and ockl, before amdgpu-fp-env. */
bool amdgpu_pass_link_devlibs(llvm_pass_ctx *X) { return amdgpu_link_devlibs(X->C, X->M, X->t, X->d, &X->internal); }
