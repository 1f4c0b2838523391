/* emit_texture_filter.c — linear texture filtering with the H200's arithmetic (bit-exact on the recordings).
 *
 * Fitted with tests/conformance/gen/fit_tex.py on the H200 recordings of family tex (filt_*, addr_*_linear_*,
 * border_u8x4_filter_linear, pitch2d_*, lod_level_grad_base; docs in the script):
 *  - each dimension has an 8-bit weight w = round(frac * 256) (0..256); a dimension whose two texels are the same
 *    one (clamped at an edge) has weight 0;
 *  - the corners get integer weights that sum to 256 (tex_corner_weights): not the products of the dimensions'
 *    weights but a split of 256, first by z, then by x, then by y, each rounding one part half up;
 *  - 8/16-bit normalised data: the exact weighted sum of the stored integers becomes a 16-bit unorm (65535) or
 *    snorm (32767) value, rounded half up, which is then converted to f32; s8 is the exception: its sum p
 *    (an s8.8 number, -128 counting as such) becomes k = p + ((p >> 4) + (p >> 12) + 4) >> 3 with arithmetic
 *    shifts, i.e. p x (1 + 2^-7 + 2^-15) with the correction truncated to 1/8 and rounded half up, not the
 *    exact p x 32767 / 32512 (fit_tex.py s8_snorm16: every lane of filt_1d_s8x2 and probe_s8_linear);
 *  - f16/f32 data: the corners that take part (no dimension weighs their side 0; a corner whose rounded weight
 *    is 0 still takes part) become fixed-point numbers at the largest one's exponent with 4 bits more than the
 *    format's significand (truncated), the exact weighted sum is rounded to the format (ties away from zero); a
 *    zero sum is -0.0 only when every such corner has its sign bit set (f32 subnormals count as signed zeros, f16
 *    subnormals as values); NaN when one of them is NaN or they hold
 *    both infinities, else an infinity among them (filt_2d_f16x1: a NaN whose rounded weight is 0 gives NaN).
 *  - integers read as integers (create_{u8,s32}_integer_filter_linear): floor of the exact weighted sum / 256.
 *  - sRGB colour channels (fit_tex.py blend_srgb: every lane of fmt_srgb, probe_srgb_linear, probe_srgb_allpairs):
 *    the decoded values (bfloat16, the point-sampling table) are truncated to a fixed point with 8 bits at the
 *    exponent G of the largest one's group of 8 codes (G = the exponent of the decoded value of code | 7; the
 *    codes of a group share one exponent in the sampler: e.g. 64..70, below 2^-4, count as 2^-4 like 71), the
 *    exact weighted sum is rounded to 11 significant bits, ties away from zero (filter_srgb).
 * Integer arithmetic only (i32/i64), so every target (host, AMDGPU, SPIR-V) computes the same bits.
 */
#include "emit_texture_filter.h"

#define BLD (E->B)

LLVMValueRef tex_helper_begin(emit_ctx *E, const char *name, LLVMTypeRef ft, tex_saved *s) {
    LLVMValueRef fn = LLVMAddFunction(E->M, name, ft);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    unsigned k = LLVMGetEnumAttributeKindForName("nounwind", 8);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(E->C, k, 0));
    s->B = E->B;
    s->cur = E->cur;
    E->B = LLVMCreateBuilderInContext(E->C);
    E->cur = fn;
    LLVMPositionBuilderAtEnd(E->B, new_bb(E, "entry"));
    return fn;
}

void tex_helper_end(emit_ctx *E, tex_saved *s) {
    LLVMDisposeBuilder(E->B);
    E->B = s->B;
    E->cur = s->cur;
}

