/* emit_ctrl.c — bra, brx.idx, call (PTX parameter ABI as byte buffers), ret, exit, trap, brkpt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "host_abi.h"

bool emit_is_runtime_func(emit_ctx *E, uint32_t fi);

static LLVMBasicBlockRef label_bb(emit_ctx *E, const ir_operand *o) {
    if (o->kind != IR_OPND_LABEL || o->id >= E->f->nlabels || E->label_block[o->id] < 0) return NULL;
    return E->bbs[E->label_block[o->id]];
}

/* loop back-edge: let other threads of the block run once the yield budget is spent (host_abi.h). The budget
 * is the function's local copy E->ybud; in a thread-loop body only the fiber entry's call counts (tl_fiber),
 * so the check folds away in the block entry, where no thread can wait for another. */
static LLVMBasicBlockRef backedge(emit_ctx *E, LLVMBasicBlockRef target) {
    if (!E->t->rt_table || !E->ybud) return target;
    note_flags(E, P2N_KERNEL_MAY_SPIN);
    LLVMBasicBlockRef save = LLVMGetInsertBlock(E->B);
    LLVMBasicBlockRef be = new_bb(E, "backedge"), y = new_bb(E, "yield");
    LLVMPositionBuilderAtEnd(E->B, be);
    if (E->tl_fiber) {
        LLVMBasicBlockRef count = new_bb(E, "count");
        LLVMBuildCondBr(E->B, E->tl_fiber, count, target);
        LLVMPositionBuilderAtEnd(E->B, count);
    }
    LLVMValueRef b = LLVMBuildSub(E->B, LLVMBuildLoad2(E->B, E->i32, E->ybud, ""), c32(E, 1), "");
    LLVMBuildStore(E->B, b, E->ybud);
    LLVMValueRef c = LLVMBuildICmp(E->B, LLVMIntSLE, b, c32(E, 0), "");
    LLVMBuildCondBr(E->B, c, y, target);
    LLVMPositionBuilderAtEnd(E->B, y);
    LLVMValueRef a[1] = {E->ctx};
    rt_call(E, RT_YIELD, E->vd, a, 1);
    LLVMBuildStore(E->B, ctx_field(E, CTX_YIELD, E->i32), E->ybud); /* rt->yield refilled ctx's budget */
    LLVMBuildBr(E->B, target);
    LLVMPositionBuilderAtEnd(E->B, save);
    return be;
}

static LLVMBasicBlockRef branch_to(emit_ctx *E, const ir_operand *o) {
    LLVMBasicBlockRef bb = label_bb(E, o);
    if (!bb) return NULL;
    if ((uint32_t)E->label_block[o->id] <= E->cur_block) bb = backedge(E, bb);
    return bb;
}

static LLVMBasicBlockRef fallthrough(emit_ctx *E) {
    if (E->cur_block + 1 < E->f->nblocks) return E->bbs[E->cur_block + 1];
    LLVMBasicBlockRef save = LLVMGetInsertBlock(E->B), r = new_bb(E, "ret");
    LLVMPositionBuilderAtEnd(E->B, r);
    LLVMBuildRetVoid(E->B);
    LLVMPositionBuilderAtEnd(E->B, save);
    return r;
}

static uint64_t align_of_var(const ir_var *v) {
    if (v->align) return v->align;
    uint64_t b = (tbits((ir_type)v->type) + 7) / 8;
    return b ? b * (v->vec ? v->vec : 1) : 1;
}

/* byte layout of an argument or return list: formals when known, else the actual operands */
static uint64_t layout(emit_ctx *E, const uint32_t *formals, uint32_t nf, const ir_operand *actual, unsigned na,
                       uint64_t *off, uint64_t *size) {
    uint64_t at = 0;
    for (unsigned i = 0; i < na; i++) {
        uint64_t al = 1, sz = 0;
        if (i < nf) {
            const ir_var *v = &E->m->vars[formals[i]];
            al = align_of_var(v);
            sz = E->var_size[formals[i]];
        } else if (actual[i].kind == IR_OPND_VAR) {
            al = align_of_var(&E->m->vars[actual[i].id]);
            sz = E->var_size[actual[i].id];
        } else if (actual[i].kind == IR_OPND_REG) {
            sz = (tbits(ir_reg_type(E->f, actual[i].id)) + 7) / 8;
            al = sz;
        } else {
            sz = al = 4;
        }
        if (!al) al = 1;
        at = (at + al - 1) / al * al;
        off[i] = at;
        size[i] = sz;
        at += sz;
    }
    return at;
}

