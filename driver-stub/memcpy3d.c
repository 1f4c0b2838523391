/* memcpy3d.c — copies with a shape: cuMemcpy2D(Unaligned/Async), cuMemcpy3D(Async) between host memory, device
 * memory, unified addresses and CUDA arrays; and the array byte-range copies cuMemcpy{HtoA,AtoH,AtoD,DtoA,AtoA}.
 * Where the documentation is silent the H200's answers decide (tests/driver/probe_array_nvidia.c).
 *
 * cuMemcpy3DPeer(Async) is cuMemcpy3D once both contexts are checked (one device).
 * Both ends become an "endpoint": a base address, whether it is device-side, and the pitch and rows per slice
 * that map (x bytes, y, z) to an address (an array's own layout, array.h, replaces the caller's pitch/height).
 * A copy is checked whole before a byte moves: array ends within the array, device ends within one allocation
 * (a bad shape is CUDA_ERROR_INVALID_VALUE, never a stray write). Rows then move one by one through
 * p2n_drv_copy_bytes (backend copy hooks or memmove), or in one piece when both sides are contiguous.
 * An *Async 2-D/3-D copy runs here, after its stream's queued work (p2n_drv_stream_order, stream_queue.c): the
 * same copy after a stream-handle check.
 */
#include <string.h>

#include "array.h"
#include "graph.h"   /* stream capture hooks */

typedef struct endpoint {
    int dev;            /* the address is device-side (device, pinned host, array memory) */
    uint64_t base;      /* address of byte 0 of row 0 of slice 0 */
    size_t x, y, z;     /* start offsets: bytes, rows, slices */
    size_t pitch;       /* bytes per row */
    size_t height;      /* rows per slice */
    const p2n_array *arr;
} endpoint;

