// cudart_vecadd.cu — examples/vecadd.cu driven through the CUDA runtime API (cudart), built by nvcc with
// -cudart static and -cudart shared (tests/driver/CMakeLists.txt) and run on OUR libcuda.so.1: exercises
// cudart's whole driver bring-up (cuGetProcAddress_v2, the export tables, the integrity check, lazy
// cuLibraryLoadData of the fatbin wrapper, CUkernel launched as CUfunction, the teardown after main).
#include <cstdio>

#include "../../../examples/vecadd.cu"

#define CHECK(x) \
    do { \
        cudaError_t e_ = (x); \
        if (e_ != cudaSuccess) { \
            printf("FAIL %s:%d: %s -> %d (%s)\n", __FILE__, __LINE__, #x, (int)e_, cudaGetErrorString(e_)); \
            return 1; \
        } \
    } while (0)

int main()
{
    const int n = 1000;
    static float a[n], b[n], c[n];
    for (int i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = 2.0f * (float)i + 0.5f;
        c[i] = -1.0f;
    }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, sizeof a));
    CHECK(cudaMalloc(&db, sizeof b));
    CHECK(cudaMalloc(&dc, sizeof c));
    CHECK(cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice));
    vecadd<<<4, 64>>>(da, db, dc, n);   // grid-stride: fewer threads than elements on purpose
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        if (c[i] != a[i] + b[i]) {
            printf("FAIL c[%d] = %g, expected %g\n", i, c[i], a[i] + b[i]);
            return 1;
        }
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    printf("PASS cudart_vecadd\n");
    return 0;
}
