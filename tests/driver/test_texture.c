/* test_texture.c — texture and surface instructions of the shared emission (targets/llvm/emit_texture*.c,
 * emit_surface.c) on the CPU backend, with descriptors built BY HAND (cuMemAlloc + cuMemcpyHtoD of a
 * p2n_tex_desc, its address passed as the .u64 handle): nothing of the driver's texture API is needed.
 *
 * Hand-computed anchors (point/linear values, border colour, linear memory, missing channels, tld4 order,
 * cubemap faces, txq/suq/istypep as the H200 answers them, surface trap/clamp/zero, sured) plus a sweep of 2D
 * sampling over formats
 * u8/s8/u16/f16/f32 x 1/2/4 channels x point/linear x wrap/clamp/mirror/border x (un)normalised coordinates
 * against an independent C model of the documented rules (CUDA Programming Guide, "Texture Fetching").
 * `test_driver_texture FILE trap-magic|trap-levels|trap-surface`: one launch that must fail (a trap is sticky).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "texture_desc.h"

static CUmodule mod;

static CUdeviceptr upload(const void *p, size_t n) {
    CUdeviceptr d;
    MUST(cuMemAlloc(&d, n ? n : 1));
    if (n) MUST(cuMemcpyHtoD(d, p, n));
    return d;
}

static p2n_tex_desc desc(uint32_t kind, uint32_t fmt, uint32_t ch, uint32_t bpc, uint32_t w, uint32_t h, uint32_t dp) {
    p2n_tex_desc d;
    memset(&d, 0, sizeof d);
    d.magic = P2N_TEX_MAGIC;
    d.kind = kind;
    d.format = fmt;
    d.channels = ch;
    d.elem_bytes = ch * bpc;
    d.width = w;
    d.height = h;
    d.depth = dp;
    d.dims = dp ? 3 : h ? 2 : 1;
    d.pitch = (uint64_t)w * d.elem_bytes;
    d.slice_pitch = d.pitch * (h ? h : 1);
    d.levels = 1;
    d.address[0] = d.address[1] = d.address[2] = 1;
    return d;
}

/* the descriptor (its base set to a copy of `data`) in device memory: the handle */
static CUdeviceptr object(p2n_tex_desc d, const void *data, size_t n, CUdeviceptr *datap) {
    CUdeviceptr m = upload(data, n);
    d.base = m;
    if (datap) *datap = m;
    return upload(&d, sizeof d);
}

/* kernel(handle, in, out) over n threads, 4 words in and out per thread */
static CUresult run(const char *kernel, CUdeviceptr h, const void *in, unsigned n, void *out) {
    CUfunction f;
    MUST(cuModuleGetFunction(&f, mod, kernel));
    CUdeviceptr din = upload(in, 16u * n), dout;
    MUST(cuMemAlloc(&dout, 16u * n + 64));
    MUST(cuMemsetD8(dout, 0xee, 16u * n + 64));
    void *params[] = {&h, &din, &dout};
    CUresult r = cuLaunchKernel(f, 1, 1, 1, n, 1, 1, 0, NULL, params, NULL);
    if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
    if (r == CUDA_SUCCESS && out) MUST(cuMemcpyDtoH(out, dout, 16u * n));
    cuMemFree(din);
    cuMemFree(dout);
    return r;
}

