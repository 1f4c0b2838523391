/* test_codeobj.c — hip.codeobj: driver-stub/hip/amd_codeobj.c on synthetic ELF headers and on real code objects:
 * gcnArchName parsing, ROCm's compatibility rule (same processor; xnack/sramecc unsupported or any in the code
 * object, otherwise equal to the device's setting), and the metadata of the code objects given on the command
 * line (vecadd.ptx compiled for gfx1100 / gfx950 by CMake: kernels, explicit arguments, padding names).
 *   test_hip_codeobj [CODE_OBJECT...] */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amd_codeobj.h"
#include "error_record.h"
#include "host_abi.h"
#include "../tools/test_file.h"

static int fails;
#define TRUE(c)                                                                                                   \
    do {                                                                                                          \
        if (!(c)) {                                                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                                 \
            fails++;                                                                                              \
        }                                                                                                         \
    } while (0)

static Elf64_Ehdr hdr(unsigned mach, unsigned xnack, unsigned sramecc)
{
    Elf64_Ehdr e;
    memset(&e, 0, sizeof e);
    memcpy(e.e_ident, ELFMAG, SELFMAG);
    e.e_ident[EI_CLASS] = ELFCLASS64;
    e.e_ident[EI_DATA] = ELFDATA2LSB;
    e.e_ident[EI_OSABI] = 64; /* ELFOSABI_AMDGPU_HSA */
    e.e_ident[EI_ABIVERSION] = 3;
    e.e_machine = 224;
    e.e_flags = mach | xnack << 8 | sramecc << 10;
    return e;
}

static int compat(unsigned mach, unsigned xn, unsigned se, const char *dev)
{
    Elf64_Ehdr e = hdr(mach, xn, se);
    char why[256];
    int r = amd_compatible(&e, sizeof e, dev, why, sizeof why);
    if (!r) printf("  %s: %s\n", dev, why);
    return r;
}

