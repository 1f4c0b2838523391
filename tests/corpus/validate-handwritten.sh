#!/usr/bin/env bash
# Assemble every tests/corpus/handwritten/*.ptx with ptxas, using the arch named on the file's
# first line ("// ptxas-arch: sm_XX[a]"). Exits non-zero if any file is rejected or lacks the header.
# Usage: tests/corpus/validate-handwritten.sh [path/to/ptxas]
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PTXAS="${1:-${PTXAS:-/usr/local/cuda/bin/ptxas}}"
if [ ! -x "$PTXAS" ] && ! command -v "$PTXAS" >/dev/null 2>&1; then
  echo "ptxas not found: $PTXAS" >&2
  exit 2
fi
fail=0
n=0
for f in "$here"/handwritten/*.ptx; do
  n=$((n + 1))
  arch="$(head -n 1 "$f" | sed -n 's@^// *ptxas-arch: *\(sm_[0-9]*[a-z]*\).*@\1@p')"
  if [ -z "$arch" ]; then
    echo "FAIL $(basename "$f"): missing '// ptxas-arch: sm_XX' first line" >&2
    fail=1
    continue
  fi
  if out="$("$PTXAS" -arch="$arch" "$f" -o /dev/null 2>&1)"; then
    echo "ok   $(basename "$f") ($arch)"
  else
    echo "FAIL $(basename "$f") ($arch)" >&2
    printf '%s\n' "$out" >&2
    fail=1
  fi
done
echo "$n files checked"
exit $fail
