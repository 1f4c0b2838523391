/* host_abi.h — the contract between code emitted for `--offload-arch=host` and the CPU runtime.
 *
 * A host code object is an ELF shared object (x86-64) produced by ptx2native. It has NO undefined symbols
 * (linked with --no-undefined): everything it needs from the runtime goes through the function table
 * `__p2n_rt`, which the loader fills in right after loading. (Resolving runtime symbols by name would fail
 * when the application dlopen()s libcuda.so.1 with RTLD_LOCAL, as cudart does.)
 *
 * Exported symbols of a host code object:
 *     const p2n_module_desc __p2n_module;   the kernels and globals of the module
 *     const p2n_rt_table  *__p2n_rt;        written by the loader before any kernel runs
 *
 * Execution model: every CUDA thread runs the kernel entry on its own fiber with its own p2n_thread_ctx.
 * The entry returns when the thread finishes. Device functions take the ctx as an extra first argument.
 * Code must call rt->yield at loop back-edges once `yield_budget` runs out (decrement, call at <= 0), so a
 * thread spinning on a flag set by another thread of its block lets that thread run (forward progress).
 * Emitted code may count in a local copy (read from ctx at function entry and after rt->yield).
 *
 * Thread-loop fast path (version 2): a kernel none of whose threads can wait for another (no barriers, no warp
 * collectives, no strong memory operation in a loop, ...: targets/llvm/thread_loop.c) may also have a
 * `block_entry`, flagged P2N_KERNEL_THREAD_LOOP. One call runs all threads of the block one after another in
 * linear order (x fastest): the runtime passes a ctx with the block fields set (tid and yield_budget are
 * ignored); the code writes tid/laneid/warpid into that ctx before every runtime or device-function call, so
 * rt functions see the calling thread there. It never calls rt->yield, rt->exit_thread or any barrier or
 * warp function. Local memory of each thread lives on the stack the block entry runs on.
 *
 * Coroutine entry (version 4): a kernel whose threads wait for each other only at points in the entry function
 * itself (barriers, warp collectives, warp matrix operations, rt->yield at loop back-edges; no activemask, no
 * isspacep.local, no waiting or exit in a called function: targets/host/host_coro.c) may also have a
 * `coro_entry`, flagged P2N_KERNEL_CORO: the same code as an LLVM switch-lowered coroutine. Calling it starts
 * the thread; it first asks rt->coro_frame(ctx, size) for its frame (the live state kept across waits; the
 * runtime owns it, 64-byte aligned) and stores it in ctx->coro_frame (so that the optimiser sees the frame
 * outlive the call), then runs until the thread finishes or must wait. A runtime function that
 * would block the thread instead records the wait, sets ctx->suspend = 1 and returns; the code then returns to
 * the runtime with the frame suspended. The runtime resumes it by calling the frame's first word (a
 * `void (*)(void *frame)`) with the frame, after clearing ctx->suspend; the resumed code fetches the waited-for
 * result with rt->coro_result(ctx, res2) (res2: the operation's second result, e.g. shfl's in-range predicate).
 * A return with ctx->suspend == 0 means the thread finished. Threads are then plain records resumed by one
 * scheduler loop on one stack per block instead of fibers with a stack each (bench/cpu/RESULTS.md).
 *
 * Work-item loops (version 4 objects, flag P2N_KERNEL_WORK_ITEM_LOOPS with P2N_KERNEL_THREAD_LOOP): a kernel whose
 * threads wait for each other only at block barriers (bar.sync 0 / barrier.sync 0 in its own body,
 * targets/host/work_item_loops.c) may have a `block_entry` too: it runs the code between two barriers as loops over
 * the block's threads, keeping values live across a barrier in per-thread arrays it gets from rt->coro_frame
 * (called once, with thread 0's ctx: the runtime's frames of all threads in a row). It calls no barrier, yield or
 * exit function either, and writes each thread's tid/laneid/warpid into ctx before running it. Its coroutine entry
 * stays (the runtime may choose either).
 *
 * Address spaces on the CPU: global and generic addresses are host pointers. Shared-window addresses
 * (`.shared` state space, 32-bit or 64-bit) are byte offsets into the block's shared memory `ctx->smem`;
 * cvta.shared adds ctx->smem, cvta.to.shared subtracts it. Local-window addresses are host pointers into
 * the thread's stack (cvta.local/cvta.to.local are identities).
 */
