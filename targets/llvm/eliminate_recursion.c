/* eliminate_recursion.c — recursion without a call stack: explicit-stack transform of call-graph cycles.
 *
 * Why: CUDA lets device functions recurse (a per-thread stack); OpenCL C forbids it, SPIR-V consumers need not
 * support it (PoCL 3.1 crashes building such a module, Intel's IGC prefers none). Runs on the emitted LLVM
 * module, before the target's lowering, when p2n_options.device_lacks has P2N_LACKS_RECURSION (always for
 * spirv64: its target_desc.always_lacks; the first pass of every target's lowering list).
 *
 * Method. Every .func has the type void(ctx, retbuf, parambuf) (emit.h), so all members of a strongly
 * connected component (SCC) of the call graph share one signature. For each SCC with a cycle:
 *  1. SROA each member, so PTX registers are SSA values and only what really crosses a call needs memory;
 *  2. split each block after every call to a member (the call's continuation starts a block);
 *  3. liveness (backward data flow over SSA values): the values live into a continuation are live across a
 *     call and must survive the callee's activation, which runs the same code;
 *  4. a frame per member: header {i32 return-point id, ctx, retbuf, parambuf}, every alloca of the member
 *     (its parameter/return buffers and .local arrays: per activation, and passed by address to callees),
 *     then one slot per value live across a call;
 *  5. one new function `<first member>.p2n.stack` holds all members' blocks plus an entry, a return
 *     dispatcher and a trap block, and keeps its frames in one private array (the stack) indexed by a frame
 *     offset variable (an alloca that mem2reg turns into SSA): an alloca becomes frame base + offset, a
 *     demoted value is stored to its slot after its definition and loaded before each use, arguments are
 *     loaded from the header; a call to a member checks the budget (overflow -> the target's trap path,
 *     never a write past the array), writes the callee's header and branches to the callee's entry; `ret`
 *     branches to the dispatcher, which reads the return-point id of the finishing frame, pops to the
 *     caller's frame and continues after the call (id 0: the outermost activation returns);
 *  6. every member keeps its name and type as a thin wrapper that calls the new function with a small
 *     {i32 member index, parambuf} record in place of parambuf, so direct calls from outside the SCC, address-
 *     taken uses and kernels stay as they were (the inliner removes the wrapper).
 * Why frames hold values only where needed (not every register): the budget is per work-item private
 * memory, so frame size decides the reachable depth. Indirect calls: a call through a pointer may reach any
 * address-taken function; a cycle through one is diagnosed (not rewritten). Calls through the host runtime
 * table (a loaded pointer, never a PTX function) are not call-graph edges. */
#include <llvm-c/Analysis.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "eliminate_recursion.h"
#include "recursion_graph.h"
#include "emit.h"
#include "support.h"

#define HDR_BYTES 32u /* i32 return id at 0, then ctx, retbuf, parambuf in 8-byte slots */

static const char *vname(LLVMValueRef v) {
    size_t n;
    const char *s = LLVMGetValueName2(v, &n);
    return s && *s ? s : "<unnamed>";
}

static bool is_lifetime(LLVMValueRef I) {
    if (!LLVMIsACallInst(I)) return false;
    LLVMValueRef f = LLVMGetCalledValue(I);
    return f && LLVMIsAFunction(f) && !strncmp(vname(f), "llvm.lifetime.", 14);
}

/* ---- one SCC */
typedef struct callsite {
    LLVMValueRef call;
    LLVMBasicBlockRef cont;
    uint32_t caller, callee; /* member indexes */
} callsite;

typedef struct member {
    LLVMValueRef fn;
    LLVMBasicBlockRef entry;
    uint32_t frame;            /* frame bytes (multiple of the stack alignment) */
    LLVMValueRef *alloca_v;    /* allocas and their frame offsets (alloca_off: allocated by layout) */
    uint32_t *alloca_off, nalloca, capalloca;
    LLVMValueRef *dem;         /* values live across a call and their slots (dem_off: allocated by layout) */
    uint32_t *dem_off, ndem;
} member;

