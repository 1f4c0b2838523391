/* emit_cluster.c — sm_90 thread-block-cluster forms with every block a cluster of one (the driver stub has no
 * cluster launch: a kernel or launch that needs more blocks per cluster is refused, see emit_module.c and
 * driver-stub/launch.c), on every target.
 *
 * In a cluster of one, rank 0 is the block itself and a shared::cluster address of it is its shared address:
 *  - mapa returns its operand for rank 0 and takes the trap path for any other rank (no such block);
 *    getctarank is 0;
 *  - cp.async.bulk (non-tensor) is a copy done at once by the issuing thread, then its bytes are completed on the
 *    mbarrier (complete_tx, the same accounting as mbarrier.complete_tx in emit_sync.c) or, for .bulk_group,
 *    nothing: commit_group and wait_group are no-ops after copies that are already complete;
 *    .multicast::cluster needs ctaMask == 1 (this block only), anything else traps;
 *  - cp.reduce.async.bulk: one relaxed atomic per element (the elements are independent reductions, other
 *    threads may reduce into the same memory), then complete_tx as above;
 *  - st.async: the stores then complete_tx of their bytes; red.async: the atomic then complete_tx;
 *  - cp.async.bulk.prefetch: nothing.
 * The copies are done by one thread, before its next instruction: the mbarrier's release (emit_sync.c, AcqRel
 * compare-exchange) publishes them to the waiters, as the hardware's completion does.
 *
 * Cluster launches. NVIDIA (H200, recorded: conformance cases cluster/bulk_shared_to_cluster,
 * reduce_shared_cluster, st_async_red_async and their _nomapa variants) fails a launch WITHOUT cluster dimensions
 * with CUDA_ERROR_ILLEGAL_INSTRUCTION when a thread executes an async operation whose destination is
 * shared::cluster memory written from the SM: st.async, red.async, cp.async.bulk and cp.reduce.async.bulk
 * .shared::cluster.shared::cta — whatever the address (own block's shared::cta address or mapa's result). The same
 * kernels with .reqnctapercluster 1,1,1 (the _req1 cases) run. What still runs outside a cluster launch
 * (recorded, cases that pass): mapa, getctarank, ld.shared::cluster, barrier.cluster, the %cluster_* registers,
 * mbarrier operations on shared::cluster addresses, cp.async.bulk .shared::cluster.global (also .multicast),
 * cp.async.bulk/cp.reduce.async.bulk to .global. So those four forms test the launch (emit_cluster_launch): a
 * kernel that declares its cluster shape (.reqnctapercluster, or .explicitcluster, which cannot be launched
 * without cluster dimensions) needs no test; other kernels and every .func read the per-launch flag the driver
 * sets (ctx launch_flags, P2N_LAUNCH_CLUSTER: cluster dimensions given by cuLaunchKernelEx or cuFuncSetAttribute,
 * or the kernel's .reqnctapercluster). */
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "host_abi.h"

#define BLD E->B

/* the k-th state-space word of the instruction (cp.async.bulk names destination then source) */
static ir_space nth_space(const ir_ins *ins, unsigned k) {
    for (unsigned i = 0; i < ins->nwords; i++)
        if (IR_WORD_KIND(ins->words[i]) == IR_W_SPACE && k-- == 0) return (ir_space)IR_WORD_ID(ins->words[i]);
    return IR_S_NONE;
}

/* the trap path when cond holds (a block other than rank 0 of a cluster of one) */
static void trap_if(emit_ctx *E, LLVMValueRef cond) {
    LLVMBasicBlockRef t = new_bb(E, "notcluster1"), c = new_bb(E, "cluster1");
    LLVMBuildCondBr(BLD, cond, t, c);
    LLVMPositionBuilderAtEnd(BLD, t);
    LLVMValueRef a[1] = {E->ctx};
    rt_call(E, RT_TRAP, E->vd, a, 1);
    LLVMBuildUnreachable(BLD);
    LLVMPositionBuilderAtEnd(BLD, c);
}

/* the kernel being emitted declares its cluster shape: every launch of it is a cluster launch (an .explicitcluster
 * kernel without .reqnctapercluster cannot be launched without cluster dimensions: driver-stub/launch.c) */
