/* emit_video.c — the PTX video instructions (ISA "Video Instructions"): scalar vadd vsub vabsdiff vmin vmax vshl
 * vshr vmad vset and SIMD vadd2/4 vsub2/4 vavrg2/4 vabsdiff2/4 vmin2/4 vmax2/4 vset2/4, on every target.
 *
 * Scalar: the selected byte/half/word of a and b is sign- or zero-extended by its operand type, the operation is
 * done without overflow (here in i64; vmad in a pair of i64 words), .sat clamps to the destination type (or to
 * the byte/half a merge writes), then either a secondary operation with c (.add/.min/.max, c taken as the
 * destination type) or a merge of the low bits into byte/half dsel of c. Where NVIDIA departs from that reading
 * (docs/nvidia-rules.md rule 20; models fitted by tests/conformance/gen/fit_video.py) the code says so.
 * SIMD: 2 halves / 4 bytes selected from the 8 bytes {b,a} by .asel/.bsel (defaults .h10/.b3210 for a,
 * .h32/.b7654 for b), the operation per lane, .sat to the lane's range of the destination type, then the lanes
 * of .mask are merged into c, or (.add) added to c.
 * Expected outputs recorded on NVIDIA hardware: tests/conformance/cases/video (373 cases), videosat (58).
 *
 * Selector operands come from the parser as ir_sel_pack values in operand.val (letter, digit count, 3-bit digits
 * left to right); the rightmost digit is lane 0. */
#include "emit.h"

#define BLD (E->B)

/* a register/immediate operand without its selector and sign: the raw 32 bits */
static LLVMValueRef raw32(emit_ctx *E, const ir_operand *o) {
    ir_operand c = *o;
    if (c.kind == IR_OPND_REG) c.val = 0;
    c.flags &= (uint8_t)~IR_OPNDF_NEG;
    return rd(E, &c, IR_T_B32);
}

static void write32(emit_ctx *E, const ir_operand *o, LLVMValueRef v) {
    ir_operand c = *o;
    c.val = 0;
    wr(E, &c, IR_T_B32, v);
}

static char sel_letter(int64_t sel) { return (char)(sel & 0xff); }
static unsigned sel_ndigits(int64_t sel) { return (unsigned)(sel >> 8) & 7u; }
static unsigned sel_digit(int64_t sel, unsigned i) { return (unsigned)(sel >> (11 + 3 * i)) & 7u; }
/* digit of lane k (rightmost digit = lane 0) */
static unsigned sel_lane(int64_t sel, unsigned k) { return sel_digit(sel, sel_ndigits(sel) - 1 - k); }

static LLVMValueRef ext64(emit_ctx *E, LLVMValueRef v, bool sgn) {
    return sgn ? LLVMBuildSExt(BLD, v, E->i64, "") : LLVMBuildZExt(BLD, v, E->i64, "");
}

/* bits [lo, lo+n) of x, extended to i64 */
static LLVMValueRef field(emit_ctx *E, LLVMValueRef x, unsigned lo, unsigned n, bool sgn) {
    LLVMValueRef v = lo ? LLVMBuildLShr(BLD, x, LLVMConstInt(LLVMTypeOf(x), lo, 0), "") : x;
    if (LLVMGetIntTypeWidth(LLVMTypeOf(x)) != n) v = LLVMBuildTrunc(BLD, v, LLVMIntTypeInContext(E->C, n), "");
    return ext64(E, v, sgn);
}

/* scalar source: .b0-.b3 / .h0 .h1 / whole word */
static bool part(emit_ctx *E, const ir_operand *o, bool sgn, LLVMValueRef *out) {
    LLVMValueRef x = raw32(E, o);
    int64_t s = o->kind == IR_OPND_REG ? o->val : 0;
    if (!s) { *out = ext64(E, x, sgn); return true; }
    if (sel_ndigits(s) != 1) return false;
    unsigned d = sel_digit(s, 0);
    if (sel_letter(s) == 'b' && d < 4) { *out = field(E, x, 8 * d, 8, sgn); return true; }
    if (sel_letter(s) == 'h' && d < 2) { *out = field(E, x, 16 * d, 16, sgn); return true; }
    return false;
}

