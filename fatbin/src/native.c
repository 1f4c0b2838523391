/* native.c — the `.p2n_native` section: build (rewrite), check (verify), remove (strip), look up.
 * Format: docs/fatbin-native-section.md. */
#include "fb_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- on-disk layout (all little-endian, offsets relative to the section start) ---- */
static const uint8_t NATIVE_MAGIC[8] = {'P', '2', 'N', 'N', 'A', 'T', 'V', 0};
#define NATIVE_VERSION 1u
#define HDR_SIZE 0xB0u
#define CREC_SIZE 48u
#define EREC_SIZE 72u
#define PAYLOAD_ALIGN 16u

enum {
    H_MAGIC = 0x00, H_VERSION = 0x08, H_HDRSIZE = 0x0C, H_SECSIZE = 0x10, H_ORIGSIZE = 0x18, H_ORIGSHOFF = 0x20,
    H_NCONT = 0x28, H_NENT = 0x2C, H_CONTOFF = 0x30, H_ENTOFF = 0x38, H_STROFF = 0x40, H_STRSIZE = 0x48,
    H_PAYOFF = 0x50, H_PAYSIZE = 0x58, H_ORIGEHDR = 0x60, H_CHECKSUM = 0xA0
};
enum { C_HASH = 0, C_SIZE = 16, C_FILEOFF = 24, C_FIRST = 32, C_COUNT = 36, C_SECNAME = 40, C_FLAGS = 44 };
enum {
    E_TARGET = 0, E_FLAGS = 4, E_PTXENTRY = 8, E_PTXARCH = 12, E_PTXHASH = 16, E_BUILDID = 32, E_OPTIONS = 36,
    E_PAYOFF = 40, E_PAYSIZE = 48, E_PAYHASH = 56
};
#define CFLAG_LIVE 1u
#define CFLAG_RELOCATABLE 2u
#define CFLAG_DEVICE_LINK 4u /* the device-link container: its entries are the relocatable PTX compiled linked */
#define EFLAG_PTX_ABOVE_MAX 1u

/* ---- small growable byte buffer ---- */
typedef struct buf { uint8_t *p; size_t n, cap; int oom; } buf;
static size_t buf_put(buf *b, const void *d, size_t n) {
    if (b->oom) return 0;
    if (b->n + n > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->n + n) nc *= 2;
        uint8_t *np = realloc(b->p, nc);
        if (!np) {
            b->oom = 1;
            return 0;
        }
        b->p = np;
        b->cap = nc;
    }
    size_t at = b->n;
    if (d) memcpy(b->p + at, d, n);
    else memset(b->p + at, 0, n);
    b->n += n;
    return at;
}
static void buf_align(buf *b, size_t a) {
    size_t pad = (size_t)p2n_align_up(b->n, a) - b->n;
    if (pad) buf_put(b, NULL, pad);
}

/* string table with a small dedupe window */
typedef struct strtab { buf b; uint32_t recent[64]; unsigned nrecent; } strtab;
static uint32_t str_add(strtab *t, const char *s) {
    if (!t->b.n) buf_put(&t->b, "", 1);
    if (!s || !*s) return 0;
    for (unsigned i = 0; i < t->nrecent && i < 64; i++)
        if (!strcmp((const char *)t->b.p + t->recent[i], s)) return t->recent[i];
    uint32_t at = (uint32_t)buf_put(&t->b, s, strlen(s) + 1);
    t->recent[t->nrecent++ % 64] = at;
    return at;
}

/* ---- locating the section in an ELF image (raw, bounds-checked, no libelf) ---- */
typedef struct shtab {
    uint64_t shoff, shnum, shstrndx;
} shtab;

static int read_shtab(const uint8_t *d, size_t n, shtab *t) {
    if (n < 64 || memcmp(d, "\177ELF", 4) || d[4] != 2 || d[5] != 1) return -1;
    t->shoff = rd64(d + 0x28);
    t->shnum = rd16(d + 0x3c);
    t->shstrndx = rd16(d + 0x3e);
    if (!t->shoff) {
        t->shnum = 0;
        return 0;
    }
    if (rd16(d + 0x3a) != 64 || t->shoff > n || n - t->shoff < 64) return -1;
    if (t->shnum == 0) t->shnum = rd64(d + t->shoff + 0x20);
    if (t->shstrndx == 0xffff) t->shstrndx = rd32(d + t->shoff + 0x28);
    if (t->shnum > (n - t->shoff) / 64 || t->shstrndx >= t->shnum) return -1;
    return 0;
}

int p2n_native_find(const uint8_t *d, size_t n, uint64_t *off, uint64_t *len) {
    shtab t;
    if (read_shtab(d, n, &t)) return -1;
    if (!t.shnum) return 0;
    const uint8_t *ss = d + t.shoff + t.shstrndx * 64;
    uint64_t so = rd64(ss + 0x18), sz = rd64(ss + 0x20);
    if (so > n || sz > n - so) return -1;
    const size_t nl = sizeof P2N_NATIVE_SECTION;
    for (uint64_t i = 1; i < t.shnum; i++) {
        const uint8_t *sh = d + t.shoff + i * 64;
        uint32_t name = rd32(sh);
        if (name >= sz || sz - name < nl || memcmp(d + so + name, P2N_NATIVE_SECTION, nl)) continue;
        uint64_t o = rd64(sh + 0x18), l = rd64(sh + 0x20);
        if (o > n || l > n - o) return -1;
        *off = o;
        *len = l;
        return 1;
    }
    return 0;
}

static p2n_hash128 section_checksum(const uint8_t *s, size_t n) {
    p2n_hash128 h1 = p2n_hash128_bytes(s, H_CHECKSUM, 0x50324e4e41544956ull);
    return p2n_hash128_bytes(s + HDR_SIZE, n - HDR_SIZE, h1.lo ^ h1.hi);
}

