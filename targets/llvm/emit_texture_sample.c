/* emit_texture_sample.c — software texture sampling, emitted once per module as internal functions.
 *
 * What NVIDIA does (CUDA C Programming Guide, "Texture Fetching"; checked against H200 recordings of family tex):
 *  - normalised coordinates are scaled by the size; point sampling reads T[floor(x)];
 *  - linear filtering reads T[i] and T[i+1] with i = floor(x - 0.5) and the weight alpha = frac(x - 0.5) held in
 *    9-bit fixed point with 8 fraction bits (tex_weight); the 2^n texels are blended in one weighted sum with the
 *    H200's fixed-point arithmetic (emit_texture_filter.c), integers read as integers too;
 *  - each texel index is addressed on its own (wrap, clamp, mirror, border; wrap and mirror only with normalised
 *    coordinates, else clamp), so linear filtering with wrap blends the last and the first texel, and with border
 *    a texel outside reads the border colour before the blend;
 *  - 8/16-bit integers read as floats are unsigned/(2^n-1) or max(signed/(2^(n-1)-1), -1); half becomes float;
 *    missing channels read 0 (alpha too: the H200 recordings; the Programming Guide's alpha = 1 is not what sm_90
 *    returns for tex).
 * Results are <4 x i32>: float bits for float results, integers otherwise (the instruction's destination type
 * does not change the bits, as on the hardware).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emit_texture.h"
#include "emit_texture_filter.h"
#include "texture_desc.h"

#define BLD (E->B)

typedef tex_saved saved;

LLVMTypeRef tex_v4i(emit_ctx *E) { return LLVMVectorType(E->i32, 4); }

/* start the body of helper `name` on a builder of its own (E->B and E->cur point at it until helper_end), so the
 * emission's small helpers (sel, intrin, half_to_float...) work unchanged inside it */
static LLVMValueRef helper_begin(emit_ctx *E, const char *name, LLVMTypeRef ft, saved *s) {
    return tex_helper_begin(E, name, ft, s);
}
static void helper_end(emit_ctx *E, saved *s) { tex_helper_end(E, s); }

