/* module.c — cuModuleLoad*, cuLibrary*, function/global lookup.
 *
 * Accepted images (sniffed in this order):
 *   1. a fatbin wrapper {0x466243B1, version, data, ...} (what cudart passes to cuLibraryLoadData),
 *   2. a fatbin container (0xBA55ED50),
 *   3. an ELF file: our host code object (ELF with __p2n_module) goes to the backend as is; an NVIDIA cubin
 *      (e_machine EM_CUDA) is CUDA_ERROR_NO_BINARY_FOR_GPU,
 *   4. the image cuLinkComplete returned (P2N_LINKED_MAGIC, link.c): native code, handed on as it is,
 *   5. otherwise NUL-terminated PTX text.
 * A fatbin wrapper of version 2 (nvcc -rdc=true) whose `data` container (nvlink's output) has no PTX: the PTX
 * of every relocatable container in its NULL-terminated `filename_or_fatbins` array is compiled linked into
 * one module (p2n_compile_linked; cudart-driver.md §7).
 * PTX (given directly, or the entry the fatbin library picks for the reported compute capability) is compiled
 * in process by p2n_compile() for the backend's code arch. Compile diagnostics (`file:line:col: error: ...`)
 * become the JIT error log (CU_JIT_ERROR_LOG_BUFFER) and the result is CUDA_ERROR_INVALID_PTX.
 * Before that, a fatbin container's native code recorded by `ptx2native-fatbin rewrite` in its ELF file's
 * `.p2n_native` section is looked up (native_lookup.c) and loaded instead; $P2N_REQUIRE_NATIVE=1 makes any
 * PTX compilation here an error (CUDA_ERROR_NO_BINARY_FOR_GPU).
 *
 * Modules and libraries are the same object here: a CUlibrary is a p2n_module, a CUkernel is a p2n_func
 * (cudart passes CUkernel handles as CUfunction, so they must be interchangeable).
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "jit_cache.h"
#include "link.h"
#include "native_lookup.h"
#include "p2n_fatbin.h"
#include "ptx2native.h"
#include "support.h"

static pthread_mutex_t mod_lock = PTHREAD_MUTEX_INITIALIZER;
static p2n_module **mods;
static size_t nmods, capmods;

static void list_add(p2n_module *m)
{
    pthread_mutex_lock(&mod_lock);
    if (nmods == capmods) {
        size_t nc = capmods ? capmods * 2 : 16;
        p2n_module **nm = realloc(mods, nc * sizeof *nm);
        if (!nm)
            abort();
        mods = nm;
        capmods = nc;
    }
    mods[nmods++] = m;
    pthread_mutex_unlock(&mod_lock);
}

static void list_remove(p2n_module *m)
{
    pthread_mutex_lock(&mod_lock);
    for (size_t i = 0; i < nmods; i++)
        if (mods[i] == m) {
            mods[i] = mods[--nmods];
            break;
        }
    if (nmods == 0) {
        free(mods);
        mods = NULL;
        capmods = 0;
    }
    pthread_mutex_unlock(&mod_lock);
}

/* ---- JIT options ---- */

typedef struct jit_opts {
    char *error_log;
    size_t error_log_size;
    int error_log_idx;
    char *info_log;
    size_t info_log_size;
    int info_log_idx;
    int wall_time_idx;
    p2n_options popt;
} jit_opts;

/* Testing aid: $P2N_FORCE_LACKS (comma-separated: "recursion") adds device_lacks bits to what the backend
 * found, so a backend whose device has the feature can run the code made for one without it (e.g. the CPU
 * backend running recursion through the explicit-stack transform, with $P2N_RECURSION_STACK bytes per thread:
 * tests/driver/run-no-recursion.sh). */
static unsigned forced_lacks(void)
{
    const char *e = getenv("P2N_FORCE_LACKS");
    unsigned bits = 0;
    for (const char *s = e; s && *s;) {
        size_t n = strcspn(s, ",");
        if (n == 9 && strncmp(s, "recursion", 9) == 0)
            bits |= P2N_LACKS_RECURSION;
        else if (n)
            fprintf(stderr, "libcuda (ptx2native): P2N_FORCE_LACKS: unknown item '%.*s' (recursion)\n", (int)n, s);
        s += n + (s[n] == ',');
    }
    return bits;
}