#ifndef P2N_HOST_ABI_H
#define P2N_HOST_ABI_H

#include <stdint.h>

/* 2: p2n_kernel_desc.block_entry and P2N_KERNEL_THREAD_LOOP (the runtime still loads version 1 objects, whose
 * kernel table lacks that last field); 3: p2n_thread_ctx.launch_flags (code may read it: a runtime of version 2
 * must not load such an object; the runtime loads versions 1..3); 4: p2n_kernel_desc.coro_entry,
 * P2N_KERNEL_CORO, p2n_thread_ctx.suspend and the rt slots coro_frame/coro_result (the runtime loads 1..4);
 * 5: p2n_thread_ctx.grid_workspace (%envreg1/%envreg2: code may read it, so a runtime of version 4 must not load
 * such an object) and p2n_kernel_desc.own_smem_bytes (the runtime loads 1..5); 6: the rt slot device_runtime
 * (CUDA dynamic parallelism: an object calling it must not load into a runtime of version 5; the runtime loads
 * 1..6) */
#define P2N_HOST_ABI_VERSION 6u

/* CUDA's device runtime functions (device_runtime.def): P2N_DEVRT_<ID>, numbered from 1 */
enum {
    P2N_DEVRT_NONE = 0,
#define P2N_DEVRT(id, name, nargs) P2N_DEVRT_##id,
#include "device_runtime.def"
#undef P2N_DEVRT
    P2N_DEVRT_COUNT
};

typedef struct p2n_thread_ctx {
    uint32_t tid[3], ntid[3], ctaid[3], nctaid[3];
    uint32_t laneid;          /* linear thread index within the block, mod 32 */
    uint32_t warpid;          /* linear thread index within the block / 32 */
    uint32_t nwarpid;
    uint32_t dynamic_smem_size;
    uint8_t *smem;            /* this block's shared memory: statics from offset 0, dynamic part after them */
    uint32_t smem_size;       /* static + dynamic bytes */
    int32_t yield_budget;     /* see above */
    const struct p2n_rt_table *rt;
    void *priv;               /* runtime-private (fiber, block and warp state) */
    uint32_t launch_flags;    /* P2N_LAUNCH_* of this launch, the same in every thread (version 3) */
    uint32_t suspend;         /* coroutine entry: set by a runtime function that must wait (version 4) */
    void *coro_frame;         /* coroutine entry: the code stores its frame here when it starts (version 4) */
    /* version 5: the grid workspace of a cooperative launch (P2N_LAUNCH_COOPERATIVE), NULL otherwise. CUDA's
     * cooperative groups read its address from %envreg1 (high half) and %envreg2 (low half) and count the grid
     * barrier in it: struct { uint32_t wsSize; uint32_t barrier; }, zeroed per launch
     * (cuda/include/cooperative_groups/details/driver_abi.h); grid.sync() with NULL traps, as on NVIDIA */
    void *grid_workspace;
} p2n_thread_ctx;

/* p2n_thread_ctx.launch_flags. CLUSTER: a cluster launch (cluster dimensions given at launch or by
 * cuFuncSetAttribute, or the kernel declares .reqnctapercluster): shared::cluster-destination async operations
 * fault without it, as on NVIDIA (targets/llvm/emit_cluster.c) */
enum { P2N_LAUNCH_CLUSTER = 1u,
       /* COOPERATIVE: cuLaunchCooperativeKernel / CU_LAUNCH_ATTRIBUTE_COOPERATIVE: all blocks of the grid run at
        * once (a block may wait for the others) and ctx grid_workspace is set */
       P2N_LAUNCH_COOPERATIVE = 2u };

/* Operation codes shared by emitted code and the runtime. */
enum { P2N_SHFL_IDX = 0, P2N_SHFL_UP = 1, P2N_SHFL_DOWN = 2, P2N_SHFL_BFLY = 3 };
enum { P2N_VOTE_ALL = 0, P2N_VOTE_ANY = 1, P2N_VOTE_UNI = 2, P2N_VOTE_BALLOT = 3 };
enum { P2N_RED_POPC = 0, P2N_RED_AND = 1, P2N_RED_OR = 2 };
enum { P2N_REDUX_ADD = 0, P2N_REDUX_MIN = 1, P2N_REDUX_MAX = 2, P2N_REDUX_UMIN = 3, P2N_REDUX_UMAX = 4,
       P2N_REDUX_AND = 5, P2N_REDUX_OR = 6, P2N_REDUX_XOR = 7 };
