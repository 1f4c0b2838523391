/* refused.c — what a refused function does when called (refused.h): one line on stderr, the first time only
 * (a program that retries in a loop must not flood the terminal), then the function's error. Nothing is
 * printed when cuGetProcAddress hands the stub out: cudart asks for ~440 names at init and calls few. */
#include <stdio.h>

#include "refused.h"

CUresult p2n_refused_call(const p2n_refused_entry *e, _Atomic unsigned char *said)
{
    if (atomic_exchange(said, 1) == 0)
        fprintf(stderr, "libcuda (ptx2native): %s is not supported (%s)\n", e->name, e->why);
    return e->error;
}
