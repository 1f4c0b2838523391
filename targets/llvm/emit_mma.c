/* emit_mma.c — the generic warp-matrix forms (abi/mx_forms.h): recognises mma.sync and wmma.mma of
 * every shape and type the PTX ISA lists for sm_70..sm_90 (except the quad-pair m8n8k4 .f16 form, and of fp8 only
 * m16n8k32 with .f32 accumulation), mma.sp{::ordered_metadata} of the same input types (fp8: .f32 only), the
 * wmma fragment loads and stores of those forms and movmatrix, and hands
 * them to the runtime's warp_matrix entry (host) or the target's lane lowering (emit_lanes_mma.c) as one op word
 * plus the lane's io block. The forms emit_matrix.c handles itself never reach here. */
#include "emit.h"
#include "mx_forms.h"

#define BLD E->B

static int mxe_of(ir_type t) {
    switch (t) {
    case IR_T_F16: return MXE_F16;
    case IR_T_BF16: return MXE_BF16;
    case IR_T_TF32: return MXE_TF32;
    case IR_T_F32: return MXE_F32;
    case IR_T_F64: return MXE_F64;
    case IR_T_S8: return MXE_S8;
    case IR_T_U8: return MXE_U8;
    case IR_T_S4: return MXE_S4;
    case IR_T_U4: return MXE_U4;
    case IR_T_B1: return MXE_B1;
    case IR_T_S32: return MXE_S32;
    case IR_T_E4M3: return MXE_E4M3;
    case IR_T_E5M2: return MXE_E5M2;
    default: return -1;
    }
}

static int shape_index(const ir_ins *ins) {
    for (unsigned i = 0; i < P2N_MX_NSHAPES; i++)
        if (ins->shape == (p2n_mx_shapes[i][0] | p2n_mx_shapes[i][1] << 10 | (uint32_t)p2n_mx_shapes[i][2] << 20))
            return (int)i;
    return -1;
}

static bool is_int8(int t) { return t == MXE_S8 || t == MXE_U8; }
static bool is_int4(int t) { return t == MXE_S4 || t == MXE_U4; }
static bool is_fp8(int t) { return t == MXE_E4M3 || t == MXE_E5M2; }

/* the accumulator types a family of inputs allows; d, c the D and C types */
static bool acc_ok(int a, int d, int c) {
    if (a == MXE_F16) return (d == MXE_F16 || d == MXE_F32) && (c == MXE_F16 || c == MXE_F32);
    if (is_fp8(a)) return (d == MXE_F16 || d == MXE_F32) && c == d;
    if (a == MXE_F64) return d == MXE_F64 && c == MXE_F64;
    if (a == MXE_BF16 || a == MXE_TF32) return d == MXE_F32 && c == MXE_F32;
    return d == MXE_S32 && c == MXE_S32;
}

/* shapes per input type: mma.sync (PTX ISA "mma" table, row.col) and wmma */
static bool mma_shape_ok(int a, int b, unsigned m, unsigned n, unsigned k) {
    unsigned s = m << 16 | n << 8 | k;
#define S(M, N, K) ((M) << 16 | (N) << 8 | (K))
    if (a == MXE_F16 || a == MXE_BF16) return b == a && (s == S(16, 8, 8) || s == S(16, 8, 16));
    if (a == MXE_TF32) return b == a && (s == S(16, 8, 4) || s == S(16, 8, 8));
    if (a == MXE_F64) return b == a && (s == S(8, 8, 4) || s == S(16, 8, 4) || s == S(16, 8, 8) || s == S(16, 8, 16));
    if (is_int8(a)) return is_int8(b) && (s == S(8, 8, 16) || s == S(16, 8, 16) || s == S(16, 8, 32));
    if (is_int4(a)) return is_int4(b) && (s == S(8, 8, 32) || s == S(16, 8, 32) || s == S(16, 8, 64));
    if (a == MXE_B1) return b == a && (s == S(8, 8, 128) || s == S(16, 8, 128) || s == S(16, 8, 256));
    if (is_fp8(a)) return is_fp8(b) && (s == S(16, 8, 16) || s == S(16, 8, 32));
    return false;
}

