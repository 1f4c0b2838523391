// cudart_refused.cu — a runtime call whose driver function the stub refuses (stream capture: CUDA graphs are
// not implemented) fails with cudaErrorNotSupported, and libcuda says once on stderr which driver function and
// why (driver-stub/refused.h), instead of cudart's anonymous cudaErrorCallRequiresNewerDriver (36).
#include <cstdio>

int main()
{
    cudaStream_t s;
    if (cudaStreamCreate(&s) != cudaSuccess) {
        printf("FAIL cudaStreamCreate\n");
        return 1;
    }
    for (int i = 0; i < 2; i++) {   // twice: the line comes once
        cudaError_t e = cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
        fflush(stderr);
        if (e != cudaErrorNotSupported) {
            printf("FAIL cudaStreamBeginCapture -> %d (%s), expected cudaErrorNotSupported\n", (int)e, cudaGetErrorString(e));
            return 1;
        }
        cudaGetLastError();
    }
    cudaStreamDestroy(s);
    printf("PASS cudart_refused\n");
    return 0;
}
