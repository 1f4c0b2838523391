/* emit_texture.c — tex, tld4, txq and istypep on texture objects (bindless handles) and references, and what the
 * surface file shares: handle operands, descriptor checks, the trap path.
 *
 * A handle is a .u64 value, the device address of a p2n_tex_desc (abi/texture_desc.h). A .texref/.surfref
 * (the unified/independent modes of old toolchains; nvcc 12+ never emits them) holds such a handle, filled by the
 * driver stub; samplers of texmode_independent modules replace the sampler state (emit_texture_ref.c). A handle
 * that is not a descriptor of the right
 * kind (null, misaligned, wrong magic, a surface where a texture is meant, mip levels we do not sample yet)
 * makes the launch fail through the target's trap, never a read of whatever it points at beyond the descriptor.
 */
#include <string.h>

#include "emit_texture.h"
#include "texture_desc.h"

#define BLD (E->B)

LLVMValueRef tex_ptr(emit_ctx *E, LLVMValueRef a) { return LLVMBuildIntToPtr(BLD, a, E->ptr, ""); }

LLVMValueRef texd_load(emit_ctx *E, LLVMValueRef d, unsigned off, LLVMTypeRef t) {
    LLVMValueRef v = LLVMBuildLoad2(BLD, t, gep8(E, d, c64(E, off)), "");
    LLVMSetAlignment(v, 4);
    return v;
}

void tex_trap_unless(emit_ctx *E, LLVMValueRef ok) {
    LLVMBasicBlockRef trap = new_bb(E, "tex.trap"), cont = new_bb(E, "tex.ok");
    LLVMBuildCondBr(BLD, ok, cont, trap);
    LLVMPositionBuilderAtEnd(BLD, trap);
    LLVMValueRef a[1] = {E->ctx};
    rt_call(E, RT_TRAP, E->vd, a, 1);
    LLVMBuildUnreachable(BLD);
    LLVMPositionBuilderAtEnd(BLD, cont);
}

static LLVMValueRef plausible(emit_ctx *E, LLVMValueRef h) { /* non-null and 16-byte aligned */
    LLVMValueRef nz = LLVMBuildICmp(BLD, LLVMIntNE, h, c64(E, 0), "");
    LLVMValueRef al = LLVMBuildICmp(BLD, LLVMIntEQ, LLVMBuildAnd(BLD, h, c64(E, 15), ""), c64(E, 0), "");
    return LLVMBuildAnd(BLD, nz, al, "");
}

static LLVMValueRef kind_ok(emit_ctx *E, LLVMValueRef d, unsigned want) {
    LLVMValueRef magic = texd_load(E, d, P2N_TEXD_MAGIC, E->i32), flags = texd_load(E, d, P2N_TEXD_FLAGS, E->i32);
    LLVMValueRef ok = LLVMBuildICmp(BLD, LLVMIntEQ, magic, c32(E, P2N_TEX_MAGIC), "");
    LLVMValueRef surf = LLVMBuildAnd(BLD, flags, c32(E, P2N_TEX_IS_SURFACE), "");
    ok = LLVMBuildAnd(BLD, ok, LLVMBuildICmp(BLD, want == TEXCHK_SURFACE ? LLVMIntNE : LLVMIntEQ, surf, c32(E, 0), ""), "");
    if (want == TEXCHK_SAMPLE) {
        LLVMValueRef lv = texd_load(E, d, P2N_TEXD_LEVELS, E->i32);
        ok = LLVMBuildAnd(BLD, ok, LLVMBuildICmp(BLD, LLVMIntEQ, lv, c32(E, 1), ""), "");
    }
    return ok;
}

LLVMValueRef tex_check(emit_ctx *E, LLVMValueRef h, unsigned want) {
    tex_trap_unless(E, plausible(E, h));
    LLVMValueRef d = tex_ptr(E, h);
    tex_trap_unless(E, kind_ok(E, d, want));
    return d;
}

