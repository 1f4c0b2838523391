#!/usr/bin/env bash
# test.sh — the test suite, in both configurations: a normal (release) build and an AddressSanitizer +
# UndefinedBehaviorSanitizer build. Exits non-zero if any test that ran failed.
#
#   scripts/test.sh            CI's run: every ordinary test in the release build, plus one rotating SHARE of
#                              the long work (below); about 30 minutes on 2 cores
#   scripts/test.sh --full     everything: all long sweeps whole, the whole sanitizer configuration (~80 min)
#   scripts/test.sh --share K/N  the share K of N (0 <= K < N) instead of this commit's share
#
# Long work, split into N=4 deterministic shares; a run takes share K = (commits on HEAD) mod N, so consecutive
# commits cover different parts and every 4 landings cover all of it:
#   - tests labelled `slow` (release build): the AMDGPU and SPIR-V corpus sweeps and the conformance suite on
#     PoCL get P2N_SHARE=K/N: the corpus sweeps run every N-th module from the K-th, the conformance runs the
#     cases whose name hashes to K (tests/driver/share-of.sh); the scripts print "share K of N";
#   - the sanitizer configuration: the conformance runs get P2N_SHARE=K/N the same way; of the other tests
#     every N-th (ctest -I K+1,,N) runs.
# Slow tests run in the release configuration only: they exercise LLVM's back ends and PoCL far more than our
# own code, which the sanitizer configuration covers through the same paths on smaller inputs.
set -euo pipefail
cd "$(dirname "$0")/.."

shares=4
share=""
full=0
while [ $# -gt 0 ]; do
  case $1 in
  --full) full=1; shift ;;
  --share) share=$2; shift 2 ;;
  --share=*) share=${1#--share=}; shift ;;
  *) echo "usage: scripts/test.sh [--full | --share K/N]" >&2; exit 2 ;;
  esac
done
if [ $full = 1 ]; then
  share=0/1
elif [ -z "$share" ]; then
  commits=$(git rev-list --count HEAD 2>/dev/null || echo 0)
  share=$((commits % shares))/$shares
fi
sk=${share%/*} sn=${share#*/}
if ! [[ $sk =~ ^[0-9]+$ && $sn =~ ^[0-9]+$ ]] || [ "$sn" -lt 1 ] || [ "$sk" -ge "$sn" ]; then
  echo "test.sh: bad share '$share' (want K/N with 0 <= K < N)" >&2
  exit 2
fi
if [ "$sn" = 1 ]; then echo "=== test.sh: everything (--full)"; else echo "=== test.sh: share $sk of $sn of the long work (--full runs all)"; fi

bash scripts/install-deps.sh
# PoCL with SPIR-V input: built once per machine (cached); the SPIR-V execution tests need it.
bash scripts/build-pocl.sh >/dev/null
jobs=$(nproc)
status=0
# use_sigaltstack=0: LLVM (in-process lld in worker threads) replaces a thread's alternate signal stack with
# its own larger one, and ASan then fails to unmap "its" stack at thread exit ("unable to unmap")
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:use_sigaltstack=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

run_ctest() { # DIR ARGS... : one ctest invocation; a failure marks the run failed and goes on
  local dir=$1; shift
  if ! ctest --test-dir "$dir" -j"$jobs" --output-on-failure --timeout 600 "$@"; then status=1; fi
}

for cfg in release asan; do
  dir=build-test-$cfg
  flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
  [ $cfg = asan ] && flags=(-DCMAKE_BUILD_TYPE=Debug -DP2N_SANITIZE=ON)
  echo "=== configuration: $cfg ($(date -u +%H:%M:%S))"
  cmake -S . -B "$dir" -G Ninja "${flags[@]}" >/dev/null
  cmake --build "$dir" -j"$jobs"
  # the JIT cache of libcuda.so.1 (driver-stub/jit_cache.h) in the build tree, not the user's home: cases that
  # share a PTX module compile it once per run, and the cache's hit path is exercised by the whole suite
  export P2N_CACHE_PATH=$PWD/$dir/jit-cache
  if [ $cfg = release ]; then
    run_ctest "$dir" -LE slow
    echo "=== release, slow tests, share $sk of $sn ($(date -u +%H:%M:%S))"
    P2N_SHARE=$share run_ctest "$dir" -L slow
  elif [ "$sn" = 1 ]; then
    run_ctest "$dir" -LE slow
  else
    echo "=== asan: conformance runs share $sk of $sn, other tests every ${sn}th from #$((sk + 1)) ($(date -u +%H:%M:%S))"
    P2N_SHARE=$share run_ctest "$dir" -LE slow -R '^conformance\.'
    run_ctest "$dir" -LE slow -E '^conformance\.' -I "$((sk + 1)),,$sn"
  fi
done
echo "=== done ($(date -u +%H:%M:%S)), share $sk of $sn, status $status"
exit $status
