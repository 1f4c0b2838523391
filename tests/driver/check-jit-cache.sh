#!/usr/bin/env bash
# check-jit-cache.sh RUN_VECADD PTX — the on-disk JIT cache (driver-stub/jit_cache.h), end to end
# through libcuda.so.1 on the CPU backend: the second run of a PTX-only program loads no compiler at all; a
# damaged entry is detected, deleted and recompiled, never loaded; disabling works; the size limit evicts the
# least recently used entry; four processes filling one cache at once leave one whole entry and no temporary.
set -u
run=$1 ptx=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ptx2=$dir/variant.ptx   # the same kernel in other text: another key
{ cat "$ptx"; echo "// variant"; } >"$ptx2"
export P2N_BACKEND=cpu P2N_VERBOSE=1 P2N_TEST_REPORT_COMPILER=1 P2N_CACHE_DISABLE=0
unset P2N_CACHE_MAXSIZE
fail() { echo "FAIL: $*"; exit 1; }
entries() { find "$1" -name '*.p2nj' | wc -l; }

# 1. first run compiles and stores; second run hits and never maps the compiler
c=$dir/c1
P2N_CACHE_PATH=$c "$run" "$ptx" >"$dir/o1" 2>"$dir/e1" || { cat "$dir/o1" "$dir/e1"; fail "first run"; }
grep -q "vecadd: 0 of" "$dir/o1" && grep -q "compiler mapped: yes" "$dir/o1" || { cat "$dir/o1"; fail "first run did not compile"; }
grep -q "JIT cache stored" "$dir/e1" || { cat "$dir/e1"; fail "first run stored nothing"; }
[ "$(entries "$c")" = 1 ] || fail "expected one entry after the first run"
P2N_CACHE_PATH=$c "$run" "$ptx" >"$dir/o2" 2>"$dir/e2" || { cat "$dir/o2" "$dir/e2"; fail "second run"; }
grep -q "vecadd: 0 of" "$dir/o2" || fail "second run: wrong results"
grep -q "JIT cache hit" "$dir/e2" || { cat "$dir/e2"; fail "second run missed the cache"; }
grep -q "compiler mapped: no" "$dir/o2" || { cat "$dir/o2"; fail "second run loaded the compiler"; }

# 2. a damaged entry (one byte flipped in the code) is deleted and recompiled, never loaded
f=$(find "$c" -name '*.p2nj')
size=$(stat -c %s "$f")
printf '\xff' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc status=none
P2N_CACHE_PATH=$c "$run" "$ptx" >"$dir/o3" 2>"$dir/e3" || { cat "$dir/o3" "$dir/e3"; fail "run after damage"; }
grep -q "is damaged (checksum mismatch): deleted, recompiling" "$dir/e3" || { cat "$dir/e3"; fail "damage not detected"; }
grep -q "compiler mapped: yes" "$dir/o3" && grep -q "vecadd: 0 of" "$dir/o3" || fail "damaged entry: not recompiled"
[ "$(entries "$c")" = 1 ] || fail "the recompiled module was not stored again"
truncate -s 10 "$(find "$c" -name '*.p2nj')"
P2N_CACHE_PATH=$c "$run" "$ptx" >"$dir/o3b" 2>"$dir/e3b" || fail "run after truncation"
grep -q "is damaged (shorter than its header)" "$dir/e3b" || { cat "$dir/e3b"; fail "truncation not detected"; }

# 3. P2N_CACHE_DISABLE=1: nothing read or written
P2N_CACHE_DISABLE=1 P2N_CACHE_PATH=$dir/c3 "$run" "$ptx" >"$dir/o4" 2>&1 || fail "disabled run"
[ ! -e "$dir/c3" ] || [ "$(entries "$dir/c3")" = 0 ] || fail "P2N_CACHE_DISABLE=1 wrote an entry"

# 4. size limit: room for one entry only, two modules -> the least recently used one is evicted
c=$dir/c4
one=$(stat -c %s "$(find "$dir/c1" -name '*.p2nj')")
export P2N_CACHE_MAXSIZE=$((one * 3 / 2))
P2N_CACHE_PATH=$c "$run" "$ptx" >/dev/null 2>&1 || fail "limit run 1"
first=$(find "$c" -name '*.p2nj')
sleep 0.05
P2N_CACHE_PATH=$c "$run" "$ptx2" >"$dir/o5" 2>"$dir/e5" || { cat "$dir/o5" "$dir/e5"; fail "limit run 2"; }
[ "$(entries "$c")" = 1 ] || fail "expected one entry under the limit, found $(entries "$c")"
[ ! -e "$first" ] || fail "the older entry was kept, the newer evicted"
grep -q "evicted" "$dir/e5" || fail "no eviction reported"
unset P2N_CACHE_MAXSIZE

# 5. four processes at once on an empty cache: all right, one entry, no temporary files
c=$dir/c5
for i in 1 2 3 4; do P2N_CACHE_PATH=$c "$run" "$ptx" >"$dir/p$i" 2>&1 & done
wait
for i in 1 2 3 4; do grep -q "vecadd: 0 of" "$dir/p$i" || { cat "$dir/p$i"; fail "concurrent run $i"; }; done
[ "$(entries "$c")" = 1 ] || fail "concurrent fill: $(entries "$c") entries"
[ -z "$(find "$c" -name '.tmp.*')" ] || fail "temporary files left behind"
echo "jit-cache: all checks passed"
