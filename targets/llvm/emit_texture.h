/* emit_texture.h — texture and surface instructions in the shared emission (tex tld4 txq istypep: emit_texture.c;
 * suld sust sured suq: emit_surface.c; sampling helpers: emit_texture_sample.c).
 *
 * A texture or surface object is the 64-bit device address of a p2n_tex_desc (abi/texture_desc.h). Every
 * target reads it with ordinary loads and samples in software, so one implementation serves the host, AMDGPU and
 * SPIR-V and is tested bit for bit on the CPU against NVIDIA recordings. The sampling code is emitted once per
 * module as internal functions (`__p2n_tex_*`), not inlined at every instruction.
 */
#ifndef P2N_EMIT_TEXTURE_H
#define P2N_EMIT_TEXTURE_H

#include "emit.h"

bool emit_texture(emit_ctx *E, const ir_ins *ins); /* tex tld4 txq istypep */
bool emit_surface(emit_ctx *E, const ir_ins *ins); /* suld sust sured suq */

/* ---- shared by the instruction files (emit_texture.c) */
/* the object handle of operand o (a register, `[reg]`, a .texref/.surfref, or the first element of `[h, {..}]`)
 * as i64; NULL after a diagnostic */
LLVMValueRef tex_handle(emit_ctx *E, const ir_operand *o);
/* ---- references and samplers (emit_texture_ref.c) */
/* operand o names a .texref/.samplerref/.surfref variable (or [var]); *t gets its type when t is not NULL */
bool tex_operand_is_ref(emit_ctx *E, const ir_operand *o, ir_type *t);
/* the object handle a .texref/.surfref variable (module global or kernel parameter) holds, as i64; NULL after a
 * diagnostic */
LLVMValueRef texref_handle(emit_ctx *E, uint32_t var);
/* descriptor pointer for tex/tld4's texture operand [t, {c}] or [t, s, {c}] (checked: traps unless a sampleable
 * texture); with a sampler, a private copy carrying the sampler's state; NULL after a diagnostic */
LLVMValueRef tex_sample_desc(emit_ctx *E, const ir_operand *texargs);
LLVMValueRef tex_ptr(emit_ctx *E, LLVMValueRef addr64);                          /* i64 address -> E->ptr */
LLVMValueRef texd_load(emit_ctx *E, LLVMValueRef d, unsigned off, LLVMTypeRef t); /* field of a descriptor */
/* trap (the launch fails) unless h is a descriptor of the wanted kind; returns the descriptor pointer */
enum { TEXCHK_SAMPLE, /* a texture with one mip level (tex, tld4: no mipmaps yet, never a wrong level) */
       TEXCHK_QUERY,  /* any texture (txq) */
       TEXCHK_SURFACE };
LLVMValueRef tex_check(emit_ctx *E, LLVMValueRef h, unsigned want);
void tex_trap_unless(emit_ctx *E, LLVMValueRef ok);
/* what txq/suq report as .width .height .depth (P2N_TEXD_WIDTH/HEIGHT/DEPTH) of descriptor d */
LLVMValueRef tex_query_size(emit_ctx *E, LLVMValueRef d, unsigned off, bool surface);

/* ---- sampling helpers (emit_texture_sample.c); results are <4 x i32>: float bits for float results */
enum { TEX_MODE_CUBE = 1, TEX_MODE_INT_COORDS = 2, TEX_MODE_LAYERED = 4 };
LLVMTypeRef tex_v4i(emit_ctx *E);
/* <4 x i32> (ptr d, float x, float y, float z, i32 slice, i32 mode) for an image of ndims 1, 2 or 3 */
LLVMValueRef tex_sample_fn(emit_ctx *E, unsigned ndims);
/* <4 x i32> (ptr d, float x, float y, float z, i32 layer): cubemap direction (x, y, z) */
LLVMValueRef tex_cube_fn(emit_ctx *E);
/* <4 x i32> (ptr d, float x, float y, i32 slice, i32 comp): tld4 */
LLVMValueRef tex_gather_fn(emit_ctx *E);
/* <4 x i32> (ptr d, i32 x, i32 y, i32 slice): one element, in range, decoded (no filtering) */
LLVMValueRef tex_texel_fn(emit_ctx *E);
LLVMValueRef tex_call(emit_ctx *E, LLVMValueRef fn, LLVMValueRef *args, unsigned n);

#endif
