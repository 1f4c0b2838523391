/* A host code object whose kernel descriptor is inconsistent (parameter outside the buffer). */
#include "fake.h"
const p2n_rt_table *__p2n_rt;
KERNEL(k) { (void)params; (void)ctx; }
static const uint32_t off[1] = {8}, size[1] = {8};
static const p2n_kernel_desc kernels[] = {{"k", k, 1, off, size, 8, 0, 16, 0, {0, 0, 0}, {0, 0, 0}, 0, 0, 0, 0}};
const p2n_module_desc __p2n_module = {P2N_HOST_ABI_VERSION, 1, kernels, 0, 0};
