#!/usr/bin/env bash
# compile-time.sh [BUILD_DIR] [MB] [ARCHS] — wall time per compiler stage (`ptx2native -v` prints them:
# parse, passes, LLVM emission, LLVM optimisation, code generation, link), total wall time and peak RSS
# (/usr/bin/time -v) of `ptx2native` at -O2 and -O3, on the largest corpus module (math_double.sm_90.ptx)
# and on a generated MB-megabyte module (default 10) made of the corpus modules every target compiles.
# ARCHS defaults to "host gfx942 spirv64". Prints a Markdown table; a failed compile prints its status.
set -euo pipefail
build=${1:-build}
mb=${2:-10}
archs=${3:-host gfx942 spirv64}
root=$(cd "$(dirname "$0")/../.." && pwd)
p2n=$build/targets/ptx2native
corpus=$root/tests/corpus/ptx
# modules host, gfx942 and spirv64 all compile today (the others use textures, tensor maps, ... somewhere)
srcs=(atomics globals half_bf16 math_double math_float shared templates)
big=$build/bench-compile-${mb}mb.ptx
for i in "${!srcs[@]}"; do srcs[i]=$corpus/${srcs[i]}.sm_90.ptx; done
[ -f "$big" ] || python3 "$root/bench/frontend/gen-large.py" "$big" "$mb" "${srcs[@]}" >/dev/null
[ -f "$big" ] || { echo "cannot generate $big" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| input | arch | -O | parse | passes | emit | opt | codegen | link | total wall | peak RSS |"
echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for input in "$corpus/math_double.sm_90.ptx" "$big"; do
  size=$(awk -v b="$(stat -c %s "$input")" 'BEGIN { printf "%.2f MB", b / 1e6 }')
  for arch in $archs; do
    for o in 2 3; do
      set +e
      /usr/bin/time -v -o "$tmp/time" "$p2n" --arch="$arch" -O$o -v "$input" -o "$tmp/out" 2>"$tmp/err" >/dev/null
      rc=$?
      set -e
      wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$tmp/time")
      rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f MB", $2 / 1024 }' "$tmp/time")
      if [ "$rc" -ne 0 ]; then
        echo "| $(basename "$input") ($size) | $arch | $o | exit $rc: $(grep -m1 -o 'error: .*' "$tmp/err" | cut -c1-60) | | | | | | ${wall}s | $rss |"
        continue
      fi
      # ptx2native: times: parse 0.003s passes 0.000s emit 0.018s opt 0.178s codegen 0.204s link 0.009s
      stages=$(sed -n 's/^ptx2native: times: //p' "$tmp/err" | awk '{ for (i = 2; i <= NF; i += 2) printf "| %s ", $i }')
      echo "| $(basename "$input") ($size) | $arch | $o $stages| ${wall}s | $rss |"
    done
  done
done
