/* comgr_meta.c — checks the AMDGPU code objects we produce through ROCm comgr (the library ROCm tools use to
 * read code objects), against what our own front end says about each module.
 *
 *   comgr_meta ARCH FILE.ptx...
 *
 * The expected kernel table comes from the host target: the same PTX compiled for `host` is dlopen()ed and its
 * `__p2n_module` descriptor (abi/host_abi.h) lists every kernel with its parameter buffer size,
 * static shared bytes and .maxntid/.reqntid. For the ARCH code object comgr must report: the ISA; no undefined
 * symbol; per kernel .name, .symbol = name.kd, explicit kernel arguments covering exactly the PTX parameter
 * buffer (hidden arguments may follow), .kernarg_segment_size >= it, .group_segment_fixed_size = 0 (no LDS
 * used) or the kernel's static window (+ the AMD-private words in front of it, amdgpu_lower.c: at least what it
 * reaches, at most every module-scope static and its own), .max_flat_workgroup_size
 * = reqntid/maxntid product or 1024, .wavefront_size 64 on gfx9 and 32 on gfx10+. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkstemp, dlopen */
#endif
#include <amd_comgr.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptx2native.h"
#include "host_abi.h"
#include "../tools/test_file.h"

static int failures;
#define FAIL(...) (fprintf(stderr, "FAIL: " __VA_ARGS__), fputc('\n', stderr), failures++)


static bool compile(const char *src, size_t n, const char *file, const char *arch, p2n_result *r) {
    p2n_options o = {.arch = arch, .opt_level = 2, .emit = P2N_EMIT_OBJ};
    if (p2n_compile(src, n, file, &o, r) != P2N_OK) {
        FAIL("%s: compiling for %s failed:\n%s", file, arch, r->diagnostics ? r->diagnostics : "");
        p2n_result_free(r);
        return false;
    }
    return true;
}

/* string value of key in a metadata map ("" when absent) */
static void md_str(amd_comgr_metadata_node_t map, const char *key, char *buf, size_t cap) {
    amd_comgr_metadata_node_t v;
    buf[0] = 0;
    if (amd_comgr_metadata_lookup(map, key, &v) != AMD_COMGR_STATUS_SUCCESS) return;
    size_t n = 0;
    amd_comgr_metadata_kind_t k;
    /* ask for the size first: comgr copies the whole string (with its NUL) whatever size it is given */
    if (amd_comgr_get_metadata_kind(v, &k) == AMD_COMGR_STATUS_SUCCESS && k == AMD_COMGR_METADATA_KIND_STRING &&
        amd_comgr_get_metadata_string(v, &n, NULL) == AMD_COMGR_STATUS_SUCCESS && n && n <= cap &&
        amd_comgr_get_metadata_string(v, &n, buf) != AMD_COMGR_STATUS_SUCCESS)
        buf[0] = 0;
    amd_comgr_destroy_metadata(v);
}

static long md_num(amd_comgr_metadata_node_t map, const char *key) {
    char b[64];
    md_str(map, key, b, sizeof b);
    return b[0] ? strtol(b, NULL, 0) : -1;
}

static amd_comgr_status_t check_symbol(amd_comgr_symbol_t s, void *ud) {
    bool undef = false;
    if (amd_comgr_symbol_get_info(s, AMD_COMGR_SYMBOL_INFO_IS_UNDEFINED, &undef) == AMD_COMGR_STATUS_SUCCESS && undef) {
        char name[256] = "";
        amd_comgr_symbol_get_info(s, AMD_COMGR_SYMBOL_INFO_NAME, name);
        FAIL("%s: undefined symbol '%s'", (const char *)ud, name);
    }
    return AMD_COMGR_STATUS_SUCCESS;
}

/* the end of the explicit (non-hidden) kernel arguments */
static long explicit_end(amd_comgr_metadata_node_t kern) {
    amd_comgr_metadata_node_t args;
    if (amd_comgr_metadata_lookup(kern, ".args", &args) != AMD_COMGR_STATUS_SUCCESS) return 0;
    size_t n = 0;
    amd_comgr_get_metadata_list_size(args, &n);
    long end = 0;
    for (size_t i = 0; i < n; i++) {
        amd_comgr_metadata_node_t a;
        if (amd_comgr_index_list_metadata(args, i, &a) != AMD_COMGR_STATUS_SUCCESS) continue;
        char kind[64];
        md_str(a, ".value_kind", kind, sizeof kind);
        long e = md_num(a, ".offset") + md_num(a, ".size");
        if (strncmp(kind, "hidden_", 7) != 0 && e > end) end = e;
        amd_comgr_destroy_metadata(a);
    }
    amd_comgr_destroy_metadata(args);
    return end;
}

