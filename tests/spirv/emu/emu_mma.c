/* emu_mma.c — the generic warp-matrix forms (mx_forms.h) of mma_ops.ptx run through the SPIR-V lowering
 * (emit_lanes_mma.c, on emu.c's sub-group emulation) and compared with the CPU runtime (cpu_mma.c): mma.sync
 * of every shape and type family, wmma load/mma/store of every shape and type with row and column layouts,
 * movmatrix, mma.sp (random metadata words). Inputs per element type: moderate random values with now and then a subnormal, an infinity or a
 * NaN (the special-term rules), random fp8 bytes (NaN and infinity codes 1 in 64), raw random bits for the
 * integer and b1 forms. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "host_abi.h"
#include "mx_forms.h"
#include "mma_ops.h"

bool p2n_mma_compute(uint32_t op, uint32_t *io[32]);
bool p2n_mma_lane(uint32_t op, uint32_t *io, uint32_t lane);
void emu_run(void (*k)(uint64_t, uint64_t, void *, int32_t), uint64_t out, uint64_t in); /* emu.c */
uint32_t emu_rnd(void);

static uint32_t r16(unsigned ebits, unsigned bias_lo, unsigned span, unsigned mbits) {
    uint32_t r = emu_rnd();
    uint32_t e = bias_lo + (r >> 8) % span, m = (r >> 12) & ((1u << mbits) - 1);
    if ((r & 31) == 0) e = 0;                    /* subnormal */
    if ((r & 1023) == 1) e = (1u << ebits) - 1;  /* infinity or NaN */
    return (r >> 31) << (ebits + mbits) | e << mbits | m;
}

/* n words of elements of type t */
static void fill(unsigned t, uint32_t *w, unsigned n) {
    for (unsigned i = 0; i < n; i++) {
        switch (t) {
        case MXE_F16: w[i] = r16(5, 8, 14, 10) | r16(5, 8, 14, 10) << 16; break;
        case MXE_BF16: w[i] = r16(8, 120, 14, 7) | r16(8, 120, 14, 7) << 16; break;
        case MXE_TF32: case MXE_F32: w[i] = r16(8, 115, 24, 23); break;
        case MXE_F64:
            if (i + 1 < n) {
                uint64_t u = (uint64_t)r16(11, 1010, 24, 20) << 32 | emu_rnd();
                memcpy(&w[i++], &u, 8);
            }
            break;
        case MXE_E4M3: case MXE_E5M2: { /* random bytes, the all-ones exponent (NaN, infinity) 1 in 64 */
            uint32_t r = emu_rnd(), eb = t == MXE_E4M3 ? 0x78u : 0x7cu;
            for (unsigned b = 0; b < 4; b++)
                if (((r >> (8 * b)) & eb) == eb && (emu_rnd() & 63)) r &= ~(0x40u << (8 * b));
            w[i] = r;
            break;
        }
        default: w[i] = emu_rnd(); break;
        }
    }
}

static uint32_t in[4096], out[1024], want[1024];

static int check_mma(const struct mma_form *f) {
    p2n_mx x = p2n_mx_decode(f->op);
    unsigned wa = p2n_mx_words(&x, MXF_A, x.ta), wb = p2n_mx_words(&x, MXF_B, x.tb);
    unsigned wc = p2n_mx_words(&x, MXF_C, x.tc), wd = p2n_mx_words(&x, MXF_C, x.td);
    static uint32_t io[32][64];
    uint32_t *p[32];
    for (unsigned l = 0; l < 32; l++) {
        fill(x.ta, &in[l * 32], wa);
        fill(x.tb, &in[l * 32 + wa], wb);
        fill(x.tc, &in[l * 32 + wa + wb], wc);
        if (x.sparse) in[l * 32 + p2n_mx_sp_meta_word(&x)] = emu_rnd(); /* mma.sp: metadata after D */
        memcpy(io[l], &in[l * 32], 4 * 32);
        p[l] = io[l];
    }
    p2n_mma_compute(f->op, p);
    memset(out, 0xcd, sizeof out);
    emu_run(f->k, (uint64_t)(uintptr_t)out, (uint64_t)(uintptr_t)in);
    int bad = 0;
    for (unsigned l = 0; l < 32; l++)
        for (unsigned i = 0; i < wd; i++)
            if (out[l * 32 + i] != io[l][wa + wb + wc + i] && bad++ < 3)
                printf("mma op %08x lane %u d word %u: got %08x want %08x\n", f->op, l, i, out[l * 32 + i],
                       io[l][wa + wb + wc + i]);
    return bad;
}

