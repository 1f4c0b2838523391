/* texref.c — texture and surface references (deprecated CUDA API, still exported by NVIDIA's libcuda 13):
 * cuModuleGetTexRef / cuModuleGetSurfRef, cuTexRefSet* / cuTexRefGet*, cuSurfRefSetArray / cuSurfRefGetArray.
 *
 * The compiler gives every module-scope .texref/.surfref an 8-byte global holding a texture/surface object
 * handle (targets/llvm/emit_texture_ref.c). A reference here is the host-side state CUDA keeps for it (what is
 * bound, format, address/filter modes, flags, border colour); before a launch of one of its module's kernels
 * (p2n_drv_refs_sync, called by launch.c) each reference whose state changed gets a new object made by
 * cuTexObjectCreate / cuSurfObjectCreate from that state, its handle is written into the global, and the
 * previous object is destroyed (safe because every backend's launch completes before it returns: CPU, OpenCL
 * and Level Zero alike; an asynchronous backend would have to defer that destruction to stream order). So
 * references work on every backend exactly as objects do.
 *
 * Choices where CUDA documents nothing (say so when an NVIDIA recording disagrees):
 *  - a new reference: format FLOAT x1, address mode wrap, point filtering, flags 0 (a zeroed CUDA_TEXTURE_DESC);
 *  - nothing bound: the global holds 0 and a kernel reading the reference fails its launch through the
 *    descriptor check (CUDA_ERROR_LAUNCH_FAILED on the CPU), never a read of stray memory;
 *  - the object is built at launch, so an invalid combination (e.g. a pitch NVIDIA refuses) is reported by the
 *    launch, with cuTexObjectCreate's error;
 *  - cuModuleGetTexRef accepts any 8-byte global of the module (the backends keep no types for globals);
 *  - handles that are not live references: CUDA_ERROR_INVALID_HANDLE; a NULL output pointer: INVALID_VALUE;
 *  - mipmapped arrays: CUDA_ERROR_NOT_SUPPORTED, as cuTexObjectCreate has no mipmaps either.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"

#define P2N_MAGIC_TEXREF 0x46455254u  /* "TREF" */
#define P2N_MAGIC_SURFREF 0x46455253u /* "SREF" */

enum { BOUND_NONE, BOUND_ARRAY, BOUND_LINEAR, BOUND_PITCH2D };

typedef struct p2n_ref {
    uint32_t magic;
    p2n_module *mod;
    char *name;
    uint64_t slot;              /* device address of the module's 8-byte global */
    int bound;                  /* BOUND_* */
    CUarray array;
    CUdeviceptr addr;           /* linear / pitch2d: aligned start */
    size_t bytes, pitch, width, height;
    CUarray_format format;
    int channels;
    CUaddress_mode am[3];
    CUfilter_mode fm, mip_fm;
    unsigned flags, max_aniso;
    float border[4], mip_bias, mip_min, mip_max;
    int dirty;                  /* state changed since the object in the slot was made */
    uint64_t obj;               /* that object (0: none) */
    struct p2n_ref *next;
} p2n_ref;

static p2n_ref *refs;
static pthread_mutex_t refs_lock = PTHREAD_MUTEX_INITIALIZER;

static p2n_ref *live(const void *h, int surface)
{
    return p2n_drv_is_live(h, surface ? P2N_MAGIC_SURFREF : P2N_MAGIC_TEXREF) ? (p2n_ref *)h : NULL;
}

