#!/bin/sh
# run-exec-test.sh PTX2NATIVE RUN_KERNEL FILE.ptx — compiles FILE for the host at -O0 and -O2, runs kernel k
# on one thread through its fiber entry (--host-entries=all: built even where the kernel has a faster one) and compares the printed words with FILE's .expected (one hex word per line).
p2n=$1 run=$2 f=$3
exp=${f%.ptx}.expected
n=$(wc -l < "$exp")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for o in -O0 -O2; do
  "$p2n" $o --host-entries=all "$f" -o "$tmp/k.so" || exit 1
  "$run" "$tmp/k.so" "$n" > "$tmp/out" || exit 1
  diff -u "$exp" "$tmp/out" || { echo "mismatch at $o"; exit 1; }
done
