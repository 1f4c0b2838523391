#!/bin/sh
# check-auto.sh PTX2NATIVE ROOT NVCC — the command line's default -j (-j0: one thread per online CPU where split.c's
# cost model expects >= 1.25x): a small multi-kernel module is compiled whole, with the estimate in -v; the
# 12-kernel bench module is partitioned. Needs two online CPUs to see a split (one CPU: nothing to decide).
p2n=$1 root=$2 nvcc=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# the 12-kernel bench module, made from its CUDA source (bench/compile-speed/many_kernels.cu)
"$nvcc" -ptx -arch=sm_80 -O3 "$root/bench/compile-speed/many_kernels.cu" -o "$tmp/many_kernels.ptx" ||
  { echo "FAIL: nvcc could not make many_kernels.ptx"; exit 1; }
unset P2N_JOBS
ncpu=$(getconf _NPROCESSORS_ONLN)
[ "$ncpu" -ge 2 ] || { echo "ok: $ncpu online CPU, -j0 is one thread"; exit 0; }
"$p2n" --offload-arch=gfx942 -O3 -v "$root/tests/corpus/ptx/templates.sm_80.ptx" -o "$tmp/small" 2> "$tmp/small.log" ||
  { cat "$tmp/small.log"; exit 1; }
grep -q "compiled whole (estimated speed-up [0-9.]*x < 1.25x)" "$tmp/small.log" ||
  { echo "FAIL: templates.sm_80.ptx was not kept whole by the default -j"; cat "$tmp/small.log"; exit 1; }
"$p2n" --offload-arch=gfx942 -O3 -v "$tmp/many_kernels.ptx" -o "$tmp/big" 2> "$tmp/big.log" ||
  { cat "$tmp/big.log"; exit 1; }
grep -q "partitions on [0-9]* threads (estimated speed-up" "$tmp/big.log" ||
  { echo "FAIL: many_kernels.ptx was not partitioned by the default -j"; cat "$tmp/big.log"; exit 1; }
P2N_JOBS=1 "$p2n" --offload-arch=gfx942 -O3 -v "$tmp/many_kernels.ptx" -o "$tmp/one" 2> "$tmp/one.log" ||
  { cat "$tmp/one.log"; exit 1; }
if grep -q "partitions" "$tmp/one.log"; then echo "FAIL: P2N_JOBS=1 did not override the default"; exit 1; fi
echo "ok: default -j keeps templates whole and splits many_kernels ($ncpu CPUs)"
