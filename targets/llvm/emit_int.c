/* emit_int.c — integer arithmetic, logic, shifts, bit manipulation, mov, comparisons and selection. */
#include <string.h>

#include "emit.h"

#define BLD E->B

static LLVMValueRef cc_slot(emit_ctx *E) {
    if (!E->cc) {
        E->cc = LLVMBuildAlloca(E->AB, E->i1, "cc");
        LLVMBuildStore(E->AB, ci(E->i1, 0), E->cc);
    }
    return E->cc;
}

/* a + b (+ cf) and a - b (- cf) with the carry/borrow (PTX .cc) written to the CC slot when cout. Done in the
 * operand width with unsigned compares rather than in a (w+1)-bit integer: SPIR-V has no odd widths, and the
 * host back end recognises the same pattern as add-with-carry. cf: i1 or NULL. */
static LLVMValueRef add_carry(emit_ctx *E, LLVMValueRef a, LLVMValueRef b, LLVMValueRef cf, bool cout) {
    LLVMValueRef r = LLVMBuildAdd(BLD, a, b, "");
    LLVMValueRef c = LLVMBuildICmp(BLD, LLVMIntULT, r, a, "");
    if (cf) {
        LLVMValueRef r2 = LLVMBuildAdd(BLD, r, LLVMBuildZExt(BLD, cf, LLVMTypeOf(a), ""), "");
        c = LLVMBuildOr(BLD, c, LLVMBuildICmp(BLD, LLVMIntULT, r2, r, ""), "");
        r = r2;
    }
    if (cout) LLVMBuildStore(BLD, c, cc_slot(E));
    return r;
}
/* CC.CF is one flag shared by every producer and consumer. NVIDIA keeps the *carry* of a + ~b + 1 there for
 * sub.cc/subc.cc (1 when there is no borrow), and subc computes a + ~b + CF = a - b - !CF. So sub.cc then subc
 * chains as a multi-word subtraction, but a subtraction's flag read by addc/madc is the inverted borrow and an
 * add's carry read by subc borrows when it is 0. Learned from the H100 recordings (conformance cases
 * carry/sub_cc_u32, carry/add_cc_u32: sub.cc 0,0 then addc 0,0 gives 1; add.cc 0,0 then subc 0,0 gives -1). */
static LLVMValueRef sub_borrow(emit_ctx *E, LLVMValueRef a, LLVMValueRef b, LLVMValueRef cf, bool cout) {
    LLVMValueRef r = LLVMBuildSub(BLD, a, b, "");
    LLVMValueRef c = LLVMBuildICmp(BLD, LLVMIntULT, a, b, "");
    if (cf) {
        LLVMValueRef x = LLVMBuildZExt(BLD, LLVMBuildNot(BLD, cf, ""), LLVMTypeOf(a), ""); /* borrow in = !CF */
        c = LLVMBuildOr(BLD, c, LLVMBuildICmp(BLD, LLVMIntULT, r, x, ""), "");
        r = LLVMBuildSub(BLD, r, x, "");
    }
    if (cout) LLVMBuildStore(BLD, LLVMBuildNot(BLD, c, ""), cc_slot(E)); /* CF = !borrow out */
    return r;
}

/* shifts that give 0 (or the sign) for amounts >= width instead of poison */
static LLVMValueRef shl_s(emit_ctx *E, LLVMValueRef x, LLVMValueRef n) {
    LLVMTypeRef t = LLVMTypeOf(x);
    unsigned w = LLVMGetIntTypeWidth(t);
    n = zext_to(E, n, t);
    LLVMValueRef big = LLVMBuildICmp(BLD, LLVMIntUGE, n, ci(t, w), "");
    LLVMValueRef s = LLVMBuildShl(BLD, x, sel(E, big, ci(t, 0), n), "");
    return sel(E, big, ci(t, 0), s);
}
static LLVMValueRef shr_s(emit_ctx *E, LLVMValueRef x, LLVMValueRef n, bool arith) {
    LLVMTypeRef t = LLVMTypeOf(x);
    unsigned w = LLVMGetIntTypeWidth(t);
    n = zext_to(E, n, t);
    LLVMValueRef big = LLVMBuildICmp(BLD, LLVMIntUGE, n, ci(t, w), "");
    LLVMValueRef nn = sel(E, big, ci(t, w - 1), n);
    if (arith) return LLVMBuildAShr(BLD, x, nn, "");
    return sel(E, big, ci(t, 0), LLVMBuildLShr(BLD, x, nn, ""));
}

static ir_type itype_of(const ir_ins *ins) {
    for (unsigned k = 0; k < ir_ins_ntypes(ins); k++) {
        ir_type t = ir_ins_type(ins, k);
        if (t != IR_T_NONE) return t;
    }
    return IR_T_NONE;
}

static LLVMValueRef minmax(emit_ctx *E, LLVMValueRef a, LLVMValueRef b, bool is_signed, bool is_max) {
    LLVMIntPredicate p = is_max ? (is_signed ? LLVMIntSGT : LLVMIntUGT) : (is_signed ? LLVMIntSLT : LLVMIntULT);
    return sel(E, LLVMBuildICmp(BLD, p, a, b, ""), a, b);
}

/* Signed division by a divisor that is not a constant, as magnitudes: |a| / |b| (or %) unsigned, then the sign.
 * Defined for every input (INT_MIN's magnitude 2^(w-1) is exact unsigned), so NVIDIA's INT_MIN / -1 = INT_MIN
 * and INT_MIN % -1 = 0 come out of the arithmetic itself, without a per-dividend INT_MIN test; the only guard is
 * the divisor's zero test, which depends on b alone (a loop-invariant b keeps its reciprocal out of the loop).
 * This is also what back ends do for sdiv/srem by a variable (AMDGPU's 32-bit expansion, GPUs without a divider),
 * so nothing is added there. A constant divisor keeps plain sdiv/srem (its guards fold; magic-number division). */
