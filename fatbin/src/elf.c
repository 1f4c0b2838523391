/* elf.c — walking ELF files and `!<arch>` archives for fatbin containers and wrappers.
 *
 * libelf (elf_memory) reads section and program headers; every offset libelf or the file gives us is checked
 * against the buffer before it is dereferenced. Section contents are read straight from the buffer. */
#include "fb_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC64 0x00100001BA55ED50ull /* container magic + version 1 + headerSize 16 */


typedef struct fb_priv {
    void *map;
    size_t map_len;
    char **strs;
    size_t n_strs, cap_strs;
} fb_priv;

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
static void elf_init(void) { elf_version(EV_CURRENT); }

static const char *intern(p2n_fb_file *f, const char *s) {
    fb_priv *pv = f->priv;
    if (pv->n_strs == pv->cap_strs) {
        size_t nc = pv->cap_strs ? pv->cap_strs * 2 : 16;
        char **ns = realloc(pv->strs, nc * sizeof *ns);
        if (!ns) return "";
        pv->strs = ns;
        pv->cap_strs = nc;
    }
    char *d = strdup(s);
    if (!d) return "";
    pv->strs[pv->n_strs++] = d;
    return d;
}

static void warn(p2n_fb_file *f, const char *msg) {
    char **nw = realloc(f->warnings, (f->n_warnings + 1) * sizeof *nw);
    if (!nw) return;
    f->warnings = nw;
    char *d = strdup(msg);
    if (d) f->warnings[f->n_warnings++] = d;
}

static int add_container(p2n_fb_file *f, p2n_fb_container *c) {
    if (f->n_containers == f->cap_containers) {
        size_t nc = f->cap_containers ? f->cap_containers * 2 : 16;
        p2n_fb_container *n = realloc(f->containers, nc * sizeof *n);
        if (!n) return P2N_FB_INTERNAL;
        f->containers = n;
        f->cap_containers = nc;
    }
    f->containers[f->n_containers++] = *c;
    return P2N_FB_OK;
}

static int add_wrapper(p2n_fb_file *f, const p2n_fb_wrapper *w) {
    if (f->n_wrappers == f->cap_wrappers) {
        size_t nc = f->cap_wrappers ? f->cap_wrappers * 2 : 16;
        p2n_fb_wrapper *n = realloc(f->wrappers, nc * sizeof *n);
        if (!n) return P2N_FB_INTERNAL;
        f->wrappers = n;
        f->cap_wrappers = nc;
    }
    f->wrappers[f->n_wrappers++] = *w;
    return P2N_FB_OK;
}

/* Context of one ELF image (a file, or an archive member). */
typedef struct img {
    p2n_fb_file *f;
    const uint8_t *b; /* image start */
    size_t n;         /* image size */
    uint64_t base;    /* file offset of the image */
    const char *member;
    char where[512];  /* "file(member)" */
} img;

static void set_where(img *im, char *buf, size_t len, const char *sec) {
    snprintf(buf, len, "%s: section %s", im->where, sec);
}

/* Walks a region holding containers. strict: NVIDIA's own sections, where anything but containers and zero
 * padding is an error. Otherwise a lenient 8-aligned scan where a magic that does not validate is a warning. */