/* warp_matrix operations (low byte of op) and modifiers.
 *   LDMATRIX  io: [0..1] address (u64, host pointer of this lane's row), [2..2+n) results     (m8n8 .b16)
 *   STMATRIX  io: [0..1] address, [2..2+n) values                                            (m8n8 .b16)
 *   MMA_F16_F32_M16N8K16 (row.col)  io: a[4] (f16x2), b[2], c[4] (f32), d[4] out at [10..14)
 *   MMA_S8_S32_M16N8K32  (row.col)  io: a[4] (s8x4), b[2], c[4] (s32), d[4] out at [10..14)
 *   WMMA_F16_F32_M16N16K16          io: a[8], b[8], c[8], d[8] out at [24..32)
 *   WMMA_LOAD  io: [0..1] address, [2] stride (elements), results at [3..11); which fragment in the
 *              modifier bits (P2N_MX_FRAG_*), element type f16 (A/B) or f32 (C)
 *   WMMA_STORE io: [0..1] address, [2] stride, [3..11) values (f32 D fragment)
 * wmma fragments (our layout): lane l holds elements l*8 .. l*8+7 of the row-major 16x16 matrix (A, B as
 * f16 in the halves of regs 0..3, regs 4..7 zero; C/D as f32 in regs 0..7). */
enum { P2N_MX_LDMATRIX = 1, P2N_MX_STMATRIX = 2, P2N_MX_MMA_F16_F32_M16N8K16 = 3, P2N_MX_MMA_S8_S32_M16N8K32 = 4,
       P2N_MX_WMMA_F16_F32_M16N16K16 = 5, P2N_MX_WMMA_LOAD = 6, P2N_MX_WMMA_STORE = 7,
       /* the generic forms of mx_forms.h: mma.sync/wmma.mma of any shape and type, wmma fragment load/store
        * (lane-local), movmatrix */
       P2N_MX_MMA = 8, P2N_MX_FRAG_LOAD = 9, P2N_MX_FRAG_STORE = 10, P2N_MX_MOVMATRIX = 11,
       P2N_MX_MMA_SP = 12 /* mma.sp: sparse A + metadata (mx_forms.h) */ };
#define P2N_MX_NUM(op) (((op) >> 8) & 0xfu)   /* ldmatrix/stmatrix: number of matrices (1, 2, 4) */
#define P2N_MX_TRANS 0x1000u                   /* ldmatrix/stmatrix .trans */
#define P2N_MX_COLMAJOR 0x2000u                /* wmma.load/store .col */
#define P2N_MX_SHARED 0x4000u                  /* ldmatrix/stmatrix .shared: the rows are shared memory (a hint: the
                                                * address is generic either way; the CPU runtime ignores it) */
#define P2N_MX_FRAG_A 0x0000u                  /* wmma.load: fragment (bits 16..17) */
#define P2N_MX_FRAG_B 0x10000u
#define P2N_MX_FRAG_C 0x20000u

