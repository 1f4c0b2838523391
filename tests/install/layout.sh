#!/bin/bash
# layout.sh BUILD_DIR [FATBIN_APP] — install.layout: the installed tree has every piece where README.md's "Install" says,
# works from there after being moved (relocatable), and each tool's --help is its man page's source.
me=install.layout build=$1 app=${2:-}
. "$(dirname "$0")/common.sh"
install_tree
mv "$prefix" "$scratch/moved" && prefix=$scratch/moved     # relocatable: nothing remembers the first prefix
for f in bin/ptx2native bin/ptx2native-fatbin bin/ptx2native-run lib/ptx2native/libcuda.so.1 lib/ptx2native/libcuda.so \
         lib/ptx2native/libp2n_compiler.so lib/libptx2native.so lib/libptx2native.a include/ptx2native/ptx2native.h \
         lib/pkgconfig/ptx2native.pc lib/cmake/ptx2native/ptx2nativeConfig.cmake \
         lib/cmake/ptx2native/ptx2nativeConfigVersion.cmake lib/cmake/ptx2native/ptx2nativeTargets.cmake \
         lib/cmake/ptx2native/ptx2native-functions.cmake share/man/man1/ptx2native.1 share/man/man1/ptx2native-fatbin.1 \
         share/man/man1/ptx2native-run.1 share/bash-completion/completions/ptx2native \
         share/bash-completion/completions/ptx2native-fatbin share/bash-completion/completions/ptx2native-run; do
  [ -e "$prefix/$f" ] || fail "$f not installed"
