/* emit_lanes_mma.c — the generic warp-matrix forms (abi/mx_forms.h) on the lane primitives of
 * emit_lanes.h, bit-exact with the CPU runtime (driver-stub/cpu/cpu_mma.c, whose header states the arithmetic):
 *   mma:  every lane gathers the whole A and B of the warp into private arrays (a loop over the 32 source lanes,
 *         one lane read per fragment word, the element positions from the fragment layout of that lane), then
 *         computes its own D elements from the rows and columns it needs;
 *   wmma fragment load/store: lane-local (our fragment layout), element by element;
 *   movmatrix: two lane reads per lane;
 *   mma.sp: the compressed A (raw) and the metadata words of all lanes gathered the same way, then expanded into
 *         the dense A (a loop over its elements, mx_forms.h) and the dense product computed as for mma.
 * The layouts are the formulas of mx_forms.h, built here in IR for a lane number known at run time. */
#include "mx_forms.h"
#include "emit_lanes.h"

#define BLD E->B

static LLVMValueRef io_at(emit_ctx *E, LLVMValueRef io, unsigned k) { return gep8(E, io, c64(E, 4ull * k)); }
static LLVMValueRef word(emit_ctx *E, LLVMValueRef io, unsigned k) {
    return LLVMBuildLoad2(BLD, E->i32, io_at(E, io, k), "");
}
static LLVMValueRef add(emit_ctx *E, LLVMValueRef a, unsigned k) { return LLVMBuildAdd(BLD, a, c32(E, k), ""); }
static LLVMValueRef mul(emit_ctx *E, LLVMValueRef a, unsigned k) { return LLVMBuildMul(BLD, a, c32(E, k), ""); }

/* mx_forms.h p2n_mx_elem for a run-time lane */
static void elem_ir(emit_ctx *E, const p2n_mx *f, unsigned x, unsigned t, LLVMValueRef lane, unsigned slot,
                    LLVMValueRef *row, LLVMValueRef *col) {
    unsigned r, c;
    p2n_mx_dims(f, x, t, &r, &c);
    if (f->wmma) {
        LLVMValueRef q = add(E, mul(E, lane, r * c / 32), slot);
        *row = LLVMBuildUDiv(BLD, q, c32(E, c), "");
        *col = LLVMBuildURem(BLD, q, c32(E, c), "");
        return;
    }
    unsigned bits = p2n_mx_bits(t), P = bits >= 32 ? 1 : 32 / bits, j = slot / P, e = slot % P;
    LLVMValueRef g = LLVMBuildLShr(BLD, lane, c32(E, 2), ""), tg = LLVMBuildAnd(BLD, lane, c32(E, 3), "");
    if (x == MXF_A) {
        *row = f->m == 16 ? add(E, g, 8 * (j & 1)) : g;
        *col = add(E, mul(E, tg, P), e + (f->m == 16 ? 4 * P * (j >> 1) : 0));
    } else if (x == MXF_B) {
        *row = add(E, mul(E, tg, P), e + 4 * P * j);
        *col = g;
    } else {
        *row = add(E, g, 8 * (slot >> 1));
        *col = add(E, mul(E, tg, 2), slot & 1);
    }
}

/* element `slot` (bits wide) of the fragment words w[]: i32, or i64 for 64-bit elements */
static LLVMValueRef raw_get(emit_ctx *E, LLVMValueRef *w, unsigned slot, unsigned bits) {
    if (bits == 64) {
        LLVMValueRef lo = LLVMBuildZExt(BLD, w[2 * slot], E->i64, ""), hi = LLVMBuildZExt(BLD, w[2 * slot + 1], E->i64, "");
        return LLVMBuildOr(BLD, lo, LLVMBuildShl(BLD, hi, c64(E, 32), ""), "");
    }
    if (bits == 32) return w[slot];
    unsigned b = slot * bits;
    return LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, w[b / 32], c32(E, b % 32), ""), c32(E, (1u << bits) - 1), "");
}

/* OR element `slot` into the words w[] (zero-initialised by the caller) */
static void raw_put(emit_ctx *E, LLVMValueRef *w, unsigned slot, unsigned bits, LLVMValueRef v) {
    if (bits == 64) {
        w[2 * slot] = LLVMBuildTrunc(BLD, v, E->i32, "");
        w[2 * slot + 1] = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, v, c64(E, 32), ""), E->i32, "");
        return;
    }
    unsigned b = slot * bits;
    if (bits < 32) v = LLVMBuildAnd(BLD, v, c32(E, (1u << bits) - 1), "");
    w[b / 32] = LLVMBuildOr(BLD, w[b / 32], LLVMBuildShl(BLD, v, c32(E, b % 32), ""), "");
}

static bool is_float(unsigned t) {
    return t != MXE_S8 && t != MXE_U8 && t != MXE_S4 && t != MXE_U4 && t != MXE_B1 && t != MXE_S32;
}

