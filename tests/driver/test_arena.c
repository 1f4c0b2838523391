/* test_arena.c — device memory of the CPU backend (driver-stub/cpu/cpu_arena.c): out of the malloc heap, rounded
 * and aligned as NVIDIA's driver does (512 bytes up to 1 MiB, 2 MiB above), guarded.
 *  (a) a kernel writing into an allocation's rounding slack succeeds and leaves the neighbour alone, as on NVIDIA;
 *  (b) one writing (or reading) past the slack — after a large allocation, before it, past a chunk of small ones —
 *      makes the launch fail with CUDA_ERROR_ILLEGAL_ADDRESS (sticky, as CUDA), stderr naming the kernel, and the
 *      heap is intact; a reset primary context works again;
 *  (c) many alloc/free cycles: every pointer 512-byte aligned (2 MiB above 1 MiB), the address space and
 *      cuMemGetInfo back where they were.
 * The process then exits normally (ctest wants the final line; under ASan any heap damage would abort). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define MiB ((size_t)1 << 20)

static CUfunction poke, peek;
static CUdevice dev;

static void load(const char *path)
{
    CUmodule mod = must_load_ptx(path);
    MUST(cuDeviceGet(&dev, 0));
    MUST(cuModuleGetFunction(&poke, mod, "arena_poke"));
    MUST(cuModuleGetFunction(&peek, mod, "arena_peek"));
}

static CUresult launch(CUfunction f, CUdeviceptr p, uint64_t off, uint64_t arg)
{
    uint32_t val = (uint32_t)arg;
    void *pargs[] = {&p, &off, &val};
    void *largs[] = {&p, &off, &arg};
    return cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, f == poke ? pargs : largs, NULL);
}

/* kB of a /proc/self/status field (VmSize, ...) */
static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':')
            v = atol(line + n + 1);
    if (f)
        fclose(f);
    return v;
}

/* whether p lies in the brk heap ([heap] of /proc/self/maps) */
static int in_brk_heap(uint64_t p)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int in = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (strstr(line, "[heap]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 && p >= lo && p < hi)
            in = 1;
    }
    if (f)
        fclose(f);
    return in;
}

/* launches f(p, off) expecting a fault: CUDA_ERROR_ILLEGAL_ADDRESS at the next call (sticky), a message naming
 * the kernel on stderr (P2N_VERBOSE); then resets the primary context and loads the module again */