static CUresult parse_jit(unsigned n, CUjit_option *opts, void **vals, jit_opts *j)
{
    memset(j, 0, sizeof *j);
    j->error_log_idx = j->info_log_idx = j->wall_time_idx = -1;
    j->popt.arch = p2n_drv.be->jit_arch ? p2n_drv.be->jit_arch : p2n_drv.be->code_arch;
    j->popt.opt_level = 3;
    j->popt.emit = P2N_EMIT_OBJ;
    j->popt.device_lacks = p2n_drv.dev.device_lacks | forced_lacks();
    /* per-thread bytes of that explicit stack: $P2N_RECURSION_STACK (testing aid), else a CU_LIMIT_STACK_SIZE the
     * program raised above the compiler's default (16 KiB) before loading the module — a program that asks for a
     * deep stack gets it for its recursion too; modules loaded earlier keep the stack they were compiled with */
    const char *rs = getenv("P2N_RECURSION_STACK");
    size_t lim = p2n_drv_stack_limit_set();
    j->popt.recursion_stack = rs ? (unsigned)strtoul(rs, NULL, 10)
                            : lim > 16384 ? (unsigned)(lim < (1u << 30) ? lim : (1u << 30)) : 0;
    j->popt.defer_unsupported = p2n_drv.dev.defer_unsupported;
    /* $P2N_FP_ATOMICS=native: the device's float atomic add for atom/red.add.f32 on global memory (AMDGPU; see
     * ptx2native --fp-atomics), for JIT-compiled modules only: precompiled code keeps what it was built with */
    const char *fa = getenv("P2N_FP_ATOMICS");
    j->popt.fp_atomics_native = fa && strcmp(fa, "native") == 0;
    if (fa && *fa && strcmp(fa, "native") != 0 && strcmp(fa, "exact") != 0)
        fprintf(stderr, "libcuda (ptx2native): P2N_FP_ATOMICS: unknown value '%s' (exact, native)\n", fa);
    /* the CPU runtime's ways of running a kernel other than the fastest (cpu_launch.c) exist only in code that
     * was compiled with them: any of these variables set, the JIT compiles every entry */
    static const char *const ways[] = {"P2N_CPU_THREADLOOP", "P2N_CPU_CORO", "P2N_CPU_WORK_ITEM_LOOPS"};
    for (unsigned w = 0; w < sizeof ways / sizeof *ways; w++) {
        const char *e = getenv(ways[w]);
        if (e && e[0] == '0') j->popt.host_fallback_entries = 1;
    }
    if (n == 0)
        return CUDA_SUCCESS;
    if (!opts || !vals)
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < n; i++) {
        uintptr_t v = (uintptr_t)vals[i];
        switch (opts[i]) {
        case CU_JIT_ERROR_LOG_BUFFER: j->error_log = vals[i]; break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: j->error_log_size = v; j->error_log_idx = (int)i; break;
        case CU_JIT_INFO_LOG_BUFFER: j->info_log = vals[i]; break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: j->info_log_size = v; j->info_log_idx = (int)i; break;
        case CU_JIT_WALL_TIME: j->wall_time_idx = (int)i; break;
        case CU_JIT_MAX_REGISTERS: j->popt.max_reg_count = (int)(unsigned)v; break;
        case CU_JIT_OPTIMIZATION_LEVEL: j->popt.opt_level = v > 3 ? 3 : (int)v; break;
        case CU_JIT_FMA: j->popt.no_fmad = v == 0; break;
        case CU_JIT_LOG_VERBOSE: j->popt.verbose = v != 0; break;
        default: break;   /* targets, caching, debug info, ...: no meaning for this compiler */
        }
    }
    return CUDA_SUCCESS;
}

static void write_log(char *buf, size_t size, int idx, void **vals, const char *text)
{
    if (!buf || size == 0) {
        if (idx >= 0 && vals)
            vals[idx] = (void *)(uintptr_t)0;
        return;
    }
    size_t n = text ? strlen(text) : 0;
    if (n > size - 1)
        n = size - 1;
    if (n)
        memcpy(buf, text, n);
    buf[n] = 0;
    if (idx >= 0 && vals)
        vals[idx] = (void *)(uintptr_t)(n + 1);
}

/* The virtual architecture a PTX text was written for: `.target sm_80` -> 80 (`sm_90a`, `sm_100f` -> 90, 100); 0 when
 * it names none. This, not the PTX ISA of `.version`, is what CUDA reports as a function's PTX_VERSION
 * (cudaFuncAttributes::ptxVersion): CUB multiplies it by 10 and dispatches to the tuning policy compiled for that
 * entry of __CUDA_ARCH_LIST__ (800 for -arch=sm_80), answering cudaErrorInvalidDeviceFunction when none matches. */
static int parse_ptx_target(const char *ptx, size_t len)
{
    const char *end = ptx + len;
    for (const char *p = ptx; p + 7 < end; p++) {
        if (memcmp(p, ".target", 7) != 0 || (p > ptx && !isspace((unsigned char)p[-1])))
            continue;
        const char *q = p + 7;
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        if (end - q < 4 || memcmp(q, "sm_", 3) != 0 || !isdigit((unsigned char)q[3]))
            return 0;
        int arch = 0;
        for (q += 3; q < end && isdigit((unsigned char)*q) && arch < 100000; q++)
            arch = arch * 10 + (*q - '0');
        return arch;
    }
    return 0;
}

/* ---- loading ---- */

typedef struct load_out {
    CUresult r;
    char *log;          /* malloc'd: error log text */
    uint8_t *image;     /* code object bytes */
    size_t size;
    int ptx_target;     /* highest `.target sm_XX` of the PTX compiled: XX; 0 = not from PTX */
} load_out;

/* Compiles n PTX texts for the backend; `link`: linked into one module (p2n_compile_linked: an .extern
 * that no input defines is an error), else one module compiled alone (p2n_compile). */