static LLVMValueRef clamp64(emit_ctx *E, LLVMValueRef v, int64_t lo, int64_t hi) {
    v = sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, v, c64(E, (uint64_t)lo), ""), c64(E, (uint64_t)lo), v);
    return sel(E, LLVMBuildICmp(BLD, LLVMIntSGT, v, c64(E, (uint64_t)hi), ""), c64(E, (uint64_t)hi), v);
}

/* .sat: clamp to the range of `bits` (8, 16, 32) of the destination signedness */
static LLVMValueRef saturate(emit_ctx *E, LLVMValueRef v, unsigned bits, bool sgn) {
    if (sgn) return clamp64(E, v, -((int64_t)1 << (bits - 1)), ((int64_t)1 << (bits - 1)) - 1);
    return clamp64(E, v, 0, (int64_t)(((uint64_t)1 << bits) - 1));
}

static LLVMValueRef smin64(emit_ctx *E, LLVMValueRef a, LLVMValueRef b, bool max) {
    return sel(E, LLVMBuildICmp(BLD, max ? LLVMIntSGT : LLVMIntSLT, a, b, ""), a, b);
}

/* the primary operation on extended values */
static LLVMValueRef primary(emit_ctx *E, ir_opcode op, LLVMValueRef a, LLVMValueRef b, ir_mod cmp) {
    switch (op) {
    case IR_OP_VADD: case IR_OP_VADD2: case IR_OP_VADD4: return LLVMBuildAdd(BLD, a, b, "");
    case IR_OP_VSUB: case IR_OP_VSUB2: case IR_OP_VSUB4: return LLVMBuildSub(BLD, a, b, "");
    case IR_OP_VABSDIFF: case IR_OP_VABSDIFF2: case IR_OP_VABSDIFF4: {
        LLVMValueRef d = LLVMBuildSub(BLD, a, b, "");
        return sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, d, c64(E, 0), ""), LLVMBuildNeg(BLD, d, ""), d);
    }
    case IR_OP_VMIN: case IR_OP_VMIN2: case IR_OP_VMIN4: return smin64(E, a, b, false);
    case IR_OP_VMAX: case IR_OP_VMAX2: case IR_OP_VMAX4: return smin64(E, a, b, true);
    case IR_OP_VAVRG2: case IR_OP_VAVRG4: { /* rounds half away from zero... as the ISA: (s + (s >= 0)) >> 1 */
        LLVMValueRef s = LLVMBuildAdd(BLD, a, b, "");
        LLVMValueRef up = LLVMBuildZExt(BLD, LLVMBuildICmp(BLD, LLVMIntSGE, s, c64(E, 0), ""), E->i64, "");
        return LLVMBuildAShr(BLD, LLVMBuildAdd(BLD, s, up, ""), c64(E, 1), "");
    }
    default: { /* vset: compare */
        LLVMIntPredicate p = cmp == IR_M_EQ ? LLVMIntEQ : cmp == IR_M_NE ? LLVMIntNE : cmp == IR_M_LT ? LLVMIntSLT
                           : cmp == IR_M_LE ? LLVMIntSLE : cmp == IR_M_GT ? LLVMIntSGT : LLVMIntSGE;
        return LLVMBuildZExt(BLD, LLVMBuildICmp(BLD, p, a, b, ""), E->i64, "");
    }
    }
}

static ir_mod cmp_of(const ir_ins *ins) {
    static const ir_mod cmps[] = {IR_M_EQ, IR_M_NE, IR_M_LT, IR_M_LE, IR_M_GT, IR_M_GE};
    for (unsigned i = 0; i < 6; i++)
        if (ir_ins_has(ins, cmps[i])) return cmps[i];
    return IR_M_NONE;
}

/* ------------------------------------------------------------------ scalar */

