#!/usr/bin/env python3
"""Sweep batch 2: cases for the PTX ISA 9.0 forms that no recorded case runs (gen/sweep_coverage.py --missing).

Usage: python3 gen/gen_sweep2.py
  Writes pending/cases/sweep2/*.case and pending/ptx/sweep2/*.ptx (recorded with
  `bash gen/record-nvidia.sh OUT --root pending pending/cases/sweep2`), and gen/sweep2_batch.txt.
  Only forms ptxas accepts for sm_90 are written (the recording GPU is an H100); sm_100a-only forms are
  listed as "needs sm_100 hardware" in gen/SWEEP_COVERAGE.md.

Same case style as gen/gen_issue18.py's differential sweep (its mcase): lane i loads A[i], B[i], C[i], runs
every op of the case and stores op k's result at (k*n + i)*slot; inputs are special values (zeros,
subnormals, infinities, NaNs with payloads, extremes, integer edges) crossed, plus seeded random values;
one output buffer compared bit for bit (`exact`), except the slots of .approx ops (ISA bound, doubled).
Deterministic: random values come from random.Random streams named per value kind.
"""
import os
import re
import sys
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_issue18 as g18  # noqa: E402
import sweep_coverage  # noqa: E402
import sweep_forms  # noqa: E402

FAM = "sweep2"
PEND = os.path.join(os.path.dirname(HERE), "pending")
MAX_OPS = 64  # ops per case: keeps each PTX module and output buffer moderate


def int_vals(w, tag):
    e = g18.int_edges(w)
    r = g18.rng(f"s2{tag}{w}")
    e = e + [0x80808080 & ((1 << w) - 1), 0x7f7f7f7f & ((1 << w) - 1), 0x01ff7f80 & ((1 << w) - 1),
             0xff00ff00 & ((1 << w) - 1), 0x00010001 & ((1 << w) - 1)]
    e = sorted(set(e))
    vals = [(a, b, r.choice(e)) for a, b in g18.cross2(e, e)]
    vals += [(r.getrandbits(64), r.getrandbits(64), r.getrandbits(64)) for _ in range(128)]
    # small shift / position / length operands for the video and bit-field forms
    vals += [(r.getrandbits(64), r.randint(0, 40), r.randint(0, 40)) for _ in range(64)]
    return vals


def float_vals(fmt, tag):
    base = fmt.replace("x2", "")
    v = g18.fvals2(base, f"s2{tag}{fmt}", nrand=48, names=g18.CMP_NAMES + ["snan", "dmax", "big", "tiny"])
    if fmt.endswith("x2"):  # packed: A = {hi: b, lo: a}, B = {hi: c, lo: b}, C = {hi: a, lo: c}
        v = [(g18.pack2(a, b), g18.pack2(b, c), g18.pack2(c, a)) for a, b, c in v]
    return v


def cvt_vals(src):
    r = g18.rng(f"s2cvt{src}")
    if src in sweep_forms.FT:
        sp = g18.specials(src)
        lo, hi = {"f16": (-14, 15), "bf16": (-40, 70), "f32": (-40, 70), "f64": (-80, 70)}[src]
        v = sp + [g18.rand_float(src, r, lo, hi) for _ in range(160)]
    else:
        w = int(src[1:])
        v = g18.int_edges(w) + [(1 << k) + d for k in range(1, w) for d in (-1, 1) if (1 << k) + d < (1 << w)]
        v += [r.getrandbits(w) for _ in range(96)]
        if w == 8:
            v = list(range(256)) + [0xff00 | x for x in (0, 1, 0x7f, 0x80, 0xff)]
    return [(x, r.getrandbits(64), r.getrandbits(64)) for x in v]


def values(vk):
    if vk.startswith("cvt_"):
        return cvt_vals(vk[4:])
    if vk.startswith("i"):
        return int_vals(int(vk[1:]), "int")
    return float_vals(vk, "flt")


def slug(s):
    return re.sub(r"[^a-z0-9]+", "_", s.lower()).strip("_")


def main():
    import shutil
    for d in ["cases", "ptx"]:
        p = os.path.join(PEND, d, FAM)
        if os.path.isdir(p):
            shutil.rmtree(p)
    g18.PEND = PEND
    forms = sweep_forms.all_forms()
    sweep_coverage.OPS = {f.key.split(".")[0].split(" ")[0] for f in forms}
    sm90, _, _ = sweep_forms.classify(forms)
    covered = sweep_coverage.coverage_of(os.path.dirname(HERE))
    missing = [f for f in sm90 if not covered.get(sweep_forms.canon(f.key))]
    buckets = OrderedDict()
    for f in missing:
        buckets.setdefault((f.group, f.vk), []).append(f)
    for (grp, vk), fl in buckets.items():
        vals = values(vk)
        for part in range(0, len(fl), MAX_OPS):
            chunk = fl[part:part + MAX_OPS]
            name = f"{slug(grp)}_{vk}" + (f"_{part // MAX_OPS + 1}" if len(fl) > MAX_OPS else "")
            ops = []
            for f in chunk:
                note = "bounded: ISA bound (approx)" if ".approx" in f.key else ""
                ops.append((f.body, 64, f.ow, note) if note else (f.body, 64, f.ow))
            g18.mcase(FAM, name, ops, vals,
                      comment=f"sweep batch 2 ({grp}, inputs: {vk}): forms of PTX ISA 9.0 that no recorded case ran\n"
                              "(gen/sweep_coverage.py); results zero-extended where the op writes a narrower register;\n"
                              "setp/testp forms store predicate bits (bit0 = first, bit1 = second predicate)")
    for dp, _, fns in os.walk(os.path.join(PEND)):
        for fn in fns:
            if fn.endswith((".case", ".ptx")) and FAM in dp:
                p = os.path.join(dp, fn)
                t = open(p).read().replace("gen/gen_issue18.py", "gen/gen_sweep2.py")
                open(p, "w").write(t)
    with open(os.path.join(HERE, "sweep2_batch.txt"), "w") as f:
        f.write("# sweep batch 2 (gen/gen_sweep2.py), pending: record with "
                "`bash gen/record-nvidia.sh OUT --root pending pending/cases/sweep2`\n")
        for c in g18.CASES:
            f.write(f"tests/conformance/pending/cases/{c}.case\n")
    print(f"{len(missing)} missing sm_90 forms -> {len(g18.CASES)} cases, {g18.LANES[0]} op-lanes")


if __name__ == "__main__":
    main()
