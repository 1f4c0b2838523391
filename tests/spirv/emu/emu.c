/* emu.c — runs the SPIR-V target's LLVM IR of warp_ops.ptx on the host with one work-group of one 32-lane
 * sub-group (32 threads; every sub-group built-in is a rendezvous of all 32) and compares the results with the
 * CPU runtime's definition of the same operations (driver-stub/cpu/cpu_matrix.c p2n_matrix_compute and
 * p2n_matrix_lane; match/redux as cpu_exec.c coll_compute computes them), which is what the 662 NVIDIA-recorded
 * conformance cases check. Checks the lowerings' lane/fragment index mapping and
 * arithmetic, not the SPIR-V back end. Built and run by tests/spirv/emu/run.sh. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "host_abi.h"

void p2n_matrix_compute(uint32_t op, uint32_t *io[32]);
void k_mma(uint64_t out, uint64_t in, void *local, int32_t dyn);
void k_ldmatrix(uint64_t out, uint64_t in, void *local, int32_t dyn);
void k_stmatrix(uint64_t out, uint64_t in, void *local, int32_t dyn);
void k_wmma(uint64_t out, uint64_t in, void *local, int32_t dyn);
void k_match(uint64_t out, uint64_t in, void *local, int32_t dyn);
void p2n_matrix_lane(uint32_t op, uint32_t *io, uint32_t lane);

typedef uint32_t v4u __attribute__((vector_size(16)));
static pthread_barrier_t bar;
static _Thread_local uint32_t my_lane;
static uint32_t slot[32];

int64_t _Z12get_local_idj(int32_t d) { return d == 0 ? my_lane : 0; }
int64_t _Z14get_local_sizej(int32_t d) { return d == 0 ? 32 : 1; }
int64_t _Z12get_group_idj(int32_t d) { (void)d; return 0; }
int64_t _Z14get_num_groupsj(int32_t d) { (void)d; return 1; }
void _Z22__spirv_ControlBarrieriii(int32_t e, int32_t m, int32_t s) { (void)e; (void)m; (void)s; pthread_barrier_wait(&bar); }

uint32_t __spirv_GroupNonUniformShuffle(int32_t scope, uint32_t v, uint32_t id) {
    (void)scope;
    slot[my_lane] = v;
    pthread_barrier_wait(&bar);
    uint32_t r = slot[id & 31];
    pthread_barrier_wait(&bar);
    return r;
}

v4u __spirv_GroupNonUniformBallot(int32_t scope, _Bool p) {
    (void)scope;
    slot[my_lane] = p;
    pthread_barrier_wait(&bar);
    uint32_t m = 0;
    for (unsigned l = 0; l < 32; l++) m |= (slot[l] & 1u) << l;
    pthread_barrier_wait(&bar);
    return (v4u){m, 0, 0, 0};
}

static uint32_t in[32 * 16], out[32 * 16], tile_in[32 * 4], lout[32 * 8];
static _Alignas(16) uint8_t local[1024];

static void *lane_mma(void *a) {
    my_lane = (uint32_t)(uintptr_t)a;
    k_mma((uint64_t)(uintptr_t)out, (uint64_t)(uintptr_t)in, local, 0);
    return NULL;
}

static void *lane_ldm(void *a) {
    my_lane = (uint32_t)(uintptr_t)a;
    k_ldmatrix((uint64_t)(uintptr_t)lout, (uint64_t)(uintptr_t)tile_in, local, 0);
    return NULL;
}

static uint32_t sin_[32 * 4], sout[2][32 * 4], win[1024 / 4 * 3], wout[256], min_[65 * 2], mout[32 * 8];
static void *lane_stm(void *a) {
    my_lane = (uint32_t)(uintptr_t)a;
    k_stmatrix((uint64_t)(uintptr_t)sout, (uint64_t)(uintptr_t)sin_, local, 0);
    return NULL;
}
static void *lane_wmma(void *a) {
    my_lane = (uint32_t)(uintptr_t)a;
    k_wmma((uint64_t)(uintptr_t)wout, (uint64_t)(uintptr_t)win, local, 0);
    return NULL;
}
static void *lane_match(void *a) {
    my_lane = (uint32_t)(uintptr_t)a;
    k_match((uint64_t)(uintptr_t)mout, (uint64_t)(uintptr_t)min_, local, 0);
    return NULL;
}

static void run(void *(*fn)(void *)) {
    pthread_t t[32];
    for (uintptr_t l = 0; l < 32; l++) pthread_create(&t[l], NULL, fn, (void *)l);
    for (unsigned l = 0; l < 32; l++) pthread_join(t[l], NULL);
}

static uint32_t rng = 12345;
static uint32_t rnd(void) { rng = rng * 1664525u + 1013904223u; return rng; }

/* for emu_mma.c: the random source, and one launch of a kernel (out, in) on the 32 lanes */
uint32_t emu_rnd(void) { return rnd(); }
static void (*emu_k)(uint64_t, uint64_t, void *, int32_t);
static uint64_t emu_out, emu_in;
static void *lane_any(void *a) {
    my_lane = (uint32_t)(uintptr_t)a;
    emu_k(emu_out, emu_in, local, 0);
    return NULL;
}
void emu_run(void (*k)(uint64_t, uint64_t, void *, int32_t), uint64_t out, uint64_t in) {
    emu_k = k, emu_out = out, emu_in = in;
    run(lane_any);
}
int emu_mma_forms(void); /* emu_mma.c */

