/* note_merge.c — one NT_AMDGPU_METADATA note out of several, in a linked AMDGPU code object.
 *
 * Each relocatable object the AMDGPU back end writes carries its own metadata note (msgpack map with
 * amdhsa.version, amdhsa.target, amdhsa.kernels ...); lld concatenates them, but loaders read only the
 * first note, so after a partitioned (-j N) compile the kernels of the other partitions would be missing.
 * Here the notes are merged in place: the first note's map with every note's amdhsa.kernels entries. The
 * merged note is never larger than the notes it replaces (each dropped note had its own header, name and
 * map keys), so the section and the PT_NOTE segment only shrink. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "note_merge.h"

#define NT_AMDGPU_META 32
#define BAD ((size_t)-1)

static uint64_t be(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}

/* Index just past the msgpack value at i (BAD if malformed). `count` receives an array/map's length. */
static size_t mp_head(const uint8_t *p, size_t n, size_t i, uint64_t *items, uint64_t *skip) {
    *items = 0;
    *skip = 0;
    if (i >= n) return BAD;
    uint8_t b = p[i++];
    unsigned w = 0; /* width of a big-endian length that follows */
    if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3) return i;
    if ((b & 0xf0) == 0x80) { *items = 2u * (b & 0xf); return i; }
    if ((b & 0xf0) == 0x90) { *items = b & 0xf; return i; }
    if ((b & 0xe0) == 0xa0) { *skip = b & 0x1f; return i; }
    switch (b) {
    case 0xc4: case 0xd9: w = 1; break;           /* bin8, str8 */
    case 0xc5: case 0xda: w = 2; break;
    case 0xc6: case 0xdb: w = 4; break;
    case 0xc7: case 0xc8: case 0xc9: {            /* ext: length, then a type byte */
        w = b == 0xc7 ? 1 : b == 0xc8 ? 2 : 4;
        if (i + w > n) return BAD;
        *skip = be(p + i, w) + 1;
        return i + w;
    }
    case 0xca: case 0xce: case 0xd2: *skip = 4; return i;
    case 0xcb: case 0xcf: case 0xd3: *skip = 8; return i;
    case 0xcc: case 0xd0: *skip = 1; return i;
    case 0xcd: case 0xd1: *skip = 2; return i;
    case 0xd4: *skip = 2; return i;
    case 0xd5: *skip = 3; return i;
    case 0xd6: *skip = 5; return i;
    case 0xd7: *skip = 9; return i;
    case 0xd8: *skip = 17; return i;
    case 0xdc: case 0xdd: case 0xde: case 0xdf: {
        w = b == 0xdc || b == 0xde ? 2 : 4;
        if (i + w > n) return BAD;
        *items = be(p + i, w) * (b >= 0xde ? 2 : 1);
        return i + w;
    }
    default: return BAD;
    }
    if (i + w > n) return BAD;
    *skip = be(p + i, w);
    return i + w;
}

static size_t mp_skip(const uint8_t *p, size_t n, size_t i, unsigned depth) {
    uint64_t items, skip;
    if (depth > 64 || (i = mp_head(p, n, i, &items, &skip)) == BAD || skip > n - i) return BAD;
    i += skip;
    for (uint64_t k = 0; k < items && i != BAD; k++) i = mp_skip(p, n, i, depth + 1);
    return i;
}

static bool mp_is_str(const uint8_t *p, size_t n, size_t i, const char *s) {
    uint64_t items, skip;
    size_t j = mp_head(p, n, i, &items, &skip);
    size_t len = strlen(s);
    return j != BAD && !items && skip == len && j + len <= n && memcmp(p + j, s, len) == 0 &&
           ((p[i] & 0xe0) == 0xa0 || (p[i] >= 0xd9 && p[i] <= 0xdb));
}

typedef struct span { size_t off, len; const uint8_t *base; } span;
typedef struct buf { uint8_t *p; size_t n, cap; bool oom; } buf;

