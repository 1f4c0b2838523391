/* ir.h — the ptx2native intermediate representation, in one header.
 *
 * The IR stays close to PTX on purpose: every PTX module has an exact IR form, and the printer writes the IR
 * back as PTX text that the front end reads again (`--emit=ir`, round-trip tests). Passes then rewrite it
 * towards what the LLVM emitter wants (explicit conversions, no vector operands, lowered special registers).
 *
 * Shape:  module ─ items (in source order) ─ variables, functions, aliases, pragmas, files
 *         function ─ basic blocks ─ instructions ─ operands
 *         registers, labels: per function;  variables: per module (function-local ones name their owner)
 *
 * Memory: everything hangs off the module's arena; freeing the module frees all of it. Per-function arrays
 * that passes rewrite (blocks, instructions) are heap vectors so a pass can rebuild them.
 *
 * An instruction keeps the dotted words that followed its opcode (types, state spaces, modifiers) in source
 * order: printing reproduces the text, and ir_ins_has()/ir_ins_type() answer the questions passes ask,
 * whatever the order the author wrote them in.
 */
#ifndef P2N_IR_H
#define P2N_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- enumerations from the .def tables */

typedef enum ir_type {
    IR_T_NONE = 0,
#define X(id, str, bits) IR_T_##id,
#include "types.def"
#undef X
    IR_T_COUNT
} ir_type;

typedef enum ir_space {
    IR_S_NONE = 0,
#define X(id, str, base) IR_S_##id,
#include "spaces.def"
#undef X
    IR_S_COUNT
} ir_space;

typedef enum ir_mod {
    IR_M_NONE = 0,
#define X(id, str) IR_M_##id,
#include "modifiers.def"
#undef X
    IR_M_COUNT
} ir_mod;

#define T 0x1u /* ends a basic block */
#define B 0x2u /* has label operands */
#define C 0x4u /* call */
#define N 0x8u /* never falls through (when unguarded) */
typedef enum ir_opcode {
    IR_OP_NONE = 0,
#define X(id, str, lo, hi, fl) IR_OP_##id,
#include "opcodes.def"
#undef X
    IR_OP_FIRST_PSEUDO,
    /* Pseudo-instructions: keep declarations, scopes and debug directives in place inside bodies. */
    IR_OP_DECL_REG = IR_OP_FIRST_PSEUDO, /* ops[0].id = register declaration index */
    IR_OP_DECL_VAR,                     /* ops[0].id = variable id (function-local .local/.shared/.param...) */
    IR_OP_SCOPE_BEGIN,                  /* `{` */
    IR_OP_SCOPE_END,                    /* `}` */
    IR_OP_LOC,                          /* .loc file line col: ops are three immediates */
    IR_OP_PRAGMA,                       /* .pragma "...": ops[0].id = string */
    IR_OP_BRANCHTARGETS,                /* label: .branchtargets L1, L2; ops = label operands, label in aux */
    IR_OP_CALLTARGETS,                  /* label: .calltargets f1, f2; */
    IR_OP_CALLPROTOTYPE,                /* label: .callprototype (...) _ (...); ops[0].id = prototype */
    IR_OP_COUNT
} ir_opcode;

enum { IR_OPF_TERMINATOR = T, IR_OPF_BRANCH = B, IR_OPF_CALL = C, IR_OPF_NORETURN = N };
#undef T
#undef B
#undef C
#undef N

typedef struct ir_opcode_info {
    const char *name;
    uint8_t min_ops, max_ops;
    uint8_t flags;
} ir_opcode_info;

extern const ir_opcode_info ir_opcodes[IR_OP_COUNT];
extern const char *const ir_type_names[IR_T_COUNT];
extern const uint16_t ir_type_bits[IR_T_COUNT];
extern const char *const ir_space_names[IR_S_COUNT];
extern const ir_space ir_space_base[IR_S_COUNT];
extern const char *const ir_mod_names[IR_M_COUNT];