static bool wmma_shape_ok(int a, unsigned m, unsigned n, unsigned k) {
    unsigned s = m << 16 | n << 8 | k;
    if (a == MXE_F16 || a == MXE_BF16 || is_int8(a)) return s == S(16, 16, 16) || s == S(32, 8, 16) || s == S(8, 32, 16);
    if (a == MXE_TF32) return s == S(16, 16, 8);
    if (a == MXE_F64) return s == S(8, 8, 4);
    if (is_int4(a)) return s == S(8, 8, 32);
    if (a == MXE_B1) return s == S(8, 8, 128);
    return false;
#undef S
}

/* the first of the layout words (row/col) in the instruction's order: 1 row, 2 col, 0 none; *second the next */
static unsigned layouts(const ir_ins *ins, unsigned *second) {
    unsigned got[2] = {0, 0}, n = 0;
    for (unsigned i = 0; i < ins->nwords && n < 2; i++) {
        uint16_t w = ins->words[i];
        if (IR_WORD_KIND(w) != IR_W_MOD) continue;
        if (IR_WORD_ID(w) == IR_M_ROW) got[n++] = 1;
        else if (IR_WORD_ID(w) == IR_M_COL) got[n++] = 2;
    }
    *second = got[1];
    return got[0];
}

/* the registers of a fragment operand: a vector of n, or one register for n = 1 */
static const ir_operand *regs_of(const ir_operand *o, unsigned n) {
    if (o->kind == IR_OPND_VEC) return o->aux == n ? ir_elems(o) : NULL;
    return n == 1 ? o : NULL;
}

static LLVMValueRef io_at(emit_ctx *E, LLVMValueRef io, unsigned k) { return gep8(E, io, c64(E, 4ull * k)); }

/* fragment registers <-> io words; 64-bit elements (f64) take two words */
static void put_frag(emit_ctx *E, LLVMValueRef io, unsigned w, const ir_operand *r, unsigned n, bool wide) {
    for (unsigned i = 0; i < n; i++) {
        if (wide) {
            LLVMValueRef v = r[i].kind == IR_OPND_SINK ? c64(E, 0) : rd(E, &r[i], IR_T_B64);
            LLVMBuildStore(BLD, LLVMBuildTrunc(BLD, v, E->i32, ""), io_at(E, io, w + 2 * i));
            LLVMBuildStore(BLD, LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, v, c64(E, 32), ""), E->i32, ""), io_at(E, io, w + 2 * i + 1));
        } else {
            LLVMValueRef v = r[i].kind == IR_OPND_SINK ? c32(E, 0) : rd(E, &r[i], IR_T_B32);
            LLVMBuildStore(BLD, v, io_at(E, io, w + i));
        }
    }
}

static void get_frag(emit_ctx *E, LLVMValueRef io, unsigned w, const ir_operand *r, unsigned n, bool wide) {
    for (unsigned i = 0; i < n; i++) {
        if (r[i].kind == IR_OPND_SINK) continue;
        if (wide) {
            LLVMValueRef lo = LLVMBuildZExt(BLD, LLVMBuildLoad2(BLD, E->i32, io_at(E, io, w + 2 * i), ""), E->i64, "");
            LLVMValueRef hi = LLVMBuildZExt(BLD, LLVMBuildLoad2(BLD, E->i32, io_at(E, io, w + 2 * i + 1), ""), E->i64, "");
            wr(E, &r[i], IR_T_B64, LLVMBuildOr(BLD, lo, LLVMBuildShl(BLD, hi, c64(E, 32), ""), ""));
        } else {
            wr(E, &r[i], IR_T_B32, LLVMBuildLoad2(BLD, E->i32, io_at(E, io, w + i), ""));
        }
    }
}

static LLVMValueRef io_block(emit_ctx *E, unsigned words) {
    LLVMValueRef a = LLVMBuildAlloca(E->AB, LLVMArrayType(E->i32, words), "mx");
    LLVMSetAlignment(a, 8);
    return a;
}

static void call_mx(emit_ctx *E, uint32_t op, LLVMValueRef io) {
    LLVMValueRef args[3] = {E->ctx, c32(E, op), io};
    rt_call(E, RT_WARP_MATRIX, E->vd, args, 3);
    note_flags(E, P2N_KERNEL_USES_WARP_OPS);
}