static LLVMValueRef add(emit_ctx *E, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildAdd(BLD, a, b, ""); }
static LLVMValueRef sub(emit_ctx *E, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildSub(BLD, a, b, ""); }
static LLVMValueRef mul(emit_ctx *E, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildMul(BLD, a, b, ""); }
static LLVMValueRef icmp(emit_ctx *E, LLVMIntPredicate p, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildICmp(BLD, p, a, b, "");
}
static LLVMValueRef smax(emit_ctx *E, LLVMValueRef a, LLVMValueRef b) { return sel(E, icmp(E, LLVMIntSGT, a, b), a, b); }
static LLVMValueRef smin(emit_ctx *E, LLVMValueRef a, LLVMValueRef b) { return sel(E, icmp(E, LLVMIntSLT, a, b), a, b); }

/* (t * w + 128) >> 8: t * w / 256 rounded half up, for t, w >= 0 */
static LLVMValueRef part(emit_ctx *E, LLVMValueRef t, LLVMValueRef w) {
    return LLVMBuildLShr(BLD, add(E, mul(E, t, w), c32(E, 128)), c32(E, 8), "");
}

void tex_corner_weights(emit_ctx *E, unsigned nd, LLVMValueRef *w, LLVMValueRef *cw) {
    if (nd == 1) {
        cw[0] = sub(E, c32(E, 256), w[0]);
        cw[1] = w[0];
        return;
    }
    unsigned nslice = nd == 3 ? 2 : 1;
    for (unsigned z = 0; z < nslice; z++) {
        LLVMValueRef t = nd == 3 ? (z ? w[2] : sub(E, c32(E, 256), w[2])) : c32(E, 256);
        LLVMValueRef x1 = part(E, t, w[0]), x0 = sub(E, t, x1);
        LLVMValueRef y11 = part(E, x1, w[1]), y00 = part(E, x0, sub(E, c32(E, 256), w[1]));
        unsigned b = 4 * z;
        cw[b + 3] = y11;
        cw[b + 1] = sub(E, x1, y11);
        cw[b + 0] = y00;
        cw[b + 2] = sub(E, x0, y00);
    }
}

LLVMValueRef tex_corner_part(emit_ctx *E, unsigned nd, LLVMValueRef *w) {
    LLVMValueRef mask = c32(E, 0);
    for (unsigned m = 0; m < (1u << nd); m++) {
        LLVMValueRef on = ci(E->i1, 1);
        for (unsigned k = 0; k < nd; k++) {
            LLVMValueRef side = (m >> k) & 1 ? w[k] : sub(E, c32(E, 256), w[k]);
            on = LLVMBuildAnd(BLD, on, icmp(E, LLVMIntNE, side, c32(E, 0)), "");
        }
        mask = LLVMBuildOr(BLD, mask, sel(E, on, c32(E, 1u << m), c32(E, 0)), "");
    }
    return mask;
}