/* Special registers: %tid etc. X-less because the list is short and fixed. */
typedef enum ir_sreg {
    IR_SR_NONE = 0,
    IR_SR_TID, IR_SR_NTID, IR_SR_CTAID, IR_SR_NCTAID, IR_SR_LANEID, IR_SR_WARPID, IR_SR_NWARPID,
    IR_SR_SMID, IR_SR_NSMID, IR_SR_GRIDID, IR_SR_LANEMASK_EQ, IR_SR_LANEMASK_LE, IR_SR_LANEMASK_LT,
    IR_SR_LANEMASK_GE, IR_SR_LANEMASK_GT, IR_SR_CLOCK, IR_SR_CLOCK_HI, IR_SR_CLOCK64, IR_SR_GLOBALTIMER,
    IR_SR_GLOBALTIMER_LO, IR_SR_GLOBALTIMER_HI, IR_SR_DYNAMIC_SMEM_SIZE, IR_SR_TOTAL_SMEM_SIZE,
    IR_SR_AGGR_SMEM_SIZE, IR_SR_CLUSTERID, IR_SR_NCLUSTERID, IR_SR_CLUSTER_CTAID, IR_SR_CLUSTER_NCTAID,
    IR_SR_CLUSTER_CTARANK, IR_SR_CLUSTER_NCTARANK, IR_SR_IS_EXPLICIT_CLUSTER, IR_SR_RESERVED_SMEM_OFFSET_BEGIN,
    IR_SR_RESERVED_SMEM_OFFSET_END, IR_SR_RESERVED_SMEM_OFFSET_CAP, IR_SR_RESERVED_SMEM_OFFSET_0,
    IR_SR_RESERVED_SMEM_OFFSET_1, IR_SR_CURRENT_GRAPH_EXEC,
    IR_SR_ENVREG, /* %envreg0..31: index in aux */
    IR_SR_PM,     /* %pm0..7, %pm0_64..: index in aux (64-bit forms +8) */
    IR_SR_COUNT
} ir_sreg;
extern const char *const ir_sreg_names[IR_SR_COUNT];

/* ---------------------------------------------------------------- operands */

typedef enum ir_opnd_kind {
    IR_OPND_NONE = 0,
    IR_OPND_REG,     /* id = register; val = video byte/half selector (ir_sel_*), 0 = none */
    IR_OPND_SREG,    /* id = ir_sreg; aux = component (0 none, 1..4 = x y z w) or index for envreg/pm */
    IR_OPND_IMM,     /* val = integer value (flags: IR_OPNDF_UNSIGNED when written with U suffix) */
    IR_OPND_F32,     /* val = IEEE single bits (0fXXXXXXXX) */
    IR_OPND_F64,     /* val = IEEE double bits (0dXXXXXXXXXXXXXXXX or a decimal literal) */
    IR_OPND_VAR,     /* id = variable; val = byte offset (sym+imm as an immediate address value) */
    IR_OPND_FUNC,    /* id = function (call target, function address) */
    IR_OPND_LABEL,   /* id = label */
    IR_OPND_ADDR,    /* [base+val]: flags tell whether id is a register, a variable or absent */
    IR_OPND_VEC,     /* {a, b, ...}: aux = count, elements via ir_elems() (stored in the module arena) */
    IR_OPND_LIST,    /* (a, b, ...): call parameter lists, same encoding as VEC */
    IR_OPND_TEXARGS, /* [a, b, {c, d}]: texture/surface operand, same encoding as VEC */
    IR_OPND_SINK,    /* _ */
} ir_opnd_kind;

enum {
    IR_OPNDF_NOT = 0x01,      /* !p */
    IR_OPNDF_NEG = 0x02,      /* -%r (accepted on some operands of mma/wgmma scale inputs) */
    IR_OPNDF_UNSIGNED = 0x04, /* integer immediate written with a U suffix */
    IR_OPNDF_BASE_REG = 0x08, /* ADDR: id is a register */
    IR_OPNDF_BASE_VAR = 0x10, /* ADDR: id is a variable */
    IR_OPNDF_BASE_FUNC = 0x20,/* ADDR: id is a function (prefetch of a function address, rare) */
    IR_OPNDF_ABS_ADDR = 0x40, /* ADDR: [imm], no base */
    IR_OPNDF_PIPE = 0x80,     /* this operand follows the previous one with `|` (setp p|q, tex {..}|p) */
};

typedef struct ir_operand {
    uint8_t kind;  /* ir_opnd_kind */
    uint8_t flags; /* IR_OPNDF_* */
    uint16_t aux;
    uint32_t id;
    int64_t val;
} ir_operand;

/* Video-instruction operand selectors (.b0 .h1 .b3210 ...) packed into a REG operand's val:
 * bits 0..7 the letter ('b', 'h', 'x', 'y', 'z', 'w', 'r', 'g', 'a'), bits 8..10 the digit count,
 * then 3 bits per digit. */
