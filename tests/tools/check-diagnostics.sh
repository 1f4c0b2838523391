#!/usr/bin/env bash
# check-diagnostics.sh COMPILER FILE — a malformed input must give exit status 1, every diagnostic listed in the
# file's `// EXPECT: line:col: error: text` comments (or FILE's .expect sibling), and no output file.
set -u
compiler=$1; file=$2
expect_file=${file%.ptx}.expect
if [ -f "$expect_file" ]; then expects=$(sed -n 's/^EXPECT: //p' "$expect_file")
else expects=$(sed -n 's|^// EXPECT: ||p' "$file"); fi
[ -n "$expects" ] || { echo "FAIL $file: no EXPECT lines"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$compiler" --emit=ir "$file" -o "$out/out.ir" 2>"$out/stderr"
rc=$?
status=0
if [ $rc -ne 1 ]; then echo "FAIL $file: exit status $rc, expected 1"; status=1; fi
if [ -e "$out/out.ir" ]; then echo "FAIL $file: an output file was written despite errors"; status=1; fi
while IFS= read -r want; do
  # "line:col: error: text" must match at the start of a message; a position-less EXPECT matches any position
  if ! grep -qF -- "$file:$want" "$out/stderr" && ! grep -F -- "$want" "$out/stderr" | grep -q "^$file:"; then
    echo "FAIL $file: missing diagnostic '$want'"; status=1
  fi
done <<< "$expects"
if [ $status -ne 0 ]; then echo "--- diagnostics were:"; cat "$out/stderr"; fi
exit $status
