/* backend_cpu.c — the CPU backend behind the p2n_backend_ops vtable (adapter over cpu/cpu_backend.h).
 *
 * Device memory is host memory from cpu/cpu_arena.c (mmap'ed, guarded, rounded and aligned as NVIDIA's driver
 * does: 512 bytes up to 1 MiB, 2 MiB above), never the malloc heap; pinned host memory is the same.
 * Device pointers are host pointers (host_access = 1), so the stub copies with memcpy. Launches run the whole
 * grid before returning (cpu_launch_kernel); the stub runs a created stream's launches on that stream's thread
 * (stream_queue.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu/cpu_arena.h"
#include "cpu/cpu_backend.h"
#include "internal.h"

static CUresult map_status(cpu_status s)
{
    switch (s) {
    case CPU_OK: return CUDA_SUCCESS;
    case CPU_ERR_INVALID_IMAGE: return CUDA_ERROR_INVALID_IMAGE;
    case CPU_ERR_NOT_FOUND: return CUDA_ERROR_NOT_FOUND;
    case CPU_ERR_INVALID_VALUE: return CUDA_ERROR_INVALID_VALUE;
    case CPU_ERR_OUT_OF_RESOURCES: return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    case CPU_ERR_LAUNCH_FAILED: return CUDA_ERROR_LAUNCH_FAILED;
    case CPU_ERR_ASSERT: return CUDA_ERROR_ASSERT;
    case CPU_ERR_NO_MEMORY: return CUDA_ERROR_OUT_OF_MEMORY;
    case CPU_ERR_ILLEGAL_ADDRESS: return CUDA_ERROR_ILLEGAL_ADDRESS;
    case CPU_ERR_NOT_SUPPORTED: return CUDA_ERROR_NOT_SUPPORTED;
    case CPU_ERR_MISALIGNED_ADDRESS: return CUDA_ERROR_MISALIGNED_ADDRESS;
    case CPU_ERR_ILLEGAL_INSTRUCTION: return CUDA_ERROR_ILLEGAL_INSTRUCTION;
    }
    return CUDA_ERROR_UNKNOWN;
}

static CUresult cpu_init(p2n_bk_device_info *d, char **err)
{
    snprintf(d->name, sizeof d->name, "ptx2native CPU");
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    d->total_mem = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : (uint64_t)8 << 30;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    d->multiprocessor_count = ncpu > 0 ? (int)ncpu : 1;
    d->clock_rate_khz = P2N_CPU_CLOCK_KHZ;
    d->max_threads_per_block = 1024;
    d->max_shared_per_block = 48 * 1024;
    d->max_shared_per_block_optin = 163 * 1024;   /* as an sm_80 part: CUDA code sized for A100 launches */
    d->max_shared_per_sm = 164 * 1024;
    d->warp_size = 32;
    d->defer_unsupported = 1; /* a kernel the host target cannot compile fails at launch, not the module */
    d->integrated = 1;
    d->host_access = 1;
    d->reads_host_memory = 1;
    d->cooperative_launch = 1; /* a worker per block for such grids (cpu/cpu_exec.h) */
    static const uint8_t uuid[16] = {'p', '2', 'n', '-', 'c', 'p', 'u', 0x40, 0x80, 'd', 'e', 'v', 'i', 'c', 'e', 0};
    memcpy(d->uuid, uuid, 16);
    return CUDA_SUCCESS;
}

static int cpu_device_count(void) { return 1; }

static CUresult cpu_mem_alloc(size_t size, void **out)
{
    void *p = cpu_arena_alloc(size);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *out = p;
    return CUDA_SUCCESS;
}

static void cpu_mem_free(void *p) { cpu_arena_free(p); }

/* IPC: the bytes are the arena's cpu_arena_share (descriptor, file identity, offset); the importer opens the
 * exporter's descriptor through /proc/PID/fd, which the kernel allows a process of the same user. */
typedef struct cpu_ipc_bytes {
    int32_t fd;
    uint32_t zero;
    uint64_t dev, ino, off;
} cpu_ipc_bytes;
_Static_assert(sizeof(cpu_ipc_bytes) <= P2N_BK_IPC_BYTES, "CPU IPC handle bytes");

static CUresult cpu_ipc_export(uint64_t base, size_t size, uint8_t out[])
{
    cpu_arena_share sh;
    int rc = cpu_arena_export((const void *)(uintptr_t)base, size, &sh);
    if (rc == -2)
        return CUDA_ERROR_NOT_SUPPORTED;
    if (rc)
        return CUDA_ERROR_INVALID_VALUE;
    cpu_ipc_bytes b = {.fd = sh.fd, .dev = sh.dev, .ino = sh.ino, .off = sh.off};
    memcpy(out, &b, sizeof b);
    return CUDA_SUCCESS;
}

