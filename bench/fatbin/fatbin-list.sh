#!/usr/bin/env bash
# fatbin-list.sh [TOOL] [FILE] — throughput (MB/s) and peak RSS of `ptx2native-fatbin list`.
# Defaults: TOOL = build-fatbin/fatbin/ptx2native-fatbin (or ptx2native-fatbin on PATH), FILE = the largest
# lib*.so* in ${CUDA_ROOT:-/usr/local/cuda}/lib64. Runs 1 warm-up + 5 timed runs (page cache warm) and reports the
# median wall time; peak RSS from /usr/bin/time -v. RSS includes the mmapped file pages the scan touches.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
TOOL=${1:-}
if [ -z "$TOOL" ]; then
  for t in "$here/build-fatbin/fatbin/ptx2native-fatbin" "$here/build/fatbin/ptx2native-fatbin"; do
    [ -x "$t" ] && TOOL=$t && break
  done
  [ -n "$TOOL" ] || TOOL=$(command -v ptx2native-fatbin)
fi
FILE=${2:-$(ls -S "${CUDA_ROOT:-/usr/local/cuda}"/lib64/lib*.so* 2>/dev/null | head -1)}
[ -f "$FILE" ] || { echo "no input file" >&2; exit 1; }
size=$(stat -L -c %s "$FILE")
"$TOOL" list "$FILE" >/dev/null # warm-up (page cache)
times=()
for i in 1 2 3 4 5; do
  s=$(date +%s.%N)
  "$TOOL" list "$FILE" >/dev/null
  e=$(date +%s.%N)
  times+=("$(echo "$e - $s" | bc -l)")
done
med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
rss=$( { /usr/bin/time -v "$TOOL" list "$FILE" >/dev/null; } 2>&1 | awk -F: '/Maximum resident set size/ {gsub(/ /,"",$2); print $2}')
json_s=$(date +%s.%N); "$TOOL" list --json "$FILE" >/dev/null; json_e=$(date +%s.%N)
containers=$("$TOOL" list "$FILE" | grep -c '^  container ' || true)
printf 'file        %s (%.1f MB, %s containers)\n' "$FILE" "$(echo "$size / 1000000" | bc -l)" "$containers"
printf 'list        median %.3f s over 5 runs -> %.0f MB/s\n' "$med" "$(echo "$size / 1000000 / $med" | bc -l)"
printf 'list --json %.3f s\n' "$(echo "$json_e - $json_s" | bc -l)"
printf 'peak RSS    %s KB\n' "$rss"
