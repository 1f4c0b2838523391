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
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_sweep2b  # noqa: E402

FAM = "sweep2c"
S32_SET = r"^set\.[a-z]+(\.ftz)?\.s32\.f16$"


def main():
    gen_sweep2b.write_batch(FAM, S32_SET, lambda f: (f.body, 64, 32), "set_s32_result",
                            lambda vk: f"sweep batch 2c (set.<cmp>.s32.f16, inputs: {vk}): the 32-bit result stored "
                                       "as it\nis; gen/gen_sweep2c.py says why")


if __name__ == "__main__":
    main()
