/* spirv_heap.c — CUDA's device malloc/free on SPIR-V: a heap in one device buffer per runtime (SVM / shared USM),
 * shared by every module and launch of the context, sized by CU_LIMIT_MALLOC_HEAP_SIZE (default 8 MiB).
 *
 * Where the kernels find it: the runtime writes the heap's address into the launch's error record (u64 at
 * SPIRV_REC_HEAP_OFF, like the launch start time) before each launch of a module marked "p2n:heap"; such a module
 * takes the record argument like a trapping one (spirv_lower.c), so kernels of modules without malloc/free get
 * no extra argument. The hooks (spirv_hooks.c) call two internal functions built here, __p2n_heap_malloc(ctx,
 * size) and __p2n_heap_free(ctx, p), which read the record through the ctx (SPIRV_CTX_TRAP).
 *
 * Algorithm (layout in spirv_meta.h; the runtime zeroes the header and sets bump = SPIRV_HEAP_HDR, end =
 * SPIRV_HEAP_HDR + heap size):
 *  - a request of n bytes (1 <= n <= 2^40) takes class c = max(4, ceil(log2 n)): a block of 16 header bytes
 *    ([0] class, [4] magic, [8..15] next-free link) + 2^c payload bytes; blocks start at multiples of 16 from the
 *    128-aligned buffer, so every pointer returned (block + 16) is 16-byte aligned, as CUDA's are;
 *  - free lists: one lock-free LIFO per class (head word = 40-bit block index + 1 | 24-bit tag), popped and
 *    pushed with compare-exchange; the tag changes on every successful exchange, so a head that was popped and
 *    pushed back between a thread's read and its exchange (ABA) makes the exchange fail (24 bits: it could only
 *    be fooled by exactly 2^24 exchanges in that window). A popped block's link may be read after another thread
 *    took and reused the block: harmless, the memory stays in the heap and that thread's exchange then fails;
 *  - malloc: pop its class; else bump-allocate (one atomic add; a request that does not fit leaves the bump past
 *    the end, so later bump allocations fail too); else pop the smallest larger class that has a free block and
 *    split it into as many class-c blocks as fit (the rest pushed onto class c's list in one exchange; the
 *    block's tail beyond the last whole piece is lost); else NULL. n = 0 or n > 2^40 returns NULL;
 *  - free(NULL) does nothing; free(p) pushes p's block onto its class's list (a block whose header is not ours
 *    is ignored: freeing a pointer malloc did not return is undefined in CUDA).
 * Limits: power-of-two classes waste up to half of each block, so a heap of H bytes holds one block of at most
 * H/2 payload; freed small blocks never merge back into large ones (a heap split into small blocks cannot serve a
 * large request later); memory is never returned to the runtime before the context ends. */
#include "../llvm/emit.h"
#include "spirv_target.h"

#define MASK40 ((1ull << 40) - 1)

typedef struct hb {
    LLVMContextRef C;
    LLVMModuleRef M;
    LLVMBuilderRef B;
    LLVMValueRef fn;
    LLVMTypeRef i32, i64, i8, gptr, ptr; /* gptr: CrossWorkgroup pointer, ptr: generic */
} hb;

static LLVMValueRef k64(hb *h, uint64_t v) { return LLVMConstInt(h->i64, v, 0); }
static LLVMBasicBlockRef bb(hb *h, const char *n) { return LLVMAppendBasicBlockInContext(h->C, h->fn, n); }
static LLVMValueRef at(hb *h, LLVMValueRef p, LLVMValueRef off) { return LLVMBuildGEP2(h->B, h->i8, p, &off, 1, ""); }

static LLVMValueRef ld(hb *h, LLVMTypeRef t, LLVMValueRef p, LLVMAtomicOrdering o) {
    LLVMValueRef v = LLVMBuildLoad2(h->B, t, p, "");
    LLVMSetAlignment(v, t == h->i64 ? 8 : 4);
    if (o != LLVMAtomicOrderingNotAtomic) LLVMSetOrdering(v, o);
    return v;
}

