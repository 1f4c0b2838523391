/* amdgpu_report_errors.c — CUDA's error for a kernel that traps, asserts or faults, on AMDGPU.
 *
 * With HSA's trap handler, `s_trap` ends the whole process on a real GPU (HIP reports a queue error and aborts),
 * so neither the program's error handling nor CUDA's error codes survive a device-side assert. Instead a failing
 * lane reports into the module's error record (abi/error_record.h; the layout SPIR-V's record has) and its wave
 * ends:
 *  - the hooks (amdgpu_hooks.c) and the recursion transform's overflow trap call the marker
 *    AMD_ERROR_MARKER(i32 code, ptr message, ptr file, i32 line, ptr function), declared noreturn like llvm.trap,
 *    so the optimiser treats it as one and amdgpu-trap-in-place keeps it where the lane reaches it;
 *  - after those (the last post-optimisation passes) each marker becomes: claim word 0 of the record (compare-
 *    exchange 0 -> code); write line, the three string addresses, %ctaid and %tid to the record if the claim won,
 *    else to its words 16..31 (a select, not a branch: the trap block stays one block); llvm.trap, which the
 *    target's "-trap-handler" feature (amdgpu_target.c) compiles to an s_endpgm taken when any lane is active —
 *    the wave ends in place, and an ended wave no longer counts at s_barrier, so its block's other waves go on.
 * CUDA ends the whole grid at the first failure; here only the failing wave ends. Waves that wait for its work would
 * wait for ever, so every wait that polls — a failed mbarrier test/try_wait poll, nanosleep: the RT_YIELD hook —
 * calls AMD_ABORT_CHECK_MARKER(), which becomes, in a module that reports errors, a load of the record's code
 * word and the end of the wave when it is set (a plain spin loop of the program's own does not notice: the grid
 * then hangs as it would have with s_trap on a GPU whose trap handler did not end the process).
 * The record is defined once per emitted module (amdgpu_define_error_record, before the bodies, so a -j split
 * gives it one home); a partition that reports without holding it declares it. Kernels of a module that may
 * report carry P2N_KERNEL_REPORTS_ERRORS in their kinfo (amdgpu_lower.c), and the HIP backend reads and clears
 * the record after their launches (driver-stub/hip). */
#include <stdio.h>
#include <string.h>

#include "amdgpu_target.h"
#include "error_record.h"
#include "codegen.h"
#include "llvm_pass.h"

static LLVMTypeRef marker_type(LLVMContextRef C) {
    LLVMTypeRef p = LLVMPointerTypeInContext(C, 0), i32 = LLVMInt32TypeInContext(C);
    LLVMTypeRef a[5] = {i32, p, p, i32, p};
    return LLVMFunctionType(LLVMVoidTypeInContext(C), a, 5, 0);
}

static void add_fn_attr(LLVMContextRef C, LLVMValueRef f, const char *name) {
    unsigned k = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(C, k, 0));
}

void amd_build_error_report(LLVMBuilderRef B, LLVMModuleRef M, LLVMValueRef code, LLVMValueRef msg, LLVMValueRef file,
                            LLVMValueRef line, LLVMValueRef func) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMTypeRef ft = marker_type(C), p = LLVMPointerTypeInContext(C, 0);
    LLVMValueRef f = LLVMGetNamedFunction(M, AMD_ERROR_MARKER);
    if (!f) {
        f = LLVMAddFunction(M, AMD_ERROR_MARKER, ft);
        add_fn_attr(C, f, "noreturn");
        add_fn_attr(C, f, "nounwind");
        add_fn_attr(C, f, "cold");
    }
    LLVMValueRef a[5] = {code, msg ? LLVMBuildPointerCast(B, msg, p, "") : LLVMConstNull(p),
                         file ? LLVMBuildPointerCast(B, file, p, "") : LLVMConstNull(p),
                         line ? line : LLVMConstInt(LLVMInt32TypeInContext(C), 0, 0),
                         func ? LLVMBuildPointerCast(B, func, p, "") : LLVMConstNull(p)};
    LLVMBuildCall2(B, ft, f, a, 5, "");
}

