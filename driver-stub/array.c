/* array.c — CUDA arrays: cuArrayCreate / cuArray3DCreate / cuArrayDestroy / cuArray(3D)GetDescriptor, and the
 * mipmapped-array entry points (not implemented: CUDA_ERROR_NOT_SUPPORTED with a message).
 *
 * The layout is in array.h. Validation follows cuArray3DCreate's documented table of valid extents: a 1D array
 * is {w, 0, 0}, 2D {w, h, 0}, 3D {w, h, d}, layered 1D {w, 0, layers}, layered 2D {w, h, layers}, cubemap
 * {w, w, 6}, layered cubemap {w, w, 6k}; sizes within the MAXIMUM_TEXTURE* (or, with SURFACE_LDST, the
 * MAXIMUM_SURFACE*) device attributes; 1, 2 or 4 channels (the H200 refuses 3: case tex/create_array_3_channels);
 * the gather flag only on plain 2D arrays (it refuses a layered one: tex/create_array_layered_gather).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

static p2n_array *arrays;
static pthread_mutex_t arrays_lock = PTHREAD_MUTEX_INITIALIZER;

unsigned p2n_drv_format_bytes(unsigned format)
{
    switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8: return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: case CU_AD_FORMAT_HALF: return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32: case CU_AD_FORMAT_SIGNED_INT32: case CU_AD_FORMAT_FLOAT: return 4;
    default: return 0;
    }
}

/* CUarray_format values CUDA has that texture_desc.h does not model (packed, block-compressed, video) */
static int format_known_unsupported(unsigned format)
{
    return format == CU_AD_FORMAT_UNORM_INT_101010_2 || (format >= 0x91 && format <= 0xcb);
}

p2n_array *p2n_drv_array_get(CUarray h)
{
    return h && p2n_drv_is_live(h, P2N_MAGIC_ARRAY) ? (p2n_array *)h : NULL;
}

static int attr(CUdevice_attribute a)
{
    int v = 0;
    cuDeviceGetAttribute(&v, a, 0);
    return v;
}