/* Static shared bytes kernel `kname` can name, from the PTX text itself (an independent reading of the layout
 * of emit_module.c for AMDGPU): the non-extern .shared variables outside any .entry (module scope, .func
 * bodies) in file order, then those declared inside this .entry, each at its .align (default: element size),
 * the sum rounded up to `align`. Good for the nvcc-style declarations of the test inputs. */
static uint64_t up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

static uint64_t kernel_window(const char *src, const char *kname, uint64_t align) {
    uint64_t cur = 0;
    for (int pass = 0; pass < 2; pass++) { /* 0: outside any .entry, 1: inside .entry kname, after those */
        int depth = 0;
        bool in_entry = false, is_k = false;
        for (const char *p = src; *p; p++) {
            if (*p == '/' && p[1] == '/') { while (*p && *p != '\n') p++; if (!*p) break; continue; }
            if (*p == '{') { depth++; continue; }
            if (*p == '}') { if (--depth == 0) in_entry = false; continue; }
            if (depth == 0 && !strncmp(p, ".entry", 6) && (p[6] == ' ' || p[6] == '\t')) {
                const char *n = p + 6;
                while (*n == ' ' || *n == '\t') n++;
                size_t l = strcspn(n, " \t\n(");
                in_entry = true;
                is_k = l == strlen(kname) && !strncmp(n, kname, l);
                continue;
            }
            if (strncmp(p, ".shared", 7) || (p[7] != ' ' && p[7] != '\t')) continue;
            const char *ls = p;
            while (ls > src && ls[-1] != '\n' && ls[-1] != ';' && ls[-1] != '{') ls--;
            const char *le = strchr(p, ';');
            if (!le) break;
            char decl[512];
            snprintf(decl, sizeof decl, "%.*s", (int)(le - ls), ls);
            p = le;
            if (strstr(decl, ".extern") || strstr(decl, "ld.") || strstr(decl, "st.")) continue;
            if (pass == 0 ? in_entry : !(in_entry && is_k)) continue;
            uint64_t el = strstr(decl, "8 ") || strstr(decl, "8\t") ? 1 : strstr(decl, "16 ") ? 2 : strstr(decl, "32 ") ? 4 : 8;
            const char *a = strstr(decl, ".align");
            uint64_t al = a ? strtoull(a + 6, NULL, 10) : el, n = 1;
            for (const char *b = strchr(decl, '['); b; b = strchr(b + 1, '[')) n *= strtoull(b + 1, NULL, 10);
            cur = up(cur, al) + el * n;
        }
    }
    return up(cur, align);
}

static const char *cur_src; /* the PTX text of the file being checked */

static void check_kernel(const char *file, const char *arch, const p2n_kernel_desc *k, amd_comgr_metadata_node_t kern) {
    char sym[512];
    md_str(kern, ".symbol", sym, sizeof sym);
    char want[512];
    snprintf(want, sizeof want, "%s.kd", k->name);
    if (strcmp(sym, want)) FAIL("%s %s: .symbol '%s', expected '%s'", file, k->name, sym, want);
    long ka = md_num(kern, ".kernarg_segment_size"), ex = explicit_end(kern);
    if (ex != (long)k->param_buffer_size)
        FAIL("%s %s: explicit kernel arguments end at %ld, PTX parameter buffer is %u", file, k->name, ex,
             k->param_buffer_size);
    if (ka < (long)k->param_buffer_size)
        FAIL("%s %s: .kernarg_segment_size %ld < PTX parameter buffer %u", file, k->name, ka, k->param_buffer_size);
    long g = md_num(kern, ".group_segment_fixed_size");
    uint32_t align = k->dynamic_smem_align > 16 ? k->dynamic_smem_align : 16;
    long priv = 128; /* AMDGPU_PRIV_WORDS * 4 (amdgpu_lower.c): their own LDS variable when used */
    /* per-kernel LDS: only this kernel's window (and only if it touches shared memory), never the module's */
    /* the window holds at least what the kernel reaches laid out alone (own_smem_bytes, as ptxas counts it) and
     * at most every module-scope static plus its own: module statics no kernel reaches together share bytes */
    long win = (long)kernel_window(cur_src, k->name, align);
    long least = (long)((k->own_smem_bytes + align - 1) / align * align);
    if (win > (long)k->static_smem_bytes) FAIL("%s %s: own window %ld > module window %u", file, k->name, win, k->static_smem_bytes);
    long w0 = g >= priv && (g - priv) % align == 0 && g - priv >= least ? g - priv : g;
    if (g != 0 && g != priv && (w0 < least || w0 > win || w0 % align))
        FAIL("%s %s: .group_segment_fixed_size %ld, expected 0, %ld, or a window (+ %ld) in [%ld, %ld]", file,
             k->name, g, priv, priv, least, win);
    const uint32_t *d = k->reqntid[0] ? k->reqntid : k->maxntid[0] ? k->maxntid : NULL;
    long mf = d ? (long)d[0] * (d[1] ? d[1] : 1) * (d[2] ? d[2] : 1) : 1024;
    if (md_num(kern, ".max_flat_workgroup_size") != mf)
        FAIL("%s %s: .max_flat_workgroup_size %ld, expected %ld", file, k->name, md_num(kern, ".max_flat_workgroup_size"), mf);
    long w = strncmp(arch, "gfx9", 4) == 0 ? 64 : 32;
    if (md_num(kern, ".wavefront_size") != w)
        FAIL("%s %s: .wavefront_size %ld, expected %ld", file, k->name, md_num(kern, ".wavefront_size"), w);
}