LLVMValueRef tex_handle(emit_ctx *E, const ir_operand *o) {
    if (o->kind == IR_OPND_REG || (o->kind == IR_OPND_ADDR && (o->flags & IR_OPNDF_BASE_REG) && o->val == 0)) {
        ir_operand r = {.kind = IR_OPND_REG, .id = o->id};
        if (tbits(ir_reg_type(E->f, o->id)) == 64) return rd(E, &r, IR_T_U64);
        return LLVMBuildZExt(BLD, rd(E, &r, IR_T_U32), E->i64, "");
    }
    if (o->kind == IR_OPND_IMM) return c64(E, (uint64_t)o->val);
    if (tex_operand_is_ref(E, o, NULL) && (o->kind == IR_OPND_VAR || o->val == 0)) return texref_handle(E, o->id);
    emit_unsupported(E, "texture or surface handle operand: a .u64 register or a .texref/.surfref is expected");
    return NULL;
}

/* ---------------------------------------------------------------- tex, tld4 */

typedef struct geom {
    unsigned nd;     /* dimensions of the coordinates (cube: 3) */
    bool layered;    /* first component is the layer index */
    bool cube;
} geom;

static bool geometry(emit_ctx *E, const ir_ins *ins, geom *g) {
    memset(g, 0, sizeof *g);
    if (ir_ins_has(ins, IR_M_G2DMS) || ir_ins_has(ins, IR_M_A2DMS)) {
        emit_unsupported(E, "multisample textures");
        return false;
    }
    if (ir_ins_has(ins, IR_M_G1D)) g->nd = 1;
    else if (ir_ins_has(ins, IR_M_G2D)) g->nd = 2;
    else if (ir_ins_has(ins, IR_M_G3D)) g->nd = 3;
    else if (ir_ins_has(ins, IR_M_A1D)) g->nd = 1, g->layered = true;
    else if (ir_ins_has(ins, IR_M_A2D)) g->nd = 2, g->layered = true;
    else if (ir_ins_has(ins, IR_M_CUBE)) g->nd = 3, g->cube = true;
    else if (ir_ins_has(ins, IR_M_ACUBE)) g->nd = 3, g->cube = g->layered = true;
    else {
        emit_unsupported(E, "texture geometry");
        return false;
    }
    return true;
}

/* the coordinate vector's elements: {c} or a single operand */
static const ir_operand *coords_of(const ir_operand *o, unsigned *n) {
    if (o->kind == IR_OPND_VEC) {
        *n = o->aux;
        return ir_elems(o);
    }
    *n = 1;
    return o;
}

/* layer index (u32) clamped to the layers there are (cubemap arrays: layers / 6); with integer coordinates a
 * layer outside is -1 (the fetch reads 0, H200) */
static LLVMValueRef layer_index(emit_ctx *E, LLVMValueRef d, const ir_operand *o, bool cube, bool outside_is_zero) {
    LLVMValueRef l = rd(E, o, IR_T_U32);
    LLVMValueRef n = texd_load(E, d, P2N_TEXD_LAYERS, E->i32);
    if (cube) n = LLVMBuildUDiv(BLD, n, c32(E, 6), "");
    n = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, n, c32(E, 0), ""), c32(E, 1), n);
    LLVMValueRef top = LLVMBuildSub(BLD, n, c32(E, 1), "");
    return sel(E, LLVMBuildICmp(BLD, LLVMIntUGT, l, top, ""), outside_is_zero ? c32(E, (uint32_t)-1) : top, l);
}

/* destination {d0..d3}[|p]: the 4 lanes (.f16: each rounded to half; .f16x2: pairs packed, lane 0 low), and
 * p = true (the texel is resident) */
static bool write_dest(emit_ctx *E, const ir_ins *ins, unsigned ti, LLVMValueRef v) {
    const ir_operand *dst = &ins->ops[0];
    ir_type dt = ir_ins_type(ins, 0);
    unsigned n = dt == IR_T_F16X2 ? 2 : 4;
    if (dst->kind != IR_OPND_VEC || dst->aux != n) {
        emit_unsupported(E, "destination vector shape");
        return false;
    }
    const ir_operand *el = ir_elems(dst);
    LLVMValueRef lane[4];
    for (unsigned c = 0; c < 4; c++) {
        lane[c] = LLVMBuildExtractElement(BLD, v, c32(E, c), "");
        if (dt == IR_T_F16 || dt == IR_T_F16X2)
            lane[c] = float_to_half(E, LLVMBuildBitCast(BLD, lane[c], E->f32, ""), false, IR_M_RN, false, false);
    }
    if (dt == IR_T_F16X2)
        for (unsigned c = 0; c < 2; c++) {
            LLVMValueRef lo = LLVMBuildZExt(BLD, lane[2 * c], E->i32, ""), hi = LLVMBuildZExt(BLD, lane[2 * c + 1], E->i32, "");
            wr(E, &el[c], IR_T_B32, LLVMBuildOr(BLD, lo, LLVMBuildShl(BLD, hi, c32(E, 16), ""), ""));
        }
    else
        for (unsigned c = 0; c < 4; c++) wr(E, &el[c], dt == IR_T_F16 ? IR_T_B16 : IR_T_B32, lane[c]);
    if (ti == 2) wr(E, &ins->ops[1], IR_T_PRED, ci(E->i1, 1));
    return true;
}

