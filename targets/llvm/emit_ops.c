/* emit_ops.c — operands, registers, addresses and small helpers of the shared LLVM emission. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "emit_texture.h" /* tex_operand_is_ref, texref_handle: `mov r, texref` */

unsigned tbits(ir_type t) { return t == IR_T_PRED ? 1 : ir_type_bits[t]; }

bool t_signed(ir_type t) { return t == IR_T_S8 || t == IR_T_S16 || t == IR_T_S32 || t == IR_T_S64; }

bool t_float(ir_type t) { return t == IR_T_F32 || t == IR_T_F64; }

LLVMTypeRef ty_of(emit_ctx *E, ir_type t) {
    if (t == IR_T_F32) return E->f32;
    if (t == IR_T_F64) return E->f64;
    switch (tbits(t)) {
    case 1: return E->i1;
    case 8: return E->i8;
    case 16: return E->i16;
    case 32: return E->i32;
    case 64: return E->i64;
    case 128: return E->i128;
    default: return LLVMIntTypeInContext(E->C, tbits(t) ? tbits(t) : 32);
    }
}

LLVMValueRef ci(LLVMTypeRef t, uint64_t v) { return LLVMConstInt(t, v, 0); }
LLVMValueRef c32(emit_ctx *E, uint64_t v) { return LLVMConstInt(E->i32, v, 0); }
LLVMValueRef c64(emit_ctx *E, uint64_t v) { return LLVMConstInt(E->i64, v, 0); }

LLVMValueRef sel(emit_ctx *E, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildSelect(E->B, c, a, b, ""); }

LLVMValueRef to_int(emit_ctx *E, LLVMValueRef v) {
    LLVMTypeRef t = LLVMTypeOf(v);
    if (t == E->f32) return LLVMBuildBitCast(E->B, v, E->i32, "");
    if (t == E->f64) return LLVMBuildBitCast(E->B, v, E->i64, "");
    return v;
}

LLVMValueRef to_fp(emit_ctx *E, LLVMValueRef v, LLVMTypeRef ft) {
    if (LLVMTypeOf(v) == ft) return v;
    return LLVMBuildBitCast(E->B, v, ft, "");
}


LLVMValueRef zext_to(emit_ctx *E, LLVMValueRef v, LLVMTypeRef t) { return resize(E, v, t, false); }
LLVMValueRef sext_to(emit_ctx *E, LLVMValueRef v, LLVMTypeRef t) { return resize(E, v, t, true); }

/* integer resize (both integer types) */
LLVMValueRef resize(emit_ctx *E, LLVMValueRef v, LLVMTypeRef t, bool is_signed) {
    LLVMTypeRef vt = LLVMTypeOf(v);
    if (vt == t) return v;
    unsigned a = LLVMGetIntTypeWidth(vt), b = LLVMGetIntTypeWidth(t);
    if (a > b) return LLVMBuildTrunc(E->B, v, t, "");
    if (a == b) return v;
    return is_signed && a > 1 ? LLVMBuildSExt(E->B, v, t, "") : LLVMBuildZExt(E->B, v, t, "");
}

LLVMBasicBlockRef new_bb(emit_ctx *E, const char *name) { return LLVMAppendBasicBlockInContext(E->C, E->cur, name); }

void note_flags(emit_ctx *E, uint32_t flags) { E->module_flags |= flags; }

ir_space var_space(emit_ctx *E, uint32_t var) { return ir_space_base[E->m->vars[var].space]; }

const char *ins_name(emit_ctx *E, const ir_ins *ins, char *buf, size_t n) {
    (void)E;
    size_t k = (size_t)snprintf(buf, n, "%s", ir_opcodes[ins->op].name);
    for (unsigned i = 0; i < ins->nwords && k + 2 < n; i++) {
        char w[64];
        if (ir_word_format(ins, i, w, sizeof w) <= 0) continue;
        k += (size_t)snprintf(buf + k, n - k, "%s%s", w[0] == '.' ? "" : ".", w);
    }
    return buf;
}

