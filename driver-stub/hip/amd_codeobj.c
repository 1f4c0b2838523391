/* amd_codeobj.c — e_flags and NT_AMDGPU_METADATA of our AMDGPU code objects (amd_codeobj.h). */
#include "amd_codeobj.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif
#define NT_AMDGPU_METADATA_ 32
#define ELFOSABI_AMDGPU_HSA_ 64

static const struct {
    unsigned mach;
    const char *name;
} machs[] = {
    {0x03f, "gfx90a"}, {0x04c, "gfx942"}, {0x04f, "gfx950"}, {0x036, "gfx1030"}, {0x041, "gfx1100"},
    {0x046, "gfx1101"}, {0x047, "gfx1102"}, {0x048, "gfx1200"}, {0x04e, "gfx1201"},
};

static int elf_header(const void *elf, size_t n, Elf64_Ehdr *eh)
{
    if (!elf || n < sizeof *eh)
        return 0;
    memcpy(eh, elf, sizeof *eh);
    return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
           eh->e_machine == EM_AMDGPU && eh->e_ident[EI_OSABI] == ELFOSABI_AMDGPU_HSA_;
}

int amd_elf_target(const void *elf, size_t n, const char **proc, int *xnack, int *sramecc)
{
    Elf64_Ehdr eh;
    if (!elf_header(elf, n, &eh))
        return 0;
    *proc = NULL;
    for (size_t i = 0; i < sizeof machs / sizeof machs[0]; i++)
        if ((eh.e_flags & 0xff) == machs[i].mach)
            *proc = machs[i].name;
    *xnack = (int)((eh.e_flags & 0x300) >> 8);
    *sramecc = (int)((eh.e_flags & 0xc00) >> 10);
    return 1;
}

void amd_parse_arch_name(const char *gcn, char *proc, size_t proc_len, int *xnack, int *sramecc)
{
    size_t pl = strcspn(gcn, ":");
    snprintf(proc, proc_len, "%.*s", (int)pl, gcn);
    *xnack = *sramecc = 1;
    for (const char *s = gcn + pl; *s == ':';) {
        s++;
        size_t l = strcspn(s, ":");
        if (l > 1 && (s[l - 1] == '+' || s[l - 1] == '-')) {
            int v = s[l - 1] == '+' ? 3 : 2;
            if (l - 1 == 5 && strncmp(s, "xnack", 5) == 0)
                *xnack = v;
            else if (l - 1 == 7 && strncmp(s, "sramecc", 7) == 0)
                *sramecc = v;
        }
        s += l;
    }
}

int amd_compatible(const void *elf, size_t n, const char *gcn_arch_name, char *why, size_t why_len)
{
    const char *proc;
    int cx, cs;
    if (!amd_elf_target(elf, n, &proc, &cx, &cs)) {
        snprintf(why, why_len, "not an AMDGPU HSA code object");
        return 0;
    }
    char dproc[64];
    int dx, ds;
    amd_parse_arch_name(gcn_arch_name, dproc, sizeof dproc, &dx, &ds);
    static const char *const setting[] = {"unsupported", "any", "off (-)", "on (+)"};
    if (!proc || strcmp(proc, dproc) != 0) {
        snprintf(why, why_len, "code object for %s, device is %s", proc ? proc : "an unknown processor",
                 gcn_arch_name);
        return 0;
    }
    /* unsupported/any in the code object run anywhere; off/on need the device's very setting (a device that
     * does not name the feature, setting "any", accepts only code objects that leave it open) */
    if (cx >= 2 && cx != dx) {
        snprintf(why, why_len, "code object needs xnack %s, device %s is xnack %s", setting[cx], gcn_arch_name,
                 setting[dx]);
        return 0;
    }
    if (cs >= 2 && cs != ds) {
        snprintf(why, why_len, "code object needs sramecc %s, device %s is sramecc %s", setting[cs],
                 gcn_arch_name, setting[ds]);
        return 0;
    }
    return 1;
}

/* ---- MessagePack (only what the metadata uses) ---- */

typedef struct mp {
    const uint8_t *p, *end;
    int bad;
} mp;

static uint64_t be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static int need(mp *m, size_t n)
{
    if (m->bad || (size_t)(m->end - m->p) < n) {
        m->bad = 1;
        return 0;
    }
    return 1;
}

/* reads one header; returns its class: 'm' map, 'a' array, 's' string/binary, 'i' integer, 'o' other
 * (nil, bool, float); *len = element count / byte length / integer value */