typedef struct xform {
    LLVMModuleRef M;
    LLVMContextRef C;
    LLVMBuilderRef B;
    LLVMTargetDataRef TD;
    const target_desc *t;
    p2n_diags *d;
    bool *internal;
    member *m;
    uint32_t nm;
    callsite *cs;
    uint32_t ncs, capcs;
    LLVMTypeRef i8, i32;
    LLVMValueRef merged, stack, fpoff;
    LLVMBasicBlockRef dispatch, trap;
    uint32_t stack_bytes, align;
} xform;

static LLVMValueRef k32(xform *X, uint64_t v) { return LLVMConstInt(X->i32, v, 0); }

/* everything after I into a new block (llvm_split_after), I's block ending in a branch to it */
static LLVMBasicBlockRef split_after(xform *X, LLVMValueRef I) {
    LLVMBasicBlockRef old = LLVMGetInstructionParent(I), nb = llvm_split_after(X->C, X->B, I);
    LLVMPositionBuilderAtEnd(X->B, old);
    LLVMBuildBr(X->B, nb);
    return nb;
}

static bool member_of(xform *X, LLVMValueRef f, uint32_t *k) {
    for (uint32_t i = 0; i < X->nm; i++)
        if (X->m[i].fn == f) { *k = i; return true; }
    return false;
}

/* ---- frames */
static uint32_t slot_align(uint64_t size) {
    uint32_t a = 1;
    while (a < size && a < 16) a *= 2;
    return a;
}

static uint64_t alloca_bytes(xform *X, LLVMValueRef a) {
    uint64_t n = LLVMConstIntGetZExtValue(LLVMGetOperand(a, 0));
    uint64_t s = LLVMABISizeOfType(X->TD, LLVMGetAllocatedType(a)) * n;
    return s ? s : 1;
}

static bool layout(xform *X, member *mb) {
    uint64_t off = HDR_BYTES;
    mb->alloca_off = calloc(mb->nalloca + 1, sizeof *mb->alloca_off);
    mb->dem_off = calloc(mb->ndem + 1, sizeof *mb->dem_off);
    if (!mb->alloca_off || !mb->dem_off) return false;
    for (uint32_t i = 0; i < mb->nalloca; i++) {
        unsigned al = LLVMGetAlignment(mb->alloca_v[i]);
        off = p2n_align_up(off, al ? al : 16);
        mb->alloca_off[i] = (uint32_t)off;
        off += alloca_bytes(X, mb->alloca_v[i]);
    }
    for (uint32_t i = 0; i < mb->ndem; i++) {
        uint64_t s = LLVMStoreSizeOfType(X->TD, LLVMTypeOf(mb->dem[i]));
        off = p2n_align_up(off, slot_align(s));
        mb->dem_off[i] = (uint32_t)off;
        off += s ? s : 1;
    }
    off = p2n_align_up(off, X->align);
    if (off > (1u << 30)) return false;
    mb->frame = (uint32_t)off;
    return true;
}

/* address of byte `off` of the current activation's frame, built at the builder's position */
static LLVMValueRef frame_at(xform *X, uint32_t off) {
    LLVMValueRef o = LLVMBuildLoad2(X->B, X->i32, X->fpoff, "");
    if (off) o = LLVMBuildNUWAdd(X->B, o, k32(X, off), "");
    return LLVMBuildGEP2(X->B, X->i8, X->stack, &o, 1, "");
}

static LLVMValueRef load_at(xform *X, LLVMValueRef p, LLVMTypeRef ty, unsigned al) {
    LLVMValueRef l = LLVMBuildLoad2(X->B, ty, p, "");
    LLVMSetAlignment(l, al);
    return l;
}
static void store_at(xform *X, LLVMValueRef v, LLVMValueRef p, unsigned al) {
    LLVMSetAlignment(LLVMBuildStore(X->B, v, p), al);
}

/* What replaces a use of V right before its user: the value loaded from frame slot `off` (is_addr false),
 * or the frame address itself (an alloca's replacement, cast to V's pointer type if need be). */