void emit_unsupported(emit_ctx *E, const char *why) { emit_unsupported_as(E, why, DEFER_STUB); }

void emit_unsupported_as(emit_ctx *E, const char *why, defer_kind kind) {
    char name[256], text[768];
    const ir_ins *ins = E->ins;
    if (ins)
        snprintf(text, sizeof text, "unsupported PTX instruction '%s' for target %s%s%s%s",
                 ins_name(E, ins, name, sizeof name), E->t->name, why ? " (" : "", why ? why : "", why ? ")" : "");
    else
        snprintf(text, sizeof text, "unsupported PTX construct for target %s: %s", E->t->name, why ? why : "?");
    /* --defer-unsupported: the function is stubbed (defer_unsupported.c), the diagnostic is a warning */
    bool deferred = kind != DEFER_NEVER && defer_note_as(E, text, kind);
    if (ins) {
        if (deferred) diag_warning(E->d, ins->line, ins->col, "%s", text);
        else diag_error(E->d, ins->line, ins->col, "%s", text);
    } else {
        diag_plain(E->d, deferred ? "warning" : "error", "%s", text);
    }
    if (!deferred) E->failed++;
}

void emit_internal(emit_ctx *E, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_plain(E->d, "error", "internal compiler error: %s", msg);
    E->failed++;
    E->internal_error = true;
}

LLVMValueRef gep8(emit_ctx *E, LLVMValueRef p, LLVMValueRef off) {
    if (LLVMIsAConstantInt(off) && LLVMConstIntGetZExtValue(off) == 0) return p;
    return LLVMBuildGEP2(E->B, E->i8, p, &off, 1, "");
}

LLVMValueRef intrin(emit_ctx *E, const char *name, LLVMTypeRef *tys, unsigned ntys, LLVMValueRef *args, unsigned n) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(E->M, id, tys, ntys);
    LLVMTypeRef ft = LLVMIntrinsicGetType(E->C, id, tys, ntys);
    return LLVMBuildCall2(E->B, ft, fn, args, n, "");
}

LLVMValueRef ctx_field(emit_ctx *E, unsigned off, LLVMTypeRef t) {
    if (E->t->hooks && E->t->hooks->ctx_field) {
        LLVMValueRef v = E->t->hooks->ctx_field(E, off, t);
        if (v) return v;
    }
    LLVMValueRef p = gep8(E, E->ctx, c64(E, off));
    LLVMValueRef v = LLVMBuildLoad2(E->B, t, p, "");
    return v;
}

LLVMValueRef rt_fn(emit_ctx *E, unsigned slot) {
    if (E->t->hooks && E->t->hooks->rt_fn) return E->t->hooks->rt_fn(E, slot);
    LLVMValueRef rt = ctx_field(E, CTX_RT, E->ptr);
    LLVMValueRef v = LLVMBuildLoad2(E->B, E->ptr, gep8(E, rt, c64(E, 8 + 8 * slot)), "");
    return v;
}

LLVMValueRef rt_call(emit_ctx *E, unsigned slot, LLVMTypeRef ret, LLVMValueRef *args, unsigned n) {
    if (E->t->hooks && E->t->hooks->rt_call) return E->t->hooks->rt_call(E, slot, ret, args, n);
    /* the runtime may report or print the calling thread */
    if (slot != RT_YIELD && E->t->hooks && E->t->hooks->before_call) E->t->hooks->before_call(E);
    LLVMTypeRef at[8];
    for (unsigned i = 0; i < n; i++) at[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef ft = LLVMFunctionType(ret, at, n, 0);
    LLVMValueRef call = LLVMBuildCall2(E->B, ft, rt_fn(E, slot), args, n, "");
    if (rt_slot_is_collective(slot)) {
        /* the set of threads reaching the call is its meaning: without `convergent` SimplifyCFG hoists the same
         * collective out of both arms of a branch (or sinks it into their join), and %activemask read in an
         * if / else-if chain named the lanes of two arms */
        unsigned k = LLVMGetEnumAttributeKindForName("convergent", sizeof "convergent" - 1);
        LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(E->C, k, 0));
    }
    return call;
}