/* 8/16-bit normalised data: floor(s * Q / (256 * den) + 1/2) / Q with s the weighted sum of the integers */
static LLVMValueRef filter_norm(emit_ctx *E, LLVMValueRef kind, LLVMValueRef *v, LLVMValueRef *w) {
    LLVMValueRef s = c32(E, 0);
    for (unsigned m = 0; m < 8; m++) s = add(E, s, mul(E, v[m], w[m]));
    LLVMValueRef sgn = icmp(E, LLVMIntNE, LLVMBuildAnd(BLD, kind, c32(E, 2), ""), c32(E, 0));
    LLVMValueRef q = sel(E, sgn, c64(E, 32767), c64(E, 65535));
    LLVMValueRef den = sel(E, icmp(E, LLVMIntEQ, kind, c32(E, TEX_FK_UNORM8)), c64(E, 255),
                           sel(E, icmp(E, LLVMIntEQ, kind, c32(E, TEX_FK_SNORM8)), c64(E, 127), q));
    LLVMValueRef s64 = LLVMBuildSExt(BLD, s, E->i64, "");
    LLVMValueRef num = add(E, mul(E, mul(E, s64, c64(E, 2)), q), mul(E, den, c64(E, 256)));
    LLVMValueRef dd = mul(E, den, c64(E, 512));
    LLVMValueRef quo = LLVMBuildSDiv(BLD, num, dd, ""), rem = LLVMBuildSRem(BLD, num, dd, "");
    LLVMValueRef down = LLVMBuildAnd(BLD, icmp(E, LLVMIntNE, rem, c64(E, 0)), icmp(E, LLVMIntSLT, num, c64(E, 0)), "");
    quo = sub(E, quo, LLVMBuildZExt(BLD, down, E->i64, ""));
    /* s8: the H200's shift-and-add conversion of the s8.8 sum to 16-bit snorm (header comment) */
    LLVMValueRef corr = add(E, add(E, LLVMBuildAShr(BLD, s64, c64(E, 4), ""), LLVMBuildAShr(BLD, s64, c64(E, 12), "")),
                            c64(E, 4));
    LLVMValueRef ks8 = add(E, s64, LLVMBuildAShr(BLD, corr, c64(E, 3), ""));
    quo = sel(E, icmp(E, LLVMIntEQ, kind, c32(E, TEX_FK_SNORM8)), ks8, quo);
    LLVMValueRef f = LLVMBuildFDiv(BLD, LLVMBuildSIToFP(BLD, quo, E->f32, ""), LLVMBuildSIToFP(BLD, q, E->f32, ""), "");
    LLVMValueRef m1 = LLVMConstReal(E->f32, -1.0);
    f = sel(E, LLVMBuildFCmp(BLD, LLVMRealOLT, f, m1, ""), m1, f);
    return LLVMBuildBitCast(BLD, f, E->i32, "");
}

/* integers read as integers: floor(sum / 256) in 64 bits */
static LLVMValueRef filter_int(emit_ctx *E, LLVMValueRef kind, LLVMValueRef *v, LLVMValueRef *w) {
    LLVMValueRef u = icmp(E, LLVMIntEQ, kind, c32(E, TEX_FK_INT_U)), s = c64(E, 0);
    for (unsigned m = 0; m < 8; m++) {
        LLVMValueRef x = sel(E, u, LLVMBuildZExt(BLD, v[m], E->i64, ""), LLVMBuildSExt(BLD, v[m], E->i64, ""));
        s = add(E, s, mul(E, x, LLVMBuildZExt(BLD, w[m], E->i64, "")));
    }
    return LLVMBuildTrunc(BLD, LLVMBuildAShr(BLD, s, c64(E, 8), ""), E->i32, "");
}

/* 2^k as f32 for k in [-126, 127] */
static LLVMValueRef pow2(emit_ctx *E, LLVMValueRef k) {
    return LLVMBuildBitCast(BLD, LLVMBuildShl(BLD, add(E, k, c32(E, 127)), c32(E, 23), ""), E->f32, "");
}

