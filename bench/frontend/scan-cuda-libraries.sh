#!/bin/bash
# scan-cuda-libraries.sh — extracts and round-trips every PTX module of every library in /usr/local/cuda/lib64
# (one library at a time, to bound disk use); summary: library, PTX modules, modules passing, bytes of PTX.
out=/tmp/libscan; mkdir -p $out; : > $out/summary.txt
for l in /usr/local/cuda/lib64/lib*.so.*; do
  [ -L "$l" ] && continue
  d=/tmp/libptx-one; rm -rf $d; mkdir -p $d
  ${BUILD:-build}/fatbin/ptx2native-fatbin extract "$l" -o $d >/dev/null 2>&1
  n=$(find $d -name '*.ptx' | wc -l); [ $n -eq 0 ] && continue
  find $d -name '*.ptx' -print0 | xargs -0 -n 200 ${BUILD:-build}/tests/p2n-roundtrip > $out/$(basename $l).log 2>&1
  echo "$(basename $l) $n $(grep -c ^PASS $out/$(basename $l).log) $(du -sb $d | cut -f1)" >> $out/summary.txt
done
rm -rf /tmp/libptx-one
echo DONE >> $out/summary.txt