static LLVMValueRef idiv_magnitudes(emit_ctx *E, LLVMValueRef a, LLVMValueRef b, LLVMValueRef zero, bool rem) {
    LLVMTypeRef t = LLVMTypeOf(a);
    LLVMValueRef top = ci(t, LLVMGetIntTypeWidth(t) - 1);
    LLVMValueRef sa = LLVMBuildAShr(BLD, a, top, ""), sb = LLVMBuildAShr(BLD, b, top, ""); /* 0 or all ones */
    LLVMValueRef ua = LLVMBuildSub(BLD, LLVMBuildXor(BLD, a, sa, ""), sa, "");
    LLVMValueRef ub = LLVMBuildSub(BLD, LLVMBuildXor(BLD, b, sb, ""), sb, "");
    LLVMValueRef mx[2] = {ub, ci(t, 1)};
    ub = intrin(E, "llvm.umax", &t, 1, mx, 2); /* |b| or 1 for b = 0: one max (a select on b == 0 costs three) */
    LLVMValueRef s = rem ? sa : LLVMBuildXor(BLD, sa, sb, ""); /* remainder: the dividend's sign */
    LLVMValueRef m = rem ? LLVMBuildURem(BLD, ua, ub, "") : LLVMBuildUDiv(BLD, ua, ub, "");
    LLVMValueRef r = LLVMBuildSub(BLD, LLVMBuildXor(BLD, m, s, ""), s, "");
    return sel(E, zero, LLVMConstAllOnes(t), r);
}

/* NVIDIA integer division (H200 recordings, conformance int/div_by_zero_*, rem_by_zero_*): x/0 and x%0 are all
 * ones, signed and unsigned; INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0. */
static LLVMValueRef idiv(emit_ctx *E, LLVMValueRef a, LLVMValueRef b, bool is_signed, bool rem) {
    LLVMTypeRef t = LLVMTypeOf(a);
    LLVMValueRef zero = LLVMBuildICmp(BLD, LLVMIntEQ, b, ci(t, 0), "");
    if (is_signed && !LLVMIsAConstantInt(b)) return idiv_magnitudes(E, a, b, zero, rem);
    LLVMValueRef safe = sel(E, zero, ci(t, 1), b);
    if (is_signed && rem) {
        /* x % -1 = 0 = x % 1 for every x (NVIDIA's INT_MIN % -1 too): the divisor guard depends on b alone, so
         * a loop-invariant b keeps its reciprocal (AMDGPU's division expansion) out of the loop */
        LLVMValueRef m1 = LLVMBuildICmp(BLD, LLVMIntEQ, b, LLVMConstAllOnes(t), "");
        safe = sel(E, m1, ci(t, 1), safe);
        return sel(E, zero, LLVMConstAllOnes(t), LLVMBuildSRem(BLD, a, safe, ""));
    }
    if (is_signed) {
        /* INT_MIN / -1 = INT_MIN by dividing 0 instead of a: the divisor still depends on b alone (invariant
         * reciprocal, as above), and where a is known not to be INT_MIN the guard folds away */
        unsigned w = LLVMGetIntTypeWidth(t);
        LLVMValueRef min = ci(t, 1ull << (w - 1));
        LLVMValueRef ovf = LLVMBuildAnd(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, a, min, ""),
                                        LLVMBuildICmp(BLD, LLVMIntEQ, b, LLVMConstAllOnes(t), ""), "");
        LLVMValueRef q = sel(E, ovf, min, LLVMBuildSDiv(BLD, sel(E, ovf, ci(t, 0), a), safe, ""));
        /* NVIDIA: quotient and remainder by zero are all ones, signed and unsigned */
        return sel(E, zero, LLVMConstAllOnes(t), q);
    }
    LLVMValueRef q = rem ? LLVMBuildURem(BLD, a, safe, "") : LLVMBuildUDiv(BLD, a, safe, "");
    return sel(E, zero, LLVMConstAllOnes(t), q);
}

/* mul.lo / .hi / .wide */
static LLVMValueRef imul(emit_ctx *E, const ir_ins *ins, LLVMValueRef a, LLVMValueRef b, ir_type t, ir_type *dt) {
    bool s = t_signed(t);
    LLVMTypeRef ty = LLVMTypeOf(a);
    unsigned w = LLVMGetIntTypeWidth(ty);
    *dt = t;
    if (ir_ins_has(ins, IR_M_HI) || ir_ins_has(ins, IR_M_WIDE)) {
        LLVMTypeRef wt = LLVMIntTypeInContext(E->C, 2 * w);
        LLVMValueRef p = LLVMBuildMul(BLD, resize(E, a, wt, s), resize(E, b, wt, s), "");
        if (ir_ins_has(ins, IR_M_WIDE)) {
            *dt = w == 16 ? (s ? IR_T_S32 : IR_T_U32) : w == 32 ? (s ? IR_T_S64 : IR_T_U64) : IR_T_B128;
            return p;
        }
        return LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, p, ci(wt, w), ""), ty, "");
    }
    return LLVMBuildMul(BLD, a, b, "");
}

static LLVMValueRef mul24(emit_ctx *E, const ir_ins *ins, LLVMValueRef a, LLVMValueRef b, bool s) {
    LLVMValueRef a24 = s ? LLVMBuildAShr(BLD, LLVMBuildShl(BLD, a, c32(E, 8), ""), c32(E, 8), "")
                         : LLVMBuildAnd(BLD, a, c32(E, 0xffffff), "");
    LLVMValueRef b24 = s ? LLVMBuildAShr(BLD, LLVMBuildShl(BLD, b, c32(E, 8), ""), c32(E, 8), "")
                         : LLVMBuildAnd(BLD, b, c32(E, 0xffffff), "");
    LLVMValueRef p = LLVMBuildMul(BLD, resize(E, a24, E->i64, s), resize(E, b24, E->i64, s), "");
    if (ir_ins_has(ins, IR_M_HI)) p = LLVMBuildLShr(BLD, p, c64(E, 16), "");
    return LLVMBuildTrunc(BLD, p, E->i32, "");
}