static CUresult cpu_ipc_import(int pid, const uint8_t in[], size_t size, uint64_t *base, char **err)
{
    cpu_ipc_bytes b;
    memcpy(&b, in, sizeof b);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, (int)b.fd);
    int fd = b.fd >= 0 && !b.zero ? open(path, O_RDWR | O_CLOEXEC) : -1;
    if (fd < 0) {
        if (err)
            *err = p2n_bk_msg("IPC handle of process %d: cannot open its device memory (%s): %s", pid, path,
                              b.fd >= 0 && !b.zero ? strerror(errno) : "malformed handle");
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct stat st;
    CUresult r = CUDA_SUCCESS;
    if (fstat(fd, &st) || (uint64_t)st.st_dev != b.dev || (uint64_t)st.st_ino != b.ino) {
        if (err)
            *err = p2n_bk_msg("IPC handle of process %d: %s is not the device memory it exported (the process "
                              "ended?)", pid, path);
        r = CUDA_ERROR_INVALID_VALUE;
    } else if (b.off > (uint64_t)st.st_size || size > (uint64_t)st.st_size - b.off) {
        if (err)
            *err = p2n_bk_msg("IPC handle of process %d: range beyond its device memory", pid);
        r = CUDA_ERROR_INVALID_VALUE;
    } else {
        void *p = cpu_arena_map_foreign(fd, b.off, size);
        if (!p) {
            if (err)
                *err = p2n_bk_msg("IPC handle of process %d: mapping %zu bytes failed", pid, size);
            r = CUDA_ERROR_MAP_FAILED;
        } else {
            *base = (uint64_t)(uintptr_t)p;
        }
    }
    close(fd);
    return r;
}

static void cpu_ipc_unmap(uint64_t base) { cpu_arena_unmap_foreign((void *)(uintptr_t)base); }

static CUresult cpu_module_load_(const void *image, size_t size, p2n_bk_module **out, char **err)
{
    cpu_module *m = NULL;
    CUresult r = map_status(cpu_module_load(image, size, &m, err));
    if (r == CUDA_SUCCESS)
        *out = (p2n_bk_module *)m;
    return r;
}

static void cpu_module_unload_(p2n_bk_module *m) { cpu_module_unload((cpu_module *)m); }

static CUresult cpu_get_kernel(p2n_bk_module *m, const char *name, p2n_bk_kernel **out)
{
    cpu_kernel *k = NULL;
    CUresult r = map_status(cpu_module_get_kernel((cpu_module *)m, name, &k));
    if (r == CUDA_SUCCESS)
        *out = (p2n_bk_kernel *)k;
    return r;
}

static CUresult cpu_get_global(p2n_bk_module *m, const char *name, uint64_t *addr, size_t *size)
{
    void *a = NULL;
    size_t s = 0;
    CUresult r = map_status(cpu_module_get_global((cpu_module *)m, name, &a, &s));
    if (r == CUDA_SUCCESS) {
        *addr = (uint64_t)(uintptr_t)a;
        *size = s;
    }
    return r;
}

static void cpu_kernel_info_(const p2n_bk_kernel *k, p2n_bk_kernel_info *out)
{
    cpu_kernel_info ki;
    memset(&ki, 0, sizeof ki);
    cpu_kernel_get_info((const cpu_kernel *)k, &ki);
    memset(out, 0, sizeof *out);
    out->name = ki.name;
    out->num_params = ki.num_params;
    out->param_offsets = ki.param_offsets;
    out->param_sizes = ki.param_sizes;
    out->param_buffer_size = ki.param_buffer_size;
    out->static_shared_bytes = ki.static_shared_bytes;
    out->local_bytes = ki.local_bytes;
    out->max_threads_per_block = ki.max_threads_per_block;
    memcpy(out->reqntid, ki.reqntid, sizeof out->reqntid);
    out->cluster_launch = ki.cluster_launch;
    out->cluster_dims_fixed = ki.cluster_dims_fixed;
    out->execution = ki.execution;
}

static CUresult cpu_launch_(p2n_bk_kernel *k, const p2n_bk_launch *l, char **err)
{
    cpu_launch cl;
    memset(&cl, 0, sizeof cl);
    memcpy(cl.grid, l->grid, sizeof cl.grid);
    memcpy(cl.block, l->block, sizeof cl.block);
    cl.dynamic_shared_bytes = l->dynamic_shared_bytes;
    cl.stack_bytes = l->stack_bytes;
    cl.params = l->params;
    cl.printf_sink = l->printf_sink;
    cl.printf_user = l->printf_user;
    cl.launch_flags = l->launch_flags;
    return map_status(cpu_launch_kernel((cpu_kernel *)k, &cl, err));
}

const p2n_backend_ops p2n_backend_cpu = {
    .name = "cpu",
    .code_arch = "host",
    .jit_arch = "host-native",
    .init = cpu_init,
    .device_count = cpu_device_count,
    .mem_alloc = cpu_mem_alloc,
    .mem_free = cpu_mem_free,
    .mem_host_alloc = cpu_mem_alloc,
    .mem_host_free = cpu_mem_free,
    .ipc_export = cpu_ipc_export,
    .ipc_import = cpu_ipc_import,
    .ipc_unmap = cpu_ipc_unmap,
    .module_load = cpu_module_load_,
    .module_unload = cpu_module_unload_,
    .module_get_kernel = cpu_get_kernel,
    .module_get_global = cpu_get_global,
    .kernel_info = cpu_kernel_info_,
    .launch = cpu_launch_,
};
