/* array.h — CUDA arrays of the driver stub (array.c), shared with the 2D/3D copies (memcpy3d.c) and the
 * texture/surface objects (texobj.c).
 *
 * An array is one block of backend device memory holding its texels in a linear layout we choose: rows tightly
 * packed (pitch = width * element bytes), slices (3D depth, layers, cubemap faces) one after another. The
 * texture descriptor (abi/texture_desc.h) carries base/pitch/slice_pitch, so kernels need nothing else, and
 * cuMemcpyHtoA-style byte offsets are plain offsets into that block.
 */
#ifndef P2N_DRIVER_ARRAY_H
#define P2N_DRIVER_ARRAY_H

#include "internal.h"

#define P2N_MAGIC_ARRAY 0x41525221u /* "ARR!" */

typedef struct p2n_array {
    uint32_t magic;
    p2n_ctx *ctx;
    CUDA_ARRAY3D_DESCRIPTOR desc; /* as created */
    uint64_t base;                /* backend device memory */
    size_t elem;                  /* bytes per element (channels * bytes per channel) */
    size_t pitch;                 /* bytes per row */
    size_t rows;                  /* rows per slice: max(Height, 1) */
    size_t slices;                /* max(Depth, 1): 3D depth, layers, cubemap faces */
    size_t slice_pitch, bytes;
    struct p2n_array *next;       /* all live arrays (released with their context) */
} p2n_array;

/* The live array behind a handle, or NULL. */
P2N_DRV_HIDDEN p2n_array *p2n_drv_array_get(CUarray h);
/* Bytes per channel of one of the formats texture_desc.h knows, 0 for any other format. */
P2N_DRV_HIDDEN unsigned p2n_drv_format_bytes(unsigned format);
/* Frees the texture/surface objects and arrays of a context (context destroy / primary reset). */

#endif
