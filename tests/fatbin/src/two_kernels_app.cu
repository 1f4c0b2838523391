#include <cstdio>
__global__ void scale(float *x, float s, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= s; }
__global__ void addone(int *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1; }
int main() {
  const int n = 1000; float *d; int *e; float h[n]; int g[n];
  for (int i = 0; i < n; i++) { h[i] = i; g[i] = i; }
  cudaMalloc(&d, n * sizeof(float)); cudaMalloc(&e, n * sizeof(int));
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice); cudaMemcpy(e, g, sizeof g, cudaMemcpyHostToDevice);
  scale<<<(n + 255) / 256, 256>>>(d, 2.5f, n); addone<<<(n + 255) / 256, 256>>>(e, n);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost); cudaMemcpy(g, e, sizeof g, cudaMemcpyDeviceToHost);
  int bad = 0; for (int i = 0; i < n; i++) { if (h[i] != i * 2.5f) bad++; if (g[i] != i + 1) bad++; }
  cudaError_t err = cudaGetLastError();
  printf("%s (%d bad, %s)\n", bad ? "FAIL" : "PASS", bad, cudaGetErrorString(err));
  return bad != 0;
}
