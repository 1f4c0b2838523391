#!/usr/bin/env bash
# build-pocl.sh — builds PoCL 3.1 from Debian's pocl-source with SPIR-V input enabled (llvm-spirv-15), once per
# machine, into a cache directory; prints the directory holding the ICD file. Tests run our SPIR-V on it with
#   OCL_ICD_VENDORS=$(scripts/build-pocl.sh) ...
# Stock Debian PoCL is built without SPIR-V input, hence the rebuild (see ../shared/docs/targets.md §3.2).
set -euo pipefail
cache=${P2N_POCL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ptx2native/pocl-3.1-spirv}
if [ -f "$cache/done" ]; then echo "$cache/icd"; exit 0; fi
src_tar=/usr/src/pocl.tar.xz
[ -f "$src_tar" ] || { echo "build-pocl: $src_tar missing (package pocl-source)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xJf "$src_tar" -C "$work"
srcdir=$(find "$work" -maxdepth 2 -name CMakeLists.txt -printf '%h\n' | head -1)
mkdir -p "$cache"
# One kernel library for an x86-64-v3 CPU (AVX2/FMA; every machine of this kind has it). LLVM 15 cannot name
# newer CPUs ("Host CPU: (unknown)" on this machine's EPYC), so the CPU is given explicitly.
cmake -S "$srcdir" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$cache" \
  -DWITH_LLVM_CONFIG="$(command -v llvm-config-15)" -DLLVM_SPIRV="$(command -v llvm-spirv-15)" \
  -DENABLE_ICD=ON -DPOCL_INSTALL_ICD_VENDORDIR="$cache/icd" \
  -DKERNELLIB_HOST_CPU_VARIANTS=native -DLLC_HOST_CPU=x86-64-v3 -DENABLE_TESTS=OFF -DENABLE_EXAMPLES=OFF \
  -DENABLE_IPO=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_C_FLAGS=-fPIC -DCMAKE_CXX_FLAGS=-fPIC \
  -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF >"$cache/configure.log" 2>&1 \
  || { echo "build-pocl: configure failed, see $cache/configure.log" >&2; exit 1; }
grep -q "ENABLE_SPIRV.*ON" "$cache/configure.log" || { echo "build-pocl: SPIR-V support not enabled" >&2; exit 1; }
ninja -C "$work/build" install >"$cache/build.log" 2>&1 || { echo "build-pocl: build failed, see $cache/build.log" >&2; exit 1; }
touch "$cache/done"
echo "$cache/icd"
