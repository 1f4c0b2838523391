/* cli.c — the `ptx2native` command: PTX in, native code (or IR/LLVM/assembly text) out.
 * Exit status: 0 success, 1 bad input or unsupported request (diagnostics say what and where), 2 internal error.
 * Output files are written atomically: a temporary file next to the target, renamed when complete. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptx2native.h"
#include "target.h"
#include "container.h"

static void usage(FILE *f) {
    fputs("usage: ptx2native [options] INPUT.ptx [INPUT2.ptx ...] [-o OUTPUT]\n"
          "\n"
          "Compiles a PTX module ahead of time for AMD GPUs, Intel GPUs (SPIR-V) or the host CPU.\n"
          "\n"
          "options:\n"
          "  -o FILE                 output file ('-' = standard output; default: standard output for text)\n"
          "  --offload-arch=LIST     comma-separated targets (also --arch=); default: host\n"
          "  -O0 -O1 -O2 -O3         optimisation level (default -O2)\n"
          "  --emit=ir|llvm|asm|obj  what to produce (default obj)\n"
          "  --print-targets         list the targets and whether code generation is available\n"
          "  -j N, --jobs=N          optimise and compile the kernels of a module on N threads; the output\n"
          "                          works the same for every N. Default ($P2N_JOBS, else 0): 0 = one per\n"
          "                          online CPU for modules with several kernels where that is estimated to\n"
          "                          pay (>= 1.25x), else one thread\n"
          "  --defer-unsupported     a kernel using PTX the target cannot run becomes a stub that fails at launch\n"
          "                          (CUDA_ERROR_NOT_SUPPORTED, with the reason); the diagnostic is a warning.\n"
          "                          Default: an error for the whole module. (spirv64, AMDGPU; not host)\n"
          "  --device-lacks=LIST     what the device lacks: subgroups, forward-progress, wg-collectives,\n"
          "                          program-globals, fault-isolation, space-query, recursion\n"
          "  --recursion-stack=BYTES per-thread explicit stack replacing recursion where the device has no call\n"
          "                          stack (--device-lacks=recursion, always for spirv64); default 16384\n"
          "  --fp-atomics=exact|native\n"
          "                          AMDGPU: atom/red.add.f32 on global memory as NVIDIA computes it (exact, the\n"
          "                          default: a compare-exchange loop that flushes subnormals) or with the\n"
          "                          device's float atomic add (native: faster under contention; subnormal\n"
          "                          operands and results may differ from NVIDIA's)\n"
          "  -v                      verbose\n"
          "  --version, --help\n"
          "\n"
          "INPUT '-' reads standard input. Several inputs are linked into one module before compiling\n"
          "(separate compilation, nvcc -rdc=true: .extern symbols resolve to the other inputs' definitions).\n"
          "Exit status: 0 ok, 1 bad input, 2 internal error.\n",
          f);
}

static char *read_all(FILE *f, size_t *len) {
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) return NULL;
    for (;;) {
        if (n == cap) {
            cap *= 2;
            char *t = realloc(buf, cap);
            if (!t) { free(buf); return NULL; }
            buf = t;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    if (ferror(f)) { free(buf); return NULL; }
    *len = n;
    return buf;
}

/* Writes via a temporary file in the same directory and rename(), so readers never see a partial file. */
static int write_atomic(const char *path, const void *data, size_t len) {
    if (strcmp(path, "-") == 0) return fwrite(data, 1, len, stdout) == len && fflush(stdout) == 0 ? 0 : -1;
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 32);
    if (!tmp) return -1;
    snprintf(tmp, pl + 32, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) { free(tmp); return -1; }
    int ok = fwrite(data, 1, len, f) == len;
    ok &= fflush(f) == 0;
    ok &= fsync(fileno(f)) == 0;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        free(tmp);
        errno = e;
        return -1;
    }
    free(tmp);
    return 0;
}

/* --offload-arch=a,b,c: compile for each target, then one container; metadata left empty for now (the
 * shared emission keeps the kernel table in the host descriptor only). */
