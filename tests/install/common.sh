# common.sh — sourced by the install tests: install BUILD_DIR into a fresh scratch prefix ($prefix).
fail() { echo "$me: FAILED: $*"; exit 1; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/p2n-install.XXXXXX") || fail "mktemp"
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix
install_tree() {
  cmake --install "$build" --prefix "$prefix" >"$scratch/install.log" 2>&1 || { cat "$scratch/install.log"; fail "cmake --install"; }
}
