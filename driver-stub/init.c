/* init.c — cuInit, backend selection, cuDriverGetVersion and the device queries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "ptx2native.h"

p2n_driver p2n_drv = {.lock = PTHREAD_MUTEX_INITIALIZER};

extern const p2n_backend_ops p2n_backend_opencl; /* driver-stub/opencl */
extern const p2n_backend_ops p2n_backend_level0; /* driver-stub/level0 */
extern const p2n_backend_ops p2n_backend_hip;    /* driver-stub/hip */

/* Backends by P2N_BACKEND name; ops == NULL: known, not built into this library. Order = "auto" preference: an
 * AMD GPU through HIP, an Intel GPU through Level Zero, an OpenCL GPU (auto passes over an OpenCL CPU device),
 * then the CPU; each is started in turn until one finds its device. */
static const struct {
    const char *name;
    const p2n_backend_ops *ops;
} p2n_backends[] = {
    {"hip", &p2n_backend_hip},
    {"level0", &p2n_backend_level0},
    {"opencl", &p2n_backend_opencl},
    {"cpu", &p2n_backend_cpu},
};
#define NBACKENDS (sizeof p2n_backends / sizeof p2n_backends[0])

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

int p2n_drv_verbose(void)
{
    const char *v = getenv("P2N_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}

static void parse_cc(void)
{
    p2n_drv.cc_major = 8;
    p2n_drv.cc_minor = 0;
    const char *s = getenv("P2N_COMPUTE_CAPABILITY");
    if (!s || !*s)
        return;
    int maj = 0, min = 0;
    char tail = 0;
    int n = sscanf(s, "%d.%d%c", &maj, &min, &tail);
    if (n == 1 && sscanf(s, "%d%c", &maj, &tail) == 1 && maj >= 10 && maj < 1000) { /* "86" */
        min = maj % 10;
        maj /= 10;
        n = 2;
    }
    if (n != 2 || maj < 1 || maj > 99 || min < 0 || min > 9) {
        fprintf(stderr, "ptx2native: ignoring P2N_COMPUTE_CAPABILITY=\"%s\" (expected MAJOR.MINOR, e.g. 8.6); "
                        "reporting 8.0\n", s);
        return;
    }
    p2n_drv.cc_major = maj;
    p2n_drv.cc_minor = min;
}

static void do_init(void)
{
    const char *want = getenv("P2N_BACKEND");
    if (!want || !*want)
        want = "auto";
    const p2n_backend_ops *be = NULL;
    int known = 0;
    char *err = NULL;
    memset(&p2n_drv.dev, 0, sizeof p2n_drv.dev);
    if (strcmp(want, "auto") == 0) {
        /* the first backend whose init finds a device; P2N_VERBOSE says what was tried and why it was passed */
        for (size_t i = 0; i < NBACKENDS && !be; i++) {
            const p2n_backend_ops *c = p2n_backends[i].ops;
            if (!c)
                continue;
            memset(&p2n_drv.dev, 0, sizeof p2n_drv.dev);
            CUresult r = c->init(&p2n_drv.dev, &err);
            if (r == CUDA_SUCCESS && strcmp(c->name, "opencl") == 0 &&
                (p2n_drv.dev.device_lacks & P2N_LACKS_FORWARD_PROGRESS)) {
                /* an OpenCL CPU device (PoCL): our own CPU backend is the better choice for a CPU */
                free(err);
                err = p2n_bk_msg("its device '%s' is a CPU", p2n_drv.dev.name);
                r = CUDA_ERROR_NO_DEVICE;
            }
            if (r == CUDA_SUCCESS) {
                be = c;
                if (p2n_drv_verbose())
                    fprintf(stderr, "ptx2native: P2N_BACKEND=auto: backend '%s' (%s)\n", c->name, p2n_drv.dev.name);
            } else if (p2n_drv_verbose())
                fprintf(stderr, "ptx2native: P2N_BACKEND=auto: not '%s': %s\n", c->name, err ? err : "(no message)");
            free(err);
            err = NULL;
        }
        if (!be) {
            fprintf(stderr, "ptx2native: P2N_BACKEND=auto: no backend found a device (P2N_VERBOSE=1 says why)\n");
            p2n_drv.init_result = CUDA_ERROR_NO_DEVICE;
            return;
        }
    } else {
        for (size_t i = 0; i < NBACKENDS; i++)
            if (strcmp(want, p2n_backends[i].name) == 0) {
                known = 1;
                be = p2n_backends[i].ops;
            }
        if (!be) {
            char avail[128] = "";
            for (size_t i = 0; i < NBACKENDS; i++)
                if (p2n_backends[i].ops) {
                    if (*avail)
                        strcat(avail, ", ");
                    strcat(avail, p2n_backends[i].name);
                }
            if (known)
                fprintf(stderr, "ptx2native: backend '%s' is not available in this libcuda.so.1 (available: %s); "
                                "no CUDA device\n", want, avail);
            else
                fprintf(stderr, "ptx2native: unknown P2N_BACKEND '%s' (expected cpu, hip, level0, opencl or auto; "
                                "available: %s); no CUDA device\n", want, avail);
            p2n_drv.init_result = CUDA_ERROR_NO_DEVICE;
            return;
        }
        CUresult r = be->init(&p2n_drv.dev, &err);
        if (r != CUDA_SUCCESS) {
            fprintf(stderr, "ptx2native: backend '%s' failed to start: %s\n", be->name, err ? err : "(no message)");
            free(err);
            p2n_drv.init_result = r;
            return;
        }
        if (p2n_drv_verbose())
            fprintf(stderr, "ptx2native: P2N_BACKEND=%s: %s\n", be->name, p2n_drv.dev.name);
    }
    free(err);
    parse_cc();
    p2n_drv.be = be;
    p2n_drv.device_count = be->device_count();
    if (p2n_drv.device_count < 1) {
        p2n_drv.init_result = CUDA_ERROR_NO_DEVICE;
        return;
    }
    p2n_drv.primary = calloc((size_t)p2n_drv.device_count, sizeof(p2n_ctx));
    if (!p2n_drv.primary) {
        p2n_drv.init_result = CUDA_ERROR_OUT_OF_MEMORY;
        return;
    }
    for (int i = 0; i < p2n_drv.device_count; i++) {
        p2n_ctx *c = &p2n_drv.primary[i];
        c->magic = P2N_MAGIC_CTX;
        c->device = i;
        c->is_primary = 1;
        pthread_mutex_init(&c->printf_lock, NULL);
        p2n_drv_register(c);
    }
    p2n_drv.init_result = CUDA_SUCCESS;
    atomic_store(&p2n_drv.initialized, 1);
}

CUresult cuInit(unsigned int Flags)
{
    if (Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_once(&init_once, do_init);
    return p2n_drv.init_result;
}

CUresult p2n_drv_check_init(void)
{
    return atomic_load(&p2n_drv.initialized) ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult p2n_drv_check_device(CUdevice dev)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (dev < 0 || dev >= p2n_drv.device_count)
        return CUDA_ERROR_INVALID_DEVICE;
    return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = P2N_DRV_VERSION;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal < 0 || ordinal >= p2n_drv.device_count)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    *count = p2n_drv.device_count;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "%s", p2n_drv.dev.name);
    return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!bytes)
        return CUDA_ERROR_INVALID_VALUE;
    *bytes = (size_t)p2n_drv.dev.total_mem;
    return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(unsigned int *bytes, CUdevice dev)
{
    size_t b = 0;
    CUresult r = cuDeviceTotalMem_v2(&b, dev);
    if (r == CUDA_SUCCESS)
        *bytes = b > 0xffffffffu ? 0xffffffffu : (unsigned)b;
    return r;
}

CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!major || !minor)
        return CUDA_ERROR_INVALID_VALUE;
    *major = p2n_drv.cc_major;
    *minor = p2n_drv.cc_minor;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!uuid)
        return CUDA_ERROR_INVALID_VALUE;
    memcpy(uuid->bytes, p2n_drv.dev.uuid, 16);
    uuid->bytes[15] = (char)(uuid->bytes[15] ^ (char)dev);
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    return cuDeviceGetUuid(uuid, dev);
}

