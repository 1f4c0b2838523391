#!/usr/bin/env bash
# rewrite-cache.sh BUILD_DIR — rewrite time of a multi-kernel executable with a cold and a warm cache.
# Builds the executable from corpus sources with nvcc (5 translation units, 21 kernels, PTX only).
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
for f in warp atomics math_float shared math_double; do
  /usr/local/cuda/bin/nvcc -c -O2 -gencode arch=compute_80,code=compute_80 "$root/tests/corpus/cu/$f.cu" -o $f.o
done
echo 'int main(){return 0;}' > main.cpp
/usr/local/cuda/bin/nvcc ./*.o main.cpp -o multi
tool=$build/fatbin/ptx2native-fatbin
/usr/bin/time -f "cold cache: %e s wall, %U s user, %M KB peak RSS" "$tool" rewrite multi --offload-arch=host -o multi.p2n --cache-dir cache -j 2
/usr/bin/time -f "warm cache: %e s wall, %U s user, %M KB peak RSS" "$tool" rewrite multi --offload-arch=host -o multi.p2n2 --cache-dir cache -j 2
cmp multi.p2n multi.p2n2 && echo "cold and warm outputs identical"
