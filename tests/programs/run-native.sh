#!/bin/sh
# run-native.sh FATBIN_TOOL PROGRAM LIBCUDA_DIR CUDART_DIR WORKDIR — the program as a deployment ships it:
# `ptx2native-fatbin rewrite --offload-arch=host` into WORKDIR, `verify`, then run through run-cudart.sh with
# P2N_REQUIRE_NATIVE=1, so that any PTX compiled at run time (a device link of -rdc code included) fails the run.
tool=$1 prog=$2 libdir=$3 rtdir=$4 work=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" || exit 1
out="$work/$(basename "$prog")"
"$tool" rewrite --offload-arch=host --no-cache -v "$prog" -o "$out" || { echo "run-native: rewrite failed"; exit 1; }
"$tool" verify "$out" || { echo "run-native: the rewritten program does not verify"; exit 1; }
P2N_REQUIRE_NATIVE=1 P2N_VERBOSE=1 sh "$here/../driver/run-cudart.sh" "$out" "$libdir" "$rtdir"
