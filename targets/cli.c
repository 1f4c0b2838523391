/* cli.c — the `ptx2native` command: PTX in, native code (or IR/LLVM/assembly text) out.
 * Exit status: 0 success, 1 bad input or unsupported request (diagnostics say what and where), 2 internal error.
 * Output files are written atomically: a temporary file next to the target, renamed when complete. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "ptx2native.h"
#include "target.h"
#include "container.h"

/* The --help text is targets/cli_help.txt, which also becomes the man page (packaging/help2man.py). */
#ifndef P2N_HELP_HEADER
#error "P2N_HELP_HEADER undefined: cmake/Install.cmake generates the --help text of the target ptx2native"
#endif
#include P2N_HELP_HEADER

static void usage(FILE *f) { fputs(P2N_HELP_TEXT, f); }

/* ---- @FILE response files: whitespace-separated words, '...' and "..." quoting, backslash escapes ---- */
typedef struct argvec { char **v; int n, cap; } argvec;

static int argvec_push(argvec *a, char *s) {
    if (!s) return -1;
    if (a->n + 1 >= a->cap) {
        int nc = a->cap ? a->cap * 2 : 64;
        char **nv = realloc(a->v, (size_t)nc * sizeof *nv);
        if (!nv) { free(s); return -1; }
        a->v = nv;
        a->cap = nc;
    }
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
    return 0;
}

static void argvec_free(argvec *a) {
    for (int i = 0; i < a->n; i++) free(a->v[i]);
    free(a->v);
    memset(a, 0, sizeof *a);
}

static char *read_all(FILE *f, size_t *len);

/* Appends argv[i] to out, replacing each @FILE (until a '--') by the words in FILE. Returns 0, or 1 after
 * printing the error (a user error: unreadable file, unterminated quote, nesting deeper than 16). */
static int expand_args(argvec *out, int argc, char **argv, int depth, int *after_dashdash) {
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (*after_dashdash || a[0] != '@' || !a[1]) {
            if (strcmp(a, "--") == 0) *after_dashdash = 1;
            if (argvec_push(out, strdup(a))) return 2;
            continue;
        }
        if (depth >= 16) { fprintf(stderr, "ptx2native: error: %s: response files nested too deep\n", a); return 1; }
        FILE *f = fopen(a + 1, "rb");
        size_t len = 0;
        char *text = f ? read_all(f, &len) : NULL;
        if (f) fclose(f);
        if (!text) { fprintf(stderr, "ptx2native: error: cannot read response file '%s': %s\n", a + 1, strerror(errno)); return 1; }
        argvec words = {0};
        char *w = malloc(len + 1);
        size_t wl = 0;
        int inword = 0, rc = 0;
        char q = 0;
        for (size_t k = 0; w && k <= len && !rc; k++) {
            char c = k < len ? text[k] : 0;
            if (k == len && q) { fprintf(stderr, "ptx2native: error: %s: unterminated quote\n", a); rc = 1; break; }
            if (q) {
                if (c == q) q = 0;
                else if (c == '\\' && q == '"' && k + 1 < len) w[wl++] = text[++k];
                else w[wl++] = c;
            } else if (c == '\'' || c == '"') { q = c; inword = 1; }
            else if (c == '\\' && k + 1 < len) { w[wl++] = text[++k]; inword = 1; }
            else if (c == 0 || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                if (inword) { w[wl] = 0; if (argvec_push(&words, strdup(w))) rc = 2; wl = 0; inword = 0; }
            } else { w[wl++] = c; inword = 1; }
        }
        if (!w) rc = 2;
        free(w);
        free(text);
        if (!rc) rc = expand_args(out, words.n, words.v, depth + 1, after_dashdash);
        argvec_free(&words);
        if (rc) return rc;
    }
    return 0;
}