/* e4m3 (bias 7, no infinities, S.1111.111 NaN) -> f32, exact */
static LLVMValueRef e4m3_to_f32(emit_ctx *E, LLVMValueRef v) {
    LLVMValueRef sign = LLVMBuildShl(BLD, LLVMBuildAnd(BLD, v, c32(E, 0x80), ""), c32(E, 24), "");
    LLVMValueRef ex = LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, v, c32(E, 3), ""), c32(E, 15), "");
    LLVMValueRef man = LLVMBuildAnd(BLD, v, c32(E, 7), "");
    LLVMValueRef norm = LLVMBuildOr(BLD, LLVMBuildShl(BLD, add(E, ex, 120), c32(E, 23), ""),
                                    LLVMBuildShl(BLD, man, c32(E, 20), ""), "");
    LLVMValueRef sub = LLVMBuildFMul(BLD, LLVMBuildUIToFP(BLD, man, E->f32, ""), LLVMConstReal(E->f32, 0x1p-9), "");
    LLVMValueRef mag = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, ex, c32(E, 0), ""), LLVMBuildBitCast(BLD, sub, E->i32, ""), norm);
    LLVMValueRef nan = LLVMBuildICmp(BLD, LLVMIntEQ, LLVMBuildAnd(BLD, v, c32(E, 0x7f), ""), c32(E, 0x7f), "");
    mag = sel(E, nan, c32(E, 0x7fc00000u), mag);
    return LLVMBuildBitCast(BLD, LLVMBuildOr(BLD, mag, sign, ""), E->f32, "");
}

/* a raw element -> its value: f32 for the small floating types, f64, or i32 (integers, b1 words) */
static LLVMValueRef value_of(emit_ctx *E, unsigned t, LLVMValueRef raw) {
    switch (t) {
    case MXE_F16: return half_to_float(E, LLVMBuildTrunc(BLD, raw, E->i16, ""), false);
    case MXE_BF16: return half_to_float(E, LLVMBuildTrunc(BLD, raw, E->i16, ""), true);
    case MXE_TF32: return LLVMBuildBitCast(BLD, LLVMBuildAnd(BLD, raw, c32(E, ~0x1fffu), ""), E->f32, "");
    case MXE_F32: return LLVMBuildBitCast(BLD, raw, E->f32, "");
    case MXE_F64: return LLVMBuildBitCast(BLD, raw, E->f64, "");
    case MXE_E5M2: /* the high byte of an f16 */
        return half_to_float(E, LLVMBuildTrunc(BLD, LLVMBuildShl(BLD, raw, c32(E, 8), ""), E->i16, ""), false);
    case MXE_E4M3: return e4m3_to_f32(E, raw);
    case MXE_S8: return LLVMBuildSExt(BLD, LLVMBuildTrunc(BLD, raw, E->i8, ""), E->i32, "");
    case MXE_S4: return LLVMBuildSub(BLD, LLVMBuildXor(BLD, raw, c32(E, 8), ""), c32(E, 8), "");
    default: return raw; /* u8, u4 (masked by raw_get), s32, b1 words */
    }
}

static LLVMTypeRef value_type(emit_ctx *E, unsigned t) {
    return t == MXE_F64 ? E->f64 : is_float(t) ? E->f32 : E->i32;
}

/* gather fragment x of all 32 lanes (words at `base` of each io block) into arr[row * cols + col]: the values,
 * or (raw) the raw element bits as i32; meta (when not NULL) gets word meta_word of every lane */
static void gather(emit_ctx *E, const lane_ops *L, const p2n_mx *f, unsigned x, unsigned t, LLVMValueRef io,
                   unsigned base, LLVMValueRef arr, bool raw, LLVMValueRef meta, unsigned meta_word) {
    unsigned per = p2n_mx_per_lane(f, x, t), bits = p2n_mx_bits(t), rows, cols;
    unsigned nw = (per * bits + 31) / 32;
    p2n_mx_dims(f, x, t, &rows, &cols);
    LLVMTypeRef vt = raw ? E->i32 : value_type(E, t);
    LLVMValueRef mine[64], my_meta = meta ? word(E, io, meta_word) : NULL;
    for (unsigned w = 0; w < nw; w++) mine[w] = word(E, io, base + w);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(BLD), loop = new_bb(E, "mx.gather"), done = new_bb(E, "mx.gathered");
    LLVMBuildBr(BLD, loop);
    LLVMPositionBuilderAtEnd(BLD, loop);
    LLVMValueRef s = LLVMBuildPhi(BLD, E->i32, "");
    LLVMValueRef w[64];
    for (unsigned i = 0; i < nw; i++) w[i] = L->read_lane(E, mine[i], s);
    if (meta) LLVMBuildStore(BLD, L->read_lane(E, my_meta, s), LLVMBuildGEP2(BLD, E->i32, meta, &s, 1, ""));
    for (unsigned slot = 0; slot < per; slot++) {
        LLVMValueRef r, c;
        elem_ir(E, f, x, t, s, slot, &r, &c);
        LLVMValueRef idx = LLVMBuildAdd(BLD, mul(E, r, cols), c, "");
        LLVMValueRef p = LLVMBuildGEP2(BLD, vt, arr, &idx, 1, "");
        LLVMValueRef v = raw_get(E, w, slot, bits);
        LLVMBuildStore(BLD, raw ? v : value_of(E, t, v), p);
    }
    LLVMValueRef s2 = add(E, s, 1);
    LLVMBasicBlockRef end = LLVMGetInsertBlock(BLD);
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntULT, s2, c32(E, 32), ""), loop, done);
    LLVMAddIncoming(s, (LLVMValueRef[]){c32(E, 0), s2}, (LLVMBasicBlockRef[]){pre, end}, 2);
    LLVMPositionBuilderAtEnd(BLD, done);
}

/* mma.sp (cpu_mma.c sp_dense, gather_sparse): the compressed A and the metadata of the warp expanded into the
 * dense values A[r * K + k], in a loop over the M K elements; P[r * K + k] (i8) 1 for a pruned place */