static inline ir_operand *ir_elems(const ir_operand *o) { return (ir_operand *)(intptr_t)o->val; }
static inline void ir_set_elems(ir_operand *o, ir_operand *e, unsigned n) { o->val = (int64_t)(intptr_t)e; o->aux = (uint16_t)n; }

int64_t ir_sel_pack(const char *s, size_t len, bool *ok);
int ir_sel_format(int64_t sel, char *buf, size_t n);

/* ---------------------------------------------------------------- instructions and blocks */

#define IR_MAX_WORDS 14

typedef enum ir_word_kind { IR_W_TYPE = 0, IR_W_SPACE = 1, IR_W_MOD = 2, IR_W_SHAPE = 3 } ir_word_kind;
#define IR_WORD(kind, id) ((uint16_t)(((unsigned)(kind) << 12) | (unsigned)(id)))
#define IR_WORD_KIND(w) ((ir_word_kind)((w) >> 12))
#define IR_WORD_ID(w) ((unsigned)(w)&0xfffu)

typedef struct ir_ins {
    uint16_t op;           /* ir_opcode */
    uint8_t nwords;
    uint8_t nops;
    uint32_t guard;        /* 0 = unguarded; else register id + 1 */
    uint8_t guard_neg;     /* @!p */
    uint8_t pad;
    uint16_t col;          /* source position, for diagnostics of later passes */
    uint32_t line;
    uint32_t shape;        /* matrix shape mNnNkN: m | n << 10 | k << 20 (k = 0 when absent) */
    uint16_t words[IR_MAX_WORDS];
    ir_operand *ops;       /* nops operands, in the function's operand storage */
} ir_ins;

typedef struct ir_block {
    uint32_t label;        /* label id + 1; 0 for a block entered only by fall-through */
    uint32_t n, cap;
    ir_ins *ins;
} ir_block;

/* ---------------------------------------------------------------- symbols */

typedef enum ir_linkage {
    IR_LINK_NONE = 0, IR_LINK_VISIBLE, IR_LINK_EXTERN, IR_LINK_WEAK, IR_LINK_COMMON
} ir_linkage;

typedef enum ir_init_kind {
    IR_INIT_INT = 0,  /* val */
    IR_INIT_F32,      /* val = bits */
    IR_INIT_F64,      /* val = bits */
    IR_INIT_VAR,      /* address of variable `sym` + val */
    IR_INIT_FUNC,     /* address of function `sym` */
    IR_INIT_GENERIC,  /* generic(var) + val */
    IR_INIT_OPEN,     /* `{` of a nested initializer: printing and round trip keep the braces */
    IR_INIT_CLOSE,    /* `}` */
    IR_INIT_MASK,     /* mask(var+val) or mask(generic(var)+val): bytes of an address, e.g. 0xFF00(sym) */
} ir_init_kind;

typedef struct ir_init {
    uint8_t kind;
    uint8_t generic;  /* IR_INIT_MASK of a generic address */
    uint32_t sym;
    int64_t val;
    uint64_t mask;    /* IR_INIT_MASK */
} ir_init;

#define IR_MAX_DIMS 4

typedef struct ir_var {
    uint32_t name;          /* string id; "_" for anonymous prototype parameters */
    int32_t func;           /* owning function, -1 for module scope */
    uint8_t space;          /* ir_space */
    uint8_t linkage;        /* ir_linkage */
    uint8_t type;           /* ir_type */
    uint8_t vec;            /* 0, 2, 4 or 8 (.v2/.v4/.v8) */
    uint32_t align;         /* 0 = natural */
    uint8_t ndims;
    uint8_t unsized_first;  /* `[]`: size from the initializer or extern (dynamic shared memory) */
    uint8_t is_ptr;         /* kernel parameter attribute `.ptr` */
    uint8_t ptr_space;      /* `.ptr.global` etc. */
    uint32_t ptr_align;     /* `.ptr.align N` */
    uint8_t managed;        /* .attribute(.managed) */
    uint8_t unified;        /* .attribute(.unified(uuid1, uuid2)) */
    uint64_t unified_uuid[2];
    uint64_t dims[IR_MAX_DIMS];
    uint32_t ninit;
    ir_init *init;          /* flat, with OPEN/CLOSE markers for nested braces */
    uint32_t nattrs;        /* texref/samplerref field initialisers: name/value string id pairs */
    uint32_t *attrs;
    uint32_t line, col;
} ir_var;

