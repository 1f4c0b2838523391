/* spirv_finish.c — after LLVM's SPIR-V back end: the p2n ABI metadata as OpModuleProcessed strings,
 * validation with SPIRV-Tools (in process, libSPIRV-Tools from Debian's spirv-tools). The reader of that
 * metadata is spirv_meta.c. */
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <pthread.h>
#include <spirv-tools/libspirv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spirv_meta.h"
#include "spirv_target.h"

void spirv_init_llvm(void) {
    LLVMInitializeSPIRVTargetInfo();
    LLVMInitializeSPIRVTarget();
    LLVMInitializeSPIRVTargetMC();
    LLVMInitializeSPIRVAsmPrinter();
}

/* process-global cl::opt, parsed by codegen's init with the other LLVM options (targets.md §2.1): extensions the
 * lowering may need. Relaxed printf: only to keep LLVM 22 from aborting on formats that ARE UniformConstant
 * (spirv_printf.c); spirv_finish drops the OpExtension again. -slp-max-vf=16: SPIR-V vectors have at most 16
 * components, and LLVM 22's SPIR-V back end aborts on the 32-lane operations the SLP vectoriser otherwise makes of
 * 32 results stored in a row (cuFFT's PTX; tests/spirv/slp_wide.ptx). Process-global: other targets in the same
 * process get at most 16 lanes per SLP tree too (their loop vectoriser is not limited). */
const char *const spirv_llvm_options[] = {"--spirv-ext=+SPV_INTEL_subgroups,+SPV_EXT_shader_atomic_float_add,"
                                      "+SPV_EXT_relaxed_printf_string_address_space",
                                      "-slp-max-vf=16", NULL};

enum { OP_NAME = 5, OP_MEMBER_NAME = 6, OP_STRING = 7, OP_SOURCE = 3, OP_SOURCE_CONT = 2, OP_SOURCE_EXT = 4,
       OP_CAPABILITY = 17, OP_EXTENSION = 10, OP_EXTINST_IMPORT = 11, OP_MEMORY_MODEL = 14, OP_ENTRY_POINT = 15,
       OP_EXECUTION_MODE = 16, OP_EXECUTION_MODE_ID = 331, OP_MODULE_PROCESSED = 330 };

static bool preamble_op(unsigned op) {
    return op == OP_NAME || op == OP_MEMBER_NAME || op == OP_STRING || op == OP_SOURCE || op == OP_SOURCE_CONT ||
           op == OP_SOURCE_EXT || op == OP_CAPABILITY || op == OP_EXTENSION || op == OP_EXTINST_IMPORT ||
           op == OP_MEMORY_MODEL || op == OP_ENTRY_POINT || op == OP_EXECUTION_MODE || op == OP_EXECUTION_MODE_ID ||
           op == OP_MODULE_PROCESSED;
}