/* f16/f32 data (as f32 bits): the shared-exponent fixed-point sum, rounded to the format (header comment) */
static LLVMValueRef filter_float(emit_ctx *E, LLVMValueRef kind, LLVMValueRef *v, LLVMValueRef *w, LLVMValueRef part) {
    LLVMValueRef half = icmp(E, LLVMIntEQ, kind, c32(E, TEX_FK_F16));
    LLVMValueRef mant = sel(E, half, c32(E, 11), c32(E, 24)), emin = sel(E, half, c32(E, (uint32_t)-14), c32(E, (uint32_t)-126));
    LLVMValueRef f = ci(E->i1, 0), t = ci(E->i1, 1);
    LLVMValueRef anynan = f, pinf = f, ninf = f, allneg = t, maxabs = c32(E, 0);
    LLVMValueRef absb[8], neg[8], used[8];
    for (unsigned m = 0; m < 8; m++) {
        used[m] = icmp(E, LLVMIntNE, LLVMBuildAnd(BLD, part, c32(E, 1u << m), ""), c32(E, 0));
        absb[m] = LLVMBuildAnd(BLD, v[m], c32(E, 0x7fffffff), "");
        LLVMValueRef sub32 = LLVMBuildAnd(BLD, LLVMBuildNot(BLD, half, ""), icmp(E, LLVMIntULT, absb[m], c32(E, 0x800000)), "");
        absb[m] = sel(E, sub32, c32(E, 0), absb[m]); /* f32 subnormals are signed zeros (probe_f32_special_linear) */
        neg[m] = icmp(E, LLVMIntSLT, v[m], c32(E, 0));
        LLVMValueRef nan = icmp(E, LLVMIntUGT, absb[m], c32(E, 0x7f800000)), inf = icmp(E, LLVMIntEQ, absb[m], c32(E, 0x7f800000));
        LLVMValueRef uinf = LLVMBuildAnd(BLD, used[m], inf, "");
        anynan = LLVMBuildOr(BLD, anynan, LLVMBuildAnd(BLD, used[m], nan, ""), "");
        pinf = LLVMBuildOr(BLD, pinf, LLVMBuildAnd(BLD, uinf, LLVMBuildNot(BLD, neg[m], ""), ""), "");
        ninf = LLVMBuildOr(BLD, ninf, LLVMBuildAnd(BLD, uinf, neg[m], ""), "");
        allneg = LLVMBuildAnd(BLD, allneg, LLVMBuildOr(BLD, LLVMBuildNot(BLD, used[m], ""), neg[m], ""), "");
        LLVMValueRef a = sel(E, used[m], absb[m], c32(E, 0));
        maxabs = sel(E, icmp(E, LLVMIntUGT, a, maxabs), a, maxabs);
    }
    /* the largest corner's exponent (subnormals and zero at the format's minimum) */
    LLVMValueRef ex = smax(E, sub(E, LLVMBuildLShr(BLD, maxabs, c32(E, 23), ""), c32(E, 127)), emin);
    LLVMValueRef s = c64(E, 0);
    for (unsigned m = 0; m < 8; m++) {
        LLVMValueRef ev = LLVMBuildLShr(BLD, absb[m], c32(E, 23), "");
        LLVMValueRef sig = LLVMBuildAnd(BLD, absb[m], c32(E, 0x7fffff), "");
        sig = sel(E, icmp(E, LLVMIntEQ, ev, c32(E, 0)), sig, LLVMBuildOr(BLD, sig, c32(E, 0x800000), ""));
        /* sig * 2^(e - 150) in units of 2^(ex - mant - 3): shift left by e - 127 - ex + mant - 20 (at most 4) */
        LLVMValueRef sh = add(E, sub(E, sub(E, smax(E, ev, c32(E, 1)), c32(E, 127)), ex), sub(E, mant, c32(E, 20)));
        LLVMValueRef l = LLVMBuildShl(BLD, sig, smin(E, smax(E, sh, c32(E, 0)), c32(E, 31)), "");
        LLVMValueRef rs = sub(E, c32(E, 0), sh);
        LLVMValueRef r = sel(E, icmp(E, LLVMIntSGT, rs, c32(E, 31)), c32(E, 0),
                             LLVMBuildLShr(BLD, sig, smin(E, smax(E, rs, c32(E, 0)), c32(E, 31)), ""));
        LLVMValueRef q = LLVMBuildZExt(BLD, sel(E, icmp(E, LLVMIntSGE, sh, c32(E, 0)), l, r), E->i64, "");
        q = sel(E, neg[m], LLVMBuildNeg(BLD, q, ""), q);
        s = add(E, s, mul(E, q, LLVMBuildZExt(BLD, w[m], E->i64, "")));
    }
    /* s * 2^es, es = ex - mant - 11, rounded to mant bits (ties away from zero), at least 2^(emin - mant + 1) */
    LLVMValueRef sneg = icmp(E, LLVMIntSLT, s, c64(E, 0));
    LLVMValueRef mag = sel(E, sneg, LLVMBuildNeg(BLD, s, ""), s);
    LLVMValueRef es = sub(E, sub(E, ex, mant), c32(E, 11));
    LLVMTypeRef i64 = E->i64;
    LLVMValueRef ctl[2] = {mag, ci(E->i1, 0)};
    LLVMValueRef nb = sub(E, c32(E, 64), LLVMBuildTrunc(BLD, intrin(E, "llvm.ctlz", &i64, 1, ctl, 2), E->i32, ""));
    LLVMValueRef u = add(E, sub(E, smax(E, add(E, sub(E, nb, c32(E, 1)), es), emin), mant), c32(E, 1));
    LLVMValueRef shift = sub(E, u, es);
    LLVMValueRef shp = icmp(E, LLVMIntSGT, shift, c32(E, 0));
    LLVMValueRef shc = LLVMBuildZExt(BLD, smin(E, smax(E, shift, c32(E, 1)), c32(E, 63)), E->i64, "");
    LLVMValueRef rnd = LLVMBuildLShr(BLD, add(E, mag, LLVMBuildShl(BLD, c64(E, 1), sub(E, shc, c64(E, 1)), "")), shc, "");
    LLVMValueRef mv = sel(E, shp, rnd, mag), e = sel(E, shp, u, es);
    LLVMValueRef r = LLVMBuildUIToFP(BLD, mv, E->f32, "");
    r = LLVMBuildFMul(BLD, r, pow2(E, smax(E, e, c32(E, (uint32_t)-126))), "");
    r = LLVMBuildFMul(BLD, r, pow2(E, smin(E, add(E, e, c32(E, 126)), c32(E, 0))), "");
    LLVMValueRef bits = LLVMBuildOr(BLD, LLVMBuildBitCast(BLD, r, E->i32, ""), sel(E, sneg, c32(E, 0x80000000u), c32(E, 0)), "");
    bits = sel(E, icmp(E, LLVMIntEQ, s, c64(E, 0)), sel(E, allneg, c32(E, 0x80000000u), c32(E, 0)), bits);
    bits = sel(E, ninf, c32(E, 0xff800000u), bits);
    bits = sel(E, pinf, c32(E, 0x7f800000u), bits);
    LLVMValueRef nanres = LLVMBuildOr(BLD, anynan, LLVMBuildAnd(BLD, pinf, ninf, ""), "");
    return sel(E, nanres, sel(E, half, c32(E, 0x7fffe000u), c32(E, 0x7fffffffu)), bits);
}

