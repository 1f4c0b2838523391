#!/bin/sh
# check-split.sh PTX2NATIVE READOBJ ARCH FILE.ptx [JOBS] — compiles FILE with -j1 and -jJOBS (default 2) for
# ARCH and checks that the outputs export the same dynamic symbols and, for AMDGPU code objects, carry exactly
# one metadata note whose kernels (all fields, compared per kernel in name order) equal the serial compile's;
# and that the -jJOBS output is byte-identical to the one of the bitcode route (P2N_SPLIT_BITCODE=1).
p2n=$1 readobj=$2 arch=$3 f=$4 jobs=${5:-2}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$p2n" --offload-arch="$arch" -j1 "$f" -o "$tmp/j1" || exit 1
"$p2n" --offload-arch="$arch" -j"$jobs" -v "$f" -o "$tmp/j2" 2> "$tmp/log" || { cat "$tmp/log"; exit 1; }
grep -q -- "-j$jobs: [0-9]* partitions" "$tmp/log" || { echo "FAIL: -j$jobs did not partition $f"; cat "$tmp/log"; exit 1; }
# the partitions' copies of the module are emitted again on their threads (targets/llvm/parallel.c); the
# older route, one bitcode copy of the caller's module, must give the same bytes
P2N_SPLIT_BITCODE=1 "$p2n" --offload-arch="$arch" -j"$jobs" "$f" -o "$tmp/j2bc" || exit 1
cmp "$tmp/j2" "$tmp/j2bc" || { echo "FAIL: -j$jobs output differs from the bitcode route's"; exit 1; }
for j in j1 j2; do
  # type, binding, visibility, name (addresses and section numbers may differ)
  "$readobj" --elf-output-style=GNU --dyn-syms "$tmp/$j" | awk '$1 ~ /^[0-9]+:$/ {print $4, $5, $6, $8}' |
    sort > "$tmp/$j.syms" || exit 1
done
diff -u "$tmp/j1.syms" "$tmp/j2.syms" || { echo "FAIL: dynamic symbols differ"; exit 1; }
case $arch in gfx*) ;; *) echo "ok: $arch $(wc -l < "$tmp/j1.syms") dynamic symbols"; exit 0 ;; esac
for j in j1 j2; do
  "$readobj" --notes "$tmp/$j" > "$tmp/$j.notes" || exit 1
  n=$(grep -c 'NT_AMDGPU_METADATA' "$tmp/$j.notes")
  [ "$n" = 1 ] || { echo "FAIL: $j has $n AMDGPU metadata notes"; exit 1; }
  # one line per kernel (its YAML block joined), sorted by kernel name
  awk '/^ *amdhsa\.kernels:/ {in_k = 1; next}
       in_k && /^ *amdhsa\./ {in_k = 0}
       in_k && /^ *- \.[a-z_]+:/ && !seen_indent {indent = index($0, "-"); seen_indent = 1}
       in_k && seen_indent && index($0, "-") == indent && substr($0, 1, indent - 1) ~ /^ *$/ {if (rec != "") print rec; rec = ""}
       in_k {gsub(/^ +/, ""); rec = rec "|" $0}
       END {if (rec != "") print rec}' "$tmp/$j.notes" | sort > "$tmp/$j.kernels"
  grep -v -E '^ *(File|Size|Data size|Offset):' "$tmp/$j.notes" | awk '/amdhsa\.kernels:/ {skip = 1} /amdhsa\.target:|amdhsa\.version:/ {skip = 0} !skip' > "$tmp/$j.rest"
done
[ -s "$tmp/j1.kernels" ] || { echo "FAIL: no kernels in the metadata"; exit 1; }
diff -u "$tmp/j1.kernels" "$tmp/j2.kernels" || { echo "FAIL: kernel metadata differs"; exit 1; }
diff -u "$tmp/j1.rest" "$tmp/j2.rest" || { echo "FAIL: metadata differs"; exit 1; }
echo "ok: $arch $(wc -l < "$tmp/j1.kernels") kernels, same metadata"