LLVMValueRef tex_call(emit_ctx *E, LLVMValueRef fn, LLVMValueRef *args, unsigned n) {
    return LLVMBuildCall2(BLD, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

static LLVMValueRef eq32(emit_ctx *E, LLVMValueRef a, uint32_t b) { return LLVMBuildICmp(BLD, LLVMIntEQ, a, c32(E, b), ""); }
static LLVMValueRef or1(emit_ctx *E, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildOr(BLD, a, b, ""); }
static LLVMValueRef and1(emit_ctx *E, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildAnd(BLD, a, b, ""); }
static LLVMValueRef fc(emit_ctx *E, double v) { return LLVMConstReal(E->f32, v); }
static LLVMValueRef umax1(emit_ctx *E, LLVMValueRef v) { return sel(E, eq32(E, v, 0), c32(E, 1), v); }
static LLVMValueRef flag(emit_ctx *E, LLVMValueRef flags, uint32_t bit) {
    return LLVMBuildICmp(BLD, LLVMIntNE, LLVMBuildAnd(BLD, flags, c32(E, bit), ""), c32(E, 0), "");
}
static LLVMValueRef phi2(emit_ctx *E, LLVMTypeRef t, LLVMValueRef a, LLVMBasicBlockRef ba, LLVMValueRef b,
                        LLVMBasicBlockRef bb) {
    LLVMValueRef p = LLVMBuildPhi(BLD, t, "");
    LLVMValueRef v[2] = {a, b};
    LLVMBasicBlockRef blk[2] = {ba, bb};
    LLVMAddIncoming(p, v, blk, 2);
    return p;
}

/* float results: float or half data, or 8/16-bit integers promoted to [0,1] / [-1,1] */
static LLVMValueRef promotes(emit_ctx *E, LLVMValueRef fmt, LLVMValueRef flags) {
    LLVMValueRef small = or1(E, or1(E, eq32(E, fmt, 0x01), eq32(E, fmt, 0x02)), or1(E, eq32(E, fmt, 0x08), eq32(E, fmt, 0x09)));
    return and1(E, small, LLVMBuildNot(BLD, flag(E, flags, P2N_TEX_READ_AS_INTEGER), ""));
}

/* sRGB to linear for 8-bit channels: the H200's values have 8 significant bits (bfloat16, listed here) and are
 * up to one such step from the sRGB formula (rounded to bfloat16: 227 of 256), so they come from the recordings
 * (tex/probe_srgb_point, tex/fmt_srgb) */
static const uint16_t srgb_bf16[256] = {
    0x0000, 0x39a0, 0x3a20, 0x3a70, 0x3aa0, 0x3ac8, 0x3af0, 0x3b0c, 0x3b20, 0x3b34, 0x3b48, 0x3b5c,
    0x3b70, 0x3b84, 0x3b90, 0x3b9c, 0x3baa, 0x3bb8, 0x3bc6, 0x3bd6, 0x3be6, 0x3bf6, 0x3c03, 0x3c0c,
    0x3c16, 0x3c1f, 0x3c29, 0x3c34, 0x3c3e, 0x3c49, 0x3c55, 0x3c60, 0x3c6c, 0x3c7a, 0x3c83, 0x3c8a,
    0x3c91, 0x3c98, 0x3c9f, 0x3ca6, 0x3cae, 0x3cb6, 0x3cbe, 0x3cc6, 0x3cce, 0x3cd7, 0x3ce0, 0x3ce9,
    0x3cf2, 0x3cfc, 0x3d03, 0x3d08, 0x3d0d, 0x3d12, 0x3d17, 0x3d1c, 0x3d22, 0x3d28, 0x3d2d, 0x3d33,
    0x3d39, 0x3d3f, 0x3d45, 0x3d4c, 0x3d52, 0x3d58, 0x3d60, 0x3d66, 0x3d6c, 0x3d74, 0x3d7a, 0x3d81,
    0x3d85, 0x3d88, 0x3d8c, 0x3d90, 0x3d94, 0x3d98, 0x3d9c, 0x3da0, 0x3da4, 0x3da9, 0x3dad, 0x3db1,
    0x3db6, 0x3dba, 0x3dbf, 0x3dc3, 0x3dc8, 0x3dcd, 0x3dd1, 0x3dd6, 0x3ddb, 0x3de0, 0x3de5, 0x3dea,
    0x3df0, 0x3df4, 0x3dfa, 0x3e00, 0x3e02, 0x3e05, 0x3e08, 0x3e0b, 0x3e0e, 0x3e11, 0x3e14, 0x3e17,
    0x3e1a, 0x3e1d, 0x3e20, 0x3e23, 0x3e26, 0x3e29, 0x3e2c, 0x3e30, 0x3e33, 0x3e36, 0x3e3a, 0x3e3d,
    0x3e40, 0x3e44, 0x3e47, 0x3e4b, 0x3e4e, 0x3e52, 0x3e56, 0x3e59, 0x3e5d, 0x3e61, 0x3e65, 0x3e68,
    0x3e6c, 0x3e70, 0x3e74, 0x3e78, 0x3e7c, 0x3e80, 0x3e82, 0x3e84, 0x3e86, 0x3e88, 0x3e8a, 0x3e8d,
    0x3e8f, 0x3e91, 0x3e93, 0x3e95, 0x3e98, 0x3e9a, 0x3e9c, 0x3e9e, 0x3ea1, 0x3ea3, 0x3ea5, 0x3ea8,
    0x3eaa, 0x3ead, 0x3eaf, 0x3eb2, 0x3eb4, 0x3eb6, 0x3eb9, 0x3ebc, 0x3ebe, 0x3ec1, 0x3ec3, 0x3ec6,
    0x3ec8, 0x3ecb, 0x3ece, 0x3ed1, 0x3ed3, 0x3ed6, 0x3ed9, 0x3edb, 0x3ede, 0x3ee1, 0x3ee4, 0x3ee7,
    0x3eea, 0x3eed, 0x3ef0, 0x3ef2, 0x3ef6, 0x3ef8, 0x3efc, 0x3efe, 0x3f01, 0x3f02, 0x3f04, 0x3f05,
    0x3f07, 0x3f09, 0x3f0a, 0x3f0c, 0x3f0d, 0x3f0f, 0x3f11, 0x3f12, 0x3f14, 0x3f16, 0x3f17, 0x3f19,
    0x3f1b, 0x3f1c, 0x3f1e, 0x3f20, 0x3f21, 0x3f23, 0x3f25, 0x3f27, 0x3f29, 0x3f2a, 0x3f2c, 0x3f2e,
    0x3f30, 0x3f32, 0x3f33, 0x3f35, 0x3f37, 0x3f39, 0x3f3b, 0x3f3d, 0x3f3f, 0x3f41, 0x3f43, 0x3f45,
    0x3f47, 0x3f49, 0x3f4b, 0x3f4d, 0x3f4f, 0x3f51, 0x3f53, 0x3f55, 0x3f57, 0x3f59, 0x3f5b, 0x3f5d,
    0x3f5f, 0x3f61, 0x3f63, 0x3f65, 0x3f68, 0x3f6a, 0x3f6c, 0x3f6e, 0x3f70, 0x3f72, 0x3f74, 0x3f76,
    0x3f7a, 0x3f7c, 0x3f7e, 0x3f80,
};

static LLVMValueRef srgb_table(emit_ctx *E) {
    static const char name[] = "__p2n_tex_srgb";
    LLVMValueRef g = LLVMGetNamedGlobal(E->M, name);
    if (g) return g;
    LLVMValueRef v[256];
    for (int i = 0; i < 256; i++) {
        uint32_t bits = (uint32_t)srgb_bf16[i] << 16;
        float f;
        memcpy(&f, &bits, sizeof f);
        v[i] = LLVMConstReal(E->f32, f);
    }
    LLVMTypeRef at = LLVMArrayType2(E->f32, 256);
    g = LLVMAddGlobalInAddressSpace(E->M, at, name, module_var_as(E)); /* as module globals */
    LLVMSetInitializer(g, LLVMConstArray2(E->f32, v, 256));
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    return g;
}

/* one channel's raw bits (zero-extended) -> result lane; `ints`: 8/16-bit normalised data stay the stored
 * integers (sign-extended), for the linear filter (emit_texture_filter.c) */
static LLVMValueRef decode(emit_ctx *E, LLVMValueRef raw, LLVMValueRef bpc, LLVMValueRef fmt, LLVMValueRef flags,
                           unsigned c, bool ints) {
    LLVMValueRef sgn = or1(E, or1(E, eq32(E, fmt, 0x08), eq32(E, fmt, 0x09)), eq32(E, fmt, 0x0a));
    LLVMValueRef sh = LLVMBuildSub(BLD, c32(E, 32), LLVMBuildMul(BLD, bpc, c32(E, 8), ""), "");
    sh = sel(E, LLVMBuildICmp(BLD, LLVMIntUGT, sh, c32(E, 24), ""), c32(E, 0), sh); /* bpc outside 1..4: raw */
    LLVMValueRef ext = sel(E, sgn, LLVMBuildAShr(BLD, LLVMBuildShl(BLD, raw, sh, ""), sh, ""), raw);
    LLVMValueRef half = LLVMBuildBitCast(BLD, half_to_float(E, LLVMBuildTrunc(BLD, raw, E->i16, ""), false), E->i32, "");
    LLVMValueRef one = eq32(E, bpc, 1);
    LLVMValueRef den = sel(E, one, sel(E, sgn, fc(E, 127), fc(E, 255)), sel(E, sgn, fc(E, 32767), fc(E, 65535)));
    LLVMValueRef nf = sel(E, sgn, LLVMBuildSIToFP(BLD, ext, E->f32, ""), LLVMBuildUIToFP(BLD, ext, E->f32, ""));
    nf = LLVMBuildFDiv(BLD, nf, den, "");
    nf = sel(E, LLVMBuildFCmp(BLD, LLVMRealOLT, nf, fc(E, -1), ""), fc(E, -1), nf);
    if (c < 3) { /* sRGB: colour channels of 8-bit unsigned data only */
        LLVMValueRef srgb = and1(E, flag(E, flags, P2N_TEX_SRGB), eq32(E, fmt, 0x01));
        LLVMValueRef g = srgb_table(E);
        LLVMValueRef idx[2] = {c64(E, 0), LLVMBuildZExt(BLD, LLVMBuildAnd(BLD, raw, c32(E, 0xff), ""), E->i64, "")};
        LLVMValueRef p = LLVMBuildGEP2(BLD, LLVMGlobalGetValueType(g), g, idx, 2, "");
        nf = sel(E, srgb, LLVMBuildLoad2(BLD, E->f32, p, ""), nf);
        if (ints) { /* for the filter (TEX_FK_SRGB): the bfloat16 value's bits with, in the low 8 bits (zero in a
                     * bfloat16), the biased exponent of the decoded value of code | 7 (the last of its group of 8) */
            idx[1] = LLVMBuildOr(BLD, idx[1], c64(E, 7), "");
            LLVMValueRef pt = LLVMBuildGEP2(BLD, LLVMGlobalGetValueType(g), g, idx, 2, "");
            LLVMValueRef top = LLVMBuildBitCast(BLD, LLVMBuildLoad2(BLD, E->f32, pt, ""), E->i32, "");
            LLVMValueRef gexp = LLVMBuildLShr(BLD, top, c32(E, 23), "");
            ext = sel(E, srgb, LLVMBuildOr(BLD, LLVMBuildBitCast(BLD, nf, E->i32, ""), gexp, ""), ext);
        }
    }
    LLVMValueRef nbits = LLVMBuildBitCast(BLD, nf, E->i32, "");
    LLVMValueRef v = ints ? ext : sel(E, promotes(E, fmt, flags), nbits, ext);
    v = sel(E, eq32(E, fmt, 0x10), half, v);
    return sel(E, eq32(E, fmt, 0x20), raw, v);
}

static LLVMValueRef load_aligned1(emit_ctx *E, LLVMTypeRef t, LLVMValueRef p) {
    LLVMValueRef v = LLVMBuildLoad2(BLD, t, p, "");
    LLVMSetAlignment(v, 1);
    return v;
}

static LLVMValueRef texel_fn(emit_ctx *E, bool ints) {
    const char *name = ints ? "__p2n_tex_texel_ints" : "__p2n_tex_texel";
    LLVMValueRef fn = LLVMGetNamedFunction(E->M, name);
    if (fn) return fn;
    LLVMTypeRef a[4] = {E->ptr, E->i32, E->i32, E->i32};
    saved sv;
    fn = helper_begin(E, name, LLVMFunctionType(tex_v4i(E), a, 4, 0), &sv);
    LLVMValueRef d = LLVMGetParam(fn, 0), x = LLVMGetParam(fn, 1), y = LLVMGetParam(fn, 2), s = LLVMGetParam(fn, 3);
    LLVMValueRef base = texd_load(E, d, P2N_TEXD_BASE, E->i64), pitch = texd_load(E, d, P2N_TEXD_PITCH, E->i64);
    LLVMValueRef sp = texd_load(E, d, P2N_TEXD_SLICE_PITCH, E->i64), eb = texd_load(E, d, P2N_TEXD_ELEM_BYTES, E->i32);
    LLVMValueRef ch = texd_load(E, d, P2N_TEXD_CHANNELS, E->i32), fmt = texd_load(E, d, P2N_TEXD_FORMAT, E->i32);
    LLVMValueRef flags = texd_load(E, d, P2N_TEXD_FLAGS, E->i32);
    LLVMValueRef addr = LLVMBuildAdd(BLD, base, LLVMBuildMul(BLD, LLVMBuildSExt(BLD, s, E->i64, ""), sp, ""), "");
    addr = LLVMBuildAdd(BLD, addr, LLVMBuildMul(BLD, LLVMBuildSExt(BLD, y, E->i64, ""), pitch, ""), "");
    addr = LLVMBuildAdd(BLD, addr, LLVMBuildMul(BLD, LLVMBuildSExt(BLD, x, E->i64, ""), LLVMBuildZExt(BLD, eb, E->i64, ""), ""), "");
    LLVMValueRef bpc = LLVMBuildUDiv(BLD, eb, umax1(E, ch), "");
    /* a descriptor without memory (the empty image of an unbound .texref, emit_texture_ref.c) has no channels */
    LLVMValueRef nch = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, base, c64(E, 0), ""), c32(E, 0), ch);
    LLVMValueRef res = LLVMGetUndef(tex_v4i(E));
    for (unsigned c = 0; c < 4; c++) {
        LLVMValueRef dflt = c32(E, 0); /* H200: every missing channel reads 0, alpha too */
        LLVMBasicBlockRef pre = LLVMGetInsertBlock(BLD), lsw = new_bb(E, "ch"), l1 = new_bb(E, "b1"),
                          l2 = new_bb(E, "b2"), l4 = new_bb(E, "b4"), join = new_bb(E, "dec"), done = new_bb(E, "chd");
        LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntULT, c32(E, c), nch, ""), lsw, done);
        LLVMPositionBuilderAtEnd(BLD, lsw);
        LLVMValueRef off = LLVMBuildZExt(BLD, LLVMBuildMul(BLD, bpc, c32(E, c), ""), E->i64, "");
        LLVMValueRef p = tex_ptr(E, LLVMBuildAdd(BLD, addr, off, ""));
        LLVMValueRef sw = LLVMBuildSwitch(BLD, bpc, l4, 2);
        LLVMAddCase(sw, c32(E, 1), l1);
        LLVMAddCase(sw, c32(E, 2), l2);
        LLVMValueRef r[3];
        LLVMBasicBlockRef rb[3] = {l1, l2, l4};
        LLVMTypeRef rt[3] = {E->i8, E->i16, E->i32};
        for (int k = 0; k < 3; k++) {
            LLVMPositionBuilderAtEnd(BLD, rb[k]);
            r[k] = load_aligned1(E, rt[k], p);
            if (k < 2) r[k] = LLVMBuildZExt(BLD, r[k], E->i32, "");
            LLVMBuildBr(BLD, join);
        }
        LLVMPositionBuilderAtEnd(BLD, join);
        LLVMValueRef raw = LLVMBuildPhi(BLD, E->i32, "");
        LLVMAddIncoming(raw, r, rb, 3);
        LLVMValueRef v = decode(E, raw, bpc, fmt, flags, c, ints);
        LLVMBasicBlockRef jend = LLVMGetInsertBlock(BLD);
        LLVMBuildBr(BLD, done);
        LLVMPositionBuilderAtEnd(BLD, done);
        res = LLVMBuildInsertElement(BLD, res, phi2(E, E->i32, dflt, pre, v, jend), c32(E, c), "");
    }
    LLVMBuildRet(BLD, res);
    helper_end(E, &sv);
    return fn;
}

