/* test_array.c — the driver API of CUDA arrays, shaped copies and texture/surface objects (driver-stub/array.c,
 * memcpy3d.c, texobj.c), without kernels: create/destroy/get-descriptor round trips, the validation CUDA does
 * (the error cases the H200 shows in tests/conformance/cases/tex/create_*), 2D/3D copies with pitches and
 * offsets between host, device, unified addresses and arrays, and the descriptor a texture/surface handle points
 * to (abi/texture_desc.h, read back through cuMemcpyDtoH). Objects left alive at the end are freed by
 * cuCtxDestroy (the ASan build checks for leaks).
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "texture_desc.h"

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

static void arrays(void)
{
    CUarray a;
    CUDA_ARRAY3D_DESCRIPTOR d = d3(7, 5, 3, CU_AD_FORMAT_HALF, 2, CUDA_ARRAY3D_SURFACE_LDST), g;
    MUST(cuArray3DCreate(&a, &d));
    memset(&g, 0xee, sizeof g);
    OK(cuArray3DGetDescriptor(&g, a));
    TRUE(memcmp(&g, &d, sizeof d) == 0);
    CUDA_ARRAY_DESCRIPTOR g2;
    OK(cuArrayGetDescriptor(&g2, a));
    TRUE(g2.Width == 7 && g2.Height == 5 && g2.Format == CU_AD_FORMAT_HALF && g2.NumChannels == 2);
    OK(cuArrayDestroy(a));
    EXPECT(cuArrayDestroy(a), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuArray3DGetDescriptor(&g, a), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuArrayDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);

    /* legacy 2D creation: Height 0 is a 1D array */
    CUDA_ARRAY_DESCRIPTOR l = {.Width = 33, .Height = 0, .Format = CU_AD_FORMAT_UNSIGNED_INT8, .NumChannels = 4};
    MUST(cuArrayCreate(&a, &l));
    OK(cuArray3DGetDescriptor(&g, a));
    TRUE(g.Width == 33 && g.Height == 0 && g.Depth == 0 && g.Flags == 0 && g.NumChannels == 4);
    OK(cuArrayDestroy(a));

    /* every valid shape */
    const CUDA_ARRAY3D_DESCRIPTOR good[] = {
        d3(1, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0),
        d3(131072, 0, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0),
        d3(16, 0, 7, CU_AD_FORMAT_SIGNED_INT16, 2, CUDA_ARRAY3D_LAYERED),
        d3(16, 8, 7, CU_AD_FORMAT_SIGNED_INT32, 4, CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST),
        d3(8, 8, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP),
        d3(8, 8, 18, CU_AD_FORMAT_FLOAT, 4, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED),
        d3(16, 16, 0, CU_AD_FORMAT_UNSIGNED_INT16, 1, CUDA_ARRAY3D_TEXTURE_GATHER),
        d3(9, 10, 11, CU_AD_FORMAT_SIGNED_INT8, 4, 0),
        d3(2, 3, 16385, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0),    /* depth > 16384: the alternate 3D extents */
        d3(4, 4, 0, CU_AD_FORMAT_FLOAT, 1, 0x80000000u),      /* undefined flag bits are ignored (H200) */
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        CUresult r = cuArray3DCreate(&a, &good[i]);
        if (r != CUDA_SUCCESS) {
            fprintf(stderr, "good array %zu: %s\n", i, check_name(r));
            check_failures++;
            continue;
        }
        OK(cuArrayDestroy(a));
    }
    /* refused shapes (the first four as the H200 refuses them) */
    const CUDA_ARRAY3D_DESCRIPTOR bad[] = {
        d3(4, 4, 0, CU_AD_FORMAT_FLOAT, 3, 0),
        d3(0, 4, 0, CU_AD_FORMAT_FLOAT, 1, 0),
        d3(4, 3, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP),
        d3(4, 4, 5, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP),
        d3(4, 3, 2, CU_AD_FORMAT_FLOAT, 2, CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_TEXTURE_GATHER),
        d3(4, 4, 12, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP),      /* 12 faces need LAYERED */
        d3(4, 0, 3, CU_AD_FORMAT_FLOAT, 1, 0),                          /* depth without height */
        d3(4, 4, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED),       /* layered without layers */
        d3(131073, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0),                     /* over MAXIMUM_TEXTURE1D_WIDTH */
        d3(32769, 0, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_SURFACE_LDST), /* over MAXIMUM_SURFACE1D_WIDTH */
        d3(4, 4, 0, (CUarray_format)0x77, 1, 0),
        d3(8193, 1, 16385, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0),          /* neither 3D extent table */
        d3(16, 0, 0, CU_AD_FORMAT_UNSIGNED_INT16, 1, CUDA_ARRAY3D_TEXTURE_GATHER), /* gather: 2D only */
        d3(4, 4, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_TEXTURE_GATHER | CUDA_ARRAY3D_CUBEMAP),
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        a = NULL;
        CUresult r = cuArray3DCreate(&a, &bad[i]);
        if (r != CUDA_ERROR_INVALID_VALUE) {
            fprintf(stderr, "bad array %zu: %s, expected CUDA_ERROR_INVALID_VALUE\n", i, check_name(r));
            check_failures++;
            if (r == CUDA_SUCCESS)
                cuArrayDestroy(a);
        }
    }
    CUDA_ARRAY3D_DESCRIPTOR unorm = d3(4, 4, 0, CU_AD_FORMAT_UNORM_INT8X4, 1, 0);
    EXPECT(cuArray3DCreate(&a, &unorm), CUDA_ERROR_NOT_SUPPORTED);
    CUDA_ARRAY3D_DESCRIPTOR sparse = d3(4, 4, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_SPARSE);
    EXPECT(cuArray3DCreate(&a, &sparse), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuArray3DCreate(NULL, &good[0]), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuArray3DCreate(&a, NULL), CUDA_ERROR_INVALID_VALUE);
    CUmipmappedArray m;
    EXPECT(cuMipmappedArrayCreate(&m, &good[0], 2), CUDA_ERROR_NOT_SUPPORTED);
}

