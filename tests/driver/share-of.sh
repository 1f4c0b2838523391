#!/bin/sh
# share-of.sh N — reads case names (family/name, one a line) and prints "K name" for each, K = the share of N the
# name belongs to: a 31-polynomial hash of the name's bytes mod 2^31-1, then mod N. run-conformance.sh runs
# share K of N (P2N_SHARE=K/N) as the cases with this K. A hash of the name alone, so a case keeps its share
# however the suite grows; deterministic across machines (plain awk arithmetic on exact integers < 2^53, bytes
# under LC_ALL=C).
[ $# -eq 1 ] || { echo "usage: share-of.sh N < names" >&2; exit 2; }
LC_ALL=C exec awk -v n="$1" '
BEGIN { for (i = 1; i < 256; i++) code[sprintf("%c", i)] = i }
{
    h = 0
    for (i = 1; i <= length($0); i++) h = (h * 31 + code[substr($0, i, 1)]) % 2147483647
    print (h % n) " " $0
}'
