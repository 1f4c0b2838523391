/* Named refusals (driver-stub/refused.h): cuGetProcAddress hands out a stub for a cuda.h function the stub does
 * not implement; calling it returns the documented error and prints one line on stderr naming the function and
 * why, the first time only. Looking names up prints nothing (cudart looks up ~440 names at init). */
#include <string.h>
#include <unistd.h>

#include "check.h"

/* a function nobody is going to implement here: process checkpointing of GPU state */
#define REFUSED "cuCheckpointProcessGetRestoreThreadId"

static FILE *capture_begin(int *saved)
{
    fflush(stderr);
    FILE *f = tmpfile();
    if (!f) {
        perror("tmpfile");
        exit(1);
    }
    *saved = dup(2);
    if (*saved < 0 || dup2(fileno(f), 2) < 0) {
        perror("dup2");
        exit(1);
    }
    return f;
}

/* restores stderr and returns what was written meanwhile (malloc'ed) */
static char *capture_end(FILE *f, int saved)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    long n = ftell(f);
    char *buf = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
    if (!buf)
        exit(1);
    rewind(f);
    if (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)
        exit(1);
    fclose(f);
    return buf;
}

static int count(const char *hay, const char *needle)
{
    int k = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        k++;
    return k;
}

int main(void)
{
    int saved;
    FILE *cap = capture_begin(&saved);

    /* lookups, as cudart makes them before cuInit: FOUND at the version cudart asks for and any other */
    CUresult (*fn)(int, int *) = NULL;
    CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)-1;
    CUresult r1 = cuGetProcAddress(REFUSED, (void **)&fn, 12080, 0, &st);
    void *fn_old = NULL, *fn_pt = NULL, *fn_v1 = NULL;
    CUdriverProcAddressQueryResult st_old = (CUdriverProcAddressQueryResult)-1;
    CUresult r2 = cuGetProcAddress(REFUSED, &fn_old, 2000, 0, &st_old);
    CUresult r3 = cuGetProcAddress(REFUSED, &fn_pt, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL);
    /* the v1 entry point (no status argument) */
    CUresult (*gpa_v1)(const char *, void **, int, cuuint64_t) = NULL;
    CUresult r4 = cuGetProcAddress("cuGetProcAddress", (void **)&gpa_v1, 11030, 0, NULL);
    CUresult r5 = gpa_v1 ? gpa_v1(REFUSED, &fn_v1, 13000, 0) : CUDA_ERROR_UNKNOWN;
    char *said_at_lookup = capture_end(cap, saved);

    OK(r1);
    OK(r2);
    OK(r3);
    OK(r4);
    OK(r5);
    TRUE(st == CU_GET_PROC_ADDRESS_SUCCESS && fn != NULL);
    TRUE(st_old == CU_GET_PROC_ADDRESS_SUCCESS && fn_old == (void *)fn);
    TRUE(fn_pt == (void *)fn && fn_v1 == (void *)fn);
    if (said_at_lookup[0]) {
        fprintf(stderr, "lookups printed (nothing expected):\n%s", said_at_lookup);
        check_failures++;
    }
    free(said_at_lookup);
    if (!fn) {
        fprintf(stderr, "test_refused: no stub for %s; cannot continue\n", REFUSED);
        return 1;
    }

    /* calls: the documented error each time, the line the first time only; works before cuInit too */
    int tid = -1;
    cap = capture_begin(&saved);
    CUresult c1 = fn(getpid(), &tid);
    CUresult c2 = fn(getpid(), &tid);
    char *said = capture_end(cap, saved);
    EXPECT(c1, CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(c2, CUDA_ERROR_NOT_SUPPORTED);
    TRUE(tid == -1);
    const char *line = "libcuda (ptx2native): " REFUSED " is not supported (";
    if (count(said, line) != 1 || count(said, "\n") != 1) {
        fprintf(stderr, "expected exactly one line starting '%s', got:\n%s", line, said);
        check_failures++;
    } else {
        printf("stderr of two calls: %s", said);
    }
    free(said);

    /* a second refused function has its own once-flag */
    CUresult (*fn2)(CUcontext, unsigned) = NULL;
    OK(cuGetProcAddress("cuCtxEnablePeerAccess", (void **)&fn2, 4000, 0, &st));
    TRUE(fn2 != NULL && (void *)fn2 != (void *)fn);
    if (fn2) {
        cap = capture_begin(&saved);
        CUresult c3 = fn2(NULL, 0);
        said = capture_end(cap, saved);
        EXPECT(c3, CUDA_ERROR_NOT_SUPPORTED);
        TRUE(count(said, "libcuda (ptx2native): cuCtxEnablePeerAccess is not supported (") == 1);
        free(said);
    }

    /* names cuda.h does not declare stay unknown; implemented names still map to their own symbol */
    fn = (void *)1;
    OK(cuGetProcAddress("cuNoSuchFunction", (void **)&fn, 13000, 0, &st));
    TRUE(fn == NULL && st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    OK(cuGetProcAddress("cuCheckpointProcessGetRestoreThreadId_v2", (void **)&fn, 13000, 0, &st));
    TRUE(fn == NULL && st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    void *init = NULL;
    OK(cuGetProcAddress("cuInit", &init, 2000, 0, &st));
    TRUE(init == (void *)cuInit);
    /* an implemented name asked for at a version older than its first ABI is still VERSION_NOT_SUFFICIENT */
    void *lib = (void *)1;
    OK(cuGetProcAddress("cuLibraryLoadData", &lib, 11000, 0, &st));
    TRUE(lib == NULL && st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);

    if (check_failures) {
        fprintf(stderr, "test_refused: %d check(s) failed\n", check_failures);
        return 1;
    }
    printf("test_refused: all checks passed\n");
    return 0;
}
