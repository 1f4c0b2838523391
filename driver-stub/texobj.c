/* texobj.c — texture and surface objects: cuTexObjectCreate/Destroy/Get*Desc, cuSurfObjectCreate/Destroy/
 * GetResourceDesc.
 *
 * A CUtexObject / CUsurfObject is the device address of a 128-byte p2n_tex_desc (abi/texture_desc.h, the
 * contract with the compiler's texture emission) that this file builds once, in backend device memory, at
 * creation. The host keeps the descriptors the application passed, for the Get*Desc queries, in a list that
 * context destruction empties.
 *
 * Validation, as the H200 answers (tests/conformance/cases/tex/create_*, linear_*, pitch2d_*): linear and
 * pitch2d addresses must be TEXTURE_ALIGNMENT-aligned (texture_aligned: an offset of 16 is refused),
 * a pitch a multiple of TEXTURE_PITCH_ALIGNMENT; a pitch smaller than a row and a linear size that is not a
 * whole number of elements are accepted; every format may be read as integer or as normalised float (32-bit
 * integers too), and linear filtering is accepted with integer reads. More answers of NVIDIA's driver, from
 * tests/driver/probe_array_nvidia.c: sizes of 0 are accepted; a surface over an array made without
 * CUDA_ARRAY3D_SURFACE_LDST is created; destroying object 0 succeeds. Resource views and mipmapped arrays are
 * not implemented (CUDA_ERROR_NOT_SUPPORTED, with a message).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "texture_desc.h"

typedef struct texobj {
    uint64_t handle;            /* device address of the p2n_tex_desc */
    int surface;
    p2n_ctx *ctx;
    CUDA_RESOURCE_DESC res;
    CUDA_TEXTURE_DESC tex;      /* zero for surfaces */
    struct texobj *next;
} texobj;

static texobj *objs;
static pthread_mutex_t objs_lock = PTHREAD_MUTEX_INITIALIZER;

static int attr(CUdevice_attribute a)
{
    int v = 0;
    cuDeviceGetAttribute(&v, a, 0);
    return v;
}

static int channels_ok(unsigned n)
{
    return n == 1 || n == 2 || n == 4;
}

/* The address of linear/pitch2d texels: NVIDIA's allocations start TEXTURE_ALIGNMENT-aligned, ours only as the
 * backend aligns them (256 bytes on the CPU, 128 with OpenCL SVM), so an allocation's start always passes and an
 * address inside one must be a multiple of TEXTURE_ALIGNMENT from it (the H200 refuses 4 and 16 bytes in). */
static int texture_aligned(CUdeviceptr p)
{
    unsigned align = (unsigned)attr(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT);
    p2n_alloc a;
    if (p2n_drv_alloc_find(p, 0, &a))
        return (p - a.base) % align == 0;
    return p % align == 0;
}

