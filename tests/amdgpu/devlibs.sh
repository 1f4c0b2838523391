#!/bin/sh
# devlibs.sh P2N ARCH ISA_VERSION WAVE64 DIR — ROCm device-library linking (amdgpu_devlibs.c, docs/amdgpu.md "Math"):
# * -O0 --emit=llvm of devlib_math.ptx: every __oclc_* control constant is a private constant with this arch's
#   value (ISA version, wave size; ABI 500; no DAZ / finite-only / unsafe math; correctly rounded sqrt) and the
#   library code is internal (nothing exported, nothing left undefined);
# * -O2: all of it folded and inlined (no __oclc_ global, no __ocml_ call or definition left);
# * a module without library math links nothing; a missing ocml.bc is a clear error naming the path searched,
#   and only for modules that need it.
set -eu
P2N=$1 ARCH=$2 ISA=$3 W64=$4 DIR=$5
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL [$ARCH]: $*" >&2; exit 1; }
"$P2N" "$DIR/devlib_math.ptx" --offload-arch="$ARCH" -O0 --emit=llvm -o "$T/o0.ll" || fail "compile -O0"
want() { grep -Eq "^@$1 = private unnamed_addr addrspace\(4\) constant $2 $3(,|\$)" "$T/o0.ll" || fail "no @$1 = $2 $3"; }
want __oclc_ISA_version i32 "$ISA"
want __oclc_ABI_version i32 500
want __oclc_wavefrontsize64 i8 "$W64"
want __oclc_wavefrontsize_log2 i8 "$([ "$W64" = 1 ] && echo 6 || echo 5)"
want __oclc_daz_opt i8 0
want __oclc_finite_only_opt i8 0
want __oclc_unsafe_math_opt i8 0
want __oclc_correctly_rounded_sqrt32 i8 1
grep -Eq '^declare .*@__o(c|cl)[a-z]*_' "$T/o0.ll" && fail "library function left undefined: $(grep -Em1 '^declare .*@__o' "$T/o0.ll")"
grep -Eq '^@__oclc_[a-zA-Z0-9_]* = external' "$T/o0.ll" && fail "control constant left external"
grep -E '^define ' "$T/o0.ll" | grep '@__ocml' | grep -vq ' internal ' && fail "library function not internal"
grep -q 'define internal float @__ocml_sin_f32' "$T/o0.ll" || fail "-O0: __ocml_sin_f32 not linked"
"$P2N" "$DIR/devlib_math.ptx" --offload-arch="$ARCH" --emit=llvm -o "$T/o2.ll" || fail "compile -O2"
grep -Eq '^@__oclc|@__ocml[a-z_0-9]*\(' "$T/o2.ll" && fail "-O2: library not folded/inlined: $(grep -Em1 '^@__oclc|@__ocml[a-z_0-9]*\(' "$T/o2.ll")"
"$P2N" "$DIR/fp_modes.ptx" --offload-arch="$ARCH" -O0 --emit=llvm -o "$T/none.ll" || fail "compile fp_modes"
grep -q '__oclc\|__ocml' "$T/none.ll" && fail "library linked into a module that does not use it"
if P2N_ROCM_DEVICE_LIBS="$T/nowhere" "$P2N" "$DIR/devlib_math.ptx" --offload-arch="$ARCH" -o "$T/x.co" 2> "$T/err.txt"; then
  fail "compiled without ocml.bc"
fi
grep -q "error: ROCm device library ocml.bc not found (needed for sin.approx on $ARCH); searched: $T/nowhere/ocml.bc" "$T/err.txt" \
  || fail "missing-library diagnostic: $(cat "$T/err.txt")"
P2N_ROCM_DEVICE_LIBS="$T/nowhere" "$P2N" "$DIR/fp_modes.ptx" --offload-arch="$ARCH" -o "$T/y.co" \
  || fail "a module without library math needs ocml.bc"
echo "ok $ARCH devlibs"
