/* spirv_faults.c — null-page checks for devices where a memory fault in kernel code kills the process
 * (P2N_LACKS_FAULT_ISOLATION: PoCL's CPU device runs work-groups on its own threads, where a SIGSEGV cannot be
 * turned into an error of the launch; the CPU backend does that on its fibers).
 *
 * The lowering pass spirv-mark-module marks the module (named metadata SPIRV_FAULTS_MD and "trap"), so that
 * spirv-kernel-wrappers give its kernels the error record argument (spirv_trap.c). After O2 (pass
 * spirv-check-faults, once the registers are SSA values and the vprintf buffers forwarded) every load, store,
 * atomicrmw and cmpxchg through a CrossWorkgroup or generic pointer tests its address. Below 4096 (the null page,
 * never mapped on the hosts PoCL runs on) the access goes elsewhere instead (loads read a constant zero block,
 * stores and atomics write a private scratch block) and the address is noted in a private word; at each return of
 * the function, a noted address makes the first such work-item of the launch claim the error record with code
 * SPIRV_TRAP_ILLEGAL_ADDRESS and write the address, %ctaid and %tid into it (so the launch returns
 * CUDA_ERROR_ILLEGAL_ADDRESS, driver-stub/error_report.c). No branch at the access, so loops stay vectorisable (a
 * branch per access cost the bench's tiled matmul 12x). The work-item does not return early: one that leaves before
 * a work-group barrier the others still reach crashes PoCL 3.1 (or runs the rest of the kernel with garbage,
 * ctrl/exit_then_barrier), and the launch has failed anyway (CUDA leaves memory undefined after an illegal address,
 * and the context is lost). Reads of the null page return zeros, so loops over null data end.
 *
 * The record pointer reaches non-inlined functions through an internal program-scope variable that every kernel
 * sets at entry: per kernel object on PoCL, and the same value (the module's record) in every launch, so the
 * concurrent stores of its work-groups agree.
 *
 * Not tested: accesses whose address is based (through GEPs, casts, ptrtoint/inttoptr and integer additions) on an
 * alloca, a global variable or a pointer argument of a non-kernel function (the parameter, return and ctx buffers of the
 * shared emission's calling convention, all allocas of the caller): private and module memory, never the null
 * page for valid indices. Faults at other addresses (unmapped memory above the null page) still kill the process. */
#include <stdlib.h>
#include <string.h>

#include "spirv_target.h"

enum { SCRATCH_BYTES = 256 }; /* the widest access redirected (wider ones are not tested) */

/* p (a pointer, or an integer holding one) is based on memory that cannot be the null page (with an in-bounds
 * index; an access far outside its object is not tested, which only leaves a fault a fault) */
static bool known_base(LLVMValueRef p) {
    for (unsigned depth = 0; depth < 64; depth++) {
        if (LLVMIsAAllocaInst(p) || LLVMIsAGlobalVariable(p)) return true;
        /* a pointer argument: of a kernel, the __local window, the error record or the variables' buffer (CUDA
         * pointers are integer arguments); of a .func, the caller's ctx/parameter/return buffer. An integer
         * argument (e.g. after argument promotion) may hold any CUDA pointer. */
        if (LLVMIsAArgument(p)) return LLVMGetTypeKind(LLVMTypeOf(p)) == LLVMPointerTypeKind;
        LLVMOpcode op;
        if (LLVMIsAInstruction(p)) op = LLVMGetInstructionOpcode(p);
        else if (LLVMIsAConstantExpr(p)) op = LLVMGetConstOpcode(p);
        else return false;
        switch (op) {
        case LLVMGetElementPtr: case LLVMAddrSpaceCast: case LLVMBitCast: case LLVMIntToPtr: case LLVMPtrToInt:
        case LLVMZExt: case LLVMTrunc:
            p = LLVMGetOperand(p, 0);
            continue;
        case LLVMAdd: case LLVMSub: case LLVMOr: {
            /* base + offset: the operand that is a pointer's integer (a constant offset is never the base) */
            LLVMValueRef a = LLVMGetOperand(p, 0), b = LLVMGetOperand(p, 1);
            if (LLVMIsAConstantInt(a) && op == LLVMAdd) { p = b; continue; }
            if (LLVMIsAConstantInt(b)) { p = a; continue; }
            if (op == LLVMAdd && known_base(b)) return true;
            p = a;
            continue;
        }
        default: return false;
        }
    }
    return false;
}

/* bytes of a scalar or vector type; 0 for anything else */
static unsigned type_bytes(LLVMTypeRef t) {
    switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind: return (LLVMGetIntTypeWidth(t) + 7) / 8;
    case LLVMHalfTypeKind: case LLVMBFloatTypeKind: return 2;
    case LLVMFloatTypeKind: return 4;
    case LLVMDoubleTypeKind: case LLVMPointerTypeKind: return 8;
    case LLVMVectorTypeKind: return LLVMGetVectorSize(t) * type_bytes(LLVMGetElementType(t));
    default: return 0;
    }
}