/* Structural check of a section image; err names the offset inside the file (base = section file offset). */
static int check_section(const uint8_t *s, size_t n, uint64_t base, const char *name, char *err, size_t errlen) {
#define BAD(off, ...)                                                                                              \
    do {                                                                                                           \
        char m_[400];                                                                                              \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                                                      \
        fb_err(err, errlen, "%s: section %s: offset 0x%llx: %s", name, P2N_NATIVE_SECTION,                         \
               (unsigned long long)(base + (off)), m_);                                                            \
        return P2N_FB_BAD_INPUT;                                                                                   \
    } while (0)
    if (n < HDR_SIZE) BAD(0, "section too small for its header (%zu bytes)", n);
    if (memcmp(s, NATIVE_MAGIC, 8)) BAD(0, "bad magic");
    if (rd32(s + H_VERSION) != NATIVE_VERSION) BAD(H_VERSION, "unsupported version %u", rd32(s + H_VERSION));
    if (rd32(s + H_HDRSIZE) < HDR_SIZE || rd32(s + H_HDRSIZE) > n) BAD(H_HDRSIZE, "bad header size");
    if (rd64(s + H_SECSIZE) != n) BAD(H_SECSIZE, "recorded size 0x%llx != section size 0x%zx",
                                      (unsigned long long)rd64(s + H_SECSIZE), n);
    uint64_t nc = rd32(s + H_NCONT), ne = rd32(s + H_NENT);
    uint64_t co = rd64(s + H_CONTOFF), eo = rd64(s + H_ENTOFF), so = rd64(s + H_STROFF), sz = rd64(s + H_STRSIZE);
    uint64_t po = rd64(s + H_PAYOFF), ps = rd64(s + H_PAYSIZE);
    if (co > n || nc * CREC_SIZE > n - co) BAD(H_CONTOFF, "container table outside the section");
    if (eo > n || ne * EREC_SIZE > n - eo) BAD(H_ENTOFF, "entry table outside the section");
    if (so > n || sz > n - so || !sz || s[so + sz - 1]) BAD(H_STROFF, "string table outside the section or unterminated");
    if (po > n || ps > n - po) BAD(H_PAYOFF, "payload area outside the section");
    uint8_t tmp[16];
    memcpy(tmp, s + H_CHECKSUM, 16);
    p2n_hash128 h = section_checksum(s, n);
    if (rd64(tmp) != h.lo || rd64(tmp + 8) != h.hi) BAD(H_CHECKSUM, "checksum mismatch (section damaged)");
    for (uint64_t i = 0; i < nc; i++) {
        const uint8_t *c = s + co + i * CREC_SIZE;
        uint64_t first = rd32(c + C_FIRST), cnt = rd32(c + C_COUNT);
        if (first > ne || cnt > ne - first) BAD(co + i * CREC_SIZE, "container record %llu: entries out of range",
                                                (unsigned long long)i);
        if (rd32(c + C_SECNAME) >= sz) BAD(co + i * CREC_SIZE, "bad section name offset");
    }
    for (uint64_t i = 0; i < ne; i++) {
        const uint8_t *e = s + eo + i * EREC_SIZE;
        uint64_t pof = rd64(e + E_PAYOFF), psz = rd64(e + E_PAYSIZE);
        if (rd32(e + E_TARGET) >= sz || rd32(e + E_BUILDID) >= sz || rd32(e + E_OPTIONS) >= sz)
            BAD(eo + i * EREC_SIZE, "entry record %llu: bad string offset", (unsigned long long)i);
        if (pof < po || pof > po + ps || psz > po + ps - pof)
            BAD(eo + i * EREC_SIZE, "entry record %llu: payload outside the payload area", (unsigned long long)i);
    }
    return P2N_FB_OK;
#undef BAD
}

int p2n_native_strip(const uint8_t *d, size_t n, const char *name, uint8_t **out, size_t *out_len, char *err,
                     size_t errlen) {
    *out = NULL;
    *out_len = 0;
    uint64_t so, sl;
    int r = p2n_native_find(d, n, &so, &sl);
    if (r < 0) {
        fb_err(err, errlen, "%s: offset 0x28: malformed ELF section header table", name);
        return P2N_FB_BAD_INPUT;
    }
    if (r == 0) {
        fb_err(err, errlen, "%s: no %s section", name, P2N_NATIVE_SECTION);
        return P2N_FB_BAD_INPUT;
    }
    int rc = check_section(d + so, sl, so, name, err, errlen);
    if (rc) return rc;
    uint64_t orig = rd64(d + so + H_ORIGSIZE);
    if (orig > so || orig < 64) {
        fb_err(err, errlen,
               "%s: section %s: offset 0x%llx: original size 0x%llx is not below the section (the file was "
               "re-laid out by another tool; it cannot be restored byte for byte)",
               name, P2N_NATIVE_SECTION, (unsigned long long)(so + H_ORIGSIZE), (unsigned long long)orig);
        return P2N_FB_BAD_INPUT;
    }
    uint8_t *o = malloc(orig);
    if (!o) {
        fb_err(err, errlen, "%s: out of memory", name);
        return P2N_FB_INTERNAL;
    }
    memcpy(o, d, orig);
    memcpy(o, d + so + H_ORIGEHDR, 64);
    *out = o;
    *out_len = orig;
    return P2N_FB_OK;
}

/* ---- rewrite ---- */

typedef struct module {
    unsigned container;       /* first container with these bytes */
    p2n_hash128 chash;
    int ptx_entry, above;
    uint8_t *ptx;
    size_t ptx_len;
    p2n_hash128 ptx_hash;
    p2n_fb_ptx_opts opts;
    int decode_status;        /* P2N_FB_OK, or why the PTX could not be read (keep_going: the module's jobs fail) */
    char *decode_err;
    size_t n_ok;              /* jobs that compiled: the module gets a container record only when > 0 */
    char name[600];
    p2n_fb_ptx_text *linked;  /* a device link: the relocatable PTX texts (owned by the rewrite), else NULL */
    size_t nlinked;
} module;