static p2n_status compile_multi(const p2n_input *in, unsigned nin, const p2n_options *base, char *list,
                                p2n_result *out) {
    p2n_container_entry ents[32];
    p2n_result res[32];
    unsigned n = 0;
    p2n_status st = P2N_OK;
    memset(out, 0, sizeof *out);
    size_t dlen = 0;
    char *diags = calloc(1, 1);
    for (char *s = list, *t; (t = strtok_r(s, ",", &s)) && n < 32;) {
        p2n_options o = *base;
        o.arch = t;
        p2n_status s1 = nin == 1 ? p2n_compile(in[0].ptx, in[0].len, in[0].filename, &o, &res[n])
                                 : p2n_compile_linked(in, nin, &o, &res[n]);
        size_t k = res[n].diagnostics ? strlen(res[n].diagnostics) : 0;
        char *nd = realloc(diags, dlen + k + 1);
        if (nd) { diags = nd; memcpy(diags + dlen, res[n].diagnostics ? res[n].diagnostics : "", k + 1); dlen += k; }
        if (s1 != P2N_OK) { if (st == P2N_OK || s1 == P2N_INTERNAL_ERROR) st = s1; p2n_result_free(&res[n]); continue; }
        memset(&ents[n], 0, sizeof ents[n]);
        snprintf(ents[n].target, sizeof ents[n].target, "%s", t);
        const target_desc *td = target_find(t);
        ents[n].kind = td->code_kind;
        ents[n].code = res[n].data;
        ents[n].code_size = res[n].size;
        n++;
    }
    if (st == P2N_OK) {
        out->data = p2n_container_write(ents, n, &out->size);
        if (!out->data) st = P2N_INTERNAL_ERROR;
    }
    for (unsigned i = 0; i < n; i++) p2n_result_free(&res[i]);
    out->status = st;
    out->diagnostics = diags;
    return st;
}

/* The whole command line; `inputs` (argc slots) belongs to main, so that every early return here frees it
 * (LeakSanitizer checks the error paths in CI). */