static CUresult get_ref(void **out, CUmodule hmod, const char *name, int surface)
{
    if (!out || !name)
        return CUDA_ERROR_INVALID_VALUE;
    CUdeviceptr slot;
    size_t size;
    CUresult r = cuModuleGetGlobal_v2(&slot, &size, hmod, name);
    if (r != CUDA_SUCCESS)
        return r;
    if (size != 8)
        return CUDA_ERROR_NOT_FOUND;
    uint32_t magic = surface ? P2N_MAGIC_SURFREF : P2N_MAGIC_TEXREF;
    pthread_mutex_lock(&refs_lock);
    p2n_ref *ref = refs;
    while (ref && !(ref->mod == (p2n_module *)hmod && ref->magic == magic && !strcmp(ref->name, name)))
        ref = ref->next;
    if (!ref) {
        ref = calloc(1, sizeof *ref);
        char *nm = strdup(name);
        if (!ref || !nm) {
            free(ref);
            free(nm);
            pthread_mutex_unlock(&refs_lock);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        ref->magic = magic;
        ref->mod = (p2n_module *)hmod;
        ref->name = nm;
        ref->slot = slot;
        ref->format = CU_AD_FORMAT_FLOAT;
        ref->channels = 1;
        ref->next = refs;
        refs = ref;
        p2n_drv_register(ref);
    }
    pthread_mutex_unlock(&refs_lock);
    *out = ref;
    return CUDA_SUCCESS;
}

CUresult cuModuleGetTexRef(CUtexref *pTexRef, CUmodule hmod, const char *name)
{
    return get_ref((void **)pTexRef, hmod, name, 0);
}

CUresult cuModuleGetSurfRef(CUsurfref *pSurfRef, CUmodule hmod, const char *name)
{
    return get_ref((void **)pSurfRef, hmod, name, 1);
}

/* ---- the object made before a launch ---- */

static void drop_object(p2n_ref *ref)
{
    if (ref->obj) {
        if (ref->magic == P2N_MAGIC_SURFREF)
            cuSurfObjectDestroy(ref->obj);
        else
            cuTexObjectDestroy(ref->obj);
    }
    ref->obj = 0;
}

static CUresult make_object(const p2n_ref *ref, CUtexObject *obj)
{
    CUDA_RESOURCE_DESC rd;
    memset(&rd, 0, sizeof rd);
    switch (ref->bound) {
    case BOUND_ARRAY:
        rd.resType = CU_RESOURCE_TYPE_ARRAY;
        rd.res.array.hArray = ref->array;
        break;
    case BOUND_LINEAR:
        rd.resType = CU_RESOURCE_TYPE_LINEAR;
        rd.res.linear.devPtr = ref->addr;
        rd.res.linear.format = ref->format;
        rd.res.linear.numChannels = (unsigned)ref->channels;
        rd.res.linear.sizeInBytes = ref->bytes;
        break;
    default:
        rd.resType = CU_RESOURCE_TYPE_PITCH2D;
        rd.res.pitch2D.devPtr = ref->addr;
        rd.res.pitch2D.format = ref->format;
        rd.res.pitch2D.numChannels = (unsigned)ref->channels;
        rd.res.pitch2D.width = ref->width;
        rd.res.pitch2D.height = ref->height;
        rd.res.pitch2D.pitchInBytes = ref->pitch;
        break;
    }
    if (ref->magic == P2N_MAGIC_SURFREF)
        return cuSurfObjectCreate(obj, &rd);
    CUDA_TEXTURE_DESC td;
    memset(&td, 0, sizeof td);
    memcpy(td.addressMode, ref->am, sizeof td.addressMode);
    td.filterMode = ref->fm;
    td.flags = ref->flags;
    memcpy(td.borderColor, ref->border, sizeof td.borderColor);
    td.mipmapFilterMode = ref->mip_fm;
    td.mipmapLevelBias = ref->mip_bias;
    td.minMipmapLevelClamp = ref->mip_min;
    td.maxMipmapLevelClamp = ref->mip_max;
    td.maxAnisotropy = ref->max_aniso;
    return cuTexObjectCreate(obj, &rd, &td, NULL);
}

CUresult p2n_drv_refs_sync(p2n_module *m)
{
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&refs_lock);
    for (p2n_ref *ref = refs; ref && r == CUDA_SUCCESS; ref = ref->next) {
        if (ref->mod != m || !ref->dirty)
            continue;
        CUtexObject obj = 0;
        if (ref->bound != BOUND_NONE)
            r = make_object(ref, &obj);
        if (r == CUDA_SUCCESS)
            r = p2n_drv_copy_bytes(ref->slot, 1, (uint64_t)(uintptr_t)&obj, 0, sizeof obj);
        if (r != CUDA_SUCCESS) {
            uint64_t made = ref->obj;
            ref->obj = obj;
            drop_object(ref); /* the one just made, if any */
            ref->obj = made;
            break;
        }
        drop_object(ref);
        ref->obj = obj;
        ref->dirty = 0;
    }
    pthread_mutex_unlock(&refs_lock);
    return r;
}

static void p2n_drv_refs_module_gone(p2n_module *m)
{
    pthread_mutex_lock(&refs_lock);
    for (p2n_ref **pp = &refs; *pp;) {
        p2n_ref *ref = *pp;
        if (ref->mod != m) {
            pp = &ref->next;
            continue;
        }
        *pp = ref->next;
        drop_object(ref); /* fails harmlessly when the context already released its objects */
        p2n_drv_unregister(ref);
        ref->magic = 0;
        free(ref->name);
        free(ref);
    }
    pthread_mutex_unlock(&refs_lock);
}

