/* amdgpu_sync.c — the CUDA warp collectives (shfl, vote, redux, match, elect) and the barriers s_barrier
 * alone cannot express (named barriers, thread counts, bar.arrive, bar.red) for AMDGPU, with the CUDA 32-lane
 * semantics of the host runtime (driver-stub/cpu/cpu_exec.c) on wave32 and on wave64 (two CUDA warps per
 * wave: every loop below runs per 32-lane half and only reads lanes of its own half).
 *
 * The participating lanes of a collective are the active lanes of the CUDA warp named by membermask (PTX
 * leaves lanes outside membermask undefined; exited lanes are inactive, as the CPU runtime drops them).
 * ds_bpermute is only ever pointed at participating (hence active) lanes: reading an inactive lane yields 0. */
#include "amdgpu_internal.h"
#include "emit_lanes.h"
#include "host_abi.h"

#include <stdlib.h>
#include <string.h>

#define BLD (E->B)

static LLVMValueRef bperm(emit_ctx *E, LLVMValueRef src_hw, LLVMValueRef v) {
    LLVMValueRef a[2] = {LLVMBuildShl(BLD, src_hw, c32(E, 2), ""), v};
    return intrin(E, "llvm.amdgcn.ds.bpermute", NULL, 0, a, 2);
}

/* participating lanes of this CUDA warp (bit = %laneid) */
static LLVMValueRef members(emit_ctx *E, LLVMValueRef mask) {
    return LLVMBuildAnd(BLD, amd_ballot32(E, LLVMConstInt(E->i1, 1, 0)), mask, "");
}

/* hardware lane of CUDA lane `l` of this lane's warp */
static LLVMValueRef hw_of(emit_ctx *E, LLVMValueRef l) { return LLVMBuildOr(BLD, l, amd_warp_half(E), ""); }

/* ------------------------------------------------------------------ redux.sync */

enum { C_ADD, C_OR, C_XOR, C_UMAX };

static LLVMValueRef combine(emit_ctx *E, unsigned c, LLVMValueRef x, LLVMValueRef y) {
    switch (c) {
    case C_ADD: return LLVMBuildAdd(BLD, x, y, "");
    case C_OR: return LLVMBuildOr(BLD, x, y, "");
    case C_XOR: return LLVMBuildXor(BLD, x, y, "");
    default: {
        LLVMValueRef a[2] = {x, y};
        return intrin(E, "llvm.umax", &E->i32, 1, a, 2);
    }
    }
}

/* a: ctx op value membermask. Every operation is mapped (x = v ^ flip) onto add/or/xor/umax, whose identity is
 * 0: and = ~or(~v), umin = ~umax(~v), signed max/min = umax on the order-preserving flips. A full warp (all 32
 * lanes participate) reduces by a 5-step butterfly inside its half; otherwise a loop visits the participating
 * lanes (uniform within the warp, since they share the membermask). */
LLVMValueRef amd_redux(emit_ctx *E, LLVMValueRef *a) {
    unsigned op = (unsigned)LLVMConstIntGetZExtValue(a[1]), c = C_ADD;
    uint32_t flip = 0;
    switch (op) {
    case P2N_REDUX_ADD: break;
    case P2N_REDUX_OR: c = C_OR; break;
    case P2N_REDUX_XOR: c = C_XOR; break;
    case P2N_REDUX_AND: c = C_OR; flip = 0xffffffffu; break;
    case P2N_REDUX_UMAX: c = C_UMAX; break;
    case P2N_REDUX_UMIN: c = C_UMAX; flip = 0xffffffffu; break;
    case P2N_REDUX_MAX: c = C_UMAX; flip = 0x80000000u; break;
    default: c = C_UMAX; flip = 0x7fffffffu; break; /* signed min: ~(v ^ sign) */
    }
    LLVMValueRef x = LLVMBuildXor(BLD, a[2], c32(E, flip), "");
    LLVMValueRef m = members(E, a[3]);
    LLVMValueRef hw = amd_hw_lane(E), half = amd_warp_half(E);
    LLVMBasicBlockRef fast = new_bb(E, "redux.full"), slow = new_bb(E, "redux.part"), loop = new_bb(E, "redux.loop"),
                      done = new_bb(E, "redux.done");
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, m, c32(E, 0xffffffffu), ""), fast, slow);

    LLVMPositionBuilderAtEnd(BLD, fast);
    LLVMValueRef r = x;
    for (unsigned k = 1; k < 32; k <<= 1) r = combine(E, c, r, bperm(E, LLVMBuildXor(BLD, hw, c32(E, k), ""), r));
    LLVMBasicBlockRef fast_end = LLVMGetInsertBlock(BLD);
    LLVMBuildBr(BLD, done);

    LLVMPositionBuilderAtEnd(BLD, slow);
    LLVMBuildBr(BLD, loop);
    LLVMPositionBuilderAtEnd(BLD, loop);
    LLVMValueRef rem = LLVMBuildPhi(BLD, E->i32, ""), acc = LLVMBuildPhi(BLD, E->i32, "");
    LLVMValueRef y = bperm(E, LLVMBuildOr(BLD, lanes_cttz32(E, rem), half, ""), x);
    LLVMValueRef acc2 = combine(E, c, acc, y);
    LLVMValueRef rem2 = LLVMBuildAnd(BLD, rem, LLVMBuildSub(BLD, rem, c32(E, 1), ""), "");
    LLVMBasicBlockRef loop_end = LLVMGetInsertBlock(BLD);
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntNE, rem2, c32(E, 0), ""), loop, done);
    LLVMAddIncoming(rem, (LLVMValueRef[]){m, rem2}, (LLVMBasicBlockRef[]){slow, loop_end}, 2);
    LLVMAddIncoming(acc, (LLVMValueRef[]){c32(E, 0), acc2}, (LLVMBasicBlockRef[]){slow, loop_end}, 2);

    LLVMPositionBuilderAtEnd(BLD, done);
    LLVMValueRef res = LLVMBuildPhi(BLD, E->i32, "");
    LLVMAddIncoming(res, (LLVMValueRef[]){r, acc2}, (LLVMBasicBlockRef[]){fast_end, loop_end}, 2);
    return LLVMBuildXor(BLD, res, c32(E, flip), "");
}

