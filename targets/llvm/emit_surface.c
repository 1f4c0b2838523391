/* emit_surface.c — suld, sust, sured and suq on surface objects (descriptors of abi/texture_desc.h with
 * P2N_TEX_IS_SURFACE), as plain loads, stores and atomics on the array's memory.
 *
 * PTX ISA "Surface Instructions": .b forms address x in BYTES (y rows, z slices or the layer), .p forms in
 * elements. Out of range: .trap (the default) fails the launch, .clamp accesses the nearest in-range location,
 * .zero loads 0 and drops stores. Cache operators are hints. sust.p converts 32-bit source values to the array's
 * format (to_format); sured.p compares as the format.
 */
#include "emit_texture.h"
#include "texture_desc.h"
#include "host_abi.h"

#define BLD (E->B)

typedef struct sgeom {
    unsigned nd;  /* 1 2 3 */
    bool layered; /* a1d a2d: first coordinate is the layer */
} sgeom;

static bool surf_geometry(emit_ctx *E, const ir_ins *ins, sgeom *g) {
    g->layered = false;
    if (ir_ins_has(ins, IR_M_G1D)) g->nd = 1;
    else if (ir_ins_has(ins, IR_M_G2D)) g->nd = 2;
    else if (ir_ins_has(ins, IR_M_G3D)) g->nd = 3;
    else if (ir_ins_has(ins, IR_M_A1D)) g->nd = 1, g->layered = true;
    else if (ir_ins_has(ins, IR_M_A2D)) g->nd = 2, g->layered = true;
    else {
        emit_unsupported(E, "surface geometry");
        return false;
    }
    return true;
}

static ir_mod oob_mode(const ir_ins *ins) {
    if (ir_ins_has(ins, IR_M_CLAMP)) return IR_M_CLAMP;
    if (ir_ins_has(ins, IR_M_ZERO)) return IR_M_ZERO;
    return IR_M_TRAP;
}

static LLVMValueRef umax1_64(emit_ctx *E, LLVMValueRef v) {
    v = LLVMBuildZExt(BLD, v, E->i64, "");
    return sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, v, c64(E, 0), ""), c64(E, 1), v);
}
static LLVMValueRef clamp64(emit_ctx *E, LLVMValueRef v, LLVMValueRef lo, LLVMValueRef hi) {
    v = sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, v, lo, ""), lo, v);
    return sel(E, LLVMBuildICmp(BLD, LLVMIntSGT, v, hi, ""), hi, v);
}

/* NVIDIA's memory errors for surface accesses (H200 recordings, family tex): an out-of-range .trap access fails
 * the launch with CUDA_ERROR_ILLEGAL_ADDRESS, one whose byte x is not a multiple of the access size with
 * CUDA_ERROR_MISALIGNED_ADDRESS whatever the mode. The runtime's assertfail with a char size that names the
 * error (host_abi.h) is the one exit for both on every target: the CPU runtime and the SPIR-V error record
 * (spirv_hooks.c) report that error with the address, AMDGPU traps. */
static void fault_unless(emit_ctx *E, LLVMValueRef ok, uint64_t kind, LLVMValueRef addr) {
    if (LLVMIsAConstantInt(ok) && LLVMConstIntGetZExtValue(ok)) return;
    LLVMBasicBlockRef bad = new_bb(E, "su.fault"), cont = new_bb(E, "su.ok");
    LLVMBuildCondBr(BLD, ok, cont, bad);
    LLVMPositionBuilderAtEnd(BLD, bad);
    LLVMValueRef nul = LLVMConstNull(E->ptr);
    LLVMValueRef a[6] = {E->ctx, LLVMBuildIntToPtr(BLD, addr, E->ptr, ""), nul, c32(E, 0), nul, c64(E, kind)};
    rt_call(E, RT_ASSERTFAIL, E->vd, a, 6);
    LLVMBuildUnreachable(BLD);
    LLVMPositionBuilderAtEnd(BLD, cont);
}

static LLVMValueRef texel_addr(emit_ctx *E, LLVMValueRef base, LLVMValueRef spitch, LLVMValueRef pitch,
                               LLVMValueRef x, LLVMValueRef y, LLVMValueRef z) {
    LLVMValueRef a = LLVMBuildAdd(BLD, base, LLVMBuildMul(BLD, z, spitch, ""), "");
    a = LLVMBuildAdd(BLD, a, LLVMBuildMul(BLD, y, pitch, ""), "");
    return LLVMBuildAdd(BLD, a, x, "");
}