static void compile_inputs(const p2n_input *in, unsigned n, int link, const p2n_options *opt, load_out *o)
{
    if (p2n_drv_require_native()) {
        char msg[512];
        snprintf(msg, sizeof msg, "ptx2native: P2N_REQUIRE_NATIVE=1: refusing to JIT-compile the PTX of %s%s\n",
                 n ? in[0].filename : "(none)", n > 1 ? " and the modules linked with it" : "");
        o->r = CUDA_ERROR_NO_BINARY_FOR_GPU;
        o->log = strdup(msg);
        fprintf(stderr, "%s", msg);
        return;
    }
    for (unsigned k = 0; k < n; k++) {
        int v = parse_ptx_target(in[k].ptx, in[k].len);
        if (v > o->ptx_target)
            o->ptx_target = v;
    }
    /* compiled by an earlier run on this machine (jit_cache.h): no compiler is loaded at all */
    p2n_jit_key key = p2n_jit_cache_key(in, n, link, opt);
    char *cached_log = NULL;
    if (p2n_jit_cache_lookup(key, &o->image, &o->size, &cached_log)) {
        o->r = CUDA_SUCCESS;
        if (*cached_log)
            o->log = cached_log;
        else
            free(cached_log);
        return;
    }
    p2n_result res;
    memset(&res, 0, sizeof res);
    p2n_status st = link ? p2n_compile_linked(in, n, opt, &res) : p2n_compile(in->ptx, in->len, in->filename, opt, &res);
    const char *filename = n ? in[0].filename : "";
    const char *diag = res.diagnostics ? res.diagnostics : "";
    switch (st) {
    case P2N_OK:
        p2n_jit_cache_store(key, res.data, res.size, diag);
        o->image = res.data;
        o->size = res.size;
        res.data = NULL;
        o->r = CUDA_SUCCESS;
        if (*diag)
            o->log = strdup(diag);
        break;
    case P2N_BAD_INPUT:
        o->r = CUDA_ERROR_INVALID_PTX;
        o->log = strdup(*diag ? diag : "ptx2native: invalid PTX\n");
        if (p2n_drv_verbose())
            fprintf(stderr, "ptx2native: PTX rejected:\n%s", o->log);
        break;
    case P2N_UNSUPPORTED:
        /* valid PTX this build cannot compile for the backend: our limitation, so always say so */
        o->r = CUDA_ERROR_NOT_SUPPORTED;
        o->log = strdup(*diag ? diag : "ptx2native: target cannot compile this module yet\n");
        fprintf(stderr, "ptx2native: cannot compile %s for '%s': %s%s", filename, opt->arch, o->log,
                (*o->log && o->log[strlen(o->log) - 1] == '\n') ? "" : "\n");
        break;
    default:
        o->r = CUDA_ERROR_UNKNOWN;
        o->log = strdup(*diag ? diag : "ptx2native: internal compiler error\n");
        fprintf(stderr, "ptx2native: internal error compiling %s: %s", filename, o->log);
        break;
    }
    p2n_result_free(&res);
}

static void compile_ptx(const char *ptx, size_t len, const char *filename, const p2n_options *opt, load_out *o)
{
    p2n_input in = {ptx, len, filename};
    compile_inputs(&in, 1, 0, opt, o);
}

/* Native code `ptx2native-fatbin rewrite` recorded for the container c (native_lookup.c): 1 and o->image set,
 * else 0 with the reason in why */
static int load_native(const p2n_fb_container *c, const jit_opts *j, load_out *o, char *why, size_t why_len)
{
    if (j->popt.device_lacks) {   /* the recorded code was compiled for a device that lacks nothing */
        snprintf(why, why_len, "fatbin container at %p: the device lacks features (P2N_LACKS_* 0x%x) that "
                 "ahead-of-time code may use", (const void *)c->data, j->popt.device_lacks);
        return 0;
    }
    if (!p2n_drv_native_code(c->data, c->size, p2n_drv.be->code_arch, &o->image, &o->size, why, why_len))
        return 0;
    /* PTX_VERSION as if the JIT had compiled it: the arch of the PTX entry this device would pick */
    int above = 0, pidx = p2n_fb_select_ptx(c, (unsigned)(p2n_drv.cc_major * 10 + p2n_drv.cc_minor), &above);
    if (pidx >= 0)
        o->ptx_target = (int)c->entries[pidx].arch;
    o->r = CUDA_SUCCESS;
    return 1;
}