/* whole-array copies (cuMemcpy3D: the byte-range copies reach only the first row) */
static CUresult array_io(CUarray a, void *host, size_t row, size_t h, size_t d, int to_array)
{
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    if (to_array) {
        c.srcMemoryType = CU_MEMORYTYPE_HOST;
        c.srcHost = host;
        c.srcPitch = row;
        c.srcHeight = h;
        c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        c.dstArray = a;
    } else {
        c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        c.srcArray = a;
        c.dstMemoryType = CU_MEMORYTYPE_HOST;
        c.dstHost = host;
        c.dstPitch = row;
        c.dstHeight = h;
    }
    c.WidthInBytes = row;
    c.Height = h;
    c.Depth = d;
    return cuMemcpy3D(&c);
}

/* bytes of a w x h x d array of 4-byte elements, element (x, y, z) = tag */
static uint32_t tag(size_t x, size_t y, size_t z) { return (uint32_t)(0x01000000u + z * 0x10000 + y * 0x100 + x); }

static void copies(void)
{
    enum { W = 9, H = 5, D = 4 };
    CUarray a, b;
    CUDA_ARRAY3D_DESCRIPTOR d = d3(W, H, D, CU_AD_FORMAT_UNSIGNED_INT32, 1, 0);
    MUST(cuArray3DCreate(&a, &d));
    MUST(cuArray3DCreate(&b, &d));
    static uint32_t host[D][H][W], back[D][H][W];
    for (size_t z = 0; z < D; z++)
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < W; x++)
                host[z][y][x] = tag(x, y, z);
    /* whole array in and out */
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = host;
    c.srcPitch = W * 4;
    c.srcHeight = H;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = a;
    c.WidthInBytes = W * 4;
    c.Height = H;
    c.Depth = D;
    OK(cuMemcpy3D(&c));
    memset(back, 0, sizeof back);
    OK(array_io(a, back, W * 4, H, D, 0));
    TRUE(memcmp(back, host, sizeof host) == 0);
    /* a sub-box: host (padded pitch and height, offsets) -> array b at offsets; elements outside stay as set */
    OK(array_io(b, host, W * 4, H, D, 1));
    enum { SP = 64, SH = 8 };
    static uint32_t src[6][SH][SP / 4];
    for (size_t z = 0; z < 6; z++)
        for (size_t y = 0; y < SH; y++)
            for (size_t x = 0; x < SP / 4; x++)
                src[z][y][x] = 0xa0000000u + (uint32_t)(z * 0x10000 + y * 0x100 + x);
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = src;
    c.srcXInBytes = 8;
    c.srcY = 1;
    c.srcZ = 2;
    c.srcPitch = SP;
    c.srcHeight = SH;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = b;
    c.dstXInBytes = 4;
    c.dstY = 2;
    c.dstZ = 1;
    c.WidthInBytes = 3 * 4;
    c.Height = 2;
    c.Depth = 3;
    OK(cuMemcpy3D(&c));
    OK(array_io(b, back, W * 4, H, D, 0));
    int ok = 1;
    for (size_t z = 0; z < D; z++)
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < W; x++) {
                int in = x >= 1 && x < 4 && y >= 2 && y < 4 && z >= 1 && z < 4;
                uint32_t want = in ? src[z - 1 + 2][y - 2 + 1][x - 1 + 2] : tag(x, y, z);
                ok &= back[z][y][x] == want;
            }
    TRUE(ok);
    /* array -> pitched device memory -> array -> host (3D, device end pitched with slice height) */
    CUdeviceptr dev;
    enum { DP = 48, DH = 6 };
    MUST(cuMemAlloc(&dev, (size_t)DP * DH * D));
    OK(cuMemsetD8(dev, 0x5a, (size_t)DP * DH * D));
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = a;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = dev;
    c.dstPitch = DP;
    c.dstHeight = DH;
    c.WidthInBytes = W * 4;
    c.Height = H;
    c.Depth = D;
    OK(cuMemcpy3DAsync(&c, NULL));
    static uint8_t raw[DP * DH * D];
    OK(cuMemcpyDtoH(raw, dev, sizeof raw));
    ok = 1;
    for (size_t z = 0; z < D; z++)
        for (size_t y = 0; y < DH; y++)
            for (size_t x = 0; x < DP / 4; x++) {
                uint32_t v;
                memcpy(&v, raw + z * DP * DH + y * DP + x * 4, 4);
                ok &= v == (x < W && y < H ? tag(x, y, z) : 0x5a5a5a5au);
            }
    TRUE(ok);
    /* the same through unified addresses and a 2D copy of one slice (slice 0) into array b */
    CUDA_MEMCPY2D c2;
    memset(&c2, 0, sizeof c2);
    c2.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
    c2.srcDevice = dev;
    c2.srcPitch = DP;
    c2.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c2.dstArray = b;
    c2.WidthInBytes = W * 4;
    c2.Height = H;
    OK(cuMemcpy2D(&c2));
    OK(cuMemcpy2DUnaligned(&c2));
    OK(cuMemcpy2DAsync(&c2, NULL));
    memset(back, 0, sizeof back);
    OK(array_io(b, back, W * 4, H, 1, 0));
    TRUE(memcmp(back[0], host[0], sizeof host[0]) == 0);
    /* 2D host -> host with unified addresses (neither end is device memory) */
    uint32_t h1[4][8], h2[4][8];
    memset(h2, 0, sizeof h2);
    for (int i = 0; i < 32; i++)
        h1[i / 8][i % 8] = (uint32_t)i;
    memset(&c2, 0, sizeof c2);
    c2.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
    c2.srcDevice = (CUdeviceptr)(uintptr_t)h1;
    c2.srcXInBytes = 4;
    c2.srcPitch = 32;
    c2.dstMemoryType = CU_MEMORYTYPE_HOST;
    c2.dstHost = h2;
    c2.dstY = 1;
    c2.dstPitch = 32;
    c2.WidthInBytes = 8;
    c2.Height = 3;
    OK(cuMemcpy2D(&c2));
    TRUE(h2[0][0] == 0 && h2[1][0] == 1 && h2[1][1] == 2 && h2[3][1] == 18 && h2[3][2] == 0);
    /* byte-range copies between arrays and device memory: within the first row (as on the H200) */
    OK(cuMemcpyAtoA(b, 0, a, 0, W * 4));
    OK(cuMemcpyAtoD(dev, b, 4, 8));
    uint32_t two[2];
    OK(cuMemcpyDtoH(two, dev, 8));
    TRUE(two[0] == tag(1, 0, 0) && two[1] == tag(2, 0, 0));
    OK(cuMemcpyDtoA(b, 0, dev, 4));
    OK(cuMemcpyAtoHAsync(two, b, 0, 8, NULL));
    TRUE(two[0] == tag(1, 0, 0) && two[1] == tag(1, 0, 0));
    OK(cuMemcpyHtoAAsync(b, 3, host, 8, NULL)); /* byte offsets need not be whole elements */
    /* errors: outside the first row, mip levels, bad handles, outside an allocation */
    EXPECT(cuMemcpyHtoA(b, W * 4 - 4, host, 8), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyAtoH(back, b, 0, sizeof back), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyAtoH(back, (CUarray)(uintptr_t)0x1234, 0, 4), CUDA_ERROR_INVALID_HANDLE);
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = host;
    c.srcPitch = W * 4;
    c.srcHeight = H;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = a;
    c.WidthInBytes = W * 4;
    c.Height = H;
    c.Depth = D;
    c.dstXInBytes = 4; /* one element too wide */
    EXPECT(cuMemcpy3D(&c), CUDA_ERROR_INVALID_VALUE);
    c.dstXInBytes = (size_t)-3; /* an offset that wraps around */
    EXPECT(cuMemcpy3D(&c), CUDA_ERROR_INVALID_VALUE);
    c.dstXInBytes = 2;
    c.WidthInBytes = 6; /* not whole elements: accepted (H200) */
    OK(cuMemcpy3D(&c));
    c.dstXInBytes = 0;
    c.WidthInBytes = W * 4;
    c.dstZ = 1;
    EXPECT(cuMemcpy3D(&c), CUDA_ERROR_INVALID_VALUE);
    c.dstZ = 0;
    c.dstLOD = 1;
    EXPECT(cuMemcpy3D(&c), CUDA_ERROR_INVALID_VALUE);
    c.dstLOD = 0;
    c.srcPitch = 8; /* pitch smaller than a row */
    EXPECT(cuMemcpy3D(&c), CUDA_ERROR_INVALID_VALUE);
    c.srcPitch = W * 4;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = dev;
    c.dstPitch = DP;
    c.dstHeight = DH + 2; /* the last slice ends past the allocation */
    EXPECT(cuMemcpy3D(&c), CUDA_ERROR_INVALID_VALUE);
    c.dstHeight = DH;
    OK(cuMemcpy3D(&c));
    EXPECT(cuMemcpy3D(NULL), CUDA_ERROR_INVALID_VALUE);
    /* the peer form (one device): array a -> host, with both contexts given */
    CUcontext cur;
    OK(cuCtxGetCurrent(&cur));
    CUDA_MEMCPY3D_PEER pc;
    memset(&pc, 0, sizeof pc);
    pc.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    pc.srcArray = a;
    pc.srcContext = cur;
    pc.dstMemoryType = CU_MEMORYTYPE_HOST;
    pc.dstHost = back;
    pc.dstPitch = W * 4;
    pc.dstHeight = H;
    pc.dstContext = cur;
    pc.WidthInBytes = W * 4;
    pc.Height = H;
    pc.Depth = D;
    memset(back, 0, sizeof back);
    OK(array_io(a, host, W * 4, H, D, 1)); /* the unaligned copy above changed row 0 */
    OK(cuMemcpy3DPeer(&pc));
    TRUE(memcmp(back, host, sizeof host) == 0);
    pc.dstContext = (CUcontext)(uintptr_t)0x99;
    EXPECT(cuMemcpy3DPeerAsync(&pc, NULL), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuMemFree(dev));
    OK(cuArrayDestroy(a));
    OK(cuArrayDestroy(b));
}

