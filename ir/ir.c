/* ir.c — module construction, the arena, string interning and the static tables. */
#include "ir.h"

#include <pthread.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- tables */

#define T IR_OPF_TERMINATOR
#define B IR_OPF_BRANCH
#define C IR_OPF_CALL
#define N IR_OPF_NORETURN
const ir_opcode_info ir_opcodes[IR_OP_COUNT] = {
    [IR_OP_NONE] = {"<none>", 0, 0, 0},
#define X(id, str, lo, hi, fl) [IR_OP_##id] = {str, lo, hi, fl},
#include "opcodes.def"
#undef X
    [IR_OP_DECL_REG] = {".reg", 1, 1, 0},
    [IR_OP_DECL_VAR] = {"<decl>", 1, 1, 0},
    [IR_OP_SCOPE_BEGIN] = {"{", 0, 0, 0},
    [IR_OP_SCOPE_END] = {"}", 0, 0, 0},
    [IR_OP_LOC] = {".loc", 3, 3, 0},
    [IR_OP_PRAGMA] = {".pragma", 1, 1, 0},
    [IR_OP_BRANCHTARGETS] = {".branchtargets", 1, 255, 0},
    [IR_OP_CALLTARGETS] = {".calltargets", 1, 255, 0},
    [IR_OP_CALLPROTOTYPE] = {".callprototype", 2, 2, 0},
};
#undef T
#undef B
#undef C
#undef N

const char *const ir_type_names[IR_T_COUNT] = {
    [IR_T_NONE] = "",
#define X(id, str, bits) [IR_T_##id] = str,
#include "types.def"
#undef X
};
const uint16_t ir_type_bits[IR_T_COUNT] = {
#define X(id, str, bits) [IR_T_##id] = bits,
#include "types.def"
#undef X
};
const char *const ir_space_names[IR_S_COUNT] = {
    [IR_S_NONE] = "",
#define X(id, str, base) [IR_S_##id] = str,
#include "spaces.def"
#undef X
};
const ir_space ir_space_base[IR_S_COUNT] = {
#define X(id, str, base) [IR_S_##id] = IR_S_##base,
#include "spaces.def"
#undef X
};
const char *const ir_mod_names[IR_M_COUNT] = {
    [IR_M_NONE] = "",
#define X(id, str) [IR_M_##id] = str,
#include "modifiers.def"
#undef X
};

const char *const ir_sreg_names[IR_SR_COUNT] = {
    [IR_SR_NONE] = "",
    [IR_SR_TID] = "%tid", [IR_SR_NTID] = "%ntid", [IR_SR_CTAID] = "%ctaid", [IR_SR_NCTAID] = "%nctaid",
    [IR_SR_LANEID] = "%laneid", [IR_SR_WARPID] = "%warpid", [IR_SR_NWARPID] = "%nwarpid",
    [IR_SR_SMID] = "%smid", [IR_SR_NSMID] = "%nsmid", [IR_SR_GRIDID] = "%gridid",
    [IR_SR_LANEMASK_EQ] = "%lanemask_eq", [IR_SR_LANEMASK_LE] = "%lanemask_le",
    [IR_SR_LANEMASK_LT] = "%lanemask_lt", [IR_SR_LANEMASK_GE] = "%lanemask_ge",
    [IR_SR_LANEMASK_GT] = "%lanemask_gt", [IR_SR_CLOCK] = "%clock", [IR_SR_CLOCK_HI] = "%clock_hi",
    [IR_SR_CLOCK64] = "%clock64", [IR_SR_GLOBALTIMER] = "%globaltimer",
    [IR_SR_GLOBALTIMER_LO] = "%globaltimer_lo", [IR_SR_GLOBALTIMER_HI] = "%globaltimer_hi",
    [IR_SR_DYNAMIC_SMEM_SIZE] = "%dynamic_smem_size", [IR_SR_TOTAL_SMEM_SIZE] = "%total_smem_size",
    [IR_SR_AGGR_SMEM_SIZE] = "%aggr_smem_size", [IR_SR_CLUSTERID] = "%clusterid",
    [IR_SR_NCLUSTERID] = "%nclusterid", [IR_SR_CLUSTER_CTAID] = "%cluster_ctaid",
    [IR_SR_CLUSTER_NCTAID] = "%cluster_nctaid", [IR_SR_CLUSTER_CTARANK] = "%cluster_ctarank",
    [IR_SR_CLUSTER_NCTARANK] = "%cluster_nctarank", [IR_SR_IS_EXPLICIT_CLUSTER] = "%is_explicit_cluster",
    [IR_SR_RESERVED_SMEM_OFFSET_BEGIN] = "%reserved_smem_offset_begin",
    [IR_SR_RESERVED_SMEM_OFFSET_END] = "%reserved_smem_offset_end",
    [IR_SR_RESERVED_SMEM_OFFSET_CAP] = "%reserved_smem_offset_cap",
    [IR_SR_RESERVED_SMEM_OFFSET_0] = "%reserved_smem_offset_0",
    [IR_SR_RESERVED_SMEM_OFFSET_1] = "%reserved_smem_offset_1",
    [IR_SR_CURRENT_GRAPH_EXEC] = "%current_graph_exec",
    [IR_SR_ENVREG] = "%envreg", [IR_SR_PM] = "%pm",
};