/* sRGB colour channels (TEX_FK_SRGB, header comment): v[m] = the decoded bfloat16 value's bits | the biased
 * exponent G of its code's group of 8 (bits 0-7). With G the largest one among the corners that take part, each
 * value becomes q = floor(value / 2^(G - 134)) (at most 255), s = sum(q w) (< 2^16), and the result
 * s * 2^(G - 142) rounded to 11 significant bits, ties away from zero: always a normal f32 (G >= 118) */
static LLVMValueRef filter_srgb(emit_ctx *E, LLVMValueRef *v, LLVMValueRef *w, LLVMValueRef part) {
    LLVMValueRef g = c32(E, 0), s = c32(E, 0);
    for (unsigned m = 0; m < 8; m++) {
        LLVMValueRef used = icmp(E, LLVMIntNE, LLVMBuildAnd(BLD, part, c32(E, 1u << m), ""), c32(E, 0));
        g = smax(E, g, sel(E, used, LLVMBuildAnd(BLD, v[m], c32(E, 0xff), ""), c32(E, 0)));
    }
    for (unsigned m = 0; m < 8; m++) {
        /* value / 2^(G - 134) = sig24 * 2^(e - G - 16): e <= G (a value's own exponent is at most its group's) */
        LLVMValueRef e = LLVMBuildLShr(BLD, v[m], c32(E, 23), "");
        LLVMValueRef sig = LLVMBuildOr(BLD, LLVMBuildAnd(BLD, v[m], c32(E, 0x7f0000), ""), c32(E, 0x800000), "");
        LLVMValueRef sh = add(E, sub(E, g, e), c32(E, 16));
        LLVMValueRef q = LLVMBuildLShr(BLD, sig, smin(E, sh, c32(E, 31)), "");
        q = sel(E, icmp(E, LLVMIntEQ, e, c32(E, 0)), c32(E, 0), q); /* code 0: +0.0 */
        s = add(E, s, mul(E, q, w[m]));
    }
    LLVMTypeRef i32 = E->i32;
    LLVMValueRef ctl[2] = {s, ci(E->i1, 0)};
    LLVMValueRef nb = sub(E, c32(E, 32), intrin(E, "llvm.ctlz", &i32, 1, ctl, 2));
    LLVMValueRef shift = smax(E, sub(E, nb, c32(E, 11)), c32(E, 0));
    LLVMValueRef half = LLVMBuildLShr(BLD, LLVMBuildShl(BLD, c32(E, 1), shift, ""), c32(E, 1), "");
    LLVMValueRef mv = LLVMBuildLShr(BLD, add(E, s, half), shift, "");
    LLVMValueRef r = LLVMBuildFMul(BLD, LLVMBuildUIToFP(BLD, mv, E->f32, ""),
                                   pow2(E, add(E, sub(E, g, c32(E, 142)), shift)), "");
    return sel(E, icmp(E, LLVMIntEQ, s, c32(E, 0)), c32(E, 0), LLVMBuildBitCast(BLD, r, E->i32, ""));
}