static p2n_tex_desc read_desc(unsigned long long h)
{
    p2n_tex_desc d;
    memset(&d, 0, sizeof d);
    OK(cuMemcpyDtoH(&d, (CUdeviceptr)h, sizeof d));
    return d;
}

static void objects(void)
{
    CUarray a, s;
    CUDA_ARRAY3D_DESCRIPTOR ad = d3(6, 0, 3, CU_AD_FORMAT_SIGNED_INT16, 2, CUDA_ARRAY3D_LAYERED);
    MUST(cuArray3DCreate(&a, &ad));
    CUDA_RESOURCE_DESC rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = a;
    CUDA_TEXTURE_DESC td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = CU_TR_ADDRESS_MODE_MIRROR;
    td.addressMode[1] = CU_TR_ADDRESS_MODE_BORDER;
    td.addressMode[2] = CU_TR_ADDRESS_MODE_WRAP;
    td.filterMode = CU_TR_FILTER_MODE_LINEAR;
    td.flags = CU_TRSF_NORMALIZED_COORDINATES | CU_TRSF_SRGB;
    td.borderColor[0] = 0.5f;
    td.borderColor[3] = -2.0f;
    td.maxAnisotropy = 4;
    CUtexObject t;
    MUST(cuTexObjectCreate(&t, &rd, &td, NULL));
    TRUE(t != 0 && t % 16 == 0);
    p2n_tex_desc d = read_desc(t);
    TRUE(d.magic == P2N_TEX_MAGIC && d.kind == P2N_TEX_KIND_ARRAY && d.base != 0);
    TRUE(d.width == 6 && d.height == 0 && d.depth == 0 && d.layers == 3 && d.dims == 1);
    TRUE(d.format == CU_AD_FORMAT_SIGNED_INT16 && d.channels == 2 && d.elem_bytes == 4);
    TRUE(d.pitch == 24 && d.slice_pitch == 24 && d.levels == 1);
    TRUE(d.flags == (P2N_TEX_NORMALIZED_COORDS | P2N_TEX_SRGB | P2N_TEX_LAYERED));
    TRUE(d.filter == 1 && d.address[0] == 2 && d.address[1] == 3 && d.address[2] == 0);
    TRUE(d.border[0] == 0.5f && d.border[3] == -2.0f && d.max_aniso == 4 && d.reserved == 0);
    /* the array's bytes are where the descriptor says */
    int16_t px[6 * 2 * 3], got[6 * 2 * 3];
    for (int i = 0; i < 36; i++)
        px[i] = (int16_t)(i * 111 - 2000);
    OK(array_io(a, px, 6 * 4, 1, 3, 1));
    OK(cuMemcpyDtoH(got, (CUdeviceptr)d.base, sizeof got));
    TRUE(memcmp(px, got, sizeof px) == 0);
    CUDA_RESOURCE_DESC rg;
    CUDA_TEXTURE_DESC tg;
    OK(cuTexObjectGetResourceDesc(&rg, t));
    TRUE(memcmp(&rg, &rd, sizeof rd) == 0);
    OK(cuTexObjectGetTextureDesc(&tg, t));
    TRUE(memcmp(&tg, &td, sizeof td) == 0);
    CUDA_RESOURCE_VIEW_DESC vd;
    OK(cuTexObjectGetResourceViewDesc(&vd, t)); /* an object without a view: success (H200) */
    memset(&vd, 0, sizeof vd);
    CUtexObject t2;
    EXPECT(cuTexObjectCreate(&t2, &rd, &td, &vd), CUDA_ERROR_INVALID_VALUE); /* a zero view */
    vd.format = CU_RES_VIEW_FORMAT_SINT_2X16;
    vd.width = 6;
    vd.depth = 3;
    vd.lastLayer = 2;
    EXPECT(cuTexObjectCreate(&t2, &rd, &td, &vd), CUDA_ERROR_NOT_SUPPORTED);
    /* the H200 makes a surface even over an array made without CUDA_ARRAY3D_SURFACE_LDST */
    CUsurfObject so;
    OK(cuSurfObjectCreate(&so, &rd));
    OK(cuSurfObjectDestroy(so));
    CUDA_ARRAY3D_DESCRIPTOR sd = d3(4, 4, 6, CU_AD_FORMAT_FLOAT, 4, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_SURFACE_LDST);
    MUST(cuArray3DCreate(&s, &sd));
    rd.res.array.hArray = s;
    MUST(cuSurfObjectCreate(&so, &rd));
    d = read_desc(so);
    TRUE(d.magic == P2N_TEX_MAGIC && d.flags == (P2N_TEX_IS_SURFACE | P2N_TEX_CUBEMAP) && d.layers == 6);
    TRUE(d.dims == 2 && d.width == 4 && d.height == 4 && d.pitch == 64 && d.slice_pitch == 256);
    OK(cuSurfObjectGetResourceDesc(&rg, so));
    TRUE(rg.res.array.hArray == s);
    EXPECT(cuTexObjectDestroy(so), CUDA_ERROR_INVALID_VALUE); /* a surface is not a texture */
    OK(cuSurfObjectDestroy(so));
    EXPECT(cuSurfObjectDestroy(so), CUDA_ERROR_INVALID_VALUE);
    /* a texture over the cubemap */
    CUtexObject tc;
    MUST(cuTexObjectCreate(&tc, &rd, &td, NULL));
    d = read_desc(tc);
    TRUE(d.flags == (P2N_TEX_NORMALIZED_COORDS | P2N_TEX_SRGB | P2N_TEX_CUBEMAP) && d.layers == 6 && d.depth == 0);

    /* linear and pitch2d: alignment rules */
    CUdeviceptr mem;
    MUST(cuMemAlloc(&mem, 4096));
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_LINEAR;
    rd.res.linear.devPtr = mem;
    rd.res.linear.format = CU_AD_FORMAT_FLOAT;
    rd.res.linear.numChannels = 1;
    rd.res.linear.sizeInBytes = 30; /* 7 whole elements */
    memset(&td, 0, sizeof td);
    CUtexObject tl;
    MUST(cuTexObjectCreate(&tl, &rd, &td, NULL));
    d = read_desc(tl);
    TRUE(d.kind == P2N_TEX_KIND_LINEAR && d.base == mem && d.width == 7 && d.height == 0 && d.dims == 1);
    rd.res.linear.devPtr = mem + 16;
    EXPECT(cuTexObjectCreate(&t2, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    rd.res.linear.devPtr = mem + 512;
    OK(cuTexObjectCreate(&t2, &rd, &td, NULL));
    OK(cuTexObjectDestroy(t2));
    rd.res.linear.devPtr = mem;
    rd.res.linear.numChannels = 3;
    EXPECT(cuTexObjectCreate(&t2, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    rd.res.linear.numChannels = 1;
    rd.res.linear.sizeInBytes = 2; /* less than one element: accepted (H200), width 0 */
    OK(cuTexObjectCreate(&t2, &rd, &td, NULL));
    TRUE(read_desc(t2).width == 0);
    OK(cuTexObjectDestroy(t2));
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_PITCH2D;
    rd.res.pitch2D.devPtr = mem;
    rd.res.pitch2D.format = CU_AD_FORMAT_UNSIGNED_INT8;
    rd.res.pitch2D.numChannels = 4;
    rd.res.pitch2D.width = 10;
    rd.res.pitch2D.height = 12;
    rd.res.pitch2D.pitchInBytes = 64;
    CUtexObject tp;
    MUST(cuTexObjectCreate(&tp, &rd, &td, NULL));
    d = read_desc(tp);
    TRUE(d.kind == P2N_TEX_KIND_PITCH2D && d.pitch == 64 && d.width == 10 && d.height == 12 && d.dims == 2);
    EXPECT(cuSurfObjectCreate(&so, &rd), CUDA_ERROR_INVALID_VALUE);
    rd.res.pitch2D.pitchInBytes = 36;
    EXPECT(cuTexObjectCreate(&t2, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    rd.res.pitch2D.pitchInBytes = 64;
    rd.res.pitch2D.devPtr = mem + 4;
    EXPECT(cuTexObjectCreate(&t2, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    /* bad texture descriptors and arguments */
    rd.res.pitch2D.devPtr = mem;
    td.addressMode[1] = (CUaddress_mode)7;
    EXPECT(cuTexObjectCreate(&t2, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    rd.flags = 1;
    EXPECT(cuTexObjectCreate(&t2, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    rd.flags = 0;
    EXPECT(cuTexObjectCreate(&t2, &rd, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuTexObjectCreate(NULL, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = (CUarray)(uintptr_t)0x4242;
    EXPECT(cuTexObjectCreate(&t2, &rd, &td, NULL), CUDA_ERROR_INVALID_HANDLE);
    rd.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
    EXPECT(cuTexObjectCreate(&t2, &rd, &td, NULL), CUDA_ERROR_NOT_SUPPORTED);
    rd.res.mipmap.hMipmappedArray = NULL;
    EXPECT(cuTexObjectCreate(&t2, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuTexObjectDestroy(0));
    OK(cuSurfObjectDestroy(0));
    OK(cuTexObjectDestroy(t));
    EXPECT(cuTexObjectDestroy(t), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuTexObjectGetResourceDesc(&rg, t), CUDA_ERROR_INVALID_VALUE);
    /* destroying an array an object still names is allowed (using the object afterwards is undefined) */
    OK(cuArrayDestroy(a));
    /* tc, tl, tp, s and mem are left to cuCtxDestroy */
}

int main(void)
{
    MUST(cuInit(0));
    CUcontext ctx;
    MUST(cuCtxCreate(&ctx, NULL, 0, 0));
    int align = 0, palign = 0;
    OK(cuDeviceGetAttribute(&align, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, 0));
    OK(cuDeviceGetAttribute(&palign, CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, 0));
    TRUE(align == 512 && palign == 32); /* the values texobj.c checks against (and the H200's) */
    arrays();
    copies();
    objects();
    void *fn = NULL;
    CUdriverProcAddressQueryResult st;
    OK(cuGetProcAddress("cuTexObjectCreate", &fn, 13000, 0, &st));
    TRUE(fn == (void *)cuTexObjectCreate && st == CU_GET_PROC_ADDRESS_SUCCESS);
    OK(cuGetProcAddress("cuMemcpy3D", &fn, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st));
    TRUE(fn != NULL && st == CU_GET_PROC_ADDRESS_SUCCESS);
    OK(cuCtxDestroy(ctx));
    return check_done("test_array");
}