static int scan_region(img *im, size_t start, size_t len, const char *secname, unsigned secidx, uint64_t sec_addr,
                       int strict, char *err, size_t errlen) {
    char where[700];
    set_where(im, where, sizeof where, secname);
    const char *sname = NULL;
    size_t pos = start, end = start + len;
    /* align the scan to 8 bytes of the image (containers are 8-aligned in memory and in the file) */
    if (pos & 7) pos = (size_t)p2n_align_up(pos, 8);
    while (pos + 8 <= end) {
        uint64_t w = rd64(im->b + pos);
        if (w != MAGIC64) {
            if (strict && w != 0) {
                fb_err(err, errlen, "%s: offset 0x%llx: unexpected data 0x%016llx where a fatbin container or padding was expected",
                       where, (unsigned long long)(im->base + pos), (unsigned long long)w);
                return P2N_FB_BAD_INPUT;
            }
            pos += 8;
            continue;
        }
        p2n_fb_container c;
        char perr[1024];
        int rc = p2n_fb_parse_container(im->b + pos, end - pos, where, im->base + pos, &c, perr, sizeof perr);
        if (rc != P2N_FB_OK) {
            if (strict || rc == P2N_FB_INTERNAL) {
                fb_err(err, errlen, "%s", perr);
                return rc;
            }
            warn(im->f, perr);
            pos += 8;
            continue;
        }
        if (!sname) sname = intern(im->f, secname);
        c.section = sname;
        c.section_index = secidx;
        c.section_offset = pos - start;
        c.vaddr = sec_addr ? sec_addr + (pos - start) : 0;
        c.member = im->member;
        if (add_container(im->f, &c) != P2N_FB_OK) {
            p2n_fb_container_free(&c);
            fb_err(err, errlen, "%s: out of memory", where);
            return P2N_FB_INTERNAL;
        }
        pos += (size_t)p2n_align_up(c.size, 8);
    }
    if (strict && pos < end) {
        for (size_t i = pos; i < end; i++)
            if (im->b[i]) {
                fb_err(err, errlen, "%s: offset 0x%llx: trailing bytes after the last fatbin container", where,
                       (unsigned long long)(im->base + i));
                return P2N_FB_BAD_INPUT;
            }
    }
    return P2N_FB_OK;
}

typedef struct secinfo {
    GElf_Shdr sh;
    const char *name;
} secinfo;

typedef struct reloc { uint64_t off; int64_t addend; uint32_t sym; uint32_t type; unsigned symtab; } reloc;

