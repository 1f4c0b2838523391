/* jit_cache.c — the on-disk JIT cache (jit_cache.h says what and why). */
#include "jit_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "p2n_fatbin.h"
#include "support.h"

#define ENTRY_MAGIC "P2NJIT01"
#define ENTRY_SUFFIX ".p2nj"
#define DEFAULT_MAX ((uint64_t)1 << 30)

typedef struct entry_header {
    char magic[8];
    uint64_t key_lo, key_hi;
    uint64_t image_size, log_size;
    uint64_t sum_lo, sum_hi; /* P2H128 of image and log bytes */
} entry_header;

static struct {
    pthread_once_t once;
    bool usable;
    char dir[PATH_MAX - 128]; /* room for an entry name after it */
    uint64_t max_size;
} cache = {PTHREAD_ONCE_INIT, false, "", 0};

/* ---- the key ---- */

typedef struct keybuf {
    uint8_t *p;
    size_t n, cap;
    bool oom;
} keybuf;

static void put(keybuf *b, const void *d, size_t n) {
    if (b->oom) return;
    if (b->n + n > b->cap) {
        size_t c = b->cap ? b->cap * 2 : 512;
        while (c < b->n + n) c *= 2;
        uint8_t *q = realloc(b->p, c);
        if (!q) { b->oom = true; return; }
        b->p = q;
        b->cap = c;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void put_u64(keybuf *b, uint64_t v) { put(b, &v, sizeof v); }

static void put_str(keybuf *b, const char *s) {
    size_t n = s ? strlen(s) : 0;
    put_u64(b, n);
    put(b, s ? s : "", n);
}

/* host-native code is built for this CPU's name and features: two machines sharing a home directory must not
 * share it. /proc/cpuinfo's model name and flags of the first CPU identify both. */
static void put_cpu_identity(keybuf *b) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[8192];
    int seen = 0;
    while (seen < 2 && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10) || !strncmp(line, "flags", 5)) {
            put_str(b, line);
            seen++;
        }
    }
    fclose(f);
}

p2n_jit_key p2n_jit_cache_key(const p2n_input *in, unsigned n, int link, const p2n_options *opt) {
    keybuf b = {0};
    put_str(&b, "ptx2native JIT cache key v1");
    put_str(&b, p2n_build_id());
    put_u64(&b, (uint64_t)link);
    const char *arch = opt->arch ? opt->arch : "host";
    put_str(&b, arch);
    /* every option that can change the output bytes; verbose only changes what is printed */
    put_u64(&b, (uint64_t)(int64_t)opt->opt_level);
    put_u64(&b, (uint64_t)opt->emit);
    put_u64(&b, (uint64_t)(int64_t)opt->max_reg_count);
    put_u64(&b, (uint64_t)(int64_t)opt->no_fmad);
    put_u64(&b, (uint64_t)(int64_t)opt->jobs);
    put_u64(&b, opt->device_lacks);
    put_u64(&b, (uint64_t)(int64_t)opt->defer_unsupported);
    put_u64(&b, opt->recursion_stack);
    put_u64(&b, (uint64_t)(int64_t)opt->fp_atomics_native);
    put_u64(&b, (uint64_t)(int64_t)opt->host_fallback_entries);
    put_u64(&b, (uint64_t)(int64_t)opt->line_info);
    if (!strcmp(arch, "host-native")) put_cpu_identity(&b);
    put_u64(&b, n);
    for (unsigned i = 0; i < n; i++) {
        put_str(&b, in[i].filename);
        p2n_hash128 h = p2n_hash128_bytes(in[i].ptx, in[i].len, 0);
        put_u64(&b, in[i].len);
        put_u64(&b, h.lo);
        put_u64(&b, h.hi);
    }
    p2n_hash128 k = b.oom ? (p2n_hash128){0, 0} : p2n_hash128_bytes(b.p, b.n, 0x4a4954ull);
    free(b.p);
    return (p2n_jit_key){k.lo, k.hi};
}

/* ---- configuration ---- */

static uint64_t parse_size(const char *s, bool *ok) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    uint64_t mul = 1;
    if (*end == 'K' || *end == 'k') mul = 1ull << 10, end++;
    else if (*end == 'M' || *end == 'm') mul = 1ull << 20, end++;
    else if (*end == 'G' || *end == 'g') mul = 1ull << 30, end++;
    *ok = !errno && end != s && !*end && v <= UINT64_MAX / mul;
    return (uint64_t)v * mul;
}

