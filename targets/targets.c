/* targets.c — the list of targets the compiler knows; each entry is defined in its target's folder
 * (targets/host/host_target.c, targets/amdgpu/amdgpu_target.c, targets/spirv/spirv_target.c). */
#include <string.h>

#include "target.h"
#include "host/host_target.h"
#include "amdgpu/amdgpu_target.h"
#include "spirv/spirv_target.h"

static const target_desc *const targets[] = {
    &target_host,    &target_host_native, &target_gfx90a,  &target_gfx942,  &target_gfx950,   &target_gfx1030,
    &target_gfx1100, &target_gfx1101,     &target_gfx1102, &target_gfx1200, &target_gfx1201,  &target_spirv64,
    &target_spirv64_12,
};

const target_desc *target_find(const char *name) {
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (strcmp(targets[i]->name, name) == 0) return targets[i];
    return NULL;
}

const target_desc *const *target_all(unsigned *count) {
    *count = (unsigned)(sizeof targets / sizeof targets[0]);
    return targets;
}