static int cmp_reloc(const void *a, const void *b) {
    const reloc *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Value of a symbol (st_shndx in *shndx) from symbol table section `symtab`. 0 on failure. */
static int read_sym(img *im, secinfo *secs, size_t nsec, unsigned symtab, uint32_t sym, uint64_t *value,
                    unsigned *shndx) {
    if (symtab >= nsec) return 0;
    const GElf_Shdr *s = &secs[symtab].sh;
    if (s->sh_type != SHT_SYMTAB && s->sh_type != SHT_DYNSYM) return 0;
    if ((uint64_t)sym * 24 + 24 > s->sh_size || s->sh_offset > im->n || s->sh_size > im->n - s->sh_offset) return 0;
    const uint8_t *p = im->b + s->sh_offset + (uint64_t)sym * 24;
    *shndx = rd16(p + 6);
    *value = rd64(p + 8);
    return 1;
}

/* Finds the container with (section index, section offset) or vaddr. */
static int find_container(p2n_fb_file *f, size_t first, int by_vaddr, unsigned secidx, uint64_t v) {
    for (size_t i = first; i < f->n_containers; i++) {
        const p2n_fb_container *c = &f->containers[i];
        if (by_vaddr ? (c->vaddr == v && v) : (c->section_index == secidx && c->section_offset == v)) return (int)i;
    }
    return -1;
}

static int read_wrappers(img *im, secinfo *secs, size_t nsec, unsigned segidx, size_t first_container, int etype,
                         char *err, size_t errlen) {
    const GElf_Shdr *seg = &secs[segidx].sh;
    char where[700];
    set_where(im, where, sizeof where, secs[segidx].name);
    if (seg->sh_type == SHT_NOBITS) return P2N_FB_OK;
    /* gather the relocations that apply to this section */
    reloc *rel = NULL;
    size_t nrel = 0, caprel = 0;
    for (size_t i = 0; i < nsec; i++) {
        const GElf_Shdr *s = &secs[i].sh;
        if (s->sh_type != SHT_RELA || s->sh_entsize != 24) continue;
        if (etype == ET_REL && s->sh_info != segidx) continue;
        if (s->sh_offset > im->n || s->sh_size > im->n - s->sh_offset) {
            fb_err(err, errlen, "%s: section %s: offset 0x%llx: relocation section runs past the end of the file",
                   im->where, secs[i].name, (unsigned long long)(im->base + s->sh_offset));
            free(rel);
            return P2N_FB_BAD_INPUT;
        }
        const uint8_t *p = im->b + s->sh_offset;
        for (uint64_t k = 0; k + 24 <= s->sh_size; k += 24) {
            uint64_t off = rd64(p + k);
            if (etype != ET_REL && (off < seg->sh_addr || off >= seg->sh_addr + seg->sh_size)) continue;
            if (nrel == caprel) {
                caprel = caprel ? caprel * 2 : 16;
                reloc *nr = realloc(rel, caprel * sizeof *nr);
                if (!nr) {
                    free(rel);
                    fb_err(err, errlen, "%s: out of memory", where);
                    return P2N_FB_INTERNAL;
                }
                rel = nr;
            }
            uint64_t info = rd64(p + k + 8);
            rel[nrel++] = (reloc){off, (int64_t)rd64(p + k + 16), (uint32_t)(info >> 32), (uint32_t)info, s->sh_link};
        }
    }
    if (nrel) qsort(rel, nrel, sizeof *rel, cmp_reloc);
    const uint8_t *sp = im->b + seg->sh_offset;
    int rc = P2N_FB_OK;
    for (uint64_t o = 0; o + 24 <= seg->sh_size; o += 24) {
        uint32_t magic = rd32(sp + o), ver = rd32(sp + o + 4);
        if (magic != P2N_FB_WRAPPER_MAGIC) continue;
        p2n_fb_wrapper w = {0};
        w.file_offset = im->base + seg->sh_offset + o;
        w.version = ver;
        w.member = im->member;
        w.container = -1;
        uint64_t key = etype == ET_REL ? o + 8 : seg->sh_addr + o + 8;
        reloc probe = {.off = key};
        reloc *r = nrel ? bsearch(&probe, rel, nrel, sizeof *rel, cmp_reloc) : NULL;
        uint64_t value = rd64(sp + o + 8);
        int by_vaddr = 1;
        unsigned tsec = 0;
        if (r) {
            if (etype == ET_REL) {
                uint64_t sv;
                unsigned shndx;
                if (!read_sym(im, secs, nsec, r->symtab, r->sym, &sv, &shndx)) {
                    fb_err(err, errlen, "%s: offset 0x%llx: wrapper relocation names a bad symbol %u", where,
                           (unsigned long long)w.file_offset, r->sym);
                    rc = P2N_FB_BAD_INPUT;
                    break;
                }
                value = sv + (uint64_t)r->addend;
                tsec = shndx;
                by_vaddr = 0;
            } else if (r->sym == 0) {
                value = (uint64_t)r->addend; /* R_*_RELATIVE: the addend is the value (lld stores 0 in place) */
            } else {
                uint64_t sv;
                unsigned shndx;
                if (read_sym(im, secs, nsec, r->symtab, r->sym, &sv, &shndx)) value = sv + (uint64_t)r->addend;
            }
        } else if (etype == ET_REL) {
            value = 0;
        } /* else: no RELA entry. Non-PIE (absolute) or RELR (`.relr.dyn`): the stored value is the address. */
        w.data_vaddr = value;
        w.container = find_container(im->f, first_container, by_vaddr, tsec, value);
        if (w.container >= 0) {
            p2n_fb_container *c = &im->f->containers[w.container];
            if (!c->wrapper_version || (uint32_t)c->wrapper_version > ver) c->wrapper_version = (int)ver;
        } else {
            char msg[900];
            snprintf(msg, sizeof msg, "%s: offset 0x%llx: fatbin wrapper v%u points to 0x%llx where no container was found",
                     where, (unsigned long long)w.file_offset, ver, (unsigned long long)value);
            warn(im->f, msg);
        }
        if (add_wrapper(im->f, &w) != P2N_FB_OK) {
            rc = P2N_FB_INTERNAL;
            break;
        }
    }
    free(rel);
    return rc;
}

/* Walk an image without section headers: scan PT_LOAD segments. */
static int walk_phdrs(img *im, Elf *e, char *err, size_t errlen) {
    size_t nph;
    if (elf_getphdrnum(e, &nph) != 0) nph = 0;
    size_t first = im->f->n_containers;
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD) continue;
        if (ph.p_offset > im->n || ph.p_filesz > im->n - ph.p_offset) {
            fb_err(err, errlen, "%s: program header %zu: offset 0x%llx: segment runs past the end of the file",
                   im->where, i, (unsigned long long)(im->base + ph.p_offset));
            return P2N_FB_BAD_INPUT;
        }
        char name[32];
        snprintf(name, sizeof name, "PT_LOAD[%zu]", i);
        int rc = scan_region(im, ph.p_offset, ph.p_filesz, name, 0, ph.p_vaddr, 0, err, errlen);
        if (rc) return rc;
    }
    /* wrappers: scan writable segments; only the stored value is available here */
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_W)) continue;
        for (uint64_t o = (uint64_t)(p2n_align_up(ph.p_offset, 8) - ph.p_offset); o + 24 <= ph.p_filesz; o += 8) {
            const uint8_t *p = im->b + ph.p_offset + o;
            if (rd32(p) != P2N_FB_WRAPPER_MAGIC || (rd32(p + 4) != 1 && rd32(p + 4) != 2)) continue;
            p2n_fb_wrapper w = {0};
            w.file_offset = im->base + ph.p_offset + o;
            w.version = rd32(p + 4);
            w.data_vaddr = rd64(p + 8);
            w.member = im->member;
            w.container = find_container(im->f, first, 1, 0, w.data_vaddr);
            if (w.container < 0) continue; /* unresolvable without relocations (or not a wrapper) */
            p2n_fb_container *c = &im->f->containers[w.container];
            if (!c->wrapper_version || (uint32_t)c->wrapper_version > w.version) c->wrapper_version = (int)w.version;
            if (add_wrapper(im->f, &w)) return P2N_FB_INTERNAL;
        }
    }
    return P2N_FB_OK;
}

