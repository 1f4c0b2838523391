/* emit_module.c — IR module -> LLVM module: variables, layouts, functions, bodies, the host descriptor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "emit_texture.h"
#include "emit_atom.h"
#include "emit_line_info.h"
#include "../ptx2native.h"
#include "host_abi.h"
#include "support.h"

/* ---------------------------------------------------------------- sizes and layouts */

static uint64_t elem_bytes(const ir_var *v) {
    uint64_t b = (tbits((ir_type)v->type) + 7) / 8;
    if (!b) b = 1;
    return b * (v->vec ? v->vec : 1);
}

static uint64_t var_bytes(const ir_var *v) {
    uint64_t n = elem_bytes(v);
    uint64_t count = 1;
    for (unsigned i = 0; i < v->ndims; i++) {
        if (v->dims[i]) count *= v->dims[i];
        else if (i == 0 && v->unsized_first) {
            uint64_t leaves = 0, inner = 1;
            for (uint32_t k = 0; k < v->ninit; k++)
                if (v->init[k].kind != IR_INIT_OPEN && v->init[k].kind != IR_INIT_CLOSE) leaves++;
            for (unsigned j = 1; j < v->ndims; j++) inner *= v->dims[j] ? v->dims[j] : 1;
            uint64_t vecn = v->vec ? v->vec : 1;
            count *= (leaves / vecn + inner - 1) / inner;
        }
    }
    return n * count;
}

static uint64_t var_align(const ir_var *v) {
    if (v->align) return v->align;
    uint64_t b = (tbits((ir_type)v->type) + 7) / 8;
    return b ? b * (v->vec ? v->vec : 1) : 1;
}


static uint64_t layout_params(emit_ctx *E, const uint32_t *vars, uint32_t n) {
    uint64_t off = 0;
    for (uint32_t i = 0; i < n; i++) {
        const ir_var *v = &E->m->vars[vars[i]];
        off = p2n_align_up(off, var_align(v));
        E->var_off[vars[i]] = off;
        off += E->var_size[vars[i]];
    }
    return off;
}

/* ---------------------------------------------------------------- global initialisers */

typedef struct reloc { uint64_t off; LLVMValueRef val; } reloc;

