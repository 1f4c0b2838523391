#!/bin/sh
# check-recursion.sh PTX2NATIVE RUN_KERNEL SRC_DIR [SPIRV_VAL] — the explicit-stack transform that replaces
# recursion where the device has no call stack (targets/llvm/eliminate_recursion.c, --device-lacks=recursion):
#  1. exec/mutual_recursion.ptx (two functions calling each other, values and a .local array live across the
#     calls) gives the expected words at -O0 and -O2, and -v reports one rewritten cycle of 2 functions;
#  2. with a budget of exactly the frames that ping(60) needs it still runs; 16 bytes less and the call that
#     would overflow traps (the loader prints "trap", the last word stays unwritten) instead of writing past
#     the stack;
#  3. recursion through a function pointer is diagnosed naming the function, and compiles with a call stack;
#  4. spirv64 and spirv64-1.2 (always transformed) pass spirv-val.
p2n=$1 run=$2 src=$3 val=${4:-}
f=$src/exec/mutual_recursion.ptx
exp=$src/exec/mutual_recursion.expected
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for o in -O0 -O2; do
  "$p2n" $o -v --host-entries=all --device-lacks=recursion "$f" -o "$tmp/k.so" 2>"$tmp/log" || { cat "$tmp/log"; fail "compile $o"; }
  grep -q "recursion: pong.p2n.stack: 2 function(s), 2 call(s)" "$tmp/log" || { cat "$tmp/log"; fail "$o: no rewritten cycle"; }
  "$run" "$tmp/k.so" 3 > "$tmp/out" || fail "run $o"
  diff -u "$exp" "$tmp/out" || fail "results at $o"
  echo "ok   $o: mutual recursion through the explicit stack"
done
# frames from -v ("frames pong=80 ping=96 bytes"): ping(60) holds 31 ping and 30 pong frames at its deepest
fp=$(sed -n 's/.* ping=\([0-9]*\).*/\1/p' "$tmp/log")
fq=$(sed -n 's/.* pong=\([0-9]*\).*/\1/p' "$tmp/log")
[ -n "$fp" ] && [ -n "$fq" ] || fail "no frame sizes in -v output"
need=$((31 * fp + 30 * fq))
"$p2n" -O2 --host-entries=all --device-lacks=recursion --recursion-stack=$need "$f" -o "$tmp/k.so" || fail "compile with $need bytes"
"$run" "$tmp/k.so" 3 > "$tmp/out" || fail "run with $need bytes"
diff -u "$exp" "$tmp/out" || fail "results with exactly $need bytes"
echo "ok   stack of exactly $need bytes: depth 61 fits"
"$p2n" -O2 --host-entries=all --device-lacks=recursion --recursion-stack=$((need - 16)) "$f" -o "$tmp/k.so" || fail "compile with less"
"$run" "$tmp/k.so" 3 > "$tmp/out" || fail "run with $((need - 16)) bytes crashed"
[ "$(head -n 1 "$tmp/out")" = trap ] || { cat "$tmp/out"; fail "no trap on overflow"; }
[ "$(sed -n 4p "$tmp/out")" = 00000000 ] || { cat "$tmp/out"; fail "overflowing call produced a result"; }
[ "$(sed -n 2p "$tmp/out")" = "$(sed -n 1p "$exp")" ] || fail "shallow call before the overflow is wrong"
echo "ok   stack of $((need - 16)) bytes: the call that overflows traps"
"$p2n" --host-entries=all --device-lacks=recursion "$src/recursion_indirect.ptx" -o "$tmp/i.so" 2>"$tmp/log"
rc=$?
[ $rc -eq 1 ] || fail "indirect recursion: exit $rc, expected 1"
grep -q "error: unsupported PTX construct for target host: recursion through an indirect call: function 'walk'" "$tmp/log" ||
  { cat "$tmp/log"; fail "indirect recursion diagnostic"; }
"$p2n" --host-entries=all "$src/recursion_indirect.ptx" -o "$tmp/i.so" || fail "indirect recursion with a call stack"
echo "ok   recursion through a function pointer: diagnosed without a call stack, compiled with one"
if [ -n "$val" ]; then
  for a in spirv64:spv1.4 spirv64-1.2:spv1.2; do
    "$p2n" -O2 --offload-arch=${a%%:*} "$f" -o "$tmp/k.spv" || fail "compile ${a%%:*}"
    "$val" --target-env ${a#*:} "$tmp/k.spv" || fail "spirv-val ${a#*:}"
    echo "ok   ${a%%:*}: spirv-val ${a#*:}"
  done
fi
echo "check-recursion: all checks passed"
