#!/usr/bin/env bash
# gen-ptx.sh — regenerates kernels.ptx from kernels.cu with nvcc (only needed after editing kernels.cu; the
# PTX is committed so that the benchmark itself needs no CUDA toolkit).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-${CUDA_ROOT:-/usr/local/cuda}/bin/nvcc}
"$nvcc" -arch=sm_80 -O3 -ptx "$here/kernels.cu" -o "$here/kernels.ptx"