static void load_container(const p2n_fb_container *c, const jit_opts *j, load_out *o)
{
    char why[1024] = "";
    if (load_native(c, j, o, why, sizeof why))
        return;
    if (p2n_drv_verbose())
        fprintf(stderr, "ptx2native: no native code, JIT-compiling the PTX: %s\n", why);
    if (p2n_drv_require_native()) {
        char msg[1400];
        snprintf(msg, sizeof msg, "ptx2native: P2N_REQUIRE_NATIVE=1: refusing to JIT-compile the PTX of %s\n", why);
        o->r = CUDA_ERROR_NO_BINARY_FOR_GPU;
        o->log = strdup(msg);
        fprintf(stderr, "%s", msg);
        return;
    }
    unsigned max_arch = (unsigned)(p2n_drv.cc_major * 10 + p2n_drv.cc_minor);
    int above = 0;
    int idx = p2n_fb_select_ptx(c, max_arch, &above);
    if (idx < 0) {
        o->r = CUDA_ERROR_NO_BINARY_FOR_GPU;
        o->log = strdup("ptx2native: the fatbin holds no PTX (only GPU machine code), and no .p2n_native code\n");
        fprintf(stderr, "%s", o->log);
        return;
    }
    const p2n_fb_entry *e = &c->entries[idx];
    uint8_t *ptx = NULL;
    size_t ptx_len = 0;
    char err[512];
    if (p2n_fb_decode(e, &ptx, &ptx_len, "fatbin", e->offset, err, sizeof err) != P2N_FB_OK) {
        o->r = CUDA_ERROR_INVALID_IMAGE;
        o->log = strdup(err);
        return;
    }
    p2n_options popt = j->popt;
    p2n_fb_ptx_opts po;
    p2n_fb_parse_ptx_options(e->options, e->options_len, &po);
    if (po.max_reg_count && !popt.max_reg_count)
        popt.max_reg_count = po.max_reg_count;
    if (po.no_fmad)
        popt.no_fmad = 1;
    if (po.opt_level >= 0 && po.opt_level < popt.opt_level)
        popt.opt_level = po.opt_level;
    char name[64];
    char arch[16];
    p2n_fb_arch_name(e, arch, sizeof arch);
    snprintf(name, sizeof name, "fatbin:%s.ptx", arch);
    compile_ptx((const char *)ptx, ptx_len, name, &popt, o);
    free(ptx);
}