/* ---------------------------------------------------------------- static hash tables (built once) */

/* One table maps every dotted word (types, spaces, modifiers) to its kind and id; another maps opcode
 * spellings and their proper prefixes ("cp", "cp.async", ...) so the parser can match the longest opcode. */
typedef struct word_slot { const char *s; uint16_t len; uint16_t id; uint8_t kind; uint8_t used; } word_slot;
#define WORD_TABLE_SIZE 2048u
#define OP_TABLE_SIZE 1024u
static word_slot word_table[WORD_TABLE_SIZE];
static word_slot op_table[OP_TABLE_SIZE]; /* kind: bit 0 = an opcode (id), bit 1 = prefix of a longer one */
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static uint32_t hash_bytes(const char *s, size_t len) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

static word_slot *slot_find(word_slot *tab, uint32_t size, const char *s, size_t len) {
    uint32_t i = hash_bytes(s, len) & (size - 1);
    while (tab[i].used) {
        if (tab[i].len == len && memcmp(tab[i].s, s, len) == 0) return &tab[i];
        i = (i + 1) & (size - 1);
    }
    return &tab[i];
}

static void slot_put(word_slot *tab, uint32_t size, const char *s, size_t len, uint8_t kind, uint16_t id) {
    word_slot *w = slot_find(tab, size, s, len);
    if (w->used) {
        if (tab == op_table) { /* an opcode can also be the prefix of a longer one ("cp.async") */
            w->kind |= kind;
            if (kind == 1) w->id = id;
        } /* in the word table the first meaning wins: "texref" is a type before it is a txq modifier */
        return;
    }
    *w = (word_slot){s, (uint16_t)len, id, kind, 1};
}

static void build_tables(void) {
    /* word_table kinds are ir_word_kind values; op_table kinds are the bit flags above */
    for (unsigned t = 1; t < IR_T_COUNT; t++)
        slot_put(word_table, WORD_TABLE_SIZE, ir_type_names[t], strlen(ir_type_names[t]), IR_W_TYPE, (uint16_t)t);
    for (unsigned s = 1; s < IR_S_COUNT; s++)
        slot_put(word_table, WORD_TABLE_SIZE, ir_space_names[s], strlen(ir_space_names[s]), IR_W_SPACE, (uint16_t)s);
    for (unsigned md = 1; md < IR_M_COUNT; md++)
        slot_put(word_table, WORD_TABLE_SIZE, ir_mod_names[md], strlen(ir_mod_names[md]), IR_W_MOD, (uint16_t)md);
    for (unsigned op = 1; op < IR_OP_FIRST_PSEUDO; op++) {
        const char *name = ir_opcodes[op].name;
        size_t len = strlen(name);
        slot_put(op_table, OP_TABLE_SIZE, name, len, 1, (uint16_t)op);
        for (size_t i = 0; i < len; i++)
            if (name[i] == '.') slot_put(op_table, OP_TABLE_SIZE, name, i, 2, 0);
    }
}