typedef struct ir_regdecl {
    uint32_t name;          /* string id: full name, or the prefix of a parameterized declaration */
    uint8_t type;           /* ir_type */
    uint8_t vec;            /* 0, or 2/4 for .v2/.v4 vector registers: every component is a register of its own */
    uint32_t count;         /* 0: plain; N: %name<N> declares %name0..%name(N-1) */
    uint32_t first_reg;     /* register id of element 0 (of its .x component for vector registers) */
} ir_regdecl;

typedef struct ir_reg {
    uint32_t decl;          /* declaration index */
    uint32_t index;         /* element index for parameterized declarations; for vector registers
                             * element * vec + component (0..3 = x y z w) */
} ir_reg;

typedef struct ir_label {
    uint32_t name;          /* string id */
    uint8_t defined;
    uint32_t line, col;     /* first reference or definition */
} ir_label;

/* A function prototype: .callprototype, or the parameter list of a function. */
typedef struct ir_proto {
    uint32_t nret, nparam;
    uint32_t *ret;          /* variable ids */
    uint32_t *param;
    uint8_t noreturn;
} ir_proto;

typedef struct ir_perf {
    uint32_t maxntid[3], reqntid[3], reqnctapercluster[3];
    uint32_t minnctapersm, maxnctapersm, maxnreg, maxclusterrank;
    uint8_t n_maxntid, n_reqntid, n_reqnctapercluster, explicitcluster, noreturn;
    uint8_t has_minnctapersm, has_maxnctapersm, has_maxnreg, has_maxclusterrank;
    uint8_t blocksareclusters, has_abi_preserve, has_abi_preserve_control;
    uint32_t abi_preserve, abi_preserve_control; /* registers a .func keeps for its callers (PTX 9.0) */
} ir_perf;

typedef struct ir_func {
    uint32_t name;
    uint8_t is_entry;       /* .entry (kernel) or .func */
    uint8_t linkage;
    uint8_t has_body;
    uint8_t is_alias_target_only;
    uint32_t line, col;
    uint32_t decl_item;     /* module item of the first declaration */
    ir_proto sig;
    ir_perf perf;
    uint32_t nblocks, cap_blocks;
    ir_block *blocks;
    uint32_t nregs, cap_regs;
    ir_reg *regs;
    uint32_t nregdecls, cap_regdecls;
    ir_regdecl *regdecls;
    uint32_t nlabels, cap_labels;
    ir_label *labels;
    uint32_t nprotos, cap_protos;
    ir_proto *protos;
} ir_func;

/* IR_ITEM_SECTION keeps a `.section` (DWARF) verbatim as a string: we do not interpret it, but printing it
 * back keeps `--emit=ir` output acceptable to ptxas for modules compiled with -G. */
typedef enum ir_item_kind { IR_ITEM_VAR, IR_ITEM_FUNC, IR_ITEM_ALIAS, IR_ITEM_PRAGMA, IR_ITEM_FILE, IR_ITEM_SECTION } ir_item_kind;

typedef struct ir_item {
    uint8_t kind;
    uint8_t is_decl_only;   /* a function declaration (prototype) that a later item defines */
    uint32_t id;            /* var, func, alias, pragma string, file index */
} ir_item;

typedef struct ir_alias { uint32_t alias, aliasee; } ir_alias;
typedef struct ir_file { uint32_t index; uint32_t name; uint64_t timestamp, size; uint8_t has_meta; } ir_file;

typedef struct ir_arena ir_arena;

typedef struct ir_module {
    ir_arena *arena;
    uint32_t version_major, version_minor;
    uint32_t address_size;  /* 32 or 64 */
    uint32_t ntargets;
    uint32_t targets[8];    /* string ids: sm_90a, texmode_independent, debug, map_f64_to_f32 */
    uint32_t nitems, cap_items;
    ir_item *items;
    uint32_t nvars, cap_vars;
    ir_var *vars;
    uint32_t nfuncs, cap_funcs;
    ir_func *funcs;
    uint32_t naliases, cap_aliases;
    ir_alias *aliases;
    uint32_t nfiles, cap_files;
    ir_file *files;
    uint32_t debug_sections; /* .section items (DWARF text kept verbatim) */
    /* string interning */
    uint32_t nstrings, cap_strings;
    const char **strings;
    uint32_t *string_lens;
    uint32_t *hash_slots;   /* open addressing: string id + 1 */
    uint32_t hash_cap;
} ir_module;

