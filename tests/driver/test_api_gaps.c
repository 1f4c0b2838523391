/* The driver entry points CUDA samples stopped on (issue 15): profiler start/stop, pitched allocations with 2D
 * copies, host registration with mapped pointers, shared-memory/cache configuration, occupancy, pointer
 * attributes. Without arguments: the parts that launch nothing. With the examples directory (vecadd.ptx,
 * reduce.ptx): function configuration, occupancy checked against the device attributes, and a kernel that reads
 * registered host memory through its device pointer. */
/* samples still call the deprecated bank-size and profiler-initialize functions: test them as they are called */
#define CUDA_ENABLE_DEPRECATED 1
#include <cuda.h>
#include <cudaProfiler.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

static int attr(CUdevice_attribute a)
{
    int v = -1;
    CUdevice dev;
    MUST(cuCtxGetDevice(&dev));
    MUST(cuDeviceGetAttribute(&v, a, dev));
    return v;
}

static void test_profiler(CUcontext ctx)
{
    OK(cuProfilerStart());
    OK(cuProfilerStart());   /* already enabled: no effect */
    OK(cuProfilerStop());
    OK(cuProfilerStop());
    /* CUDA 12+ answers every call of the deprecated initializer so */
    EXPECT(cuProfilerInitialize("cfg", "out", CU_OUT_CSV), CUDA_ERROR_NOT_SUPPORTED);
    void *fn = NULL;
    CUdriverProcAddressQueryResult st;
    OK(cuGetProcAddress("cuProfilerStart", &fn, 4000, 0, &st));
    TRUE(fn == (void *)cuProfilerStart && st == CU_GET_PROC_ADDRESS_SUCCESS);
    /* no current context */
    MUST(cuCtxSetCurrent(NULL));
    EXPECT(cuProfilerStart(), CUDA_ERROR_INVALID_CONTEXT);
    MUST(cuCtxSetCurrent(ctx));
}

