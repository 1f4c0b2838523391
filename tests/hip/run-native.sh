#!/bin/sh
# run-native.sh FATBIN_TOOL TEST_NATIVE WORKDIR — hip.native.gfx1100: the HIP backend loads the native code that
# `ptx2native-fatbin rewrite --offload-arch=gfx1100` recorded in `.p2n_native` (run under run-emu.sh gfx1100):
#  1. rewritten program, P2N_REQUIRE_NATIVE=1: runs on the emulated gfx1100 from the recorded code object, no JIT;
#  2. the same program on an emulated gfx1201 with P2N_REQUIRE_NATIVE=1: no entry for that arch, refused with
#     CUDA_ERROR_NO_BINARY_FOR_GPU (test_native refused) and a message naming the target.
set -u
tool=$1 app=$2 work=$3
fail() { echo "run-native: FAILED: $*"; exit 1; }
mkdir -p "$work" && cd "$work" || fail "cannot use $work"
rm -f app.p2n
"$tool" rewrite "$app" --offload-arch=gfx1100 --no-cache -o app.p2n || fail "rewrite"

echo "== 1. rewritten for gfx1100, on gfx1100, P2N_REQUIRE_NATIVE=1"
out=$(P2N_HIP_STANDIN_ARCH=gfx1100 P2N_REQUIRE_NATIVE=1 P2N_VERBOSE=1 ./app.p2n run 2>&1); echo "$out"
echo "$out" | grep -q "^test_native: all checks passed" || fail "rewritten program did not run correctly"
echo "$out" | grep -q "native 'gfx1100' code ([0-9]* bytes) from .p2n_native of /proc/self/exe; no JIT" ||
    fail "no 'native code used' message"
echo "$out" | grep -q "JIT-compiling\|refusing" && fail "the rewritten program compiled PTX"

echo "== 2. rewritten for gfx1100, on gfx1201, P2N_REQUIRE_NATIVE=1 (must refuse)"
out=$(P2N_HIP_STANDIN_ARCH=gfx1201 P2N_REQUIRE_NATIVE=1 ./app.p2n refused 2>&1); echo "$out"
echo "$out" | grep -q "^test_native: all checks passed" || fail "the load was not refused"
echo "$out" | grep -q "has no entry for it and target 'gfx1201'" || fail "refusal message does not name gfx1201"
echo "run-native: all checks passed"