void amd_build_abort_check(LLVMBuilderRef B, LLVMModuleRef M) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(C), NULL, 0, 0);
    LLVMValueRef f = LLVMGetNamedFunction(M, AMD_ABORT_CHECK_MARKER);
    if (!f) {
        f = LLVMAddFunction(M, AMD_ABORT_CHECK_MARKER, ft);
        add_fn_attr(C, f, "nounwind");
    }
    LLVMBuildCall2(B, ft, f, NULL, 0, "");
}

bool amd_is_error_marker(LLVMValueRef callee) {
    size_t len = 0;
    const char *name = callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : NULL;
    return name && len == strlen(AMD_ERROR_MARKER) && memcmp(name, AMD_ERROR_MARKER, len) == 0;
}

bool amd_module_reports_errors(LLVMModuleRef M) {
    LLVMValueRef f = LLVMGetNamedFunction(M, AMD_ERROR_MARKER);
    return f && LLVMGetFirstUse(f);
}

static LLVMTypeRef record_type(LLVMContextRef C) {
    return LLVMArrayType2(LLVMInt32TypeInContext(C), P2N_AMD_RECORD_WORDS);
}

/* the record, or its declaration in a partition of a -j split that does not hold it */
static LLVMValueRef record_of(LLVMModuleRef M) {
    LLVMValueRef g = LLVMGetNamedGlobal(M, P2N_AMD_ERROR_RECORD);
    if (g) return g;
    g = LLVMAddGlobalInAddressSpace(M, record_type(LLVMGetModuleContext(M)), P2N_AMD_ERROR_RECORD, 1);
    LLVMSetVisibility(g, LLVMProtectedVisibility);
    LLVMSetAlignment(g, 8);
    return g;
}

void amdgpu_define_error_record(LLVMModuleRef M) {
    if (LLVMGetNamedGlobal(M, P2N_AMD_ERROR_RECORD)) return;
    LLVMValueRef g = record_of(M);
    LLVMSetInitializer(g, LLVMConstNull(record_type(LLVMGetModuleContext(M))));
}

static LLVMValueRef intrinsic(LLVMBuilderRef B, LLVMModuleRef M, const char *name) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(M, id, NULL, 0);
    return LLVMBuildCall2(B, LLVMIntrinsicGetType(LLVMGetModuleContext(M), id, NULL, 0), f, NULL, 0, "");
}

/* the marker call I -> the record's claim and writes, then llvm.trap (what follows I stays) */
static void lower_marker(LLVMModuleRef M, LLVMBuilderRef B, bool reports, LLVMValueRef I) {
    (void)reports;
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMValueRef rec = record_of(M);
    LLVMTypeRef i8 = LLVMInt8TypeInContext(C), i32 = LLVMInt32TypeInContext(C), i64 = LLVMInt64TypeInContext(C);
    LLVMPositionBuilderBefore(B, I);
    LLVMValueRef cx = LLVMBuildAtomicCmpXchg(B, rec, LLVMConstInt(i32, 0, 0), LLVMGetOperand(I, 0),
                                             LLVMAtomicOrderingMonotonic, LLVMAtomicOrderingMonotonic, 0);
    LLVMValueRef losers = LLVMConstInt(i64, 4 * P2N_REC_ERR_WORDS, 0);
    LLVMValueRef base = LLVMBuildSelect(B, LLVMBuildExtractValue(B, cx, 1, ""), rec,
                                        LLVMBuildGEP2(B, i8, rec, &losers, 1, ""), "");
    /* volatile: nothing after the trap reads them, and no pass may take them for dead */
#define WORD(w, v)                                                                                                 \
    do {                                                                                                           \
        LLVMValueRef o_ = LLVMConstInt(i64, 4 * (w), 0);                                                           \
        LLVMValueRef s_ = LLVMBuildStore(B, (v), LLVMBuildGEP2(B, i8, base, &o_, 1, ""));                          \
        LLVMSetAlignment(s_, 4);                                                                                   \
        LLVMSetVolatile(s_, 1);                                                                                    \
    } while (0)
    WORD(P2N_REC_LINE, LLVMGetOperand(I, 3));
    static const unsigned strs[3][2] = {{1, P2N_REC_MSG}, {2, P2N_REC_FILE}, {4, P2N_REC_FUNC}};
    for (unsigned s = 0; s < 3; s++) WORD(strs[s][1], LLVMBuildPtrToInt(B, LLVMGetOperand(I, strs[s][0]), i64, ""));
    static const char *const wg[3] = {"llvm.amdgcn.workgroup.id.x", "llvm.amdgcn.workgroup.id.y",
                                      "llvm.amdgcn.workgroup.id.z"};
    static const char *const wi[3] = {"llvm.amdgcn.workitem.id.x", "llvm.amdgcn.workitem.id.y",
                                      "llvm.amdgcn.workitem.id.z"};
    for (unsigned k = 0; k < 3; k++) {
        WORD(P2N_REC_CTAID + k, intrinsic(B, M, wg[k]));
        WORD(P2N_REC_TID + k, intrinsic(B, M, wi[k]));
    }
#undef WORD
    intrinsic(B, M, "llvm.trap");
    LLVMInstructionEraseFromParent(I);
}