/* fills the resource part of the descriptor; surface: the array must have been made for surface access */
static CUresult describe_resource(const CUDA_RESOURCE_DESC *rd, int surface, p2n_tex_desc *d)
{
    if (rd->flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    d->levels = 1;
    switch (rd->resType) {
    case CU_RESOURCE_TYPE_ARRAY: {
        const p2n_array *a = p2n_drv_array_get(rd->res.array.hArray);
        if (!a)
            return CUDA_ERROR_INVALID_HANDLE;
        /* no check of CUDA_ARRAY3D_SURFACE_LDST for surfaces: the H200 creates them without it */
        const CUDA_ARRAY3D_DESCRIPTOR *ad = &a->desc;
        int layered = (ad->Flags & CUDA_ARRAY3D_LAYERED) != 0, cube = (ad->Flags & CUDA_ARRAY3D_CUBEMAP) != 0;
        d->kind = P2N_TEX_KIND_ARRAY;
        d->base = a->base;
        d->pitch = a->pitch;
        d->slice_pitch = a->slice_pitch;
        d->width = (uint32_t)ad->Width;
        d->height = (uint32_t)ad->Height;
        d->format = ad->Format;
        d->channels = ad->NumChannels;
        d->elem_bytes = (uint32_t)a->elem;
        if (cube || layered) {
            d->layers = (uint32_t)ad->Depth;
            d->dims = cube || ad->Height ? 2 : 1;
            d->flags |= (layered ? P2N_TEX_LAYERED : 0) | (cube ? P2N_TEX_CUBEMAP : 0);
        } else {
            d->depth = (uint32_t)ad->Depth;
            d->dims = ad->Depth ? 3 : ad->Height ? 2 : 1;
        }
        return CUDA_SUCCESS;
    }
    case CU_RESOURCE_TYPE_LINEAR:
    case CU_RESOURCE_TYPE_PITCH2D: {
        if (surface)
            return CUDA_ERROR_INVALID_VALUE;
        int lin = rd->resType == CU_RESOURCE_TYPE_LINEAR;
        CUdeviceptr p = lin ? rd->res.linear.devPtr : rd->res.pitch2D.devPtr;
        unsigned fmt = lin ? rd->res.linear.format : rd->res.pitch2D.format;
        unsigned ch = lin ? rd->res.linear.numChannels : rd->res.pitch2D.numChannels;
        unsigned bpc = p2n_drv_format_bytes(fmt);
        if (!p || bpc == 0 || !channels_ok(ch) || !texture_aligned(p))
            return CUDA_ERROR_INVALID_VALUE;
        d->base = p;
        d->format = fmt;
        d->channels = ch;
        d->elem_bytes = bpc * ch;
        /* sizes of 0 (bytes, height, pitch) are accepted, as the H200 accepts them */
        if (lin) {
            size_t n = rd->res.linear.sizeInBytes / d->elem_bytes;
            if (n > (size_t)attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH))
                return CUDA_ERROR_INVALID_VALUE;
            d->kind = P2N_TEX_KIND_LINEAR;
            d->width = (uint32_t)n;
            d->pitch = d->slice_pitch = n * d->elem_bytes;
            d->dims = 1;
        } else {
            size_t w = rd->res.pitch2D.width, h = rd->res.pitch2D.height, pitch = rd->res.pitch2D.pitchInBytes;
            if (w > (size_t)attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH) ||
                h > (size_t)attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT) ||
                pitch > (size_t)attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH) ||
                pitch % (unsigned)attr(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT))
                return CUDA_ERROR_INVALID_VALUE;
            d->kind = P2N_TEX_KIND_PITCH2D;
            d->width = (uint32_t)w;
            d->height = (uint32_t)h;
            d->pitch = pitch;
            d->slice_pitch = pitch * h;
            d->dims = 2;
        }
        return CUDA_SUCCESS;
    }
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
        if (!rd->res.mipmap.hMipmappedArray)
            return CUDA_ERROR_INVALID_VALUE;
        fprintf(stderr, "ptx2native: texture/surface objects over mipmapped arrays are not supported\n");
        return CUDA_ERROR_NOT_SUPPORTED;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult describe_sampler(const CUDA_TEXTURE_DESC *td, p2n_tex_desc *d)
{
    const unsigned known = CU_TRSF_READ_AS_INTEGER | CU_TRSF_NORMALIZED_COORDINATES | CU_TRSF_SRGB |
                           CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION | CU_TRSF_SEAMLESS_CUBEMAP;
    for (int i = 0; i < 3; i++) {
        if ((unsigned)td->addressMode[i] > CU_TR_ADDRESS_MODE_BORDER)
            return CUDA_ERROR_INVALID_VALUE;
        d->address[i] = td->addressMode[i];
    }
    if ((unsigned)td->filterMode > CU_TR_FILTER_MODE_LINEAR || (unsigned)td->mipmapFilterMode > CU_TR_FILTER_MODE_LINEAR)
        return CUDA_ERROR_INVALID_VALUE;
    d->filter = td->filterMode;
    d->flags |= td->flags & known;
    memcpy(d->border, td->borderColor, sizeof d->border);
    d->lod_bias = td->mipmapLevelBias;
    d->min_lod = td->minMipmapLevelClamp;
    d->max_lod = td->maxMipmapLevelClamp;
    d->mip_filter = td->mipmapFilterMode;
    d->max_aniso = td->maxAnisotropy;
    return CUDA_SUCCESS;
}

/* puts the descriptor into device memory and records the object */
static CUresult publish(p2n_ctx *c, const p2n_tex_desc *d, const CUDA_RESOURCE_DESC *rd, const CUDA_TEXTURE_DESC *td,
                        uint64_t *handle)
{
    texobj *o = calloc(1, sizeof *o);
    if (!o)
        return CUDA_ERROR_OUT_OF_MEMORY;
    void *p = NULL;
    CUresult r = p2n_drv.be->mem_alloc(sizeof *d, &p);
    if (r == CUDA_SUCCESS) {
        r = p2n_drv_copy_bytes((uint64_t)(uintptr_t)p, 1, (uint64_t)(uintptr_t)d, 0, sizeof *d);
        if (r != CUDA_SUCCESS)
            p2n_drv.be->mem_free(p);
    }
    if (r != CUDA_SUCCESS) {
        free(o);
        return r;
    }
    o->handle = (uint64_t)(uintptr_t)p;
    p2n_drv_alloc_add(o->handle, sizeof *d, P2N_ALLOC_GLOBAL, c, 0); /* readable, not cuMemFree-able */
    o->surface = (d->flags & P2N_TEX_IS_SURFACE) != 0;
    o->ctx = c;
    o->res = *rd;
    if (td)
        o->tex = *td;
    pthread_mutex_lock(&objs_lock);
    o->next = objs;
    objs = o;
    pthread_mutex_unlock(&objs_lock);
    *handle = o->handle;
    return CUDA_SUCCESS;
}

