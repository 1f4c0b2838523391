#!/bin/sh
# check-remat.sh PTX2NATIVE SPIRV_VAL SPIRV_DIS SRC_DIR EXAMPLES_DIR — targets/spirv/spirv_remat.c: the address
# arithmetic of a tiled matmul (tile_matmul.ptx; O2 hoists the 32 shared-tile addresses out of the loop that holds
# the barriers) is recomputed after the barrier from the work-item ids, through the `__p2n_wi.*` helpers, in 1.4
# and 1.2, and the modules validate; a kernel without a barrier (vecadd) is left alone.
set -eu
p2n=$1 val=$2 dis=$3 src=$4 ex=$5
out=${TMPDIR:-/tmp}/p2n-remat.$$
trap 'rm -f "$out".*' EXIT
fail=0
check() { # what, condition-command...
    what=$1; shift
    if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}
for a in spirv64:spv1.4 spirv64-1.2:opencl2.2; do
    arch=${a%%:*} env=${a#*:}
    "$p2n" "$src/tile_matmul.ptx" --offload-arch=$arch -o "$out.$arch.spv"
    check "tile_matmul $arch: spirv-val $env" "$val" --target-env $env "$out.$arch.spv"
    "$dis" "$out.$arch.spv" -o "$out.$arch.txt"
    # the kernel's body from its OpFunction to its OpFunctionEnd; the local-id calls after its first barrier
    awk '/= OpFunction .*/ { inside = ($1 == "%matmul") } inside' "$out.$arch.txt" > "$out.$arch.body"
    n=$(awk '/OpControlBarrier/ { seen = 1 } seen && /OpFunctionCall .*__p2n_wi__Z12get_local_idj/ { n++ } END { print n + 0 }' "$out.$arch.body")
    # 16 loads of As[ty][k] and 16 of Bs[k][tx] after the barrier, each from its own recomputed address
    check "tile_matmul $arch: tile addresses recomputed after the barrier ($n local-id helper calls, want >= 32)" \
        test "$n" -ge 32
    check "tile_matmul $arch: helpers named __p2n_wi.<builtin>.<dim>" \
        grep -q 'OpName %[^ ]* "__p2n_wi._Z12get_local_idj.0"' "$out.$arch.txt"
done
"$p2n" "$ex/vecadd.ptx" --offload-arch=spirv64 -o "$out.vecadd.spv"
"$dis" "$out.vecadd.spv" -o "$out.vecadd.txt"
check "vecadd (no barrier): nothing recomputed" sh -c "! grep -q __p2n_wi '$out.vecadd.txt'"
exit $fail
