#!/usr/bin/env bash
# batch.sh TOOL CASES WORKDIR CASE — `rewrite` as operators run it (issue 17 item 5), with the real compiler
# (host target). CASES holds the nvcc-built inputs (tests/fatbin/CMakeLists.txt). CASE is one of:
#   keep_going   a target that fails: without -k nothing is written; with -k the rest is written, the report
#                lists exactly what is missing, exit 1; a file that cannot be read at all is carried over unchanged
#   tree         a directory mirrored into -o OUT (modes, links, plain files, archives, empty directories), never
#                written through a link under OUT; --in-place on a directory never writes outside it
#   progress     P2N_PROGRESS_INTERVAL=0 off a terminal: one line per file with the right counts; -q: none
#   json_escape  file names with quotes, backslashes, newlines, UTF-8, control and invalid bytes
#   dedup        identical modules in several files, and identical containers in one file, are compiled once
#                and reported with same_as
#   rdc          nvcc -rdc=true programs: the relocatable PTX is compiled linked, under the device-link container
# No timing is asserted anywhere (progress is checked with a zero interval).
set -u
TOOL=$1 C=$2 W=$3 CASE=$4
rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1
fail() { echo "FAIL ($CASE): $*" >&2; exit 1; }
need() { for f in "$@"; do [ -f "$C/$f" ] || fail "missing input $C/$f (see fatbin.build_inputs)"; done; }
command -v jq >/dev/null || { echo "SKIP: jq is needed to read the JSON report (apt-get install jq)"; exit 77; }
rw() { "$TOOL" rewrite --offload-arch=host --no-cache "$@"; }

case "$CASE" in
keep_going)
  need default.exe
  cp "$C/default.exe" app && cp app app.orig
  rc=0; rw app --offload-arch=host,p2n-no-such-target -o out.nokg 2>err.txt || rc=$?
  [ $rc = 1 ] && [ ! -e out.nokg ] || fail "without --keep-going: rc $rc (want 1) and no output"
  rc=0; rw app --offload-arch=host,p2n-no-such-target --keep-going -o out --report=r.json 2>err.txt || rc=$?
  cat err.txt
  [ $rc = 1 ] || fail "--keep-going with a failed target: rc $rc, want 1"
  cmp app app.orig || fail "input changed"
  [ -f out ] || fail "--keep-going wrote no output"
  "$TOOL" verify out || fail "the partial output does not verify (its host code must be complete)"
  [ "$(jq -r '.files[0].status' r.json)" = partial ] || fail "file status is not partial"
  [ "$(jq '.missing | length' r.json)" = 1 ] || fail "missing should list exactly 1 (container, target)"
  [ "$(jq -r '.missing[0].target' r.json)" = p2n-no-such-target ] || fail "missing names the wrong target"
  want=$(jq '[.files[0].modules[] | select(.target == "host")][0].container' r.json)
  [ "$(jq '.missing[0].container' r.json)" = "$want" ] || fail "missing names the wrong container"
  jq -e '.missing[0].diagnostic | test("unknown target")' r.json >/dev/null || fail "missing has no diagnostic"
  grep -q "1 of 2 (module, target) compilations failed" err.txt || fail "no summary on stderr"
  chmod +x out && ./out >/dev/null || fail "the partial output does not run"
  # a tree: an unreadable ELF is carried over unchanged with -k, left out without
  mkdir -p in/sub && cp app in/app && head -c 3000 app >in/sub/broken.exe && echo text >in/notes.txt
  rc=0; rw in -o tree.nokg --report=r2.json 2>/dev/null || rc=$?
  [ $rc = 1 ] && [ -f tree.nokg/app ] && [ ! -e tree.nokg/sub/broken.exe ] || fail "tree without -k: rc $rc"
  rc=0; rw in -k -o tree --report=r3.json 2>err.txt || rc=$?
  [ $rc = 1 ] || fail "tree with -k and a broken file: rc $rc, want 1"
  cmp in/sub/broken.exe tree/sub/broken.exe || fail "broken file not carried over unchanged"
  "$TOOL" verify tree/app >/dev/null || fail "good file not rewritten"
  [ "$(jq '.missing | length' r3.json)" = 1 ] && [ "$(jq '.missing[0].container' r3.json)" = null ] ||
    fail "missing should list the broken file as a whole"
  [ "$(jq -r '.files[] | select(.status == "failed") | .unchanged' r3.json)" = true ] || fail "unchanged not reported"
  [ "$(jq '.failed' r3.json)" = 1 ] && [ "$(jq '.compiled' r3.json)" = 1 ] || fail "counts"
  echo "keep_going: 11 checks ok"
  ;;