static void gather_sparse(emit_ctx *E, const lane_ops *L, const p2n_mx *f, LLVMValueRef io, LLVMValueRef A,
                          LLVMValueRef P) {
    unsigned t = f->ta, eb = p2n_mx_bits(t), ub = p2n_mx_sp_unit(t), parts = eb > ub ? eb / ub : 1;
    unsigned w = eb < ub ? eb : ub, rows, cc, K = f->k;
    p2n_mx_dims(f, MXF_A, t, &rows, &cc);
    LLVMValueRef comp = LLVMBuildAlloca(E->AB, LLVMArrayType(E->i32, rows * cc), "mx.sp");
    LLVMValueRef meta = LLVMBuildAlloca(E->AB, LLVMArrayType(E->i32, 32), "mx.meta");
    gather(E, L, f, MXF_A, t, io, 0, comp, true, meta, p2n_mx_sp_meta_word(f));
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(BLD), loop = new_bb(E, "mx.expand"), done = new_bb(E, "mx.expanded");
    LLVMBuildBr(BLD, loop);
    LLVMPositionBuilderAtEnd(BLD, loop);
    LLVMValueRef q = LLVMBuildPhi(BLD, E->i32, "");
    LLVMValueRef r = LLVMBuildUDiv(BLD, q, c32(E, K), ""), k = LLVMBuildURem(BLD, q, c32(E, K), "");
    /* the metadata of chunk c of row r (mx_forms.h p2n_mx_sp_meta), from lane0 = 4 (r % 8) + sel Ku / 16:
     * 16-bit units: lane lane0 + c / 4, nibble at 16 (r / 8) + 4 (c % 4);
     * 8-bit units: lane lane0 + r / 8 + 2 (c / 8), nibble at 4 (c % 8) */
    bool unit16 = ub == 16;
    LLVMValueRef lane0 = add(E, mul(E, LLVMBuildAnd(BLD, r, c32(E, 7), ""), 4), f->sel * (p2n_mx_sp_row_units(f) / 16));
    LLVMValueRef half = LLVMBuildLShr(BLD, r, c32(E, 3), "");
    LLVMValueRef hi = unit16 ? mul(E, half, 16) : c32(E, 0);
    if (!unit16) lane0 = LLVMBuildAdd(BLD, lane0, half, "");
    LLVMValueRef crow = mul(E, r, cc), raw = c32(E, 0), found = ci(E->i1, 0);
    for (unsigned h = 0; h < parts; h++) {
        LLVMValueRef at = add(E, mul(E, k, eb), h * ub);
        LLVMValueRef u = LLVMBuildUDiv(BLD, at, c32(E, ub), ""), off = LLVMBuildURem(BLD, at, c32(E, ub), "");
        LLVMValueRef ch = LLVMBuildLShr(BLD, u, c32(E, 2), ""), pos = LLVMBuildAnd(BLD, u, c32(E, 3), "");
        LLVMValueRef lane = LLVMBuildAdd(BLD, lane0,
                                         unit16 ? LLVMBuildLShr(BLD, ch, c32(E, 2), "")
                                                : mul(E, LLVMBuildLShr(BLD, ch, c32(E, 3), ""), 2), "");
        LLVMValueRef bit = LLVMBuildAdd(BLD, hi, mul(E, LLVMBuildAnd(BLD, ch, c32(E, unit16 ? 3 : 7), ""), 4), "");
        LLVMValueRef mv = LLVMBuildLoad2(BLD, E->i32, LLVMBuildGEP2(BLD, E->i32, meta, &lane, 1, ""), "");
        LLVMValueRef nib = LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, mv, bit, ""), c32(E, 15), "");
        LLVMValueRef second = LLVMBuildICmp(BLD, LLVMIntEQ, LLVMBuildLShr(BLD, nib, c32(E, 2), ""), pos, "");
        LLVMValueRef first = LLVMBuildICmp(BLD, LLVMIntEQ, LLVMBuildAnd(BLD, nib, c32(E, 3), ""), pos, "");
        LLVMValueRef src = LLVMBuildAdd(BLD, mul(E, ch, 2), LLVMBuildZExt(BLD, second, E->i32, ""), "");
        LLVMValueRef sb = LLVMBuildAdd(BLD, mul(E, src, ub), off, "");
        LLVMValueRef ci = LLVMBuildAdd(BLD, crow, LLVMBuildUDiv(BLD, sb, c32(E, eb), ""), "");
        LLVMValueRef cv = LLVMBuildLoad2(BLD, E->i32, LLVMBuildGEP2(BLD, E->i32, comp, &ci, 1, ""), "");
        LLVMValueRef part = LLVMBuildLShr(BLD, cv, LLVMBuildURem(BLD, sb, c32(E, eb), ""), "");
        if (w < 32) part = LLVMBuildAnd(BLD, part, c32(E, (1u << w) - 1), "");
        LLVMValueRef here = LLVMBuildOr(BLD, first, second, "");
        part = sel(E, here, part, c32(E, 0)); /* a pruned place: zero */
        found = LLVMBuildOr(BLD, found, here, "");
        raw = LLVMBuildOr(BLD, raw, LLVMBuildShl(BLD, part, c32(E, h * ub), ""), "");
    }
    LLVMBuildStore(BLD, value_of(E, t, raw), LLVMBuildGEP2(BLD, value_type(E, t), A, &q, 1, ""));
    LLVMBuildStore(BLD, LLVMBuildZExt(BLD, LLVMBuildNot(BLD, found, ""), E->i8, ""), LLVMBuildGEP2(BLD, E->i8, P, &q, 1, ""));
    LLVMValueRef q2 = add(E, q, 1);
    LLVMBasicBlockRef end = LLVMGetInsertBlock(BLD);
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntULT, q2, c32(E, rows * K), ""), loop, done);
    LLVMAddIncoming(q, (LLVMValueRef[]){c32(E, 0), q2}, (LLVMBasicBlockRef[]){pre, end}, 2);
    LLVMPositionBuilderAtEnd(BLD, done);
}

