#!/usr/bin/env bash
# run.sh BUILD [RUNS] — first and second run of a PTX-only CUDA program through libcuda.so.1 (CPU backend):
# the first compiles its module and fills the JIT cache (driver-stub/jit_cache.h), later runs load the cached
# code and never map the compiler. Prints wall time and peak RSS of each, median of RUNS (default 5) cold runs
# (empty cache each time) and RUNS warm runs, and the machine's load.
set -euo pipefail
build=$(realpath "${1:-build}")
runs=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# PTX only (compute_80, no SASS): the program can run only through a JIT
"$nvcc" -O3 -gencode arch=compute_80,code=compute_80 "$here/app.cu" -o "$tmp/app"
export LD_LIBRARY_PATH=$build/driver-stub P2N_BACKEND=cpu
one() { # CACHE-DIR -> "seconds KB"
  P2N_CACHE_PATH=$1 /usr/bin/time -f "%e %M" -o "$tmp/t" "$tmp/app" >"$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
  grep -q "saxpy: 0 wrong" "$tmp/out" || { cat "$tmp/out"; exit 1; }
  cat "$tmp/t"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$tmp/cold"; : >"$tmp/warm"
for i in $(seq "$runs"); do one "$tmp/cache-cold-$i" >>"$tmp/cold"; done
for i in $(seq "$runs"); do one "$tmp/cache-cold-1" >>"$tmp/warm"; done
printf '| run | wall s (median of %d) | peak RSS MB (median) |\n| --- | ---: | ---: |\n' "$runs"
printf '| first (compiles, fills the cache) | %s | %.1f |\n' "$(cut -d' ' -f1 "$tmp/cold" | median)" \
  "$(cut -d' ' -f2 "$tmp/cold" | median | awk '{print $1/1024}')"
printf '| second and later (cache hit) | %s | %.1f |\n' "$(cut -d' ' -f1 "$tmp/warm" | median)" \
  "$(cut -d' ' -f2 "$tmp/warm" | median | awk '{print $1/1024}')"
echo "cache entry: $(du -b "$tmp"/cache-cold-1/*.p2nj | cut -f1) bytes"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
