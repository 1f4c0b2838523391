#!/usr/bin/env bash
# cuda-samples.sh — builds NVIDIA CUDA samples with nvcc (sm_80: SASS + compute_80 PTX, the default configuration
# of the real-programs issue) and runs them unmodified through our libcuda.so.1 on a ptx2native backend.
#
#   scripts/cuda-samples.sh [--timeout S] [--backend NAME] SAMPLES_ROOT LIBCUDA_DIR OUT_DIR SAMPLE...
#
# SAMPLES_ROOT is a checkout of github:NVIDIA/cuda-samples (its Common/ and Samples/ are used; never copied into
# this repository), SAMPLE a directory under Samples/ (e.g. 0_Introduction/simpleAttributes). Each sample's .cu
# and .cpp files are compiled into OUT_DIR/NAME (build log OUT_DIR/NAME.build.log), then run in its own
# directory (some read data files there) with LD_LIBRARY_PATH=LIBCUDA_DIR and P2N_BACKEND (default cpu), output
# in OUT_DIR/NAME.log. A sample passes when it exits 0 and prints no failure line ("FAIL", "Test failed",
# "Result = FAIL"). One line per sample on stdout: NAME pass|fail|build-failed|timeout SECONDS; the exit status
# is the number of samples that did not pass (at most 125).
set -u
timeout_s=1800 backend=cpu
while [ $# -gt 0 ]; do
    case $1 in
    --timeout) timeout_s=$2; shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "cuda-samples: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
if [ $# -lt 4 ]; then
    echo "usage: $0 [--timeout S] [--backend NAME] SAMPLES_ROOT LIBCUDA_DIR OUT_DIR SAMPLE..." >&2
    exit 2
fi
root=$(cd "$1" && pwd) libdir=$(cd "$2" && pwd) out=$3
shift 3
mkdir -p "$out" && out=$(cd "$out" && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
[ -x "$nvcc" ] || { echo "cuda-samples: no nvcc at $nvcc (set NVCC)" >&2; exit 2; }
[ -e "$libdir/libcuda.so.1" ] || { echo "cuda-samples: no libcuda.so.1 in $libdir" >&2; exit 2; }
bad=0
for s in "$@"; do
    dir=$root/Samples/$s name=$(basename "$s")
    if [ ! -d "$dir" ]; then
        echo "$name missing 0"; bad=$((bad + 1)); continue
    fi
    mapfile -t srcs < <(find "$dir" -maxdepth 1 \( -name '*.cu' -o -name '*.cpp' \) | sort)
    if ! "$nvcc" -arch=sm_80 -O2 -I"$root/Common" -o "$out/$name" "${srcs[@]}" -lcuda >"$out/$name.build.log" 2>&1
    then
        echo "$name build-failed 0"; bad=$((bad + 1)); continue
    fi
    t0=$(date +%s)
    (cd "$dir" && LD_LIBRARY_PATH="$libdir" P2N_BACKEND=$backend timeout "$timeout_s" "$out/$name") \
        >"$out/$name.log" 2>&1
    rc=$? secs=$(( $(date +%s) - t0 ))
    if [ $rc -eq 124 ]; then
        st=timeout
    elif [ $rc -ne 0 ] || grep -qE 'FAIL|Test failed' "$out/$name.log"; then
        st=fail
    else
        st=pass
    fi
    [ $st = pass ] || bad=$((bad + 1))
    echo "$name $st $secs"
done
[ $bad -gt 125 ] && bad=125
exit $bad