bool ir_lookup_word(const char *s, size_t len, ir_word_info *out) {
    pthread_once(&tables_once, build_tables);
    word_slot *w = slot_find(word_table, WORD_TABLE_SIZE, s, len);
    if (!w->used) return false;
    out->kind = (ir_word_kind)w->kind;
    out->id = w->id;
    return true;
}

ir_opcode ir_lookup_opcode(const char *s, size_t len) {
    pthread_once(&tables_once, build_tables);
    word_slot *w = slot_find(op_table, OP_TABLE_SIZE, s, len);
    return (w->used && (w->kind & 1)) ? (ir_opcode)w->id : IR_OP_NONE;
}

bool ir_is_opcode_prefix(const char *s, size_t len) {
    pthread_once(&tables_once, build_tables);
    word_slot *w = slot_find(op_table, OP_TABLE_SIZE, s, len);
    return w->used && (w->kind & 2);
}

ir_sreg ir_lookup_sreg(const char *s, size_t len, uint16_t *index) {
    *index = 0;
    for (unsigned i = 1; i < IR_SR_COUNT; i++) {
        if (i == IR_SR_ENVREG || i == IR_SR_PM) continue;
        if (strlen(ir_sreg_names[i]) == len && memcmp(ir_sreg_names[i], s, len) == 0) return (ir_sreg)i;
    }
    /* %envreg0..31, %pm0..7 and %pm0_64..%pm7_64 carry an index. */
    if (len > 7 && memcmp(s, "%envreg", 7) == 0) {
        unsigned v = 0;
        for (size_t i = 7; i < len; i++) {
            if (s[i] < '0' || s[i] > '9') return IR_SR_NONE;
            v = v * 10 + (unsigned)(s[i] - '0');
        }
        if (v > 31 || len > 9) return IR_SR_NONE;
        *index = (uint16_t)v;
        return IR_SR_ENVREG;
    }
    if (len >= 4 && memcmp(s, "%pm", 3) == 0 && s[3] >= '0' && s[3] <= '7') {
        if (len == 4) { *index = (uint16_t)(s[3] - '0'); return IR_SR_PM; }
        if (len == 7 && memcmp(s + 4, "_64", 3) == 0) { *index = (uint16_t)(8 + s[3] - '0'); return IR_SR_PM; }
    }
    return IR_SR_NONE;
}

/* ---------------------------------------------------------------- arena */

/* Chunks grow geometrically (a small module stays small) and come straight from mmap with transparent huge
 * pages requested: a 50 MB module touches a few hundred MB, and 4 KB page faults would dominate parsing. */
struct ir_arena {
    struct ir_arena *next;
    size_t used, cap, mapped;
    max_align_t data[];
};

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) { fputs("ptx2native: out of memory\n", stderr); abort(); }
    return p;
}
static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) { fputs("ptx2native: out of memory\n", stderr); abort(); }
    return q;
}

/* Grows a vector of `elem`-byte items held in (*ptr, *cap) so it can hold `need` items. */
static void grow(void **ptr, uint32_t *cap, uint32_t need, size_t elem) {
    if (need <= *cap) return;
    uint32_t c = *cap ? *cap : 8;
    while (c < need) c *= 2;
    *ptr = xrealloc(*ptr, (size_t)c * elem);
    memset((char *)*ptr + (size_t)*cap * elem, 0, (size_t)(c - *cap) * elem);
    *cap = c;
}

void *ir_alloc(ir_module *m, size_t bytes) {
    bytes = (bytes + 7) & ~(size_t)7;
    ir_arena *a = m->arena;
    if (!a || a->used + bytes > a->cap) {
        size_t chunk = a ? a->mapped * 2 : (256u << 10);
        if (chunk > (32u << 20)) chunk = 32u << 20;
        while (chunk < bytes + sizeof(ir_arena)) chunk *= 2;
        void *mem = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem == MAP_FAILED) { fputs("ptx2native: out of memory\n", stderr); abort(); }
        if (chunk >= (2u << 20)) madvise(mem, chunk, MADV_HUGEPAGE);
        ir_arena *na = mem;
        na->next = a;
        na->used = 0;
        na->mapped = chunk;
        na->cap = chunk - sizeof(ir_arena);
        m->arena = a = na;
    }
    void *p = (char *)a->data + a->used;
    a->used += bytes;
    return p; /* fresh anonymous memory is already zero */
}

