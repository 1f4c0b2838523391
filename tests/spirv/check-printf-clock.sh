#!/bin/sh
# check-printf-clock.sh PTX2NATIVE SPIRV_VAL SPIRV_DIS CONF_PTX_DIR — printf (targets/spirv/spirv_printf.c) and
# %clock/%clock64/%globaltimer (spirv_trap.c) on SPIR-V: the conformance modules cu/misc.ptx (12 printf calls, trap,
# assert) and cu/sreg.ptx (clocks) compile for 1.4 and 1.2 and validate (1.2 as universal 1.2: the clock counter
# is a 64-bit atomic, which the opencl2.2 environment rejects); every printf format is a pointer to a
# UniformConstant string; neither the relaxed-printf extension LLVM may add nor a shader clock is left; misc at -O0
# (nvcc's vprintf stub inlined by spirv_printf.c) too; a format that is a kernel parameter (printf_dynamic.ptx) is
# diagnosed at -O0 and -O2, not aborted on.
set -eu
p2n=$1 val=$2 dis=$3 conf=$4
out=${TMPDIR:-/tmp}/p2n-pc.$$
trap 'rm -f "$out".*' EXIT
fail=0
check() { # condition-command..., what
    what=$1; shift
    if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}
for m in misc sreg; do
    for a in spirv64:spv1.4 spirv64-1.2:spv1.2; do
        arch=${a%%:*} env=${a#*:}
        "$p2n" "$conf/cu/$m.ptx" --offload-arch=$arch -o "$out.$m.$arch.spv"
        check "$m $arch: spirv-val $env" "$val" --target-env $env "$out.$m.$arch.spv"
        "$dis" "$out.$m.$arch.spv" -o "$out.$m.$arch.txt"
        check "$m $arch: no relaxed-printf extension, no shader clock" \
            sh -c "! grep -Eq 'relaxed_printf|OpReadClockKHR|ShaderClock' '$out.$m.$arch.txt'"
    done
done
d=$out.misc.spirv64.txt
n=$(grep -c 'OpExtInst .* printf ' "$d" || true)
check "misc: 12 printf calls (got $n)" test "$n" = 12
for f in $(grep 'OpExtInst .* printf ' "$d" | awk '{print $7}'); do
    t=$(grep -E "^ *$f = " "$d" | awk '{print $4}')
    check "misc: format $f is a UniformConstant pointer" grep -Eq "^ *$t = OpTypePointer UniformConstant" "$d"
done
check "sreg: clock reads are atomic increments of the record's counter" grep -q 'OpAtomicIAdd %ulong' "$out.sreg.spirv64.txt"
"$p2n" "$conf/cu/misc.ptx" --offload-arch=spirv64 -O0 -o "$out.O0.spv"
check "misc -O0: spirv-val spv1.4" "$val" --target-env spv1.4 "$out.O0.spv"
"$dis" "$out.O0.spv" -o "$out.O0.txt"
n=$(grep -c 'OpExtInst .* printf ' "$out.O0.txt" || true)
check "misc -O0: 12 printf calls (got $n)" test "$n" = 12
for o in O0 O2; do
    if "$p2n" "$(dirname "$0")/printf_dynamic.ptx" --offload-arch=spirv64 -$o -o "$out.dyn.spv" 2>"$out.dyn.err"; then rc=0; else rc=$?; fi
    check "printf_dynamic -$o: exit 1 (got $rc)" test $rc = 1
    check "printf_dynamic -$o: diagnosed" grep -q "error: unsupported PTX construct for target spirv64: 'call vprintf' (printf) in 'k': the format is not a constant string" "$out.dyn.err"
done
exit $fail