LLVMValueRef tex_texel_fn(emit_ctx *E) { return texel_fn(E, false); }

/* The border colour as the hardware returns it (H200 recordings, family tex): stored in the texel's format and
 * decoded like a texel. Float data: the f32 value (half: f16 rounded toward zero, saturated); 8/16-bit data read
 * as normalised floats: to f16 toward zero, clamped to [0,1] / [-1,1], scaled to the integer range with ties toward
 * zero; integer read modes: the low bits of the float's bit pattern. Missing channels read 0. */
static LLVMValueRef border_of(emit_ctx *E, LLVMValueRef d, bool ints) {
    LLVMValueRef eb = texd_load(E, d, P2N_TEXD_ELEM_BYTES, E->i32), ch = texd_load(E, d, P2N_TEXD_CHANNELS, E->i32);
    LLVMValueRef fmt = texd_load(E, d, P2N_TEXD_FORMAT, E->i32), flags = texd_load(E, d, P2N_TEXD_FLAGS, E->i32);
    LLVMValueRef bpc = LLVMBuildUDiv(BLD, eb, umax1(E, ch), "");
    LLVMValueRef sgn = or1(E, eq32(E, fmt, 0x08), eq32(E, fmt, 0x09));
    LLVMValueRef one = eq32(E, bpc, 1);
    LLVMValueRef mask = sel(E, one, c32(E, 0xff), sel(E, eq32(E, bpc, 2), c32(E, 0xffff), c32(E, 0xffffffffu)));
    LLVMValueRef den = sel(E, one, sel(E, sgn, fc(E, 127), fc(E, 255)), sel(E, sgn, fc(E, 32767), fc(E, 65535)));
    LLVMTypeRef ft = E->f32;
    LLVMValueRef v = LLVMGetUndef(tex_v4i(E));
    for (unsigned c = 0; c < 4; c++) {
        LLVMValueRef bits = texd_load(E, d, P2N_TEXD_BORDER + 4 * c, E->i32), bf = LLVMBuildBitCast(BLD, bits, E->f32, "");
        LLVMValueRef h16 = float_to_half(E, bf, false, IR_M_RZ, false, true);
        LLVMValueRef h = half_to_float(E, h16, false);
        h = sel(E, f_isnan(E, h), fc(E, 0), h);
        h = sel(E, LLVMBuildFCmp(BLD, LLVMRealOGT, h, fc(E, 1), ""), fc(E, 1), h);
        h = sel(E, LLVMBuildFCmp(BLD, LLVMRealOLT, h, sel(E, sgn, fc(E, -1), fc(E, 0)), ""), sel(E, sgn, fc(E, -1), fc(E, 0)), h);
        LLVMValueRef a = intrin(E, "llvm.fabs", &ft, 1, &h, 1);
        LLVMValueRef q = LLVMBuildFSub(BLD, LLVMBuildFMul(BLD, a, den, ""), fc(E, 0.5), "");
        q = intrin(E, "llvm.ceil", &ft, 1, &q, 1);
        LLVMValueRef qi = LLVMBuildFPToSI(BLD, q, E->i32, "");
        qi = sel(E, LLVMBuildFCmp(BLD, LLVMRealOLT, h, fc(E, 0), ""), LLVMBuildNeg(BLD, qi, ""), qi);
        LLVMValueRef raw = sel(E, promotes(E, fmt, flags), qi, bits);
        raw = sel(E, eq32(E, fmt, 0x10), LLVMBuildZExt(BLD, h16, E->i32, ""), raw);
        raw = LLVMBuildAnd(BLD, raw, mask, "");
        LLVMValueRef lane = sel(E, LLVMBuildICmp(BLD, LLVMIntULT, c32(E, c), ch, ""), decode(E, raw, bpc, fmt, flags, c, ints), c32(E, 0));
        v = LLVMBuildInsertElement(BLD, v, lane, c32(E, c), "");
    }
    return v;
}

