#!/usr/bin/env bash
# run_case.sh TOOL FBTEST WORKDIR DIRECTIVE... — one fatbin test case.
# Directives, applied in order (the first failing one fails the test):
#   file=PATH            input; runs `list` (must exit 0) into WORKDIR/list.txt
#   count=REGEX#N        exactly N lines of the list output match the extended regex
#   ptx=ARCH:REF[,REF]   every extracted *.ARCH.ptx equals one REF (modulo comment blanking), each REF used
#   roundtrip            library rewrite (test compiler) -> verify -> idempotent -> strip == input; then CLI
#                        verify + CLI strip give the input back byte for byte
#   run                  the rewritten executable still runs (exit 0; no GPU needed)
#   payload=TEXT         the rewritten file contains TEXT (what the test compiler saw)
#   lld / relr           the input was linked by lld / has .relr.dyn
#   binutils-strip       replace the input by `strip`ped copy (no .symtab)
#   rewrite-refused      archives are reported as skipped and produce no output
#   unsupported          a target the compiler cannot build: exit 1, per-module message, no output
#   batch=DIR            directory mode, -j 2, cache, JSON report
#   corrupt=MODE         damaged container: list exits 1 naming section and offset
#   corrupt-extract=MODE damaged payload: list ok, extract exits 1 naming section and offset
#   truncate             truncated input: exit 1 with an offset
#   garbage=PATH         non-ELF input: exit 1 with an offset
#   fuzz=N               random damage, no crash
#   help                 --help / --version / usage errors
#   cudalibs=DIR         `list` over every DIR/lib*.so* without an error
set -u
TOOL=$1 FBTEST=$2 W=$3
shift 3
rm -rf "$W"
mkdir -p "$W"
F=""
fail() { echo "FAIL: $*" >&2; exit 1; }
need_file() { [ -f "$1" ] || fail "missing input $1 (were the nvcc test inputs built? see fatbin.build_inputs)"; }