static LLVMValueRef replacement(xform *X, LLVMValueRef V, uint32_t off, bool is_addr) {
    LLVMValueRef p = frame_at(X, off);
    LLVMTypeRef ty = LLVMTypeOf(V);
    if (is_addr) return ty == LLVMTypeOf(p) ? p : LLVMBuildAddrSpaceCast(X->B, p, ty, "");
    return load_at(X, p, ty, slot_align(LLVMStoreSizeOfType(X->TD, ty)));
}

/* Replaces every use of V except by `skip`: before the user, or before the incoming block's terminator for a
 * phi (one value per incoming block, as a phi requires). Lifetime markers of an alloca are deleted. */
static bool replace_uses(xform *X, LLVMValueRef V, uint32_t off, bool is_addr, LLVMValueRef skip) {
    LLVMValueRef *users = NULL;
    uint32_t nu = 0, capu = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(V); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef U = LLVMGetUser(u);
        if (U == skip) continue;
        if (!rec_grow((void **)&users, &capu, nu + 1, sizeof *users)) { free(users); return false; }
        users[nu++] = U;
    }
    bool ok = true;
    for (uint32_t k = 0; k < nu && ok; k++) {
        LLVMValueRef U = users[k];
        if (!U) continue; /* an erased lifetime marker listed twice */
        if (!LLVMIsAInstruction(U)) { ok = false; break; } /* a constant cannot refer to an instruction */
        if (is_addr && is_lifetime(U)) {
            LLVMInstructionEraseFromParent(U);
            for (uint32_t j = k + 1; j < nu; j++) if (users[j] == U) users[j] = NULL;
            continue;
        }
        if (LLVMIsAPHINode(U)) {
            unsigned n = LLVMCountIncoming(U);
            bool *mine = calloc(n + 1, 1);
            if (!mine) { ok = false; break; }
            for (unsigned i = 0; i < n; i++) mine[i] = LLVMGetIncomingValue(U, i) == V;
            for (unsigned i = 0; i < n; i++) {
                if (!mine[i]) continue;
                LLVMBasicBlockRef pb = LLVMGetIncomingBlock(U, i);
                LLVMValueRef r = NULL;
                for (unsigned j = 0; j < i && !r; j++)
                    if (mine[j] && LLVMGetIncomingBlock(U, j) == pb) r = LLVMGetIncomingValue(U, j);
                if (!r) {
                    LLVMPositionBuilderBefore(X->B, LLVMGetBasicBlockTerminator(pb));
                    r = replacement(X, V, off, is_addr);
                }
                LLVMSetOperand(U, i, r);
            }
            free(mine);
            continue;
        }
        LLVMValueRef r = NULL;
        for (int o = 0, n = LLVMGetNumOperands(U); o < n; o++) {
            if (LLVMGetOperand(U, o) != V) continue;
            if (!r) {
                LLVMPositionBuilderBefore(X->B, U);
                r = replacement(X, V, off, is_addr);
            }
            LLVMSetOperand(U, o, r);
        }
    }
    free(users);
    return ok;
}

/* Allocas -> frame addresses, arguments -> header loads, values live across a call -> slots. */
static bool demote(xform *X, member *mb) {
    for (uint32_t i = 0; i < mb->nalloca; i++) {
        if (!replace_uses(X, mb->alloca_v[i], mb->alloca_off[i], true, NULL)) return false;
        LLVMInstructionEraseFromParent(mb->alloca_v[i]);
    }
    for (unsigned j = 0; j < 3; j++)
        if (!replace_uses(X, LLVMGetParam(mb->fn, j), 8 + 8 * j, false, NULL)) return false;
    for (uint32_t i = 0; i < mb->ndem; i++) {
        LLVMValueRef V = mb->dem[i], at = LLVMGetNextInstruction(V);
        while (at && LLVMIsAPHINode(at)) at = LLVMGetNextInstruction(at);
        if (!at) return false;
        LLVMPositionBuilderBefore(X->B, at);
        LLVMValueRef p = frame_at(X, mb->dem_off[i]);
        LLVMValueRef st = LLVMBuildStore(X->B, V, p);
        LLVMSetAlignment(st, slot_align(LLVMStoreSizeOfType(X->TD, LLVMTypeOf(V))));
        if (!replace_uses(X, V, mb->dem_off[i], false, st)) return false;
    }
    return true;
}