/* Appends a comma-separated target list to *archs (the --offload-arch options accumulate; duplicates dropped). */
static int add_archs(char **archs, const char *list) {
    char *copy = strdup(list);
    if (!copy) return -1;
    for (char *s = copy, *t; (t = strtok_r(s, ",", &s));) {
        size_t have = *archs ? strlen(*archs) : 0, tl = strlen(t);
        int dup = 0;
        for (const char *p = *archs; p && *p;) {
            const char *e = strchr(p, ',');
            size_t l = e ? (size_t)(e - p) : strlen(p);
            if (l == tl && memcmp(p, t, l) == 0) dup = 1;
            p = e ? e + 1 : p + l;
        }
        if (dup) continue;
        char *n = realloc(*archs, have + tl + 2);
        if (!n) { free(copy); return -1; }
        if (have) n[have++] = ',';
        memcpy(n + have, t, tl + 1);
        *archs = n;
    }
    free(copy);
    return 0;
}

/* A make rule: OUTPUT: INPUTS, then an empty rule per input (as -MP), so a deleted input is no error. */
static void dep_escape(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == ' ' || *s == '#') fputc('\\', f);
        if (*s == '$') fputc('$', f);
        fputc(*s, f);
    }
}

static int write_depfile(const char *path, const char *output, const char **inputs, unsigned n) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    dep_escape(f, output);
    fputc(':', f);
    for (unsigned k = 0; k < n; k++)
        if (strcmp(inputs[k], "-")) { fputs(" \\\n  ", f); dep_escape(f, inputs[k]); }
    fputc('\n', f);
    for (unsigned k = 0; k < n; k++)
        if (strcmp(inputs[k], "-")) { fputc('\n', f); dep_escape(f, inputs[k]); fputs(":\n", f); }
    return fclose(f);
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

/* What run_cli allocates while parsing; main frees it, so every early return is leak-free (LeakSanitizer checks
 * the error paths in CI). */
typedef struct cli_owned { const char **inputs; char *archs; } cli_owned;

