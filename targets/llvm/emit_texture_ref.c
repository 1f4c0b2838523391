/* emit_texture_ref.c — texture, sampler and surface *references* (.texref .samplerref .surfref), as CUDA <= 11
 * programs (unified mode) and `.target ..., texmode_independent` modules use them.
 *
 * A module-scope `.global .texref` / `.surfref` is an 8-byte global (emit_module.c gives it storage like any
 * .global, so cuModuleGetGlobal finds it) that holds a texture / surface object handle, i.e. the device address
 * of a p2n_tex_desc (abi/texture_desc.h). The driver stub (driver-stub/texref.c) builds that object from the
 * state set with cuTexRefSet* / cuSurfRefSetArray and writes its handle there before a launch; an instruction
 * on the reference loads the handle and continues on the texture-object path. A `.param .texref/.surfref` of a
 * kernel is the same 64-bit handle, passed by the caller. A module .texref never bound holds 0 and reads zeros,
 * as on the H200 (conformance tex/texref_unbound): the handle 0 is replaced by a module-local descriptor of an
 * image without memory (base 0: its texels read as 0, emit_texture_sample.c; border colour 0, size 0 for txq),
 * with one compare in the texel reader instead of a branch around every sampling instruction. A .surfref never
 * bound, or a null .param handle, fails the descriptor check (trap).
 *
 * Samplers (texmode_independent: tex [t, s, {c}]): the image comes from the texture, the sampler state
 * (filter_mode, addr_mode_0..2, force_unnormalized_coords) from the sampler. The descriptor is copied into a
 * private 128-byte one with those fields replaced, and sampling reads the copy; the original is never written
 * (objects are shared by every thread and launch). A module-scope `.global .samplerref` is a compile-time
 * constant: its initializer's fields, and for a field not given what a zeroed CUDA_TEXTURE_DESC means (wrap,
 * nearest, the texture's own coordinate normalisation; NVIDIA documents no defaults, this is our choice). A
 * sampler given as a handle (`.param .samplerref`, a .u64 register) is the address of a descriptor, e.g. a
 * texture object, whose filter, address modes and normalisation flag are taken.
 */
#include <stdio.h>
#include <string.h>

#include "emit_texture.h"
#include "texture_desc.h"

#define BLD (E->B)

static bool is_ref_type(ir_type t) { return t == IR_T_TEXREF || t == IR_T_SAMPLERREF || t == IR_T_SURFREF; }

bool tex_operand_is_ref(emit_ctx *E, const ir_operand *o, ir_type *t) {
    if (o->kind != IR_OPND_VAR && !(o->kind == IR_OPND_ADDR && (o->flags & IR_OPNDF_BASE_VAR))) return false;
    ir_type vt = (ir_type)E->m->vars[o->id].type;
    if (!is_ref_type(vt)) return false;
    if (t) *t = vt;
    return true;
}

/* the descriptor an unbound .texref reads: no memory (every texel and the border read 0) */
static LLVMValueRef empty_texture(emit_ctx *E) {
    static const char name[] = "__p2n_empty_texture";
    LLVMValueRef g = LLVMGetNamedGlobal(E->M, name);
    if (g) return g;
    p2n_tex_desc d;
    memset(&d, 0, sizeof d);
    d.magic = P2N_TEX_MAGIC;
    d.kind = P2N_TEX_KIND_ARRAY;
    d.format = 0x20; /* CU_AD_FORMAT_FLOAT */
    d.channels = 4;
    d.elem_bytes = 16;
    d.dims = 2; /* width = height = depth = 0, base = 0: no memory; border colour 0 */
    d.address[0] = d.address[1] = d.address[2] = 3; /* CU_TR_ADDRESS_MODE_BORDER */
    d.levels = 1;
    LLVMValueRef init = LLVMConstStringInContext2(E->C, (const char *)&d, sizeof d, 1);
    g = LLVMAddGlobalInAddressSpace(E->M, LLVMTypeOf(init), name, module_var_as(E));
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetAlignment(g, 16);
    return g;
}

