// Barriers across many warps (family "bar").
#define K extern "C" __global__

K void k_bar_phases(const int *in, int *out)
{
    __shared__ int s[1024];
    int t = threadIdx.x, n = blockDim.x;
    s[t] = in[blockIdx.x * n + t];
    for (int phase = 0; phase < 10; phase++) {
        __syncthreads();
        int v = s[(t + 1 + phase * 37) % n] + s[(t * 3 + phase) % n];
        __syncthreads();
        s[t] = v ^ (phase * 0x1111);
    }
    __syncthreads();
    out[blockIdx.x * n + t] = s[n - 1 - t];
}

K void k_bar_red(const int *in, int *out)
{
    int t = threadIdx.x;
    int v = in[blockIdx.x * blockDim.x + t];
    int c = __syncthreads_count(v > 0);
    int a = __syncthreads_and(v != 7);
    int o = __syncthreads_or(v == 12345);
    unsigned pc, pa, po;
    asm volatile("{\n\t.reg .pred p, q;\n\tsetp.ne.s32 p, %3, 0;\n\t"
                 "bar.red.popc.u32 %0, 1, p;\n\tbar.red.and.pred q, 2, p;\n\tselp.u32 %1, 1, 0, q;\n\t"
                 "bar.red.or.pred q, 3, !p;\n\tselp.u32 %2, 1, 0, q;\n\t}"
                 : "=r"(pc), "=r"(pa), "=r"(po) : "r"(v & 1));
    if (t == 0) {
        out[blockIdx.x * 8 + 0] = c;
        out[blockIdx.x * 8 + 1] = a;
        out[blockIdx.x * 8 + 2] = o;
        out[blockIdx.x * 8 + 3] = pc;
        out[blockIdx.x * 8 + 4] = pa;
        out[blockIdx.x * 8 + 5] = po;
    }
}

// producer/consumer with named barriers: warps 0-3 produce and bar.arrive, warps 4-7 bar.sync
K void k_bar_named(const int *in, int *out)
{
    __shared__ int buf[2][128];
    int t = threadIdx.x;
    int w = t / 32;
    for (int it = 0; it < 8; it++) {
        int slot = it & 1;
        if (w < 4) {
            if (it >= 2) asm volatile("bar.sync %0, %1;" ::"r"(3 + slot), "r"(256) : "memory");
            buf[slot][t] = in[it * 128 + t] * (it + 1);
            asm volatile("bar.arrive %0, %1;" ::"r"(1 + slot), "r"(256) : "memory");
        } else {
            asm volatile("bar.sync %0, %1;" ::"r"(1 + slot), "r"(256) : "memory");
            int c = t - 128;
            out[it * 128 + c] = buf[slot][(c * 5) & 127] + buf[slot][c];
            if (it < 6) asm volatile("bar.arrive %0, %1;" ::"r"(3 + slot), "r"(256) : "memory");
        }
    }
}

// barrier with a thread count smaller than the block: only warps 0..3 take part
K void k_bar_subset(int *out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    if (t < 128) {
        s[t] = t * t;
        asm volatile("barrier.sync.aligned 5, 128;" ::: "memory");
        out[t] = s[127 - t];
    } else {
        out[t] = -t;
    }
}

// forward progress between warps: warp 1 spins on a flag that warp 0 sets (notes: works on NVIDIA)
K void k_spin_flag(int *out)
{
    __shared__ volatile int flag;
    __shared__ volatile int data[32];
    int t = threadIdx.x;
    if (t == 0) flag = 0;
    __syncthreads();
    if (t >= 32 && t < 64) {
        while (flag == 0) {
        }
        out[t - 32] = data[t - 32] + 1;
    } else if (t < 32) {
        int v = 0;
        for (int k = 0; k < 1000; k++) v = v * 3 + k + t;
        data[t] = v;
        __threadfence_block();
        __syncwarp();
        if (t == 0) flag = 1;
    }
}

// mbarrier (sm_80): arrive / test_wait between all threads of the block, two phases
K void k_mbarrier(const int *in, int *out)
{
    __shared__ unsigned long long mb;
    __shared__ int s[256];
    int t = threadIdx.x;
    unsigned mba = (unsigned)__cvta_generic_to_shared(&mb);
    if (t == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(mba), "r"(256) : "memory");
    __syncthreads();
    for (int ph = 0; ph < 2; ph++) {
        s[t] = in[t] + ph * 1000 + (ph ? s[t] : 0);
        unsigned long long st;
        asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(st) : "r"(mba) : "memory");
        unsigned done = 0;
        while (!done) {
            asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.shared.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                         : "=r"(done) : "r"(mba), "l"(st) : "memory");
        }
        out[ph * 256 + t] = s[(t + 17) & 255];
        __syncthreads();
    }
}