static void test_pitch(void)
{
    const size_t w = 100, h = 7, hp = 128;   /* a row of 100 bytes; the host copy uses rows of 128 */
    int align = attr(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT);
    TRUE(align > 0);
    CUdeviceptr d = 0;
    size_t pitch = 0;
    MUST(cuMemAllocPitch(&d, &pitch, w, h, 4));
    TRUE(align > 0 && pitch % (size_t)align == 0 && pitch >= w && pitch < w + (size_t)align);
    CUdeviceptr base = 0;
    size_t size = 0;
    OK(cuMemGetAddressRange(&base, &size, d));
    TRUE(base == d && size == pitch * h);

    unsigned char src[7 * 100], back[7 * 128];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 7 + 3);
    memset(back, 0xee, sizeof back);
    OK(cuMemsetD8(d, 0x55, pitch * h));
    CUDA_MEMCPY2D up = {.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = src, .srcPitch = w,
                        .dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = d, .dstPitch = pitch,
                        .WidthInBytes = w, .Height = h};
    OK(cuMemcpy2D(&up));
    CUDA_MEMCPY2D down = {.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = d, .srcPitch = pitch,
                          .dstMemoryType = CU_MEMORYTYPE_HOST, .dstHost = back, .dstPitch = hp,
                          .WidthInBytes = w, .Height = h};
    OK(cuMemcpy2D(&down));
    int same = 1;
    for (size_t y = 0; y < h; y++) {
        same &= memcmp(back + y * hp, src + y * w, w) == 0;
        for (size_t x = w; x < hp; x++)
            same &= back[y * hp + x] == 0xee;   /* the copy wrote rows, not the host pitch's padding */
    }
    TRUE(same);
    /* the device row padding was left alone */
    unsigned char pad = 0;
    OK(cuMemcpyDtoH(&pad, d + w, 1));
    TRUE(pad == 0x55);
    OK(cuMemFree(d));

    EXPECT(cuMemAllocPitch(&d, &pitch, w, h, 3), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocPitch(&d, &pitch, 0, h, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocPitch(&d, &pitch, w, 0, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocPitch(&d, NULL, w, h, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocPitch(NULL, &pitch, w, h, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocPitch(&d, &pitch, SIZE_MAX / 2, 4, 4), CUDA_ERROR_OUT_OF_MEMORY);
}

/* cudaMemset2D's driver side on a pitched allocation: rows set, row padding and neighbours untouched */
static void test_memset_2d(void)
{
    CUdeviceptr d = 0;
    size_t pitch = 0;
    const size_t w = 40, h = 6;   /* 40 bytes = 20 shorts = 10 ints a row */
    MUST(cuMemAllocPitch(&d, &pitch, w, h, 4));
    unsigned char img[6 * 512];
    TRUE(pitch * h <= sizeof img);
    OK(cuMemsetD8(d, 0xab, pitch * h));
    OK(cuMemsetD2D8(d + pitch, pitch, 0x11, w, 2));           /* rows 1-2 */
    OK(cuMemsetD2D16(d + 3 * pitch, pitch, 0x2233, w / 2, 1)); /* row 3 */
    OK(cuMemsetD2D32Async(d + 4 * pitch, pitch, 0x44556677u, w / 4, 2, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(img, d, pitch * h));
    int ok = 1;
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < pitch; x++) {
            unsigned char want = 0xab;
            if (x < w && (y == 1 || y == 2))
                want = 0x11;
            else if (x < w && y == 3)
                want = x % 2 ? 0x22 : 0x33;
            else if (x < w && y >= 4)
                want = (unsigned char)(0x44556677u >> (8 * (x % 4)));
            ok &= img[y * pitch + x] == want;
        }
    TRUE(ok);
    EXPECT(cuMemsetD2D8(d, w - 1, 0, w, 2), CUDA_ERROR_INVALID_VALUE);          /* pitch < row */
    EXPECT(cuMemsetD2D16(d + 1, pitch, 0, 2, 2), CUDA_ERROR_INVALID_VALUE);     /* misaligned */
    EXPECT(cuMemsetD2D32(d, pitch, 0, w / 4, h + 1), CUDA_ERROR_INVALID_VALUE); /* past the end: nothing set */
    unsigned char first = 0;
    OK(cuMemcpyDtoH(&first, d, 1));
    TRUE(first == 0xab);
    OK(cuMemsetD2D8(d, pitch, 0, 0, h));   /* empty */
    OK(cuMemFree(d));
}

static void test_peer_and_ids(CUcontext ctx)
{
    CUdeviceptr a, b;
    MUST(cuMemAlloc(&a, 256));
    MUST(cuMemAlloc(&b, 256));
    OK(cuMemsetD8(a, 7, 256));
    OK(cuMemcpyPeer(b, ctx, a, ctx, 256));
    unsigned char v[256];
    OK(cuMemcpyDtoH(v, b, 256));
    TRUE(v[0] == 7 && v[255] == 7);
    OK(cuMemcpyPeerAsync(b, ctx, a, ctx, 16, NULL));
    EXPECT(cuMemcpyPeer(b, ctx, a, ctx, 257), CUDA_ERROR_INVALID_VALUE);
    TRUE(cuMemcpyPeer(b, (CUcontext)&v, a, ctx, 16) != CUDA_SUCCESS);   /* not a context */
    OK(cuMemFree(a));
    OK(cuMemFree(b));

    char bus[32];
    CUdevice dev = -1;
    OK(cuDeviceGetPCIBusId(bus, sizeof bus, 0));
    OK(cuDeviceGetByPCIBusId(&dev, bus));
    TRUE(dev == 0);
    dev = -1;
    OK(cuDeviceGetByPCIBusId(&dev, bus + 5));   /* without the domain */
    TRUE(dev == 0);
    EXPECT(cuDeviceGetByPCIBusId(&dev, "not a bus id"), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetByPCIBusId(&dev, "0000:7f:00.0"), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDeviceGetByPCIBusId(NULL, bus), CUDA_ERROR_INVALID_VALUE);

    CUstream s;
    MUST(cuStreamCreate(&s, 0));
    dev = -1;
    OK(cuStreamGetDevice(s, &dev));
    TRUE(dev == 0);
    OK(cuStreamDestroy(s));
}

static void test_register(CUcontext ctx)
{
    const size_t n = 1 << 16;
    unsigned char *p = aligned_alloc(4096, n);
    if (!p)
        exit(1);
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)i;
    if (!attr(CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED)) {
        printf("host registration not supported by this backend: checking that it says so\n");
        EXPECT(cuMemHostRegister(p, n, 0), CUDA_ERROR_NOT_SUPPORTED);
        free(p);
        return;
    }
    TRUE(attr(CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM) == 1);
    EXPECT(cuMemHostRegister(NULL, n, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemHostRegister(p, 0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemHostRegister(p, n, 0x100), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemHostUnregister(p), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);

    OK(cuMemHostRegister(p, n, CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE));
    EXPECT(cuMemHostRegister(p + 4096, 100, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    EXPECT(cuMemHostRegister(p + n - 1, 100, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    EXPECT(cuMemFreeHost(p), CUDA_ERROR_INVALID_VALUE);   /* registered, not allocated by the driver */
    EXPECT(cuMemHostUnregister(p + 16), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);

    CUdeviceptr dp = 0;
    OK(cuMemHostGetDevicePointer(&dp, p + 16, 0));
    TRUE(dp == (CUdeviceptr)(uintptr_t)(p + 16));
    EXPECT(cuMemHostGetDevicePointer(&dp, p, 1), CUDA_ERROR_INVALID_VALUE);
    unsigned flags = 0;
    OK(cuMemHostGetFlags(&flags, p));
    TRUE(flags & CU_MEMHOSTREGISTER_DEVICEMAP);

    /* pointer attributes, one by one and together */
    unsigned type = 0;
    CUcontext owner = NULL;
    CUdeviceptr dev_ptr = 0, start = 0;
    void *host_ptr = NULL;
    size_t range = 0;
    int managed = -1;
    OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)(p + 100)));
    TRUE(type == CU_MEMORYTYPE_HOST);
    OK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)(uintptr_t)p));
    TRUE(owner == ctx);
    OK(cuPointerGetAttribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE, (CUdeviceptr)(uintptr_t)(p + 100)));
    TRUE(range == n);
    CUpointer_attribute as[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
                                CU_POINTER_ATTRIBUTE_HOST_POINTER, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                CU_POINTER_ATTRIBUTE_RANGE_START_ADDR};
    void *vals[] = {&type, &dev_ptr, &host_ptr, &managed, &start};
    type = 0;
    OK(cuPointerGetAttributes(5, as, vals, (CUdeviceptr)(uintptr_t)(p + 8)));
    TRUE(type == CU_MEMORYTYPE_HOST && dev_ptr == (CUdeviceptr)(uintptr_t)(p + 8) && host_ptr == p + 8);
    TRUE(managed == 0 && start == (CUdeviceptr)(uintptr_t)p);
    int ipc = -1;
    CUmemoryPool pool = (CUmemoryPool)1;
    OK(cuPointerGetAttribute(&ipc, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, (CUdeviceptr)(uintptr_t)p));
    OK(cuPointerGetAttribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, (CUdeviceptr)(uintptr_t)p));
    TRUE(ipc == 0 && pool == NULL);

    /* registered memory as a copy source/destination, and as a device pointer (unified addressing) */
    CUdeviceptr d = 0;
    MUST(cuMemAlloc(&d, n));
    OK(cuMemcpyHtoD(d, p, n));
    OK(cuMemsetD8(dp, 0, 256));   /* through the device pointer */
    TRUE(p[16] == 0 && p[271] == 0 && p[272] == (unsigned char)272);
    OK(cuMemcpy(dp, d, 256));     /* back: bytes 16..271 of p = bytes 0..255 of the original */
    TRUE(p[16] == 0 && p[17] == 1 && p[271] == 255);
    OK(cuMemFree(d));

    OK(cuMemHostUnregister(p));
    EXPECT(cuMemHostUnregister(p), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    EXPECT(cuMemHostGetDevicePointer(&dp, p, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)p),
           CUDA_ERROR_INVALID_VALUE);
    /* registering again after unregistering works; destroying nothing is needed: unregister once more */
    OK(cuMemHostRegister(p, n, CU_MEMHOSTREGISTER_READ_ONLY));
    OK(cuMemHostUnregister(p));
    free(p);

    /* device and page-locked allocations keep their memory types */
    void *h = NULL;
    MUST(cuMemHostAlloc(&h, 64, CU_MEMHOSTALLOC_DEVICEMAP));
    OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)h));
    TRUE(type == CU_MEMORYTYPE_HOST);
    EXPECT(cuMemHostUnregister(h), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    OK(cuMemFreeHost(h));
    MUST(cuMemAlloc(&d, 64));
    OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
    TRUE(type == CU_MEMORYTYPE_DEVICE);
    OK(cuMemFree(d));
}

