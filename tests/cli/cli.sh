#!/bin/bash
# cli.sh CASE PTX2NATIVE SOURCE_DIR BUILD_DIR — one compiler-driver convention of ptx2native per CASE.
set -u
case_=$1 p2n=$2 src=$3 build=$4
ptx=$src/examples/vecadd.ptx
fail() { echo "cli.$case_: FAILED: $*"; exit 1; }
t=$(mktemp -d "${TMPDIR:-/tmp}/p2n-cli.XXXXXX") || fail mktemp
trap 'rm -rf "$t"' EXIT
cd "$t"
# expect STATUS CMD...: runs CMD, output in $t/out, and checks its exit status
expect() { local want=$1; shift; "$@" >out 2>&1; local rc=$?; [ $rc = "$want" ] || { cat out; fail "'$*' exited $rc, want $want"; }; }

case $case_ in
offload-arch-repeat)
  # both spellings, repeatable, accumulating (a second one used to replace the first); duplicates dropped
  expect 0 "$p2n" -### "$ptx" --offload-arch host --offload-arch=spirv64,host -o k.bin
  grep -q 'offload-arch=host"' out && grep -q 'offload-arch=spirv64"' out || { cat out; fail "targets not accumulated"; }
  [ "$(grep -c ptx2native-compile out)" = 2 ] || { cat out; fail "duplicate target compiled twice"; }
  grep -q 'ptx2native-container" "host,spirv64"' out || { cat out; fail "no container of host,spirv64"; }
  expect 0 "$p2n" "$ptx" --offload-arch host --arch=spirv64 -o k.bin
  head -c 8 k.bin | grep -q P2NCODE1 || fail "two targets gave no P2NCODE1 container"
  expect 1 "$p2n" "$ptx" --offload-arch
  grep -q "needs a value" out || fail "missing value not diagnosed" ;;
depfile)
  expect 0 "$p2n" "$ptx" -MD -o k.so
  [ -s k.so.d ] || fail "-MD wrote no k.so.d"
  grep -q "^k.so:" k.so.d && grep -qF "$ptx" k.so.d || { cat k.so.d; fail "k.so.d content"; }
  grep -q "^$ptx:$" k.so.d || { cat k.so.d; fail "no empty rule for the input (-MP style)"; }
  expect 0 "$p2n" "$ptx" -MF my.d -o "out put.so"
  grep -q '^out\\ put.so:' my.d || { cat my.d; fail "-MF file / escaping of spaces"; }
  expect 1 "$p2n" "$ptx" -MD --emit=ir
  grep -q "need an output file" out || fail "-MD without -o not diagnosed" ;;
save-temps)
  expect 0 "$p2n" "$ptx" -save-temps --offload-arch=host -o k.so
  [ -s k.so ] && [ -s k.so.ir.ptx ] && [ -s k.so.host.ll ] || { ls -la; fail "temporaries not kept"; }
  grep -q "^\.entry\|\.entry" k.so.ir.ptx || fail "k.so.ir.ptx is not our IR"
  grep -q "define" k.so.host.ll || fail "k.so.host.ll is not LLVM IR" ;;
line-info)
  # --line-info: .loc lines name the PTX line of the instruction (vecadd.ptx's add.f32), the instructions are
  # those of a compile without it, -j2 and objects carry a .debug_line section
  line=$(grep -n 'add\.f32' "$ptx" | head -1 | cut -d: -f1)
  for arch in host gfx942 gfx1100; do
    expect 0 "$p2n" --offload-arch=$arch -O3 --emit=asm "$ptx" -o plain.s
    expect 0 "$p2n" --offload-arch=$arch -O3 --emit=asm -lineinfo "$ptx" -o lines.s
    grep -Eq "^[[:space:]]*\.loc[[:space:]]+[0-9]+ $line " lines.s || fail "$arch: no .loc for PTX line $line"
    grep -q '\.loc' plain.s && fail "$arch: .loc without --line-info"
    ins() { grep -E '^[[:space:]]+[a-z_][a-z_0-9.]*([[:space:]]|$)' "$1" | grep -vE '^[[:space:]]+\.'; }
    [ "$(ins plain.s | md5sum)" = "$(ins lines.s | md5sum)" ] || fail "$arch: --line-info changed the instructions"
    expect 0 "$p2n" --offload-arch=$arch -O3 -j2 --line-info "$src/tests/parallel/multi.ptx" -o k.o
    readelf -S k.o | grep -q '\.debug_line' || fail "$arch: -j2 object without .debug_line"
  done ;;