/* The runtime calls whose result or effect depends on which threads of the warp or block make them together. */
bool rt_slot_is_collective(unsigned slot) {
    switch (slot) {
    case RT_BARRIER: case RT_BARRIER_RED: case RT_SHFL: case RT_VOTE: case RT_MATCH_ANY: case RT_MATCH_ALL:
    case RT_REDUX: case RT_ACTIVEMASK: case RT_WARP_SYNC: case RT_ELECT: case RT_WARP_MATRIX: return true;
    default: return false;
    }
}

/* An alloca (address space 0) as E->ptr: the same value on the host, a generic pointer on SPIR-V. */
LLVMValueRef as_generic(emit_ctx *E, LLVMValueRef p) {
    if (LLVMTypeOf(p) == E->ptr) return p;
    if (LLVMIsAInstruction(p) && LLVMGetInstructionParent(p) == LLVMGetInsertBlock(E->AB))
        return LLVMBuildAddrSpaceCast(E->AB, p, E->ptr, "");
    return LLVMBuildAddrSpaceCast(E->B, p, E->ptr, "");
}

LLVMValueRef smem_base(emit_ctx *E) { return ctx_field(E, CTX_SMEM, E->ptr); }

LLVMValueRef reg_slot(emit_ctx *E, uint32_t reg) {
    if (!E->regs[reg]) {
        ir_type t = ir_reg_type(E->f, reg);
        LLVMTypeRef lt = t == IR_T_PRED ? E->i1 : LLVMIntTypeInContext(E->C, tbits(t) ? tbits(t) : 32);
        E->regs[reg] = LLVMBuildAlloca(E->AB, lt, "");
        /* registers start as zero: PTX programs read uninitialised registers rarely, and zero is benign */
        LLVMBuildStore(E->AB, LLVMConstNull(lt), E->regs[reg]);
    }
    return E->regs[reg];
}

static LLVMTypeRef reg_ty(emit_ctx *E, uint32_t reg) {
    ir_type t = ir_reg_type(E->f, reg);
    return t == IR_T_PRED ? E->i1 : LLVMIntTypeInContext(E->C, tbits(t) ? tbits(t) : 32);
}

static ir_type bt(unsigned bits) {
    switch (bits) {
    case 1: return IR_T_PRED;
    case 8: return IR_T_B8;
    case 16: return IR_T_B16;
    case 32: return IR_T_B32;
    case 64: return IR_T_B64;
    default: return IR_T_B128;
    }
}

/* converts an integer value read from storage to the instruction type */
static LLVMValueRef adapt_in(emit_ctx *E, LLVMValueRef v, ir_type t) {
    LLVMTypeRef tt = ty_of(E, t);
    if (t == IR_T_PRED) {
        if (LLVMTypeOf(v) == E->i1) return v;
        return LLVMBuildICmp(E->B, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
    }
    LLVMTypeRef it = LLVMIntTypeInContext(E->C, tbits(t));
    v = resize(E, v, it, t_signed(t));
    if (tt != it) v = LLVMBuildBitCast(E->B, v, tt, "");
    return v;
}

static double imm_as_double(const ir_operand *o) {
    if (o->kind == IR_OPND_F32) {
        float f;
        uint32_t b = (uint32_t)o->val;
        memcpy(&f, &b, 4);
        return f;
    }
    if (o->kind == IR_OPND_F64) {
        double d;
        uint64_t b = (uint64_t)o->val;
        memcpy(&d, &b, 8);
        return d;
    }
    return (o->flags & IR_OPNDF_UNSIGNED) ? (double)(uint64_t)o->val : (double)o->val;
}

static uint16_t dbl_to_half_bits(double d, bool bf) {
    /* immediates only; round to nearest even through float */
    float f = (float)d;
    uint32_t x;
    memcpy(&x, &f, 4);
    if (bf) {
        if ((x & 0x7fffffff) > 0x7f800000) return 0x7fff;
        return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
    }
    uint32_t s = (x >> 16) & 0x8000, e = (x >> 23) & 0xff, mant = x & 0x7fffff;
    if (e == 0xff) return (uint16_t)(s | 0x7c00 | (mant ? 0x200 : 0));
    int ee = (int)e - 127 + 15;
    if (ee >= 31) return (uint16_t)(s | 0x7c00);
    if (ee <= 0) {
        if (ee < -10) return (uint16_t)s;
        mant |= 0x800000;
        unsigned shift = (unsigned)(14 - ee);
        uint32_t r = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1))) r++;
        return (uint16_t)(s | r);
    }
    uint32_t r = ((uint32_t)ee << 10) | (mant >> 13), rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) r++;
    return (uint16_t)(s | r);
}