/* the pointer operand to test (its index in *at) and whether the access writes; NULL when none */
static LLVMValueRef checked_ptr(LLVMValueRef I, unsigned as_generic, unsigned as_global, unsigned *at, bool *writes) {
    LLVMTypeRef vt;
    switch (LLVMGetInstructionOpcode(I)) {
    case LLVMLoad: *at = 0; *writes = false; vt = LLVMTypeOf(I); break;
    case LLVMStore: *at = 1; *writes = true; vt = LLVMTypeOf(LLVMGetOperand(I, 0)); break;
    case LLVMAtomicRMW: case LLVMAtomicCmpXchg: *at = 0; *writes = true; vt = LLVMTypeOf(LLVMGetOperand(I, 1)); break;
    default: return NULL;
    }
    LLVMValueRef p = LLVMGetOperand(I, *at);
    unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(p));
    unsigned n = type_bytes(vt);
    if ((as != as_generic && as != as_global) || !n || n > SCRATCH_BYTES || known_base(p)) return NULL;
    return p;
}

static LLVMValueRef id32(LLVMModuleRef M, LLVMBuilderRef B, LLVMContextRef C, const char *name, unsigned dim) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(C), i64 = LLVMInt64TypeInContext(C);
    LLVMTypeRef ft = LLVMFunctionType(i64, &i32, 1, 0);
    LLVMValueRef a = LLVMConstInt(i32, dim, 0);
    return LLVMBuildTrunc(B, LLVMBuildCall2(B, ft, spirv_builtin(M, name, ft), &a, 1, ""), i32, "");
}

/* the kernel's error record argument: the first CrossWorkgroup pointer after the __local window */
static LLVMValueRef record_param(LLVMValueRef k, unsigned as_shared, unsigned as_global) {
    bool after = false;
    for (unsigned i = 0, n = LLVMCountParams(k); i < n; i++) {
        LLVMTypeRef t = LLVMTypeOf(LLVMGetParam(k, i));
        if (LLVMGetTypeKind(t) != LLVMPointerTypeKind) continue;
        if (LLVMGetPointerAddressSpace(t) == as_shared) after = true;
        else if (after && LLVMGetPointerAddressSpace(t) == as_global) return LLVMGetParam(k, i);
    }
    return NULL;
}