/* <4 x i32> (ptr d, i32 x, i32 y, i32 s): the texel, or the border colour when an index is -1 (border mode);
 * `ints` as for decode */
static LLVMValueRef fetch_fn(emit_ctx *E, bool ints) {
    const char *name = ints ? "__p2n_tex_fetch_ints" : "__p2n_tex_fetch";
    LLVMValueRef fn = LLVMGetNamedFunction(E->M, name);
    if (fn) return fn;
    LLVMValueRef texel = texel_fn(E, ints);
    LLVMTypeRef a[4] = {E->ptr, E->i32, E->i32, E->i32};
    saved sv;
    fn = helper_begin(E, name, LLVMFunctionType(tex_v4i(E), a, 4, 0), &sv);
    LLVMValueRef p[4];
    for (int i = 0; i < 4; i++) p[i] = LLVMGetParam(fn, (unsigned)i);
    LLVMValueRef neg = LLVMBuildICmp(BLD, LLVMIntSLT, LLVMBuildOr(BLD, LLVMBuildOr(BLD, p[1], p[2], ""), p[3], ""), c32(E, 0), "");
    LLVMBasicBlockRef bb = new_bb(E, "border"), tb = new_bb(E, "texel");
    LLVMBuildCondBr(BLD, neg, bb, tb);
    LLVMPositionBuilderAtEnd(BLD, bb);
    LLVMBuildRet(BLD, border_of(E, p[0], ints));
    LLVMPositionBuilderAtEnd(BLD, tb);
    LLVMBuildRet(BLD, tex_call(E, texel, p, 4));
    helper_end(E, &sv);
    return fn;
}

