#!/bin/bash
# package-deb.sh BUILD_DIR CPACK — package.deb: `cpack -G DEB` makes a .deb whose Depends line was computed
# by dpkg-shlibdeps, and which holds the tools, the driver stub and the CMake package.
me=package.deb build=$1 cpack=$2
fail() { echo "$me: FAILED: $*"; exit 1; }
command -v dpkg-shlibdeps >/dev/null || fail "dpkg-shlibdeps missing (Debian package dpkg-dev; scripts/install-deps.sh)"
out=$(mktemp -d "${TMPDIR:-/tmp}/p2n-deb.XXXXXX") || fail mktemp
trap 'rm -rf "$out"' EXIT
(cd "$build" && "$cpack" -G DEB -B "$out" >"$out/cpack.log" 2>&1) || { cat "$out/cpack.log"; fail "cpack -G DEB"; }
deb=$(ls "$out"/*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { cat "$out/cpack.log"; fail "no .deb"; }
info=$(dpkg-deb --info "$deb"); echo "$info"
dep=$(echo "$info" | grep "^ Depends:") || fail "no Depends line"
for lib in libc6 libelf1 libzstd1 liblz4-1; do
  echo "$dep" | grep -q "$lib" || fail "Depends lacks $lib (not computed?)"
done
echo "$dep" | grep -q "(>=" || fail "Depends has no versions (not from dpkg-shlibdeps)"
list=$(dpkg-deb -c "$deb")
for f in ./usr/bin/ptx2native ./usr/bin/ptx2native-fatbin ./usr/bin/ptx2native-run ./usr/lib/ptx2native/libcuda.so.1 \
         ./usr/lib/ptx2native/libp2n_compiler.so ./usr/lib/cmake/ptx2native/ptx2nativeConfig.cmake \
         ./usr/share/man/man1/ptx2native.1; do
  echo "$list" | grep -q " $f\( \|$\)" || fail "$f not in the package"
done
echo "package.deb: $(basename "$deb") ok"