/* operands: d[|p], [h, {c}] and the extras; returns the index of the texture operand, or 0 after a diagnostic */
static unsigned tex_operands(emit_ctx *E, const ir_ins *ins, unsigned nextra) {
    unsigned ti = (ins->nops > 2 && (ins->ops[1].flags & IR_OPNDF_PIPE)) ? 2 : 1;
    if (ti >= ins->nops || ins->ops[ti].kind != IR_OPND_TEXARGS) {
        emit_unsupported(E, "texture operand");
        return 0;
    }
    if (ins->nops - ti - 1 != nextra) {
        emit_unsupported(E, "texel offset and depth-compare operands");
        return 0;
    }
    if (ins->ops[ti].aux != 2 && ins->ops[ti].aux != 3) { /* [t, {c}] or, with a separate sampler, [t, s, {c}] */
        emit_unsupported(E, "texture operand shape");
        return 0;
    }
    ir_type dt = ir_ins_type(ins, 0);
    bool v4 = ir_ins_has(ins, IR_M_V4) && (dt == IR_T_F32 || dt == IR_T_S32 || dt == IR_T_U32 || dt == IR_T_F16);
    if (!v4 && !(ir_ins_has(ins, IR_M_V2) && dt == IR_T_F16X2)) {
        emit_unsupported(E, "destination: .v4 of .f32 .s32 .u32 .f16, or .v2.f16x2");
        return 0;
    }
    return ti;
}

static bool emit_tex(emit_ctx *E, const ir_ins *ins) {
    geom g;
    if (!geometry(E, ins, &g)) return false;
    unsigned nextra = ir_ins_has(ins, IR_M_LEVEL) ? 1 : ir_ins_has(ins, IR_M_GRAD) ? 2 : 0;
    unsigned ti = tex_operands(E, ins, nextra);
    if (!ti) return false;
    ir_type ct = ir_ins_type(ins, 1);
    if (ct != IR_T_F32 && ct != IR_T_S32) {
        emit_unsupported(E, "coordinate type");
        return false;
    }
    if (g.cube && ct != IR_T_F32) {
        emit_unsupported(E, "integer cubemap coordinates");
        return false;
    }
    const ir_operand *ta = ir_elems(&ins->ops[ti]);
    unsigned nc;
    const ir_operand *c = coords_of(&ta[ins->ops[ti].aux - 1], &nc);
    unsigned need = g.nd + (g.layered ? 1 : 0);
    if (nc < need) {
        emit_unsupported(E, "too few coordinates");
        return false;
    }
    LLVMValueRef d = tex_sample_desc(E, &ins->ops[ti]);
    if (!d) return false;
    unsigned first = g.layered ? 1 : 0;
    LLVMValueRef xyz[3] = {LLVMConstReal(E->f32, 0), LLVMConstReal(E->f32, 0), LLVMConstReal(E->f32, 0)};
    for (unsigned k = 0; k < g.nd; k++)
        xyz[k] = ct == IR_T_F32 ? rd(E, &c[first + k], IR_T_F32) : LLVMBuildSIToFP(BLD, rd(E, &c[first + k], IR_T_S32), E->f32, "");
    LLVMValueRef layer = g.layered ? layer_index(E, d, &c[0], g.cube, ct == IR_T_S32) : c32(E, 0);
    LLVMValueRef v;
    if (g.cube) {
        LLVMValueRef a[5] = {d, xyz[0], xyz[1], xyz[2], layer};
        v = tex_call(E, tex_cube_fn(E), a, 5);
    } else {
        LLVMValueRef a[6] = {d, xyz[0], xyz[1], xyz[2], layer, c32(E, (ct == IR_T_S32 ? TEX_MODE_INT_COORDS : 0) | (g.layered ? TEX_MODE_LAYERED : 0))};
        v = tex_call(E, tex_sample_fn(E, g.nd), a, 6);
    }
    return write_dest(E, ins, ti, v);
}

