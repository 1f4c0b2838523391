#!/bin/sh
# check-host-compile.sh PTX2NATIVE READELF FILE.ptx [OPTION]
# Passes when FILE compiles for the host into a shared object that exports __p2n_module and has no
# undefined symbols, or when it fails only with 'unsupported PTX' diagnostics (exit status 1).
p2n=$1 readelf=$2 f=$3 opt=${4:--O2}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$p2n" "$opt" --offload-arch=host "$f" -o "$tmp/k.so" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ]; then
  "$readelf" --dyn-syms "$tmp/k.so" > "$tmp/syms" || exit 1
  grep -q ' __p2n_module$' "$tmp/syms" || { echo "__p2n_module not exported"; exit 1; }
  grep -q ' __p2n_rt$' "$tmp/syms" || { echo "__p2n_rt not exported"; exit 1; }
  if awk 'NR>3 && $7=="UND" && $8!="" {bad=1; print "undefined: " $8} END {exit !bad}' "$tmp/syms"; then exit 1; fi
  exit 0
fi
if [ $rc -eq 1 ] && [ -s "$tmp/err" ] && ! grep 'error:' "$tmp/err" | grep -qv 'unsupported PTX'; then
  exit 0
fi
echo "exit status $rc"; cat "$tmp/err"
exit 1
