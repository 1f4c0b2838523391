#!/bin/bash
# no-build-paths.sh BUILD_DIR SOURCE_DIR — install.no-build-paths: after `cmake --install` into a scratch prefix,
# no installed file (binaries and their debug information included) contains the build directory's path or
# the source directory's, and no ELF file has an RPATH/RUNPATH.
me=install.no-build-paths build=$1 src=$2
. "$(dirname "$0")/common.sh"
install_tree
n=$(find "$prefix" -type f | wc -l)
[ "$n" -gt 10 ] || fail "only $n files installed"
build_real=$(readlink -f "$build") src_real=$(readlink -f "$src")
bad=0
paths=("$build" "$build_real" "$src" "$src_real")
# sanitizer configuration: GCC 12 writes the sanitizers' source locations without -ffile-prefix-map, so the
# source path is in its binaries (never installed for real); the build path must still be absent
[ -n "${P2N_TEST_ALLOW_SOURCE_PATHS:-}" ] && paths=("$build" "$build_real")
for p in "${paths[@]}"; do
  hits=$(grep -rlF -- "$p" "$prefix") && { echo "files naming $p:"; echo "$hits"; bad=1; }
done
for f in $(find "$prefix" -type f); do
  if head -c4 "$f" | grep -q ELF; then
    rp=$(readelf -d "$f" 2>/dev/null | grep -E "RPATH|RUNPATH") && { echo "$f: $rp"; bad=1; }
  fi
done
[ $bad = 0 ] || fail "installed files name the build or source tree"
echo "install.no-build-paths: $n installed files, none names $build_real or $src_real"
