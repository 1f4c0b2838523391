/* test_texref.c — texture and surface REFERENCES end to end: the compiler's .texref/.surfref/.samplerref
 * (targets/llvm/emit_texture_ref.c) and the driver's cuModuleGetTexRef / cuTexRefSet* / cuSurfRefSetArray
 * (driver-stub/texref.c), on a unified-mode module (texref.ptx) and a texmode_independent one (texref_indep.ptx).
 *
 * Expected values are computed here, not by the code under test: images hold v(x, y) = x + 10 y (exact in
 * f32), and every filtered coordinate is a texel centre or the midpoint of two or four texels, where the 9-bit
 * filtering weights are exactly 0, 1/2 or 1, so linear results are exact averages.
 * `test_driver_texref TEXREF.ptx INDEP.ptx unbound`: a kernel reading a reference never bound reads zeros, as
 * on the H200 (conformance tex/texref_unbound), whether the program looked the reference up or not.
 */
#define CUDA_ENABLE_DEPRECATED 1 /* texture references are deprecated API: no warnings for using them */
#include <stdint.h>
#include <string.h>

#include "check.h"

#define W 4
#define H 4

static CUdeviceptr upload(const void *p, size_t n) {
    CUdeviceptr d;
    MUST(cuMemAlloc(&d, n));
    MUST(cuMemcpyHtoD(d, p, n));
    return d;
}

/* kernel(in, out[, extra...]) over n threads of one block: 16 bytes in and out per thread */
static CUresult run(CUmodule m, const char *kernel, const void *in, unsigned n, void *out, void *x0, void *x1) {
    CUfunction f;
    MUST(cuModuleGetFunction(&f, m, kernel));
    CUdeviceptr din = upload(in, 16u * n), dout;
    MUST(cuMemAlloc(&dout, 16u * n));
    MUST(cuMemsetD8(dout, 0xee, 16u * n));
    void *params[] = {&din, &dout, x0, x1};
    CUresult r = cuLaunchKernel(f, 1, 1, 1, n, 1, 1, 0, NULL, params, NULL);
    if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
    if (r == CUDA_SUCCESS) MUST(cuMemcpyDtoH(out, dout, 16u * n));
    cuMemFree(din);
    cuMemFree(dout);
    return r;
}

static float v(int x, int y) { return (float)(x + 10 * y); }

/* a W x H array of `format` x `channels` filled from host memory (rows tightly packed) */
static CUarray make_array(CUarray_format format, unsigned channels, unsigned elem, const void *data, unsigned flags) {
    CUDA_ARRAY3D_DESCRIPTOR ad = {.Width = W, .Height = H, .Depth = 0, .Format = format, .NumChannels = channels,
                                  .Flags = flags};
    CUarray a;
    MUST(cuArray3DCreate(&a, &ad));
    CUDA_MEMCPY2D c = {.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = data, .srcPitch = W * elem,
                       .dstMemoryType = CU_MEMORYTYPE_ARRAY, .dstArray = a, .WidthInBytes = W * elem, .Height = H};
    MUST(cuMemcpy2D(&c));
    return a;
}

static CUarray float_image(void) {
    float img[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) img[y][x] = v(x, y);
    return make_array(CU_AD_FORMAT_FLOAT, 1, 4, img, 0);
}

typedef struct { float u, v, pad[2]; } coord;

/* sample each coordinate with `kernel` and compare the first channel with want[] (exact) */
static void expect_samples(CUmodule m, const char *kernel, const coord *c, const float *want, unsigned n,
                           void *x0, void *x1) {
    float out[16][4];
    OK(run(m, kernel, c, n, out, x0, x1));
    for (unsigned i = 0; i < n; i++)
        if (out[i][0] != want[i]) {
            fprintf(stderr, "%s: sample %u at (%g, %g): %g, expected %g\n", kernel, i, c[i].u, c[i].v, out[i][0], want[i]);
            check_failures++;
        }
}

