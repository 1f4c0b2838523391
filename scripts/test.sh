#!/usr/bin/env bash
# test.sh — the whole test suite, in both configurations CI runs: a normal build and an
# AddressSanitizer + UndefinedBehaviorSanitizer build. Exits non-zero if any test fails in either.
#
# Tests labelled `slow` (whole-corpus sweeps over every AMDGPU arch, the conformance suite on PoCL) run in the
# normal configuration only: they exercise LLVM's back ends and PoCL far more than our own code, which the
# sanitizer configuration already covers through the same paths on smaller inputs; running them twice would
# not fit CI's 90 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# PoCL with SPIR-V input: built once per machine (cached); the SPIR-V execution tests need it.
bash scripts/build-pocl.sh >/dev/null
jobs=$(nproc)
status=0
for cfg in release asan; do
  dir=build-test-$cfg
  flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
  select=()
  if [ $cfg = asan ]; then flags=(-DCMAKE_BUILD_TYPE=Debug -DP2N_SANITIZE=ON); select=(-LE slow); fi
  echo "=== configuration: $cfg ($(date -u +%H:%M:%S))"
  cmake -S . -B "$dir" -G Ninja "${flags[@]}" >/dev/null
  cmake --build "$dir" -j"$jobs"
  # use_sigaltstack=0: LLVM (in-process lld in worker threads) replaces a thread's alternate signal stack with
  # its own larger one, and ASan then fails to unmap "its" stack at thread exit ("unable to unmap")
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:use_sigaltstack=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  if ! ctest --test-dir "$dir" -j"$jobs" --output-on-failure --timeout 600 "${select[@]}"; then status=1; fi
done
echo "=== done ($(date -u +%H:%M:%S)), status $status"
exit $status
