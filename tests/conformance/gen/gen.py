#!/usr/bin/env python3
"""Regenerates cases/ and ptx/ (the table-driven and CUDA C cases).

Usage: python3 gen/gen.py [--nvcc]   (--nvcc recompiles src/*.cu to ptx/cu/*.ptx;
without it the committed PTX is used). Expected outputs are never produced here.
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_core  # noqa: E402
import gen_ops  # noqa: E402
import gen_prog  # noqa: E402
import gen_fp8  # noqa: E402
import gen_smallops  # noqa: E402
import gen_videosat  # noqa: E402
import gen_cluster  # noqa: E402
import gen_heap  # noqa: E402
import gen_tex  # noqa: E402
import gen_mma  # noqa: E402


def main():
    root = gen_core.ROOT
    for d in ["cases"]:
        shutil.rmtree(os.path.join(root, d), ignore_errors=True)
    for fam in os.listdir(os.path.join(root, "ptx")) if os.path.isdir(os.path.join(root, "ptx")) else []:
        if fam not in ("cu", "hand"):
            shutil.rmtree(os.path.join(root, "ptx", fam), ignore_errors=True)
    gen_ops.gen_all()
    gen_prog.gen_all(nvcc="--nvcc" in sys.argv)
    gen_fp8.gen_all()
    gen_smallops.gen_all()
    gen_videosat.gen_all()
    gen_tex.gen_all()
    gen_mma.gen_all()
    gen_cluster.gen_all()
    gen_heap.gen_all()
    fams = {}
    for f, _ in gen_core.CASES:
        fams[f] = fams.get(f, 0) + 1
    for f in sorted(fams):
        print(f"{f:12s} {fams[f]}")
    print(f"total        {len(gen_core.CASES)}")


if __name__ == "__main__":
    main()
