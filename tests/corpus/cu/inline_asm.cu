// Inline PTX of many shapes; 128-bit types.
#include <cstdint>

__device__ __forceinline__ unsigned add_cc(unsigned a, unsigned b, unsigned c, unsigned d, unsigned &hi) {
  unsigned lo;
  asm("add.cc.u32 %0, %2, %3;\n\t"
      "addc.u32 %1, %4, %5;"
      : "=r"(lo), "=r"(hi) : "r"(a), "r"(b), "r"(c), "r"(d));
  return lo;
}

__global__ void asm_forms(unsigned *o, unsigned long long *ol, float *of, const unsigned *in) {
  int t = threadIdx.x;
  unsigned a = in[t], b = in[t + 1], hi;
  unsigned lo = add_cc(a, b, a ^ b, 7u, hi);
  // braces + local regs + predicates
  unsigned sel;
  asm("{\n\t"
      ".reg .pred %%p<3>;\n\t"
      ".reg .u32 %%tmp;\n\t"
      "setp.gt.u32 %%p1, %1, %2;\n\t"
      "@%%p1 sub.u32 %%tmp, %1, %2;\n\t"
      "@!%%p1 sub.u32 %%tmp, %2, %1;\n\t"
      "mov.u32 %0, %%tmp;\n\t"
      "}"
      : "=r"(sel) : "r"(a), "r"(b));
  // vector operand via v4 load
  float4 v;
  asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(of + 4 * (t & ~3)));
  asm volatile("st.global.v2.f32 [%0+8], {%1, %2};" :: "l"(of + 4 * t), "f"(v.x + v.y), "f"(v.z * v.w) : "memory");
  // immediate forms
  unsigned imm;
  asm("mov.b32 %0, 0x7f800000;" : "=r"(imm));
  float fimm;
  asm("mov.f32 %0, 0f3F800000;" : "=f"(fimm));
  double dimm;
  asm("mov.f64 %0, 0d400921FB54442D18;" : "=d"(dimm));
  // 64-bit and 16-bit constraints
  unsigned long long w;
  asm("mad.wide.u32 %0, %1, %2, %3;" : "=l"(w) : "r"(a), "r"(b), "l"((unsigned long long)hi));
  unsigned short h;
  asm("cvt.u16.u32 %0, %1;" : "=h"(h) : "r"(a));
  // memory clobber, volatile, no outputs
  asm volatile("membar.gl;" ::: "memory");
  asm volatile("" ::: "memory");
  // prmt, bfe, bfi, lop3
  unsigned pr, bf, bi, l3;
  asm("prmt.b32 %0, %1, %2, 0x3210;" : "=r"(pr) : "r"(a), "r"(b));
  asm("bfe.u32 %0, %1, 4, 8;" : "=r"(bf) : "r"(a));
  asm("bfi.b32 %0, %1, %2, 8, 4;" : "=r"(bi) : "r"(a), "r"(b));
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(l3) : "r"(a), "r"(b), "r"(lo));
  // "n" immediate constraint and tied operand
  unsigned acc = a;
  asm("add.u32 %0, %0, %1;" : "+r"(acc) : "n"(123));
  // predicate output via selp
  unsigned isz;
  asm("{ .reg .pred p; setp.eq.u32 p, %1, 0; selp.u32 %0, 1, 0, p; }" : "=r"(isz) : "r"(b));
  o[t] = lo + hi + sel + imm + pr + bf + bi + l3 + acc + isz + h;
  ol[t] = w;
  of[t] += fimm + (float)dimm;
}

__global__ void asm_special_regs(unsigned *o) {
  unsigned tid, ntid, ctaid, lanemask, pm0, envreg, dyn_smem, total_smem;
  asm("mov.u32 %0, %%tid.x;" : "=r"(tid));
  asm("mov.u32 %0, %%ntid.y;" : "=r"(ntid));
  asm("mov.u32 %0, %%ctaid.z;" : "=r"(ctaid));
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(lanemask));
  asm volatile("mov.u32 %0, %%pm0;" : "=r"(pm0));
  asm("mov.u32 %0, %%envreg3;" : "=r"(envreg));
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn_smem));
  asm("mov.u32 %0, %%total_smem_size;" : "=r"(total_smem));
  o[tid] = ntid + ctaid + lanemask + pm0 + envreg + dyn_smem + total_smem;
}

#if defined(__SIZEOF_INT128__)
__global__ void int128_kernel(__int128 *o, const __int128 *a, unsigned __int128 *u) {
  int t = threadIdx.x;
  __int128 x = a[t], y = a[t + 1];
  o[t] = x * y + (x >> 100) - (y << 3);
  u[t] = (unsigned __int128)x / (unsigned __int128)(y | 1) + u[t] % 1000;
  o[t] += x < y ? x : y;
#if __CUDA_ARCH__ >= 900 || defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __int128 v;
  asm volatile("mov.b128 %0, {%1, %2};" : "=q"(v) : "l"((unsigned long long)x), "l"((unsigned long long)y));
  o[t + 64] = v;
#endif
}
#endif

// Inline asm with labels and loops.
__global__ void asm_loop(unsigned *o, unsigned n) {
  unsigned r;
  asm("{\n\t"
      ".reg .u32 i, s;\n\t"
      ".reg .pred done;\n\t"
      "mov.u32 i, 0;\n\t"
      "mov.u32 s, 0;\n"
      "LOOP_%=:\n\t"
      "setp.ge.u32 done, i, %1;\n\t"
      "@done bra.uni END_%=;\n\t"
      "add.u32 s, s, i;\n\t"
      "add.u32 i, i, 1;\n\t"
      "bra.uni LOOP_%=;\n"
      "END_%=:\n\t"
      "mov.u32 %0, s;\n\t"
      "}"
      : "=r"(r) : "r"(n));
  o[threadIdx.x] = r;
}