static void put_le(uint8_t *p, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static LLVMValueRef build_init(emit_ctx *E, uint32_t vid, uint64_t size) {
    const ir_var *v = &E->m->vars[vid];
    uint8_t *bytes = calloc(size ? size : 1, 1);
    reloc *rel = calloc(v->ninit + 1, sizeof *rel);
    unsigned nrel = 0;
    uint64_t eb = (tbits((ir_type)v->type) + 7) / 8, k = 0;
    if (!eb) eb = 1;
    ir_type et = (ir_type)v->type;
    bool ok = true;
    for (uint32_t i = 0; i < v->ninit && ok; i++) {
        const ir_init *in = &v->init[i];
        if (in->kind == IR_INIT_OPEN || in->kind == IR_INIT_CLOSE) continue;
        uint64_t off = k++ * eb;
        if (off + eb > size) break;
        switch ((ir_init_kind)in->kind) {
        case IR_INIT_INT:
            if (et == IR_T_F32) { float f = (float)in->val; uint32_t b; memcpy(&b, &f, 4); put_le(bytes + off, b, 4); }
            else if (et == IR_T_F64) { double d = (double)in->val; uint64_t b; memcpy(&b, &d, 8); put_le(bytes + off, b, 8); }
            else put_le(bytes + off, (uint64_t)in->val, (unsigned)eb);
            break;
        case IR_INIT_F32:
            if (eb == 8) {
                float f; uint32_t b = (uint32_t)in->val; memcpy(&f, &b, 4);
                double d = f; uint64_t db; memcpy(&db, &d, 8); put_le(bytes + off, db, 8);
            } else put_le(bytes + off, (uint64_t)in->val, (unsigned)eb);
            break;
        case IR_INIT_F64:
            if (eb == 4) {
                double d; uint64_t b = (uint64_t)in->val; memcpy(&d, &b, 8);
                float f = (float)d; uint32_t fb; memcpy(&fb, &f, 4); put_le(bytes + off, fb, 4);
            } else put_le(bytes + off, (uint64_t)in->val, (unsigned)eb);
            break;
        case IR_INIT_VAR:
        case IR_INIT_GENERIC:
        case IR_INIT_FUNC:
        case IR_INIT_MASK: {
            uint64_t width = eb;
            if (in->kind == IR_INIT_MASK) {
                if (in->mask != 0xff) break; /* other bytes of a pointer written as 8 masked bytes */
                width = 8;
            }
            if (width != 8) { ok = false; break; }
            LLVMValueRef target;
            if (in->kind == IR_INIT_FUNC) target = E->fn[in->sym];
            else {
                ir_space s = var_space(E, in->sym);
                if (s == IR_S_SHARED && in->kind == IR_INIT_VAR && !in->generic) {
                    /* per-kernel LDS: the dynamic part's offset differs per kernel (no constant for it) */
                    if (E->kern_smem && E->m->vars[in->sym].linkage == IR_LINK_EXTERN) { ok = false; break; }
                    put_le(bytes + off, E->var_off[in->sym] + (uint64_t)in->val, 8);
                    break;
                }
                if (!E->gvar[in->sym]) { ok = false; break; }
                target = E->gvar[in->sym];
                if (in->val) {
                    LLVMValueRef o = c64(E, (uint64_t)in->val);
                    target = LLVMConstGEP2(E->i8, target, &o, 1);
                }
            }
            rel[nrel].off = off;
            rel[nrel++].val = target;
            break;
        }
        default: break;
        }
    }
    LLVMValueRef c = NULL;
    if (!ok) {
        diag_error(E->d, v->line, v->col, "unsupported PTX initializer of '%s' for target %s (an address that is not a "
                   "whole 64-bit global address)", ir_str(E->m, v->name), E->t->name);
        E->failed++;
    } else if (!nrel) {
        c = LLVMConstStringInContext2(E->C, (const char *)bytes, size, 1);
    } else {
        LLVMValueRef *parts = calloc(2 * nrel + 1, sizeof *parts);
        unsigned np = 0;
        uint64_t at = 0;
        for (unsigned r = 0; r < nrel; r++) {
            if (rel[r].off < at) continue;
            if (rel[r].off > at) parts[np++] = LLVMConstStringInContext2(E->C, (const char *)bytes + at, rel[r].off - at, 1);
            parts[np++] = rel[r].val;
            at = rel[r].off + 8;
        }
        if (at < size) parts[np++] = LLVMConstStringInContext2(E->C, (const char *)bytes + at, size - at, 1);
        c = LLVMConstStructInContext(E->C, parts, np, 1);
        free(parts);
    }
    free(bytes);
    free(rel);
    return c;
}

/* ---------------------------------------------------------------- bodies */

static bool dispatch(emit_ctx *E, const ir_ins *ins) {
    switch ((ir_opcode)ins->op) {
    case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_MAD: case IR_OP_DIV: case IR_OP_ABS:
    case IR_OP_NEG: case IR_OP_MIN: case IR_OP_MAX: case IR_OP_RCP: case IR_OP_SQRT: case IR_OP_RSQRT:
    case IR_OP_SIN: case IR_OP_COS: case IR_OP_LG2: case IR_OP_EX2: case IR_OP_TANH: case IR_OP_COPYSIGN:
    case IR_OP_TESTP: case IR_OP_FMA: case IR_OP_REM: {
        ir_type t = ir_ins_type(ins, 0);
        if (t == IR_T_F32 || t == IR_T_F64 || t == IR_T_F16 || t == IR_T_BF16 || t == IR_T_F16X2 ||
            t == IR_T_BF16X2 || t == IR_T_F32X2 || ins->op == IR_OP_FMA || ins->op == IR_OP_RCP || ins->op == IR_OP_SQRT ||
            ins->op == IR_OP_RSQRT || ins->op == IR_OP_SIN || ins->op == IR_OP_COS || ins->op == IR_OP_LG2 ||
            ins->op == IR_OP_EX2 || ins->op == IR_OP_TANH || ins->op == IR_OP_COPYSIGN || ins->op == IR_OP_TESTP)
            return emit_float(E, ins);
        return emit_int(E, ins);
    }
    case IR_OP_CVT: case IR_OP_CVT_PACK: return emit_cvt(E, ins);
    case IR_OP_LD: case IR_OP_LDU: case IR_OP_ST: case IR_OP_CVTA: case IR_OP_ISSPACEP: case IR_OP_PREFETCH:
    case IR_OP_PREFETCHU: case IR_OP_ALLOCA: case IR_OP_STACKSAVE: case IR_OP_STACKRESTORE:
    case IR_OP_APPLYPRIORITY: case IR_OP_DISCARD: case IR_OP_CREATEPOLICY: case IR_OP_CP_ASYNC:
    case IR_OP_CP_ASYNC_COMMIT_GROUP: case IR_OP_CP_ASYNC_WAIT_GROUP: case IR_OP_CP_ASYNC_WAIT_ALL:
        return emit_mem(E, ins);
    case IR_OP_BRA: case IR_OP_BRX: case IR_OP_CALL: case IR_OP_RET: case IR_OP_EXIT: case IR_OP_TRAP:
    case IR_OP_BRKPT:
        return emit_ctrl(E, ins);
    case IR_OP_BAR: case IR_OP_BARRIER: case IR_OP_BAR_WARP_SYNC: case IR_OP_MEMBAR: case IR_OP_FENCE:
    case IR_OP_ATOM: case IR_OP_RED: case IR_OP_VOTE: case IR_OP_MATCH: case IR_OP_ACTIVEMASK:
    case IR_OP_ELECT: case IR_OP_SHFL: case IR_OP_NANOSLEEP: case IR_OP_PMEVENT: case IR_OP_GRIDDEPCONTROL:
    case IR_OP_SETMAXNREG: case IR_OP_BARRIER_CLUSTER: case IR_OP_CP_ASYNC_MBARRIER_ARRIVE:
    case IR_OP_MBARRIER_INIT: case IR_OP_MBARRIER_INVAL: case IR_OP_MBARRIER_EXPECT_TX: case IR_OP_MBARRIER_COMPLETE_TX:
    case IR_OP_MBARRIER_ARRIVE: case IR_OP_MBARRIER_ARRIVE_DROP: case IR_OP_MBARRIER_TEST_WAIT: case IR_OP_MBARRIER_TRY_WAIT:
    case IR_OP_MBARRIER_PENDING_COUNT:
        return emit_sync(E, ins);
    case IR_OP_REDUX: return ir_ins_type(ins, 0) == IR_T_F32 ? emit_redux_f32(E, ins) : emit_sync(E, ins);
    case IR_OP_CLUSTERLAUNCHCONTROL_TRY_CANCEL: case IR_OP_CLUSTERLAUNCHCONTROL_QUERY_CANCEL: return emit_clc(E, ins);
    case IR_OP_MAPA: case IR_OP_GETCTARANK: case IR_OP_CP_ASYNC_BULK: case IR_OP_CP_REDUCE_ASYNC_BULK:
    case IR_OP_CP_ASYNC_BULK_PREFETCH: case IR_OP_CP_ASYNC_BULK_COMMIT_GROUP: case IR_OP_CP_ASYNC_BULK_WAIT_GROUP:
    case IR_OP_ST_ASYNC: case IR_OP_RED_ASYNC:
        return emit_cluster(E, ins);
    case IR_OP_MULTIMEM_LD_REDUCE: case IR_OP_MULTIMEM_ST: case IR_OP_MULTIMEM_RED:
        return emit_multimem(E, ins); /* emit_multimem.c */
    case IR_OP_ST_BULK: return emit_st_bulk(E, ins); /* emit_st_bulk.c */
    case IR_OP_MMA: case IR_OP_LDMATRIX: case IR_OP_STMATRIX: case IR_OP_WMMA_LOAD: case IR_OP_WMMA_STORE:
    case IR_OP_WMMA_MMA: case IR_OP_MOVMATRIX:
        return emit_matrix(E, ins);
    case IR_OP_VADD: case IR_OP_VSUB: case IR_OP_VABSDIFF: case IR_OP_VMIN: case IR_OP_VMAX: case IR_OP_VSHL:
    case IR_OP_VSHR: case IR_OP_VMAD: case IR_OP_VSET: case IR_OP_VADD2: case IR_OP_VSUB2: case IR_OP_VAVRG2:
    case IR_OP_VABSDIFF2: case IR_OP_VMIN2: case IR_OP_VMAX2: case IR_OP_VSET2: case IR_OP_VADD4: case IR_OP_VSUB4:
    case IR_OP_VAVRG4: case IR_OP_VABSDIFF4: case IR_OP_VMIN4: case IR_OP_VMAX4: case IR_OP_VSET4:
        return emit_video(E, ins);
    case IR_OP_TEX: case IR_OP_TLD4: case IR_OP_TXQ: case IR_OP_ISTYPEP: case IR_OP_SULD: case IR_OP_SUST:
    case IR_OP_SURED: case IR_OP_SUQ:
        return emit_texture(E, ins); /* texture objects as descriptors in device memory (emit_texture.h) */
    default: return emit_int(E, ins);
    }
}

static bool bb_open(emit_ctx *E) { return LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(E->B)) == NULL; }

static void emit_one(emit_ctx *E, const ir_ins *ins) {
    E->ins = ins;
    line_info_at(E, ins);
    unsigned before = E->d->nerrors + E->d->nwarnings; /* a deferred unsupported form is a warning */
    if (ins->guard && ins->op != IR_OP_BRA) {
        ir_operand g = {.kind = IR_OPND_REG, .id = ins->guard - 1};
        LLVMValueRef c = rd(E, &g, IR_T_PRED);
        if (ins->guard_neg) c = LLVMBuildNot(E->B, c, "");
        LLVMBasicBlockRef then = new_bb(E, "g"), cont = new_bb(E, "gc");
        LLVMBuildCondBr(E->B, c, then, cont);
        LLVMPositionBuilderAtEnd(E->B, then);
        if (!dispatch(E, ins) && E->d->nerrors + E->d->nwarnings == before) emit_unsupported(E, NULL);
        if (bb_open(E)) LLVMBuildBr(E->B, cont);
        LLVMPositionBuilderAtEnd(E->B, cont);
        return;
    }
    if (!dispatch(E, ins) && E->d->nerrors + E->d->nwarnings == before) emit_unsupported(E, NULL);
}