static LLVMValueRef buf_alloca(emit_ctx *E, uint64_t size) {
    LLVMValueRef a = LLVMBuildArrayAlloca(E->AB, E->i8, c64(E, size ? size : 8), "");
    LLVMSetAlignment(a, 16);
    return as_generic(E, a);
}

static ir_type type_of_bytes(uint64_t n) {
    return n == 1 ? IR_T_B8 : n == 2 ? IR_T_B16 : n == 4 ? IR_T_B32 : n == 8 ? IR_T_B64 : IR_T_B128;
}

static bool emit_call(emit_ctx *E, const ir_ins *ins) {
    unsigned i = 0;
    const ir_operand *rets = NULL, *args = NULL, *target, *proto = NULL;
    if (ins->ops[0].kind == IR_OPND_LIST) rets = &ins->ops[i++];
    target = &ins->ops[i++];
    if (i < ins->nops && ins->ops[i].kind == IR_OPND_LIST) args = &ins->ops[i++];
    if (i < ins->nops) proto = &ins->ops[i];
    const uint32_t *fp = NULL, *fr = NULL;
    uint32_t nfp = 0, nfr = 0;
    LLVMValueRef callee;
    if (target->kind == IR_OPND_FUNC) {
        const ir_func *cf = &E->m->funcs[target->id];
        if (!emit_is_runtime_func(E, target->id)) {
            char why[320];
            const char *name = ir_str(E->m, cf->name);
            if (ir_is_device_runtime(name))
                snprintf(why, sizeof why, "CUDA dynamic parallelism (a kernel launching kernels: '%s' of CUDA's "
                         "device runtime) is not supported", name);
            else
                snprintf(why, sizeof why, "call to '%s', an external function no module defines", name);
            emit_unsupported(E, why);
            return true;
        }
        if (cf->is_entry) return false;
        fp = cf->sig.param; nfp = cf->sig.nparam;
        fr = cf->sig.ret; nfr = cf->sig.nret;
        callee = E->fn[target->id];
    } else if (target->kind == IR_OPND_REG) {
        if (proto && proto->kind == IR_OPND_LABEL && E->label_proto[proto->id] >= 0) {
            const ir_proto *p = &E->f->protos[E->label_proto[proto->id]];
            fp = p->param; nfp = p->nparam;
            fr = p->ret; nfr = p->nret;
        }
        LLVMValueRef a = rd(E, target, IR_T_U64);
        callee = LLVMBuildIntToPtr(E->B, a, E->ptr, "");
    } else return false;
    unsigned na = args ? args->aux : 0, nr = rets ? rets->aux : 0;
    const ir_operand *av = args ? ir_elems(args) : NULL, *rv = rets ? ir_elems(rets) : NULL;
    uint64_t aoff[64], asz[64], roff[64], rsz[64];
    if (na > 64 || nr > 64) return false;
    uint64_t abytes = layout(E, fp, nfp, av, na, aoff, asz);
    uint64_t rbytes = layout(E, fr, nfr, rv, nr, roff, rsz);
    LLVMValueRef abuf = buf_alloca(E, abytes), rbuf = buf_alloca(E, rbytes);
    for (unsigned k = 0; k < na; k++) {
        LLVMValueRef dst = gep8(E, abuf, c64(E, aoff[k]));
        if (av[k].kind == IR_OPND_VAR && var_space(E, av[k].id) == IR_S_PARAM) {
            uint64_t n = E->var_size[av[k].id] < asz[k] ? E->var_size[av[k].id] : asz[k];
            LLVMBuildMemCpy(E->B, dst, 1, var_addr(E, av[k].id, IR_S_PARAM), 1, c64(E, n));
        } else {
            ir_type t = type_of_bytes(asz[k]);
            LLVMBuildStore(E->B, rd(E, &av[k], t), dst);
        }
    }
    LLVMValueRef cargs[3] = {E->ctx, rbuf, abuf};
    if (E->t->hooks && E->t->hooks->before_call) E->t->hooks->before_call(E);
    /* the callee starts from ctx's budget and may yield (which refills it): hand ours over and take it back */
    if (E->ybud) LLVMBuildStore(E->B, LLVMBuildLoad2(E->B, E->i32, E->ybud, ""), gep8(E, E->ctx, c64(E, CTX_YIELD)));
    LLVMBuildCall2(E->B, E->fn_ty, callee, cargs, 3, "");
    if (E->ybud) LLVMBuildStore(E->B, ctx_field(E, CTX_YIELD, E->i32), E->ybud);
    for (unsigned k = 0; k < nr; k++) {
        LLVMValueRef src = gep8(E, rbuf, c64(E, roff[k]));
        if (rv[k].kind == IR_OPND_VAR && var_space(E, rv[k].id) == IR_S_PARAM) {
            uint64_t n = E->var_size[rv[k].id] < rsz[k] ? E->var_size[rv[k].id] : rsz[k];
            LLVMBuildMemCpy(E->B, var_addr(E, rv[k].id, IR_S_PARAM), 1, src, 1, c64(E, n));
        } else if (rv[k].kind == IR_OPND_REG) {
            ir_type t = type_of_bytes(rsz[k]);
            wr(E, &rv[k], t, LLVMBuildLoad2(E->B, ty_of(E, t), src, ""));
        }
    }
    return true;
}