/* CUDA 12.5's cuStreamGetCtx_v2: the stream's context, and no green context */
static void test_stream_ctx(CUcontext ctx)
{
    CUstream s;
    MUST(cuStreamCreate(&s, 0));
    CUcontext c = NULL;
    CUgreenCtx g = (CUgreenCtx)1;
    OK(cuStreamGetCtx_v2(s, &c, &g));
    TRUE(c == ctx && g == NULL);
    EXPECT(cuStreamGetCtx_v2(s, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamDestroy(s));
}

/* stream attributes are hints here: stored, returned, validated; the window no larger than the device allows */
static void test_stream_attributes(void)
{
    CUstream s, t;
    MUST(cuStreamCreate(&s, 0));
    MUST(cuStreamCreate(&t, 0));
    int max_window = attr(CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE);
    static char buf[64];
    CUstreamAttrValue v, got;
    memset(&v, 0, sizeof v);
    v.accessPolicyWindow.base_ptr = buf;
    v.accessPolicyWindow.num_bytes = (size_t)max_window;   /* programs clamp to the maximum, as here */
    v.accessPolicyWindow.hitRatio = 0.6f;
    v.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
    v.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
    OK(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &v));
    memset(&got, 0xff, sizeof got);
    OK(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &got));
    TRUE(got.accessPolicyWindow.base_ptr == buf && got.accessPolicyWindow.hitRatio == 0.6f &&
         got.accessPolicyWindow.hitProp == CU_ACCESS_PROPERTY_PERSISTING);
    v.accessPolicyWindow.num_bytes = (size_t)max_window + 1;
    EXPECT(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &v), CUDA_ERROR_INVALID_VALUE);
    v.accessPolicyWindow.num_bytes = 0;
    v.accessPolicyWindow.hitRatio = 2.0f;
    EXPECT(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &v), CUDA_ERROR_INVALID_VALUE);
    /* windows are hints, but a program that asks whether persisting L2 exists (NVIDIA's simpleAttributes) finds it:
     * a window size and a persisting size, the limit kept; as on the H100 (recorded): 30% of the maximum before any
     * set, more than the maximum refused */
    int max_persist = attr(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
    TRUE(max_window > 0 && max_persist > 0 && max_persist <= attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
    size_t lim = 0;
    OK(cuCtxGetLimit(&lim, CU_LIMIT_PERSISTING_L2_CACHE_SIZE));
    TRUE(lim == (size_t)max_persist / 10 * 3);
    EXPECT(cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, (size_t)max_persist + 1), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, (size_t)max_persist));
    OK(cuCtxGetLimit(&lim, CU_LIMIT_PERSISTING_L2_CACHE_SIZE));
    TRUE(lim == (size_t)max_persist);
    OK(cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 1 << 20));
    OK(cuCtxGetLimit(&lim, CU_LIMIT_PERSISTING_L2_CACHE_SIZE));
    TRUE(lim == 1 << 20);
    OK(cuCtxResetPersistingL2Cache());

    OK(cuStreamGetAttribute(t, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &got));
    TRUE(got.syncPolicy == CU_SYNC_POLICY_AUTO);   /* never set: the default */
    memset(&v, 0, sizeof v);
    v.syncPolicy = CU_SYNC_POLICY_YIELD;
    OK(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v));
    v.syncPolicy = (CUsynchronizationPolicy)9;
    EXPECT(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v), CUDA_ERROR_INVALID_VALUE);
    memset(&v, 0, sizeof v);
    v.priority = -3;
    OK(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v));
    int prio = 0;
    OK(cuStreamGetPriority(s, &prio));
    TRUE(prio == -3);
    v.priority = -100;   /* clamped to the greatest priority */
    OK(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v));
    OK(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_PRIORITY, &got));
    int least = 0, greatest = 0;
    OK(cuCtxGetStreamPriorityRange(&least, &greatest));
    TRUE(got.priority == greatest);

    OK(cuStreamCopyAttributes(t, s));
    OK(cuStreamGetAttribute(t, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &got));
    TRUE(got.syncPolicy == CU_SYNC_POLICY_YIELD);
    OK(cuStreamGetAttribute(t, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &got));
    TRUE(got.accessPolicyWindow.base_ptr == buf);

    /* the NULL stream has attributes too; launch-only attributes are not stream attributes */
    memset(&v, 0, sizeof v);
    v.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
    OK(cuStreamSetAttribute(NULL, CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN, &v));
    OK(cuStreamGetAttribute(NULL, CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN, &got));
    TRUE(got.memSyncDomain == CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE);
    v.cooperative = 1;
    EXPECT(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamGetAttribute((CUstream)&v, CU_LAUNCH_ATTRIBUTE_PRIORITY, &got), CUDA_ERROR_INVALID_HANDLE);
    OK(cuCtxResetPersistingL2Cache());
    OK(cuStreamDestroy(s));
    OK(cuStreamDestroy(t));
}

