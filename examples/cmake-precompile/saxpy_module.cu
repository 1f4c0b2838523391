// A kernel built as a stand-alone code object (ptx2native_add_code_object): nvcc -ptx, then ptx2native.
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