CUresult p2n_drv_container_ptx(const p2n_fb_container *c, const char *what, char **ptx, size_t *len,
                                char *name, size_t name_len, char **log)
{
    unsigned max_arch = (unsigned)(p2n_drv.cc_major * 10 + p2n_drv.cc_minor);
    int above = 0;
    int idx = p2n_fb_select_ptx(c, max_arch, &above);
    if (idx < 0) {
        char msg[512];
        int n = snprintf(msg, sizeof msg, "ptx2native: %s holds no PTX (entries:", what);
        for (size_t i = 0; i < c->n_entries && n > 0 && (size_t)n < sizeof msg - 40; i++) {
            char arch[16];
            p2n_fb_arch_name(&c->entries[i], arch, sizeof arch);
            n += snprintf(msg + n, sizeof msg - (size_t)n, " %s %s", p2n_fb_kind_name(c->entries[i].kind), arch);
        }
        if (n > 0 && (size_t)n < sizeof msg - 2)
            snprintf(msg + n, sizeof msg - (size_t)n, ")\n");
        *log = strdup(msg);
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    const p2n_fb_entry *e = &c->entries[idx];
    char err[512];
    uint8_t *text = NULL;
    if (p2n_fb_decode(e, &text, len, what, e->offset, err, sizeof err) != P2N_FB_OK) {
        *log = strdup(err);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    char arch[16];
    p2n_fb_arch_name(e, arch, sizeof arch);
    snprintf(name, name_len, "%s:%s.ptx", what, arch);
    *ptx = (char *)text;
    return CUDA_SUCCESS;
}

/* A version-2 wrapper's relocatable containers (NULL-terminated array at +16), PTX linked into one module. */
static void load_relocatable(const void *wrapper, const jit_opts *j, load_out *o)
{
    const void *const *arr;
    memcpy(&arr, (const uint8_t *)wrapper + 16, sizeof arr);
    unsigned n = 0;
    while (arr && n < 65536 && arr[n])
        n++;
    if (!n) {
        o->r = CUDA_ERROR_NO_BINARY_FOR_GPU;
        o->log = strdup("ptx2native: -rdc fatbin (wrapper version 2): the linked container holds no PTX and the "
                        "wrapper lists no relocatable containers\n");
        return;
    }
    p2n_input *in = calloc(n, sizeof *in);
    char (*names)[64] = calloc(n, sizeof *names);
    unsigned got = 0;
    o->r = in && names ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    for (unsigned k = 0; k < n && o->r == CUDA_SUCCESS; k++, got++) {
        char what[64], err[512];
        snprintf(what, sizeof what, "relocatable fatbin %u of %u", k, n);
        p2n_fb_container c;
        memset(&c, 0, sizeof c);
        if (p2n_fb_parse_container(arr[k], SIZE_MAX, what, 0, &c, err, sizeof err) != P2N_FB_OK) {
            o->r = CUDA_ERROR_INVALID_IMAGE;
            o->log = strdup(err);
            break;
        }
        char *ptx = NULL;
        size_t len = 0;
        o->r = p2n_drv_container_ptx(&c, what, &ptx, &len, names[k], sizeof names[k], &o->log);
        p2n_fb_container_free(&c);
        if (o->r != CUDA_SUCCESS)
            break;
        in[k] = (p2n_input){ptx, len, names[k]};
    }
    if (o->r == CUDA_SUCCESS)
        compile_inputs(in, n, 1, &j->popt, o);
    else
        fprintf(stderr, "%s", o->log ? o->log : "");
    for (unsigned k = 0; in && k < got; k++)
        free((void *)in[k].ptx);
    free(in);
    free(names);
}

/* Extent of an ELF image in memory (cuModuleLoadData gives no size): the furthest byte any header or
 * section reaches. */
static size_t elf_extent(const uint8_t *p)
{
    Elf64_Ehdr eh;
    memcpy(&eh, p, sizeof eh);
    size_t end = sizeof eh;
    size_t ph_end = (size_t)eh.e_phoff + (size_t)eh.e_phnum * eh.e_phentsize;
    size_t sh_end = (size_t)eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
    if (ph_end > end)
        end = ph_end;
    if (sh_end > end)
        end = sh_end;
    if (eh.e_shoff && eh.e_shentsize == sizeof(Elf64_Shdr)) {
        for (unsigned i = 0; i < eh.e_shnum; i++) {
            Elf64_Shdr sh;
            memcpy(&sh, p + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
            if (sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > end)
                end = sh.sh_offset + sh.sh_size;
        }
    }
    return end;
}

static void load_any(const void *image, size_t known_size, const char *filename, const jit_opts *j, load_out *o)
{
    memset(o, 0, sizeof *o);
    const uint8_t *p = image;
    uint32_t magic = 0;
    /* the binary magics have no zero byte: a shorter NUL-terminated string is never read past its end */
    if (p[0] && p[1] && p[2] && p[3])
        memcpy(&magic, p, 4);
    char err[512] = "";
    if (magic == P2N_FB_WRAPPER_MAGIC || magic == P2N_FB_CONTAINER_MAGIC) {
        p2n_fb_container c;
        memset(&c, 0, sizeof c);
        uint32_t ver = 0;
        int st = magic == P2N_FB_WRAPPER_MAGIC
                     ? p2n_fb_parse_wrapper(image, &ver, &c, err, sizeof err)
                     : p2n_fb_parse_container(image, known_size ? known_size : SIZE_MAX, filename, 0, &c, err,
                                              sizeof err);
        if (st != P2N_FB_OK) {
            o->r = CUDA_ERROR_INVALID_IMAGE;
            o->log = strdup(err);
            if (p2n_drv_verbose())
                fprintf(stderr, "ptx2native: bad fatbin: %s\n", err);
            return;
        }
        unsigned max_arch = (unsigned)(p2n_drv.cc_major * 10 + p2n_drv.cc_minor);
        int above = 0;
        char why[1024] = "";
        if (magic == P2N_FB_WRAPPER_MAGIC && ver == 2 && p2n_fb_select_ptx(&c, max_arch, &above) < 0) {
            /* the device link: `rewrite` records the relocatable PTX compiled linked under nvlink's container */
            if (!load_native(&c, j, o, why, sizeof why)) {
                if (p2n_drv_verbose())
                    fprintf(stderr, "ptx2native: no native code for the device link, JIT-compiling its relocatable "
                            "PTX: %s\n", why);
                load_relocatable(image, j, o);
            }
        } else
            load_container(&c, j, o);
        p2n_fb_container_free(&c);
        return;
    }
    if (magic != 0 && strncmp((const char *)p, P2N_LINKED_MAGIC, 8) == 0) {
        uint64_t size;
        memcpy(&size, p + 8, sizeof size);
        o->image = malloc(size ? size : 1);
        if (!o->image) {
            o->r = CUDA_ERROR_OUT_OF_MEMORY;
            return;
        }
        memcpy(o->image, p + 16, size);
        o->size = size;
        o->r = CUDA_SUCCESS;
        return;
    }
    if (magic != 0 && memcmp(p, ELFMAG, SELFMAG) == 0) {
        if (p[EI_CLASS] != ELFCLASS64) {
            o->r = CUDA_ERROR_INVALID_IMAGE;
            return;
        }
        Elf64_Ehdr eh;
        memcpy(&eh, p, sizeof eh);
        if (eh.e_machine == 190 /* EM_CUDA */) {
            o->r = CUDA_ERROR_NO_BINARY_FOR_GPU;
            o->log = strdup("ptx2native: NVIDIA GPU machine code (cubin) cannot run here; PTX is needed\n");
            return;
        }
        size_t size = known_size ? known_size : elf_extent(p);
        o->image = malloc(size);
        if (!o->image) {
            o->r = CUDA_ERROR_OUT_OF_MEMORY;
            return;
        }
        memcpy(o->image, p, size);
        o->size = size;
        o->r = CUDA_SUCCESS;
        return;
    }
    /* PTX text: must be text and NUL-terminated */
    size_t len = known_size ? strnlen((const char *)p, known_size) : strlen((const char *)p);
    size_t k = 0;
    while (k < len && (p[k] == ' ' || p[k] == '\t' || p[k] == '\n' || p[k] == '\r'))
        k++;
    if (len == 0 || k == len || (p[k] < 0x20 && p[k] != '\n') || p[k] >= 0x7f) {
        o->r = CUDA_ERROR_INVALID_IMAGE;
        return;
    }
    compile_ptx((const char *)p, len, filename, &j->popt, o);
}

CUresult p2n_drv_link_ptx(const p2n_input *in, unsigned n, unsigned nopt, CUjit_option *opts, void **vals,
                          uint8_t **image, size_t *size)
{
    jit_opts j;
    CUresult r = parse_jit(nopt, opts, vals, &j);
    if (r != CUDA_SUCCESS)
        return r;
    load_out o;
    memset(&o, 0, sizeof o);
    compile_inputs(in, n, 1, &j.popt, &o);
    write_log(j.error_log, j.error_log_size, j.error_log_idx, vals, o.r == CUDA_SUCCESS ? "" : o.log);
    write_log(j.info_log, j.info_log_size, j.info_log_idx, vals, o.r == CUDA_SUCCESS ? o.log : "");
    free(o.log);
    if (o.r != CUDA_SUCCESS) {
        free(o.image);
        return o.r == CUDA_ERROR_INVALID_PTX ? CUDA_ERROR_INVALID_SOURCE : o.r; /* NVIDIA's answer to link errors */
    }
    uint64_t sz = o.size;
    *image = malloc(16 + o.size);
    if (!*image) {
        free(o.image);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memcpy(*image, P2N_LINKED_MAGIC, 8);
    memcpy(*image + 8, &sz, 8);
    memcpy(*image + 16, o.image, o.size);
    *size = 16 + o.size;
    free(o.image);
    return CUDA_SUCCESS;
}

CUresult p2n_drv_jit_log(unsigned nopt, CUjit_option *opts, void **vals, const char *error_text)
{
    jit_opts j;
    CUresult r = parse_jit(nopt, opts, vals, &j);
    if (r != CUDA_SUCCESS)
        return r;
    write_log(j.error_log, j.error_log_size, j.error_log_idx, vals, error_text ? error_text : "");
    return CUDA_SUCCESS;
}

static CUresult make_module(p2n_ctx *c, const void *image, size_t known_size, const char *filename,
                            unsigned nopt, CUjit_option *opts, void **vals, p2n_module **out)
{
    if (!image)
        return CUDA_ERROR_INVALID_VALUE;
    jit_opts j;
    CUresult r = parse_jit(nopt, opts, vals, &j);
    if (r != CUDA_SUCCESS)
        return r;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    load_out o;
    load_any(image, known_size, filename, &j, &o);
    p2n_bk_module *bk = NULL;
    if (o.r == CUDA_SUCCESS) {
        char *err = NULL;
        o.r = p2n_drv.be->module_load(o.image, o.size, &bk, &err);
        if (o.r != CUDA_SUCCESS) {
            free(o.log);
            o.log = err ? err : strdup("ptx2native: the backend rejected the code object\n");
            if (p2n_drv_verbose())
                fprintf(stderr, "ptx2native: module load failed: %s\n", o.log);
        } else {
            free(err);
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    write_log(j.error_log, j.error_log_size, j.error_log_idx, vals, o.r == CUDA_SUCCESS ? "" : o.log);
    write_log(j.info_log, j.info_log_size, j.info_log_idx, vals, o.r == CUDA_SUCCESS ? o.log : "");
    if (j.wall_time_idx >= 0) {
        float ms = (float)((t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
        memcpy(&vals[j.wall_time_idx], &ms, sizeof ms);
    }
    free(o.log);
    if (o.r != CUDA_SUCCESS) {
        free(o.image);
        return o.r;
    }
    p2n_module *m = calloc(1, sizeof *m);
    if (!m) {
        p2n_drv.be->module_unload(bk);
        free(o.image);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->magic = P2N_MAGIC_MODULE;
    m->ctx = c;
    m->bk = bk;
    m->image = o.image;
    m->ptx_target = o.ptx_target;
    p2n_drv_register(m);
    list_add(m);
    if (c)
        p2n_drv_ctx_flush_printf(c);
    *out = m;
    return CUDA_SUCCESS;
}

static void (*module_destroy_hook)(p2n_module *m);

void p2n_drv_module_on_destroy(void (*hook)(p2n_module *m))
{
    module_destroy_hook = hook;
}

void p2n_drv_module_destroy(p2n_module *m)
{
    list_remove(m);
    p2n_drv_unregister(m);
    if (module_destroy_hook)
        module_destroy_hook(m);
    for (size_t i = 0; i < m->nfuncs; i++) {
        p2n_drv_unregister(m->funcs[i]);
        m->funcs[i]->magic = 0;
        free(m->funcs[i]->name);
        free(m->funcs[i]);
    }
    free(m->funcs);
    for (size_t i = 0; i < m->nglobals; i++)
        p2n_drv_alloc_remove(m->globals[i]);
    free(m->globals);
    p2n_drv.be->module_unload(m->bk);
    free(m->image);
    m->magic = 0;
    free(m);
}

static void p2n_drv_module_release_ctx(p2n_ctx *c)
{
    for (;;) {
        p2n_module *victim = NULL;
        pthread_mutex_lock(&mod_lock);
        for (size_t i = 0; i < nmods && !victim; i++)
            if (mods[i]->ctx == c)
                victim = mods[i];
        pthread_mutex_unlock(&mod_lock);
        if (!victim)
            break;
        p2n_drv_module_destroy(victim);
    }
}

__attribute__((constructor)) static void register_release_hook(void)
{
    p2n_drv_ctx_on_release(P2N_CTX_RELEASE_MODULES, p2n_drv_module_release_ctx);
}

/* ---- cuModule* ---- */

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions, CUjit_option *options,
                            void **optionValues)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!module || !image)
        return CUDA_ERROR_INVALID_VALUE;
    p2n_module *m;
    r = make_module(c, image, 0, "module.ptx", numOptions, options, optionValues, &m);
    if (r == CUDA_SUCCESS)
        *module = (CUmodule)m;
    return r;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    return cuModuleLoadDataEx(module, image, 0, NULL, NULL);
}

CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    return cuModuleLoadDataEx(module, fatCubin, 0, NULL, NULL);
}

/* the file's bytes, NUL-terminated (PTX files are text) */
static CUresult read_file(const char *path, uint8_t **data, size_t *size)
{
    int e = p2n_read_file(path, data, size);
    return e == 0 ? CUDA_SUCCESS : e == ENOMEM ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_FILE_NOT_FOUND;
}

CUresult cuModuleLoad(CUmodule *module, const char *fname)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!module || !fname)
        return CUDA_ERROR_INVALID_VALUE;
    uint8_t *data;
    size_t size;
    r = read_file(fname, &data, &size);
    if (r != CUDA_SUCCESS)
        return r;
    if (size < 4) {
        free(data);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    p2n_module *m;
    r = make_module(c, data, size + 1, fname, 0, NULL, NULL, &m);
    free(data);
    if (r == CUDA_SUCCESS)
        *module = (CUmodule)m;
    return r;
}

CUresult cuModuleUnload(CUmodule hmod)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!p2n_drv_is_live(hmod, P2N_MAGIC_MODULE))
        return CUDA_ERROR_INVALID_HANDLE;
    p2n_module *m = (p2n_module *)hmod;
    p2n_drv_streams_drain(m->ctx);   /* queued launches of its kernels finish first */
    if (m->ctx)
        p2n_drv_ctx_flush_printf(m->ctx);
    p2n_drv_module_destroy(m);
    return CUDA_SUCCESS;
}

static CUresult get_function(p2n_module *m, const char *name, p2n_func **out)
{
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&mod_lock);
    for (size_t i = 0; i < m->nfuncs; i++)
        if (strcmp(m->funcs[i]->name, name) == 0) {
            *out = m->funcs[i];
            pthread_mutex_unlock(&mod_lock);
            return CUDA_SUCCESS;
        }
    p2n_bk_kernel *k = NULL;
    CUresult r = p2n_drv.be->module_get_kernel(m->bk, name, &k);
    if (r != CUDA_SUCCESS) {
        pthread_mutex_unlock(&mod_lock);
        return r;
    }
    p2n_func *f = calloc(1, sizeof *f);
    char *nm = strdup(name);
    if (m->nfuncs == m->capfuncs) {
        size_t nc = m->capfuncs ? m->capfuncs * 2 : 8;
        p2n_func **nf = realloc(m->funcs, nc * sizeof *nf);
        if (nf) {
            m->funcs = nf;
            m->capfuncs = nc;
        }
    }
    if (!f || !nm || m->nfuncs == m->capfuncs) {
        free(f);
        free(nm);
        pthread_mutex_unlock(&mod_lock);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    f->magic = P2N_MAGIC_FUNC;
    f->module = m;
    f->bk = k;
    f->name = nm;
    p2n_drv.be->kernel_info(k, &f->info);
    if (f->info.execution && p2n_drv_verbose())
        fprintf(stderr, "ptx2native: kernel '%s' runs as %s\n", nm, f->info.execution);
    int budget = p2n_drv.dev.max_shared_per_block - (int)f->info.static_shared_bytes;
    f->max_dynamic_shared = budget > 0 ? budget : 0;
    f->carveout = -1;
    m->funcs[m->nfuncs++] = f;
    p2n_drv_register(f);
    pthread_mutex_unlock(&mod_lock);
    *out = f;
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!hfunc)
        return CUDA_ERROR_INVALID_VALUE;
    if (!p2n_drv_is_live(hmod, P2N_MAGIC_MODULE))
        return CUDA_ERROR_INVALID_HANDLE;
    p2n_func *f;
    r = get_function((p2n_module *)hmod, name, &f);
    if (r == CUDA_SUCCESS)
        *hfunc = (CUfunction)f;
    return r;
}

static CUresult get_global(p2n_module *m, const char *name, CUdeviceptr *dptr, size_t *bytes)
{
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    uint64_t addr = 0;
    size_t size = 0;
    CUresult r = p2n_drv.be->module_get_global(m->bk, name, &addr, &size);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&mod_lock);
    int seen = 0;
    for (size_t i = 0; i < m->nglobals; i++)
        seen |= m->globals[i] == addr;
    if (!seen && size > 0) {
        if (m->nglobals == m->capglobals) {
            size_t nc = m->capglobals ? m->capglobals * 2 : 8;
            uint64_t *ng = realloc(m->globals, nc * sizeof *ng);
            if (!ng) {
                pthread_mutex_unlock(&mod_lock);
                return CUDA_ERROR_OUT_OF_MEMORY;
            }
            m->globals = ng;
            m->capglobals = nc;
        }
        m->globals[m->nglobals++] = addr;
        p2n_drv_alloc_add(addr, size, P2N_ALLOC_GLOBAL, m->ctx, 0);
    }
    pthread_mutex_unlock(&mod_lock);
    if (dptr)
        *dptr = addr;
    if (bytes)
        *bytes = size;
    return CUDA_SUCCESS;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!p2n_drv_is_live(hmod, P2N_MAGIC_MODULE))
        return CUDA_ERROR_INVALID_HANDLE;
    return get_global((p2n_module *)hmod, name, dptr, bytes);
}