/* capture is refused, so no stream is capturing: the queries libraries make must say so, not fail */
static void test_capture_queries(void)
{
    CUstream s;
    MUST(cuStreamCreate(&s, 0));
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_ACTIVE;
    OK(cuStreamIsCapturing(s, &st));
    TRUE(st == CU_STREAM_CAPTURE_STATUS_NONE);
    st = CU_STREAM_CAPTURE_STATUS_ACTIVE;
    OK(cuStreamIsCapturing(NULL, &st));
    TRUE(st == CU_STREAM_CAPTURE_STATUS_NONE);
    cuuint64_t id = 7;
    CUgraph g = (CUgraph)1;
    const CUgraphNode *deps = (const CUgraphNode *)1;
    const CUgraphEdgeData *edges = (const CUgraphEdgeData *)1;
    size_t n = 9;
    st = CU_STREAM_CAPTURE_STATUS_ACTIVE;
    OK(cuStreamGetCaptureInfo(s, &st, &id, &g, &deps, &edges, &n));
    TRUE(st == CU_STREAM_CAPTURE_STATUS_NONE && g == NULL && n == 0);
    EXPECT(cuStreamIsCapturing(s, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamIsCapturing((CUstream)&id, &st), CUDA_ERROR_INVALID_HANDLE);
    /* the v1 and v2 ABIs cudart asks for at 10010 and 11030 */
    CUresult (*v1)(CUstream, CUstreamCaptureStatus *, cuuint64_t *) = NULL;
    OK(cuGetProcAddress("cuStreamGetCaptureInfo", (void **)&v1, 10010, 0, NULL));
    TRUE(v1 != NULL);
    if (v1) {
        st = CU_STREAM_CAPTURE_STATUS_ACTIVE;
        OK(v1(s, &st, &id));
        TRUE(st == CU_STREAM_CAPTURE_STATUS_NONE);
    }
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    OK(cuThreadExchangeStreamCaptureMode(&mode));
    TRUE(mode == CU_STREAM_CAPTURE_MODE_GLOBAL);
    OK(cuThreadExchangeStreamCaptureMode(&mode));
    TRUE(mode == CU_STREAM_CAPTURE_MODE_RELAXED);
    mode = (CUstreamCaptureMode)5;
    EXPECT(cuThreadExchangeStreamCaptureMode(&mode), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamDestroy(s));
}

static void test_shared_config(void)
{
    CUsharedconfig cfg = (CUsharedconfig)-1;
    OK(cuCtxGetSharedMemConfig(&cfg));
    TRUE(cfg == CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE);
    OK(cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE));
    EXPECT(cuCtxSetSharedMemConfig((CUsharedconfig)7), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuCtxGetSharedMemConfig(NULL), CUDA_ERROR_INVALID_VALUE);
}

