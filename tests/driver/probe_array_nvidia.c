/* probe_array_nvidia.c — prints the CUresult of array / shaped-copy / texture-object calls whose answer the CUDA
 * documentation leaves open, one "label result" line each. Run once against NVIDIA's driver (H200) and once
 * against ours; the two outputs are compared by hand and the answers quoted in driver-stub/array.c, memcpy3d.c
 * and texobj.c. Not a test (it asserts nothing); build:
 *   gcc -std=c17 -I/usr/local/cuda/include tests/driver/probe_array_nvidia.c -L/usr/local/cuda/lib64/stubs -lcuda
 */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

static void show(const char *label, CUresult r)
{
    const char *n = NULL;
    cuGetErrorName(r, &n);
    printf("%-44s %s\n", label, n ? n : "?");
}

static CUDA_ARRAY3D_DESCRIPTOR d3(size_t w, size_t h, size_t d, CUarray_format f, unsigned ch, unsigned flags)
{
    CUDA_ARRAY3D_DESCRIPTOR a;
    memset(&a, 0, sizeof a);
    a.Width = w;
    a.Height = h;
    a.Depth = d;
    a.Format = f;
    a.NumChannels = ch;
    a.Flags = flags;
    return a;
}

static void arr(const char *label, CUDA_ARRAY3D_DESCRIPTOR d)
{
    CUarray a = NULL;
    CUresult r = cuArray3DCreate(&a, &d);
    show(label, r);
    if (r == CUDA_SUCCESS)
        cuArrayDestroy(a);
}

