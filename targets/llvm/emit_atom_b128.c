/* emit_atom_b128.c — atom.cas.b128 and atom.exch.b128 (sm_90; .global, .shared or generic; .sem, .scope).
 *
 * PTX: d = *a; *a = cas ? (*a == b ? c : *a) : b, atomically on 16 aligned bytes; d, b, c are .b128 registers
 * (i128 in the emission).
 *
 * Host (x86-64): a real 128-bit atomic. LLVM lowers i128 cmpxchg / atomicrmw xchg to lock cmpxchg16b, which
 * the host targets' CPU (x86-64-v2, targets.c) always has (CX16 is part of x86-64-v2).
 *
 * AMDGPU and SPIR-V have no 128-bit atomic: the operation runs under a lock from a module-scope table of
 * B128_LOCKS 32-bit words (zero = free), chosen by a hash of the address. That makes it atomic with respect to
 * every other atom.*.b128 of the same code object on the same 16 bytes, which is what the table can promise and
 * what CUDA programs rely on (CUDA's own contract for 128-bit atomics is the same: atomic with respect to other
 * atomics, not to plain accesses racing with them). docs/atomics.md states the limit.
 *
 * The lock loop must not deadlock within a wave/sub-group. Its lanes run in lockstep: if lane A takes a lock
 * and lane B of the same wave fails on that same lock, B can only progress after A releases it. So the
 * critical section sits inside the branch that took the lock, in the same loop iteration:
 *     loop:  w = cas(lock, 0, 1); if (w == 0) { read, compare, write 128 bits; w = xchg(lock, 0) ^ 1; }
 *     latch: if (w != 0) goto loop;
 * A's lanes run the critical section and release while B's lanes are masked off; B retries on the next
 * iteration. The form `while (cas(lock) != 0); critical section` deadlocks on such hardware: the lanes that
 * won leave the spin loop and wait at its exit for the spinning lanes, which wait for the lock they hold.
 * LLVM knows nothing about lanes and rewrites innocent-looking variants into that form: a `done` flag is
 * jump-threaded into an edge out of the loop, and a second back edge (failure -> header) makes LoopSimplify
 * split off an inner spin loop. Hence one latch, and a loop condition made of values LLVM cannot know: the
 * lock word the failed compare-exchange saw (non-zero whenever it failed) or the word the releasing exchange
 * saw, xor 1 (always 1: we held it). */
#include "emit_atom.h"

#define BLD E->B

enum { B128_LOCKS = 1024 }; /* 4 KiB of lock words; a power of two */
static const char B128_LOCK_TABLE[] = "__p2n_b128_locks";

/* the lock table of this module: one per code object (internal linkage), zero-initialised; a byte array like
 * the module's .global variables (SPIR-V without program-scope variables places those in a runtime buffer,
 * spirv_globals.c) */
static LLVMValueRef lock_table(emit_ctx *E) {
    LLVMValueRef g = LLVMGetNamedGlobal(E->M, B128_LOCK_TABLE);
    if (g) return g;
    LLVMTypeRef at = LLVMArrayType2(E->i8, 4 * B128_LOCKS);
    /* where the emission puts module .global variables (AMDGPU moves address space 0 globals to 1 later) */
    g = LLVMAddGlobalInAddressSpace(E->M, at, B128_LOCK_TABLE, module_var_as(E));
    LLVMSetInitializer(g, LLVMConstNull(at));
    LLVMSetLinkage(g, LLVMInternalLinkage);
    LLVMSetAlignment(g, 64);
    return g;
}

static LLVMValueRef lock_of(emit_ctx *E, LLVMValueRef p) {
    LLVMValueRef a = LLVMBuildPtrToInt(BLD, p, E->i64, "");
    /* 16-byte granules; fold higher bits in so that strided arrays spread over the table */
    LLVMValueRef h = LLVMBuildXor(BLD, LLVMBuildLShr(BLD, a, c64(E, 4), ""), LLVMBuildLShr(BLD, a, c64(E, 14), ""), "");
    h = LLVMBuildAnd(BLD, h, c64(E, B128_LOCKS - 1), "");
    return gep8(E, lock_table(E), LLVMBuildShl(BLD, h, c64(E, 2), ""));
}

