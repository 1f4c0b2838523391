/* amdgpu_devlibs.c — ROCm device-library math: ocml.bc linked into the AMDGPU module in process, then the
 * __oclc_* control constants the library reads are defined for the target (docs/amdgpu.md "Math").
 *
 * Only modules whose hooks called an __ocml_* function pay for it (amd_rt_fn routes sin/cos/ex2/lg2/tanh
 * .approx there). The file is read once per process and cut down to those functions (subset()); every compile
 * parses that lazily in its own context, and since ocml defines everything linkonce_odr, LLVMLinkModules2
 * pulls only the functions reachable from our calls (the IR mover materialises linkonce definitions on
 * reference) — no per-function walk needed. Measured cost: docs/amdgpu.md "Math".
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

#ifndef P2N_ROCM_BITCODE_DIR
#define P2N_ROCM_BITCODE_DIR "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
#endif

/* The library functions the hooks call (amd_rt_fn) and the PTX they implement (for diagnostics). Only these
 * and what they reach are kept in the per-process copy (subset()); a call to any other __ocml_* function is an
 * internal error after linking, never an undefined symbol. */
static const char *const lib_fns[][2] = {{"__ocml_sin_f32", "sin.approx"}, {"__ocml_cos_f32", "cos.approx"},
                                         {"__ocml_exp2_f32", "ex2.approx"}, {"__ocml_log2_f32", "lg2.approx"},
                                         {"__ocml_tanh_f32", "tanh.approx"}};
enum { N_LIB_FNS = sizeof lib_fns / sizeof lib_fns[0] };

static const char *ptx_name(const char *fn) {
    for (unsigned i = 0; i < N_LIB_FNS; i++)
        if (!strcmp(fn, lib_fns[i][0])) return lib_fns[i][1];
    return fn;
}

/* the process-wide copy of ocml.bc (never freed: every later compile parses from it) */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char *ocml_bytes;
static size_t ocml_size;
static char ocml_where[1024]; /* the path read, or the places searched when not found */

static bool read_file(const char *path, char **data, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 256 * 1024;
            char *nb = realloc(buf, cap);
            if (!nb) { free(buf); fclose(f); return false; }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    bool ok = !ferror(f) && n > 0;
    fclose(f);
    if (!ok) { free(buf); return false; }
    *data = buf;
    *size = n;
    return true;
}

/* Replace the cached ocml.bc (190 KB, ~500 functions) by bitcode holding only lib_fns and what they reach,
 * still linkonce_odr: every compile then parses a few KB instead of the whole library's symbol table. Built
 * once, in a private context; on any failure the whole library stays. */
static void subset(void) {
    LLVMContextRef pc = LLVMContextCreate();
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(ocml_bytes, ocml_size, "ocml.bc", 0);
    LLVMModuleRef lib = NULL;
    if (LLVMGetBitcodeModuleInContext2(pc, buf, &lib)) {
        LLVMDisposeMemoryBuffer(buf);
        LLVMContextDispose(pc);
        return;
    }
    LLVMModuleRef seed = LLVMModuleCreateWithNameInContext("ocml-subset", pc);
    LLVMSetDataLayout(seed, LLVMGetDataLayoutStr(lib));
    LLVMSetTarget(seed, LLVMGetTarget(lib));
    LLVMTypeRef f32 = LLVMFloatTypeInContext(pc);
    for (unsigned i = 0; i < N_LIB_FNS; i++) LLVMAddFunction(seed, lib_fns[i][0], LLVMFunctionType(f32, &f32, 1, 0));
    /* a declaration in the destination pulls the linkonce definition and, through it, its callees */
    if (!LLVMLinkModules2(seed, lib)) {
        bool all = true;
        for (unsigned i = 0; i < N_LIB_FNS; i++)
            all = all && !LLVMIsDeclaration(LLVMGetNamedFunction(seed, lib_fns[i][0]));
        LLVMMemoryBufferRef out = all ? LLVMWriteBitcodeToMemoryBuffer(seed) : NULL;
        size_t n = out ? LLVMGetBufferSize(out) : 0;
        char *copy = n ? malloc(n) : NULL;
        if (copy) {
            memcpy(copy, LLVMGetBufferStart(out), n);
            free(ocml_bytes);
            ocml_bytes = copy;
            ocml_size = n;
        }
        if (out) LLVMDisposeMemoryBuffer(out);
    }
    LLVMDisposeModule(seed);
    LLVMContextDispose(pc);
}