static uint32_t fbits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float bitsf(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
#define EQF(got, want)                                                                                             \
    do {                                                                                                           \
        float g_ = (got), w_ = (want);                                                                             \
        if (fbits(g_) != fbits(w_)) {                                                                              \
            fprintf(stderr, "%s:%d: %s = %a (%g), expected %a (%g)\n", __FILE__, __LINE__, #got, g_, g_, w_, w_);  \
            check_failures++;                                                                                      \
        }                                                                                                          \
    } while (0)

/* ------------------------------------------------------------------ hand-computed anchors */

static void anchors_1d(void) {
    static const uint8_t t8[4] = {0, 51, 102, 255};
    p2n_tex_desc d = desc(P2N_TEX_KIND_ARRAY, 0x01, 1, 1, 4, 0, 0);
    CUdeviceptr h = object(d, t8, sizeof t8, NULL);
    float in[4][4] = {{1.5f}, {-3.0f}, {10.0f}, {3.99f}}, out[4][4];
    OK(run("tex1d", h, in, 4, out));
    EQF(out[0][0], 51 / 255.0f);
    EQF(out[0][1], 0.0f);
    EQF(out[0][2], 0.0f);
    EQF(out[0][3], 0.0f); /* missing channels: 0, alpha too (H200) */
    EQF(out[1][0], 0.0f); /* clamp */
    EQF(out[2][0], 1.0f);
    EQF(out[3][0], 1.0f);
    /* linear: x = 2.0 -> x - 0.5 = 1.5: T[1] and T[2] with weight 0.5 */
    d.filter = 1;
    h = object(d, t8, sizeof t8, NULL);
    float lin[2][4] = {{2.0f}, {0.25f}}, lo[2][4];
    OK(run("tex1d", h, lin, 2, lo));
    EQF(lo[0][0], 19661 / 65535.0f); /* H200: a 16-bit unorm, round(257 * (51 + 102) / 2) = 19661 */
    EQF(lo[1][0], 0.0f); /* -0.25 -> T[-1] = T[0] (clamp) and T[0] */
    /* border: texels outside read the border colour stored in the texel format (u8: clamped to [0,1]) */
    d.filter = 0;
    d.address[0] = 3;
    d.border[0] = 9, d.border[1] = 8, d.border[2] = 7, d.border[3] = 6;
    h = object(d, t8, sizeof t8, NULL);
    float bi[2][4] = {{-0.5f}, {4.0f}}, bo[2][4];
    OK(run("tex1d", h, bi, 2, bo));
    for (int i = 0; i < 2; i++) {
        EQF(bo[i][0], 1.0f);
        EQF(bo[i][1], 0.0f); /* a 1-channel texture */
        EQF(bo[i][3], 0.0f);
    }
    /* signed 8-bit: -128 -> -1 (clamped), 127 -> 1 */
    static const int8_t s8[4] = {-128, -127, 127, 0};
    p2n_tex_desc ds = desc(P2N_TEX_KIND_ARRAY, 0x08, 1, 1, 4, 0, 0);
    h = object(ds, s8, sizeof s8, NULL);
    float si[3][4] = {{0.5f}, {1.5f}, {2.5f}}, so[3][4];
    OK(run("tex1d", h, si, 3, so));
    EQF(so[0][0], -1.0f);
    EQF(so[1][0], -1.0f);
    EQF(so[2][0], 1.0f);
    /* read as integer: sign-extended, alpha 1 */
    ds.flags = P2N_TEX_READ_AS_INTEGER;
    h = object(ds, s8, sizeof s8, NULL);
    float ii[1][4] = {{0.5f}};
    int32_t io[1][4];
    OK(run("tex1d", h, ii, 1, io));
    TRUE(io[0][0] == -128 && io[0][1] == 0 && io[0][2] == 0 && io[0][3] == 0);
    int32_t ic[1][4] = {{0}}; /* integer coordinates on a 1D array (not linear memory): 0 (H200) */
    OK(run("tex1diu", h, ic, 1, io));
    TRUE(io[0][0] == 0 && io[0][3] == 0);
}

static void anchors_linear_memory(void) {
    static const float v[4] = {1, 2, 3, 4};
    p2n_tex_desc d = desc(P2N_TEX_KIND_LINEAR, 0x20, 1, 4, 4, 0, 0);
    d.filter = 1; /* ignored: tex1Dfetch does not filter */
    CUdeviceptr h = object(d, v, sizeof v, NULL);
    int32_t in[3][4] = {{2}, {4}, {-1}};
    float out[3][4];
    OK(run("tex1di", h, in, 3, out));
    EQF(out[0][0], 3.0f);
    EQF(out[0][3], 0.0f);
    for (int c = 0; c < 4; c++) {
        EQF(out[1][c], 0.0f); /* outside linear memory: 0 */
        EQF(out[2][c], 0.0f);
    }
}

static void anchors_2d(void) {
    static const float t[2][2] = {{1, 2}, {3, 4}}; /* T[y][x] */
    p2n_tex_desc d = desc(P2N_TEX_KIND_ARRAY, 0x20, 1, 4, 2, 2, 0);
    CUdeviceptr h = object(d, t, sizeof t, NULL);
    float in[2][4] = {{1.0f, 1.0f}, {0.2f, 1.7f}}, out[2][4];
    OK(run("tld4r", h, in, 1, out));
    /* counter-clockwise from the lower left: (i0,j1) (i1,j1) (i1,j0) (i0,j0) */
    EQF(out[0][0], 3.0f);
    EQF(out[0][1], 4.0f);
    EQF(out[0][2], 2.0f);
    EQF(out[0][3], 1.0f);
    OK(run("tld4a", h, in, 1, out)); /* alpha of a 1-channel texture: 0 */
    for (int c = 0; c < 4; c++) EQF(out[0][c], 0.0f);
    OK(run("tex2dp", h, in, 2, out)); /* {..}|p: p = true */
    EQF(out[1][0], 3.0f);
    EQF(out[1][3], 0.0f); /* selp gave -1 had p been false */
    OK(run("texlevel", h, in, 2, out));
    EQF(out[1][0], 3.0f);
    OK(run("texgrad", h, in, 2, out));
    EQF(out[1][0], 3.0f);
    int32_t ic[3][4] = {{1, 1}, {0, 1}, {-1, 5}}; /* integer coordinates: texel indices, outside 0 */
    float oc[3][4];
    OK(run("tex2di", h, ic, 3, oc));
    EQF(oc[0][0], 4.0f);
    EQF(oc[1][0], 3.0f);
    EQF(oc[2][0], 0.0f);
    /* bilinear at the centre: weights 0.5, 0.5 */
    d.filter = 1;
    h = object(d, t, sizeof t, NULL);
    OK(run("tex2d", h, in, 1, out));
    EQF(out[0][0], 2.5f);
    /* normalised coordinates with wrap: x = 1.25 -> 0.25 * 2 = 0.5 -> x - 0.5 = 0: T[0] exactly */
    d.flags = P2N_TEX_NORMALIZED_COORDS;
    d.address[0] = d.address[1] = 0;
    h = object(d, t, sizeof t, NULL);
    float wn[2][4] = {{1.25f, -0.75f}, {0.0f, 0.25f}};
    OK(run("tex2d", h, wn, 2, out));
    EQF(out[0][0], 1.0f);
    EQF(out[1][0], 0.5f * 2 + 0.5f * 1); /* x = 0 -> -0.5: T[-1] = T[1] (wrap) and T[0] */
}

static void anchors_3d_layered_cube(void) {
    float t3[2][2][2]; /* [z][y][x] */
    for (int i = 0; i < 8; i++) ((float *)t3)[i] = (float)i;
    p2n_tex_desc d = desc(P2N_TEX_KIND_ARRAY, 0x20, 1, 4, 2, 2, 2);
    CUdeviceptr h = object(d, t3, sizeof t3, NULL);
    float in[2][4] = {{1.5f, 0.5f, 1.5f}, {0.5f, 1.5f, 0.5f}}, out[3][4];
    OK(run("tex3d", h, in, 2, out));
    EQF(out[0][0], 5.0f);
    EQF(out[1][0], 2.0f);
    d.filter = 1;
    h = object(d, t3, sizeof t3, NULL);
    float ic[1][4] = {{1.0f, 1.0f, 1.0f}};
    OK(run("tex3d", h, ic, 1, out));
    EQF(out[0][0], 3.5f); /* trilinear at the centre */

    /* layered 2D: 3 layers of 2x1 */
    float tl[3][2] = {{10, 11}, {20, 21}, {30, 31}};
    p2n_tex_desc dl = desc(P2N_TEX_KIND_ARRAY, 0x20, 1, 4, 2, 1, 0);
    dl.flags = P2N_TEX_LAYERED;
    dl.layers = 3;
    h = object(dl, tl, sizeof tl, NULL);
    uint32_t il[3][4] = {{1, fbits(1.5f), fbits(0.5f)}, {2, fbits(0.5f), fbits(0.5f)}, {7, fbits(0.5f), fbits(0.5f)}};
    OK(run("texa2d", h, il, 3, out));
    EQF(out[0][0], 21.0f);
    EQF(out[1][0], 30.0f);
    EQF(out[2][0], 30.0f); /* layer beyond the last: clamped */
    dl.height = 0;
    dl.dims = 1;
    h = object(dl, tl, sizeof tl, NULL);
    uint32_t i1[1][4] = {{1, fbits(1.5f)}};
    OK(run("texa1d", h, i1, 1, out));
    EQF(out[0][0], 21.0f);

    /* cubemap: 6 faces of 2x2, texel value = face * 10 + y * 2 + x */
    float tc[6][2][2];
    for (int f = 0; f < 6; f++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 2; x++) tc[f][y][x] = (float)(f * 10 + y * 2 + x);
    p2n_tex_desc dc = desc(P2N_TEX_KIND_ARRAY, 0x20, 1, 4, 2, 2, 0);
    dc.flags = P2N_TEX_CUBEMAP;
    dc.layers = 6;
    h = object(dc, tc, sizeof tc, NULL);
    /* +x: s = (-z/|x| + 1)/2, t = (-y/|x| + 1)/2; -y: s = (x/|y| + 1)/2, t = (-z/|y| + 1)/2; -z: s = -x, t = -y */
    float cin[4][4] = {{1, -0.5f, -0.5f}, {0.5f, -1, 0.5f}, {-0.5f, -0.5f, -1}, {-1, 0.2f, 0.7f}}, cout[4][4];
    OK(run("texcube", h, cin, 4, cout));
    EQF(cout[0][0], 0 * 10 + 1 * 2 + 1);  /* s = 0.75, t = 0.75 */
    EQF(cout[1][0], 3 * 10 + 0 * 2 + 1);  /* s = 0.75, t = 0.25 */
    EQF(cout[2][0], 5 * 10 + 1 * 2 + 1);  /* s = 0.75, t = 0.75 */
    EQF(cout[3][0], 1 * 10 + 0 * 2 + 1);  /* -x: s = z = 0.85, t = -y = 0.4 */
}

static void anchors_queries(void) {
    static const uint16_t px[12] = {0};
    p2n_tex_desc d = desc(P2N_TEX_KIND_ARRAY, 0x02, 2, 2, 3, 2, 0);
    d.flags = P2N_TEX_NORMALIZED_COORDS;
    d.filter = 1;
    d.address[0] = 0, d.address[1] = 2, d.address[2] = 3;
    CUdeviceptr h = object(d, px, sizeof px, NULL);
    uint32_t in[4][4] = {{0}}, out[4][4]; /* run() reads 4 words per thread */
    OK(run("txq", h, in, 4, out));
    uint32_t *q = &out[0][0];
    TRUE(q[0] == 3 && q[1] == 2 && q[2] == 0);
    TRUE(q[3] == 1); /* width of level 1: 3 >> 1 */
    OK(run("istypep", h, in, 1, out)); /* false for objects (H200) */
    TRUE(q[0] == 0 && q[1] == 0 && q[2] == 0);
    p2n_tex_desc s = desc(P2N_TEX_KIND_ARRAY, 0x03, 1, 4, 3, 2, 0);
    s.flags = P2N_TEX_IS_SURFACE;
    CUdeviceptr hs = object(s, px, sizeof px, NULL);
    OK(run("istypep", hs, in, 1, out));
    TRUE(q[0] == 0 && q[1] == 0 && q[2] == 0);
    OK(run("suq", hs, in, 2, out));
    TRUE(q[0] == 3 && q[1] == 2 && q[2] == 0);
    p2n_tex_desc s1 = desc(P2N_TEX_KIND_ARRAY, 0x03, 1, 4, 5, 0, 0); /* 1D: suq height 0, txq height 1 */
    s1.flags = P2N_TEX_IS_SURFACE;
    OK(run("suq", object(s1, px, sizeof px, NULL), in, 1, out));
    TRUE(q[0] == 5 && q[1] == 0 && q[2] == 0);
    s1.flags = 0;
    OK(run("txq", object(s1, px, sizeof px, NULL), in, 1, out));
    TRUE(q[0] == 5 && q[1] == 1 && q[2] == 0);
    OK(run("istypep", 0, in, 1, out)); /* null handle: no object, no load */
    TRUE(q[0] == 0 && q[1] == 0 && q[2] == 0);
    p2n_tex_desc bad = d;
    bad.magic = 0x12345678;
    OK(run("istypep", object(bad, px, sizeof px, NULL), in, 1, out));
    TRUE(q[0] == 0 && q[1] == 0 && q[2] == 0);
}

/* ------------------------------------------------------------------ surfaces */

static void surfaces(void) {
    uint32_t img[3][4]; /* 4 x 3 of u32, T[y][x] = 100 y + x */
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++) img[y][x] = (uint32_t)(100 * y + x);
    p2n_tex_desc d = desc(P2N_TEX_KIND_ARRAY, 0x03, 1, 4, 4, 3, 0);
    d.flags = P2N_TEX_IS_SURFACE;
    CUdeviceptr mem, h = object(d, img, sizeof img, &mem);
    int32_t in[3][4] = {{4, 1}, {100, 2}, {-4, -1}};
    uint32_t out[3][4];
    OK(run("suld_trap", h, in, 1, out));
    TRUE(out[0][0] == 101);
    OK(run("suld_clamp", h, in, 3, out));
    TRUE(out[0][0] == 101 && out[1][0] == 203 && out[2][0] == 0);
    OK(run("suld_zero", h, in, 3, out));
    TRUE(out[0][0] == 101 && out[1][0] == 0 && out[2][0] == 0 && out[2][1] == 7);
    int32_t st[3][4] = {{8, 2, 555}, {100, 0, 666}, {-4, 1, 777}};
    OK(run("sust_zero", h, st, 3, NULL));
    uint32_t back[3][4];
    MUST(cuMemcpyDtoH(back, mem, sizeof back));
    TRUE(back[2][2] == 555 && back[0][3] == 3 && back[1][0] == 100);
    OK(run("sust_clamp", h, st, 3, NULL));
    MUST(cuMemcpyDtoH(back, mem, sizeof back));
    TRUE(back[2][2] == 555 && back[0][3] == 666 && back[1][0] == 777);
    OK(run("sust_trap", h, st, 1, NULL));
    /* sured: 8 threads add to one texel; min over signed values */
    int32_t ad[8][4];
    for (int i = 0; i < 8; i++) ad[i][0] = 4, ad[i][1] = 1, ad[i][2] = i + 1, ad[i][3] = 0;
    OK(run("sured_add", h, ad, 8, NULL));
    MUST(cuMemcpyDtoH(back, mem, sizeof back));
    TRUE(back[1][1] == 101 + 36);
    for (int i = 0; i < 8; i++) ad[i][2] = -i;
    ad[7][0] = 400; /* out of range with .zero: dropped */
    ad[7][2] = -1000;
    OK(run("sured_min", h, ad, 8, NULL));
    MUST(cuMemcpyDtoH(back, mem, sizeof back));
    TRUE((int32_t)back[1][1] == -6);

    /* 8-bit RGBA: suld.v4.b8 */
    uint8_t rgba[2][2][4];
    for (int i = 0; i < 16; i++) ((uint8_t *)rgba)[i] = (uint8_t)(i * 16 + 1);
    p2n_tex_desc d8 = desc(P2N_TEX_KIND_ARRAY, 0x01, 4, 1, 2, 2, 0);
    d8.flags = P2N_TEX_IS_SURFACE;
    h = object(d8, rgba, sizeof rgba, NULL);
    int32_t i8[1][4] = {{4, 1}};
    OK(run("suld_v4b8", h, i8, 1, out));
    TRUE(out[0][0] == rgba[1][1][0] && out[0][1] == rgba[1][1][1] && out[0][2] == rgba[1][1][2] && out[0][3] == rgba[1][1][3]);

    /* 1D of 16-bit pairs: sust.v2.b16 at byte 4 */
    uint16_t p16[4] = {0};
    p2n_tex_desc d16 = desc(P2N_TEX_KIND_ARRAY, 0x02, 2, 2, 2, 0, 0);
    d16.flags = P2N_TEX_IS_SURFACE;
    h = object(d16, p16, sizeof p16, &mem);
    int32_t i16[1][4] = {{4, 0, 0x1234, 0xabcd}};
    OK(run("sust_v2b16", h, i16, 1, NULL));
    MUST(cuMemcpyDtoH(p16, mem, sizeof p16));
    TRUE(p16[0] == 0 && p16[1] == 0 && p16[2] == 0x1234 && p16[3] == 0xabcd);

    /* layered 2D of 64-bit pairs: sust.a2d, suld.a2d.v2.b64.clamp */
    uint64_t l64[2][2][2]; /* [layer][y][x] of 8-byte texels, 2x2 per layer... read as 16 bytes at x = 0 */
    for (int i = 0; i < 8; i++) ((uint64_t *)l64)[i] = 0x1111111111111111ull * (uint64_t)(i + 1);
    p2n_tex_desc dl = desc(P2N_TEX_KIND_ARRAY, 0x03, 2, 4, 2, 2, 0);
    dl.flags = P2N_TEX_IS_SURFACE | P2N_TEX_LAYERED;
    dl.layers = 2;
    h = object(dl, l64, sizeof l64, &mem);
    int32_t il[2][4] = {{0, 1, 0, 1}, {96, 5, 0, 9}}; /* x bytes (a multiple of 16: else misaligned), y, -, layer */
    uint32_t o64[2][4];
    OK(run("suld_v2b64", h, il, 2, o64));
    TRUE(o64[0][0] == (uint32_t)l64[1][1][0] && o64[0][3] == (uint32_t)(l64[1][1][1] >> 32));
    TRUE(o64[1][0] == (uint32_t)l64[1][1][0] && o64[1][2] == (uint32_t)l64[1][1][1]); /* clamped to the last */
    int32_t sa[1][4] = {{8, 1, 0xfeed, 1}};
    OK(run("sust_a2d", h, sa, 1, NULL));
    MUST(cuMemcpyDtoH(l64, mem, sizeof l64));
    TRUE((uint32_t)l64[1][1][1] == 0xfeed);

    /* sust.p: formatted store to half RGBA (x in elements) */
    uint16_t hp[2][4] = {{0}};
    p2n_tex_desc dh = desc(P2N_TEX_KIND_ARRAY, 0x10, 4, 2, 2, 1, 0);
    dh.flags = P2N_TEX_IS_SURFACE;
    h = object(dh, hp, sizeof hp, &mem);
    uint32_t ip[1][4] = {{1, 0, fbits(1.5f), fbits(-2.0f)}};
    OK(run("sustp", h, ip, 1, NULL));
    MUST(cuMemcpyDtoH(hp, mem, sizeof hp));
    TRUE(hp[0][0] == 0 && hp[1][0] == 0x3e00 && hp[1][1] == 0xc000 && hp[1][2] == 0x3e00 && hp[1][3] == 0xc000);
}

/* ------------------------------------------------------------------ sweep against a C model */

typedef struct model {
    p2n_tex_desc d;
    const uint8_t *data;
} model;

static float half_f(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? ldexpf((float)m, -24) : ldexpf((float)(m | 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

static void m_texel(const model *t, int x, int y, uint32_t o[4]) {
    const p2n_tex_desc *d = &t->d;
    unsigned bpc = d->elem_bytes / d->channels;
    bool norm = (d->format == 1 || d->format == 2 || d->format == 8 || d->format == 9) && !(d->flags & P2N_TEX_READ_AS_INTEGER);
    for (unsigned c = 0; c < 4; c++) {
        if (c >= d->channels) {
            o[c] = 0u;
            continue;
        }
        const uint8_t *p = t->data + (size_t)y * d->pitch + (size_t)x * d->elem_bytes + c * bpc;
        uint32_t raw = 0;
        memcpy(&raw, p, bpc);
        int32_t v = (int32_t)raw;
        if (d->format == 0x08) v = (int8_t)raw;
        if (d->format == 0x09) v = (int16_t)raw;
        if (d->format == 0x20) o[c] = raw;
        else if (d->format == 0x10) o[c] = fbits(half_f((uint16_t)raw));
        else if (norm) {
            float den = d->format == 1 ? 255.0f : d->format == 2 ? 65535.0f : d->format == 8 ? 127.0f : 32767.0f;
            float f = (float)v / den;
            o[c] = fbits(f < -1.0f ? -1.0f : f);
        } else o[c] = (uint32_t)v;
    }
}

static int m_addr(int i, int n, unsigned mode) {
    switch (mode) {
    case 0: return ((i % n) + n) % n;
    case 2: {
        int m = ((i % (2 * n)) + 2 * n) % (2 * n);
        return m >= n ? 2 * n - 1 - m : m;
    }
    case 3: return i < 0 || i >= n ? -1 : i;
    default: return i < 0 ? 0 : i >= n ? n - 1 : i;
    }
}

/* the border colour in the texel format (values here are exact in f16): unorm/snorm rounded with ties toward
 * zero, integer read modes the low bits of the float's pattern */
static void m_border(const model *t, uint32_t o[4]) {
    const p2n_tex_desc *d = &t->d;
    unsigned bpc = d->elem_bytes / d->channels;
    bool norm = (d->format == 1 || d->format == 2 || d->format == 8 || d->format == 9) && !(d->flags & P2N_TEX_READ_AS_INTEGER);
    for (unsigned c = 0; c < 4; c++) {
        float v = d->border[c];
        if (c >= d->channels) o[c] = 0;
        else if (d->format >= 0x10) o[c] = fbits(v);
        else if (norm) {
            float den = d->format == 1 ? 255.0f : d->format == 2 ? 65535.0f : d->format == 8 ? 127.0f : 32767.0f;
            o[c] = fbits(ceilf(v * den - 0.5f) / den);
        } else {
            uint32_t raw = fbits(v) & (bpc == 1 ? 0xffu : bpc == 2 ? 0xffffu : 0xffffffffu);
            o[c] = d->format == 0x08 ? (uint32_t)(int8_t)raw : d->format == 0x09 ? (uint32_t)(int16_t)raw : raw;
        }
    }
}

static void m_fetch(const model *t, int x, int y, uint32_t o[4]) {
    if (x < 0 || y < 0) {
        m_border(t, o);
        return;
    }
    m_texel(t, x, y, o);
}

/* the stored value of a channel for the linear filter: 8/16-bit normalised data as integers, f16/f32 as float
 * bits (the border colour too) */
static void m_raw(const model *t, int x, int y, uint32_t o[4]) {
    const p2n_tex_desc *d = &t->d;
    m_fetch(t, x, y, o);
    if (d->format >= 0x10 || (d->flags & P2N_TEX_READ_AS_INTEGER)) return;
    float den = d->format == 1 ? 255.0f : d->format == 2 ? 65535.0f : d->format == 8 ? 127.0f : 32767.0f;
    for (unsigned c = 0; c < d->channels; c++) {
        float v = x < 0 || y < 0 ? d->border[c] : 0;
        if (x >= 0 && y >= 0) { /* the stored integer again */
            const uint8_t *p = t->data + (size_t)y * d->pitch + (size_t)x * d->elem_bytes + c * (d->elem_bytes / d->channels);
            uint32_t raw = 0;
            memcpy(&raw, p, d->elem_bytes / d->channels);
            o[c] = d->format == 8 ? (uint32_t)(int8_t)raw : d->format == 9 ? (uint32_t)(int16_t)raw : raw;
        } else o[c] = (uint32_t)(int32_t)ceilf(v * den - 0.5f);
    }
}

/* the H200's linear filter (targets/llvm/emit_texture_filter.c, fitted by tests/conformance/gen/fit_tex.py), written
 * independently in doubles: corner weights w (sum 256), corners taking part (part), one channel's stored values */
static uint32_t m_filter(const model *t, const uint32_t v[4], const int w[4], const bool part[4]) {
    const p2n_tex_desc *d = &t->d;
    if (d->format < 0x10) {
        double q = d->format == 1 || d->format == 2 ? 65535.0 : 32767.0;
        double den = d->format == 1 ? 255.0 : d->format == 2 ? 65535.0 : d->format == 8 ? 127.0 : 32767.0;
        double s = 0;
        for (int m = 0; m < 4; m++) s += (double)(int32_t)v[m] * w[m];
        float f = (float)(floor(s * q / (256.0 * den) + 0.5) / q);
        if (d->format == 8) { /* s8: P (1 + 2^-7 + 2^-15), the correction floored to 1/8, half up (recorded) */
            double k = s + floor((floor(s / 16) + floor(s / 4096) + 4) / 8);
            f = (float)(k < -32767 ? -32767 : k) / 32767.0f;
        }
        return fbits(f < -1.0f ? -1.0f : f);
    }
    int mant = d->format == 0x10 ? 11 : 24, emin = d->format == 0x10 ? -14 : -126;
    bool nan = false, pinf = false, ninf = false, allneg = true;
    double mx = 0;
    for (int m = 0; m < 4; m++) {
        if (!part[m]) continue;
        float f = bitsf(v[m]);
        if (d->format == 0x20 && fabsf(f) < 0x1p-126f) f = copysignf(0.0f, f); /* f32 subnormals: signed zeros */
        nan |= isnan(f), pinf |= isinf(f) && f > 0, ninf |= isinf(f) && f < 0, allneg &= signbit(f) != 0;
        if (fabs(f) > mx) mx = fabs(f);
    }
    if (nan || (pinf && ninf)) return d->format == 0x10 ? 0x7fffe000u : 0x7fffffffu;
    if (pinf || ninf) return pinf ? 0x7f800000u : 0xff800000u;
    int e = 0;
    frexp(mx, &e); /* mx = m * 2^e, m in [0.5, 1) */
    double lsb = ldexp(1.0, (e - 1 < emin ? emin : e - 1) - mant - 3); /* 4 bits below the largest's ulp */
    double s = 0;
    for (int m = 0; m < 4; m++)
        if (part[m] && !(d->format == 0x20 && fabsf(bitsf(v[m])) < 0x1p-126f)) s += trunc(bitsf(v[m]) / lsb) * w[m];
    if (s == 0) return allneg ? 0x80000000u : 0;
    double val = s * lsb / 256;
    frexp(val, &e);
    double ulp = ldexp(1.0, (e - 1 < emin ? emin : e - 1) - mant + 1);
    return fbits((float)(round(val / ulp) * ulp)); /* round(): ties away from zero */
}

static void m_sample2(const model *t, float x, float y, uint32_t o[4]) {
    const p2n_tex_desc *d = &t->d;
    bool nc = d->flags & P2N_TEX_NORMALIZED_COORDS;
    int n[2] = {(int)d->width, (int)d->height};
    float c[2] = {nc ? x * (float)n[0] : x, nc ? y * (float)n[1] : y};
    unsigned mode[2];
    for (int k = 0; k < 2; k++) mode[k] = !nc && (d->address[k] == 0 || d->address[k] == 2) ? 1 : d->address[k];
    if (d->filter != 1) {
        m_fetch(t, m_addr((int)floorf(c[0]), n[0], mode[0]), m_addr((int)floorf(c[1]), n[1], mode[1]), o);
        return;
    }
    int j0[2], j1[2], a[2];
    for (int k = 0; k < 2; k++) {
        float b = c[k] - 0.5f, f = floorf(b);
        j0[k] = m_addr((int)f, n[k], mode[k]);
        j1[k] = m_addr((int)f + 1, n[k], mode[k]);
        a[k] = j0[k] == j1[k] ? 0 : (int)floor((double)(b - f) * 256 + 0.5); /* 8 bits, half up; 0: one texel */
    }
    int w11 = (a[0] * a[1] + 128) >> 8, w00 = ((256 - a[0]) * (256 - a[1]) + 128) >> 8;
    int w[4] = {w00, a[0] - w11, 256 - a[0] - w00, w11}; /* corners 00 10 01 11 */
    bool part[4];
    for (int m = 0; m < 4; m++) part[m] = (m & 1 ? a[0] : 256 - a[0]) && (m & 2 ? a[1] : 256 - a[1]);
    uint32_t tc[4][4];
    for (int m = 0; m < 4; m++) m_raw(t, m & 1 ? j1[0] : j0[0], m & 2 ? j1[1] : j0[1], tc[m]);
    for (int ch = 0; ch < 4; ch++) {
        if ((unsigned)ch >= d->channels) {
            o[ch] = 0;
            continue;
        }
        uint32_t v[4] = {tc[0][ch], tc[1][ch], tc[2][ch], tc[3][ch]};
        if (d->flags & P2N_TEX_READ_AS_INTEGER) { /* integers read as integers: floor(sum / 256) */
            double s = 0;
            for (int m = 0; m < 4; m++) s += (double)(int32_t)v[m] * w[m];
            o[ch] = (uint32_t)(int32_t)floor(s / 256);
        } else o[ch] = m_filter(t, v, w, part);
    }
}

static uint32_t rng = 12345;
static uint32_t next(void) {
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}

static void sweep(void) {
    static const struct { uint32_t fmt, bpc; } fmts[] = {{0x01, 1}, {0x08, 1}, {0x02, 2}, {0x10, 2}, {0x20, 4}};
    static const uint32_t chans[] = {1, 2, 4};
    enum { W = 5, H = 3, N = 48 };
    int configs = 0, mism = 0;
    for (unsigned fi = 0; fi < 5; fi++)
        for (unsigned ci = 0; ci < 3; ci++) {
            uint32_t ch = chans[ci], bpc = fmts[fi].bpc;
            uint8_t data[W * H * 16];
            for (unsigned i = 0; i < W * H * ch; i++) {
                uint32_t r = next();
                if (fmts[fi].fmt == 0x10) r = (r & 0x8000) | ((1 + r % 29) << 10) | ((r >> 5) & 1023);
                if (fmts[fi].fmt == 0x20) r = fbits((float)((int)(r % 20001) - 10000) / 64.0f);
                memcpy(data + i * bpc, &r, bpc);
            }
            for (unsigned filt = 0; filt < 2; filt++)
                for (unsigned am = 0; am < 4; am++)
                    for (unsigned nc = 0; nc < 2; nc++)
                        for (unsigned asint = 0; asint < (fmts[fi].fmt < 0x10 && !filt ? 2u : 1u); asint++) {
                            model m = {desc(P2N_TEX_KIND_ARRAY, fmts[fi].fmt, ch, bpc, W, H, 0), data};
                            m.d.filter = filt;
                            m.d.address[0] = m.d.address[1] = am;
                            m.d.flags = (nc ? P2N_TEX_NORMALIZED_COORDS : 0) | (asint ? P2N_TEX_READ_AS_INTEGER : 0);
                            for (int c = 0; c < 4; c++) m.d.border[c] = 0.25f * (float)(c + 1);
                            CUdeviceptr h = object(m.d, data, W * H * ch * bpc, NULL);
                            float in[N][4];
                            for (int i = 0; i < N; i++) {
                                float span = nc ? 1.0f : (float)W, spanh = nc ? 1.0f : (float)H;
                                in[i][0] = span * (-1.3f + 3.6f * (float)(next() % 4096) / 4096.0f);
                                in[i][1] = spanh * (-1.3f + 3.6f * (float)(next() % 4096) / 4096.0f);
                            }
                            uint32_t out[N][4];
                            configs++;
                            if (run(asint ? "tex2ds" : "tex2d", h, in, N, out) != CUDA_SUCCESS) {
                                check_failures++;
                                continue;
                            }
                            for (int i = 0; i < N; i++) {
                                uint32_t want[4];
                                m_sample2(&m, in[i][0], in[i][1], want);
                                if (memcmp(want, out[i], sizeof want)) {
                                    if (mism++ < 8)
                                        fprintf(stderr, "sweep fmt %#x ch %u filter %u addr %u norm %u int %u (%g, %g): "
                                                "got %08x %08x %08x %08x, model %08x %08x %08x %08x\n", fmts[fi].fmt, ch,
                                                filt, am, nc, asint, in[i][0], in[i][1], out[i][0], out[i][1], out[i][2],
                                                out[i][3], want[0], want[1], want[2], want[3]);
                                    check_failures++;
                                }
                            }
                        }
        }
    printf("sweep: %d configurations x %d samples, %d mismatches\n", configs, N, mism);
}

/* ------------------------------------------------------------------ launches that must fail */

static int trap_case(const char *which) {
    static const float t[4] = {1, 2, 3, 4};
    p2n_tex_desc d = desc(P2N_TEX_KIND_ARRAY, 0x20, 1, 4, 4, 0, 0);
    const char *k = "tex1d";
    /* a bad descriptor traps (CUDA_ERROR_LAUNCH_FAILED); surface accesses fail as on NVIDIA (family tex):
     * out of range with .trap CUDA_ERROR_ILLEGAL_ADDRESS, a byte x that is not a multiple of the access size
     * CUDA_ERROR_MISALIGNED_ADDRESS even with .clamp (in range or not) */
    CUresult want = CUDA_ERROR_LAUNCH_FAILED;
    int32_t sx = 16;
    if (!strcmp(which, "trap-magic")) d.magic ^= 1;
    else if (!strcmp(which, "trap-levels")) d.levels = 2;
    else if (!strcmp(which, "trap-surface")) { /* suld.trap outside the surface */
        d.flags = P2N_TEX_IS_SURFACE;
        k = "suld_trap";
        want = CUDA_ERROR_ILLEGAL_ADDRESS;
    } else if (!strcmp(which, "misaligned-clamp")) { /* suld.b32.clamp at byte 6 (in range) */
        d.flags = P2N_TEX_IS_SURFACE;
        k = "suld_clamp";
        sx = 6;
        want = CUDA_ERROR_MISALIGNED_ADDRESS;
    } else {
        fprintf(stderr, "unknown case %s\n", which);
        return 1;
    }
    float in[1][4] = {{16.0f, 0.0f}};
    if (d.flags & P2N_TEX_IS_SURFACE) memcpy(in[0], (int32_t[2]){sx, 0}, 8);
    CUresult r = run(k, object(d, t, sizeof t, NULL), in, 1, NULL);
    printf("%s: launch returned %s\n", which, check_name(r));
    TRUE(r == want);
    return check_done("test_texture");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s texture.ptx [trap-magic|trap-levels|trap-surface|misaligned-clamp]\n", argv[0]);
        return 2;
    }
    mod = must_load_ptx(argv[1]);
    if (argc > 2) return trap_case(argv[2]);
    anchors_1d();
    anchors_linear_memory();
    anchors_2d();
    anchors_3d_layered_cube();
    anchors_queries();
    surfaces();
    sweep();
    return check_done("test_texture");
}
