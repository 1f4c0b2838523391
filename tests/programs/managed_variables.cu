// managed_variables — __managed__ globals (a counter and an array) that kernels update and the host reads and
// writes directly between launches, as CUDA programs with managed variables do. Checked against the host.
#include <cstdio>
#include <cuda_runtime.h>

__managed__ int counter;
__managed__ float values[512];

__global__ void bump(int add)
{
    atomicAdd(&counter, add);
    values[threadIdx.x] = values[threadIdx.x] * 2.0f + (float)threadIdx.x;
}

int main()
{
    counter = 5;
    for (int i = 0; i < 512; i++)
        values[i] = (float)(i % 7);
    float want[512];
    for (int i = 0; i < 512; i++)
        want[i] = (float)(i % 7);
    int want_counter = 5;
    for (int round = 1; round <= 3; round++) {
        bump<<<1, 512>>>(round);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            printf("FAIL managed_variables: %s\n", cudaGetErrorString(e));
            return 1;
        }
        want_counter += 512 * round;
        for (int i = 0; i < 512; i++)
            want[i] = want[i] * 2.0f + (float)i;
        counter -= 1;   // the host's update between launches
        want_counter -= 1;
    }
    int bad = counter != want_counter;
    if (bad)
        printf("counter %d, expected %d\n", counter, want_counter);
    for (int i = 0; i < 512; i++)
        if (values[i] != want[i] && bad++ < 5)
            printf("values[%d] = %g, expected %g\n", i, values[i], want[i]);
    if (bad) {
        printf("FAIL managed_variables: %d mismatches\n", bad);
        return 1;
    }
    printf("PASS managed_variables (counter %d, 512 values, 3 rounds)\n", counter);
    return 0;
}