bool emit_ctrl(emit_ctx *E, const ir_ins *ins) {
    switch ((ir_opcode)ins->op) {
    case IR_OP_BRA: {
        LLVMBasicBlockRef t = branch_to(E, &ins->ops[0]);
        if (!t) return false;
        if (ins->guard) {
            ir_operand g = {.kind = IR_OPND_REG, .id = ins->guard - 1};
            LLVMValueRef c = rd(E, &g, IR_T_PRED);
            LLVMBasicBlockRef ft = fallthrough(E);
            if (ins->guard_neg) LLVMBuildCondBr(E->B, c, ft, t);
            else LLVMBuildCondBr(E->B, c, t, ft);
        } else LLVMBuildBr(E->B, t);
        return true;
    }
    case IR_OP_BRX: {
        const ir_operand *tl = &ins->ops[1];
        if (tl->kind != IR_OPND_LABEL || E->label_tgts[tl->id] < 0) return false;
        int32_t pos = E->label_tgts[tl->id];
        const ir_ins *bt = &E->f->blocks[pos >> 20].ins[pos & 0xfffff];
        LLVMValueRef idx = rd(E, &ins->ops[0], IR_T_U32);
        LLVMBasicBlockRef dflt = fallthrough(E);
        LLVMValueRef sw = LLVMBuildSwitch(E->B, idx, dflt, bt->nops - 1);
        for (unsigned k = 1; k < bt->nops; k++) {
            LLVMBasicBlockRef b = branch_to(E, &bt->ops[k]);
            if (!b) return false;
            LLVMAddCase(sw, c32(E, k - 1), b);
        }
        return true;
    }
    case IR_OP_CALL: return emit_call(E, ins);
    case IR_OP_RET: LLVMBuildRetVoid(E->B); return true;
    case IR_OP_EXIT: {
        if (E->tl_fiber) { /* a thread-loop kernel body: the thread ends by returning (either entry) */
            LLVMBuildRetVoid(E->B);
            return true;
        }
        LLVMValueRef a[1] = {E->ctx};
        rt_call(E, RT_EXIT_THREAD, E->vd, a, 1);
        LLVMBuildUnreachable(E->B);
        return true;
    }
    case IR_OP_TRAP:
    case IR_OP_BRKPT: {
        LLVMValueRef a[1] = {E->ctx};
        rt_call(E, RT_TRAP, E->vd, a, 1);
        LLVMBuildUnreachable(E->B);
        return true;
    }
    default: return false;
    }
}