/* The target's trap path for a stack overflow: CUDA reports an overflow of its per-thread stack as a launch
 * failure, so does a trap on every target here (host runtime table, SPIR-V error record, llvm.trap). */
static void build_trap(xform *X) {
    LLVMPositionBuilderAtEnd(X->B, X->trap);
    LLVMValueRef ctx = LLVMGetParam(X->merged, 0);
    X->t->build_trap(X->B, X->M, ctx);
    LLVMBuildUnreachable(X->B);
}

/* The new function's entry: the stack, frame 0 from the arguments, a jump to the member that was called. */
static void build_entry(xform *X) {
    LLVMValueRef F = X->merged;
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(X->C, F, "entry");
    LLVMPositionBuilderAtEnd(X->B, entry);
    X->stack = LLVMBuildAlloca(X->B, LLVMArrayType2(X->i8, X->stack_bytes), "p2n.stack");
    LLVMSetAlignment(X->stack, X->align);
    X->fpoff = LLVMBuildAlloca(X->B, X->i32, "p2n.fp");
    LLVMValueRef rec = LLVMGetParam(F, 2), o8 = LLVMConstInt(LLVMInt64TypeInContext(X->C), 8, 0);
    LLVMValueRef which = load_at(X, rec, X->i32, 4);
    LLVMValueRef par = load_at(X, LLVMBuildGEP2(X->B, X->i8, rec, &o8, 1, ""), LLVMTypeOf(rec), 8);
    store_at(X, k32(X, 0), X->fpoff, 4);
    store_at(X, k32(X, 0), frame_at(X, 0), 16);
    store_at(X, LLVMGetParam(F, 0), frame_at(X, 8), 8);
    store_at(X, LLVMGetParam(F, 1), frame_at(X, 16), 8);
    store_at(X, par, frame_at(X, 24), 8);
    LLVMValueRef sw = LLVMBuildSwitch(X->B, which, X->m[0].entry, X->nm);
    for (uint32_t i = 1; i < X->nm; i++) LLVMAddCase(sw, k32(X, i), X->m[i].entry);
}

/* A call to a member: budget check, callee's header, jump to its entry. Return point id = index + 1. */
static void build_push(xform *X, uint32_t c) {
    callsite *s = &X->cs[c];
    LLVMValueRef I = s->call, br = LLVMGetNextInstruction(I);
    LLVMValueRef a[3] = {LLVMGetOperand(I, 0), LLVMGetOperand(I, 1), LLVMGetOperand(I, 2)};
    LLVMPositionBuilderBefore(X->B, I);
    LLVMValueRef cur = LLVMBuildLoad2(X->B, X->i32, X->fpoff, "");
    LLVMValueRef nw = LLVMBuildNUWAdd(X->B, cur, k32(X, X->m[s->caller].frame), "");
    LLVMValueRef end = LLVMBuildNUWAdd(X->B, nw, k32(X, X->m[s->callee].frame), "");
    LLVMValueRef ovf = LLVMBuildICmp(X->B, LLVMIntUGT, end, k32(X, X->stack_bytes), "");
    LLVMBasicBlockRef push = LLVMAppendBasicBlockInContext(X->C, X->merged, "push");
    LLVMBuildCondBr(X->B, ovf, X->trap, push);
    LLVMInstructionEraseFromParent(I);
    LLVMInstructionEraseFromParent(br);
    LLVMPositionBuilderAtEnd(X->B, push);
    store_at(X, nw, X->fpoff, 4);
    store_at(X, k32(X, c + 1), frame_at(X, 0), 16);
    for (unsigned j = 0; j < 3; j++) store_at(X, a[j], frame_at(X, 8 + 8 * j), 8);
    LLVMBuildBr(X->B, X->m[s->callee].entry);
}

