#!/usr/bin/env bash
# setup.sh — one command on a fresh machine: install what is missing, build, and run the main job on the
# shipped examples (compile each examples/*.ptx and show what was produced).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
echo
echo "== ptx2native $(./build/targets/ptx2native --version | cut -d' ' -f2-)"
./build/targets/ptx2native --print-targets
mkdir -p build/examples-out
for ptx in examples/*.ptx; do
  name=$(basename "$ptx" .ptx)
  ./build/targets/ptx2native --emit=ir "$ptx" -o "build/examples-out/$name.ir.ptx"
  kernels=$(grep -c '^\.visible \.entry\|^\.entry' "build/examples-out/$name.ir.ptx" || true)
  echo "compiled $ptx: $kernels kernel(s), IR in build/examples-out/$name.ir.ptx"
done