/* 1D linear memory: cuTexRefSetAddress at an unaligned address passes back the offset the kernel adds */
static void linear(CUmodule m) {
    CUtexref lin;
    MUST(cuModuleGetTexRef(&lin, m, "lin"));
    float data[64];
    for (int i = 0; i < 64; i++) data[i] = (float)(i * i - 3);
    CUdeviceptr d = upload(data, sizeof data);
    OK(cuTexRefSetFormat(lin, CU_AD_FORMAT_FLOAT, 1));
    size_t off = 99;
    OK(cuTexRefSetAddress(&off, lin, d + 12, 40 * sizeof(float)));
    TRUE(off == 12); /* allocations start TEXTURE_ALIGNMENT-aligned: the offset is the 12 bytes asked for */
    CUdeviceptr got = 0;
    OK(cuTexRefGetAddress(&got, lin));
    TRUE(got == d);
    CUarray_format fmt;
    int nch = 0;
    OK(cuTexRefGetFormat(&fmt, &nch, lin));
    TRUE(fmt == CU_AD_FORMAT_FLOAT && nch == 1);
    CUarray none;
    EXPECT(cuTexRefGetArray(&none, lin), CUDA_ERROR_INVALID_VALUE); /* bound to memory, not an array */
    int32_t in[16][4];
    memset(in, 0, sizeof in);
    for (int i = 0; i < 15; i++) in[i][0] = i + (int)(off / sizeof(float));
    in[15][0] = 50; /* beyond the 43 elements bound: 0 */
    float out[16][4];
    OK(run(m, "fetch_lin", in, 16, out, NULL, NULL));
    for (int i = 0; i < 15; i++) TRUE(out[i][0] == data[3 + i]);
    TRUE(out[15][0] == 0.0f);
    memset(out, 0, sizeof out);
    OK(run(m, "fetch_lin_mov", in, 16, out, NULL, NULL)); /* the handle taken into a register with mov */
    for (int i = 0; i < 15; i++) TRUE(out[i][0] == data[3 + i]);
}

/* 2D array, linear filtering and normalized coordinates from the reference's state; then the state changes
 * (point filtering, wrap) and the next launch sees it */