static void st(hb *h, LLVMValueRef v, LLVMValueRef p, bool atomic) {
    LLVMValueRef s = LLVMBuildStore(h->B, v, p);
    LLVMSetAlignment(s, LLVMTypeOf(v) == h->i64 ? 8 : 4);
    if (atomic) LLVMSetOrdering(s, LLVMAtomicOrderingMonotonic);
}

/* the heap's base (CrossWorkgroup pointer) from the error record the ctx points to */
static LLVMValueRef heap_base(hb *h, LLVMValueRef ctx) {
    LLVMValueRef rec = LLVMBuildLoad2(h->B, h->gptr, at(h, ctx, k64(h, SPIRV_CTX_TRAP)), "rec");
    LLVMValueRef base = ld(h, h->i64, at(h, rec, k64(h, SPIRV_REC_HEAP_OFF)), LLVMAtomicOrderingNotAtomic);
    return LLVMBuildIntToPtr(h->B, base, h->gptr, "heap");
}

/* new head word: block index + 1 in the low 40 bits, the old head's tag + 1 above */
static LLVMValueRef head_word(hb *h, LLVMValueRef link, LLVMValueRef old) {
    LLVMValueRef tag = LLVMBuildShl(h->B, LLVMBuildAdd(h->B, LLVMBuildLShr(h->B, old, k64(h, 40), ""), k64(h, 1), ""),
                                    k64(h, 40), "");
    return LLVMBuildOr(h->B, LLVMBuildAnd(h->B, link, k64(h, MASK40), ""), tag, "");
}

static LLVMValueRef block_link(hb *h, LLVMValueRef heap, LLVMValueRef blk) {
    LLVMValueRef off = LLVMBuildSub(h->B, LLVMBuildPtrToInt(h->B, blk, h->i64, ""),
                                    LLVMBuildPtrToInt(h->B, heap, h->i64, ""), "");
    return LLVMBuildAdd(h->B, LLVMBuildLShr(h->B, off, k64(h, 4), ""), k64(h, 1), "");
}

static LLVMValueRef cas(hb *h, LLVMValueRef p, LLVMValueRef old, LLVMValueRef nv) {
    LLVMValueRef cx = LLVMBuildAtomicCmpXchg(h->B, p, old, nv, LLVMAtomicOrderingAcquireRelease,
                                             LLVMAtomicOrderingMonotonic, 0);
    return LLVMBuildExtractValue(h->B, cx, 1, "");
}

/* pushes the chain first..last (links inside already set, last's is overwritten) onto the list at headp */
static void push_chain(hb *h, LLVMValueRef heap, LLVMValueRef headp, LLVMValueRef first, LLVMValueRef last,
                       LLVMBasicBlockRef done) {
    LLVMBasicBlockRef loop = bb(h, "push");
    LLVMBuildBr(h->B, loop);
    LLVMPositionBuilderAtEnd(h->B, loop);
    LLVMValueRef old = ld(h, h->i64, headp, LLVMAtomicOrderingMonotonic);
    st(h, LLVMBuildAnd(h->B, old, k64(h, MASK40), ""), at(h, last, k64(h, 8)), true);
    LLVMValueRef ok = cas(h, headp, old, head_word(h, block_link(h, heap, first), old));
    LLVMBuildCondBr(h->B, ok, done, loop);
}

static void set_header(hb *h, LLVMValueRef blk, LLVMValueRef cls) {
    st(h, cls, blk, false);
    st(h, LLVMConstInt(h->i32, SPIRV_HEAP_MAGIC, 0), at(h, blk, k64(h, 4)), false);
}

static LLVMValueRef payload(hb *h, LLVMValueRef blk) {
    return LLVMBuildAddrSpaceCast(h->B, at(h, blk, k64(h, 16)), h->ptr, "");
}

