// cudart_refused.cu — a runtime call whose driver function the stub refuses (graph user objects:
// cuUserObjectCreate) fails with cudaErrorNotSupported, and libcuda says once on stderr which driver function and
// why (driver-stub/refused.h), instead of cudart's anonymous cudaErrorCallRequiresNewerDriver (36).
#include <cstdio>

static void destroy(void *) {}

int main()
{
    static int payload;
    for (int i = 0; i < 2; i++) {   // twice: the line comes once
        cudaUserObject_t obj;
        cudaError_t e = cudaUserObjectCreate(&obj, &payload, destroy, 1, cudaUserObjectNoDestructorSync);
        fflush(stderr);
        if (e != cudaErrorNotSupported) {
            printf("FAIL cudaUserObjectCreate -> %d (%s), expected cudaErrorNotSupported\n", (int)e, cudaGetErrorString(e));
            return 1;
        }
        cudaGetLastError();
    }
    printf("PASS cudart_refused\n");
    return 0;
}