dry-run)
  expect 0 "$p2n" -### "$ptx" -o k.so
  [ -e k.so ] && fail "-### wrote the output"
  grep -q '"ptx2native-compile" "--offload-arch=host" "-O2" "--emit=obj"' out || { cat out; fail "steps not printed"; }
  grep -q '"ptx2native-write" "k.so"' out || { cat out; fail "no write step" ; }
  expect 0 "$p2n" -### no-such-file.ptx -o k.so ;;   # nothing is read either
x-ptx)
  expect 0 "$p2n" -x ptx "$ptx" --emit=ir -o k.ir
  expect 0 "$p2n" -xptx "$ptx" --emit=ir -o k.ir
  expect 1 "$p2n" -x cu "$ptx" --emit=ir
  grep -q "unsupported language" out || fail "-x cu not diagnosed" ;;
dashdash)
  cp "$ptx" ./-weird.ptx
  expect 0 "$p2n" --emit=ir -o k.ir -- -weird.ptx
  grep -q "\.entry" k.ir || fail "input after -- not compiled"
  expect 1 "$p2n" --emit=ir -o k.ir -weird.ptx ;;
response-file)
  printf -- '--emit=ir\n"%s"\n@inner.rsp\n' "$ptx" > outer.rsp
  printf -- "-o 'k out.ir'\n" > inner.rsp
  expect 0 "$p2n" @outer.rsp
  grep -q "\.entry" "k out.ir" || fail "response files not expanded"
  expect 1 "$p2n" @missing.rsp
  grep -q "cannot read response file" out || fail "missing response file"
  printf '"unterminated\n' > bad.rsp
  expect 1 "$p2n" @bad.rsp
  printf '@loop.rsp\n' > loop.rsp
  expect 1 "$p2n" @loop.rsp
  grep -q "nested too deep" out || fail "recursive response file" ;;
print-targets)
  expect 0 "$p2n" --print-targets
  # every description starts in the same column
  cols=$(awk '{ n = index($0, $2); print n }' out | sort -u | wc -l)
  [ "$cols" = 1 ] || { cat out; fail "descriptions not aligned"; }
  grep -q "^  host " out || fail "host missing" ;;
exit-status)
  # every user error exits 1 (-o naming an existing directory used to exit 2)
  mkdir d
  expect 1 "$p2n" "$ptx" -o d/
  expect 1 "$p2n" "$ptx" -o d
  expect 1 "$p2n" "$ptx" --emit=ir -o d/
  expect 1 "$p2n" "$ptx" "$ptx" -o d
  expect 1 "$p2n" --no-such-option "$ptx"
  expect 1 "$p2n" "$ptx" --offload-arch=gfx9999 -o k.so
  expect 1 "$p2n" missing.ptx -o k.so
  expect 1 "$p2n" "$ptx" --emit=bogus
  expect 1 "$p2n" "$ptx" -j x -o k.so
  expect 1 "$p2n"
  expect 1 "$p2n" "$ptx" -o nodir/k.so
  expect 1 "$p2n" "$ptx" -o "" ;;
output-is-input)
  cp "$ptx" k.ptx
  expect 1 "$p2n" k.ptx --emit=ir -o k.ptx
  grep -q "also an input" out || fail "not diagnosed"
  cmp -s k.ptx "$ptx" || fail "the input was modified"
  expect 1 "$p2n" k.ptx --emit=ir -o ./k.ptx
  ln -s k.ptx link.ptx && expect 1 "$p2n" link.ptx --emit=ir -o k.ptx
  expect 0 "$p2n" k.ptx --emit=ir --in-place -o k.ptx
  grep -q "\.entry" k.ptx || fail "--in-place result" ;;
help-is-man-source)
  expect 0 "$p2n" --help
  diff <(grep -v '^@' "$src/targets/cli_help.txt") out >/dev/null || fail "--help is not targets/cli_help.txt"
  page=$build/generated/man/ptx2native.1
  [ -s "$page" ] || fail "no generated man page"
  for o in $(grep -oE '^  --?[a-zA-Z#][a-zA-Z0-9#-]*' out); do
    grep -qF -- "$(echo "$o" | sed 's/-/\\-/g')" "$page" || fail "$o not in the man page"
  done ;;
*) fail "unknown case" ;;
esac
echo "cli.$case_: ok"
