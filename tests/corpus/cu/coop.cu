// Cooperative groups.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

__device__ int tile_sum(cg::thread_group g, int *tmp, int v) {
  int lane = g.thread_rank();
  for (int i = g.size() / 2; i > 0; i /= 2) {
    tmp[lane] = v;
    g.sync();
    if (lane < i) v += tmp[lane + i];
    g.sync();
  }
  return v;
}

__global__ void cg_block(int *o, const int *in) {
  __shared__ int tmp[256];
  cg::thread_block blk = cg::this_thread_block();
  int v = in[blk.thread_rank()];
  int s = tile_sum(blk, tmp, v);
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(blk);
  cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(w);
  int ws = cg::reduce(w, v, cg::plus<int>());
  int mx = cg::reduce(t8, v, cg::greater<int>());
  int sc = cg::inclusive_scan(w, v);
  int ex = cg::exclusive_scan(t8, v, cg::bit_xor<int>());
  int sh = w.shfl_down(v, 1) + t8.shfl(v, 0) + w.shfl_xor(v, 4);
  unsigned b = w.ballot(v > 0);
  int an = w.any(v == 3) + w.all(v >= 0);
  w.sync();
  o[blk.thread_rank()] = s + ws + mx + sc + ex + sh + (int)b + an + (int)blk.group_index().x + (int)blk.thread_index().y + (int)w.meta_group_rank();
  if (v & 1) {
    cg::coalesced_group act = cg::coalesced_threads();
    o[blk.thread_rank()] += act.size() + act.thread_rank() + cg::reduce(act, v, cg::plus<int>());
  }
  cg::thread_group dyn = cg::tiled_partition(blk, 16);
  dyn.sync();
}

__global__ void cg_grid(float *data, float *partial, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block blk = cg::this_thread_block();
  __shared__ float red[32];
  float s = 0.f;
  for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) s += data[i];
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(blk);
  s = cg::reduce(w, s, cg::plus<float>());
  if (w.thread_rank() == 0) red[w.meta_group_rank()] = s;
  blk.sync();
  if (blk.thread_rank() == 0) {
    float t = 0.f;
    for (unsigned i = 0; i < w.meta_group_size(); ++i) t += red[i];
    partial[blockIdx.x] = t;
  }
  grid.sync();
  if (grid.thread_rank() == 0) {
    float t = 0.f;
    for (unsigned i = 0; i < gridDim.x; ++i) t += partial[i];
    partial[0] = t;
  }
  grid.sync();
  for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) data[i] /= partial[0];
}

#if __CUDA_ARCH__ >= 900
__global__ void __cluster_dims__(2, 1, 1) cg_cluster(int *o) {
  __shared__ int mine;
  cg::cluster_group cl = cg::this_cluster();
  if (threadIdx.x == 0) mine = (int)cl.block_rank();
  cl.sync();
  int *peer = cl.map_shared_rank(&mine, (cl.block_rank() + 1) % cl.num_blocks());
  o[blockIdx.x * blockDim.x + threadIdx.x] = *peer + (int)cl.dim_blocks().x;
  cl.sync();
}
#endif