/* floor(x) as i32; NaN -> 0, huge values saturate (they address like any far-away texel) */
static LLVMValueRef floor_i(emit_ctx *E, LLVMValueRef fl) {
    fl = sel(E, LLVMBuildFCmp(BLD, LLVMRealUNO, fl, fl, ""), fc(E, 0), fl);
    fl = sel(E, LLVMBuildFCmp(BLD, LLVMRealOGT, fl, fc(E, 0x1p30), ""), fc(E, 0x1p30), fl);
    fl = sel(E, LLVMBuildFCmp(BLD, LLVMRealOLT, fl, fc(E, -0x1p30), ""), fc(E, -0x1p30), fl);
    return LLVMBuildFPToSI(BLD, fl, E->i32, "");
}
static LLVMValueRef ffloor(emit_ctx *E, LLVMValueRef x) {
    LLVMTypeRef t = E->f32;
    return intrin(E, "llvm.floor", &t, 1, &x, 1);
}

/* texel index i of a dimension of n texels under CUaddress_mode `mode`: the index in [0, n), or -1 (border) */
static LLVMValueRef address_body(emit_ctx *E, LLVMValueRef i, LLVMValueRef n, LLVMValueRef mode) {
    LLVMValueRef r = LLVMBuildSRem(BLD, i, n, "");
    LLVMValueRef wrap = sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, r, c32(E, 0), ""), LLVMBuildAdd(BLD, r, n, ""), r);
    LLVMValueRef n2 = LLVMBuildShl(BLD, n, c32(E, 1), "");
    LLVMValueRef m = LLVMBuildSRem(BLD, i, n2, "");
    m = sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, m, c32(E, 0), ""), LLVMBuildAdd(BLD, m, n2, ""), m);
    LLVMValueRef mirror = sel(E, LLVMBuildICmp(BLD, LLVMIntSGE, m, n, ""), LLVMBuildSub(BLD, LLVMBuildSub(BLD, n2, c32(E, 1), ""), m, ""), m);
    LLVMValueRef lo = LLVMBuildICmp(BLD, LLVMIntSLT, i, c32(E, 0), ""), hi = LLVMBuildICmp(BLD, LLVMIntSGE, i, n, "");
    LLVMValueRef clamp = sel(E, lo, c32(E, 0), sel(E, hi, LLVMBuildSub(BLD, n, c32(E, 1), ""), i));
    LLVMValueRef border = sel(E, or1(E, lo, hi), c32(E, (uint32_t)-1), i);
    LLVMValueRef v = sel(E, eq32(E, mode, 0), wrap, clamp);
    v = sel(E, eq32(E, mode, 2), mirror, v);
    return sel(E, eq32(E, mode, 3), border, v);
}

/* address_body as a function of its own, never inlined: LLVM 22's SLP vectoriser turns the per-dimension copies
 * into <2 x i1> lane extracts that its x86 AVX-512 back end (znver5, -O3) miscompiles (a mask register read before
 * it is written: every texel became the border colour in conformance case tex/fmt_u16x2_dtypes) */
static LLVMValueRef address(emit_ctx *E, LLVMValueRef i, LLVMValueRef n, LLVMValueRef mode) {
    static const char name[] = "__p2n_tex_address";
    LLVMValueRef fn = LLVMGetNamedFunction(E->M, name);
    if (!fn) {
        LLVMTypeRef a[3] = {E->i32, E->i32, E->i32};
        saved sv;
        fn = helper_begin(E, name, LLVMFunctionType(E->i32, a, 3, 0), &sv);
        unsigned k = LLVMGetEnumAttributeKindForName("noinline", 8);
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(E->C, k, 0));
        LLVMBuildRet(BLD, address_body(E, LLVMGetParam(fn, 0), LLVMGetParam(fn, 1), LLVMGetParam(fn, 2)));
        helper_end(E, &sv);
    }
    LLVMValueRef args[3] = {i, n, mode};
    return tex_call(E, fn, args, 3);
}

/* the linear-filter weight of a dimension: frac(b) of b = x - 0.5 rounded half up to 8 fraction bits (0..256,
 * H200: x = 2.5 + 1/512 weighs 1/256), from frac * 512 (exact) in integers; 0 when both texels are the same one
 * (clamped at an edge: it changes the 3D corner weights, filt_3d_f32) */
static LLVMValueRef tex_weight(emit_ctx *E, LLVMValueRef frac, LLVMValueRef j0, LLVMValueRef j1) {
    frac = sel(E, LLVMBuildFCmp(BLD, LLVMRealOLT, frac, fc(E, 1), ""), frac, fc(E, 0)); /* NaN/inf coordinates */
    LLVMValueRef k = LLVMBuildFPToSI(BLD, LLVMBuildFMul(BLD, frac, fc(E, 512), ""), E->i32, "");
    LLVMValueRef w = LLVMBuildLShr(BLD, LLVMBuildAdd(BLD, k, c32(E, 1), ""), c32(E, 1), "");
    return sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, j0, j1, ""), c32(E, 0), w);
}

/* the filter's format of each channel (emit_texture_filter.h): sRGB colour channels have a filter of their own */
static LLVMValueRef filter_kind(emit_ctx *E, LLVMValueRef fmt, LLVMValueRef flags, unsigned c) {
    LLVMValueRef k = sel(E, eq32(E, fmt, 0x02), c32(E, TEX_FK_UNORM16), c32(E, TEX_FK_UNORM8));
    k = sel(E, eq32(E, fmt, 0x08), c32(E, TEX_FK_SNORM8), k);
    k = sel(E, eq32(E, fmt, 0x09), c32(E, TEX_FK_SNORM16), k);
    k = sel(E, flag(E, flags, P2N_TEX_READ_AS_INTEGER), c32(E, TEX_FK_INT_S), k);
    k = sel(E, eq32(E, fmt, 0x03), c32(E, TEX_FK_INT_U), k);
    k = sel(E, eq32(E, fmt, 0x0a), c32(E, TEX_FK_INT_S), k);
    k = sel(E, eq32(E, fmt, 0x10), c32(E, TEX_FK_F16), k);
    k = sel(E, eq32(E, fmt, 0x20), c32(E, TEX_FK_F32), k);
    if (c < 3) k = sel(E, and1(E, flag(E, flags, P2N_TEX_SRGB), eq32(E, fmt, 0x01)), c32(E, TEX_FK_SRGB), k);
    return k;
}

