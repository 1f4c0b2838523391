#!/bin/sh
# check-host-entries.sh PTX2NATIVE SRC_DIR — which entries a host kernel is compiled with
# (targets/host/drop_fallback_entries.c), on work_item_loops/kernels.ptx (kernels with work-item loops, coroutine
# kernels and a thread-loop kernel):
#   --host-entries=fast (the default): every kernel keeps only its fastest entry — `.wi`, `.coro` or `.block` —
#     its fiber entry is a stub (one block, `stub`), and no work-item-loop kernel has a `.coro` entry;
#   --host-entries=all: every kernel has its fiber entry's real body, and the work-item-loop kernels keep `.coro`.
p2n=$1 src=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
f=$src/work_item_loops/kernels.ptx
# the function's first label: "stub" for the trapping fiber entry
first_label() { awk -v k="@$2(" 'index($0, "define") == 1 && index($0, k) { f = 1; next } f && /^[A-Za-z_.0-9]+:/ { sub(":.*", ""); print; exit }' "$1"; }
for mode in default fast all; do
  if [ $mode = default ]; then opt=; else opt=--host-entries=$mode; fi
  "$p2n" --arch=host -O0 --emit=llvm $opt "$f" -o "$tmp/$mode.ll" 2>"$tmp/log" || { cat "$tmp/log"; fail "compile ($mode)"; }
done
cmp -s "$tmp/default.ll" "$tmp/fast.ll" || fail "the default is not --host-entries=fast"
for k in $(sed -n 's/^\.visible \.entry \([a-z_]*\)(.*/\1/p' "$f"); do
  for mode in fast all; do
    ll=$tmp/$mode.ll
    grep -q "^define .*@$k(" "$ll" || fail "$k ($mode): no fiber entry symbol"
    if [ "$(first_label "$ll" "$k")" = stub ]; then stub=yes; else stub=no; fi
    if grep -q "^define .*@$k\.coro(" "$ll"; then coro=yes; else coro=no; fi
    case $mode.$k in
      fast.*) [ $stub = yes ] || fail "$k: fiber entry compiled with --host-entries=fast" ;;
      all.*) [ $stub = no ] || fail "$k: fiber entry is a stub with --host-entries=all" ;;
    esac
    case $mode.$k in
      fast.wi_*) [ $coro = no ] || fail "$k: coroutine entry kept beside work-item loops (fast)" ;;
      all.wi_*) [ $coro = yes ] || fail "$k: no coroutine entry with --host-entries=all" ;;
    esac
    grep -q "^define .*@$k\.\(wi\|coro\|block\)(" "$ll" || fail "$k ($mode): no fast entry"
    echo "ok   $k ($mode): fiber stub $stub, coroutine $coro"
  done
done
"$p2n" --arch=host --host-entries=some "$f" -o "$tmp/x.so" 2>"$tmp/log" && fail "--host-entries=some accepted"
grep -q "unknown --host-entries kind 'some'" "$tmp/log" || { cat "$tmp/log"; fail "message for a bad kind"; }
[ -e "$tmp/x.so" ] && fail "output written for a bad option"
echo "check-host-entries: all checks passed"
