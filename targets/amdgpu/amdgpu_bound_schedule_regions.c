/* amdgpu_bound_schedule_regions.c — after the optimiser: no scheduling region longer than a few hundred
 * instructions.
 *
 * Why: LLVM 22's machine schedulers are quadratic in the length of a scheduling region, and a region is a whole
 * basic block unless something cuts it. Straight-line code of a few thousand instructions — an unrolled FFT
 * butterfly network of cuFFT, an unrolled tensor-core tile — then spends most of its compile time there: on the
 * toolkit's libcufft.so.2555 (f64 FFT, one block of ~4,500 gfx1100 instructions) 60 % of code generation went to
 * the post-RA scheduler's VOPD pairing mutation (GCNVOPDUtils.cpp, O(n^2) pair checks; LLVM 23 caches them),
 * which paired 31 instructions in the end. `llvm.amdgcn.sched.barrier(0)` is a scheduling boundary for both
 * schedulers: placed every REGION instructions in a longer block, it bounds each region at no cost to what the
 * code computes (the intrinsic emits nothing). Code quality: within a window of REGION instructions the
 * schedulers keep their freedom; bench/compile-speed/RESULTS.md has the figures.
 * Not bounded by them (2026-12-07, libcufft.so.2674, one block of 36,600 IR instructions): the post-RA
 * scheduler's VOPD pairing still spends 10.9 of 17.6 s of passes there, whatever the spacing (48 to 384) and with
 * s_setprio in their place too; only LLVM's process-wide -amdgpu-enable-vopd=0 removes it (7.7 s; the "-vopd"
 * subtarget feature cannot be used per module or function: it takes the gfx11 instructions that imply it along,
 * and instruction selection fails).
 * Wave32 (RDNA) targets only, where the VOPD pairing that motivated it exists: on gfx950 the boundaries changed the
 * schedule and register allocation of mma/wmma_m8n32k16_f16_f16_f16_rcrr_{int,rand} (SGPR spills to VGPR lanes,
 * 3 KB of scratch either way) and both then fail on the ISA emulator, pass without them — machine verifier clean,
 * cause (LLVM or emulator) not found; until it is, CDNA code is compiled as clang would. */
#include <llvm-c/Core.h>

#include "amdgpu_target.h"
#include "llvm_pass.h"

enum { REGION = 384 }; /* IR instructions between two boundaries (each becomes ~1-2 machine instructions) */

bool amdgpu_bound_schedule_regions_pass(llvm_pass_ctx *X) {
    if (X->t->wave_size != 32) return true;
    LLVMValueRef barrier = NULL;
    LLVMTypeRef fty = NULL;
    LLVMBuilderRef B = NULL;
    for (LLVMValueRef f = LLVMGetFirstFunction(X->M); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b)) {
            unsigned n = 0;
            for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
                if (LLVMIsAPHINode(i) || ++n < REGION || LLVMIsATerminatorInst(i)) continue;
                if (!barrier) {
                    static const char name[] = "llvm.amdgcn.sched.barrier";
                    unsigned id = LLVMLookupIntrinsicID(name, sizeof name - 1);
                    if (!id) return true; /* only a compile-time saving */
                    barrier = LLVMGetIntrinsicDeclaration(X->M, id, NULL, 0);
                    fty = LLVMIntrinsicGetType(X->C, id, NULL, 0);
                    B = LLVMCreateBuilderInContext(X->C);
                }
                LLVMValueRef mask = LLVMConstInt(LLVMInt32TypeInContext(X->C), 0, 0);
                LLVMPositionBuilderBefore(B, i);
                LLVMBuildCall2(B, fty, barrier, &mask, 1, "");
                n = 0;
            }
        }
    if (B) LLVMDisposeBuilder(B);
    return true;
}