/* ------------------------------------------------------------------ match.sync, elect.sync */

/* lane primitives of a CUDA warp on AMDGPU for the shared algorithms (targets/llvm/emit_lanes.c) */
static LLVMValueRef read_lane(emit_ctx *E, LLVMValueRef v, LLVMValueRef lane) { return bperm(E, hw_of(E, lane), v); }
static LLVMValueRef priv_word(emit_ctx *E, unsigned base, LLVMValueRef id);
static LLVMValueRef sync_word(emit_ctx *E, unsigned which, LLVMValueRef id) {
    return priv_word(E, which == LANES_WORD_BAR ? AMDGPU_PRIV_BAR : AMDGPU_PRIV_RED, id);
}
static void nap(emit_ctx *E) {
    LLVMValueRef one = c32(E, 1);
    intrin(E, "llvm.amdgcn.s.sleep", NULL, 0, &one, 1);
}
static LLVMValueRef wave_count(emit_ctx *E, LLVMValueRef pred_i1);
static LLVMValueRef wave_leader(emit_ctx *E);
static void red_barrier(emit_ctx *E, LLVMValueRef id, LLVMValueRef cnt);
static const lane_ops amd_lanes = {.ballot = amd_ballot32, .read_lane = read_lane, .laneid = amd_laneid,
                                   .sync_word = sync_word, .pause = nap, .group_count = wave_count,
                                   .group_leader = wave_leader, .red_barrier = red_barrier};

/* a: ctx mode value b c membermask in_range_ptr: the source lane through ds_bpermute (emit_lanes.c) */
LLVMValueRef amd_shfl(emit_ctx *E, LLVMValueRef *a) { return lanes_shfl(E, &amd_lanes, a); }

LLVMValueRef amd_match_any(emit_ctx *E, LLVMValueRef *a) { return lanes_match_any(E, &amd_lanes, a); }
LLVMValueRef amd_match_all(emit_ctx *E, LLVMValueRef *a) { return lanes_match_all(E, &amd_lanes, a); }

/* a: ctx op io (emit_matrix.c): ldmatrix/stmatrix, mma.sync, wmma through lane reads (emit_lanes_matrix.c) */
void amd_warp_matrix(emit_ctx *E, LLVMValueRef *a) {
    if (!lanes_warp_matrix(E, &amd_lanes, (unsigned)LLVMConstIntGetZExtValue(a[1]), a[2]))
        emit_unsupported(E, "warp matrix operation (no lowering for this shape)");
}

/* a: ctx membermask leader_ptr: the lowest participating lane leads (its %laneid is the result) (emit_lanes.c) */
LLVMValueRef amd_elect(emit_ctx *E, LLVMValueRef *a) { return lanes_elect(E, &amd_lanes, a); }

/* a: ctx mode pred membermask: vote.sync on the warp's ballot (emit_lanes.c) */
LLVMValueRef amd_vote(emit_ctx *E, LLVMValueRef *a) { return lanes_vote(E, &amd_lanes, a); }

/* ------------------------------------------------------------------ barriers */

