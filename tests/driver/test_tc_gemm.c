/* test_tc_gemm.c — the CPU runtime's whole-block tensor-core product (driver-stub/cpu/cpu_mma.c p2n_tc_gemm_f32,
 * which the mma/wmma forms with an f32 result use for speed) gives, bit for bit, what the element-wise model fitted
 * to the H200 (p2n_tc_dot_f32) gives for every element: over every block shape those forms have, f16-, bf16- and
 * tf32-valued inputs drawn from zeros of both signs, subnormals, normals of every scale, the largest values,
 * infinities and NaNs (often enough that some rows and columns hold one, seldom enough that most do not), and
 * accumulators of the same kinds. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cpu_internal.h"
#include "mx_forms.h"

static uint64_t state = 0x9e3779b97f4a7c15u;
static uint32_t next(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (uint32_t)(state >> 16);
}

static float from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* a value of the input type `t` (0 f16, 1 bf16, 2 tf32); `special`: how often (1 in N) an infinity or NaN */
static float input(int t, unsigned special) {
    uint32_t r = next();
    if (r % special == 0) return (r >> 8) & 1 ? from_bits(0x7fc00000u | (next() & 0x3fffffu)) : ((r >> 9) & 1 ? INFINITY : -INFINITY);
    switch ((r >> 4) % 32) {
    case 0: case 1: case 2: return (r >> 8) & 1 ? -0.0f : 0.0f;
    case 3: case 4: /* the type's subnormals */
        if (t == 0) return (float)((next() % 1023) + 1) * 0x1p-24f * ((r >> 8) & 1 ? -1 : 1);
        return from_bits((next() & 0x7fffffu & (t == 1 ? 0x7f0000u : 0x7fe000u)) | ((r >> 8) & 1u) << 31);
    case 5: /* the largest values */
        if (t == 0) return (r >> 8) & 1 ? -65504.0f : 65504.0f;
        return from_bits((t == 1 ? 0x7f7f0000u : 0x7f7fe000u) | ((r >> 8) & 1u) << 31);
    default: { /* normals of every scale the type has, rounded to it */
        if (t == 0) {
            _Float16 h = (_Float16)((float)(int32_t)next() * 0x1p-31f * ldexpf(1.0f, (int)(next() % 30) - 14));
            return (float)h;
        }
        uint32_t u = next() & 0xffffffffu;
        unsigned e = r % 4 ? 127 + next() % 81 - 40 : 1 + next() % 254; /* mostly products that stay finite */
        u = (u & 0x807fffffu) | e << 23;
        return from_bits(u & (t == 1 ? 0xffff0000u : 0xffffe000u));
    }
    }
}

int main(void) {
    static const unsigned shapes[][3] = {{16, 16, 16}, {16, 8, 16}, {16, 8, 8}, {16, 8, 4}, {32, 8, 16},
                                         {8, 32, 16}, {16, 16, 4}, {16, 16, 8}};
    static const int emins[3] = {P2N_TC_EMIN_F16, P2N_TC_EMIN_F32, P2N_TC_EMIN_F32};
    unsigned long checked = 0, fast = 0, bad = 0;
    for (unsigned round = 0; round < 600; round++) {
        const unsigned *sh = shapes[round % 8];
        unsigned M = sh[0], N = sh[1], K = sh[2];
        int t = (round / 8) % 3;
        unsigned special = round % 5 == 0 ? 7 : round % 5 == 1 ? 60 : 4000;
        float A[32 * 32], B[32 * 32], C[32 * 32], D[32 * 32];
        for (unsigned i = 0; i < M * K; i++) A[i] = input(t, special);
        for (unsigned i = 0; i < K * N; i++) B[i] = input(t, special);
        for (unsigned i = 0; i < M * N; i++) C[i] = round % 3 == 0 ? 0.0f : input(1, special); /* any f32 */
        p2n_tc_gemm_f32(M, N, K, A, B, C, D, emins[t]);
        for (unsigned r = 0; r < M; r++)
            for (unsigned c = 0; c < N; c++) {
                float b[32];
                for (unsigned k = 0; k < K; k++) b[k] = B[k * N + c];
                float want = p2n_tc_dot_f32(C[r * N + c], A + r * K, b, K, emins[t]);
                checked++;
                fast += isfinite(want);
                if (bits_of(want) != bits_of(D[r * N + c]) && bad++ < 10)
                    printf("check failed: round %u (%ux%ux%u, type %d) element (%u, %u): %08x, want %08x\n", round, M,
                           N, K, t, r, c, bits_of(D[r * N + c]), bits_of(want));
            }
    }
    printf("%lu elements compared (%lu finite), %lu differ\n", checked, fast, bad);
    if (bad) return 1;
    printf("test_tc_gemm: all checks passed\n");
    return 0;
}