static void build_malloc(hb *h) {
    LLVMValueRef ctx = LLVMGetParam(h->fn, 0), size = LLVMGetParam(h->fn, 1);
    LLVMBasicBlockRef entry = bb(h, "entry"), none = bb(h, "null"), cls = bb(h, "class"), kloop = bb(h, "k"),
                      pop = bb(h, "pop"), take = bb(h, "take"), got = bb(h, "got"), empty = bb(h, "empty"),
                      bump = bb(h, "bump"), fresh = bb(h, "fresh"), nextk = bb(h, "nextk"), split = bb(h, "split"),
                      whole = bb(h, "whole"), carve = bb(h, "carve"), chain = bb(h, "chain"), pushc = bb(h, "pushc"),
                      ret0 = bb(h, "ret0");
    LLVMPositionBuilderAtEnd(h->B, entry);
    LLVMValueRef heap = heap_base(h, ctx);
    LLVMValueRef bad = LLVMBuildOr(h->B, LLVMBuildICmp(h->B, LLVMIntEQ, size, k64(h, 0), ""),
                                   LLVMBuildICmp(h->B, LLVMIntUGT, size, k64(h, 1ull << 40), ""), "");
    LLVMBuildCondBr(h->B, bad, none, cls);

    LLVMPositionBuilderAtEnd(h->B, none);
    LLVMBuildRet(h->B, LLVMConstNull(h->ptr));

    /* c = max(4, 64 - clz(n - 1)) */
    LLVMPositionBuilderAtEnd(h->B, cls);
    LLVMTypeRef ctlz_t = LLVMFunctionType(h->i64, (LLVMTypeRef[]){h->i64, LLVMInt1TypeInContext(h->C)}, 2, 0);
    LLVMValueRef ctlz = LLVMGetIntrinsicDeclaration(h->M, LLVMLookupIntrinsicID("llvm.ctlz", 9), &h->i64, 1);
    LLVMValueRef lz = LLVMBuildCall2(h->B, ctlz_t, ctlz,
                                     (LLVMValueRef[]){LLVMBuildSub(h->B, size, k64(h, 1), ""),
                                                      LLVMConstInt(LLVMInt1TypeInContext(h->C), 0, 0)}, 2, "");
    LLVMValueRef c = LLVMBuildSub(h->B, k64(h, 64), lz, "");
    c = LLVMBuildSelect(h->B, LLVMBuildICmp(h->B, LLVMIntULT, c, k64(h, 4), ""), k64(h, 4), c, "c");
    LLVMValueRef bsize = LLVMBuildAdd(h->B, LLVMBuildShl(h->B, k64(h, 1), c, ""), k64(h, 16), "bsize");
    LLVMBuildBr(h->B, kloop);

    /* for k = c .. SPIRV_HEAP_CLASSES - 1: pop class k */
    LLVMPositionBuilderAtEnd(h->B, kloop);
    LLVMValueRef k = LLVMBuildPhi(h->B, h->i64, "k");
    LLVMValueRef headp = at(h, heap, LLVMBuildAdd(h->B, k64(h, SPIRV_HEAP_HEADS), LLVMBuildShl(h->B, k, k64(h, 3), ""), ""));
    LLVMBuildBr(h->B, pop);
    LLVMPositionBuilderAtEnd(h->B, pop);
    LLVMValueRef head = ld(h, h->i64, headp, LLVMAtomicOrderingAcquire);
    LLVMValueRef link = LLVMBuildAnd(h->B, head, k64(h, MASK40), "");
    LLVMBuildCondBr(h->B, LLVMBuildICmp(h->B, LLVMIntEQ, link, k64(h, 0), ""), empty, take);
    LLVMPositionBuilderAtEnd(h->B, take);
    LLVMValueRef blk = at(h, heap, LLVMBuildShl(h->B, LLVMBuildSub(h->B, link, k64(h, 1), ""), k64(h, 4), ""));
    LLVMValueRef next = ld(h, h->i64, at(h, blk, k64(h, 8)), LLVMAtomicOrderingMonotonic);
    LLVMBuildCondBr(h->B, cas(h, headp, head, head_word(h, next, head)), got, pop);
    LLVMPositionBuilderAtEnd(h->B, got);
    LLVMBuildCondBr(h->B, LLVMBuildICmp(h->B, LLVMIntEQ, k, c, ""), whole, split);
    LLVMPositionBuilderAtEnd(h->B, whole);
    LLVMBuildRet(h->B, payload(h, blk));

    /* list empty: bump-allocate in the own class, else try the next class */
    LLVMPositionBuilderAtEnd(h->B, empty);
    LLVMBuildCondBr(h->B, LLVMBuildICmp(h->B, LLVMIntEQ, k, c, ""), bump, nextk);
    LLVMPositionBuilderAtEnd(h->B, bump);
    LLVMValueRef off = LLVMBuildAtomicRMW(h->B, LLVMAtomicRMWBinOpAdd, at(h, heap, k64(h, SPIRV_HEAP_BUMP)), bsize,
                                          LLVMAtomicOrderingMonotonic, 0);
    LLVMValueRef end = ld(h, h->i64, at(h, heap, k64(h, SPIRV_HEAP_END)), LLVMAtomicOrderingNotAtomic);
    /* off + bsize <= end, without overflow (off < 2^63 in practice, bsize <= 2^40 + 16) */
    LLVMValueRef fits = LLVMBuildAnd(h->B, LLVMBuildICmp(h->B, LLVMIntULE, bsize, end, ""),
                                     LLVMBuildICmp(h->B, LLVMIntULE, off, LLVMBuildSub(h->B, end, bsize, ""), ""), "");
    LLVMBuildCondBr(h->B, fits, fresh, nextk);
    LLVMPositionBuilderAtEnd(h->B, fresh);
    LLVMValueRef nb = at(h, heap, off);
    set_header(h, nb, LLVMBuildTrunc(h->B, c, h->i32, ""));
    LLVMBuildRet(h->B, payload(h, nb));

    LLVMPositionBuilderAtEnd(h->B, nextk);
    LLVMValueRef k1 = LLVMBuildAdd(h->B, k, k64(h, 1), "");
    LLVMBuildCondBr(h->B, LLVMBuildICmp(h->B, LLVMIntULT, k1, k64(h, SPIRV_HEAP_CLASSES), ""), kloop, ret0);
    LLVMAddIncoming(k, (LLVMValueRef[]){c, k1}, (LLVMBasicBlockRef[]){cls, nextk}, 2);
    LLVMPositionBuilderAtEnd(h->B, ret0);
    LLVMBuildRet(h->B, LLVMConstNull(h->ptr));

    /* a block of class k > c: n = (2^k + 16) / bsize pieces; with one piece the block is used whole (its header
     * keeps class k, so free returns it to k's list) */
    LLVMPositionBuilderAtEnd(h->B, split);
    LLVMValueRef n = LLVMBuildUDiv(h->B, LLVMBuildAdd(h->B, LLVMBuildShl(h->B, k64(h, 1), k, ""), k64(h, 16), ""),
                                   bsize, "n");
    LLVMBuildCondBr(h->B, LLVMBuildICmp(h->B, LLVMIntULT, n, k64(h, 2), ""), whole, carve);
    LLVMPositionBuilderAtEnd(h->B, carve);
    LLVMValueRef c32v = LLVMBuildTrunc(h->B, c, h->i32, "");
    set_header(h, blk, c32v);
    LLVMBuildBr(h->B, chain);
    /* pieces 1 .. n-1: headers, each linked to the next */
    LLVMPositionBuilderAtEnd(h->B, chain);
    LLVMValueRef i = LLVMBuildPhi(h->B, h->i64, "i");
    LLVMValueRef piece = at(h, blk, LLVMBuildMul(h->B, i, bsize, ""));
    set_header(h, piece, c32v);
    LLVMValueRef i1 = LLVMBuildAdd(h->B, i, k64(h, 1), "");
    st(h, block_link(h, heap, at(h, blk, LLVMBuildMul(h->B, i1, bsize, ""))), at(h, piece, k64(h, 8)), true);
    LLVMAddIncoming(i, (LLVMValueRef[]){k64(h, 1), i1}, (LLVMBasicBlockRef[]){carve, chain}, 2);
    LLVMBuildCondBr(h->B, LLVMBuildICmp(h->B, LLVMIntULT, i1, n, ""), chain, pushc);
    LLVMPositionBuilderAtEnd(h->B, pushc);
    LLVMValueRef ownhead = at(h, heap, LLVMBuildAdd(h->B, k64(h, SPIRV_HEAP_HEADS), LLVMBuildShl(h->B, c, k64(h, 3), ""), ""));
    LLVMValueRef last = at(h, blk, LLVMBuildMul(h->B, LLVMBuildSub(h->B, n, k64(h, 1), ""), bsize, ""));
    LLVMBasicBlockRef done = bb(h, "carved");
    push_chain(h, heap, ownhead, at(h, blk, bsize), last, done);
    LLVMPositionBuilderAtEnd(h->B, done);
    LLVMBuildRet(h->B, payload(h, blk));
}