static LLVMValueRef is_nonfinite(emit_ctx *E, LLVMValueRef x) {
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef ax = intrin(E, "llvm.fabs", &t, 1, &x, 1);
    return LLVMBuildFCmp(BLD, LLVMRealUGE, ax, LLVMConstReal(t, __builtin_inf()), "");
}

/* f64 -> f16 bits (i32), rounded once to nearest even, in integer arithmetic (no half type: SPIR-V 1.2 has no
 * Float16). NaN is the caller's business. sig 2^(e-52) with d = 42 + max(0, -14 - e) bits dropped gives the
 * f16 significand q; the bits are (max(e, -14) + 14) << 10 + q (q's carry into the exponent included), at most
 * 0x7c00 (overflow to infinity). */
static LLVMValueRef d_to_half(emit_ctx *E, LLVMValueRef d) {
    LLVMValueRef u = LLVMBuildBitCast(BLD, d, E->i64, "");
    LLVMValueRef sign = LLVMBuildTrunc(BLD, LLVMBuildShl(BLD, LLVMBuildLShr(BLD, u, c64(E, 63), ""), c64(E, 15), ""), E->i32, "");
    LLVMValueRef ex = LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, u, c64(E, 52), ""), c64(E, 0x7ff), "");
    LLVMValueRef sig = LLVMBuildOr(BLD, LLVMBuildAnd(BLD, u, c64(E, (1ull << 52) - 1), ""), c64(E, 1ull << 52), "");
    LLVMValueRef e = LLVMBuildSub(BLD, ex, c64(E, 1023), "");
    LLVMValueRef lo = c64(E, (uint64_t)-14), emax = sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, e, lo, ""), lo, e);
    LLVMValueRef dr = LLVMBuildAdd(BLD, c64(E, 42), LLVMBuildSub(BLD, emax, e, ""), "");
    dr = sel(E, LLVMBuildICmp(BLD, LLVMIntUGT, dr, c64(E, 63), ""), c64(E, 63), dr);
    LLVMValueRef q = LLVMBuildLShr(BLD, sig, dr, "");
    LLVMValueRef rem = LLVMBuildAnd(BLD, sig, LLVMBuildSub(BLD, LLVMBuildShl(BLD, c64(E, 1), dr, ""), c64(E, 1), ""), "");
    LLVMValueRef half = LLVMBuildShl(BLD, c64(E, 1), LLVMBuildSub(BLD, dr, c64(E, 1), ""), "");
    LLVMValueRef up = LLVMBuildOr(BLD, LLVMBuildICmp(BLD, LLVMIntUGT, rem, half, ""),
                                  LLVMBuildAnd(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, rem, half, ""),
                                               LLVMBuildTrunc(BLD, q, E->i1, ""), ""), "");
    q = LLVMBuildAdd(BLD, q, LLVMBuildZExt(BLD, up, E->i64, ""), "");
    LLVMValueRef bits = LLVMBuildAdd(BLD, LLVMBuildShl(BLD, LLVMBuildAdd(BLD, emax, c64(E, 14), ""), c64(E, 10), ""), q, "");
    bits = sel(E, LLVMBuildICmp(BLD, LLVMIntSGT, bits, c64(E, 0x7c00), ""), c64(E, 0x7c00), bits);
    bits = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, ex, c64(E, 0), ""), c64(E, 0), bits);
    return LLVMBuildOr(BLD, LLVMBuildTrunc(BLD, bits, E->i32, ""), sign, "");
}

/* the frexp exponent of a nonzero finite f32 x from its exponent field, at least emin (>= -125: an f32
 * subnormal counts as the smallest normal) */
static LLVMValueRef exp_of(emit_ctx *E, LLVMValueRef x, int emin) {
    LLVMValueRef ef = LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, LLVMBuildBitCast(BLD, x, E->i32, ""), c32(E, 23), ""),
                                   c32(E, 0xff), "");
    LLVMValueRef e = LLVMBuildSub(BLD, ef, c32(E, 126), ""), lo = c32(E, (uint32_t)emin);
    return sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, e, lo, ""), lo, e);
}

/* 2^e as f64 (-1022 <= e <= 1023), e an i32 */
static LLVMValueRef pow2_f64(emit_ctx *E, LLVMValueRef e) {
    LLVMValueRef b = LLVMBuildSExt(BLD, LLVMBuildAdd(BLD, e, c32(E, 1023), ""), E->i64, "");
    return LLVMBuildBitCast(BLD, LLVMBuildShl(BLD, b, c64(E, 52), ""), E->f64, "");
}

static LLVMValueRef nonzero(emit_ctx *E, LLVMValueRef x) {
    return LLVMBuildFCmp(BLD, LLVMRealONE, x, LLVMConstReal(LLVMTypeOf(x), 0.0), "");
}

