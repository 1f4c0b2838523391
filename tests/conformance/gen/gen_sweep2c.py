#!/usr/bin/env python3
"""Sweep batch 2c: every set.<cmp>[.ftz].s32.f16 form (an f16 comparison with a 32-bit integer destination).

Usage: python3 gen/gen_sweep2c.py
  Writes pending/cases/sweep2c/*.case and pending/ptx/sweep2c/*.ptx (recorded with
  `bash gen/record-nvidia.sh OUT --root pending pending/cases/sweep2c`), then moved into the suite.

Why a batch of its own: these 28 forms shared sweep2/comparison_and_selection_f16_1 with the half-destination
set forms whose widened results the H100 does not reproduce run to run (gen/gen_sweep2b.py says why); that case
was never recorded, so the s32 forms were the sweep's last unrecorded sm_90 forms. Their destination is a whole
32-bit register (0xffffffff or 0), stored as it is. Same inputs as batch 2 (gen_sweep2.values).
"""
import os
import re
import sys
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_issue18 as g18  # noqa: E402
import gen_sweep2  # noqa: E402
import sweep_forms  # noqa: E402

FAM = "sweep2c"
PEND = os.path.join(os.path.dirname(HERE), "pending")
S32_SET = re.compile(r"^set\.[a-z]+(\.ftz)?\.s32\.f16$")


def main():
    import shutil
    for d in ["cases", "ptx"]:
        p = os.path.join(PEND, d, FAM)
        if os.path.isdir(p):
            shutil.rmtree(p)
    g18.PEND = PEND
    forms = [f for f in sweep_forms.all_forms() if S32_SET.match(f.key)]
    sm90, _, _ = sweep_forms.classify(forms)
    buckets = OrderedDict()
    for f in sm90:
        buckets.setdefault(f.vk, []).append(f)
    for vk, fl in buckets.items():
        vals = gen_sweep2.values(vk)
        for part in range(0, len(fl), gen_sweep2.MAX_OPS):
            chunk = fl[part:part + gen_sweep2.MAX_OPS]
            name = f"set_s32_result_{vk}" + (f"_{part // gen_sweep2.MAX_OPS + 1}"
                                             if len(fl) > gen_sweep2.MAX_OPS else "")
            ops = [(f.body, 64, 32) for f in chunk]
            g18.mcase(FAM, name, ops, vals,
                      comment=f"sweep batch 2c (set.<cmp>.s32.f16, inputs: {vk}): the 32-bit result stored as it\n"
                              "is; gen/gen_sweep2c.py says why")
    for dp, _, fns in os.walk(PEND):
        for fn in fns:
            if fn.endswith((".case", ".ptx")) and FAM in dp:
                p = os.path.join(dp, fn)
                t = open(p).read().replace("gen/gen_issue18.py", "gen/gen_sweep2c.py")
                open(p, "w").write(t)
    print(f"{sum(len(v) for v in buckets.values())} forms -> {len(g18.CASES)} cases, {g18.LANES[0]} op-lanes")


if __name__ == "__main__":
    main()
