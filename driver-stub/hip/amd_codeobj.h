/* amd_codeobj.h — what the HIP backend (and the test stand-in for ROCm's HIP runtime, tests/hip/) reads from
 * one of our AMDGPU code objects (COV5, docs/amdgpu.md): the processor and target features in e_flags, and per
 * kernel the NT_AMDGPU_METADATA note (MessagePack; AMDGPUUsage "Code Object V3+ Metadata"): kernel arguments
 * with their offsets, sizes and value kinds, segment sizes, workgroup limit, wavefront size.
 *
 * Only reads the bytes it is given (every offset is bounds-checked); allocates the tables it returns. */
#ifndef P2N_HIP_AMD_CODEOBJ_H
#define P2N_HIP_AMD_CODEOBJ_H

#include <stddef.h>
#include <stdint.h>

#include "amdgpu_kinfo.h"

/* explicit argument names the compiler gives (targets/amdgpu/amdgpu_lower.c): padding between PTX parameters
 * and the trailing launch-flags word; every other explicit argument is one PTX parameter */
#define AMD_ARG_PAD "__p2n_pad"
#define AMD_ARG_LAUNCH_FLAGS "__p2n_launch_flags"

typedef struct amd_arg {
    uint32_t offset, size;
    char kind[40];   /* .value_kind: "by_value", "global_buffer", "hidden_block_count_x", ... */
    char name[64];   /* .name ("" when the argument has none) */
} amd_arg;

typedef struct amd_kernel {
    char name[256];
    char symbol[272];            /* the kernel descriptor's symbol, "<name>.kd" */
    uint32_t kernarg_size, kernarg_align;
    uint32_t group_fixed;        /* .group_segment_fixed_size: static LDS */
    uint32_t private_fixed;      /* .private_segment_fixed_size: scratch bytes per work-item */
    uint32_t max_flat_wg;        /* .max_flat_workgroup_size */
    uint32_t wavefront_size;
    uint32_t sgpr_count, vgpr_count;
    int dynamic_stack;           /* .uses_dynamic_stack */
    int has_kinfo;               /* the code object has the kernel's "__p2n_kinfo." constant (amd_read_kinfo) */
    uint32_t kinfo[P2N_AMD_KINFO_WORDS]; /* its words: .reqntid x, y, z, P2N_KERNEL_* flags */
    unsigned nargs;
    amd_arg *args;
} amd_kernel;

typedef struct amd_meta {
    char target[128];            /* amdhsa.target, e.g. "amdgcn-amd-amdhsa--gfx90a:xnack-" */
    unsigned nkernels;
    amd_kernel *k;
} amd_meta;

/* e_flags of an AMDGPU ELF: processor name ("gfx1100"; NULL if unknown to this table) and the xnack / sramecc
 * settings: 0 unsupported, 1 any, 2 off, 3 on (EF_AMDGPU_FEATURE_*_V4). Returns 0 if not an AMDGPU HSA ELF. */
int amd_elf_target(const void *elf, size_t n, const char **proc, int *xnack, int *sramecc);

/* The device's gcnArchName ("gfx90a:sramecc+:xnack-") split: processor (copied into proc[proc_len]) and
 * features (1 any = not mentioned, 2 off = '-', 3 on = '+'). */
void amd_parse_arch_name(const char *gcn, char *proc, size_t proc_len, int *xnack, int *sramecc);

/* ROCm's loader rule: a code object runs on a device when the processors are equal and each feature is
 * unsupported/any in the code object or equal to the device's setting. Returns 1 if compatible; otherwise 0
 * with the reason in why. */
int amd_compatible(const void *elf, size_t n, const char *gcn_arch_name, char *why, size_t why_len);

/* Reads the metadata note. Returns 0 and fills *out, or -1 with a message in err. */
int amd_read_meta(const void *elf, size_t n, amd_meta *out, char *err, size_t err_len);
void amd_meta_free(amd_meta *m);
const amd_kernel *amd_meta_kernel(const amd_meta *m, const char *name);
/* the kernel's launch attributes (abi/amdgpu_kinfo.h: .reqntid x, y, z, P2N_KERNEL_* flags) from its "__p2n_kinfo."
 * constant; 0 when the code object has none (or it is malformed) */
int amd_read_kinfo(const void *elf, size_t n, const char *kernel, uint32_t out[P2N_AMD_KINFO_WORDS]);
/* the virtual address and size of the defined dynamic symbol `name`; 0 when there is none */
int amd_symbol_address(const void *elf, size_t n, const char *name, uint64_t *vaddr, uint64_t *size);
/* len bytes the loader places at virtual address vaddr, from the file (a section with contents); 0 when the
 * range is not in one */
int amd_read_vaddr(const void *elf, size_t n, uint64_t vaddr, void *dst, size_t len);

#endif
