// Static and dynamic shared memory, block-wide sync variants.
extern __shared__ float dyn_f[];
extern __shared__ __align__(16) unsigned char dyn_raw[];

__global__ void static_shared(float *out, const float *in) {
  __shared__ float tile[32][33];
  __shared__ __align__(16) int4 vec_tile[16];
  __shared__ double dbuf[8];
  int tx = threadIdx.x, ty = threadIdx.y;
  tile[ty][tx] = in[ty * 32 + tx];
  if (tx < 16 && ty == 0) vec_tile[tx] = make_int4(tx, tx + 1, tx + 2, tx + 3);
  if (tx < 8 && ty == 1) dbuf[tx] = tx * 1.5;
  __syncthreads();
  out[tx * 32 + ty] = tile[tx][ty] + vec_tile[tx & 15].y + (float)dbuf[tx & 7];
}

__global__ void dynamic_shared(float *out, const float *in, int n) {
  int t = threadIdx.x;
  dyn_f[t] = in[t];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) dyn_f[t] += dyn_f[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = dyn_f[0];
}

__global__ void dynamic_raw(int *out, int n) {
  int *ip = reinterpret_cast<int *>(dyn_raw);
  short *sp = reinterpret_cast<short *>(dyn_raw + n * sizeof(int));
  ip[threadIdx.x] = threadIdx.x;
  sp[threadIdx.x] = (short)threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = ip[blockDim.x - 1 - threadIdx.x] + sp[threadIdx.x ^ 1];
}

__global__ void sync_variants(int *out, const int *in) {
  int t = threadIdx.x;
  int v = in[t];
  int c = __syncthreads_count(v > 0);
  int a = __syncthreads_and(v != 0);
  int o = __syncthreads_or(v == 7);
  out[t] = c * 4 + a * 2 + o;
}

// Shared memory via generic pointer, plus volatile shared
__device__ __noinline__ int read_generic(const int *p, int i) { return p[i]; }
__global__ void generic_shared(int *out) {
  __shared__ int s[128];
  volatile __shared__ int flag;
  s[threadIdx.x] = threadIdx.x * 2;
  if (threadIdx.x == 0) flag = 1;
  __syncthreads();
  out[threadIdx.x] = read_generic(s, threadIdx.x ^ 3) + flag + (__isShared(s) ? 1 : 0) + (__isGlobal(out) ? 2 : 0);
  unsigned addr = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);
  out[threadIdx.x] += (int)addr;
}
