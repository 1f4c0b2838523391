/* container.c — fatbin container / entry parsing, decompression, PTX option parsing. Memory level only:
 * usable from the driver stub (no libelf, no file I/O). */
#include "fb_internal.h"

#include <lz4.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

void fb_err(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

const char *p2n_fb_kind_name(unsigned kind) {
    switch (kind) {
    case P2N_FB_KIND_PTX: return "ptx";
    case P2N_FB_KIND_ELF: return "elf";
    case P2N_FB_KIND_OLDCUBIN: return "cubin-old";
    case P2N_FB_KIND_LTOIR: return "ltoir";
    default: return "unknown";
    }
}

const char *p2n_fb_compression_name(p2n_fb_compression c) {
    switch (c) {
    case P2N_FB_COMP_NONE: return "none";
    case P2N_FB_COMP_LZ4: return "lz4";
    case P2N_FB_COMP_ZSTD: return "zstd";
    case P2N_FB_COMP_LTO_PRIVATE: return "lto-private";
    default: return "unknown";
    }
}

void p2n_fb_arch_name(const p2n_fb_entry *e, char *buf, size_t len) {
    const char *suf = (e->flags & P2N_FB_FLAG_ARCH_A) ? "a" : (e->flags & P2N_FB_FLAG_ARCH_F) ? "f" : "";
    snprintf(buf, len, "sm_%u%s", e->arch, suf);
}

void p2n_fb_container_free(p2n_fb_container *c) {
    if (!c) return;
    free(c->entries);
    c->entries = NULL;
    c->n_entries = 0;
}

/* Parses the entries of one container. `where` names file+section; base_off = file offset of p. */
int p2n_fb_parse_container(const void *pv, size_t avail, const char *where, uint64_t base_off,
                           p2n_fb_container *out, char *err, size_t errlen) {
    const uint8_t *p = pv;
    memset(out, 0, sizeof *out);
    if (!where) where = "<memory>";
    if (avail < 16) {
        fb_err(err, errlen, "%s: offset 0x%llx: truncated fatbin container header (%zu bytes left, need 16)", where,
               (unsigned long long)base_off, avail);
        return P2N_FB_BAD_INPUT;
    }
    uint32_t magic = rd32(p);
    uint16_t ver = rd16(p + 4), hsz = rd16(p + 6);
    uint64_t fat = rd64(p + 8);
    if (magic != P2N_FB_CONTAINER_MAGIC) {
        fb_err(err, errlen, "%s: offset 0x%llx: bad fatbin container magic 0x%08x", where,
               (unsigned long long)base_off, magic);
        return P2N_FB_BAD_INPUT;
    }
    if (ver != 1 || hsz < 16 || (hsz & 7)) {
        fb_err(err, errlen, "%s: offset 0x%llx: unsupported fatbin container version %u / header size %u", where,
               (unsigned long long)base_off, ver, hsz);
        return P2N_FB_BAD_INPUT;
    }
    if (fat > avail || hsz > avail - fat) {
        fb_err(err, errlen,
               "%s: offset 0x%llx: fatbin container size 0x%llx runs past the end of its section (0x%llx bytes left)",
               where, (unsigned long long)base_off, (unsigned long long)(fat + hsz), (unsigned long long)avail);
        return P2N_FB_BAD_INPUT;
    }
    uint64_t end = hsz + fat;
    out->data = p;
    out->size = end;
    out->file_offset = base_off;
    size_t cap = 0;
    uint64_t off = hsz;
    while (end - off >= 64) {
        const uint8_t *e = p + off;
        uint64_t eo = base_off + off;
        p2n_fb_entry en;
        memset(&en, 0, sizeof en);
        en.offset = off;
        en.kind = rd16(e);
        en.version = rd16(e + 2);
        en.header_size = rd32(e + 4);
        en.payload_size = rd64(e + 8);
        en.compressed_size = rd32(e + 0x10);
        en.options_desc_offset = rd32(e + 0x14);
        en.code_minor = rd16(e + 0x18);
        en.code_major = rd16(e + 0x1a);
        en.arch = rd32(e + 0x1c);
        uint32_t ident_off = rd32(e + 0x20), ident_len = rd32(e + 0x24);
        en.flags = rd64(e + 0x28);
        en.lto_key = rd64(e + 0x30);
        en.uncompressed_size = rd64(e + 0x38);
        uint64_t left = end - off;
        if (en.version != 0x101) {
            fb_err(err, errlen, "%s: offset 0x%llx: fatbin entry has version 0x%x (expected 0x101)", where,
                   (unsigned long long)eo, en.version);
            goto bad;
        }
        if (en.header_size < 64 || (en.header_size & 7) || en.header_size > left) {
            fb_err(err, errlen, "%s: offset 0x%llx: fatbin entry header size 0x%x is invalid (0x%llx bytes left)",
                   where, (unsigned long long)eo, en.header_size, (unsigned long long)left);
            goto bad;
        }
        if (en.payload_size > left - en.header_size) {
            fb_err(err, errlen,
                   "%s: offset 0x%llx: fatbin entry payload size 0x%llx runs past the container end (0x%llx bytes left)",
                   where, (unsigned long long)eo, (unsigned long long)en.payload_size,
                   (unsigned long long)(left - en.header_size));
            goto bad;
        }
        if (ident_off) {
            if (ident_off < 64 || ident_off > en.header_size || ident_len > en.header_size - ident_off) {
                fb_err(err, errlen, "%s: offset 0x%llx: fatbin entry identifier (0x%x+0x%x) outside its header", where,
                       (unsigned long long)eo, ident_off, ident_len);
                goto bad;
            }
            en.ident = (const char *)e + ident_off;
            en.ident_len = ident_len;
            while (en.ident_len && en.ident[en.ident_len - 1] == 0) en.ident_len--;
        }
        if (en.options_desc_offset) {
            uint32_t d = en.options_desc_offset;
            if (d < 64 || d > en.header_size || en.header_size - d < 8) {
                fb_err(err, errlen, "%s: offset 0x%llx: fatbin entry options descriptor 0x%x outside its header",
                       where, (unsigned long long)eo, d);
                goto bad;
            }
            uint32_t oo = rd32(e + d), ol = rd32(e + d + 4);
            if (ol) {
                if (oo < 64 || oo > en.header_size || ol > en.header_size - oo) {
                    fb_err(err, errlen, "%s: offset 0x%llx: fatbin entry options string (0x%x+0x%x) outside its header",
                           where, (unsigned long long)eo, oo, ol);
                    goto bad;
                }
                en.options = (const char *)e + oo;
                en.options_len = ol;
                while (en.options_len && en.options[en.options_len - 1] == 0) en.options_len--;
            }
        }
        en.payload = e + en.header_size;
        int lz4 = (en.flags & P2N_FB_FLAG_LZ4) != 0, zs = (en.flags & P2N_FB_FLAG_ZSTD) != 0;
        if (en.kind == P2N_FB_KIND_LTOIR && (en.flags & P2N_FB_FLAG_LTO_PRIVATE) && en.compressed_size)
            en.compression = P2N_FB_COMP_LTO_PRIVATE;
        else if (lz4 && !zs)
            en.compression = P2N_FB_COMP_LZ4;
        else if (zs && !lz4)
            en.compression = P2N_FB_COMP_ZSTD;
        else if (lz4 && zs)
            en.compression = P2N_FB_COMP_UNKNOWN;
        else
            en.compression = en.compressed_size ? P2N_FB_COMP_UNKNOWN : P2N_FB_COMP_NONE;
        if (en.compression != P2N_FB_COMP_NONE) {
            if (!en.compressed_size || en.compressed_size > en.payload_size) {
                fb_err(err, errlen,
                       "%s: offset 0x%llx: compressed fatbin entry has compressed size 0x%x but payload size 0x%llx",
                       where, (unsigned long long)eo, en.compressed_size, (unsigned long long)en.payload_size);
                goto bad;
            }
            if (!en.uncompressed_size && en.compression != P2N_FB_COMP_UNKNOWN) {
                fb_err(err, errlen, "%s: offset 0x%llx: compressed fatbin entry has uncompressed size 0", where,
                       (unsigned long long)eo);
                goto bad;
            }
            en.stored_len = en.compressed_size;
        } else {
            en.stored_len = en.payload_size;
        }
        if (out->n_entries == cap) {
            cap = cap ? cap * 2 : 4;
            p2n_fb_entry *ne = realloc(out->entries, cap * sizeof *ne);
            if (!ne) {
                fb_err(err, errlen, "%s: out of memory", where);
                p2n_fb_container_free(out);
                return P2N_FB_INTERNAL;
            }
            out->entries = ne;
        }
        out->entries[out->n_entries++] = en;
        off += en.header_size + en.payload_size;
    }
    if (off != end) {
        fb_err(err, errlen,
               "%s: offset 0x%llx: %llu trailing bytes after the last fatbin entry (container ends at 0x%llx)", where,
               (unsigned long long)(base_off + off), (unsigned long long)(end - off),
               (unsigned long long)(base_off + end));
        goto bad;
    }
    return P2N_FB_OK;
bad:
    p2n_fb_container_free(out);
    return P2N_FB_BAD_INPUT;
}

int p2n_fb_parse_wrapper(const void *wrapper, uint32_t *version, p2n_fb_container *out, char *err, size_t errlen) {
    const uint8_t *w = wrapper;
    uint32_t magic = rd32(w), v = rd32(w + 4);
    if (magic != P2N_FB_WRAPPER_MAGIC) {
        fb_err(err, errlen, "<memory>: bad fatbin wrapper magic 0x%08x", magic);
        return P2N_FB_BAD_INPUT;
    }
    if (v != 1 && v != 2) {
        fb_err(err, errlen, "<memory>: unsupported fatbin wrapper version %u", v);
        return P2N_FB_BAD_INPUT;
    }
    const void *data;
    memcpy(&data, w + 8, sizeof data);
    if (!data) {
        fb_err(err, errlen, "<memory>: fatbin wrapper has a NULL data pointer");
        return P2N_FB_BAD_INPUT;
    }
    if (version) *version = v;
    return p2n_fb_parse_container(data, SIZE_MAX, "<memory>", 0, out, err, errlen);
}

/* Caps on what one entry may decompress to. */
#define MAX_DECODED ((uint64_t)1 << 32)

int p2n_fb_decode(const p2n_fb_entry *e, uint8_t **out, size_t *out_len, const char *where, uint64_t entry_off,
                  char *err, size_t errlen) {
    *out = NULL;
    *out_len = 0;
    if (!where) where = "<memory>";
    uint64_t n;
    uint8_t *buf;
    switch (e->compression) {
    case P2N_FB_COMP_NONE:
        n = e->stored_len;
        buf = malloc(n + 1);
        if (!buf) goto oom;
        memcpy(buf, e->payload, n);
        break;
    case P2N_FB_COMP_LZ4: {
        n = e->uncompressed_size;
        /* LZ4 cannot expand more than ~255x; reject absurd sizes before allocating. */
        if (n > MAX_DECODED || n > (uint64_t)e->compressed_size * 255u + 64u || e->compressed_size > INT32_MAX) {
            fb_err(err, errlen, "%s: offset 0x%llx: LZ4 entry claims %llu bytes from %u compressed bytes", where,
                   (unsigned long long)entry_off, (unsigned long long)n, e->compressed_size);
            return P2N_FB_BAD_INPUT;
        }
        buf = malloc(n + 1);
        if (!buf) goto oom;
        int r = LZ4_decompress_safe((const char *)e->payload, (char *)buf, (int)e->compressed_size, (int)n);
        if (r < 0 || (uint64_t)r != n) {
            free(buf);
            fb_err(err, errlen,
                   "%s: offset 0x%llx: LZ4 decompression failed (%d; expected %llu bytes from %u compressed bytes)",
                   where, (unsigned long long)entry_off, r, (unsigned long long)n, e->compressed_size);
            return P2N_FB_BAD_INPUT;
        }
        break;
    }
    case P2N_FB_COMP_ZSTD: {
        n = e->uncompressed_size;
        unsigned long long fcs = ZSTD_getFrameContentSize(e->payload, e->compressed_size);
        if (fcs == ZSTD_CONTENTSIZE_ERROR || n > MAX_DECODED ||
            (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != n)) {
            fb_err(err, errlen,
                   "%s: offset 0x%llx: zstd frame header is invalid or disagrees with the entry (frame size %lld, "
                   "entry says %llu)",
                   where, (unsigned long long)entry_off, fcs == ZSTD_CONTENTSIZE_ERROR ? -1LL : (long long)fcs,
                   (unsigned long long)n);
            return P2N_FB_BAD_INPUT;
        }
        buf = malloc(n + 1);
        if (!buf) goto oom;
        size_t r = ZSTD_decompress(buf, n, e->payload, e->compressed_size);
        if (ZSTD_isError(r) || r != n) {
            free(buf);
            fb_err(err, errlen, "%s: offset 0x%llx: zstd decompression failed (%s; expected %llu bytes)", where,
                   (unsigned long long)entry_off, ZSTD_isError(r) ? ZSTD_getErrorName(r) : "size mismatch",
                   (unsigned long long)n);
            return P2N_FB_BAD_INPUT;
        }
        break;
    }
    case P2N_FB_COMP_LTO_PRIVATE:
        fb_err(err, errlen,
               "%s: offset 0x%llx: LTO-IR entry uses NVIDIA's private compression (flag 0x10000); only nvJitLink "
               "can decode it",
               where, (unsigned long long)entry_off);
        return P2N_FB_UNSUPPORTED;
    default:
        fb_err(err, errlen, "%s: offset 0x%llx: entry has an unknown compression (flags 0x%llx)", where,
               (unsigned long long)entry_off, (unsigned long long)e->flags);
        return P2N_FB_BAD_INPUT;
    }
    if (e->kind == P2N_FB_KIND_PTX)
        while (n && buf[n - 1] == 0) n--;
    buf[n] = 0;
    *out = buf;
    *out_len = n;
    return P2N_FB_OK;
oom:
    fb_err(err, errlen, "%s: offset 0x%llx: out of memory decoding %llu bytes", where, (unsigned long long)entry_off,
           (unsigned long long)n);
    return P2N_FB_INTERNAL;
}

/* nvlink reads the translation units' containers from `__nv_relfatbin`; cudart hands them to the driver only
 * through a version-2 wrapper's array, to be linked together (format doc §9.3). */
int p2n_fb_container_is_relocatable(const p2n_fb_container *c) {
    return c->section && !strcmp(c->section, "__nv_relfatbin");
}

int p2n_fb_select_ptx(const p2n_fb_container *c, unsigned max_arch, int *above) {
    int best = -1, lowest_above = -1;
    for (size_t i = 0; i < c->n_entries; i++) {
        const p2n_fb_entry *e = &c->entries[i];
        if (e->kind != P2N_FB_KIND_PTX) continue;
        if (e->arch <= max_arch) {
            if (best < 0 || e->arch > c->entries[best].arch) best = (int)i;
        } else if (lowest_above < 0 || e->arch < c->entries[lowest_above].arch) {
            lowest_above = (int)i;
        }
    }
    if (above) *above = best < 0 && lowest_above >= 0;
    return best >= 0 ? best : lowest_above;
}

/* Options seen: " -maxrregcount=40 ", " --fmad false ", "-O1 ", " -g --dont-merge-basicblocks ...",
 * "--compile-only  ", "-ftz=0 -prec_div=1 -prec_sqrt=1 -fmad=1 ". Unknown options are ignored. */
void p2n_fb_parse_ptx_options(const char *opts, size_t len, p2n_fb_ptx_opts *o) {
    memset(o, 0, sizeof *o);
    o->opt_level = -1;
    char tok[3][128];
    int ntok = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && (opts[i] == ' ' || opts[i] == '\t' || opts[i] == 0)) i++;
        size_t s = i;
        while (i < len && opts[i] != ' ' && opts[i] != '\t' && opts[i] != 0) i++;
        if (i == s) break;
        size_t l = i - s;
        if (l >= sizeof tok[0]) continue;
        /* keep a window of the last tokens to handle "--fmad false" / "-maxrregcount 40" */
        if (ntok == 3) {
            memmove(tok[0], tok[1], sizeof tok[0] * 2);
            ntok = 2;
        }
        memcpy(tok[ntok], opts + s, l);
        tok[ntok][l] = 0;
        ntok++;
        const char *t = tok[ntok - 1], *prev = ntok >= 2 ? tok[ntok - 2] : "";
        const char *v;
        if ((v = strstr(t, "maxrregcount=")) == t + 1 || v == t + 2)
            o->max_reg_count = atoi(v + 13);
        else if (!strcmp(prev, "-maxrregcount") || !strcmp(prev, "--maxrregcount"))
            o->max_reg_count = atoi(t);
        else if (!strcmp(t, "--fmad=false") || !strcmp(t, "-fmad=false") || !strcmp(t, "-fmad=0") ||
                 !strcmp(t, "--fmad=0"))
            o->no_fmad = 1;
        else if ((!strcmp(prev, "--fmad") || !strcmp(prev, "-fmad")) && (!strcmp(t, "false") || !strcmp(t, "0")))
            o->no_fmad = 1;
        else if (t[0] == '-' && t[1] == 'O' && t[2] >= '0' && t[2] <= '3' && !t[3])
            o->opt_level = t[2] - '0';
        else if (!strcmp(t, "-g") || !strcmp(t, "--device-debug"))
            o->debug = 1;
    }
}