typedef struct p2n_rt_table {
    uint32_t abi_version;
    /* bar.sync / barrier.sync (arrive = 0) and bar.arrive (arrive = 1); count 0 = all threads of the block */
    void (*barrier)(p2n_thread_ctx *ctx, uint32_t id, uint32_t count, uint32_t arrive);
    /* bar.red.{popc,and,or}: returns the reduction of `pred` over the participating threads */
    uint32_t (*barrier_red)(p2n_thread_ctx *ctx, uint32_t id, uint32_t count, uint32_t op, uint32_t pred);
    /* shfl.sync: c is PTX's packed clamp/segment operand; *in_range receives the predicate result */
    uint32_t (*shfl)(p2n_thread_ctx *ctx, uint32_t mode, uint32_t value, uint32_t b, uint32_t c,
                     uint32_t membermask, uint32_t *in_range);
    uint32_t (*vote)(p2n_thread_ctx *ctx, uint32_t mode, uint32_t pred, uint32_t membermask);
    uint32_t (*match_any)(p2n_thread_ctx *ctx, uint64_t value, uint32_t membermask);
    uint32_t (*match_all)(p2n_thread_ctx *ctx, uint64_t value, uint32_t membermask, uint32_t *pred);
    uint32_t (*redux)(p2n_thread_ctx *ctx, uint32_t op, uint32_t value, uint32_t membermask);
    uint32_t (*activemask)(p2n_thread_ctx *ctx);
    void (*warp_sync)(p2n_thread_ctx *ctx, uint32_t membermask);          /* bar.warp.sync */
    uint32_t (*elect)(p2n_thread_ctx *ctx, uint32_t membermask, uint32_t *is_leader);
    void (*yield)(p2n_thread_ctx *ctx);                                    /* also nanosleep */
    uint64_t (*clock64)(p2n_thread_ctx *ctx);
    uint64_t (*globaltimer)(p2n_thread_ctx *ctx);
    uint32_t (*smid)(p2n_thread_ctx *ctx);
    /* CUDA's vprintf(format, packed argument buffer) */
    int32_t (*vprintf)(p2n_thread_ctx *ctx, const char *format, const void *args);
    /* never return: unwind the thread's fiber and fail the launch */
    void (*trap)(p2n_thread_ctx *ctx);
    void (*assertfail)(p2n_thread_ctx *ctx, const char *message, const char *file, uint32_t line,
                       const char *function, uint64_t char_size);
    void (*exit_thread)(p2n_thread_ctx *ctx);                              /* PTX exit */
    /* assertfail with char_size == P2N_ASSERT_NOT_SUPPORTED: a kernel stubbed by --defer-unsupported
     * (targets/llvm/defer_unsupported.c); `message` is the whole text, the launch fails with
     * CUDA_ERROR_NOT_SUPPORTED (a runtime without this rule reports it as a failed assertion) */
    /* math the emitted code should not take from the system libm (the code object has no undefined symbols) */
    float (*sinf)(float);
    float (*cosf)(float);
    float (*exp2f)(float);
    float (*log2f)(float);
    float (*tanhf)(float);
    double (*fma)(double, double, double);
    float (*fmaf)(float, float, float);
    /* device-side malloc/free (CUDA's malloc in kernels) */
    void *(*malloc)(p2n_thread_ctx *ctx, uint64_t size);
    void (*free)(p2n_thread_ctx *ctx, void *ptr);
    /* warp-wide matrix operations (ldmatrix, stmatrix, mma.sync, wmma): `op` is P2N_MX_* | modifiers (below);
     * `io` is the lane's operand block of 32-bit words (inputs, then outputs, layout per operation). The
     * collective forms wait for all live lanes of the warp; wmma.load/store act on the calling lane only. */
    void (*warp_matrix)(p2n_thread_ctx *ctx, uint32_t op, uint32_t *io);
    /* isspacep.local: 1 when the generic address lies in the calling thread's local window (its stack) */
    uint32_t (*is_local)(p2n_thread_ctx *ctx, uint64_t addr);
    /* version 4, coroutine entries (above): the calling thread's frame of `size` bytes; the result of the wait
     * the thread was resumed from (*res2, when res2 is not NULL, gets its second result) */
    void *(*coro_frame)(p2n_thread_ctx *ctx, uint64_t size);
    uint32_t (*coro_result)(p2n_thread_ctx *ctx, uint32_t *res2);
    /* version 6: CUDA's device runtime function `fn` (P2N_DEVRT_*) with its arguments as words
     * (device_runtime.def says how); returns its result. A child grid launched here runs after the calling grid's
     * blocks have finished and before the launch that started the calling grid returns (CUDA lets a child run at
     * any time before its parent grid completes; the parent cannot wait for it in CUDA 12+). */
    uint64_t (*device_runtime)(p2n_thread_ctx *ctx, uint32_t fn, const uint64_t *args);
} p2n_rt_table;