/* A branch back to the same or an earlier block: the .func has a loop (target_hooks.keep_func_calls). */
static bool func_has_loop(const ir_func *f) {
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t i = 0; i < f->blocks[b].n; i++) {
            const ir_ins *ins = &f->blocks[b].ins[i];
            for (unsigned k = 0; k < ins->nops; k++) {
                if (ins->ops[k].kind != IR_OPND_LABEL) continue;
                for (uint32_t t = 0; t <= b; t++)
                    if (f->blocks[t].label == ins->ops[k].id + 1) return true;
            }
        }
    return false;
}

static void emit_body(emit_ctx *E, uint32_t fi) {
    ir_func *f = &E->m->funcs[fi];
    E->f = f;
    E->fidx = fi;
    E->cur = E->fn[fi];
    E->cc = NULL;
    /* a target may put a kernel's body into a function of its own and build the entries after it */
    const target_hooks *H = E->t->hooks;
    bool own_body = f->is_entry && H && H->kernel_body_begin && H->kernel_body_begin(E, fi);
    line_info_function(E);
    E->regs = calloc(f->nregs + 1, sizeof *E->regs);
    E->lvar = calloc(E->m->nvars + 1, sizeof *E->lvar);
    E->bbs = calloc(f->nblocks + 1, sizeof *E->bbs);
    E->label_block = malloc((f->nlabels + 1) * sizeof *E->label_block);
    E->label_proto = malloc((f->nlabels + 1) * sizeof *E->label_proto);
    E->label_tgts = malloc((f->nlabels + 1) * sizeof *E->label_tgts);
    for (uint32_t i = 0; i <= f->nlabels; i++) E->label_block[i] = E->label_proto[i] = E->label_tgts[i] = -1;
    if (f->is_entry) {
        E->kparams = LLVMGetParam(E->cur, 0);
        E->ctx = LLVMGetParam(E->cur, 1);
        E->retbuf = E->parambuf = NULL;
    } else {
        E->ctx = LLVMGetParam(E->cur, 0);
        E->retbuf = LLVMGetParam(E->cur, 1);
        E->parambuf = LLVMGetParam(E->cur, 2);
        E->kparams = NULL;
    }
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(E->C, E->cur, "entry");
    LLVMPositionBuilderAtEnd(E->AB, entry);
    E->ybud = NULL;
    E->stalls = NULL;
    if (f->is_entry && f->perf.n_reqnctapercluster) {
        /* no runtime launches clusters: every block is a cluster of one (emit_cluster.c), so a kernel that
         * requires more blocks per cluster cannot run (a deferred stub under --defer-unsupported) */
        uint64_t n = 1;
        for (unsigned k = 0; k < f->perf.n_reqnctapercluster; k++) n *= f->perf.reqnctapercluster[k];
        if (n > 1) { /* emit_unsupported's logic, at the kernel's position (there is no instruction to name) */
            char text[320];
            snprintf(text, sizeof text, "unsupported PTX construct for target %s: kernel requires thread-block "
                     "clusters of %llu blocks (.reqnctapercluster); only clusters of one block are supported",
                     E->t->name, (unsigned long long)n);
            E->ins = NULL;
            bool deferred = defer_note(E, text);
            if (deferred) diag_warning(E->d, f->line, f->col, "%s", text);
            else {
                diag_error(E->d, f->line, f->col, "%s", text);
                E->failed++;
            }
        }
    }
    if (E->t->rt_table) {
        /* the yield budget lives in a local (a register after mem2reg), not in ctx memory: loop back-edges
         * then cost a register decrement; it is reloaded from ctx after rt->yield and device-function calls */
        E->ybud = LLVMBuildAlloca(E->AB, E->i32, "ybud");
        LLVMValueRef o = c64(E, CTX_YIELD);
        LLVMValueRef v = LLVMBuildLoad2(E->AB, E->i32, LLVMBuildGEP2(E->AB, E->i8, E->ctx, &o, 1, ""), "");
        LLVMBuildStore(E->AB, v, E->ybud);
    }
    for (uint32_t b = 0; b < f->nblocks; b++) {
        E->bbs[b] = LLVMAppendBasicBlockInContext(E->C, E->cur, "");
        if (f->blocks[b].label) E->label_block[f->blocks[b].label - 1] = (int32_t)b;
        for (uint32_t i = 0; i < f->blocks[b].n; i++) {
            const ir_ins *ins = &f->blocks[b].ins[i];
            if (ins->op == IR_OP_CALLPROTOTYPE) E->label_proto[ins->ops[0].id] = (int32_t)ins->ops[1].val;
            if (ins->op == IR_OP_BRANCHTARGETS) E->label_tgts[ins->ops[0].id] = (int32_t)((b << 20) | i);
        }
    }
    LLVMBasicBlockRef exitbb = LLVMAppendBasicBlockInContext(E->C, E->cur, "end");
    for (uint32_t b = 0; b < f->nblocks; b++) {
        E->cur_block = b;
        LLVMPositionBuilderAtEnd(E->B, E->bbs[b]);
        for (uint32_t i = 0; i < f->blocks[b].n; i++) {
            const ir_ins *ins = &f->blocks[b].ins[i];
            if (ir_is_pseudo(ins)) continue;
            if (!bb_open(E)) LLVMPositionBuilderAtEnd(E->B, new_bb(E, "dead"));
            emit_one(E, ins);
            if (E->failed > 200) break;
        }
        if (bb_open(E)) LLVMBuildBr(E->B, b + 1 < f->nblocks ? E->bbs[b + 1] : exitbb);
    }
    LLVMPositionBuilderAtEnd(E->B, exitbb);
    LLVMBuildRetVoid(E->B);
    LLVMBuildBr(E->AB, f->nblocks ? E->bbs[0] : exitbb);
    E->ybud = NULL;
    line_info_function_end(E);
    if (own_body) H->kernel_body_end(E, fi);
    free(E->regs);
    free(E->lvar);
    free(E->bbs);
    free(E->label_block);
    free(E->label_proto);
    free(E->label_tgts);
    E->regs = E->lvar = NULL;
    E->bbs = NULL;
    E->ins = NULL;
}

unsigned devrt_id(const char *name) {
    static const struct { const char *name; unsigned id; } fns[] = {
#define P2N_DEVRT(id, nm, nargs) {#nm, P2N_DEVRT_##id},
#include "device_runtime.def"
#undef P2N_DEVRT
    };
    const char *n = !strncmp(name, "__cudaCDP2", 10) ? name + 10 : NULL;
    /* CUDA 11 spelt the launch pair without the prefix */
    if (!n && (!strncmp(name, "cudaGetParameterBuffer", 22) || !strncmp(name, "cudaLaunchDevice", 16))) n = name + 4;
    for (size_t i = 0; n && i < sizeof fns / sizeof fns[0]; i++)
        if (!strcmp(n, fns[i].name)) return fns[i].id;
    return 0;
}