int main(void)
{
    CUcontext ctx;
    if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) || cuCtxSetCurrent(ctx))
        return 1;
    arr("array cube 12 faces not layered", d3(4, 4, 12, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP));
    arr("array depth without height", d3(4, 0, 3, CU_AD_FORMAT_FLOAT, 1, 0));
    arr("array layered without layers", d3(4, 4, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED));
    arr("array 1D width 131072", d3(131072, 0, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0));
    arr("array 1D width 131073", d3(131073, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0));
    arr("array surface 1D width 32769", d3(32769, 0, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_SURFACE_LDST));
    arr("array 3D alternate 8192x8x20000", d3(8192, 8, 20000, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0));
    arr("array format 0x77", d3(4, 4, 0, (CUarray_format)0x77, 1, 0));
    arr("array flags 0x80000000", d3(4, 4, 0, CU_AD_FORMAT_FLOAT, 1, 0x80000000u));
    arr("array UNORM_INT8X4", d3(4, 4, 0, CU_AD_FORMAT_UNORM_INT8X4, 1, 0));
    arr("array gather 2D", d3(16, 16, 0, CU_AD_FORMAT_UNSIGNED_INT16, 1, CUDA_ARRAY3D_TEXTURE_GATHER));
    arr("array gather 1D", d3(16, 0, 0, CU_AD_FORMAT_UNSIGNED_INT16, 1, CUDA_ARRAY3D_TEXTURE_GATHER));
    arr("array gather 3D", d3(16, 4, 4, CU_AD_FORMAT_UNSIGNED_INT16, 1, CUDA_ARRAY3D_TEXTURE_GATHER));
    arr("array gather cubemap", d3(4, 4, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_TEXTURE_GATHER | CUDA_ARRAY3D_CUBEMAP));

    CUarray a3;
    CUDA_ARRAY3D_DESCRIPTOR d = d3(9, 5, 4, CU_AD_FORMAT_UNSIGNED_INT32, 1, 0);
    if (cuArray3DCreate(&a3, &d))
        return 1;
    CUDA_ARRAY_DESCRIPTOR g2;
    memset(&g2, 0, sizeof g2);
    CUresult r = cuArrayGetDescriptor(&g2, a3);
    show("cuArrayGetDescriptor on 3D", r);
    printf("%-44s %zu %zu\n", "  its width height", g2.Width, g2.Height);
    static unsigned host[4][5][9];
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = host;
    c.srcPitch = 9 * 4;
    c.srcHeight = 5;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = a3;
    c.WidthInBytes = 9 * 4;
    c.Height = 5;
    c.Depth = 4;
    show("memcpy3d whole", cuMemcpy3D(&c));
    c.dstXInBytes = 4;
    show("memcpy3d one element too wide", cuMemcpy3D(&c));
    c.dstXInBytes = 2;
    c.WidthInBytes = 8;
    show("memcpy3d x not element aligned", cuMemcpy3D(&c));
    c.dstXInBytes = 0;
    c.WidthInBytes = 6;
    show("memcpy3d width not whole elements", cuMemcpy3D(&c));
    c.WidthInBytes = 9 * 4;
    c.dstZ = 1;
    show("memcpy3d z overflow", cuMemcpy3D(&c));
    c.dstZ = 0;
    c.dstLOD = 1;
    show("memcpy3d dstLOD 1", cuMemcpy3D(&c));
    c.dstLOD = 0;
    c.srcPitch = 8;
    show("memcpy3d srcPitch < width", cuMemcpy3D(&c));
    c.srcPitch = 9 * 4;
    c.srcHeight = 2;
    show("memcpy3d srcHeight < height", cuMemcpy3D(&c));
    c.srcHeight = 5;
    CUdeviceptr dev;
    cuMemAlloc(&dev, 48 * 6 * 4);
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = dev;
    c.dstPitch = 48;
    c.dstHeight = 8;
    show("memcpy3d device end past allocation", cuMemcpy3D(&c));
    c.dstHeight = 6;
    show("memcpy3d device pitched", cuMemcpy3D(&c));
    c.Depth = 0;
    show("memcpy3d depth 0", cuMemcpy3D(&c));
    show("memcpy3d NULL", cuMemcpy3D(NULL));
    show("HtoA past the end", cuMemcpyHtoA(a3, sizeof host - 4, host, 8));
    show("HtoA odd offset", cuMemcpyHtoA(a3, 3, host, 8));
    show("AtoH whole", cuMemcpyAtoH(host, a3, 0, sizeof host));

    /* texture objects */
    CUDA_RESOURCE_DESC rd;
    CUDA_TEXTURE_DESC td;
    CUDA_RESOURCE_VIEW_DESC vd;
    CUtexObject t;
    memset(&rd, 0, sizeof rd);
    memset(&td, 0, sizeof td);
    memset(&vd, 0, sizeof vd);
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = a3;
    show("tex view all zero", cuTexObjectCreate(&t, &rd, &td, &vd));
    r = cuTexObjectCreate(&t, &rd, &td, NULL);
    show("tex on 3D array", r);
    if (r == CUDA_SUCCESS) {
        show("tex GetResourceViewDesc without view", cuTexObjectGetResourceViewDesc(&vd, t));
        CUsurfObject so;
        show("surf on non-surface array", cuSurfObjectCreate(&so, &rd));
        show("tex destroy", cuTexObjectDestroy(t));
    }
    td.addressMode[1] = (CUaddress_mode)7;
    show("tex address mode 7", cuTexObjectCreate(&t, &rd, &td, NULL));
    td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    td.filterMode = (CUfilter_mode)5;
    show("tex filter mode 5", cuTexObjectCreate(&t, &rd, &td, NULL));
    td.filterMode = CU_TR_FILTER_MODE_POINT;
    rd.flags = 1;
    show("tex resource flags 1", cuTexObjectCreate(&t, &rd, &td, NULL));
    rd.flags = 0;
    show("tex NULL texdesc", cuTexObjectCreate(&t, &rd, NULL, NULL));
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_LINEAR;
    rd.res.linear.devPtr = dev;
    rd.res.linear.format = CU_AD_FORMAT_FLOAT;
    rd.res.linear.numChannels = 1;
    rd.res.linear.sizeInBytes = 512 + 64;
    CUdeviceptr big;
    cuMemAlloc(&big, 4096);
    rd.res.linear.devPtr = big + 512;
    r = cuTexObjectCreate(&t, &rd, &td, NULL);
    show("linear at +512", r);
    if (r == CUDA_SUCCESS)
        cuTexObjectDestroy(t);
    rd.res.linear.devPtr = big + 256;
    r = cuTexObjectCreate(&t, &rd, &td, NULL);
    show("linear at +256", r);
    if (r == CUDA_SUCCESS)
        cuTexObjectDestroy(t);
    rd.res.linear.devPtr = big;
    rd.res.linear.numChannels = 3;
    show("linear 3 channels", cuTexObjectCreate(&t, &rd, &td, NULL));
    rd.res.linear.numChannels = 1;
    rd.res.linear.sizeInBytes = 2;
    show("linear 2 bytes of f32", cuTexObjectCreate(&t, &rd, &td, NULL));
    rd.res.linear.sizeInBytes = 0;
    show("linear 0 bytes", cuTexObjectCreate(&t, &rd, &td, NULL));
    rd.res.linear.sizeInBytes = 64;
    rd.res.linear.format = CU_AD_FORMAT_UNORM_INT8X4;
    show("linear UNORM_INT8X4", cuTexObjectCreate(&t, &rd, &td, NULL));
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_PITCH2D;
    rd.res.pitch2D.devPtr = big;
    rd.res.pitch2D.format = CU_AD_FORMAT_UNSIGNED_INT8;
    rd.res.pitch2D.numChannels = 4;
    rd.res.pitch2D.width = 10;
    rd.res.pitch2D.height = 12;
    rd.res.pitch2D.pitchInBytes = 64;
    r = cuTexObjectCreate(&t, &rd, &td, NULL);
    show("pitch2d ok", r);
    if (r == CUDA_SUCCESS) {
        show("tex destroy", cuTexObjectDestroy(t));
    }
    CUsurfObject so;
    show("surf on pitch2d", cuSurfObjectCreate(&so, &rd));
    rd.res.pitch2D.height = 0;
    show("pitch2d height 0", cuTexObjectCreate(&t, &rd, &td, NULL));
    rd.res.pitch2D.height = 12;
    rd.res.pitch2D.pitchInBytes = 0;
    show("pitch2d pitch 0", cuTexObjectCreate(&t, &rd, &td, NULL));
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
    show("tex mipmapped NULL handle", cuTexObjectCreate(&t, &rd, &td, NULL));
    rd.resType = (CUresourcetype)9;
    show("tex resource type 9", cuTexObjectCreate(&t, &rd, &td, NULL));
    show("tex destroy 0", cuTexObjectDestroy(0));
    show("surf destroy 0", cuSurfObjectDestroy(0));
    printf("done\n");
    return 0;
}

