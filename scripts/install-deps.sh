#!/usr/bin/env bash
# Installs every Debian package the project needs (build, tests, later targets), and nothing else.
# Idempotent: packages already present are skipped, so a second run costs a dpkg query.
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build pkg-config python3 dpkg-dev
  llvm-22 llvm-22-dev llvm-22-tools lld-22 liblld-22-dev clang-22 libclang-rt-22-dev
  spirv-tools libelf-dev liblz4-dev libzstd-dev zlib1g-dev
  libamd-comgr-dev rocm-device-libs libamdhip64-dev libze-dev ocl-icd-opencl-dev
  pocl-source llvm-spirv-15 llvm-15-dev clang-15 libclang-15-dev libclang-cpp15-dev libhwloc-dev
  libpython3-dev
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