ir_operand *ir_alloc_operands(ir_module *m, unsigned n) { return ir_alloc(m, sizeof(ir_operand) * (n ? n : 1)); }

/* ---------------------------------------------------------------- module */

ir_module *ir_module_new(void) {
    ir_module *m = xmalloc(sizeof *m);
    memset(m, 0, sizeof *m);
    m->address_size = 64;
    m->hash_cap = 1u << 12;
    m->hash_slots = calloc(m->hash_cap, sizeof(uint32_t));
    if (!m->hash_slots) { fputs("ptx2native: out of memory\n", stderr); abort(); }
    ir_intern(m, "", 0); /* string id 0 is the empty string */
    return m;
}

void ir_module_free(ir_module *m) {
    if (!m) return;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        ir_func *f = &m->funcs[i];
        for (uint32_t b = 0; b < f->nblocks; b++) free(f->blocks[b].ins);
        free(f->blocks);
        free(f->regs);
        free(f->regdecls);
        free(f->labels);
        free(f->protos);
    }
    free(m->funcs);
    free(m->vars);
    free(m->items);
    free(m->aliases);
    free(m->files);
    free(m->strings);
    free(m->string_lens);
    free(m->hash_slots);
    for (ir_arena *a = m->arena, *n; a; a = n) {
        n = a->next;
        munmap(a, a->mapped);
    }
    free(m);
}

static void rehash(ir_module *m) {
    uint32_t cap = m->hash_cap * 2;
    uint32_t *slots = calloc(cap, sizeof(uint32_t));
    if (!slots) { fputs("ptx2native: out of memory\n", stderr); abort(); }
    for (uint32_t id = 0; id < m->nstrings; id++) {
        uint32_t i = hash_bytes(m->strings[id], m->string_lens[id]) & (cap - 1);
        while (slots[i]) i = (i + 1) & (cap - 1);
        slots[i] = id + 1;
    }
    free(m->hash_slots);
    m->hash_slots = slots;
    m->hash_cap = cap;
}

uint32_t ir_lookup_string(const ir_module *m, const char *s, size_t len) {
    uint32_t i = hash_bytes(s, len) & (m->hash_cap - 1);
    while (m->hash_slots[i]) {
        uint32_t id = m->hash_slots[i] - 1;
        if (m->string_lens[id] == len && memcmp(m->strings[id], s, len) == 0) return id;
        i = (i + 1) & (m->hash_cap - 1);
    }
    return UINT32_MAX;
}

uint32_t ir_intern(ir_module *m, const char *s, size_t len) {
    uint32_t i = hash_bytes(s, len) & (m->hash_cap - 1);
    while (m->hash_slots[i]) {
        uint32_t id = m->hash_slots[i] - 1;
        if (m->string_lens[id] == len && memcmp(m->strings[id], s, len) == 0) return id;
        i = (i + 1) & (m->hash_cap - 1);
    }
    if (m->nstrings + 1 >= m->cap_strings) {
        uint32_t c = m->cap_strings ? m->cap_strings * 2 : 256;
        m->strings = xrealloc(m->strings, c * sizeof *m->strings);
        m->string_lens = xrealloc(m->string_lens, c * sizeof *m->string_lens);
        m->cap_strings = c;
    }
    char *copy = ir_alloc(m, len + 1);
    memcpy(copy, s, len);
    uint32_t id = m->nstrings++;
    m->strings[id] = copy;
    m->string_lens[id] = (uint32_t)len;
    m->hash_slots[i] = id + 1;
    if (m->nstrings * 2 > m->hash_cap) rehash(m);
    return id;
}

