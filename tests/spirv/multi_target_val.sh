#!/bin/sh
# multi_target_val.sh PTX2NATIVE SPIRV_VAL PTX ARCHLIST — one invocation compiles PTX for every target of ARCHLIST
# (one P2NCODE1 container, docs/native-container.md); each SPIR-V entry is extracted and checked by spirv-val
# (spirv64: spv1.4, spirv64-1.2: opencl2.2, as spirv.val.*). Guards against state one target leaves behind for the
# next in the same process (issue 18: in-process lld reset LLVM's --spirv-ext, targets/llvm/codegen.c).
set -e
p2n=$1 val=$2 ptx=$3 archs=$4
dir=$(mktemp -d "${TMPDIR:-/tmp}/p2n-multi-XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$p2n" "$ptx" --offload-arch="$archs" -o "$dir/out.p2n"
python3 - "$dir/out.p2n" "$dir" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'P2NCODE1', 'not a P2NCODE1 container'
_, n, _ = struct.unpack_from('<IIQ', data, 8)
for i in range(n):
    name, kind, _, off, size = struct.unpack_from('<24sIIQQ', data, 24 + 64 * i)
    name = name.rstrip(b'\0').decode()
    print('entry', name, 'kind', kind, 'bytes', size)
    if kind == 3:
        open('%s/%s.spv' % (sys.argv[2], name), 'wb').write(data[off:off + size])
PY
n=0
for arch in $(echo "$archs" | tr ',' ' '); do
    case $arch in
    spirv64) env=spv1.4 ;;
    spirv64-1.2) env=opencl2.2 ;;
    *) continue ;;
    esac
    test -s "$dir/$arch.spv" || { echo "no $arch entry in the container"; exit 1; }
    "$val" --target-env $env "$dir/$arch.spv"
    echo "$arch: spirv-val ($env) ok"
    n=$((n + 1))
done
echo "multi_target_val: $n SPIR-V module(s) valid"