static CUarray image(CUmodule m) {
    CUtexref img;
    MUST(cuModuleGetTexRef(&img, m, "img"));
    CUtexref again;
    OK(cuModuleGetTexRef(&again, m, "img"));
    TRUE(again == img);
    CUarray a = float_image();
    OK(cuTexRefSetArray(img, a, CU_TRSA_OVERRIDE_FORMAT));
    OK(cuTexRefSetFilterMode(img, CU_TR_FILTER_MODE_LINEAR));
    OK(cuTexRefSetFlags(img, CU_TRSF_NORMALIZED_COORDINATES));
    OK(cuTexRefSetAddressMode(img, 0, CU_TR_ADDRESS_MODE_CLAMP));
    OK(cuTexRefSetAddressMode(img, 1, CU_TR_ADDRESS_MODE_CLAMP));
    const coord c[] = {
        {0.5f / W, 0.5f / H, {0}}, {3.5f / W, 2.5f / H, {0}}, {1.5f / W, 3.5f / H, {0}}, /* texel centres */
        {2.0f / W, 2.5f / H, {0}},                                                      /* between (1,2) and (2,2) */
        {1.0f / W, 1.0f / H, {0}}, {3.0f / W, 2.0f / H, {0}},                         /* between four texels */
        {-0.25f, 1.5f / H, {0}}, {1.5f, 3.5f / H, {0}},                                /* clamped */
    };
    const float want[] = {v(0, 0), v(3, 2), v(1, 3), (v(1, 2) + v(2, 2)) / 2, (v(0, 0) + v(1, 1)) / 2,
                          (v(2, 1) + v(3, 2)) / 2, v(0, 1), v(3, 3)};
    expect_samples(m, "sample_img", c, want, 8, NULL, NULL);
    OK(cuTexRefSetFilterMode(img, CU_TR_FILTER_MODE_POINT));
    OK(cuTexRefSetAddressMode(img, 0, CU_TR_ADDRESS_MODE_WRAP));
    const coord c2[] = {{1.125f, 2.5f / H, {0}}, {2.0f / W, 2.5f / H, {0}}, {-0.125f, 0.5f / H, {0}}};
    const float want2[] = {v(0, 2), v(2, 2), v(3, 0)}; /* wrapped; exactly between two: the upper one */
    expect_samples(m, "sample_img", c2, want2, 3, NULL, NULL);
    CUfilter_mode fm;
    CUaddress_mode am;
    unsigned flags;
    CUarray back;
    CUarray_format fmt;
    int nch;
    OK(cuTexRefGetFilterMode(&fm, img));
    TRUE(fm == CU_TR_FILTER_MODE_POINT);
    OK(cuTexRefGetAddressMode(&am, img, 0));
    TRUE(am == CU_TR_ADDRESS_MODE_WRAP);
    OK(cuTexRefGetAddressMode(&am, img, 1));
    TRUE(am == CU_TR_ADDRESS_MODE_CLAMP);
    OK(cuTexRefGetFlags(&flags, img));
    TRUE(flags == CU_TRSF_NORMALIZED_COORDINATES);
    OK(cuTexRefGetArray(&back, img));
    TRUE(back == a);
    OK(cuTexRefGetFormat(&fmt, &nch, img));
    TRUE(fmt == CU_AD_FORMAT_FLOAT && nch == 1);
    float border[4] = {1, 2, 3, 4}, bback[4] = {0};
    OK(cuTexRefSetBorderColor(img, border));
    OK(cuTexRefGetBorderColor(bback, img));
    TRUE(!memcmp(border, bback, sizeof border));
    /* rebound to pitched linear memory (cuTexRefSetAddress2D), rows TEXTURE_PITCH_ALIGNMENT apart, same state */
    int align = 0;
    MUST(cuDeviceGetAttribute(&align, CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, 0));
    size_t pitch = (size_t)align < W * sizeof(float) ? W * sizeof(float) : (size_t)align;
    float rows[H][64] = {{0}};
    TRUE(pitch <= sizeof rows[0]);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) rows[y][x] = v(x, y) + 100; /* distinct from the array's texels */
    CUdeviceptr d = 0;
    MUST(cuMemAlloc(&d, pitch * H));
    for (int y = 0; y < H; y++) MUST(cuMemcpyHtoD(d + pitch * (size_t)y, rows[y], W * sizeof(float)));
    CUDA_ARRAY_DESCRIPTOR ad = {.Width = W, .Height = H, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 1};
    OK(cuTexRefSetAddress2D(img, &ad, d, pitch));
    CUdeviceptr got = 0;
    OK(cuTexRefGetAddress(&got, img));
    TRUE(got == d);
    EXPECT(cuTexRefGetArray(&back, img), CUDA_ERROR_INVALID_VALUE);
    const coord c3[] = {{0.5f / W, 0.5f / H, {0}}, {3.5f / W, 2.5f / H, {0}}, {-0.125f, 1.5f / H, {0}}};
    const float want3[] = {v(0, 0) + 100, v(3, 2) + 100, v(3, 1) + 100};
    expect_samples(m, "sample_img", c3, want3, 3, NULL, NULL);
    OK(cuTexRefSetArray(img, a, CU_TRSA_OVERRIDE_FORMAT)); /* back to the array for the surface test's txq */
    return a;
}

