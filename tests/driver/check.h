/* check.h — tiny assertion helpers for the driver-stub tests (C programs against libcuda.so.1). */
#ifndef P2N_TEST_DRIVER_CHECK_H
#define P2N_TEST_DRIVER_CHECK_H
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#include "../tools/test_file.h"

static int check_failures;

static inline const char *check_name(CUresult r)
{
    const char *s = NULL;
    if (cuGetErrorName(r, &s) != CUDA_SUCCESS || !s)
        return "?";
    return s;
}

/* expect a specific CUresult */
#define EXPECT(call, want)                                                                                 \
    do {                                                                                                   \
        CUresult r_ = (call);                                                                              \
        if (r_ != (want)) {                                                                                \
            fprintf(stderr, "%s:%d: %s returned %s (%d), expected %s (%d)\n", __FILE__, __LINE__, #call,         \
                    check_name(r_), (int)r_, #want, (int)(want));                                          \
            check_failures++;                                                                              \
        }                                                                                                  \
    } while (0)

#define OK(call) EXPECT(call, CUDA_SUCCESS)

/* OK, and stop the test on failure (later steps depend on it) */
#define MUST(call)                                                                                         \
    do {                                                                                                   \
        CUresult r_ = (call);                                                                              \
        if (r_ != CUDA_SUCCESS) {                                                                          \
            fprintf(stderr, "%s:%d: %s returned %s (%d); cannot continue\n", __FILE__, __LINE__, #call,     \
                    check_name(r_), (int)r_);                                                              \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

#define TRUE(cond)                                                                                         \
    do {                                                                                                   \
        if (!(cond)) {                                                                                     \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                       \
            check_failures++;                                                                              \
        }                                                                                                  \
    } while (0)

/* cuInit, device 0's primary context made current, and the PTX file `path` loaded as a module (exit 1 on any
 * failure: nothing later can run without them) */
static inline CUmodule must_load_ptx(const char *path)
{
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    MUST(cuInit(0));
    MUST(cuDeviceGet(&dev, 0));
    MUST(cuDevicePrimaryCtxRetain(&ctx, dev));
    MUST(cuCtxSetCurrent(ctx));
    char *ptx = test_read_file(path, NULL);
    if (!ptx) {
        perror(path);
        exit(1);
    }
    MUST(cuModuleLoadData(&mod, ptx));
    free(ptx);
    return mod;
}

static inline int check_done(const char *name)
{
    if (check_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}
#endif