static LLVMValueRef ld64(emit_ctx *E, LLVMValueRef p, unsigned off) {
    LLVMValueRef v = LLVMBuildLoad2(BLD, E->i64, gep8(E, p, c64(E, off)), "");
    LLVMSetAlignment(v, off ? 8 : 16);
    LLVMSetVolatile(v, 1); /* keep the accesses inside the critical section, in order */
    return v;
}

static void st64(emit_ctx *E, LLVMValueRef p, unsigned off, LLVMValueRef v) {
    LLVMValueRef s = LLVMBuildStore(BLD, v, gep8(E, p, c64(E, off)));
    LLVMSetAlignment(s, off ? 8 : 16);
    LLVMSetVolatile(s, 1);
}

static LLVMValueRef lo64(emit_ctx *E, LLVMValueRef v) { return LLVMBuildTrunc(BLD, v, E->i64, ""); }
static LLVMValueRef hi64(emit_ctx *E, LLVMValueRef v) {
    return LLVMBuildTrunc(BLD, LLVMBuildLShr(BLD, v, ci(E->i128, 64), ""), E->i64, "");
}

/* the locked read-compare-write; returns the old value (i128) */
static LLVMValueRef locked_b128(emit_ctx *E, LLVMValueRef p, bool cas, LLVMValueRef cmp, LLVMValueRef nv,
                                LLVMAtomicOrdering ord, p2n_scope scope) {
    /* the lock is taken at .gpu scope at least: its mutual exclusion must hold between any two threads that
     * hash to the same word, whatever scope their instructions name */
    unsigned lssid = scope_id(E, scope == P2N_SCOPE_SYS ? P2N_SCOPE_SYS : P2N_SCOPE_GPU);
    bool rel = ord == LLVMAtomicOrderingRelease || ord == LLVMAtomicOrderingAcquireRelease ||
               ord == LLVMAtomicOrderingSequentiallyConsistent;
    bool acq = ord == LLVMAtomicOrderingAcquire || ord == LLVMAtomicOrderingAcquireRelease ||
               ord == LLVMAtomicOrderingSequentiallyConsistent;
    LLVMValueRef lk = lock_of(E, p);
    LLVMValueRef cmp_lo = NULL, cmp_hi = NULL;
    if (cas) { cmp_lo = lo64(E, cmp); cmp_hi = hi64(E, cmp); }
    LLVMValueRef nv_lo = lo64(E, nv), nv_hi = hi64(E, nv);
    LLVMBasicBlockRef loop = new_bb(E, "b128lock"), crit = new_bb(E, "b128crit"), latch = new_bb(E, "b128latch");
    LLVMBasicBlockRef done = new_bb(E, "b128done");
    LLVMBuildBr(BLD, loop);

    LLVMPositionBuilderAtEnd(BLD, loop);
    /* the .sem of the instruction rides on the lock's own atomics (no separate fences: OpenCL kernel libraries
     * such as PoCL's lack device-scope fences): .release makes taking the lock a release too, so earlier
     * accesses stay before the 128-bit write; .acquire makes dropping it an acquire too, so later accesses stay
     * after the 128-bit read */
    LLVMValueRef cx = LLVMBuildAtomicCmpXchgSyncScope(BLD, lk, c32(E, 0), c32(E, 1),
                                                      rel ? LLVMAtomicOrderingAcquireRelease : LLVMAtomicOrderingAcquire,
                                                      LLVMAtomicOrderingMonotonic, lssid);
    LLVMSetAlignment(cx, 4);
    LLVMValueRef held = LLVMBuildExtractValue(BLD, cx, 0, ""); /* non-zero exactly when the lock was taken */
    LLVMBuildCondBr(BLD, LLVMBuildExtractValue(BLD, cx, 1, ""), crit, latch);

    LLVMPositionBuilderAtEnd(BLD, crit);
    LLVMValueRef o_lo = ld64(E, p, 0), o_hi = ld64(E, p, 8);
    if (cas) {
        LLVMValueRef eq = LLVMBuildAnd(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, o_lo, cmp_lo, ""),
                                       LLVMBuildICmp(BLD, LLVMIntEQ, o_hi, cmp_hi, ""), "");
        LLVMBasicBlockRef wr_bb = new_bb(E, "b128write"), rel_bb = new_bb(E, "b128unlock");
        LLVMBuildCondBr(BLD, eq, wr_bb, rel_bb); /* no write when unequal: *a keeps its value */
        LLVMPositionBuilderAtEnd(BLD, wr_bb);
        st64(E, p, 0, nv_lo);
        st64(E, p, 8, nv_hi);
        LLVMBuildBr(BLD, rel_bb);
        LLVMPositionBuilderAtEnd(BLD, rel_bb);
    } else {
        st64(E, p, 0, nv_lo);
        st64(E, p, 8, nv_hi);
    }
    /* release the lock: the 128-bit access happens-before the next holder's */
    LLVMValueRef was = LLVMBuildAtomicRMWSyncScope(BLD, LLVMAtomicRMWBinOpXchg, lk, c32(E, 0),
                                                   acq ? LLVMAtomicOrderingAcquireRelease : LLVMAtomicOrderingRelease, lssid);
    LLVMSetAlignment(was, 4);
    LLVMValueRef left = LLVMBuildXor(BLD, was, c32(E, 1), ""); /* 0: the word held our 1 (always) */
    LLVMBasicBlockRef crit_end = LLVMGetInsertBlock(BLD);
    LLVMBuildBr(BLD, latch);

    /* the one back edge: keep going while the word says so (see the file comment) */
    LLVMPositionBuilderAtEnd(BLD, latch);
    LLVMValueRef w = LLVMBuildPhi(BLD, E->i32, ""), plo = LLVMBuildPhi(BLD, E->i64, ""), phi_hi = LLVMBuildPhi(BLD, E->i64, "");
    LLVMValueRef wv[2] = {held, left}, lov[2] = {c64(E, 0), o_lo}, hiv[2] = {c64(E, 0), o_hi};
    LLVMBasicBlockRef wb[2] = {loop, crit_end};
    LLVMAddIncoming(w, wv, wb, 2);
    LLVMAddIncoming(plo, lov, wb, 2);
    LLVMAddIncoming(phi_hi, hiv, wb, 2);
    LLVMBuildCondBr(BLD, LLVMBuildICmp(BLD, LLVMIntEQ, w, c32(E, 0), ""), done, loop);

    LLVMPositionBuilderAtEnd(BLD, done);
    LLVMValueRef r = zext_to(E, plo, E->i128);
    return LLVMBuildOr(BLD, r, LLVMBuildShl(BLD, zext_to(E, phi_hi, E->i128), ci(E->i128, 64), ""), "");
}

