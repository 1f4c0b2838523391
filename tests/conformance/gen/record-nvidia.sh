#!/bin/sh
# Records conformance cases on a machine with an NVIDIA GPU and NVIDIA's libcuda.so.1 (how expected/ is made):
#   tests/conformance/gen/record-nvidia.sh OUTDIR CASE-FILE-OR-DIR...   (case paths relative to tests/conformance)
# Builds the harness against the toolkit's cuda.h, records into OUTDIR (one .out per case + RECORDED_ON.txt), then
# runs the same cases again with --check against OUTDIR, so a recording that does not reproduce run to run shows.
# HARNESS=FILE builds another copy of the harness source (e.g. a snapshot while it is being edited).
# Copy OUTDIR/<family>/*.out into expected/ and append OUTDIR/RECORDED_ON.txt's lines to expected/RECORDED_ON.txt.
set -eu
out=$(realpath -m "$1"); shift
cd "$(dirname "$0")/.."
cuda=${CUDA_ROOT:-/usr/local/cuda}
bin=$(mktemp -d)/p2n-conform
gcc -O2 -std=c17 -Wall -Wextra -Werror -I"$cuda/include" "${HARNESS:-harness/p2n-conform.c}" -o "$bin" \
    -L"$cuda/lib64/stubs" -lcuda -lm
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
rc=0
"$bin" --record "$out" -j 8 "$@" > "$out.record.log" 2>&1 || rc=$?
tail -3 "$out.record.log"
"$bin" --check "$out" -j 8 "$@" > "$out.check.log" 2>&1 || rc=$?
tail -3 "$out.check.log"
exit $rc