/* per dimension: size (>= 1), address mode (wrap/mirror become clamp without normalised coordinates; clamp on
 * cubemap faces) and the coordinate in texels */
typedef struct dimstate {
    LLVMValueRef n, mode, c;
} dimstate;

static LLVMValueRef dim_mode(emit_ctx *E, LLVMValueRef d, unsigned k, LLVMValueRef norm, LLVMValueRef cube) {
    LLVMValueRef m = texd_load(E, d, P2N_TEXD_ADDRESS + 4 * k, E->i32);
    LLVMValueRef wm = or1(E, eq32(E, m, 0), eq32(E, m, 2));
    m = sel(E, and1(E, wm, LLVMBuildNot(BLD, norm, "")), c32(E, 1), m);
    return sel(E, cube, c32(E, 1), m);
}

static void dims_setup(emit_ctx *E, LLVMValueRef d, unsigned nd, LLVMValueRef *coord, LLVMValueRef norm,
                       LLVMValueRef cube, dimstate *ds) {
    static const unsigned size_off[3] = {P2N_TEXD_WIDTH, P2N_TEXD_HEIGHT, P2N_TEXD_DEPTH};
    for (unsigned k = 0; k < nd; k++) {
        ds[k].n = umax1(E, texd_load(E, d, size_off[k], E->i32));
        ds[k].mode = dim_mode(E, d, k, norm, cube);
        LLVMValueRef nf = LLVMBuildUIToFP(BLD, ds[k].n, E->f32, "");
        ds[k].c = sel(E, norm, LLVMBuildFMul(BLD, coord[k], nf, ""), coord[k]);
    }
}

/* the slice argument of fetch for 3D images: slice + z index, or -1 when z is a border texel */
static LLVMValueRef slice_of(emit_ctx *E, unsigned nd, LLVMValueRef slice, LLVMValueRef z) {
    if (nd < 3) return slice;
    return sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, z, c32(E, 0), ""), z, LLVMBuildAdd(BLD, slice, z, ""));
}