static CUresult endpoint_of(CUmemorytype type, const void *host, CUdeviceptr dev, CUarray arr, size_t x, size_t y,
                            size_t z, size_t pitch, size_t height, endpoint *e)
{
    memset(e, 0, sizeof *e);
    e->x = x;
    e->y = y;
    e->z = z;
    e->pitch = pitch;
    e->height = height;
    switch (type) {
    case CU_MEMORYTYPE_HOST:
        if (!host)
            return CUDA_ERROR_INVALID_VALUE;
        e->base = (uint64_t)(uintptr_t)host;
        return CUDA_SUCCESS;
    case CU_MEMORYTYPE_DEVICE:
        if (!dev)
            return CUDA_ERROR_INVALID_VALUE;
        e->base = dev;
        e->dev = 1;
        return CUDA_SUCCESS;
    case CU_MEMORYTYPE_UNIFIED:
        /* unified addressing: an address in the allocation table is device-side, anything else is host memory */
        if (!dev)
            return CUDA_ERROR_INVALID_VALUE;
        e->base = dev;
        e->dev = p2n_drv_alloc_find(dev, 0, NULL);
        return CUDA_SUCCESS;
    case CU_MEMORYTYPE_ARRAY:
        e->arr = p2n_drv_array_get(arr);
        if (!e->arr)
            return CUDA_ERROR_INVALID_HANDLE;
        e->base = e->arr->base;
        e->dev = 1;
        e->pitch = e->arr->pitch;
        e->height = e->arr->rows;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

static uint64_t addr_of(const endpoint *e, size_t row, size_t slice)
{
    return e->base + (uint64_t)((e->z + slice) * e->height + e->y + row) * e->pitch + e->x;
}

/* the shape w bytes x h rows x d slices fits the endpoint */
static CUresult check_end(const endpoint *e, size_t w, size_t h, size_t d)
{
    if (e->arr) {
        const p2n_array *a = e->arr;
        /* byte granularity: the H200 accepts an x offset or a width that is not a whole number of elements */
        if (e->x > a->pitch || w > a->pitch - e->x || e->y > a->rows || h > a->rows - e->y || e->z > a->slices ||
            d > a->slices - e->z) /* (written so that huge offsets cannot wrap around) */
            return CUDA_ERROR_INVALID_VALUE;
        return CUDA_SUCCESS;
    }
    if ((h > 1 || d > 1) && e->pitch < w)
        return CUDA_ERROR_INVALID_VALUE;
    if (d > 1 && e->height < h)
        return CUDA_ERROR_INVALID_VALUE;
    if (e->dev) {
        uint64_t first = addr_of(e, 0, 0), last = addr_of(e, h - 1, d - 1) + w;
        if (last < first || !p2n_drv_alloc_find(first, (size_t)(last - first), NULL))
            return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

static CUresult copy_shape(const endpoint *dst, const endpoint *src, size_t w, size_t h, size_t d)
{
    if (w == 0 || h == 0 || d == 0)
        return CUDA_SUCCESS;
    CUresult r = check_end(src, w, h, d);
    if (r == CUDA_SUCCESS)
        r = check_end(dst, w, h, d);
    if (r != CUDA_SUCCESS)
        return r;
    int contiguous = src->pitch == w && dst->pitch == w && (d == 1 || (src->height == h && dst->height == h));
    if (contiguous)
        return p2n_drv_copy_bytes(addr_of(dst, 0, 0), dst->dev, addr_of(src, 0, 0), src->dev, w * h * d);
    for (size_t k = 0; k < d; k++)
        for (size_t j = 0; j < h; j++) {
            r = p2n_drv_copy_bytes(addr_of(dst, j, k), dst->dev, addr_of(src, j, k), src->dev, w);
            if (r != CUDA_SUCCESS)
                return r;
        }
    return CUDA_SUCCESS;
}

static CUresult prologue(CUstream s, p2n_ctx **c)
{
    CUresult r = p2n_drv_get_ctx(NULL, c);
    if (r != CUDA_SUCCESS)
        return r;
    r = p2n_drv_check_stream(s, *c);
    return r != CUDA_SUCCESS ? r : p2n_drv_capture_legacy_check(s);
}

static CUresult do_3d(const CUDA_MEMCPY3D *p, CUstream s, int sync)
{
    p2n_ctx *c;
    CUresult r = prologue(s, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!p || p->srcLOD || p->dstLOD || p->reserved0 || p->reserved1)
        return CUDA_ERROR_INVALID_VALUE;
    endpoint src, dst;
    r = endpoint_of(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcXInBytes, p->srcY, p->srcZ,
                    p->srcPitch, p->srcHeight, &src);
    if (r == CUDA_SUCCESS)
        r = endpoint_of(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstXInBytes, p->dstY, p->dstZ,
                        p->dstPitch, p->dstHeight, &dst);
    if (r == CUDA_SUCCESS && !sync && p2n_drv_capture_active(s))
        return p2n_drv_capture_memcpy(s, p);   /* a memcpy node instead (graph.h) */
    if (r == CUDA_SUCCESS)
        p2n_drv_stream_order(s, c);            /* runs here, after its stream's queued work */
    if (r == CUDA_SUCCESS)
        r = copy_shape(&dst, &src, p->WidthInBytes, p->Height, p->Depth);
    if (sync)
        p2n_drv_ctx_flush_printf(c);
    return r;
}

static CUresult do_2d(const CUDA_MEMCPY2D *p, CUstream s, int sync)
{
    if (!p) {
        p2n_ctx *c;
        CUresult r = prologue(s, &c);
        return r != CUDA_SUCCESS ? r : CUDA_ERROR_INVALID_VALUE;
    }
    CUDA_MEMCPY3D q;
    memset(&q, 0, sizeof q);
    q.srcXInBytes = p->srcXInBytes;
    q.srcY = p->srcY;
    q.srcMemoryType = p->srcMemoryType;
    q.srcHost = p->srcHost;
    q.srcDevice = p->srcDevice;
    q.srcArray = p->srcArray;
    q.srcPitch = p->srcPitch;
    q.srcHeight = p->srcY + p->Height; /* one slice: the height only matters for z > 0 */
    q.dstXInBytes = p->dstXInBytes;
    q.dstY = p->dstY;
    q.dstMemoryType = p->dstMemoryType;
    q.dstHost = p->dstHost;
    q.dstDevice = p->dstDevice;
    q.dstArray = p->dstArray;
    q.dstPitch = p->dstPitch;
    q.dstHeight = p->dstY + p->Height;
    q.WidthInBytes = p->WidthInBytes;
    q.Height = p->Height;
    q.Depth = 1;
    return do_3d(&q, s, sync);
}

CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy) { return do_2d(pCopy, NULL, 1); }
CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *pCopy) { return do_2d(pCopy, NULL, 1); }
CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *pCopy) { return do_2d(pCopy, NULL, 1); }
CUresult cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *pCopy) { return do_2d(pCopy, NULL, 1); }
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy, CUstream hStream) { return do_2d(pCopy, hStream, 0); }
CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *pCopy, CUstream hStream) { return do_2d(pCopy, hStream, 0); }
CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *pCopy) { return do_3d(pCopy, NULL, 1); }
CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *pCopy) { return do_3d(pCopy, NULL, 1); }
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *pCopy, CUstream hStream) { return do_3d(pCopy, hStream, 0); }
CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *pCopy, CUstream hStream) { return do_3d(pCopy, hStream, 0); }