tree)
  need default.exe libshared.so libarchive.a rdc.exe
  mkdir -p in/bin in/lib in/share/doc in/etc in/empty in/sub elsewhere
  cp "$C/default.exe" in/bin/app && chmod 750 in/bin/app
  cp "$C/libshared.so" in/lib/libshared.so.1 && chmod 644 in/lib/libshared.so.1
  cp "$C/libarchive.a" in/sub/ && cp "$C/rdc.exe" in/bin/rdc
  ln -s libshared.so.1 in/lib/libshared.so
  ln -s "$W/in/lib/libshared.so.1" in/lib/abs.so
  ln -s /etc/hostname in/etc/outside.txt
  ln -s lib in/linkdir
  echo "read me" >in/share/doc/README && chmod 600 in/share/doc/README
  chmod 750 in/empty
  shape() { (cd "$1" && find . -mindepth 1 -printf '%y %m %p\n' | LC_ALL=C sort); }
  rc=0; rw in -j 2 -o out --report=r.json >log.txt 2>&1 || rc=$?
  cat log.txt
  [ $rc = 0 ] || fail "rewrite of the tree: rc $rc"
  diff <(shape in) <(shape out) || fail "the output tree does not mirror the input (types, modes, names)"
  [ "$(readlink out/lib/libshared.so)" = libshared.so.1 ] || fail "relative link target changed"
  [ "$(readlink -f out/lib/abs.so)" = "$(readlink -f out/lib/libshared.so.1)" ] ||
    fail "absolute link into the tree does not point into the output tree: $(readlink out/lib/abs.so)"
  [ "$(readlink out/etc/outside.txt)" = /etc/hostname ] || fail "link out of the tree not kept as it is"
  [ "$(readlink out/linkdir)" = lib ] || fail "directory link not recreated"
  cmp in/share/doc/README out/share/doc/README && cmp in/sub/libarchive.a out/sub/libarchive.a ||
    fail "files without (compilable) fatbins not copied unchanged"
  "$TOOL" verify out/bin/app out/lib/libshared.so.1 out/bin/rdc >/dev/null || fail "rewritten files do not verify"
  [ "$(jq '.copied' r.json)" = 2 ] && [ "$(jq '.links' r.json)" = 4 ] && [ "$(jq '.compiled' r.json)" = 3 ] ||
    fail "counts: $(jq -c '{compiled, copied, links}' r.json)"
  rw in -o out -q || fail "rewriting into an existing output tree"
  diff <(shape in) <(shape out) || fail "second run changed the shape"
  ls -A out | grep -q '\.p2n-' && fail "temporary files left behind"
  # an OUT inside the input tree is not walked into (no OUT/OUT/... on the second run); OUT = the input: refused
  cp -a in in3 && rw in3 -o in3/native -q && rw in3 -o in3/native -q || fail "OUT inside the input tree"
  [ ! -e in3/native/native ] && [ -f in3/native/bin/app ] || fail "OUT inside the input tree was walked into"
  rc=0; rw in3 -o in3 -q 2>err.txt || rc=$?
  [ $rc = 1 ] && grep -q "names this input directory itself" err.txt || fail "-o naming the input directory: rc $rc"
  # never write through a link under OUT
  mkdir -p out2 && ln -s "$W/elsewhere" out2/bin
  rc=0; rw in -o out2 2>err.txt || rc=$?
  [ $rc != 0 ] || fail "writing through out2/bin (a link) was not refused"
  grep -q "symbolic link: refusing to write through it" err.txt || fail "no message about the link"
  [ -z "$(ls -A elsewhere)" ] || fail "something was written through the link: $(ls -A elsewhere)"
  # --in-place on a directory: ELF files replaced atomically, links and files outside the tree untouched
  cp -a in inplace
  cp "$C/libshared.so" outside.so && cp outside.so outside.orig && ln -s "$W/outside.so" inplace/lib/outside.so
  rc=0; rw inplace --in-place -q || rc=$?
  [ $rc = 0 ] || fail "--in-place on a directory: rc $rc"
  "$TOOL" verify inplace/bin/app inplace/lib/libshared.so.1 >/dev/null || fail "in place: not rewritten"
  cmp outside.so outside.orig || fail "--in-place wrote through a link to a file outside the tree"
  [ -L inplace/lib/libshared.so ] && [ -L inplace/lib/outside.so ] || fail "--in-place replaced a link"
  [ "$(stat -c %a inplace/bin/app)" = 750 ] || fail "--in-place changed the mode"
  cmp in/share/doc/README inplace/share/doc/README || fail "--in-place touched a plain file"
  echo "tree: 22 checks ok"
  ;;
