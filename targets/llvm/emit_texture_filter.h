/* emit_texture_filter.h — the arithmetic of linear texture filtering as the H200 does it (emit_texture_filter.c) */
#ifndef P2N_EMIT_TEXTURE_FILTER_H
#define P2N_EMIT_TEXTURE_FILTER_H

#include "emit.h"

/* what a channel's stored values are, for the filter (argument `kind` of tex_filter_fn) */
enum {
    TEX_FK_UNORM8 = 0,
    TEX_FK_UNORM16 = 1,
    TEX_FK_SNORM8 = 2,
    TEX_FK_SNORM16 = 3,
    TEX_FK_F16 = 4, /* values as f32 bits, f16 precision */
    TEX_FK_F32 = 5,
    TEX_FK_INT_S = 6, /* integers read as integers: sign-extended */
    TEX_FK_INT_U = 7, /* u32 */
    TEX_FK_SRGB = 8,  /* sRGB colour channels: decoded bfloat16 bits | biased exponent of the code's group (low 8) */
};

/* a helper function body of its own (E->B and E->cur point at it until tex_helper_end) */
typedef struct tex_saved {
    LLVMBuilderRef B;
    LLVMValueRef cur;
} tex_saved;
LLVMValueRef tex_helper_begin(emit_ctx *E, const char *name, LLVMTypeRef ft, tex_saved *s);
void tex_helper_end(emit_ctx *E, tex_saved *s);

/* the integer weights (i32, sum 256) of the 2^nd corners from the per-dimension 8-bit weights w[k] in 0..256;
 * corner m has bit k set for the second texel of dimension k */
void tex_corner_weights(emit_ctx *E, unsigned nd, LLVMValueRef *w, LLVMValueRef *cw);
/* i32 mask of the corners that take part in the filter: no dimension weighs their side 0 */
LLVMValueRef tex_corner_part(emit_ctx *E, unsigned nd, LLVMValueRef *w);

/* i32 (i32 kind, <8 x i32> values, <8 x i32> weights, i32 part): one channel's filtered result as f32 bits;
 * values are the stored integers (sign-extended) for the normalised kinds, f32 bits for the float kinds; bit m
 * of part: corner m takes part (tex_corner_part) */
LLVMValueRef tex_filter_fn(emit_ctx *E);

#endif