static int walk_elf(img *im, char *err, size_t errlen) {
    const uint8_t *b = im->b;
    size_t n = im->n;
    if (n < 64) {
        fb_err(err, errlen, "%s: offset 0x%llx: truncated ELF header (%zu bytes)", im->where,
               (unsigned long long)im->base, n);
        return P2N_FB_BAD_INPUT;
    }
    if (b[EI_CLASS] != ELFCLASS64 || b[EI_DATA] != ELFDATA2LSB) {
        fb_err(err, errlen, "%s: offset 0x%llx: only little-endian ELF64 files are supported", im->where,
               (unsigned long long)im->base);
        return P2N_FB_BAD_INPUT;
    }
    int etype = rd16(b + 16);
    uint64_t shoff = rd64(b + 0x28);
    uint16_t shentsize = rd16(b + 0x3a), shnum16 = rd16(b + 0x3c);
    uint64_t phoff = rd64(b + 0x20);
    uint16_t phentsize = rd16(b + 0x36), phnum = rd16(b + 0x38);
    if (phnum && (phentsize != 56 || phoff > n || (uint64_t)phnum * 56 > n - phoff)) {
        fb_err(err, errlen, "%s: offset 0x%llx: program header table (0x%llx, %u entries) runs past the end of the file",
               im->where, (unsigned long long)(im->base + 0x20), (unsigned long long)phoff, phnum);
        return P2N_FB_BAD_INPUT;
    }
    if (shoff) {
        uint64_t shnum = shnum16;
        if (shentsize != 64 || shoff > n || n - shoff < 64) {
            fb_err(err, errlen, "%s: offset 0x%llx: section header table at 0x%llx is outside the file (size 0x%zx)",
                   im->where, (unsigned long long)(im->base + 0x28), (unsigned long long)shoff, n);
            return P2N_FB_BAD_INPUT;
        }
        if (shnum == 0) shnum = rd64(b + shoff + 0x20); /* extended numbering: shdr[0].sh_size */
        if (shnum > (n - shoff) / 64) {
            fb_err(err, errlen,
                   "%s: offset 0x%llx: section header table (%llu entries at 0x%llx) runs past the end of the file (size 0x%zx)",
                   im->where, (unsigned long long)(im->base + shoff), (unsigned long long)shnum,
                   (unsigned long long)shoff, n);
            return P2N_FB_BAD_INPUT;
        }
    }
    pthread_once(&elf_once, elf_init);
    Elf *e = elf_memory((char *)(uintptr_t)b, n);
    if (!e || elf_kind(e) != ELF_K_ELF) {
        fb_err(err, errlen, "%s: offset 0x%llx: libelf cannot read this ELF image: %s", im->where,
               (unsigned long long)im->base, elf_errmsg(-1));
        if (e) elf_end(e);
        return P2N_FB_BAD_INPUT;
    }
    if (im->f->kind == P2N_FB_FILE_ELF) im->f->elf_type = etype;
    int rc = P2N_FB_OK;
    size_t nsec = 0, shstrndx = 0;
    if (!shoff) {
        rc = walk_phdrs(im, e, err, errlen);
        elf_end(e);
        return rc;
    }
    if (elf_getshdrnum(e, &nsec) != 0 || elf_getshdrstrndx(e, &shstrndx) != 0) {
        fb_err(err, errlen, "%s: offset 0x%llx: bad section header table: %s", im->where,
               (unsigned long long)(im->base + shoff), elf_errmsg(-1));
        elf_end(e);
        return P2N_FB_BAD_INPUT;
    }
    secinfo *secs = calloc(nsec ? nsec : 1, sizeof *secs);
    if (!secs) {
        elf_end(e);
        fb_err(err, errlen, "%s: out of memory", im->where);
        return P2N_FB_INTERNAL;
    }
    for (size_t i = 0; i < nsec; i++) {
        Elf_Scn *s = elf_getscn(e, i);
        if (!s || !gelf_getshdr(s, &secs[i].sh)) {
            fb_err(err, errlen, "%s: offset 0x%llx: cannot read section header %zu: %s", im->where,
                   (unsigned long long)(im->base + shoff + i * 64), i, elf_errmsg(-1));
            rc = P2N_FB_BAD_INPUT;
            goto out;
        }
        const char *nm = elf_strptr(e, shstrndx, secs[i].sh.sh_name);
        secs[i].name = nm ? intern(im->f, nm) : "?";
        if (!strcmp(secs[i].name, P2N_NATIVE_SECTION)) im->f->has_native = 1;
        const GElf_Shdr *sh = &secs[i].sh;
        if (sh->sh_type != SHT_NOBITS && sh->sh_size &&
            (sh->sh_offset > n || sh->sh_size > n - sh->sh_offset)) {
            fb_err(err, errlen, "%s: section %s: offset 0x%llx: section (0x%llx bytes) runs past the end of the file (size 0x%zx)",
                   im->where, secs[i].name, (unsigned long long)(im->base + sh->sh_offset),
                   (unsigned long long)sh->sh_size, n);
            rc = P2N_FB_BAD_INPUT;
            goto out;
        }
    }
    size_t first = im->f->n_containers;
    for (size_t i = 1; i < nsec; i++) {
        const GElf_Shdr *sh = &secs[i].sh;
        if (sh->sh_type == SHT_NOBITS || !sh->sh_size) continue;
        int nv = !strcmp(secs[i].name, ".nv_fatbin") || !strcmp(secs[i].name, "__nv_relfatbin");
        if (!nv && !(sh->sh_flags & SHF_ALLOC)) continue;
        if (!strcmp(secs[i].name, ".nvFatBinSegment")) continue;
        rc = scan_region(im, sh->sh_offset, sh->sh_size, secs[i].name, (unsigned)i, sh->sh_addr, nv, err, errlen);
        if (rc) goto out;
    }
    for (size_t i = 1; i < nsec; i++)
        if (!strcmp(secs[i].name, ".nvFatBinSegment")) {
            rc = read_wrappers(im, secs, nsec, (unsigned)i, first, etype, err, errlen);
            if (rc) goto out;
        }
out:
    free(secs);
    elf_end(e);
    return rc;
}