static int mp_head(mp *m, uint64_t *len, int64_t *ival)
{
    if (!need(m, 1))
        return 0;
    uint8_t c = *m->p++;
    *len = 0;
    *ival = 0;
    if (c <= 0x7f) { *ival = c; return 'i'; }
    if (c >= 0xe0) { *ival = (int8_t)c; return 'i'; }
    if ((c & 0xf0) == 0x80) { *len = c & 15; return 'm'; }
    if ((c & 0xf0) == 0x90) { *len = c & 15; return 'a'; }
    if ((c & 0xe0) == 0xa0) { *len = c & 31; return 's'; }
    int n;
    switch (c) {
    case 0xc0: case 0xc2: case 0xc3: return 'o';
    case 0xca: n = 4; goto skip;
    case 0xcb: n = 8; goto skip;
    case 0xc4: case 0xd9: n = 1; goto str;
    case 0xc5: case 0xda: n = 2; goto str;
    case 0xc6: case 0xdb: n = 4; goto str;
    case 0xcc: n = 1; goto uint;
    case 0xcd: n = 2; goto uint;
    case 0xce: n = 4; goto uint;
    case 0xcf: n = 8; goto uint;
    case 0xd0: n = 1; goto sint;
    case 0xd1: n = 2; goto sint;
    case 0xd2: n = 4; goto sint;
    case 0xd3: n = 8; goto sint;
    case 0xdc: n = 2; goto arr;
    case 0xdd: n = 4; goto arr;
    case 0xde: n = 2; goto map;
    case 0xdf: n = 4; goto map;
    default: m->bad = 1; return 0;
    }
skip:
    if (!need(m, (size_t)n)) return 0;
    m->p += n;
    return 'o';
str:
    if (!need(m, (size_t)n)) return 0;
    *len = be(m->p, n);
    m->p += n;
    return 's';
uint:
    if (!need(m, (size_t)n)) return 0;
    *ival = (int64_t)be(m->p, n);
    m->p += n;
    return 'i';
sint:
    if (!need(m, (size_t)n)) return 0;
    {
        uint64_t v = be(m->p, n);
        int sh = 64 - 8 * n;
        *ival = sh ? (int64_t)(v << sh) >> sh : (int64_t)v;
    }
    m->p += n;
    return 'i';
arr:
    if (!need(m, (size_t)n)) return 0;
    *len = be(m->p, n);
    m->p += n;
    return 'a';
map:
    if (!need(m, (size_t)n)) return 0;
    *len = be(m->p, n);
    m->p += n;
    return 'm';
}

static void mp_skip(mp *m, int depth)
{
    uint64_t len;
    int64_t iv;
    int t = mp_head(m, &len, &iv);
    if (depth > 32)
        m->bad = 1;
    if (m->bad)
        return;
    if (t == 's') {
        if (need(m, len))
            m->p += len;
    } else if (t == 'a' || t == 'm') {
        uint64_t items = t == 'm' ? 2 * len : len;
        for (uint64_t i = 0; i < items && !m->bad; i++)
            mp_skip(m, depth + 1);
    }
}

/* a string into buf (truncated); returns 0 if the next value is not a string */
static int mp_str(mp *m, char *buf, size_t bl)
{
    uint64_t len;
    int64_t iv;
    const uint8_t *save = m->p;
    if (mp_head(m, &len, &iv) != 's' || !need(m, len)) {
        m->p = save;
        return 0;
    }
    size_t c = len < bl - 1 ? (size_t)len : bl - 1;
    memcpy(buf, m->p, c);
    buf[c] = 0;
    m->p += len;
    return 1;
}

static uint32_t mp_u32(mp *m)
{
    uint64_t len;
    int64_t iv;
    const uint8_t *save = m->p;
    int t = mp_head(m, &len, &iv);
    if (t == 'i')
        return iv < 0 ? 0 : iv > 0xffffffffll ? 0xffffffffu : (uint32_t)iv;
    m->p = save;
    mp_skip(m, 0);
    return 0;
}

static int mp_bool(mp *m)
{
    if (need(m, 1) && (*m->p == 0xc3 || *m->p == 0xc2)) {
        return *m->p++ == 0xc3;
    }
    mp_skip(m, 0);
    return 0;
}

static void read_arg(mp *m, amd_arg *a)
{
    uint64_t n;
    int64_t iv;
    memset(a, 0, sizeof *a);
    if (mp_head(m, &n, &iv) != 'm') {
        m->bad = 1;
        return;
    }
    for (uint64_t i = 0; i < n && !m->bad; i++) {
        char key[40];
        if (!mp_str(m, key, sizeof key)) { m->bad = 1; return; }
        if (!strcmp(key, ".offset")) a->offset = mp_u32(m);
        else if (!strcmp(key, ".size")) a->size = mp_u32(m);
        else if (!strcmp(key, ".value_kind")) { if (!mp_str(m, a->kind, sizeof a->kind)) mp_skip(m, 0); }
        else if (!strcmp(key, ".name")) { if (!mp_str(m, a->name, sizeof a->name)) mp_skip(m, 0); }
        else mp_skip(m, 0);
    }
}