enum { P2N_KERNEL_USES_BARRIERS = 1u, P2N_KERNEL_USES_WARP_OPS = 2u, P2N_KERNEL_MAY_SPIN = 4u,
       P2N_KERNEL_THREAD_LOOP = 8u /* block_entry is set (version 2) */,
       P2N_KERNEL_CLUSTER_LAUNCH = 16u /* .explicitcluster without .reqnctapercluster: a launch must give cluster
                                        * dimensions (cuLaunchKernel fails with CUDA_ERROR_INVALID_CLUSTER_SIZE) */,
       P2N_KERNEL_CLUSTER_DIMS = 32u /* .reqnctapercluster: every launch is a cluster launch */,
       P2N_KERNEL_LAUNCH_FLAGS = 64u /* some code of the module reads ctx launch_flags (AMDGPU: the kernels take
                                      * them as a hidden trailing kernel argument, targets/amdgpu/amdgpu_lower.c) */,
       P2N_KERNEL_CORO = 128u /* coro_entry is set (version 4) */,
       P2N_KERNEL_WORK_ITEM_LOOPS = 256u /* with THREAD_LOOP: block_entry runs work-item loops between barriers
                                           * (see above; a runtime that does not know the flag runs it the same) */,
       P2N_KERNEL_FIBER_STUB = 512u /* entry only traps: the object has just the fast entry (block_entry, or
                                     * coro_entry), targets/host/drop_fallback_entries.c; the runtime uses that one
                                     * even where P2N_CPU_THREADLOOP/CORO/WORK_ITEM_LOOPS=0 ask for another */,
       P2N_KERNEL_REPORTS_ERRORS = 1024u /* AMDGPU: code the kernel reaches may write the module's error record
                                          * (abi/error_record.h); the runtime reads it after the kernel's launches */ };

#define P2N_ASSERT_NOT_SUPPORTED UINT64_MAX
/* assertfail with these char_size values: a memory fault that generated code detected itself (surface accesses,
 * targets/llvm/emit_surface.c); `message` is the faulting address, not a string. The launch fails with
 * CUDA_ERROR_ILLEGAL_ADDRESS / CUDA_ERROR_MISALIGNED_ADDRESS (both sticky), as NVIDIA's does. */
#define P2N_ASSERT_ILLEGAL_ADDRESS (UINT64_MAX - 1)
#define P2N_ASSERT_MISALIGNED_ADDRESS (UINT64_MAX - 2)
/* assertfail with this char_size: an instruction NVIDIA refuses to execute in this launch (a shared::cluster
 * async operation outside a cluster launch, targets/llvm/emit_cluster.c); `message` is a constant string naming
 * it. The launch fails with CUDA_ERROR_ILLEGAL_INSTRUCTION (sticky), as NVIDIA's does. */
#define P2N_ASSERT_ILLEGAL_INSTRUCTION (UINT64_MAX - 3)

typedef struct p2n_kernel_desc {
    const char *name;
    void (*entry)(const uint8_t *params, p2n_thread_ctx *ctx);
    uint32_t num_params;
    const uint32_t *param_offsets;
    const uint32_t *param_sizes;
    uint32_t param_buffer_size;
    uint32_t static_smem_bytes;   /* module-wide static shared layout (dynamic shared starts after it) */
    uint32_t dynamic_smem_align;  /* alignment of the dynamic part (largest .extern .shared alignment, >= 16) */
    uint32_t local_bytes;
    uint32_t maxntid[3];          /* 0 = not given */
    uint32_t reqntid[3];
    uint32_t flags;               /* P2N_KERNEL_* */
    /* version 2: runs every thread of a block (see above); NULL when the kernel needs fibers */
    void (*block_entry)(const uint8_t *params, p2n_thread_ctx *ctx);
    /* version 4: the coroutine entry (see above); NULL when the kernel has none */
    void (*coro_entry)(const uint8_t *params, p2n_thread_ctx *ctx);
    /* version 5: the static shared bytes this kernel can name (statics of module or .func scope, then its own
     * entry-scope ones), i.e. CUDA's CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, used for occupancy and launch limits.
     * static_smem_bytes stays the module-wide window the code addresses: with one window for a module of many
     * kernels (CUB's: 49 kernels, 335 KiB together), reporting that as every kernel's own usage made occupancy 0
     * and every launch beyond the shared-memory limit. */
    uint32_t own_smem_bytes;
} p2n_kernel_desc;

typedef struct p2n_global_desc {
    const char *name;
    void *addr;
    uint64_t size;
} p2n_global_desc;

typedef struct p2n_module_desc {
    uint32_t abi_version;         /* P2N_HOST_ABI_VERSION */
    uint32_t nkernels;
    const p2n_kernel_desc *kernels;
    uint32_t nglobals;
    const p2n_global_desc *globals;
} p2n_module_desc;

#endif
