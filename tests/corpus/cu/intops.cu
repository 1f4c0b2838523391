// Integer intrinsics and SIMD video instructions.
__global__ void bit_ops(unsigned *o, unsigned long long *ol, const unsigned *in, const unsigned long long *inl) {
  int t = threadIdx.x;
  unsigned x = in[t], y = in[t + 1];
  unsigned long long a = inl[t], b = inl[t + 1];
  o[t * 8 + 0] = __popc(x) + __popcll(a) + __clz(x) + __clzll(a) + __ffs(x) + __ffsll(a);
  o[t * 8 + 1] = __brev(x) ^ (unsigned)__brevll(a) ^ __byte_perm(x, y, 0x5140) ^ __byte_perm(x, y, t);
  o[t * 8 + 2] = __funnelshift_l(x, y, t) + __funnelshift_r(x, y, t) + __funnelshift_lc(x, y, t) + __funnelshift_rc(x, y, 5);
  o[t * 8 + 3] = __umulhi(x, y) + __mulhi((int)x, (int)y) + __mul24((int)x, (int)y) + __umul24(x, y) + __usad(x, y, 3u) + __sad((int)x, (int)y, 7u);
  o[t * 8 + 4] = __hadd((int)x, (int)y) + __rhadd((int)x, (int)y) + __uhadd(x, y) + __urhadd(x, y);
  ol[t * 2 + 0] = __umul64hi(a, b) + __mul64hi((long long)a, (long long)b) + (a * b) + (a / (b | 1)) + (a % (b | 3));
  ol[t * 2 + 1] = (a << (t & 63)) | (b >> (t & 63)) | (unsigned long long)((long long)a >> 3);
  o[t * 8 + 5] = x / (y | 1) + x % (y | 1) + (unsigned)((int)x / ((int)y | 1)) + (unsigned)((int)x % 7);
  o[t * 8 + 6] = max(x, y) + min(x, y) + (unsigned)abs((int)x) + (unsigned)max((int)x, (int)y) + (unsigned)llabs((long long)a);
}

__global__ void dp_ops(int *o, unsigned *ou, const int *a, const int *b) {
  int t = threadIdx.x;
  o[t] = __dp4a(a[t], b[t], 1) + __dp2a_lo(a[t], b[t], 2) + __dp2a_hi(a[t], b[t], 3);
  ou[t] = __dp4a((unsigned)a[t], (unsigned)b[t], 1u) + __dp2a_lo((unsigned)a[t], (unsigned)b[t], 1u) + __dp2a_hi((unsigned)a[t], (unsigned)b[t], 1u);
}

__global__ void simd_video(unsigned *o, const unsigned *a, const unsigned *b) {
  int t = threadIdx.x;
  unsigned x = a[t], y = b[t];
  unsigned r = 0;
  r += __vadd2(x, y) + __vadd4(x, y) + __vaddss2(x, y) + __vaddus4(x, y);
  r += __vsub2(x, y) + __vsub4(x, y) + __vsubss4(x, y) + __vsubus2(x, y);
  r += __vabsdiffs2(x, y) + __vabsdiffu4(x, y) + __vabs2(x) + __vabsss4(x);
  r += __vavgs2(x, y) + __vavgu4(x, y) + __vhaddu2(x, y) + __vhaddu4(x, y);
  r += __vcmpeq2(x, y) + __vcmpges4(x, y) + __vcmpgtu2(x, y) + __vcmpleu4(x, y) + __vcmpne2(x, y);
  r += __vmaxs2(x, y) + __vmaxu4(x, y) + __vmins4(x, y) + __vminu2(x, y);
  r += __vsads2(x, y) + __vsadu4(x, y) + __vseteq2(x, y) + __vsetgts4(x, y) + __vsetltu4(x, y) + __vneg2(x) + __vnegss4(y);
  o[t] = r;
}

__global__ void int_width_ops(short *os, char *oc, long long *ol, const short *s, const signed char *c) {
  int t = threadIdx.x;
  os[t] = (short)(s[t] * s[t + 1] + (s[t] >> 2));
  oc[t] = (char)(c[t] + c[t + 1] * 3);
  unsigned short us = (unsigned short)s[t];
  ol[t] = (long long)s[t] * (long long)c[t] + (us >> 1) + ((long long)s[t] << 40);
  // 64-bit multiply-add and carry chains via wide arithmetic
  unsigned long long w = (unsigned long long)(unsigned)s[t] * 0x123456789ull;
  ol[t] += (long long)(w + (w >> 32));
}

#if defined(__SIZEOF_INT128__)
__global__ void int128_ops(__int128 *o, const unsigned __int128 *a, const __int128 *b) {
  int t = threadIdx.x;
  unsigned __int128 x = a[t], y = a[t + 1];
  __int128 z = b[t];
  o[t] = (__int128)(x * y) + (z >> 5) + (__int128)(x / (y | 1)) + (z % 11) + (__int128)(x ^ (y << 70));
}
#endif