static bool emit_tld4(emit_ctx *E, const ir_ins *ins) {
    geom g;
    if (!geometry(E, ins, &g)) return false;
    if (g.nd != 2 || g.cube) {
        emit_unsupported(E, "tld4 of this geometry");
        return false;
    }
    unsigned comp = ir_ins_has(ins, IR_M_R) ? 0 : ir_ins_has(ins, IR_M_COMP_G) ? 1 : ir_ins_has(ins, IR_M_B) ? 2
                  : ir_ins_has(ins, IR_M_COMP_A) ? 3 : 4;
    if (comp == 4) {
        emit_unsupported(E, "tld4 component");
        return false;
    }
    unsigned ti = tex_operands(E, ins, 0);
    if (!ti) return false;
    if (ir_ins_type(ins, 1) != IR_T_F32) {
        emit_unsupported(E, "coordinate type");
        return false;
    }
    const ir_operand *ta = ir_elems(&ins->ops[ti]);
    unsigned nc;
    const ir_operand *c = coords_of(&ta[ins->ops[ti].aux - 1], &nc);
    if (nc < 2u + (g.layered ? 1 : 0)) {
        emit_unsupported(E, "too few coordinates");
        return false;
    }
    LLVMValueRef d = tex_sample_desc(E, &ins->ops[ti]);
    if (!d) return false;
    unsigned first = g.layered ? 1 : 0;
    LLVMValueRef layer = g.layered ? layer_index(E, d, &c[0], false, false) : c32(E, 0);
    LLVMValueRef a[5] = {d, rd(E, &c[first], IR_T_F32), rd(E, &c[first + 1], IR_T_F32), layer, c32(E, comp)};
    return write_dest(E, ins, ti, tex_call(E, tex_gather_fn(E), a, 5));
}

/* ---------------------------------------------------------------- txq, istypep */

/* the sizes txq and suq report (H200 recordings, family tex): a layered image reports its layer count as the
 * next dimension (1D layered: height; 2D layered and cubemap layered: depth, in cubemaps); a 1D array texture's
 * height is 1 but that of linear memory or a 1D surface is 0; depth is 0 unless 3D or layered 2D */
LLVMValueRef tex_query_size(emit_ctx *E, LLVMValueRef d, unsigned off, bool surface) {
    LLVMValueRef v = texd_load(E, d, off, E->i32);
    if (off == P2N_TEXD_WIDTH) return v;
    LLVMValueRef dims = texd_load(E, d, P2N_TEXD_DIMS, E->i32), flags = texd_load(E, d, P2N_TEXD_FLAGS, E->i32);
    LLVMValueRef layered = LLVMBuildICmp(BLD, LLVMIntNE, LLVMBuildAnd(BLD, flags, c32(E, P2N_TEX_LAYERED), ""), c32(E, 0), "");
    LLVMValueRef cube = LLVMBuildICmp(BLD, LLVMIntNE, LLVMBuildAnd(BLD, flags, c32(E, P2N_TEX_CUBEMAP), ""), c32(E, 0), "");
    LLVMValueRef layers = texd_load(E, d, P2N_TEXD_LAYERS, E->i32);
    layers = sel(E, cube, LLVMBuildUDiv(BLD, layers, c32(E, 6), ""), layers);
    LLVMValueRef d1 = LLVMBuildICmp(BLD, LLVMIntEQ, dims, c32(E, 1), "");
    if (off == P2N_TEXD_HEIGHT) { /* 1D: 1 for arrays, 0 for linear memory and surfaces */
        LLVMValueRef lin = LLVMBuildICmp(BLD, LLVMIntEQ, texd_load(E, d, P2N_TEXD_KIND, E->i32), c32(E, P2N_TEX_KIND_LINEAR), "");
        LLVMValueRef one = surface ? c32(E, 0) : sel(E, lin, c32(E, 0), c32(E, 1));
        return sel(E, d1, sel(E, layered, layers, one), v);
    }
    LLVMValueRef d3 = LLVMBuildICmp(BLD, LLVMIntEQ, dims, c32(E, 3), "");
    return sel(E, d3, v, sel(E, LLVMBuildAnd(BLD, layered, LLVMBuildNot(BLD, d1, ""), ""), layers, c32(E, 0)));
}

