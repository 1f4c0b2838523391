#!/bin/sh
# run-native.sh FATBIN_TOOL TEST_NATIVE LIBCUDA_DIR WORKDIR TEST_NATIVE_DL TEST_NATIVE_LIB — the driver stub loads the native code that
# `ptx2native-fatbin rewrite` recorded in `.p2n_native` (driver-stub/native_lookup.c), on the CPU backend:
#  1. the rewritten program with P2N_REQUIRE_NATIVE=1 runs correctly and compiles nothing;
#  2. the original program with P2N_REQUIRE_NATIVE=1 fails its load with a message naming the container and
#     the file; without the switch it JIT-compiles and runs;
#  3. the rewritten program with a space of its container's PTX moved afterwards: the section's entry no
#     longer matches, so the PTX is JIT-compiled (and P2N_REQUIRE_NATIVE=1 refuses it);
#  4. the container in a shared library (TEST_NATIVE_LIB, used by TEST_NATIVE_DL): the rewritten library's code
#     is used; the original library is refused under P2N_REQUIRE_NATIVE=1.
set -u
tool=$1 app=$2 lib=$3 work=$4 dlapp=$5 nlib=$6
fail() { echo "run-native: FAILED: $*"; exit 1; }
mkdir -p "$work" && cd "$work" || fail "cannot use $work"
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" P2N_BACKEND=cpu
unset P2N_REQUIRE_NATIVE P2N_VERBOSE
rm -f app.p2n app.altered

"$tool" rewrite "$app" --offload-arch=host --no-cache -o app.p2n || fail "rewrite"
"$tool" verify app.p2n || fail "verify"

echo "== 1. rewritten, P2N_REQUIRE_NATIVE=1"
out=$(P2N_REQUIRE_NATIVE=1 P2N_VERBOSE=1 ./app.p2n run 2>&1); echo "$out"
echo "$out" | grep -q "^test_native: all checks passed" || fail "rewritten program did not run correctly"
echo "$out" | grep -q "native 'host' code ([0-9]* bytes) from .p2n_native of /proc/self/exe; no JIT" ||
    fail "no 'native code used' message"
echo "$out" | grep -q "JIT-compiling\|refusing" && fail "the rewritten program compiled PTX"

echo "== 1b. rewritten, asking the CPU runtime for its slower ways, which the native code was built without"
# ptx2native-fatbin compiles host kernels with only their fastest entry (ptx2native --host-entries=fast): the
# runtime keeps that entry, says so once per kernel, and the results stay right
out=$(P2N_REQUIRE_NATIVE=1 P2N_CPU_THREADLOOP=0 P2N_CPU_CORO=0 P2N_CPU_WORK_ITEM_LOOPS=0 ./app.p2n run 2>&1); echo "$out"
echo "$out" | grep -q "^test_native: all checks passed" || fail "rewritten program with P2N_CPU_*=0 did not run correctly"
echo "$out" | grep -q "P2N_CPU_[A-Z_]*=0 does not apply to kernel '[^']*': its precompiled host code has only its fastest entry" ||
    fail "no notice that the slower way is not in the native code"

echo "== 2. original, P2N_REQUIRE_NATIVE=1 (must refuse), then without it (JIT)"
out=$(P2N_REQUIRE_NATIVE=1 "$app" refused 2>&1); echo "$out"
echo "$out" | grep -q "^test_native: all checks passed" || fail "the original program's load was not refused"
echo "$out" | grep -q "P2N_REQUIRE_NATIVE=1: refusing to JIT-compile the PTX of fatbin container at 0x[0-9a-f]* in /proc/self/exe: no .p2n_native section (not rewritten by ptx2native-fatbin)" ||
    fail "refusal message"
out=$("$app" run 2>&1); echo "$out"
echo "$out" | grep -q "^test_native: all checks passed" || fail "the original program (JIT) did not run correctly"

echo "== 3. rewritten, then one space of the container's PTX moved"
# same length, same meaning: one space moved within an instruction of the (uncompressed) PTX
marker='mov.u32 %r8, %tid.x;' altered='mov.u32 %r8,%tid.x; '
[ "$(M=$marker perl -0777 -ne 'print scalar(() = /\Q$ENV{M}\E/g)' app.p2n)" = 1 ] ||
    fail "PTX marker not found exactly once"
M=$marker A=$altered perl -0777 -pe 's/\Q$ENV{M}\E/$ENV{A}/' app.p2n > app.altered && chmod +x app.altered ||
    fail "cannot alter"
cmp -s app.p2n app.altered && fail "nothing altered"
out=$(P2N_REQUIRE_NATIVE=1 ./app.altered refused 2>&1); echo "$out"
echo "$out" | grep -q "^test_native: all checks passed" || fail "altered program's load was not refused"
echo "$out" | grep -q "refusing to JIT-compile .*P2H128 .*has no entry for it and target 'host' (stale" ||
    fail "stale message"
out=$(P2N_VERBOSE=1 ./app.altered run 2>&1); echo "$out"
echo "$out" | grep -q "^test_native: all checks passed" || fail "altered program (JIT) did not run correctly"
echo "$out" | grep -q "no native code, JIT-compiling the PTX: .*stale" || fail "no JIT-fallback message"
echo "$out" | grep -q "no JIT$" && fail "stale native code was used"

echo "== 4. the container in a shared library"
mkdir -p libdir && rm -f "libdir/${nlib##*/}"
"$tool" rewrite "$nlib" --offload-arch=host --no-cache -o "libdir/${nlib##*/}" || fail "rewrite of the library"
out=$(LD_LIBRARY_PATH="$PWD/libdir:$LD_LIBRARY_PATH" P2N_REQUIRE_NATIVE=1 P2N_VERBOSE=1 "$dlapp" run 2>&1); echo "$out"
echo "$out" | grep -q "^test_native: all checks passed" || fail "program with a rewritten library did not run correctly"
echo "$out" | grep -q "native 'host' code ([0-9]* bytes) from .p2n_native of $PWD/libdir/${nlib##*/}; no JIT" ||
    fail "the library's native code was not used"
out=$(LD_LIBRARY_PATH="${nlib%/*}:$LD_LIBRARY_PATH" P2N_REQUIRE_NATIVE=1 "$dlapp" refused 2>&1); echo "$out"
echo "$out" | grep -q "^test_native: all checks passed" || fail "the original library's load was not refused"
echo "$out" | grep -q "refusing to JIT-compile the PTX of fatbin container at 0x[0-9a-f]* in $nlib: no .p2n_native section" ||
    fail "refusal message (library)"
echo "run-native: all checks passed"
