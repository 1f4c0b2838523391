/* host_memfns.c — memcpy, memmove and memset inside every host object (a pre_codegen pass of the host target).
 *
 * Why: host objects are linked --no-undefined and import nothing (codegen.c), but the x86 back end lowers a
 * llvm.memcpy/memmove/memset it does not expand inline (a large struct copy, any size at -O0) to a call of the C
 * library function. The definitions here are added after the optimisation pipeline (so nothing deletes them
 * unused), weak_odr + hidden (several partitions of a -j compile may each carry them; none is exported), and
 * `no-builtins` (so the back end does not turn their loops back into calls of themselves). Byte loops: they only
 * run where the back end chose a call over inline code. */
#include <llvm-c/Core.h>
#include <string.h>

#include "host_target.h"

typedef enum { MF_COPY, MF_MOVE, MF_SET } memfn_kind;

static void define(LLVMModuleRef M, const char *name, memfn_kind kind) {
    LLVMContextRef C = LLVMGetModuleContext(M);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(C, 0), i64 = LLVMInt64TypeInContext(C), i8 = LLVMInt8TypeInContext(C);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(C);
    LLVMTypeRef params[3] = {ptr, kind == MF_SET ? i32 : ptr, i64};
    LLVMTypeRef ft = LLVMFunctionType(ptr, params, 3, 0);
    LLVMValueRef f = LLVMGetNamedFunction(M, name);
    if (f && (!LLVMIsDeclaration(f) || LLVMGlobalGetValueType(f) != ft)) return; /* the module has its own */
    if (!f) f = LLVMAddFunction(M, name, ft);
    LLVMSetLinkage(f, LLVMWeakODRLinkage);
    LLVMSetVisibility(f, LLVMHiddenVisibility);
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateStringAttribute(C, "no-builtins", 11, "", 0));
    LLVMValueRef d = LLVMGetParam(f, 0), s = LLVMGetParam(f, 1), n = LLVMGetParam(f, 2);
    LLVMBuilderRef B = LLVMCreateBuilderInContext(C);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(C, f, "entry"), loop = LLVMAppendBasicBlockInContext(C, f, "loop"),
                      done = LLVMAppendBasicBlockInContext(C, f, "done");
    LLVMPositionBuilderAtEnd(B, entry);
    LLVMValueRef zero = LLVMConstInt(i64, 0, 0), one = LLVMConstInt(i64, 1, 0);
    /* memmove copies backwards when the destination is above the source */
    LLVMValueRef back = kind == MF_MOVE ? LLVMBuildICmp(B, LLVMIntUGT, LLVMBuildPtrToInt(B, d, i64, ""),
                                                        LLVMBuildPtrToInt(B, s, i64, ""), "")
                                        : LLVMConstInt(LLVMInt1TypeInContext(C), 0, 0);
    LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntEQ, n, zero, ""), done, loop);
    LLVMPositionBuilderAtEnd(B, loop);
    LLVMValueRef i = LLVMBuildPhi(B, i64, "");
    LLVMValueRef k = LLVMBuildSelect(B, back, LLVMBuildSub(B, LLVMBuildSub(B, n, one, ""), i, ""), i, "");
    LLVMValueRef v = kind == MF_SET ? LLVMBuildTrunc(B, s, i8, "") : LLVMBuildLoad2(B, i8, LLVMBuildGEP2(B, i8, s, &k, 1, ""), "");
    LLVMBuildStore(B, v, LLVMBuildGEP2(B, i8, d, &k, 1, ""));
    LLVMValueRef i1 = LLVMBuildAdd(B, i, one, "");
    LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntULT, i1, n, ""), loop, done);
    LLVMAddIncoming(i, (LLVMValueRef[]){zero, i1}, (LLVMBasicBlockRef[]){entry, loop}, 2);
    LLVMPositionBuilderAtEnd(B, done);
    LLVMBuildRet(B, d);
    LLVMDisposeBuilder(B);
}

/* a pre_codegen pass of the host target (host_target.c): the back end may call them; the object imports nothing */
bool host_define_memfns(llvm_pass_ctx *X) {
    define(X->M, "memcpy", MF_COPY);
    define(X->M, "memmove", MF_MOVE);
    define(X->M, "memset", MF_SET);
    return true;
}