static void put(buf *b, const void *d, size_t n) {
    if (b->n + n > b->cap) {
        size_t nc = (b->n + n) * 2 + 64;
        uint8_t *q = realloc(b->p, nc);
        if (!q) { b->oom = true; return; }
        b->p = q;
        b->cap = nc;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void put_count(buf *b, uint64_t c, bool map) {
    uint8_t h[5];
    if (c < 16) { h[0] = (uint8_t)((map ? 0x80 : 0x90) | c); put(b, h, 1); }
    else if (c < 65536) { h[0] = map ? 0xde : 0xdc; h[1] = (uint8_t)(c >> 8); h[2] = (uint8_t)c; put(b, h, 3); }
    else { h[0] = map ? 0xdf : 0xdd; for (int k = 0; k < 4; k++) h[1 + k] = (uint8_t)(c >> (24 - 8 * k)); put(b, h, 5); }
}

/* The merged msgpack map, or false if a note is not a map of the expected shape. */
static bool merge_maps(const span *notes, unsigned nn, buf *out) {
    span keys[64], vals[64];
    unsigned nk = 0, nkern = 0, kcap = 0;
    span *kern = NULL; /* heap: callers may run on small thread stacks (the driver stub's workers) */
    bool ok = false;
    for (unsigned k = 0; k < nn; k++) {
        const uint8_t *p = notes[k].base + notes[k].off;
        size_t n = notes[k].len;
        uint64_t items, skip;
        size_t i = mp_head(p, n, 0, &items, &skip);
        if (i == BAD || (!(p[0] >= 0x80 && p[0] <= 0x8f) && p[0] != 0xde && p[0] != 0xdf)) goto out;
        for (uint64_t e = 0; e < items / 2; e++) {
            size_t ke = mp_skip(p, n, i, 0);
            if (ke == BAD) goto out;
            size_t ve = mp_skip(p, n, ke, 0);
            if (ve == BAD) goto out;
            if (mp_is_str(p, n, i, "amdhsa.kernels")) {
                uint64_t cnt, sk;
                size_t j = mp_head(p, n, ke, &cnt, &sk);
                if (j == BAD || sk) goto out;
                for (uint64_t c = 0; c < cnt; c++) {
                    size_t je = mp_skip(p, n, j, 0);
                    if (je == BAD) goto out;
                    if (nkern == kcap) {
                        kcap = kcap ? 2 * kcap : 64;
                        span *nk2 = realloc(kern, kcap * sizeof *kern);
                        if (!nk2) goto out;
                        kern = nk2;
                    }
                    kern[nkern++] = (span){j, je - j, p};
                    j = je;
                }
            }
            /* a key seen before keeps its first value (version, target: equal in every partition) */
            bool seen = false;
            for (unsigned q = 0; q < nk && !seen; q++)
                seen = keys[q].len == ke - i && memcmp(keys[q].base + keys[q].off, p + i, ke - i) == 0;
            if (!seen) {
                if (nk == sizeof keys / sizeof keys[0]) goto out;
                keys[nk] = (span){i, ke - i, p};
                vals[nk++] = (span){ke, ve - ke, p};
            }
            i = ve;
        }
    }
    put_count(out, nk, true);
    for (unsigned q = 0; q < nk; q++) {
        put(out, keys[q].base + keys[q].off, keys[q].len);
        if (mp_is_str(keys[q].base + keys[q].off, keys[q].len, 0, "amdhsa.kernels")) {
            put_count(out, nkern, false);
            for (unsigned c = 0; c < nkern; c++) put(out, kern[c].base + kern[c].off, kern[c].len);
        } else {
            put(out, vals[q].base + vals[q].off, vals[q].len);
        }
    }
    ok = !out->oom;
out:
    free(kern);
    return ok;
}

static size_t pad4(size_t x) { return (x + 3) & ~(size_t)3; }

/* Merges the metadata notes of one SHT_NOTE section; returns its new size (old size when untouched). */
static size_t merge_section(uint8_t *sec, size_t size, bool *ok) {
    span meta[256];
    unsigned nm = 0;
    size_t first = BAD;
    for (size_t i = 0; i + 12 <= size;) {
        uint32_t namesz, descsz, type;
        memcpy(&namesz, sec + i, 4);
        memcpy(&descsz, sec + i + 4, 4);
        memcpy(&type, sec + i + 8, 4);
        size_t desc = i + 12 + pad4(namesz), next = desc + pad4(descsz);
        if (next > size || next <= i) { *ok = false; return size; }
        if (type == NT_AMDGPU_META && namesz == 7 && memcmp(sec + i + 12, "AMDGPU", 7) == 0) {
            if (nm == sizeof meta / sizeof meta[0]) { *ok = false; return size; }
            if (first == BAD) first = i;
            meta[nm++] = (span){desc, descsz, sec};
        }
        i = next;
    }
    if (nm < 2) return size;
    buf m = {0};
    if (!merge_maps(meta, nm, &m)) { free(m.p); *ok = false; return size; }
    /* rebuild: notes before the first metadata note stay; the merged note; then the other notes */
    uint8_t *out = calloc(size, 1);
    size_t o = 0;
    if (!out) { free(m.p); *ok = false; return size; }
    for (size_t i = 0; i + 12 <= size;) {
        uint32_t namesz, descsz, type;
        memcpy(&namesz, sec + i, 4);
        memcpy(&descsz, sec + i + 4, 4);
        memcpy(&type, sec + i + 8, 4);
        size_t next = i + 12 + pad4(namesz) + pad4(descsz);
        bool is_meta = type == NT_AMDGPU_META && namesz == 7 && memcmp(sec + i + 12, "AMDGPU", 7) == 0;
        if (i == first) {
            uint32_t hdr[3] = {7, (uint32_t)m.n, NT_AMDGPU_META};
            size_t need = 12 + 8 + pad4(m.n);
            if (o + need > size) { *ok = false; break; }
            memcpy(out + o, hdr, 12);
            memcpy(out + o + 12, "AMDGPU", 7);
            memcpy(out + o + 20, m.p, m.n);
            o += need;
        } else if (!is_meta) {
            memcpy(out + o, sec + i, next - i);
            o += next - i;
        }
        i = next;
    }
    if (*ok) {
        memcpy(sec, out, size);
        size = o;
    }
    free(out);
    free(m.p);
    return size;
}

bool amdgpu_merge_metadata_notes(uint8_t *elf, size_t n) {
    if (n < sizeof(Elf64_Ehdr) || memcmp(elf, ELFMAG, SELFMAG) != 0 || elf[EI_CLASS] != ELFCLASS64) return false;
    Elf64_Ehdr eh;
    memcpy(&eh, elf, sizeof eh);
    if (eh.e_shoff > n || (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > n - eh.e_shoff ||
        eh.e_phoff > n || (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > n - eh.e_phoff)
        return false;
    bool ok = true;
    for (unsigned s = 0; s < eh.e_shnum && ok; s++) {
        Elf64_Shdr sh;
        memcpy(&sh, elf + eh.e_shoff + s * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_NOTE || sh.sh_offset > n || sh.sh_size > n - sh.sh_offset) continue;
        size_t ns = merge_section(elf + sh.sh_offset, sh.sh_size, &ok);
        if (!ok || ns == sh.sh_size) continue;
        for (unsigned p = 0; p < eh.e_phnum; p++) { /* the PT_NOTE segment that is exactly this section */
            Elf64_Phdr ph;
            memcpy(&ph, elf + eh.e_phoff + p * sizeof ph, sizeof ph);
            if (ph.p_type == PT_NOTE && ph.p_offset == sh.sh_offset && ph.p_filesz == sh.sh_size) {
                ph.p_filesz = ph.p_memsz = ns;
                memcpy(elf + eh.e_phoff + p * sizeof ph, &ph, sizeof ph);
            }
        }
        sh.sh_size = ns;
        memcpy(elf + eh.e_shoff + s * sizeof sh, &sh, sizeof sh);
    }
    return ok;
}