CUresult cuModuleGetGlobal(CUdeviceptr_v1 *dptr, unsigned int *bytes, CUmodule hmod, const char *name)
{
    CUdeviceptr d = 0;
    size_t b = 0;
    CUresult r = cuModuleGetGlobal_v2(&d, &b, hmod, name);
    if (r != CUDA_SUCCESS)
        return r;
    if (d > 0xffffffffu)
        return CUDA_ERROR_NOT_SUPPORTED;
    if (dptr)
        *dptr = (CUdeviceptr_v1)d;
    if (bytes)
        *bytes = (unsigned)b;
    return CUDA_SUCCESS;
}

CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode *mode)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!mode)
        return CUDA_ERROR_INVALID_VALUE;
    const char *e = getenv("CUDA_MODULE_LOADING");
    *mode = e && strcmp(e, "EAGER") == 0 ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING;
    return CUDA_SUCCESS;
}

/* ---- cuLibrary* (what cudart 12+/13 uses): a library is a module that may exist without a context ---- */

CUresult cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions, void **jitOptionsValues,
                           unsigned int numJitOptions, CUlibraryOption *libraryOptions,
                           void **libraryOptionValues, unsigned int numLibraryOptions)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!library || !code || (numLibraryOptions && (!libraryOptions || !libraryOptionValues)))
        return CUDA_ERROR_INVALID_VALUE;
    p2n_module *m;
    r = make_module(NULL, code, 0, "library.ptx", numJitOptions, jitOptions, jitOptionsValues, &m);
    if (r == CUDA_SUCCESS)
        *library = (CUlibrary)m;
    return r;
}

CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *fileName, CUjit_option *jitOptions,
                               void **jitOptionsValues, unsigned int numJitOptions, CUlibraryOption *libraryOptions,
                               void **libraryOptionValues, unsigned int numLibraryOptions)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!library || !fileName)
        return CUDA_ERROR_INVALID_VALUE;
    uint8_t *data;
    size_t size;
    r = read_file(fileName, &data, &size);
    if (r != CUDA_SUCCESS)
        return r;
    if (size < 4) {
        free(data);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    p2n_module *m;
    r = make_module(NULL, data, size + 1, fileName, numJitOptions, jitOptions, jitOptionsValues, &m);
    free(data);
    if (r == CUDA_SUCCESS)
        *library = (CUlibrary)m;
    return r;
}

CUresult cuLibraryUnload(CUlibrary library)
{
    return cuModuleUnload((CUmodule)library);
}

CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!pKernel)
        return CUDA_ERROR_INVALID_VALUE;
    if (!p2n_drv_is_live(library, P2N_MAGIC_MODULE))
        return CUDA_ERROR_INVALID_HANDLE;
    p2n_func *f;
    r = get_function((p2n_module *)library, name, &f);
    if (r == CUDA_SUCCESS)
        *pKernel = (CUkernel)f;
    return r;
}

CUresult cuLibraryGetModule(CUmodule *pMod, CUlibrary library)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!pMod)
        return CUDA_ERROR_INVALID_VALUE;
    if (!p2n_drv_is_live(library, P2N_MAGIC_MODULE))
        return CUDA_ERROR_INVALID_HANDLE;
    *pMod = (CUmodule)library;
    return CUDA_SUCCESS;
}

CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!p2n_drv_is_live(library, P2N_MAGIC_MODULE))
        return CUDA_ERROR_INVALID_HANDLE;
    return get_global((p2n_module *)library, name, dptr, bytes);
}

/* A __managed__ variable is a global that the host reads and writes at the kernels' address: that is every module
 * global where the backend keeps them in host memory the stub copies to with memcpy (no copy hooks, host-
 * dereferenceable device memory: the CPU backend). Elsewhere the host could not dereference it. The variable is not
 * told from other globals (the .managed attribute stays in the code object). */
CUresult cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!p2n_drv_is_live(library, P2N_MAGIC_MODULE))
        return CUDA_ERROR_INVALID_HANDLE;
    if ((!dptr && !bytes) || !name)
        return CUDA_ERROR_INVALID_VALUE;
    if (!p2n_drv.dev.host_access || p2n_drv.be->memcpy_htod)
        return CUDA_ERROR_NOT_SUPPORTED;
    return get_global((p2n_module *)library, name, dptr, bytes);
}

CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!pFunc)
        return CUDA_ERROR_INVALID_VALUE;
    if (!p2n_drv_is_live(kernel, P2N_MAGIC_FUNC))
        return CUDA_ERROR_INVALID_HANDLE;
    *pFunc = (CUfunction)kernel;
    return CUDA_SUCCESS;
}

CUresult cuKernelGetName(const char **name, CUkernel hfunc)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    if (!p2n_drv_is_live(hfunc, P2N_MAGIC_FUNC))
        return CUDA_ERROR_INVALID_HANDLE;
    *name = ((p2n_func *)hfunc)->name;
    return CUDA_SUCCESS;
}
