// sm_90 whole-program pieces (family "prog").
#define K extern "C" __global__
// stmatrix: store fragments of an 8x8 b16 matrix x4 from registers to shared memory
K void k_stmatrix(const unsigned *in, unsigned short *out)
{
    __shared__ __align__(16) unsigned short s[16 * 16];
    int lane = threadIdx.x;
    unsigned r0 = in[lane * 4], r1 = in[lane * 4 + 1], r2 = in[lane * 4 + 2], r3 = in[lane * 4 + 3];
    unsigned addr = (unsigned)__cvta_generic_to_shared(&s[(lane % 16) * 16 + (lane / 16) * 8]);
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(addr), "r"(r0), "r"(r1),
                 "r"(r2), "r"(r3) : "memory");
    __syncwarp();
    for (int i = lane; i < 256; i += 32) out[i] = s[i];
}