uint32_t ir_add_item(ir_module *m, ir_item_kind kind, uint32_t id) {
    grow((void **)&m->items, &m->cap_items, m->nitems + 1, sizeof *m->items);
    m->items[m->nitems] = (ir_item){.kind = (uint8_t)kind, .id = id};
    return m->nitems++;
}

uint32_t ir_add_var(ir_module *m, const ir_var *v) {
    grow((void **)&m->vars, &m->cap_vars, m->nvars + 1, sizeof *m->vars);
    m->vars[m->nvars] = *v;
    return m->nvars++;
}

uint32_t ir_add_func(ir_module *m, uint32_t name) {
    grow((void **)&m->funcs, &m->cap_funcs, m->nfuncs + 1, sizeof *m->funcs);
    ir_func *f = &m->funcs[m->nfuncs];
    memset(f, 0, sizeof *f);
    f->name = name;
    return m->nfuncs++;
}

ir_block *ir_add_block(ir_func *f, uint32_t label_plus1) {
    grow((void **)&f->blocks, &f->cap_blocks, f->nblocks + 1, sizeof *f->blocks);
    ir_block *b = &f->blocks[f->nblocks++];
    memset(b, 0, sizeof *b);
    b->label = label_plus1;
    return b;
}

ir_ins *ir_block_append(ir_block *b, const ir_ins *ins) {
    grow((void **)&b->ins, &b->cap, b->n + 1, sizeof *b->ins);
    b->ins[b->n] = *ins;
    return &b->ins[b->n++];
}

uint32_t ir_add_regdecl(ir_func *f, const ir_regdecl *d) {
    grow((void **)&f->regdecls, &f->cap_regdecls, f->nregdecls + 1, sizeof *f->regdecls);
    uint32_t idx = f->nregdecls++;
    ir_regdecl *rd = &f->regdecls[idx];
    *rd = *d;
    rd->first_reg = f->nregs;
    uint32_t n = (d->count ? d->count : 1) * (d->vec ? d->vec : 1); /* a vector register: one per component */
    grow((void **)&f->regs, &f->cap_regs, f->nregs + n, sizeof *f->regs);
    for (uint32_t i = 0; i < n; i++) f->regs[f->nregs + i] = (ir_reg){idx, i};
    f->nregs += n;
    return idx;
}

uint32_t ir_add_label(ir_func *f, uint32_t name, uint32_t line, uint32_t col) {
    grow((void **)&f->labels, &f->cap_labels, f->nlabels + 1, sizeof *f->labels);
    f->labels[f->nlabels] = (ir_label){.name = name, .line = line, .col = col};
    return f->nlabels++;
}

int32_t ir_label_block(const ir_func *f, uint32_t label) {
    for (uint32_t b = 0; b < f->nblocks; b++)
        if (f->blocks[b].label == label + 1) return (int32_t)b;
    return -1;
}

int ir_reg_name(const ir_module *m, const ir_func *f, uint32_t reg, char *buf, size_t n) {
    if (reg >= f->nregs) return snprintf(buf, n, "%%<bad-reg-%u>", reg);
    const ir_reg *r = &f->regs[reg];
    const ir_regdecl *d = &f->regdecls[r->decl];
    if (d->vec) { /* a component of a vector register: %v.y, %v3.w */
        const char comp = "xyzw"[r->index % d->vec & 3];
        if (d->count) return snprintf(buf, n, "%s%u.%c", ir_str(m, d->name), r->index / d->vec, comp);
        return snprintf(buf, n, "%s.%c", ir_str(m, d->name), comp);
    }
    if (d->count) return snprintf(buf, n, "%s%u", ir_str(m, d->name), r->index);
    return snprintf(buf, n, "%s", ir_str(m, d->name));
}

ir_type ir_reg_type(const ir_func *f, uint32_t reg) {
    if (reg >= f->nregs) return IR_T_NONE;
    return (ir_type)f->regdecls[f->regs[reg].decl].type;
}

/* ---------------------------------------------------------------- instruction queries */