/* A device-runtime function's body: its parameters as 64-bit words (up to 8 bytes: the value zero-extended; a
 * larger one, dim3: the address of its bytes) to the rt table's device_runtime slot, the word back as its result
 * (abi/device_runtime.def). */
static bool emit_devrt_stub(emit_ctx *E, const ir_proto *s, unsigned id, LLVMValueRef ret, LLVMValueRef prm) {
    LLVMValueRef words = LLVMBuildAlloca(E->B, LLVMArrayType2(E->i64, s->nparam ? s->nparam : 1), "");
    for (uint32_t i = 0; i < s->nparam; i++) {
        uint64_t size = E->var_size[s->param[i]];
        LLVMValueRef at = gep8(E, prm, c64(E, E->var_off[s->param[i]])), w;
        if (size == 0 || size > 8)
            w = LLVMBuildPtrToInt(E->B, at, E->i64, "");
        else
            w = LLVMBuildZExt(E->B, LLVMBuildLoad2(E->B, LLVMIntTypeInContext(E->C, (unsigned)size * 8), at, ""),
                              E->i64, "");
        LLVMBuildStore(E->B, w, gep8(E, words, c64(E, 8 * i)));
    }
    LLVMValueRef a[3] = {E->ctx, c32(E, id), words};
    LLVMValueRef r = rt_call(E, RT_DEVICE_RUNTIME, E->i64, a, 3);
    if (s->nret) {
        uint64_t size = E->var_size[s->ret[0]];
        if (size == 0 || size > 8) return false;
        LLVMValueRef v = size == 8 ? r : LLVMBuildTrunc(E->B, r, LLVMIntTypeInContext(E->C, (unsigned)size * 8), "");
        LLVMBuildStore(E->B, v, gep8(E, ret, c64(E, E->var_off[s->ret[0]])));
    }
    return true;
}

/* Runtime functions nvcc declares as .extern .func: bodies that forward to the p2n_rt_table. */
static bool emit_runtime_stub(emit_ctx *E, uint32_t fi) {
    ir_func *f = &E->m->funcs[fi];
    const char *name = ir_str(E->m, f->name);
    unsigned devrt = E->t->device_runtime ? devrt_id(name) : 0;
    int kind = strcmp(name, "vprintf") == 0 ? 1 : strcmp(name, "__assertfail") == 0 ? 2
             : strcmp(name, "malloc") == 0 ? 3 : strcmp(name, "free") == 0 ? 4
             : strcmp(name, "cudaGraphSetConditional") == 0 ? 5 : devrt ? 6 : 0;
    LLVMValueRef fn = E->fn[fi];
    LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(E->C, fn, "entry");
    LLVMPositionBuilderAtEnd(E->B, bb);
    E->ctx = LLVMGetParam(fn, 0);
    LLVMValueRef ret = LLVMGetParam(fn, 1), prm = LLVMGetParam(fn, 2);
    const ir_proto *s = &f->sig;
#define PARAM(i, ty) LLVMBuildLoad2(E->B, ty, gep8(E, prm, c64(E, (i) < s->nparam ? E->var_off[s->param[i]] : 0)), "")
    switch (kind) {
    case 1: {
        if (s->nparam < 2) return false;
        LLVMValueRef a[3] = {E->ctx, PARAM(0, E->ptr), PARAM(1, E->ptr)};
        LLVMValueRef r = rt_call(E, RT_VPRINTF, E->i32, a, 3);
        if (s->nret) LLVMBuildStore(E->B, r, ret);
        break;
    }
    case 2: {
        if (s->nparam < 5) return false;
        LLVMValueRef a[6] = {E->ctx, PARAM(0, E->ptr), PARAM(1, E->ptr), PARAM(2, E->i32), PARAM(3, E->ptr),
                             PARAM(4, E->i64)};
        rt_call(E, RT_ASSERTFAIL, E->vd, a, 6);
        break;
    }
    case 3: {
        if (s->nparam < 1) return false;
        LLVMValueRef a[2] = {E->ctx, PARAM(0, E->i64)};
        LLVMValueRef r = rt_call(E, RT_MALLOC, E->ptr, a, 2);
        if (s->nret) LLVMBuildStore(E->B, r, ret);
        break;
    }
    case 4: {
        if (s->nparam < 1) return false;
        LLVMValueRef a[2] = {E->ctx, PARAM(0, E->ptr)};
        rt_call(E, RT_FREE, E->vd, a, 2);
        break;
    }
    case 5: {
        /* a conditional graph node's handle is the device address of its 32-bit condition (the driver's
         * graph_cond.c): setting it is a store */
        if (s->nparam < 2) return false;
        LLVMValueRef slot = LLVMBuildIntToPtr(E->B, PARAM(0, E->i64), E->ptr, "");
        LLVMValueRef st = LLVMBuildStore(E->B, PARAM(1, E->i32), slot);
        LLVMSetVolatile(st, 1);
        break;
    }
    case 6:
        if (!emit_devrt_stub(E, s, devrt, ret, prm)) return false;
        break;
    default: {
        /* an external function this module does not define: calls are diagnosed; the body traps */
        LLVMValueRef a[1] = {E->ctx};
        rt_call(E, RT_TRAP, E->vd, a, 1);
        LLVMBuildUnreachable(E->B);
        return false;
    }
    }
#undef PARAM
    LLVMBuildRetVoid(E->B);
    return true;
}

/* `.alias a, b` (PTX 6.3): the function a bodiless alias names, after at most a few links of aliases to
 * aliases; fi itself when it is none */
static uint32_t alias_target(const ir_module *m, uint32_t fi) {
    for (int hop = 0; hop < 8 && !m->funcs[fi].has_body; hop++) {
        uint32_t next = fi;
        for (uint32_t k = 0; k < m->naliases; k++)
            if (m->aliases[k].alias == fi) next = m->aliases[k].aliasee;
        if (next == fi) break;
        fi = next;
    }
    return fi;
}

bool emit_is_runtime_func(emit_ctx *E, uint32_t fi);
bool emit_is_runtime_func(emit_ctx *E, uint32_t fi) {
    const ir_func *f = &E->m->funcs[fi];
    if (f->has_body || E->m->funcs[alias_target(E->m, fi)].has_body) return true;
    const char *name = ir_str(E->m, f->name);
    return ir_is_runtime_extern(name) || (E->t->device_runtime && devrt_id(name));
}

/* ---------------------------------------------------------------- descriptor */

static LLVMValueRef cstr(emit_ctx *E, const char *s) {
    LLVMValueRef init = LLVMConstStringInContext2(E->C, s, strlen(s), 0);
    LLVMValueRef g = LLVMAddGlobal(E->M, LLVMTypeOf(init), ".str");
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    return g;
}

static LLVMValueRef u32_array(emit_ctx *E, const uint32_t *v, unsigned n) {
    if (!n) return LLVMConstNull(E->ptr);
    LLVMValueRef *c = malloc(n * sizeof *c);
    for (unsigned i = 0; i < n; i++) c[i] = c32(E, v[i]);
    LLVMValueRef init = LLVMConstArray2(E->i32, c, n);
    free(c);
    LLVMValueRef g = LLVMAddGlobal(E->M, LLVMTypeOf(init), ".u32s");
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    return g;
}

