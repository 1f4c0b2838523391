#!/bin/sh
# run-no-recursion.sh HARNESS LIBCUDA_DIR SUITE_DIR [--overflow-only] — the ctrl/* conformance cases with the
# code made for devices without a call stack ($P2N_FORCE_LACKS=recursion: targets/llvm/eliminate_recursion.c)
# on $P2N_BACKEND (default cpu; SPIR-V gets the transform anyway):
#  1. every case matches the NVIDIA-recorded output (skipped with --overflow-only);
#  2. with a 256-byte stack per thread the recursive cases fail their launch with CUDA_ERROR_LAUNCH_FAILED (the
#     overflow traps, nothing crashes) — which also shows that the driver compiled them through the transform.
h=$1 lib=$2 suite=$3 only=${4:-}
export P2N_BACKEND=${P2N_BACKEND:-cpu} P2N_FORCE_LACKS=recursion LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ "$only" = --overflow-only ] || {
out=$("$h" --check "$suite/expected" --root "$suite" -j 2 "$suite/cases/ctrl" 2>&1)
echo "$out"
echo "$out" | grep -q "^FAIL" && { echo "run-no-recursion: FAILED (ctrl cases)"; exit 1; }
echo "$out" | grep -Eq "^[1-9][0-9]* passed, 0 failed" || { echo "run-no-recursion: FAILED (no summary)"; exit 1; }
}
out=$(P2N_RECURSION_STACK=256 "$h" --check "$suite/expected" --root "$suite" -j 1 \
      "$suite/cases/ctrl/calls_recursion.case" "$suite/cases/ctrl/divergent_recursion_depth.case" 2>&1)
echo "$out"
n=$(echo "$out" | grep -c "^FAIL .*got 'launch 0 [a-z_]* launch=CUDA_SUCCESS sync=CUDA_ERROR_LAUNCH_FAILED')")
[ "$n" = 2 ] || { echo "run-no-recursion: FAILED (overflow must fail both launches with CUDA_ERROR_LAUNCH_FAILED)"; exit 1; }
echo "run-no-recursion: all checks passed"
