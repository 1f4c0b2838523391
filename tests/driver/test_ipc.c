/* test_ipc.c — CUDA IPC between two processes (driver-stub/ipc.c): device memory and events exported by this
 * process, opened by a child (this program again, spawned with the handles in hex on its command line).
 *
 * Every expected return code is what NVIDIA's driver 580 answered on an H200 to the same sequence (a probe run
 * 2026-12-06): refcounted opens of one allocation (an interior pointer's handle is the allocation's), flags
 * without CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS refused, cuMemFree of opened memory refused, closes only at the
 * base, a handle of memory freed since still opens, the opening process's own handles refused
 * (CUDA_ERROR_INVALID_CONTEXT), events only with CU_EVENT_INTERPROCESS, malformed handles. Beyond the probe:
 * a kernel of the child writes the shared memory (a 3 MiB allocation, a region of its own) and the parent sees it.
 * Pools (mempool.c): a pool made with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR exports a descriptor the child
 * imports, then one block by its export data (another pool's data refused); the child writes it and frees it. Those
 * codes are CUDA's documented ones, not probed. On a backend that cannot share memory (P2N_BACKEND other than
 * cpu) the calls answer CUDA_ERROR_NOT_SUPPORTED. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cuda.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static int fails;
static const char *who = "parent";

#define E(name, expr, want)                                                                                   \
    do {                                                                                                      \
        CUresult r_ = (expr);                                                                                 \
        if ((int)r_ != (want)) {                                                                              \
            fprintf(stderr, "FAIL (%s) %s: %s returned %d, expected %d\n", who, name, #expr, (int)r_, (want)); \
            fails++;                                                                                          \
        }                                                                                                     \
    } while (0)
#define CHECK(name, cond)                                                                   \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "FAIL (%s) %s: %s does not hold\n", who, name, #cond);          \
            fails++;                                                                        \
        }                                                                                   \
    } while (0)

static void hex(const void *p, size_t n, char *out)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}
static void unhex(const char *s, void *p, size_t n)
{
    unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        sscanf(s + 2 * i, "%2hhx", &b[i]);
}

/* fill(p, n, v): p[i] = v + i for i < n (u32) */
static const char FILL_PTX[] =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry fill(.param .u64 p, .param .u32 n, .param .u32 v)\n{\n"
    "  .reg .b32 %r<6>;\n  .reg .b64 %rd<4>;\n  .reg .pred %q;\n"
    "  ld.param.u64 %rd0, [p];\n  ld.param.u32 %r0, [n];\n  ld.param.u32 %r1, [v];\n"
    "  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n  mov.u32 %r4, %tid.x;\n"
    "  mad.lo.u32 %r2, %r2, %r3, %r4;\n  setp.ge.u32 %q, %r2, %r0;\n  @%q bra DONE;\n"
    "  mul.wide.u32 %rd1, %r2, 4;\n  add.s64 %rd2, %rd0, %rd1;\n  add.u32 %r5, %r1, %r2;\n"
    "  st.global.u32 [%rd2], %r5;\nDONE:\n  ret;\n}\n";

static int child(char **argv)
{
    who = "child";
    CUipcMemHandle h, h2, hf, hb;
    CUipcEventHandle eh;
    unhex(argv[1], &h, 64);
    unhex(argv[2], &h2, 64);
    unhex(argv[3], &eh, 64);
    unhex(argv[4], &hf, 64);
    unhex(argv[5], &hb, 64);
    CUdeviceptr p = 0, p2 = 0, pi = 0, pf = 0, pb = 0;
    E("open, flags 5 (bit 0 set)", cuIpcOpenMemHandle(&p, h, 5), 0);
    E("open again", cuIpcOpenMemHandle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), 0);
    E("open, flags 0", cuIpcOpenMemHandle(&p2, h, 0), CUDA_ERROR_INVALID_VALUE);
    E("open a third time", cuIpcOpenMemHandle(&p2, h, 1), 0);
    CHECK("the same address each time", p == p2 && p);
    E("open the interior pointer's handle", cuIpcOpenMemHandle(&pi, h2, 1), 0);
    CHECK("an interior pointer's handle opens the allocation", pi == p);
    E("open memory freed since", cuIpcOpenMemHandle(&pf, hf, 1), 0);
    E("open NULL out", cuIpcOpenMemHandle(NULL, h, 1), CUDA_ERROR_INVALID_VALUE);
    unsigned char b[4] = {0};
    E("read", cuMemcpyDtoH(b, p, 4), 0);
    CHECK("the parent's bytes", b[0] == 0x11 && b[3] == 0x11);
    E("memset", cuMemsetD8(p, 0x22, 1 << 20), 0);
    CUdeviceptr start = 0;
    size_t sz = 0;
    unsigned mt = 0;
    int ipc = -1;
    E("range start", cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, p + 100), 0);
    CHECK("range start is the base", start == p);
    E("range size", cuPointerGetAttribute(&sz, CU_POINTER_ATTRIBUTE_RANGE_SIZE, p + 100), 0);
    CHECK("range size is the allocation's", sz == 1 << 20);
    E("memory type", cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p), 0);
    CHECK("device memory", mt == CU_MEMORYTYPE_DEVICE);
    E("legacy IPC capable", cuPointerGetAttribute(&ipc, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, p), 0);
    CHECK("opened memory is not IPC capable again", ipc == 0);
    E("cuMemFree of opened memory", cuMemFree(p), CUDA_ERROR_INVALID_VALUE);
    E("close an interior pointer", cuIpcCloseMemHandle(p + 16), CUDA_ERROR_INVALID_VALUE);
    E("close 1 of 4", cuIpcCloseMemHandle(p), 0);
    E("close 2 of 4", cuIpcCloseMemHandle(p), 0);
    E("read while open", cuMemcpyDtoH(b, p, 4), 0);
    E("close 3 of 4", cuIpcCloseMemHandle(p), 0);
    E("close 4 of 4", cuIpcCloseMemHandle(pi), 0);
    E("close once more", cuIpcCloseMemHandle(pi), CUDA_ERROR_INVALID_VALUE);
    E("close 0", cuIpcCloseMemHandle(0), CUDA_ERROR_INVALID_VALUE);
    E("close the freed one", cuIpcCloseMemHandle(pf), 0);

    /* a kernel writes the 3 MiB allocation */
    E("open the large one", cuIpcOpenMemHandle(&pb, hb, 1), 0);
    CUmodule mod;
    CUfunction fn;
    E("load", cuModuleLoadData(&mod, FILL_PTX), 0);
    E("get fill", cuModuleGetFunction(&fn, mod, "fill"), 0);
    unsigned n = (3u << 20) / 4, v = 7;
    void *args[] = {&pb, &n, &v};
    E("launch on opened memory", cuLaunchKernel(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL), 0);
    E("sync", cuCtxSynchronize(), 0);

    CUevent ev = 0;
    E("open event", cuIpcOpenEventHandle(&ev, eh), 0);
    E("open event NULL", cuIpcOpenEventHandle(NULL, eh), CUDA_ERROR_INVALID_VALUE);
    E("event query", cuEventQuery(ev), 0);
    E("event record", cuEventRecord(ev, 0), 0);
    E("event sync", cuEventSynchronize(ev), 0);
    CUstream s;
    E("stream", cuStreamCreate(&s, 0), 0);
    E("stream wait event", cuStreamWaitEvent(s, ev, 0), 0);
    float ms;
    E("elapsed time of an opened event", cuEventElapsedTime(&ms, ev, ev), CUDA_ERROR_INVALID_HANDLE);
    CUipcEventHandle eh3;
    E("handle of an opened event", cuIpcGetEventHandle(&eh3, ev), CUDA_ERROR_INVALID_HANDLE);
    CUipcMemHandle hh;
    CUdeviceptr q;
    E("alloc", cuMemAlloc(&q, 4096), 0);
    E("the child exports its own memory", cuIpcGetMemHandle(&hh, q), 0);
    E("event destroy", cuEventDestroy(ev), 0);
    CUipcMemHandle zero;
    memset(&zero, 0, sizeof zero);
    CUdeviceptr pz;
    E("open a zero handle", cuIpcOpenMemHandle(&pz, zero, 1), CUDA_ERROR_INVALID_VALUE);
    CUipcEventHandle zeh;
    memset(&zeh, 0, sizeof zeh);
    CUevent ez;
    E("open a zero event handle", cuIpcOpenEventHandle(&ez, zeh), CUDA_ERROR_MAP_FAILED);
    E("close the large one", cuIpcCloseMemHandle(pb), 0);

    /* pool IPC: the pool's file descriptor (inherited) and a block's export data */
    int pfd = atoi(argv[6]);
    CUmemPoolPtrExportData pe, bad;
    unhex(argv[7], &pe, sizeof pe);
    CUmemoryPool ip;
    CUdeviceptr pp = 0;
    E("import the pool", cuMemPoolImportFromShareableHandle(&ip, (void *)(intptr_t)pfd,
                                                            CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), 0);
    bad = pe;
    bad.reserved[8] ^= 1;   /* another pool's number */
    E("import a block of another pool", cuMemPoolImportPointer(&pp, ip, &bad), CUDA_ERROR_INVALID_VALUE);
    E("import the block", cuMemPoolImportPointer(&pp, ip, &pe), 0);
    unsigned char pb4[4] = {0};
    E("read the block", cuMemcpyDtoH(pb4, pp, 4), 0);
    CHECK("the parent's pool bytes", pb4[0] == 0x5a && pb4[3] == 0x5a);
    E("write the block", cuMemsetD8(pp, 0x6b, 4096), 0);
    E("free the imported block", cuMemFreeAsync(pp, NULL), 0);
    E("free it again", cuMemFreeAsync(pp, NULL), CUDA_ERROR_INVALID_VALUE);
    E("destroy the imported pool", cuMemPoolDestroy(ip), 0);
    return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
    CUcontext ctx;
    CUdevice dev;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)) {
        fprintf(stderr, "FAIL: no device\n");
        return 1;
    }
    if (argc > 7)
        return child(argv);

    const char *be = getenv("P2N_BACKEND");
    int shares = !be || !strcmp(be, "cpu");
    CUdeviceptr d, big, df;
    E("alloc 1 MiB", cuMemAlloc(&d, 1 << 20), 0);
    E("memset", cuMemsetD8(d, 0x11, 1 << 20), 0);
    E("alloc 3 MiB", cuMemAlloc(&big, 3 << 20), 0);
    E("alloc 4 KiB", cuMemAlloc(&df, 4096), 0);
    int ipc = -1, evsup = -1;
    E("legacy IPC capable", cuPointerGetAttribute(&ipc, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, d), 0);
    CHECK("cuMemAlloc memory is IPC capable where the backend shares", ipc == shares);
    E("IPC_EVENT_SUPPORTED", cuDeviceGetAttribute(&evsup, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, dev), 0);
    CHECK("IPC events where the backend shares", evsup == shares);
    CUipcMemHandle h, h2, hf, hb, hx;
    if (!shares) {
        E("no IPC on this backend", cuIpcGetMemHandle(&h, d), CUDA_ERROR_NOT_SUPPORTED);
        if (!fails)
            printf("test_ipc: all checks passed (this backend shares nothing)\n");
        return fails ? 1 : 0;
    }
    E("handle", cuIpcGetMemHandle(&h, d), 0);
    E("handle of an interior pointer", cuIpcGetMemHandle(&h2, d + 4096), 0);
    CHECK("the same handle", !memcmp(&h, &h2, sizeof h));
    E("handle of the 4 KiB one", cuIpcGetMemHandle(&hf, df), 0);
    E("handle of the 3 MiB one", cuIpcGetMemHandle(&hb, big), 0);
    E("NULL out", cuIpcGetMemHandle(NULL, d), CUDA_ERROR_INVALID_VALUE);
    E("handle of 0", cuIpcGetMemHandle(&hx, 0), CUDA_ERROR_INVALID_VALUE);
    void *hp;
    E("pinned alloc", cuMemAllocHost(&hp, 4096), 0);
    E("handle of pinned host memory", cuIpcGetMemHandle(&hx, (CUdeviceptr)hp), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr man;
    E("managed alloc", cuMemAllocManaged(&man, 4096, CU_MEM_ATTACH_GLOBAL), 0);
    E("handle of managed memory", cuIpcGetMemHandle(&hx, man), CUDA_ERROR_INVALID_VALUE);
    void *mal = malloc(64);
    E("handle of malloc'ed memory", cuIpcGetMemHandle(&hx, (CUdeviceptr)mal), CUDA_ERROR_INVALID_VALUE);
    free(mal);
    CUstream st;
    CUdeviceptr pa;
    E("stream", cuStreamCreate(&st, 0), 0);
    E("pool alloc", cuMemAllocAsync(&pa, 4096, st), 0);
    E("stream sync", cuStreamSynchronize(st), 0);
    E("handle of pool memory", cuIpcGetMemHandle(&hx, pa), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr self = 0;
    E("open own handle", cuIpcOpenMemHandle(&self, h, 1), CUDA_ERROR_INVALID_CONTEXT);
    CUevent e1, e2, e3;
    CUipcEventHandle eh1, eh2;
    E("plain event", cuEventCreate(&e1, 0), 0);
    E("IPC event", cuEventCreate(&e2, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING), 0);
    E("IPC event with timing", cuEventCreate(&e3, CU_EVENT_INTERPROCESS), CUDA_ERROR_INVALID_VALUE);
    E("handle of a plain event", cuIpcGetEventHandle(&eh1, e1), CUDA_ERROR_INVALID_HANDLE);
    E("handle of the IPC event", cuIpcGetEventHandle(&eh2, e2), 0);
    E("event handle NULL out", cuIpcGetEventHandle(NULL, e2), CUDA_ERROR_INVALID_VALUE);
    CUevent eo;
    E("open own event", cuIpcOpenEventHandle(&eo, eh2), CUDA_ERROR_INVALID_CONTEXT);
    E("record", cuEventRecord(e2, 0), 0);
    E("free the 4 KiB one before the child opens it", cuMemFree(df), 0);

    /* a pool shared through a POSIX file descriptor, one block of it by export data */
    int htypes = 0;
    E("MEMPOOL_SUPPORTED_HANDLE_TYPES", cuDeviceGetAttribute(&htypes, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, dev), 0);
    CHECK("POSIX file descriptors", htypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 0;
    props.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    CUmemoryPool pool, plain;
    E("IPC pool", cuMemPoolCreate(&pool, &props), 0);
    props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
    E("plain pool", cuMemPoolCreate(&plain, &props), 0);
    int pfd = -1;
    E("export a plain pool", cuMemPoolExportToShareableHandle(&pfd, plain, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
      CUDA_ERROR_INVALID_VALUE);
    E("export the IPC pool", cuMemPoolExportToShareableHandle(&pfd, pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), 0);
    CUdeviceptr pblk, plainblk;
    E("pool block", cuMemAllocFromPoolAsync(&pblk, 4096, pool, st), 0);
    E("plain pool block", cuMemAllocFromPoolAsync(&plainblk, 4096, plain, st), 0);
    E("fill", cuMemsetD8(pblk, 0x5a, 4096), 0);
    CUmemPoolPtrExportData pe;
    E("export a plain pool's block", cuMemPoolExportPointer(&pe, plainblk), CUDA_ERROR_INVALID_VALUE);
    E("export the block", cuMemPoolExportPointer(&pe, pblk), 0);
    int inherit = dup(pfd);   /* the exported descriptor is close-on-exec; the child gets a copy */

    char a[5][129], fdarg[16], pearg[2 * sizeof pe + 1];
    snprintf(fdarg, sizeof fdarg, "%d", inherit);
    hex(&pe, sizeof pe, pearg);
    hex(&h, 64, a[0]);
    hex(&h2, 64, a[1]);
    hex(&eh2, 64, a[2]);
    hex(&hf, 64, a[3]);
    hex(&hb, 64, a[4]);
    char *args[] = {argv[0], a[0], a[1], a[2], a[3], a[4], fdarg, pearg, NULL};
    pid_t pid;
    int status = 0;
    fflush(NULL);
    if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ) != 0 || waitpid(pid, &status, 0) != pid) {
        fprintf(stderr, "FAIL: cannot run the child\n");
        return 1;
    }
    CHECK("the child passed", WIFEXITED(status) && WEXITSTATUS(status) == 0);
    unsigned char b[4];
    E("read after the child", cuMemcpyDtoH(b, d, 4), 0);
    CHECK("the child's memset", b[0] == 0x22 && b[3] == 0x22);
    unsigned w[2];
    E("read the large one", cuMemcpyDtoH(w, big + (3 << 20) - 8, 8), 0);
    CHECK("the child's kernel wrote it", w[0] == 7 + (3u << 20) / 4 - 2 && w[1] == 7 + (3u << 20) / 4 - 1);
    E("read the pool block after the child", cuMemcpyDtoH(b, pblk, 4), 0);
    CHECK("the child's pool write", b[0] == 0x6b && b[3] == 0x6b);
    E("free the pool block", cuMemFreeAsync(pblk, st), 0);
    E("free the plain pool block", cuMemFreeAsync(plainblk, st), 0);
    E("destroy the IPC pool", cuMemPoolDestroy(pool), 0);
    E("destroy the plain pool", cuMemPoolDestroy(plain), 0);
    close(pfd);
    close(inherit);
    E("event query", cuEventQuery(e2), 0);
    E("event sync", cuEventSynchronize(e2), 0);
    E("free", cuMemFree(d), 0);
    E("handle after free", cuIpcGetMemHandle(&hx, d), CUDA_ERROR_INVALID_VALUE);
    E("event destroy", cuEventDestroy(e2), 0);
    if (!fails)
        printf("test_ipc: all checks passed\n");
    return fails ? 1 : 0;
}