bool emit_atom_b128(emit_ctx *E, const ir_ins *ins) {
    bool cas = ir_ins_has(ins, IR_M_CAS), exch = ir_ins_has(ins, IR_M_EXCH);
    if (ins->op != IR_OP_ATOM || (!cas && !exch)) {
        emit_unsupported(E, ".b128 atomics are atom.cas and atom.exch");
        return true;
    }
    if (ins->nops < (cas ? 4u : 3u)) return false;
    const ir_operand *o = ins->ops;
    LLVMAtomicOrdering ord = atom_ordering(ins);
    p2n_scope scope = ins_scope(ins, P2N_SCOPE_GPU); /* no scope: .gpu */
    LLVMValueRef p = mem_addr(E, &o[1], ir_ins_space(ins));
    LLVMValueRef b = rd(E, &o[2], IR_T_B128), c = cas ? rd(E, &o[3], IR_T_B128) : NULL, old;
    if (E->t->atomic_b128_native) {
        if (cas) {
            LLVMValueRef cx = LLVMBuildAtomicCmpXchgSyncScope(BLD, p, b, c, atom_cas_ordering(ord), LLVMAtomicOrderingMonotonic,
                                                              scope_id(E, scope));
            LLVMSetAlignment(cx, 16);
            old = LLVMBuildExtractValue(BLD, cx, 0, "");
        } else {
            old = LLVMBuildAtomicRMWSyncScope(BLD, LLVMAtomicRMWBinOpXchg, p, b, ord, scope_id(E, scope));
            LLVMSetAlignment(old, 16);
        }
    } else {
        old = locked_b128(E, p, cas, b, cas ? c : b, ord, scope);
    }
    if (o[0].kind != IR_OPND_SINK) wr(E, &o[0], IR_T_B128, old);
    return true;
}