/* txq on a texture object: NVIDIA's JIT (H200, driver 580) accepts only .width .height .depth (and their .level
 * forms) with object handles; a kernel with any other attribute is not compiled (cuModuleGetFunction fails), so
 * those are diagnosed here rather than answered with values NVIDIA never returns; under --defer-unsupported
 * (the driver stub's JIT) such kernels are left out of the module the same way (DEFER_ABSENT). References
 * (.texref, and .samplerref for the sampler attributes) keep the same rule: a reference is an object handle
 * here, and what NVIDIA answers for them is not recorded (sm_90 cannot be asked through the harness). */
static bool emit_txq(emit_ctx *E, const ir_ins *ins) {
    bool lvl = ir_ins_has(ins, IR_M_LEVEL);
    unsigned off = ir_ins_has(ins, IR_M_WIDTH) ? P2N_TEXD_WIDTH : ir_ins_has(ins, IR_M_HEIGHT) ? P2N_TEXD_HEIGHT
                 : ir_ins_has(ins, IR_M_DEPTH) ? P2N_TEXD_DEPTH : 0;
    if (!off) {
        emit_unsupported_as(E, "txq of this attribute on a texture object: NVIDIA's JIT does not compile it either",
                            DEFER_ABSENT);
        return false;
    }
    if (ins->nops != (lvl ? 3 : 2)) {
        emit_unsupported(E, "txq operands");
        return false;
    }
    LLVMValueRef h = tex_handle(E, &ins->ops[1]);
    if (!h) return false;
    LLVMValueRef d = tex_check(E, h, TEXCHK_QUERY);
    LLVMValueRef v = tex_query_size(E, d, off, false);
    if (lvl) { /* size of mip level l: max(1, size >> l) where the size is not 0 */
        LLVMValueRef l = rd(E, &ins->ops[2], IR_T_U32);
        l = sel(E, LLVMBuildICmp(BLD, LLVMIntUGT, l, c32(E, 31), ""), c32(E, 31), l);
        LLVMValueRef s = LLVMBuildLShr(BLD, v, l, "");
        s = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, s, c32(E, 0), ""), c32(E, 1), s);
        v = sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, v, c32(E, 0), ""), v, s);
    }
    wr(E, &ins->ops[0], IR_T_B32, v);
    return true;
}

/* istypep asks whether a handle is a .texref/.samplerref/.surfref: on the H200 it is false for texture and
 * surface objects alike (family tex). A handle register never tells (a reference holds an object's handle), so
 * false without a load; the operand is a register by the ISA's syntax; a reference named directly is of its declared kind */
static bool emit_istypep(emit_ctx *E, const ir_ins *ins) {
    ir_type t = ir_ins_type(ins, 0); /* .texref .samplerref .surfref are type words */
    if (t != IR_T_SURFREF && t != IR_T_TEXREF && t != IR_T_SAMPLERREF) {
        emit_unsupported(E, "istypep kind");
        return false;
    }
    ir_type rt;
    if (tex_operand_is_ref(E, &ins->ops[1], &rt)) { /* a reference named directly: its own kind */
        wr(E, &ins->ops[0], IR_T_PRED, ci(E->i1, rt == t));
        return true;
    }
    if (!tex_handle(E, &ins->ops[1])) return false;
    wr(E, &ins->ops[0], IR_T_PRED, ci(E->i1, 0));
    return true;
}

bool emit_texture(emit_ctx *E, const ir_ins *ins) {
    switch ((ir_opcode)ins->op) {
    case IR_OP_TEX: return emit_tex(E, ins);
    case IR_OP_TLD4: return emit_tld4(E, ins);
    case IR_OP_TXQ: return emit_txq(E, ins);
    case IR_OP_ISTYPEP: return emit_istypep(E, ins);
    default: return emit_surface(E, ins);
    }
}