/* word `base + (id & 15)` of the AMD-private LDS area */
static LLVMValueRef priv_word(emit_ctx *E, unsigned base, LLVMValueRef id) {
    LLVMValueRef g = LLVMGetNamedGlobal(E->M, AMDGPU_LDS_PRIV);
    LLVMTypeRef ty = LLVMArrayType2(E->i32, AMDGPU_PRIV_WORDS);
    if (!g) {
        g = LLVMAddGlobalInAddressSpace(E->M, ty, AMDGPU_LDS_PRIV, 3);
        LLVMSetInitializer(g, LLVMGetPoison(ty));
        LLVMSetLinkage(g, LLVMInternalLinkage);
        LLVMSetAlignment(g, 16);
    }
    LLVMValueRef idx = LLVMBuildAdd(BLD, LLVMBuildAnd(BLD, id, c32(E, 15), ""), c32(E, base), "");
    return LLVMBuildGEP2(BLD, E->i32, g, &idx, 1, "");
}

/* Does f itself arrive on barrier 0 (bar.arrive / barrier.arrive with id 0 or a register id)? */
static bool arrives_on_zero(const ir_func *f) {
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t i = 0; i < f->blocks[b].n; i++) {
            const ir_ins *ins = &f->blocks[b].ins[i];
            if ((ins->op == IR_OP_BAR || ins->op == IR_OP_BARRIER) && ir_ins_has(ins, IR_M_ARRIVE) &&
                (ins->nops == 0 || ins->ops[0].kind != IR_OPND_IMM || ins->ops[0].val == 0))
                return true;
        }
    return false;
}

/* Marks in seen[] every function with a body reachable from fi through calls; an indirect call may reach
 * any .func (conservative). stack holds nfuncs entries. */
static void reach(const ir_module *m, uint32_t fi, bool *seen, uint32_t *stack) {
    uint32_t sp = 0;
    seen[fi] = true;
    stack[sp++] = fi;
    while (sp) {
        const ir_func *f = &m->funcs[stack[--sp]];
        for (uint32_t b = 0; b < f->nblocks; b++)
            for (uint32_t i = 0; i < f->blocks[b].n; i++) {
                const ir_ins *ins = &f->blocks[b].ins[i];
                if (ins->op != IR_OP_CALL || !ins->nops) continue;
                const ir_operand *t = &ins->ops[ins->ops[0].kind == IR_OPND_LIST ? 1 : 0];
                for (uint32_t g = 0; g < m->nfuncs; g++) {
                    bool hit = t->kind == IR_OPND_FUNC ? g == t->id : !m->funcs[g].is_entry;
                    if (hit && !seen[g] && m->funcs[g].has_body) { seen[g] = true; stack[sp++] = g; }
                }
            }
    }
}

/* Must full-CTA bar.sync 0 in function fi count arrivals in LDS instead of using s_barrier? Yes when barrier 0
 * is ever the target of bar.arrive (or could be: a register id) in a kernel that executes fi: in that kernel's
 * call tree every barrier 0 has to be the counting one. Decided per kernel (its own body and every function it
 * reaches), so one kernel using bar.arrive does not slow down the other kernels of its module; a .func takes the
 * answer of the kernels that reach it, and a .func no kernel here reaches (or one visible to other modules) the
 * whole module's. Cached as named metadata (one i32 per function, then the module-wide answer). */
static bool arrive_on_zero(emit_ctx *E) {
    static const char key[] = "p2n.amd.arrive0";
    const ir_module *m = E->m;
    uint32_t n = m->nfuncs;
    if (!LLVMGetNamedMetadataNumOperands(E->M, key)) {
        bool *own = calloc(n + 1, sizeof *own), *from_arriving = calloc(n + 1, sizeof *from_arriving);
        bool *reached = calloc(n + 1, sizeof *reached), *seen = calloc(n + 1, sizeof *seen);
        uint32_t *stack = calloc(n + 1, sizeof *stack);
        LLVMMetadataRef *ops = calloc(n + 1, sizeof *ops);
        if (!own || !from_arriving || !reached || !seen || !stack || !ops) {
            E->internal_error = true; /* out of memory: answered "yes" below, always correct */
        } else {
            bool any = false;
            for (uint32_t f = 0; f < n; f++) any |= own[f] = m->funcs[f].has_body && arrives_on_zero(&m->funcs[f]);
            for (uint32_t k = 0; k < n; k++) {
                if (!m->funcs[k].is_entry || !m->funcs[k].has_body) continue;
                memset(seen, 0, n * sizeof *seen);
                reach(m, k, seen, stack);
                bool arr = false;
                for (uint32_t f = 0; f < n; f++) arr |= seen[f] && own[f];
                for (uint32_t f = 0; f < n; f++)
                    if (seen[f]) { reached[f] = true; from_arriving[f] |= arr; }
            }
            for (uint32_t f = 0; f < n; f++) {
                bool kern = m->funcs[f].is_entry;
                bool v = kern ? from_arriving[f]
                              : (reached[f] && m->funcs[f].linkage == IR_LINK_NONE ? from_arriving[f] : any);
                ops[f] = LLVMValueAsMetadata(c32(E, v));
            }
            ops[n] = LLVMValueAsMetadata(c32(E, any));
            LLVMAddNamedMetadataOperand(E->M, key, LLVMMetadataAsValue(E->C, LLVMMDNodeInContext2(E->C, ops, n + 1)));
        }
        free(own); free(from_arriving); free(reached); free(seen); free(stack); free(ops);
        if (!LLVMGetNamedMetadataNumOperands(E->M, key)) return true;
    }
    LLVMValueRef node;
    LLVMGetNamedMetadataOperands(E->M, key, &node);
    if (LLVMGetMDNodeNumOperands(node) != n + 1 || E->fidx >= n) return true;
    LLVMValueRef *v = malloc((n + 1) * sizeof *v);
    if (!v) return true;
    LLVMGetMDNodeOperands(node, v);
    bool r = LLVMConstIntGetZExtValue(v[E->fidx]) != 0;
    free(v);
    return r;
}