/* ---------------------------------------------------------------- API */

ir_module *ir_module_new(void);
void ir_module_free(ir_module *m);

void *ir_alloc(ir_module *m, size_t bytes);            /* zeroed, 8-aligned, lives as long as the module */
uint32_t ir_intern(ir_module *m, const char *s, size_t len);
static inline const char *ir_str(const ir_module *m, uint32_t id) { return m->strings[id]; }
static inline uint32_t ir_strlen(const ir_module *m, uint32_t id) { return m->string_lens[id]; }
uint32_t ir_lookup_string(const ir_module *m, const char *s, size_t len); /* UINT32_MAX if absent */

uint32_t ir_add_item(ir_module *m, ir_item_kind kind, uint32_t id);
uint32_t ir_add_var(ir_module *m, const ir_var *v);
uint32_t ir_add_func(ir_module *m, uint32_t name);
ir_block *ir_add_block(ir_func *f, uint32_t label_plus1);
ir_ins *ir_block_append(ir_block *b, const ir_ins *ins);
uint32_t ir_add_regdecl(ir_func *f, const ir_regdecl *d); /* allocates its registers too */
uint32_t ir_add_label(ir_func *f, uint32_t name, uint32_t line, uint32_t col);
int32_t ir_label_block(const ir_func *f, uint32_t label); /* the block the label starts, -1 if none */
ir_operand *ir_alloc_operands(ir_module *m, unsigned n);

/* Register names for printing: "%r12" for element 12 of %r<N>. */
int ir_reg_name(const ir_module *m, const ir_func *f, uint32_t reg, char *buf, size_t n);
ir_type ir_reg_type(const ir_func *f, uint32_t reg);

/* Questions passes ask of an instruction. */
bool ir_ins_has(const ir_ins *ins, ir_mod mod);
ir_type ir_ins_type(const ir_ins *ins, unsigned k);   /* k-th type word, IR_T_NONE if absent */
unsigned ir_ins_ntypes(const ir_ins *ins);
ir_space ir_ins_space(const ir_ins *ins);              /* first state-space word, IR_S_NONE if absent */
static inline const ir_opcode_info *ir_info(const ir_ins *ins) { return &ir_opcodes[ins->op]; }
static inline bool ir_is_pseudo(const ir_ins *ins) { return ins->op >= IR_OP_FIRST_PSEUDO; }

/* The functions nvcc declares `.extern .func` that no PTX module defines because CUDA's driver provides them
 * (printf, assert, device malloc/free, setting a conditional graph node's condition): the targets give them bodies,
 * the linker and the passes treat calls to them as defined. */
bool ir_is_runtime_extern(const char *name);
/* CUDA's device runtime (dynamic parallelism: a kernel launching kernels; nvcc 13's __cudaCDP2*, CUDA 11's
 * cudaLaunchDevice / cudaGetParameterBuffer, __cuda_syscall_*, libcudadevrt's cnp*): the linker leaves such calls
 * to the targets; a target with device_runtime gives the functions of abi/device_runtime.def bodies, the others
 * refuse the calling kernel with a message naming the function. */
bool ir_is_device_runtime(const char *name);

/* Printer: writes PTX text the front end reads back. Returns a malloc'd NUL-terminated string. */
char *ir_print_module(const ir_module *m, size_t *len_out);

/* Verifier: structural checks run after parsing and after every pass in debug/test builds. Messages go to
 * `errors` (malloc'd, one per line) and the return value says whether the module is well formed. */
bool ir_verify(const ir_module *m, char **errors);

/* Word-table lookups shared by the front end and the printer. */
typedef struct ir_word_info { ir_word_kind kind; uint16_t id; } ir_word_info;
bool ir_lookup_word(const char *s, size_t len, ir_word_info *out);
ir_opcode ir_lookup_opcode(const char *s, size_t len);
bool ir_is_opcode_prefix(const char *s, size_t len); /* a longer opcode may start with s + "." */
ir_sreg ir_lookup_sreg(const char *s, size_t len, uint16_t *index);
int ir_word_format(const ir_ins *ins, unsigned k, char *buf, size_t n);

#endif
