// Kernels whose threads wait for each other only at __syncthreads (family "bar"): the shapes the CPU backend's
// work-item loops (targets/host/work_item_loops.c) must keep — barrier sites reached by different warps, warps that
// exit before or between barriers, local arrays and values live across barriers, 3-D blocks, device functions
// reading the thread's coordinates between barriers, per-warp barrier counts that differ.
#define K extern "C" __global__

// warps 0 and 2 wait at one bar.sync 0, warps 1 and 3 at another: one barrier (ids, not sites, count)
K void k_reg_sites(const int *in, int *out)
{
    __shared__ int s[128];
    int t = threadIdx.x, x;
    s[t] = in[blockIdx.x * 128 + t];
    if (t & 32) {
        s[t] += 1;
        __syncthreads();
        x = s[t ^ 32] * 3;
    } else {
        s[t] -= 1;
        __syncthreads();
        x = s[t ^ 32] + 7;
    }
    __syncthreads();
    s[t] = x;
    __syncthreads();
    out[blockIdx.x * 128 + t] = s[127 - t] ^ x;
}

// warp 2 leaves before the first barrier, warp 1 in the middle of the loop: the others' barriers still release
K void k_reg_exit(const int *in, int *out)
{
    __shared__ int s[96];
    int t = threadIdx.x, w = t / 32;
    s[t] = in[blockIdx.x * 96 + t];
    out[blockIdx.x * 96 + t] = -1;
    if (w == 2) return;
    int acc = 0;
    for (int i = 0; i < 6; i++) {
        __syncthreads();
        acc += s[(t + 5 * i + 1) % 32 + (w == 0 ? 0 : 32)];
        if (i == 3 && w == 1) {
            out[blockIdx.x * 96 + t] = acc;
            return;
        }
        __syncthreads();
        s[t] = acc ^ i;
    }
    out[blockIdx.x * 96 + t] = acc + s[t];
}

// a local array indexed at run time, live across barriers
K void k_reg_local(const int *in, int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int loc[16];
    for (int i = 0; i < 16; i++) loc[i] = in[(blockIdx.x * 64 + t) * 16 + i] ^ i;
    __syncthreads();
    s[t] = loc[t % 16];
    __syncthreads();
    int acc = 0;
    for (int i = 0; i < 16; i++) {
        acc += loc[(i * 7 + t) % 16] * s[(t + i) % 64];
        loc[(t + i) % 16] = acc;
    }
    __syncthreads();
    s[t] = acc;
    __syncthreads();
    out[blockIdx.x * 64 + t] = s[63 - t] + loc[t % 16];
}

// a 3-D block: neighbours along x, y and z through shared memory
K void k_reg_3d(const int *in, int *out)
{
    __shared__ int s[3][4][8];
    int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
    int id = (z * 4 + y) * 8 + x, base = blockIdx.x * 96;
    s[z][y][x] = in[base + id];
    for (int r = 0; r < 4; r++) {
        __syncthreads();
        int v = s[(z + 1) % 3][y][x] + 2 * s[z][(y + 3) % 4][x] - s[z][y][(x + r) % 8];
        __syncthreads();
        s[z][y][x] = v;
    }
    __syncthreads();
    out[base + id] = s[2 - z][3 - y][7 - x] * 10 + id;
}

// nested loops with barriers, trip counts from the parameters, values carried around them
K void k_reg_nested(const int *in, int *out, int n1, int n2)
{
    __shared__ int s[128];
    int t = threadIdx.x, acc = in[blockIdx.x * 128 + t];
    s[t] = acc;
    for (int i = 0; i < n1; i++) {
        for (int j = 0; j < n2; j++) {
            __syncthreads();
            int v = s[(t + j + 1) % 128] - s[(t * 5 + i) % 128];
            __syncthreads();
            s[t] = v + i * j;
        }
        acc = acc * 3 + s[t];
    }
    out[blockIdx.x * 128 + t] = acc;
}

// a device function (not inlined) that reads the thread's coordinates, called between barriers
__device__ __noinline__ int who(int a) { return a * 1000 + (int)threadIdx.x + 100 * (int)threadIdx.y; }

K void k_reg_devfunc(const int *in, int *out)
{
    __shared__ int s[2][32];
    int x = threadIdx.x, y = threadIdx.y;
    s[y][x] = who(in[blockIdx.x * 64 + y * 32 + x]);
    __syncthreads();
    int v = who(s[1 - y][31 - x] & 0xffff);
    __syncthreads();
    s[y][x] = v;
    __syncthreads();
    out[blockIdx.x * 64 + y * 32 + x] = s[y][(x + 1) % 32] - who(0);
}

// warp w passes 2 (w + 1) barriers in its loop, then two more: the counts differ per warp, a barrier releases when
// every warp still running has arrived at some bar.sync 0 (each read lies between two barriers of every warp)
K void k_reg_counts(int *out)
{
    __shared__ int s[128];
    int t = threadIdx.x, w = t / 32, c = 0;
    for (int i = 0; i <= w; i++) {
        s[t] = ++c * 100 + w;
        __syncthreads();
        int r = s[(t + 32) % 128];
        __syncthreads();
        out[(blockIdx.x * 128 + t) * 8 + i] = r;
    }
    s[t] = ++c * 100 + w + 50;
    __syncthreads();
    out[(blockIdx.x * 128 + t) * 8 + 7] = s[(t + 64) % 128];
    __syncthreads();
}
