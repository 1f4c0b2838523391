// cuda_compat.h — minimal CUDA device API for compiling the CUDA sources of the conformance suite as HIP with
// clang-22 (`-x hip -nogpuinc -nogpulib`), used as the reference in bench/amdgpu-quality.
//
// Why not the HIP headers: Debian's libamdhip64-dev is HIP 5.2, and with clang 22 it does not work for this:
// __AMDGCN_WAVEFRONT_SIZE (used by amd_warp_functions.h) no longer exists, threadIdx/blockIdx/... call
// __ockl_get_local_id & co. from the ROCm device libraries (undefined with -nogpulib, and a dispatch-packet
// load sequence rather than the plain intrinsics modern HIP uses), and the *_sync warp functions do not exist
// before HIP 6.2. So this header maps what the sources use straight onto clang builtins, the way current HIP
// headers do (workitem/workgroup id intrinsics, dispatch-packet sizes, agent-scope relaxed atomics,
// workgroup fence + s_barrier for __syncthreads).
//
// CUDA semantics kept: a warp is 32 lanes. On wave64 (gfx9) a wave holds two CUDA warps: lane = hwlane & 31,
// ballot and shuffles stay within the 32-lane half (the same model ptx2native uses), so both compilers
// implement the same semantics. Anything not defined here (inline PTX, half/bf16, printf, __reduce_*_sync,
// __match_*_sync, __syncthreads_count, mma...) fails to compile and the kernel is left out of the comparison.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))

typedef unsigned long size_t;

// ---- built-in variables -------------------------------------------------------------------------------
#define P2NC_DIM(NAME, X, Y, Z)                                                                            \
    struct NAME##_t {                                                                                      \
        __declspec(property(get = gx)) unsigned x;                                                         \
        __declspec(property(get = gy)) unsigned y;                                                         \
        __declspec(property(get = gz)) unsigned z;                                                         \
        static __device__ __forceinline__ unsigned gx() { return X; }                                     \
        static __device__ __forceinline__ unsigned gy() { return Y; }                                     \
        static __device__ __forceinline__ unsigned gz() { return Z; }                                     \
    };                                                                                                     \
    extern const __device__ __attribute__((weak)) NAME##_t NAME;

P2NC_DIM(threadIdx, __builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(),
         __builtin_amdgcn_workitem_id_z())
P2NC_DIM(blockIdx, __builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(),
         __builtin_amdgcn_workgroup_id_z())
// sizes from the HSA dispatch packet (uniform work-group size assumed, as HIP does by default)
static __device__ __forceinline__ unsigned p2nc_pkt16(int off) {
    return ((const unsigned short *)__builtin_amdgcn_dispatch_ptr())[off];
}
static __device__ __forceinline__ unsigned p2nc_pkt32(int off) {
    return ((const unsigned *)__builtin_amdgcn_dispatch_ptr())[off];
}
P2NC_DIM(blockDim, p2nc_pkt16(2), p2nc_pkt16(3), p2nc_pkt16(4))
P2NC_DIM(gridDim, p2nc_pkt32(3) / p2nc_pkt16(2), p2nc_pkt32(4) / p2nc_pkt16(3), p2nc_pkt32(5) / p2nc_pkt16(4))
#define warpSize 32

// ---- vector types -------------------------------------------------------------------------------------
#define P2NC_VEC(T, N2, N4, A2, A4)                                                                         \
    struct __align__(A2) N2 { T x, y; };                                                                   \
    struct __align__(A4) N4 { T x, y, z, w; };                                                             \
    static __device__ __forceinline__ N2 make_##N2(T a, T b) { return N2{a, b}; }                         \
    static __device__ __forceinline__ N4 make_##N4(T a, T b, T c, T d) { return N4{a, b, c, d}; }
P2NC_VEC(float, float2, float4, 8, 16)
P2NC_VEC(int, int2, int4, 8, 16)
P2NC_VEC(unsigned, uint2, uint4, 8, 16)
P2NC_VEC(double, double2, double4, 16, 16)

// ---- synchronisation ----------------------------------------------------------------------------------
static __device__ __forceinline__ void __syncthreads() {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
static __device__ __forceinline__ void __syncwarp(unsigned mask = 0xffffffffu) { __builtin_amdgcn_wave_barrier(); }
static __device__ __forceinline__ void __threadfence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }
static __device__ __forceinline__ void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
static __device__ __forceinline__ void __trap() { __builtin_trap(); }

