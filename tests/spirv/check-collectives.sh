#!/bin/sh
# check-collectives.sh PTX2NATIVE SPIRV_VAL SPIRV_DIS — compiles collectives.ptx (match.sync, redux.sync,
# ldmatrix/stmatrix, bar.arrive, bar.sync/bar.red with a thread count) for spirv64 and spirv64-1.2, validates
# both, and checks in the disassembly that the sub-group operations, the SubgroupSize 32 execution mode and the
# counting barrier's Workgroup atomics are there (targets/spirv/spirv_collectives.c, spirv_barrier.c), the same for
# mma/wmma (targets/llvm/emit_lanes_matrix.c, on the conformance module prog.ptx); then that
# devices without sub-groups / forward progress get the diagnostics instead of code.
set -eu
p2n=$1 val=$2 dis=$3
dir=$(dirname "$0")
out=${TMPDIR:-/tmp}/p2n-coll.$$
trap 'rm -f "$out".*' EXIT
fail=0
want() { # regex, what (in $txt)
    if grep -Eq "$1" "$txt"; then echo "ok   $2"; else echo "FAIL $2 (no match for: $1)"; fail=1; fi
}
wantn() { # regex, minimum count, what
    n=$(grep -Ec "$1" "$txt" || true)
    if [ "$n" -ge "$2" ]; then echo "ok   $3 ($n)"; else echo "FAIL $3 (only $n matches of: $1, want >= $2)"; fail=1; fi
}
none() { # regex, what
    if grep -Eq "$1" "$txt"; then echo "FAIL $2 (unexpected: $(grep -Em1 "$1" "$txt"))"; fail=1; else echo "ok   $2"; fi
}
for arch in spirv64 spirv64-1.2; do
    env=spv1.4
    [ $arch = spirv64-1.2 ] && env=opencl2.2
    "$p2n" "$dir/collectives.ptx" --offload-arch=$arch -o "$out.$arch.spv"
    "$val" --target-env $env "$out.$arch.spv" && echo "ok   $arch: spirv-val --target-env $env"
    txt=$out.$arch.txt
    "$dis" "$out.$arch.spv" -o "$txt"
    for k in k_match k_ldst_matrix k_counted_barriers; do
        want "OpExecutionMode %$k SubgroupSize 32\$" "$arch $k: SubgroupSize 32"
    done
    if [ $arch = spirv64 ]; then
        # match: per distinct value a shuffle of the lowest remaining lane's value + a ballot of equality;
        # ldmatrix/stmatrix: the row addresses (two halves each) are shuffled from the lanes that hold them
        wantn '= OpGroupNonUniformShuffle %uint %uint_3 ' 30 "$arch: OpGroupNonUniformShuffle (Subgroup)"
        wantn '= OpGroupNonUniformBallot %v4uint %uint_3 ' 8 "$arch: OpGroupNonUniformBallot (Subgroup)"
        want 'OpGroupNonUniformSMin %uint %uint_3 Reduce ' "$arch: redux.sync with a full membermask: Reduce"
        none 'OpGroupNonUniformBitwiseOr %uint %uint_3 Reduce ' "$arch: redux.sync with a partial membermask: no Reduce over all lanes"
    else
        want 'OpCapability SubgroupShuffleINTEL' "$arch: SPV_INTEL_subgroups"
        wantn '= OpSubgroupShuffleINTEL %uint ' 30 "$arch: OpSubgroupShuffleINTEL"
        none 'OpGroupNonUniform' "$arch: no KHR non-uniform operations in 1.2"
    fi
    # ldmatrix/stmatrix .trans move 16-bit elements, the plain forms whole 32-bit words
    wantn '= OpLoad %ushort ' 2 "$arch: ldmatrix.trans 16-bit loads"
    wantn 'OpStore %[0-9a-z_]+ %[0-9a-z_]+ Aligned 2$' 2 "$arch: stmatrix.trans 16-bit stores"
    # counting barrier: Workgroup words zeroed under a work-group barrier in the wrapper, warp arrival +32 with
    # AcquireRelease|WorkgroupMemory at Workgroup scope, a spin on an atomic load, bar.red's take-back
    want '= OpVariable %_ptr_Workgroup__arr_uint_uint_32 Workgroup$' "$arch: Workgroup barrier words"
    want 'OpAtomicIAdd %uint %[0-9a-z_]+ %uint_2 %uint_264 %uint_32$' "$arch: warp arrival (+32, Workgroup, AcqRel|WorkgroupMemory)"
    want '= OpAtomicLoad %uint %[0-9a-z_]+ %uint_2 ' "$arch: generation poll (atomic load, Workgroup)"
    want 'OpAtomicISub %uint %[0-9a-z_]+ %uint_2 ' "$arch: bar.red count taken back"
    want 'OpControlBarrier %uint_2 %uint_2 %uint_264$' "$arch: work-group barrier after zeroing the words"
done
# mma.sync m16n8k16/m16n8k32 and wmma m16n16k16 (conformance module prog.ptx; targets/llvm/emit_lanes_matrix.c): the
# fragments come by shuffles, f16 dot products are summed in double as the CPU runtime does
conf=$dir/../conformance/ptx/cu/prog.ptx
"$p2n" "$conf" --offload-arch=spirv64 -o "$out.mma.spv"
"$val" --target-env spv1.4 "$out.mma.spv" && echo "ok   mma/wmma (prog.ptx): spirv-val --target-env spv1.4"
txt=$out.mma.txt
"$dis" "$out.mma.spv" -o "$txt"
wantn '= OpGroupNonUniformShuffle %uint %uint_3 ' 100 "mma/wmma: fragment shuffles"
# the H200's HMMA sum (emit_lanes_mma.c lanes_tc_dot_f32): products in double, scaled and truncated to 64-bit
# integers, summed exactly
wantn '= OpConvertFToS %ulong ' 64 "mma/wmma f16: products truncated to 64-bit fixed point"
wantn '= OpIAdd %ulong ' 64 "mma/wmma f16: fixed-point terms summed exactly"
wantn '= OpIMul %uint ' 32 "mma s8: integer products"
# devices that cannot run them: diagnosed (exit 1), naming the reason
if "$p2n" "$dir/collectives.ptx" --offload-arch=spirv64 --device-lacks=forward-progress -o "$out.fp.spv" 2>"$out.fp.txt"; then
    echo "FAIL --device-lacks=forward-progress compiled"; fail=1
else
    txt=$out.fp.txt
    wantn "'bar.arrive'.*forward progress between work-items" 1 "no forward progress: bar.arrive diagnosed"
    wantn "'bar.red.popc.u32'.*forward progress between work-items" 1 "no forward progress: bar.red with a count diagnosed"
    none "match|ldmatrix" "no forward progress: sub-group operations still compile"
fi
if "$p2n" "$dir/collectives.ptx" --offload-arch=spirv64 --device-lacks=subgroups -o "$out.sg.spv" 2>"$out.sg.txt"; then
    echo "FAIL --device-lacks=subgroups compiled"; fail=1
else
    txt=$out.sg.txt
    wantn "'match\.(any|all)\.sync\.b(32|64)'.*no sub-groups of 32" 4 "no sub-groups: match diagnosed"
    wantn "'(ld|st)matrix.*no sub-groups of 32" 5 "no sub-groups: ldmatrix/stmatrix diagnosed"
fi
exit $fail