__attribute__((constructor)) static void register_module_hook(void)
{
    p2n_drv_module_on_destroy(p2n_drv_refs_module_gone);
}

/* ---- binding ---- */

/* runs the statements after `surface` on the live reference `ref` (h) under the lock; `res_` is the result */
#define WITH_REF(h, surface, ...)                                                                                     \
    do {                                                                                                              \
        CUresult res_ = p2n_drv_check_init();                                                                         \
        if (res_ != CUDA_SUCCESS)                                                                                     \
            return res_;                                                                                              \
        pthread_mutex_lock(&refs_lock);                                                                               \
        p2n_ref *ref = live(h, surface);                                                                              \
        if (!ref)                                                                                                     \
            res_ = CUDA_ERROR_INVALID_HANDLE;                                                                         \
        else {                                                                                                        \
            __VA_ARGS__;                                                                                              \
        }                                                                                                             \
        pthread_mutex_unlock(&refs_lock);                                                                             \
        return res_;                                                                                                  \
    } while (0)

static CUresult set_array(p2n_ref *ref, CUarray a)
{
    p2n_array *arr = p2n_drv_array_get(a);
    if (!arr)
        return CUDA_ERROR_INVALID_HANDLE;
    ref->bound = BOUND_ARRAY;
    ref->array = a;
    ref->format = arr->desc.Format; /* the array's format replaces the reference's (CU_TRSA_OVERRIDE_FORMAT) */
    ref->channels = (int)arr->desc.NumChannels;
    ref->dirty = 1;
    return CUDA_SUCCESS;
}

CUresult cuTexRefSetArray(CUtexref hTexRef, CUarray hArray, unsigned int Flags)
{
    WITH_REF(hTexRef, 0, res_ = Flags & ~(unsigned)CU_TRSA_OVERRIDE_FORMAT ? CUDA_ERROR_INVALID_VALUE : set_array(ref, hArray));
}

CUresult cuSurfRefSetArray(CUsurfref hSurfRef, CUarray hArray, unsigned int Flags)
{
    WITH_REF(hSurfRef, 1, res_ = Flags ? CUDA_ERROR_INVALID_VALUE : set_array(ref, hArray));
}

CUresult cuTexRefSetMipmappedArray(CUtexref hTexRef, CUmipmappedArray hMipmappedArray, unsigned int Flags)
{
    (void)hMipmappedArray;
    (void)Flags;
    WITH_REF(hTexRef, 0, res_ = CUDA_ERROR_NOT_SUPPORTED);
}

/* NVIDIA's texture base must be TEXTURE_ALIGNMENT-aligned; an unaligned address is bound from the aligned one
 * below it and the difference passed back, for the kernel to add (as cuTexRefSetAddress documents) */
static CUresult set_linear(p2n_ref *ref, size_t *offset, CUdeviceptr dptr, size_t bytes)
{
    int align = 0;
    cuDeviceGetAttribute(&align, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, 0);
    p2n_alloc a;
    uint64_t from = p2n_drv_alloc_find(dptr, 0, &a) ? a.base : 0;
    size_t off = align > 0 ? (size_t)((dptr - from) % (unsigned)align) : 0;
    ref->bound = BOUND_LINEAR;
    ref->addr = dptr - off;
    ref->bytes = bytes + off;
    ref->dirty = 1;
    if (offset)
        *offset = off;
    return CUDA_SUCCESS;
}

CUresult cuTexRefSetAddress_v2(size_t *ByteOffset, CUtexref hTexRef, CUdeviceptr dptr, size_t bytes)
{
    WITH_REF(hTexRef, 0, res_ = set_linear(ref, ByteOffset, dptr, bytes));
}

CUresult cuTexRefSetAddress(unsigned int *ByteOffset, CUtexref hTexRef, CUdeviceptr_v1 dptr, unsigned int bytes)
{
    size_t off = 0;
    CUresult r = cuTexRefSetAddress_v2(&off, hTexRef, dptr, bytes);
    if (r == CUDA_SUCCESS && ByteOffset)
        *ByteOffset = (unsigned)off;
    return r;
}

static CUresult set_2d(p2n_ref *ref, const CUDA_ARRAY_DESCRIPTOR *desc, CUdeviceptr dptr, size_t pitch)
{
    if (!desc)
        return CUDA_ERROR_INVALID_VALUE;
    ref->bound = BOUND_PITCH2D;
    ref->addr = dptr;
    ref->width = desc->Width;
    ref->height = desc->Height;
    ref->pitch = pitch;
    ref->format = desc->Format;
    ref->channels = (int)desc->NumChannels;
    ref->dirty = 1;
    return CUDA_SUCCESS;
}

