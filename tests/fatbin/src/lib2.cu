// archive member 2
__global__ void fill(int *p, int v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = v + i;
}
extern "C" int lib_fill(int *p, int v, int n) {
    fill<<<(n + 255) / 256, 256>>>(p, v, n);
    return (int)cudaGetLastError();
}
