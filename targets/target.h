/* target.h — what differs between back ends, in one small struct (QBE-style). The shared LLVM emission
 * reads it; each target folder provides one or more of these. */
#ifndef P2N_TARGET_H
#define P2N_TARGET_H

#include <stdbool.h>

typedef enum target_family { TARGET_HOST, TARGET_AMDGPU, TARGET_SPIRV } target_family;

typedef struct target_desc {
    const char *name;          /* what --offload-arch takes */
    target_family family;
    const char *triple;
    const char *cpu;           /* LLVM CPU name (gfx942, x86-64, ...) */
    unsigned wave_size;        /* hardware lanes a CUDA warp maps onto (32 or 64) */
    const char *description;
} target_desc;

const target_desc *target_find(const char *name);
const target_desc *target_all(unsigned *count);

#endif
