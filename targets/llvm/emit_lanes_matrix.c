/* emit_lanes_matrix.c — the warp-wide matrix operations for the GPU targets, written against the lane primitives
 * of emit_lanes.h: ldmatrix/stmatrix (m8n8 .b16, x1/x2/x4, .trans), mma.sync (m16n8k16 f16->f32, m16n8k32 s8->s32)
 * and wmma m16n16k16 (load, store, mma), bit-exact with the CPU runtime (driver-stub/cpu/cpu_matrix.c), which
 * defines the fragment layouts (PTX ISA's for ldmatrix and mma.sync, our own for wmma: lane l holds elements
 * 8l..8l+7 of the row-major 16x16 matrix, host_abi.h). Each lane fetches the fragment words (or row addresses) of
 * the lanes holding its rows of A and columns of B by lane reads and computes its own outputs. f16 dot products:
 * the tensor-core sum of lanes_tc_dot_f32, as the CPU runtime forms it (in f64 and i64, so a module with f16 mma
 * needs Float64 on SPIR-V). The lane's io block is the one emit_matrix.c builds (address in words 0-1, fragments after). */
#include "host_abi.h"
#include "mx_forms.h"
#include "emit_lanes.h"

#define BLD E->B

static LLVMValueRef io_at(emit_ctx *E, LLVMValueRef io, unsigned k) { return gep8(E, io, c64(E, 4ull * k)); }

static LLVMValueRef word(emit_ctx *E, LLVMValueRef io, unsigned k) {
    return LLVMBuildLoad2(BLD, E->i32, io_at(E, io, k), "");
}

static LLVMValueRef half_f(emit_ctx *E, LLVMValueRef w, unsigned h) {
    return half_to_float(E, LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, w, c32(E, 16 * h), ""), E->i16, ""), false);
}

static LLVMValueRef byte_s(emit_ctx *E, LLVMValueRef w, unsigned b) {
    return LLVMBuildSExt(BLD, LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, w, c32(E, 8 * b), ""), E->i8, ""), E->i32, "");
}

/* cpu_matrix.c dot_f16: c + sum a[k]*b[k] (f32 values of f16 inputs) -> f32 bits, the tensor-core result of
 * lanes_tc_dot_f32 (emit_lanes_mma.c) */
static LLVMValueRef dot_f16(emit_ctx *E, LLVMValueRef *a, LLVMValueRef *b, unsigned K, LLVMValueRef cbits) {
    return lanes_tc_dot_f32(E, LLVMBuildBitCast(BLD, cbits, E->f32, ""), a, b, K, P2N_TC_EMIN_F16);
}

/* io: A words 0-3, B 4-5, C 6-9, D 10-13. Lane l = 4g + t. A (row r, col k) sits in lane 4(r%8) + t' and
 * B (row k, col n) in lane 4n + t', with t' = (k%8)/2 (f16) or (k%16)/4 (s8); lane l needs rows g, g+8 of A and
 * columns 2t, 2t+1 of B: 16 + 16 shuffles. */
