/* error_record.h — how a GPU kernel reports the first failing thread of a launch (trap, assert, a fault the
 * generated code detects), for targets whose devices cannot end a launch with an error of their own: the first
 * failing thread claims the record (compare-exchange of word 0 from 0 to its code), writes its line, strings,
 * block and thread, and ends; the runtime reads and clears the words after each launch and returns the CUDA
 * error the code names (driver-stub/error_report.c p2n_rec_report), as the CPU runtime would.
 *  - SPIR-V: a hidden trailing kernel argument, 128 bytes (spirv_meta.h SPIRV_REC_*: after these words, the
 *    launch's start time, clock counter, heap and launch flags); targets/spirv/spirv_trap.c.
 *  - AMDGPU: the code object's protected global P2N_AMD_ERROR_RECORD of P2N_AMD_RECORD_WORDS u32, found with
 *    hipModuleGetGlobal; words 16..31 take what later failures write (their claim lost: they write there without a
 *    branch); read after launches of kernels flagged P2N_KERNEL_REPORTS_ERRORS (amdgpu_kinfo.h);
 *    targets/amdgpu/amdgpu_report_errors.c. */
#ifndef P2N_ERROR_RECORD_H
#define P2N_ERROR_RECORD_H

#include <stdint.h>

#include "host_abi.h"

/* word 0: what failed (0: nothing) */
enum {
    P2N_REC_TRAP = 1,                /* trap / brkpt / a stack overflow: CUDA_ERROR_LAUNCH_FAILED */
    P2N_REC_ASSERT = 2,              /* __assertfail: CUDA_ERROR_ASSERT, the assert's line printed */
    P2N_REC_NOT_SUPPORTED = 3,       /* a kernel stubbed by --defer-unsupported: CUDA_ERROR_NOT_SUPPORTED; the
                                      * message is the whole text */
    P2N_REC_ILLEGAL_ADDRESS = 4,     /* a null-page or out-of-range .trap access: CUDA_ERROR_ILLEGAL_ADDRESS; the
                                      * message operand is the address */
    P2N_REC_MISALIGNED_ADDRESS = 5,  /* a misaligned surface access: CUDA_ERROR_MISALIGNED_ADDRESS (address) */
    P2N_REC_ILLEGAL_INSTRUCTION = 6, /* an instruction NVIDIA refuses in this launch: CUDA_ERROR_ILLEGAL_INSTRUCTION
                                      * (the message names it) */
};

/* u32 word indices: [1] line, [2..3] message, [4..5] file, [6..7] function (generic addresses of constant strings,
 * 0 when absent), [8..10] %ctaid, [11..13] %tid; the runtime reads and clears words 0..P2N_REC_ERR_WORDS-1 */
enum { P2N_REC_CODE = 0, P2N_REC_LINE = 1, P2N_REC_MSG = 2, P2N_REC_FILE = 4, P2N_REC_FUNC = 6, P2N_REC_CTAID = 8,
       P2N_REC_TID = 11, P2N_REC_ERR_WORDS = 16 };

/* the code of the runtime's assertfail with this char size (host_abi.h P2N_ASSERT_*: a fault kind the generated code
 * detected, or a deferred-unsupported stub); any other char size is a real __assertfail */
static inline unsigned p2n_rec_code_of_assert(uint64_t char_size) {
    return char_size == P2N_ASSERT_ILLEGAL_ADDRESS ? P2N_REC_ILLEGAL_ADDRESS
         : char_size == P2N_ASSERT_MISALIGNED_ADDRESS ? P2N_REC_MISALIGNED_ADDRESS
         : char_size == P2N_ASSERT_ILLEGAL_INSTRUCTION ? P2N_REC_ILLEGAL_INSTRUCTION
         : char_size == P2N_ASSERT_NOT_SUPPORTED ? P2N_REC_NOT_SUPPORTED : P2N_REC_ASSERT;
}

#define P2N_AMD_ERROR_RECORD "__p2n_error_record"
enum { P2N_AMD_RECORD_WORDS = 32 };

#endif