/* ---- with kernels ---- */

typedef struct sm {
    int threads, blocks, regs, smem, optin, warp, count;
} sm;

static int func_attr(CUfunction f, CUfunction_attribute a)
{
    int v = -1;
    MUST(cuFuncGetAttribute(&v, a, f));
    return v;
}

/* does n blocks of bs threads with dyn bytes of dynamic shared memory fit one multiprocessor? (from the device
 * and function attributes only: the definition occupancy must agree with) */
static int fits(const sm *m, CUfunction f, int n, int bs, size_t dyn)
{
    long threads = ((long)bs + m->warp - 1) / m->warp * m->warp;
    long regs = func_attr(f, CU_FUNC_ATTRIBUTE_NUM_REGS);
    size_t smem = dyn + (size_t)func_attr(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    return bs <= func_attr(f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) && smem <= (size_t)m->optin &&
           n * threads <= m->threads && n <= m->blocks && n * regs * threads <= m->regs &&
           (size_t)n * smem <= (size_t)m->smem;
}

static int occ(CUfunction f, int bs, size_t dyn)
{
    int n = -1;
    OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, bs, dyn));
    return n;
}

static size_t smem_of(int bs)
{
    return (size_t)bs * 40;
}

static void test_occupancy(CUfunction f)
{
    sm m = {attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR), attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR),
            attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR),
            attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
            attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE),
            attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)};
    TRUE(attr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK) == 0);   /* fits() assumes none */
    const int sizes[] = {1, 32, 33, 64, 100, 128, 256, 512, 1024};
    const size_t dyns[] = {0, 1000, 48 * 1024, 100 * 1024};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (size_t j = 0; j < sizeof dyns / sizeof dyns[0]; j++) {
            int n = occ(f, sizes[i], dyns[j]);
            /* the most blocks that fit: n fit, n + 1 do not */
            if (!(n >= 0 && (n == 0 || fits(&m, f, n, sizes[i], dyns[j])) && !fits(&m, f, n + 1, sizes[i], dyns[j]))) {
                fprintf(stderr, "occupancy(%d threads, %zu bytes) = %d is not the most blocks that fit\n", sizes[i],
                        dyns[j], n);
                check_failures++;
            }
        }
    TRUE(occ(f, 256, 0) >= 1);
    int n = -1;
    OK(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, 256, 0, CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE));
    TRUE(n == occ(f, 256, 0));
    EXPECT(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, 256, 0, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuOccupancyMaxActiveBlocksPerMultiprocessor(NULL, f, 256, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, NULL, 256, 0), CUDA_ERROR_INVALID_HANDLE);
    TRUE(occ(f, func_attr(f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) + 1, 0) == 0);

    /* the block size with the most resident threads (the largest of equals), and a grid filling every SM */
    int grid = -1, bs = -1;
    OK(cuOccupancyMaxPotentialBlockSize(&grid, &bs, f, NULL, 0, 0));
    int best = occ(f, bs, 0);
    TRUE(bs > 0 && bs <= func_attr(f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) && grid == best * m.count);
    for (int b = m.warp; b <= func_attr(f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK); b += m.warp)
        if ((long)occ(f, b, 0) * b > (long)best * bs || ((long)occ(f, b, 0) * b == (long)best * bs && b > bs)) {
            fprintf(stderr, "block size %d (%d blocks) beats the potential block size %d (%d blocks)\n", b,
                    occ(f, b, 0), bs, best);
            check_failures++;
        }
    OK(cuOccupancyMaxPotentialBlockSize(&grid, &bs, f, NULL, 0, 100));
    TRUE(bs > 0 && bs <= 100 && grid == occ(f, bs, 0) * m.count);
    OK(cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, &bs, f, smem_of, 0, 0, 0));
    TRUE(bs > 0 && grid == occ(f, bs, smem_of(bs)) * m.count);
    for (int b = m.warp; b <= func_attr(f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK); b += m.warp)
        TRUE((long)occ(f, b, smem_of(b)) * b <= (long)occ(f, bs, smem_of(bs)) * bs);
    EXPECT(cuOccupancyMaxPotentialBlockSize(NULL, &bs, f, NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, &bs, f, NULL, 0, 0, 8), CUDA_ERROR_INVALID_VALUE);

    size_t avail = 0;
    OK(cuOccupancyAvailableDynamicSMemPerBlock(&avail, f, 2, 256));
    TRUE(avail > 0 && fits(&m, f, 2, 256, avail) && occ(f, 256, avail) >= 2);
    OK(cuOccupancyAvailableDynamicSMemPerBlock(&avail, f, m.blocks + 1, 32));
    TRUE(avail == 0);
    EXPECT(cuOccupancyAvailableDynamicSMemPerBlock(&avail, f, 0, 256), CUDA_ERROR_INVALID_VALUE);
}

