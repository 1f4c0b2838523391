#!/usr/bin/env bash
# compile-count.sh — compiles every .ptx under the given directories for a SPIR-V target, validates each output
# with spirv-val, and prints counts: ok (valid), unsupported (exit 3 — diagnostics say what), bad input (1),
# internal/crash (anything else, listed). Usage: compile-count.sh PTX2NATIVE ARCH DIR...
set -u
p2n=$1 arch=$2
shift 2
env=spv1.4
[ "$arch" = spirv64-1.2 ] && env=opencl2.2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok=0 uns=0 bad=0 ice=0 inval=0
declare -A reasons
for f in $(find "$@" -name '*.ptx' | sort); do
    "$p2n" "$f" --offload-arch="$arch" -o "$tmp/o.spv" 2>"$tmp/err" >/dev/null
    rc=$?
    case $rc in
    0) if spirv-val --target-env $env "$tmp/o.spv" >/dev/null 2>&1; then ok=$((ok+1)); else inval=$((inval+1)); echo "INVALID $f"; fi ;;
    1|3) if grep -q "LLVM ERROR" "$tmp/err"; then ice=$((ice+1)); echo "LLVMABORT $f: $(grep "LLVM ERROR" "$tmp/err" | head -c 200)"; continue; fi
       if ! grep -q 'unsupported' "$tmp/err"; then bad=$((bad+1)); echo "BADINPUT $f: $(head -1 "$tmp/err")"; continue; fi
       uns=$((uns+1)); r=$(grep -o 'unsupported PTX [^(]*([^)]*)\|unsupported PTX construct[^:]*: [^(]*' "$tmp/err" | head -1 | sed -e "s/.*for target [^ ]* //" -e 's/.*: //'); r=${r:-other}; reasons["$r"]=$(( ${reasons["$r"]:-0} + 1 )) ;;
    *) ice=$((ice+1)); echo "ICE($rc) $f: $(head -c 300 "$tmp/err" | head -2)" ;;
    esac
    rm -f "$tmp/o.spv"
done
echo "arch=$arch ok(valid)=$ok unsupported=$uns bad_input=$bad internal_or_crash=$ice invalid=$inval"
for r in "${!reasons[@]}"; do echo "  unsupported: ${reasons[$r]}  $r"; done | sort -k2 -nr