/* Marks in `used` the variables an operand names and pushes the functions it names (call targets, addresses
 * taken) on the stack. */
static void note_operand(const ir_operand *o, uint8_t *used, uint8_t *seen, uint32_t *stack, uint32_t *n,
                         uint32_t nvars, uint32_t nfuncs) {
    if (o->kind == IR_OPND_VEC || o->kind == IR_OPND_LIST || o->kind == IR_OPND_TEXARGS) {
        for (unsigned k = 0; k < o->aux; k++) note_operand(&ir_elems(o)[k], used, seen, stack, n, nvars, nfuncs);
        return;
    }
    if ((o->kind == IR_OPND_VAR || (o->kind == IR_OPND_ADDR && (o->flags & IR_OPNDF_BASE_VAR))) && o->id < nvars)
        used[o->id] = 1;
    bool fn = o->kind == IR_OPND_FUNC || (o->kind == IR_OPND_ADDR && (o->flags & IR_OPNDF_BASE_FUNC));
    if (fn && o->id < nfuncs && !seen[o->id]) {
        seen[o->id] = 1;
        stack[(*n)++] = o->id;
    }
}

/* The variables kernel fi can reach: named by it or by a function it calls (transitively) or whose address it
 * takes. False when it calls through a register: then any function whose address is taken anywhere may run. */
static bool vars_reached(const ir_module *m, uint32_t fi, uint8_t *used) {
    uint8_t *seen = calloc(m->nfuncs + 1, 1);
    uint32_t *stack = malloc((m->nfuncs + 1) * sizeof *stack);
    bool ok = seen && stack;
    uint32_t n = 0;
    if (ok) {
        seen[fi] = 1;
        stack[n++] = fi;
    }
    while (ok && n) {
        const ir_func *f = &m->funcs[stack[--n]];
        for (uint32_t b = 0; b < f->nblocks && ok; b++)
            for (uint32_t i = 0; i < f->blocks[b].n && ok; i++) {
                const ir_ins *ins = &f->blocks[b].ins[i];
                if (ins->op == IR_OP_CALL) {
                    const ir_operand *t = &ins->ops[ins->nops && ins->ops[0].kind == IR_OPND_LIST ? 1 : 0];
                    if (t->kind != IR_OPND_FUNC) ok = false;
                }
                for (unsigned k = 0; k < ins->nops; k++)
                    note_operand(&ins->ops[k], used, seen, stack, &n, m->nvars, m->nfuncs);
            }
    }
    free(seen);
    free(stack);
    return ok;
}