/* `ret` of any member: read the return point of the finishing frame, pop, continue after the call. */
static void build_dispatch(xform *X) {
    LLVMPositionBuilderAtEnd(X->B, X->dispatch);
    LLVMValueRef id = load_at(X, frame_at(X, 0), X->i32, 16);
    LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(X->C, X->merged, "");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(X->C, X->merged, "");
    LLVMValueRef sw = LLVMBuildSwitch(X->B, id, bad, X->ncs + 1);
    LLVMAddCase(sw, k32(X, 0), done);
    for (uint32_t c = 0; c < X->ncs; c++) {
        LLVMBasicBlockRef r = LLVMAppendBasicBlockInContext(X->C, X->merged, "pop");
        LLVMAddCase(sw, k32(X, c + 1), r);
        LLVMPositionBuilderAtEnd(X->B, r);
        LLVMValueRef cur = LLVMBuildLoad2(X->B, X->i32, X->fpoff, "");
        store_at(X, LLVMBuildNUWSub(X->B, cur, k32(X, X->m[X->cs[c].caller].frame), ""), X->fpoff, 4);
        LLVMBuildBr(X->B, X->cs[c].cont);
    }
    LLVMPositionBuilderAtEnd(X->B, bad);
    LLVMBuildUnreachable(X->B);
    LLVMPositionBuilderAtEnd(X->B, done);
    LLVMBuildRetVoid(X->B);
}

/* The member, now empty, becomes a wrapper: merged(ctx, retbuf, &{index, parambuf}). */
static void build_wrapper(xform *X, uint32_t i) {
    LLVMValueRef F = X->m[i].fn;
    LLVMPositionBuilderAtEnd(X->B, LLVMAppendBasicBlockInContext(X->C, F, "entry"));
    LLVMValueRef rec = LLVMBuildAlloca(X->B, LLVMArrayType2(X->i8, 16), "");
    LLVMSetAlignment(rec, 8);
    LLVMValueRef o8 = LLVMConstInt(LLVMInt64TypeInContext(X->C), 8, 0);
    store_at(X, k32(X, i), rec, 8);
    store_at(X, LLVMGetParam(F, 2), LLVMBuildGEP2(X->B, X->i8, rec, &o8, 1, ""), 8);
    LLVMTypeRef pt = LLVMTypeOf(LLVMGetParam(F, 2));
    LLVMValueRef r = LLVMTypeOf(rec) == pt ? rec : LLVMBuildAddrSpaceCast(X->B, rec, pt, "");
    LLVMValueRef a[3] = {LLVMGetParam(F, 0), LLVMGetParam(F, 1), r};
    LLVMValueRef call = LLVMBuildCall2(X->B, LLVMGlobalGetValueType(X->merged), X->merged, a, 3, "");
    LLVMSetInstructionCallConv(call, LLVMGetFunctionCallConv(X->merged));
    LLVMBuildRetVoid(X->B);
}

static void copy_fn_attrs(LLVMValueRef from, LLVMValueRef to) {
    unsigned n = LLVMGetAttributeCountAtIndex(from, LLVMAttributeFunctionIndex);
    LLVMAttributeRef *a = calloc(n + 1, sizeof *a);
    if (!a) return;
    LLVMGetAttributesAtIndex(from, LLVMAttributeFunctionIndex, a);
    for (unsigned i = 0; i < n; i++) LLVMAddAttributeAtIndex(to, LLVMAttributeFunctionIndex, a[i]);
    free(a);
}

/* the values live across a call of member i: those live into one of its continuations */
static bool live_across(xform *X, uint32_t i) {
    LLVMBasicBlockRef *conts = calloc(X->ncs + 1, sizeof *conts);
    uint32_t n = 0;
    if (!conts) return false;
    for (uint32_t c = 0; c < X->ncs; c++)
        if (X->cs[c].caller == i) conts[n++] = X->cs[c].cont;
    bool ok = rec_live_into(X->m[i].fn, conts, n, &X->m[i].dem, &X->m[i].ndem);
    free(conts);
    return ok;
}

