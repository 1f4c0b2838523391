// trap, assert and printf (families "trap" and "printf").
#include <cstdio>
#include <cassert>
#define K extern "C" __global__

K void k_printf_basic(const int *in)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        printf("hello from the GPU\n");
        printf("int %d uint %u hex %x HEX %X oct %o\n", in[0], (unsigned)in[1], in[2], in[2], in[3]);
        printf("ll %lld ull %llu char %c str %s pct %%\n", (long long)in[0] * 1000000007LL,
               0xffffffffffffffffull, 'A' + (in[3] & 15), "text");
        printf("width [%5d] [%-5d] [%05d] [%+d]\n", in[3], in[3], in[3], in[3]);
        float f = __int_as_float(in[4]);
        double d = 1.0 / 3.0;
        printf("f %f e %e g %g prec %.3f d %.15g\n", f, f, f, f, d);
        printf("inf %f nan %f neg0 %f\n", __int_as_float(0x7f800000), __int_as_float(0x7fc00000), -0.0);
        printf("no newline at end");
    }
}

K void k_printf_ordered(const int *in)
{
    for (int k = 0; k < 4; k++) {
        if (threadIdx.x == k * 33) printf("thread %d of block %d says %d\n", threadIdx.x, blockIdx.x, in[k]);
        __syncthreads();
    }
}

K void k_printf_many_args(void)
{
    if (threadIdx.x == 0)
        printf("%d %d %d %d %d %d %d %d %d %d %d %d %f %f\n", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0.5, 2.5);
}

K void k_trap(int *out)
{
    out[threadIdx.x] = 1;
    if (threadIdx.x == 5) __trap();
}

K void k_ok(int *out) { out[threadIdx.x] = 100 + threadIdx.x; }

K void k_assert(const int *in, int *out)
{
    out[threadIdx.x] = in[threadIdx.x];
    assert(in[threadIdx.x] != 7);
}

K void k_null_store(int *out)
{
    int *p = (int *)(unsigned long long)out[0];
    *p = 1;
}