/* the extent rules of cuArray3DCreate; returns CUDA_SUCCESS or the error */
static CUresult check_desc(const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    const unsigned known = CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_CUBEMAP |
                           CUDA_ARRAY3D_TEXTURE_GATHER;
    if (p2n_drv_format_bytes(d->Format) == 0) {
        if (!format_known_unsupported(d->Format))
            return CUDA_ERROR_INVALID_VALUE;
        fprintf(stderr, "ptx2native: CUDA array format 0x%x is not supported (only the 8/16/32-bit integer, half "
                        "and float formats are)\n", (unsigned)d->Format);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    if (d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4)
        return CUDA_ERROR_INVALID_VALUE;
    /* flags CUDA has that we do not implement; bits it does not define are ignored (the H200 accepts 0x80000000:
     * tests/driver/probe_array_nvidia.c) */
    const unsigned unsupported = CUDA_ARRAY3D_DEPTH_TEXTURE | CUDA_ARRAY3D_COLOR_ATTACHMENT | CUDA_ARRAY3D_SPARSE |
                                 CUDA_ARRAY3D_DEFERRED_MAPPING | CUDA_ARRAY3D_VIDEO_ENCODE_DECODE;
    if (d->Flags & unsupported & ~known) {
        fprintf(stderr, "ptx2native: CUDA array flags 0x%x are not supported (depth textures, colour attachments, "
                        "sparse, deferred-mapping and video arrays)\n", d->Flags & unsupported);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    size_t w = d->Width, h = d->Height, dp = d->Depth;
    int layered = (d->Flags & CUDA_ARRAY3D_LAYERED) != 0, cube = (d->Flags & CUDA_ARRAY3D_CUBEMAP) != 0;
    int surf = (d->Flags & CUDA_ARRAY3D_SURFACE_LDST) != 0;
    if (w == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if ((d->Flags & CUDA_ARRAY3D_TEXTURE_GATHER) && (h == 0 || dp != 0 || layered || cube))
        return CUDA_ERROR_INVALID_VALUE;
    size_t mw, mh = 1, md = 1;
    if (cube) {
        if (w != h || dp == 0 || dp % 6 != 0 || (!layered && dp != 6))
            return CUDA_ERROR_INVALID_VALUE;
        if (layered) {
            mw = (size_t)attr(surf ? CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH
                                   : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH);
            md = 6 * (size_t)attr(surf ? CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS
                                       : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS);
        } else {
            mw = (size_t)attr(surf ? CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH
                                   : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH);
            md = 6;
        }
        mh = mw;
    } else if (layered) {
        if (dp == 0)
            return CUDA_ERROR_INVALID_VALUE;
        if (h == 0) {
            mw = (size_t)attr(surf ? CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH
                                   : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH);
            md = (size_t)attr(surf ? CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS
                                   : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS);
        } else {
            mw = (size_t)attr(surf ? CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH
                                   : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH);
            mh = (size_t)attr(surf ? CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT
                                   : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT);
            md = (size_t)attr(surf ? CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS
                                   : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS);
        }
    } else if (dp != 0) {
        if (h == 0)
            return CUDA_ERROR_INVALID_VALUE;
        mw = (size_t)attr(surf ? CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH);
        mh = (size_t)attr(surf ? CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT
                               : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT);
        md = (size_t)attr(surf ? CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH);
        /* the alternate 3D extents (narrow and deep) of textures */
        if (!surf && (w > mw || h > mh || dp > md) &&
            w <= (size_t)attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE) &&
            h <= (size_t)attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE) &&
            dp <= (size_t)attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE))
            return CUDA_SUCCESS;
    } else if (h != 0) {
        mw = (size_t)attr(surf ? CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH);
        mh = (size_t)attr(surf ? CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT
                               : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT);
    } else {
        mw = (size_t)attr(surf ? CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH);
    }
    if (w > mw || (h ? h : 1) > mh || (dp ? dp : 1) > md)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

CUresult cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pHandle || !pAllocateArray)
        return CUDA_ERROR_INVALID_VALUE;
    r = check_desc(pAllocateArray);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_array *a = calloc(1, sizeof *a);
    if (!a)
        return CUDA_ERROR_OUT_OF_MEMORY;
    a->magic = P2N_MAGIC_ARRAY;
    a->ctx = c;
    a->desc = *pAllocateArray;
    a->elem = (size_t)p2n_drv_format_bytes(a->desc.Format) * a->desc.NumChannels;
    a->pitch = a->desc.Width * a->elem;
    a->rows = a->desc.Height ? a->desc.Height : 1;
    a->slices = a->desc.Depth ? a->desc.Depth : 1;
    a->slice_pitch = a->pitch * a->rows;
    a->bytes = a->slice_pitch * a->slices;
    void *p = NULL;
    r = p2n_drv.be->mem_alloc(a->bytes, &p);
    if (r != CUDA_SUCCESS) {
        free(a);
        return r;
    }
    a->base = (uint64_t)(uintptr_t)p;
    /* in the allocation table (as memory nobody may cuMemFree) so that device-side checks and pointer queries
     * know it */
    p2n_drv_alloc_add(a->base, a->bytes, P2N_ALLOC_GLOBAL, c, 0);
    pthread_mutex_lock(&arrays_lock);
    a->next = arrays;
    arrays = a;
    pthread_mutex_unlock(&arrays_lock);
    p2n_drv_register(a);
    *pHandle = (CUarray)a;
    return CUDA_SUCCESS;
}

CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray)
{
    if (!pAllocateArray) {
        p2n_ctx *c;
        CUresult r = p2n_drv_get_ctx(NULL, &c);
        return r != CUDA_SUCCESS ? r : CUDA_ERROR_INVALID_VALUE;
    }
    CUDA_ARRAY3D_DESCRIPTOR d = {.Width = pAllocateArray->Width, .Height = pAllocateArray->Height, .Depth = 0,
                                 .Format = pAllocateArray->Format, .NumChannels = pAllocateArray->NumChannels,
                                 .Flags = 0};
    return cuArray3DCreate_v2(pHandle, &d);
}

