#!/bin/sh
# check_object.sh P2N READELF OBJDUMP ARCH PTX [golden]
# Compiles PTX for ARCH and checks the HSA code object: ET_DYN, OS/ABI AMDGPU-HSA, every kernel has a FUNC
# symbol and a .kd, no undefined symbols, amdhsa.version [1,2], wavefront size 64 on gfx9 / 32 on gfx10+,
# kernarg size >= the PTX parameter buffer. With `golden`: the disassembly uses ds_bpermute for shfl,
# s_barrier for bar.sync, and (wave64) a 64-bit shift of the 64-bit ballot.
set -eu
P2N=$1 READELF=$2 OBJDUMP=$3 ARCH=$4 PTX=$5 MODE=${6:-}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL [$ARCH $PTX]: $*" >&2; exit 1; }
"$P2N" "$PTX" --offload-arch="$ARCH" -o "$T/k.co" || fail "compile"
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
  "$OBJDUMP" -d --mcpu="$ARCH" "$T/k.co" > "$T/dis.txt"
  grep -q 'ds_bpermute_b32' "$T/dis.txt" || fail "shfl does not use ds_bpermute"
  grep -q 's_barrier' "$T/dis.txt" || fail "bar.sync is not s_barrier"
  if [ $W = 64 ]; then
    grep -q 'v_mbcnt_hi_u32_b32' "$T/dis.txt" || fail "wave64 lane id without mbcnt_hi"
    grep -Eq 'v_lshrrev_b64 .*(vcc|s\[)' "$T/dis.txt" || fail "wave64 ballot is not the shifted 64-bit form"
  fi
fi
echo "ok $ARCH $PTX"