progress)
  need default.exe libshared.so
  mkdir in && cp "$C/default.exe" in/a && cp "$C/libshared.so" in/b && cp "$C/default.exe" in/c
  P2N_PROGRESS_INTERVAL=0 rw in -o out 2>err.txt >/dev/null || fail "rewrite rc $?"
  cat err.txt
  [ "$(grep -c '^rewrite: [0-9]/3 files, [0-9]* modules, [0-9hms]* elapsed' err.txt)" = 3 ] || fail "want 3 progress lines"
  grep -q '^rewrite: 1/3 files, 1 modules' err.txt && grep -q '^rewrite: 2/3 files, 2 modules' err.txt &&
    grep -q '^rewrite: 3/3 files, 3 modules, [0-9hms]* elapsed$' err.txt || fail "wrong counts"
  grep -q 'ETA' err.txt || fail "no ETA while files remain"
  P2N_PROGRESS_INTERVAL=0 rw in -o out2 -q 2>err2.txt >/dev/null || fail "rewrite -q rc $?"
  ! grep -q '^rewrite: ' err2.txt || fail "-q did not silence progress"
  echo "progress: 5 checks ok"
  ;;
json_escape)
  need default.exe
  mkdir in
  names=('q"uote.exe' 'back\slash.exe' $'new\nline.exe' 'ünïcödé €.exe' $'bad\xffbyte.exe' $'ctl\x01\x7f.exe')
  for n in "${names[@]}"; do cp "$C/default.exe" "in/$n"; done
  rc=0; rw in -o out --report=r.json >/dev/null 2>err.txt || rc=$?
  [ $rc = 0 ] || { cat err.txt; fail "rc $rc"; }
  jq . r.json >/dev/null || fail "the report is not valid JSON"
  python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))' r.json ||
    fail "the report is not strict UTF-8 JSON"
  for n in 'q"uote.exe' 'back\slash.exe' 'ünïcödé €.exe'; do
    [ "$(jq --arg n "/$n" '[.files[].file | select(endswith($n))] | length' r.json)" = 1 ] || fail "name $n not read back"
  done
  [ "$(jq '[.files[].file | select(endswith("/new\nline.exe"))] | length' r.json)" = 1 ] || fail "newline name"
  grep -qF 'bad\u00ffbyte.exe' r.json || fail "invalid byte not escaped as \\u00ff"
  grep -qF 'ctl\u0001\u007f.exe' r.json || fail "control characters not escaped"
  [ "$(find out -type f -printf x | wc -c)" = 6 ] || fail "want 6 outputs"
  "$TOOL" list --json in >l.json 2>/dev/null; jq . l.json >/dev/null || fail "list --json is not valid JSON"
  echo "json_escape: 10 checks ok"
  ;;
