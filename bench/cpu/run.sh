#!/usr/bin/env bash
# run.sh [BUILD_DIR] [bench-cpu options] — the CPU-backend benchmark twice: kernels.ptx compiled by
# cuModuleLoadData (the JIT path), then a `ptx2native --arch=host -O3` object loaded as an ELF image.
# P2N_CPU_THREADS (worker count) is passed through; the C threaded runs use the same count.
set -euo pipefail
build=${1:-build}
shift || true
here=$(cd "$(dirname "$0")" && pwd)
export P2N_BACKEND=cpu
"$build/targets/ptx2native" --arch=host -O3 -v "$here/kernels.ptx" -o "$build/bench-cpu-kernels.so" 2>&1 | sed -n 's/^ptx2native: times:/ahead-of-time compile (-O3):/p'
echo "== PTX through cuModuleLoadData"
"$build/bench/cpu/bench-cpu" "$@" "$here/kernels.ptx"
echo
echo "== ptx2native --arch=host -O3 object through cuModuleLoadData"
"$build/bench/cpu/bench-cpu" "$@" "$build/bench-cpu-kernels.so"
