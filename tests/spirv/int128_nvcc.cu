#include <cstdint>
__global__ void k128(unsigned __int128 *o, const unsigned __int128 *a, const __int128 *s, uint64_t x, uint64_t y, int n) {
  int i = threadIdx.x;
  unsigned __int128 p = (unsigned __int128)x * y + a[i];
  o[i*8+0] = p;
  o[i*8+1] = p / a[i+1];
  o[i*8+2] = p % (a[i+2] | 1);
  o[i*8+3] = p << (i & 127);
  o[i*8+4] = p >> (n & 127);
  o[i*8+5] = (unsigned __int128)(s[i] >> (n & 127));
  o[i*8+6] = (unsigned __int128)(s[i] / (s[i+1] | 1));
  o[i*8+7] = (p > a[i+3]) ? p * a[i+3] : (unsigned __int128)__umul64hi(x, y);
}
__global__ void fastdiv(uint64_t *o, const uint64_t *a, uint64_t mp, unsigned l, uint64_t d) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  uint64_t q = __umul64hi(a[i], mp);
  q = (q + a[i]) >> l;
  o[i] = q + a[i] / d + (uint64_t)((__int128)(int64_t)a[i] * (int64_t)mp >> 70);
}
