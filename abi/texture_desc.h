/* texture_desc.h — the run-time form of a CUDA texture or surface object, shared by the compiler (the shared
 * emission samples textures in software, the same code on every target) and the driver stub (which builds one
 * descriptor per cuTexObjectCreate / cuSurfObjectCreate in device memory).
 *
 * A CUtexObject / CUsurfObject handle is the device address of a p2n_tex_desc (128 bytes, 16-byte aligned,
 * little-endian, never changed after creation). Kernels read it with ordinary global loads, so texturing works on
 * the CPU backend, OpenCL/PoCL, Level Zero and AMDGPU alike and is tested bit for bit against H200 recordings on
 * the CPU. Why software and not OpenCL images / AMD image descriptors: NVIDIA's filtering rules (9-bit fixed-point
 * weights, its border, wrap and mirror rules, integer read modes) are reproduced exactly only by code we own, and
 * one implementation is tested once for all targets.
 *
 * Version: bump P2N_TEX_MAGIC when the layout changes (a kernel compiled for another layout must not misread).
 */
#ifndef P2N_TEXTURE_DESC_H
#define P2N_TEXTURE_DESC_H

#include <stdint.h>

#define P2N_TEX_MAGIC 0x3158544eu /* "NTX1": a handle whose descriptor lacks it is not a texture/surface object */

/* kind: where the texels are */
enum {
    P2N_TEX_KIND_ARRAY = 1,   /* CUDA array (cuArrayCreate / cuArray3DCreate), layout chosen by the driver stub */
    P2N_TEX_KIND_LINEAR = 2,  /* CU_RESOURCE_TYPE_LINEAR: 1D from linear memory (tex1Dfetch: integer coordinates) */
    P2N_TEX_KIND_PITCH2D = 3, /* CU_RESOURCE_TYPE_PITCH2D: 2D from pitched linear memory */
};

/* flags: CUDA's CU_TRSF_* texture flags as given at creation, plus our own bits above them */
enum {
    P2N_TEX_READ_AS_INTEGER = 0x01,      /* CU_TRSF_READ_AS_INTEGER: no promotion of integer data to [0,1]/[-1,1] */
    P2N_TEX_NORMALIZED_COORDS = 0x02,    /* CU_TRSF_NORMALIZED_COORDINATES */
    P2N_TEX_SRGB = 0x10,                 /* CU_TRSF_SRGB */
    P2N_TEX_DISABLE_TRILINEAR = 0x20,    /* CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION */
    P2N_TEX_SEAMLESS_CUBEMAP = 0x40,     /* CU_TRSF_SEAMLESS_CUBEMAP */
    P2N_TEX_IS_SURFACE = 0x10000,        /* a surface object (cuSurfObjectCreate): suld/sust/sured/suq only */
    P2N_TEX_LAYERED = 0x20000,           /* array made with CUDA_ARRAY3D_LAYERED: `layers` layers of dims-D images */
    P2N_TEX_CUBEMAP = 0x40000,           /* array made with CUDA_ARRAY3D_CUBEMAP: 6 faces (x6 with LAYERED) */
};

typedef struct p2n_tex_desc {
    uint32_t magic;          /*   0 P2N_TEX_MAGIC */
    uint32_t kind;           /*   4 P2N_TEX_KIND_* */
    uint64_t base;           /*   8 device address of element (0,0,0) of layer/face 0 */
    uint64_t pitch;          /*  16 bytes from one row to the next (1D: width * elem_bytes) */
    uint64_t slice_pitch;    /*  24 bytes from one 2D slice (3D: z; layered/cubemap: layer or face) to the next */
    uint32_t width;          /*  32 in elements (linear: elements, i.e. sizeInBytes / elem_bytes) */
    uint32_t height;         /*  36 in rows; 0 for 1D resources (as CUDA_ARRAY3D_DESCRIPTOR has it) */
    uint32_t depth;          /*  40 0 unless 3D */
    uint32_t layers;         /*  44 layered: number of layers; cubemap: 6 (x layers when layered); else 0 */
    uint32_t format;         /*  48 CUarray_format (CU_AD_FORMAT_UNSIGNED_INT8 = 0x01 ... FLOAT = 0x20) */
    uint32_t channels;       /*  52 1, 2 or 4 */
    uint32_t elem_bytes;     /*  56 channels * bytes per channel */
    uint32_t dims;           /*  60 1, 2 or 3: dimensionality of one image (cubemap faces: 2) */
    uint32_t flags;          /*  64 P2N_TEX_* */
    uint32_t filter;         /*  68 CUfilter_mode: 0 point, 1 linear (surfaces: 0) */
    uint32_t address[3];     /*  72 CUaddress_mode per coordinate: 0 wrap, 1 clamp, 2 mirror, 3 border */
    uint32_t levels;         /*  84 mipmap levels (1: not mipmapped) */
    float border[4];         /*  88 CUDA_TEXTURE_DESC.borderColor */
    float lod_bias;          /* 104 mipmapLevelBias */
    float min_lod;           /* 108 minMipmapLevelClamp */
    float max_lod;           /* 112 maxMipmapLevelClamp */
    uint32_t mip_filter;     /* 116 mipmapFilterMode */
    uint32_t max_aniso;      /* 120 maxAnisotropy */
    uint32_t reserved;       /* 124 zero */
} p2n_tex_desc;

_Static_assert(sizeof(p2n_tex_desc) == 128, "p2n_tex_desc is 128 bytes: the shared emission reads fixed offsets");

/* byte offsets the shared emission loads from (kept next to the struct so a change to one shows in the other) */
#define P2N_TEXD_MAGIC 0
#define P2N_TEXD_KIND 4
#define P2N_TEXD_BASE 8
#define P2N_TEXD_PITCH 16
#define P2N_TEXD_SLICE_PITCH 24
#define P2N_TEXD_WIDTH 32
#define P2N_TEXD_HEIGHT 36
#define P2N_TEXD_DEPTH 40
#define P2N_TEXD_LAYERS 44
#define P2N_TEXD_FORMAT 48
#define P2N_TEXD_CHANNELS 52
#define P2N_TEXD_ELEM_BYTES 56
#define P2N_TEXD_DIMS 60
#define P2N_TEXD_FLAGS 64
#define P2N_TEXD_FILTER 68
#define P2N_TEXD_ADDRESS 72
#define P2N_TEXD_LEVELS 84
#define P2N_TEXD_BORDER 88
#define P2N_TEXD_LOD_BIAS 104
#define P2N_TEXD_MIN_LOD 108
#define P2N_TEXD_MAX_LOD 112
#define P2N_TEXD_MIP_FILTER 116
#define P2N_TEXD_MAX_ANISO 120

#endif
