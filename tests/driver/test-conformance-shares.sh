#!/usr/bin/env bash
# test-conformance-shares.sh SUITE_DIR — checks run-conformance.sh's P2N_SHARE selection with a stand-in harness
# that passes every case it is given (no library, no kernel runs):
#   - the 4 shares of CI's scripts/test.sh partition the suite: every case runs in exactly one share, and each
#     share prints "share K of 4 (P2N_SHARE): X of Y cases" with Y the suite's size and X the cases it ran;
#   - a case's share depends on its name only (share-of.sh on a name alone gives the share it ran in), so cases
#     added to the suite never move others between shares;
#   - a malformed P2N_SHARE is refused.
set -u
suite=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "test-conformance-shares: check failed: $*"; exit 1; }

# the stand-in harness: `--check EXPECTED -j N --root ROOT CASE...` -> "PASS family/name" per case file, and
# the name appended to $work/ran (what really ran, whatever run-conformance.sh reports)
cat >"$work/harness" <<H
#!/bin/sh
while [ \$# -gt 0 ]; do
    case \$1 in
    --check|-j|--root) shift 2 ;;
    *) n=\${1#*/cases/}; echo "PASS \${n%.case}"; echo "\${n%.case}" >>"$work/ran"; shift ;;
    esac
done
H
chmod +x "$work/harness"
: >"$work/libcuda.so.1"
: >"$work/known"

(cd "$suite/cases" && find . -name '*.case' | sed -e 's|^\./||' -e 's|\.case$||' | LC_ALL=C sort) >"$work/all"
total=$(wc -l <"$work/all")
[ "$total" -gt 0 ] || fail "no cases under $suite/cases"

n=4
: >"$work/ran"
for ((k = 0; k < n; k++)); do
    out=$(P2N_SHARE=$k/$n "$here/run-conformance.sh" "$work/harness" "$work" "$suite" "$work/known" -j 1) ||
        fail "share $k/$n: run-conformance.sh failed: $out"
    line=$(grep -E "^share $k of $n \(P2N_SHARE\): [0-9]+ of $total cases$" <<<"$out") ||
        fail "share $k/$n: no 'share $k of $n (P2N_SHARE): X of $total cases' line in: $(head -3 <<<"$out")"
    x=$(sed -E 's/.*: ([0-9]+) of .*/\1/' <<<"$line")
    got=$(sed -nE 's/^conformance\.cpu: ([0-9]+) cases:.*/\1/p' <<<"$out")
    [ "$got" = "$x" ] || fail "share $k/$n announces $x cases, the harness ran $got"
done
dup=$(LC_ALL=C sort "$work/ran" | uniq -d | head -3)
[ -z "$dup" ] || fail "N=$n: cases in more than one share: $dup"
LC_ALL=C sort "$work/ran" | cmp -s - "$work/all" || fail "N=$n: the shares do not cover the suite"

# the share of a name is a function of the name alone: pinned for one name, alone and after another, so a change
# of the hash (which moves every share's known failures) is a deliberate one
[ "$(echo 'bits/bfind_shiftamt_u32' | "$here/share-of.sh" 40)" = "0 bits/bfind_shiftamt_u32" ] ||
    fail "share-of.sh 40: bits/bfind_shiftamt_u32 is no longer in share 0"
[ "$(printf 'a/new_case\nbits/bfind_shiftamt_u32\n' | "$here/share-of.sh" 40 | tail -1)" = "0 bits/bfind_shiftamt_u32" ] ||
    fail "share-of.sh 40: another name changed the share of bits/bfind_shiftamt_u32"

P2N_SHARE=4/4 "$here/run-conformance.sh" "$work/harness" "$work" "$suite" "$work/known" >/dev/null 2>&1 &&
    fail "P2N_SHARE=4/4 accepted"
echo "test-conformance-shares: all checks passed ($total cases in 4 shares)"
