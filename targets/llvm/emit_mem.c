/* emit_mem.c — ld/ldu/st in every state space (vector forms, volatile/relaxed/acquire/release), cvta,
 * isspacep, prefetch and cache hints (no-ops on the host), alloca/stacksave/stackrestore. */
#include "emit.h"

#define BLD E->B

static unsigned vec_count(const ir_ins *ins) {
    if (ir_ins_has(ins, IR_M_V2)) return 2;
    if (ir_ins_has(ins, IR_M_V4)) return 4;
    if (ir_ins_has(ins, IR_M_V8)) return 8;
    return 1;
}

static ir_type mem_type(const ir_ins *ins) { return ir_ins_type(ins, 0); }

static void order(emit_ctx *E, const ir_ins *ins, LLVMValueRef v, unsigned bytes, bool store) {
    if (ir_ins_has(ins, IR_M_VOLATILE) || ir_ins_has(ins, IR_M_MMIO)) LLVMSetVolatile(v, 1);
    bool pow2 = bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
    if (!pow2) return;
    if (ir_ins_has(ins, IR_M_RELAXED) || ir_ins_has(ins, IR_M_VOLATILE))
        LLVMSetOrdering(v, LLVMAtomicOrderingMonotonic);
    else if (ir_ins_has(ins, IR_M_ACQUIRE) && !store) LLVMSetOrdering(v, LLVMAtomicOrderingAcquire);
    else if (ir_ins_has(ins, IR_M_RELEASE) && store) LLVMSetOrdering(v, LLVMAtomicOrderingRelease);
    else return;
    /* ld.volatile is relaxed.sys; .relaxed/.acquire/.release name their scope */
    LLVMSetAtomicSyncScopeID(v, scope_id(E, ir_ins_has(ins, IR_M_VOLATILE) ? P2N_SCOPE_SYS : ins_scope(ins, P2N_SCOPE_SYS)));
}

static ir_type int_type_bytes(unsigned n) {
    return n == 1 ? IR_T_B8 : n == 2 ? IR_T_B16 : n == 4 ? IR_T_B32 : n == 8 ? IR_T_B64 : IR_T_B128;
}

/* whether the generic address a (i64) lies in the block's shared window (isspacep.shared) */
LLVMValueRef addr_in_shared(emit_ctx *E, LLVMValueRef a) {
    LLVMValueRef base = LLVMBuildPtrToInt(BLD, smem_base(E), E->i64, "");
    LLVMValueRef size = zext_to(E, ctx_field(E, CTX_SMEM_SIZE, E->i32), E->i64);
    return LLVMBuildICmp(BLD, LLVMIntULT, LLVMBuildSub(BLD, a, base, ""), size, "");
}