typedef struct job {
    module *m;
    const char *target;
    uint8_t *out;
    size_t out_len;
    int status;
    char *diag;
} job;

typedef struct pool {
    job *jobs;
    size_t n, next, done;
    pthread_mutex_t mu;
    const p2n_fb_rewrite_opts *o;
} pool;

static void run_job(const p2n_fb_rewrite_opts *o, job *j) {
    if (j->m->decode_status) {
        j->status = j->m->decode_status;
        j->diag = strdup(j->m->decode_err ? j->m->decode_err : "PTX could not be decoded");
        return;
    }
    p2n_fb_compile_req rq = {(const char *)j->m->ptx, j->m->ptx_len, j->m->name, j->target, j->m->opts,
                             j->m->ptx_hash, j->m->container, j->m->linked, j->m->nlinked};
    j->status = o->compile(o->compile_ctx, &rq, &j->out, &j->out_len, &j->diag);
    if (j->status == P2N_FB_OK && !j->out && j->out_len) j->status = P2N_FB_INTERNAL;
}

static void *worker(void *arg) {
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        size_t i = p->next < p->n ? p->next++ : p->n;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->n) break;
        run_job(p->o, &p->jobs[i]);
        pthread_mutex_lock(&p->mu);
        p->done++;
        if (p->o->progress) p->o->progress(p->o->progress_ctx, p->done, p->n);
        pthread_mutex_unlock(&p->mu);
    }
    return NULL;
}

static int cmp_hash(p2n_hash128 a, p2n_hash128 b) {
    if (a.lo != b.lo) return a.lo < b.lo ? -1 : 1;
    if (a.hi != b.hi) return a.hi < b.hi ? -1 : 1;
    return 0;
}
static const module *sort_mods;
static pthread_mutex_t sort_mu = PTHREAD_MUTEX_INITIALIZER;
static int cmp_module_idx(const void *a, const void *b) {
    return cmp_hash(sort_mods[*(const size_t *)a].chash, sort_mods[*(const size_t *)b].chash);
}

void p2n_fb_rewrite_result_free(p2n_fb_rewrite_result *r) {
    if (!r) return;
    free(r->data);
    for (size_t i = 0; i < r->n_jobs; i++) free(r->jobs[i].diag);
    free(r->jobs);
    memset(r, 0, sizeof *r);
}

static void opts_string(const p2n_fb_ptx_opts *o, char *b, size_t n) {
    int k = 0;
    b[0] = 0;
    if (o->max_reg_count) k += snprintf(b + k, n - (size_t)k, "%s-maxrregcount=%d", k ? " " : "", o->max_reg_count);
    if (o->no_fmad) k += snprintf(b + k, n - (size_t)k, "%s--fmad=false", k ? " " : "");
    if (o->opt_level >= 0) k += snprintf(b + k, n - (size_t)k, "%s-O%d", k ? " " : "", o->opt_level);
    if (o->debug) snprintf(b + k, n - (size_t)k, "%s-g", k ? " " : "");
}

/* Appends the section to `orig` (an ELF image without `.p2n_native`): see the layout in the docs. */
static int compose_elf(const uint8_t *orig, size_t L, const uint8_t *sec, size_t S, const char *name, buf *out,
                       char *err, size_t errlen) {
    shtab t;
    if (read_shtab(orig, L, &t)) {
        fb_err(err, errlen, "%s: offset 0x28: malformed ELF section header table", name);
        return P2N_FB_BAD_INPUT;
    }
    buf_put(out, orig, L);
    buf_align(out, PAYLOAD_ALIGN);
    uint64_t sec_off = buf_put(out, sec, S);
    /* new section-name table */
    uint64_t str_off = out->n, name_off;
    if (t.shnum) {
        const uint8_t *ss = orig + t.shoff + t.shstrndx * 64;
        uint64_t so = rd64(ss + 0x18), sz = rd64(ss + 0x20);
        if (rd32(ss + 4) != 3 /* SHT_STRTAB */ || so > L || sz > L - so) {
            fb_err(err, errlen, "%s: offset 0x%llx: section-name table header is malformed", name,
                   (unsigned long long)(t.shoff + t.shstrndx * 64));
            return P2N_FB_BAD_INPUT;
        }
        buf_put(out, orig + so, sz);
        if (sz && orig[so + sz - 1]) buf_put(out, "", 1);
        name_off = out->n - str_off;
        buf_put(out, P2N_NATIVE_SECTION, sizeof P2N_NATIVE_SECTION);
    } else {
        buf_put(out, "\0.shstrtab", 11);
        name_off = out->n - str_off;
        buf_put(out, P2N_NATIVE_SECTION, sizeof P2N_NATIVE_SECTION);
    }
    uint64_t str_len = out->n - str_off;
    buf_align(out, 8);
    uint64_t sh_off = out->n;
    uint64_t nsh, strndx;
    if (t.shnum) {
        buf_put(out, orig + t.shoff, t.shnum * 64);
        nsh = t.shnum + 1;
        strndx = t.shstrndx;
    } else {
        buf_put(out, NULL, 2 * 64);
        nsh = 3;
        strndx = 1;
        uint8_t *s1 = out->p + sh_off + 64;
        wr32(s1, 1);
        wr32(s1 + 4, 3);
        wr64(s1 + 0x30, 1);
    }
    uint64_t nat = buf_put(out, NULL, 64);
    if (out->oom) {
        fb_err(err, errlen, "%s: out of memory", name);
        return P2N_FB_INTERNAL;
    }
    uint8_t *sh = out->p + nat;
    wr32(sh, (uint32_t)name_off);
    wr32(sh + 4, 1 /* SHT_PROGBITS */);
    wr64(sh + 0x18, sec_off);
    wr64(sh + 0x20, S);
    wr64(sh + 0x30, PAYLOAD_ALIGN);
    uint8_t *ss = out->p + sh_off + strndx * 64;
    wr64(ss + 0x18, str_off);
    wr64(ss + 0x20, str_len);
    uint8_t *eh = out->p;
    wr64(eh + 0x28, sh_off);
    wr16(eh + 0x3a, 64);
    if (nsh >= 0xff00) {
        wr16(eh + 0x3c, 0);
        wr64(out->p + sh_off + 0x20, nsh);
    } else {
        wr16(eh + 0x3c, (uint16_t)nsh);
    }
    if (!t.shnum) wr16(eh + 0x3e, (uint16_t)strndx);
    return P2N_FB_OK;
}

