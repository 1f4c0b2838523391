/* cuda_types.h — cuda.h for the driver stub itself.
 *
 * cuda.h is used for types and prototypes only. __CUDA_API_VERSION_INTERNAL makes it declare every
 * exported name as it is (cuMemAlloc and cuMemAlloc_v2, cuMemcpyHtoD_v2 and cuMemcpyHtoD_v2_ptds, ...)
 * instead of mapping the API names to their newest versions, so each definition in the stub is checked
 * against NVIDIA's prototype of exactly that symbol.
 */
#ifndef P2N_DRIVER_CUDA_TYPES_H
#define P2N_DRIVER_CUDA_TYPES_H
#ifndef __CUDA_API_VERSION_INTERNAL
#define __CUDA_API_VERSION_INTERNAL 1
#endif
#include <cuda.h>
/* the profiler-control functions (cuProfilerStart/Stop) are declared next to cuda.h, not in it */
#include <cudaProfiler.h>
#endif