static bool scalar(emit_ctx *E, const ir_ins *ins) {
    const ir_operand *o = ins->ops;
    ir_opcode op = (ir_opcode)ins->op;
    bool vset = op == IR_OP_VSET, shift = op == IR_OP_VSHL || op == IR_OP_VSHR;
    /* type words: vset atype.btype; the others dtype.atype.btype */
    ir_type dt = vset ? IR_T_U32 : ir_ins_type(ins, 0), at = ir_ins_type(ins, vset ? 0 : 1),
            bt = ir_ins_type(ins, vset ? 1 : 2);
    bool dsgn = t_signed(dt);
    LLVMValueRef a, b;
    if (!part(E, &o[1], t_signed(at), &a) || !part(E, &o[2], shift ? false : t_signed(bt), &b)) return false;
    LLVMValueRef t;
    if (shift) {
        if (ir_ins_has(ins, IR_M_CLAMP)) b = sel(E, LLVMBuildICmp(BLD, LLVMIntUGT, b, c64(E, 32), ""), c64(E, 32), b);
        else b = LLVMBuildAnd(BLD, b, c64(E, 31), "");
        t = op == IR_OP_VSHL ? LLVMBuildShl(BLD, a, b, "") : LLVMBuildAShr(BLD, a, b, "");
    } else {
        t = primary(E, op, a, b, cmp_of(ins));
    }
    int64_t dsel = o[0].kind == IR_OPND_REG ? o[0].val : 0;
    unsigned dbits = 32, dlo = 0;
    if (dsel) {
        if (sel_ndigits(dsel) != 1) return false;
        unsigned d = sel_digit(dsel, 0);
        if (sel_letter(dsel) == 'b' && d < 4) dbits = 8, dlo = 8 * d;
        else if (sel_letter(dsel) == 'h' && d < 2) dbits = 16, dlo = 16 * d;
        else return false;
    }
    bool sat = ir_ins_has(ins, IR_M_SAT);
    bool minmax2 = ir_ins_has(ins, IR_M_MIN) || ir_ins_has(ins, IR_M_MAX);
    if (sat && op == IR_OP_VSHL) {
        /* vshl.sat (fits every recorded value, video: vshl_*_sat, videosat: vshl_sat_*): the shifted value is kept
         * to 34 bits and read as signed, then clamped to the destination type's 32-bit range; a merge or a
         * secondary operation then uses that value as for the other instructions (no byte/half clamp) */
        t = LLVMBuildAShr(BLD, LLVMBuildShl(BLD, t, c64(E, 30), ""), c64(E, 30), "");
        t = saturate(E, t, 32, dsgn);
        sat = false;
    }
    LLVMValueRef r;
    if (dsel) {
        /* merge: .sat clamps to the byte/half (unsigned: as an unsigned 32-bit value, so a negative result gives
         * the maximum); bytes are shifted into place, a half keeps its own bits of the result (h1: bits 31..16) */
        LLVMValueRef t32 = LLVMBuildTrunc(BLD, t, E->i32, "");
        if (sat && dsgn) t32 = LLVMBuildTrunc(BLD, saturate(E, t, dbits, true), E->i32, "");
        else if (sat) {
            LLVMValueRef mx = c32(E, (1u << dbits) - 1);
            t32 = sel(E, LLVMBuildICmp(BLD, LLVMIntUGT, t32, mx, ""), mx, t32);
        }
        LLVMValueRef c = raw32(E, &o[3]);
        uint32_t m = ((1u << dbits) - 1) << dlo;
        LLVMValueRef v = dbits == 8 ? LLVMBuildShl(BLD, t32, c32(E, dlo), "") : t32;
        r = LLVMBuildOr(BLD, LLVMBuildAnd(BLD, v, c32(E, m), ""), LLVMBuildAnd(BLD, c, c32(E, ~m), ""), "");
    } else {
        /* .sat: s32 clamps; u32 takes a negative result to 0 and has no upper clamp (the low 32 bits are
         * written: recorded on NVIDIA). vadd/vsub/vshl/vshr then wrap to 32 bits read as signed unless a s32
         * .sat clamped; vabsdiff/vmin/vmax keep their exact value. */
        if (sat && dsgn) t = saturate(E, t, 32, true);
        else {
            if (sat) t = sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, t, c64(E, 0), ""), c64(E, 0), t);
            /* a shift compared by .min/.max keeps its exact value unless it had .sat (H100, sweep2
             * video_scalar_i32_4/5: vshl of 0x80000000 by 1 is above c = 0x7ffffffe; vshr.u32.sat of
             * 0x80808080 by 0 is above c = 0xffffffff) */
            if (op == IR_OP_VADD || op == IR_OP_VSUB || (shift && !(minmax2 && !ir_ins_has(ins, IR_M_SAT))))
                t = LLVMBuildSExt(BLD, LLVMBuildTrunc(BLD, t, E->i32, ""), E->i64, "");
        }
        if (ins->nops > 3) { /* secondary operation with c of the destination's signedness (vset: a's; H100,
                              * sweep2 video_scalar_i32_6: vset.u32.s32 .min/.max compare c unsigned) */
            bool csgn = vset ? t_signed(at) : dsgn;
            LLVMValueRef c = ext64(E, raw32(E, &o[3]), csgn);
            /* .min/.max compare in the destination's signedness; unsigned compares the 64-bit two's complement
             * value, so a wrapped negative or an exact value above 2^32 - 1 is above every c (fits every
             * recorded value: video v*_sat_min/max, videosat v*_uuu_min/max; vset keeps the signed compare) */
            bool ucmp = minmax2 && !vset && !dsgn;
            LLVMIntPredicate gt = ucmp ? LLVMIntUGT : LLVMIntSGT, lt = ucmp ? LLVMIntULT : LLVMIntSLT;
            if (ir_ins_has(ins, IR_M_ADD)) t = LLVMBuildAdd(BLD, t, c, "");
            else if (minmax2) {
                bool mx = ir_ins_has(ins, IR_M_MAX);
                t = sel(E, LLVMBuildICmp(BLD, mx ? gt : lt, t, c, ""), t, c);
            } else return false;
        }
        r = LLVMBuildTrunc(BLD, t, E->i32, "");
    }
    write32(E, &o[0], r);
    return true;
}