/* an f16 of moderate range (no overflow in the products), sometimes negative, subnormal, infinite or NaN */
static uint16_t rnd_half(void) {
    uint32_t r = rnd();
    uint16_t e = (uint16_t)(5 + (r >> 8) % 21), m = (uint16_t)((r >> 13) & 0x3ff);
    if ((r & 15) == 0) e = 0;
    if ((r & 255) == 1) e = 31; /* an infinity or a NaN now and then: the f32 path, NaN made canonical */
    return (uint16_t)(((r >> 31) << 15) | (e << 10) | m);
}

int main(void) {
    pthread_barrier_init(&bar, NULL, 32);
    int bad = 0;
    for (int round = 0; round < 20; round++) {
        uint32_t io[32][14], io_s8[32][14], *p[32], *ps[32];
        for (unsigned l = 0; l < 32; l++) {
            for (unsigned w = 0; w < 6; w++) in[l * 16 + w] = round & 1 ? rnd() : (uint32_t)rnd_half() | (uint32_t)rnd_half() << 16;
            for (unsigned w = 0; w < 4; w++) {
                float c = (float)(int32_t)(rnd() % 2001 - 1000) / 64.0f;
                memcpy(&in[l * 16 + 8 + w], &c, 4);
                in[l * 16 + 12 + w] = rnd();
            }
            for (unsigned w = 0; w < 6; w++) io[l][w] = io_s8[l][w] = in[l * 16 + w];
            for (unsigned w = 0; w < 4; w++) {
                io[l][6 + w] = in[l * 16 + 8 + w];
                io_s8[l][6 + w] = in[l * 16 + 12 + w];
            }
            p[l] = io[l];
            ps[l] = io_s8[l];
        }
        p2n_matrix_compute(P2N_MX_MMA_F16_F32_M16N8K16, p);
        p2n_matrix_compute(P2N_MX_MMA_S8_S32_M16N8K32, ps);
        run(lane_mma);
        for (unsigned l = 0; l < 32; l++)
            for (unsigned i = 0; i < 4; i++) {
                if (out[l * 16 + i] != io[l][10 + i] && bad++ < 10)
                    printf("mma f16 round %d lane %u d%u: got %08x want %08x\n", round, l, i, out[l * 16 + i], io[l][10 + i]);
                if (out[l * 16 + 4 + i] != io_s8[l][10 + i] && bad++ < 10)
                    printf("mma s8 round %d lane %u d%u: got %08x want %08x\n", round, l, i, out[l * 16 + 4 + i], io_s8[l][10 + i]);
            }
        /* ldmatrix: the tile is the 32 rows of 16 bytes, row l at lane l's address */
        uint32_t lio[2][32][6], *lp[2][32];
        for (unsigned w = 0; w < 32 * 4; w++) tile_in[w] = rnd();
        for (unsigned t = 0; t < 2; t++)
            for (unsigned l = 0; l < 32; l++) {
                uint64_t a = (uint64_t)(uintptr_t)&tile_in[l * 4];
                memcpy(lio[t][l], &a, 8);
                lp[t][l] = lio[t][l];
            }
        p2n_matrix_compute(P2N_MX_LDMATRIX | 4u << 8, lp[0]);
        p2n_matrix_compute(P2N_MX_LDMATRIX | 4u << 8 | P2N_MX_TRANS, lp[1]);
        run(lane_ldm);
        for (unsigned t = 0; t < 2; t++)
            for (unsigned l = 0; l < 32; l++)
                for (unsigned i = 0; i < 4; i++)
                    if (lout[l * 8 + t * 4 + i] != lio[t][l][2 + i] && bad++ < 10)
                        printf("ldmatrix%s lane %u r%u: got %08x want %08x\n", t ? ".trans" : "", l, i,
                               lout[l * 8 + t * 4 + i], lio[t][l][2 + i]);
    }
    for (int round = 0; round < 20; round++) {
        /* stmatrix x4 (.trans): lane l's registers into the 32 rows of 16 bytes, row l at lane l's address */
        uint32_t sio[2][32][6], *sp[2][32], host[2][32 * 4];
        for (unsigned w = 0; w < 32 * 4; w++) sin_[w] = rnd();
        for (unsigned t = 0; t < 2; t++)
            for (unsigned l = 0; l < 32; l++) {
                uint64_t a = (uint64_t)(uintptr_t)&host[t][l * 4];
                memcpy(sio[t][l], &a, 8);
                memcpy(&sio[t][l][2], &sin_[l * 4], 16);
                sp[t][l] = sio[t][l];
            }
        p2n_matrix_compute(P2N_MX_STMATRIX | 4u << 8, sp[0]);
        p2n_matrix_compute(P2N_MX_STMATRIX | 4u << 8 | P2N_MX_TRANS, sp[1]);
        run(lane_stm);
        for (unsigned t = 0; t < 2; t++)
            for (unsigned w = 0; w < 32 * 4; w++)
                if (sout[t][w] != host[t][w] && bad++ < 10)
                    printf("stmatrix%s word %u: got %08x want %08x\n", t ? ".trans" : "", w, sout[t][w], host[t][w]);
        /* wmma m16n16k16: A row-major, B column-major (f16), C row-major (f32), leading dimension 16 */
        uint16_t *h = (uint16_t *)win;
        for (unsigned e = 0; e < 512; e++) h[e] = rnd_half();
        for (unsigned e = 0; e < 256; e++) {
            float c = (float)(int32_t)(rnd() % 2001 - 1000) / 32.0f;
            memcpy(&win[256 + e], &c, 4);
        }
        uint32_t wio[32][32], *wp[32], want[256];
        for (unsigned l = 0; l < 32; l++) {
            static const uint32_t ops[3] = {P2N_MX_WMMA_LOAD | P2N_MX_FRAG_A, P2N_MX_WMMA_LOAD | P2N_MX_FRAG_B | P2N_MX_COLMAJOR,
                                            P2N_MX_WMMA_LOAD | P2N_MX_FRAG_C};
            for (unsigned f = 0; f < 3; f++) {
                uint32_t lio[11];
                uint64_t a = (uint64_t)(uintptr_t)&win[f * 128];
                memcpy(lio, &a, 8);
                lio[2] = 16;
                p2n_matrix_lane(ops[f], lio, l);
                memcpy(&wio[l][f * 8], &lio[3], 32);
            }
            wp[l] = wio[l];
        }
        p2n_matrix_compute(P2N_MX_WMMA_F16_F32_M16N16K16, wp);
        for (unsigned l = 0; l < 32; l++) {
            uint32_t lio[11];
            uint64_t a = (uint64_t)(uintptr_t)want;
            memcpy(lio, &a, 8);
            lio[2] = 16;
            memcpy(&lio[3], &wio[l][24], 32);
            p2n_matrix_lane(P2N_MX_WMMA_STORE | P2N_MX_FRAG_C, lio, l);
        }
        run(lane_wmma);
        for (unsigned e = 0; e < 256; e++)
            if (wout[e] != want[e] && bad++ < 10) printf("wmma element %u: got %08x want %08x\n", e, wout[e], want[e]);
        /* match.any/all b32/b64 (full mask / membermask from in), redux.sync min/add with that membermask */
        uint64_t v[32];
        uint32_t mask = round & 1 ? 0xffffffffu : rnd() | 1u;
        for (unsigned l = 0; l < 32; l++) {
            v[l] = round % 5 == 4 ? 0x500000007ull : (uint64_t)(rnd() % 3) << (round & 2 ? 32 : 0) | rnd() % 3;
            memcpy(&min_[l * 2], &v[l], 8);
        }
        min_[64] = mask;
        run(lane_match);
        for (unsigned l = 0; l < 32; l++) {
            uint32_t any32 = 0, any64 = 0, all32 = 1, all64 = 1, first = (uint32_t)__builtin_ctz(mask);
            uint32_t mn = (uint32_t)v[first], sum = 0;
            for (unsigned k = 0; k < 32; k++) {
                any32 |= (uint32_t)((uint32_t)v[k] == (uint32_t)v[l]) << k;
                any64 |= (uint32_t)(v[k] == v[l]) << k;
                if (!(mask >> k & 1)) continue;
                all32 &= (uint32_t)v[k] == (uint32_t)v[first];
                all64 &= v[k] == v[first];
                mn = (int32_t)v[k] < (int32_t)mn ? (uint32_t)v[k] : mn;
                sum += (uint32_t)v[k];
            }
            uint32_t exp[8] = {any32, all32 ? mask : 0, all32, any64, all64 ? mask : 0, all64, mn, sum};
            /* lanes outside membermask: PTX leaves their match.all/redux results undefined */
            for (unsigned i = 0; i < 8; i++) {
                bool defined = i == 0 || i == 3 || (mask >> l & 1);
                if (defined && mout[l * 8 + i] != exp[i] && bad++ < 10)
                    printf("match/redux round %d lane %u result %u: got %08x want %08x (mask %08x)\n", round, l, i,
                           mout[l * 8 + i], exp[i], mask);
            }
        }
    }
    printf("%s: mma.sync f16/s8, ldmatrix/stmatrix x4 (.trans), wmma, match, redux; 20 rounds x 32 lanes each\n",
           bad ? "FAIL" : "ok");
    bad += emu_mma_forms();
    return bad != 0;
}
