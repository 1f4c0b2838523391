#!/bin/sh
# bound_schedule_regions.sh PTX2NATIVE ARCH — amdgpu_bound_schedule_regions.c: a block of a few thousand
# instructions gets a scheduling boundary (llvm.amdgcn.sched.barrier(0)) every few hundred; a short kernel none;
# and the long kernel still compiles to a code object. Wave32 targets only: a wave64 target gets none.
set -eu
p2n=$1 arch=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# long: 1,500 dependent f32 FMAs of loaded values with a store every 100 (no loop, one block); short: one add
awk 'BEGIN {
    print ".version 8.0\n.target sm_80\n.address_size 64\n"
    print ".visible .entry long_block(.param .u64 out)\n{\n  .reg .f32 %f<3>;\n  .reg .b64 %rd<2>;"
    print "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n  ld.global.f32 %f1, [%rd1];\n  ld.global.f32 %f2, [%rd1+4];"
    for (i = 0; i < 1500; i++) {
        print "  fma.rn.f32 %f1, %f1, %f2, %f1;"
        if (i % 100 == 99) printf "  st.global.f32 [%%rd1+%d], %%f1;\n", (i / 100) * 4
    }
    print "  ret;\n}\n"
    print ".visible .entry short_block(.param .u64 out)\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;"
    print "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n  mov.u32 %r1, %tid.x;\n  add.u32 %r1, %r1, 1;"
    print "  st.global.u32 [%rd1], %r1;\n  ret;\n}"
}' > "$tmp/k.ptx"
"$p2n" --offload-arch="$arch" -O3 --emit=llvm "$tmp/k.ptx" -o "$tmp/k.ll"
count() { awk -v k="@$1(" 'index($0, "define") == 1 { f = index($0, k) > 0 } f && /call void @llvm.amdgcn.sched.barrier\(i32 0\)/ { n++ } END { print n + 0 }' "$tmp/k.ll"; }
long=$(count long_block) short=$(count short_block)
case $arch in
gfx9*) [ "$long" -eq 0 ] || { echo "FAIL: $arch: long_block has $long scheduling boundaries, want 0 (wave64)"; exit 1; } ;;
*) [ "$long" -ge 3 ] || { echo "FAIL: $arch: long_block has $long scheduling boundaries, want >= 3"; exit 1; } ;;
esac
[ "$short" -eq 0 ] || { echo "FAIL: $arch: short_block has $short scheduling boundaries, want 0"; exit 1; }
"$p2n" --offload-arch="$arch" -O3 "$tmp/k.ptx" -o "$tmp/k.co" || { echo "FAIL: $arch: no code object"; exit 1; }
echo "bound-schedule-regions: $arch: long_block $long boundaries, short_block 0: ok"
