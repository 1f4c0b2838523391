#!/usr/bin/env bash
# test.sh — the whole test suite, in both configurations CI runs: a normal build and an
# AddressSanitizer + UndefinedBehaviorSanitizer build. Exits non-zero if any test fails in either.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
status=0
for cfg in release asan; do
  dir=build-test-$cfg
  flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
  [ $cfg = asan ] && flags=(-DCMAKE_BUILD_TYPE=Debug -DP2N_SANITIZE=ON)
  echo "=== configuration: $cfg"
  cmake -S . -B "$dir" -G Ninja "${flags[@]}" >/dev/null
  cmake --build "$dir" -j"$jobs"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  if ! ctest --test-dir "$dir" -j"$jobs" --output-on-failure --timeout 600; then status=1; fi
done
exit $status