static void read_kernel(mp *m, amd_kernel *k)
{
    uint64_t n;
    int64_t iv;
    memset(k, 0, sizeof *k);
    if (mp_head(m, &n, &iv) != 'm') {
        m->bad = 1;
        return;
    }
    for (uint64_t i = 0; i < n && !m->bad; i++) {
        char key[48];
        if (!mp_str(m, key, sizeof key)) { m->bad = 1; return; }
        if (!strcmp(key, ".name")) { if (!mp_str(m, k->name, sizeof k->name)) mp_skip(m, 0); }
        else if (!strcmp(key, ".symbol")) { if (!mp_str(m, k->symbol, sizeof k->symbol)) mp_skip(m, 0); }
        else if (!strcmp(key, ".kernarg_segment_size")) k->kernarg_size = mp_u32(m);
        else if (!strcmp(key, ".kernarg_segment_align")) k->kernarg_align = mp_u32(m);
        else if (!strcmp(key, ".group_segment_fixed_size")) k->group_fixed = mp_u32(m);
        else if (!strcmp(key, ".private_segment_fixed_size")) k->private_fixed = mp_u32(m);
        else if (!strcmp(key, ".max_flat_workgroup_size")) k->max_flat_wg = mp_u32(m);
        else if (!strcmp(key, ".wavefront_size")) k->wavefront_size = mp_u32(m);
        else if (!strcmp(key, ".sgpr_count")) k->sgpr_count = mp_u32(m);
        else if (!strcmp(key, ".vgpr_count")) k->vgpr_count = mp_u32(m);
        else if (!strcmp(key, ".uses_dynamic_stack")) k->dynamic_stack = mp_bool(m);
        else if (!strcmp(key, ".args")) {
            uint64_t na;
            if (mp_head(m, &na, &iv) != 'a' || na > 4096) { m->bad = 1; return; }
            k->args = calloc(na ? na : 1, sizeof *k->args);
            if (!k->args) { m->bad = 1; return; }
            k->nargs = (unsigned)na;
            for (uint64_t j = 0; j < na && !m->bad; j++)
                read_arg(m, &k->args[j]);
        } else
            mp_skip(m, 0);
    }
}

static int parse_meta(const uint8_t *p, size_t n, amd_meta *out)
{
    mp m = {p, p + n, 0};
    uint64_t cnt;
    int64_t iv;
    if (mp_head(&m, &cnt, &iv) != 'm')
        return -1;
    for (uint64_t i = 0; i < cnt && !m.bad; i++) {
        char key[40];
        if (!mp_str(&m, key, sizeof key))
            return -1;
        if (!strcmp(key, "amdhsa.target")) {
            if (!mp_str(&m, out->target, sizeof out->target)) mp_skip(&m, 0);
        } else if (!strcmp(key, "amdhsa.kernels")) {
            uint64_t nk;
            if (mp_head(&m, &nk, &iv) != 'a' || nk > 100000)
                return -1;
            out->k = calloc(nk ? nk : 1, sizeof *out->k);
            if (!out->k)
                return -1;
            out->nkernels = (unsigned)nk;
            for (uint64_t j = 0; j < nk && !m.bad; j++)
                read_kernel(&m, &out->k[j]);
        } else
            mp_skip(&m, 0);
    }
    return m.bad ? -1 : 0;
}

int amd_read_meta(const void *elf, size_t n, amd_meta *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    Elf64_Ehdr eh;
    if (!elf_header(elf, n, &eh)) {
        snprintf(err, err_len, "not an AMDGPU HSA code object");
        return -1;
    }
    const uint8_t *b = elf;
    if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > n || (n - eh.e_phoff) / sizeof(Elf64_Phdr) < eh.e_phnum) {
        snprintf(err, err_len, "malformed program headers");
        return -1;
    }
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, b + eh.e_phoff + (size_t)i * sizeof ph, sizeof ph);
        if (ph.p_type != PT_NOTE || ph.p_offset > n || ph.p_filesz > n - ph.p_offset)
            continue;
        const uint8_t *p = b + ph.p_offset, *end = p + ph.p_filesz;
        while ((size_t)(end - p) >= 12) {
            uint32_t nsz, dsz, type;
            memcpy(&nsz, p, 4);
            memcpy(&dsz, p + 4, 4);
            memcpy(&type, p + 8, 4);
            size_t na = ((size_t)nsz + 3) & ~(size_t)3, da = ((size_t)dsz + 3) & ~(size_t)3;
            if (na > (size_t)(end - p) - 12 || dsz > (size_t)(end - p) - 12 - na)
                break;
            const uint8_t *name = p + 12, *desc = p + 12 + na;
            if (type == NT_AMDGPU_METADATA_ && nsz == 7 && memcmp(name, "AMDGPU", 7) == 0) {
                if (parse_meta(desc, dsz, out) != 0) {
                    amd_meta_free(out);
                    snprintf(err, err_len, "malformed NT_AMDGPU_METADATA note");
                    return -1;
                }
                return 0;
            }
            if (da > (size_t)(end - p) - 12 - na)
                break;
            p += 12 + na + da;
        }
    }
    snprintf(err, err_len, "no NT_AMDGPU_METADATA note (not a code object v3+)");
    return -1;
}