static void build_free(hb *h) {
    LLVMValueRef ctx = LLVMGetParam(h->fn, 0), p = LLVMGetParam(h->fn, 1);
    LLVMBasicBlockRef entry = bb(h, "entry"), go = bb(h, "go"), ours = bb(h, "ours"), out = bb(h, "out");
    LLVMPositionBuilderAtEnd(h->B, entry);
    LLVMBuildCondBr(h->B, LLVMBuildIsNull(h->B, p, ""), out, go);
    LLVMPositionBuilderAtEnd(h->B, go);
    LLVMValueRef heap = heap_base(h, ctx);
    LLVMValueRef blk = LLVMBuildIntToPtr(h->B, LLVMBuildSub(h->B, LLVMBuildPtrToInt(h->B, p, h->i64, ""), k64(h, 16), ""),
                                         h->gptr, "blk");
    LLVMValueRef cls = ld(h, h->i32, blk, LLVMAtomicOrderingNotAtomic);
    LLVMValueRef magic = ld(h, h->i32, at(h, blk, k64(h, 4)), LLVMAtomicOrderingNotAtomic);
    LLVMValueRef ok = LLVMBuildAnd(h->B, LLVMBuildICmp(h->B, LLVMIntEQ, magic, LLVMConstInt(h->i32, SPIRV_HEAP_MAGIC, 0), ""),
                                   LLVMBuildICmp(h->B, LLVMIntULT, cls, LLVMConstInt(h->i32, SPIRV_HEAP_CLASSES, 0), ""), "");
    LLVMBuildCondBr(h->B, ok, ours, out);
    LLVMPositionBuilderAtEnd(h->B, ours);
    LLVMValueRef headp = at(h, heap, LLVMBuildAdd(h->B, k64(h, SPIRV_HEAP_HEADS),
                                                  LLVMBuildShl(h->B, LLVMBuildZExt(h->B, cls, h->i64, ""), k64(h, 3), ""), ""));
    push_chain(h, heap, headp, blk, blk, out);
    LLVMPositionBuilderAtEnd(h->B, out);
    LLVMBuildRetVoid(h->B);
}

