// Texture and surface objects.
#include <cuda_fp16.h>
__global__ void tex_kernel(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3, cudaTextureObject_t tl, cudaTextureObject_t tc, float *o, float4 *o4, int w) {
  int x = threadIdx.x, y = blockIdx.x;
  float u = (x + 0.5f) / w, v = (y + 0.5f) / w;
  o[y * w + x] = tex2D<float>(t2, u, v) + tex1Dfetch<float>(t1, x) + tex1D<float>(t1, u) + tex3D<float>(t3, u, v, 0.5f);
  o[y * w + x] += tex2DLod<float>(t2, u, v, 1.0f) + tex2DGrad<float>(t2, u, v, make_float2(0.1f, 0.f), make_float2(0.f, 0.1f));
  o[y * w + x] += tex1DLayered<float>(tl, u, 1) + tex2DLayered<float>(tl, u, v, 2) + texCubemap<float>(tc, u, v, 1.f);
  float4 g = tex2Dgather<float4>(t2, u, v, 0);
  float4 g1 = tex2Dgather<float4>(t2, u, v, 3);
  int4 ii = tex2D<int4>(t3, u, v);
  uchar4 uc = tex1Dfetch<uchar4>(t1, x);
  o4[y * w + x] = make_float4(g.x + g1.y, g.y + ii.x, g.z + uc.x, g.w);
}

__global__ void surf_kernel(cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, cudaSurfaceObject_t s3, int w) {
  int x = threadIdx.x, y = blockIdx.x;
  float v = surf2Dread<float>(s2, x * 4, y);
  float4 v4 = surf2Dread<float4>(s2, x * 16, y, cudaBoundaryModeClamp);
  int i1 = surf1Dread<int>(s1, x * 4, cudaBoundaryModeZero);
  uchar4 c4 = surf3Dread<uchar4>(s3, x * 4, y, 0);
  surf2Dwrite(v * 2.f + v4.x + i1, s2, x * 4, y);
  surf2Dwrite(make_float4(v, v, v, 1.f), s2, x * 16, y, cudaBoundaryModeTrap);
  surf1Dwrite(i1 + 1, s1, x * 4);
  surf3Dwrite(c4, s3, x * 4, y, 1);
  short2 sh = make_short2((short)x, (short)y);
  surf1Dwrite(sh, s1, x * 4, cudaBoundaryModeClamp);
  surf2DLayeredwrite(1.0f, s2, x * 4, y, 0);
}

__global__ void tex_half(cudaTextureObject_t t, __half *o) {
  float v = tex1Dfetch<float>(t, threadIdx.x);
  o[threadIdx.x] = __float2half(v);
}