int p2n_fb_linked_container(const p2n_fb_file *f) {
    int found = -1, reloc = 0;
    p2n_hash128 fh = {0, 0};
    for (size_t i = 0; i < f->n_containers; i++) {
        const p2n_fb_container *c = &f->containers[i];
        int has_ptx = p2n_fb_select_ptx(c, ~0u, NULL) >= 0;
        if (p2n_fb_container_is_relocatable(c)) {
            reloc |= has_ptx;
            continue;
        }
        if (has_ptx || c->wrapper_version != 2) continue;
        p2n_hash128 h = p2n_hash128_bytes(c->data, c->size, 0);
        if (found >= 0 && cmp_hash(h, fh)) return -1; /* two device links: which PTX is whose is not known here */
        if (found < 0) found = (int)i, fh = h;
    }
    return reloc ? found : -1;
}

static void free_linked(module *m) {
    for (size_t k = 0; k < m->nlinked; k++) {
        free((void *)m->linked[k].ptx);
        free((void *)m->linked[k].name);
    }
    free(m->linked);
    m->linked = NULL;
    m->nlinked = 0;
}

/* The module of the device link (p2n_fb_linked_container): the relocatable containers' PTX (the one each would
 * be compiled from alone, distinct containers once), compiled linked with the options the driver stub uses for
 * a device link (its defaults), keyed by the link container. 0, or a status with err set. */
static int add_linked_module(const p2n_fb_file *f, int lc, unsigned maxarch, module *m, char *err, size_t errlen) {
    const p2n_fb_container *l = &f->containers[lc];
    p2n_hash128 *seen = calloc(f->n_containers, sizeof *seen);
    m->linked = calloc(f->n_containers, sizeof *m->linked);
    if (!seen || !m->linked) {
        free(seen);
        fb_err(err, errlen, "%s: out of memory", f->path);
        return P2N_FB_INTERNAL;
    }
    int rc = P2N_FB_OK;
    buf hashes = {0};
    for (size_t i = 0; i < f->n_containers && !rc; i++) {
        const p2n_fb_container *c = &f->containers[i];
        int sel = p2n_fb_select_ptx(c, maxarch, NULL);
        if (!p2n_fb_container_is_relocatable(c) || sel < 0) continue;
        p2n_hash128 h = p2n_hash128_bytes(c->data, c->size, 0);
        int dup = 0;
        for (size_t k = 0; k < m->nlinked && !dup; k++) dup = !cmp_hash(seen[k], h);
        if (dup) continue;
        char where[700], *name = malloc(64);
        snprintf(where, sizeof where, "%s: section %s", f->path, c->section);
        uint8_t *ptx = NULL;
        size_t len = 0;
        if (!name) rc = P2N_FB_INTERNAL;
        else rc = p2n_fb_decode(&c->entries[sel], &ptx, &len, where, c->file_offset + c->entries[sel].offset, err,
                                errlen);
        if (rc) {
            free(name);
            break;
        }
        char arch[24];
        p2n_fb_arch_name(&c->entries[sel], arch, sizeof arch);
        snprintf(name, 64, "relocatable %zu:%s.ptx", m->nlinked, arch);
        p2n_hash128 ph = p2n_hash128_bytes(ptx, len, 0);
        buf_put(&hashes, &ph, sizeof ph);
        seen[m->nlinked] = h;
        m->linked[m->nlinked++] = (p2n_fb_ptx_text){(const char *)ptx, len, name};
    }
    free(seen);
    if (!rc && hashes.oom) rc = P2N_FB_INTERNAL;
    if (!rc) {
        m->container = (unsigned)lc;
        m->chash = p2n_hash128_bytes(l->data, l->size, 0);
        m->ptx_entry = 0; /* the link container's first (SASS) entry: reports name its arch */
        m->ptx = NULL; /* the texts are in m->linked */
        m->ptx_len = 0;
        m->ptx_hash = p2n_hash128_bytes(hashes.p, hashes.n, 0x6c696e6bull /* "link" */);
        m->opts = (p2n_fb_ptx_opts){.opt_level = -1};
        snprintf(m->name, sizeof m->name, "%s: device link (container %d, section %s): %zu relocatable PTX", f->path,
                 lc, l->section, m->nlinked);
    }
    free(hashes.p);
    return rc;
}

