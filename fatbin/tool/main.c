/* main.c — ptx2native-fatbin: list / extract / rewrite / verify / strip CUDA fat binaries in ELF files. */
#include "tool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef P2N_HAVE_COMPILER
#include "ptx2native.h"
#endif

#ifndef P2N_FATBIN_VERSION
#define P2N_FATBIN_VERSION "0.1.0"
#endif

int g_verbose;

/* The --help text is fatbin/tool/help.txt, which also becomes the man page (packaging/help2man.py). */
#ifndef P2N_HELP_HEADER
#error "P2N_HELP_HEADER undefined: cmake/Install.cmake generates the --help text of the target ptx2native-fatbin"
#endif
#include P2N_HELP_HEADER

static void usage(FILE *o) { fputs(P2N_HELP_TEXT, o); }

/* ---------- helpers ---------- */

static void text_str(FILE *o, const char *s, size_t n) {
    fputc('"', o);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7f || c == '"') fprintf(o, "\\x%02x", c);
        else fputc(c, o);
    }
    fputc('"', o);
}

int mkdir_p(const char *dir) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0777) && errno != EEXIST) return -1;
            *p = '/';
        }
    if (mkdir(tmp, 0777) && errno != EEXIST) return -1;
    return 0;
}

/* temp file in the same directory + fsync + rename + fsync(dir) */
int write_atomic(const char *path, const void *data, size_t len, const char *mode_from, char *err, size_t errlen) {
    char dirbuf[4096], basebuf[4096], tmp[8192];
    snprintf(dirbuf, sizeof dirbuf, "%s", path);
    snprintf(basebuf, sizeof basebuf, "%s", path);
    const char *dir = dirname(dirbuf), *base = basename(basebuf);
    snprintf(tmp, sizeof tmp, "%s/.%s.p2n-XXXXXX", dir, base);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create a temporary file in %s: %s", path, dir, strerror(errno));
        return -1;
    }
    struct stat st;
    mode_t mode = 0644;
    if (mode_from && stat(mode_from, &st) == 0) mode = st.st_mode & 07777;
    const uint8_t *p = data;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) goto fail;
        p += w;
        left -= (size_t)w;
    }
    if (fchmod(fd, mode) || fsync(fd)) goto fail;
    if (close(fd)) {
        fd = -1;
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path)) goto fail;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
fail:
    snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    unlink(tmp);
    return -1;
}

static const char *file_kind(const p2n_fb_file *f) {
    if (f->kind == P2N_FB_FILE_ARCHIVE) return "archive";
    if (f->kind == P2N_FB_FILE_CONTAINER) return "fatbin";
    switch (f->elf_type) {
    case 1: return "elf-rel";
    case 2: return "elf-exec";
    case 3: return "elf-dyn";
    default: return "elf";
    }
}

static int status_exit(int rc) { return rc == P2N_FB_INTERNAL ? EXIT_INTERNAL : rc ? EXIT_BAD_INPUT : EXIT_OK; }

/* ---------- list ---------- */

static void list_text(const p2n_fb_file *f) {
    printf("%s: %s, %zu containers, %zu wrappers%s\n", f->path, file_kind(f), f->n_containers, f->n_wrappers,
           f->has_native ? ", has " P2N_NATIVE_SECTION : "");
    for (size_t i = 0; i < f->n_containers; i++) {
        const p2n_fb_container *c = &f->containers[i];
        printf("  container %zu section=%s offset=0x%llx vaddr=0x%llx size=0x%llx", i, c->section,
               (unsigned long long)c->file_offset, (unsigned long long)c->vaddr, (unsigned long long)c->size);
        if (c->member) printf(" member=%s", c->member);
        if (c->wrapper_version) printf(" wrapper=v%d status=live", c->wrapper_version);
        else printf(" wrapper=none status=dead");
        printf(" entries=%zu\n", c->n_entries);
        for (size_t k = 0; k < c->n_entries; k++) {
            const p2n_fb_entry *e = &c->entries[k];
            char arch[24];
            p2n_fb_arch_name(e, arch, sizeof arch);
            uint64_t usz = e->compression == P2N_FB_COMP_NONE ? e->payload_size : e->uncompressed_size;
            printf("    entry %zu kind=%s arch=%s %s=%u.%u comp=%s stored=%llu size=%llu flags=0x%llx", k,
                   p2n_fb_kind_name(e->kind), arch, e->kind == P2N_FB_KIND_PTX ? "ptx" : "abi", e->code_major,
                   e->code_minor, p2n_fb_compression_name(e->compression), (unsigned long long)e->stored_len,
                   (unsigned long long)usz, (unsigned long long)e->flags);
            if (e->flags & P2N_FB_FLAG_DEBUG) printf(" debug");
            if (e->options_len) {
                printf(" options=");
                text_str(stdout, e->options, e->options_len);
            }
            if (e->ident_len) {
                printf(" ident=");
                text_str(stdout, e->ident, e->ident_len);
            }
            putchar('\n');
        }
    }
    for (size_t i = 0; i < f->n_wrappers; i++) {
        const p2n_fb_wrapper *w = &f->wrappers[i];
        printf("  wrapper %zu offset=0x%llx version=%u data=0x%llx container=%d%s%s\n", i,
               (unsigned long long)w->file_offset, w->version, (unsigned long long)w->data_vaddr, w->container,
               w->member ? " member=" : "", w->member ? w->member : "");
    }
}

