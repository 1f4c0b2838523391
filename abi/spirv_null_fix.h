/* spirv_null_fix.h — rewrites scalar OpConstantNull into OpConstant 0 so that SPIR-V from LLVM 22 can be read
 * by the llvm-spirv 14/15 translators inside PoCL and older drivers (their assertion-enabled builds abort on
 * a scalar OpConstantNull, though the SPIR-V is valid). Composite and pointer nulls are left alone. */
#ifndef P2N_SPIRV_NULL_FIX_H
#define P2N_SPIRV_NULL_FIX_H

#include <stddef.h>
#include <stdint.h>

/* Returns a malloc'd rewritten module (word count in *nwords_out), or NULL if the input is not a
 * well-formed SPIR-V word stream; `replaced` (may be NULL) gets the number of constants rewritten. */
uint32_t *spirv_fix_scalar_nulls(const uint32_t *words, size_t nwords, size_t *nwords_out, unsigned *replaced);

#endif