/* cpu_mma.c p2n_tc_dot_f32: c + sum a[k] b[k] (f32 values) as the H200's HMMA forms it -> f32 bits (i32). E the
 * largest of exp(a) + exp(b) over nonzero factor pairs and exp(c) + 1 (exponents at least emin, c's at least
 * -125); the terms scaled by 2^(27-E), truncated to i64 and summed; the sum times 2^(E-27) (exact in f64) rounded
 * toward zero to f32, 2^128 and beyond infinity, a zero sum +0; no nonzero term: +0.
 * Specials: NaN (canonical) for a NaN term, +inf with -inf, or inf * 0; else an infinite term's infinity. */
LLVMValueRef lanes_tc_dot_f32(emit_ctx *E, LLVMValueRef c, const LLVMValueRef *a, const LLVMValueRef *b, unsigned n,
                              int emin) {
    LLVMTypeRef f64 = E->f64;
    LLVMValueRef inf = LLVMConstReal(f64, __builtin_inf()), ninf_c = LLVMConstReal(f64, -__builtin_inf());
    LLVMValueRef cd = LLVMBuildFPExt(BLD, c, f64, ""), p[64];
    LLVMValueRef nan = LLVMBuildFCmp(BLD, LLVMRealUNO, cd, cd, "");
    LLVMValueRef pinf = LLVMBuildFCmp(BLD, LLVMRealOEQ, cd, inf, ""), ninf = LLVMBuildFCmp(BLD, LLVMRealOEQ, cd, ninf_c, "");
    LLVMValueRef emax = c32(E, (uint32_t)-100000), any = ci(E->i1, 0);
    for (unsigned k = 0; k < n; k++) {
        p[k] = LLVMBuildFMul(BLD, LLVMBuildFPExt(BLD, a[k], f64, ""), LLVMBuildFPExt(BLD, b[k], f64, ""), "");
        nan = LLVMBuildOr(BLD, nan, LLVMBuildFCmp(BLD, LLVMRealUNO, p[k], p[k], ""), "");
        pinf = LLVMBuildOr(BLD, pinf, LLVMBuildFCmp(BLD, LLVMRealOEQ, p[k], inf, ""), "");
        ninf = LLVMBuildOr(BLD, ninf, LLVMBuildFCmp(BLD, LLVMRealOEQ, p[k], ninf_c, ""), "");
        LLVMValueRef nz = LLVMBuildAnd(BLD, nonzero(E, a[k]), nonzero(E, b[k]), "");
        LLVMValueRef e = LLVMBuildAdd(BLD, exp_of(E, a[k], emin), exp_of(E, b[k], emin), "");
        emax = sel(E, LLVMBuildAnd(BLD, nz, LLVMBuildICmp(BLD, LLVMIntSGT, e, emax, ""), ""), e, emax);
        any = LLVMBuildOr(BLD, any, nz, "");
    }
    LLVMValueRef nzc = nonzero(E, c), ec = add(E, exp_of(E, c, -125), 1);
    emax = sel(E, LLVMBuildAnd(BLD, nzc, LLVMBuildICmp(BLD, LLVMIntSGT, ec, emax, ""), ""), ec, emax);
    any = LLVMBuildOr(BLD, any, nzc, "");
    /* with no nonzero term emax is the sentinel: clamp it so the (unused) scale stays a number */
    emax = sel(E, any, emax, c32(E, 0));
    LLVMValueRef scale = pow2_f64(E, LLVMBuildSub(BLD, c32(E, 27), emax, ""));
    LLVMValueRef S = LLVMBuildFPToSI(BLD, LLVMBuildFMul(BLD, cd, scale, ""), E->i64, "");
    for (unsigned k = 0; k < n; k++)
        S = LLVMBuildAdd(BLD, S, LLVMBuildFPToSI(BLD, LLVMBuildFMul(BLD, p[k], scale, ""), E->i64, ""), "");
    LLVMValueRef x = LLVMBuildFMul(BLD, LLVMBuildSIToFP(BLD, S, f64, ""), pow2_f64(E, add(E, emax, (unsigned)-27)), "");
    LLVMValueRef ax = intrin(E, "llvm.fabs", &f64, 1, &x, 1), y = LLVMBuildFPTrunc(BLD, x, E->f32, "");
    LLVMValueRef ay = LLVMBuildFPExt(BLD, y, f64, "");
    ay = intrin(E, "llvm.fabs", &f64, 1, &ay, 1);
    LLVMValueRef yb = LLVMBuildBitCast(BLD, y, E->i32, "");
    yb = sel(E, LLVMBuildFCmp(BLD, LLVMRealOGT, ay, ax, ""), LLVMBuildSub(BLD, yb, c32(E, 1), ""), yb);
    LLVMValueRef xinf = sel(E, LLVMBuildFCmp(BLD, LLVMRealOGT, x, LLVMConstReal(f64, 0.0), ""), c32(E, 0x7f800000u),
                            c32(E, 0xff800000u));
    yb = sel(E, LLVMBuildFCmp(BLD, LLVMRealOGE, ax, LLVMConstReal(f64, 0x1p128), ""), xinf, yb);
    yb = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, S, c64(E, 0), ""), c32(E, 0), yb);
    yb = sel(E, any, yb, c32(E, 0)); /* zeros only: +0 whatever their signs (probe_mma_m16n8k16_f32_f16_edges) */
    LLVMValueRef sinf = sel(E, pinf, c32(E, 0x7f800000u), c32(E, 0xff800000u));
    yb = sel(E, LLVMBuildOr(BLD, pinf, ninf, ""), sinf, yb);
    return sel(E, LLVMBuildOr(BLD, nan, LLVMBuildAnd(BLD, pinf, ninf, ""), ""), c32(E, 0x7fffffffu), yb);
}

