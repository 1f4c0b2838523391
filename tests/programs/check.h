// check.h — the programs' CHECK(x): a CUDA runtime call that must succeed; otherwise "FAIL file:line call: error"
// and main returns 1 (run-cudart.sh then fails the test).
#pragma once
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(x)                                                                                                   \
    do {                                                                                                           \
        cudaError_t e_ = (x);                                                                                      \
        if (e_ != cudaSuccess) {                                                                                   \
            printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));                         \
            return 1;                                                                                              \
        }                                                                                                          \
    } while (0)
