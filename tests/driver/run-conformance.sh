#!/usr/bin/env bash
# run-conformance.sh — runs the conformance suite (tests/conformance) against OUR libcuda.so.1 and judges
# the result with a known-failures list.
#
#   run-conformance.sh HARNESS LIBCUDA_DIR SUITE_DIR KNOWN_FAILURES [-j N] [--suggest]
#
# HARNESS is p2n-conform (runs `--check SUITE_DIR/expected SUITE_DIR/cases`); LIBCUDA_DIR is put first on
# LD_LIBRARY_PATH so the harness loads ptx2native's libcuda.so.1. The harness prints `PASS name` /
# `FAIL name (reason)` per case; this script filters those lines:
#   - a failing case that is listed in KNOWN_FAILURES is expected (XFAIL), reported, not an error;
#   - a failing case that is not listed is an error (the test fails);
#   - a listed case that PASSES is reported as XPASS ("remove it from the list") and fails the test when it
#     is listed by its exact name, so the list only ever shrinks; cases matched only by a glob line
#     (e.g. `trap/*`) are counted and reported without failing;
#   - a listed name that matches no case of the suite is reported (stale entry) and fails the test.
# KNOWN_FAILURES format: one case per line, `family/name  reason...`; `#` comments; the name may be a shell
# glob (`family/*`). --suggest prints list lines for the unlisted failures (to paste after review).
set -u
if [ $# -lt 4 ]; then
    echo "usage: $0 HARNESS LIBCUDA_DIR SUITE_DIR KNOWN_FAILURES [-j N] [--suggest]" >&2
    exit 2
fi
harness=$1 libdir=$2 suite=$3 known=$4
here=$(cd "$(dirname "$0")" && pwd)
shift 4
jobs=2 suggest=0
while [ $# -gt 0 ]; do
    case $1 in
    -j) jobs=$2; shift 2 ;;
    --suggest) suggest=1; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$harness" ] || { echo "run-conformance: harness $harness not found" >&2; exit 2; }
[ -e "$libdir/libcuda.so.1" ] || { echo "run-conformance: no libcuda.so.1 in $libdir" >&2; exit 2; }
[ -f "$known" ] || { echo "run-conformance: known-failures file $known not found" >&2; exit 2; }

# CI's rotating share (scripts/test.sh, and the HIP emulator lane): P2N_SHARE=K/N runs the cases whose name
# (family/name) hashes to K mod N. A hash of the name, not the position in the sorted list: adding or removing a
# case never moves other cases between shares, so a share's known failures stay put. The N shares partition the
# suite. List lines naming cases outside the share are not judged in that run.
share=${P2N_SHARE:-0/1}
sk=${share%/*} sn=${share#*/}
if ! [[ $sk =~ ^[0-9]+$ && $sn =~ ^[0-9]+$ ]] || [ "$sn" -lt 1 ] || [ "$sk" -ge "$sn" ]; then
    echo "run-conformance: bad P2N_SHARE '$share' (want K/N with 0 <= K < N)" >&2
    exit 2
fi
declare -A selected
cases=("$suite/cases")
if [ "$sn" -gt 1 ]; then
    cases=()
    total_cases=0
    while IFS= read -r rel; do
        total_cases=$((total_cases + 1))
        [ "${rel%% *}" = "$sk" ] || continue
        rel=${rel#* }
        cases+=("$suite/cases/$rel.case")
        selected[$rel]=1
    done < <(cd "$suite/cases" && find . -name '*.case' | sed -e 's|^\./||' -e 's|\.case$||' | LC_ALL=C sort |
             LC_ALL=C "$here/share-of.sh" "$sn")
    [ "$total_cases" -gt 0 ] || { echo "run-conformance: no cases under $suite/cases for share $share" >&2; exit 2; }
    echo "share $sk of $sn (P2N_SHARE): ${#cases[@]} of $total_cases cases"
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$harness" --check "$suite/expected" -j "$jobs" --root "$suite" "${cases[@]}" >"$out" 2>&1
hrc=$?

# known-failure patterns (first word of each non-comment line)
mapfile -t patterns < <(sed -e 's/#.*//' "$known" | awk 'NF { print $1 }')

listed() { # name -> prints "exact" / "glob" / nothing
    local p
    for p in "${patterns[@]}"; do
        if [ "$p" = "$1" ]; then echo exact; return; fi
    done
    for p in "${patterns[@]}"; do
        # shellcheck disable=SC2053
        if [[ $p == *[*?[]* && $1 == $p ]]; then echo glob; return; fi
    done
}

npass=0 nfail=0 nxfail=0 nxpass=0 nxpass_glob=0 nnew=0 bad=0
declare -A seen
new_lines=()
while IFS= read -r line; do
    case $line in
    "PASS "*)
        name=${line#PASS }; name=${name%% *}
        seen[$name]=1
        npass=$((npass + 1))
        case $(listed "$name") in
        exact) echo "XPASS $name  (listed in $(basename "$known") but passes: remove the line)"; nxpass=$((nxpass + 1)); bad=1 ;;
        glob) nxpass_glob=$((nxpass_glob + 1)) ;;
        esac ;;
    "FAIL "*)
        name=${line#FAIL }; name=${name%% *}
        seen[$name]=1
        nfail=$((nfail + 1))
        if [ -n "$(listed "$name")" ]; then
            nxfail=$((nxfail + 1))
            echo "XFAIL ${line#FAIL }"
        else
            nnew=$((nnew + 1))
            echo "FAIL  ${line#FAIL }   <- not in $(basename "$known")"
            new_lines+=("$name  ${line#FAIL $name }")
            bad=1
        fi ;;
    esac
done <"$out"

for p in "${patterns[@]}"; do
    if [ "$sn" -gt 1 ] && [ -z "${selected[$p]+x}" ]; then
        [ -f "$suite/cases/$p.case" ] && continue   # outside this share
    fi
    if [[ $p != *[*?[]* ]] && [ -z "${seen[$p]+x}" ]; then
        echo "STALE $p  (listed in $(basename "$known") but no such case ran)"
        bad=1
    fi
done

total=$((npass + nfail))
echo "conformance.cpu: $total cases: $npass passed, $nfail failed ($nxfail known, $nnew new), $nxpass listed-but-passing"
[ $nxpass_glob -gt 0 ] && echo "note: $nxpass_glob passing cases are covered only by glob lines of $(basename "$known"); narrow the globs"
if [ $total -eq 0 ]; then
    echo "run-conformance: the harness ran no case (exit $hrc); its output:" >&2
    cat "$out" >&2
    exit 1
fi
if [ $suggest -eq 1 ] && [ ${#new_lines[@]} -gt 0 ]; then
    echo "--- lines for $(basename "$known") (review before adding) ---"
    printf '%s\n' "${new_lines[@]}"
fi
exit $bad
