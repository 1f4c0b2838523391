/* tree.c — walking input directories, and writing a mirrored output tree safely.
 *
 * `rewrite DIR -o OUT` must give a tree that can be deployed as it is: every directory, every file (rewritten,
 * or copied byte for byte with its mode), every symbolic link (recreated, never followed). Writing never goes
 * through a symbolic link found under OUT: a link there could point anywhere (an earlier output, an attacker),
 * and an operator's "-o OUT" means "write under OUT only". */
#include "tool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int add_input(input_list *l, const char *path, const char *rel, const char *root, int from_dir,
                     input_kind kind, const struct stat *st) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        input *nv = realloc(l->v, cap * sizeof *nv);
        if (!nv) return -1;
        l->v = nv;
        l->cap = cap;
    }
    input *in = &l->v[l->n];
    memset(in, 0, sizeof *in);
    in->path = strdup(path);
    in->rel = strdup(rel);
    in->root = root ? strdup(root) : NULL;
    in->from_dir = from_dir;
    in->kind = kind;
    in->mode = st ? st->st_mode & 07777 : 0644;
    in->size = st ? (uint64_t)st->st_size : 0;
    if (!in->path || !in->rel) return -1;
    l->n++;
    return 0;
}

/* ELF files and `!<arch>` archives are what may hold fat binaries. */
static int is_candidate(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return 0;
    char m[8] = {0};
    ssize_t r = read(fd, m, 8);
    close(fd);
    return r >= 4 && (!memcmp(m, "\177ELF", 4) || (r == 8 && !memcmp(m, "!<arch>\n", 8)));
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int walk_dir(input_list *l, const char *dir, const char *rel, const char *root, int all, const char *skip) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "ptx2native-fatbin: %s: cannot open directory: %s\n", dir, strerror(errno));
        return EXIT_BAD_INPUT;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        if (de->d_name[0] == '.' && strstr(de->d_name, ".p2n-")) continue; /* our temp files */
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) break;
            names = nn;
        }
        names[n++] = strdup(de->d_name);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str); /* stable order for reports */
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char p[PATH_MAX], r[PATH_MAX];
        int lp = snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        int lr = snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", names[i]);
        struct stat st;
        if (lp >= (int)sizeof p || lr >= (int)sizeof r) {
            fprintf(stderr, "ptx2native-fatbin: %s/%s: path too long\n", dir, names[i]);
            rc = EXIT_BAD_INPUT;
        } else if (lstat(p, &st) == 0) {
            /* links are never followed: a linked directory is not walked, a linked file not rewritten */
            char *real = S_ISDIR(st.st_mode) && skip ? realpath(p, NULL) : NULL;
            int is_skip = real && !strcmp(real, skip);
            free(real);
            if (is_skip) {
                if (g_verbose) fprintf(stderr, "ptx2native-fatbin: note: %s: the output directory: not walked\n", p);
            } else if (S_ISDIR(st.st_mode)) {
                if (all) add_input(l, p, r, root, 1, IN_DIR, &st);
                rc |= walk_dir(l, p, r, root, all, skip);
            } else if (S_ISREG(st.st_mode) && is_candidate(p)) add_input(l, p, r, root, 1, IN_REWRITE, &st);
            else if (all && S_ISREG(st.st_mode)) add_input(l, p, r, root, 1, IN_COPY, &st);
            else if (all && S_ISLNK(st.st_mode)) add_input(l, p, r, root, 1, IN_LINK, &st);
            else if (all)
                fprintf(stderr, "ptx2native-fatbin: note: %s: not a regular file, directory or link: not carried over\n", p);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int collect_inputs(char **args, int nargs, int all, const char *skip_dir, input_list *l) {
    memset(l, 0, sizeof *l);
    for (int i = 0; i < nargs; i++) {
        struct stat st;
        if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            char *root = realpath(args[i], NULL);
            if (root && skip_dir && !strcmp(root, skip_dir)) {
                fprintf(stderr, "ptx2native-fatbin: %s: -o names this input directory itself (use --in-place)\n",
                        args[i]);
                free(root);
                return EXIT_BAD_INPUT;
            }
            int rc = walk_dir(l, args[i], "", root, all, skip_dir);
            free(root);
            if (rc) return EXIT_BAD_INPUT;
        } else {
            char b[PATH_MAX];
            snprintf(b, sizeof b, "%s", args[i]);
            struct stat ls;
            add_input(l, args[i], basename(b), NULL, 0, IN_REWRITE, stat(args[i], &ls) ? NULL : &ls);
        }
    }
    return 0;
}

void free_inputs(input_list *l) {
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].path);
        free(l->v[i].rel);
        free(l->v[i].root);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Creates the directories of OUT/rel's parent, refusing any component that is a symbolic link or not a
 * directory. The last component may exist (it is replaced by rename, which does not follow a link); it may be
 * a directory only when one is about to be made there (dir_ok). */