/* cpu_mma.c f16_hmma: the value (f64) of an f16 result c (f64) + sum a[k] b[k]: the exact sum rounded once to
 * nearest f16; an infinite or NaN term: the f32 sum in k order */
static LLVMValueRef f16_hmma(emit_ctx *E, LLVMValueRef c, const LLVMValueRef *a, const LLVMValueRef *b, unsigned n) {
    LLVMValueRef special = is_nonfinite(E, c), s = c, x = LLVMBuildFPTrunc(BLD, c, E->f32, "");
    for (unsigned k = 0; k < n; k++) {
        LLVMValueRef p = LLVMBuildFMul(BLD, LLVMBuildFPExt(BLD, a[k], E->f64, ""), LLVMBuildFPExt(BLD, b[k], E->f64, ""), "");
        special = LLVMBuildOr(BLD, special, is_nonfinite(E, p), "");
        s = LLVMBuildFAdd(BLD, s, p, "");
        x = LLVMBuildFAdd(BLD, x, LLVMBuildFMul(BLD, a[k], b[k], ""), "");
    }
    LLVMValueRef h = half_to_float(E, LLVMBuildTrunc(BLD, d_to_half(E, s), E->i16, ""), false);
    return sel(E, special, LLVMBuildFPExt(BLD, x, E->f64, ""), LLVMBuildFPExt(BLD, h, E->f64, ""));
}

/* f64 value -> f16 bits (i32), NaN canonical */
static LLVMValueRef half_bits(emit_ctx *E, LLVMValueRef v) {
    return sel(E, LLVMBuildFCmp(BLD, LLVMRealUNO, v, v, ""), c32(E, 0x7fffu), d_to_half(E, v));
}

/* cpu_mma.c fp8_sm90: two HMMA from zero over k % 4 in {0, 1}, then {2, 3}; C added by FADD / HADD2 */
static LLVMValueRef fp8_sm90(emit_ctx *E, const p2n_mx *f, const LLVMValueRef *av, const LLVMValueRef *bv,
                             LLVMValueRef craw) {
    unsigned K = f->k;
    LLVMValueRef a[2][32], b[2][32]; /* K up to 64 (mma.sp m16n8k64) */
    for (unsigned k = 0; k < K; k++) { /* mma.sp: chunks of even and odd index (cpu_mma.c) */
        unsigned h = f->sparse ? (k >> 2) & 1 : (k >> 1) & 1;
        unsigned i = f->sparse ? (k >> 3) * 4 + (k & 3) : (k >> 2) * 2 + (k & 1);
        a[h][i] = av[k];
        b[h][i] = bv[k];
    }
    LLVMValueRef cv = value_of(E, f->tc, craw);
    if (f->td == MXE_F16) {
        LLVMValueRef acc = f16_hmma(E, LLVMConstReal(E->f64, 0.0), a[0], b[0], K / 2);
        acc = f16_hmma(E, acc, a[1], b[1], K / 2);
        return half_bits(E, LLVMBuildFAdd(BLD, LLVMBuildFPExt(BLD, cv, E->f64, ""), acc, ""));
    }
    LLVMValueRef acc = lanes_tc_dot_f32(E, LLVMConstReal(E->f32, 0.0), a[0], b[0], K / 2, P2N_TC_EMIN_F16);
    acc = lanes_tc_dot_f32(E, LLVMBuildBitCast(BLD, acc, E->f32, ""), a[1], b[1], K / 2, P2N_TC_EMIN_F16);
    LLVMValueRef d = LLVMBuildFAdd(BLD, cv, LLVMBuildBitCast(BLD, acc, E->f32, ""), "");
    return sel(E, LLVMBuildFCmp(BLD, LLVMRealUNO, d, d, ""), c32(E, 0x7fffffffu), LLVMBuildBitCast(BLD, d, E->i32, ""));
}

/* one D element (raw bits, i32 or i64) from row r of A, column c of B and the raw C element; P (mma.sp, else
 * NULL) the pruned places of A, whose products are dropped (B taken as 0, cpu_mma.c sp_dense) */
