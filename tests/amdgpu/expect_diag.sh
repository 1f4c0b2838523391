#!/bin/sh
# expect_diag.sh P2N ARCH PTX ERE — compiling PTX for ARCH must fail with a diagnostic matching ERE (and no
# internal compiler error or LLVM abort).
set -eu
P2N=$1 ARCH=$2 PTX=$3 RE=$4
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
if "$P2N" "$PTX" --offload-arch="$ARCH" -o "$T/k.co" 2> "$T/err.txt"; then
  echo "FAIL [$ARCH $PTX]: compiled, expected a diagnostic /$RE/" >&2; exit 1
fi
grep -Eq -- "$RE" "$T/err.txt" || { echo "FAIL [$ARCH $PTX]: no diagnostic /$RE/:" >&2; cat "$T/err.txt" >&2; exit 1; }
if grep -Eq 'internal compiler error|LLVM ERROR' "$T/err.txt"; then
  echo "FAIL [$ARCH $PTX]: internal error:" >&2; cat "$T/err.txt" >&2; exit 1
fi
echo "ok $ARCH $PTX: $(grep -Em1 -- "$RE" "$T/err.txt")"