LLVMValueRef texref_handle(emit_ctx *E, uint32_t var) {
    const ir_var *v = &E->m->vars[var];
    if ((ir_type)v->type == IR_T_SAMPLERREF) {
        emit_unsupported(E, "a .samplerref is a sampler, not a texture or surface");
        return NULL;
    }
    if (v->nattrs && var_space(E, var) != IR_S_PARAM) {
        /* fields of a .texref initializer (unified mode's static state) would have to reach the driver stub's
         * reference state; nothing emits them (nvcc never did), so they are refused, not ignored */
        emit_unsupported(E, "initializers on .texref/.surfref variables");
        return NULL;
    }
    LLVMValueRef p = var_addr(E, var, var_space(E, var));
    LLVMValueRef h = LLVMBuildLoad2(BLD, E->i64, p, "texref");
    LLVMSetAlignment(h, 8);
    if ((ir_type)v->type != IR_T_TEXREF || var_space(E, var) == IR_S_PARAM) return h;
    LLVMValueRef empty = LLVMBuildPtrToInt(BLD, as_generic(E, empty_texture(E)), E->i64, "");
    return sel(E, LLVMBuildICmp(BLD, LLVMIntEQ, h, c64(E, 0), ""), empty, h);
}

/* ---------------------------------------------------------------- samplers */

typedef struct sampler_state {
    LLVMValueRef filter, addr[3]; /* i32: CUfilter_mode, CUaddress_mode */
    LLVMValueRef flags_clear;     /* i32: bits of the texture's flags to clear ... */
    LLVMValueRef flags_set;       /* ... and to set */
} sampler_state;

/* PTX address-mode words -> CUaddress_mode (clamp_ogl has no CUDA mode: clamped like clamp_to_edge) */
static int addr_mode(const char *s) {
    if (!strcmp(s, "wrap")) return 0;
    if (!strcmp(s, "clamp_to_edge") || !strcmp(s, "clamp_ogl")) return 1;
    if (!strcmp(s, "mirror")) return 2;
    if (!strcmp(s, "clamp_to_border")) return 3;
    return -1;
}

/* the constant state of a module-scope .samplerref from its initializer; false after a diagnostic */
static bool const_sampler(emit_ctx *E, const ir_var *v, sampler_state *s) {
    unsigned filter = 0, addr[3] = {0, 0, 0}, unnorm = 0;
    for (uint32_t i = 0; i + 1 < v->nattrs; i += 2) {
        const char *f = ir_str(E->m, v->attrs[i]), *val = ir_str(E->m, v->attrs[i + 1]);
        int ok = 1;
        if (!strcmp(f, "filter_mode")) {
            if (!strcmp(val, "nearest")) filter = 0;
            else if (!strcmp(val, "linear")) filter = 1;
            else ok = 0;
        } else if (!strncmp(f, "addr_mode_", 10) && f[10] >= '0' && f[10] <= '2' && !f[11]) {
            int m = addr_mode(val);
            if (m < 0) ok = 0;
            else addr[f[10] - '0'] = (unsigned)m;
        } else if (!strcmp(f, "force_unnormalized_coords")) {
            if (!strcmp(val, "0") || !strcmp(val, "1")) unnorm = val[0] == '1';
            else ok = 0;
        } else ok = 0;
        if (!ok) {
            char why[160];
            snprintf(why, sizeof why, "sampler initializer '%s = %s'", f, val);
            emit_unsupported(E, why);
            return false;
        }
    }
    s->filter = c32(E, filter);
    for (int k = 0; k < 3; k++) s->addr[k] = c32(E, addr[k]);
    s->flags_clear = c32(E, unnorm ? P2N_TEX_NORMALIZED_COORDS : 0);
    s->flags_set = c32(E, 0);
    return true;
}

