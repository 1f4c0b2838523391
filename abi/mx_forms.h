/* mx_forms.h — the generic warp-matrix forms shared by the compiler (targets/llvm/emit_mma.c recognises them,
 * emit_lanes_mma.c lowers them on lane primitives) and the CPU runtime (cpu_mma.c): the encoding of a form in
 * the 32-bit warp_matrix op word and the fragment layouts, written once here so both sides agree bit for bit.
 *
 * mma.sync fragments follow the PTX ISA ("Matrix fragments for mma.mMnNkK"): lane l = 4g + t (groupID g,
 * threadID_in_group t); a fragment is a run of registers of 32 bits (64 for f64), element e of register j.
 *   A (M x K), P = elements per register: row = g + 8 (j & 1) (M = 16) or g (M = 8),
 *              col = t P + e + 4 P (j >> 1) (M = 16) or t P + e (M = 8)
 *   B (K x 8): row = t P + e + 4 P j, col = g
 *   C, D (M x 8), element i counted over the registers: row = g + 8 (i >> 1), col = 2 t + (i & 1)
 * .b1 is handled as 32-bit words of 32 consecutive k (the popc sums do not care about the order inside a word),
 * so K counts words (K/32) and P = 1.
 * wmma fragments are opaque in PTX; ours: element q of the row-major R x C matrix is in lane q / (R C / 32),
 * slot q % (R C / 32). f16 A/B fragments are 8 registers whatever the shape (PTX fixes the count), the slots
 * past R C / 32 are zero.
 *
 * mma.sp / mma.sp::ordered_metadata (PTX ISA "Matrix multiply-accumulate operation using mma.sp instruction with
 * sparse matrix A"): the M x K matrix A is given compressed, M x K/2, its fragment laid out as the dense A
 * fragment of shape M x N x K/2 (so p2n_mx_dims gives A K/2 columns for a sparse form); a metadata word per lane
 * says where the stored values go. The hardware works on 2:4 sparsity over *units*: 16 bits for f16/bf16 and
 * tf32 (a tf32 element is two units, so its 1:2 sparsity is 2:4 over halves and only the nibbles 0b0100 and
 * 0b1110 mean anything), 8 bits for the 8-bit types and for pairs of 4-bit elements (the ISA's pair-wise 4:8).
 * A row of A has Ku = K * bits / unit units in chunks of 4; each chunk has a nibble, idx0 in its low two bits
 * (the position of the chunk's first stored unit), idx1 in the high two (the second). The nibbles of rows g
 * and g + 8 live in lanes 4 g + sel * Ku / 16 + i: one lane per group for Ku = 16 (sel 0..3 picks it), a pair
 * for Ku = 32 (sel 0: T0 T1, 1: T2 T3), all four for Ku = 64 (sel 0). Which nibble is where depends on the
 * unit (both fitted bit-exactly to the H200 recordings, gen/fit_mma_sp.py):
 *   16-bit units (f16, bf16, tf32): the nibbles of the 16 units of columns [16 b, 16 b + 16) (block b) of rows
 *     g and g + 8 are the low and the high half-word of lane i = b, chunk c at bit 4 (c % 4) (+16 for g + 8)
 *     (for m16n8k32 .f16 also MLIR's sm_80 test sparse-mma-2-4-f16.mlir: T0/T1 columns 0-15/16-31);
 *   8-bit units (s8/u8/e4m3/e5m2, 4-bit pairs): a lane holds the 8 nibbles of 32 units of one row, chunk c at
 *     bit 4 (c % 8) of lane i = 2 (c / 8) + (r / 8): T0 row g, T1 row g + 8 (then T2, T3 for chunks 8..15).
 * ::ordered_metadata only restricts the meaningful nibbles to idx0 < idx1; the expansion is the same. A nibble
 * with idx0 == idx1 (undefined) puts the second stored unit there. After the expansion the product is the dense
 * one of shape M x N x K with zeros in the pruned places, whose products are dropped (an infinite B there gives
 * no NaN): the same tensor-core arithmetic (cpu_mma.c). */
#ifndef P2N_MX_FORMS_H
#define P2N_MX_FORMS_H

#include <stdbool.h>
#include <stdint.h>

#include "host_abi.h"