static void list_json(const p2n_fb_file *f, const char *error, int first) {
    printf("%s  {\"file\": ", first ? "" : ",\n");
    json_str(stdout, f->path, strlen(f->path));
    printf(", \"kind\": \"%s\"", file_kind(f));
    if (error) {
        printf(", \"error\": ");
        json_str(stdout, error, strlen(error));
    }
    printf(", \"has_native\": %s, \"containers\": [", f->has_native ? "true" : "false");
    for (size_t i = 0; i < f->n_containers; i++) {
        const p2n_fb_container *c = &f->containers[i];
        printf("%s\n    {\"index\": %zu, \"section\": ", i ? "," : "", i);
        json_str(stdout, c->section, strlen(c->section));
        printf(", \"offset\": %llu, \"vaddr\": %llu, \"size\": %llu, \"member\": ", (unsigned long long)c->file_offset,
               (unsigned long long)c->vaddr, (unsigned long long)c->size);
        if (c->member) json_str(stdout, c->member, strlen(c->member));
        else printf("null");
        printf(", \"wrapper\": %d, \"live\": %s, \"entries\": [", c->wrapper_version,
               c->wrapper_version ? "true" : "false");
        for (size_t k = 0; k < c->n_entries; k++) {
            const p2n_fb_entry *e = &c->entries[k];
            char arch[24];
            p2n_fb_arch_name(e, arch, sizeof arch);
            uint64_t usz = e->compression == P2N_FB_COMP_NONE ? e->payload_size : e->uncompressed_size;
            printf("%s\n      {\"index\": %zu, \"kind\": \"%s\", \"arch\": \"%s\", \"sm\": %u, \"version\": \"%u.%u\", "
                   "\"compression\": \"%s\", \"stored_size\": %llu, \"size\": %llu, \"flags\": %llu, \"debug\": %s, "
                   "\"options\": ",
                   k ? "," : "", k, p2n_fb_kind_name(e->kind), arch, e->arch, e->code_major, e->code_minor,
                   p2n_fb_compression_name(e->compression), (unsigned long long)e->stored_len,
                   (unsigned long long)usz, (unsigned long long)e->flags,
                   (e->flags & P2N_FB_FLAG_DEBUG) ? "true" : "false");
            json_str(stdout, e->options ? e->options : "", e->options_len);
            printf(", \"ident\": ");
            json_str(stdout, e->ident ? e->ident : "", e->ident_len);
            printf("}");
        }
        printf("]}");
    }
    printf("],\n   \"wrappers\": [");
    for (size_t i = 0; i < f->n_wrappers; i++) {
        const p2n_fb_wrapper *w = &f->wrappers[i];
        printf("%s{\"offset\": %llu, \"version\": %u, \"data\": %llu, \"container\": %d}", i ? ", " : "",
               (unsigned long long)w->file_offset, w->version, (unsigned long long)w->data_vaddr, w->container);
    }
    printf("], \"warnings\": %zu}", f->n_warnings);
}

