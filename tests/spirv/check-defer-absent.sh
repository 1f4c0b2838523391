#!/bin/sh
# check-defer-absent.sh PTX2NATIVE SPIRV_VAL SPIRV_DIS SRC_DIR CONF_PTX_DIR — what --defer-unsupported makes of
# the queries NVIDIA's JIT does not compile (targets/llvm/defer_unsupported.c DEFER_ABSENT / DEFER_NEVER):
#  - defer_absent.ptx: without the flag an error naming txq and the attribute at file:line:col; with it the
#    kernels that reach such a txq (directly, through a .func, or besides a construct deferred to launch) are
#    left out of the module (no SPIR-V entry point, no host kernel-table entry; a warning names each), 'good'
#    and 'stubbed' (only a launch-time failure) stay, and the module validates;
#  - suq of such an attribute fails the module even with the flag (NVIDIA refuses the module).
# The conformance cases tex/txq_unsupported_* and tex/suq_unsupported_* check the driver-visible results.
set -eu
p2n=$1 val=$2 dis=$3 src=$4 conf=$5
out=${TMPDIR:-/tmp}/p2n-defer-absent.$$
trap 'rm -f "$out".*' EXIT
fail=0
check() { # what, condition-command...
    what=$1; shift
    if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}
cd "$src"
msg="unsupported PTX instruction 'txq.addr_mode_0.b32' for target spirv64 (txq of this attribute on a texture object"
if "$p2n" defer_absent.ptx --offload-arch=spirv64 -o "$out.0.spv" 2>"$out.0.err"; then
    check "without --defer-unsupported the module fails" false
fi
check "without the flag: error at file:line:col naming txq.addr_mode_0" grep -qF "defer_absent.ptx:31:5: error: $msg" "$out.0.err"
check "with --defer-unsupported the module compiles" \
    "$p2n" defer_absent.ptx --offload-arch=spirv64 --defer-unsupported -o "$out.1.spv" 2>"$out.1.err"
check "with the flag: the same text as a warning" grep -qF "defer_absent.ptx:31:5: warning: $msg" "$out.1.err"
check "with the flag: no error" test "$(grep -c 'error:' "$out.1.err")" = 0
check "spirv-val spv1.4" "$val" --target-env spv1.4 "$out.1.spv"
"$dis" "$out.1.spv" -o "$out.1.txt"
for k in good stubbed; do check "entry point '$k' kept" grep -q "OpEntryPoint Kernel .* \"$k\"" "$out.1.txt"; done
for k in direct via_func mixed; do
    check "entry point '$k' left out" sh -c "! grep -q 'OpEntryPoint Kernel .* \"$k\"' '$out.1.txt'"
    check "warning: kernel '$k' left out" grep -q "warning: kernel '$k': .* the kernel is left out of the module" "$out.1.err"
done
check "'via_func' names the txq in the .func (14:5)" \
    grep -qF "kernel 'via_func': unsupported PTX instruction 'txq.filter_mode.b32' for target spirv64 (txq of this attribute on a texture object: NVIDIA's JIT does not compile it either) at defer_absent.ptx:14:5" "$out.1.err"
check "'mixed' reports the txq, not its launch-time construct" \
    grep -qF "kernel 'mixed': unsupported PTX instruction 'txq.filter_mode.b32'" "$out.1.err"
"$p2n" defer_absent.ptx --offload-arch=host --defer-unsupported --emit=llvm -o "$out.2.ll" 2>/dev/null
names=$(grep -o 'c"[a-z_]*\\00"' "$out.2.ll" | sed 's/^c"//; s/.00"$//' | sort | tr '\n' ' ')
check "host kernel table: good, stubbed ($names)" test "$names" = 'good stubbed '
for a in spirv64 host; do
    if "$p2n" "$conf/tex/suq_unsupported_channel_order.ptx" --offload-arch=$a --defer-unsupported -o "$out.3" 2>"$out.3.err"; then
        check "$a: suq.channel_order fails the module even with --defer-unsupported" false
    fi
    check "$a: suq.channel_order: error at file:line:col" \
        grep -qF "suq_unsupported_channel_order.ptx:17:2: error: unsupported PTX instruction 'suq.channel_order.b32' for target $a" "$out.3.err"
done
[ $fail = 0 ] && echo "check-defer-absent: all checks passed"
exit $fail