dedup)
  need default.exe libshared.so
  mkdir -p in/a in/b && cp "$C/default.exe" in/a/app && cp "$C/default.exe" in/b/app2 && cp "$C/libshared.so" in/b/
  rw in -j 2 -o out --report=r.json >/dev/null || fail "rc $?"
  [ "$(jq '.deduplicated' r.json)" = 1 ] || fail "deduplicated: $(jq .deduplicated r.json), want 1"
  same=$(jq -r '.files[] | select(.file | endswith("/b/app2")) | .modules[0].same_as.file' r.json)
  [ "$same" = in/a/app ] || fail "same_as names '$same', want in/a/app"
  [ "$(jq '[.files[] | select(.file | endswith("/a/app")) | .modules[].same_as] | map(select(. != null)) | length' r.json)" = 0 ] ||
    fail "the first copy must not be marked same_as"
  cmp out/a/app out/b/app2 || fail "identical inputs must give identical outputs"
  "$TOOL" verify out/b/app2 >/dev/null || fail "reused output does not verify"
  # with the disk cache: the reuse happens before the cache, so each distinct module misses once
  "$TOOL" rewrite --offload-arch=host --cache-dir "$W/cache" in -o out2 --report=r2.json >/dev/null || fail "rc $?"
  [ "$(jq '.cache_misses' r2.json)" = 2 ] && [ "$(jq '.deduplicated' r2.json)" = 1 ] ||
    fail "with cache: $(jq -c '{cache_misses, deduplicated}' r2.json)"
  # two identical containers in one file: one module, the second reported with same_as (libdup.so: one
  # object linked twice)
  need libdup.so
  rw "$C/libdup.so" -o dup.so --report=r3.json >/dev/null || fail "rc $?"
  [ "$(jq '.files[0].modules | length' r3.json)" = 2 ] && [ "$(jq '.deduplicated' r3.json)" = 1 ] ||
    fail "libdup.so: $(jq -c '{deduplicated, modules: .files[0].modules}' r3.json)"
  first=$(jq '.files[0].modules[0].container' r3.json)
  [ "$(jq '.files[0].modules[1].same_as.container' r3.json)" = "$first" ] || fail "libdup.so: same_as"
  "$TOOL" verify dup.so >/dev/null || fail "libdup.so: output does not verify"
  echo "dedup: 10 checks ok"
  ;;
rdc)
  need rdc.exe mixed_rdc.exe
  rc=0; rw "$C/rdc.exe" -o out.exe --report=r.json >/dev/null 2>&1 || rc=$?
  [ $rc = 0 ] || fail "rewrite of an -rdc program: rc $rc"
  # the relocatable PTX compiled linked, recorded under the device-link container: one module, nothing left to JIT
  [ "$(jq -r '.files[0].status' r.json)" = compiled ] || fail "status $(jq -r '.files[0].status' r.json)"
  [ "$(jq '.files[0].modules | length' r.json)" = 1 ] && [ "$(jq '.files[0].relocatable' r.json)" = 2 ] ||
    fail "want one module (the device link): $(jq -c '.files[0] | {modules, relocatable}' r.json)"
  [ "$(jq '.files[0].jit_at_run_time | length' r.json)" = 0 ] || fail "relocatable containers still listed as JIT"
  "$TOOL" verify out.exe >v.txt || { cat v.txt; fail "verify of the rewritten -rdc program: rc $?"; }
  grep -q '1 native entries checked.*0 containers with PTX not covered, 0 relocatable' v.txt || { cat v.txt; fail "verify"; }
  # the original is not complete as it is any more: its device link could be precompiled
  "$TOOL" verify "$C/rdc.exe" >v0.txt 2>&1 && { cat v0.txt; fail "verify of the original -rdc program passed"; }
  # a program with both: relocatable TUs (one device link) and a whole-program TU, each precompiled
  rc=0; rw "$C/mixed_rdc.exe" -o mixed.exe --report=r2.json || rc=$?
  [ $rc = 0 ] || fail "rewrite of the mixed program: rc $rc"
  [ "$(jq -r '.files[0].status' r2.json)" = compiled ] && [ "$(jq '.files[0].relocatable' r2.json)" = 2 ] &&
    [ "$(jq '.files[0].modules | length' r2.json)" = 2 ] || fail "mixed: $(jq -c '.files[0] | {status, relocatable}' r2.json)"
  "$TOOL" verify mixed.exe >v2.txt || { cat v2.txt; fail "verify of the mixed program"; }
  cat v2.txt
  grep -q '2 native entries checked.*0 containers with PTX not covered, 0 relocatable' v2.txt || fail "mixed verify"
  chmod +x mixed.exe && ./mixed.exe >/dev/null || fail "the rewritten mixed program does not run"
  echo "rdc: 12 checks ok"
  ;;
*) fail "unknown case $CASE" ;;
esac
echo PASS