static void array_free(p2n_array *a)
{
    p2n_drv_unregister(a);
    p2n_drv_alloc_remove(a->base);
    p2n_drv.be->mem_free((void *)(uintptr_t)a->base);
    a->magic = 0;
    free(a);
}

CUresult cuArrayDestroy(CUarray hArray)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx_nosticky(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&arrays_lock);
    p2n_array *a = p2n_drv_array_get(hArray);
    if (!a) {
        pthread_mutex_unlock(&arrays_lock);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    for (p2n_array **pp = &arrays; *pp; pp = &(*pp)->next)
        if (*pp == a) {
            *pp = a->next;
            break;
        }
    pthread_mutex_unlock(&arrays_lock);
    /* texture/surface objects still naming the array keep its address: using them is undefined, as in CUDA */
    array_free(a);
    return CUDA_SUCCESS;
}

CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor, CUarray hArray)
{
    p2n_ctx *c;
    CUresult r = p2n_drv_get_ctx(NULL, &c);
    if (r != CUDA_SUCCESS)
        return r;
    p2n_array *a = p2n_drv_array_get(hArray);
    if (!a)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!pArrayDescriptor)
        return CUDA_ERROR_INVALID_VALUE;
    *pArrayDescriptor = a->desc;
    return CUDA_SUCCESS;
}

CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor, CUarray hArray)
{
    CUDA_ARRAY3D_DESCRIPTOR d;
    CUresult r = cuArray3DGetDescriptor_v2(&d, hArray);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pArrayDescriptor)
        return CUDA_ERROR_INVALID_VALUE;
    /* a 3D or layered array has no 2D descriptor: only its width and height are reported */
    pArrayDescriptor->Width = d.Width;
    pArrayDescriptor->Height = d.Height;
    pArrayDescriptor->Format = d.Format;
    pArrayDescriptor->NumChannels = d.NumChannels;
    return CUDA_SUCCESS;
}

static void p2n_drv_array_release_ctx(p2n_ctx *c)
{
    pthread_mutex_lock(&arrays_lock);
    for (p2n_array **pp = &arrays; *pp;) {
        p2n_array *a = *pp;
        if (a->ctx == c) {
            *pp = a->next;
            array_free(a);
        } else {
            pp = &a->next;
        }
    }
    pthread_mutex_unlock(&arrays_lock);
}

__attribute__((constructor)) static void register_release_hook(void)
{
    p2n_drv_ctx_on_release(P2N_CTX_RELEASE_ARRAYS, p2n_drv_array_release_ctx);
}

/* ---- mipmapped arrays: not implemented (texture_desc.h has the fields; no level storage exists yet) ---- */

static CUresult no_mipmaps(const char *fn)
{
    fprintf(stderr, "ptx2native: %s: mipmapped arrays are not supported\n", fn);
    return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
                                unsigned int numMipmapLevels)
{
    (void)pHandle;
    (void)pMipmappedArrayDesc;
    (void)numMipmapLevels;
    CUresult r = p2n_drv_check_init();
    return r != CUDA_SUCCESS ? r : no_mipmaps("cuMipmappedArrayCreate");
}

CUresult cuMipmappedArrayGetLevel(CUarray *pLevelArray, CUmipmappedArray hMipmappedArray, unsigned int level)
{
    (void)pLevelArray;
    (void)hMipmappedArray;
    (void)level;
    CUresult r = p2n_drv_check_init();
    return r != CUDA_SUCCESS ? r : no_mipmaps("cuMipmappedArrayGetLevel");
}

CUresult cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray)
{
    (void)hMipmappedArray;
    CUresult r = p2n_drv_check_init();
    return r != CUDA_SUCCESS ? r : no_mipmaps("cuMipmappedArrayDestroy");
}