static void mma_m16n8(emit_ctx *E, const lane_ops *L, unsigned kind, LLVMValueRef io) {
    bool f16 = kind == P2N_MX_MMA_F16_F32_M16N8K16;
    LLVMValueRef l = L->laneid(E);
    LLVMValueRef g = LLVMBuildLShr(BLD, l, c32(E, 2), ""), t = LLVMBuildAnd(BLD, l, c32(E, 3), "");
    LLVMValueRef in[6], Aw[4][4], Bw[2][4][2];
    for (unsigned w = 0; w < 6; w++) in[w] = word(E, io, w);
    for (unsigned tp = 0; tp < 4; tp++) {
        LLVMValueRef src = LLVMBuildAdd(BLD, LLVMBuildShl(BLD, g, c32(E, 2), ""), c32(E, tp), "");
        for (unsigned w = 0; w < 4; w++) Aw[tp][w] = L->read_lane(E, in[w], src);
        for (unsigned j = 0; j < 2; j++) {
            LLVMValueRef n = LLVMBuildAdd(BLD, LLVMBuildShl(BLD, t, c32(E, 1), ""), c32(E, j), "");
            LLVMValueRef bsrc = LLVMBuildAdd(BLD, LLVMBuildShl(BLD, n, c32(E, 2), ""), c32(E, tp), "");
            for (unsigned w = 0; w < 2; w++) Bw[j][tp][w] = L->read_lane(E, in[4 + w], bsrc);
        }
    }
    for (unsigned i = 0; i < 4; i++) {
        unsigned rsel = i >> 1, j = i & 1;
        LLVMValueRef d;
        if (f16) {
            LLVMValueRef a[16], b[16];
            for (unsigned k = 0; k < 16; k++) {
                unsigned tp = (k & 7) >> 1, hi = k >= 8;
                a[k] = half_f(E, Aw[tp][rsel + 2 * hi], k & 1);
                b[k] = half_f(E, Bw[j][tp][hi], k & 1);
            }
            d = dot_f16(E, a, b, 16, word(E, io, 6 + i));
        } else {
            d = word(E, io, 6 + i);
            for (unsigned k = 0; k < 32; k++) {
                unsigned tp = (k & 15) >> 2, hi = k >= 16;
                LLVMValueRef p = LLVMBuildMul(BLD, byte_s(E, Aw[tp][rsel + 2 * hi], k & 3), byte_s(E, Bw[j][tp][hi], k & 3), "");
                d = LLVMBuildAdd(BLD, d, p, "");
            }
        }
        LLVMBuildStore(BLD, d, io_at(E, io, 10 + i));
    }
}

/* io: A words 0-3 (8 halves), B 8-11, C 16-23, D 24-31. Lane l computes elements 8l..8l+7: row l/2, columns
 * 8(l%2)..+7. Row r of A is in lanes 2r, 2r+1; B (k, c) in lane 2k + c/8, half c%8. */
static void wmma_mma(emit_ctx *E, const lane_ops *L, LLVMValueRef io) {
    LLVMValueRef l = L->laneid(E), odd = LLVMBuildAnd(BLD, l, c32(E, 1), "");
    LLVMValueRef ina[4], inb[4], Aw[2][4], Bk[16][4];
    for (unsigned w = 0; w < 4; w++) {
        ina[w] = word(E, io, w);
        inb[w] = word(E, io, 8 + w);
    }
    for (unsigned s = 0; s < 2; s++) {
        LLVMValueRef src = LLVMBuildOr(BLD, LLVMBuildAnd(BLD, l, c32(E, ~1u), ""), c32(E, s), "");
        for (unsigned w = 0; w < 4; w++) Aw[s][w] = L->read_lane(E, ina[w], src);
    }
    for (unsigned k = 0; k < 16; k++) {
        LLVMValueRef src = LLVMBuildOr(BLD, c32(E, 2 * k), odd, "");
        for (unsigned w = 0; w < 4; w++) Bk[k][w] = L->read_lane(E, inb[w], src);
    }
    LLVMValueRef a[16];
    for (unsigned k = 0; k < 16; k++) a[k] = half_f(E, Aw[k >> 3][(k & 7) >> 1], k & 1);
    for (unsigned j = 0; j < 8; j++) {
        LLVMValueRef b[16];
        for (unsigned k = 0; k < 16; k++) b[k] = half_f(E, Bk[k][j >> 1], j & 1);
        LLVMBuildStore(BLD, dot_f16(E, a, b, 16, word(E, io, 16 + j)), io_at(E, io, 24 + j));
    }
}

/* cpu_matrix.c p2n_matrix_lane: io = base (words 0-1), leading dimension (word 2), fragment words 3-10; element
 * (r, c) of lane l's j-th value: e = 8l + j, r = e/16, c = e%16, at r*ld + c (row major) or c*ld + r (.col) */
