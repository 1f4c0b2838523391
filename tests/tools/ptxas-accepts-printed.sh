#!/usr/bin/env bash
# ptxas-accepts-printed.sh COMPILER PTXAS DIR — prints each nvcc-generated corpus file through our IR and
# assembles the result with ptxas for the file's own arch. rdc files (extern functions) assemble with -c.
set -u
compiler=$1; ptxas=$2; shift 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
for dir in "$@"; do for f in "$dir"/*.ptx; do
  # the arch comes from the file name (nvcc output) or a `// ptxas-arch: sm_90a` first line (handwritten)
  arch=$(sed -n 's|^// ptxas-arch: *||p' "$f" | head -1)
  [ -n "$arch" ] || arch=$(sed -E 's/.*\.(sm_[0-9]+[a-z]?)\.ptx$/\1/' <<< "$f")
  if ! "$compiler" --emit=ir "$f" -o "$tmp/p.ptx" 2>"$tmp/err"; then
    echo "FAIL $f: our front end rejected it"; cat "$tmp/err"; fail=$((fail+1)); continue
  fi
  # use the flags under which ptxas accepts the original (-c for rdc modules with extern functions)
  extra=none
  for flags in "" "-c"; do
    if "$ptxas" -arch="$arch" $flags "$f" -o "$tmp/o.cubin" 2>/dev/null; then extra=$flags; break; fi
  done
  if [ "$extra" = none ]; then echo "FAIL $f: ptxas rejects the original"; fail=$((fail+1)); continue; fi
  if "$ptxas" -arch="$arch" $extra "$tmp/p.ptx" -o "$tmp/p.cubin" 2>"$tmp/err"; then pass=$((pass+1))
  else echo "FAIL $f: ptxas rejected the printed IR:"; head -5 "$tmp/err"; fail=$((fail+1)); fi
done; done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
