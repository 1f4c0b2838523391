#!/usr/bin/env python3
"""Conformance cases (family mma) for mma.sp and mma.sp::ordered_metadata on sm_80+/sm_90: written to
tests/conformance/pending/{cases,ptx}/mma/ (not run until recorded on the H200; see pending/README.md); a case
already recorded in the suite (cases/mma/) is not written again, only compared with the suite's copy.
Run: python3 tests/conformance/gen/gen_mma_sp.py

One warp, one kernel k(pA, pB, pC, pE, pD) per case: lane l loads its compressed A, B and C fragment registers
from A/B/C at l * (registers of the fragment), its metadata word from E[l], and stores D the same way (the PTX
ISA fragment layouts; the sparse A is laid out as the dense A of K/2). Metadata: a random valid nibble (two
distinct positions; ::ordered_metadata and the .tf32 forms only the meaningful ones) for every chunk in the lanes
the sparsity selector names; the other lanes hold 0x44444444 ('int' cases: a valid pattern, wrong if read) or
random garbage ('rand'). Where a nibble goes (abi/mx_forms.h, fitted by gen/fit_mma_sp.py):
  16-bit units (f16, bf16, tf32): rows g and g + 8 in the half-words of one lane, 4 chunks each;
  8-bit units (8-bit types, 4-bit pairs): one row per lane, 8 chunks (T0 row g, T1 row g + 8, T2 T3 the next 8).
Round 1 (28 cases, recorded on the H200 on 2026-12-01) wrote the 16-bit layout for every type, so for the 8-bit
and 4-bit forms the hardware read nibbles from other places than intended (among them some undefined ones,
idx0 == idx1; the recordings still pinned the layout down). Round 2 (pending) writes each type's real layout.
Kinds:
  int        small integers (floating forms: every product and sum exact: layouts and metadata only);
  rand       random values (integer forms: raw random bits; .satfinite clamping included);
  rev        plain mma.sp with nibbles whose idx0 > idx1 (the stored values in reverse order);
  prunedspec one metadata pattern for all rows, and infinities / NaN in the B rows no row selects: our model
             (driver-stub/cpu/cpu_mma.c sp_dense) drops the products of pruned places, so D stays finite.
Prediction: our CPU backend's output (the dense tensor-core model of the expanded A, mx_forms.h); for fp8 the
sm_90 lowering (two HMMA over the even and the odd chunks) was fitted to the round-1 recordings."""
import os
import random
import struct

SUITE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.join(SUITE, "pending")
FAM = "mma"
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "s8": 8, "u8": 8, "s4": 4, "u4": 4, "s32": 32, "e4m3": 8,
        "e5m2": 8}
_rng = random.Random(20261202)


