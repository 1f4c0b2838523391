// sm_90 warp operations (family "warp").
#define K extern "C" __global__
K void k_elect(const int *in, unsigned *out)
{
    int t = threadIdx.x;
    unsigned r, p;
    asm volatile("{\n\t.reg .pred q;\n\telect.sync %0|q, 0xffffffff;\n\tselp.u32 %1, 1, 0, q;\n\t}" : "=r"(r), "=r"(p));
    out[t * 4 + 0] = r;
    out[t * 4 + 1] = p;
    out[t * 4 + 2] = 0xffffffff;
    out[t * 4 + 3] = 0xffffffff;
    if (in[t] & 1) {
        asm volatile("{\n\t.reg .pred q;\n\telect.sync %0|q, %2;\n\tselp.u32 %1, 1, 0, q;\n\t}"
                     : "=r"(r), "=r"(p) : "r"(__activemask()));
        out[t * 4 + 2] = r;
        out[t * 4 + 3] = p;
    }
}
