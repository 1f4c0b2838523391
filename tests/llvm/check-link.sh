#!/bin/sh
# check-link.sh PTX2NATIVE RUN_KERNEL SRC_DIR [SPIRV_VAL] — separate compilation: several PTX modules linked
# into one before emission (passes/link_modules.c, `ptx2native a.ptx b.ptx`):
#  1. link/a.ptx + link/b.ptx (extern functions/variables, .weak vs strong, .common sizes, private symbols of
#     the same name in both) give link/ab.expected on the host at -O0 and -O2, in either input order;
#  2. the linked module compiles for gfx942 and spirv64 (spirv-val passes when it is installed); its printed IR
#     holds both modules' kernels, the highest .version/.target, one .common of the largest size, one dynamic
#     .extern .shared of the largest alignment, and reads back to the same text;
#  3. the corpus pair rdc_extern + rdc_extern_defs (nvcc -rdc=true) compiles for host, gfx942 and spirv64;
#  4. link errors (duplicate definition, unresolved extern used, type/signature mismatch, variable vs function,
#     .address_size, a syntax error in the second file) print exactly link/errors.expect, exit status 1.
p2n=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") run=$2 src=$3 val=${4:-}
d=$src/link
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for o in -O0 -O2; do
  "$p2n" $o --host-entries=all "$d/a.ptx" "$d/b.ptx" -o "$tmp/k.so" || fail "compile a+b $o"
  "$run" "$tmp/k.so" 7 > "$tmp/out" || fail "run a+b $o"
  diff -u "$d/ab.expected" "$tmp/out" || fail "results a+b $o"
  echo "ok   $o: a.ptx + b.ptx linked, results"
done
"$p2n" --host-entries=all "$d/b.ptx" "$d/a.ptx" -o "$tmp/k.so" || fail "compile b+a"
"$run" "$tmp/k.so" 7 > "$tmp/out" || fail "run b+a"
diff -u "$d/ab.expected" "$tmp/out" || fail "results b+a"
echo "ok   b.ptx + a.ptx (other order)"
"$p2n" --host-entries=all "$d/weak1.ptx" "$d/weak2.ptx" -o "$tmp/w.so" && [ "$("$run" "$tmp/w.so" 1)" = 00000001 ] || fail "weak1+weak2: first .weak"
"$p2n" --host-entries=all "$d/weak2.ptx" "$d/weak1.ptx" -o "$tmp/w.so" && [ "$("$run" "$tmp/w.so" 1)" = 00000002 ] || fail "weak2+weak1: first .weak"
echo "ok   only .weak definitions: the first input's wins"
for t in gfx942 spirv64; do
  "$p2n" --offload-arch=$t "$d/a.ptx" "$d/b.ptx" -o "$tmp/k.$t" || fail "compile a+b for $t"
  [ -s "$tmp/k.$t" ] || fail "empty output for $t"
  echo "ok   a.ptx + b.ptx for $t"
done
if [ -n "$val" ]; then
  "$val" "$tmp/k.spirv64" || fail "spirv-val rejects the linked module"
  echo "ok   spirv-val"
fi
"$p2n" --emit=ir "$d/a.ptx" "$d/b.ptx" -o "$tmp/ab.ptx" || fail "--emit=ir"
grep -q '^\.visible \.entry k(' "$tmp/ab.ptx" && grep -q '^\.visible \.entry kb(' "$tmp/ab.ptx" || fail "kernels k and kb not both in the linked IR"
grep -q '^\.version 8\.5$' "$tmp/ab.ptx" && grep -q '^\.target sm_90$' "$tmp/ab.ptx" || fail "linked IR does not take the highest .version/.target"
[ "$(grep -c '^\.common \.global \.align 4 \.b8 shared_buf\[16\];' "$tmp/ab.ptx")" = 1 ] || fail ".common not merged to the largest size"
[ "$(grep -c 'dsm\[\]' "$tmp/ab.ptx")" = 1 ] && grep -q '^\.extern \.shared \.align 16 \.b32 dsm\[\];' "$tmp/ab.ptx" ||
  fail "dynamic shared declarations not merged into one with the largest alignment"
"$p2n" --emit=ir "$tmp/ab.ptx" -o "$tmp/ab2.ptx" || fail "linked IR does not parse"
cmp -s "$tmp/ab.ptx" "$tmp/ab2.ptx" || fail "linked IR does not round-trip"
echo "ok   linked IR: both kernels, highest version/target, .common merged, round trip"
c=$src/../corpus/ptx
for t in host gfx942 spirv64; do
  "$p2n" --offload-arch=$t "$c/rdc_extern.sm_90.ptx" "$c/rdc_extern_defs.sm_90.ptx" -o "$tmp/r.$t" || fail "corpus pair for $t"
done
echo "ok   corpus rdc_extern + rdc_extern_defs for host, gfx942, spirv64"
cd "$d" || exit 1
: > "$tmp/errors"
for c in "dup1.ptx dup2.ptx" "unres1.ptx unres2.ptx" "mism1.ptx mism2.ptx" "kind1.ptx kind2.ptx" "a.ptx as32.ptx" \
         "a.ptx syntax.ptx"; do
  echo "== $c" >> "$tmp/errors"
  # shellcheck disable=SC2086
  "$p2n" $c -o "$tmp/e.so" 2>> "$tmp/errors"
  [ $? = 1 ] || fail "'$c' should fail with status 1"
done
diff -u errors.expect "$tmp/errors" || fail "link diagnostics differ from link/errors.expect"
echo "ok   link diagnostics"
echo "check-link: all checks passed"