/* mkdir -p */
static bool make_dirs(const char *path) {
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) return false;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(tmp, 0755) && errno != EEXIST) return false;
        *p = '/';
    }
    return !mkdir(tmp, 0755) || errno == EEXIST;
}

static void configure(void) {
    const char *off = getenv("P2N_CACHE_DISABLE");
    if (off && *off && strcmp(off, "0")) {
        if (p2n_drv_verbose()) fprintf(stderr, "ptx2native: JIT cache disabled (P2N_CACHE_DISABLE)\n");
        return;
    }
    cache.max_size = DEFAULT_MAX;
    const char *ms = getenv("P2N_CACHE_MAXSIZE");
    if (ms && *ms) {
        bool ok;
        uint64_t v = parse_size(ms, &ok);
        if (!ok) {
            fprintf(stderr, "ptx2native: P2N_CACHE_MAXSIZE='%s' is not a size (bytes, or with K/M/G); using 1G\n", ms);
        } else if (v == 0) {
            if (p2n_drv_verbose()) fprintf(stderr, "ptx2native: JIT cache disabled (P2N_CACHE_MAXSIZE=0)\n");
            return;
        } else {
            cache.max_size = v;
        }
    }
    const char *path = getenv("P2N_CACHE_PATH"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int w;
    if (path && *path) w = snprintf(cache.dir, sizeof cache.dir, "%s", path);
    else if (xdg && *xdg) w = snprintf(cache.dir, sizeof cache.dir, "%s/ptx2native/jit", xdg);
    else if (home && *home) w = snprintf(cache.dir, sizeof cache.dir, "%s/.cache/ptx2native/jit", home);
    else {
        if (p2n_drv_verbose()) fprintf(stderr, "ptx2native: JIT cache off: no P2N_CACHE_PATH, XDG_CACHE_HOME or HOME\n");
        return;
    }
    if (w >= (int)sizeof cache.dir) {
        if (p2n_drv_verbose()) fprintf(stderr, "ptx2native: JIT cache off: path too long\n");
        return;
    }
    if (!make_dirs(cache.dir) || access(cache.dir, R_OK | W_OK | X_OK)) {
        if (p2n_drv_verbose())
            fprintf(stderr, "ptx2native: JIT cache off: cannot use %s (%s)\n", cache.dir, strerror(errno));
        return;
    }
    cache.usable = true;
}

static bool ready(void) {
    pthread_once(&cache.once, configure);
    return cache.usable;
}

static void entry_path(p2n_jit_key k, char *out, size_t n) {
    snprintf(out, n, "%s/%016llx%016llx" ENTRY_SUFFIX, cache.dir, (unsigned long long)k.hi,
             (unsigned long long)k.lo);
}

/* ---- lookup ---- */

bool p2n_jit_cache_lookup(p2n_jit_key key, uint8_t **image, size_t *size, char **log) {
    if ((!key.lo && !key.hi) || !ready()) return false;
    char path[PATH_MAX];
    entry_path(key, path, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (p2n_drv_verbose()) fprintf(stderr, "ptx2native: JIT cache miss %s\n", path);
        return false;
    }
    entry_header h;
    struct stat st;
    const char *damage = NULL;
    uint8_t *img = NULL;
    char *text = NULL;
    if (fstat(fd, &st) || !p2n_read_all(fd, &h, sizeof h)) damage = "shorter than its header";
    else if (memcmp(h.magic, ENTRY_MAGIC, 8) || h.key_lo != key.lo || h.key_hi != key.hi) damage = "wrong magic or key";
    else if (h.image_size > (uint64_t)st.st_size || h.log_size > (uint64_t)st.st_size ||
             sizeof h + h.image_size + h.log_size != (uint64_t)st.st_size)
        damage = "sizes do not match the file";
    else if (!(img = malloc(h.image_size + h.log_size + 1)) || !(text = malloc(h.log_size + 1)))
        damage = "out of memory";
    else if (!p2n_read_all(fd, img, h.image_size + h.log_size)) damage = "short read";
    else {
        p2n_hash128 s = p2n_hash128_bytes(img, h.image_size + h.log_size, 0);
        if (s.lo != h.sum_lo || s.hi != h.sum_hi) damage = "checksum mismatch";
    }
    close(fd);
    if (damage) {
        free(img);
        free(text);
        /* never load it; delete it so the recompiled module takes its place (an out-of-memory is no damage) */
        if (strcmp(damage, "out of memory")) {
            fprintf(stderr, "ptx2native: JIT cache entry %s is damaged (%s): deleted, recompiling\n", path, damage);
            unlink(path);
        }
        return false;
    }
    memcpy(text, img + h.image_size, h.log_size);
    text[h.log_size] = 0;
    *image = img;
    *size = h.image_size;
    *log = text;
    utimensat(AT_FDCWD, path, NULL, 0); /* most recently used */
    if (p2n_drv_verbose()) fprintf(stderr, "ptx2native: JIT cache hit %s (%zu bytes)\n", path, *size);
    return true;
}

/* ---- store and eviction ---- */

typedef struct aged {
    char name[64];
    struct timespec mtime;
    uint64_t size;
} aged;

static int older_first(const void *a, const void *b) {
    const aged *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec) return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec) return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Deletes the least recently used entries until the directory holds at most 90 % of the limit. Another
 * process may delete the same files at the same time: a failed unlink is fine. */
