/* spirv_null_fix.c — see spirv_null_fix.h. One pass over the instruction stream: remember the widths of
 * OpTypeInt/OpTypeFloat results, then replace each OpConstantNull of such a type by OpConstant with a zero
 * literal (one word, two for 64-bit types), adjusting the instruction's word count. */
#include "spirv_null_fix.h"

#include <stdlib.h>
#include <string.h>

enum { OP_TYPE_INT = 21, OP_TYPE_FLOAT = 22, OP_CONSTANT = 43, OP_CONSTANT_NULL = 46, SPIRV_MAGIC = 0x07230203u };

uint32_t *spirv_fix_scalar_nulls(const uint32_t *w, size_t n, size_t *nout, unsigned *replaced) {
    if (n < 5 || w[0] != SPIRV_MAGIC) return NULL;
    uint32_t bound = w[3];
    if (bound == 0 || bound > (1u << 24)) return NULL;
    uint8_t *scalar_words = calloc(bound, 1); /* 0: not a scalar numeric type, else 1 or 2 literal words */
    uint32_t *out = malloc((n + n / 3 * 2 + 8) * sizeof *out); /* a 3-word null grows by at most 2 words */
    if (!scalar_words || !out) { free(scalar_words); free(out); return NULL; }
    memcpy(out, w, 5 * sizeof *w);
    size_t o = 5;
    unsigned count = 0;
    for (size_t i = 5; i < n;) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xffffu;
        if (wc == 0 || i + wc > n) { free(scalar_words); free(out); return NULL; }
        if ((op == OP_TYPE_INT || op == OP_TYPE_FLOAT) && wc >= 3 && w[i + 1] < bound)
            scalar_words[w[i + 1]] = w[i + 2] > 32 ? 2 : 1;
        if (op == OP_CONSTANT_NULL && wc == 3 && w[i + 1] < bound && scalar_words[w[i + 1]]) {
            unsigned lits = scalar_words[w[i + 1]];
            out[o++] = (3u + lits) << 16 | OP_CONSTANT;
            out[o++] = w[i + 1]; /* result type */
            out[o++] = w[i + 2]; /* result id */
            for (unsigned k = 0; k < lits; k++) out[o++] = 0;
            count++;
        } else {
            memcpy(out + o, w + i, wc * sizeof *w);
            o += wc;
        }
        i += wc;
    }
    free(scalar_words);
    *nout = o;
    if (replaced) *replaced = count;
    return out;
}