static LLVMValueRef bfe(emit_ctx *E, LLVMValueRef a, LLVMValueRef posv, LLVMValueRef lenv, bool s) {
    LLVMTypeRef t = LLVMTypeOf(a);
    unsigned w = LLVMGetIntTypeWidth(t);
    LLVMValueRef pos, len;
    if (w == 32) {
        pos = zext_to(E, LLVMBuildAnd(BLD, posv, c32(E, 0xff), ""), E->i64);
        len = zext_to(E, LLVMBuildAnd(BLD, lenv, c32(E, 0xff), ""), E->i64);
    } else {
        pos = zext_to(E, posv, E->i64);
        len = zext_to(E, lenv, E->i64);
    }
    LLVMValueRef msb = c64(E, w - 1);
    /* sbit = a[min(pos+len-1, msb)] for signed types with len != 0 */
    LLVMValueRef top = LLVMBuildSub(BLD, LLVMBuildAdd(BLD, pos, len, ""), c64(E, 1), "");
    top = sel(E, LLVMBuildICmp(BLD, LLVMIntUGT, top, msb, ""), msb, top);
    LLVMValueRef sbit = LLVMBuildTrunc(BLD, shr_s(E, a, resize(E, top, t, false), false), E->i1, "");
    if (!s) sbit = ci(E->i1, 0);
    sbit = LLVMBuildAnd(BLD, sbit, LLVMBuildICmp(BLD, LLVMIntNE, len, c64(E, 0), ""), "");
    /* bits from the field: e = min(len, w - pos) when pos <= msb */
    LLVMValueRef inrange = LLVMBuildICmp(BLD, LLVMIntULE, pos, msb, "");
    LLVMValueRef room = LLVMBuildSub(BLD, c64(E, w), sel(E, inrange, pos, c64(E, 0)), "");
    LLVMValueRef e = sel(E, LLVMBuildICmp(BLD, LLVMIntULT, len, room, ""), len, room);
    e = sel(E, inrange, e, c64(E, 0));
    LLVMValueRef shifted = shr_s(E, a, resize(E, sel(E, inrange, pos, c64(E, 0)), t, false), false);
    LLVMValueRef mask = LLVMBuildSub(BLD, shl_s(E, ci(t, 1), resize(E, e, t, false)), ci(t, 1), "");
    mask = sel(E, LLVMBuildICmp(BLD, LLVMIntUGE, e, c64(E, w), ""), LLVMConstAllOnes(t), mask);
    LLVMValueRef v = LLVMBuildAnd(BLD, shifted, mask, "");
    v = sel(E, sbit, LLVMBuildOr(BLD, v, LLVMBuildNot(BLD, mask, ""), ""), v);
    /* 64-bit: position and length are not reduced to 8 bits; a position beyond the msb gives the sign fill
     * (NVIDIA: bfe.s64 of a negative value at position >= 256 is all ones, 0 for bfe.u64) */
    return v;
}

static LLVMValueRef bfi(emit_ctx *E, LLVMValueRef a, LLVMValueRef b, LLVMValueRef posv, LLVMValueRef lenv) {
    LLVMTypeRef t = LLVMTypeOf(a);
    unsigned w = LLVMGetIntTypeWidth(t);
    LLVMValueRef pos, len;
    if (w == 32) {
        pos = zext_to(E, LLVMBuildAnd(BLD, posv, c32(E, 0xff), ""), E->i64);
        len = zext_to(E, LLVMBuildAnd(BLD, lenv, c32(E, 0xff), ""), E->i64);
    } else {
        pos = zext_to(E, posv, E->i64);
        len = zext_to(E, lenv, E->i64);
    }
    LLVMValueRef inrange = LLVMBuildICmp(BLD, LLVMIntULT, pos, c64(E, w), "");
    LLVMValueRef p = sel(E, inrange, pos, c64(E, 0));
    LLVMValueRef room = LLVMBuildSub(BLD, c64(E, w), p, "");
    LLVMValueRef e = sel(E, LLVMBuildICmp(BLD, LLVMIntULT, len, room, ""), len, room);
    LLVMValueRef mask = LLVMBuildSub(BLD, shl_s(E, ci(t, 1), resize(E, e, t, false)), ci(t, 1), "");
    mask = sel(E, LLVMBuildICmp(BLD, LLVMIntUGE, e, c64(E, w), ""), LLVMConstAllOnes(t), mask);
    LLVMValueRef pt = resize(E, p, t, false);
    LLVMValueRef ins = LLVMBuildShl(BLD, LLVMBuildAnd(BLD, a, mask, ""), pt, "");
    LLVMValueRef keep = LLVMBuildNot(BLD, LLVMBuildShl(BLD, mask, pt, ""), "");
    LLVMValueRef v = LLVMBuildOr(BLD, LLVMBuildAnd(BLD, b, keep, ""), ins, "");
    return sel(E, inrange, v, b);
}

static LLVMValueRef prmt(emit_ctx *E, const ir_ins *ins, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c) {
    LLVMValueRef x = LLVMBuildOr(BLD, zext_to(E, a, E->i64), LLVMBuildShl(BLD, zext_to(E, b, E->i64), c64(E, 32), ""), "");
    static const struct { ir_mod m; uint16_t sel[4]; } modes[] = {
        {IR_M_MODE_F4E, {0x3210, 0x4321, 0x5432, 0x6543}}, {IR_M_MODE_B4E, {0x5670, 0x6701, 0x7012, 0x0123}},
        {IR_M_MODE_RC8, {0x0000, 0x1111, 0x2222, 0x3333}}, {IR_M_MODE_ECL, {0x3210, 0x3211, 0x3222, 0x3333}},
        {IR_M_MODE_ECR, {0x0000, 0x1110, 0x2210, 0x3210}}, {IR_M_MODE_RC16, {0x1010, 0x3232, 0x1010, 0x3232}},
    };
    LLVMValueRef selector = c;
    for (unsigned k = 0; k < 6; k++) {
        if (!ir_ins_has(ins, modes[k].m)) continue;
        LLVMValueRef s = LLVMBuildAnd(BLD, c, c32(E, 3), "");
        selector = c32(E, modes[k].sel[3]);
        for (int j = 2; j >= 0; j--)
            selector = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, s, c32(E, (unsigned)j), ""), c32(E, modes[k].sel[j]), selector);
        break;
    }
    bool plain = selector == c;
    LLVMValueRef r = c32(E, 0);
    for (unsigned i = 0; i < 4; i++) {
        LLVMValueRef nib = LLVMBuildLShr(BLD, selector, c32(E, 4 * i), "");
        LLVMValueRef idx = LLVMBuildAnd(BLD, nib, c32(E, 7), "");
        LLVMValueRef sh = zext_to(E, LLVMBuildShl(BLD, idx, c32(E, 3), ""), E->i64);
        LLVMValueRef byte = LLVMBuildAnd(BLD, LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, x, sh, ""), E->i32, ""), c32(E, 0xff), "");
        if (plain) {
            LLVMValueRef msbmode = LLVMBuildICmp(BLD, LLVMIntNE, LLVMBuildAnd(BLD, nib, c32(E, 8), ""), c32(E, 0), "");
            LLVMValueRef sgn = LLVMBuildICmp(BLD, LLVMIntNE, LLVMBuildAnd(BLD, byte, c32(E, 0x80), ""), c32(E, 0), "");
            byte = sel(E, msbmode, sel(E, sgn, c32(E, 0xff), c32(E, 0)), byte);
        }
        r = LLVMBuildOr(BLD, r, LLVMBuildShl(BLD, byte, c32(E, 8 * i), ""), "");
    }
    return r;
}