LLVMValueRef rd(emit_ctx *E, const ir_operand *o, ir_type t) {
    LLVMTypeRef tt = ty_of(E, t);
    switch ((ir_opnd_kind)o->kind) {
    case IR_OPND_REG: {
        if (o->val) { emit_unsupported(E, "video byte/half selectors"); return LLVMGetUndef(tt); }
        LLVMValueRef v = LLVMBuildLoad2(E->B, reg_ty(E, o->id), reg_slot(E, o->id), "");
        v = adapt_in(E, v, t);
        if (o->flags & IR_OPNDF_NOT) {
            if (t == IR_T_PRED) v = LLVMBuildNot(E->B, v, "");
        }
        return v;
    }
    case IR_OPND_IMM:
        if (t == IR_T_PRED) return ci(E->i1, o->val != 0);
        if (t == IR_T_F32 || t == IR_T_F64) return LLVMConstReal(tt, imm_as_double(o));
        if (t == IR_T_F16 || t == IR_T_BF16) return ci(E->i16, (uint64_t)o->val); /* integer: raw bits */
        return ci(tt, (uint64_t)o->val);
    case IR_OPND_F32:
    case IR_OPND_F64: {
        if (t == IR_T_F32 || t == IR_T_F64) return LLVMConstReal(tt, imm_as_double(o));
        if (t == IR_T_F16 || t == IR_T_BF16) return ci(E->i16, dbl_to_half_bits(imm_as_double(o), t == IR_T_BF16));
        uint64_t bits = (uint64_t)o->val;
        if (t == IR_T_PRED) return ci(E->i1, bits != 0);
        return ci(tt, bits);
    }
    case IR_OPND_SREG: {
        extern LLVMValueRef emit_sreg(emit_ctx * E, const ir_operand *o);
        LLVMValueRef v = emit_sreg(E, o);
        return adapt_in(E, v, t);
    }
    case IR_OPND_VAR:
        if (var_space(E, o->id) == IR_S_REG) { /* .reg parameter of a .func (ABI-less form) */
            const ir_var *v = &E->m->vars[o->id];
            LLVMTypeRef vt = LLVMIntTypeInContext(E->C, tbits((ir_type)v->type) < 8 ? 8 : tbits((ir_type)v->type));
            LLVMValueRef x = LLVMBuildLoad2(E->B, vt, var_addr(E, o->id, IR_S_REG), "");
            return adapt_in(E, x, t);
        }
        if (tex_operand_is_ref(E, o, NULL) && !o->val) { /* mov r, texref: the object handle it holds */
            LLVMValueRef h = texref_handle(E, o->id);
            return h ? adapt_in(E, h, t) : LLVMGetUndef(tt);
        }
        return adapt_in(E, var_value(E, o->id, o->val), t);
    case IR_OPND_FUNC: {
        LLVMValueRef v = LLVMBuildPtrToInt(E->B, E->fn[o->id], E->i64, "");
        return adapt_in(E, v, t);
    }
    case IR_OPND_VEC: {
        unsigned n = o->aux, tb = tbits(t);
        if (!n || tb % n) { emit_unsupported(E, "vector operand shape"); return LLVMGetUndef(tt); }
        unsigned eb = tb / n;
        LLVMTypeRef it = LLVMIntTypeInContext(E->C, tb);
        LLVMValueRef acc = LLVMConstNull(it);
        const ir_operand *el = ir_elems(o);
        for (unsigned i = 0; i < n; i++) {
            if (el[i].kind == IR_OPND_SINK) continue;
            LLVMValueRef v = rd(E, &el[i], bt(eb));
            v = LLVMBuildZExt(E->B, v, it, "");
            if (i) v = LLVMBuildShl(E->B, v, ci(it, (uint64_t)eb * i), "");
            acc = LLVMBuildOr(E->B, acc, v, "");
        }
        if (tt != it) acc = LLVMBuildBitCast(E->B, acc, tt, "");
        return acc;
    }
    default:
        emit_unsupported(E, "operand kind");
        return LLVMGetUndef(tt);
    }
}