static void expect_fault(const char *what, CUfunction f, const char *kname, CUdeviceptr p, uint64_t off,
                         CUdeviceptr out, const char *ptx)
{
    char path[] = "/tmp/p2n_test_arena_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        exit(1);
    }
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    setenv("P2N_VERBOSE", "1", 1);
    CUresult rl = launch(f, p, off, f == poke ? 0x12345678u : out);
    CUresult rs = cuCtxSynchronize();
    unsetenv("P2N_VERBOSE");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char buf[4096] = "";
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    buf[n > 0 ? n : 0] = 0;
    close(fd);
    unlink(path);
    printf("%s: launch %s, synchronize %s, stderr: %s", what, check_name(rl), check_name(rs), buf);
    if (rl != CUDA_SUCCESS && rl != CUDA_ERROR_ILLEGAL_ADDRESS) {
        fprintf(stderr, "%s: launch returned %s, expected CUDA_ERROR_ILLEGAL_ADDRESS (now or at the next call)\n",
                what, check_name(rl));
        check_failures++;
    }
    EXPECT(rs, CUDA_ERROR_ILLEGAL_ADDRESS);
    TRUE(strstr(buf, kname) != NULL);
    TRUE(strstr(buf, "illegal memory access") != NULL);
    /* sticky, as in CUDA: the context is unusable until reset */
    CUdeviceptr q = 0;
    EXPECT(cuMemAlloc(&q, 64), CUDA_ERROR_ILLEGAL_ADDRESS);
    MUST(cuDevicePrimaryCtxReset(dev)); /* drops the retain too (driver-stub/ctx.c) */
    load(ptx);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_arena arena.ptx\n");
        return 2;
    }
    const char *ptx = argv[1];
    load(ptx);

    /* (a) the rounding slack is writable and private to its allocation */
    {
        CUdeviceptr a = 0, b = 0, l = 0, out = 0;
        MUST(cuMemAlloc(&a, 1000));
        MUST(cuMemAlloc(&b, 1000));
        MUST(cuMemAlloc(&l, 3 * MiB + 1));
        MUST(cuMemAlloc(&out, 4));
        TRUE(a % 512 == 0 && b % 512 == 0 && out % 512 == 0);
        TRUE(l % (2 * MiB) == 0);
        TRUE(!in_brk_heap(a) && !in_brk_heap(l));
        OK(cuMemsetD8(b, 0x5a, 1000));
        OK(launch(poke, a, 1020, 0xdeadbeef)); /* last word of a's 1024 bytes */
        OK(launch(poke, l, 4 * MiB - 4, 0xcafef00d)); /* last word of l's 4 MiB */
        OK(cuCtxSynchronize());
        OK(launch(peek, l, 4 * MiB - 4, out));
        uint32_t v = 0;
        OK(cuMemcpyDtoH(&v, out, 4));
        TRUE(v == 0xcafef00du);
        OK(launch(peek, a, 1020, out));
        OK(cuMemcpyDtoH(&v, out, 4));
        TRUE(v == 0xdeadbeefu);
        unsigned char hb[1000];
        OK(cuMemcpyDtoH(hb, b, sizeof hb));
        int intact = 1;
        for (size_t i = 0; i < sizeof hb; i++)
            intact &= hb[i] == 0x5a;
        TRUE(intact);
        OK(cuMemFree(a));
        OK(cuMemFree(b));
        OK(cuMemFree(l));
        OK(cuMemFree(out));
    }

    /* (c) alloc/free cycles: alignment of every pointer, no growth of address space or reported use */
    {
        static const size_t sizes[] = {1,     100,   255,     256,   257,         511,           512,
                                       513,   1000,  4096,    65536, 65537,       MiB - 1,       MiB,
                                       MiB + 1, 2 * MiB, 3 * MiB, 17 * MiB + 3, 64 * MiB + 512};
        enum { NS = sizeof sizes / sizeof sizes[0], PER = 3, ROUNDS = 300 };
        CUdeviceptr p[NS * PER];
        size_t f0 = 0, t = 0, f1 = 0, sum = 0;
        long vm0 = 0;
        int misaligned = 0, short_info = 0;
        for (int round = 0; round <= ROUNDS; round++) {
            if (round == 1) { /* after a warm-up round (the arena keeps one empty chunk) */
                OK(cuMemGetInfo(&f0, &t));
                vm0 = status_kb("VmSize");
            }
            sum = 0;
            for (int i = 0; i < NS * PER; i++) {
                size_t sz = sizes[(i + round) % NS];
                MUST(cuMemAlloc(&p[i], sz));
                sum += sz;
                misaligned += p[i] % 512 != 0 || (sz > MiB && p[i] % (2 * MiB) != 0);
                OK(cuMemsetD8(p[i], (unsigned char)i, 1));
                OK(cuMemsetD8(p[i] + sz - 1, (unsigned char)i, 1));
            }
            if (round >= 1) {
                OK(cuMemGetInfo(&f1, &t));
                short_info += f0 - f1 < sum;
            }
            for (int i = 0; i < NS * PER; i++) {
                int j = round & 1 ? NS * PER - 1 - i : (i * 7) % (NS * PER); /* 7 and 57 are coprime */
                OK(cuMemFree(p[j]));
            }
        }
        TRUE(misaligned == 0);
        TRUE(short_info == 0);
        OK(cuMemGetInfo(&f1, &t));
        TRUE(f1 == f0);
        long vm1 = status_kb("VmSize");
        printf("cycles: VmSize %ld kB -> %ld kB, free %zu -> %zu\n", vm0, vm1, f0, f1);
        TRUE(vm0 > 0 && vm1 <= vm0 + 4096);
    }

    /* (b) past the slack: faults, reported for the launch */
    {
        CUdeviceptr l = 0, s = 0, out = 0;
        MUST(cuMemAlloc(&l, 3 * MiB));
        MUST(cuMemAlloc(&out, 4));
        expect_fault("one page past a large allocation's slack", poke, "arena_poke", l, 4 * MiB + 4096, 0, ptx);
        MUST(cuMemAlloc(&l, 3 * MiB));
        MUST(cuMemAlloc(&out, 4));
        expect_fault("32 MiB past a large allocation", poke, "arena_poke", l, 36 * MiB, 0, ptx);
        MUST(cuMemAlloc(&l, 3 * MiB));
        MUST(cuMemAlloc(&out, 4));
        expect_fault("a read before a large allocation", peek, "arena_peek", l, (uint64_t)-(int64_t)8, out, ptx);
        MUST(cuMemAlloc(&s, 256));
        /* small allocations share 2 MiB chunks; past the chunk's end is guard */
        uint64_t chunk_end = (s & ~(uint64_t)(2 * MiB - 1)) + 2 * MiB;
        expect_fault("past a chunk of small allocations", poke, "arena_poke", s, chunk_end - s + 64, 0, ptx);
        /* the reset context works */
        MUST(cuMemAlloc(&s, 256));
        OK(launch(poke, s, 252, 7));
        OK(cuCtxSynchronize());
        OK(cuMemFree(s));
    }

    /* the host heap is intact */
    for (int i = 0; i < 1000; i++) {
        void *m = malloc((size_t)(i * 37 % 4000) + 1);
        TRUE(m != NULL);
        free(m);
    }
    MUST(cuDevicePrimaryCtxRelease(dev));
    return check_done("test_arena");
}