bool emit_mem(emit_ctx *E, const ir_ins *ins) {
    const ir_operand *o = ins->ops;
    switch ((ir_opcode)ins->op) {
    case IR_OP_LD:
    case IR_OP_LDU: {
        ir_type t = mem_type(ins);
        if (t == IR_T_NONE) return false;
        unsigned n = vec_count(ins), eb = (tbits(t) + 7) / 8;
        if (tbits(t) < 8 || (tbits(t) % 8)) return false;
        ir_space sp = ir_ins_space(ins);
        LLVMValueRef p = mem_addr(E, &o[1], sp);
        LLVMTypeRef lt = ty_of(E, t);
        if (n == 1 && tbits(t) == 128 && E->t->split_b128_memory) {
            /* SPIR-V has no 128-bit integers: two 64-bit halves, which instcombine folds into the register's uses
             * (st.b128 and the b128 atomics split the value into the same halves) */
            LLVMValueRef lo = LLVMBuildLoad2(BLD, E->i64, p, ""), hi = LLVMBuildLoad2(BLD, E->i64, gep8(E, p, c64(E, 8)), "");
            LLVMSetAlignment(lo, 16);
            LLVMSetAlignment(hi, 8);
            order(E, ins, lo, 16, false); /* volatile only */
            order(E, ins, hi, 16, false);
            wr(E, &o[0], t, LLVMBuildOr(BLD, zext_to(E, lo, E->i128), LLVMBuildShl(BLD, zext_to(E, hi, E->i128), ci(E->i128, 64), ""), ""));
            return true;
        }
        if (n == 1) {
            LLVMValueRef v = LLVMBuildLoad2(BLD, lt, p, "");
            LLVMSetAlignment(v, eb);
            order(E, ins, v, eb, false);
            wr(E, &o[0], t, v);
            return true;
        }
        if (o[0].kind != IR_OPND_VEC || o[0].aux != n) return false;
        const ir_operand *el = ir_elems(&o[0]);
        for (unsigned k = 0; k < n; k++) {
            if (el[k].kind == IR_OPND_SINK) continue;
            LLVMValueRef v = LLVMBuildLoad2(BLD, lt, gep8(E, p, c64(E, (uint64_t)k * eb)), "");
            LLVMSetAlignment(v, eb);
            order(E, ins, v, eb, false);
            wr(E, &el[k], t, v);
        }
        return true;
    }
    case IR_OP_ST: {
        ir_type t = mem_type(ins);
        if (t == IR_T_NONE) return false;
        unsigned n = vec_count(ins), eb = (tbits(t) + 7) / 8;
        if (tbits(t) < 8 || (tbits(t) % 8)) return false;
        LLVMValueRef p = mem_addr(E, &o[0], ir_ins_space(ins));
        const ir_operand *vals = &o[1];
        unsigned nv = n;
        if (n > 1) {
            if (o[1].kind != IR_OPND_VEC || o[1].aux != n) return false;
            vals = ir_elems(&o[1]);
        }
        for (unsigned k = 0; k < nv; k++) {
            const ir_operand *src = &vals[k];
            LLVMValueRef v;
            if (t_float(t) && src->kind == IR_OPND_REG && tbits(ir_reg_type(E->f, src->id)) > tbits(t)) {
                /* NVIDIA converts a wider integer register to the floating-point store type */
                ir_type rt = int_type_bytes(tbits(ir_reg_type(E->f, src->id)) / 8);
                v = LLVMBuildUIToFP(BLD, rd(E, src, rt), ty_of(E, t), "");
            } else v = rd(E, src, t);
            if (tbits(t) == 128 && E->t->split_b128_memory) { /* two 64-bit halves, as ld.b128 above */
                LLVMValueRef q = gep8(E, p, c64(E, (uint64_t)k * eb));
                LLVMValueRef lo = LLVMBuildStore(BLD, LLVMBuildTrunc(BLD, v, E->i64, ""), q);
                LLVMValueRef hi = LLVMBuildStore(BLD, LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, v, ci(E->i128, 64), ""), E->i64, ""),
                                                 gep8(E, q, c64(E, 8)));
                LLVMSetAlignment(lo, 16);
                LLVMSetAlignment(hi, 8);
                order(E, ins, lo, 16, true);
                order(E, ins, hi, 16, true);
                continue;
            }
            LLVMValueRef s = LLVMBuildStore(BLD, v, gep8(E, p, c64(E, (uint64_t)k * eb)));
            LLVMSetAlignment(s, eb);
            order(E, ins, s, eb, true);
        }
        return true;
    }
    case IR_OP_CVTA: {
        ir_type t = mem_type(ins);
        ir_space sp = ir_space_base[ir_ins_space(ins)];
        bool to = ir_ins_has(ins, IR_M_TO);
        LLVMValueRef a = zext_to(E, rd(E, &o[1], tbits(t) == 32 ? IR_T_U32 : IR_T_U64), E->i64);
        if (sp == IR_S_SHARED && E->t->smem_in_ctx) {
            LLVMValueRef base = LLVMBuildPtrToInt(BLD, smem_base(E), E->i64, "");
            a = to ? LLVMBuildSub(BLD, a, base, "") : LLVMBuildAdd(BLD, a, base, "");
        }
        wr(E, &o[0], t, resize(E, a, ty_of(E, t), false));
        return true;
    }
    case IR_OP_ISSPACEP: {
        ir_space sp = ir_space_base[ir_ins_space(ins)];
        LLVMValueRef a = rd(E, &o[1], IR_T_U64), r;
        LLVMValueRef in_sh = addr_in_shared(E, a);
        /* .const: inside one of the module's constant variables */
        LLVMValueRef in_const = ci(E->i1, 0);
        if (sp == IR_S_CONST || sp == IR_S_GLOBAL)
            for (uint32_t v = 0; v < E->m->nvars; v++) {
                if (var_space(E, v) != IR_S_CONST || !E->gvar || !E->gvar[v]) continue;
                LLVMValueRef lo = LLVMBuildPtrToInt(BLD, E->gvar[v], E->i64, "");
                uint64_t n = E->var_size ? E->var_size[v] : 0;
                LLVMValueRef in = LLVMBuildICmp(BLD, LLVMIntULT, LLVMBuildSub(BLD, a, lo, ""), c64(E, n ? n : 1), "");
                in_const = LLVMBuildOr(BLD, in_const, in, "");
            }
        LLVMValueRef in_local = ci(E->i1, 0);
        if ((sp == IR_S_LOCAL || sp == IR_S_GLOBAL) && E->t->smem_in_ctx) {
            LLVMValueRef args[2] = {E->ctx, a};
            in_local = LLVMBuildICmp(BLD, LLVMIntNE, rt_call(E, RT_IS_LOCAL, E->i32, args, 2), c32(E, 0), "");
        }
        if (sp == IR_S_SHARED) r = in_sh;
        else if (sp == IR_S_GLOBAL)
            r = LLVMBuildNot(BLD, LLVMBuildOr(BLD, in_sh, LLVMBuildOr(BLD, in_const, in_local, ""), ""), "");
        else if (sp == IR_S_CONST) r = in_const;
        else if (sp == IR_S_LOCAL) r = in_local;
        else if (sp == IR_S_PARAM && E->f->is_entry && E->kparams) {
            /* .param: inside the kernel's parameter block (the generic address of a kernel parameter, cvta.param;
             * PTX ISA 8.x "isspacep": kernel parameters have generic addresses from sm_70). Such an address is
             * also in the global window (isspacep.global true above), as on the H100 recording of
             * mem/isspacep_param. Device functions' parameters have no generic address here: false. */
            uint64_t end = 0;
            for (uint32_t i = 0; i < E->f->sig.nparam; i++) {
                uint32_t v = E->f->sig.param[i];
                if (E->var_off[v] + E->var_size[v] > end) end = E->var_off[v] + E->var_size[v];
            }
            LLVMValueRef lo = LLVMBuildPtrToInt(BLD, E->kparams, E->i64, "");
            r = LLVMBuildICmp(BLD, LLVMIntULT, LLVMBuildSub(BLD, a, lo, ""), c64(E, end ? end : 1), "");
        } else r = ci(E->i1, 0);
        wr(E, &o[0], IR_T_PRED, r);
        return true;
    }
    case IR_OP_PREFETCH:
    case IR_OP_PREFETCHU:
    case IR_OP_APPLYPRIORITY:
    case IR_OP_DISCARD: return true;
    case IR_OP_CREATEPOLICY: wr(E, &o[0], IR_T_B64, c64(E, 0)); return true;
    case IR_OP_ALLOCA: {
        LLVMValueRef size = rd(E, &o[1], IR_T_U64);
        LLVMValueRef a = LLVMBuildArrayAlloca(BLD, E->i8, size, "");
        unsigned al = ins->nops > 2 && o[2].kind == IR_OPND_IMM ? (unsigned)o[2].val : 8;
        LLVMSetAlignment(a, al < 8 ? 8 : al);
        wr(E, &o[0], mem_type(ins), resize(E, LLVMBuildPtrToInt(BLD, a, E->i64, ""), ty_of(E, mem_type(ins)), false));
        return true;
    }
    case IR_OP_STACKSAVE: {
        LLVMValueRef v = intrin(E, "llvm.stacksave", &E->ptr, 1, NULL, 0);
        wr(E, &o[0], mem_type(ins), resize(E, LLVMBuildPtrToInt(BLD, v, E->i64, ""), ty_of(E, mem_type(ins)), false));
        return true;
    }
    case IR_OP_STACKRESTORE: {
        LLVMValueRef v = LLVMBuildIntToPtr(BLD, rd(E, &o[0], IR_T_U64), E->ptr, "");
        intrin(E, "llvm.stackrestore", &E->ptr, 1, &v, 1);
        return true;
    }
    case IR_OP_CP_ASYNC: {
        /* copies complete immediately on the CPU: cp.async is a synchronous copy with zero fill */
        if (ins->nops < 3 || o[2].kind != IR_OPND_IMM) return false;
        unsigned n = (unsigned)o[2].val;
        if (n != 4 && n != 8 && n != 16) return false;
        LLVMValueRef dst = addr_of(E, &o[0], IR_S_SHARED), src = addr_of(E, &o[1], IR_S_GLOBAL);
        LLVMTypeRef vt = LLVMVectorType(E->i8, n);
        LLVMValueRef v;
        if (ins->nops > 3 && !(ins->nops == 4 && ir_ins_has(ins, IR_M_L2_CACHE_HINT))) {
            LLVMValueRef mask;
            if (ir_reg_type(E->f, o[3].id) == IR_T_PRED && o[3].kind == IR_OPND_REG) {
                LLVMValueRef take = LLVMBuildNot(BLD, rd(E, &o[3], IR_T_PRED), "");
                mask = LLVMGetUndef(LLVMVectorType(E->i1, n));
                for (unsigned k = 0; k < n; k++) mask = LLVMBuildInsertElement(BLD, mask, take, c32(E, k), "");
            } else {
                LLVMValueRef ss = rd(E, &o[3], IR_T_U32);
                mask = LLVMGetUndef(LLVMVectorType(E->i1, n));
                for (unsigned k = 0; k < n; k++)
                    mask = LLVMBuildInsertElement(BLD, mask, LLVMBuildICmp(BLD, LLVMIntULT, c32(E, k), ss, ""), c32(E, k), "");
            }
            if (E->t->no_masked_load) {
                /* LLVM 22's SPIR-V back end aborts on llvm.masked.load ("incompatible result and operand types in
                 * a bitcast": its scalarisation bitcasts the <N x i1> mask to iN). Byte by byte instead, never
                 * reading past src-size: a byte not taken is loaded from dst (valid, the value is dropped). */
                v = LLVMConstNull(vt);
                for (unsigned k = 0; k < n; k++) {
                    LLVMValueRef take = LLVMBuildExtractElement(BLD, mask, c32(E, k), "");
                    LLVMValueRef idx = c64(E, k);
                    LLVMValueRef ps = LLVMBuildGEP2(BLD, E->i8, src, &idx, 1, "");
                    LLVMValueRef pd = LLVMBuildGEP2(BLD, E->i8, dst, &idx, 1, "");
                    LLVMValueRef b = LLVMBuildLoad2(BLD, E->i8, LLVMBuildSelect(BLD, take, ps, pd, ""), "");
                    b = LLVMBuildSelect(BLD, take, b, LLVMConstNull(E->i8), "");
                    v = LLVMBuildInsertElement(BLD, v, b, c32(E, k), "");
                }
            } else {
                LLVMTypeRef tys[2] = {vt, E->ptr};
                LLVMValueRef a3[3] = {src, mask, LLVMConstNull(vt)};
                v = intrin(E, "llvm.masked.load", tys, 2, a3, 3);
                LLVMAddCallSiteAttribute(v, 1, LLVMCreateEnumAttribute(E->C, LLVMGetEnumAttributeKindForName("align", 5), 1));
            }
        } else {
            v = LLVMBuildLoad2(BLD, vt, src, "");
            LLVMSetAlignment(v, n);
        }
        LLVMValueRef st = LLVMBuildStore(BLD, v, dst);
        LLVMSetAlignment(st, n);
        return true;
    }
    case IR_OP_CP_ASYNC_COMMIT_GROUP:
    case IR_OP_CP_ASYNC_WAIT_GROUP:
    case IR_OP_CP_ASYNC_WAIT_ALL: return true;
    default: return false;
    }
}