/* element types */
enum { MXE_F16, MXE_BF16, MXE_TF32, MXE_F32, MXE_F64, MXE_S8, MXE_U8, MXE_S4, MXE_U4, MXE_B1, MXE_S32,
       MXE_E4M3, MXE_E5M2 };
/* combining operation (the b1 forms) */
enum { MXO_MAD = 0, MXO_XOR_POPC = 1, MXO_AND_POPC = 2 };
/* fragment of a load/store */
enum { MXF_A = 0, MXF_B = 1, MXF_C = 2 };

/* shapes, by index (bits 8..11 of op) */
static const uint16_t p2n_mx_shapes[][3] = {
    {8, 8, 4},    {8, 8, 16},   {8, 8, 32},   {8, 8, 128},  {16, 8, 4},   {16, 8, 8},
    {16, 8, 16},  {16, 8, 32},  {16, 8, 64},  {16, 8, 128}, {16, 8, 256}, {16, 16, 16},
    {32, 8, 16},  {8, 32, 16},  {16, 16, 8},
};
#define P2N_MX_NSHAPES (sizeof p2n_mx_shapes / sizeof p2n_mx_shapes[0])

/* MMA_SP (mma.sp): as MMA, with the sparsity selector in bits 28..29 (op is MAD), shape the dense M x N x K;
 * io: A words (compressed), B, C, D words, then the lane's metadata word */
/* MMA: kind | shape << 8 | ta << 12 | tb << 16 | tc << 20 | td << 24 | op << 28 | satfinite << 30 | wmma << 31
 * io: A words, B words, C words, D words (results) in that order */
/* FRAG_LOAD / FRAG_STORE (wmma only): kind | shape << 8 | type << 12 | frag << 16 | col << 18
 * io: [0..1] address, [2] stride (elements), fragment words from [3] */
/* MOVMATRIX (m8n8 .trans .b16): io [0] source, [1] result */
typedef struct p2n_mx {
    unsigned kind, m, n, k, ta, tb, tc, td, op, frag;
    unsigned sel;   /* mma.sp: sparsity selector */
    bool satf, wmma, col, sparse;
} p2n_mx;

static inline p2n_mx p2n_mx_decode(uint32_t op) {
    p2n_mx f = {0};
    f.kind = op & 0xffu;
    unsigned s = (op >> 8) & 0xfu;
    if (s >= P2N_MX_NSHAPES) s = 0;
    f.m = p2n_mx_shapes[s][0];
    f.n = p2n_mx_shapes[s][1];
    f.k = p2n_mx_shapes[s][2];
    f.ta = (op >> 12) & 0xfu;
    if (f.kind == P2N_MX_MMA || f.kind == P2N_MX_MMA_SP) {
        f.tb = (op >> 16) & 0xfu;
        f.tc = (op >> 20) & 0xfu;
        f.td = (op >> 24) & 0xfu;
        f.op = (op >> 28) & 3u;
        f.satf = (op >> 30) & 1u;
        f.wmma = op >> 31;
        if (f.kind == P2N_MX_MMA_SP) {
            f.sparse = true;
            f.sel = f.op;
            f.op = MXO_MAD;
            f.wmma = false;
        }
    } else {
        f.frag = (op >> 16) & 3u;
        f.col = (op >> 18) & 1u;
        f.wmma = true;
    }
    if (f.ta == MXE_B1) f.k /= 32; /* K counts 32-bit words of b1 */
    return f;
}

/* bits of an element as stored in a fragment (b1: a word of 32) */
static inline unsigned p2n_mx_bits(unsigned t) {
    switch (t) {
    case MXE_F64: return 64;
    case MXE_F16: case MXE_BF16: return 16;
    case MXE_S8: case MXE_U8: case MXE_E4M3: case MXE_E5M2: return 8;
    case MXE_S4: case MXE_U4: return 4;
    default: return 32;
    }
}

/* fragment x (MXF_A, MXF_B, or MXF_C for C and D) of form f: rows, columns, element type */
static inline void p2n_mx_dims(const p2n_mx *f, unsigned x, unsigned t, unsigned *rows, unsigned *cols) {
    *rows = x == MXF_B ? f->k : f->m;
    *cols = x == MXF_A ? (f->sparse ? f->k / 2 : f->k) : f->n;
    (void)t;
}