/* Steps 1-4 of the method: SROA, allocas, splits at member calls, liveness, frames. */
static bool prepare(xform *X) {
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMTypeRef fty = LLVMGlobalGetValueType(X->m[0].fn);
    for (uint32_t i = 0; i < X->nm; i++) {
        member *mb = &X->m[i];
        if (LLVMGlobalGetValueType(mb->fn) != fty || LLVMCountParams(mb->fn) != 3 ||
            LLVMGetTypeKind(LLVMGetReturnType(fty)) != LLVMVoidTypeKind) {
            diag_plain(X->d, "error", "internal compiler error: recursive function '%s' does not have the type of "
                       "a .func", vname(mb->fn));
            *X->internal = true;
            LLVMDisposePassBuilderOptions(po);
            return false;
        }
        LLVMErrorRef e = LLVMRunPassesOnFunction(mb->fn, "sroa", NULL, po);
        if (e) LLVMConsumeError(e); /* SROA only makes frames smaller; without it they are just larger */
    }
    LLVMDisposePassBuilderOptions(po);
    X->align = 16;
    for (uint32_t i = 0; i < X->nm; i++) {
        member *mb = &X->m[i];
        mb->entry = LLVMGetEntryBasicBlock(mb->fn);
        for (LLVMBasicBlockRef bb = mb->entry; bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef I = LLVMGetFirstInstruction(bb), next; I; I = next) {
                next = LLVMGetNextInstruction(I);
                uint32_t g;
                if (LLVMIsAAllocaInst(I)) {
                    if (bb != mb->entry || !LLVMIsAConstantInt(LLVMGetOperand(I, 0))) {
                        diag_plain(X->d, "error", "unsupported PTX construct for target %s: dynamic stack allocation "
                                   "(alloca) in recursive function '%s' (the target has no call stack)",
                                   X->t->name, vname(mb->fn));
                        return false;
                    }
                    if (!rec_grow((void **)&mb->alloca_v, &mb->capalloca, mb->nalloca + 1, sizeof *mb->alloca_v))
                        return false;
                    mb->alloca_v[mb->nalloca++] = I;
                    unsigned al = LLVMGetAlignment(I);
                    if (al > X->align) X->align = al;
                } else if (LLVMIsACallInst(I) && member_of(X, LLVMGetCalledValue(I), &g)) {
                    if (LLVMGetNumArgOperands(I) != 3 || !rec_grow((void **)&X->cs, &X->capcs, X->ncs + 1, sizeof *X->cs))
                        return false;
                    X->cs[X->ncs++] = (callsite){I, split_after(X, I), i, g};
                    break; /* the rest of the block is the next block now */
                }
            }
    }
    if (X->align > 4096) return false;
    for (uint32_t i = 0; i < X->nm; i++)
        if (!live_across(X, i) || !layout(X, &X->m[i])) return false;
    return true;
}

static bool transform(xform *X, bool verbose) {
    if (!prepare(X)) return false;
    uint32_t maxf = 0;
    for (uint32_t i = 0; i < X->nm; i++) if (X->m[i].frame > maxf) maxf = X->m[i].frame;
    X->stack_bytes = (uint32_t)p2n_align_up(X->stack_bytes < maxf ? maxf : X->stack_bytes, X->align);
    char name[1024];
    snprintf(name, sizeof name, "%s.p2n.stack", vname(X->m[0].fn));
    X->merged = LLVMAddFunction(X->M, name, LLVMGlobalGetValueType(X->m[0].fn));
    LLVMSetLinkage(X->merged, LLVMInternalLinkage);
    LLVMSetFunctionCallConv(X->merged, LLVMGetFunctionCallConv(X->m[0].fn));
    copy_fn_attrs(X->m[0].fn, X->merged);
    build_entry(X);
    X->dispatch = LLVMAppendBasicBlockInContext(X->C, X->merged, "ret");
    X->trap = LLVMAppendBasicBlockInContext(X->C, X->merged, "overflow");
    for (uint32_t i = 0; i < X->nm; i++) {
        if (!demote(X, &X->m[i])) return false;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(X->m[i].fn), next; bb; bb = next) {
            next = LLVMGetNextBasicBlock(bb);
            LLVMRemoveBasicBlockFromParent(bb);
            LLVMAppendExistingBasicBlock(X->merged, bb);
            LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
            if (term && LLVMGetInstructionOpcode(term) == LLVMRet) {
                LLVMPositionBuilderBefore(X->B, term);
                LLVMBuildBr(X->B, X->dispatch);
                LLVMInstructionEraseFromParent(term);
            }
        }
    }
    for (uint32_t c = 0; c < X->ncs; c++) build_push(X, c);
    build_dispatch(X);
    build_trap(X);
    for (uint32_t i = 0; i < X->nm; i++) build_wrapper(X, i);
    if (verbose) {
        fprintf(stderr, "ptx2native: recursion: %s: %u function(s), %u call(s), frames", name, X->nm, X->ncs);
        for (uint32_t i = 0; i < X->nm; i++) fprintf(stderr, " %s=%u", vname(X->m[i].fn), X->m[i].frame);
        fprintf(stderr, " bytes, stack %u bytes per thread\n", X->stack_bytes);
    }
    return true;
}

