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
out=build/examples-out
for ptx in examples/*.ptx; do
  name=$(basename "$ptx" .ptx)
  ./build/targets/ptx2native --emit=ir "$ptx" -o "$out/$name.ir.ptx"
  ./build/targets/ptx2native "$ptx" --offload-arch=host -o "$out/$name.host.so"
  ./build/targets/ptx2native "$ptx" --offload-arch=gfx942,gfx1100,gfx1201 -o "$out/$name.amdgpu.p2n"
  ./build/targets/ptx2native "$ptx" --offload-arch=spirv64 -o "$out/$name.spv"
  kernels=$(grep -c '^\.visible \.entry\|^\.entry' "$out/$name.ir.ptx" || true)
  echo "compiled $ptx ($kernels kernel(s)):"
  for f in "$out/$name".*; do printf '  %-40s %8d bytes\n' "$f" "$(stat -c %s "$f")"; done
done
# ...and run one on the CPU backend through our libcuda.so.1 (driver API only, compiled in process)
if [ -x build/tests/spirv/spirv_run_vecadd ]; then
  echo "running examples/vecadd.ptx through libcuda.so.1 on the CPU backend:"
  P2N_BACKEND=cpu ./build/tests/spirv/spirv_run_vecadd examples/vecadd.ptx
fi