/* NVIDIA H200 (cuDriverGetVersion 13000), 2026-12-01 (ours differs only on the UNORM_INT8X4 line:
 * CUDA_ERROR_NOT_SUPPORTED, packed formats are not implemented):
 * array cube 12 faces not layered              CUDA_ERROR_INVALID_VALUE
 * array depth without height                   CUDA_ERROR_INVALID_VALUE
 * array layered without layers                 CUDA_ERROR_INVALID_VALUE
 * array 1D width 131072                        CUDA_SUCCESS
 * array 1D width 131073                        CUDA_ERROR_INVALID_VALUE
 * array surface 1D width 32769                 CUDA_ERROR_INVALID_VALUE
 * array 3D alternate 8192x8x20000              CUDA_SUCCESS
 * array format 0x77                            CUDA_ERROR_INVALID_VALUE
 * array flags 0x80000000                       CUDA_SUCCESS
 * array UNORM_INT8X4                           CUDA_ERROR_INVALID_VALUE
 * array gather 2D                              CUDA_SUCCESS
 * array gather 1D                              CUDA_ERROR_INVALID_VALUE
 * array gather 3D                              CUDA_ERROR_INVALID_VALUE
 * array gather cubemap                         CUDA_ERROR_INVALID_VALUE
 * cuArrayGetDescriptor on 3D                   CUDA_SUCCESS
 *   its width height                           9 5
 * memcpy3d whole                               CUDA_SUCCESS
 * memcpy3d one element too wide                CUDA_ERROR_INVALID_VALUE
 * memcpy3d x not element aligned               CUDA_SUCCESS
 * memcpy3d width not whole elements            CUDA_SUCCESS
 * memcpy3d z overflow                          CUDA_ERROR_INVALID_VALUE
 * memcpy3d dstLOD 1                            CUDA_ERROR_INVALID_VALUE
 * memcpy3d srcPitch < width                    CUDA_ERROR_INVALID_VALUE
 * memcpy3d srcHeight < height                  CUDA_ERROR_INVALID_VALUE
 * memcpy3d device end past allocation          CUDA_ERROR_INVALID_VALUE
 * memcpy3d device pitched                      CUDA_SUCCESS
 * memcpy3d depth 0                             CUDA_SUCCESS
 * memcpy3d NULL                                CUDA_ERROR_INVALID_VALUE
 * HtoA past the end                            CUDA_ERROR_INVALID_VALUE
 * HtoA odd offset                              CUDA_SUCCESS
 * AtoH whole                                   CUDA_ERROR_INVALID_VALUE
 * tex view all zero                            CUDA_ERROR_INVALID_VALUE
 * tex on 3D array                              CUDA_SUCCESS
 * tex GetResourceViewDesc without view         CUDA_SUCCESS
 * surf on non-surface array                    CUDA_SUCCESS
 * tex destroy                                  CUDA_SUCCESS
 * tex address mode 7                           CUDA_ERROR_INVALID_VALUE
 * tex filter mode 5                            CUDA_ERROR_INVALID_VALUE
 * tex resource flags 1                         CUDA_ERROR_INVALID_VALUE
 * tex NULL texdesc                             CUDA_ERROR_INVALID_VALUE
 * linear at +512                               CUDA_SUCCESS
 * linear at +256                               CUDA_ERROR_INVALID_VALUE
 * linear 3 channels                            CUDA_ERROR_INVALID_VALUE
 * linear 2 bytes of f32                        CUDA_SUCCESS
 * linear 0 bytes                               CUDA_SUCCESS
 * linear UNORM_INT8X4                          CUDA_ERROR_INVALID_VALUE
 * pitch2d ok                                   CUDA_SUCCESS
 * tex destroy                                  CUDA_SUCCESS
 * surf on pitch2d                              CUDA_ERROR_INVALID_VALUE
 * pitch2d height 0                             CUDA_SUCCESS
 * pitch2d pitch 0                              CUDA_SUCCESS
 * tex mipmapped NULL handle                    CUDA_ERROR_INVALID_VALUE
 * tex resource type 9                          CUDA_ERROR_INVALID_VALUE
 * tex destroy 0                                CUDA_SUCCESS
 * surf destroy 0                               CUDA_SUCCESS
 * done
 */