/* the abort check I: the wave ends if some lane of the grid has claimed the record; nothing where no code of the
 * module reports (reports false) */
static void lower_abort_check(LLVMModuleRef M, LLVMBuilderRef B, bool reports, LLVMValueRef I) {
    if (reports) {
        LLVMContextRef C = LLVMGetModuleContext(M);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(C);
        LLVMBasicBlockRef cont = llvm_split_after(C, B, I); /* I's block ends at I, without a terminator */
        LLVMBasicBlockRef here = LLVMGetInstructionParent(I);
        LLVMBasicBlockRef end = LLVMInsertBasicBlockInContext(C, cont, "p2n.abort");
        LLVMPositionBuilderAtEnd(B, here);
        LLVMValueRef code = LLVMBuildLoad2(B, i32, record_of(M), "");
        LLVMSetVolatile(code, 1);
        LLVMSetAlignment(code, 4);
        LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntNE, code, LLVMConstInt(i32, 0, 0), ""), end, cont);
        /* the trap-in-place shape (amdgpu_trap_in_place.c): the wave ends here, the branch only shapes the CFG */
        LLVMPositionBuilderAtEnd(B, end);
        intrinsic(B, M, "llvm.trap");
        LLVMBuildBr(B, cont);
    }
    LLVMInstructionEraseFromParent(I);
}

/* every call of the marker `name` lowered by `lower`, then the marker deleted; false: a use that is no call */
static bool lower_calls(llvm_pass_ctx *X, const char *name, bool reports,
                        void (*lower)(LLVMModuleRef, LLVMBuilderRef, bool, LLVMValueRef)) {
    LLVMValueRef f = LLVMGetNamedFunction(X->M, name);
    if (!f) return true;
    LLVMBuilderRef B = LLVMCreateBuilderInContext(X->C);
    while (LLVMGetFirstUse(f)) {
        LLVMValueRef I = LLVMGetUser(LLVMGetFirstUse(f));
        if (!LLVMIsACallInst(I) || LLVMGetCalledValue(I) != f) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s used other than by a call", name);
            X->error = LLVMCreateStringError(msg);
            X->internal = true;
            LLVMDisposeBuilder(B);
            return false;
        }
        lower(X->M, B, reports, I);
    }
    LLVMDisposeBuilder(B);
    LLVMDeleteFunction(f);
    return true;
}

/* whether the abort checks stay is decided before either marker is lowered */
bool amdgpu_report_errors_pass(llvm_pass_ctx *X) {
    bool reports = amd_module_reports_errors(X->M);
    return lower_calls(X, AMD_ABORT_CHECK_MARKER, reports, lower_abort_check) &&
           lower_calls(X, AMD_ERROR_MARKER, reports, lower_marker);
}
