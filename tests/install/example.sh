#!/bin/bash
# example.sh BUILD_DIR EXAMPLE_DIR NVCC — install.example: install into a scratch prefix, configure
# examples/cmake-precompile against the installed package (find_package(ptx2native CONFIG)), build it (nvcc,
# then ptx2native_precompile rewrites the executable), run it through the installed libcuda.so.1 with
# P2N_REQUIRE_NATIVE=1 P2N_BACKEND=cpu (no JIT allowed), then again through ptx2native-run; a second build
# with nothing changed does nothing, and a changed compiler makes the rewrite run again.
me=install.example build=$1 example=$2 nvcc=$3
. "$(dirname "$0")/common.sh"
# sanitizer configuration: the installed libcuda.so.1 is instrumented, nvcc's program is not, so the sanitizer
# runtime must come first in the program's processes ($P2N_TEST_APP_PRELOAD; cmake/Install.cmake sets it)
app_env=()
[ -n "${P2N_TEST_APP_PRELOAD:-}" ] && app_env=("LD_PRELOAD=$P2N_TEST_APP_PRELOAD")
install_tree
ex=$scratch/example
cmake -S "$example" -B "$ex" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CUDA_COMPILER="$nvcc" \
  -DCMAKE_BUILD_TYPE=Release >"$scratch/configure.log" 2>&1 || { cat "$scratch/configure.log"; fail "configure"; }
cmake --build "$ex" >"$scratch/build.log" 2>&1 || { cat "$scratch/build.log"; fail "build"; }
grep -q "ptx2native: precompiling kernels" "$scratch/build.log" || { cat "$scratch/build.log"; fail "no precompile step"; }
[ -s "$ex/saxpy_module.p2n" ] || fail "ptx2native_add_code_object made no code object"
[ -s "$ex/precompile.json" ] || fail "no REPORT file"
"$prefix/bin/ptx2native-fatbin" verify "$ex/kernels" >/dev/null || fail "the executable has no valid .p2n_native section"
out=$(env -u P2N_COMPILER_LIB "${app_env[@]}" LD_LIBRARY_PATH="$prefix/lib/ptx2native" P2N_REQUIRE_NATIVE=1 P2N_BACKEND=cpu "$ex/kernels" 2>&1)
echo "$out"
echo "$out" | grep -q "^PASS" || fail "the precompiled example did not pass"
out=$(env "${app_env[@]}" "$prefix/bin/ptx2native-run" --backend=cpu --require-native --verbose -- "$ex/kernels" 2>&1)
echo "$out" | tail -3
echo "$out" | grep -q "^PASS" || fail "through ptx2native-run"
echo "$out" | grep -q "no JIT" || fail "ptx2native-run --verbose: no 'native code used' line"
(cd "$ex" && env "${app_env[@]}" ctest --output-on-failure >"$scratch/ctest.log" 2>&1) || { cat "$scratch/ctest.log"; fail "the example's own ctest"; }
# incremental: nothing to do; then a newer compiler re-runs the rewrite
cmake --build "$ex" -- -n -d explain >"$scratch/nop.log" 2>&1
grep -q "precompiling" "$scratch/nop.log" && { cat "$scratch/nop.log"; fail "a no-change build re-runs the rewrite"; }
touch "$prefix/lib/ptx2native/libp2n_compiler.so"
cmake --build "$ex" >"$scratch/rebuild.log" 2>&1 || { cat "$scratch/rebuild.log"; fail "rebuild"; }
grep -q "precompiling kernels" "$scratch/rebuild.log" || { cat "$scratch/rebuild.log"; fail "a changed compiler did not re-run the rewrite"; }
echo "install.example: PASS"