/* the address of `size` bytes at the coordinates of texture operand `ta` ([h, {c}]); *inb: whether in range.
 * a misaligned x fails here, so does an out-of-range .trap access; .clamp moves the access in range. NULL after a
 * diagnostic. */
static LLVMValueRef surf_addr(emit_ctx *E, const ir_ins *ins, const ir_operand *ta, unsigned size, bool bytes,
                              LLVMValueRef *inb) {
    sgeom g;
    if (!surf_geometry(E, ins, &g)) return NULL;
    if (ta->kind != IR_OPND_TEXARGS || ta->aux != 2) {
        emit_unsupported(E, "surface operand");
        return NULL;
    }
    const ir_operand *el = ir_elems(ta);
    const ir_operand *c = &el[1];
    unsigned nc = 1;
    if (c->kind == IR_OPND_VEC) nc = c->aux, c = ir_elems(c);
    if (nc < g.nd + (g.layered ? 1u : 0u)) {
        emit_unsupported(E, "too few coordinates");
        return NULL;
    }
    LLVMValueRef h = tex_handle(E, &el[0]);
    if (!h) return NULL;
    LLVMValueRef d = tex_check(E, h, TEXCHK_SURFACE);
    unsigned f = g.layered ? 1 : 0;
    LLVMValueRef eb = LLVMBuildZExt(BLD, texd_load(E, d, P2N_TEXD_ELEM_BYTES, E->i32), E->i64, "");
    LLVMValueRef wb = LLVMBuildMul(BLD, LLVMBuildZExt(BLD, texd_load(E, d, P2N_TEXD_WIDTH, E->i32), E->i64, ""), eb, "");
    LLVMValueRef hh = umax1_64(E, texd_load(E, d, P2N_TEXD_HEIGHT, E->i32));
    LLVMValueRef zz = g.nd == 3 ? umax1_64(E, texd_load(E, d, P2N_TEXD_DEPTH, E->i32))
                    : g.layered ? umax1_64(E, texd_load(E, d, P2N_TEXD_LAYERS, E->i32)) : c64(E, 1);
    LLVMValueRef x = LLVMBuildSExt(BLD, rd(E, &c[f], IR_T_S32), E->i64, "");
    if (!bytes) x = LLVMBuildMul(BLD, x, eb, "");
    LLVMValueRef y = g.nd >= 2 ? LLVMBuildSExt(BLD, rd(E, &c[f + 1], IR_T_S32), E->i64, "") : c64(E, 0);
    LLVMValueRef z = g.nd == 3 ? LLVMBuildSExt(BLD, rd(E, &c[2], IR_T_S32), E->i64, "")
                   : g.layered ? LLVMBuildZExt(BLD, rd(E, &c[0], IR_T_U32), E->i64, "") : c64(E, 0);
    LLVMValueRef sz = c64(E, size);
    LLVMValueRef ok = LLVMBuildICmp(BLD, LLVMIntSGE, x, c64(E, 0), "");
    ok = LLVMBuildAnd(BLD, ok, LLVMBuildICmp(BLD, LLVMIntSLE, LLVMBuildAdd(BLD, x, sz, ""), wb, ""), "");
    ok = LLVMBuildAnd(BLD, ok, LLVMBuildICmp(BLD, LLVMIntSGE, y, c64(E, 0), ""), "");
    ok = LLVMBuildAnd(BLD, ok, LLVMBuildICmp(BLD, LLVMIntSLT, y, hh, ""), "");
    ok = LLVMBuildAnd(BLD, ok, LLVMBuildICmp(BLD, LLVMIntSGE, z, c64(E, 0), ""), "");
    ok = LLVMBuildAnd(BLD, ok, LLVMBuildICmp(BLD, LLVMIntSLT, z, zz, ""), "");
    ir_mod mode = oob_mode(ins);
    LLVMValueRef base = texd_load(E, d, P2N_TEXD_BASE, E->i64);
    LLVMValueRef pitch = texd_load(E, d, P2N_TEXD_PITCH, E->i64), spitch = texd_load(E, d, P2N_TEXD_SLICE_PITCH, E->i64);
    if (bytes && size > 1 && !(size & (size - 1))) { /* reported with the address as given, before clamping */
        LLVMValueRef low = LLVMBuildAnd(BLD, x, c64(E, size - 1), "");
        fault_unless(E, LLVMBuildICmp(BLD, LLVMIntEQ, low, c64(E, 0), ""), P2N_ASSERT_MISALIGNED_ADDRESS,
                     texel_addr(E, base, spitch, pitch, x, y, z));
    }
    if (mode == IR_M_TRAP) fault_unless(E, ok, P2N_ASSERT_ILLEGAL_ADDRESS, texel_addr(E, base, spitch, pitch, x, y, z));
    if (mode == IR_M_CLAMP) { /* the nearest location where `size` bytes fit (an array narrower than that traps) */
        tex_trap_unless(E, LLVMBuildICmp(BLD, LLVMIntSGE, wb, sz, ""));
        x = clamp64(E, x, c64(E, 0), LLVMBuildSub(BLD, wb, sz, ""));
        y = clamp64(E, y, c64(E, 0), LLVMBuildSub(BLD, hh, c64(E, 1), ""));
        z = clamp64(E, z, c64(E, 0), LLVMBuildSub(BLD, zz, c64(E, 1), ""));
        ok = ci(E->i1, 1);
    }
    *inb = ok;
    return texel_addr(E, base, spitch, pitch, x, y, z);
}

