/* run_tree_reduce.c — tests/spirv/tree_reduce.ptx through libcuda.so.1: the tree reductions `reduce` (counter from
 * blockDim.x / 2) and `reduce_w` (counter from an argument w) for block sizes 1..256, several grids and widths.
 * The expected partial sums are computed here in C in exactly the kernel's summation order (grid-stride partial
 * sums per thread, then the halving tree, including what a non-power-of-two width leaves out), so every float must
 * match bit for bit. On PoCL (P2N_BACKEND=opencl) this runs the loop whose counter targets/spirv/spirv_remat.c
 * (guard_phi_folds) presents as a select of get_work_dim(); on the CPU backend the same kernels without it. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../driver/check.h"

/* the kernel's result for block b of a grid of g blocks of bs threads, tree width w (reduce: w = bs) */
static float expect_partial(const float *in, int n, int g, int bs, unsigned w, int b) {
    float s[256];
    for (int t = 0; t < bs; t++) {
        float v = 0.0f;
        for (int i = b * bs + t; i < n; i += g * bs) v += in[i];
        s[t] = v;
    }
    for (unsigned d = w / 2; d > 0; d /= 2)
        for (unsigned t = 0; t < d; t++) s[t] += s[t + d]; /* t + d < w <= bs: within the block */
    return s[0];
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: run_tree_reduce tree_reduce.ptx\n"); return 2; }
    CUmodule mod = must_load_ptx(argv[1]);
    CUfunction reduce, reduce_w;
    MUST(cuModuleGetFunction(&reduce, mod, "reduce"));
    MUST(cuModuleGetFunction(&reduce_w, mod, "reduce_w"));
    enum { N = 100003, GMAX = 64 };
    float *in = malloc(N * sizeof *in), out[GMAX];
    unsigned seed = 12345;
    for (int i = 0; i < N; i++) { /* values of mixed magnitude, so that the summation order shows */
        seed = seed * 1664525u + 1013904223u;
        in[i] = (float)((int)(seed >> 8) % 20001 - 10000) * ((seed & 1) ? 1e-3f : 1.0f);
    }
    CUdeviceptr din, dout;
    MUST(cuMemAlloc(&din, N * sizeof *in));
    MUST(cuMemAlloc(&dout, GMAX * sizeof *out));
    MUST(cuMemcpyHtoD(din, in, N * sizeof *in));
    static const int blocks[] = {1, 2, 3, 7, 32, 100, 128, 256};
    static const int grids[] = {1, 5, GMAX};
    int n = N, launches = 0, wrong = 0;
    for (size_t bi = 0; bi < sizeof blocks / sizeof *blocks; bi++)
        for (size_t gi = 0; gi < sizeof grids / sizeof *grids; gi++)
            for (int k = 0; k < 3; k++) { /* reduce; reduce_w with w = bs and with w = bs / 2 + 1 */
                int bs = blocks[bi], g = grids[gi];
                unsigned w = k == 2 ? (unsigned)bs / 2 + 1 : (unsigned)bs;
                void *args[] = {&din, &dout, &n, &w};
                MUST(cuMemsetD8(dout, 0xff, GMAX * sizeof *out));
                MUST(cuLaunchKernel(k ? reduce_w : reduce, g, 1, 1, bs, 1, 1, 0, NULL, args, NULL));
                MUST(cuCtxSynchronize());
                MUST(cuMemcpyDtoH(out, dout, g * sizeof *out));
                launches++;
                for (int b = 0; b < g; b++) {
                    float want = expect_partial(in, N, g, bs, w, b);
                    if (memcmp(&out[b], &want, sizeof want)) {
                        if (wrong++ < 5)
                            fprintf(stderr, "%s grid %d block %d w %u: partial[%d] = %.9g, expected %.9g\n",
                                    k ? "reduce_w" : "reduce", g, bs, w, b, out[b], want);
                    }
                }
            }
    printf("tree_reduce: %d launches, %d wrong partial sums\n", launches, wrong);
    cuMemFree(din);
    cuMemFree(dout);
    cuModuleUnload(mod);
    free(in);
    if (!wrong && !check_failures) printf("run_tree_reduce: all checks passed\n");
    return wrong || check_failures ? 1 : 0;
}
