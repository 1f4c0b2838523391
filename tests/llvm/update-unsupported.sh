#!/bin/sh
# update-unsupported.sh PTX2NATIVE CORPUS_DIR... — prints the UNSUPPORTED.txt summary: each unsupported
# instruction form with the number of diagnostics across the corpus, then the modules that do not compile.
p2n=$1; shift
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for d in "$@"; do
  for f in "$d"/*.ptx; do
    "$p2n" --offload-arch=host "$f" -o "$tmp/k.so" 2>>"$tmp/err" || echo "$(basename "$(dirname "$f")")/$(basename "$f")" >>"$tmp/failed"
  done
done
echo "# Unsupported PTX for --offload-arch=host over tests/corpus/{ptx,handwritten} (count: diagnostics)."
echo "# Regenerate: tests/llvm/update-unsupported.sh build/targets/ptx2native tests/corpus/ptx tests/corpus/handwritten"
sed -n "s/.*error: \(unsupported PTX [a-z]*\) '\([^']*\)'.*/\1 '\2'/p" "$tmp/err" | sort | uniq -c | sort -k1,1nr -k2
echo "# modules that do not compile: $(cat "$tmp/failed" 2>/dev/null | wc -l)"
cat "$tmp/failed" 2>/dev/null
