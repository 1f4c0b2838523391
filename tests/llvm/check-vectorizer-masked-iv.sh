#!/bin/sh
# check-vectorizer-masked-iv.sh HARNESS LIBCUDA_DIR SRC_DIR — the LLVM 22.1.8 loop-vectoriser miscompile that
# targets/llvm/scalar_mixed_width_ivs.cpp guards against (such loops stay scalar): vectorizer_masked_iv/ptx/k.ptx reads an
# 8-word table at i & 7 for 200 iterations after a 32-bit shared-memory store, one thread, through the CPU
# backend's JIT (host-native: the 16-lane vectors of AVX-512 machines showed it; elsewhere the check still holds);
# every word must be 10 + (i & 7).
harness=$1 lib=$2 src=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
root=$src/vectorizer_masked_iv
P2N_BACKEND=cpu P2N_CACHE_DISABLE=1 LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  "$harness" --record "$tmp/out" --root "$root" "$root/cases/t/masked_iv.case" > "$tmp/log" 2>&1 ||
  { cat "$tmp/log"; echo "FAIL: run"; exit 1; }
i=0 line=""
while [ $i -lt 200 ]; do
  line="$line $(printf '%02x000000' $((10 + (i & 7))))"
  if [ $((i % 4)) -eq 3 ]; then printf '%08x%s\n' $(((i - 3) * 4)) "$line"; line=""; fi
  i=$((i + 1))
done > "$tmp/want"
sed -n '/^buffer out/,$p' "$tmp/out/t/masked_iv.out" | sed 1d | head -50 > "$tmp/got"
diff -u "$tmp/want" "$tmp/got" > /dev/null || { diff -u "$tmp/want" "$tmp/got" | head -20; echo "FAIL: wrong words"; exit 1; }
echo "ok   ctab[i & 7] after a 32-bit address, 200 iterations"
echo "check-vectorizer-masked-iv: all checks passed"
