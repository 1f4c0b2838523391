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
#include <stdint.h>

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

/* Where another process finds device memory: the device memory file's descriptor in this process, the file's
 * identity (so that a reused descriptor number is noticed) and the byte offset of the memory in it. */
typedef struct cpu_arena_share {
    int fd;
    uint64_t dev, ino;
    uint64_t off;
} cpu_arena_share;
/* Fills *out for [p, p+size) of arena memory: 0; -1: p is not arena memory (or the range leaves its region);
 * -2: the arena has no memory file (memfd_create was refused), nothing can be shared. */
int cpu_arena_export(const void *p, size_t size, cpu_arena_share *out);
/* Maps `size` bytes at byte `off` of an open memory file (another process's device memory file), shared and
 * guarded as the arena's own regions; returns the address of byte `off`, or NULL. Not counted as in use. */
void *cpu_arena_map_foreign(int fd, uint64_t off, size_t size);
/* Unmaps what cpu_arena_map_foreign returned: 0, or -1 if p is not such an address. */
int cpu_arena_unmap_foreign(void *p);

#endif
