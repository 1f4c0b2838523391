#!/bin/sh
# check-errors.sh PTX2NATIVE ARCH — texref_errors.ptx must fail (exit 1) with exactly the diagnostics of
# texref_errors.expected (written for host; the target name is replaced), one per refused reference form
p2n=$1 arch=$2
dir=$(dirname "$0")
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cd "$dir" || exit 2
"$p2n" texref_errors.ptx --offload-arch="$arch" -o "$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] || { echo "exit status $rc, expected 1"; cat "$tmp/err"; exit 1; }
sed "s/for target host /for target $arch /" texref_errors.expected >"$tmp/want"
diff -u "$tmp/want" "$tmp/err" || exit 1
echo "texref errors: ok ($arch)"