void amd_meta_free(amd_meta *m)
{
    for (unsigned i = 0; i < m->nkernels; i++)
        free(m->k[i].args);
    free(m->k);
    m->k = NULL;
    m->nkernels = 0;
}

const amd_kernel *amd_meta_kernel(const amd_meta *m, const char *name)
{
    for (unsigned i = 0; i < m->nkernels; i++)
        if (strcmp(m->k[i].name, name) == 0)
            return &m->k[i];
    return NULL;
}

/* section i's header, bounds-checked */
static int section(const uint8_t *b, size_t n, const Elf64_Ehdr *eh, unsigned i, Elf64_Shdr *sh)
{
    if (eh->e_shentsize != sizeof *sh || i >= eh->e_shnum || eh->e_shoff > n || n - eh->e_shoff < sizeof *sh ||
        (uint64_t)i * sizeof *sh > n - eh->e_shoff - sizeof *sh)
        return 0;
    memcpy(sh, b + eh->e_shoff + (uint64_t)i * sizeof *sh, sizeof *sh);
    return sh->sh_type == SHT_NOBITS || (sh->sh_offset <= n && sh->sh_size <= n - sh->sh_offset);
}

/* the dynamic symbol `name` (our constants and the error record are exported there) */
static int dynsym(const uint8_t *b, size_t n, const Elf64_Ehdr *eh, const char *name, Elf64_Sym *out)
{
    size_t len = strlen(name);
    for (unsigned s = 0; s < eh->e_shnum; s++) {
        Elf64_Shdr sym, str;
        if (!section(b, n, eh, s, &sym) || sym.sh_type != SHT_DYNSYM || sym.sh_entsize != sizeof(Elf64_Sym) ||
            !section(b, n, eh, sym.sh_link, &str) || str.sh_type != SHT_STRTAB)
            continue;
        for (uint64_t k = 0; k < sym.sh_size / sizeof(Elf64_Sym); k++) {
            memcpy(out, b + sym.sh_offset + k * sizeof *out, sizeof *out);
            if (out->st_name < str.sh_size && len < str.sh_size - out->st_name &&
                memcmp(b + str.sh_offset + out->st_name, name, len + 1) == 0)
                return 1;
        }
    }
    return 0;
}

/* len bytes at virtual address vaddr, from the section holding them in the file */
static int read_at(const uint8_t *b, size_t n, const Elf64_Ehdr *eh, uint64_t vaddr, void *dst, size_t len)
{
    for (unsigned s = 0; s < eh->e_shnum; s++) {
        Elf64_Shdr sh;
        if (!section(b, n, eh, s, &sh) || sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_ALLOC) ||
            vaddr < sh.sh_addr || vaddr - sh.sh_addr > sh.sh_size || len > sh.sh_size - (vaddr - sh.sh_addr))
            continue;
        memcpy(dst, b + sh.sh_offset + (vaddr - sh.sh_addr), len);
        return 1;
    }
    return 0;
}

int amd_read_kinfo(const void *elf, size_t n, const char *kernel, uint32_t out[P2N_AMD_KINFO_WORDS])
{
    Elf64_Ehdr eh;
    if (!elf_header(elf, n, &eh) || !kernel)
        return 0;
    char want[300];
    size_t len = (size_t)snprintf(want, sizeof want, "%s%s", P2N_AMD_KINFO_PREFIX, kernel);
    Elf64_Sym y;
    if (len >= sizeof want || !dynsym(elf, n, &eh, want, &y) || y.st_size < P2N_AMD_KINFO_WORDS * 4)
        return 0;
    return read_at(elf, n, &eh, y.st_value, out, P2N_AMD_KINFO_WORDS * 4);
}

int amd_symbol_address(const void *elf, size_t n, const char *name, uint64_t *vaddr, uint64_t *size)
{
    Elf64_Ehdr eh;
    Elf64_Sym y;
    if (!elf_header(elf, n, &eh) || !dynsym(elf, n, &eh, name, &y) || y.st_shndx == SHN_UNDEF)
        return 0;
    *vaddr = y.st_value;
    *size = y.st_size;
    return 1;
}

int amd_read_vaddr(const void *elf, size_t n, uint64_t vaddr, void *dst, size_t len)
{
    Elf64_Ehdr eh;
    return elf_header(elf, n, &eh) && read_at(elf, n, &eh, vaddr, dst, len);
}
