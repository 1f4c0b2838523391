#!/bin/sh
# run.sh PTX2NATIVE CLANG SRCDIR — the SPIR-V target's LLVM IR of warp_ops.ptx (after its lowering and O2,
# before the SPIR-V back end) made host IR (address spaces dropped, spir_kernel -> C calling convention) and run
# by emu.c, which emulates one 32-lane sub-group with threads and checks the results against the CPU runtime.
set -eu
p2n=$1 cc=$2 src=$3
d=${TMPDIR:-/tmp}/p2n-emu.$$
mkdir -p "$d"
trap 'rm -rf "$d"' EXIT
# warp_ops.ptx: the fixed forms, match, redux; mma_ops.ptx (gen_mma_ops.py): the generic mma/wmma forms
for m in warp_ops mma_ops; do
  "$p2n" "$src/tests/spirv/emu/$m.ptx" --offload-arch=spirv64 --emit=llvm -o "$d/$m.ll"
  sed -e 's/ addrspace([0-9]*)//g' -e 's/addrspacecast/bitcast/g' -e 's/spir_kernel //; s/spir_func //' \
      -e 's/ !intel_reqd_sub_group_size ![0-9]*//' -e '/^target triple/d' -e '/^target datalayout/d' \
      -e 's/\.p[0-9]i64(/.p0.i64(/g' "$d/$m.ll" > "$d/$m.host.ll"
  "$cc" -O1 -w -c "$d/$m.host.ll" -o "$d/$m.o"
done
"$cc" -O1 -std=c17 -D_GNU_SOURCE -I"$src/driver-stub/cpu" -I"$src/driver-stub" -I"$src/targets" -I"$src/abi" "$src/tests/spirv/emu/emu.c" \
    "$src/tests/spirv/emu/emu_mma.c" "$src/driver-stub/cpu/cpu_matrix.c" "$src/driver-stub/cpu/cpu_mma.c" \
    "$d/warp_ops.o" "$d/mma_ops.o" -o "$d/emu" -lpthread -lm
"$d/emu"
