#!/usr/bin/env python3
"""Fits the sparse-A layouts of mma.sp / mma.sp::ordered_metadata to the H200 recordings (no GPU needed).

Reads every recorded mma.sp case (cases/mma/mma_sp_*.case: buffers and the PTX instruction; expected/mma/*.out:
D), rebuilds the compressed A, B and C from their fragments (PTX ISA "Matrix fragments for mma.m16n8kK"; the
sparse A laid out as the dense A of K/2 columns), expands A with the metadata and checks D bit for bit against a
model written here independently of the C code (abi/mx_forms.h, cpu_mma.c):

  Sparsity works on 2:4 *units*: 16 bits for f16/bf16/tf32 (a tf32 element is two units), 8 bits for the 8-bit
  types and for pairs of 4-bit elements (the ISA's pair-wise 4:8). Chunk c (4 units) of a row has a nibble:
  idx0 (low two bits) = where stored unit 2c goes, idx1 (high two) = where 2c + 1 goes (idx0 == idx1: the
  second wins). Metadata lanes of group g (rows g, g + 8): 4 g + sel * Ku / 16 + i (Ku = units of a row).
  Where the nibble of (row r, chunk c) is, the layout this script fits:
    unit16:  lane i = c / 4, bit 16 (r / 8) + 4 (c % 4)        (rows g / g + 8 in the half-words)
    unit8:   lane i = 2 (c / 8) + r / 8, bit 4 (c % 8)         (one row per lane, eight chunks)
  CHOSEN: unit16 for 16-bit units, unit8 for 8-bit units. --search also prints the other assignments.
  Arithmetic (the dense models fitted in fit_mma.py, imported from it): integers exact (wrapped, or clamped by
  .satfinite); f16/bf16/tf32 with an f32 result one HMMA block of K; an f16 result the exact sum rounded once to
  nearest even; e4m3/e5m2 (sm_90 has no fp8 mma: converted to f16) two HMMA blocks from zero, the even chunks
  (k / 4 even: the low f16x2 halves of the compressed words) then the odd ones, then C added by an FADD to
  nearest. The products of pruned places are dropped (the sparse tensor core multiplies only stored values).

Usage: python3 gen/fit_mma_sp.py [--search] [--root DIR --expected DIR]
  --root/--expected: check other cases against other outputs, e.g. the pending cases against our CPU backend's
  (p2n-conform --record OUT --root pending pending/cases/mma; then --root pending --expected OUT).
Exit status 0 when the chosen model reproduces every recorded mma.sp value."""
import glob
import math
import os
import re
import struct
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fit_mma import EMIN, ROOT, buf_init, fval, hmma, to_f32  # noqa: E402

BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "s8": 8, "u8": 8, "s4": 4, "u4": 4, "s32": 32, "e4m3": 8,
        "e5m2": 8}


def is_int(t):
    return t[0] in "su"


def ival(t, raw):
    b = BITS[t]
    return raw - (1 << b) if t[0] == "s" and raw >> (b - 1) & 1 else raw