/* vmad: (±a * ±b) ± c exactly with the one's-complement trick of the ISA (negation = invert + lsb), .po = "plus
 * one", optional >> 7 / >> 15, .sat to s32/u32 by the final signedness. The exact value needs 66 bits; it is
 * kept as a pair of i64 words (hi, lo) so that every target, SPIR-V included (no 128-bit integers), runs the
 * same code: a and b are 33-bit values, so |a| * |b| < 2^64 is exact in u64 and the sign is applied after. */
static bool vmad(emit_ctx *E, const ir_ins *ins) {
    const ir_operand *o = ins->ops;
    ir_type at = ir_ins_type(ins, 1), bt = ir_ins_type(ins, 2);
    bool na = o[1].flags & IR_OPNDF_NEG, nb = o[2].flags & IR_OPNDF_NEG, nc = o[3].flags & IR_OPNDF_NEG;
    bool po = ir_ins_has(ins, IR_M_PO);
    bool sgn = t_signed(at) || t_signed(bt) || (na != nb) || nc;
    LLVMValueRef a, b;
    /* a whole-word source is sign-extended whatever its type (H100, sweep2 video_scalar_i32_5: every vmad form
     * with .shr7/.shr15/.sat of u32 words); a selected byte/half follows its type (video: vmad_*) */
    bool wa = o[1].kind != IR_OPND_REG || !o[1].val, wb = o[2].kind != IR_OPND_REG || !o[2].val;
    if (!part(E, &o[1], wa || t_signed(at), &a) || !part(E, &o[2], wb || t_signed(bt), &b)) return false;
    if (o[0].kind == IR_OPND_REG && o[0].val) return false;
    LLVMValueRef zero = c64(E, 0), ones = c64(E, ~0ull);
    /* product: magnitude P = |a| * |b| (u64, exact), negative iff the signs differ and P != 0 */
    LLVMValueRef an = LLVMBuildICmp(BLD, LLVMIntSLT, a, zero, ""), bn = LLVMBuildICmp(BLD, LLVMIntSLT, b, zero, "");
    LLVMValueRef ma = sel(E, an, LLVMBuildNeg(BLD, a, ""), a), mb = sel(E, bn, LLVMBuildNeg(BLD, b, ""), b);
    LLVMValueRef P = LLVMBuildMul(BLD, ma, mb, "");
    LLVMValueRef neg = LLVMBuildAnd(BLD, LLVMBuildXor(BLD, an, bn, ""), LLVMBuildICmp(BLD, LLVMIntNE, P, zero, ""), "");
    LLVMValueRef lo = sel(E, neg, LLVMBuildNeg(BLD, P, ""), P), hi = sel(E, neg, ones, zero);
    LLVMValueRef c = raw32(E, &o[3]);
    unsigned lsb = 0;
    if (po) {
        lsb = 1;
    } else if (na != nb) {
        lo = LLVMBuildNot(BLD, lo, "");
        hi = LLVMBuildNot(BLD, hi, "");
        lsb = 1;
    } else if (nc) {
        c = LLVMBuildNot(BLD, c, "");
        lsb = 1;
    }
    /* + c (sign-extended even when all types are unsigned) + lsb, carries into hi */
    LLVMValueRef c64v = LLVMBuildSExt(BLD, c, E->i64, "");
    LLVMValueRef s1 = LLVMBuildAdd(BLD, lo, c64v, "");
    hi = LLVMBuildAdd(BLD, hi, sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, c64v, zero, ""), ones, zero), "");
    hi = LLVMBuildAdd(BLD, hi, LLVMBuildZExt(BLD, LLVMBuildICmp(BLD, LLVMIntULT, s1, lo, ""), E->i64, ""), "");
    lo = s1;
    if (lsb) {
        s1 = LLVMBuildAdd(BLD, lo, c64(E, 1), "");
        hi = LLVMBuildAdd(BLD, hi, LLVMBuildZExt(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, s1, zero, ""), E->i64, ""), "");
        lo = s1;
    }
    unsigned sh = ir_ins_has(ins, IR_M_SHR7) ? 7 : ir_ins_has(ins, IR_M_SHR15) ? 15 : 0;
    if (sh) { /* arithmetic shift of the 128-bit pair when signed, logical otherwise */
        lo = LLVMBuildOr(BLD, LLVMBuildLShr(BLD, lo, c64(E, sh), ""), LLVMBuildShl(BLD, hi, c64(E, 64 - sh), ""), "");
        hi = sgn ? LLVMBuildAShr(BLD, hi, c64(E, sh), "") : LLVMBuildLShr(BLD, hi, c64(E, sh), "");
    }
    LLVMValueRef lo_u = lo;
    if (ir_ins_has(ins, IR_M_SAT)) {
        /* the pair is an i64 value iff hi is lo's sign extension; otherwise hi's sign says which bound */
        LLVMValueRef lo_b = c64(E, sgn ? (uint64_t)(int64_t)INT32_MIN : 0), hi_b = c64(E, sgn ? INT32_MAX : UINT32_MAX);
        LLVMValueRef fits = LLVMBuildICmp(BLD, LLVMIntEQ, hi, LLVMBuildAShr(BLD, lo, c64(E, 63), ""), "");
        LLVMValueRef v = clamp64(E, lo, sgn ? INT32_MIN : 0, sgn ? INT32_MAX : (int64_t)UINT32_MAX);
        lo = sel(E, fits, v, sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, hi, zero, ""), lo_b, hi_b));
        if (!sgn && sh && (wa || wb)) {
            /* unsigned, scaled, from a whole word: the pair is clamped as an unsigned 128-bit value, so a negative
             * one gives U32_MAX (H100, sweep2 video_scalar_i32_5: vmad.u32.u32.u32.sat.shr7) */
            LLVMValueRef big = LLVMBuildOr(BLD, LLVMBuildICmp(BLD, LLVMIntNE, hi, zero, ""),
                                           LLVMBuildICmp(BLD, LLVMIntUGT, lo_u, c64(E, UINT32_MAX), ""), "");
            lo = sel(E, big, c64(E, UINT32_MAX), lo_u);
        }
    }
    write32(E, &o[0], LLVMBuildTrunc(BLD, lo, E->i32, ""));
    return true;
}