done
[ "$(readlink "$prefix/lib/ptx2native/libcuda.so")" = libcuda.so.1 ] || fail "libcuda.so is not a link to libcuda.so.1"
# the public shared library: a versioned SONAME, the versioned links a package manager expects, and the name
# it is linked by resolving to the same file
soname=$(readelf -d "$prefix/lib/libptx2native.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ "$soname" =~ ^libp2n_compiler\.so\.[0-9]+\.[0-9]+$ ]] || fail "libptx2native.so: SONAME '$soname' is not versioned"
[ -L "$prefix/lib/ptx2native/$soname" ] || fail "no link lib/ptx2native/$soname (the SONAME)"
real=$(readlink -f "$prefix/lib/ptx2native/$soname")
[[ "$real" == "$prefix/lib/ptx2native/$soname".[0-9]* ]] && [ -f "$real" ] && [ ! -L "$real" ] ||
  fail "the SONAME link does not end at libp2n_compiler.so.MAJOR.MINOR.PATCH ($real)"
for l in lib/libptx2native.so lib/ptx2native/libp2n_compiler.so; do
  [ "$(readlink -f "$prefix/$l")" = "$real" ] || fail "$l does not resolve to $real"
done
"$prefix/bin/ptx2native" --version | grep -q "^ptx2native [0-9]" || fail "ptx2native --version"
"$prefix/bin/ptx2native-fatbin" --version | grep -q "compiler build" || fail "ptx2native-fatbin --version"
[ "$("$prefix/bin/ptx2native-run" --print-lib-dir)" = "$prefix/lib/ptx2native" ] || fail "ptx2native-run --print-lib-dir"
# the launcher: the environment it gives one program, its errors
run=$prefix/bin/ptx2native-run
env_out=$(LD_LIBRARY_PATH=/x "$run" --backend=cpu --require-native --verbose -- env) || fail "ptx2native-run -- env"
echo "$env_out" | grep -qx "LD_LIBRARY_PATH=$prefix/lib/ptx2native:/x" || fail "LD_LIBRARY_PATH: $(echo "$env_out" | grep LD_LIB)"
for v in P2N_BACKEND=cpu P2N_REQUIRE_NATIVE=1 P2N_VERBOSE=1; do
  echo "$env_out" | grep -qx "$v" || fail "ptx2native-run did not set $v"
done
env_out=$(env -u P2N_BACKEND -u LD_LIBRARY_PATH "$run" env) || fail "ptx2native-run env"
echo "$env_out" | grep -q "^P2N_BACKEND=" && fail "P2N_BACKEND set without --backend"
echo "$env_out" | grep -qx "LD_LIBRARY_PATH=$prefix/lib/ptx2native" || fail "LD_LIBRARY_PATH without a previous value"
"$run" --backend=bogus true 2>/dev/null; [ $? = 1 ] || fail "bad --backend: not exit 1"
[ "$("$run" --backend opencl -- sh -c 'echo $P2N_BACKEND')" = opencl ] || fail "--backend KIND (two words)"
"$run" --bogus true 2>/dev/null; [ $? = 1 ] || fail "unknown option: not exit 1"
"$run" 2>/dev/null; [ $? = 1 ] || fail "no program: not exit 1"
"$run" -- "$scratch/no-such-program" 2>/dev/null; [ $? = 127 ] || fail "missing program: not exit 127"
ln -s "$run" "$scratch/p2n-run-link" && [ "$("$scratch/p2n-run-link" --print-lib-dir)" = "$prefix/lib/ptx2native" ] ||
  fail "ptx2native-run through a symbolic link"
# --help and the man page come from one text: every option of --help appears in the page
for t in ptx2native ptx2native-fatbin ptx2native-run; do
  page=$(MANWIDTH=200 man -l "$prefix/share/man/man1/$t.1" 2>/dev/null) || page=$(cat "$prefix/share/man/man1/$t.1")
  "$prefix/bin/$t" --help >"$scratch/help" || fail "$t --help"
  for o in $(grep -oE '^  --?[a-z][a-z0-9-]*' "$scratch/help"); do
    echo "$page" | grep -qF -- "$o" || fail "$t: $o in --help, not in the man page"
  done
done
# the compiler loads from the moved tree, into the fatbin tool (bin/ -> lib/ptx2native) and into libcuda.so.1
# (next to it): FATBIN_APP (tests/driver's test_driver_native, an nvcc-built program) rewritten, then JIT-run
if [ -n "$app" ] && [ -x "$app" ]; then
  env -u P2N_COMPILER_LIB "$prefix/bin/ptx2native-fatbin" rewrite "$app" --offload-arch=host --no-cache \
    -o "$scratch/app.p2n" >"$scratch/rw.log" 2>&1 || { cat "$scratch/rw.log"; fail "rewrite with the installed tool"; }
  out=$(cd "$scratch" && env -u P2N_COMPILER_LIB -u P2N_REQUIRE_NATIVE P2N_CACHE_DISABLE=1 LD_DEBUG=files \
        LD_LIBRARY_PATH="$prefix/lib/ptx2native" P2N_BACKEND=cpu "$app" run 2>&1)
  echo "$out" | grep -q "all checks passed" || { echo "$out" | tail -20; fail "JIT through the installed libcuda.so.1"; }
  echo "$out" | grep -q "file=$prefix/lib/ptx2native/libp2n_compiler.so" ||
    { echo "$out" | grep "file=" | tail; fail "the installed libcuda.so.1 did not load the installed compiler"; }
fi
# pkg-config: a C program against the shared library, run without any LD_LIBRARY_PATH ($P2N_TEST_CFLAGS: the
# sanitizer configuration's flags, which a program linked with its instrumented library needs)
if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
  printf '#include <ptx2native.h>\n#include <stdio.h>\nint main(void){printf("%%s\\n", p2n_build_id());return 0;}\n' >"$scratch/t.c"
  cc ${P2N_TEST_CFLAGS:-} "$scratch/t.c" $(pkg-config --cflags --libs ptx2native) -o "$scratch/t" || fail "cc with pkg-config ptx2native"
  "$scratch/t" | grep -q "^ptx2native-" || fail "program linked with -lptx2native"
  readelf -d "$scratch/t" | grep -q "(NEEDED).*\[$soname\]" || fail "the program does not record the SONAME $soname"
  # static: the archive by path, then Libs.private (LLVM 22's static archives); it compiles PTX in process
  printf '#include <ptx2native.h>\n#include <string.h>\nint main(void){const char *p=".version 8.0\\n.target sm_80\\n.address_size 64\\n.visible .entry k(){ret;}\\n";p2n_options o={0};p2n_result r;o.emit=P2N_EMIT_IR;int s=p2n_compile(p,strlen(p),"t.ptx",&o,&r);p2n_result_free(&r);return s;}\n' >"$scratch/s.c"
  cc ${P2N_TEST_CFLAGS:-} "$scratch/s.c" $(pkg-config --cflags ptx2native) "$prefix/lib/libptx2native.a" \
     $(pkg-config --static --libs ptx2native | sed 's/-L[^ ]* -lptx2native//') -o "$scratch/s" || fail "static link"
  "$scratch/s" || fail "statically linked program could not compile PTX"
fi
# bash completion scripts load
for t in ptx2native ptx2native-fatbin ptx2native-run; do
  bash -c ". '$prefix/share/bash-completion/completions/$t' && complete -p $t" >/dev/null || fail "completion of $t"
done
echo "install.layout: ok (moved prefix $prefix)"
