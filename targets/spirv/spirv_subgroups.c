/* spirv_subgroups.c — the gate for warp operations on devices without sub-groups of 32 work-items.
 *
 * PTX warp operations become OpenCL sub-group operations with the sub-group size pinned to 32. A device that
 * has no sub-groups (PoCL's CPU device: no cl_khr_subgroups, and it cannot even build a module that names a
 * sub-group built-in) cannot run them, and there is no correct fallback: lanes of a "warp" of one work-item
 * each would see no other lane's values. The driver stub says so in p2n_options.device_lacks; every lowering of
 * a cross-lane operation asks here first, so the reason is worded once. */
#include <stdio.h>

#include "../llvm/emit.h"
#include "spirv_target.h"

bool spirv_needs_subgroups(emit_ctx *E, const char *what) {
    if (!(E->device_lacks & P2N_LACKS_SUBGROUPS)) return true;
    char why[256];
    snprintf(why, sizeof why, "%s: the device has no sub-groups of 32 work-items", what);
    emit_unsupported(E, why);
    return false;
}
