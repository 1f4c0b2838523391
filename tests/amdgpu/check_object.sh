#!/bin/sh
# check_object.sh P2N READELF OBJDUMP ARCH PTX [golden [GOLDEN-FILE]]   ($P2N_FLAGS: extra compiler options)
# Compiles PTX for ARCH and checks the HSA code object: ET_DYN, OS/ABI AMDGPU-HSA, every kernel has a FUNC
# symbol and a .kd, no undefined symbols, amdhsa.version [1,2], wavefront size 64 on gfx9 / 32 on gfx10+,
# kernarg size >= the PTX parameter buffer. With `golden`: the disassembly is checked against PTX's .golden
# file (expected / forbidden instructions per kernel and arch; format below).
set -eu
P2N=$1 READELF=$2 OBJDUMP=$3 ARCH=$4 PTX=$5 MODE=${6:-}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL [$ARCH $PTX]: $*" >&2; exit 1; }
# shellcheck disable=SC2086 # P2N_FLAGS is a list of options
"$P2N" "$PTX" --offload-arch="$ARCH" ${P2N_FLAGS:-} -o "$T/k.co" || fail "compile"
"$READELF" -h --notes -s "$T/k.co" > "$T/re.txt"
grep -q 'Type: *DYN' "$T/re.txt" || fail "not ET_DYN"
grep -q 'OS/ABI: *AMDGPU - HSA' "$T/re.txt" || fail "OS/ABI"
grep -Eq '[[:space:]]UND[[:space:]]+[^[:space:]]' "$T/re.txt" && fail "undefined symbols"
tr -d '\n ' < "$T/re.txt" | grep -q 'amdhsa.version:-1-2' || fail "amdhsa.version is not [1,2]"
case $ARCH in gfx9*) W=64 ;; *) W=32 ;; esac
grep -q "\.wavefront_size: *$W" "$T/re.txt" || fail "wavefront size is not $W"
grep -q "\.wavefront_size: *$(( 96 - W ))" "$T/re.txt" && fail "a kernel with the wrong wavefront size"
for k in $(sed -n 's/^\.visible \.entry \([A-Za-z_$][A-Za-z0-9_$]*\).*/\1/p' "$PTX"); do
  grep -Eq "FUNC +GLOBAL +PROTECTED +[0-9]+ $k\$" "$T/re.txt" || fail "no FUNC symbol $k"
  grep -Eq "OBJECT +GLOBAL +PROTECTED +[0-9]+ $k\.kd\$" "$T/re.txt" || fail "no $k.kd"
done
# kernarg size >= PTX parameter buffer (the largest offset+size of the explicit args of each kernel)
awk '/\.args:/{m=0} /\.offset:/{o=$2} /\.size:/{if(o+$2>m)m=o+$2} /\.kernarg_segment_size:/{if($2<m){print "kernarg " $2 " < " m; exit 1}}' "$T/re.txt" \
  || fail "kernarg segment smaller than the parameter buffer"
if [ "$MODE" = golden ]; then
  # One line per instruction: "kernel<TAB>instruction operands" (no addresses, encodings or padding).
  # Kernel descriptors (.rodata) disassemble as ".amdhsa_* value" lines under "KERNEL.kd".
  { "$OBJDUMP" -d --mcpu="$ARCH" "$T/k.co"; "$OBJDUMP" -D -j .rodata --mcpu="$ARCH" "$T/k.co"; } | awk '
    /^[0-9a-f]+ <[^>]*>:$/ { k = $2; gsub(/[<>:]/, "", k); next }
    k != "" && /^\t/ { sub(/^\t/, ""); sub(/[ \t]*\/\/.*$/, ""); if ($1 != "s_nop" && $1 != "s_code_end") print k "\t" $0 }' > "$T/dis.txt"
  # PTX.golden lines: ARCH-GLOB KERNEL +|- ERE. "+": some instruction of KERNEL (* = any) matches ERE, "-": none.
  # KERNEL notes:NAME: a line of kernel NAME's metadata (code-object notes) instead of its instructions.
  G=${7:-${PTX%.ptx}.golden}
  [ -f "$G" ] || fail "no golden file $G"
  n=0
  while read -r glob kern sign re; do
    case $glob in ''|'#'*) continue ;; esac
    # shellcheck disable=SC2254
    case $ARCH in $glob) ;; *) continue ;; esac
    if [ "$kern" = '*' ]; then cut -f2- "$T/dis.txt" > "$T/k.txt"
    elif [ "${kern#notes:}" != "$kern" ]; then
      # notes:KERNEL — that kernel's code-object metadata (readelf --notes: its entry of amdhsa.kernels)
      awk -v k="${kern#notes:}" '/^  - \./ { if (hit) exit; buf = "" } { buf = buf $0 "\n" }
        $1 == ".name:" && $2 == k { hit = 1 } END { if (hit) printf "%s", buf }' "$T/re.txt" > "$T/k.txt"
      [ -s "$T/k.txt" ] || fail "golden: no metadata for kernel ${kern#notes:}"
    else awk -F '\t' -v k="$kern" '$1 == k { print $2 }' "$T/dis.txt" > "$T/k.txt"
      [ -s "$T/k.txt" ] || fail "golden: no disassembly for kernel $kern"
    fi
    if grep -Eq -- "$re" "$T/k.txt"; then hit=1; else hit=0; fi
    [ "$sign" = + ] && [ $hit = 0 ] && fail "golden: $kern has no instruction matching /$re/"
    [ "$sign" = - ] && [ $hit = 1 ] && fail "golden: $kern has an instruction matching /$re/: $(grep -Em1 -- "$re" "$T/k.txt")"
    n=$((n + 1))
  done < "$G"
  [ $n -gt 0 ] || fail "golden: no expectation applies to $ARCH"
fi
echo "ok $ARCH $PTX"