/* ------------------------------------------------------------------ SIMD */

static bool simd(emit_ctx *E, const ir_ins *ins, unsigned n) {
    const ir_operand *o = ins->ops;
    ir_opcode op = (ir_opcode)ins->op;
    bool vset = op == IR_OP_VSET2 || op == IR_OP_VSET4;
    ir_type dt = vset ? IR_T_U32 : ir_ins_type(ins, 0), at = ir_ins_type(ins, vset ? 0 : 1),
            bt = ir_ins_type(ins, vset ? 1 : 2);
    unsigned w = 32 / n; /* lane width */
    char letter = n == 2 ? 'h' : 'b';
    /* the 8 bytes {b, a} as one i64: byte k of a is byte k, byte k of b is byte 4 + k */
    LLVMValueRef ab = LLVMBuildOr(BLD, LLVMBuildZExt(BLD, raw32(E, &o[1]), E->i64, ""),
                                  LLVMBuildShl(BLD, LLVMBuildZExt(BLD, raw32(E, &o[2]), E->i64, ""), c64(E, 32), ""),
                                  "");
    int64_t asel = o[1].kind == IR_OPND_REG ? o[1].val : 0, bsel = o[2].kind == IR_OPND_REG ? o[2].val : 0;
    int64_t mask = o[0].kind == IR_OPND_REG ? o[0].val : 0;
    for (int64_t s = 0, *p = &asel; p; p = p == &asel ? &bsel : p == &bsel ? &mask : NULL) {
        s = *p;
        if (!s) continue;
        if (sel_letter(s) != letter) return false;
        if (p != &mask && sel_ndigits(s) != n) return false;
        for (unsigned i = 0; i < sel_ndigits(s); i++)
            if (sel_digit(s, i) >= (p == &mask ? n : 2 * n)) return false;
    }
    unsigned lanes_on = 0;
    if (!mask) lanes_on = (1u << n) - 1;
    else
        for (unsigned i = 0; i < sel_ndigits(mask); i++) lanes_on |= 1u << sel_digit(mask, i);
    bool add = ir_ins_has(ins, IR_M_ADD), sat = ir_ins_has(ins, IR_M_SAT);
    LLVMValueRef c = raw32(E, &o[3]);
    LLVMValueRef acc = add ? c : NULL, merged = c;
    for (unsigned k = 0; k < n; k++) {
        unsigned sa = asel ? sel_lane(asel, k) : k, sb = bsel ? sel_lane(bsel, k) : n + k;
        LLVMValueRef a = field(E, ab, w * sa, w, t_signed(at)), b = field(E, ab, w * sb, w, t_signed(bt));
        LLVMValueRef t = primary(E, op, a, b, cmp_of(ins));
        if (sat) t = saturate(E, t, w, t_signed(dt));
        if (!(lanes_on >> k & 1)) continue;
        LLVMValueRef t32 = LLVMBuildTrunc(BLD, t, E->i32, "");
        if (add) {
            acc = LLVMBuildAdd(BLD, acc, t32, "");
        } else {
            uint32_t m = (w == 16 ? 0xffffu : 0xffu) << (w * k);
            LLVMValueRef v = LLVMBuildAnd(BLD, LLVMBuildShl(BLD, t32, c32(E, w * k), ""), c32(E, m), "");
            merged = LLVMBuildOr(BLD, LLVMBuildAnd(BLD, merged, c32(E, ~m), ""), v, "");
        }
    }
    write32(E, &o[0], add ? acc : merged);
    return true;
}

bool emit_video(emit_ctx *E, const ir_ins *ins) {
    switch ((ir_opcode)ins->op) {
    case IR_OP_VADD: case IR_OP_VSUB: case IR_OP_VABSDIFF: case IR_OP_VMIN: case IR_OP_VMAX: case IR_OP_VSHL:
    case IR_OP_VSHR: case IR_OP_VSET:
        return ins->nops >= 3 && scalar(E, ins);
    case IR_OP_VMAD: return ins->nops == 4 && vmad(E, ins);
    case IR_OP_VADD2: case IR_OP_VSUB2: case IR_OP_VAVRG2: case IR_OP_VABSDIFF2: case IR_OP_VMIN2: case IR_OP_VMAX2:
    case IR_OP_VSET2:
        return ins->nops == 4 && simd(E, ins, 2);
    case IR_OP_VADD4: case IR_OP_VSUB4: case IR_OP_VAVRG4: case IR_OP_VABSDIFF4: case IR_OP_VMIN4: case IR_OP_VMAX4:
    case IR_OP_VSET4:
        return ins->nops == 4 && simd(E, ins, 4);
    default: return false;
    }
}
