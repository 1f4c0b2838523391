/* spirv_meta.c — the reader of the p2n ABI metadata that spirv_finish.c writes into a SPIR-V module as
 * OpModuleProcessed strings. No LLVM here: the driver stub's OpenCL and Level Zero backends link this file
 * without the compiler (which they load only to compile). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spirv_meta.h"

enum { OP_CAPABILITY = 17, OP_MODULE_PROCESSED = 330 }; /* SPIR-V opcodes */

static char *dupn(const char *s, size_t n) {
    char *r = malloc(n + 1);
    if (!r) return NULL;
    memcpy(r, s, n);
    r[n] = 0;
    return r;
}

bool spirv_read_meta(const uint32_t *w, size_t nw, spirv_module_meta *out) {
    memset(out, 0, sizeof *out);
    if (nw < 5 || w[0] != 0x07230203) return false;
    out->version = w[1];
    size_t pos = 5;
    bool any = false;
    while (pos < nw) {
        unsigned wc = w[pos] >> 16, op = w[pos] & 0xffff;
        if (!wc || pos + wc > nw) return false;
        if (op == OP_CAPABILITY && wc >= 2 && (w[pos + 1] == 61 || w[pos + 1] == 55 || w[pos + 1] == 5568))
            out->needs_subgroups = 1; /* GroupNonUniform, Groups, SubgroupShuffleINTEL */
        if (op == OP_MODULE_PROCESSED && wc >= 2) {
            char *s = dupn((const char *)(w + pos + 1), (wc - 1) * 4);
            if (!s) { spirv_meta_free(out); return false; }
            size_t pl = strlen(P2N_SPIRV_META_PREFIX);
            if (!strncmp(s, P2N_SPIRV_META_PREFIX, pl)) {
                any = true;
                char *p = s + pl;
                if (!strncmp(p, "kernel ", 7)) {
                    out->kernels = realloc(out->kernels, (out->nkernels + 1) * sizeof *out->kernels);
                    spirv_kernel_meta *k = &out->kernels[out->nkernels];
                    memset(k, 0, sizeof *k);
                    int used = 0;
                    unsigned long long pb = 0, sm = 0;
                    if (sscanf(p + 7, "%255s %u %llu %llu%n", k->name, &k->nparams, &pb, &sm, &used) >= 4 &&
                        k->nparams <= 64) {
                        k->pbsize = (uint32_t)pb;
                        k->static_smem = (uint32_t)sm;
                        char *q = p + 7 + used;
                        bool good = true;
                        for (unsigned i = 0; i < k->nparams && good; i++) {
                            unsigned long long a, b;
                            int u = 0;
                            good = sscanf(q, " %llu:%llu%n", &a, &b, &u) == 2;
                            k->offs[i] = (uint32_t)a;
                            k->sizes[i] = (uint32_t)b;
                            q += u;
                        }
                        if (good) out->nkernels++;
                    }
                } else if (!strcmp(p, "trap")) {
                    out->trap_arg = 1;
                } else if (!strncmp(p, "xcluster ", 9)) {
                    for (unsigned i = 0; i < out->nkernels; i++)
                        if (!strcmp(out->kernels[i].name, p + 9)) out->kernels[i].cluster_launch = 1;
                } else if (!strncmp(p, "rcluster ", 9)) {
                    for (unsigned i = 0; i < out->nkernels; i++)
                        if (!strcmp(out->kernels[i].name, p + 9)) out->kernels[i].cluster_dims_fixed = 1;
                } else if (!strcmp(p, "heap")) {
                    out->heap = 1;
                } else if (!strncmp(p, "gbuf ", 5)) {
                    out->gbuf_bytes = strtoull(p + 5, NULL, 10);
                } else if (!strncmp(p, "global ", 7)) {
                    out->globals = realloc(out->globals, (out->nglobals + 1) * sizeof *out->globals);
                    spirv_global_meta *g = &out->globals[out->nglobals];
                    unsigned long long sz;
                    if (sscanf(p + 7, "%255s %llu %u", g->name, &sz, &g->index) == 3) {
                        g->size = sz;
                        out->nglobals++;
                    }
                }
            }
            free(s);
        }
        pos += wc;
    }
    return any || true;
}

void spirv_meta_free(spirv_module_meta *m) {
    free(m->kernels);
    free(m->globals);
    memset(m, 0, sizeof *m);
}