static void check_file(const char *arch, const char *file) {
    size_t n;
    char *src = test_read_file(file, &n);
    cur_src = src;
    if (!src) { FAIL("%s: cannot read", file); return; }
    p2n_result host, amd;
    if (!compile(src, n, file, "host", &host)) { free(src); return; }
    if (!compile(src, n, file, arch, &amd)) { p2n_result_free(&host); free(src); return; }
    /* the expected kernel table: the host code object's descriptor */
    char tmp[] = "/tmp/p2n-comgr-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0 || write(fd, host.data, host.size) != (ssize_t)host.size) { FAIL("temporary file"); return; }
    close(fd);
    void *h = dlopen(tmp, RTLD_NOW | RTLD_LOCAL);
    unlink(tmp);
    const p2n_module_desc *md = h ? dlsym(h, "__p2n_module") : NULL;
    if (!md) { FAIL("%s: host code object has no __p2n_module (%s)", file, dlerror()); return; }

    amd_comgr_data_t data;
    amd_comgr_create_data(AMD_COMGR_DATA_KIND_EXECUTABLE, &data);
    amd_comgr_set_data(data, amd.size, (const char *)amd.data);
    char isa[128] = "";
    size_t isz = sizeof isa;
    /* comgr 2.4 (ROCm 5.2) predates COV5 (ELF ABI version 3) and refuses to name its ISA: only a name given
     * is checked; the metadata note itself it reads fine */
    if (amd_comgr_get_data_isa_name(data, &isz, isa) == AMD_COMGR_STATUS_SUCCESS && !strstr(isa, arch))
        FAIL("%s: ISA name '%s' does not name %s", file, isa, arch);
    amd_comgr_iterate_symbols(data, check_symbol, (void *)file);
    amd_comgr_metadata_node_t meta, kernels;
    if (amd_comgr_get_data_metadata(data, &meta) != AMD_COMGR_STATUS_SUCCESS) {
        FAIL("%s: comgr cannot read the metadata", file);
    } else if (amd_comgr_metadata_lookup(meta, "amdhsa.kernels", &kernels) != AMD_COMGR_STATUS_SUCCESS) {
        FAIL("%s: no amdhsa.kernels", file);
        amd_comgr_destroy_metadata(meta);
    } else {
        size_t nk = 0;
        amd_comgr_get_metadata_list_size(kernels, &nk);
        if (nk != md->nkernels) FAIL("%s: %zu kernels in the metadata, %u in the PTX", file, nk, md->nkernels);
        for (uint32_t i = 0; i < md->nkernels; i++) {
            const p2n_kernel_desc *k = &md->kernels[i];
            bool found = false;
            for (size_t j = 0; j < nk && !found; j++) {
                amd_comgr_metadata_node_t kern;
                if (amd_comgr_index_list_metadata(kernels, j, &kern) != AMD_COMGR_STATUS_SUCCESS) continue;
                char name[512];
                md_str(kern, ".name", name, sizeof name);
                if (!strcmp(name, k->name)) {
                    found = true;
                    check_kernel(file, arch, k, kern);
                }
                amd_comgr_destroy_metadata(kern);
            }
            if (!found) FAIL("%s: kernel %s missing from amdhsa.kernels", file, k->name);
        }
        amd_comgr_destroy_metadata(kernels);
        amd_comgr_destroy_metadata(meta);
    }
    amd_comgr_release_data(data);
    printf("%s %s: %u kernels checked\n", arch, file, md->nkernels);
    dlclose(h);
    p2n_result_free(&host);
    p2n_result_free(&amd);
    free(src);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: comgr_meta ARCH FILE.ptx...\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) check_file(argv[1], argv[i]);
    return failures ? 1 : 0;
}