def elem(buf, idx, bits):
    """element idx of a little-endian packed buffer of `bits`-bit elements"""
    at = idx * bits
    return (int.from_bytes(buf[at // 8:at // 8 + max(bits // 8, 1)], "little") >> (at % 8)) & ((1 << bits) - 1)


def load(path, root=ROOT, expected=f"{ROOT}/expected"):
    name = os.path.basename(path)[:-5]
    exp = f"{expected}/mma/{name}.out"
    if not os.path.exists(exp):
        return None
    bufs, ptx = {}, ""
    for line in open(path).read().splitlines():
        t = line.split()
        if t and t[0] == "ptx":
            ptx = open(f"{root}/{t[1]}").read()
        if t and t[0] == "buffer":
            bufs[t[1]] = buf_init(t[3:], int(t[2]))
    ins = re.search(r"mma\.sp(?:::ordered_metadata)?\.sync\.aligned\.m16n8k(\d+)\.row\.col(\.satfinite)?"
                    r"\.(\w+)\.(\w+)\.(\w+)\.(\w+) .*, (\d+);", ptx)
    m = re.search(r"buffer D (\d+)\n((?:[0-9a-f]{8} .*\n)+)", open(exp).read())
    out = b"".join(bytes.fromhex(w) for ln in m.group(2).splitlines() for w in ln.split()[1:])
    K = int(ins.group(1))
    td, ta, tb, tc = ins.group(3, 4, 5, 6)
    case = dict(name=name, K=K, sat=bool(ins.group(2)), td=td, ta=ta, tb=tb, tc=tc, sel=int(ins.group(7)))
    # fragments: lane l holds its words at l * (words of the fragment) (gen_mma_sp.py)
    Kc = K // 2
    comp = [[0] * Kc for _ in range(16)]  # raw compressed A
    B = [[0] * 8 for _ in range(K)]  # raw B
    C = [[0] * 8 for _ in range(16)]
    D = [[0] * 8 for _ in range(16)]
    wa, wb = 16 * Kc * BITS[ta] // 1024, K * 8 * BITS[tb] // 1024
    for lane in range(32):
        g, tg = lane >> 2, lane & 3
        P = 32 // BITS[ta]
        for slot in range(wa * P):
            j, e = slot // P, slot % P
            comp[g + 8 * (j & 1)][tg * P + e + 4 * P * (j >> 1)] = elem(bufs["A"], lane * wa * P + slot, BITS[ta])
        P = 32 // BITS[tb]
        for slot in range(wb * P):
            j, e = slot // P, slot % P
            B[tg * P + e + 4 * P * j][g] = elem(bufs["B"], lane * wb * P + slot, BITS[tb])
        for i in range(4):
            r, c = g + 8 * (i >> 1), 2 * tg + (i & 1)
            C[r][c] = elem(bufs["C"], lane * 4 + i, BITS[tc])  # four elements per lane, f16 two per word
            D[r][c] = elem(out, lane * 4 + i, BITS[td])
    case.update(comp=comp, B=B, C=C, D=D, E=[elem(bufs["E"], lane, 32) for lane in range(32)])
    return case


def unit_bits(t):
    return 16 if BITS[t] >= 16 else 8


def nibble_at(case, layout, r, c):
    """(lane, bit) of the nibble of chunk c of row r"""
    ku = case["K"] * BITS[case["ta"]] // unit_bits(case["ta"])
    first = 4 * (r % 8) + case["sel"] * (ku // 16)
    if layout == "unit16":
        return first + c // 4, 16 * (r // 8) + 4 * (c % 4)
    return first + 2 * (c // 8) + r // 8, 4 * (c % 8)


def expand(case, layout):
    """dense raw A (16 x K) and pruned[r][k] (no stored unit went to element k)"""
    K, ta = case["K"], case["ta"]
    eb, ub = BITS[ta], unit_bits(ta)
    A, pruned = [], []
    for r in range(16):
        comp = sum(v << (i * eb) for i, v in enumerate(case["comp"][r]))  # the row as one bit string
        dense, filled = 0, set()
        for c in range(K * eb // ub // 4):
            lane, bit = nibble_at(case, layout, r, c)
            nib = case["E"][lane % 32] >> bit & 15  # (a lane past 31: an alternative that cannot be)
            for s in range(2):  # s = 1 last: with idx0 == idx1 the second stored unit wins
                du, cu = 4 * c + (nib >> (2 * s) & 3), 2 * c + s
                v = comp >> (cu * ub) & ((1 << ub) - 1)
                dense = dense & ~(((1 << ub) - 1) << (du * ub)) | v << (du * ub)
                filled.update(range(du * ub // eb, (du * ub + ub - 1) // eb + 1))
        A.append([dense >> (k * eb) & ((1 << eb) - 1) for k in range(K)])
        pruned.append([k not in filled for k in range(K)])
    return A, pruned


def to_f16_bits(v):
    """Fraction -> f16 bits, rounded once to nearest even (overflow: infinity)"""
    if v == 0:
        return 0
    s, a = (0x8000 if v < 0 else 0), abs(v)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    lsb = max(e - 10, -24)
    q, rem = divmod(a / Fraction(2) ** lsb, 1)
    q = int(q) + (rem > Fraction(1, 2) or (rem == Fraction(1, 2) and int(q) & 1))
    x = q * 2.0 ** lsb
    return s | 0x7c00 if x >= 65520 else s | struct.unpack("<H", struct.pack("<e", x))[0]


def f32_bits(x):
    return 0x7fffffff if math.isnan(x) else struct.unpack("<I", struct.pack("<f", x))[0]


def element(case, A, pruned, r, col, fp8="chunks"):
    """D[r][col] (raw bits) of the model in the docstring (fp8: the chosen split "chunks", or "halves" k < K/2
    then the rest, or "mod4" the dense form's k % 4 in {0, 1} then {2, 3})"""
    K, ta, tb, tc, td = case["K"], case["ta"], case["tb"], case["tc"], case["td"]
    craw, brow = case["C"][r][col], [case["B"][k][col] for k in range(K)]
    if is_int(ta):
        s = ival(tc, craw) + sum(ival(ta, A[r][k]) * ival(tb, brow[k]) for k in range(K))
        if case["sat"]:
            s = max(-2 ** 31, min(2 ** 31 - 1, s))
        return s & 0xffffffff
    a = [0.0 if pruned[r][k] else fval(ta, A[r][k]) for k in range(K)]
    b = [0.0 if pruned[r][k] else fval(tb, brow[k]) for k in range(K)]
    c = fval(tc, craw)
    if ta in ("e4m3", "e5m2"):
        first = {"chunks": lambda k: (k >> 2) & 1 == 0, "halves": lambda k: k < K // 2, "mod4": lambda k: k % 4 < 2}
        lo = [k for k in range(K) if first[fp8](k)]
        hi = [k for k in range(K) if not first[fp8](k)]
        acc = hmma(0.0, [a[k] for k in lo], [b[k] for k in lo], emin=EMIN[ta])
        acc = hmma(acc, [a[k] for k in hi], [b[k] for k in hi], emin=EMIN[ta])
        if math.isnan(acc) or math.isnan(c) or (math.isinf(acc) and math.isinf(c) and acc != c):
            return 0x7fffffff
        return f32_bits(acc + c if math.isinf(acc) or math.isinf(c) else to_f32(Fraction(acc) + Fraction(c), "rn"))
    if td == "f16":
        terms = [c] + [x * y for x, y in zip(a, b)]
        if not all(math.isfinite(t) for t in terms):  # not in the recorded f16 cases
            return 0x7fff
        return to_f16_bits(sum(Fraction(t) for t in terms))
    return f32_bits(hmma(c, a, b, emin=EMIN[ta]))


def mismatches(case, layout, **kw):
    A, pruned = expand(case, layout)
    return sum(element(case, A, pruned, r, col, **kw) != case["D"][r][col] for r in range(16) for col in range(8))


def chosen(t):
    return "unit16" if unit_bits(t) == 16 else "unit8"


ALTERNATIVES = [
    ("unit16 for every type (the layout before the recordings)", lambda t: "unit16", {}),
    ("unit8 for every type", lambda t: "unit8", {}),
    ("chosen, fp8 halves k < K/2 then k >= K/2", chosen, dict(fp8="halves")),
    ("chosen, fp8 as the dense form: k % 4 < 2 then the rest", chosen, dict(fp8="mod4")),
]


def main():
    root, expected = ROOT, f"{ROOT}/expected"
    if "--root" in sys.argv:  # other cases (e.g. pending/) and their outputs (e.g. our backend's, --record)
        root = sys.argv[sys.argv.index("--root") + 1]
        expected = sys.argv[sys.argv.index("--expected") + 1]
    paths = sorted(glob.glob(f"{root}/cases/mma/mma_sp_*.case"))
    cases = [c for c in (load(p, root, expected) for p in paths) if c]
    total = 0
    for c in cases:
        n = mismatches(c, chosen(c["ta"]))
        total += n
        print(f"{c['name']:52s} {n:3d} of 128 differ")
    print(f"chosen model: {total} elements differ over {len(cases)} cases")
    if "--search" in sys.argv:
        for label, pick, kw in ALTERNATIVES:
            per = [mismatches(c, pick(c["ta"]), **kw) for c in cases]
            print(f"  {label:58s} {sum(per):5d} elements, {sum(1 for p in per if p):2d} cases")
    return 0 if total == 0 and cases else 1


if __name__ == "__main__":
    sys.exit(main())