/* full-CTA barrier 0 that s_barrier implements (hardware; exited waves count as arrived) */
static bool use_s_barrier(emit_ctx *E, LLVMValueRef id, LLVMValueRef cnt, bool arrive) {
    return !arrive && amd_is_const(id, 0) && amd_is_const(cnt, 0) && !arrive_on_zero(E);
}

static void s_barrier(emit_ctx *E) {
    amd_workgroup_fence(E, LLVMAtomicOrderingRelease);
    intrin(E, "llvm.amdgcn.s.barrier", NULL, 0, NULL, 0);
    amd_workgroup_fence(E, LLVMAtomicOrderingAcquire);
}

/* Counting barrier in LDS (named barriers, thread counts, bar.arrive): lanes_count_barrier, with s_sleep
 * between polls. */
static void lds_barrier(emit_ctx *E, LLVMValueRef id, LLVMValueRef cnt, bool wait) {
    lanes_count_barrier(E, &amd_lanes, id, cnt, wait);
}

static void cta_barrier(emit_ctx *E, LLVMValueRef id, LLVMValueRef cnt, bool fast) {
    if (fast) s_barrier(E);
    else lds_barrier(E, id, cnt, true);
}

/* a: ctx id count arrive. The shared emission already brackets bar/barrier with CTA-scope fences
 * (workgroup here), so the s_barrier needs none of its own. */
void amd_barrier(emit_ctx *E, LLVMValueRef *a) {
    bool arrive = !amd_is_const(a[3], 0);
    if (use_s_barrier(E, a[1], a[2], arrive)) intrin(E, "llvm.amdgcn.s.barrier", NULL, 0, NULL, 0);
    else lds_barrier(E, a[1], a[2], !arrive);
}

/* bar.red counts per wave (lanes_barrier_red): the lanes of the whole wave (both CUDA warps on wave64) whose
 * pred_i1 holds, and whether this is the wave's first active lane */
static LLVMValueRef wave_count(emit_ctx *E, LLVMValueRef pred_i1) {
    LLVMValueRef b = intrin(E, "llvm.amdgcn.ballot", &E->i64, 1, &pred_i1, 1);
    return LLVMBuildTrunc(BLD, intrin(E, "llvm.ctpop", &E->i64, 1, &b, 1), E->i32, "");
}

static LLVMValueRef wave_leader(emit_ctx *E) {
    LLVMValueRef t = LLVMConstInt(E->i1, 1, 0);
    LLVMValueRef act = intrin(E, "llvm.amdgcn.ballot", &E->i64, 1, &t, 1);
    LLVMValueRef first = LLVMBuildTrunc(BLD, intrin(E, "llvm.cttz", &E->i64, 1, (LLVMValueRef[]){act, LLVMConstInt(E->i1, 0, 0)}, 2), E->i32, "");
    LLVMValueRef hw = amd_hw_lane(E);
    return LLVMBuildICmp(BLD, LLVMIntEQ, hw, first, "");
}

/* bar.red's barriers: s_barrier where it implements the barrier, else the counting one */
static void red_barrier(emit_ctx *E, LLVMValueRef id, LLVMValueRef cnt) {
    cta_barrier(E, id, cnt, use_s_barrier(E, id, cnt, false));
}

/* a: ctx id count op pred (emit_lanes.c: counted per wave in an LDS word) */
LLVMValueRef amd_barrier_red(emit_ctx *E, LLVMValueRef *a) { return lanes_barrier_red(E, &amd_lanes, a); }