static bool declared_cluster(const emit_ctx *E) {
    return E->f && E->f->is_entry && (E->f->perf.explicitcluster || E->f->perf.n_reqnctapercluster);
}

LLVMValueRef emit_cluster_launch(emit_ctx *E) {
    if (declared_cluster(E)) return ci(E->i1, 1);
    /* AMDGPU: the kernels that read the flags take them as a hidden argument: this kernel, or every kernel when a
     * .func reads them (no call graph here) */
    if (E->f && E->f->is_entry && E->fn_flags) E->fn_flags[E->fidx] |= P2N_KERNEL_LAUNCH_FLAGS;
    else note_flags(E, P2N_KERNEL_LAUNCH_FLAGS);
    LLVMValueRef fl = ctx_field(E, CTX_LAUNCH_FLAGS, E->i32);
    return LLVMBuildICmp(BLD, LLVMIntNE, LLVMBuildAnd(BLD, fl, c32(E, P2N_LAUNCH_CLUSTER), ""), c32(E, 0), "");
}

/* the shared::cluster async operation `what` outside a cluster launch: CUDA_ERROR_ILLEGAL_INSTRUCTION (above) */
static void illegal_unless_cluster_launch(emit_ctx *E, const char *what) {
    LLVMValueRef ok = emit_cluster_launch(E);
    if (LLVMIsAConstantInt(ok)) return;
    LLVMBasicBlockRef bad = new_bb(E, "notclusterlaunch"), cont = new_bb(E, "clusterlaunch");
    LLVMBuildCondBr(BLD, ok, cont, bad);
    LLVMPositionBuilderAtEnd(BLD, bad);
    char text[160];
    snprintf(text, sizeof text, "%s outside a cluster launch", what);
    LLVMValueRef nul = LLVMConstNull(E->ptr);
    LLVMValueRef a[6] = {E->ctx, device_cstr(E, text, ".p2n.illegal"), nul, c32(E, 0), nul, c64(E, P2N_ASSERT_ILLEGAL_INSTRUCTION)};
    rt_call(E, RT_ASSERTFAIL, E->vd, a, 6);
    LLVMBuildUnreachable(BLD);
    LLVMPositionBuilderAtEnd(BLD, cont);
}

static const ir_mod red_ops[] = {IR_M_ADD, IR_M_MIN, IR_M_MAX, IR_M_INC, IR_M_DEC, IR_M_AND, IR_M_OR, IR_M_XOR};

static ir_mod red_op(const ir_ins *ins) {
    for (unsigned k = 0; k < sizeof red_ops / sizeof red_ops[0]; k++)
        if (ir_ins_has(ins, red_ops[k])) return red_ops[k];
    return IR_M_NONE;
}

/* bytes / eb elements from src to dst: copied (op == IR_M_NONE, eb 16) or reduced into dst atomically */
static bool bulk_loop(emit_ctx *E, LLVMValueRef dst, LLVMValueRef src, LLVMValueRef bytes, ir_type t, ir_mod op,
                      unsigned ssid) {
    unsigned eb = op == IR_M_NONE ? 16 : tbits(t) / 8;
    LLVMTypeRef et = op == IR_M_NONE ? LLVMVectorType(E->i32, 4) : ty_of(E, t);
    if (op != IR_M_NONE) {
        /* check the form once, outside the loop (emit_atomic_rmw builds nothing when it returns NULL) */
        bool ok = t == IR_T_F16 || t == IR_T_BF16 ? op == IR_M_ADD || op == IR_M_MIN || op == IR_M_MAX
                : t_float(t) ? op == IR_M_ADD : tbits(t) == 32 || tbits(t) == 64;
        if (!ok || ((op == IR_M_INC || op == IR_M_DEC) && tbits(t) != 32)) return false;
    }
    LLVMValueRef n = LLVMBuildUDiv(BLD, zext_to(E, bytes, E->i64), c64(E, eb), "");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(BLD), loop = new_bb(E, "bulk"), done = new_bb(E, "bulkdone");
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, n, c64(E, 0), ""), done, loop);
    LLVMPositionBuilderAtEnd(BLD, loop);
    LLVMValueRef i = LLVMBuildPhi(BLD, E->i64, "");
    LLVMValueRef off = LLVMBuildMul(BLD, i, c64(E, eb), "");
    LLVMValueRef s = gep8(E, src, off), d = gep8(E, dst, off);
    LLVMValueRef v = LLVMBuildLoad2(BLD, et, s, "");
    LLVMSetAlignment(v, op == IR_M_NONE ? 4 : eb); /* PTX requires 16-byte alignment: never assume more than 4 */
    if (op == IR_M_NONE) {
        LLVMValueRef st = LLVMBuildStore(BLD, v, d);
        LLVMSetAlignment(st, 4);
    } else {
        emit_atomic_rmw(E, d, t, op, v, ssid); /* f16/bf16 travel as i16 bits (ty_of) */
    }
    LLVMValueRef i1 = LLVMBuildAdd(BLD, i, c64(E, 1), "");
    LLVMBasicBlockRef here = LLVMGetInsertBlock(BLD);
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntULT, i1, n, ""), loop, done);
    LLVMValueRef inv[2] = {c64(E, 0), i1};
    LLVMBasicBlockRef inb[2] = {pre, here};
    LLVMAddIncoming(i, inv, inb, 2);
    LLVMPositionBuilderAtEnd(BLD, done);
    return true;
}