static int walk_archive(p2n_fb_file *f, char *err, size_t errlen) {
    const uint8_t *b = f->data;
    size_t n = f->size, pos = 8;
    const char *longnames = NULL;
    size_t longlen = 0;
    while (pos < n) {
        if (n - pos < 60) {
            int junk = 0;
            for (size_t i = pos; i < n; i++) junk |= b[i] != '\n';
            if (!junk) break;
            fb_err(err, errlen, "%s: offset 0x%zx: truncated archive member header", f->path, pos);
            return P2N_FB_BAD_INPUT;
        }
        const char *h = (const char *)b + pos;
        if (h[58] != '`' || h[59] != '\n') {
            fb_err(err, errlen, "%s: offset 0x%zx: bad archive member header (no terminator)", f->path, pos);
            return P2N_FB_BAD_INPUT;
        }
        uint64_t size = 0;
        int digits = 0;
        for (int i = 48; i < 58; i++) {
            if (h[i] >= '0' && h[i] <= '9') {
                size = size * 10 + (uint64_t)(h[i] - '0');
                digits++;
            } else if (h[i] != ' ') {
                digits = -1;
                break;
            }
        }
        if (digits <= 0) {
            fb_err(err, errlen, "%s: offset 0x%zx: bad archive member size field", f->path, pos + 48);
            return P2N_FB_BAD_INPUT;
        }
        size_t data = pos + 60;
        if (size > n - data) {
            fb_err(err, errlen, "%s: offset 0x%zx: archive member size %llu runs past the end of the file", f->path,
                   pos, (unsigned long long)size);
            return P2N_FB_BAD_INPUT;
        }
        char name[256];
        size_t nl = 16;
        while (nl && h[nl - 1] == ' ') nl--;
        memcpy(name, h, nl);
        name[nl] = 0;
        const uint8_t *mdata = b + data;
        uint64_t msize = size;
        int skip = 0;
        if (!strcmp(name, "/") || !strcmp(name, "/SYM64/") || !strcmp(name, "__.SYMDEF") ||
            !strcmp(name, "__.SYMDEF SORTED")) {
            skip = 1;
        } else if (!strcmp(name, "//")) {
            longnames = (const char *)mdata;
            longlen = size;
            skip = 1;
        } else if (name[0] == '/' && name[1] >= '0' && name[1] <= '9') {
            unsigned long lo = strtoul(name + 1, NULL, 10);
            if (!longnames || lo >= longlen) {
                fb_err(err, errlen, "%s: offset 0x%zx: archive member long name offset %lu outside the name table",
                       f->path, pos, lo);
                return P2N_FB_BAD_INPUT;
            }
            size_t k = 0;
            while (lo + k < longlen && k < sizeof name - 1 && longnames[lo + k] != '\n' && longnames[lo + k] != 0)
                k++;
            memcpy(name, longnames + lo, k);
            name[k] = 0;
            if (k && name[k - 1] == '/') name[k - 1] = 0;
        } else if (!strncmp(name, "#1/", 3)) {
            unsigned long l = strtoul(name + 3, NULL, 10);
            if (l > size || l >= sizeof name) {
                fb_err(err, errlen, "%s: offset 0x%zx: bad BSD archive member name length", f->path, pos);
                return P2N_FB_BAD_INPUT;
            }
            memcpy(name, mdata, l);
            name[l] = 0;
            mdata += l;
            msize -= l;
        } else if (nl && name[nl - 1] == '/') {
            name[nl - 1] = 0;
        }
        if (!skip && msize >= 4 && !memcmp(mdata, "\177ELF", 4)) {
            img im = {.f = f, .b = mdata, .n = msize, .base = (uint64_t)(mdata - b)};
            im.member = intern(f, name);
            snprintf(im.where, sizeof im.where, "%s(%s)", f->path, name);
            int rc = walk_elf(&im, err, errlen);
            if (rc) return rc;
        }
        pos = data + size;
        pos += pos & 1;
    }
    return P2N_FB_OK;
}