/* comparisons shared by setp and set */
typedef struct cmpinfo { ir_mod cmp, boolop; } cmpinfo;
static cmpinfo cmp_of(const ir_ins *ins) {
    static const ir_mod cmps[] = {IR_M_EQ, IR_M_NE, IR_M_LT, IR_M_LE, IR_M_GT, IR_M_GE, IR_M_LO, IR_M_LS, IR_M_HI,
                                  IR_M_HS, IR_M_EQU, IR_M_NEU, IR_M_LTU, IR_M_LEU, IR_M_GTU, IR_M_GEU, IR_M_NUM,
                                  IR_M_NAN_CMP};
    cmpinfo c = {IR_M_NONE, IR_M_NONE};
    for (unsigned k = 0; k < sizeof cmps / sizeof cmps[0]; k++)
        if (ir_ins_has(ins, cmps[k])) { c.cmp = cmps[k]; break; }
    if (ir_ins_has(ins, IR_M_AND)) c.boolop = IR_M_AND;
    else if (ir_ins_has(ins, IR_M_OR)) c.boolop = IR_M_OR;
    else if (ir_ins_has(ins, IR_M_XOR)) c.boolop = IR_M_XOR;
    return c;
}

/* an f16 (as i16 bits) with a subnormal magnitude replaced by the zero of its sign */
static LLVMValueRef f16_ftz_bits(emit_ctx *E, LLVMValueRef h) {
    LLVMValueRef sub = LLVMBuildICmp(BLD, LLVMIntULT, LLVMBuildAnd(BLD, h, ci(E->i16, 0x7fff), ""), ci(E->i16, 0x0400), "");
    return sel(E, sub, LLVMBuildAnd(BLD, h, ci(E->i16, 0x8000), ""), h);
}

static LLVMValueRef compare(emit_ctx *E, ir_mod cmp, ir_type t, LLVMValueRef a, LLVMValueRef b, bool ftz, bool *ok) {
    *ok = true;
    if (t == IR_T_F16 && ftz) {
        /* .ftz flushes f16 subnormal operands (H100: setp.eq.ftz.f16 0x0001, 0 is true); in f32 they are
         * normal numbers, so the flush below cannot see them. bf16 subnormals are f32 subnormals: flushed there. */
        a = f16_ftz_bits(E, a);
        b = f16_ftz_bits(E, b);
    }
    if (t == IR_T_F16 || t == IR_T_BF16) {
        a = half_to_float(E, a, t == IR_T_BF16);
        b = half_to_float(E, b, t == IR_T_BF16);
        t = IR_T_F32;
    }
    if (t == IR_T_F32 || t == IR_T_F64) {
        if (ftz) { a = f_ftz_in(E, a); b = f_ftz_in(E, b); }
        LLVMRealPredicate p;
        switch (cmp) {
        case IR_M_EQ: p = LLVMRealOEQ; break;
        case IR_M_NE: p = LLVMRealONE; break;
        case IR_M_LT: p = LLVMRealOLT; break;
        case IR_M_LE: p = LLVMRealOLE; break;
        case IR_M_GT: p = LLVMRealOGT; break;
        case IR_M_GE: p = LLVMRealOGE; break;
        case IR_M_EQU: p = LLVMRealUEQ; break;
        case IR_M_NEU: p = LLVMRealUNE; break;
        case IR_M_LTU: p = LLVMRealULT; break;
        case IR_M_LEU: p = LLVMRealULE; break;
        case IR_M_GTU: p = LLVMRealUGT; break;
        case IR_M_GEU: p = LLVMRealUGE; break;
        case IR_M_NUM: p = LLVMRealORD; break;
        case IR_M_NAN_CMP: p = LLVMRealUNO; break;
        default: *ok = false; return ci(E->i1, 0);
        }
        return LLVMBuildFCmp(BLD, p, a, b, "");
    }
    bool s = t_signed(t);
    LLVMIntPredicate p;
    switch (cmp) {
    case IR_M_EQ: p = LLVMIntEQ; break;
    case IR_M_NE: p = LLVMIntNE; break;
    case IR_M_LT: p = s ? LLVMIntSLT : LLVMIntULT; break;
    case IR_M_LE: p = s ? LLVMIntSLE : LLVMIntULE; break;
    case IR_M_GT: p = s ? LLVMIntSGT : LLVMIntUGT; break;
    case IR_M_GE: p = s ? LLVMIntSGE : LLVMIntUGE; break;
    case IR_M_LO: p = LLVMIntULT; break;
    case IR_M_LS: p = LLVMIntULE; break;
    case IR_M_HI: p = LLVMIntUGT; break;
    case IR_M_HS: p = LLVMIntUGE; break;
    default: *ok = false; return ci(E->i1, 0);
    }
    return LLVMBuildICmp(BLD, p, a, b, "");
}

static LLVMValueRef boolop(emit_ctx *E, ir_mod op, LLVMValueRef x, LLVMValueRef c) {
    if (op == IR_M_AND) return LLVMBuildAnd(BLD, x, c, "");
    if (op == IR_M_OR) return LLVMBuildOr(BLD, x, c, "");
    if (op == IR_M_XOR) return LLVMBuildXor(BLD, x, c, "");
    return x;
}