/* cp.async.bulk / cp.reduce.async.bulk (non-tensor):
 *   .shared::cluster|.shared::cta <- .global | .shared::cluster <- .shared::cta:  [dst], [src], size, [mbar]
 *       {, ctaMask (.multicast::cluster)} {, policy (.L2::cache_hint)}
 *   .global <- .shared::cta (.bulk_group): [dst], [src], size {, policy} */
static bool emit_bulk(emit_ctx *E, const ir_ins *ins, bool reduce) {
    const ir_operand *o = ins->ops;
    if (ir_ins_has(ins, IR_M_CP_MASK) || ins->nops < 3) return false; /* byte masks (sm_100) */
    ir_space dsp = nth_space(ins, 0), ssp = nth_space(ins, 1);
    bool mbar = ir_ins_has(ins, IR_M_MBARRIER_COMPLETE_TX_BYTES), mcast = ir_ins_has(ins, IR_M_MULTICAST_CLUSTER);
    unsigned want = 3 + mbar + mcast + ir_ins_has(ins, IR_M_L2_CACHE_HINT);
    if (ins->nops != want || (mbar && o[3].kind != IR_OPND_ADDR) || (!mbar && !ir_ins_has(ins, IR_M_BULK_GROUP)))
        return false;
    if (dsp == IR_S_NONE || ssp == IR_S_NONE) return false;
    ir_mod op = IR_M_NONE;
    ir_type t = IR_T_NONE;
    if (reduce) {
        op = red_op(ins);
        t = ir_ins_type(ins, 0);
        if (op == IR_M_NONE || t == IR_T_NONE) return false;
    }
    if (dsp == IR_S_SHARED_CLUSTER && ir_space_base[ssp] == IR_S_SHARED)
        illegal_unless_cluster_launch(E, reduce ? "cp.reduce.async.bulk.shared::cluster.shared::cta"
                                                : "cp.async.bulk.shared::cluster.shared::cta");
    if (mcast) trap_if(E, LLVMBuildICmp(BLD, LLVMIntNE, rd(E, &o[4], IR_T_U16), ci(E->i16, 1), ""));
    LLVMValueRef dst = mem_addr(E, &o[0], dsp), src = mem_addr(E, &o[1], ssp);
    LLVMValueRef bytes = rd(E, &o[2], IR_T_U32);
    p2n_scope sc = ir_space_base[dsp] == IR_S_GLOBAL ? P2N_SCOPE_GPU : P2N_SCOPE_CLUSTER;
    if (!bulk_loop(E, dst, src, bytes, t, op, scope_id(E, sc))) return false;
    if (mbar) emit_mbarrier_complete_tx(E, addr_of(E, &o[3], IR_S_SHARED_CLUSTER), bytes);
    return true;
}