static unsigned vec_of(const ir_ins *ins) { return ir_ins_has(ins, IR_M_V4) ? 4 : ir_ins_has(ins, IR_M_V2) ? 2 : 1; }

static const ir_operand *elems_of(const ir_operand *o, unsigned n) {
    if (o->kind == IR_OPND_VEC && o->aux == n) return ir_elems(o);
    return n == 1 && o->kind != IR_OPND_VEC ? o : NULL;
}

static bool unformatted_type(emit_ctx *E, ir_type t) {
    if (t == IR_T_B8 || t == IR_T_B16 || t == IR_T_B32 || t == IR_T_B64) return true;
    emit_unsupported(E, "surface data type: .b8 .b16 .b32 .b64 are supported");
    return false;
}

/* branch around the access when `inb` is false (.zero); returns the skip block (NULL when always in range) */
static LLVMBasicBlockRef guard_begin(emit_ctx *E, LLVMValueRef inb, LLVMBasicBlockRef *pre) {
    *pre = LLVMGetInsertBlock(BLD);
    if (LLVMIsAConstantInt(inb) && LLVMConstIntGetZExtValue(inb)) return NULL;
    LLVMBasicBlockRef go = new_bb(E, "su.in"), skip = new_bb(E, "su.skip");
    LLVMBuildCondBr(BLD, inb, go, skip);
    LLVMPositionBuilderAtEnd(BLD, go);
    return skip;
}

static bool emit_suld(emit_ctx *E, const ir_ins *ins) {
    if (!ir_ins_has(ins, IR_M_B)) {
        emit_unsupported(E, "formatted surface loads (suld.p)");
        return false;
    }
    ir_type t = ir_ins_type(ins, 0);
    if (!unformatted_type(E, t)) return false;
    unsigned n = vec_of(ins), eb = tbits(t) / 8;
    const ir_operand *dst = elems_of(&ins->ops[0], n);
    if (!dst || ins->nops != 2) {
        emit_unsupported(E, "suld operands");
        return false;
    }
    LLVMValueRef inb, a = surf_addr(E, ins, &ins->ops[1], n * eb, true, &inb);
    if (!a) return false;
    LLVMTypeRef it = LLVMIntTypeInContext(E->C, tbits(t));
    LLVMBasicBlockRef pre, skip = guard_begin(E, inb, &pre);
    LLVMValueRef v[4];
    for (unsigned i = 0; i < n; i++) {
        v[i] = LLVMBuildLoad2(BLD, it, tex_ptr(E, LLVMBuildAdd(BLD, a, c64(E, i * eb), "")), "");
        LLVMSetAlignment(v[i], eb);
    }
    if (skip) {
        LLVMBasicBlockRef in = LLVMGetInsertBlock(BLD);
        LLVMBuildBr(BLD, skip);
        LLVMPositionBuilderAtEnd(BLD, skip);
        for (unsigned i = 0; i < n; i++) {
            LLVMValueRef p = LLVMBuildPhi(BLD, it, "");
            LLVMValueRef iv[2] = {v[i], LLVMConstNull(it)};
            LLVMBasicBlockRef ib[2] = {in, pre};
            LLVMAddIncoming(p, iv, ib, 2);
            v[i] = p;
        }
    }
    for (unsigned i = 0; i < n; i++) wr(E, &dst[i], t, v[i]);
    return true;
}