int p2n_native_rewrite(const p2n_fb_file *f, const p2n_fb_rewrite_opts *o, p2n_fb_rewrite_result *r, char *err,
                       size_t errlen) {
    memset(r, 0, sizeof *r);
    if (f->kind != P2N_FB_FILE_ELF) {
        fb_err(err, errlen,
               "%s: static archives and raw containers are not rewritten: rewrite the linked executable or shared "
               "library instead",
               f->path);
        return P2N_FB_BAD_INPUT;
    }
    if (!o->compile || !o->targets || !o->targets[0]) {
        fb_err(err, errlen, "%s: no compile function or no target", f->path);
        return P2N_FB_INTERNAL;
    }
    size_t ntargets = 0;
    while (o->targets[ntargets]) ntargets++;
    unsigned maxarch = o->max_ptx_arch ? o->max_ptx_arch : 90;
    int rc = P2N_FB_OK;
    uint8_t *orig_owned = NULL;
    const uint8_t *orig = f->data;
    size_t L = f->size;
    if (f->has_native) {
        rc = p2n_native_strip(f->data, f->size, f->path, &orig_owned, &L, err, errlen);
        if (rc) return rc;
        orig = orig_owned;
    }
    module *mods = calloc(f->n_containers + 1, sizeof *mods); /* + the device link */
    job *jobs = NULL;
    size_t nmods = 0, njobs = 0;
    buf sec = {0}, out = {0};
    strtab st = {0};
    if (!mods) goto oom;
    r->n_containers = f->n_containers;
    /* one module per distinct container that carries PTX */
    for (size_t i = 0; i < f->n_containers; i++) {
        const p2n_fb_container *c = &f->containers[i];
        int above = 0;
        int sel = p2n_fb_select_ptx(c, maxarch, &above);
        if (sel < 0) {
            r->n_skipped_no_ptx++;
            continue;
        }
        r->n_with_ptx++;
        if (p2n_fb_container_is_relocatable(c)) {
            r->n_relocatable++; /* the stub links these at load time; alone they are never loaded */
            continue;
        }
        p2n_hash128 h = p2n_hash128_bytes(c->data, c->size, 0);
        int dup = 0;
        for (size_t k = 0; k < nmods && !dup; k++) dup = !cmp_hash(mods[k].chash, h);
        if (dup) continue;
        module *m = &mods[nmods++];
        m->container = (unsigned)i;
        m->chash = h;
        m->ptx_entry = sel;
        m->above = above;
        const p2n_fb_entry *e = &c->entries[sel];
        char arch[24];
        p2n_fb_arch_name(e, arch, sizeof arch);
        snprintf(m->name, sizeof m->name, "%s%s%s%s: container %zu (section %s, offset 0x%llx): %s PTX", f->path,
                 c->member ? "(" : "", c->member ? c->member : "", c->member ? ")" : "", i, c->section,
                 (unsigned long long)c->file_offset, arch);
        char where[700];
        snprintf(where, sizeof where, "%s: section %s", f->path, c->section);
        rc = p2n_fb_decode(e, &m->ptx, &m->ptx_len, where, c->file_offset + e->offset, err, errlen);
        if (rc && !o->keep_going) goto fail;
        if (rc) { /* this module's jobs fail with the decoder's message; the others go on */
            m->decode_status = rc;
            m->decode_err = strdup(err);
            rc = P2N_FB_OK;
            continue;
        }
        m->ptx_hash = p2n_hash128_bytes(m->ptx, m->ptx_len, 0);
        p2n_fb_parse_ptx_options(e->options, e->options_len, &m->opts);
        if (e->flags & P2N_FB_FLAG_DEBUG) m->opts.debug = 1;
    }
    int lc = p2n_fb_linked_container(f);
    if (lc >= 0) {
        rc = add_linked_module(f, lc, maxarch, &mods[nmods], err, errlen);
        if (rc) {
            nmods++; /* freed with the others */
            goto fail;
        }
        r->n_linked = r->n_relocatable;
        nmods++;
    }
    /* jobs: module x target */
    njobs = nmods * ntargets;
    jobs = calloc(njobs ? njobs : 1, sizeof *jobs);
    if (!jobs) goto oom;
    for (size_t i = 0; i < nmods; i++)
        for (size_t t = 0; t < ntargets; t++) jobs[i * ntargets + t] = (job){.m = &mods[i], .target = o->targets[t]};
    {
        pool p = {.jobs = jobs, .n = njobs, .o = o};
        pthread_mutex_init(&p.mu, NULL);
        int nt = o->jobs > 1 ? o->jobs : 1;
        if ((size_t)nt > njobs) nt = (int)(njobs ? njobs : 1);
        pthread_t th[256];
        int started = 0;
        for (int k = 1; k < nt && k < 256; k++)
            if (pthread_create(&th[started], NULL, worker, &p) == 0) started++;
        worker(&p);
        for (int k = 0; k < started; k++) pthread_join(th[k], NULL);
        pthread_mutex_destroy(&p.mu);
    }
    r->jobs = calloc(njobs ? njobs : 1, sizeof *r->jobs);
    if (!r->jobs) goto oom;
    r->n_jobs = njobs;
    int first_bad = P2N_FB_OK;
    for (size_t i = 0; i < njobs; i++) {
        job *j = &jobs[i];
        const p2n_fb_container *c = &f->containers[j->m->container];
        r->jobs[i] = (p2n_fb_job_result){.container = j->m->container, .ptx_entry = j->m->ptx_entry,
                                         .ptx_arch = c->entries[j->m->ptx_entry].arch, .ptx_above_max = j->m->above,
                                         .target = j->target, .status = j->status, .diag = j->diag};
        j->diag = NULL;
        if (j->status == P2N_FB_OK) {
            r->n_compiled++;
            j->m->n_ok++;
        } else {
            r->n_failed++;
            if (!first_bad) first_bad = j->status;
        }
    }
    if (first_bad && !o->keep_going) {
        fb_err(err, errlen, "%s: %zu of %zu compilations failed; no output written", f->path, r->n_failed, njobs);
        rc = first_bad;
        goto fail;
    }
    /* ---- build the section ---- */
    {
        /* only modules with code get a record; with keep_going some (module, target) pairs are left out */
        size_t *order = calloc(nmods ? nmods : 1, sizeof *order);
        if (!order) goto oom;
        size_t nrec = 0;
        for (size_t i = 0; i < nmods; i++)
            if (mods[i].n_ok) order[nrec++] = i;
        pthread_mutex_lock(&sort_mu);
        sort_mods = mods;
        qsort(order, nrec, sizeof *order, cmp_module_idx);
        pthread_mutex_unlock(&sort_mu);
        size_t ne = r->n_compiled;
        uint64_t co = HDR_SIZE, eo = co + nrec * CREC_SIZE;
        buf_put(&sec, NULL, eo + ne * EREC_SIZE);
        if (sec.oom) goto oom;
        memcpy(sec.p, NATIVE_MAGIC, 8);
        wr32(sec.p + H_VERSION, NATIVE_VERSION);
        wr32(sec.p + H_HDRSIZE, HDR_SIZE);
        wr64(sec.p + H_ORIGSIZE, L);
        wr64(sec.p + H_ORIGSHOFF, rd64(orig + 0x28));
        wr32(sec.p + H_NCONT, (uint32_t)nrec);
        wr32(sec.p + H_NENT, (uint32_t)ne);
        wr64(sec.p + H_CONTOFF, co);
        wr64(sec.p + H_ENTOFF, eo);
        memcpy(sec.p + H_ORIGEHDR, orig, 64);
        /* targets sorted by name for every container */
        size_t *tord = calloc(ntargets, sizeof *tord);
        if (!tord) {
            free(order);
            goto oom;
        }
        for (size_t t = 0; t < ntargets; t++) tord[t] = t;
        for (size_t a = 1; a < ntargets; a++)
            for (size_t b = a; b > 0 && strcmp(o->targets[tord[b - 1]], o->targets[tord[b]]) > 0; b--) {
                size_t x = tord[b];
                tord[b] = tord[b - 1];
                tord[b - 1] = x;
            }
        uint32_t bid = str_add(&st, o->build_id ? o->build_id : "");
        /* payloads go to a separate buffer, then strings + payloads are appended */
        buf pay = {0};
        size_t ei = 0;
        for (size_t i = 0; i < nrec; i++) {
            module *m = &mods[order[i]];
            const p2n_fb_container *c = &f->containers[m->container];
            uint8_t *cr = sec.p + co + i * CREC_SIZE;
            wr64(cr + C_HASH, m->chash.lo);
            wr64(cr + C_HASH + 8, m->chash.hi);
            wr64(cr + C_SIZE, c->size);
            wr64(cr + C_FILEOFF, c->file_offset);
            wr32(cr + C_FIRST, (uint32_t)ei);
            wr32(cr + C_COUNT, (uint32_t)m->n_ok);
            wr32(cr + C_SECNAME, str_add(&st, c->section));
            wr32(cr + C_FLAGS, (c->wrapper_version ? CFLAG_LIVE : 0) |
                                   (!strcmp(c->section, "__nv_relfatbin") ? CFLAG_RELOCATABLE : 0) |
                                   (m->nlinked ? CFLAG_DEVICE_LINK : 0));
            char ostr[128];
            opts_string(&m->opts, ostr, sizeof ostr);
            uint32_t oo = str_add(&st, ostr);
            for (size_t t = 0; t < ntargets; t++) {
                job *j = &jobs[order[i] * ntargets + tord[t]];
                if (j->status != P2N_FB_OK) continue;
                uint8_t *er = sec.p + eo + ei * EREC_SIZE;
                wr32(er + E_TARGET, str_add(&st, j->target));
                wr32(er + E_FLAGS, m->above ? EFLAG_PTX_ABOVE_MAX : 0);
                wr32(er + E_PTXENTRY, (uint32_t)m->ptx_entry);
                wr32(er + E_PTXARCH, c->entries[m->ptx_entry].arch);
                wr64(er + E_PTXHASH, m->ptx_hash.lo);
                wr64(er + E_PTXHASH + 8, m->ptx_hash.hi);
                wr32(er + E_BUILDID, bid);
                wr32(er + E_OPTIONS, oo);
                buf_align(&pay, PAYLOAD_ALIGN);
                uint64_t at = buf_put(&pay, j->out, j->out_len);
                wr64(er + E_PAYOFF, at); /* relative for now */
                wr64(er + E_PAYSIZE, j->out_len);
                p2n_hash128 ph = p2n_hash128_bytes(j->out, j->out_len, 0);
                wr64(er + E_PAYHASH, ph.lo);
                wr64(er + E_PAYHASH + 8, ph.hi);
                ei++;
            }
        }
        free(tord);
        free(order);
        str_add(&st, ""); /* make sure the table exists */
        uint64_t so = buf_put(&sec, st.b.p, st.b.n);
        buf_align(&sec, PAYLOAD_ALIGN);
        uint64_t po = sec.n;
        if (pay.n) buf_put(&sec, pay.p, pay.n);
        free(pay.p);
        if (sec.oom || st.b.oom || pay.oom) goto oom;
        wr64(sec.p + H_STROFF, so);
        wr64(sec.p + H_STRSIZE, st.b.n);
        wr64(sec.p + H_PAYOFF, po);
        wr64(sec.p + H_PAYSIZE, sec.n - po);
        for (size_t i = 0; i < ne; i++) {
            uint8_t *er = sec.p + eo + i * EREC_SIZE;
            wr64(er + E_PAYOFF, rd64(er + E_PAYOFF) + po);
        }
        wr64(sec.p + H_SECSIZE, sec.n);
        p2n_hash128 ck = section_checksum(sec.p, sec.n);
        wr64(sec.p + H_CHECKSUM, ck.lo);
        wr64(sec.p + H_CHECKSUM + 8, ck.hi);
    }
    rc = compose_elf(orig, L, sec.p, sec.n, f->path, &out, err, errlen);
    if (rc) goto fail;
    if (out.oom) goto oom;
    r->data = out.p;
    r->size = out.n;
    out.p = NULL;
    goto done;
oom:
    fb_err(err, errlen, "%s: out of memory", f->path);
    rc = P2N_FB_INTERNAL;
fail:
    free(r->data);
    r->data = NULL;
    r->size = 0;
done:
    for (size_t i = 0; i < njobs; i++) {
        free(jobs[i].out);
        free(jobs[i].diag);
    }
    free(jobs);
    for (size_t i = 0; i < nmods; i++) {
        free(mods[i].ptx);
        free(mods[i].decode_err);
        free_linked(&mods[i]);
    }
    free(mods);
    free(sec.p);
    free(st.b.p);
    free(out.p);
    free(orig_owned);
    return rc;
}

