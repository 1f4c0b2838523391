#!/bin/sh
# check-nan-canon.sh PTX2NATIVE RUN_KERNEL SRC_DIR — targets/llvm/defer_nan_canon.c: (1) an f32 chain of 16
# steps keeps one NaN canonicalisation (the select of 0x7fffffff) where emission writes one per step, on the
# targets without a runtime-call fma (gfx942, spirv64: one kernel function each); (2) the NaN results stay
# NVIDIA's canonical bits, run on this CPU with its own FMA (host-native: llvm.fma, as the JIT compiles):
# exec/nan_chain.ptx against its .expected at -O2.
p2n=$1 run=$2 src=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
rc=0
for t in gfx942 spirv64; do
  "$p2n" -O2 --offload-arch=$t --emit=llvm "$src/nan_canon/chains.ptx" -o "$tmp/k.ll" || { echo "FAIL: $t compile"; exit 1; }
  n=$(grep -c 'select .*0x7FFFFFFFE0000000' "$tmp/k.ll")
  if [ "$n" -eq 2 ]; then echo "ok   $t: 2 canonicalisations for 2 chains of 16"
  else echo "FAIL: $t: $n canonicalisations for 2 chains of 16 (want 2)"; rc=1; fi
done
exp=$src/exec/nan_chain.expected
"$p2n" -O2 --offload-arch=host-native --host-entries=all "$src/exec/nan_chain.ptx" -o "$tmp/k.so" || { echo "FAIL: host-native compile"; exit 1; }
"$run" "$tmp/k.so" "$(wc -l < "$exp")" > "$tmp/out" || { echo "FAIL: host-native run"; exit 1; }
if diff -u "$exp" "$tmp/out"; then echo "ok   host-native: NaN bits of exec/nan_chain.ptx"
else echo "FAIL: host-native NaN bits"; rc=1; fi
[ $rc -eq 0 ] && echo "check-nan-canon: all checks passed"
exit $rc