/* sust.p: a 32-bit source value as a channel of the array's format (H200): integer formats saturate the value
 * read as u32 (unsigned formats) or s32 (signed ones); half rounds the f32 toward zero (NaN: 0x7e00); 32-bit
 * formats store the bits */
static LLVMValueRef to_format(emit_ctx *E, LLVMValueRef v, LLVMValueRef fmt, LLVMTypeRef ct) {
    unsigned w = LLVMGetIntTypeWidth(ct);
    if (w == 32) return v;
    LLVMValueRef sg = LLVMBuildOr(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, fmt, c32(E, 0x08), ""),
                                  LLVMBuildICmp(BLD, LLVMIntEQ, fmt, c32(E, 0x09), ""), "");
    uint32_t umax = w == 8 ? 0xff : 0xffff, smax = w == 8 ? 0x7f : 0x7fff;
    LLVMValueRef u = sel(E, LLVMBuildICmp(BLD, LLVMIntUGT, v, c32(E, umax), ""), c32(E, umax), v);
    LLVMValueRef s = sel(E, LLVMBuildICmp(BLD, LLVMIntSGT, v, c32(E, smax), ""), c32(E, smax), v);
    s = sel(E, LLVMBuildICmp(BLD, LLVMIntSLT, s, c32(E, ~smax), ""), c32(E, ~smax), s);
    LLVMValueRef tr = LLVMBuildTrunc(BLD, sel(E, sg, s, u), ct, "");
    if (w != 16) return tr;
    LLVMValueRef f = LLVMBuildBitCast(BLD, v, E->f32, "");
    LLVMValueRef h = float_to_half(E, f, false, IR_M_RZ, false, false);
    h = sel(E, f_isnan(E, f), ci(E->i16, 0x7e00), h);
    return sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, fmt, c32(E, 0x10), ""), h, tr);
}