static bool emit_setp(emit_ctx *E, const ir_ins *ins) {
    bool is_set = ins->op == IR_OP_SET;
    unsigned i = 0;
    const ir_operand *p = &ins->ops[i++], *q = NULL;
    if (i < ins->nops && (ins->ops[i].flags & IR_OPNDF_PIPE)) q = &ins->ops[i++];
    if (ins->nops < i + 2) return false;
    const ir_operand *oa = &ins->ops[i], *ob = &ins->ops[i + 1], *oc = ins->nops > i + 2 ? &ins->ops[i + 2] : NULL;
    cmpinfo ci_ = cmp_of(ins);
    ir_type dt = IR_T_NONE, st = ir_ins_type(ins, 0);
    if (is_set) { dt = ir_ins_type(ins, 0); st = ir_ins_type(ins, 1); }
    if (st == IR_T_F16X2 || st == IR_T_BF16X2) {
        bool bf = st == IR_T_BF16X2;
        LLVMValueRef a = rd(E, oa, IR_T_B32), b = rd(E, ob, IR_T_B32), r[2];
        for (int h = 0; h < 2; h++) {
            LLVMValueRef ah = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, a, c32(E, 16 * h), ""), E->i16, "");
            LLVMValueRef bh = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, b, c32(E, 16 * h), ""), E->i16, "");
            bool ok;
            r[h] = compare(E, ci_.cmp, bf ? IR_T_BF16 : IR_T_F16, ah, bh, ir_ins_has(ins, IR_M_FTZ), &ok);
            if (!ok) return false;
            if (oc) r[h] = boolop(E, ci_.boolop, r[h], rd(E, oc, IR_T_PRED));
        }
        if (is_set) {
            LLVMValueRef v = c32(E, 0);
            for (int h = 0; h < 2; h++) {
                LLVMValueRef one = dt == IR_T_F16X2 ? c32(E, 0x3c00) : dt == IR_T_BF16X2 ? c32(E, 0x3f80) : c32(E, 0xffff);
                v = LLVMBuildOr(BLD, v, LLVMBuildShl(BLD, sel(E, r[h], one, c32(E, 0)), c32(E, 16 * h), ""), "");
            }
            wr(E, p, IR_T_B32, v);
            return true;
        }
        wr(E, p, IR_T_PRED, r[0]);
        if (q) wr(E, q, IR_T_PRED, r[1]);
        return true;
    }
    LLVMValueRef a = rd(E, oa, st), b = rd(E, ob, st);
    bool ok;
    LLVMValueRef x = compare(E, ci_.cmp, st, a, b, ir_ins_has(ins, IR_M_FTZ), &ok);
    if (!ok) return false;
    LLVMValueRef c = oc ? rd(E, oc, IR_T_PRED) : NULL;
    LLVMValueRef r = c ? boolop(E, ci_.boolop, x, c) : x;
    if (is_set) {
        LLVMValueRef v;
        if (dt == IR_T_F32) v = sel(E, r, LLVMConstReal(E->f32, 1.0), LLVMConstReal(E->f32, 0.0));
        else if (dt == IR_T_F16 || dt == IR_T_BF16) {
            /* a half-precision destination gets 1.0 in its format, as f32 does (recorded on the H100: sweep2
             * comparison_and_selection_f32_1 etc.), not the all-ones of the integer destinations */
            v = sel(E, r, LLVMConstInt(E->i16, dt == IR_T_F16 ? 0x3c00 : 0x3f80, 0), LLVMConstInt(E->i16, 0, 0));
            dt = IR_T_B16;
        } else v = sel(E, r, LLVMConstAllOnes(ty_of(E, dt)), LLVMConstNull(ty_of(E, dt)));
        wr(E, p, dt, v);
        return true;
    }
    wr(E, p, IR_T_PRED, r);
    if (q) wr(E, q, IR_T_PRED, c ? boolop(E, ci_.boolop, LLVMBuildNot(BLD, x, ""), c) : LLVMBuildNot(BLD, x, ""));
    return true;
}

static LLVMValueRef lop3(emit_ctx *E, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c, unsigned lut) {
    LLVMTypeRef t = LLVMTypeOf(a);
    LLVMValueRef r = ci(t, 0);
    LLVMValueRef na = LLVMBuildNot(BLD, a, ""), nb = LLVMBuildNot(BLD, b, ""), nc = LLVMBuildNot(BLD, c, "");
    for (unsigned i = 0; i < 8; i++) {
        if (!(lut >> i & 1)) continue;
        LLVMValueRef term = LLVMBuildAnd(BLD, (i & 4) ? a : na, (i & 2) ? b : nb, "");
        term = LLVMBuildAnd(BLD, term, (i & 1) ? c : nc, "");
        r = LLVMBuildOr(BLD, r, term, "");
    }
    return r;
}