CUresult cuTexObjectCreate(CUtexObject *pTexObject, const CUDA_RESOURCE_DESC *pResDesc,
                           const CUDA_TEXTURE_DESC *pTexDesc, const CUDA_RESOURCE_VIEW_DESC *pResViewDesc)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pTexObject || !pResDesc || !pTexDesc)
        return CUDA_ERROR_INVALID_VALUE;
    p2n_tex_desc d;
    memset(&d, 0, sizeof d);
    d.magic = P2N_TEX_MAGIC;
    r = describe_resource(pResDesc, 0, &d);
    if (r == CUDA_SUCCESS)
        r = describe_sampler(pTexDesc, &d);
    if (r != CUDA_SUCCESS)
        return r;
    if (pResViewDesc) {
        /* views apply to arrays only; reinterpreting formats or sub-ranges is not implemented */
        if (pResDesc->resType != CU_RESOURCE_TYPE_ARRAY || pResViewDesc->width == 0)
            return CUDA_ERROR_INVALID_VALUE; /* a zero view is invalid on the H200 */
        fprintf(stderr, "ptx2native: cuTexObjectCreate: resource views are not supported\n");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    uint64_t h;
    r = publish(c, &d, pResDesc, pTexDesc, &h);
    if (r == CUDA_SUCCESS)
        *pTexObject = h;
    return r;
}

CUresult cuSurfObjectCreate(CUsurfObject *pSurfObject, const CUDA_RESOURCE_DESC *pResDesc)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pSurfObject || !pResDesc)
        return CUDA_ERROR_INVALID_VALUE;
    p2n_tex_desc d;
    memset(&d, 0, sizeof d);
    d.magic = P2N_TEX_MAGIC;
    d.flags = P2N_TEX_IS_SURFACE;
    r = describe_resource(pResDesc, 1, &d);
    if (r != CUDA_SUCCESS)
        return r;
    uint64_t h;
    r = publish(c, &d, pResDesc, NULL, &h);
    if (r == CUDA_SUCCESS)
        *pSurfObject = h;
    return r;
}

/* unlinks and returns the object with this handle and kind, or NULL */
static texobj *take(uint64_t h, int surface)
{
    pthread_mutex_lock(&objs_lock);
    for (texobj **pp = &objs; *pp; pp = &(*pp)->next)
        if ((*pp)->handle == h && (*pp)->surface == surface) {
            texobj *o = *pp;
            *pp = o->next;
            pthread_mutex_unlock(&objs_lock);
            return o;
        }
    pthread_mutex_unlock(&objs_lock);
    return NULL;
}

/* a copy of the object's record; 0 when there is none */
static int peek(uint64_t h, int surface, texobj *out)
{
    int found = 0;
    pthread_mutex_lock(&objs_lock);
    for (texobj *o = objs; o; o = o->next)
        if (o->handle == h && o->surface == surface) {
            *out = *o;
            found = 1;
            break;
        }
    pthread_mutex_unlock(&objs_lock);
    return found;
}

static void texobj_free(texobj *o)
{
    p2n_drv_alloc_remove(o->handle);
    p2n_drv.be->mem_free((void *)(uintptr_t)o->handle);
    free(o);
}

static CUresult destroy(uint64_t h, int surface)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (h == 0)
        return CUDA_SUCCESS; /* as the H200 answers */
    texobj *o = take(h, surface);
    if (!o)
        return CUDA_ERROR_INVALID_VALUE;
    texobj_free(o);
    return CUDA_SUCCESS;
}

CUresult cuTexObjectDestroy(CUtexObject texObject) { return destroy(texObject, 0); }
CUresult cuSurfObjectDestroy(CUsurfObject surfObject) { return destroy(surfObject, 1); }

static CUresult get(uint64_t h, int surface, void *out, int what)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    texobj o;
    if (!out || !peek(h, surface, &o))
        return CUDA_ERROR_INVALID_VALUE;
    if (what == 0)
        *(CUDA_RESOURCE_DESC *)out = o.res;
    else
        *(CUDA_TEXTURE_DESC *)out = o.tex;
    return CUDA_SUCCESS;
}

CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc, CUtexObject texObject)
{ return get(texObject, 0, pResDesc, 0); }
CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *pTexDesc, CUtexObject texObject)
{ return get(texObject, 0, pTexDesc, 1); }
CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc, CUsurfObject surfObject)
{ return get(surfObject, 1, pResDesc, 0); }

CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *pResViewDesc, CUtexObject texObject)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    texobj o;
    if (!pResViewDesc || !peek(texObject, 0, &o))
        return CUDA_ERROR_INVALID_VALUE;
    /* no object has a view (they are refused at creation); for an object made without one the H200 succeeds.
     * What it fills in is not known: zeros (CU_RES_VIEW_FORMAT_NONE) */
    memset(pResViewDesc, 0, sizeof *pResViewDesc);
    return CUDA_SUCCESS;
}

static void p2n_drv_texobj_release_ctx(p2n_ctx *c)
{
    pthread_mutex_lock(&objs_lock);
    for (texobj **pp = &objs; *pp;) {
        texobj *o = *pp;
        if (o->ctx == c) {
            *pp = o->next;
            texobj_free(o);
        } else {
            pp = &o->next;
        }
    }
    pthread_mutex_unlock(&objs_lock);
}

__attribute__((constructor)) static void register_release_hook(void)
{
    p2n_drv_ctx_on_release(P2N_CTX_RELEASE_TEXOBJS, p2n_drv_texobj_release_ctx);
}