void wr(emit_ctx *E, const ir_operand *o, ir_type t, LLVMValueRef v) {
    if (o->kind == IR_OPND_SINK) return;
    if (o->kind == IR_OPND_VEC) {
        unsigned n = o->aux, tb = tbits(t);
        if (!n || tb % n) { emit_unsupported(E, "vector operand shape"); return; }
        unsigned eb = tb / n;
        LLVMTypeRef it = LLVMIntTypeInContext(E->C, tb), et = LLVMIntTypeInContext(E->C, eb);
        v = to_int(E, v);
        if (LLVMTypeOf(v) != it) v = LLVMBuildBitCast(E->B, v, it, "");
        const ir_operand *el = ir_elems(o);
        for (unsigned i = 0; i < n; i++) {
            LLVMValueRef x = i ? LLVMBuildLShr(E->B, v, ci(it, (uint64_t)eb * i), "") : v;
            wr(E, &el[i], bt(eb), LLVMBuildTrunc(E->B, x, et, ""));
        }
        return;
    }
    if (o->kind == IR_OPND_VAR && var_space(E, o->id) == IR_S_REG) {
        const ir_var *rv = &E->m->vars[o->id];
        LLVMTypeRef vt = LLVMIntTypeInContext(E->C, tbits((ir_type)rv->type) < 8 ? 8 : tbits((ir_type)rv->type));
        v = to_int(E, v);
        if (LLVMTypeOf(v) == E->i1) v = LLVMBuildZExt(E->B, v, vt, "");
        LLVMBuildStore(E->B, resize(E, v, vt, t_signed(t)), var_addr(E, o->id, IR_S_REG));
        return;
    }
    if (o->kind != IR_OPND_REG) { emit_unsupported(E, "destination operand kind"); return; }
    if (o->val) { emit_unsupported(E, "video byte/half selectors"); return; }
    LLVMTypeRef rt = reg_ty(E, o->id);
    v = to_int(E, v);
    if (rt == E->i1) {
        if (LLVMTypeOf(v) != E->i1) v = LLVMBuildICmp(E->B, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
    } else {
        if (LLVMTypeOf(v) == E->i1) v = LLVMBuildZExt(E->B, v, rt, "");
        v = resize(E, v, rt, t_signed(t));
    }
    LLVMBuildStore(E->B, v, reg_slot(E, o->id));
}

/* ---------------------------------------------------------------- variables and addresses */

static LLVMValueRef local_alloca(emit_ctx *E, uint32_t var) {
    if (!E->lvar[var]) {
        const ir_var *v = &E->m->vars[var];
        uint64_t size = E->var_size[var] ? E->var_size[var] : 1;
        LLVMValueRef a = LLVMBuildArrayAlloca(E->AB, E->i8, c64(E, size), "");
        unsigned al = v->align ? v->align : 8;
        if (al < 8) al = 8;
        LLVMSetAlignment(a, al);
        E->lvar[var] = as_generic(E, a);
    }
    return E->lvar[var];
}

/* Per-kernel LDS (E->kern_smem): the dynamic shared part starts after the running kernel's statics, which a
 * .func cannot know at compile time; ctx says it: smem_size - dynamic_smem_size (a constant after inlining). */
static LLVMValueRef dyn_smem_off(emit_ctx *E) {
    LLVMValueRef all = ctx_field(E, CTX_SMEM_SIZE, E->i32), dyn = ctx_field(E, CTX_DYN_SMEM, E->i32);
    return LLVMBuildZExt(E->B, LLVMBuildSub(E->B, all, dyn, ""), E->i64, "");
}

static bool per_kernel_dyn(emit_ctx *E, uint32_t var) {
    return E->kern_smem && var_space(E, var) == IR_S_SHARED && E->m->vars[var].linkage == IR_LINK_EXTERN;
}

LLVMValueRef var_addr(emit_ctx *E, uint32_t var, ir_space use_space) {
    (void)use_space;
    const ir_var *v = &E->m->vars[var];
    switch (var_space(E, var)) {
    case IR_S_GLOBAL:
    case IR_S_CONST:
        if (!E->gvar[var]) { emit_unsupported(E, "variable not available"); return LLVMConstNull(E->ptr); }
        if (v->linkage == IR_LINK_EXTERN && !LLVMGetInitializer(E->gvar[var])) {
            emit_unsupported(E, "external variable not defined in this module");
        }
        return E->gvar[var];
    case IR_S_SHARED:
        if (per_kernel_dyn(E, var)) return gep8(E, smem_base(E), dyn_smem_off(E));
        return gep8(E, smem_base(E), c64(E, E->var_off[var]));
    case IR_S_LOCAL:
        if (v->func < 0) {
            if (E->gvar[var]) return E->gvar[var];
            emit_unsupported(E, "module-scope .local variable");
            return LLVMConstNull(E->ptr);
        }
        return local_alloca(E, var);
    case IR_S_PARAM:
    case IR_S_REG: {
        if (v->func >= 0 && (uint32_t)v->func == E->fidx) {
            const ir_proto *s = &E->f->sig;
            for (uint32_t i = 0; i < s->nparam; i++)
                if (s->param[i] == var)
                    return gep8(E, E->f->is_entry ? E->kparams : E->parambuf, c64(E, E->var_off[var]));
            for (uint32_t i = 0; i < s->nret; i++)
                if (s->ret[i] == var) return gep8(E, E->retbuf, c64(E, E->var_off[var]));
        }
        return local_alloca(E, var);
    }
    default: emit_unsupported(E, "variable state space"); return LLVMConstNull(E->ptr);
    }
}

LLVMValueRef var_value(emit_ctx *E, uint32_t var, int64_t off) {
    if (per_kernel_dyn(E, var)) return LLVMBuildAdd(E->B, dyn_smem_off(E), c64(E, (uint64_t)off), "");
    if (var_space(E, var) == IR_S_SHARED && E->t->smem_in_ctx) return c64(E, E->var_off[var] + (uint64_t)off);
    LLVMValueRef p = var_addr(E, var, IR_S_NONE);
    LLVMValueRef v = LLVMBuildPtrToInt(E->B, p, E->i64, "");
    if (off) v = LLVMBuildAdd(E->B, v, c64(E, (uint64_t)off), "");
    return v;
}

/* The target's own global address space for .global accesses (target_hooks.global_as; 0: none). target_desc.as_*
 * hold the emission's numbering, where 0 = generic. */
static unsigned global_as(const emit_ctx *E) { return E->t->hooks ? E->t->hooks->global_as : 0; }

/* addr_of for the load/store/atomic itself: a .global address as the addrspace(1) pointer addr_of cast to
 * generic (the cast alone would be folded away by InstCombine before infer-address-spaces sees it) */
LLVMValueRef mem_addr(emit_ctx *E, const ir_operand *o, ir_space space) {
    LLVMValueRef p = addr_of(E, o, space);
    if (global_as(E) && LLVMIsAAddrSpaceCastInst(p) &&
        LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetOperand(p, 0))) == global_as(E)) {
        LLVMValueRef g = LLVMGetOperand(p, 0);
        LLVMInstructionEraseFromParent(p);
        return g;
    }
    return p;
}