/* The attribute table of a "ptx2native CPU" device: the limits of the CUDA programming model (so PTX written
 * for NVIDIA GPUs launches unchanged), compute capability 8.0 unless P2N_COMPUTE_CAPABILITY says otherwise,
 * and honest answers for what a CPU is (integrated, unified addressing, no textures/ECC/MPS/IPC). */
static int attribute_value(CUdevice_attribute a, int *known)
{
    const p2n_bk_device_info *d = &p2n_drv.dev;
    int shared_sm = d->max_shared_per_sm;
    *known = 1;
    switch ((int)a) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return d->max_threads_per_block;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return d->max_shared_per_block;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: return 65536;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return d->warp_size;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: return 65536;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return d->clock_rate_khz;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: return 512;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: return 1;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return d->multiprocessor_count;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: return 0;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: return d->integrated;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return 1;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: return CU_COMPUTEMODE_DEFAULT;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH: return 131072;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH: return 131072;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT: return 65536;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS: return 2048;
    case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT: return 512;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: return 1;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: return 0;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: return 0;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: return 0;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: return 0;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return 3200000;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return 128;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return 32 * 1024 * 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: return 2048;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return 1;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS: return 2048;
    case CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER: return 1; /* tld4 is implemented (emit_texture.c), as on the H200 */
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE: return 8192;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE: return 8192;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE: return 32768;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: return 0;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: return 32;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS: return 2046;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH: return 131072;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT: return 65536;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS: return 2048;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS: return 2048;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS: return 2046;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH: return 268435456;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH: return 131072;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT: return 65000;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH: return 2097120;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT: return 32768;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return p2n_drv.cc_major;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return p2n_drv.cc_minor;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH: return 32768;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: return shared_sm;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: return 65536;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: return d->host_access;   /* managed.c */
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: return 0;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID: return 0;
    case CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED: return d->host_access;
    case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO: return 2;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: return d->reads_host_memory;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: return d->host_access;   /* one copy, no migration */
    case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: return d->host_access;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1: return 0;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1: return 0;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1: return 0;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: return d->cooperative_launch;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH: return 0;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return d->max_shared_per_block_optin;
    case CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES: return 0;
    case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: return d->reads_host_memory;   /* mem.c: cuMemHostRegister */
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES: return d->reads_host_memory;
    case CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST: return d->host_access;
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: return d->reads_host_memory;   /* vmm.c */
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: return d->reads_host_memory;   /* memfd */
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: return 32;
    case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED: return 0;
    /* access-policy windows are accepted as hints (CUDA calls them hints too): sizes in the proportions of the
     * H100 (recorded: 32768000 persisting bytes of a 50 MiB L2, a 128 MiB window) */
    case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: return P2N_MAX_PERSISTING_L2;
    case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: return P2N_MAX_ACCESS_POLICY_WINDOW;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: return 0;
    case CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED: return d->reads_host_memory;
    case CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: return 1;   /* mempool.c, over any backend's mem_alloc */
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS: return 0;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING: return 0;
    case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES:   /* mempool.c: pools shared as ipc.c shares memory */
        return p2n_drv.be->ipc_export ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : 0;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: return 0;
    case CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS: return 0;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR: return 0;
    case CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED: return p2n_drv.be->ipc_export != NULL;   /* ipc.c */
    case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT: return 1;
    case CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS: return 0;
    case CU_DEVICE_ATTRIBUTE_NUMA_CONFIG: return 0;
    case CU_DEVICE_ATTRIBUTE_NUMA_ID: return -1;
    case CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_MPS_ENABLED: return 0;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: return -1;
    case CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK: return 0;
    case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH: return 0;
    case CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID: return 0;
    case CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID: return 0;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED: return 0;
    default: *known = 0; return 0;
    }
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    int known;
    int v = attribute_value(attrib, &known);
    if (!known)
        return CUDA_ERROR_INVALID_VALUE;
    *pi = v;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetProperties(CUdevprop *prop, CUdevice dev)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!prop)
        return CUDA_ERROR_INVALID_VALUE;
    memset(prop, 0, sizeof *prop);
    prop->maxThreadsPerBlock = p2n_drv.dev.max_threads_per_block;
    prop->maxThreadsDim[0] = 1024;
    prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 2147483647;
    prop->maxGridSize[1] = 65535;
    prop->maxGridSize[2] = 65535;
    prop->sharedMemPerBlock = p2n_drv.dev.max_shared_per_block;
    prop->totalConstantMemory = 65536;
    prop->SIMDWidth = p2n_drv.dev.warp_size;
    prop->memPitch = 2147483647;
    prop->regsPerBlock = 65536;
    prop->clockRate = p2n_drv.dev.clock_rate_khz;
    prop->textureAlign = 512;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pciBusId || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(pciBusId, (size_t)len, "0000:00:%02x.0", (unsigned)dev);
    return CUDA_SUCCESS;
}

/* the inverse of cuDeviceGetPCIBusId: "[domain:]bus:device.function", hexadecimal */
CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId)
{
    CUresult r = p2n_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!dev || !pciBusId)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned domain = 0, bus, device, function;
    int used = 0;
    if (!(sscanf(pciBusId, "%x:%x:%x.%x%n", &domain, &bus, &device, &function, &used) == 4 && !pciBusId[used])) {
        domain = 0;
        used = 0;
        if (!(sscanf(pciBusId, "%x:%x.%x%n", &bus, &device, &function, &used) == 3 && !pciBusId[used]))
            return CUDA_ERROR_INVALID_VALUE;
    }
    if (domain != 0 || bus != 0 || function != 0 || device >= (unsigned)p2n_drv.device_count)
        return CUDA_ERROR_INVALID_DEVICE;
    *dev = (CUdevice)device;
    return CUDA_SUCCESS;
}

CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    CUresult r = p2n_drv_check_device(dev);
    if (r == CUDA_SUCCESS)
        r = p2n_drv_check_device(peerDev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!canAccessPeer)
        return CUDA_ERROR_INVALID_VALUE;
    *canAccessPeer = 0;
    return CUDA_SUCCESS;
}