/* st.async{.v2,.v4}.type [addr], value, [mbar] / red.async.op.type [addr], value{, [mbar]} */
static bool emit_async_store(emit_ctx *E, const ir_ins *ins) {
    const ir_operand *o = ins->ops;
    ir_type t = ir_ins_type(ins, 0);
    if (t == IR_T_NONE || ins->nops < 2 || tbits(t) < 8) return false;
    bool mbar = ins->nops >= 3 && o[2].kind == IR_OPND_ADDR;
    if (ins->nops > 3 || (ins->nops == 3 && !mbar)) return false;
    ir_space sp = ir_ins_space(ins);
    /* the shared::cluster forms (a generic address with the mbarrier completion is one too); not sm_100's
     * .mmio/.release .global forms */
    if (sp == IR_S_SHARED_CLUSTER || (sp == IR_S_NONE && mbar))
        illegal_unless_cluster_launch(E, ins->op == IR_OP_RED_ASYNC ? "red.async.shared::cluster"
                                                                    : "st.async.shared::cluster");
    LLVMValueRef p = mem_addr(E, &o[0], sp);
    unsigned eb = tbits(t) / 8, bytes;
    if (ins->op == IR_OP_RED_ASYNC) {
        ir_mod op = red_op(ins);
        if (op == IR_M_NONE || (!t_float(t) && tbits(t) != 32 && tbits(t) != 64) ||
            ((op == IR_M_INC || op == IR_M_DEC) && tbits(t) != 32))
            return false;
        if (!emit_atomic_rmw(E, p, t, op, rd(E, &o[1], t), scope_id(E, ins_scope(ins, P2N_SCOPE_CLUSTER))))
            return false;
        bytes = eb;
    } else {
        unsigned n = ir_ins_has(ins, IR_M_V4) ? 4 : ir_ins_has(ins, IR_M_V2) ? 2 : 1;
        const ir_operand *vals = &o[1];
        if (n > 1) {
            if (o[1].kind != IR_OPND_VEC || o[1].aux != n) return false;
            vals = ir_elems(&o[1]);
        }
        for (unsigned k = 0; k < n; k++) {
            LLVMValueRef s = LLVMBuildStore(BLD, rd(E, &vals[k], t), gep8(E, p, c64(E, (uint64_t)k * eb)));
            LLVMSetAlignment(s, eb);
        }
        bytes = n * eb;
    }
    if (mbar) emit_mbarrier_complete_tx(E, addr_of(E, &o[2], IR_S_SHARED_CLUSTER), c32(E, bytes));
    return true;
}

bool emit_cluster(emit_ctx *E, const ir_ins *ins) {
    const ir_operand *o = ins->ops;
    switch ((ir_opcode)ins->op) {
    case IR_OP_MAPA: {
        /* mapa{.shared::cluster}.u32/.u64 d, a, rank: rank 0 is this block, a's own address */
        ir_type t = ir_ins_type(ins, 0);
        if (ins->nops != 3 || (tbits(t) != 32 && tbits(t) != 64)) return false;
        LLVMValueRef a = rd(E, &o[1], t);
        trap_if(E, LLVMBuildICmp(BLD, LLVMIntNE, rd(E, &o[2], IR_T_U32), c32(E, 0), ""));
        wr(E, &o[0], t, a);
        return true;
    }
    case IR_OP_GETCTARANK:
        /* every shared::cluster address is this block's: rank 0 */
        if (ins->nops != 2) return false;
        wr(E, &o[0], IR_T_U32, c32(E, 0));
        return true;
    case IR_OP_CP_ASYNC_BULK: return emit_bulk(E, ins, false);
    case IR_OP_CP_REDUCE_ASYNC_BULK: return emit_bulk(E, ins, true);
    case IR_OP_ST_ASYNC:
    case IR_OP_RED_ASYNC: return emit_async_store(E, ins);
    case IR_OP_CP_ASYNC_BULK_PREFETCH:      /* a hint */
    case IR_OP_CP_ASYNC_BULK_COMMIT_GROUP:  /* the group's copies are complete already */
    case IR_OP_CP_ASYNC_BULK_WAIT_GROUP: return true;
    default: return false;
    }
}