static void evict(void) {
    DIR *d = opendir(cache.dir);
    if (!d) return;
    aged *list = NULL;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    struct dirent *e;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        struct stat st;
        /* a temporary file of a process that died while writing: gone after an hour */
        if (!strncmp(e->d_name, ".tmp.", 5)) {
            if (!fstatat(dirfd(d), e->d_name, &st, 0) && st.st_mtim.tv_sec + 3600 < now.tv_sec)
                unlinkat(dirfd(d), e->d_name, 0);
            continue;
        }
        if (len >= sizeof list->name || len < sizeof ENTRY_SUFFIX ||
            strcmp(e->d_name + len - (sizeof ENTRY_SUFFIX - 1), ENTRY_SUFFIX))
            continue;
        if (fstatat(dirfd(d), e->d_name, &st, 0)) continue;
        if (n == cap) {
            size_t c = cap ? cap * 2 : 64;
            aged *q = realloc(list, c * sizeof *q);
            if (!q) break;
            list = q;
            cap = c;
        }
        memcpy(list[n].name, e->d_name, len + 1); /* len < sizeof name: checked above */
        list[n].mtime = st.st_mtim;
        list[n].size = (uint64_t)st.st_size;
        total += list[n].size;
        n++;
    }
    if (total > cache.max_size) {
        qsort(list, n, sizeof *list, older_first);
        uint64_t goal = cache.max_size / 10 * 9;
        for (size_t i = 0; i < n && total > goal; i++) {
            if (!unlinkat(dirfd(d), list[i].name, 0) && p2n_drv_verbose())
                fprintf(stderr, "ptx2native: JIT cache: evicted %s (least recently used)\n", list[i].name);
            total -= list[i].size;
        }
    }
    closedir(d);
    free(list);
}

void p2n_jit_cache_store(p2n_jit_key key, const uint8_t *image, size_t size, const char *log) {
    if ((!key.lo && !key.hi) || !ready()) return;
    size_t log_size = log ? strlen(log) : 0;
    if (sizeof(entry_header) + size + log_size > cache.max_size) return; /* would evict everything for nothing */
    uint8_t *payload = malloc(size + log_size + 1);
    if (!payload) return;
    memcpy(payload, image, size);
    if (log_size) memcpy(payload + size, log, log_size);
    p2n_hash128 s = p2n_hash128_bytes(payload, size + log_size, 0);
    entry_header h = {.key_lo = key.lo, .key_hi = key.hi, .image_size = size, .log_size = log_size,
                      .sum_lo = s.lo, .sum_hi = s.hi};
    memcpy(h.magic, ENTRY_MAGIC, 8);
    static unsigned long counter;
    char path[PATH_MAX], tmp[PATH_MAX + 64];
    entry_path(key, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s/.tmp.%ld.%lu", cache.dir, (long)getpid(),
             __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    bool ok = fd >= 0 && p2n_write_all(fd, &h, sizeof h) && p2n_write_all(fd, payload, size + log_size);
    if (fd >= 0 && close(fd)) ok = false;
    free(payload);
    if (ok && !rename(tmp, path)) {
        if (p2n_drv_verbose()) fprintf(stderr, "ptx2native: JIT cache stored %s (%zu bytes)\n", path, size);
        evict();
        return;
    }
    if (p2n_drv_verbose()) fprintf(stderr, "ptx2native: JIT cache: could not write %s (%s)\n", path, strerror(errno));
    if (fd >= 0) unlink(tmp);
}