LLVMValueRef tex_sample_fn(emit_ctx *E, unsigned nd) {
    char name[32];
    snprintf(name, sizeof name, "__p2n_tex_sample%u", nd);
    LLVMValueRef fn = LLVMGetNamedFunction(E->M, name);
    if (fn) return fn;
    LLVMValueRef fetch = fetch_fn(E, false), texel = tex_texel_fn(E);
    LLVMTypeRef a[6] = {E->ptr, E->f32, E->f32, E->f32, E->i32, E->i32};
    saved sv;
    fn = helper_begin(E, name, LLVMFunctionType(tex_v4i(E), a, 6, 0), &sv);
    LLVMValueRef d = LLVMGetParam(fn, 0), slice = LLVMGetParam(fn, 4), mode = LLVMGetParam(fn, 5);
    LLVMValueRef coord[3] = {LLVMGetParam(fn, 1), LLVMGetParam(fn, 2), LLVMGetParam(fn, 3)};
    LLVMValueRef cube = flag(E, mode, TEX_MODE_CUBE), intc = flag(E, mode, TEX_MODE_INT_COORDS);
    LLVMValueRef flags = texd_load(E, d, P2N_TEXD_FLAGS, E->i32), fmt = texd_load(E, d, P2N_TEXD_FORMAT, E->i32);
    if (nd == 1) { /* linear memory (tex1Dfetch): element index, no filtering, outside reads 0 */
        LLVMValueRef kind = texd_load(E, d, P2N_TEXD_KIND, E->i32);
        LLVMBasicBlockRef lin = new_bb(E, "linear"), arr = new_bb(E, "array"), in = new_bb(E, "in"), out = new_bb(E, "out");
        LLVMBuildCondBr(BLD, eq32(E, kind, P2N_TEX_KIND_LINEAR), lin, arr);
        LLVMPositionBuilderAtEnd(BLD, lin);
        LLVMValueRef i = floor_i(E, ffloor(E, coord[0]));
        LLVMValueRef w = texd_load(E, d, P2N_TEXD_WIDTH, E->i32);
        LLVMBuildCondBr(BLD, and1(E, LLVMBuildICmp(BLD, LLVMIntSGE, i, c32(E, 0), ""), LLVMBuildICmp(BLD, LLVMIntULT, i, w, "")), in, out);
        LLVMPositionBuilderAtEnd(BLD, in);
        LLVMValueRef args[4] = {d, i, c32(E, 0), c32(E, 0)};
        LLVMBuildRet(BLD, tex_call(E, texel, args, 4));
        LLVMPositionBuilderAtEnd(BLD, out);
        LLVMBuildRet(BLD, LLVMConstNull(tex_v4i(E)));
        LLVMPositionBuilderAtEnd(BLD, arr);
    }
    { /* integer coordinates (H200): texel indices, no filtering or address modes, outside the image 0; .1d (not
       * .a1d) on anything but linear memory reads 0 (tex1Dfetch is for linear memory) */
        LLVMBasicBlockRef ib = new_bb(E, "intc"), z0 = new_bb(E, "intc.zero"), in = new_bb(E, "intc.in"), go = new_bb(E, "sample");
        LLVMBuildCondBr(BLD, intc, ib, go);
        LLVMPositionBuilderAtEnd(BLD, ib);
        static const unsigned size_off[3] = {P2N_TEXD_WIDTH, P2N_TEXD_HEIGHT, P2N_TEXD_DEPTH};
        LLVMValueRef ok = nd == 1 ? flag(E, mode, TEX_MODE_LAYERED) : ci(E->i1, 1), ix[3] = {c32(E, 0), c32(E, 0), c32(E, 0)};
        ok = and1(E, ok, LLVMBuildICmp(BLD, LLVMIntSGE, slice, c32(E, 0), "")); /* a layer outside: -1 */
        for (unsigned k = 0; k < nd; k++) {
            ix[k] = floor_i(E, coord[k]);
            LLVMValueRef n = umax1(E, texd_load(E, d, size_off[k], E->i32));
            ok = and1(E, ok, and1(E, LLVMBuildICmp(BLD, LLVMIntSGE, ix[k], c32(E, 0), ""), LLVMBuildICmp(BLD, LLVMIntSLT, ix[k], n, "")));
        }
        LLVMBuildCondBr(BLD, ok, in, z0);
        LLVMPositionBuilderAtEnd(BLD, in);
        LLVMValueRef ta[4] = {d, ix[0], ix[1], nd == 3 ? LLVMBuildAdd(BLD, slice, ix[2], "") : slice};
        LLVMBuildRet(BLD, tex_call(E, texel, ta, 4));
        LLVMPositionBuilderAtEnd(BLD, z0);
        LLVMBuildRet(BLD, LLVMConstNull(tex_v4i(E)));
        LLVMPositionBuilderAtEnd(BLD, go);
    }
    LLVMValueRef norm = and1(E, or1(E, flag(E, flags, P2N_TEX_NORMALIZED_COORDS), cube), LLVMBuildNot(BLD, intc, ""));
    dimstate ds[3];
    dims_setup(E, d, nd, coord, norm, cube, ds);
    /* integers read as integers are filtered too (create_{u8,s32}_integer_filter_linear) */
    LLVMValueRef linear = and1(E, eq32(E, texd_load(E, d, P2N_TEXD_FILTER, E->i32), 1), LLVMBuildNot(BLD, intc, ""));
    LLVMBasicBlockRef pb = new_bb(E, "point"), lb = new_bb(E, "linear");
    LLVMBuildCondBr(BLD, linear, lb, pb);

    LLVMPositionBuilderAtEnd(BLD, pb);
    LLVMValueRef idx[3] = {c32(E, 0), c32(E, 0), c32(E, 0)};
    for (unsigned k = 0; k < nd; k++) idx[k] = address(E, floor_i(E, ffloor(E, ds[k].c)), ds[k].n, ds[k].mode);
    LLVMValueRef pa[4] = {d, idx[0], idx[1], slice_of(E, nd, slice, idx[2])};
    LLVMBuildRet(BLD, tex_call(E, fetch, pa, 4));

    LLVMPositionBuilderAtEnd(BLD, lb);
    /* a 1D image filters as 2D of height 1 at y = 0 (H200, filt_1d_random: with border addressing the border
     * colour weighs half) */
    unsigned nf = nd == 1 ? 2 : nd;
    if (nd == 1) {
        ds[1].n = c32(E, 1);
        ds[1].mode = dim_mode(E, d, 1, norm, cube);
        ds[1].c = fc(E, 0);
    }
    LLVMValueRef j0[3], j1[3], w[3];
    for (unsigned k = 0; k < nf; k++) {
        LLVMValueRef b = LLVMBuildFSub(BLD, ds[k].c, fc(E, 0.5), "");
        LLVMValueRef fl = ffloor(E, b);
        LLVMValueRef i0 = floor_i(E, fl);
        j0[k] = address(E, i0, ds[k].n, ds[k].mode);
        j1[k] = address(E, LLVMBuildAdd(BLD, i0, c32(E, 1), ""), ds[k].n, ds[k].mode);
        w[k] = tex_weight(E, LLVMBuildFSub(BLD, b, fl, ""), j0[k], j1[k]);
    }
    LLVMValueRef cw[8], t[8], fetchi = fetch_fn(E, true);
    tex_corner_weights(E, nf, w, cw);
    unsigned ncorner = 1u << nf;
    LLVMTypeRef v8 = LLVMVectorType(E->i32, 8);
    LLVMValueRef wv = LLVMConstNull(v8);
    for (unsigned m = 0; m < ncorner; m++) {
        LLVMValueRef ix[3] = {c32(E, 0), c32(E, 0), c32(E, 0)};
        for (unsigned k = 0; k < nf; k++) ix[k] = (m >> k) & 1 ? j1[k] : j0[k];
        LLVMValueRef fa[4] = {d, ix[0], ix[1], slice_of(E, nd, slice, ix[2])};
        t[m] = tex_call(E, fetchi, fa, 4);
        wv = LLVMBuildInsertElement(BLD, wv, cw[m], c32(E, m), "");
    }
    LLVMValueRef res = LLVMConstNull(tex_v4i(E)), filt = tex_filter_fn(E), part = tex_corner_part(E, nf, w);
    for (unsigned c = 0; c < 4; c++) {
        LLVMValueRef vv = LLVMConstNull(v8);
        for (unsigned m = 0; m < ncorner; m++)
            vv = LLVMBuildInsertElement(BLD, vv, LLVMBuildExtractElement(BLD, t[m], c32(E, c), ""), c32(E, m), "");
        LLVMValueRef fa[4] = {filter_kind(E, fmt, flags, c), vv, wv, part};
        res = LLVMBuildInsertElement(BLD, res, tex_call(E, filt, fa, 4), c32(E, c), "");
    }
    LLVMBuildRet(BLD, res);
    helper_end(E, &sv);
    return fn;
}

/* cubemap: the face of the major axis (Programming Guide table: +x -x +y -y +z -z), (s, t) in [0,1] on it,
 * sampled as a 2D layer face + 6 * layer with normalised coordinates and clamp */