static void wmma_ldst(emit_ctx *E, const lane_ops *L, unsigned op, LLVMValueRef io) {
    bool store = (op & 0xffu) == P2N_MX_WMMA_STORE, col = op & P2N_MX_COLMAJOR, c_frag = (op & 0x30000u) == P2N_MX_FRAG_C;
    LLVMValueRef base = LLVMBuildLoad2(BLD, E->i64, io, "");
    LLVMSetAlignment(base, 8);
    LLVMValueRef ld = LLVMBuildZExt(BLD, word(E, io, 2), E->i64, "");
    LLVMValueRef l = L->laneid(E);
    LLVMValueRef r = LLVMBuildZExt(BLD, LLVMBuildLShr(BLD, l, c32(E, 1), ""), E->i64, "");
    LLVMValueRef c0 = LLVMBuildZExt(BLD, LLVMBuildShl(BLD, LLVMBuildAnd(BLD, l, c32(E, 1), ""), c32(E, 3), ""), E->i64, "");
    LLVMValueRef packed[4] = {NULL, NULL, NULL, NULL};
    for (unsigned j = 0; j < 8; j++) {
        LLVMValueRef c = LLVMBuildAdd(BLD, c0, c64(E, j), "");
        LLVMValueRef idx = col ? LLVMBuildAdd(BLD, LLVMBuildMul(BLD, c, ld, ""), r, "")
                               : LLVMBuildAdd(BLD, LLVMBuildMul(BLD, r, ld, ""), c, "");
        LLVMValueRef addr = LLVMBuildAdd(BLD, base, LLVMBuildShl(BLD, idx, c64(E, c_frag ? 2 : 1), ""), "");
        LLVMValueRef p = LLVMBuildIntToPtr(BLD, addr, E->ptr, "");
        if (c_frag && store) {
            LLVMSetAlignment(LLVMBuildStore(BLD, word(E, io, 3 + j), p), 4);
        } else if (c_frag) {
            LLVMValueRef v = LLVMBuildLoad2(BLD, E->i32, p, "");
            LLVMSetAlignment(v, 4);
            LLVMBuildStore(BLD, v, io_at(E, io, 3 + j));
        } else {
            LLVMValueRef v = LLVMBuildLoad2(BLD, E->i16, p, "");
            LLVMSetAlignment(v, 2);
            v = LLVMBuildShl(BLD, LLVMBuildZExt(BLD, v, E->i32, ""), c32(E, 16 * (j & 1)), "");
            packed[j >> 1] = packed[j >> 1] ? LLVMBuildOr(BLD, packed[j >> 1], v, "") : v;
        }
    }
    if (!c_frag)
        for (unsigned w = 0; w < 8; w++) LLVMBuildStore(BLD, w < 4 ? packed[w] : c32(E, 0), io_at(E, io, 3 + w));
}

/* the row address that lane `src` put in its io block, as a generic pointer plus `off` bytes; `shared`
 * (ldmatrix/stmatrix .shared, a target with one shared window): as an offset from the window's base, so that
 * address-space inference, which the shuffled integer defeats, sees a shared-memory access again (AMDGPU: ds_*
 * instead of flat_* through the shared aperture) */
static LLVMValueRef row_ptr(emit_ctx *E, const lane_ops *L, LLVMValueRef lo, LLVMValueRef hi, LLVMValueRef src,
                            LLVMValueRef off, bool shared) {
    LLVMValueRef l = LLVMBuildZExt(BLD, L->read_lane(E, lo, src), E->i64, "");
    LLVMValueRef h = LLVMBuildZExt(BLD, L->read_lane(E, hi, src), E->i64, "");
    LLVMValueRef addr = LLVMBuildOr(BLD, l, LLVMBuildShl(BLD, h, c64(E, 32), ""), "");
    addr = LLVMBuildAdd(BLD, addr, LLVMBuildZExt(BLD, off, E->i64, ""), "");
    if (shared && E->t->smem_in_ctx) {
        LLVMValueRef base = smem_base(E);
        return gep8(E, base, LLVMBuildSub(BLD, addr, LLVMBuildPtrToInt(BLD, base, E->i64, ""), ""));
    }
    return LLVMBuildIntToPtr(BLD, addr, E->ptr, "");
}