typedef struct smem_item { uint64_t size; uint32_t v; } smem_item;
static int smem_item_cmp(const void *a, const void *b) {
    const smem_item *x = a, *y = b;
    if (x->size != y->size) return x->size < y->size ? 1 : -1;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* Per-kernel LDS (AMDGPU): every static of module or .func scope gets one offset for the whole module, since a
 * .func compiled once names it there; two of them share bytes when no kernel reaches both (vars_reached; a kernel
 * calling through a pointer reaches every one). A kernel's window ends at the last byte of what it reaches, its
 * entry-scope statics follow. Laying them all out one after another made a CUB/thrust module (nvcc puts device
 * functions' __shared__ temp storage at module scope) ask ~346 KiB of LDS for every kernel. Returns the largest
 * window; E->var_off and E->kern_smem are filled, *dyn_align raised to the dynamic shared variables' alignment. */
static uint64_t layout_per_kernel(emit_ctx *E, uint64_t *dyn_align) {
    ir_module *m = E->m;
    uint32_t nk = 0, nitems = 0;
    uint32_t *kern = malloc((m->nfuncs + 1) * sizeof *kern);
    smem_item *items = malloc((m->nvars + 1) * sizeof *items);
    for (uint32_t fi = 0; kern && fi < m->nfuncs; fi++)
        if (m->funcs[fi].is_entry) kern[nk++] = fi;
    size_t words = (nk + 63) / 64;
    uint64_t *kset = calloc((size_t)(m->nvars + 1) * (words ? words : 1), sizeof *kset);
    uint8_t *used = malloc(m->nvars + 1);
    uint64_t top = 0;
    if (!kern || !items || !kset || !used) goto out;   /* out of memory: emission fails elsewhere first */
    for (uint32_t v = 0; v < m->nvars; v++) {
        const ir_var *var = &m->vars[v];
        if (var_space(E, v) != IR_S_SHARED) continue;
        if (var->linkage == IR_LINK_EXTERN) {
            if (var->ndims && !var->dims[0] && var_align(var) > *dyn_align) *dyn_align = var_align(var);
            continue;
        }
        bool own = var->func >= 0 && (uint32_t)var->func < m->nfuncs && m->funcs[var->func].is_entry;
        if (!own) items[nitems++] = (smem_item){E->var_size[v], v};
    }
    for (uint32_t j = 0; j < nk; j++) {
        memset(used, 0, m->nvars + 1);
        bool exact = vars_reached(m, kern[j], used);
        for (uint32_t i = 0; i < nitems; i++)
            if (!exact || used[items[i].v]) kset[(size_t)items[i].v * words + j / 64] |= 1ull << (j % 64);
    }
    qsort(items, nitems, sizeof *items, smem_item_cmp);
    for (uint32_t i = 0; i < nitems; i++) {
        uint32_t v = items[i].v;
        uint64_t cand = 0;
        for (bool moved = true; moved;) {
            moved = false;
            for (uint32_t k = 0; k < i; k++) {
                uint32_t u = items[k].v;
                bool share = false;
                for (size_t w = 0; w < words && !share; w++) share = kset[(size_t)u * words + w] & kset[(size_t)v * words + w];
                if (share && cand < E->var_off[u] + E->var_size[u] && E->var_off[u] < cand + E->var_size[v]) {
                    cand = p2n_align_up(E->var_off[u] + E->var_size[u], var_align(&m->vars[v]));
                    moved = true;
                }
            }
        }
        E->var_off[v] = cand;
    }
    for (uint32_t j = 0; j < nk; j++) {
        uint32_t fi = kern[j];
        uint64_t cur = 0;
        for (uint32_t i = 0; i < nitems; i++)
            if (kset[(size_t)items[i].v * words + j / 64] >> (j % 64) & 1) {
                uint64_t end = E->var_off[items[i].v] + E->var_size[items[i].v];
                if (end > cur) cur = end;
            }
        for (uint32_t v = 0; v < m->nvars; v++) {
            const ir_var *var = &m->vars[v];
            if (var_space(E, v) != IR_S_SHARED || var->linkage == IR_LINK_EXTERN || var->func != (int32_t)fi) continue;
            cur = p2n_align_up(cur, var_align(var));
            E->var_off[v] = cur;
            cur += E->var_size[v];
        }
        E->kern_smem[fi] = (uint32_t)cur;
        if (cur > top) top = cur;
    }
out:
    free(kern);
    free(items);
    free(kset);
    free(used);
    return top;
}

/* The static shared bytes kernel fi uses, laid out alone (CUDA's SHARED_SIZE_BYTES, which CUDA reports and sizes
 * occupancy and the launch limit by; host descriptor own_smem_bytes), as ptxas -v counts them: its own entry-scope
 * statics, used or not, and the statics of module or .func scope that it or a function it calls names (nvcc puts
 * the __shared__ variables of device functions, CUB's temp storage, at module scope: a module of many kernels has
 * far more of them than any one kernel uses). When the kernel calls through a pointer, every static of module or
 * .func scope counts. Never another kernel's. The host's module-wide window is the sum over all kernels. */
static uint64_t own_static_smem(emit_ctx *E, uint32_t fi) {
    ir_module *m = E->m;
    uint8_t *used = calloc(m->nvars + 1, 1);
    bool exact = used && vars_reached(m, fi, used);
    uint64_t bytes = 0;
    for (uint32_t v = 0; v < m->nvars; v++) {
        const ir_var *var = &m->vars[v];
        if (var_space(E, v) != IR_S_SHARED || var->linkage == IR_LINK_EXTERN) continue;
        bool entry_scope = var->func >= 0 && (uint32_t)var->func < m->nfuncs && m->funcs[var->func].is_entry;
        if (entry_scope ? (uint32_t)var->func != fi : exact && !used[v]) continue;
        bytes = p2n_align_up(bytes, var_align(var)) + E->var_size[v];
    }
    free(used);
    return bytes;
}

/* The description of what emission produced (emit.h emit_desc), after the bodies (deferred kernels that
 * were left out have no body any more): what the host descriptor below says, and what the other targets'
 * lowerings read instead of re-deriving it. */
static emit_desc *build_desc(emit_ctx *E) {
    ir_module *m = E->m;
    emit_desc *D = calloc(1, sizeof *D);
    D->kernels = calloc(m->nfuncs + 1, sizeof *D->kernels);
    D->shared = calloc(m->nvars + 1, sizeof *D->shared);
    D->globals = calloc(m->nvars + 1, sizeof *D->globals);
    D->static_smem = E->static_smem;
    D->dyn_align = E->dyn_align;
    D->module_flags = E->module_flags;
    D->per_kernel_smem = E->kern_smem != NULL;
    uint32_t smem_align = 16; /* the largest declared .align of a .shared variable, at least 16 */
    for (uint32_t v = 0; v < m->nvars; v++) {
        const ir_var *var = &m->vars[v];
        if (var_space(E, v) == IR_S_SHARED) {
            if (var->align > smem_align) smem_align = var->align;
            D->shared[D->nshared++] = (emit_shared_var){.name = ir_str(m, var->name), .var = v, .func = var->func,
                                                        .offset = E->var_off[v], .size = E->var_size[v],
                                                        .align = var_align(var),
                                                        .dynamic = var->linkage == IR_LINK_EXTERN};
        }
        if (E->gvar[v] && var->func < 0)
            D->globals[D->nglobals++] = (emit_global){.name = ir_str(m, var->name), .var = v, .space = var_space(E, v),
                                                      .size = E->var_size[v],
                                                      .initialized = LLVMGetInitializer(E->gvar[v]) != NULL};
    }
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
        ir_func *f = &m->funcs[fi];
        if (!f->is_entry || !f->has_body) continue;
        emit_kernel *k = &D->kernels[D->nkernels++];
        uint32_t np = f->sig.nparam;
        k->name = ir_str(m, f->name);
        k->func = fi;
        k->nparams = np;
        k->params = calloc(np + 1, sizeof *k->params);
        for (uint32_t i = 0; i < np; i++) {
            uint32_t v = f->sig.param[i];
            k->params[i] = (emit_param){E->var_off[v], E->var_size[v], var_align(&m->vars[v])};
            if (k->params[i].offset + k->params[i].size > k->param_bytes)
                k->param_bytes = k->params[i].offset + k->params[i].size;
        }
        for (uint32_t v = 0; v < m->nvars; v++)
            if (m->vars[v].func == (int32_t)fi && var_space(E, v) == IR_S_LOCAL) k->local_bytes += E->var_size[v];
        k->static_smem = E->kern_smem ? E->kern_smem[fi] : E->static_smem;
        k->own_smem = (uint32_t)own_static_smem(E, fi);
        k->smem_align = smem_align;
        for (int c = 0; c < 3; c++) {
            k->maxntid[c] = c < f->perf.n_maxntid ? f->perf.maxntid[c] : (f->perf.n_maxntid ? 1 : 0);
            k->reqntid[c] = c < f->perf.n_reqntid ? f->perf.reqntid[c] : (f->perf.n_reqntid ? 1 : 0);
        }
        k->flags = E->module_flags | E->fn_flags[fi] | (E->block_fn[fi] ? P2N_KERNEL_THREAD_LOOP : 0) |
                   (f->perf.explicitcluster && !f->perf.n_reqnctapercluster ? P2N_KERNEL_CLUSTER_LAUNCH : 0) |
                   (f->perf.n_reqnctapercluster ? P2N_KERNEL_CLUSTER_DIMS : 0);
    }
    return D;
}

void emit_desc_free(emit_desc *D) {
    if (!D) return;
    for (uint32_t i = 0; i < D->nkernels; i++) free(D->kernels[i].params);
    free(D->kernels);
    free(D->shared);
    free(D->globals);
    free(D);
}

/* The binary descriptor __p2n_module (host_abi.h p2n_module_desc), written from the description: the CPU
 * runtime's loader reads it; AMDGPU's lowering deletes it, but relies on it keeping the kernels referenced
 * until then (amdgpu_printf.c drops unreferenced internal functions). */
static void emit_descriptor(emit_ctx *E, const emit_desc *D) {
    LLVMTypeRef a3 = LLVMArrayType2(E->i32, 3);
    LLVMTypeRef kt_el[] = {E->ptr, E->ptr, E->i32, E->ptr, E->ptr, E->i32, E->i32, E->i32, E->i32, a3, a3, E->i32,
                           E->ptr, E->ptr, E->i32};
    LLVMTypeRef kt = LLVMStructTypeInContext(E->C, kt_el, 15, 0);
    LLVMTypeRef gt_el[] = {E->ptr, E->ptr, E->i64};
    LLVMTypeRef gt = LLVMStructTypeInContext(E->C, gt_el, 3, 0);
    LLVMTypeRef mt_el[] = {E->i32, E->i32, E->ptr, E->i32, E->ptr};
    LLVMTypeRef mt = LLVMStructTypeInContext(E->C, mt_el, 5, 0);

    LLVMValueRef *ks = calloc(D->nkernels + 1, sizeof *ks);
    unsigned nk = 0;
    for (uint32_t ki = 0; ki < D->nkernels; ki++) {
        const emit_kernel *k = &D->kernels[ki];
        uint32_t fi = k->func, np = k->nparams;
        uint32_t *offs = calloc(np + 1, 4), *sizes = calloc(np + 1, 4);
        for (uint32_t i = 0; i < np; i++) {
            offs[i] = (uint32_t)k->params[i].offset;
            sizes[i] = (uint32_t)k->params[i].size;
        }
        LLVMValueRef mx[3], rq[3];
        for (int c = 0; c < 3; c++) {
            mx[c] = c32(E, k->maxntid[c]);
            rq[c] = c32(E, k->reqntid[c]);
        }
        LLVMValueRef el[] = {cstr(E, k->name), E->fn[fi], c32(E, np), u32_array(E, offs, np),
                             u32_array(E, sizes, np), c32(E, (uint32_t)k->param_bytes), c32(E, k->static_smem),
                             c32(E, D->dyn_align), c32(E, (uint32_t)k->local_bytes), LLVMConstArray2(E->i32, mx, 3),
                             LLVMConstArray2(E->i32, rq, 3), c32(E, k->flags),
                             E->block_fn[fi] ? E->block_fn[fi] : LLVMConstNull(E->ptr),
                             LLVMConstNull(E->ptr) /* coro_entry: targets/host/host_coro.c fills it in */,
                             c32(E, k->own_smem)};
        ks[nk++] = LLVMConstNamedStruct(kt, el, 15);
        free(offs);
        free(sizes);
    }
    LLVMValueRef *gs = calloc(D->nglobals + 1, sizeof *gs);
    unsigned ng = 0;
    for (uint32_t i = 0; i < D->nglobals; i++) {
        const emit_global *g = &D->globals[i];
        if (!g->initialized) continue;
        LLVMValueRef el[] = {cstr(E, g->name), E->gvar[g->var], c64(E, g->size)};
        gs[ng++] = LLVMConstNamedStruct(gt, el, 3);
    }
    LLVMValueRef karr = LLVMConstNull(E->ptr), garr = LLVMConstNull(E->ptr);
    if (nk) {
        LLVMValueRef init = LLVMConstArray2(kt, ks, nk);
        karr = LLVMAddGlobal(E->M, LLVMTypeOf(init), "__p2n_kernels");
        LLVMSetInitializer(karr, init);
        LLVMSetGlobalConstant(karr, 1);
        LLVMSetLinkage(karr, LLVMPrivateLinkage);
    }
    if (ng) {
        LLVMValueRef init = LLVMConstArray2(gt, gs, ng);
        garr = LLVMAddGlobal(E->M, LLVMTypeOf(init), "__p2n_globals");
        LLVMSetInitializer(garr, init);
        LLVMSetGlobalConstant(garr, 1);
        LLVMSetLinkage(garr, LLVMPrivateLinkage);
    }
    LLVMValueRef mel[] = {c32(E, P2N_HOST_ABI_VERSION), c32(E, nk), karr, c32(E, ng), garr};
    LLVMValueRef md = LLVMAddGlobal(E->M, mt, "__p2n_module");
    LLVMSetInitializer(md, LLVMConstNamedStruct(mt, mel, 5));
    LLVMSetGlobalConstant(md, 1);
    LLVMSetVisibility(md, LLVMDefaultVisibility);
    free(ks);
    free(gs);
}

/* ---------------------------------------------------------------- module */

bool emit_module(ir_module *m, const target_desc *t, const p2n_options *opt, p2n_diags *d, emit_result *out,
                 bool *internal) {
    emit_ctx EE, *E = &EE;
    memset(E, 0, sizeof *E);
    E->f64_cold_of = -1;
    E->device_lacks = opt ? opt->device_lacks : 0;
    E->defer_unsupported = opt && opt->defer_unsupported;
    E->fp_atomics_native = opt && opt->fp_atomics_native && t->fp_atomics_native_ok;
    E->m = m;
    E->t = t;
    E->d = d;
    E->C = LLVMContextCreate();
    E->M = LLVMModuleCreateWithNameInContext("ptx", E->C);
    LLVMSetTarget(E->M, t->triple);
    E->B = LLVMCreateBuilderInContext(E->C);
    E->AB = LLVMCreateBuilderInContext(E->C);
    E->i1 = LLVMInt1TypeInContext(E->C);
    E->i8 = LLVMInt8TypeInContext(E->C);
    E->i16 = LLVMInt16TypeInContext(E->C);
    E->i32 = LLVMInt32TypeInContext(E->C);
    E->i64 = LLVMInt64TypeInContext(E->C);
    E->i128 = LLVMInt128TypeInContext(E->C);
    E->f32 = LLVMFloatTypeInContext(E->C);
    E->f64 = LLVMDoubleTypeInContext(E->C);
    /* SPIR-V: untyped pointers are generic (address space 0 is the Function class there) */
    E->ptr = LLVMPointerTypeInContext(E->C, t->ptr_as);
    E->vd = LLVMVoidTypeInContext(E->C);
    LLVMTypeRef fa[3] = {E->ptr, E->ptr, E->ptr};
    E->fn_ty = LLVMFunctionType(E->vd, fa, 3, 0);
    E->kern_ty = LLVMFunctionType(E->vd, fa, 2, 0);
    E->gvar = calloc(m->nvars + 1, sizeof *E->gvar);
    E->var_off = calloc(m->nvars + 1, sizeof *E->var_off);
    E->var_size = calloc(m->nvars + 1, sizeof *E->var_size);
    E->fn = calloc(m->nfuncs + 1, sizeof *E->fn);
    E->block_fn = calloc(m->nfuncs + 1, sizeof *E->block_fn);
    E->fn_flags = calloc(m->nfuncs + 1, sizeof *E->fn_flags);
    if (opt && opt->line_info) line_info_begin(E);

    /* A program linked with libcudadevrt carries that library's PTX bodies of the device runtime, built on
     * NVIDIA's driver calls (__cuda_syscall_*): a target with device_runtime gives those functions its own bodies
     * (emit_runtime_stub), so every analysis from here on sees them as runtime functions. */
    for (uint32_t fi = 0; t->device_runtime && fi < m->nfuncs; fi++)
        if (!m->funcs[fi].is_entry && m->funcs[fi].has_body && devrt_id(ir_str(m, m->funcs[fi].name)))
            m->funcs[fi].has_body = false;
    if (m->address_size == 32) {
        diag_error(E->d, 1, 1, "unsupported PTX module for target %s (.address_size 32)", t->name);
        E->failed++;
    }
    /* sizes, shared layout */
    uint64_t smem = 0, dyn_align = 16;
    for (uint32_t v = 0; v < m->nvars; v++) E->var_size[v] = var_bytes(&m->vars[v]);
    /* AMDGPU gives every kernel its own LDS: statics of module scope (or of a .func) first, then each kernel's
     * entry-scoped ones (nvcc's demoted variables) overlaid at the same offset, since only that kernel can name
     * them. The host keeps one module-wide window (host_abi.h). */
    bool per_kernel = t->smem_per_kernel;
    if (per_kernel) {
        E->kern_smem = calloc(m->nfuncs + 1, sizeof *E->kern_smem);
        smem = layout_per_kernel(E, &dyn_align);
    }
    for (int pass = 0; pass < (per_kernel ? 0 : 1); pass++) {
        uint64_t start = smem, top = smem;
        for (uint32_t fi = 0; fi <= (pass ? m->nfuncs : 0); fi++) {
            if (pass && (fi == m->nfuncs || !m->funcs[fi].is_entry)) continue;
            uint64_t cur = start;
            for (uint32_t v = 0; v < m->nvars; v++) {
                const ir_var *var = &m->vars[v];
                if (var_space(E, v) != IR_S_SHARED) continue;
                bool dynamic = var->linkage == IR_LINK_EXTERN && var->ndims && !var->dims[0];
                if (dynamic) {
                    if (var_align(var) > dyn_align) dyn_align = var_align(var);
                    continue;
                }
                if (var->linkage == IR_LINK_EXTERN) continue;
                bool own = var->func >= 0 && (uint32_t)var->func < m->nfuncs && m->funcs[var->func].is_entry;
                if (per_kernel && (pass ? var->func != (int32_t)fi : own)) continue;
                cur = p2n_align_up(cur, var_align(var));
                E->var_off[v] = cur;
                cur += E->var_size[v];
            }
            if (per_kernel && pass) E->kern_smem[fi] = (uint32_t)cur;
            if (cur > top) top = cur;
        }
        smem = top;
    }
    if (per_kernel)
        for (uint32_t fi = 0; fi < m->nfuncs; fi++) E->kern_smem[fi] = (uint32_t)p2n_align_up(E->kern_smem[fi], dyn_align);
    smem = p2n_align_up(smem, dyn_align);
    for (uint32_t v = 0; v < m->nvars; v++) {
        const ir_var *var = &m->vars[v];
        /* dynamic shared memory (and unresolved extern shared: same window); per-kernel LDS reads its
         * offset from ctx instead (var_value) */
        if (var_space(E, v) == IR_S_SHARED && var->linkage == IR_LINK_EXTERN) E->var_off[v] = smem;
    }
    E->static_smem = (uint32_t)smem;
    E->dyn_align = (uint32_t)dyn_align;
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
        layout_params(E, m->funcs[fi].sig.param, m->funcs[fi].sig.nparam);
        layout_params(E, m->funcs[fi].sig.ret, m->funcs[fi].sig.nret);
    }
    /* functions */
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
        ir_func *f = &m->funcs[fi];
        const char *name = ir_str(m, f->name);
        E->fn[fi] = LLVMAddFunction(E->M, name, f->is_entry ? E->kern_ty : E->fn_ty);
        LLVMSetLinkage(E->fn[fi], LLVMInternalLinkage);
        unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
        LLVMAddAttributeAtIndex(E->fn[fi], LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(E->C, nounwind, 0));
        if (!f->is_entry && t->hooks && t->hooks->keep_func_calls && func_has_loop(f)) {
            unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
            LLVMAddAttributeAtIndex(E->fn[fi], LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(E->C, noinline, 0));
        }
    }
    /* a bodiless `.alias` name is its target: calls and addresses of it reach the target's function (PTX requires
     * the two prototypes to be the same) */
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
        uint32_t to = alias_target(m, fi);
        if (to == fi || !m->funcs[to].has_body) continue;
        LLVMDeleteFunction(E->fn[fi]);
        E->fn[fi] = E->fn[to];
    }
    /* globals */
    for (uint32_t v = 0; v < m->nvars; v++) {
        const ir_var *var = &m->vars[v];
        ir_space s = var_space(E, v);
        if (s != IR_S_GLOBAL && s != IR_S_CONST && !(s == IR_S_LOCAL && var->func < 0)) continue;
        /* .texref/.surfref (and .samplerref, unused but nameable): 8 bytes holding an object handle that the
         * driver stub writes (emit_texture_ref.c) */
        uint64_t size = E->var_size[v] ? E->var_size[v] : 1;
        LLVMTypeRef ty = LLVMArrayType2(E->i8, size);
        E->gvar[v] = LLVMAddGlobalInAddressSpace(E->M, ty, ir_str(m, var->name),
                                                 module_var_as(E));
        LLVMSetAlignment(E->gvar[v], (unsigned)(var_align(var) < 16 ? 16 : var_align(var)));
        LLVMSetLinkage(E->gvar[v], LLVMInternalLinkage);
    }
    for (uint32_t v = 0; v < m->nvars; v++) {
        if (!E->gvar[v]) continue;
        const ir_var *var = &m->vars[v];
        if (var->linkage == IR_LINK_EXTERN) { LLVMSetLinkage(E->gvar[v], LLVMExternalLinkage); continue; }
        uint64_t size = E->var_size[v] ? E->var_size[v] : 1;
        LLVMValueRef init = var->ninit ? build_init(E, v, size) : NULL;
        if (!init) init = LLVMConstNull(LLVMArrayType2(E->i8, size));
        if (LLVMTypeOf(init) != LLVMGlobalGetValueType(E->gvar[v])) {
            /* replace by a global of the initializer's (struct) type */
            LLVMValueRef g = LLVMAddGlobalInAddressSpace(E->M, LLVMTypeOf(init), "",
                                                         LLVMGetPointerAddressSpace(LLVMTypeOf(E->gvar[v])));
            LLVMSetAlignment(g, LLVMGetAlignment(E->gvar[v]));
            LLVMSetLinkage(g, LLVMInternalLinkage);
            LLVMReplaceAllUsesWith(E->gvar[v], g);
            char *nm = strdup(LLVMGetValueName(E->gvar[v]));
            LLVMDeleteGlobal(E->gvar[v]);
            LLVMSetValueName2(g, nm, strlen(nm));
            free(nm);
            E->gvar[v] = g;
        }
        LLVMSetInitializer(E->gvar[v], init);
        if (var_space(E, v) == IR_S_CONST) LLVMSetGlobalConstant(E->gvar[v], 0); /* the host may write .const */
    }
    if (t->host_descriptor) { /* SPIR-V: no runtime table, no host descriptor (targets/spirv/) */
        LLVMValueRef rtg = LLVMAddGlobal(E->M, E->ptr, "__p2n_rt");
        LLVMSetInitializer(rtg, LLVMConstNull(E->ptr));
    }
    if (t->hooks && t->hooks->before_bodies) t->hooks->before_bodies(E);
    /* bodies */
    for (uint32_t fi = 0; fi < m->nfuncs && E->failed <= 200; fi++) {
        if (m->funcs[fi].has_body) emit_body(E, fi);
        else {
            E->f = &m->funcs[fi]; /* what a runtime stub cannot lower is deferred to its callers */
            E->fidx = fi;
            E->cur = E->fn[fi];
            emit_runtime_stub(E, fi);
        }
    }
    E->f = NULL;
    E->ins = NULL;
    defer_finish(E); /* stubs for what was deferred (defer_unsupported.c) */
    line_info_finish(E);
    emit_desc *desc = E->failed ? NULL : build_desc(E);
    if (!E->failed && t->host_descriptor) emit_descriptor(E, desc);
    if (!E->failed && t->hooks && t->hooks->after_bodies) t->hooks->after_bodies(E, desc);
    LLVMDisposeBuilder(E->B);
    LLVMDisposeBuilder(E->AB);
    free(E->gvar);
    free(E->var_off);
    free(E->kern_smem);
    free(E->var_size);
    free(E->fn);
    free(E->block_fn);
    free(E->fn_flags);
    free(E->tl_ok);
    *internal = E->internal_error;
    if (E->failed) {
        emit_desc_free(desc);
        LLVMDisposeModule(E->M);
        LLVMContextDispose(E->C);
        return false;
    }
    out->C = E->C;
    out->M = E->M;
    out->desc = desc;
    return true;
}
