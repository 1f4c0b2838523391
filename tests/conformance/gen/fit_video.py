#!/usr/bin/env python3
"""Fits models of NVIDIA's scalar video .sat forms to the H200 recordings (no GPU needed).

Reads the case inputs (cases/video/*.case, table-driven: thread i uses A[i % la], B[(i / la) % lb],
C[i / (la * lb)]) and the recorded outputs (expected/video/*.out), and checks candidate models:

  * v{add,sub,absdiff,min,max}.u32.u32.s32.sat.{min,max} d, a, b.h1, c   (10 cases)
  * vshl.{u32,s32}.{u32,s32}.u32.{clamp,wrap}.sat d, a, b               (8 cases)
  * then every recorded case of family videosat (gen/gen_videosat.py: the other signedness combinations,
    s32 .sat with .min/.max, u32 .min/.max without .sat, vshl.sat with merges and secondary operations)
    against scalar_model, the scalar semantics as targets/llvm/emit_video.c implements them

Usage: python3 gen/fit_video.py [--search]   (--search also prints the hypothesis grid that was tried).
Exit status 0 when the chosen models (those targets/llvm/emit_video.c implements) reproduce every recorded
value. See docs/nvidia-rules.md rule 20.
"""
import itertools
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
M32 = 0xffffffff
M64 = (1 << 64) - 1


def sx(x, w):
    x &= (1 << w) - 1
    return x - (1 << w) if x >> (w - 1) else x


