/* targets.c — the list of targets the compiler knows. */
#include <string.h>

#include "target.h"
#include "spirv/spirv_target.h"
#include "amdgpu/amdgpu_target.h"

static const target_desc targets[] = {
    {"host", TARGET_HOST, "x86_64-pc-linux-gnu", "x86-64-v2", 32, "x86-64 CPU (the CPU runtime)", 0, 0, 0, 0, 0, true, true, true, NULL, NULL, false},
    {"host-native", TARGET_HOST, "x86_64-pc-linux-gnu", "x86-64-v2", 32, "x86-64 CPU this process runs on (not portable)", 0, 0, 0, 0, 0, true, true, true, NULL, NULL, true},
    {"gfx90a", TARGET_AMDGPU, "amdgcn-amd-amdhsa", "gfx90a", 64, "AMD CDNA2 (MI200), wave64", 0, 1, 3, 5, 4, true, false, true, &amdgpu_hooks, amdgpu_syncscopes, false},
    {"gfx942", TARGET_AMDGPU, "amdgcn-amd-amdhsa", "gfx942", 64, "AMD CDNA3 (MI300), wave64", 0, 1, 3, 5, 4, true, false, true, &amdgpu_hooks, amdgpu_syncscopes, false},
    {"gfx950", TARGET_AMDGPU, "amdgcn-amd-amdhsa", "gfx950", 64, "AMD CDNA4 (MI350), wave64", 0, 1, 3, 5, 4, true, false, true, &amdgpu_hooks, amdgpu_syncscopes, false},
    {"gfx1030", TARGET_AMDGPU, "amdgcn-amd-amdhsa", "gfx1030", 32, "AMD RDNA2, wave32", 0, 1, 3, 5, 4, true, false, true, &amdgpu_hooks, amdgpu_syncscopes, false},
    {"gfx1100", TARGET_AMDGPU, "amdgcn-amd-amdhsa", "gfx1100", 32, "AMD RDNA3, wave32", 0, 1, 3, 5, 4, true, false, true, &amdgpu_hooks, amdgpu_syncscopes, false},
    {"gfx1101", TARGET_AMDGPU, "amdgcn-amd-amdhsa", "gfx1101", 32, "AMD RDNA3, wave32", 0, 1, 3, 5, 4, true, false, true, &amdgpu_hooks, amdgpu_syncscopes, false},
    {"gfx1102", TARGET_AMDGPU, "amdgcn-amd-amdhsa", "gfx1102", 32, "AMD RDNA3, wave32", 0, 1, 3, 5, 4, true, false, true, &amdgpu_hooks, amdgpu_syncscopes, false},
    {"gfx1200", TARGET_AMDGPU, "amdgcn-amd-amdhsa", "gfx1200", 32, "AMD RDNA4, wave32", 0, 1, 3, 5, 4, true, false, true, &amdgpu_hooks, amdgpu_syncscopes, false},
    {"gfx1201", TARGET_AMDGPU, "amdgcn-amd-amdhsa", "gfx1201", 32, "AMD RDNA4, wave32", 0, 1, 3, 5, 4, true, false, true, &amdgpu_hooks, amdgpu_syncscopes, false},
    /* SPIR-V: as_local is the Function class (0); smem_in_ctx: .shared addresses are offsets into one
     * Workgroup window (a __local kernel argument); see targets/spirv/spirv_lower.c and docs/spirv.md */
    {"spirv64", TARGET_SPIRV, "spirv64v1.4-unknown-unknown", "", 32, "OpenCL SPIR-V 1.4 (Intel GPUs via Level Zero/OpenCL)", 1, 3, 0, 1, 4, true, false, true, &spirv_hooks, spirv_syncscopes, false},
    {"spirv64-1.2", TARGET_SPIRV, "spirv64v1.2-unknown-unknown", "", 32, "OpenCL SPIR-V 1.2 (older Intel drivers; SPV_INTEL_subgroups)", 1, 3, 0, 1, 4, true, false, true, &spirv_hooks, spirv_syncscopes, false},
};

const target_desc *target_find(const char *name) {
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (strcmp(targets[i].name, name) == 0) return &targets[i];
    return NULL;
}

const target_desc *target_all(unsigned *count) {
    *count = (unsigned)(sizeof targets / sizeof targets[0]);
    return targets;
}
