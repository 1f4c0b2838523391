/* error_report.c — reporting what a GPU kernel left in its error record (abi/error_record.h), the same way the
 * CPU runtime reports a trap or an assert (driver-stub/cpu/cpu_rt_table.c cpu_rt_trap / cpu_rt_assertfail). */
#include <stdio.h>
#include <time.h>

#include "backend.h"
#include "error_report.h"

uint64_t p2n_rec_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* a NUL-terminated device string of at most n-1 bytes, read byte by byte (it may end right before the end of
 * its allocation) */
static void dev_string(p2n_rec_read_fn read, void *rc, uint64_t addr, char *buf, size_t n) {
    size_t i = 0;
    for (; addr && i + 1 < n; i++)
        if (read(rc, buf + i, addr + i, 1) != CUDA_SUCCESS || !buf[i]) break;
    buf[i] = 0;
    if (!i) snprintf(buf, n, "?");
}

/* words w, w+1 of the record as a 64-bit address */
static uint64_t addr_at(const uint32_t *r, unsigned w) { return r[w] | (uint64_t)r[w + 1] << 32; }

CUresult p2n_rec_report(const uint32_t *r, const char *kernel, p2n_rec_read_fn read, void *rc, char **err) {
    if (!r[P2N_REC_CODE]) return CUDA_SUCCESS;
    const uint32_t *b = r + P2N_REC_CTAID, *t = r + P2N_REC_TID;
    uint64_t msg = addr_at(r, P2N_REC_MSG);
    if (r[P2N_REC_CODE] == P2N_REC_NOT_SUPPORTED) { /* a --defer-unsupported stub: "kernel 'K': <reason> at f:l:c" */
        char why[1024];
        dev_string(read, rc, msg, why, sizeof why);
        fprintf(stderr, "ptx2native: %s\n", why);
        fflush(stderr);
        if (err) *err = p2n_bk_msg("%s", why);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    /* a memory fault the code found itself: a null-page check (targets/spirv/spirv_faults.c), an out-of-range .trap
     * or misaligned surface access (targets/llvm/emit_surface.c); the message word is the address */
    if (r[P2N_REC_CODE] == P2N_REC_ILLEGAL_ADDRESS || r[P2N_REC_CODE] == P2N_REC_MISALIGNED_ADDRESS) {
        bool mis = r[P2N_REC_CODE] == P2N_REC_MISALIGNED_ADDRESS;
        if (err)
            *err = p2n_bk_msg("kernel '%s': block [%u,%u,%u], thread [%u,%u,%u]: access to address 0x%llx (%s)", kernel,
                              b[0], b[1], b[2], t[0], t[1], t[2], (unsigned long long)msg,
                              mis ? "misaligned address" : "an illegal memory access was encountered");
        return mis ? CUDA_ERROR_MISALIGNED_ADDRESS : CUDA_ERROR_ILLEGAL_ADDRESS;
    }
    if (r[P2N_REC_CODE] == P2N_REC_ILLEGAL_INSTRUCTION) { /* refused in this launch (emit_cluster.c); msg names it */
        char what[256];
        dev_string(read, rc, msg, what, sizeof what);
        if (err)
            *err = p2n_bk_msg("kernel '%s': block [%u,%u,%u], thread [%u,%u,%u]: %s (an illegal instruction was "
                              "encountered)", kernel, b[0], b[1], b[2], t[0], t[1], t[2], what);
        return CUDA_ERROR_ILLEGAL_INSTRUCTION;
    }
    if (r[P2N_REC_CODE] != P2N_REC_ASSERT) {
        if (err) *err = p2n_bk_msg("kernel '%s': trap (unspecified launch failure)", kernel);
        return CUDA_ERROR_LAUNCH_FAILED;
    }
    /* assert: line, message / file / function, block, thread */
    static const unsigned strs[3] = {P2N_REC_MSG, P2N_REC_FILE, P2N_REC_FUNC};
    char text[3][256];
    for (unsigned s = 0; s < 3; s++) dev_string(read, rc, addr_at(r, strs[s]), text[s], sizeof text[s]);
    char line[1200];
    snprintf(line, sizeof line, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.", text[1],
             r[P2N_REC_LINE], text[2], b[0], b[1], b[2], t[0], t[1], t[2], text[0]);
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
    if (err) *err = p2n_bk_msg("kernel '%s': %s", kernel, line);
    return CUDA_ERROR_ASSERT;
}