bool emit_int(emit_ctx *E, const ir_ins *ins) {
    const ir_operand *o = ins->ops;
    ir_type t = itype_of(ins);
    switch ((ir_opcode)ins->op) {
    case IR_OP_MOV: {
        if (t == IR_T_NONE) return false;
        wr(E, &o[0], t, rd(E, &o[1], t));
        return true;
    }
    case IR_OP_SETP:
    case IR_OP_SET: return emit_setp(E, ins);
    case IR_OP_SELP: {
        LLVMValueRef c = rd(E, &o[3], IR_T_PRED);
        wr(E, &o[0], t, sel(E, c, rd(E, &o[1], t), rd(E, &o[2], t)));
        return true;
    }
    case IR_OP_SLCT: {
        ir_type ct = ir_ins_type(ins, 1);
        LLVMValueRef c = rd(E, &o[3], ct), cond;
        if (ct == IR_T_F32) {
            if (ir_ins_has(ins, IR_M_FTZ)) c = f_ftz_in(E, c);
            cond = LLVMBuildFCmp(BLD, LLVMRealOGE, c, LLVMConstReal(E->f32, 0), "");
        } else cond = LLVMBuildICmp(BLD, LLVMIntSGE, c, ci(E->i32, 0), "");
        wr(E, &o[0], t, sel(E, cond, rd(E, &o[1], t), rd(E, &o[2], t)));
        return true;
    }
    default: break;
    }
    if (t == IR_T_U16X2 || t == IR_T_S16X2) {
        /* packed 16-bit lanes */
        bool sg = t == IR_T_S16X2;
        if (ins->nops != 3) return false;
        if (ins->op != IR_OP_ADD && ins->op != IR_OP_SUB && ins->op != IR_OP_MIN && ins->op != IR_OP_MAX) return false;
        if (ir_ins_has(ins, IR_M_SAT)) return false;
        LLVMValueRef a = rd(E, &o[1], IR_T_B32), b = rd(E, &o[2], IR_T_B32), r = c32(E, 0);
        for (unsigned h = 0; h < 2; h++) {
            LLVMValueRef x = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, a, c32(E, 16 * h), ""), E->i16, "");
            LLVMValueRef y = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, b, c32(E, 16 * h), ""), E->i16, "");
            LLVMValueRef z;
            if (ins->op == IR_OP_ADD) z = LLVMBuildAdd(BLD, x, y, "");
            else if (ins->op == IR_OP_SUB) z = LLVMBuildSub(BLD, x, y, "");
            else {
                z = minmax(E, x, y, sg, ins->op == IR_OP_MAX);
                if (ir_ins_has(ins, IR_M_RELU)) z = minmax(E, z, ci(E->i16, 0), true, true);
            }
            r = LLVMBuildOr(BLD, r, LLVMBuildShl(BLD, zext_to(E, z, E->i32), c32(E, 16 * h), ""), "");
        }
        wr(E, &o[0], IR_T_B32, r);
        return true;
    }
    if (t == IR_T_NONE || t == IR_T_B128) return false;
    bool s = t_signed(t);
    LLVMTypeRef ty = ty_of(E, t);
    if (LLVMGetTypeKind(ty) != LLVMIntegerTypeKind) return false;
    unsigned w = tbits(t);
    switch ((ir_opcode)ins->op) {
    case IR_OP_ADD:
    case IR_OP_SUB:
    case IR_OP_ADDC:
    case IR_OP_SUBC: {
        bool sub = ins->op == IR_OP_SUB || ins->op == IR_OP_SUBC;
        bool cin = ins->op == IR_OP_ADDC || ins->op == IR_OP_SUBC, cout = ir_ins_has(ins, IR_M_CC);
        LLVMValueRef a = rd(E, &o[1], t), b = rd(E, &o[2], t), r;
        if (ir_ins_has(ins, IR_M_SAT)) {
            if (t != IR_T_S32) return false;
            r = intrin(E, sub ? "llvm.ssub.sat" : "llvm.sadd.sat", &ty, 1, (LLVMValueRef[]){a, b}, 2);
            wr(E, &o[0], t, r);
            return true;
        }
        if (!cin && !cout) {
            r = sub ? LLVMBuildSub(BLD, a, b, "") : LLVMBuildAdd(BLD, a, b, "");
            wr(E, &o[0], t, r);
            return true;
        }
        LLVMValueRef cf = cin ? LLVMBuildLoad2(BLD, E->i1, cc_slot(E), "") : NULL;
        r = sub ? sub_borrow(E, a, b, cf, cout) : add_carry(E, a, b, cf, cout);
        wr(E, &o[0], t, r);
        return true;
    }
    case IR_OP_MUL: {
        ir_type dt;
        LLVMValueRef r = imul(E, ins, rd(E, &o[1], t), rd(E, &o[2], t), t, &dt);
        wr(E, &o[0], dt, r);
        return true;
    }
    case IR_OP_MAD:
    case IR_OP_MADC: {
        ir_type dt;
        LLVMValueRef r = imul(E, ins, rd(E, &o[1], t), rd(E, &o[2], t), t, &dt);
        LLVMValueRef c = rd(E, &o[3], dt);
        bool cin = ins->op == IR_OP_MADC, cout = ir_ins_has(ins, IR_M_CC);
        if (ir_ins_has(ins, IR_M_SAT)) {
            if (t != IR_T_S32 || !ir_ins_has(ins, IR_M_HI)) return false;
            LLVMValueRef x = intrin(E, "llvm.sadd.sat", &ty, 1, (LLVMValueRef[]){r, c}, 2);
            wr(E, &o[0], dt, x);
            return true;
        }
        if (!cin && !cout) {
            wr(E, &o[0], dt, LLVMBuildAdd(BLD, r, c, ""));
            return true;
        }
        if (cin && w == 16 && ir_ins_has(ins, IR_M_HI)) {
            /* madc.hi.u16/.s16 on NVIDIA takes the high half as a 32-bit multiply-high would: bits 32..47 of
             * the extended product, so 0, or all ones for a negative signed product (fits all 1352 lanes of the
             * H100 recording sweep2/extended_precision_i16; mad.hi.u16/.s16 keep bits 16..31) */
            LLVMValueRef a32 = resize(E, rd(E, &o[1], t), E->i32, s), b32 = resize(E, rd(E, &o[2], t), E->i32, s);
            LLVMValueRef p = LLVMBuildMul(BLD, a32, b32, "");
            r = s ? LLVMBuildTrunc(BLD, LLVMBuildAShr(BLD, p, c32(E, 31), ""), ty, "") : ci(ty, 0);
        }
        LLVMValueRef cf = cin ? LLVMBuildLoad2(BLD, E->i1, cc_slot(E), "") : NULL;
        wr(E, &o[0], dt, add_carry(E, r, c, cf, cout));
        return true;
    }
    case IR_OP_MUL24:
    case IR_OP_MAD24: {
        if (w != 32) return false;
        LLVMValueRef r = mul24(E, ins, rd(E, &o[1], t), rd(E, &o[2], t), s);
        if (ins->op == IR_OP_MAD24) {
            /* mad24.hi.sat.s32 (the only saturating form): the addition saturates, as for mad.hi.sat */
            if (ir_ins_has(ins, IR_M_SAT)) {
                if (t != IR_T_S32 || !ir_ins_has(ins, IR_M_HI)) return false;
                r = intrin(E, "llvm.sadd.sat", &ty, 1, (LLVMValueRef[]){r, rd(E, &o[3], t)}, 2);
            } else r = LLVMBuildAdd(BLD, r, rd(E, &o[3], t), "");
        }
        wr(E, &o[0], t, r);
        return true;
    }
    case IR_OP_SAD: {
        LLVMValueRef a = rd(E, &o[1], t), b = rd(E, &o[2], t), c = rd(E, &o[3], t);
        LLVMValueRef d = sel(E, LLVMBuildICmp(BLD, s ? LLVMIntSGE : LLVMIntUGE, a, b, ""), LLVMBuildSub(BLD, a, b, ""),
                             LLVMBuildSub(BLD, b, a, ""));
        wr(E, &o[0], t, LLVMBuildAdd(BLD, d, c, ""));
        return true;
    }
    case IR_OP_DIV:
    case IR_OP_REM:
        wr(E, &o[0], t, idiv(E, rd(E, &o[1], t), rd(E, &o[2], t), s, ins->op == IR_OP_REM));
        return true;
    case IR_OP_ABS: {
        LLVMValueRef a = rd(E, &o[1], t);
        LLVMValueRef n = LLVMBuildSub(BLD, ci(ty, 0), a, "");
        wr(E, &o[0], t, sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, a, ci(ty, 0), ""), n, a));
        return true;
    }
    case IR_OP_NEG: wr(E, &o[0], t, LLVMBuildSub(BLD, ci(ty, 0), rd(E, &o[1], t), "")); return true;
    case IR_OP_MIN:
    case IR_OP_MAX: {
        if (ins->nops != 3) return false;
        LLVMValueRef r = minmax(E, rd(E, &o[1], t), rd(E, &o[2], t), s, ins->op == IR_OP_MAX);
        if (ir_ins_has(ins, IR_M_RELU)) r = minmax(E, r, ci(ty, 0), true, true);
        wr(E, &o[0], t, r);
        return true;
    }
    case IR_OP_POPC:
        wr(E, &o[0], IR_T_U32, resize(E, intrin(E, "llvm.ctpop", &ty, 1, (LLVMValueRef[]){rd(E, &o[1], t)}, 1), E->i32, false));
        return true;
    case IR_OP_CLZ:
        wr(E, &o[0], IR_T_U32,
           resize(E, intrin(E, "llvm.ctlz", &ty, 1, (LLVMValueRef[]){rd(E, &o[1], t), ci(E->i1, 0)}, 2), E->i32, false));
        return true;
    case IR_OP_BREV: wr(E, &o[0], t, intrin(E, "llvm.bitreverse", &ty, 1, (LLVMValueRef[]){rd(E, &o[1], t)}, 1)); return true;
    case IR_OP_BFIND: {
        LLVMValueRef a = rd(E, &o[1], t);
        if (s) a = sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, a, ci(ty, 0), ""), LLVMBuildNot(BLD, a, ""), a);
        LLVMValueRef lz = resize(E, intrin(E, "llvm.ctlz", &ty, 1, (LLVMValueRef[]){a, ci(E->i1, 0)}, 2), E->i32, false);
        LLVMValueRef none = LLVMBuildICmp(BLD, LLVMIntEQ, a, ci(ty, 0), "");
        LLVMValueRef r = ir_ins_has(ins, IR_M_SHIFTAMT) ? lz : LLVMBuildSub(BLD, c32(E, w - 1), lz, "");
        wr(E, &o[0], IR_T_U32, sel(E, none, c32(E, 0xffffffff), r));
        return true;
    }
    case IR_OP_BFE:
        wr(E, &o[0], t, bfe(E, rd(E, &o[1], t), rd(E, &o[2], IR_T_U32), rd(E, &o[3], IR_T_U32), s));
        return true;
    case IR_OP_BFI:
        wr(E, &o[0], t, bfi(E, rd(E, &o[1], t), rd(E, &o[2], t), rd(E, &o[3], IR_T_U32), rd(E, &o[4], IR_T_U32)));
        return true;
    case IR_OP_FNS: {
        /* n-th set bit of mask at or after base (offset > 0) or before it (offset < 0); 0xffffffff if none */
        LLVMValueRef mask = rd(E, &o[1], IR_T_U32), base = rd(E, &o[2], IR_T_U32), off = rd(E, &o[3], IR_T_S32);
        LLVMValueRef res = c32(E, 0xffffffff);
        /* unrolled search over 32 positions, forward and backward */
        LLVMValueRef pos = LLVMBuildICmp(BLD, LLVMIntSGT, off, c32(E, 0), "");
        LLVMValueRef zero = LLVMBuildICmp(BLD, LLVMIntEQ, off, c32(E, 0), "");
        LLVMValueRef need = sel(E, pos, off, LLVMBuildSub(BLD, c32(E, 0), off, ""));
        need = sel(E, zero, c32(E, 1), need);
        LLVMValueRef cntf = c32(E, 0), cntb = c32(E, 0), resf = res, resb = res;
        for (unsigned k = 0; k < 32; k++) {
            LLVMValueRef pf = LLVMBuildAdd(BLD, base, c32(E, k), "");
            LLVMValueRef okf = LLVMBuildICmp(BLD, LLVMIntULT, pf, c32(E, 32), "");
            LLVMValueRef bitf = LLVMBuildAnd(BLD, okf, LLVMBuildTrunc(BLD, shr_s(E, mask, pf, false), E->i1, ""), "");
            cntf = LLVMBuildAdd(BLD, cntf, zext_to(E, bitf, E->i32), "");
            LLVMValueRef hitf = LLVMBuildAnd(BLD, bitf, LLVMBuildICmp(BLD, LLVMIntEQ, cntf, need, ""), "");
            resf = sel(E, LLVMBuildAnd(BLD, hitf, LLVMBuildICmp(BLD, LLVMIntEQ, resf, res, ""), ""), pf, resf);
            LLVMValueRef pb = LLVMBuildSub(BLD, base, c32(E, k), "");
            LLVMValueRef okb = LLVMBuildICmp(BLD, LLVMIntULT, pb, c32(E, 32), "");
            LLVMValueRef bitb = LLVMBuildAnd(BLD, okb, LLVMBuildTrunc(BLD, shr_s(E, mask, pb, false), E->i1, ""), "");
            cntb = LLVMBuildAdd(BLD, cntb, zext_to(E, bitb, E->i32), "");
            LLVMValueRef hitb = LLVMBuildAnd(BLD, bitb, LLVMBuildICmp(BLD, LLVMIntEQ, cntb, need, ""), "");
            resb = sel(E, LLVMBuildAnd(BLD, hitb, LLVMBuildICmp(BLD, LLVMIntEQ, resb, res, ""), ""), pb, resb);
        }
        LLVMValueRef basebit = LLVMBuildAnd(BLD, LLVMBuildICmp(BLD, LLVMIntULT, base, c32(E, 32), ""),
                                            LLVMBuildTrunc(BLD, shr_s(E, mask, base, false), E->i1, ""), "");
        LLVMValueRef rz = sel(E, basebit, base, res);
        /* the ISA's search starts at base and stops when pos leaves [0, 31]: a base beyond 31 finds nothing
           whatever the offset (the H100 returns 0xffffffff; the unrolled loops above would wrap around) */
        LLVMValueRef inrange = LLVMBuildICmp(BLD, LLVMIntULT, base, c32(E, 32), "");
        wr(E, &o[0], IR_T_U32, sel(E, inrange, sel(E, zero, rz, sel(E, pos, resf, resb)), res));
        return true;
    }
    case IR_OP_SZEXT: {
        LLVMValueRef a = rd(E, &o[1], t), n = rd(E, &o[2], IR_T_U32);
        n = ir_ins_has(ins, IR_M_CLAMP) ? sel(E, LLVMBuildICmp(BLD, LLVMIntUGT, n, c32(E, 32), ""), c32(E, 32), n)
                                        : LLVMBuildAnd(BLD, n, c32(E, 31), "");
        LLVMValueRef sh = LLVMBuildSub(BLD, c32(E, 32), n, "");
        LLVMValueRef r = s ? shr_s(E, shl_s(E, a, sh), sh, true) : shr_s(E, shl_s(E, a, sh), sh, false);
        r = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, n, c32(E, 0), ""), c32(E, 0), r);
        r = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, n, c32(E, 32), ""), a, r);
        wr(E, &o[0], t, r);
        return true;
    }
    case IR_OP_BMSK: {
        LLVMValueRef a = rd(E, &o[1], IR_T_U32), b = rd(E, &o[2], IR_T_U32);
        if (ir_ins_has(ins, IR_M_CLAMP)) {
            a = sel(E, LLVMBuildICmp(BLD, LLVMIntUGT, a, c32(E, 32), ""), c32(E, 32), a);
            b = sel(E, LLVMBuildICmp(BLD, LLVMIntUGT, b, c32(E, 32), ""), c32(E, 32), b);
        } else {
            a = LLVMBuildAnd(BLD, a, c32(E, 31), "");
            b = LLVMBuildAnd(BLD, b, c32(E, 31), "");
        }
        LLVMValueRef m = LLVMBuildSub(BLD, LLVMBuildShl(BLD, c64(E, 1), zext_to(E, b, E->i64), ""), c64(E, 1), "");
        m = LLVMBuildShl(BLD, m, zext_to(E, a, E->i64), "");
        wr(E, &o[0], IR_T_B32, LLVMBuildTrunc(BLD, m, E->i32, ""));
        return true;
    }
    case IR_OP_DP4A:
    case IR_OP_DP2A: {
        ir_type at = ir_ins_type(ins, 0), btp = ir_ins_type(ins, 1);
        bool as = t_signed(at), bs = t_signed(btp);
        LLVMValueRef a = rd(E, &o[1], IR_T_B32), b = rd(E, &o[2], IR_T_B32);
        LLVMValueRef acc = rd(E, &o[3], as || bs ? IR_T_S32 : IR_T_U32);
        unsigned n = ins->op == IR_OP_DP4A ? 4 : 2, boff = ir_ins_has(ins, IR_M_HI) ? 2 : 0;
        for (unsigned k = 0; k < n; k++) {
            LLVMValueRef x, y;
            if (n == 4) {
                x = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, a, c32(E, 8 * k), ""), E->i8, "");
            } else {
                x = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, a, c32(E, 16 * k), ""), E->i16, "");
            }
            y = LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, b, c32(E, 8 * (k + (n == 2 ? boff : 0))), ""), E->i8, "");
            x = resize(E, x, E->i32, as);
            y = resize(E, y, E->i32, bs);
            acc = LLVMBuildAdd(BLD, acc, LLVMBuildMul(BLD, x, y, ""), "");
        }
        wr(E, &o[0], IR_T_B32, acc);
        return true;
    }
    case IR_OP_AND:
    case IR_OP_OR:
    case IR_OP_XOR: {
        LLVMValueRef a = rd(E, &o[1], t), b = rd(E, &o[2], t);
        LLVMValueRef r = ins->op == IR_OP_AND ? LLVMBuildAnd(BLD, a, b, "")
                       : ins->op == IR_OP_OR ? LLVMBuildOr(BLD, a, b, "") : LLVMBuildXor(BLD, a, b, "");
        wr(E, &o[0], t, r);
        return true;
    }
    case IR_OP_NOT: wr(E, &o[0], t, LLVMBuildNot(BLD, rd(E, &o[1], t), "")); return true;
    case IR_OP_CNOT: {
        LLVMValueRef a = rd(E, &o[1], t);
        wr(E, &o[0], t, zext_to(E, LLVMBuildICmp(BLD, LLVMIntEQ, a, ci(ty, 0), ""), ty));
        return true;
    }
    case IR_OP_LOP3: {
        if (ins->nops == 7 && (o[1].flags & IR_OPNDF_PIPE) && o[5].kind == IR_OPND_IMM) {
            /* lop3.BoolOp.b32 d|p, a, b, c, immLut, q: p = (d != 0) BoolOp q */
            ir_mod bop = ir_ins_has(ins, IR_M_AND) ? IR_M_AND : ir_ins_has(ins, IR_M_OR) ? IR_M_OR
                       : ir_ins_has(ins, IR_M_XOR) ? IR_M_XOR : IR_M_NONE;
            if (bop == IR_M_NONE) return false;
            LLVMValueRef d = lop3(E, rd(E, &o[2], t), rd(E, &o[3], t), rd(E, &o[4], t), (unsigned)o[5].val & 0xff);
            LLVMValueRef nz = LLVMBuildICmp(BLD, LLVMIntNE, d, ci(LLVMTypeOf(d), 0), "");
            LLVMValueRef pq = boolop(E, bop, nz, rd(E, &o[6], IR_T_PRED));
            wr(E, &o[0], t, d);
            wr(E, &o[1], IR_T_PRED, pq);
            return true;
        }
        if (ins->nops != 5 || (o[4].kind != IR_OPND_IMM)) return false;
        wr(E, &o[0], t, lop3(E, rd(E, &o[1], t), rd(E, &o[2], t), rd(E, &o[3], t), (unsigned)o[4].val & 0xff));
        return true;
    }
    case IR_OP_SHL: wr(E, &o[0], t, shl_s(E, rd(E, &o[1], t), rd(E, &o[2], IR_T_U32))); return true;
    case IR_OP_SHR: wr(E, &o[0], t, shr_s(E, rd(E, &o[1], t), rd(E, &o[2], IR_T_U32), s)); return true;
    case IR_OP_SHF: {
        LLVMValueRef a = rd(E, &o[1], IR_T_B32), b = rd(E, &o[2], IR_T_B32), n = rd(E, &o[3], IR_T_U32);
        bool left = ir_ins_has(ins, IR_M_L);
        LLVMValueRef r;
        if (ir_ins_has(ins, IR_M_CLAMP)) {
            LLVMValueRef big = LLVMBuildICmp(BLD, LLVMIntUGE, n, c32(E, 32), "");
            LLVMValueRef nn = LLVMBuildAnd(BLD, n, c32(E, 31), "");
            r = intrin(E, left ? "llvm.fshl" : "llvm.fshr", &E->i32, 1, (LLVMValueRef[]){b, a, nn}, 3);
            r = sel(E, big, left ? a : b, r);
        } else {
            r = intrin(E, left ? "llvm.fshl" : "llvm.fshr", &E->i32, 1, (LLVMValueRef[]){b, a, n}, 3);
        }
        wr(E, &o[0], IR_T_B32, r);
        return true;
    }
    case IR_OP_PRMT:
        wr(E, &o[0], IR_T_B32, prmt(E, ins, rd(E, &o[1], IR_T_B32), rd(E, &o[2], IR_T_B32), rd(E, &o[3], IR_T_B32)));
        return true;
    default: return false;
    }
}