static void load(void) {
    /* P2N_ROCM_DEVICE_LIBS (a directory) replaces the built-in search path */
    const char *env = getenv("P2N_ROCM_DEVICE_LIBS");
    const char *dirs[] = {P2N_ROCM_BITCODE_DIR, "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode", "/opt/rocm/amdgcn/bitcode"};
    unsigned nd = sizeof dirs / sizeof dirs[0];
    if (env && *env) { dirs[0] = env; nd = 1; }
    size_t used = 0;
    ocml_where[0] = 0;
    for (unsigned i = 0; i < nd; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/ocml.bc", dirs[i]);
        if (read_file(path, &ocml_bytes, &ocml_size)) {
            snprintf(ocml_where, sizeof ocml_where, "%s", path);
            subset();
            return;
        }
        int w = snprintf(ocml_where + used, sizeof ocml_where - used, "%s%s", used ? ", " : "", path);
        if (w > 0 && (size_t)w < sizeof ocml_where - used) used += (size_t)w;
    }
}

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

static bool is_lib_fn(const char *name) { return strncmp(name, "__ocml", 6) == 0; }

/* first __ocml_* function our code calls, or NULL */
static const char *needs_ocml(LLVMModuleRef M) {
    for (LLVMValueRef f = LLVMGetFirstFunction(M); f; f = LLVMGetNextFunction(f)) {
        size_t n;
        const char *name = LLVMGetValueName2(f, &n);
        if (LLVMIsDeclaration(f) && is_lib_fn(name) && LLVMGetFirstUse(f)) return name;
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

bool amdgpu_link_devlibs(LLVMContextRef C, LLVMModuleRef M, const target_desc *t, p2n_diags *d, bool *internal) {
    const char *first = needs_ocml(M);
    if (!first) return true;
    pthread_once(&load_once, load);
    if (!ocml_bytes) {
        diag_plain(d, "error", "ROCm device library ocml.bc not found (needed for %s on %s); searched: %s. Install "
                   "rocm-device-libs or set P2N_ROCM_DEVICE_LIBS to the directory holding ocml.bc",
                   ptx_name(first), t->name, ocml_where);
        return false;
    }
    int isa = isa_version(t->cpu);
    if (isa < 0) {
        diag_plain(d, "error", "internal compiler error: no ISA version for %s", t->cpu);
        *internal = true;
        return false;
    }
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(ocml_bytes, ocml_size, "ocml.bc", 0);
    LLVMModuleRef lib = NULL;
    if (LLVMGetBitcodeModuleInContext2(C, buf, &lib)) {
        LLVMDisposeMemoryBuffer(buf);
        diag_plain(d, "error", "ROCm device library %s is not bitcode this LLVM can read", ocml_where);
        return false;
    }
    /* same layout and triple as ours, so the linker has nothing to warn about (5.2 bitcode, older layout) */
    LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(M));
    LLVMSetTarget(lib, LLVMGetTarget(M));
    if (LLVMLinkModules2(M, lib)) { /* lib is destroyed either way */
        diag_plain(d, "error", "internal compiler error: linking the ROCm device library %s failed", ocml_where);
        *internal = true;
        return false;
    }
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
    /* a control constant this ocml reads and we do not know, or a library function outside lib_fns, would stay
     * an undefined symbol */
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
            diag_plain(d, "error", "internal compiler error: %s reads an unknown control constant %s", ocml_where, name);
            *internal = true;
            return false;
        }
    }
    return true;
}