bool llvm_eliminate_recursion(LLVMModuleRef M, const target_desc *t, unsigned stack_bytes, bool verbose,
                              p2n_diags *d, bool *internal) {
    *internal = false;
    rec_graph G;
    bool ok = rec_graph_build(&G, M);
    if (!ok) {
        diag_plain(d, "error", "internal compiler error: out of memory in the recursion transform");
        *internal = true;
    }
    LLVMContextRef C = LLVMGetModuleContext(M);
    uint32_t *mem = ok ? calloc(G.n + 1, sizeof *mem) : NULL;
    for (uint32_t s = 0; ok && s < G.nscc; s++) {
        uint32_t nm = 0;
        for (uint32_t i = 0; i < G.n; i++) if (G.scc[i] == s) mem[nm++] = i;
        if (nm == 0 || (nm == 1 && !G.self[mem[0]])) continue;
        for (uint32_t i = 0; i < nm && ok; i++)
            for (uint32_t k = 0, v = mem[i]; k < G.nsucc[v] && ok; k++) {
                uint32_t w = G.succ[v][k];
                if (!(w & EDGE_INDIRECT) || G.scc[w & ~EDGE_INDIRECT] != s) continue;
                diag_plain(d, "error", "unsupported PTX construct for target %s: recursion through an indirect call: "
                           "function '%s' calls through a pointer and may reach function '%s', which calls it back "
                           "(the target has no call stack)", t->name, vname(G.fn[v]),
                           vname(G.fn[w & ~EDGE_INDIRECT]));
                ok = false;
            }
        if (!ok) break;
        xform X = {.M = M, .C = C, .B = LLVMCreateBuilderInContext(C),
                   .TD = LLVMCreateTargetData(LLVMGetDataLayoutStr(M)), .t = t, .d = d, .internal = internal,
                   .m = calloc(nm, sizeof(member)), .nm = nm, .i8 = LLVMInt8TypeInContext(C),
                   .i32 = LLVMInt32TypeInContext(C),
                   .stack_bytes = stack_bytes ? stack_bytes : P2N_RECURSION_STACK_DEFAULT};
        if (X.stack_bytes > (1u << 30)) X.stack_bytes = 1u << 30;
        if (X.m) {
            for (uint32_t i = 0; i < nm; i++) X.m[i].fn = G.fn[mem[i]];
            ok = transform(&X, verbose);
        } else ok = false;
        if (!ok && !d->nerrors) {
            diag_plain(d, "error", "internal compiler error: the recursion transform failed on function '%s'",
                       vname(G.fn[mem[0]]));
            *internal = true;
        }
        for (uint32_t i = 0; X.m && i < nm; i++) {
            free(X.m[i].alloca_v); free(X.m[i].alloca_off); free(X.m[i].dem); free(X.m[i].dem_off);
        }
        free(X.m);
        free(X.cs);
        LLVMDisposeTargetData(X.TD);
        LLVMDisposeBuilder(X.B);
    }
    free(mem);
    rec_graph_free(&G);
    /* the pass runner verifies the module (llvm_pass.c; AMDGPU: only after amdgpu-retarget-allocas has moved
     * the allocas to addrspace(5), ours included) */
    return ok;
}