/* m8n8 .b16, per matrix i: lane i*8+r supplies the address of row r. Lane l's fragment register i holds the
 * elements (r, c) for h = 0, 1 (low/high half): r = l/4, c = (l%4)*2 + h, or with .trans r = (l%4)*2 + h,
 * c = l/4. So each lane fetches the row addresses it needs by shuffles and moves its own 32 bits: one 4-byte
 * access without .trans (rows are 16-byte aligned), two 2-byte accesses with it. */
static void ldst_matrix(emit_ctx *E, const lane_ops *L, unsigned op, LLVMValueRef io) {
    bool ld = (op & 0xffu) == P2N_MX_LDMATRIX, trans = op & P2N_MX_TRANS, shared = op & P2N_MX_SHARED;
    unsigned n = P2N_MX_NUM(op);
    LLVMValueRef a64 = LLVMBuildLoad2(BLD, E->i64, io, "");
    LLVMSetAlignment(a64, 8);
    LLVMValueRef lo = LLVMBuildTrunc(BLD, a64, E->i32, "");
    LLVMValueRef hi = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, a64, c64(E, 32), ""), E->i32, "");
    LLVMValueRef l = L->laneid(E), g = LLVMBuildLShr(BLD, l, c32(E, 2), ""), t = LLVMBuildAnd(BLD, l, c32(E, 3), "");
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef reg = io_at(E, io, 2 + i);
        if (!trans) {
            LLVMValueRef p = row_ptr(E, L, lo, hi, LLVMBuildAdd(BLD, g, c32(E, 8 * i), ""), LLVMBuildShl(BLD, t, c32(E, 2), ""),
                                     shared);
            if (ld) {
                LLVMValueRef v = LLVMBuildLoad2(BLD, E->i32, p, "");
                LLVMSetAlignment(v, 4);
                LLVMBuildStore(BLD, v, reg);
            } else {
                LLVMSetAlignment(LLVMBuildStore(BLD, LLVMBuildLoad2(BLD, E->i32, reg, ""), p), 4);
            }
            continue;
        }
        LLVMValueRef half[2], word = ld ? NULL : LLVMBuildLoad2(BLD, E->i32, reg, "");
        for (unsigned h = 0; h < 2; h++) {
            LLVMValueRef r = LLVMBuildAdd(BLD, LLVMBuildShl(BLD, t, c32(E, 1), ""), c32(E, 8 * i + h), "");
            LLVMValueRef p = row_ptr(E, L, lo, hi, r, LLVMBuildShl(BLD, g, c32(E, 1), ""), shared);
            if (ld) {
                LLVMValueRef v = LLVMBuildLoad2(BLD, E->i16, p, "");
                LLVMSetAlignment(v, 2);
                half[h] = LLVMBuildZExt(BLD, v, E->i32, "");
            } else {
                LLVMValueRef v = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, word, c32(E, 16 * h), ""), E->i16, "");
                LLVMSetAlignment(LLVMBuildStore(BLD, v, p), 2);
            }
        }
        if (ld) LLVMBuildStore(BLD, LLVMBuildOr(BLD, half[0], LLVMBuildShl(BLD, half[1], c32(E, 16), ""), ""), reg);
    }
}

/* a: ctx op io (emit_matrix.c); false for a kind without a lowering here (the caller diagnoses) */
bool lanes_warp_matrix(emit_ctx *E, const lane_ops *L, unsigned op, LLVMValueRef io) {
    switch (op & 0xffu) {
    case P2N_MX_LDMATRIX:
    case P2N_MX_STMATRIX: ldst_matrix(E, L, op, io); return true;
    case P2N_MX_MMA_F16_F32_M16N8K16:
    case P2N_MX_MMA_S8_S32_M16N8K32: mma_m16n8(E, L, op & 0xffu, io); return true;
    case P2N_MX_WMMA_F16_F32_M16N16K16: wmma_mma(E, L, io); return true;
    case P2N_MX_WMMA_LOAD:
    case P2N_MX_WMMA_STORE: wmma_ldst(E, L, op, io); return true;
    default: return lanes_mma_generic(E, L, op, io);
    }
}
