#!/bin/sh
# run-emu.sh STANDIN_DIR ARCH COMMAND... — runs COMMAND with our libcuda.so.1 on the HIP backend over the test
# stand-in libamdhip64.so.5 in STANDIN_DIR, emulating ARCH (gfx1100, gfx950, gfx1201) on tinygrad's emulator.
# Needs $P2N_TINYGRAD (root of a tinygrad checkout); exits 77 (ctest: skipped) without it. tinygrad's CPU
# device compiles the emulator's per-instruction code with a `clang` on PATH: one is provided from clang-22.
standin=$1 arch=$2
shift 2
if [ -z "${P2N_TINYGRAD:-}" ] || [ ! -f "$P2N_TINYGRAD/test/mockgpu/amd/emu.py" ]; then
    echo "SKIPPED: P2N_TINYGRAD is not set to a tinygrad checkout (test/mockgpu/amd/emu.py); the HIP emulator tests need one"
    exit 77
fi
if ! command -v clang >/dev/null 2>&1; then
    for c in clang-22 clang-21 clang-20 clang-19; do
        if p=$(command -v $c 2>/dev/null); then
            d=${TMPDIR:-/tmp}/p2n-clangbin-$(id -u)
            mkdir -p "$d" && ln -sf "$p" "$d/clang" && PATH=$d:$PATH
            break
        fi
    done
fi
# under the sanitizer configuration (scripts/test.sh sets detect_leaks=1): what the stand-in's embedded Python keeps
# at exit is not a leak of ours (lsan-emulator.supp)
here=$(cd "$(dirname "$0")" && pwd)
export LSAN_OPTIONS="suppressions=$here/lsan-emulator.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export PATH P2N_BACKEND=hip P2N_HIP_STANDIN_ARCH=$arch
export LD_LIBRARY_PATH="$standin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$@"