for d in "$@"; do
  case "$d" in
  file=*)
    F=${d#file=}
    need_file "$F"
    "$TOOL" list "$F" >"$W/list.txt" 2>"$W/list.err" || { cat "$W/list.err" >&2; fail "list $F exited $?"; }
    "$TOOL" list --json "$F" >"$W/list.json" 2>/dev/null || fail "list --json $F"
    if command -v jq >/dev/null 2>&1; then jq . "$W/list.json" >/dev/null || fail "list --json is not valid JSON"; fi
    ;;
  count=*)
    spec=${d#count=}
    re=${spec%#*}
    want=${spec##*#}
    got=$(grep -cE -- "$re" "$W/list.txt")
    [ "$got" = "$want" ] || { cat "$W/list.txt" >&2; fail "expected $want lines matching '$re', got $got"; }
    ;;
  ptx=*)
    spec=${d#ptx=}
    arch=${spec%%:*}
    IFS=, read -r -a refs <<<"${spec#*:}"
    rm -rf "$W/extract"
    "$TOOL" extract "$F" -o "$W/extract" || fail "extract exited $?"
    declare -A used=()
    n=0
    for x in "$W"/extract/*."$arch".ptx; do
      [ -f "$x" ] || fail "no extracted $arch PTX"
      n=$((n + 1))
      ok=0
      for r in "${refs[@]}"; do
        need_file "$r"
        if "$FBTEST" ptxcmp "$x" "$r" 2>/dev/null; then ok=1; used[$r]=1; break; fi
      done
      [ $ok = 1 ] || { "$FBTEST" ptxcmp "$x" "${refs[0]}"; fail "$x matches none of ${refs[*]}"; }
    done
    for r in "${refs[@]}"; do [ -n "${used[$r]:-}" ] || fail "no extracted $arch PTX matches $r"; done
    echo "ptx $arch: $n extracted files match nvcc -ptx"
    unset used
    ;;
  roundtrip)
    "$FBTEST" roundtrip "$F" "$W" || fail "library round trip"
    "$TOOL" verify --ignore-build-id "$W/rewritten" || fail "CLI verify of the rewritten file"
    "$TOOL" list "$W/rewritten" | head -1 | grep -q "has .p2n_native" || fail "list does not see .p2n_native"
    readelf -SW "$W/rewritten" 2>"$W/readelf.err" | grep -q '\.p2n_native' || fail "readelf does not see .p2n_native"
    [ ! -s "$W/readelf.err" ] || { cat "$W/readelf.err" >&2; fail "readelf complains about the rewritten file"; }
    "$TOOL" strip "$W/rewritten" -o "$W/stripped" || fail "CLI strip"
    cmp "$F" "$W/stripped" || fail "strip did not restore the input byte for byte"
    cp "$W/rewritten" "$W/inplace"
    "$TOOL" strip "$W/inplace" || fail "CLI strip in place"
    cmp "$F" "$W/inplace" || fail "in-place strip did not restore the input"
    [ "$(stat -c %a "$W/inplace")" = "$(stat -c %a "$W/rewritten")" ] || fail "strip changed the file mode"
    "$TOOL" strip "$W/inplace" 2>/dev/null && fail "strip of a file without .p2n_native must fail"
    echo "round trip ok"
    ;;
  run)
    chmod +x "$W/rewritten"
    "$W/rewritten" >"$W/run.out" 2>&1 || { cat "$W/run.out" >&2; fail "rewritten executable exited $?"; }
    ;;
  payload=*)
    grep -aq -- "${d#payload=}" "$W/rewritten" || fail "payload does not contain '${d#payload=}'"
    ;;
  lld)
    readelf -p .comment "$F" | grep -q LLD || fail "$F was not linked by lld"
    ;;
  relr)
    readelf -SW "$F" | grep -q '\.relr\.dyn' || fail "$F has no .relr.dyn"
    ;;
  binutils-strip)
    strip -o "$W/input.stripped" "$F" || fail "binutils strip"
    F="$W/input.stripped"
    readelf -SW "$F" | grep -q '\.symtab' && fail "strip left .symtab"
    "$TOOL" list "$F" >"$W/list.txt" || fail "list of stripped input"
    ;;
  rewrite-refused)
    "$TOOL" rewrite "$F" --offload-arch=host --no-cache -o "$W/out" --report="$W/report.json" || fail "rewrite of an archive should skip (exit 0)"
    [ ! -e "$W/out" ] || fail "rewrite of an archive wrote output"
    grep -q '"status": "skipped"' "$W/report.json" || fail "archive not reported as skipped"
    ;;
  unsupported)
    rc=0
    "$TOOL" rewrite "$F" --offload-arch=p2n-no-such-target --no-cache -o "$W/out" 2>"$W/err.txt" || rc=$?
    cat "$W/err.txt"
    [ $rc = 1 ] || fail "expected exit 1, got $rc"
    [ ! -e "$W/out" ] || fail "output written although compilation failed"
    grep -q "container 1 (section .nv_fatbin, offset 0x[0-9a-f]*): sm_80 PTX -> p2n-no-such-target" "$W/err.txt" ||
      fail "no per-module message"
    grep -q "no output written" "$W/err.txt" || fail "no summary message"
    ;;
  batch=*)
    src=${d#batch=}
    mkdir -p "$W/in/sub"
    for x in default.exe libshared.so libarchive.a; do need_file "$src/$x"; done
    cp "$src/default.exe" "$src/libshared.so" "$W/in/"
    cp "$src/libarchive.a" "$W/in/sub/"
    echo "not elf" >"$W/in/readme.txt"
    rc=0
    "$TOOL" rewrite "$W/in" --offload-arch=host,gfx942 -j 2 --cache-dir "$W/cache" --report="$W/report.json" \
      -o "$W/out" >"$W/out.txt" 2>&1 || rc=$?
    cat "$W/out.txt"
    [ $rc = 0 ] || [ $rc = 1 ] || fail "batch exit $rc"
    [ -f "$W/report.json" ] || fail "no report"
    if command -v jq >/dev/null 2>&1; then
      jq . "$W/report.json" >/dev/null || fail "report is not valid JSON"
      [ "$(jq '.files | length' "$W/report.json")" = 3 ] || fail "report should list 3 files"
      [ "$(jq -r '.files[] | select(.file | endswith("libarchive.a")) | .status' "$W/report.json")" = skipped ] ||
        fail "archive not skipped"
      jq -r '.files[] | select(.status == "compiled") | .output' "$W/report.json" | while read -r o; do
        "$TOOL" verify "$o" || exit 1
      done || fail "a compiled output does not verify"
      jq -r '.files[] | select(.status == "failed") | .file' "$W/report.json" | while read -r i; do
        [ ! -e "$W/out/$(basename "$i")" ] || exit 1
      done || fail "output written for a failed file"
    fi
    grep -q '"status": "skipped"' "$W/report.json" || fail "nothing skipped"
    ;;
  corrupt=*)
    "$FBTEST" corrupt "$F" "$W/bad" "${d#corrupt=}" || fail "could not make the damaged file"
    rc=0
    "$TOOL" list "$W/bad" >/dev/null 2>"$W/err.txt" || rc=$?
    cat "$W/err.txt"
    [ $rc = 1 ] || fail "expected exit 1, got $rc"
    grep -q "section .nv_fatbin: offset 0x[0-9a-f]" "$W/err.txt" || fail "error does not name section and offset"
    grep -q "$W/bad" "$W/err.txt" || fail "error does not name the file"
    ;;
  corrupt-extract=*)
    "$FBTEST" corrupt "$F" "$W/bad" "${d#corrupt-extract=}" || fail "could not make the damaged file"
    "$TOOL" list "$W/bad" >/dev/null || fail "list should not decode payloads"
    rc=0
    "$TOOL" extract "$W/bad" -o "$W/x" 2>"$W/err.txt" || rc=$?
    cat "$W/err.txt"
    [ $rc = 1 ] || fail "expected exit 1, got $rc"
    grep -q "section .nv_fatbin: offset 0x[0-9a-f]" "$W/err.txt" || fail "error does not name section and offset"
    ;;
  truncate)
    size=$(stat -c %s "$F")
    off=$(grep -m1 -o 'section=.nv_fatbin offset=0x[0-9a-f]*' "$W/list.txt" | sed 's/.*offset=//')
    for cut in 10 63 100 1000 $((off + 40)) $((size / 2)) $((size - 100)) $((size - 1)); do
      head -c "$cut" "$F" >"$W/trunc"
      rc=0
      "$TOOL" list "$W/trunc" >/dev/null 2>"$W/err.txt" || rc=$?
      [ $rc = 1 ] || fail "truncated at $cut: expected exit 1, got $rc"
      grep -q "offset 0x" "$W/err.txt" || { cat "$W/err.txt"; fail "truncated at $cut: no offset in the error"; }
      echo "cut $cut: $(cat "$W/err.txt")"
    done
    ;;
  garbage=*)
    F=${d#garbage=}
    rc=0
    "$TOOL" list "$F" 2>"$W/err.txt" || rc=$?
    [ $rc = 1 ] && grep -q "offset 0x0: not an ELF" "$W/err.txt" || fail "garbage input: rc $rc, $(cat "$W/err.txt")"
    ;;
  fuzz=*)
    "$FBTEST" fuzz "$F" "${d#fuzz=}" || fail "fuzz"
    ;;
  help)
    "$TOOL" --help | grep -q "^usage: ptx2native-fatbin" || fail "--help"
    "$TOOL" --version | grep -q "^ptx2native-fatbin " || fail "--version"
    "$TOOL" list --help | grep -q usage || fail "list --help"
    rc=0; "$TOOL" frobnicate 2>/dev/null || rc=$?; [ $rc = 1 ] || fail "unknown command: rc $rc"
    rc=0; "$TOOL" list 2>/dev/null || rc=$?; [ $rc = 1 ] || fail "list without file: rc $rc"
    rc=0; "$TOOL" list /nonexistent/file 2>/dev/null || rc=$?; [ $rc = 1 ] || fail "missing file: rc $rc"
    rc=0; "$TOOL" rewrite x --offload-arch=host 2>/dev/null || rc=$?; [ $rc = 1 ] || fail "rewrite without -o: rc $rc"
    ;;
  cudalibs=*)
    dir=${d#cudalibs=}
    shopt -s nullglob
    libs=("$dir"/lib*.so*)
    if [ ${#libs[@]} = 0 ]; then echo "no lib*.so* in $dir: nothing to check"; exit 0; fi
    rc=0
    "$TOOL" list "${libs[@]}" >"$W/list.txt" 2>"$W/err.txt" || rc=$?
    grep "error" "$W/err.txt" >&2
    [ $rc = 0 ] || fail "list over ${#libs[@]} libraries exited $rc"
    ! grep -q error "$W/err.txt" || fail "errors reported"
    echo "${#libs[@]} libraries, $(grep -c '^  container ' "$W/list.txt") containers, $(grep -c '^    entry ' "$W/list.txt") entries, 0 errors"
    ;;
  *) fail "unknown directive $d" ;;
  esac
done
echo PASS