LLVMValueRef tex_filter_fn(emit_ctx *E) {
    static const char name[] = "__p2n_tex_filter";
    LLVMValueRef fn = LLVMGetNamedFunction(E->M, name);
    if (fn) return fn;
    LLVMTypeRef v8 = LLVMVectorType(E->i32, 8);
    LLVMTypeRef a[4] = {E->i32, v8, v8, E->i32};
    tex_saved sv;
    fn = tex_helper_begin(E, name, LLVMFunctionType(E->i32, a, 4, 0), &sv);
    LLVMValueRef kind = LLVMGetParam(fn, 0), v[8], w[8];
    for (unsigned m = 0; m < 8; m++) {
        v[m] = LLVMBuildExtractElement(BLD, LLVMGetParam(fn, 1), c32(E, m), "");
        w[m] = LLVMBuildExtractElement(BLD, LLVMGetParam(fn, 2), c32(E, m), "");
    }
    LLVMBasicBlockRef fb = new_bb(E, "float"), nb = new_bb(E, "norm"), ib = new_bb(E, "int"), rest = new_bb(E, "notint");
    LLVMBasicBlockRef sb = new_bb(E, "srgb"), other = new_bb(E, "notsrgb");
    LLVMBuildCondBr(BLD, icmp(E, LLVMIntEQ, kind, c32(E, TEX_FK_SRGB)), sb, other);
    LLVMPositionBuilderAtEnd(BLD, sb);
    LLVMBuildRet(BLD, filter_srgb(E, v, w, LLVMGetParam(fn, 3)));
    LLVMPositionBuilderAtEnd(BLD, other);
    LLVMBuildCondBr(BLD, icmp(E, LLVMIntUGE, kind, c32(E, TEX_FK_INT_S)), ib, rest);
    LLVMPositionBuilderAtEnd(BLD, ib);
    LLVMBuildRet(BLD, filter_int(E, kind, v, w));
    LLVMPositionBuilderAtEnd(BLD, rest);
    LLVMBuildCondBr(BLD, icmp(E, LLVMIntUGE, kind, c32(E, TEX_FK_F16)), fb, nb);
    LLVMPositionBuilderAtEnd(BLD, nb);
    LLVMBuildRet(BLD, filter_norm(E, kind, v, w));
    LLVMPositionBuilderAtEnd(BLD, fb);
    LLVMBuildRet(BLD, filter_float(E, kind, v, w, LLVMGetParam(fn, 3)));
    tex_helper_end(E, &sv);
    return fn;
}