static bool emit_sust(emit_ctx *E, const ir_ins *ins) {
    bool fmtd = ir_ins_has(ins, IR_M_P);
    ir_type t = ir_ins_type(ins, 0);
    if (!unformatted_type(E, t)) return false;
    if (fmtd && t != IR_T_B32) {
        emit_unsupported(E, "sust.p of a type other than .b32");
        return false;
    }
    unsigned n = vec_of(ins), eb = tbits(t) / 8;
    const ir_operand *src = ins->nops == 2 ? elems_of(&ins->ops[1], n) : NULL;
    if (!src) {
        emit_unsupported(E, "sust operands");
        return false;
    }
    LLVMValueRef inb, a;
    if (!fmtd) {
        a = surf_addr(E, ins, &ins->ops[0], n * eb, true, &inb);
        if (!a) return false;
        LLVMValueRef v[4];
        for (unsigned i = 0; i < n; i++) v[i] = rd(E, &src[i], t);
        LLVMBasicBlockRef pre, skip = guard_begin(E, inb, &pre);
        for (unsigned i = 0; i < n; i++) {
            LLVMValueRef s = LLVMBuildStore(BLD, v[i], tex_ptr(E, LLVMBuildAdd(BLD, a, c64(E, i * eb), "")));
            LLVMSetAlignment(s, eb);
        }
        if (skip) {
            LLVMBuildBr(BLD, skip);
            LLVMPositionBuilderAtEnd(BLD, skip);
        }
        return true;
    }
    /* formatted: x in elements; one element; source lanes beyond the channels are ignored, channels beyond the
     * source keep their value (the ISA leaves them unpredictable) */
    const ir_operand *ta = &ins->ops[0];
    LLVMValueRef h = ta->kind == IR_OPND_TEXARGS ? tex_handle(E, &ir_elems(ta)[0]) : NULL;
    if (!h) {
        if (ta->kind != IR_OPND_TEXARGS) emit_unsupported(E, "surface operand");
        return false;
    }
    LLVMValueRef d = tex_check(E, h, TEXCHK_SURFACE);
    LLVMValueRef ebv = texd_load(E, d, P2N_TEXD_ELEM_BYTES, E->i32);
    LLVMValueRef ch = texd_load(E, d, P2N_TEXD_CHANNELS, E->i32), fmt = texd_load(E, d, P2N_TEXD_FORMAT, E->i32);
    LLVMValueRef bpc = LLVMBuildUDiv(BLD, ebv, sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, ch, c32(E, 0), ""), c32(E, 1), ch), "");
    LLVMValueRef v[4];
    for (unsigned i = 0; i < n; i++) v[i] = rd(E, &src[i], IR_T_B32);
    /* the element's size is only known at run time: check the range for one byte, then the element fits
     * because x is a multiple of elem_bytes below width * elem_bytes */
    a = surf_addr(E, ins, ta, 1, false, &inb);
    if (!a) return false;
    LLVMBasicBlockRef pre, skip = guard_begin(E, inb, &pre);
    for (unsigned i = 0; i < n; i++) {
        LLVMBasicBlockRef st = new_bb(E, "sustp.c"), b1 = new_bb(E, "sustp.1"), b2 = new_bb(E, "sustp.2"),
                          b4 = new_bb(E, "sustp.4"), next = new_bb(E, "sustp.n");
        LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntULT, c32(E, i), ch, ""), st, next);
        LLVMPositionBuilderAtEnd(BLD, st);
        LLVMValueRef off = LLVMBuildZExt(BLD, LLVMBuildMul(BLD, bpc, c32(E, i), ""), E->i64, "");
        LLVMValueRef p = tex_ptr(E, LLVMBuildAdd(BLD, a, off, ""));
        LLVMValueRef sw = LLVMBuildSwitch(BLD, bpc, b4, 2);
        LLVMAddCase(sw, c32(E, 1), b1);
        LLVMAddCase(sw, c32(E, 2), b2);
        LLVMBasicBlockRef bb[3] = {b1, b2, b4};
        LLVMTypeRef ct[3] = {E->i8, E->i16, E->i32};
        for (unsigned k = 0; k < 3; k++) {
            LLVMPositionBuilderAtEnd(BLD, bb[k]);
            LLVMValueRef s = LLVMBuildStore(BLD, to_format(E, v[i], fmt, ct[k]), p);
            LLVMSetAlignment(s, 1u << k);
            LLVMBuildBr(BLD, next);
        }
        LLVMPositionBuilderAtEnd(BLD, next);
    }
    if (skip) {
        LLVMBuildBr(BLD, skip);
        LLVMPositionBuilderAtEnd(BLD, skip);
    }
    return true;
}

/* sured.b: x in bytes, the type's signedness; sured.p: x in elements, .b32/.b64 compared as the array's format
 * (signed for s8/s16/s32 arrays) */
