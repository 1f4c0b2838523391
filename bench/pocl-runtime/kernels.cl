// kernels.cl — the OpenCL C twins of kernels.cu (compiled by PoCL itself). Same arithmetic, same index types.
#define TILE 16

kernel void vadd(global const float *a, global const float *b, global float *c, int n)
{
    int i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}

kernel void saxpy(int n, float a, global const float *x, global float *y)
{
    int i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}

kernel void stencil2d(global const float *in, global float *out, int w, int h)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    int i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { out[i] = in[i]; return; }
    out[i] = 0.5f * in[i] + 0.125f * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
}

kernel void reduce(global const float *in, global float *partial, int n)
{
    local float s[256];
    int t = get_local_id(0);
    float v = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) v += in[i];
    s[t] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = get_local_size(0) / 2; d > 0; d >>= 1) {
        if (t < d) s[t] += s[t + d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) partial[get_group_id(0)] = s[0];
}

kernel void matmul(global const float *A, global const float *B, global float *C, int n)
{
    local float As[TILE][TILE], Bs[TILE][TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_group_id(1) * TILE + ty, col = get_group_id(0) * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; t++) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++) acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}
