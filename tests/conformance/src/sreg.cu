// Special registers in 3-D grids (family "sreg").
#define K extern "C" __global__

K void k_sreg3d(unsigned *out)
{
    unsigned bid = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    unsigned tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    unsigned nthr = blockDim.x * blockDim.y * blockDim.z;
    unsigned *o = out + (bid * nthr + tid) * 14;
    o[0] = threadIdx.x; o[1] = threadIdx.y; o[2] = threadIdx.z;
    o[3] = blockDim.x; o[4] = blockDim.y; o[5] = blockDim.z;
    o[6] = blockIdx.x; o[7] = blockIdx.y; o[8] = blockIdx.z;
    o[9] = gridDim.x; o[10] = gridDim.y; o[11] = gridDim.z;
    unsigned lane, warpid, nwarpid, smid, nsmid;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
    asm("mov.u32 %0, %%nwarpid;" : "=r"(nwarpid));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
    o[12] = lane;
    // %warpid / %smid are volatile and implementation-specific: only check they are in range
    o[13] = (lane == (tid & 31) ? 1u : 0u) | (warpid < nwarpid ? 2u : 0u) | (smid < nsmid ? 4u : 0u);
}

K void k_clock(unsigned *out)
{
    long long c0 = clock64();
    unsigned t0 = clock();
    unsigned long long g0, g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    int acc = threadIdx.x;
    for (int k = 0; k < 1000; k++) acc = acc * 1664525 + 1013904223;
    long long c1 = clock64();
    unsigned t1 = clock();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    out[threadIdx.x] = (c1 > c0 ? 1u : 0u) | ((t1 - t0) > 0 ? 2u : 0u) | (g1 >= g0 ? 4u : 0u) | (acc == 12345 ? 8u : 0u);
}

K void k_dynsmem(unsigned *out)
{
    extern __shared__ char dyn[];
    unsigned d, tot;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(d));
    asm("mov.u32 %0, %%total_smem_size;" : "=r"(tot));
    (void)dyn;
    if (threadIdx.x == 0) {
        out[0] = d;
        out[1] = tot >= d ? 1u : 0u;
    }
}