int main(int argc, char **argv)
{
    char proc[64];
    int xn, se;
    amd_parse_arch_name("gfx90a:sramecc+:xnack-", proc, sizeof proc, &xn, &se);
    TRUE(!strcmp(proc, "gfx90a") && xn == 2 && se == 3);
    amd_parse_arch_name("gfx1100", proc, sizeof proc, &xn, &se);
    TRUE(!strcmp(proc, "gfx1100") && xn == 1 && se == 1);
    amd_parse_arch_name("gfx942:xnack+", proc, sizeof proc, &xn, &se);
    TRUE(!strcmp(proc, "gfx942") && xn == 3 && se == 1);

    /* 0 unsupported, 1 any, 2 off, 3 on */
    TRUE(compat(0x3f, 1, 1, "gfx90a:sramecc+:xnack-"));   /* any/any runs anywhere */
    TRUE(compat(0x3f, 2, 3, "gfx90a:sramecc+:xnack-"));   /* exact */
    TRUE(!compat(0x3f, 3, 1, "gfx90a:sramecc+:xnack-"));  /* xnack+ object, xnack- device */
    TRUE(!compat(0x3f, 1, 2, "gfx90a:sramecc+:xnack-"));  /* sramecc- object, sramecc+ device */
    TRUE(!compat(0x3f, 2, 1, "gfx90a"));                   /* xnack- object, device leaves it open */
    TRUE(compat(0x41, 0, 0, "gfx1100"));                   /* unsupported features */
    TRUE(!compat(0x41, 0, 0, "gfx1101"));                  /* another processor */
    TRUE(!compat(0x4c, 1, 1, "gfx950:sramecc+:xnack-"));
    TRUE(compat(0x4f, 1, 1, "gfx950:sramecc+:xnack-"));

    for (int i = 1; i < argc; i++) {
        size_t n = 0;
        char *img = test_read_file(argv[i], &n);
        amd_meta m;
        char err[256];
        TRUE(img != NULL);
        if (!img) continue;
        TRUE(amd_read_meta(img, n, &m, err, sizeof err) == 0);
        uint32_t ki[P2N_AMD_KINFO_WORDS];
        if (strstr(argv[i], "kinfo.")) { /* kinfo.ptx: .reqntid 32,2,1 / .explicitcluster / .reqnctapercluster */
            TRUE(amd_read_kinfo(img, n, "k_req", ki) && ki[0] == 32 && ki[1] == 2 && ki[2] == 1 &&
                 !(ki[P2N_AMD_KINFO_FLAGS] & (P2N_KERNEL_CLUSTER_LAUNCH | P2N_KERNEL_CLUSTER_DIMS)));
            TRUE(amd_read_kinfo(img, n, "k_explicit", ki) && ki[0] == 0 &&
                 (ki[P2N_AMD_KINFO_FLAGS] & P2N_KERNEL_CLUSTER_LAUNCH));
            TRUE(amd_read_kinfo(img, n, "k_fixed", ki) && (ki[P2N_AMD_KINFO_FLAGS] & P2N_KERNEL_CLUSTER_DIMS));
            TRUE(!(ki[P2N_AMD_KINFO_FLAGS] & P2N_KERNEL_REPORTS_ERRORS)); /* nothing in kinfo.ptx traps */
            TRUE(!amd_read_kinfo(img, n, "k_none", ki));            /* no such kernel */
            for (size_t cut = 0; cut < n; cut += n / 97 + 1)        /* truncated images: no crash, no record */
                amd_read_kinfo(img, cut, "k_req", ki);
            TRUE(!amd_read_kinfo(img, 64, "k_req", ki));
            printf("%s: kinfo read\n", argv[i]);
            amd_meta_free(&m);
            free(img);
            continue;
        }
        /* every code object defines the error record, 32 words (abi/error_record.h) */
        uint64_t rec = 0, rec_size = 0;
        TRUE(amd_symbol_address(img, n, P2N_AMD_ERROR_RECORD, &rec, &rec_size) && rec_size == 4 * P2N_AMD_RECORD_WORDS);
        TRUE(!amd_symbol_address(img, n, "__p2n_no_such_symbol", &rec, &rec_size));
        /* what the loader places at a symbol's address, from the file: the kinfo constant read both ways */
        uint64_t kaddr = 0, ksize = 0;
        uint32_t kwords[P2N_AMD_KINFO_WORDS];
        const char *kname = strstr(argv[i], "report.") ? P2N_AMD_KINFO_PREFIX "k_quiet" : P2N_AMD_KINFO_PREFIX "vecadd";
        TRUE(amd_symbol_address(img, n, kname, &kaddr, &ksize) && amd_read_vaddr(img, n, kaddr, kwords, sizeof kwords) &&
             amd_read_kinfo(img, n, kname + strlen(P2N_AMD_KINFO_PREFIX), ki) && !memcmp(ki, kwords, sizeof ki));
        TRUE(!amd_read_vaddr(img, n, kaddr + ksize - 4, kwords, 64 * 1024 * 1024));
        if (strstr(argv[i], "report.")) { /* report.ptx: a trap in one kernel flags both (a module-wide property) */
            TRUE(amd_read_kinfo(img, n, "k_report", ki) && (ki[P2N_AMD_KINFO_FLAGS] & P2N_KERNEL_REPORTS_ERRORS));
            TRUE(amd_read_kinfo(img, n, "k_quiet", ki) && (ki[P2N_AMD_KINFO_FLAGS] & P2N_KERNEL_REPORTS_ERRORS));
            for (size_t cut = 0; cut < n; cut += n / 97 + 1) /* truncated images: no crash */
                amd_symbol_address(img, cut, P2N_AMD_ERROR_RECORD, &rec, &rec_size);
            printf("%s: error record read\n", argv[i]);
            amd_meta_free(&m);
            free(img);
            continue;
        }
        /* vecadd.ptx has a trap_if kernel: every kernel of the module may report */
        TRUE(amd_read_kinfo(img, n, "vecadd", ki) && ki[0] == 0 &&
             !(ki[P2N_AMD_KINFO_FLAGS] & (P2N_KERNEL_CLUSTER_LAUNCH | P2N_KERNEL_CLUSTER_DIMS)) &&
             (ki[P2N_AMD_KINFO_FLAGS] & P2N_KERNEL_REPORTS_ERRORS));
        const amd_kernel *va = amd_meta_kernel(&m, "vecadd"), *fill = amd_meta_kernel(&m, "fill");
        TRUE(va && fill);
        if (va) {
            TRUE(!strcmp(va->symbol, "vecadd.kd"));
            TRUE(va->nargs >= 5 && va->args[3].offset == 24 && va->args[3].size == 4);
            TRUE(va->max_flat_wg == 1024);
        }
        if (fill) { /* u32 @0, padding @4 (named), u64 @8 */
            TRUE(fill->nargs >= 3 && fill->args[1].offset == 4 && fill->args[1].size == 4 &&
                 !strncmp(fill->args[1].name, AMD_ARG_PAD, strlen(AMD_ARG_PAD)) && fill->args[2].offset == 8);
        }
        printf("%s: %s, %u kernels\n", argv[i], m.target, m.nkernels);
        amd_meta_free(&m);
        free(img);
    }
    if (fails) {
        fprintf(stderr, "test_hip_codeobj: %d check(s) failed\n", fails);
        return 1;
    }
    printf("test_hip_codeobj: all checks passed\n");
    return 0;
}
