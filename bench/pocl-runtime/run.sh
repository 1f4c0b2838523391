#!/usr/bin/env bash
# bench/pocl-runtime/run.sh [N] [kernel...] — builds and runs the PoCL comparison (see RESULTS.md).
# Env: PTX2NATIVE (default build-q, then build), NVCC (default /usr/local/cuda/bin/nvcc),
#      P2N_BENCH_CLOCK=cpu (launches timed in process CPU time, for a loaded machine; default wall),
#      POCL_DIR (default ~/.cache/ptx2native/pocl-3.1-spirv; scripts/build-pocl.sh builds it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$here/out"
mkdir -p "$out"
P2N="${PTX2NATIVE:-}"
if [ -z "$P2N" ]; then
  for b in build-q build; do [ -x "$root/$b/targets/ptx2native" ] && { P2N="$root/$b/targets/ptx2native"; break; }; done
fi
[ -x "$P2N" ] || { echo "ptx2native not found (set PTX2NATIVE)"; exit 1; }
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
POCL_DIR="${POCL_DIR:-$HOME/.cache/ptx2native/pocl-3.1-spirv}"
[ -d "$POCL_DIR/icd" ] || { echo "PoCL not built at $POCL_DIR (scripts/build-pocl.sh)"; exit 1; }

"$NVCC" -arch=sm_80 -ptx "$here/kernels.cu" -o "$out/kernels.ptx"
"$P2N" "$out/kernels.ptx" --offload-arch=spirv64 -o "$out/kernels.spv"
cc -O2 -std=c17 -Wall -I"$root/abi" "$here/bench.c" "$root/abi/spirv_null_fix.c" \
   -o "$out/bench" -lOpenCL -lm
echo "load: $(uptime)"
OCL_ICD_VENDORS="$POCL_DIR/icd" POCL_CACHE_DIR="$out/pocl-cache" "$out/bench" "$out/kernels.spv" "$here/kernels.cl" "$@"
echo "load: $(uptime)"
