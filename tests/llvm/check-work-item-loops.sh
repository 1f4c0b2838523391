#!/bin/sh
# check-work-item-loops.sh PTX2NATIVE SRC_DIR — which kernels of work_item_loops/kernels.ptx get a work-item-loop
# block entry `<kernel>.wi` (targets/host/work_item_loops.c): exactly those named wi_*; and no_barrier keeps its
# thread-loop `.block` entry.
p2n=$1 src=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
f=$src/work_item_loops/kernels.ptx
"$p2n" --arch=host -O0 --emit=llvm "$f" -o "$tmp/k.ll" 2>"$tmp/log" || { cat "$tmp/log"; fail "compile"; }
ll=$tmp/k.ll
[ -f "$ll" ] || ll=$(ls "$tmp"/k.ll* | head -1)
for k in $(sed -n 's/^\.visible \.entry \([a-z_]*\)(.*/\1/p' "$f"); do
  if grep -q "^define .*@$k\.wi(" "$ll"; then got=yes; else got=no; fi
  case $k in wi_*) want=yes ;; *) want=no ;; esac
  [ "$got" = "$want" ] || fail "$k: work-item loops $got, want $want"
  echo "ok   $k: work-item loops $got"
done
grep -q "^define .*@no_barrier\.block(" "$ll" || fail "no_barrier: no thread-loop entry"
echo "check-work-item-loops: all checks passed"