int safe_parent(const char *out, const char *rel, int dir_ok, char *err, size_t errlen) {
    char path[PATH_MAX];
    size_t ol = strlen(out);
    if (snprintf(path, sizeof path, "%s/%s", out, rel) >= (int)sizeof path) {
        snprintf(err, errlen, "%s/%s: path too long", out, rel);
        return -1;
    }
    for (char *p = path + ol + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        struct stat st;
        if (lstat(path, &st) == 0) {
            if (S_ISLNK(st.st_mode)) {
                snprintf(err, errlen, "%s: is a symbolic link: refusing to write through it", path);
                return -1;
            }
            if (!S_ISDIR(st.st_mode)) {
                snprintf(err, errlen, "%s: exists and is not a directory", path);
                return -1;
            }
        } else if (mkdir(path, 0777) && errno != EEXIST) {
            snprintf(err, errlen, "%s: cannot create directory: %s", path, strerror(errno));
            return -1;
        }
        *p = '/';
    }
    struct stat st;
    if (!dir_ok && lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory", path);
        return -1;
    }
    return 0;
}

/* Streams src to a temporary file beside dest, keeps the mode, then renames it over dest. */
int copy_atomic(const char *src, const char *dest, char *err, size_t errlen) {
    int in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (in < 0 || fstat(in, &st)) {
        snprintf(err, errlen, "%s: cannot read: %s", src, strerror(errno));
        if (in >= 0) close(in);
        return -1;
    }
    char dirbuf[PATH_MAX], basebuf[PATH_MAX], tmp[2 * PATH_MAX + 16];
    snprintf(dirbuf, sizeof dirbuf, "%s", dest);
    snprintf(basebuf, sizeof basebuf, "%s", dest);
    snprintf(tmp, sizeof tmp, "%s/.%s.p2n-XXXXXX", dirname(dirbuf), basename(basebuf));
    int out = mkstemp(tmp);
    if (out < 0) {
        snprintf(err, errlen, "%s: cannot create a temporary file: %s", dest, strerror(errno));
        close(in);
        return -1;
    }
    char buf[1 << 16];
    ssize_t r;
    int ok = 1;
    while (ok && (r = read(in, buf, sizeof buf)) != 0) {
        if (r < 0) {
            if (errno == EINTR) continue;
            ok = 0;
            break;
        }
        for (ssize_t off = 0; off < r;) {
            ssize_t w = write(out, buf + off, (size_t)(r - off));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) {
                ok = 0;
                break;
            }
            off += w;
        }
    }
    close(in);
    if (ok && (fchmod(out, st.st_mode & 07777) || fsync(out))) ok = 0;
    if (close(out)) ok = 0;
    if (ok && rename(tmp, dest)) ok = 0;
    if (!ok) {
        snprintf(err, errlen, "%s: cannot write: %s", dest, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* The target a link at `rel` (inside the tree rooted at `root`) gets in the output tree: relative targets as
 * they are; an absolute target inside the input tree becomes relative, so it stays inside the output tree. */
static void link_target(const input *in, const char *target, char *out, size_t n) {
    size_t rl = in->root ? strlen(in->root) : 0;
    if (target[0] != '/' || !rl || strncmp(target, in->root, rl) || target[rl] != '/') {
        snprintf(out, n, "%s", target);
        return;
    }
    size_t k = 0;
    out[0] = 0;
    for (const char *p = in->rel; (p = strchr(p, '/')); p++) k += (size_t)snprintf(out + k, n > k ? n - k : 0, "../");
    snprintf(out + k, n > k ? n - k : 0, "%s", target + rl + 1);
}

/* Recreates the link `in` as dest: symlink under a temporary name, then rename over dest. */
int link_atomic(const input *in, const char *dest, char *err, size_t errlen) {
    char target[PATH_MAX], mapped[PATH_MAX];
    ssize_t tl = readlink(in->path, target, sizeof target - 1);
    if (tl < 0) {
        snprintf(err, errlen, "%s: cannot read the link: %s", in->path, strerror(errno));
        return -1;
    }
    target[tl] = 0;
    link_target(in, target, mapped, sizeof mapped);
    char dirbuf[PATH_MAX], basebuf[PATH_MAX], tmp[2 * PATH_MAX + 32];
    snprintf(dirbuf, sizeof dirbuf, "%s", dest);
    snprintf(basebuf, sizeof basebuf, "%s", dest);
    const char *dir = dirname(dirbuf), *base = basename(basebuf);
    unsigned seed = (unsigned)getpid() ^ (unsigned)time(NULL);
    for (int attempt = 0; attempt < 100; attempt++) {
        snprintf(tmp, sizeof tmp, "%s/.%s.p2n-%06x", dir, base, (seed + (unsigned)attempt * 7919u) & 0xffffff);
        if (symlink(mapped, tmp) == 0) {
            if (rename(tmp, dest) == 0) return 0;
            snprintf(err, errlen, "%s: cannot create the link: %s", dest, strerror(errno));
            unlink(tmp);
            return -1;
        }
        if (errno != EEXIST) break;
    }
    snprintf(err, errlen, "%s: cannot create the link: %s", dest, strerror(errno));
    return -1;
}
