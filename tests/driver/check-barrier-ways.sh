#!/bin/sh
# check-barrier-ways.sh HARNESS LIBCUDA_DIR CONFORMANCE_DIR — the bar/regions_* cases (shapes of the CPU backend's
# work-item loops: divergent barrier sites, warps exiting before and between barriers, local arrays and values live
# across barriers, 3-D blocks, device functions between barriers, per-warp barrier counts; recorded on an NVIDIA
# H100) give the same bytes all three ways a barrier kernel can run on the CPU backend — work-item loops (default),
# coroutines, fibers — and the work-item loops give NVIDIA's (conformance.cpu checks the default way on the whole
# suite every run; the other two ways run there only in rotating shares).
harness=$1 lib=$2 suite=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
root=$suite
set -- "$root"/cases/bar/regions_*.case
[ -f "$1" ] || fail "no bar/regions_* cases under $suite"
export P2N_BACKEND=cpu LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
P2N_VERBOSE=1 "$harness" --check "$root/expected" --root "$root" "$@" > "$tmp/log" 2>&1 || { cat "$tmp/log"; fail "work-item loops differ from NVIDIA's"; }
"$harness" --record "$tmp/wi" --root "$root" "$@" > /dev/null 2>&1 || fail "work-item loops run"
n=$(grep -c "runs as work-item loops" "$tmp/log")
[ "$n" -ge "$#" ] || { cat "$tmp/log"; fail "only $n of $# kernels ran as work-item loops"; }
echo "ok   $# cases: work-item loops give NVIDIA's bytes"
P2N_CPU_WORK_ITEM_LOOPS=0 "$harness" --check "$tmp/wi" --root "$root" "$@" > "$tmp/log" 2>&1 || { cat "$tmp/log"; fail "coroutines differ"; }
echo "ok   coroutines give the same bytes"
P2N_CPU_WORK_ITEM_LOOPS=0 P2N_CPU_CORO=0 "$harness" --check "$tmp/wi" --root "$root" "$@" > "$tmp/log" 2>&1 || { cat "$tmp/log"; fail "fibers differ"; }
echo "ok   fibers give the same bytes"
echo "check-barrier-ways: all checks passed"
