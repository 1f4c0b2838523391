/* P2N_BACKEND selection: run with P2N_BACKEND=hip (no runtime or no AMD GPU) or an unknown name: cuInit must fail with
 * CUDA_ERROR_NO_DEVICE, every time, and later calls see no initialised driver. */
#include "check.h"

int main(void)
{
    int n = -1;
    EXPECT(cuInit(0), CUDA_ERROR_NO_DEVICE);
    EXPECT(cuInit(0), CUDA_ERROR_NO_DEVICE);
    EXPECT(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
    return check_done("test_backend");
}