unsigned spirv_check_faults(LLVMModuleRef M, unsigned as_generic, unsigned as_global, unsigned as_shared) {
    if (!LLVMGetNamedMetadataNumOperands(M, SPIRV_FAULTS_MD)) return 0;
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMTypeRef i8 = LLVMInt8TypeInContext(C), i32 = LLVMInt32TypeInContext(C), i64 = LLVMInt64TypeInContext(C);
    LLVMTypeRef g1 = LLVMPointerTypeInContext(C, as_global);
    LLVMTypeRef blk = LLVMArrayType2(i8, SCRATCH_BYTES);
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    /* the record pointer for non-inlined functions, set by each kernel */
    LLVMValueRef recvar = LLVMAddGlobalInAddressSpace(M, g1, "__p2n_fault_record", as_global);
    LLVMSetInitializer(recvar, LLVMConstNull(g1));
    LLVMSetLinkage(recvar, LLVMInternalLinkage);
    LLVMSetAlignment(recvar, 8);
    LLVMValueRef zeros = LLVMAddGlobalInAddressSpace(M, blk, "__p2n_null_page", as_global);
    LLVMSetInitializer(zeros, LLVMConstNull(blk));
    LLVMSetGlobalConstant(zeros, 1);
    LLVMSetLinkage(zeros, LLVMInternalLinkage);
    LLVMSetAlignment(zeros, 16);
    unsigned n = 0;
    for (LLVMValueRef fn = LLVMGetFirstFunction(M); fn; fn = LLVMGetNextFunction(fn)) {
        size_t len;
        if (LLVMIsDeclaration(fn) || !strcmp(LLVMGetValueName2(fn, &len), "__p2n_globals")) continue;
        LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
        LLVMValueRef kernel_rec = NULL;
        if (LLVMGetFunctionCallConv(fn) == 76 && (kernel_rec = record_param(fn, as_shared, as_global))) {
            LLVMPositionBuilderBefore(B, LLVMGetFirstInstruction(entry));
            LLVMSetAlignment(LLVMBuildStore(B, kernel_rec, recvar), 8);
        }
        LLVMValueRef sink = NULL, seen = NULL;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I; I = LLVMGetNextInstruction(I)) {
                unsigned at;
                bool writes;
                LLVMValueRef p = checked_ptr(I, as_generic, as_global, &at, &writes);
                if (!p) continue;
                if (!seen) {
                    /* the last bad address | bit 63, 0 = none: a private word (a register once PoCL's O3 ran) */
                    LLVMPositionBuilderBefore(B, LLVMGetFirstInstruction(entry));
                    seen = LLVMBuildAlloca(B, i64, "nullpage.seen");
                    LLVMBuildStore(B, LLVMConstInt(i64, 0, 0), seen);
                }
                if (writes && !sink) {
                    LLVMPositionBuilderBefore(B, LLVMGetFirstInstruction(entry));
                    LLVMValueRef a = LLVMBuildAlloca(B, blk, "nullpage.sink");
                    LLVMSetAlignment(a, 16);
                    sink = LLVMBuildAddrSpaceCast(B, a, LLVMPointerTypeInContext(C, as_generic), "");
                }
                /* no branch at the access (loops stay vectorisable): compare, select the address, note it */
                LLVMPositionBuilderBefore(B, I);
                LLVMValueRef addr = LLVMBuildPtrToInt(B, p, i64, "");
                LLVMValueRef bad = LLVMBuildICmp(B, LLVMIntULT, addr, LLVMConstInt(i64, 4096, 0), "nullpage");
                LLVMValueRef safe = writes ? sink : zeros;
                if (LLVMTypeOf(safe) != LLVMTypeOf(p)) safe = LLVMBuildAddrSpaceCast(B, safe, LLVMTypeOf(p), "");
                LLVMSetOperand(I, at, LLVMBuildSelect(B, bad, safe, p, ""));
                LLVMValueRef old = LLVMBuildLoad2(B, i64, seen, "");
                LLVMValueRef tagged = LLVMBuildOr(B, addr, LLVMConstInt(i64, 1ull << 63, 0), "");
                LLVMBuildStore(B, LLVMBuildSelect(B, bad, tagged, old, ""), seen);
                n++;
            }
        if (!seen) continue;
        /* at each return: a bad access seen -> the first of the launch claims the record */
        unsigned nret = 0;
        LLVMValueRef *rets = NULL;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
            LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
            if (!t || LLVMGetInstructionOpcode(t) != LLVMRet) continue;
            rets = realloc(rets, (nret + 1) * sizeof *rets);
            rets[nret++] = t;
        }
        for (unsigned r = 0; r < nret; r++) {
            LLVMBasicBlockRef bb = LLVMGetInstructionParent(rets[r]);
            LLVMPositionBuilderBefore(B, rets[r]);
            LLVMValueRef v = LLVMBuildLoad2(B, i64, seen, "");
            LLVMValueRef any = LLVMBuildICmp(B, LLVMIntNE, v, LLVMConstInt(i64, 0, 0), "");
            LLVMBasicBlockRef done = llvm_split_after(C, B, any);
            LLVMBasicBlockRef claim = LLVMAppendBasicBlockInContext(C, fn, "nullpage"),
                              wr = LLVMAppendBasicBlockInContext(C, fn, "nullpage.rec");
            LLVMPositionBuilderAtEnd(B, bb);
            LLVMBuildCondBr(B, any, claim, done);
            LLVMPositionBuilderAtEnd(B, claim);
            LLVMValueRef rec = kernel_rec;
            if (!rec) {
                rec = LLVMBuildLoad2(B, g1, recvar, "");
                LLVMSetAlignment(rec, 8);
            }
            LLVMValueRef cx = LLVMBuildAtomicCmpXchg(B, rec, LLVMConstInt(i32, 0, 0),
                                                     LLVMConstInt(i32, SPIRV_TRAP_ILLEGAL_ADDRESS, 0),
                                                     LLVMAtomicOrderingMonotonic, LLVMAtomicOrderingMonotonic, 0);
            LLVMBuildCondBr(B, LLVMBuildExtractValue(B, cx, 1, ""), wr, done);
            LLVMPositionBuilderAtEnd(B, wr);
            /* record layout (spirv_trap.c): [2..3] the address, [8..10] %ctaid, [11..13] %tid */
            LLVMValueRef addr = LLVMBuildAnd(B, v, LLVMConstInt(i64, ~(1ull << 63), 0), "");
            LLVMValueRef vals[7] = {addr, id32(M, B, C, "_Z12get_group_idj", 0), id32(M, B, C, "_Z12get_group_idj", 1),
                                    id32(M, B, C, "_Z12get_group_idj", 2), id32(M, B, C, "_Z12get_local_idj", 0),
                                    id32(M, B, C, "_Z12get_local_idj", 1), id32(M, B, C, "_Z12get_local_idj", 2)};
            static const unsigned offs[7] = {8, 32, 36, 40, 44, 48, 52};
            for (unsigned k = 0; k < 7; k++) {
                LLVMValueRef o = LLVMConstInt(i64, offs[k], 0);
                LLVMSetAlignment(LLVMBuildStore(B, vals[k], LLVMBuildGEP2(B, i8, rec, &o, 1, "")), 4);
            }
            LLVMBuildBr(B, done);
        }
        free(rets);
    }
    LLVMDisposeBuilder(B);
    return n;
}
