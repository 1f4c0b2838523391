/* cpu_matrix.c — warp matrix operations of the CPU runtime (host_abi.h warp_matrix): ldmatrix/stmatrix
 * (m8n8 .b16), mma.sync (m16n8k16 f16->f32, m16n8k32 s8->s32) with the PTX ISA fragment layouts, and wmma
 * m16n16k16 f16->f32 with our own fragment layout (documented in host_abi.h). */
#include "cpu_internal.h"
#include "mx_forms.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

static float bits_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* Without branches, so that the conversion loops of wmma vectorise: the half's exponent and mantissa, shifted
 * into an f32's, are the value times 2^-112 (subnormal halves become f32 subnormals), and the product by 2^112
 * is exact (the runtime never sets DAZ); infinities and NaNs keep their payload. Checked against the
 * field-by-field conversion over all 65,536 halves. */
static float half_to_float(uint16_t h) {
    uint32_t mag = h & 0x7fffu;
    uint32_t bits = mag >= 0x7c00u ? 0x7f800000u | mag << 13 : f_bits(bits_f(mag << 13) * 0x1p112f);
    return bits_f(bits | (uint32_t)(h & 0x8000u) << 16);
}

static uint16_t half_of(const uint32_t *io, unsigned idx) { return (uint16_t)(io[idx >> 1] >> ((idx & 1) * 16)); }

static void ldst_matrix(uint32_t op, uint32_t *io[32], bool ld) {
    unsigned n = P2N_MX_NUM(op);
    bool trans = op & P2N_MX_TRANS;
    for (unsigned i = 0; i < n; i++) {
        uint16_t *row[8];
        bool ok = true;
        for (unsigned r = 0; r < 8; r++) {
            uint32_t *src = io[i * 8 + r];
            uint64_t a = 0;
            if (src) memcpy(&a, src, 8);
            row[r] = (uint16_t *)(uintptr_t)a;
            ok = ok && src;
        }
        if (!ok) continue; /* a lane that supplies a row address has exited: nothing sensible to do */
        for (unsigned l = 0; l < 32; l++) {
            uint32_t *lio = io[l];
            if (!lio) continue;
            for (unsigned h = 0; h < 2; h++) {
                unsigned r, c;
                if (!trans) { r = l >> 2; c = (l & 3) * 2 + h; }
                else { r = (l & 3) * 2 + h; c = l >> 2; }
                if (ld) {
                    uint32_t v = row[r][c];
                    lio[2 + i] = (lio[2 + i] & ~(0xffffu << (16 * h))) | v << (16 * h);
                } else {
                    row[r][c] = (uint16_t)(lio[2 + i] >> (16 * h));
                }
            }
        }
    }
}

static void mma_m16n8(uint32_t kind, uint32_t *io[32]) {
    static const uint32_t zero[14];
    const uint32_t *L[32];
    for (unsigned l = 0; l < 32; l++) L[l] = io[l] ? io[l] : zero;
    if (kind == P2N_MX_MMA_F16_F32_M16N8K16) {
        float A[16][16], B[16][8];
        for (unsigned l = 0; l < 32; l++) {
            unsigned g = l >> 2, t = l & 3;
            for (unsigned i = 0; i < 8; i++) {
                unsigned r = g + 8 * ((i >> 1) & 1), c = t * 2 + (i & 1) + 8 * (i >= 4);
                A[r][c] = half_to_float(half_of(L[l], i));
            }
            for (unsigned i = 0; i < 4; i++) {
                unsigned k = t * 2 + (i & 1) + 8 * (i >= 2);
                B[k][g] = half_to_float(half_of(L[l] + 4, i));
            }
        }
        /* d = c + A B as the H200's tensor cores form it (cpu_mma.c p2n_tc_gemm_f32) */
        float C[16][8] = {{0}}, D[16][8];
        for (unsigned l = 0; l < 32; l++)
            for (unsigned i = 0; i < 4; i++) C[(l >> 2) + 8 * (i >= 2)][(l & 3) * 2 + (i & 1)] = bits_f(L[l][6 + i]);
        p2n_tc_gemm_f32(16, 8, 16, &A[0][0], &B[0][0], &C[0][0], &D[0][0], P2N_TC_EMIN_F16);
        for (unsigned l = 0; l < 32; l++) {
            if (!io[l]) continue;
            for (unsigned i = 0; i < 4; i++) io[l][10 + i] = f_bits(D[(l >> 2) + 8 * (i >= 2)][(l & 3) * 2 + (i & 1)]);
        }
    } else {
        int32_t A[16][32], B[32][8];
        for (unsigned l = 0; l < 32; l++) {
            unsigned g = l >> 2, t = l & 3;
            for (unsigned i = 0; i < 16; i++) {
                unsigned r = g + 8 * ((i >> 2) & 1), c = t * 4 + (i & 3) + 16 * (i >= 8);
                A[r][c] = (int8_t)(L[l][i >> 2] >> (8 * (i & 3)));
            }
            for (unsigned i = 0; i < 8; i++) {
                unsigned k = t * 4 + (i & 3) + 16 * (i >= 4);
                B[k][g] = (int8_t)(L[l][4 + (i >> 2)] >> (8 * (i & 3)));
            }
        }
        for (unsigned l = 0; l < 32; l++) {
            if (!io[l]) continue;
            unsigned g = l >> 2, t = l & 3;
            for (unsigned i = 0; i < 4; i++) {
                unsigned r = g + 8 * (i >= 2), c = t * 2 + (i & 1);
                uint32_t s = io[l][6 + i];
                for (unsigned k = 0; k < 32; k++) s += (uint32_t)(A[r][k] * B[k][c]);
                io[l][10 + i] = s;
            }
        }
    }
}