static unsigned regs(const p2n_mx *f, unsigned x, int t) {
    unsigned w = p2n_mx_words(f, x, (unsigned)t);
    return t == MXE_F64 ? w / 2 : w;
}

/* the dense shapes (K the dense K) of mma.sp per input type, PTX ISA "mma.sp" (m16n8 only) */
static bool sp_shape_ok(int a, int b, unsigned m, unsigned n, unsigned k) {
    if (m != 16 || n != 8) return false;
    if (a == MXE_F16 || a == MXE_BF16) return b == a && (k == 16 || k == 32);
    if (a == MXE_TF32) return b == a && (k == 8 || k == 16);
    if (is_int8(a)) return is_int8(b) && (k == 32 || k == 64);
    if (is_int4(a)) return is_int4(b) && (k == 64 || k == 128);
    if (is_fp8(a)) return is_fp8(b) && k == 64;
    return false;
}

/* mma.sp{::ordered_metadata}.sync.aligned.m16n8kK.row.col{.satfinite}.dtype.atype.btype.ctype d, a, b, c, e, f:
 * A compressed, e the metadata, f the sparsity selector (a constant); the warp expands A (mx_forms.h) and runs
 * the dense product. Whatever is not such a form is diagnosed here, with the reason. */
static bool emit_mma_sp(emit_ctx *E, const ir_ins *ins) {
    if (ir_ins_has(ins, IR_M_BLOCK_SCALE) || ir_ins_ntypes(ins) != 4 || ir_ins_has(ins, IR_M_KIND_F8F6F4) ||
        ir_ins_has(ins, IR_M_KIND_MXF8F6F4) || ir_ins_has(ins, IR_M_KIND_MXF4) || ir_ins_has(ins, IR_M_KIND_MXF4NVF4)) {
        emit_unsupported(E, "mma.sp with .kind / block scaling (sm_120a forms: no lowering)");
        return true;
    }
    int s = shape_index(ins);
    unsigned m = s < 0 ? 0 : p2n_mx_shapes[s][0], n = s < 0 ? 0 : p2n_mx_shapes[s][1], k = s < 0 ? 0 : p2n_mx_shapes[s][2];
    int td = mxe_of(ir_ins_type(ins, 0)), ta = mxe_of(ir_ins_type(ins, 1));
    int tb = mxe_of(ir_ins_type(ins, 2)), tc = mxe_of(ir_ins_type(ins, 3));
    unsigned second, first = layouts(ins, &second);
    bool satf = ir_ins_has(ins, IR_M_SATFINITE), integer = is_int8(ta) || is_int4(ta);
    if (s < 0 || td < 0 || ta < 0 || tb < 0 || tc < 0 || !acc_ok(ta, td, tc) || !sp_shape_ok(ta, tb, m, n, k) ||
        (ta == MXE_F16 && td != tc)) {
        emit_unsupported(E, "mma.sp shape and types (the forms: m16n8k16/k32 .f16/.bf16, m16n8k8/k16 .tf32, "
                            "m16n8k32/k64 .s8/.u8, m16n8k64/k128 .s4/.u4, m16n8k64 .e4m3/.e5m2, with the "
                            "accumulator types of mma)");
        return true;
    }
    if (first != 1 || second != 2 || ins->nops != 6 || (satf && !integer) || ir_ins_has(ins, IR_M_XOR) ||
        ir_ins_has(ins, IR_M_AND) || ir_ins_has(ins, IR_M_POPC) || ir_ins_has(ins, IR_M_RN) ||
        ir_ins_has(ins, IR_M_RZ) || ir_ins_has(ins, IR_M_RM) || ir_ins_has(ins, IR_M_RP)) {
        emit_unsupported(E, "mma.sp modifiers or operands (.row.col, .satfinite for integers only, d, a, b, c, e, f)");
        return true;
    }
    if (is_fp8(ta) && td != MXE_F32) {
        emit_unsupported(E, "mma.sp .e4m3/.e5m2 with .f16 accumulation (only the .f32 form is lowered)");
        return true;
    }
    const ir_operand *o = ins->ops;
    if (o[5].kind != IR_OPND_IMM) {
        emit_unsupported(E, "mma.sp sparsity selector (must be an integer constant)");
        return true;
    }
    uint32_t op = P2N_MX_MMA_SP | (uint32_t)s << 8 | (uint32_t)ta << 12 | (uint32_t)tb << 16 | (uint32_t)tc << 20 |
                  (uint32_t)td << 24 | (uint32_t)satf << 30;
    p2n_mx f = p2n_mx_decode(op);
    uint64_t sel = (uint64_t)o[5].val;
    if (sel > 3 || !p2n_mx_sp_sel_ok(p2n_mx_sp_row_units(&f), (unsigned)sel)) {
        emit_unsupported(E, "mma.sp sparsity selector (undefined for this shape and type: 0..3 for one metadata "
                            "lane per group, 0..1 for a pair, 0 for all four)");
        return true;
    }
    op |= (uint32_t)sel << 28;
    f = p2n_mx_decode(op);
    const ir_operand *d = regs_of(&o[0], regs(&f, MXF_C, td)), *a = regs_of(&o[1], regs(&f, MXF_A, ta));
    const ir_operand *b = regs_of(&o[2], regs(&f, MXF_B, tb)), *c = regs_of(&o[3], regs(&f, MXF_C, tc));
    if (!d || !a || !b || !c || o[4].kind == IR_OPND_VEC || o[4].kind == IR_OPND_SINK) {
        emit_unsupported(E, "mma.sp operands (register counts of d, a, b, c not those of the form, or e not a register)");
        return true;
    }
    unsigned wa = p2n_mx_words(&f, MXF_A, ta), wb = p2n_mx_words(&f, MXF_B, tb), wc = p2n_mx_words(&f, MXF_C, tc);
    unsigned wd = p2n_mx_words(&f, MXF_C, td);
    LLVMValueRef io = io_block(E, wa + wb + wc + wd + 1);
    put_frag(E, io, 0, a, regs(&f, MXF_A, ta), false);
    put_frag(E, io, wa, b, regs(&f, MXF_B, tb), false);
    put_frag(E, io, wa + wb, c, regs(&f, MXF_C, tc), false);
    LLVMBuildStore(BLD, rd(E, &o[4], IR_T_B32), io_at(E, io, wa + wb + wc + wd));
    call_mx(E, op, io);
    get_frag(E, io, wa + wb + wc, d, regs(&f, MXF_C, td), false);
    return true;
}

