/* cpu_arena.h — device memory of the CPU backend, kept out of the host's malloc heap.
 *
 * Layout follows what NVIDIA's driver does (measured on an H100, driver 580, CUDA 13: consecutive cuMemAlloc
 * results and cuMemGetInfo deltas):
 *  - requests up to 1 MiB are rounded up to a multiple of 512 bytes and sub-allocated, 512-byte aligned, from
 *    2 MiB chunks (several allocations share a chunk and its pages);
 *  - larger requests are rounded up to a multiple of 2 MiB, 2 MiB aligned, each in its own mapping.
 * Every chunk and every large allocation is its own mmap'ed region surrounded by CPU_ARENA_GUARD bytes of
 * inaccessible address space on both sides (PROT_NONE, no memory behind it). A kernel that writes into the
 * rounding slack succeeds, as on NVIDIA; one that goes past the slack (up to the guard's size) faults, and the
 * CPU runtime's fault handler (cpu_exec.c) reports CUDA_ERROR_ILLEGAL_ADDRESS for that launch. Nothing of the
 * malloc heap is ever next to device memory. Empty chunks and freed large allocations are unmapped (one empty
 * chunk is kept for reuse).
 */
#ifndef P2N_CPU_ARENA_H
#define P2N_CPU_ARENA_H

#include <stddef.h>

#define CPU_ARENA_SMALL_MAX ((size_t)1 << 20)    /* up to this size: sub-allocated */
#define CPU_ARENA_SMALL_UNIT ((size_t)512)       /* their rounding and alignment */
#define CPU_ARENA_CHUNK ((size_t)2 << 20)        /* chunk size; rounding and alignment of larger requests */
#define CPU_ARENA_GUARD ((size_t)64 << 20)       /* inaccessible space before and after every region */

/* Allocates `size` bytes (0 counts as 1) of device memory, at least 512-byte aligned. NULL: out of memory (the
 * rounded size does not fit what is left of physical memory, or the system refused the mapping). */
void *cpu_arena_alloc(size_t size);
/* Frees what cpu_arena_alloc returned; returns 0, or -1 (nothing done) if `p` is not the start of a live
 * allocation. */
int cpu_arena_free(void *p);
/* Bytes of memory the arena holds now: the rounded size of every live allocation. */
size_t cpu_arena_in_use(void);

#endif
