#!/usr/bin/env python3
# gep_experiment.py IN.ll OUT.ll — the experiment behind RESULTS.md finding 1 (not part of the benchmark):
# rewrites our SPIR-V-bound LLVM IR (ptx2native --offload-arch=spirv64 --emit=llvm) so that every i64 kernel
# parameter is turned into a pointer once (inttoptr at entry) and `add i64 P, off` / `inttoptr` on it become
# GEPs. Loop phis are not rewritten. Then: llc-22 -O2 -mtriple=spirv64v1.4-unknown-unknown -filetype=obj OUT.ll
# -o gep.spv; P2N_BENCH_META=out/kernels.spv out/bench gep.spv kernels.cl.
# experiment: pointer arithmetic on pointers (one inttoptr per i64 pointer argument) instead of inttoptr(add i64)
import re, sys
out = []
P = set()
for line in open(sys.argv[1]):
    m = re.match(r"define spir_kernel void @\w+\((.*)\)", line)
    if m:
        P = set()
        args = [a.strip() for a in m.group(1).split(",")]
        out.append(line)
        pend = [a.split()[-1] for a in args if a.startswith("i64 ")]
        continue
    if line.startswith("entry:") and P == set() and 'pend' in dir():
        out.append(line)
        for a in pend:
            out.append("  %%p_%s = inttoptr i64 %s to ptr addrspace(4)\n" % (a[1:], a)); P.add(a)
        pend = []
        continue
    m = re.match(r"\s+(%\w+) = add (?:nsw |nuw )*i64 (%\w+), (%\w+)", line)
    if m:
        x, a, b = m.groups()
        if b in P and a not in P: a, b = b, a
        if a in P:
            out.append(line)
            out.append("  %%p_%s = getelementptr i8, ptr addrspace(4) %%p_%s, i64 %s\n" % (x[1:], a[1:], b)); P.add(x)
            continue
    m = re.match(r"\s+(%\w+) = inttoptr i64 (%\w+) to ptr addrspace\(4\)", line)
    if m and m.group(2) in P:
        out.append("  %s = getelementptr i8, ptr addrspace(4) %%p_%s, i64 0\n" % (m.group(1), m.group(2)[1:]))
        continue
    out.append(line)
open(sys.argv[2], "w").writelines(out)