static bool emit_mma_op(emit_ctx *E, const ir_ins *ins, bool wmma) {
    /* .sp on a wmma is no PTX: false, the caller's generic diagnostic */
    if (ir_ins_has(ins, IR_M_SP) || ir_ins_has(ins, IR_M_SP_ORDERED_METADATA)) return !wmma && emit_mma_sp(E, ins);
    if (ins->nops != 4 || ir_ins_has(ins, IR_M_BLOCK_SCALE)) return false;
    int s = shape_index(ins);
    if (s < 0) return false;
    unsigned m = p2n_mx_shapes[s][0], n = p2n_mx_shapes[s][1], k = p2n_mx_shapes[s][2];
    int td, ta, tb, tc;
    unsigned nt = ir_ins_ntypes(ins);
    if (nt == 4) {
        td = mxe_of(ir_ins_type(ins, 0)), ta = mxe_of(ir_ins_type(ins, 1));
        tb = mxe_of(ir_ins_type(ins, 2)), tc = mxe_of(ir_ins_type(ins, 3));
    } else if (nt == 2 && wmma) { /* wmma .f16 inputs: dtype.ctype */
        td = mxe_of(ir_ins_type(ins, 0)), tc = mxe_of(ir_ins_type(ins, 1));
        ta = tb = MXE_F16;
    } else {
        return false;
    }
    if (td < 0 || ta < 0 || tb < 0 || tc < 0 || !acc_ok(ta, td, tc)) return false;
    unsigned second, first = layouts(ins, &second);
    if (wmma) {
        bool same = ta == tb || (is_int8(ta) && is_int8(tb)) || (is_int4(ta) && is_int4(tb));
        if (!first || !second || !same || !wmma_shape_ok(ta, m, n, k)) return false;
    } else {
        if (m == 8 && n == 8 && k == 4 && ta == MXE_F16) {
            emit_unsupported(E, "mma.sync m8n8k4 .f16 (the sm_70 quad-pair fragment layout)");
            return true;
        }
        if (first != 1 || second != 2 || !mma_shape_ok(ta, tb, m, n, k) || (ta == MXE_F16 && td != tc)) return false;
    }
    bool satf = ir_ins_has(ins, IR_M_SATFINITE), xorp = ir_ins_has(ins, IR_M_XOR), andp = ir_ins_has(ins, IR_M_AND);
    bool integer = is_int8(ta) || is_int4(ta);
    if (satf && !integer && !(wmma && ta == MXE_F16)) return false;
    if (ta == MXE_B1 ? !(ir_ins_has(ins, IR_M_POPC) && xorp != andp) : (xorp || andp || ir_ins_has(ins, IR_M_POPC)))
        return false;
    bool directed = ir_ins_has(ins, IR_M_RZ) || ir_ins_has(ins, IR_M_RM) || ir_ins_has(ins, IR_M_RP);
    if (ta == MXE_F64 && wmma && directed) {
        emit_unsupported(E, "wmma .f64 with .rz/.rm/.rp (only the .rn fma chain is lowered)");
        return true;
    }
    if ((ir_ins_has(ins, IR_M_RN) || directed) && !(ta == MXE_F64 && ir_ins_has(ins, IR_M_RN))) return false;
    if (satf && !integer && wmma && ta == MXE_F16) {
        emit_unsupported(E, "wmma .f16 with .satfinite");
        return true;
    }
    uint32_t op = P2N_MX_MMA | (uint32_t)s << 8 | (uint32_t)ta << 12 | (uint32_t)tb << 16 | (uint32_t)tc << 20 |
                  (uint32_t)td << 24 | (uint32_t)(ta == MXE_B1 ? (andp ? MXO_AND_POPC : MXO_XOR_POPC) : MXO_MAD) << 28 |
                  (uint32_t)satf << 30 | (uint32_t)wmma << 31;
    p2n_mx f = p2n_mx_decode(op);
    const ir_operand *o = ins->ops;
    const ir_operand *d = regs_of(&o[0], regs(&f, MXF_C, td)), *a = regs_of(&o[1], regs(&f, MXF_A, ta));
    const ir_operand *b = regs_of(&o[2], regs(&f, MXF_B, tb)), *c = regs_of(&o[3], regs(&f, MXF_C, tc));
    if (!d || !a || !b || !c) return false;
    unsigned wa = p2n_mx_words(&f, MXF_A, ta), wb = p2n_mx_words(&f, MXF_B, tb), wc = p2n_mx_words(&f, MXF_C, tc);
    unsigned wd = p2n_mx_words(&f, MXF_C, td);
    LLVMValueRef io = io_block(E, wa + wb + wc + wd);
    put_frag(E, io, 0, a, regs(&f, MXF_A, ta), ta == MXE_F64);
    put_frag(E, io, wa, b, regs(&f, MXF_B, tb), tb == MXE_F64);
    put_frag(E, io, wa + wb, c, regs(&f, MXF_C, tc), tc == MXE_F64);
    call_mx(E, op, io);
    get_frag(E, io, wa + wb + wc, d, regs(&f, MXF_C, td), td == MXE_F64);
    return true;
}