/* peer copies: one device, one address space, so the contexts are only checked */
static CUresult do_3d_peer(const CUDA_MEMCPY3D_PEER *p, CUstream s, int sync)
{
    p2n_ctx *c;
    if (p && (p2n_drv_get_ctx(p->srcContext, &c) != CUDA_SUCCESS || p2n_drv_get_ctx(p->dstContext, &c) != CUDA_SUCCESS))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!p)
        return do_3d(NULL, s, sync);
    CUDA_MEMCPY3D q = {
        .srcXInBytes = p->srcXInBytes, .srcY = p->srcY, .srcZ = p->srcZ, .srcLOD = p->srcLOD,
        .srcMemoryType = p->srcMemoryType, .srcHost = p->srcHost, .srcDevice = p->srcDevice,
        .srcArray = p->srcArray, .srcPitch = p->srcPitch, .srcHeight = p->srcHeight,
        .dstXInBytes = p->dstXInBytes, .dstY = p->dstY, .dstZ = p->dstZ, .dstLOD = p->dstLOD,
        .dstMemoryType = p->dstMemoryType, .dstHost = p->dstHost, .dstDevice = p->dstDevice,
        .dstArray = p->dstArray, .dstPitch = p->dstPitch, .dstHeight = p->dstHeight,
        .WidthInBytes = p->WidthInBytes, .Height = p->Height, .Depth = p->Depth,
    };
    return do_3d(&q, s, sync);
}

CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *pCopy) { return do_3d_peer(pCopy, NULL, 1); }
CUresult cuMemcpy3DPeer_ptds(const CUDA_MEMCPY3D_PEER *pCopy) { return do_3d_peer(pCopy, NULL, 1); }
CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream)
{ return do_3d_peer(pCopy, hStream, 0); }
CUresult cuMemcpy3DPeerAsync_ptsz(const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream)
{ return do_3d_peer(pCopy, hStream, 0); }

/* ---- byte ranges of arrays (the "1D array" copies) ----
 * The H200 limits them to the first row, Width * element bytes, whatever the array's shape: on a 9x5x4 u32
 * array an 8-byte copy at offset 3 works, 720 bytes from offset 0 or 8 bytes at offset 716 do not
 * (tests/driver/probe_array_nvidia.c). */

typedef struct span {
    uint64_t addr;
    int dev;
} span;

static CUresult array_span(CUarray h, size_t off, size_t n, span *out)
{
    const p2n_array *a = p2n_drv_array_get(h);
    if (!a)
        return CUDA_ERROR_INVALID_HANDLE;
    if (off > a->pitch || n > a->pitch - off)
        return CUDA_ERROR_INVALID_VALUE;
    out->addr = a->base + off;
    out->dev = 1;
    return CUDA_SUCCESS;
}

static CUresult device_span(CUdeviceptr p, size_t n, span *out)
{
    if (!p2n_drv_alloc_find(p, n, NULL))
        return CUDA_ERROR_INVALID_VALUE;
    out->addr = p;
    out->dev = 1;
    return CUDA_SUCCESS;
}

static CUresult host_span(const void *p, span *out)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    out->addr = (uint64_t)(uintptr_t)p;
    out->dev = 0;
    return CUDA_SUCCESS;
}

enum { E_HOST, E_DEV, E_ARR };

