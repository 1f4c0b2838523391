#!/bin/sh
# check-api-table.sh SRC_DIR CUDA_H OUT_DIR — docs/driver-api.md and driver-stub/refused_table.c are what
# scripts/gen-driver-api.py makes from the installed cuda.h, procaddr.c's table and driver-stub/api-status.txt.
# Fails when either committed file is stale, or (the generator says which) when cuda.h declares a function that
# is neither implemented (procaddr.c) nor classified (api-status.txt): a new function can never go missing
# silently. Skips (exit 77) without cuda.h or python3.
set -u
src=$1 hdr=$2 out=$3
if [ ! -f "$hdr" ]; then
    echo "SKIP: $hdr is absent: the table is generated from CUDA's cuda.h"
    exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 is absent: scripts/gen-driver-api.py needs it"
    exit 77
fi
mkdir -p "$out" || exit 1
if ! python3 "$src/scripts/gen-driver-api.py" "$hdr" "$src/driver-stub/procaddr.c" "$src/driver-stub/api-status.txt" \
        "$out/driver-api.md" "$out/refused_table.c"; then
    echo "FAIL: scripts/gen-driver-api.py refused the sources (above)"
    exit 1
fi
fail=0
for f in docs/driver-api.md driver-stub/refused_table.c; do
    if ! diff -u "$src/$f" "$out/$(basename "$f")"; then
        echo "FAIL: $f is stale; regenerate: python3 scripts/gen-driver-api.py $hdr driver-stub/procaddr.c" \
             "driver-stub/api-status.txt docs/driver-api.md driver-stub/refused_table.c"
        fail=1
    fi
done
# the guard itself: a function cuda.h gains (appended to a copy) must make the generator fail, naming it
mkdir -p "$out/newer" || exit 1
{ cat "$hdr"; echo 'CUresult CUDAAPI cuP2nBrandNewFunction(int x);'; } > "$out/newer/cuda.h"
for sib in cudaProfiler.h cudaGL.h cudaEGL.h cudaVDPAU.h; do
    [ -f "$(dirname "$hdr")/$sib" ] && cp "$(dirname "$hdr")/$sib" "$out/newer/"
done
if python3 "$src/scripts/gen-driver-api.py" "$out/newer/cuda.h" "$src/driver-stub/procaddr.c" \
        "$src/driver-stub/api-status.txt" "$out/newer/driver-api.md" "$out/newer/refused_table.c" 2>"$out/newer/err"; then
    echo "FAIL: the generator accepted a cuda.h function that is neither implemented nor classified"
    fail=1
elif ! grep -q 'cuda.h declares cuP2nBrandNewFunction' "$out/newer/err" || [ "$(wc -l < "$out/newer/err")" -ne 1 ]; then
    echo "FAIL: the generator should have failed naming the unclassified function only:"; cat "$out/newer/err"
    fail=1
fi
[ -e "$out/newer/driver-api.md" ] && { echo "FAIL: the generator wrote output although it failed"; fail=1; }
[ $fail -eq 0 ] && echo "check-api-table: $(sed -n 's/^\([0-9]* API names.*\)/\1/p' "$out/driver-api.md")"
exit $fail