/* wmma.load.{a,b,c} / wmma.store.d .layout.shape{.ss}.type r, [p] {, stride} */
static bool emit_frag_ldst(emit_ctx *E, const ir_ins *ins) {
    bool ld = ins->op == IR_OP_WMMA_LOAD;
    if (ins->nops < 2 || ins->nops > 3 || ir_ins_ntypes(ins) != 1) return false;
    int s = shape_index(ins), t = mxe_of(ir_ins_type(ins, 0));
    if (s < 0 || t < 0) return false;
    unsigned m = p2n_mx_shapes[s][0], n = p2n_mx_shapes[s][1], k = p2n_mx_shapes[s][2];
    unsigned x;
    if (ld && ir_ins_has(ins, IR_M_COMP_A)) x = MXF_A;
    else if (ld && ir_ins_has(ins, IR_M_B)) x = MXF_B;
    else if (ld ? ir_ins_has(ins, IR_M_FRAG_C) : ir_ins_has(ins, IR_M_FRAG_D)) x = MXF_C;
    else return false;
    unsigned second, lay = layouts(ins, &second);
    if (!lay || second) return false;
    /* the fragment's element type against the shape: A/B carry the input type, C/D an accumulator type */
    if (x == MXF_C) {
        bool ok = t == MXE_S32   ? wmma_shape_ok(MXE_S8, m, n, k) || wmma_shape_ok(MXE_S4, m, n, k) ||
                                     wmma_shape_ok(MXE_B1, m, n, k)
                  : t == MXE_F64 ? wmma_shape_ok(MXE_F64, m, n, k)
                  : t == MXE_F16 ? wmma_shape_ok(MXE_F16, m, n, k)
                  : t == MXE_F32 ? wmma_shape_ok(MXE_F16, m, n, k) || wmma_shape_ok(MXE_TF32, m, n, k)
                                 : false;
        if (!ok) return false;
    } else if (!wmma_shape_ok(t, m, n, k)) {
        return false;
    }
    /* sub-byte and single-bit operands exist in one layout only: A row, B col */
    if ((is_int4(t) || t == MXE_B1) && x != MXF_C && lay != (x == MXF_A ? 1u : 2u)) return false;
    uint32_t op = (ld ? P2N_MX_FRAG_LOAD : P2N_MX_FRAG_STORE) | (uint32_t)s << 8 | (uint32_t)t << 12 | x << 16 |
                  (uint32_t)(lay == 2) << 18;
    p2n_mx f = p2n_mx_decode(op);
    const ir_operand *o = ins->ops;
    unsigned nregs = regs(&f, x, t), words = p2n_mx_words(&f, x, (unsigned)t);
    const ir_operand *r = regs_of(&o[ld ? 0 : 1], nregs);
    if (!r) return false;
    ir_space sp = ir_ins_space(ins);
    LLVMValueRef p = addr_of(E, &o[ld ? 1 : 0], sp);
    LLVMValueRef io = io_block(E, 3 + words);
    LLVMSetAlignment(LLVMBuildStore(BLD, LLVMBuildPtrToInt(BLD, p, E->i64, ""), io), 8);
    LLVMValueRef stride;
    if (ins->nops == 3) {
        stride = rd(E, &o[2], IR_T_B32);
    } else { /* the default: the matrix's own leading dimension, in elements */
        unsigned rows, cols;
        p2n_mx_dims(&f, x, (unsigned)t, &rows, &cols);
        unsigned per_word = t == MXE_B1 ? 32 : 1;
        stride = c32(E, (lay == 2 ? rows : cols) * per_word);
    }
    LLVMBuildStore(BLD, stride, io_at(E, io, 2));
    if (!ld) put_frag(E, io, 3, r, nregs, t == MXE_F64);
    call_mx(E, op, io);
    if (ld) get_frag(E, io, 3, r, nregs, t == MXE_F64);
    return true;
}