CUresult cuTexRefSetAddress2D_v3(CUtexref hTexRef, const CUDA_ARRAY_DESCRIPTOR *desc, CUdeviceptr dptr, size_t Pitch)
{
    WITH_REF(hTexRef, 0, res_ = set_2d(ref, desc, dptr, Pitch));
}

CUresult cuTexRefSetAddress2D_v2(CUtexref hTexRef, const CUDA_ARRAY_DESCRIPTOR *desc, CUdeviceptr dptr, size_t Pitch)
{
    return cuTexRefSetAddress2D_v3(hTexRef, desc, dptr, Pitch);
}

CUresult cuTexRefSetAddress2D(CUtexref hTexRef, const CUDA_ARRAY_DESCRIPTOR_v1 *desc, CUdeviceptr_v1 dptr, unsigned int Pitch)
{
    if (!desc)
        return cuTexRefSetAddress2D_v3(hTexRef, NULL, dptr, Pitch);
    CUDA_ARRAY_DESCRIPTOR d = {.Width = desc->Width, .Height = desc->Height, .Format = desc->Format,
                               .NumChannels = desc->NumChannels};
    return cuTexRefSetAddress2D_v3(hTexRef, &d, dptr, Pitch);
}

/* ---- sampling state ---- */

CUresult cuTexRefSetFormat(CUtexref hTexRef, CUarray_format fmt, int NumPackedComponents)
{
    WITH_REF(hTexRef, 0, {
        if (!p2n_drv_format_bytes((unsigned)fmt) || (NumPackedComponents != 1 && NumPackedComponents != 2 &&
                                                     NumPackedComponents != 4))
            res_ = CUDA_ERROR_INVALID_VALUE;
        else
            ref->format = fmt, ref->channels = NumPackedComponents, ref->dirty = 1;
    });
}

CUresult cuTexRefSetAddressMode(CUtexref hTexRef, int dim, CUaddress_mode am)
{
    WITH_REF(hTexRef, 0, {
        if (dim < 0 || dim > 2 || (unsigned)am > CU_TR_ADDRESS_MODE_BORDER)
            res_ = CUDA_ERROR_INVALID_VALUE;
        else
            ref->am[dim] = am, ref->dirty = 1;
    });
}

CUresult cuTexRefSetFilterMode(CUtexref hTexRef, CUfilter_mode fm)
{
    WITH_REF(hTexRef, 0, {
        if ((unsigned)fm > CU_TR_FILTER_MODE_LINEAR)
            res_ = CUDA_ERROR_INVALID_VALUE;
        else
            ref->fm = fm, ref->dirty = 1;
    });
}

CUresult cuTexRefSetMipmapFilterMode(CUtexref hTexRef, CUfilter_mode fm)
{
    WITH_REF(hTexRef, 0, {
        if ((unsigned)fm > CU_TR_FILTER_MODE_LINEAR)
            res_ = CUDA_ERROR_INVALID_VALUE;
        else
            ref->mip_fm = fm, ref->dirty = 1;
    });
}

CUresult cuTexRefSetMipmapLevelBias(CUtexref hTexRef, float bias)
{
    WITH_REF(hTexRef, 0, ref->mip_bias = bias; ref->dirty = 1);
}

CUresult cuTexRefSetMipmapLevelClamp(CUtexref hTexRef, float minMipmapLevelClamp, float maxMipmapLevelClamp)
{
    WITH_REF(hTexRef, 0, ref->mip_min = minMipmapLevelClamp; ref->mip_max = maxMipmapLevelClamp; ref->dirty = 1);
}

CUresult cuTexRefSetMaxAnisotropy(CUtexref hTexRef, unsigned int maxAniso)
{
    WITH_REF(hTexRef, 0, ref->max_aniso = maxAniso; ref->dirty = 1);
}

CUresult cuTexRefSetFlags(CUtexref hTexRef, unsigned int Flags)
{
    const unsigned known = CU_TRSF_READ_AS_INTEGER | CU_TRSF_NORMALIZED_COORDINATES | CU_TRSF_SRGB |
                           CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION | CU_TRSF_SEAMLESS_CUBEMAP;
    WITH_REF(hTexRef, 0, {
        if (Flags & ~known)
            res_ = CUDA_ERROR_INVALID_VALUE;
        else
            ref->flags = Flags, ref->dirty = 1;
    });
}

