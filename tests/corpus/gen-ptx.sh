#!/usr/bin/env bash
# Regenerate tests/corpus/ptx/<name>.sm_<NN>.ptx from tests/corpus/cu/*.cu.
# Usage: tests/corpus/gen-ptx.sh [path/to/nvcc]
# The generated PTX is committed as test data; tests never run nvcc.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
NVCC="${1:-${NVCC:-/usr/local/cuda/bin/nvcc}}"
ARCHS="${ARCHS:-75 80 86 89 90 100 120}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
mkdir -p "$here/ptx"

# Extra flags per source (basename without .cu). Everything else: -O3 default.
flags_for() {
  case "$1" in
    templates|warp|atomics|math_float|tensor) echo "-lineinfo" ;;   # .loc/.file
    misc|funcptr)                             echo "-G" ;;          # full debug: .section .debug_*
    rdc_extern|rdc_extern_defs)               echo "-rdc=true -lineinfo" ;;  # .extern .func / .extern .global (linked pair)
    *)                                        echo "" ;;
  esac
}

build_one() {  # $1 = src, $2 = arch
  local src="$1" arch="$2" name
  name="$(basename "$src" .cu)"
  # shellcheck disable=SC2046
  "$NVCC" -std=c++17 --extended-lambda -ptx -arch="sm_${arch}" $(flags_for "$name") \
    "$src" -o "$here/ptx/${name}.sm_${arch}.ptx"
}
export -f build_one flags_for
export NVCC here

rm -f "$here"/ptx/*.ptx
for src in "$here"/cu/*.cu; do
  for a in $ARCHS; do printf '%s %s\n' "$src" "$a"; done
done | xargs -P "$JOBS" -n 2 bash -c 'build_one "$0" "$1" || { echo "FAILED: $0 sm_$1" >&2; exit 255; }'

echo "generated $(ls "$here"/ptx/*.ptx | wc -l) files, $(du -sb "$here/ptx" | cut -f1) bytes"