bool ir_is_runtime_extern(const char *n) {
    return !strcmp(n, "vprintf") || !strcmp(n, "__assertfail") || !strcmp(n, "malloc") || !strcmp(n, "free") ||
           !strcmp(n, "cudaGraphSetConditional");
}

bool ir_is_device_runtime(const char *n) {
    /* cnp*: what the device runtime library's own PTX (libcudadevrt, linked into -rdc programs) calls */
    return !strncmp(n, "__cuda_syscall_", 15) || !strncmp(n, "__cudaCDP2", 10) || !strncmp(n, "cudaLaunchDevice", 16) ||
           !strncmp(n, "cudaGetParameterBuffer", 22) || !strncmp(n, "cnp", 3);
}

bool ir_ins_has(const ir_ins *ins, ir_mod mod) {
    uint16_t w = IR_WORD(IR_W_MOD, mod);
    for (unsigned i = 0; i < ins->nwords; i++)
        if (ins->words[i] == w) return true;
    return false;
}

ir_type ir_ins_type(const ir_ins *ins, unsigned k) {
    for (unsigned i = 0; i < ins->nwords; i++)
        if (IR_WORD_KIND(ins->words[i]) == IR_W_TYPE && k-- == 0) return (ir_type)IR_WORD_ID(ins->words[i]);
    return IR_T_NONE;
}

unsigned ir_ins_ntypes(const ir_ins *ins) {
    unsigned n = 0;
    for (unsigned i = 0; i < ins->nwords; i++) n += IR_WORD_KIND(ins->words[i]) == IR_W_TYPE;
    return n;
}

ir_space ir_ins_space(const ir_ins *ins) {
    for (unsigned i = 0; i < ins->nwords; i++)
        if (IR_WORD_KIND(ins->words[i]) == IR_W_SPACE) return (ir_space)IR_WORD_ID(ins->words[i]);
    return IR_S_NONE;
}

int ir_word_format(const ir_ins *ins, unsigned k, char *buf, size_t n) {
    uint16_t w = ins->words[k];
    switch (IR_WORD_KIND(w)) {
    case IR_W_TYPE: return snprintf(buf, n, ".%s", ir_type_names[IR_WORD_ID(w)]);
    case IR_W_SPACE: return snprintf(buf, n, ".%s", ir_space_names[IR_WORD_ID(w)]);
    case IR_W_MOD: return snprintf(buf, n, ".%s", ir_mod_names[IR_WORD_ID(w)]);
    case IR_W_SHAPE: {
        unsigned mm = ins->shape & 1023u, nn = (ins->shape >> 10) & 1023u, kk = (ins->shape >> 20) & 1023u;
        if (kk) return snprintf(buf, n, ".m%un%uk%u", mm, nn, kk);
        return snprintf(buf, n, ".m%un%u", mm, nn);
    }
    }
    return 0;
}

/* ---------------------------------------------------------------- video selectors */

int64_t ir_sel_pack(const char *s, size_t len, bool *ok) {
    *ok = false;
    if (len < 1 || len > 5) return 0;
    char c = s[0];
    if (!strchr("bhxyzwrga", c)) return 0;
    size_t nd = len - 1;
    if ((c == 'b' || c == 'h') ? nd == 0 : nd != 0) return 0;
    int64_t v = (uint8_t)c | (int64_t)nd << 8;
    for (size_t i = 0; i < nd; i++) {
        if (s[1 + i] < '0' || s[1 + i] > '7') return 0;
        v |= (int64_t)(s[1 + i] - '0') << (11 + 3 * i);
    }
    *ok = true;
    return v;
}

int ir_sel_format(int64_t sel, char *buf, size_t n) {
    char tmp[8];
    unsigned nd = (unsigned)(sel >> 8) & 7u;
    tmp[0] = (char)(sel & 0xff);
    for (unsigned i = 0; i < nd && i < 4; i++) tmp[1 + i] = (char)('0' + ((sel >> (11 + 3 * i)) & 7));
    tmp[1 + (nd < 4 ? nd : 4)] = 0;
    return snprintf(buf, n, ".%s", tmp);
}