CUresult cuTexRefSetBorderColor(CUtexref hTexRef, float *pBorderColor)
{
    WITH_REF(hTexRef, 0, {
        if (!pBorderColor)
            res_ = CUDA_ERROR_INVALID_VALUE;
        else
            memcpy(ref->border, pBorderColor, sizeof ref->border), ref->dirty = 1;
    });
}

/* ---- queries ---- */

#define GET(h, surface, out, ...) WITH_REF(h, surface, if (!(out)) res_ = CUDA_ERROR_INVALID_VALUE; else { __VA_ARGS__; })

CUresult cuTexRefGetArray(CUarray *phArray, CUtexref hTexRef)
{
    GET(hTexRef, 0, phArray, if (ref->bound != BOUND_ARRAY) res_ = CUDA_ERROR_INVALID_VALUE; else *phArray = ref->array);
}

CUresult cuSurfRefGetArray(CUarray *phArray, CUsurfref hSurfRef)
{
    GET(hSurfRef, 1, phArray, if (ref->bound != BOUND_ARRAY) res_ = CUDA_ERROR_INVALID_VALUE; else *phArray = ref->array);
}

CUresult cuTexRefGetMipmappedArray(CUmipmappedArray *phMipmappedArray, CUtexref hTexRef)
{
    GET(hTexRef, 0, phMipmappedArray, res_ = CUDA_ERROR_INVALID_VALUE); /* never bound: see SetMipmappedArray */
}

CUresult cuTexRefGetAddress_v2(CUdeviceptr *pdptr, CUtexref hTexRef)
{
    GET(hTexRef, 0, pdptr,
        if (ref->bound != BOUND_LINEAR && ref->bound != BOUND_PITCH2D) res_ = CUDA_ERROR_INVALID_VALUE;
        else *pdptr = ref->addr);
}

CUresult cuTexRefGetAddress(CUdeviceptr_v1 *pdptr, CUtexref hTexRef)
{
    CUdeviceptr d = 0;
    CUresult r = cuTexRefGetAddress_v2(pdptr ? &d : NULL, hTexRef);
    if (r == CUDA_SUCCESS && d > 0xffffffffu)
        return CUDA_ERROR_NOT_SUPPORTED;
    if (r == CUDA_SUCCESS)
        *pdptr = (CUdeviceptr_v1)d;
    return r;
}

CUresult cuTexRefGetFormat(CUarray_format *pFormat, int *pNumChannels, CUtexref hTexRef)
{
    GET(hTexRef, 0, pFormat && pNumChannels, *pFormat = ref->format; *pNumChannels = ref->channels);
}

CUresult cuTexRefGetAddressMode(CUaddress_mode *pam, CUtexref hTexRef, int dim)
{
    GET(hTexRef, 0, pam, if (dim < 0 || dim > 2) res_ = CUDA_ERROR_INVALID_VALUE; else *pam = ref->am[dim]);
}

CUresult cuTexRefGetFilterMode(CUfilter_mode *pfm, CUtexref hTexRef)
{
    GET(hTexRef, 0, pfm, *pfm = ref->fm);
}

CUresult cuTexRefGetMipmapFilterMode(CUfilter_mode *pfm, CUtexref hTexRef)
{
    GET(hTexRef, 0, pfm, *pfm = ref->mip_fm);
}

CUresult cuTexRefGetMipmapLevelBias(float *pbias, CUtexref hTexRef)
{
    GET(hTexRef, 0, pbias, *pbias = ref->mip_bias);
}

CUresult cuTexRefGetMipmapLevelClamp(float *pminMipmapLevelClamp, float *pmaxMipmapLevelClamp, CUtexref hTexRef)
{
    GET(hTexRef, 0, pminMipmapLevelClamp && pmaxMipmapLevelClamp,
        *pminMipmapLevelClamp = ref->mip_min; *pmaxMipmapLevelClamp = ref->mip_max);
}

CUresult cuTexRefGetMaxAnisotropy(int *pmaxAniso, CUtexref hTexRef)
{
    GET(hTexRef, 0, pmaxAniso, *pmaxAniso = (int)ref->max_aniso);
}

CUresult cuTexRefGetBorderColor(float *pBorderColor, CUtexref hTexRef)
{
    GET(hTexRef, 0, pBorderColor, memcpy(pBorderColor, ref->border, sizeof ref->border));
}

CUresult cuTexRefGetFlags(unsigned int *pFlags, CUtexref hTexRef)
{
    GET(hTexRef, 0, pFlags, *pFlags = ref->flags);
}
