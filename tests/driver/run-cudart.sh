#!/bin/sh
# run-cudart.sh PROGRAM LIBCUDA_DIR CUDART_DIR — runs an nvcc-built runtime-API program on OUR libcuda.so.1
# (LIBCUDA_DIR first on the loader path; CUDART_DIR for -cudart shared builds). Passes only when the program
# exits 0 (a crash in cudart's teardown after main counts) AND printed its own "PASS" line.
prog=$1 libdir=$2 rtdir=$3
out=$(LD_LIBRARY_PATH="$libdir:$rtdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$prog" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ $rc -ne 0 ]; then
    echo "run-cudart: $prog exited with status $rc"
    exit 1
fi
if ! printf '%s\n' "$out" | grep -q '^PASS '; then
    echo "run-cudart: $prog printed no PASS line"
    exit 1
fi
echo "run-cudart: ok"