static void test_function_config(const char *dir, CUfunction f)
{
    OK(cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_SHARED));
    OK(cuFuncSetSharedMemConfig(f, CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE));
    EXPECT(cuFuncSetSharedMemConfig(f, (CUsharedconfig)9), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuFuncSetSharedMemConfig(NULL, CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE), CUDA_ERROR_INVALID_HANDLE);

    /* cudart 12+'s cudaFuncSetCacheConfig: the library/kernel path */
    char path[4096];
    snprintf(path, sizeof path, "%s/reduce.ptx", dir);
    char *ptx = test_read_file(path, NULL);
    if (!ptx) {
        perror(path);
        exit(1);
    }
    CUlibrary lib;
    CUkernel k;
    MUST(cuLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0));
    free(ptx);
    MUST(cuLibraryGetKernel(&k, lib, "reduce_sum"));
    OK(cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_L1, 0));
    size_t off = 99, size = 99;
    OK(cuKernelGetParamInfo(k, 0, &off, &size));
    TRUE(off == 0 && size == 8);
    OK(cuKernelGetParamInfo(k, 2, &off, &size));
    TRUE(off == 16 && size == 4);
    EXPECT(cuKernelGetParamInfo(k, 3, &off, &size), CUDA_ERROR_INVALID_VALUE);
    CUlibrary owner = NULL;
    OK(cuKernelGetLibrary(&owner, k));
    TRUE(owner == lib);
    CUfunctionLoadingState ls = CU_FUNCTION_LOADING_STATE_UNLOADED;
    OK(cuFuncIsLoaded(&ls, f));
    TRUE(ls == CU_FUNCTION_LOADING_STATE_LOADED);
    OK(cuFuncLoad(f));
    EXPECT(cuKernelSetCacheConfig(k, (CUfunc_cache)9, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_L1, 99), CUDA_ERROR_INVALID_DEVICE);
    OK(cuLibraryUnload(lib));
}

