#!/bin/sh
# check-barrier-loop.sh PTX2NATIVE SPIRV_VAL SPIRV_DIS SRC_DIR EXAMPLES_DIR — targets/spirv/spirv_remat.c
# (guard_phi_folds): in a loop that holds a barrier, a counter whose initial and next values are the same operation
# with the same constant (tree_reduce.ptx: d = ntid >> 1 ... d >>= 1; reduce_w: d = w >> 1 ...) enters the loop as
# `select(get_work_dim() != 0, init, -1)`, so that PoCL's InstCombine does not fold the shift into the loop header
# (bench/pocl-runtime/RESULTS.md); in 1.4 and 1.2, and the modules validate. A barrier loop whose counter starts at
# a constant (tile_matmul.ptx) and a kernel without a barrier (vecadd) are left alone.
set -eu
p2n=$1 val=$2 dis=$3 src=$4 ex=$5
out=${TMPDIR:-/tmp}/p2n-bloop.$$
trap 'rm -f "$out".*' EXIT
fail=0
check() { # what, condition-command...
    what=$1; shift
    if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}
# guarded KERNEL FILE: the kernel's body has W = OpLoad WorkDim, C = OpINotEqual W 0, S = OpSelect C init -1, and
# S is an incoming value of an OpPhi
guarded() {
    awk -v k="%$1" '
        $3 == "OpFunction" { inside = ($1 == k) }
        !inside { next }
        $3 == "OpLoad" && $5 == "%__spirv_BuiltInWorkDim" { wd[$1] = 1 }
        $3 == "OpINotEqual" && ($5 in wd) { c[$1] = 1 }
        $3 == "OpSelect" && ($5 in c) && $7 == "%uint_4294967295" { sel[$1] = 1 }
        $3 == "OpPhi" { for (i = 5; i <= NF; i += 2) if ($i in sel) found = 1 }
        END { exit found ? 0 : 1 }' "$2"
}
for a in spirv64:spv1.4 spirv64-1.2:opencl2.2; do
    arch=${a%%:*} env=${a#*:}
    "$p2n" "$src/tree_reduce.ptx" --offload-arch=$arch -o "$out.$arch.spv"
    check "tree_reduce $arch: spirv-val $env" "$val" --target-env $env "$out.$arch.spv"
    "$dis" "$out.$arch.spv" -o "$out.$arch.txt"
    check "tree_reduce $arch: reduce's counter enters the loop through select(get_work_dim() != 0, init, -1)" \
        guarded reduce "$out.$arch.txt"
    check "tree_reduce $arch: reduce_w's counter (from an argument) likewise" guarded reduce_w "$out.$arch.txt"
    "$p2n" "$src/tile_matmul.ptx" --offload-arch=$arch -o "$out.mm.$arch.spv"
    "$dis" "$out.mm.$arch.spv" -o "$out.mm.$arch.txt"
    check "tile_matmul $arch (counter from a constant): no guard" sh -c "! grep -q BuiltInWorkDim '$out.mm.$arch.txt'"
done
"$p2n" "$ex/vecadd.ptx" --offload-arch=spirv64 -o "$out.vecadd.spv"
"$dis" "$out.vecadd.spv" -o "$out.vecadd.txt"
check "vecadd (no barrier): no guard" sh -c "! grep -q BuiltInWorkDim '$out.vecadd.txt'"
[ $fail = 0 ] && echo "check-barrier-loop: all checks passed"
exit $fail