/* movmatrix.sync.aligned.m8n8.trans.b16 d, a */
static bool emit_movmatrix(emit_ctx *E, const ir_ins *ins) {
    if (ins->nops != 2 || ins->shape != (8u | 8u << 10) || !ir_ins_has(ins, IR_M_TRANS) ||
        (ir_ins_type(ins, 0) != IR_T_B16 && ir_ins_type(ins, 0) != IR_T_NONE))
        return false;
    const ir_operand *d = regs_of(&ins->ops[0], 1), *a = regs_of(&ins->ops[1], 1);
    if (!d || !a) return false;
    LLVMValueRef io = io_block(E, 2);
    put_frag(E, io, 0, a, 1, false);
    call_mx(E, P2N_MX_MOVMATRIX, io);
    get_frag(E, io, 1, d, 1, false);
    return true;
}

bool emit_mma_generic(emit_ctx *E, const ir_ins *ins) {
    switch ((ir_opcode)ins->op) {
    case IR_OP_MMA: return emit_mma_op(E, ins, false);
    case IR_OP_WMMA_MMA: return emit_mma_op(E, ins, true);
    case IR_OP_WMMA_LOAD:
    case IR_OP_WMMA_STORE: return emit_frag_ldst(E, ins);
    case IR_OP_MOVMATRIX: return emit_movmatrix(E, ins);
    default: return false;
    }
}
