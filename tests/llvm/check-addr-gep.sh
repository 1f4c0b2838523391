#!/bin/sh
# check-addr-gep.sh PTX2NATIVE FILE.ptx TARGET... — after the optimisation pipeline, no memory address of FILE
# may still be an inttoptr of integer address arithmetic (add/sub/or/phi/select): targets/llvm/rewrite_addr.c
# must have turned each into a GEP from one inttoptr per root value, or the loop vectoriser and SCEV lose the
# stride (bench/pocl-runtime/RESULTS.md, finding 1). Names are per function, so the scan restarts at each one.
# Exempt: the phis LLVM's coroutine lowering names %.reload* (a host kernel's coroutine entry, targets/host/
# host_coro.c): they merge one frame slot reloaded on different resume paths, a root value, not arithmetic.
p2n=$1 f=$2
shift 2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
rc=0
for t in "$@"; do
  "$p2n" -O2 --offload-arch="$t" --emit=llvm "$f" -o "$tmp/k.ll" || { echo "$t: compile failed"; exit 1; }
  awk -v t="$t" '
    /^define / { delete op; next }
    match($0, /^ +%[-A-Za-z0-9_.]+ = /) {
      name = $1; w = $3
      while (w ~ /^(tail|nsw|nuw|disjoint|exact)$/) { $3 = ""; $0 = $0; w = $3 }
      op[name] = w
    }
    { while (match($0, /inttoptr i64 %[-A-Za-z0-9_.]+/)) {
        v = substr($0, RSTART + 13, RLENGTH - 13); $0 = substr($0, RSTART + RLENGTH)
        if (op[v] == "phi" && v ~ /^%\.reload/) continue
        if (op[v] ~ /^(add|sub|or|phi|select)$/) { print t ": inttoptr of " op[v] " " v; bad = 1 }
      } }
    END { exit bad }' "$tmp/k.ll" || rc=1
done
exit $rc