/* u8 x 4 read as integers: the stored bytes come back unconverted */
static void integers(CUmodule m) {
    CUtexref ints;
    MUST(cuModuleGetTexRef(&ints, m, "ints"));
    uint8_t b[H][W][4];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++) b[y][x][c] = (uint8_t)(x * 16 + y * 4 + c * 61 + 1);
    CUarray a = make_array(CU_AD_FORMAT_UNSIGNED_INT8, 4, 4, b, 0);
    OK(cuTexRefSetArray(ints, a, CU_TRSA_OVERRIDE_FORMAT));
    OK(cuTexRefSetFlags(ints, CU_TRSF_READ_AS_INTEGER));
    int32_t in[16][4];
    memset(in, 0, sizeof in);
    for (int i = 0; i < 16; i++) in[i][0] = i % W, in[i][1] = i / W;
    uint32_t out[16][4];
    OK(run(m, "fetch_ints", in, 16, out, NULL, NULL));
    for (int i = 0; i < 16; i++)
        for (int c = 0; c < 4; c++) TRUE(out[i][c] == b[i / W][i % W][c]);
}

/* a surface reference written and read back in one launch; txq/suq sizes of references */
static void surface(CUmodule m) {
    CUsurfref s;
    MUST(cuModuleGetSurfRef(&s, m, "surf"));
    uint32_t zero[H][W] = {{0}};
    CUarray a = make_array(CU_AD_FORMAT_UNSIGNED_INT32, 1, 4, zero, CUDA_ARRAY3D_SURFACE_LDST);
    OK(cuSurfRefSetArray(s, a, 0));
    CUarray back;
    OK(cuSurfRefGetArray(&back, s));
    TRUE(back == a);
    uint32_t in[16][4], out[16][4];
    memset(in, 0, sizeof in);
    for (int i = 0; i < 16; i++) in[i][0] = 1000u + (unsigned)i;
    OK(run(m, "surf_mirror", in, 16, out, NULL, NULL));
    for (int i = 0; i < 16; i++) {
        int x = i % W, y = i / W;
        TRUE(out[i][0] == 1000u + (unsigned)(y * W + (W - 1 - x)));
        TRUE(out[i][1] == W && out[i][2] == W && out[i][3] == H);
    }
    uint32_t host[H][W];
    CUDA_MEMCPY2D c = {.srcMemoryType = CU_MEMORYTYPE_ARRAY, .srcArray = a, .dstMemoryType = CU_MEMORYTYPE_HOST,
                       .dstHost = host, .dstPitch = W * 4, .WidthInBytes = W * 4, .Height = H};
    OK(cuMemcpy2D(&c));
    for (int i = 0; i < 16; i++) TRUE(host[i / W][i % W] == 1000u + (unsigned)i);
}

static void errors(CUmodule m, CUarray a) {
    CUtexref r;
    CUsurfref s;
    EXPECT(cuModuleGetTexRef(&r, m, "no_such_texture"), CUDA_ERROR_NOT_FOUND);
    EXPECT(cuModuleGetTexRef(NULL, m, "img"), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuModuleGetSurfRef(&s, (CUmodule)&r, "surf"), CUDA_ERROR_INVALID_HANDLE);
    uint32_t junk[32] = {0};
    EXPECT(cuTexRefSetFilterMode((CUtexref)junk, CU_TR_FILTER_MODE_LINEAR), CUDA_ERROR_INVALID_HANDLE);
    MUST(cuModuleGetTexRef(&r, m, "img"));
    MUST(cuModuleGetSurfRef(&s, m, "surf"));
    EXPECT(cuTexRefSetFilterMode((CUtexref)s, CU_TR_FILTER_MODE_LINEAR), CUDA_ERROR_INVALID_HANDLE); /* a surfref */
    EXPECT(cuTexRefSetAddressMode(r, 3, CU_TR_ADDRESS_MODE_CLAMP), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuTexRefSetArray(r, a, 0x80), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuTexRefSetMipmappedArray(r, NULL, CU_TRSA_OVERRIDE_FORMAT), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuTexRefSetFormat(r, CU_AD_FORMAT_FLOAT, 3), CUDA_ERROR_INVALID_VALUE);
}

/* texmode_independent: the sampler's filter, address modes and coordinate normalisation replace the
 * texture's (set here to point, wrap, normalized: every expected value below differs under those) */