/* a kernel reads registered host memory through its device pointer and writes device memory */
static void test_register_kernel(CUfunction vecadd)
{
    if (!attr(CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED)) {
        printf("host registration not supported by this backend: no kernel on registered memory\n");
        return;
    }
    enum { N = 1024 };   /* N * sizeof(float) a multiple of the alignment, as aligned_alloc requires */
    float *a = aligned_alloc(64, N * sizeof(float)), *b = aligned_alloc(64, N * sizeof(float)), c[N];
    if (!a || !b)
        exit(1);
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
    }
    MUST(cuMemHostRegister(a, N * sizeof(float), CU_MEMHOSTREGISTER_DEVICEMAP));
    MUST(cuMemHostRegister(b, N * sizeof(float), CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_READ_ONLY));
    CUdeviceptr da, db, dc;
    MUST(cuMemHostGetDevicePointer(&da, a, 0));
    MUST(cuMemHostGetDevicePointer(&db, b, 0));
    MUST(cuMemAlloc(&dc, N * sizeof(float)));
    int n = N;
    void *params[] = {&da, &db, &dc, &n};
    OK(cuLaunchKernel(vecadd, 4, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(c, dc, sizeof c));
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += c[i] != 1.5f * (float)i;
    TRUE(bad == 0);
    OK(cuMemFree(dc));
    OK(cuMemHostUnregister(a));
    OK(cuMemHostUnregister(b));
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    CUdevice dev;
    CUcontext ctx;
    MUST(cuInit(0));
    MUST(cuDeviceGet(&dev, 0));
    MUST(cuDevicePrimaryCtxRetain(&ctx, dev));
    MUST(cuCtxSetCurrent(ctx));

    test_profiler(ctx);
    test_pitch();
    test_register(ctx);
    test_shared_config();
    test_stream_ctx(ctx);
    test_stream_attributes();
    test_capture_queries();
    test_memset_2d();
    test_peer_and_ids(ctx);

    if (argc > 1) {
        char path[4096];
        snprintf(path, sizeof path, "%s/reduce.ptx", argv[1]);
        CUmodule reduce = must_load_ptx(path);
        snprintf(path, sizeof path, "%s/vecadd.ptx", argv[1]);
        CUmodule vec = must_load_ptx(path);
        CUfunction f, v;
        MUST(cuModuleGetFunction(&f, reduce, "reduce_sum"));
        MUST(cuModuleGetFunction(&v, vec, "vecadd"));
        test_function_config(argv[1], f);
        test_occupancy(f);
        test_occupancy(v);
        test_register_kernel(v);
        OK(cuModuleUnload(reduce));
        OK(cuModuleUnload(vec));
    }
    OK(cuDevicePrimaryCtxRelease(dev));
    return check_done("test_api_gaps");
}
