/* printf_format.h — what every device-printf lowering of CUDA's vprintf(format, argument buffer) shares
 * (spirv_printf.c: OpenCL printf; amdgpu_printf.c: HIP's hostcall printf): the constant format string behind a
 * pointer, the walk over its conversions with CUDA's buffer packing, and the -O0 inlining that makes formats
 * constant. */
#ifndef P2N_PRINTF_FORMAT_H
#define P2N_PRINTF_FORMAT_H

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stddef.h>

/* the constant NUL-terminated string global behind casts/zero GEPs (*len: its array length); NULL otherwise */
const char *printf_const_string(LLVMValueRef v, size_t *len);

/* One conversion of a format. CUDA packs each argument at the next multiple of its size: integers 4 bytes
 * (8 with l/ll/z/j/t), floating point as double (8), %s and %p 8. */
typedef struct printf_conv {
    size_t start;       /* index of the '%' */
    size_t spec_end;    /* end of flags, width and precision (where the length modifier starts) */
    size_t end;         /* one past the conversion character */
    char length;        /* 0, 'h' (h or hh), 'l' (l ll z j t: 64-bit) */
    char conv;          /* d i u x X o c f F e E g G a A s p */
    unsigned size;      /* bytes in the argument buffer: 4 or 8 */
    bool fp, string;    /* floating point (a double); %s */
} printf_conv;

/* The next conversion at or after fmt[*pos] ("%%" is skipped as text): true with *c filled and *pos = c->end;
 * false at the end (*why NULL) or on what CUDA's vprintf does not take or we cannot lower (*why: the reason:
 * '*' width or precision, long double, unknown conversion). */
bool printf_next_conv(const char *fmt, size_t *pos, printf_conv *c, const char **why);

/* Unoptimised code still has nvcc's vprintf stub (and any .func passing a format on) as a function whose
 * format is a parameter: inline such functions (holding calls of `marker` with a non-constant first operand)
 * into their callers and promote the callers' allocas, a few levels up, until the formats are constants.
 * Stops at kernels (SPIR or AMDGPU calling convention). */
void printf_resolve_formats(LLVMModuleRef M, LLVMValueRef marker);

struct p2n_diags;
struct target_desc;
/* the diagnostic of a vprintf call that cannot be lowered: names the target, the function and why */
void printf_unsupported(struct p2n_diags *d, const struct target_desc *t, LLVMValueRef call, const char *why);

#endif