static void independent(CUmodule m) {
    CUtexref t;
    MUST(cuModuleGetTexRef(&t, m, "t"));
    CUarray a = float_image();
    OK(cuTexRefSetArray(t, a, CU_TRSA_OVERRIDE_FORMAT));
    OK(cuTexRefSetFlags(t, CU_TRSF_NORMALIZED_COORDINATES));
    /* s_lin: linear, clamp_to_edge, the texture's normalized coordinates */
    const coord cl[] = {{2.0f / W, 2.5f / H, {0}}, {-0.25f, 1.5f / H, {0}}, {1.0f / W, 1.0f / H, {0}}, {0.5f / W, 3.5f / H, {0}}};
    const float wl[] = {(v(1, 2) + v(2, 2)) / 2, v(0, 1), (v(0, 0) + v(1, 1)) / 2, v(0, 3)};
    expect_samples(m, "sample_lin", cl, wl, 4, NULL, NULL);
    /* s_pt: nearest, clamp_to_border (border 0), force_unnormalized_coords */
    const coord cp[] = {{2.5f, 1.5f, {0}}, {-1.0f, 1.5f, {0}}, {5.0f, 0.5f, {0}}, {0.25f, 3.75f, {0}}};
    const float wp[] = {v(2, 1), 0.0f, 0.0f, v(0, 3)};
    expect_samples(m, "sample_pt", cp, wp, 4, NULL, NULL);
    /* kernel-parameter texture and sampler: 64-bit handles of texture objects */
    CUDA_RESOURCE_DESC rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = a;
    CUDA_TEXTURE_DESC image_td, sampler_td;
    memset(&image_td, 0, sizeof image_td); /* point, wrap, unnormalized */
    memset(&sampler_td, 0, sizeof sampler_td);
    sampler_td.filterMode = CU_TR_FILTER_MODE_LINEAR;
    sampler_td.addressMode[0] = sampler_td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    sampler_td.flags = CU_TRSF_NORMALIZED_COORDINATES;
    CUtexObject image_obj, sampler_obj;
    MUST(cuTexObjectCreate(&image_obj, &rd, &image_td, NULL));
    MUST(cuTexObjectCreate(&sampler_obj, &rd, &sampler_td, NULL));
    expect_samples(m, "sample_param", cl, wl, 4, &image_obj, &sampler_obj);
    OK(cuTexObjectDestroy(image_obj));
    OK(cuTexObjectDestroy(sampler_obj));
}

static CUmodule load_second(const char *path) {
    char *ptx = test_read_file(path, NULL);
    if (!ptx) {
        perror(path);
        exit(1);
    }
    CUmodule m;
    MUST(cuModuleLoadData(&m, ptx));
    free(ptx);
    return m;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s texref.ptx texref_indep.ptx [unbound]\n", argv[0]);
        return 2;
    }
    CUmodule m = must_load_ptx(argv[1]);
    if (argc > 3 && !strcmp(argv[3], "unbound")) {
        int32_t in[4 * 3] = {0, 0, 0, 0, 1, 1, 0, 0, -5, 7, 0, 0};
        uint32_t out[4 * 3];
        memset(out, 0xee, sizeof out);
        OK(run(m, "fetch_ints", in, 3, out, NULL, NULL)); /* `ints` never looked up: its global holds 0 */
        for (unsigned i = 0; i < 4 * 3; i++) TRUE(out[i] == 0);
        CUtexref ints;
        MUST(cuModuleGetTexRef(&ints, m, "ints")); /* known to the driver now, still never bound */
        memset(out, 0xee, sizeof out);
        OK(run(m, "fetch_ints", in, 3, out, NULL, NULL));
        for (unsigned i = 0; i < 4 * 3; i++) TRUE(out[i] == 0);
        return check_done("test_texref");
    }
    linear(m);
    CUarray a = image(m);
    integers(m);
    surface(m);
    errors(m, a);
    CUmodule mi = load_second(argv[2]);
    independent(mi);
    OK(cuModuleUnload(mi));
    OK(cuModuleUnload(m));
    return check_done("test_texref");
}
