/* codegen.h — the LLVM half of p2n_compile(): emission, verification, optimisation, code generation, link. */
#ifndef P2N_CODEGEN_H
#define P2N_CODEGEN_H

#include <llvm-c/Core.h>
#include <stdbool.h>

#include "diag.h"
#include "ir.h"
#include "ptx2native.h"
#include "target.h"

/* Takes ownership of C and M. times (optional): [0] optimisation, [1] code generation, [2] link, seconds. */
p2n_status llvm_codegen(LLVMContextRef C, LLVMModuleRef M, const target_desc *t, const p2n_options *opt,
                        p2n_diags *d, uint8_t **data, size_t *size, double *times);

#endif