static int cmd_list(int argc, char **argv) {
    int json = 0, nfiles = 0;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "-v")) g_verbose++;
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "ptx2native-fatbin list: unknown option %s\n", argv[i]);
            free(files);
            return EXIT_BAD_INPUT;
        } else files[nfiles++] = argv[i];
    }
    if (!nfiles) {
        fprintf(stderr, "ptx2native-fatbin list: no input file\n");
        free(files);
        return EXIT_BAD_INPUT;
    }
    input_list in;
    int ret = collect_inputs(files, nfiles, 0, NULL, &in);
    free(files);
    if (json) printf("[\n");
    for (size_t i = 0; i < in.n; i++) {
        p2n_fb_file f;
        char err[2048] = "";
        int rc = p2n_fb_open(in.v[i].path, &f, err, sizeof err);
        if (rc) {
            fprintf(stderr, "ptx2native-fatbin: error: %s\n", err);
            int e = status_exit(rc);
            if (e > ret) ret = e;
        }
        if (json) list_json(&f, rc ? err : NULL, i == 0);
        else if (!rc || f.n_containers) list_text(&f);
        for (size_t k = 0; k < f.n_warnings; k++)
            if (g_verbose) fprintf(stderr, "ptx2native-fatbin: warning: %s\n", f.warnings[k]);
        if (f.n_warnings && !g_verbose)
            fprintf(stderr, "ptx2native-fatbin: %s: %zu warnings (magic matches that are not containers; -v shows them)\n",
                    in.v[i].path, f.n_warnings);
        p2n_fb_close(&f);
    }
    if (json) printf("\n]\n");
    free_inputs(&in);
    return ret;
}

/* ---------- extract ---------- */

static int cmd_extract(int argc, char **argv) {
    const char *file = NULL, *outdir = ".";
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) outdir = argv[++i];
        else if (!strncmp(argv[i], "-o", 2) && argv[i][2]) outdir = argv[i] + 2;
        else if (!strcmp(argv[i], "-v")) g_verbose++;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "ptx2native-fatbin extract: unknown option %s\n", argv[i]);
            return EXIT_BAD_INPUT;
        } else if (!file) file = argv[i];
        else {
            fprintf(stderr, "ptx2native-fatbin extract: one input file only\n");
            return EXIT_BAD_INPUT;
        }
    }
    if (!file) {
        fprintf(stderr, "ptx2native-fatbin extract: no input file\n");
        return EXIT_BAD_INPUT;
    }
    if (mkdir_p(outdir)) {
        fprintf(stderr, "ptx2native-fatbin: %s: cannot create directory: %s\n", outdir, strerror(errno));
        return EXIT_INTERNAL;
    }
    p2n_fb_file f;
    char err[2048] = "";
    int rc = p2n_fb_open(file, &f, err, sizeof err);
    if (rc) {
        fprintf(stderr, "ptx2native-fatbin: error: %s\n", err);
        p2n_fb_close(&f);
        return status_exit(rc);
    }
    char bb[4096];
    snprintf(bb, sizeof bb, "%s", file);
    const char *base = basename(bb);
    int ret = EXIT_OK;
    size_t written = 0;
    for (size_t i = 0; i < f.n_containers; i++) {
        const p2n_fb_container *c = &f.containers[i];
        for (size_t k = 0; k < c->n_entries; k++) {
            const p2n_fb_entry *e = &c->entries[k];
            char arch[24], path[8192], where[4200];
            p2n_fb_arch_name(e, arch, sizeof arch);
            const char *ext = e->kind == P2N_FB_KIND_PTX ? "ptx" : e->kind == P2N_FB_KIND_ELF ? "cubin"
                            : e->kind == P2N_FB_KIND_LTOIR ? "ltoir" : "bin";
            snprintf(path, sizeof path, "%s/%s.%zu.%zu.%s.%s", outdir, base, i, k, arch, ext);
            snprintf(where, sizeof where, "%s: section %s", file, c->section);
            uint8_t *data;
            size_t len;
            rc = p2n_fb_decode(e, &data, &len, where, c->file_offset + e->offset, err, sizeof err);
            if (rc == P2N_FB_UNSUPPORTED) {
                fprintf(stderr, "ptx2native-fatbin: note: skipping %s: %s\n", path, err);
                continue;
            }
            if (rc) {
                fprintf(stderr, "ptx2native-fatbin: error: %s\n", err);
                if (status_exit(rc) > ret) ret = status_exit(rc);
                continue;
            }
            if (write_atomic(path, data, len, NULL, err, sizeof err)) {
                fprintf(stderr, "ptx2native-fatbin: error: %s\n", err);
                ret = EXIT_INTERNAL;
            } else {
                written++;
                if (g_verbose) printf("%s\n", path);
            }
            free(data);
        }
    }
    if (g_verbose) printf("%zu files written to %s\n", written, outdir);
    p2n_fb_close(&f);
    return ret;
}