static LLVMValueRef heap_fn(emit_ctx *E, bool is_malloc) {
    const char *name = is_malloc ? SPIRV_HEAP_MALLOC : SPIRV_HEAP_FREE;
    LLVMValueRef f = LLVMGetNamedFunction(E->M, name);
    if (f) return f;
    hb h = {.C = E->C, .M = E->M, .i32 = E->i32, .i64 = E->i64, .i8 = E->i8, .ptr = E->ptr,
            .gptr = LLVMPointerTypeInContext(E->C, E->t->as_global)};
    LLVMTypeRef ft = is_malloc ? LLVMFunctionType(E->ptr, (LLVMTypeRef[]){E->ptr, E->i64}, 2, 0)
                               : LLVMFunctionType(E->vd, (LLVMTypeRef[]){E->ptr, E->ptr}, 2, 0);
    h.fn = f = LLVMAddFunction(E->M, name, ft);
    LLVMSetLinkage(f, LLVMInternalLinkage);
    h.B = LLVMCreateBuilderInContext(E->C);
    if (is_malloc) build_malloc(&h);
    else build_free(&h);
    LLVMDisposeBuilder(h.B);
    return f;
}

LLVMValueRef spirv_heap_call(emit_ctx *E, bool is_malloc, LLVMValueRef *a) {
    LLVMValueRef f = heap_fn(E, is_malloc);
    LLVMValueRef args[2] = {a[0], a[1]};
    return LLVMBuildCall2(E->B, LLVMGlobalGetValueType(f), f, args, 2, is_malloc ? "p" : "");
}

bool spirv_module_heap(LLVMModuleRef M) {
    LLVMValueRef m = LLVMGetNamedFunction(M, SPIRV_HEAP_MALLOC), f = LLVMGetNamedFunction(M, SPIRV_HEAP_FREE);
    return (m && LLVMGetFirstUse(m)) || (f && LLVMGetFirstUse(f));
}