// ---- warp operations (32-lane CUDA warps; half of a wave64) ----------------------------------------------
static __device__ __forceinline__ unsigned p2nc_hwlane() {
    return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
static __device__ __forceinline__ unsigned p2nc_ballot(bool p) {
    return (unsigned)(__builtin_amdgcn_ballot_w64(p) >> (p2nc_hwlane() & 32));
}
static __device__ __forceinline__ unsigned __ballot_sync(unsigned m, int p) { return p2nc_ballot(p) & m; }
static __device__ __forceinline__ unsigned __activemask() { return p2nc_ballot(true); }
static __device__ __forceinline__ int __all_sync(unsigned m, int p) { return (p2nc_ballot(p) & m) == (p2nc_ballot(true) & m); }
static __device__ __forceinline__ int __any_sync(unsigned m, int p) { return (p2nc_ballot(p) & m) != 0; }

// read lane `src` (0..31, in this CUDA warp) of v
static __device__ __forceinline__ int p2nc_read(int v, unsigned src) {
    return __builtin_amdgcn_ds_bpermute((int)(((p2nc_hwlane() & 32) | (src & 31)) << 2), v);
}
// CUDA shuffle source lane rules (width w a power of two <= 32)
static __device__ __forceinline__ unsigned p2nc_src_idx(int s, int w) {
    unsigned l = p2nc_hwlane() & 31;
    return (l & ~(unsigned)(w - 1)) | ((unsigned)s & (w - 1));
}
static __device__ __forceinline__ unsigned p2nc_src_up(unsigned d, int w) {
    unsigned l = p2nc_hwlane() & 31;
    return ((l & (w - 1)) >= d) ? l - d : l;
}
static __device__ __forceinline__ unsigned p2nc_src_down(unsigned d, int w) {
    unsigned l = p2nc_hwlane() & 31;
    return ((l & (w - 1)) + d < (unsigned)w) ? l + d : l;
}
static __device__ __forceinline__ unsigned p2nc_src_xor(int m, int w) {
    unsigned l = p2nc_hwlane() & 31, s = l ^ (unsigned)m;
    return ((s & ~(unsigned)(w - 1)) == (l & ~(unsigned)(w - 1))) ? s : l;
}
#define P2NC_SHFL(NAME, ARG, SRC)                                                                          \
    static __device__ __forceinline__ int NAME(unsigned m, int v, ARG a, int w = 32) {                     \
        return p2nc_read(v, SRC(a, w));                                                                    \
    }                                                                                                      \
    static __device__ __forceinline__ unsigned NAME(unsigned m, unsigned v, ARG a, int w = 32) {           \
        return (unsigned)p2nc_read((int)v, SRC(a, w));                                                     \
    }                                                                                                      \
    static __device__ __forceinline__ float NAME(unsigned m, float v, ARG a, int w = 32) {                 \
        return __builtin_bit_cast(float, p2nc_read(__builtin_bit_cast(int, v), SRC(a, w)));               \
    }                                                                                                      \
    static __device__ __forceinline__ long long NAME(unsigned m, long long v, ARG a, int w = 32) {         \
        unsigned s = SRC(a, w);                                                                            \
        unsigned lo = (unsigned)p2nc_read((int)v, s), hi = (unsigned)p2nc_read((int)(v >> 32), s);         \
        return (long long)(((unsigned long long)hi << 32) | lo);                                           \
    }                                                                                                      \
    static __device__ __forceinline__ double NAME(unsigned m, double v, ARG a, int w = 32) {               \
        return __builtin_bit_cast(double, NAME(m, __builtin_bit_cast(long long, v), a, w));               \
    }
P2NC_SHFL(__shfl_sync, int, p2nc_src_idx)
P2NC_SHFL(__shfl_up_sync, unsigned, p2nc_src_up)
P2NC_SHFL(__shfl_down_sync, unsigned, p2nc_src_down)
P2NC_SHFL(__shfl_xor_sync, int, p2nc_src_xor)

// ---- atomics: device (agent) scope, relaxed, as CUDA/HIP -------------------------------------------------
#define P2NC_AT(NAME, OP, T)                                                                               \
    static __device__ __forceinline__ T NAME(T *p, T v) {                                                  \
        return __hip_atomic_##OP(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);                        \
    }
#define P2NC_AT_INT(T)                                                                                     \
    P2NC_AT(atomicAdd, fetch_add, T) P2NC_AT(atomicSub, fetch_sub, T) P2NC_AT(atomicMin, fetch_min, T)     \
    P2NC_AT(atomicMax, fetch_max, T) P2NC_AT(atomicAnd, fetch_and, T) P2NC_AT(atomicOr, fetch_or, T)       \
    P2NC_AT(atomicXor, fetch_xor, T) P2NC_AT(atomicExch, exchange, T)                                     \
    static __device__ __forceinline__ T atomicCAS(T *p, T c, T v) {                                        \
        __hip_atomic_compare_exchange_strong(p, &c, v, __ATOMIC_RELAXED, __ATOMIC_RELAXED,                 \
                                             __HIP_MEMORY_SCOPE_AGENT);                                    \
        return c;                                                                                          \
    }
P2NC_AT_INT(int)
P2NC_AT_INT(unsigned)
P2NC_AT_INT(unsigned long long)
P2NC_AT_INT(long long)
P2NC_AT(atomicAdd, fetch_add, float)
P2NC_AT(atomicAdd, fetch_add, double)
P2NC_AT(atomicExch, exchange, float)
static __device__ __forceinline__ unsigned atomicInc(unsigned *p, unsigned v) {
    return __builtin_amdgcn_atomic_inc32(p, v, __ATOMIC_RELAXED, "agent");
}
static __device__ __forceinline__ unsigned atomicDec(unsigned *p, unsigned v) {
    return __builtin_amdgcn_atomic_dec32(p, v, __ATOMIC_RELAXED, "agent");
}

// ---- misc intrinsics ------------------------------------------------------------------------------------
static __device__ __forceinline__ float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
static __device__ __forceinline__ int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
static __device__ __forceinline__ float __uint_as_float(unsigned x) { return __builtin_bit_cast(float, x); }
static __device__ __forceinline__ unsigned __float_as_uint(float x) { return __builtin_bit_cast(unsigned, x); }
static __device__ __forceinline__ int __popc(unsigned x) { return __builtin_popcount(x); }
static __device__ __forceinline__ int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
template <class T> static __device__ __forceinline__ T __ldg(const T *p) { return *p; }
static __device__ __forceinline__ float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
static __device__ __forceinline__ float sqrtf(float a) { return __builtin_sqrtf(a); }
static __device__ __forceinline__ float fabsf(float a) { return __builtin_fabsf(a); }
static __device__ __forceinline__ float fminf(float a, float b) { return __builtin_fminf(a, b); }
static __device__ __forceinline__ float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