static LLVMValueRef dot(emit_ctx *E, const p2n_mx *f, LLVMValueRef A, LLVMValueRef B, LLVMValueRef P, LLVMValueRef r,
                        LLVMValueRef c, LLVMValueRef craw) {
    unsigned K = f->k, N = f->n;
    LLVMTypeRef at = value_type(E, f->ta), bt = value_type(E, f->tb);
    LLVMValueRef a0 = mul(E, r, K);
    LLVMValueRef av[128], bv[128]; /* K up to 128 (mma.sp m16n8k128 .u4) */
    for (unsigned k = 0; k < K; k++) {
        LLVMValueRef ia = add(E, a0, k), ib = LLVMBuildAdd(BLD, c32(E, k * N), c, "");
        av[k] = LLVMBuildLoad2(BLD, at, LLVMBuildGEP2(BLD, at, A, &ia, 1, ""), "");
        bv[k] = LLVMBuildLoad2(BLD, bt, LLVMBuildGEP2(BLD, bt, B, &ib, 1, ""), "");
        if (P && is_float(f->tb)) {
            LLVMValueRef pr = LLVMBuildLoad2(BLD, E->i8, LLVMBuildGEP2(BLD, E->i8, P, &ia, 1, ""), "");
            bv[k] = sel(E, LLVMBuildTrunc(BLD, pr, E->i1, ""), LLVMConstReal(bt, 0.0), bv[k]);
        }
    }
    if (f->ta == MXE_F64) {
        LLVMValueRef d = LLVMBuildBitCast(BLD, craw, E->f64, "");
        for (unsigned k = 0; k < K; k++) {
            LLVMValueRef args[3] = {av[k], bv[k], d};
            d = intrin(E, "llvm.fma", &E->f64, 1, args, 3);
        }
        return LLVMBuildBitCast(BLD, d, E->i64, "");
    }
    if (f->ta == MXE_E4M3 || f->ta == MXE_E5M2) return fp8_sm90(E, f, av, bv, craw);
    if (is_float(f->ta)) {
        LLVMValueRef cf = value_of(E, f->tc, craw);
        if (f->td == MXE_F16) return half_bits(E, f16_hmma(E, LLVMBuildFPExt(BLD, cf, E->f64, ""), av, bv, K));
        /* cpu_mma.c compute: wmma .tf32 in steps of k = 4 */
        unsigned blk = f->wmma && f->ta == MXE_TF32 ? 4 : K;
        LLVMValueRef acc = cf;
        for (unsigned k0 = 0; k0 < K; k0 += blk)
            acc = LLVMBuildBitCast(BLD, lanes_tc_dot_f32(E, acc, av + k0, bv + k0, blk, p2n_mx_emin(f->ta)), E->f32, "");
        return LLVMBuildBitCast(BLD, acc, E->i32, "");
    }
    LLVMValueRef s = LLVMBuildSExt(BLD, craw, E->i64, "");
    for (unsigned k = 0; k < K; k++) {
        LLVMValueRef p;
        if (f->ta == MXE_B1) {
            LLVMValueRef v = f->op == MXO_AND_POPC ? LLVMBuildAnd(BLD, av[k], bv[k], "") : LLVMBuildXor(BLD, av[k], bv[k], "");
            p = intrin(E, "llvm.ctpop", &E->i32, 1, &v, 1);
        } else {
            p = LLVMBuildMul(BLD, av[k], bv[k], "");
        }
        /* |a b| <= 255 * 255 and popc <= 32: every product fits i32, the sum i64 */
        s = LLVMBuildAdd(BLD, s, LLVMBuildSExt(BLD, p, E->i64, ""), "");
    }
    if (f->satf) {
        LLVMValueRef hi = c64(E, (uint64_t)INT32_MAX), lo = c64(E, (uint64_t)(int64_t)INT32_MIN);
        s = sel(E, LLVMBuildICmp(BLD, LLVMIntSGT, s, hi, ""), hi, s);
        s = sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, s, lo, ""), lo, s);
    }
    return LLVMBuildTrunc(BLD, s, E->i32, "");
}

static void mma(emit_ctx *E, const lane_ops *L, const p2n_mx *f, LLVMValueRef io) {
    unsigned wa = p2n_mx_words(f, MXF_A, f->ta), wb = p2n_mx_words(f, MXF_B, f->tb), wc = p2n_mx_words(f, MXF_C, f->tc);
    LLVMValueRef A = LLVMBuildAlloca(E->AB, LLVMArrayType(value_type(E, f->ta), f->m * f->k), "mx.a");
    LLVMValueRef B = LLVMBuildAlloca(E->AB, LLVMArrayType(value_type(E, f->tb), f->k * f->n), "mx.b");
    LLVMValueRef P = NULL;
    if (f->sparse) {
        P = LLVMBuildAlloca(E->AB, LLVMArrayType(E->i8, f->m * f->k), "mx.pruned");
        gather_sparse(E, L, f, io, A, P);
    } else {
        gather(E, L, f, MXF_A, f->ta, io, 0, A, false, NULL, 0);
    }
    gather(E, L, f, MXF_B, f->tb, io, wa, B, false, NULL, 0);
    unsigned per = p2n_mx_per_lane(f, MXF_C, f->td), cb = p2n_mx_bits(f->tc), db = p2n_mx_bits(f->td);
    unsigned wd = p2n_mx_words(f, MXF_C, f->td);
    LLVMValueRef cw[16], dw[16], l = L->laneid(E);
    for (unsigned i = 0; i < wc; i++) cw[i] = word(E, io, wa + wb + i);
    for (unsigned i = 0; i < wd; i++) dw[i] = c32(E, 0);
    for (unsigned s = 0; s < per; s++) {
        LLVMValueRef r, c;
        elem_ir(E, f, MXF_C, f->td, l, s, &r, &c);
        raw_put(E, dw, s, db, dot(E, f, A, B, P, r, c, raw_get(E, cw, s, cb)));
    }
    for (unsigned i = 0; i < wd; i++) LLVMBuildStore(BLD, dw[i], io_at(E, io, wa + wb + wc + i));
}