bool spirv_validate(const uint32_t *words, size_t nwords, char **msg) {
    if (nwords < 5) { *msg = strdup("not a SPIR-V module"); return false; }
    unsigned ver = words[1];
    /* <= 1.2 (spirv64-1.2): OpenCL 2.2 is the only OpenCL environment that takes SPIR-V 1.2 (OpenCL 1.2 with
     * cl_khr_il_program and 2.0 take 1.0, 2.1 takes 1.1: SPIR-V Environment spec, and SPIRV-Tools' opencl1.2/2.0/
     * 2.1 envs refuse a 1.2 binary), so validate with SPV_ENV_OPENCL_2_2 (OpenCL's scope, storage-class and
     * capability rules). Int64Atomics (64-bit atom.*, the clock counter of spirv_trap.c) is not in that base
     * environment: the env spec's "OpenCL Extensions" chapter adds it when the device has cl_khr_int64_base_atomics
     * / _extended_atomics (every Intel GPU driver), and SPIRV-Tools has no switch for OpenCL extensions. A module
     * that declares it is validated as universal 1.2 instead (tests/spirv/corpus_sweep.py makes the same choice). */
    bool int64_atomics = false;
    for (size_t i = 5; i + 1 < nwords && (words[i] >> 16); i += words[i] >> 16) {
        unsigned op = words[i] & 0xffff;
        if (op == OP_CAPABILITY && words[i + 1] == 12 /* Int64Atomics */) int64_atomics = true;
        if (op != OP_CAPABILITY && op != OP_EXTENSION && op != OP_EXTINST_IMPORT) break; /* capabilities come first */
    }
    spv_target_env env = ver <= 0x10200 ? (int64_atomics ? SPV_ENV_UNIVERSAL_1_2 : SPV_ENV_OPENCL_2_2)
                       : ver == 0x10300 ? SPV_ENV_UNIVERSAL_1_3
                       : ver == 0x10400 ? SPV_ENV_UNIVERSAL_1_4 : ver == 0x10500 ? SPV_ENV_UNIVERSAL_1_5
                       : SPV_ENV_UNIVERSAL_1_6;
    spv_context ctx = spvContextCreate(env);
    spv_diagnostic diag = NULL;
    spv_const_binary_t bin = {words, nwords};
    spv_result_t r = spvValidate(ctx, &bin, &diag);
    bool ok = r == SPV_SUCCESS;
    if (!ok) {
        char buf[2048];
        snprintf(buf, sizeof buf, "%s (word %zu)", diag && diag->error ? diag->error : "validation failed",
                 diag ? diag->position.index : (size_t)0);
        *msg = strdup(buf);
    }
    spvDiagnosticDestroy(diag);
    spvContextDestroy(ctx);
    return ok;
}

p2n_status spirv_finish(LLVMModuleRef M, const target_desc *t, const char *bytes, size_t n, p2n_diags *d,
                        uint8_t **data, size_t *size) {
    (void)t;
    if (n % 4 || n < 20) {
        diag_plain(d, "error", "internal compiler error: SPIR-V back end produced %zu bytes (not a module)", n);
        return P2N_INTERNAL_ERROR;
    }
    size_t nw = n / 4;
    const uint32_t *w = (const uint32_t *)(const void *)bytes;
    /* metadata strings */
    unsigned nmd = LLVMGetNamedMetadataNumOperands(M, "p2n.spirv");
    LLVMValueRef *ops = calloc(nmd + 1, sizeof *ops);
    LLVMGetNamedMetadataOperands(M, "p2n.spirv", ops);
    size_t extra = 0;
    for (unsigned i = 0; i < nmd; i++) {
        LLVMValueRef s = LLVMGetOperand(ops[i], 0);
        unsigned len = 0;
        LLVMGetMDString(s, &len);
        extra += 1 + (strlen(P2N_SPIRV_META_PREFIX) + len + 4) / 4;
    }
    uint32_t *out = calloc(nw + extra + 1, 4);
    /* insertion point: after the last preamble/debug instruction */
    size_t at = 5, pos = 5;
    while (pos < nw) {
        unsigned wc = w[pos] >> 16, op = w[pos] & 0xffff;
        if (!wc || pos + wc > nw) break;
        if (!preamble_op(op)) break;
        pos += wc;
        at = pos;
    }
    memcpy(out, w, at * 4);
    size_t o = at;
    for (unsigned i = 0; i < nmd; i++) {
        LLVMValueRef s = LLVMGetOperand(ops[i], 0);
        unsigned len = 0;
        const char *str = LLVMGetMDString(s, &len);
        size_t plen = strlen(P2N_SPIRV_META_PREFIX);
        size_t sw = (plen + len + 4) / 4;
        out[o] = (uint32_t)((1 + sw) << 16) | OP_MODULE_PROCESSED;
        char *dst = (char *)(out + o + 1);
        memcpy(dst, P2N_SPIRV_META_PREFIX, plen);
        memcpy(dst + plen, str, len);
        o += 1 + sw;
    }
    memcpy(out + o, w + at, (nw - at) * 4);
    o += nw - at;
    free(ops);
    o = spirv_drop_printf_ext(out, o);
    char *msg = NULL;
    if (!spirv_validate(out, o, &msg)) {
        diag_plain(d, "error", "internal compiler error: the SPIR-V module is invalid: %s", msg);
        free(msg);
        free(out);
        return P2N_INTERNAL_ERROR;
    }
    *data = (uint8_t *)out;
    *size = o * 4;
    return P2N_OK;
}