/* ---- verify ---- */

static void rep(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void rep(buf *b, const char *fmt, ...) {
    char line[1200];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    if ((size_t)k > sizeof line - 2) k = (int)sizeof line - 2;
    line[k++] = '\n';
    buf_put(b, line, (size_t)k);
}

/* A file without a section whose PTX is all relocatable (nvcc -rdc=true) is complete as it is: `rewrite` leaves
 * such files unchanged. Returns 1 (and the report) then, 0 when the file has other PTX or none at all. */
static int verify_rdc_only(const p2n_fb_file *f, buf *rb) {
    if (p2n_fb_linked_container(f) >= 0) return 0; /* `rewrite` compiles the device link */
    size_t n_reloc = 0;
    for (size_t i = 0; i < f->n_containers; i++) {
        if (p2n_fb_select_ptx(&f->containers[i], ~0u, NULL) < 0) continue;
        if (!p2n_fb_container_is_relocatable(&f->containers[i])) return 0;
        n_reloc++;
    }
    if (!n_reloc) return 0;
    for (size_t i = 0; i < f->n_containers; i++)
        if (p2n_fb_select_ptx(&f->containers[i], ~0u, NULL) >= 0)
            rep(rb, "%s: section %s: offset 0x%llx: container %zu: " P2N_FB_RDC_NOTE, f->path,
                f->containers[i].section, (unsigned long long)f->containers[i].file_offset, i);
    rep(rb, "%s: no %s section; %zu relocatable containers (JIT at run time), no other PTX: ok", f->path,
        P2N_NATIVE_SECTION, n_reloc);
    buf_put(rb, "", 1);
    return 1;
}

int p2n_native_verify(const p2n_fb_file *f, const char *expect_build_id, char **report, char *err, size_t errlen) {
    *report = NULL;
    buf rb = {0};
    uint64_t so, sl;
    int r = f->kind == P2N_FB_FILE_ELF ? p2n_native_find(f->data, f->size, &so, &sl) : 0;
    if (r == 0 && verify_rdc_only(f, &rb)) { /* nothing `rewrite` would compile: not an error */
        *report = (char *)rb.p;
        return P2N_FB_OK;
    }
    if (r <= 0) {
        fb_err(err, errlen, r < 0 ? "%s: offset 0x28: malformed ELF section header table" : "%s: no %s section",
               f->path, P2N_NATIVE_SECTION);
        return P2N_FB_BAD_INPUT;
    }
    const uint8_t *s = f->data + so;
    int rc = check_section(s, sl, so, f->path, err, errlen);
    if (rc) return rc;
    int bad = 0;
    uint64_t orig = rd64(s + H_ORIGSIZE);
    if (orig > so) {
        rep(&rb, "%s: section %s: offset 0x%llx: original size 0x%llx lies past the section: `strip` cannot restore "
                 "the original bytes (the file was re-laid out by another tool)",
            f->path, P2N_NATIVE_SECTION, (unsigned long long)(so + H_ORIGSIZE), (unsigned long long)orig);
        bad = 1;
    }
    uint64_t nc = rd32(s + H_NCONT), co = rd64(s + H_CONTOFF), eo = rd64(s + H_ENTOFF);
    const char *strs = (const char *)s + rd64(s + H_STROFF);
    p2n_hash128 *hs = calloc(f->n_containers ? f->n_containers : 1, sizeof *hs);
    uint8_t *covered = calloc(f->n_containers ? f->n_containers : 1, 1);
    if (!hs || !covered) {
        free(hs);
        free(covered);
        fb_err(err, errlen, "%s: out of memory", f->path);
        return P2N_FB_INTERNAL;
    }
    for (size_t i = 0; i < f->n_containers; i++)
        hs[i] = p2n_hash128_bytes(f->containers[i].data, f->containers[i].size, 0);
    size_t n_ok = 0, n_stale = 0;
    for (uint64_t i = 0; i < nc; i++) {
        const uint8_t *cr = s + co + i * CREC_SIZE;
        p2n_hash128 h = {rd64(cr + C_HASH), rd64(cr + C_HASH + 8)};
        char hex[33];
        p2n_hash128_hex(h, hex);
        if (i && cmp_hash((p2n_hash128){rd64(cr - CREC_SIZE), rd64(cr - CREC_SIZE + 8)}, h) >= 0) {
            rep(&rb, "%s: section %s: offset 0x%llx: container records are not sorted by hash", f->path,
                P2N_NATIVE_SECTION, (unsigned long long)(so + co + i * CREC_SIZE));
            bad = 1;
        }
        int found = -1;
        for (size_t k = 0; k < f->n_containers; k++)
            if (!cmp_hash(hs[k], h) && f->containers[k].size == rd64(cr + C_SIZE)) {
                covered[k] = 1;
                if (found < 0) found = (int)k;
            }
        if (found < 0) {
            rep(&rb, "%s: section %s: container %s: no container with these bytes exists in the file", f->path,
                P2N_NATIVE_SECTION, hex);
            bad = 1;
            continue;
        }
        const p2n_fb_container *c = &f->containers[found];
        uint32_t first = rd32(cr + C_FIRST), cnt = rd32(cr + C_COUNT);
        bool link = rd32(cr + C_FLAGS) & CFLAG_DEVICE_LINK;
        p2n_hash128 link_hash = {0, 0}; /* the relocatable PTX as rewrite links it (default arch), once per record */
        if (link) {
            module lm = {0};
            char lerr[1024];
            int lrc = add_linked_module(f, found, 90, &lm, lerr, sizeof lerr);
            link_hash = lm.ptx_hash;
            free_linked(&lm);
            if (lrc) {
                rep(&rb, "%s", lerr);
                bad = 1;
                continue;
            }
        }
        for (uint32_t k = 0; k < cnt; k++) {
            const uint8_t *er = s + eo + (uint64_t)(first + k) * EREC_SIZE;
            const char *target = strs + rd32(er + E_TARGET), *bid = strs + rd32(er + E_BUILDID);
            uint32_t pe = rd32(er + E_PTXENTRY);
            p2n_hash128 ph = link_hash;
            if (!link && (pe >= c->n_entries || c->entries[pe].kind != P2N_FB_KIND_PTX)) {
                rep(&rb, "%s: container %s (offset 0x%llx) target %s: PTX entry index %u is not a PTX entry", f->path,
                    hex, (unsigned long long)c->file_offset, target, pe);
                bad = 1;
                continue;
            }
            if (!link) {
                uint8_t *ptx;
                size_t plen;
                char derr[1024];
                char where[700];
                snprintf(where, sizeof where, "%s: section %s", f->path, c->section);
                if (p2n_fb_decode(&c->entries[pe], &ptx, &plen, where, c->file_offset + c->entries[pe].offset, derr,
                                  sizeof derr)) {
                    rep(&rb, "%s", derr);
                    bad = 1;
                    continue;
                }
                ph = p2n_hash128_bytes(ptx, plen, 0);
                free(ptx);
            }
            if (ph.lo != rd64(er + E_PTXHASH) || ph.hi != rd64(er + E_PTXHASH + 8)) {
                rep(&rb, "%s: container %s target %s: PTX hash mismatch", f->path, hex, target);
                bad = 1;
            }
            const uint8_t *pl = s + rd64(er + E_PAYOFF);
            p2n_hash128 payh = p2n_hash128_bytes(pl, rd64(er + E_PAYSIZE), 0);
            if (payh.lo != rd64(er + E_PAYHASH) || payh.hi != rd64(er + E_PAYHASH + 8)) {
                rep(&rb, "%s: container %s target %s: payload hash mismatch", f->path, hex, target);
                bad = 1;
            }
            if (expect_build_id && strcmp(expect_build_id, bid)) {
                rep(&rb, "%s: container %s target %s: stale: built by compiler %s, current is %s", f->path, hex,
                    target, bid, expect_build_id);
                n_stale++;
                bad = 1;
            }
            n_ok++;
        }
    }
    size_t uncovered = 0, n_reloc = 0;
    int lc = p2n_fb_linked_container(f);
    for (size_t i = 0; i < f->n_containers; i++) {
        if (covered[i] || p2n_fb_select_ptx(&f->containers[i], ~0u, NULL) < 0) continue;
        if (p2n_fb_container_is_relocatable(&f->containers[i]) && lc >= 0) {
            if (covered[lc]) continue; /* compiled linked, under the device-link container */
            rep(&rb, "%s: section %s: offset 0x%llx: container %zu: relocatable, and the device link (container %d) "
                     "has no native code", f->path, f->containers[i].section,
                (unsigned long long)f->containers[i].file_offset, i, lc);
            uncovered++;
            bad = 1;
            continue;
        }
        if (p2n_fb_container_is_relocatable(&f->containers[i])) {
            rep(&rb, "%s: section %s: offset 0x%llx: container %zu: " P2N_FB_RDC_NOTE, f->path,
                f->containers[i].section, (unsigned long long)f->containers[i].file_offset, i);
            n_reloc++;
            continue;
        }
        rep(&rb, "%s: section %s: offset 0x%llx: container %zu has PTX but no native code", f->path,
            f->containers[i].section, (unsigned long long)f->containers[i].file_offset, i);
        uncovered++;
        bad = 1;
    }
    rep(&rb, "%s: %llu containers, %zu native entries checked, %zu stale, %zu containers with PTX not covered, "
             "%zu relocatable (JIT at run time): %s",
        f->path, (unsigned long long)nc, n_ok, n_stale, uncovered, n_reloc, bad ? "FAILED" : "ok");
    buf_put(&rb, "", 1);
    free(hs);
    free(covered);
    *report = (char *)rb.p;
    if (bad) fb_err(err, errlen, "%s: verification failed", f->path);
    return bad ? P2N_FB_BAD_INPUT : P2N_FB_OK;
}

/* ---- runtime lookup ---- */
int p2n_native_check(const uint8_t *s, size_t n, char *err, size_t errlen) {
    return check_section(s, n, 0, "", err, errlen);
}

int p2n_native_lookup_entry(const uint8_t *s, size_t n, const void *container, size_t clen, const char *target,
                            const uint8_t **payload, size_t *payload_len, const char **build_id) {
    (void)n; /* bounds were established by p2n_native_check() */
    p2n_hash128 h = p2n_hash128_bytes(container, clen, 0);
    uint64_t nc = rd32(s + H_NCONT), co = rd64(s + H_CONTOFF), eo = rd64(s + H_ENTOFF);
    const char *strs = (const char *)s + rd64(s + H_STROFF);
    uint64_t lo = 0, hi = nc;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        const uint8_t *cr = s + co + mid * CREC_SIZE;
        int c = cmp_hash((p2n_hash128){rd64(cr), rd64(cr + 8)}, h);
        if (c == 0) {
            if (rd64(cr + C_SIZE) != clen) return 0;
            uint32_t first = rd32(cr + C_FIRST), cnt = rd32(cr + C_COUNT);
            for (uint32_t k = 0; k < cnt; k++) {
                const uint8_t *er = s + eo + (uint64_t)(first + k) * EREC_SIZE;
                if (!strcmp(strs + rd32(er + E_TARGET), target)) {
                    *payload = s + rd64(er + E_PAYOFF);
                    *payload_len = rd64(er + E_PAYSIZE);
                    if (build_id) *build_id = strs + rd32(er + E_BUILDID);
                    return 1;
                }
            }
            return 0;
        }
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return 0;
}

int p2n_native_lookup(const uint8_t *s, size_t n, const void *container, size_t clen, const char *target,
                      const uint8_t **payload, size_t *payload_len) {
    if (check_section(s, n, 0, "", NULL, 0)) return 0;
    return p2n_native_lookup_entry(s, n, container, clen, target, payload, payload_len, NULL);
}
