#!/bin/sh
# check-semantics.sh PTX2NATIVE SPIRV_VAL SPIRV_DIS — compiles atomics_sem.ptx for spirv64, validates it with
# spirv-val and checks in the disassembly that atomics, fences and barriers carry the PTX scope and the
# storage-class bits of the OpenCL memory model (targets/spirv/spirv_atomics.c; docs/spirv.md).
set -eu
p2n=$1 val=$2 dis=$3
dir=$(dirname "$0")
out=${TMPDIR:-/tmp}/p2n-sem.$$
trap 'rm -f "$out.spv" "$out.txt"' EXIT
"$p2n" "$dir/atomics_sem.ptx" --offload-arch=spirv64 -o "$out.spv"
"$val" --target-env spv1.4 "$out.spv"
"$dis" "$out.spv" -o "$out.txt"
fail=0
want() { # regex, what
    if grep -Eq "$1" "$out.txt"; then echo "ok   $2"; else echo "FAIL $2 (no match for: $1)"; fail=1; fi
}
want 'OpAtomicIAdd %uint %[0-9a-z_]+ %uint_1 %uint_520 ' 'atom.global.acq_rel.gpu: Device, AcquireRelease|CrossWorkgroupMemory'
want 'OpAtomicIAdd %uint %[0-9a-z_]+ %uint_2 %uint_264 ' 'atom.shared.acq_rel.cta: Workgroup, AcquireRelease|WorkgroupMemory'
want 'OpMemoryBarrier %uint_1 %uint_784$' 'fence.sc.gpu: Device, SequentiallyConsistent|WorkgroupMemory|CrossWorkgroupMemory'
want 'OpControlBarrier %uint_2 %uint_2 %uint_776$' 'bar.sync: Workgroup, Workgroup, AcquireRelease|WorkgroupMemory|CrossWorkgroupMemory'
want 'OpAtomicCompareExchange %uint %[0-9a-z_]+ %[0-9a-z_]+ %uint_(514|528) ' 'generic atom.acquire.sys.cas, global branch: CrossWorkgroupMemory bit'
want 'OpAtomicCompareExchange %uint %[0-9a-z_]+ %[0-9a-z_]+ %uint_(258|272) ' 'generic atom.acquire.sys.cas, local branch: WorkgroupMemory bit'
want 'OpAtomicSMax %uint %[0-9a-z_]+ %uint_1 %[0-9a-z_]+ ' 'atom.relaxed.gpu.max: Device scope'
# no LLVM-selected atomics left: every one must come from the explicit __spirv_* calls (names are kept)
if grep -Eq 'OpAtomic[A-Za-z]+ %[a-z0-9_]+ %[0-9a-z_]+ %uint_[0-9]+ %uint_(2|4|8|16)$' "$out.txt"; then
    echo "FAIL an atomic without storage-class bits but with an ordering"; fail=1
fi
exit $fail
