/* amdgpu_kinfo.h — a kernel's launch attributes in an AMDGPU code object, beside the HSA metadata (which has no
 * field for them): the compiler (targets/amdgpu/amdgpu_lower.c) defines, for every kernel K, a protected constant
 * "__p2n_kinfo.K" of P2N_AMD_KINFO_WORDS little-endian u32: .reqntid x, y, z (0 = none) and the kernel's
 * P2N_KERNEL_* flags (host_abi.h: P2N_KERNEL_CLUSTER_LAUNCH, P2N_KERNEL_CLUSTER_DIMS, ...). The HIP backend
 * (driver-stub/hip) reads it from the dynamic symbol table; a code object without it (older, or not ours) has no
 * attributes: launches are not checked against them. */
#ifndef P2N_AMDGPU_KINFO_H
#define P2N_AMDGPU_KINFO_H

#define P2N_AMD_KINFO_PREFIX "__p2n_kinfo."
enum { P2N_AMD_KINFO_WORDS = 4, P2N_AMD_KINFO_FLAGS = 3 };

#endif