unsigned module_var_as(const emit_ctx *E) { return E->t->module_vars_in_global_as ? E->t->as_global : 0; }

LLVMValueRef device_cstr(emit_ctx *E, const char *s, const char *name) {
    LLVMValueRef init = LLVMConstStringInContext2(E->C, s, strlen(s), 0);
    unsigned as = module_var_as(E);
    LLVMValueRef g = LLVMAddGlobalInAddressSpace(E->M, LLVMTypeOf(init), name, as);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    return as ? LLVMConstAddrSpaceCast(g, E->ptr) : g;
}

LLVMValueRef addr_of(emit_ctx *E, const ir_operand *o, ir_space space) {
    space = ir_space_base[space];
    int64_t off = o->val;
    if (o->kind == IR_OPND_VAR) { /* some instructions take `var` where an address is meant */
        return gep8(E, var_addr(E, o->id, space), c64(E, (uint64_t)off));
    }
    if (o->kind == IR_OPND_REG) off = 0;
    else if (o->kind != IR_OPND_ADDR) { emit_unsupported(E, "address operand"); return LLVMConstNull(E->ptr); }
    if (o->kind == IR_OPND_ADDR && (o->flags & IR_OPNDF_BASE_VAR)) {
        uint32_t var = o->id;
        ir_space vs = var_space(E, var);
        if (vs == IR_S_SHARED && space != IR_S_SHARED && space != IR_S_NONE) {
            emit_unsupported(E, "shared variable used in another state space");
        }
        return gep8(E, var_addr(E, var, space), c64(E, (uint64_t)off));
    }
    if (o->kind == IR_OPND_ADDR && (o->flags & IR_OPNDF_BASE_FUNC)) {
        return gep8(E, E->fn[o->id], c64(E, (uint64_t)off));
    }
    LLVMValueRef base;
    if (o->kind == IR_OPND_REG || (o->flags & IR_OPNDF_BASE_REG)) {
        ir_type rt = ir_reg_type(E->f, o->id);
        ir_operand r = {.kind = IR_OPND_REG, .id = o->id};
        base = rd(E, &r, tbits(rt) == 64 ? IR_T_U64 : IR_T_U32);
        base = LLVMBuildZExt(E->B, base, E->i64, "");
        if (LLVMTypeOf(base) != E->i64) base = zext_to(E, base, E->i64);
    } else {
        base = c64(E, 0);
        if (space == IR_S_SHARED && E->t->smem_in_ctx) return gep8(E, smem_base(E), c64(E, (uint64_t)off));
        return LLVMBuildIntToPtr(E->B, c64(E, (uint64_t)off), E->ptr, "");
    }
    if (space == IR_S_SHARED && E->t->smem_in_ctx) {
        if (E->m->address_size == 32 || tbits(ir_reg_type(E->f, o->id)) == 32)
            base = LLVMBuildAnd(E->B, base, c64(E, 0xffffffffu), "");
        return gep8(E, smem_base(E), LLVMBuildAdd(E->B, base, c64(E, (uint64_t)off), ""));
    }
    if (space == IR_S_GLOBAL && global_as(E)) {
        /* .global accesses through the global address space (on AMDGPU global = flat addresses): the cast back
         * to flat tells infer-address-spaces, which turns flat_* into global_* (smaller offsets, no LDS wait,
         * no "may be private" expansion of 64-bit atomics, scalar loads of uniform addresses) */
        LLVMValueRef g = LLVMBuildIntToPtr(E->B, base, LLVMPointerTypeInContext(E->C, global_as(E)), "");
        return LLVMBuildAddrSpaceCast(E->B, gep8(E, g, c64(E, (uint64_t)off)), E->ptr, "");
    }
    LLVMValueRef p = LLVMBuildIntToPtr(E->B, base, E->ptr, "");
    return gep8(E, p, c64(E, (uint64_t)off));
}