/* ---------- verify / strip ---------- */

static int cmd_verify(int argc, char **argv) {
    int ignore_bid = 0, ret = EXIT_OK, nfiles = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--ignore-build-id")) ignore_bid = 1;
        else if (!strcmp(argv[i], "-v")) g_verbose++;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "ptx2native-fatbin verify: unknown option %s\n", argv[i]);
            return EXIT_BAD_INPUT;
        }
    }
    const char *bid = NULL;
#ifdef P2N_HAVE_COMPILER
    if (!ignore_bid) bid = p2n_build_id();
#endif
    (void)ignore_bid;
    for (int i = 0; i < argc; i++) {
        if (argv[i][0] == '-') continue;
        nfiles++;
        p2n_fb_file f;
        char err[2048] = "";
        int rc = p2n_fb_open(argv[i], &f, err, sizeof err);
        char *report = NULL;
        if (!rc) rc = p2n_native_verify(&f, bid, &report, err, sizeof err);
        if (report) fputs(report, rc ? stderr : stdout);
        if (rc) fprintf(stderr, "ptx2native-fatbin: error: %s\n", err);
        if (status_exit(rc) > ret) ret = status_exit(rc);
        free(report);
        p2n_fb_close(&f);
    }
    if (!nfiles) {
        fprintf(stderr, "ptx2native-fatbin verify: no input file\n");
        return EXIT_BAD_INPUT;
    }
    return ret;
}

static int cmd_strip(int argc, char **argv) {
    const char *file = NULL, *out = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--in-place")) out = NULL;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "ptx2native-fatbin strip: unknown option %s\n", argv[i]);
            return EXIT_BAD_INPUT;
        } else if (!file) file = argv[i];
        else {
            fprintf(stderr, "ptx2native-fatbin strip: one input file only\n");
            return EXIT_BAD_INPUT;
        }
    }
    if (!file) {
        fprintf(stderr, "ptx2native-fatbin strip: no input file\n");
        return EXIT_BAD_INPUT;
    }
    p2n_fb_file f;
    char err[2048] = "";
    int rc = p2n_fb_open(file, &f, err, sizeof err);
    uint8_t *o = NULL;
    size_t olen = 0;
    if (!rc) rc = p2n_native_strip(f.data, f.size, file, &o, &olen, err, sizeof err);
    if (rc) {
        fprintf(stderr, "ptx2native-fatbin: error: %s\n", err);
        p2n_fb_close(&f);
        return status_exit(rc);
    }
    int ret = EXIT_OK;
    if (write_atomic(out ? out : file, o, olen, file, err, sizeof err)) {
        fprintf(stderr, "ptx2native-fatbin: error: %s\n", err);
        ret = EXIT_INTERNAL;
    }
    free(o);
    p2n_fb_close(&f);
    return ret;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("ptx2native-fatbin %s", P2N_FATBIN_VERSION);
#ifdef P2N_HAVE_COMPILER
        printf(" (compiler build %s)", p2n_build_id());
#else
        printf(" (built without the compiler library)");
#endif
        printf("\n");
        return EXIT_OK;
    }
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return EXIT_OK;
        }
    if (!strcmp(cmd, "list")) return cmd_list(argc - 2, argv + 2);
    if (!strcmp(cmd, "extract")) return cmd_extract(argc - 2, argv + 2);
    if (!strcmp(cmd, "rewrite")) return cmd_rewrite(argc - 2, argv + 2);
    if (!strcmp(cmd, "verify")) return cmd_verify(argc - 2, argv + 2);
    if (!strcmp(cmd, "strip")) return cmd_strip(argc - 2, argv + 2);
    fprintf(stderr, "ptx2native-fatbin: unknown command '%s' (try --help)\n", cmd);
    return EXIT_BAD_INPUT;
}
