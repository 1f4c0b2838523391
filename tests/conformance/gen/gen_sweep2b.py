#!/usr/bin/env python3
"""Sweep batch 2b: every set.<cmp>[.ftz].{f16,bf16}.<type> form (a half-precision destination), its 16-bit result
stored with st.global.b16.

Usage: python3 gen/gen_sweep2b.py
  Writes pending/cases/sweep2b/*.case and pending/ptx/sweep2b/*.ptx (recorded with
  `bash gen/record-nvidia.sh OUT --root pending pending/cases/sweep2b`), then moved into the suite.

Why a batch of its own: batch 2 widened these results to its 32-bit slots with `cvt.u32.u16`, and on the H100 the
upper 16 bits of that widening came out as whatever the set left in the other half of its 32-bit register
(0x3f803f80, 0xffff0000, lane-dependent, not even the same run to run: sweep2/comparison_and_selection_f16_1 was
never recorded). Storing the 16-bit register itself keeps exactly the bits the PTX ISA defines (1.0 or 0 in the
destination's format); the slot is 2 bytes. Same inputs as batch 2 (gen_sweep2.values).
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

FAM = "sweep2b"
PEND = os.path.join(os.path.dirname(HERE), "pending")
HALF_SET = r"^set\.[a-z]+(\.ftz)?\.(f16|bf16)\."


def write_batch(fam, pattern, make_op, stem, comment):
    """Writes pending/{cases,ptx}/<fam>/: the sm_90 forms whose key matches `pattern`, bucketed by input kind, up
    to gen_sweep2.MAX_OPS per case named <stem>_<vk>[_<part>]; make_op(form) gives the case op; comment(vk) the
    case's header. Shared by batches 2b and 2c."""
    import shutil
    for d in ["cases", "ptx"]:
        p = os.path.join(PEND, d, fam)
        if os.path.isdir(p):
            shutil.rmtree(p)
    g18.PEND = PEND
    forms = [f for f in sweep_forms.all_forms() if re.match(pattern, f.key)]
    sm90, _, _ = sweep_forms.classify(forms)
    buckets = OrderedDict()
    for f in sm90:
        buckets.setdefault(f.vk, []).append(f)
    for vk, fl in buckets.items():
        vals = gen_sweep2.values(vk)
        for part in range(0, len(fl), gen_sweep2.MAX_OPS):
            chunk = fl[part:part + gen_sweep2.MAX_OPS]
            name = f"{stem}_{vk}" + (f"_{part // gen_sweep2.MAX_OPS + 1}" if len(fl) > gen_sweep2.MAX_OPS else "")
            g18.mcase(fam, name, [make_op(f) for f in chunk], vals, comment=comment(vk))
    generator = f"gen/gen_{fam}.py"
    for dp, _, fns in os.walk(PEND):
        for fn in fns:
            if fn.endswith((".case", ".ptx")) and fam in dp:
                p = os.path.join(dp, fn)
                t = open(p).read().replace("gen/gen_issue18.py", generator)
                open(p, "w").write(t)
    print(f"{sum(len(v) for v in buckets.values())} forms -> {len(g18.CASES)} cases, {g18.LANES[0]} op-lanes")


def main():
    widen = sweep_forms.EXT32[16]

    def op(f):
        assert f.body.endswith(widen), f.key
        return (f.body[:-len(widen)] + "mov.b16 {d}, %h1;", 64, 16)

    write_batch(FAM, HALF_SET, op, "set_half_result",
                lambda vk: f"sweep batch 2b (set with a half-precision destination, inputs: {vk}): the 16-bit\n"
                           "result stored as it is (st.global.b16, 2-byte slots); gen/gen_sweep2b.py says why")


if __name__ == "__main__":
    main()