def load(name, fam="video"):
    """[(a, b, c, d)] of one table-driven video case"""
    txt = open(f"{ROOT}/cases/{fam}/{name}.case").read().replace("\\\n", " ")
    bufs, params = {}, []
    for line in txt.splitlines():
        t = line.split()
        if not t or t[0].startswith("#"):
            continue
        if t[0] == "buffer" and t[3] == "values":
            bufs[t[1]] = [int(x, 0) & M32 for x in t[5:]]
        if t[0] == "param" and t[1] == "u32":
            params.append(int(t[2], 0))
    la, lb, n = params
    data, on = b"", False
    for line in open(f"{ROOT}/expected/{fam}/{name}.out"):
        if line.startswith("buffer d"):
            on = True
            continue
        if on:
            if not re.match(r"^[0-9a-f]{8} ", line):
                break
            for w in line.split()[1:]:
                data += bytes.fromhex(w)
    d = [int.from_bytes(data[4 * i:4 * i + 4], "little") for i in range(n)]
    rows = []
    for i in range(n):
        c = bufs["c"][i // (la * lb)] if "c" in bufs else 0
        rows.append((bufs["a"][i % la], bufs["b"][(i // la) % lb], c, d[i]))
    return rows


def prim(op, a, b):
    return {"vadd": a + b, "vsub": a - b, "vabsdiff": abs(a - b), "vmin": min(a, b), "vmax": max(a, b)}[op]


# ---- scalar .sat with a .min/.max secondary operation: hypothesis grid
PRE = {"exact": lambda t, op: t, "wrap_s32": lambda t, op: sx(t, 32), "wrap_u32": lambda t, op: t & M32,
       "wrap_s32_addsub": lambda t, op: sx(t, 32) if op in ("vadd", "vsub") else t}
SAT = {"none": lambda t: t, "clamp_u32": lambda t: max(0, min(M32, t)), "neg0_low32": lambda t: 0 if t < 0 else t & M32,
       "neg0": lambda t: max(0, t), "clamp_s32": lambda t: max(-(1 << 31), min((1 << 31) - 1, t))}
CMP = {"signed": lambda t, c: (t, c), "unsigned64": lambda t, c: (t & M64, c & M64)}
CEXT = {"zext": lambda c: c, "sext": lambda c: sx(c, 32)}
ORDER = ["sat_then_pre", "pre_then_sat"]


def minmax_model(op, op2, a, b, c, pre, sat, cmp, cext, order):
    t = prim(op, a, sx(b >> 16, 16))
    t = SAT[sat](PRE[pre](t, op)) if order == "pre_then_sat" else PRE[pre](SAT[sat](t), op)
    kt, kc = CMP[cmp](t, CEXT[cext](c))
    pick_t = kt > kc if op2 == "max" else kt < kc
    return (t if pick_t else CEXT[cext](c)) & M32


MINMAX_CHOSEN = ("wrap_s32_addsub", "neg0", "unsigned64", "zext", "sat_then_pre")


# ---- vshl.sat: the shifted value kept to W bits (read as signed), then clamped to the destination's range
def vshl_model(dt, at, mode, a, b, w):
    ta = sx(a, 32) if at == "s" else a
    sh = min(b, 32) if mode == "clamp" else b & 31
    t = sx(ta << sh, w)
    lo, hi = (-(1 << 31), (1 << 31) - 1) if dt == "s" else (0, M32)
    return max(lo, min(hi, t)) & M32


VSHL_CHOSEN = 34


# ---- the scalar model as targets/llvm/emit_video.c implements it (family videosat: every recorded case)
def sel_part(v, sel, sgn):
    if sel is None:
        return sx(v, 32) if sgn else v
    k = int(sel[1])
    w = 8 if sel[0] == "b" else 16
    x = (v >> (w * k)) & ((1 << w) - 1)
    return sx(x, w) if sgn else x


def scalar_model(text, a, b, c):
    """text: 'vop.dtype.atype.btype{.mods} %D{.sel}, %A{.sel}, %B{.sel}{, %C};' (no vset/vmad)"""
    ins, ops = text.rstrip(";").split(None, 1)
    words = ins.split(".")
    op, dt, at, bt, mods = words[0], words[1], words[2], words[3], set(words[4:])
    sels = [o.strip().split(".")[1] if "." in o else None for o in ops.split(",")]
    dsgn = dt[0] == "s"
    ta = sel_part(a, sels[1], at[0] == "s")
    shift = op in ("vshl", "vshr")
    tb = sel_part(b, sels[2], False if shift else bt[0] == "s")
    if shift:
        sh = min(tb, 32) if "clamp" in mods else tb & 31
        t = ta << sh if op == "vshl" else ta >> sh
    else:
        t = prim(op, ta, tb)
    sat = "sat" in mods
    clamp32 = (lambda v: max(-(1 << 31), min((1 << 31) - 1, v))) if dsgn else (lambda v: max(0, min(M32, v)))
    if sat and op == "vshl":  # 34-bit intermediate, full clamp, then as unsaturated
        t, sat = clamp32(sx(t, 34)), False
    if sels[0]:  # merge into byte/half of c
        w = 8 if sels[0][0] == "b" else 16
        k = int(sels[0][1])
        t32 = t & M32
        if sat and dsgn:
            t32 = max(-(1 << (w - 1)), min((1 << (w - 1)) - 1, t)) & M32
        elif sat:
            t32 = min(t32, (1 << w) - 1)
        m = ((1 << w) - 1) << (w * k)
        v = t32 << (w * k) if w == 8 else t32
        return (v & m) | (c & ~m & M32)
    if sat and dsgn:
        t = clamp32(t)
    else:
        if sat:
            t = max(0, t)
        if op in ("vadd", "vsub") or shift:
            t = sx(t, 32)
    if "add" in mods:
        t += sx(c, 32) if dsgn else c
    elif "min" in mods or "max" in mods:
        cc = sx(c, 32) if dsgn else c
        kt, kc = (t, cc) if dsgn else (t & M64, cc & M64)
        pick = kt > kc if "max" in mods else kt < kc
        t = t if pick else cc
    return t & M32


def check_family(fam):
    """every case of cases/FAM with a recording, against scalar_model; returns (cases ok, cases)"""
    ok = n = 0
    for f in sorted(os.listdir(f"{ROOT}/cases/{fam}")):
        name = f[:-5]
        if not os.path.exists(f"{ROOT}/expected/{fam}/{name}.out"):
            continue
        text = [l for l in open(f"{ROOT}/cases/{fam}/{f}") if l.startswith("# operation:")][0].split(":", 1)[1]
        rows = load(name, fam)
        bad = [r for r in rows if scalar_model(text.strip(), r[0], r[1], r[2]) != r[3]]
        n += 1
        ok += not bad
        print(f"{fam}/{name}: {len(rows) - len(bad)}/{len(rows)}")
    return ok, n


def main():
    search = "--search" in sys.argv
    ok_all = True
    mm = {(op, op2): load(f"{op}_sat_{op2}") for op in ["vadd", "vsub", "vabsdiff", "vmin", "vmax"]
          for op2 in ["min", "max"]}
    total = sum(len(r) for r in mm.values())
    if search:
        res = []
        for h in itertools.product(PRE, SAT, CMP, CEXT, ORDER):
            n = sum(minmax_model(op, op2, a, b, c, *h) == d for (op, op2), rows in mm.items() for a, b, c, d in rows)
            res.append((n, h))
        res.sort(key=lambda r: -r[0])
        for n, h in res[:8]:
            print(f"  .sat.min/max {n}/{total} {h}")
    for (op, op2), rows in mm.items():
        bad = [(a, b, c, d) for a, b, c, d in rows if minmax_model(op, op2, a, b, c, *MINMAX_CHOSEN) != d]
        print(f"{op}_sat_{op2}: {len(rows) - len(bad)}/{len(rows)}")
        ok_all &= not bad
    vs = {(dt, at, mode): load(f"vshl_{dt}{at}_{mode}_sat") for dt in "su" for at in "su" for mode in ["clamp", "wrap"]}
    if search:
        for w in [33, 34, 35, 36, 40, 64]:
            n = sum(vshl_model(*k, a, b, w) == d for k, rows in vs.items() for a, b, c, d in rows)
            print(f"  vshl.sat width {w}: {n}/{sum(len(r) for r in vs.values())}")
    for (dt, at, mode), rows in vs.items():
        bad = [r for r in rows if vshl_model(dt, at, mode, r[0], r[1], VSHL_CHOSEN) != r[3]]
        print(f"vshl_{dt}{at}_{mode}_sat: {len(rows) - len(bad)}/{len(rows)}")
        ok_all &= not bad
    ok, n = check_family("videosat")
    ok_all &= ok == n
    print("all recorded values reproduced" if ok_all else "MISMATCH")
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
