#!/bin/sh
# trap_in_place.sh PTX2NATIVE ARCH PTX — the wave reaches a lane's trap before the spin loop that follows the
# trapping region (amdgpu_trap_in_place.c, trap_in_place.ptx): the first branch to the trap block (the nearest
# label above its claim of the error record, a global_atomic_cmpswap: amdgpu_report_errors.c) must come before the
# first LDS load (the spin loop's). Before the pass it came after.
set -eu
p2n=$1 arch=$2 ptx=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$p2n" --offload-arch="$arch" --emit=asm "$ptx" -o "$out"
awk -v arch="$arch" '
    /^[.]LBB[0-9_]+:/ { label = substr($1, 1, length($1) - 1) }
    /^\tds_(load|read)_b32/ && !lds { lds = NR }
    /^\tglobal_atomic_cmpswap/ && !trap { trap = NR; trap_label = label }
    { line[NR] = $0 }
    END {
        if (!trap || !lds || trap_label == "") { print arch ": no error-record claim / LDS load / trap label found"; exit 1 }
        for (i = 1; i <= NR; i++)
            if (line[i] ~ /^\ts_(cbranch_[a-z]+|branch) / && line[i] ~ (trap_label "$")) { first = i; break }
        if (!first) { print arch ": no branch to " trap_label; exit 1 }
        if (first > lds) { print arch ": the branch to the trap (line " first ") comes after the spin loop (line " lds ")"; exit 1 }
        print arch ": trap block " trap_label " entered at line " first ", spin loop at line " lds
    }' "$out"