LLVMValueRef tex_cube_fn(emit_ctx *E) {
    static const char name[] = "__p2n_tex_cube";
    LLVMValueRef fn = LLVMGetNamedFunction(E->M, name);
    if (fn) return fn;
    LLVMValueRef s2 = tex_sample_fn(E, 2);
    LLVMTypeRef a[5] = {E->ptr, E->f32, E->f32, E->f32, E->i32};
    saved sv;
    fn = helper_begin(E, name, LLVMFunctionType(tex_v4i(E), a, 5, 0), &sv);
    LLVMValueRef d = LLVMGetParam(fn, 0), x = LLVMGetParam(fn, 1), y = LLVMGetParam(fn, 2), z = LLVMGetParam(fn, 3);
    LLVMValueRef layer = LLVMGetParam(fn, 4);
    LLVMTypeRef ft = E->f32;
    LLVMValueRef ax = intrin(E, "llvm.fabs", &ft, 1, &x, 1), ay = intrin(E, "llvm.fabs", &ft, 1, &y, 1),
                 az = intrin(E, "llvm.fabs", &ft, 1, &z, 1);
    LLVMValueRef nx = LLVMBuildFNeg(BLD, x, ""), ny = LLVMBuildFNeg(BLD, y, ""), nz = LLVMBuildFNeg(BLD, z, "");
    /* ties go to z, then y (H200: (1,1,1) is on +z, (-1,1,0.3) on +y) */
    LLVMValueRef isz = and1(E, LLVMBuildFCmp(BLD, LLVMRealOGE, az, ax, ""), LLVMBuildFCmp(BLD, LLVMRealOGE, az, ay, ""));
    LLVMValueRef isy = and1(E, LLVMBuildNot(BLD, isz, ""), LLVMBuildFCmp(BLD, LLVMRealOGE, ay, ax, ""));
    LLVMValueRef isx = LLVMBuildNot(BLD, or1(E, isz, isy), "");
    LLVMValueRef xp = LLVMBuildFCmp(BLD, LLVMRealOGE, x, fc(E, 0), ""), yp = LLVMBuildFCmp(BLD, LLVMRealOGE, y, fc(E, 0), ""),
                 zp = LLVMBuildFCmp(BLD, LLVMRealOGE, z, fc(E, 0), "");
    LLVMValueRef face = sel(E, isx, sel(E, xp, c32(E, 0), c32(E, 1)),
                            sel(E, isy, sel(E, yp, c32(E, 2), c32(E, 3)), sel(E, zp, c32(E, 4), c32(E, 5))));
    LLVMValueRef sc = sel(E, isx, sel(E, xp, nz, z), sel(E, isy, x, sel(E, zp, x, nx)));
    LLVMValueRef tc = sel(E, isx, ny, sel(E, isy, sel(E, yp, z, nz), ny));
    LLVMValueRef ma = sel(E, isx, ax, sel(E, isy, ay, az));
    LLVMValueRef qs = LLVMBuildFDiv(BLD, sc, ma, ""), qt = LLVMBuildFDiv(BLD, tc, ma, "");
    qs = sel(E, f_isnan(E, qs), fc(E, 0), qs); /* the zero vector: the centre of +z */
    qt = sel(E, f_isnan(E, qt), fc(E, 0), qt);
    LLVMValueRef s = LLVMBuildFMul(BLD, LLVMBuildFAdd(BLD, qs, fc(E, 1), ""), fc(E, 0.5), "");
    LLVMValueRef t = LLVMBuildFMul(BLD, LLVMBuildFAdd(BLD, qt, fc(E, 1), ""), fc(E, 0.5), "");
    LLVMValueRef sl = LLVMBuildAdd(BLD, face, LLVMBuildMul(BLD, layer, c32(E, 6), ""), "");
    LLVMValueRef args[6] = {d, s, t, fc(E, 0), sl, c32(E, TEX_MODE_CUBE)};
    LLVMBuildRet(BLD, tex_call(E, s2, args, 6));
    helper_end(E, &sv);
    return fn;
}

/* tld4: component comp of the four texels of the bilinear footprint, counter-clockwise from the lower left
 * (PTX ISA): (i0, j1), (i1, j1), (i1, j0), (i0, j0) */
LLVMValueRef tex_gather_fn(emit_ctx *E) {
    static const char name[] = "__p2n_tex_gather";
    LLVMValueRef fn = LLVMGetNamedFunction(E->M, name);
    if (fn) return fn;
    LLVMValueRef fetch = fetch_fn(E, false);
    LLVMTypeRef a[5] = {E->ptr, E->f32, E->f32, E->i32, E->i32};
    saved sv;
    fn = helper_begin(E, name, LLVMFunctionType(tex_v4i(E), a, 5, 0), &sv);
    LLVMValueRef d = LLVMGetParam(fn, 0), slice = LLVMGetParam(fn, 3), comp = LLVMGetParam(fn, 4);
    LLVMValueRef coord[2] = {LLVMGetParam(fn, 1), LLVMGetParam(fn, 2)};
    LLVMValueRef flags = texd_load(E, d, P2N_TEXD_FLAGS, E->i32);
    dimstate ds[2];
    dims_setup(E, d, 2, coord, flag(E, flags, P2N_TEX_NORMALIZED_COORDS), ci(E->i1, 0), ds);
    LLVMValueRef j0[2], j1[2];
    for (unsigned k = 0; k < 2; k++) {
        LLVMValueRef i0 = floor_i(E, ffloor(E, LLVMBuildFSub(BLD, ds[k].c, fc(E, 0.5), "")));
        j0[k] = address(E, i0, ds[k].n, ds[k].mode);
        j1[k] = address(E, LLVMBuildAdd(BLD, i0, c32(E, 1), ""), ds[k].n, ds[k].mode);
    }
    LLVMValueRef xs[4] = {j0[0], j1[0], j1[0], j0[0]}, ys[4] = {j1[1], j1[1], j0[1], j0[1]};
    LLVMValueRef res = LLVMGetUndef(tex_v4i(E));
    LLVMValueRef f32 = eq32(E, texd_load(E, d, P2N_TEXD_FORMAT, E->i32), 0x20);
    for (unsigned c = 0; c < 4; c++) {
        LLVMValueRef fa[4] = {d, xs[c], ys[c], slice};
        LLVMValueRef v = LLVMBuildExtractElement(BLD, tex_call(E, fetch, fa, 4), comp, "");
        /* tld4 flushes f32 subnormals to signed zero and makes NaNs 0x7fffffff (H200; tex does neither) */
        LLVMValueRef vf = LLVMBuildBitCast(BLD, v, E->f32, "");
        LLVMValueRef fz = LLVMBuildBitCast(BLD, f_ftz_in(E, vf), E->i32, "");
        fz = sel(E, f_isnan(E, vf), c32(E, 0x7fffffff), fz);
        v = sel(E, f32, fz, v);
        res = LLVMBuildInsertElement(BLD, res, v, c32(E, c), "");
    }
    LLVMBuildRet(BLD, res);
    helper_end(E, &sv);
    return fn;
}