/* cpu_mma.c p2n_mma_lane: element (r, c) at bit r*ld*tb + c*eb (row major) or c*ld*tb + r*eb */
static void frag_ldst(emit_ctx *E, const lane_ops *L, const p2n_mx *f, LLVMValueRef io) {
    bool load = f->kind == P2N_MX_FRAG_LOAD;
    unsigned t = f->ta, eb = p2n_mx_bits(t), tb = t == MXE_B1 ? 1 : eb, per = p2n_mx_per_lane(f, f->frag, t);
    unsigned nw = p2n_mx_words(f, f->frag, t);
    LLVMValueRef base = LLVMBuildLoad2(BLD, E->i64, io, "");
    LLVMSetAlignment(base, 8);
    LLVMValueRef ld = LLVMBuildZExt(BLD, word(E, io, 2), E->i64, ""), l = L->laneid(E);
    LLVMValueRef w[16];
    for (unsigned i = 0; i < nw; i++) w[i] = load ? c32(E, 0) : word(E, io, 3 + i);
    LLVMTypeRef it = LLVMIntTypeInContext(E->C, eb < 8 ? 8 : eb);
    for (unsigned s = 0; s < per; s++) {
        LLVMValueRef r, c;
        elem_ir(E, f, f->frag, t, l, s, &r, &c);
        r = LLVMBuildZExt(BLD, r, E->i64, "");
        c = LLVMBuildZExt(BLD, c, E->i64, "");
        LLVMValueRef strided = f->col ? c : r, contig = f->col ? r : c;
        LLVMValueRef bit = LLVMBuildAdd(BLD, LLVMBuildMul(BLD, LLVMBuildMul(BLD, strided, ld, ""), c64(E, tb), ""),
                                        LLVMBuildMul(BLD, contig, c64(E, eb), ""), "");
        LLVMValueRef p = LLVMBuildIntToPtr(BLD, LLVMBuildAdd(BLD, base, LLVMBuildLShr(BLD, bit, c64(E, 3), ""), ""), E->ptr, "");
        unsigned align = t == MXE_B1 ? 1 : eb < 8 ? 1 : eb / 8;
        if (eb == 4) {
            LLVMValueRef sh = LLVMBuildTrunc(BLD, LLVMBuildAnd(BLD, bit, c64(E, 7), ""), E->i32, "");
            LLVMValueRef byte = LLVMBuildZExt(BLD, LLVMBuildLoad2(BLD, E->i8, p, ""), E->i32, "");
            if (load) {
                raw_put(E, w, s, 4, LLVMBuildLShr(BLD, byte, sh, ""));
            } else {
                LLVMValueRef m = LLVMBuildShl(BLD, c32(E, 0xf), sh, "");
                LLVMValueRef nb = LLVMBuildOr(BLD, LLVMBuildAnd(BLD, byte, LLVMBuildNot(BLD, m, ""), ""),
                                              LLVMBuildShl(BLD, raw_get(E, w, s, 4), sh, ""), "");
                LLVMBuildStore(BLD, LLVMBuildTrunc(BLD, nb, E->i8, ""), p);
            }
            continue;
        }
        if (load) {
            LLVMValueRef v = LLVMBuildLoad2(BLD, it, p, "");
            LLVMSetAlignment(v, align);
            raw_put(E, w, s, eb, eb == 64 ? v : LLVMBuildZExt(BLD, v, E->i32, ""));
        } else {
            LLVMValueRef v = raw_get(E, w, s, eb);
            LLVMSetAlignment(LLVMBuildStore(BLD, eb == 64 ? v : LLVMBuildTrunc(BLD, v, it, ""), p), align);
        }
    }
    if (load)
        for (unsigned i = 0; i < nw; i++) LLVMBuildStore(BLD, w[i], io_at(E, io, 3 + i));
}

/* movmatrix.m8n8.trans.b16 (cpu_mma.c movmatrix) */
static void movmatrix(emit_ctx *E, const lane_ops *L, LLVMValueRef io) {
    LLVMValueRef l = L->laneid(E), v = word(E, io, 0), res = c32(E, 0);
    LLVMValueRef sc = LLVMBuildLShr(BLD, l, c32(E, 2), "");
    LLVMValueRef hsh = LLVMBuildShl(BLD, LLVMBuildAnd(BLD, sc, c32(E, 1), ""), c32(E, 4), "");
    for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef sr = add(E, mul(E, LLVMBuildAnd(BLD, l, c32(E, 3), ""), 2), h);
        LLVMValueRef src = LLVMBuildAdd(BLD, mul(E, sr, 4), LLVMBuildLShr(BLD, sc, c32(E, 1), ""), "");
        LLVMValueRef x = LLVMBuildAnd(BLD, LLVMBuildLShr(BLD, L->read_lane(E, v, src), hsh, ""), c32(E, 0xffff), "");
        res = LLVMBuildOr(BLD, res, LLVMBuildShl(BLD, x, c32(E, 16 * h), ""), "");
    }
    LLVMBuildStore(BLD, res, io_at(E, io, 1));
}

bool lanes_mma_generic(emit_ctx *E, const lane_ops *L, unsigned op, LLVMValueRef io) {
    p2n_mx f = p2n_mx_decode(op);
    switch (f.kind) {
    case P2N_MX_MMA:
    case P2N_MX_MMA_SP: mma(E, L, &f, io); return true;
    case P2N_MX_FRAG_LOAD:
    case P2N_MX_FRAG_STORE: frag_ldst(E, L, &f, io); return true;
    case P2N_MX_MOVMATRIX: movmatrix(E, L, io); return true;
    default: return false;
    }
}