/* the runtime side of one wmma fragment load or store: io = address, default stride, fragment words */
static void lane_ldst(uint32_t op, void *mem, uint32_t *frag, unsigned lane) {
    p2n_mx x = p2n_mx_decode(op);
    unsigned rows, cols, nw = p2n_mx_words(&x, x.frag, x.ta);
    p2n_mx_dims(&x, x.frag, x.ta, &rows, &cols);
    uint32_t io[3 + 16];
    uint64_t a = (uint64_t)(uintptr_t)mem;
    memcpy(io, &a, 8);
    io[2] = (x.col ? rows : cols) * (x.ta == MXE_B1 ? 32 : 1);
    if (x.kind == P2N_MX_FRAG_STORE) memcpy(&io[3], frag, 4 * nw);
    p2n_mma_lane(op, io, lane);
    if (x.kind == P2N_MX_FRAG_LOAD) memcpy(frag, &io[3], 4 * nw);
}

static int check_wmma(const struct mma_form *f) {
    p2n_mx x = p2n_mx_decode(f->op);
    unsigned wa = p2n_mx_words(&x, MXF_A, x.ta), wb = p2n_mx_words(&x, MXF_B, x.tb);
    unsigned wc = p2n_mx_words(&x, MXF_C, x.tc);
    fill(x.ta, in, 1024);
    fill(x.tb, in + 1024, 1024);
    fill(x.tc, in + 2048, 1024);
    static uint32_t io[32][64];
    uint32_t *p[32];
    for (unsigned l = 0; l < 32; l++) {
        lane_ldst(f->ldst[1], in, io[l], l);
        lane_ldst(f->ldst[2], in + 1024, io[l] + wa, l);
        lane_ldst(f->ldst[3], in + 2048, io[l] + wa + wb, l);
        p[l] = io[l];
    }
    p2n_mma_compute(f->op, p);
    memset(want, 0xcd, sizeof want);
    for (unsigned l = 0; l < 32; l++) lane_ldst(f->ldst[4], want, io[l] + wa + wb + wc, l);
    memset(out, 0xcd, sizeof out);
    emu_run(f->k, (uint64_t)(uintptr_t)out, (uint64_t)(uintptr_t)in);
    int bad = 0;
    for (unsigned i = 0; i < 1024; i++)
        if (out[i] != want[i] && bad++ < 3)
            printf("wmma op %08x word %u: got %08x want %08x\n", f->op, i, out[i], want[i]);
    return bad;
}

static int check_movmatrix(void) {
    static uint32_t io[32][2];
    uint32_t *p[32];
    for (unsigned l = 0; l < 32; l++) {
        in[l] = io[l][0] = emu_rnd();
        p[l] = io[l];
    }
    p2n_mma_compute(P2N_MX_MOVMATRIX, p);
    emu_run(kmov, (uint64_t)(uintptr_t)out, (uint64_t)(uintptr_t)in);
    int bad = 0;
    for (unsigned l = 0; l < 32; l++)
        if (out[l] != io[l][1] && bad++ < 3) printf("movmatrix lane %u: got %08x want %08x\n", l, out[l], io[l][1]);
    return bad;
}

int emu_mma_forms(void) {
    int bad = 0;
    unsigned n = sizeof mma_forms / sizeof mma_forms[0];
    for (int round = 0; round < 4; round++) {
        for (unsigned i = 0; i < n; i++) bad += mma_forms[i].ldst[0] ? check_wmma(&mma_forms[i]) : check_mma(&mma_forms[i]);
        bad += check_movmatrix();
    }
    printf("%s: %u generic mma.sync/wmma forms and movmatrix, 4 rounds each\n", bad ? "FAIL" : "ok", n);
    return bad;
}