static void wmma_m16n16k16(uint32_t *io[32]) {
    static const uint32_t zero[32];
    float A[256], B[256], C[256], D[256];
    for (unsigned l = 0; l < 32; l++) {
        const uint32_t *v = io[l] ? io[l] : zero;
        for (unsigned j = 0; j < 8; j++) {
            A[l * 8 + j] = half_to_float(half_of(v, j));
            B[l * 8 + j] = half_to_float(half_of(v + 8, j));
            C[l * 8 + j] = bits_f(v[16 + j]);
        }
    }
    /* element e = 8 l + j is (e / 16, e % 16) of each matrix: all three are row major 16 x 16 */
    p2n_tc_gemm_f32(16, 16, 16, A, B, C, D, P2N_TC_EMIN_F16);
    for (unsigned l = 0; l < 32; l++)
        if (io[l])
            for (unsigned j = 0; j < 8; j++) io[l][24 + j] = f_bits(D[l * 8 + j]);
}

void p2n_matrix_compute(uint32_t op, uint32_t *io[32]) {
    switch (op & 0xffu) {
    case P2N_MX_LDMATRIX: ldst_matrix(op, io, true); break;
    case P2N_MX_STMATRIX: ldst_matrix(op, io, false); break;
    case P2N_MX_MMA_F16_F32_M16N8K16:
    case P2N_MX_MMA_S8_S32_M16N8K32: mma_m16n8(op & 0xffu, io); break;
    case P2N_MX_WMMA_F16_F32_M16N16K16: wmma_m16n16k16(io); break;
    default: p2n_mma_compute(op, io); break;
    }
}

void p2n_matrix_lane(uint32_t op, uint32_t *io, uint32_t lane) {
    if (p2n_mma_lane(op, io, lane)) return;
    uint64_t a;
    memcpy(&a, io, 8);
    uint8_t *base = (uint8_t *)(uintptr_t)a;
    uint64_t ld = io[2];
    bool col = op & P2N_MX_COLMAJOR;
    uint32_t frag = op & 0x30000u;
    bool store = (op & 0xffu) == P2N_MX_WMMA_STORE;
    /* a lane's 8 elements e = 8 lane + j lie in one row (16 per row): in row-major storage one run of memory */
    if (!col) {
        uint64_t first = (uint64_t)(lane / 2) * ld + (lane & 1) * 8;
        if (frag != P2N_MX_FRAG_C) { /* f16 A/B: words 3..6, words 7..10 zero */
            memcpy(&io[3], base + first * 2, 16);
            memset(&io[7], 0, 16);
        } else if (store) {
            memcpy(base + first * 4, &io[3], 32);
        } else {
            memcpy(&io[3], base + first * 4, 32);
        }
        return;
    }
    if (frag != P2N_MX_FRAG_C) {
        /* A (m x k) or B (k x n), f16: element (r, c) of the 16x16 matrix */
        for (unsigned j = 0; j < 8; j++) io[3 + j] = 0;
        for (unsigned j = 0; j < 8; j++) {
            unsigned e = lane * 8 + j, r = e / 16, c = e % 16;
            uint64_t idx = col ? (uint64_t)c * ld + r : (uint64_t)r * ld + c;
            uint16_t h;
            memcpy(&h, base + idx * 2, 2);
            io[3 + j / 2] |= (uint32_t)h << (16 * (j & 1));
        }
        return;
    }
    for (unsigned j = 0; j < 8; j++) {
        unsigned e = lane * 8 + j, r = e / 16, c = e % 16;
        uint64_t idx = col ? (uint64_t)c * ld + r : (uint64_t)r * ld + c;
        if (store) memcpy(base + idx * 4, &io[3 + j], 4);
        else memcpy(&io[3 + j], base + idx * 4, 4);
    }
}