int p2n_fb_load(const char *name, const void *data, size_t size, p2n_fb_file *f, char *err, size_t errlen) {
    memset(f, 0, sizeof *f);
    f->priv = calloc(1, sizeof(fb_priv));
    f->path = strdup(name ? name : "<memory>");
    if (!f->priv || !f->path) {
        fb_err(err, errlen, "%s: out of memory", name);
        return P2N_FB_INTERNAL;
    }
    f->data = data;
    f->size = size;
    const uint8_t *b = data;
    if (size >= 4 && !memcmp(b, "\177ELF", 4)) {
        f->kind = P2N_FB_FILE_ELF;
        img im = {.f = f, .b = b, .n = size, .base = 0, .member = NULL};
        snprintf(im.where, sizeof im.where, "%s", f->path);
        return walk_elf(&im, err, errlen);
    }
    if (size >= 8 && !memcmp(b, "!<arch>\n", 8)) {
        f->kind = P2N_FB_FILE_ARCHIVE;
        return walk_archive(f, err, errlen);
    }
    if (size >= 8 && rd64(b) == MAGIC64) {
        f->kind = P2N_FB_FILE_CONTAINER;
        img im = {.f = f, .b = b, .n = size, .base = 0, .member = NULL};
        snprintf(im.where, sizeof im.where, "%s", f->path);
        return scan_region(&im, 0, size, "(file)", 0, 0, 1, err, errlen);
    }
    if (size >= 8 && !memcmp(b, "!<thin>\n", 8)) {
        fb_err(err, errlen, "%s: offset 0x0: thin archives are not supported (members live in other files)", f->path);
        return P2N_FB_BAD_INPUT;
    }
    fb_err(err, errlen, "%s: offset 0x0: not an ELF file, `!<arch>` archive or fatbin container", f->path);
    return P2N_FB_BAD_INPUT;
}