/* one copy of n bytes; each end is a host pointer, a device pointer or (array, offset) */
static CUresult do_linear(int dk, const void *dh, CUdeviceptr dd, CUarray da, size_t doff, int sk, const void *sh,
                          CUdeviceptr sd, CUarray sa, size_t soff, size_t n, CUstream s, int sync)
{
    p2n_ctx *c;
    CUresult r = prologue(s, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!sync && p2n_drv_capture_active(s))
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;   /* array copies are not captured (api-status.txt) */
    p2n_drv_stream_order(s, c);
    span dst, src;
    r = dk == E_HOST ? host_span(dh, &dst) : dk == E_DEV ? device_span(dd, n, &dst) : array_span(da, doff, n, &dst);
    if (r == CUDA_SUCCESS)
        r = sk == E_HOST ? host_span(sh, &src) : sk == E_DEV ? device_span(sd, n, &src)
                                                             : array_span(sa, soff, n, &src);
    if (r == CUDA_SUCCESS)
        r = p2n_drv_copy_bytes(dst.addr, dst.dev, src.addr, src.dev, n);
    if (sync)
        p2n_drv_ctx_flush_printf(c);
    return r;
}

CUresult cuMemcpyHtoA_v2(CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount)
{ return do_linear(E_ARR, NULL, 0, dstArray, dstOffset, E_HOST, srcHost, 0, NULL, 0, ByteCount, NULL, 1); }
CUresult cuMemcpyHtoA_v2_ptds(CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount)
{ return do_linear(E_ARR, NULL, 0, dstArray, dstOffset, E_HOST, srcHost, 0, NULL, 0, ByteCount, NULL, 1); }
CUresult cuMemcpyAtoH_v2(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{ return do_linear(E_HOST, dstHost, 0, NULL, 0, E_ARR, NULL, 0, srcArray, srcOffset, ByteCount, NULL, 1); }
CUresult cuMemcpyAtoH_v2_ptds(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{ return do_linear(E_HOST, dstHost, 0, NULL, 0, E_ARR, NULL, 0, srcArray, srcOffset, ByteCount, NULL, 1); }
CUresult cuMemcpyAtoD_v2(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{ return do_linear(E_DEV, NULL, dstDevice, NULL, 0, E_ARR, NULL, 0, srcArray, srcOffset, ByteCount, NULL, 1); }
CUresult cuMemcpyAtoD_v2_ptds(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{ return do_linear(E_DEV, NULL, dstDevice, NULL, 0, E_ARR, NULL, 0, srcArray, srcOffset, ByteCount, NULL, 1); }
CUresult cuMemcpyDtoA_v2(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice, size_t ByteCount)
{ return do_linear(E_ARR, NULL, 0, dstArray, dstOffset, E_DEV, NULL, srcDevice, NULL, 0, ByteCount, NULL, 1); }
CUresult cuMemcpyDtoA_v2_ptds(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice, size_t ByteCount)
{ return do_linear(E_ARR, NULL, 0, dstArray, dstOffset, E_DEV, NULL, srcDevice, NULL, 0, ByteCount, NULL, 1); }
CUresult cuMemcpyAtoA_v2(CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{ return do_linear(E_ARR, NULL, 0, dstArray, dstOffset, E_ARR, NULL, 0, srcArray, srcOffset, ByteCount, NULL, 1); }
CUresult cuMemcpyAtoA_v2_ptds(CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset,
                              size_t ByteCount)
{ return do_linear(E_ARR, NULL, 0, dstArray, dstOffset, E_ARR, NULL, 0, srcArray, srcOffset, ByteCount, NULL, 1); }
CUresult cuMemcpyHtoAAsync_v2(CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount,
                              CUstream hStream)
{ return do_linear(E_ARR, NULL, 0, dstArray, dstOffset, E_HOST, srcHost, 0, NULL, 0, ByteCount, hStream, 0); }
CUresult cuMemcpyHtoAAsync_v2_ptsz(CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount,
                                   CUstream hStream)
{ return do_linear(E_ARR, NULL, 0, dstArray, dstOffset, E_HOST, srcHost, 0, NULL, 0, ByteCount, hStream, 0); }
CUresult cuMemcpyAtoHAsync_v2(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount, CUstream hStream)
{ return do_linear(E_HOST, dstHost, 0, NULL, 0, E_ARR, NULL, 0, srcArray, srcOffset, ByteCount, hStream, 0); }
CUresult cuMemcpyAtoHAsync_v2_ptsz(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount,
                                   CUstream hStream)
{ return do_linear(E_HOST, dstHost, 0, NULL, 0, E_ARR, NULL, 0, srcArray, srcOffset, ByteCount, hStream, 0); }