def wfile(rel, text):
    """writes pending/rel, unless the suite holds rel (recorded): then only says whether it differs"""
    recorded = os.path.join(SUITE, rel)
    if os.path.exists(recorded):
        if open(recorded).read() != text:
            print(f"warning: {rel} differs from the recorded copy in the suite")
        return
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def f16b(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def f32b(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def elem(t, kind):
    """one random raw element of type t"""
    b = BITS[t]
    if t[0] in "su":
        return _rng.getrandbits(b)
    if kind == "int":
        v = _rng.randrange(-2, 3)
        if t in ("e4m3", "e5m2"):
            return ([0xc0, 0xb8, 0x00, 0x38, 0x40] if t == "e4m3" else [0xc0, 0xbc, 0x00, 0x3c, 0x40])[v + 2]
        return f16b(v) if t == "f16" else f32b(v) >> 16 if t == "bf16" else f32b(v)
    if t in ("e4m3", "e5m2"):
        while True:
            x = _rng.randrange(256)
            if (x & 0x7f) != 0x7f if t == "e4m3" else (x & 0x7c) != 0x7c:
                return x
    x = _rng.uniform(-1.0, 1.0)
    return f16b(x) if t == "f16" else f32b(x) >> 16 if t == "bf16" else f32b(x)


def words_of(t, n, kind, acc=False):
    """n 32-bit words of packed random elements"""
    out = []
    for _ in range(n):
        if acc and t == "f32":
            out.append(f32b(_rng.randrange(-2, 3)) if kind == "int" else f32b(_rng.uniform(-4.0, 4.0)))
            continue
        if acc and t == "f16":
            vals = [f16b(_rng.randrange(-2, 3)) if kind == "int" else f16b(_rng.uniform(-4.0, 4.0)) for _ in range(2)]
            out.append(vals[0] | vals[1] << 16)
            continue
        w, b = 0, BITS[t]
        for e in range(32 // b):
            w |= elem(t, kind) << (e * b)
        out.append(w)
    return out


def hexwords(ws):
    return "hex " + "".join("%02x" % ((w >> (8 * i)) & 0xff) for w in ws for i in range(4))


def nibble(t, ordered, rev=False):
    if t == "tf32":
        return _rng.choice([0x4, 0xe])
    while True:
        a, b = _rng.randrange(4), _rng.randrange(4)
        if a != b and (not ordered or a < b) and (not rev or a > b):
            return b << 2 | a


def unit(t):
    return 16 if BITS[t] >= 16 else 8


def meta_word(nib, g, i, ub):
    """metadata lane 4 g + sel * Ku / 16 + i for unit bits ub (the docstring)"""
    v = 0
    for q in range(8):
        r, c = (g + 8 * (q // 4), 4 * i + q % 4) if ub == 16 else (g + 8 * (i % 2), 8 * (i // 2) + q)
        v |= nib[r][c] << (4 * q)
    return v


def case(k, td, ta, tb, tc, kind, sel, ordered=False, sat=False, round1=False):
    kc = k // 2
    wa, wb = 16 * kc * BITS[ta] // 1024, k * 8 * BITS[tb] // 1024
    wc, wd = 16 * 8 * BITS[tc] // 1024, 16 * 8 * BITS[td] // 1024
    ku = k * BITS[ta] // unit(ta)
    nb = ku // 16
    assert sel * nb < 4
    rev = kind == "rev"
    # metadata nibbles per (row, chunk); prunedspec: one pattern for all rows
    pat = [nibble(ta, ordered, rev) for _ in range(ku // 4)]
    nib = [[pat[c] if kind == "prunedspec" else nibble(ta, ordered, rev) for c in range(ku // 4)] for _ in range(16)]
    meta = [0x44444444 if kind == "int" else _rng.getrandbits(32) for _ in range(32)]
    for g in range(8):
        for i in range(nb):
            meta[4 * g + sel * nb + i] = meta_word(nib, g, i, 16 if round1 else unit(ta))
    A = words_of(ta, 32 * wa, "int" if kind == "int" else "rand")
    B = words_of(tb, 32 * wb, "int" if kind == "int" else "rand")
    C = words_of(tc, 32 * wc, "int" if kind == "int" else "rand", acc=True)
    if kind == "prunedspec":  # B[row][n] of lane 4 n + t, register j, element e: row = t P + e + 4 P j
        eb = BITS[tb]
        P = 32 // eb
        selected = set()
        for c in range(ku // 4):
            for s in range(2):
                du = 4 * c + ((pat[c] >> (2 * s)) & 3)
                for o in range(0, unit(ta), min(eb, unit(ta))):
                    selected.add((du * unit(ta) + o) // BITS[ta])
        spec = {"f16": [0x7c00, 0xfc00, 0x7e00], "bf16": [0x7f80, 0xff80, 0x7fc0],
                "tf32": [0x7f800000, 0xff800000, 0x7fc00000], "e5m2": [0x7c, 0xfc, 0x7e], "e4m3": [0x7f, 0xff]}[tb]
        for lane in range(32):
            t = lane & 3
            for j in range(wb):
                w = B[lane * wb + j]
                for e in range(P):
                    row = t * P + e + 4 * P * j
                    if row not in selected:
                        m = ((1 << eb) - 1) << (e * eb) if eb < 32 else 0xffffffff
                        w = (w & ~m & 0xffffffff) | (_rng.choice(spec) << (e * eb))
                B[lane * wb + j] = w
    sp = "::ordered_metadata" if ordered else ""
    ins = f"mma.sp{sp}.sync.aligned.m16n8k{k}.row.col{'.satfinite' if sat else ''}.{td}.{ta}.{tb}.{tc}"
    name = (f"mma_sp_m16n8k{k}_{td}_{ta}_{tb}_{tc}" + ("_sat" if sat else "") + ("_ord" if ordered else "") +
            f"_sel{sel}_{kind}")
    rty = {"f32": ".f32"}
    regs = [("a", ".b32", wa), ("b", ".b32", wb), ("c", rty.get(tc, ".b32"), wc), ("d", rty.get(td, ".b32"), wd)]
    body = (".version 8.5\n.target sm_90\n.address_size 64\n\n"
            ".visible .entry k(.param .u64 pA, .param .u64 pB, .param .u64 pC, .param .u64 pE, .param .u64 pD)\n"
            "{\n\t.reg .b64 %p<8>;\n\t.reg .b32 %l, %e;\n" +
            "".join(f"\t.reg {ty} %{n}<{c}>;\n" for n, ty, c in regs))
    for i, p in enumerate("ABCED"):
        body += f"\tld.param.u64 %p{i}, [p{p}];\n\tcvta.to.global.u64 %p{i}, %p{i};\n"
    body += "\tmov.u32 %l, %tid.x;\n"

    def ldst(op, n, ty, cnt, ptr, w):
        s = f"\tmul.wide.u32 %p5, %l, {w * 4};\n\tadd.u64 %p6, %p{ptr}, %p5;\n"
        for i in range(cnt):
            s += (f"\tld.global{ty} %{n}{i}, [%p6+{4 * i}];\n" if op == "ld" else
                  f"\tst.global{ty} [%p6+{4 * i}], %{n}{i};\n")
        return s

    body += ldst("ld", "a", ".b32", wa, 0, wa) + ldst("ld", "b", ".b32", wb, 1, wb)
    body += ldst("ld", "c", rty.get(tc, ".b32"), wc, 2, wc)
    body += "\tmul.wide.u32 %p5, %l, 4;\n\tadd.u64 %p6, %p3, %p5;\n\tld.global.b32 %e, [%p6];\n"
    vec = lambda n, c: "{" + ", ".join(f"%{n}{i}" for i in range(c)) + "}"  # noqa: E731
    body += f"\t{ins} {vec('d', wd)}, {vec('a', wa)}, {vec('b', wb)}, {vec('c', wc)}, %e, {sel};\n"
    body += ldst("st", "d", rty.get(td, ".b32"), wd, 4, wd) + "\tret;\n}\n"
    wfile(f"ptx/{FAM}/{name}.ptx", "// generated by gen/gen_mma_sp.py\n" + body)
    lines = [f"ptx ptx/{FAM}/{name}.ptx", f"buffer A {128 * wa} {hexwords(A)}", f"buffer B {128 * wb} {hexwords(B)}",
             f"buffer C {128 * wc} {hexwords(C)}", f"buffer E 128 {hexwords(meta)}", f"buffer D {128 * wd} fill cd",
             "kernel k", "grid 1 1 1", "block 32 1 1", "param ptr A", "param ptr B", "param ptr C", "param ptr E",
             "param ptr D", "output D"]
    hdr = ("# generated by gen/gen_mma_sp.py (pending: record on the H200, sm_80+)\n"
           f"# {ins}, sparsity selector {sel}: {kind} inputs (see the generator's docstring); expected = our\n"
           "# CPU backend's result (expansion of A + the dense tensor-core model)\n")
    wfile(f"cases/{FAM}/{name}.case", hdr + "\n".join(lines) + "\n")
    return name


ROUND1 = [  # recorded (cases/mma/): the 16-bit metadata layout for every type (the docstring)
    (16, "f32", "f16", "f16", "f32", "int", 0), (16, "f32", "f16", "f16", "f32", "rand", 1),
    (16, "f32", "f16", "f16", "f32", "rand", 3, True), (16, "f32", "f16", "f16", "f32", "rev", 0),
    (16, "f32", "f16", "f16", "f32", "prunedspec", 2),
    (16, "f16", "f16", "f16", "f16", "int", 2), (16, "f16", "f16", "f16", "f16", "rand", 0, True),
    (16, "f32", "bf16", "bf16", "f32", "rand", 0),
    (32, "f32", "f16", "f16", "f32", "int", 1), (32, "f32", "f16", "f16", "f32", "rand", 0, True),
    (32, "f32", "f16", "f16", "f32", "prunedspec", 0), (32, "f16", "f16", "f16", "f16", "rand", 1),
    (32, "f32", "bf16", "bf16", "f32", "rand", 0, True),
    (8, "f32", "tf32", "tf32", "f32", "int", 2), (8, "f32", "tf32", "tf32", "f32", "rand", 0),
    (16, "f32", "tf32", "tf32", "f32", "int", 0), (16, "f32", "tf32", "tf32", "f32", "rand", 1, True),
    (32, "s32", "s8", "s8", "s32", "rand", 0), (32, "s32", "u8", "s8", "s32", "rand", 1, True, True),
    (64, "s32", "s8", "u8", "s32", "rand", 0, True), (64, "s32", "u8", "u8", "s32", "rand", 0, False, True),
    (64, "s32", "s4", "s4", "s32", "rand", 1), (64, "s32", "u4", "s4", "s32", "rand", 0, True, True),
    (128, "s32", "u4", "u4", "s32", "rand", 0), (128, "s32", "s4", "u4", "s32", "rand", 0, True, True),
    (64, "f32", "e4m3", "e4m3", "f32", "int", 0), (64, "f32", "e4m3", "e5m2", "f32", "rand", 0, True),
    (64, "f32", "e5m2", "e5m2", "f32", "rand", 0),
]
ROUND2 = [  # pending: the 8-bit-unit forms with each type's real metadata layout, valid nibbles everywhere read
    (32, "s32", "s8", "s8", "s32", "int", 1), (32, "s32", "u8", "u8", "s32", "rev", 0),
    (64, "s32", "u8", "s8", "s32", "rand", 0, True, True),
    (64, "s32", "u4", "u4", "s32", "int", 0), (64, "s32", "s4", "u4", "s32", "rev", 1),
    (128, "s32", "s4", "s4", "s32", "rand", 0, False, True),
    (64, "f32", "e4m3", "e4m3", "f32", "rand", 0, True), (64, "f32", "e5m2", "e4m3", "f32", "int", 0),
    (64, "f32", "e4m3", "e5m2", "f32", "prunedspec", 0), (64, "f32", "e5m2", "e5m2", "f32", "rev", 0),
]


def main():
    # one random stream in this order: the round-1 cases come out as recorded
    names = [case(*c, round1=True) for c in ROUND1] + [case(*c) for c in ROUND2]
    pending = [n for n in names if not os.path.exists(os.path.join(SUITE, "cases", FAM, n + ".case"))]
    print(f"{len(names)} mma.sp cases, {len(pending)} pending in {ROOT}")


if __name__ == "__main__":
    main()