static bool sampler_of(emit_ctx *E, const ir_operand *o, sampler_state *s) {
    ir_type t;
    LLVMValueRef h;
    if (tex_operand_is_ref(E, o, &t)) {
        const ir_var *v = &E->m->vars[o->id];
        if (t != IR_T_SAMPLERREF) {
            emit_unsupported(E, "sampler operand: a .samplerref is expected");
            return false;
        }
        if (var_space(E, o->id) != IR_S_PARAM) return const_sampler(E, v, s);
        h = LLVMBuildLoad2(BLD, E->i64, var_addr(E, o->id, IR_S_PARAM), "sampler");
    } else {
        h = tex_handle(E, o);
        if (!h) return false;
    }
    LLVMValueRef d = tex_check(E, h, TEXCHK_QUERY);
    s->filter = texd_load(E, d, P2N_TEXD_FILTER, E->i32);
    for (unsigned k = 0; k < 3; k++) s->addr[k] = texd_load(E, d, P2N_TEXD_ADDRESS + 4 * k, E->i32);
    s->flags_clear = c32(E, P2N_TEX_NORMALIZED_COORDS);
    s->flags_set = LLVMBuildAnd(BLD, texd_load(E, d, P2N_TEXD_FLAGS, E->i32), c32(E, P2N_TEX_NORMALIZED_COORDS), "");
    return true;
}

/* a private copy of descriptor d with the sampler's state in place of the texture's */
static LLVMValueRef with_sampler(emit_ctx *E, LLVMValueRef d, const sampler_state *s) {
    LLVMValueRef copy = LLVMBuildAlloca(E->AB, LLVMArrayType(E->i64, sizeof(p2n_tex_desc) / 8), "texd.copy");
    LLVMSetAlignment(copy, 16);
    LLVMValueRef p = as_generic(E, copy);
    for (unsigned off = 0; off < sizeof(p2n_tex_desc); off += 8) {
        LLVMValueRef w = LLVMBuildLoad2(BLD, E->i64, gep8(E, d, c64(E, off)), "");
        LLVMSetAlignment(w, 8);
        LLVMSetAlignment(LLVMBuildStore(BLD, w, gep8(E, p, c64(E, off))), 8);
    }
    LLVMValueRef flags = texd_load(E, d, P2N_TEXD_FLAGS, E->i32);
    flags = LLVMBuildOr(BLD, LLVMBuildAnd(BLD, flags, LLVMBuildNot(BLD, s->flags_clear, ""), ""), s->flags_set, "");
    LLVMValueRef put[5][2] = {{c64(E, P2N_TEXD_FLAGS), flags}, {c64(E, P2N_TEXD_FILTER), s->filter},
                              {c64(E, P2N_TEXD_ADDRESS), s->addr[0]}, {c64(E, P2N_TEXD_ADDRESS + 4), s->addr[1]},
                              {c64(E, P2N_TEXD_ADDRESS + 8), s->addr[2]}};
    for (unsigned i = 0; i < 5; i++) LLVMSetAlignment(LLVMBuildStore(BLD, put[i][1], gep8(E, p, put[i][0])), 4);
    return p;
}

/* ---------------------------------------------------------------- the texture operand of tex / tld4 */

LLVMValueRef tex_sample_desc(emit_ctx *E, const ir_operand *texargs) {
    const ir_operand *ta = ir_elems(texargs);
    LLVMValueRef h = tex_handle(E, &ta[0]);
    if (!h) return NULL;
    /* .level/.grad/.base: descriptors have one level (tex_check traps otherwise), so every form samples it */
    LLVMValueRef d = tex_check(E, h, TEXCHK_SAMPLE);
    if (texargs->aux != 3) return d;
    sampler_state s;
    if (!sampler_of(E, &ta[1], &s)) return NULL;
    return with_sampler(E, d, &s);
}