static bool emit_sured(emit_ctx *E, const ir_ins *ins) {
    bool fmtd = ir_ins_has(ins, IR_M_P);
    ir_type t = ir_ins_type(ins, 0);
    if (fmtd && t != IR_T_B32 && t != IR_T_B64) {
        emit_unsupported(E, "sured.p type");
        return false;
    }
    if (t != IR_T_U32 && t != IR_T_S32 && t != IR_T_B32 && t != IR_T_U64 && t != IR_T_S64 && t != IR_T_B64) {
        emit_unsupported(E, "sured type");
        return false;
    }
    bool s = t == IR_T_S32 || t == IR_T_S64;
    LLVMAtomicRMWBinOp op;
    if (ir_ins_has(ins, IR_M_ADD)) op = LLVMAtomicRMWBinOpAdd;
    else if (ir_ins_has(ins, IR_M_MIN)) op = s ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin;
    else if (ir_ins_has(ins, IR_M_MAX)) op = s ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax;
    else if (ir_ins_has(ins, IR_M_AND)) op = LLVMAtomicRMWBinOpAnd;
    else if (ir_ins_has(ins, IR_M_OR)) op = LLVMAtomicRMWBinOpOr;
    else {
        emit_unsupported(E, "sured operation");
        return false;
    }
    if (ins->nops != 2 || ins->ops[1].kind == IR_OPND_VEC) {
        emit_unsupported(E, "sured operands");
        return false;
    }
    unsigned eb = tbits(t) / 8;
    LLVMValueRef v = rd(E, &ins->ops[1], t);
    LLVMValueRef inb, a = surf_addr(E, ins, &ins->ops[0], eb, !fmtd, &inb);
    if (!a) return false;
    LLVMBasicBlockRef pre, skip = guard_begin(E, inb, &pre);
    unsigned ss = scope_id(E, P2N_SCOPE_GPU);
    bool minmax = op == LLVMAtomicRMWBinOpUMin || op == LLVMAtomicRMWBinOpUMax;
    if (fmtd && minmax) { /* the format decides signedness at run time */
        const ir_operand *h = &ir_elems(&ins->ops[0])[0];
        LLVMValueRef fmt = texd_load(E, tex_ptr(E, tex_handle(E, h)), P2N_TEXD_FORMAT, E->i32);
        LLVMValueRef sg = LLVMBuildOr(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, fmt, c32(E, 0x08), ""),
                                      LLVMBuildOr(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, fmt, c32(E, 0x09), ""),
                                                  LLVMBuildICmp(BLD, LLVMIntEQ, fmt, c32(E, 0x0a), ""), ""), "");
        LLVMBasicBlockRef bs = new_bb(E, "sured.s"), bu = new_bb(E, "sured.u"), j = new_bb(E, "sured.j");
        LLVMBuildCondBr(BLD, sg, bs, bu);
        LLVMPositionBuilderAtEnd(BLD, bs);
        LLVMBuildAtomicRMWSyncScope(BLD, op == LLVMAtomicRMWBinOpUMin ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpMax,
                                    tex_ptr(E, a), v, LLVMAtomicOrderingMonotonic, ss);
        LLVMBuildBr(BLD, j);
        LLVMPositionBuilderAtEnd(BLD, bu);
        LLVMBuildAtomicRMWSyncScope(BLD, op, tex_ptr(E, a), v, LLVMAtomicOrderingMonotonic, ss);
        LLVMBuildBr(BLD, j);
        LLVMPositionBuilderAtEnd(BLD, j);
    } else {
        LLVMBuildAtomicRMWSyncScope(BLD, op, tex_ptr(E, a), v, LLVMAtomicOrderingMonotonic, ss);
    }
    if (skip) {
        LLVMBuildBr(BLD, skip);
        LLVMPositionBuilderAtEnd(BLD, skip);
    }
    return true;
}

/* suq: only .width .height .depth; NVIDIA's JIT refuses a module with any other attribute on an object handle
 * (cuModuleLoadDataEx: CUDA_ERROR_NOT_SUPPORTED), so those are diagnosed, and never deferred to launch: the
 * driver stub's JIT fails the module the same way */
static bool emit_suq(emit_ctx *E, const ir_ins *ins) {
    unsigned off = ir_ins_has(ins, IR_M_WIDTH) ? P2N_TEXD_WIDTH : ir_ins_has(ins, IR_M_HEIGHT) ? P2N_TEXD_HEIGHT
                 : ir_ins_has(ins, IR_M_DEPTH) ? P2N_TEXD_DEPTH : 0;
    if (!off) {
        emit_unsupported_as(E, "suq of this attribute on a surface object: NVIDIA's JIT refuses it too", DEFER_NEVER);
        return false;
    }
    if (ins->nops != 2) {
        emit_unsupported(E, "suq operands");
        return false;
    }
    LLVMValueRef h = tex_handle(E, &ins->ops[1]);
    if (!h) return false;
    LLVMValueRef d = tex_check(E, h, TEXCHK_SURFACE);
    wr(E, &ins->ops[0], IR_T_B32, tex_query_size(E, d, off, true));
    return true;
}

bool emit_surface(emit_ctx *E, const ir_ins *ins) {
    switch ((ir_opcode)ins->op) {
    case IR_OP_SULD: return emit_suld(E, ins);
    case IR_OP_SUST: return emit_sust(E, ins);
    case IR_OP_SURED: return emit_sured(E, ins);
    case IR_OP_SUQ: return emit_suq(E, ins);
    default: return false;
    }
}