static int run_cli(int argc, char **argv, const char **inputs) {
    const char *output = NULL, *archs = "host";
    unsigned ninputs = 0;
    p2n_options opt = {.opt_level = 2, .emit = P2N_EMIT_OBJ};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) { usage(stdout); return 0; }
        if (strcmp(a, "--version") == 0) { printf("ptx2native %s (%s)\n", P2N_VERSION_STRING, p2n_build_id()); return 0; }
        if (strcmp(a, "--print-targets") == 0) {
            unsigned n;
            const target_desc *const *t = target_all(&n);
            for (unsigned k = 0; k < n; k++)
                printf("  %-10s %-52s %s\n", t[k]->name, t[k]->description,
                       p2n_target_ready(t[k]->name) ? "" : "(code generation not implemented yet)");
            return 0;
        }
        if (strcmp(a, "-o") == 0) {
            if (++i >= argc) { fputs("ptx2native: error: -o needs a file name\n", stderr); return 1; }
            output = argv[i];
        } else if (strncmp(a, "--offload-arch=", 15) == 0) archs = a + 15;
        else if (strncmp(a, "--arch=", 7) == 0) archs = a + 7;
        else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) opt.opt_level = a[2] - '0';
        else if (strcmp(a, "-v") == 0) opt.verbose = 1;
        else if (strcmp(a, "--defer-unsupported") == 0) opt.defer_unsupported = 1;
        else if (strcmp(a, "--fp-atomics=exact") == 0) opt.fp_atomics_native = 0;
        else if (strcmp(a, "--fp-atomics=native") == 0) opt.fp_atomics_native = 1;
        else if (strncmp(a, "--fp-atomics=", 13) == 0) {
            fprintf(stderr, "ptx2native: error: unknown --fp-atomics kind '%s' (exact, native)\n", a + 13);
            return 1;
        }
        else if (strncmp(a, "--device-lacks=", 15) == 0) {
            char *l = strdup(a + 15);
            for (char *s = l, *t; (t = strtok_r(s, ",", &s));) {
                if (strcmp(t, "subgroups") == 0) opt.device_lacks |= P2N_LACKS_SUBGROUPS;
                else if (strcmp(t, "forward-progress") == 0) opt.device_lacks |= P2N_LACKS_FORWARD_PROGRESS;
                else if (strcmp(t, "wg-collectives") == 0) opt.device_lacks |= P2N_LACKS_WG_COLLECTIVES;
                else if (strcmp(t, "program-globals") == 0) opt.device_lacks |= P2N_LACKS_PROGRAM_GLOBALS;
                else if (strcmp(t, "fault-isolation") == 0) opt.device_lacks |= P2N_LACKS_FAULT_ISOLATION;
                else if (strcmp(t, "space-query") == 0) opt.device_lacks |= P2N_LACKS_SPACE_QUERY;
                else if (strcmp(t, "recursion") == 0) opt.device_lacks |= P2N_LACKS_RECURSION;
                else {
                    fprintf(stderr, "ptx2native: error: unknown --device-lacks item '%s' (subgroups, forward-progress, wg-collectives, program-globals, fault-isolation, space-query, recursion)\n", t);
                    free(l);
                    return 1;
                }
            }
            free(l);
        }
        else if (strncmp(a, "--recursion-stack=", 18) == 0) {
            char *end;
            unsigned long n = strtoul(a + 18, &end, 10);
            if (!a[18] || *end || n < 64 || n > (1ul << 30)) {
                fprintf(stderr, "ptx2native: error: --recursion-stack needs a byte count 64..1073741824, not '%s'\n", a + 18);
                return 1;
            }
            opt.recursion_stack = (unsigned)n;
        }
        else if (strcmp(a, "-j") == 0 || (a[0] == '-' && a[1] == 'j' && a[2]) || strncmp(a, "--jobs=", 7) == 0) {
            const char *v = a[1] == 'j' ? (a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : "")) : a + 7;
            char *end;
            long j = strtol(v, &end, 10);
            if (!*v || *end || j < 0 || j > 256) {
                fprintf(stderr, "ptx2native: error: -j needs a thread count 0..256 (0 = one per CPU), not '%s'\n", v);
                return 1;
            }
            opt.jobs = j ? (int)j : -1;
        }
        else if (strncmp(a, "--emit=", 7) == 0) {
            const char *e = a + 7;
            if (strcmp(e, "ir") == 0) opt.emit = P2N_EMIT_IR;
            else if (strcmp(e, "llvm") == 0) opt.emit = P2N_EMIT_LLVM;
            else if (strcmp(e, "asm") == 0) opt.emit = P2N_EMIT_ASM;
            else if (strcmp(e, "obj") == 0) opt.emit = P2N_EMIT_OBJ;
            else { fprintf(stderr, "ptx2native: error: unknown --emit kind '%s' (ir, llvm, asm, obj)\n", e); return 1; }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "ptx2native: error: unknown option '%s' (see --help)\n", a);
            return 1;
        } else inputs[ninputs++] = a;
    }
    if (!ninputs) { usage(stderr); return 1; }
    const char *env_jobs = getenv("P2N_JOBS");
    if (!opt.jobs && !(env_jobs && *env_jobs)) opt.jobs = -1; /* -j0: parallel where it pays (codegen.c) */
    char *archlist = NULL;
    if (strchr(archs, ',')) {
        /* several targets: one P2NCODE1 container (docs/native-container.md), one entry per target */
        if (opt.emit != P2N_EMIT_OBJ) { fputs("ptx2native: error: several targets need --emit=obj\n", stderr); return 1; }
        /* checked on a copy: strtok_r cuts its string at the commas, and compile_multi needs the whole list */
        archlist = strdup(archs);
        char *chk = strdup(archs);
        for (char *s = chk, *t; (t = strtok_r(s, ",", &s));)
            if (!target_find(t)) { fprintf(stderr, "ptx2native: error: unknown target '%s' (see --print-targets)\n", t); free(chk); free(archlist); return 1; }
        free(chk);
    } else if (!target_find(archs)) {
        fprintf(stderr, "ptx2native: error: unknown target '%s' (see --print-targets)\n", archs);
        return 1;
    }
    opt.arch = archs;
    if (!output && opt.emit == P2N_EMIT_OBJ) {
        fputs("ptx2native: error: native code needs an output file (-o FILE)\n", stderr);
        free(archlist);
        return 1;
    }
    p2n_input *in = calloc(ninputs, sizeof *in);
    if (!in) { free(archlist); return 2; }
    for (unsigned k = 0; k < ninputs; k++) {
        const char *input = inputs[k];
        FILE *f = strcmp(input, "-") == 0 ? stdin : fopen(input, "rb");
        char *src = NULL;
        size_t len = 0;
        if (!f) fprintf(stderr, "ptx2native: error: cannot open '%s': %s\n", input, strerror(errno));
        else {
            src = read_all(f, &len);
            if (f != stdin) fclose(f);
            if (!src) fprintf(stderr, "ptx2native: error: cannot read '%s'\n", input);
        }
        if (!src) {
            for (unsigned j = 0; j < k; j++) free((void *)in[j].ptx);
            free(in);
            free(archlist);
            return 1;
        }
        in[k] = (p2n_input){src, len, strcmp(input, "-") == 0 ? "<stdin>" : input};
    }
    p2n_result r;
    p2n_status st;
    if (archlist) {
        st = compile_multi(in, ninputs, &opt, archlist, &r);
        free(archlist);
    } else {
        st = ninputs == 1 ? p2n_compile(in[0].ptx, in[0].len, in[0].filename, &opt, &r)
                          : p2n_compile_linked(in, ninputs, &opt, &r);
    }
    for (unsigned k = 0; k < ninputs; k++) free((void *)in[k].ptx);
    free(in);
    if (r.diagnostics && r.diagnostics[0]) fputs(r.diagnostics, stderr);
    int rc = st == P2N_OK ? 0 : st == P2N_INTERNAL_ERROR ? 2 : 1;
    if (st == P2N_OK) {
        if (write_atomic(output ? output : "-", r.data, r.size) != 0) {
            fprintf(stderr, "ptx2native: error: cannot write '%s': %s\n", output ? output : "<stdout>", strerror(errno));
            rc = 1;
        } else if (opt.verbose) {
            fprintf(stderr, "ptx2native: wrote %zu bytes for %s\n", r.size, archs);
        }
    }
    p2n_result_free(&r);
    return rc;
}

int main(int argc, char **argv) {
    const char **inputs = calloc((size_t)argc, sizeof *inputs);
    if (!inputs) return 2;
    int rc = run_cli(argc, argv, inputs);
    free(inputs);
    return rc;
}
