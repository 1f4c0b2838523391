#!/bin/sh
# check-device-lacks.sh PTX2NATIVE SPIRV_VAL SPIRV_DIS CONF_PTX_DIR CORPUS_PTX_DIR — the SPIR-V lowerings for what
# PoCL's CPU device lacks (docs/spirv.md), which driver-stub/opencl turns on there:
#  - program-globals (targets/spirv/spirv_globals.c): module variables in a runtime buffer ("p2n:gbuf N"),
#    __p2n_globals(out, buf) initialises it, and no kernel touches the variables themselves;
#  - fault-isolation (spirv_faults.c): global/generic accesses compare their address with 4096 and claim the
#    error record (a compare-exchange) below it; the module takes the record ("p2n:trap");
#  - space-query (spirv_private.c): isspacep.local without to_private (OpGenericCastToPtrExplicit).
# Each module (with address initializers, function tables, printf, traps) compiles for 1.4 and 1.2 with all
# three and validates.
set -eu
p2n=$1 val=$2 dis=$3 conf=$4 corpus=$5
out=${TMPDIR:-/tmp}/p2n-dl.$$
trap 'rm -f "$out".*' EXIT
fail=0
check() { # what, condition-command...
    what=$1; shift
    if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}
all=--device-lacks=program-globals,fault-isolation,space-query
for m in "$conf/cu/mem.ptx" "$conf/hand/mem_hand.ptx" "$conf/cu/misc.ptx" "$conf/cu/ctrl.ptx" \
         "$conf/hand/ctrl_hand.ptx" "$corpus/globals.sm_80.ptx"; do
    n=$(basename "$m" .ptx)
    for a in spirv64:spv1.4 spirv64-1.2:spv1.2; do
        arch=${a%%:*} env=${a#*:}
        check "$n $arch: compiles with $all" "$p2n" "$m" --offload-arch=$arch $all -o "$out.$n.$arch.spv"
        check "$n $arch: spirv-val $env" "$val" --target-env $env "$out.$n.$arch.spv"
    done
    "$dis" "$out.$n.spirv64.spv" -o "$out.$n.txt"
done
# program-globals: the buffer, the two-argument initialiser, no use of g_counter/g_words outside it
check "mem: p2n:gbuf with a size" grep -Eq 'OpModuleProcessed "p2n:gbuf [1-9][0-9]*"' "$out.mem.txt"
check "mem: __p2n_globals(out, buf)" sh -c "grep -A2 '^%__p2n_globals = OpFunction' '$out.mem.txt' | grep -c 'OpFunctionParameter %_ptr_CrossWorkgroup' | grep -qx 2"
uses=$(awk '/= OpFunction /{f=$1} f && f != "%__p2n_globals" && /%g_counter|%g_words/' "$out.mem.txt" | wc -l)
check "mem: kernels use the buffer, not the variables (got $uses uses)" test "$uses" = 0
"$p2n" "$conf/cu/mem.ptx" --offload-arch=spirv64 -o "$out.plain.spv"
"$dis" "$out.plain.spv" -o "$out.plain.txt"
check "mem without the bit: no buffer" sh -c "! grep -q 'p2n:gbuf' '$out.plain.txt'"
# fault-isolation: k_null_store tests its address and claims the record
body=$(awk '/= OpFunction /{f=$1} f == "%k_null_store"' "$out.misc.txt")
check "misc: k_null_store compares its address with 4096" sh -c "echo '$body' | grep -q 'OpULessThan %bool %[0-9a-z_]* %ulong_4096'"
check "misc: k_null_store claims the error record" sh -c "echo '$body' | grep -q 'OpAtomicCompareExchange'"
check "misc: the module takes the record" grep -q '"p2n:trap"' "$out.misc.txt"
# space-query: no to_private (a plain cast on PoCL); it is there without the bit
check "mem_hand: no OpGenericCastToPtrExplicit" sh -c "! grep -q OpGenericCastToPtrExplicit '$out.mem_hand.txt'"
"$p2n" "$conf/hand/mem_hand.ptx" --offload-arch=spirv64 -o "$out.mh.spv"
"$dis" "$out.mh.spv" -o "$out.mh.txt"
check "mem_hand without the bit: isspacep.local by to_private" grep -q 'OpGenericCastToPtrExplicit' "$out.mh.txt"
exit $fail