/* 32-bit words of a fragment */
static inline unsigned p2n_mx_words(const p2n_mx *f, unsigned x, unsigned t) {
    unsigned r, c;
    p2n_mx_dims(f, x, t, &r, &c);
    if (f->wmma && x != MXF_C && t == MXE_F16) return 8;
    return r * c * p2n_mx_bits(t) / 1024;
}

/* elements of a fragment one lane holds */
static inline unsigned p2n_mx_per_lane(const p2n_mx *f, unsigned x, unsigned t) {
    unsigned r, c;
    p2n_mx_dims(f, x, t, &r, &c);
    return r * c / 32;
}

/* (row, col) of element `slot` (counted over the fragment's registers) of `lane` */
static inline void p2n_mx_elem(const p2n_mx *f, unsigned x, unsigned t, unsigned lane, unsigned slot, unsigned *row,
                               unsigned *col) {
    unsigned r, c;
    p2n_mx_dims(f, x, t, &r, &c);
    if (f->wmma) {
        unsigned q = lane * (r * c / 32) + slot;
        *row = q / c;
        *col = q % c;
        return;
    }
    unsigned bits = p2n_mx_bits(t), P = bits >= 32 ? 1 : 32 / bits, j = slot / P, e = slot % P;
    unsigned g = lane >> 2, tg = lane & 3;
    if (x == MXF_A) {
        *row = f->m == 16 ? g + 8 * (j & 1) : g;
        *col = tg * P + e + (f->m == 16 ? 4 * P * (j >> 1) : 0);
    } else if (x == MXF_B) {
        *row = tg * P + e + 4 * P * j;
        *col = g;
    } else {
        *row = g + 8 * (slot >> 1);
        *col = 2 * tg + (slot & 1);
    }
}

/* the frexp exponent of the smallest normal of an input type, the least exponent a factor counts with in the
 * tensor-core alignment (cpu_mma.c p2n_tc_dot_f32): f16 (and fp8, unpacked to f16 on sm_90), else f32's */
enum { P2N_TC_EMIN_F16 = -13, P2N_TC_EMIN_F32 = -125 };
static inline int p2n_mx_emin(unsigned t) {
    return t == MXE_BF16 || t == MXE_TF32 || t == MXE_F32 ? P2N_TC_EMIN_F32 : P2N_TC_EMIN_F16;
}

/* mma.sp: bits of a sparsity unit of element type t (see the top) */
static inline unsigned p2n_mx_sp_unit(unsigned t) { return p2n_mx_bits(t) >= 16 ? 16 : 8; }

/* mma.sp: units of a dense row of A */
static inline unsigned p2n_mx_sp_row_units(const p2n_mx *f) { return f->k * p2n_mx_bits(f->ta) / p2n_mx_sp_unit(f->ta); }

/* mma.sp: whether selector sel is defined for the form (the lanes it names exist in a group of four) */
static inline bool p2n_mx_sp_sel_ok(unsigned row_units, unsigned sel) { return sel * (row_units / 16) < 4; }

/* mma.sp: the io word of the lane's metadata (after A, B, C, D) */
static inline unsigned p2n_mx_sp_meta_word(const p2n_mx *f) {
    return p2n_mx_words(f, MXF_A, f->ta) + p2n_mx_words(f, MXF_B, f->tb) + p2n_mx_words(f, MXF_C, f->tc) +
           p2n_mx_words(f, MXF_C, f->td);
}

/* mma.sp: the lane holding the metadata nibble of chunk c of row r, and the nibble's bit (see the top: 16-bit
 * units put rows g and g + 8 in the halves of a lane, 8-bit units give each row its own lanes) */
static inline void p2n_mx_sp_meta(const p2n_mx *f, unsigned r, unsigned c, unsigned *lane, unsigned *bit) {
    unsigned first = 4 * (r % 8) + f->sel * (p2n_mx_sp_row_units(f) / 16);
    if (p2n_mx_sp_unit(f->ta) == 16) {
        *lane = first + c / 4;
        *bit = 16 * (r / 8) + 4 * (c % 4);
    } else {
        *lane = first + 2 * (c / 8) + r / 8;
        *bit = 4 * (c % 8);
    }
}

#endif