int p2n_fb_open(const char *path, p2n_fb_file *f, char *err, size_t errlen) {
    memset(f, 0, sizeof *f);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fb_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return P2N_FB_BAD_INPUT;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        fb_err(err, errlen, "%s: not a regular file", path);
        close(fd);
        return P2N_FB_BAD_INPUT;
    }
    size_t size = (size_t)st.st_size;
    void *map = NULL;
    if (size) {
        /* private + writable: libelf may convert in place, and nothing is ever written back */
        map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            fb_err(err, errlen, "%s: cannot map: %s", path, strerror(errno));
            close(fd);
            return P2N_FB_INTERNAL;
        }
    }
    close(fd);
    int rc = p2n_fb_load(path, map ? map : "", size, f, err, errlen);
    if (f->priv) {
        ((fb_priv *)f->priv)->map = map;
        ((fb_priv *)f->priv)->map_len = size;
    } else if (map) {
        munmap(map, size);
    }
    return rc;
}

void p2n_fb_close(p2n_fb_file *f) {
    if (!f) return;
    for (size_t i = 0; i < f->n_containers; i++) p2n_fb_container_free(&f->containers[i]);
    free(f->containers);
    free(f->wrappers);
    for (size_t i = 0; i < f->n_warnings; i++) free(f->warnings[i]);
    free(f->warnings);
    fb_priv *pv = f->priv;
    if (pv) {
        if (pv->map) munmap(pv->map, pv->map_len);
        for (size_t i = 0; i < pv->n_strs; i++) free(pv->strs[i]);
        free(pv->strs);
        free(pv);
    }
    free(f->path);
    memset(f, 0, sizeof *f);
}