static int same_file(const char *a, const char *b) {
    struct stat sa, sb;
    if (strcmp(a, b) == 0) return 1;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* -save-temps: the IR and, per target, the LLVM IR next to the output (text; failures here are reported by
 * the real compilation that follows). */
static void save_temps(const p2n_input *in, unsigned nin, const p2n_options *base, const char *archs,
                       const char *output) {
    size_t ol = strlen(output);
    char *path = malloc(ol + 80);
    char *list = strdup(archs);
    if (!path || !list) { free(path); free(list); return; }
    for (int pass = 0; pass < 2; pass++) {
        for (char *s = list, *t; (t = strtok_r(s, ",", &s));) {
            p2n_options o = *base;
            o.arch = t;
            o.emit = pass == 0 ? P2N_EMIT_IR : P2N_EMIT_LLVM;
            if (pass == 0) snprintf(path, ol + 80, "%s.ir.ptx", output);
            else snprintf(path, ol + 80, "%s.%.40s.ll", output, t);
            p2n_result r;
            p2n_status st = nin == 1 ? p2n_compile(in[0].ptx, in[0].len, in[0].filename, &o, &r)
                                     : p2n_compile_linked(in, nin, &o, &r);
            if (st == P2N_OK && write_atomic(path, r.data, r.size) == 0 && base->verbose)
                fprintf(stderr, "ptx2native: kept %s\n", path);
            p2n_result_free(&r);
            if (pass == 0) break; /* the IR is the same for every target */
        }
        free(list);
        list = strdup(archs);
        if (!list) break;
    }
    free(list);
    free(path);
}

static int run_cli(int argc, char **argv, cli_owned *own) {
    const char *output = NULL, *depfile = NULL, **inputs = own->inputs;
    unsigned ninputs = 0;
    int want_deps = 0, keep_temps = 0, dry_run = 0, in_place = 0, only_inputs = 0;
    p2n_options opt = {.opt_level = 2, .emit = P2N_EMIT_OBJ};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_inputs || !strcmp(a, "-") || a[0] != '-') { inputs[ninputs++] = a; continue; }
        if (strcmp(a, "--") == 0) { only_inputs = 1; continue; }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) { usage(stdout); return 0; }
        if (strcmp(a, "--version") == 0) { printf("ptx2native %s (%s)\n", P2N_VERSION_STRING, p2n_build_id()); return 0; }
        if (strcmp(a, "--print-targets") == 0) {
            unsigned n;
            int wn = 0, wd = 0;
            const target_desc *const *t = target_all(&n);
            for (unsigned k = 0; k < n; k++) {
                if ((int)strlen(t[k]->name) > wn) wn = (int)strlen(t[k]->name);
                if ((int)strlen(t[k]->description) > wd) wd = (int)strlen(t[k]->description);
            }
            for (unsigned k = 0; k < n; k++) {
                int ready = p2n_target_ready(t[k]->name);
                printf("  %-*s  %-*s%s%s\n", wn, t[k]->name, ready ? 0 : wd, t[k]->description, ready ? "" : "  ",
                       ready ? "" : "(code generation not implemented yet)");
            }
            return 0;
        }
        /* options that take a value, as the next argument or (long ones) after '=' */
        const char *val = NULL;
        int is_o = !strcmp(a, "-o"), is_mf = !strcmp(a, "-MF"), is_x = !strcmp(a, "-x");
        int is_arch = !strcmp(a, "--offload-arch") || !strcmp(a, "--arch");
        if (is_o || is_mf || is_x || is_arch) {
            if (++i >= argc) { fprintf(stderr, "ptx2native: error: %s needs a value\n", a); return 1; }
            val = argv[i];
        }
        if (is_o) output = val;
        else if (is_mf) { depfile = val; want_deps = 1; }
        else if (is_x || !strncmp(a, "-x", 2)) {
            const char *lang = is_x ? val : a + 2;
            if (strcmp(lang, "ptx") != 0) {
                fprintf(stderr, "ptx2native: error: unsupported language '-x %s' (ptx is the only one)\n", lang);
                return 1;
            }
        }
        else if (is_arch || !strncmp(a, "--offload-arch=", 15) || !strncmp(a, "--arch=", 7)) {
            const char *l = is_arch ? val : strchr(a, '=') + 1;
            if (!*l) { fprintf(stderr, "ptx2native: error: %s needs a target list\n", a); return 1; }
            if (add_archs(&own->archs, l)) return 2;
        }
        else if (!strcmp(a, "-MD")) want_deps = 1;
        else if (!strcmp(a, "-save-temps")) keep_temps = 1;
        else if (!strcmp(a, "-###")) dry_run = 1;
        else if (!strcmp(a, "--in-place")) in_place = 1;
        else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) opt.opt_level = a[2] - '0';
        else if (strcmp(a, "-v") == 0) opt.verbose = 1;
        else if (strcmp(a, "--defer-unsupported") == 0) opt.defer_unsupported = 1;
        else if (strcmp(a, "--fp-atomics=exact") == 0) opt.fp_atomics_native = 0;
        else if (strcmp(a, "--fp-atomics=native") == 0) opt.fp_atomics_native = 1;
        else if (strcmp(a, "--line-info") == 0 || strcmp(a, "-lineinfo") == 0) opt.line_info = 1;
        else if (strcmp(a, "--host-entries=fast") == 0) opt.host_fallback_entries = 0;
        else if (strcmp(a, "--host-entries=all") == 0) opt.host_fallback_entries = 1;
        else if (strncmp(a, "--host-entries=", 15) == 0) {
            fprintf(stderr, "ptx2native: error: unknown --host-entries kind '%s' (fast, all)\n", a + 15);
            return 1;
        }
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
    const char *archs = own->archs ? own->archs : "host";
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
    /* user errors found before any work: all exit 1 */
    const char *why = NULL;
    struct stat ost;
    if (output && !*output) why = "is empty";
    else if (output && strcmp(output, "-") && ((stat(output, &ost) == 0 && S_ISDIR(ost.st_mode)) ||
                                              output[strlen(output) - 1] == '/'))
        why = "names a directory (-o takes a file)";
    for (unsigned k = 0; !why && output && !in_place && k < ninputs; k++)
        if (strcmp(inputs[k], "-") && same_file(inputs[k], output)) why = "is also an input (add --in-place to replace it)";
    if (why) {
        fprintf(stderr, "ptx2native: error: output '%s' %s\n", output, why);
        free(archlist);
        return 1;
    }
    char *dpath = NULL;
    if (want_deps) {
        if (!output || !strcmp(output, "-")) {
            fputs("ptx2native: error: -MD/-MF need an output file (-o FILE)\n", stderr);
            free(archlist);
            return 1;
        }
        if (depfile) dpath = strdup(depfile);
        else if ((dpath = malloc(strlen(output) + 3))) sprintf(dpath, "%s.d", output);
        if (!dpath) { free(archlist); return 2; }
    }
    if (keep_temps && (!output || !strcmp(output, "-"))) {
        fputs("ptx2native: error: -save-temps needs an output file (-o FILE)\n", stderr);
        free(archlist);
        free(dpath);
        return 1;
    }
    if (dry_run) {
        /* -###: what would run, one step a line, on stderr (as compiler drivers do); nothing is read or written */
        static const char *const emit_names[] = {"obj", "ir", "llvm", "asm"};
        fputs("\"ptx2native-read\"", stderr);
        for (unsigned k = 0; k < ninputs; k++) fprintf(stderr, " \"%s\"", inputs[k]);
        fputc('\n', stderr);
        if (ninputs > 1) fprintf(stderr, "\"ptx2native-link\" %u modules\n", ninputs);
        char *l = strdup(archs);
        for (char *sp = l, *t; l && (t = strtok_r(sp, ",", &sp));) {
            if (keep_temps) fprintf(stderr, "\"ptx2native-save-temps\" \"%s.ir.ptx\" \"%s.%s.ll\"\n", output, output, t);
            fprintf(stderr, "\"ptx2native-compile\" \"--offload-arch=%s\" \"-O%d\" \"--emit=%s\"\n", t, opt.opt_level,
                    emit_names[opt.emit]);
        }
        free(l);
        if (archlist) fprintf(stderr, "\"ptx2native-container\" \"%s\"\n", archs);
        fprintf(stderr, "\"ptx2native-write\" \"%s\"\n", output ? output : "-");
        if (dpath) fprintf(stderr, "\"ptx2native-depfile\" \"%s\"\n", dpath);
        free(archlist);
        free(dpath);
        return 0;
    }
    p2n_input *in = calloc(ninputs, sizeof *in);
    if (!in) { free(archlist); free(dpath); return 2; }
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
            free(dpath);
            return 1;
        }
        in[k] = (p2n_input){src, len, strcmp(input, "-") == 0 ? "<stdin>" : input};
    }
    if (keep_temps) save_temps(in, ninputs, &opt, archs, output);
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
        } else {
            if (opt.verbose) fprintf(stderr, "ptx2native: wrote %zu bytes for %s\n", r.size, archs);
            if (dpath && write_depfile(dpath, output, inputs, ninputs) != 0) {
                fprintf(stderr, "ptx2native: error: cannot write '%s': %s\n", dpath, strerror(errno));
                rc = 1;
            }
        }
    }
    free(dpath);
    p2n_result_free(&r);
    return rc;
}

int main(int argc, char **argv) {
    argvec args = {0};
    int dd = 0, rc = argvec_push(&args, strdup(argv[0])) ? 2 : expand_args(&args, argc - 1, argv + 1, 0, &dd);
    cli_owned own = {0};
    if (!rc) {
        own.inputs = calloc((size_t)args.n + 1, sizeof *own.inputs);
        rc = own.inputs ? run_cli(args.n, args.v, &own) : 2;
    }
    free(own.inputs);
    free(own.archs);
    argvec_free(&args);
    return rc;
}
