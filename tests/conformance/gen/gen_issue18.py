#!/usr/bin/env python3
"""Issue 18 cases (recorded on an NVIDIA H100, now part of the suite: writes into tests/conformance/).

Usage: python3 gen/gen_issue18.py [--nvcc]
  --nvcc recompiles src/issue18.cu to ptx/cu/issue18.ptx (nvcc -arch=sm_80 -ptx); without it the
  committed PTX is used. Rewrites the issue-18-only families (carry, bf16round, nanbits, tf32, sweep) and the
  issue 18 files in int/, mem/, warp/, ptx/hand/; gen/issue18_batch.txt lists the cases.

Two kinds of case:
  * "multi-op" table kernels (mcase): lane i loads A[i], B[i], C[i] (b64 each; 16/32-bit operands use the low
    bits), runs K operation bodies one after the other and stores op k's result at d + (k*n + i)*S
    (S = the case's slot size, the widest result; narrower results leave the slot's upper bytes 0xcd).
    The case comment lists op k -> instruction text. Every op is assembled by ptxas at generation time;
    ops that ptxas refuses (a modifier combination the ISA lacks) are dropped and named in the comment.
  * hand / nvcc PTX cases for the targeted items (isspacep.param, lanemask in divergent chains,
    .shared in .func, unsigned __int128 division).

Deterministic: every random value comes from random.Random(SEED) streams named per use.
Expected outputs are never produced here (NVIDIA recording only). Comparisons are `exact` (raw result bits,
NaN payloads included), except the slots of approximate ops (marked "bounded: ISA bound ..."), which get a
`compare d OFF LEN CMP` line with the PTX ISA's bound (ISA_BOUND below).
"""
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
PEND = os.path.dirname(HERE)  # the suite root (tests/conformance); the batch was recorded from pending/
ONLY18 = ["carry", "bf16round", "nanbits", "tf32", "sweep"]  # families made only by this generator
PTXAS = "/usr/local/cuda/bin/ptxas"
NVCC = "/usr/local/cuda/bin/nvcc"
SEED = 18
VER, TGT = "9.0", "sm_90"
CASES = []
LANES = [0]


def rng(tag):
    return random.Random(f"{SEED}:{tag}")


def wfile(rel, text):
    path = os.path.join(PEND, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def wrap(tokens, per=8):
    return " \\\n    ".join(" ".join(tokens[i:i + per]) for i in range(0, len(tokens), per))


# ---------------------------------------------------------------------------------------------------------
# value tables (raw bits)

FMT = {"f16": (5, 10), "bf16": (8, 7), "f32": (8, 23), "f64": (11, 52)}


def fbits(fmt, name, neg=False):
    e, m = FMT[fmt]
    em, mm, bias = (1 << e) - 1, (1 << m) - 1, (1 << (e - 1)) - 1
    v = {"0": 0, "inf": em << m, "qnan": (em << m) | (1 << (m - 1)), "dmin": 1, "dmax": mm, "nmin": 1 << m,
         "nmin+": (1 << m) + 1, "max": ((em - 1) << m) | mm, "one": bias << m, "1+ulp": (bias << m) + 1,
         "1-ulp": (bias << m) - 1, "two": (bias + 1) << m, "half": (bias - 1) << m,
         "three": ((bias + 1) << m) | (1 << (m - 1)), "1.5": (bias << m) | (1 << (m - 1)),
         "snan": (em << m) | 1, "qnanp": (em << m) | (1 << (m - 1)) | 0x15 if m > 6 else (em << m) | 0x41,
         "snanp": (em << m) | (mm >> 1), "qnanmax": (em << m) | mm,
         "2^m": (bias + m) << m, "2^m+1": ((bias + m + 1) << m) | 0 if False else ((bias + m) << m) | 1,
         "big": ((em - 2) << m) | (mm >> 2), "tiny": (3 << m) | (mm >> 3)}[name]
    return v | ((1 << (e + m)) if neg else 0)


SPECIAL_NAMES = ["0", "dmin", "dmax", "nmin", "nmin+", "one", "1+ulp", "1-ulp", "two", "half", "three", "1.5",
                 "max", "big", "tiny", "2^m", "2^m+1", "inf", "qnan", "snan", "qnanp", "snanp", "qnanmax"]


def specials(fmt, names=SPECIAL_NAMES):
    out = []
    for n in names:
        out.append(fbits(fmt, n))
        out.append(fbits(fmt, n, True))
    return out


CMP_NAMES = ["0", "dmin", "nmin", "one", "1+ulp", "1-ulp", "max", "inf", "qnan", "snanp", "three", "half"]
SMALL_NAMES = ["0", "dmin", "nmin", "one", "1+ulp", "three", "max", "inf", "qnan", "snanp"]


def rand_float(fmt, r, emin, emax):
    e, m = FMT[fmt]
    bias = (1 << (e - 1)) - 1
    ex = r.randint(emin, emax) + bias
    return (r.getrandbits(1) << (e + m)) | (ex << m) | r.getrandbits(m)


def width(fmt):
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[fmt]


def pack2(lo, hi):
    return lo | (hi << 16)


def int_edges(w):
    M = (1 << w) - 1
    h = 1 << (w - 1)
    return sorted(set([0, 1, 2, 3, M, M - 1, h - 1, h, h + 1, h - 2, 0xff & M, 0x100 & M, 0x7fff & M, 0x8000 & M,
                       0xffff & M, 0x10000 & M, (1 << (w // 2)) - 1, 1 << (w // 2), 0x55555555 & M,
                       0xaaaaaaaa & M, (0x123456789abcdef0 & M), w - 1, w, w + 1]))


def cross2(xs, ys):
    return [(x, y) for y in ys for x in xs]


# ---------------------------------------------------------------------------------------------------------
# multi-op kernel

REGW = {16: ".b16", 32: ".b32", 64: ".b64"}


def _subst(body, iw, ow, iw2=None):
    iw2 = iw2 or iw
    return (body.replace("{a}", f"%a{iw}").replace("{b}", f"%b{iw2}").replace("{c}", f"%c{iw}")
            .replace("{d}", f"%d{ow}").replace("{a16}", "%a16").replace("{a32}", "%a32").replace("{a64}", "%a64")
            .replace("{b16}", "%b16").replace("{b32}", "%b32").replace("{b64}", "%b64")
            .replace("{c16}", "%c16").replace("{c32}", "%c32").replace("{c64}", "%c64"))


def _ptx(name, ops, slot):
    lines = []
    for k, op in enumerate(ops):
        body, iw, ow = op[0], op[1], op[2]
        lines.append(f"\t// op {k}: {body.splitlines()[0] if body else ''}")
        lines.append(f"$OP{k}:")
        for l in _subst(body, iw, ow).strip().split("\n"):
            lines.append("\t" + l.strip())
        lines.append(f"\tst.global.b{ow} [%x2], %d{ow};")
        lines.append("\tadd.s64 %x2, %x2, %x3;")
    return f"""//
// generated by gen/gen_issue18.py: {name}
//
.version {VER}
.target {TGT}
.address_size 64

.visible .entry k(.param .u64 pA, .param .u64 pB, .param .u64 pC, .param .u64 pD, .param .u32 n)
{{
\t.reg .b32 %i<4>;
\t.reg .b64 %x<4>;
\t.reg .pred %pn;
\t.reg .b16 %a16, %b16, %c16, %d16, %h<8>;
\t.reg .b32 %a32, %b32, %c32, %d32, %r<16>;
\t.reg .b64 %a64, %b64, %c64, %d64, %rd<16>;
\t.reg .pred %p<8>;
\t.reg .f32 %f<8>;
\t.reg .f64 %fd<8>;
\tmov.u32 %i0, %tid.x;
\tmov.u32 %i1, %ctaid.x;
\tmov.u32 %i2, %ntid.x;
\tmad.lo.u32 %i0, %i1, %i2, %i0;
\tld.param.u32 %i3, [n];
\tsetp.ge.u32 %pn, %i0, %i3;
\t@%pn bra $DONE;
\tmul.wide.u32 %x0, %i0, 8;
\tld.param.u64 %x1, [pA];
\tcvta.to.global.u64 %x1, %x1;
\tadd.s64 %x1, %x1, %x0;
\tld.global.b64 %a64, [%x1];
\tld.param.u64 %x1, [pB];
\tcvta.to.global.u64 %x1, %x1;
\tadd.s64 %x1, %x1, %x0;
\tld.global.b64 %b64, [%x1];
\tld.param.u64 %x1, [pC];
\tcvta.to.global.u64 %x1, %x1;
\tadd.s64 %x1, %x1, %x0;
\tld.global.b64 %c64, [%x1];
\tcvt.u32.u64 %a32, %a64;
\tcvt.u32.u64 %b32, %b64;
\tcvt.u32.u64 %c32, %c64;
\tcvt.u16.u64 %a16, %a64;
\tcvt.u16.u64 %b16, %b64;
\tcvt.u16.u64 %c16, %c64;
\tld.param.u64 %x2, [pD];
\tcvta.to.global.u64 %x2, %x2;
\tmul.wide.u32 %x0, %i0, {slot};
\tadd.s64 %x2, %x2, %x0;
\tmul.wide.u32 %x3, %i3, {slot};
{chr(10).join(lines)}
$DONE:
\tret;
}}
"""


def _ptxas_ok(text):
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(text)
        fn = f.name
    try:
        p = subprocess.run([PTXAS, f"-arch={TGT}", fn, "-o", "/dev/null"], capture_output=True, text=True)
        return p.returncode == 0, p.stderr
    finally:
        os.unlink(fn)


def _bad_ops(text, err, nops):
    """op indices named by ptxas error lines"""
    tl = text.split("\n")
    bad = set()
    for l in err.split("\n"):
        if ", line " in l and "error" in l:
            try:
                ln = int(l.split(", line ")[1].split(";")[0])
            except ValueError:
                continue
            for j in range(ln - 1, -1, -1):
                if tl[j].startswith("$OP"):
                    bad.add(int(tl[j][3:-1]))
                    break
    return bad


# Bounded comparison of an approximate op's slots (harness `compare BUF OFF LEN CMP`): the PTX ISA's documented
# error bound, doubled because NVIDIA's result and ours may each err by it (README "CMP"). NaN matches any NaN.
#   rcp.approx.f32 1 ulp; div.approx.f32 2 ulp (|b| in [2^-126, 2^126]); div.full.f32 2 ulp; sqrt.approx.f32 rel 2^-23;
#   rsqrt.approx.f32 rel 2^-22.9; ex2.approx.f32 2 ulp; lg2.approx.f32 abs 2^-22 (near 1) / rel 2^-22;
#   sin/cos.approx.f32 abs 2^-20.5 in [-100pi, 100pi]; tanh.approx.f32 rel 2^-11; ex2.approx.f16(x2) rel 2^-9.9;
#   tanh.approx.f16(x2) rel 2^-10.987; ex2.approx.ftz.bf16(x2) rel 2^-7; tanh.approx.bf16 rel 2^-8;
#   rcp.approx.ftz.f64 / rsqrt.approx(.ftz).f64 rel 2^-20 (approximately, "2^-20" in the ISA's notes).
ISA_BOUND = {("rcp", "f32"): "ulp:2", ("div", "f32"): "ulp:4", ("sqrt", "f32"): "rel:2^-22",
             ("rsqrt", "f32"): "rel:2^-21.9", ("ex2", "f32"): "ulp:4", ("lg2", "f32"): "absrel:2^-21",
             ("sin", "f32"): "abs:2^-19.5", ("cos", "f32"): "abs:2^-19.5", ("tanh", "f32"): "rel:2^-10",
             ("ex2", "f16"): "rel:2^-8.9", ("tanh", "f16"): "rel:2^-9.987", ("ex2", "bf16"): "rel:2^-6",
             ("tanh", "bf16"): "rel:2^-7", ("rcp", "f64"): "rel:2^-19", ("rsqrt", "f64"): "rel:2^-19"}


def isa_bound(body):
    """CMP for an approximate op (first instruction of body), or None"""
    ins = body.strip().split()[0].split(".")
    if "approx" not in ins and not (ins[0] == "div" and "full" in ins):
        return None
    t = ins[-1].replace("x2", "")
    b = ISA_BOUND.get((ins[0], t))
    return f"{b}:{t}" if b else None


def mcase(family, name, ops, vals, comment="", cmp="exact"):
    """ops: list of (body, in_width, out_width[, note]); vals: list of (a, b, c) raw ints"""
    ops = list(ops)
    dropped = []
    while True:
        slot = max(o[2] for o in ops) // 8
        text = _ptx(f"{family}/{name}", ops, slot)
        ok, err = _ptxas_ok(text)
        if ok:
            break
        bad = _bad_ops(text, err, len(ops))
        if not bad:
            raise SystemExit(f"ptxas failed on {family}/{name} outside the ops:\n{err}")
        dropped += [" | ".join(x.strip() for x in ops[i][0].strip().split("\n")) for i in sorted(bad)]
        ops = [o for i, o in enumerate(ops) if i not in bad]
        if not ops:
            print(f"  {family}/{name}: every op refused, case not written", file=sys.stderr)
            return
    n = len(vals)
    wfile(f"ptx/{family}/{name}.ptx", text)
    hdr = ["generated by gen/gen_issue18.py -- edit the generator, not this file"]
    hdr += [l for l in comment.strip().split("\n") if l]
    hdr.append(f"{n} lanes; A/B/C = b64 per lane; result of op k, lane i at byte (k*{n} + i)*{slot}")
    for k, o in enumerate(ops):
        note = f"   [{o[3]}]" if len(o) > 3 and o[3] else ""
        hdr.append(f"op {k}: " + " | ".join(x.strip() for x in o[0].strip().split("\n")) + note)
    for d in dropped:
        hdr.append(f"refused by ptxas (not recorded): {d}")
    lines = ["".join("# " + h + "\n" for h in hdr).rstrip("\n")]
    lines.append(f"ptx ptx/{family}/{name}.ptx")
    for j, nm in enumerate("abc"):
        lines.append(f"buffer {nm} {8 * n} values b64 \\\n    " + wrap(["0x%x" % v[j] for v in vals]))
    lines.append(f"buffer d {n * slot * len(ops)} fill cd")
    lines += ["kernel k", f"grid {(n + 127) // 128}", "block 128", "param ptr a", "param ptr b", "param ptr c",
              "param ptr d", f"param u32 {n}", f"output d {cmp}"]
    for k, o in enumerate(ops):
        b = isa_bound(o[0]) if len(o) > 3 and o[3] and "bounded" in o[3] else None
        if b:
            lines.append(f"compare d {k * n * slot} {n * slot} {b}")
    wfile(f"cases/{family}/{name}.case", "\n".join(lines) + "\n")
    CASES.append(f"{family}/{name}")
    LANES[0] += n * len(ops)


def raw_case(family, name, ptx_rel, launches, buffers, outputs, comment=""):
    lines = ["# generated by gen/gen_issue18.py -- edit the generator, not this file"]
    lines += ["# " + l for l in comment.strip().split("\n") if l]
    lines.append(f"ptx {ptx_rel}")
    for b in buffers:
        lines.append("buffer " + b)
    for l in launches:
        lines.append(f"kernel {l['kernel']}")
        lines.append("grid %d 1 1" % l.get("grid", 1))
        lines.append("block %d 1 1" % l.get("block", 1))
        for p in l.get("params", []):
            lines.append("param " + p)
    for o in outputs:
        lines.append("output " + o)
    wfile(f"cases/{family}/{name}.case", "\n".join(lines) + "\n")
    CASES.append(f"{family}/{name}")


# ---------------------------------------------------------------------------------------------------------
# A. targeted items

def gen_carry():
    """every producer of CC.CF x every consumer, 32 and 64 bit"""
    fam = "carry"
    for w in (32, 64):
        M = (1 << w) - 1
        e = [0, 1, 2, M, M - 1, (1 << (w - 1)) - 1, 1 << (w - 1), (1 << (w - 1)) + 1, (1 << (w // 2)) - 1,
             1 << (w // 2), 0x5555555555555555 & M]
        cs = [0, 1, M, 1 << (w - 1)]
        r = rng(f"carry{w}")
        vals = [(a, b, c) for c in cs for b in e for a in e]
        vals += [(r.getrandbits(w), r.getrandbits(w), r.getrandbits(w)) for _ in range(128)]
        vals += [(r.choice(e), r.getrandbits(w), r.choice(cs)) for _ in range(64)]
        prods = [("add.cc.u", "{a}, {b}"), ("add.cc.s", "{a}, {b}"), ("sub.cc.u", "{a}, {b}"),
                 ("sub.cc.s", "{a}, {b}"), ("mad.lo.cc.u", "{a}, {b}, {c}"), ("mad.lo.cc.s", "{a}, {b}, {c}"),
                 ("mad.hi.cc.u", "{a}, {b}, {c}"), ("mad.hi.cc.s", "{a}, {b}, {c}"),
                 ("addc.cc.u", "{a}, {b}"), ("addc.cc.s", "{a}, {b}"), ("subc.cc.u", "{a}, {b}"),
                 ("subc.cc.s", "{a}, {b}"), ("madc.lo.cc.u", "{a}, {b}, {c}"), ("madc.lo.cc.s", "{a}, {b}, {c}"),
                 ("madc.hi.cc.u", "{a}, {b}, {c}"), ("madc.hi.cc.s", "{a}, {b}, {c}")]
        cons = []
        for s in "us":
            cons += [(f"addc.{s}", "{b}, {c}"), (f"subc.{s}", "{b}, {c}"), (f"madc.lo.{s}", "{a}, {c}, {b}"),
                     (f"madc.hi.{s}", "{a}, {c}, {b}")]
        tmp = "%r" if w == 32 else "%rd"
        for pname, pargs in prods:
            # chained producers (addc.cc etc.) take their carry-in from C + C (carry = top bit of C)
            pre = f"add.cc.u{w} {tmp}0, {{c}}, {{c}};\n" if pname.split(".")[0] in ("addc", "subc", "madc") else ""
            P = f"{pre}{pname}{w} {tmp}1, {pargs};"
            ops = [(P + "\nmov.b{0} {{d}}, {1}1;".format(w, tmp), w, w, "producer result")]
            ops.append((P + f"\naddc.u{w} {{d}}, 0, 0;", w, w, "carry out of the producer"))
            for cname, cargs in cons:
                ops.append((P + f"\n{cname}{w} {{d}}, {cargs};", w, w))
                ccn = cname.replace("addc.", "addc.cc.").replace("subc.", "subc.cc.").replace(
                    "madc.lo.", "madc.lo.cc.").replace("madc.hi.", "madc.hi.cc.")
                ops.append((P + f"\n{ccn}{w} {tmp}2, {cargs};\naddc.u{w} {{d}}, 0, 0;", w, w,
                            "carry out of the .cc consumer"))
            nm = pname.replace(".", "_") + str(w)
            mcase(fam, nm, ops, vals, comment=f"carry flag: producer {pname}{w} then every consumer of CC.CF\n"
                  "(issue 18: carry across instruction families); chained producers get carry-in = top bit of C")


def rnd_frac(x, m, emin):
    """round a positive Fraction to m fraction bits, nearest even, exponent floor emin (subnormal)"""
    if x == 0:
        return x
    e = math.floor(math.log2(x))
    while Fraction(2) ** e > x:
        e -= 1
    while Fraction(2) ** (e + 1) <= x:
        e += 1
    e = max(e, emin)
    q = Fraction(2) ** (e - m)
    t = x / q
    fl = math.floor(t)
    rem = t - fl
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2 == 1):
        fl += 1
    return fl * q


def bf16_val(b):
    s = -1 if b >> 15 else 1
    ex = (b >> 7) & 0xff
    m = b & 0x7f
    if ex == 0:
        return s * Fraction(m, 128) * Fraction(2) ** -126
    return s * (1 + Fraction(m, 128)) * Fraction(2) ** (ex - 127)


def to_bf16(x):
    neg = x < 0
    x = abs(x)
    e = math.floor(math.log2(x))
    ex = e + 127
    m = int((x / Fraction(2) ** e - 1) * 128)
    assert (1 + Fraction(m, 128)) * Fraction(2) ** e == x and 1 <= ex <= 254
    return (0x8000 if neg else 0) | (ex << 7) | m


def gen_bf16_round():
    """bf16 fma where round(f32(exact)) != round(exact): exact product on a bf16 tie, tiny addend"""
    fam = "bf16round"
    r = rng("bf16round")
    pairs = []
    for N in range(257, 512, 2):
        for m1 in range(3, 256, 2):
            if N % m1 == 0 and N // m1 <= 255 and N // m1 >= 3:
                pairs.append((N, m1, N // m1))
                break
    trip = []
    for N, m1, m2 in pairs:
        for sgn_c in (1, -1):
            ea, eb = r.randint(-20, 12), r.randint(-20, 12)
            a = Fraction(m1) * Fraction(2) ** (ea - m1.bit_length() + 1)
            b = Fraction(m2) * Fraction(2) ** (eb - m2.bit_length() + 1)
            if r.getrandbits(1):
                a, b = -a, -b
            p = a * b
            ep = math.floor(math.log2(abs(p)))
            c = sgn_c * Fraction(2) ** (ep - r.randint(26, 40))
            if r.getrandbits(1):
                p, a = -p, -a
                c = -c
            trip.append((to_bf16(a), to_bf16(b), to_bf16(c)))
    differ = 0
    for a, b, c in trip:
        ex = bf16_val(a) * bf16_val(b) + bf16_val(c)
        s = 1 if ex > 0 else -1
        once = rnd_frac(abs(ex), 7, -126)
        twice = rnd_frac(rnd_frac(abs(ex), 23, -126), 7, -126)
        differ += once != twice
    # add/sub/mul ties (single rounding equals double rounding here: f32 has >= 2*8+2 bits; recorded for RNE)
    at = []
    for _ in range(128):
        a = rand_float("bf16", r, -10, 10)
        sh = r.randint(1, 7)
        b = (a & 0x8000) | ((((a >> 7) & 0xff) - 8 - sh) << 7) | (r.getrandbits(7) | 1)
        at.append((a, b, r.getrandbits(16)))
    vals = [(a, b, c) for a, b, c in trip] + at
    ops = [("fma.rn.bf16 {d}, {a}, {b}, {c};", 16, 16), ("fma.rn.relu.bf16 {d}, {a}, {b}, {c};", 16, 16),
           ("add.rn.bf16 {d}, {a}, {b};", 16, 16), ("sub.rn.bf16 {d}, {a}, {b};", 16, 16),
           ("mul.rn.bf16 {d}, {a}, {b};", 16, 16), ("add.bf16 {d}, {a}, {b};", 16, 16),
           ("mul.bf16 {d}, {a}, {b};", 16, 16), ("fma.rn.sat.bf16 {d}, {a}, {b}, {c};", 16, 16),
           ("fma.rn.ftz.bf16 {d}, {a}, {b}, {c};", 16, 16),
           ("mov.b32 %r1, {{a16}, {b16}};\nmov.b32 %r2, {{b16}, {a16}};\nmov.b32 %r3, {{c16}, {c16}};\n"
            "fma.rn.bf16x2 {d}, %r1, %r2, %r3;", 16, 32, "bf16x2: lo = fma(a,b,c), hi = fma(b,a,c)"),
           ("mov.b32 %r1, {{a16}, {b16}};\nmov.b32 %r2, {{b16}, {a16}};\nmov.b32 %r3, {{c16}, {c16}};\n"
            "fma.rn.relu.bf16x2 {d}, %r1, %r2, %r3;", 16, 32),
           ("mov.b32 %r1, {{a16}, {c16}};\nmov.b32 %r2, {{b16}, {a16}};\nadd.rn.bf16x2 {d}, %r1, %r2;", 16, 32),
           ("mov.b32 %r1, {{a16}, {c16}};\nmov.b32 %r2, {{b16}, {a16}};\nsub.rn.bf16x2 {d}, %r1, %r2;", 16, 32),
           ("mov.b32 %r1, {{a16}, {c16}};\nmov.b32 %r2, {{b16}, {a16}};\nmul.rn.bf16x2 {d}, %r1, %r2;", 16, 32)]
    mcase(fam, "fma_tie_double_rounding", ops, vals,
          comment=f"lanes 0..{len(trip) - 1}: a*b exact on a bf16 tie (odd 9-bit product) plus a tiny c of either\n"
          f"sign: rounding the exact value once differs from rounding its f32 rounding in {differ} of them;\n"
          f"later lanes: add/sub/mul operands whose exact sum/product ends on a bf16 tie or near one.\n"
          "Note: for add/sub/mul of two bf16 values double rounding through f32 is innocuous (24 >= 2*8+2),\n"
          "so only fma can expose it.")
    # specials cross product for bf16 scalar and x2 with every modifier
    sp = specials("bf16", ["0", "dmin", "dmax", "nmin", "one", "1+ulp", "1-ulp", "three", "max", "inf", "qnan",
                           "snanp", "tiny"])
    r2 = rng("bf16sp")
    vals = [(a, b, r2.choice(sp)) for a, b in cross2(sp, sp)]
    vals += [(rand_float("bf16", r2, -8, 8), rand_float("bf16", r2, -8, 8), rand_float("bf16", r2, -8, 8))
             for _ in range(100)]
    ops = []
    for op, args in [("add", "{a}, {b}"), ("sub", "{a}, {b}"), ("mul", "{a}, {b}"), ("fma", "{a}, {b}, {c}")]:
        for mod in ["", ".rn", ".rn.ftz", ".rn.sat", ".rn.relu", ".rn.ftz.sat", ".rn.ftz.relu"]:
            ops.append((f"{op}{mod}.bf16 {{d}}, {args};", 16, 16))
            a2 = args.replace("{a}", "%r1").replace("{b}", "%r2").replace("{c}", "%r3")
            ops.append(("mov.b32 %r1, {{a16}, {b16}};\nmov.b32 %r2, {{b16}, {c16}};\nmov.b32 %r3, {{c16}, {a16}};\n"
                        f"{op}{mod}.bf16x2 {{d}}, {a2};", 16, 32))
    mcase(fam, "bf16_specials_all_modifiers", ops, vals,
          comment="bf16/bf16x2 add/sub/mul/fma with every modifier ptxas accepts over specials (cross product)\n"
                  "x2 forms: lo = op(a, b, c), hi = op(b, c, a)")


def gen_nan():
    fam = "nanbits"
    for fmt in ["f16", "bf16", "f32", "f64"]:
        w = width(fmt)
        nans = [fbits(fmt, n, s) for n in ["qnan", "snan", "qnanp", "snanp", "qnanmax"] for s in (False, True)]
        others = [fbits(fmt, n, s) for n in ["0", "one", "inf", "dmin", "max"] for s in (False, True)]
        tab = nans + others
        vals = []
        r = rng("nan" + fmt)
        for a, b in cross2(tab, tab):
            vals.append((a, b, r.choice(tab)))
        ops = []
        ft = fmt
        for op in ["add", "sub", "mul"]:
            rm = ".rn" if fmt in ("f16", "bf16", "f64") else ""
            ops.append((f"{op}{rm}.{ft} {{d}}, {{a}}, {{b}};", w, w))
        ops.append((f"fma.rn.{ft} {{d}}, {{a}}, {{b}}, {{c}};", w, w))
        for mm in ["min", "max"]:
            ops.append((f"{mm}.{ft} {{d}}, {{a}}, {{b}};", w, w))
            if fmt != "f64":
                ops.append((f"{mm}.NaN.{ft} {{d}}, {{a}}, {{b}};", w, w))
                ops.append((f"{mm}.xorsign.abs.{ft} {{d}}, {{a}}, {{b}};", w, w))
                ops.append((f"{mm}.NaN.xorsign.abs.{ft} {{d}}, {{a}}, {{b}};", w, w))
        ops.append((f"neg.{ft} {{d}}, {{a}};", w, w))
        ops.append((f"abs.{ft} {{d}}, {{a}};", w, w))
        if fmt == "f32":
            for op, bd in [("div.rn", "{a}, {b}"), ("div.approx", "{a}, {b}"), ("div.full", "{a}, {b}"),
                           ("sqrt.rn", "{a}"), ("sqrt.approx", "{a}"), ("rcp.rn", "{a}"), ("rcp.approx", "{a}"),
                           ("rsqrt.approx", "{a}"), ("lg2.approx", "{a}"), ("ex2.approx", "{a}"),
                           ("sin.approx", "{a}"), ("cos.approx", "{a}"), ("tanh.approx", "{a}"),
                           ("copysign", "{a}, {b}"), ("mad.rn", "{a}, {b}, {c}"), ("testp.nan", None)]:
                if bd is None:
                    ops.append(("testp.notanumber.f32 %p1, {a};\nselp.b32 {d}, 1, 0, %p1;", 32, 32))
                else:
                    nt = "bounded: ISA bound (approx); recorded for the NaN bits" if "approx" in op else ""
                    ops.append((f"{op}.f32 {{d}}, {bd};", 32, 32, nt))
            ops.append(("cvt.f64.f32 %rd1, {a};\nmov.b64 {d}, %rd1;", 32, 64, "cvt f32->f64"))
            ops.append(("cvt.rn.f16.f32 %h1, {a};\ncvt.u32.u16 {d}, %h1;", 32, 32, "cvt f32->f16"))
            ops.append(("cvt.rn.bf16.f32 %h1, {a};\ncvt.u32.u16 {d}, %h1;", 32, 32, "cvt f32->bf16"))
            ops.append(("cvt.rn.f16x2.f32 {d}, {a}, {b};", 32, 32))
            ops.append(("cvt.rn.bf16x2.f32 {d}, {a}, {b};", 32, 32))
            ops.append(("cvt.rna.tf32.f32 {d}, {a};", 32, 32))
            ops.append(("cvt.rn.satfinite.f16x2.f32 {d}, {a}, {b};", 32, 32))
        if fmt == "f64":
            for op, bd in [("div.rn", "{a}, {b}"), ("sqrt.rn", "{a}"), ("rcp.rn", "{a}"),
                           ("rcp.approx.ftz", "{a}"), ("rsqrt.approx", "{a}"), ("copysign", "{a}, {b}")]:
                nt = "bounded: ISA bound (approx); recorded for the NaN bits" if "approx" in op else ""
                ops.append((f"{op}.f64 {{d}}, {bd};", 64, 64, nt))
            ops.append(("cvt.rn.f32.f64 %r1, {a};\ncvt.u64.u32 {d}, %r1;", 64, 64, "cvt f64->f32"))
            ops.append(("cvt.rn.f16.f64 %h1, {a};\ncvt.u64.u16 {d}, %h1;", 64, 64, "cvt f64->f16"))
            ops.append(("cvt.rn.bf16.f64 %h1, {a};\ncvt.u64.u16 {d}, %h1;", 64, 64, "cvt f64->bf16"))
        if fmt in ("f16", "bf16"):
            ops.append((f"cvt.f32.{ft} %r1, {{a}};\nmov.b32 {{d}}, %r1;", 16, 32, f"cvt {ft}->f32"))
            ops.append((f"cvt.f64.{ft} %rd1, {{a}};\ncvt.u32.u64 {{d}}, %rd1;\nshr.u64 %rd1, %rd1, 32;\n"
                        f"cvt.u32.u64 %r2, %rd1;\nxor.b32 {{d}}, {{d}}, %r2;", 16, 32,
                        f"cvt {ft}->f64, lo^hi words (folded to 32 bits)"))
            o2 = "bf16" if ft == "f16" else "f16"
            ops.append((f"cvt.rn.{o2}.{ft} %h1, {{a}};\ncvt.u32.u16 {{d}}, %h1;", 16, 32, f"cvt {ft}->{o2}"))
            if ft == "f16":
                for op, bd in [("ex2.approx", "{a}"), ("tanh.approx", "{a}")]:
                    ops.append((f"{op}.{ft} {{d}}, {bd};", 16, 16, "bounded: ISA bound (approx)"))
            # packed x2: lo = op(a, b), hi = op(b, a)
            for op in ["add.rn", "sub.rn", "mul.rn", "fma.rn", "min", "max", "min.NaN", "max.NaN",
                       "min.xorsign.abs", "max.NaN.xorsign.abs", "neg", "abs"]:
                args = {"fma.rn": "%r1, %r2, %r3", "neg": "%r1", "abs": "%r1"}.get(op, "%r1, %r2")
                ops.append(("mov.b32 %r1, {{a16}, {b16}};\nmov.b32 %r2, {{b16}, {a16}};\n"
                            f"mov.b32 %r3, {{{{c16}}, {{c16}}}};\n{op}.{ft}x2 {{d}}, {args};", 16, 32))
        mcase(fam, f"nan_{fmt}", ops, vals,
              comment=f"NaN bit patterns ({fmt}): NaN in / NaN out and invalid operations (inf-inf, 0*inf, sqrt(-1),\n"
              "0/0, ...), quiet and signalling NaNs with payloads and both signs; exact bits recorded\n"
              "x2 forms: lo = op(a, b[, c]), hi = op(b, a[, c])")


def gen_tf32():
    fam = "tf32"
    v = [fbits("f32", n, s) for n in ["0", "dmin", "dmax", "nmin", "nmin+", "one", "1+ulp", "1-ulp", "max", "big",
                                      "inf", "qnan", "snan", "qnanp", "snanp", "tiny"] for s in (False, True)]
    # ties and neighbours at the tf32 rounding point (10 mantissa bits kept: 13 bits dropped)
    r = rng("tf32")
    for _ in range(48):
        base = (r.getrandbits(1) << 31) | (r.randint(1, 254) << 23) | (r.getrandbits(10) << 13)
        for low in (0x1000, 0x0fff, 0x1001, 0x1fff, 0x0001, 0x1000 | 0x2000):
            v.append(base | (low & 0x1fff) | (low & 0x2000))
    for ex in [0, 1, 2, 254]:
        for s in (0, 1):
            v += [(s << 31) | (ex << 23) | 0x7fffff, (s << 31) | (ex << 23) | 0x7ff000, (s << 31) | (ex << 23) | 0x1000,
                  (s << 31) | (ex << 23) | 0xfff]
    v += [r.getrandbits(32) for _ in range(64)]
    vals = [(x, 0, 0) for x in v]
    ops = []
    for rm in ["rna", "rn", "rz", "rm", "rp"]:
        for mod in ["", ".satfinite", ".relu", ".satfinite.relu", ".relu.satfinite"]:
            ops.append((f"cvt.{rm}{mod}.tf32.f32 {{d}}, {{a}};", 32, 32))
    mcase(fam, "cvt_tf32_all_modes", ops, vals,
          comment="cvt to tf32 in every rounding/satfinite/relu form ptxas accepts: +-0, subnormals, values that\n"
                  "round to zero, ties and neighbours at bit 13, max/large, inf, NaNs with payloads")


def gen_hand():
    """isspacep.param, lanemask in divergent chains, shared in .func, int128 division"""
    src = os.path.join(HERE, "issue18_hand.ptx")
    with open(src) as f:
        wfile("ptx/hand/issue18_hand.ptx", f.read())
    P = "ptx/hand/issue18_hand.ptx"
    raw_case("mem", "isspacep_param", P, [dict(kernel="k_isspacep_param", block=4,
                                                params=["u32 0x11223344", "u64 0x5566778899aabbcc", "ptr g",
                                                        "ptr out"])],
             ["g 64 iota u32 0 1", "out 256 fill cd"], ["out exact"],
             comment="isspacep.param/.global/.shared/.local/.const(/.shared::cta, .shared::cluster) on the generic\n"
                     "address of a kernel parameter (mov.u64 of the param name then cvta.param), and of global,\n"
                     "shared, local, const addresses; also a load through the generic param address.\n"
                     "Word j of thread t (t = 0..3 picks the address): bit k = isspacep of space k; see the PTX")
    raw_case("warp", "lanemask_divergent_chain_hand", P,
             [dict(kernel="k_lanemask_chain", block=64, params=["ptr out"])], ["out 2048 fill cd"], ["out exact"],
             comment="%activemask, %lanemask_eq/lt/le/gt/ge inside the arms of if / else if / else (tid%3 and tid>40)\n"
                     "block 64 (two warps); out[tid*8 + j]")
    raw_case("warp", "lanemask_divergent_chain_hand_32", P,
             [dict(kernel="k_lanemask_chain", block=32, params=["ptr out"])], ["out 1024 fill cd"], ["out exact"],
             comment="same kernel, block of 32")
    raw_case("mem", "shared_in_func", P,
             [dict(kernel="k_shared_func", block=64, params=["ptr out"])], ["out 1024 fill cd"], ["out exact"],
             comment="module-scope .extern .shared used inside a .func, and .shared declared inside .funcs (ptxas refuses\n"
                     ".extern .shared inside a .func) name the memory the kernel sees: kernel writes, func reads; func writes, kernel reads (dynamic shared 512 B)")
    # the last case needs dynamic shared: patch in the launch's shared line
    p = os.path.join(PEND, "cases/mem/shared_in_func.case")
    t = open(p).read().replace("block 64 1 1\n", "block 64 1 1\nshared 512\n")
    open(p, "w").write(t)

    # nvcc-built
    if "--nvcc" in sys.argv:
        for name in ["issue18"]:
            subprocess.check_call([NVCC, "-ptx", "-arch=sm_80", "-o", os.path.join(PEND, f"ptx/cu/{name}.ptx"),
                                   os.path.join(PEND, f"src/{name}.cu")])
    C = "ptx/cu/issue18.ptx"
    r = rng("u128")
    edges = [0, 1, 2, 3, (1 << 64) - 1, 1 << 64, (1 << 64) + 1, (1 << 127) - 1, 1 << 127, (1 << 127) + 1,
             (1 << 128) - 1, (1 << 128) - 2, 0xffffffff, 1 << 32, (1 << 96) - 1, 1 << 96, 10, 7]
    pairs = [(a, b) for a in edges for b in edges if b != 0]
    for _ in range(200):
        a = r.getrandbits(128) >> r.randint(0, 120)
        b = r.getrandbits(128) >> r.randint(0, 127)
        pairs.append((a, b or 1))
    n = len(pairs)
    toks_a, toks_b = [], []
    for a, b in pairs:
        toks_a += ["0x%x" % (a & (2 ** 64 - 1)), "0x%x" % (a >> 64)]
        toks_b += ["0x%x" % (b & (2 ** 64 - 1)), "0x%x" % (b >> 64)]
    raw_case("int", "u128_div_rem_nvcc", C,
             [dict(kernel="k_u128_divrem", grid=(n + 127) // 128, block=128,
                   params=["ptr a", "ptr b", "ptr q", "ptr r", "ptr sq", "ptr sr", f"u32 {n}"])],
             [f"a {16 * n} values u64 \\\n    " + wrap(toks_a), f"b {16 * n} values u64 \\\n    " + wrap(toks_b),
              f"q {16 * n} fill cd", f"r {16 * n} fill cd", f"sq {16 * n} fill cd", f"sr {16 * n} fill cd"],
             ["q exact", "r exact", "sq exact", "sr exact"],
             comment="unsigned __int128 a / b and a % b, and __int128 (signed) a / b, a % b, nvcc -arch=sm_80 -ptx\n"
                     "(src/issue18.cu); edge x edge operands (nonzero divisors) and 200 random pairs")
    raw_case("warp", "lanemask_divergent_chain_nvcc", C,
             [dict(kernel="k_lanemask_chain", block=64, params=["ptr out"])], ["out 2048 fill cd"], ["out exact"],
             comment="CUDA C if / else if / else chain, __activemask() and %lanemask_* in each arm, block 64")
    raw_case("warp", "lanemask_divergent_chain_nvcc_32", C,
             [dict(kernel="k_lanemask_chain", block=32, params=["ptr out"])], ["out 1024 fill cd"], ["out exact"],
             comment="same, block 32")


# ---------------------------------------------------------------------------------------------------------
# B. differential sweep

def fvals2(fmt, tag, nrand=96, names=SPECIAL_NAMES):
    sp = specials(fmt, names)
    r = rng(tag)
    vals = [(a, b, r.choice(sp)) for a, b in cross2(sp, sp)]
    lo, hi = {"f16": (-14, 15), "bf16": (-30, 30), "f32": (-30, 30), "f64": (-60, 60)}[fmt]
    vals += [(rand_float(fmt, r, lo, hi), rand_float(fmt, r, lo, hi), rand_float(fmt, r, lo, hi))
             for _ in range(nrand)]
    # near-cancellation and ulp neighbours
    for _ in range(nrand // 2):
        a = rand_float(fmt, r, lo, hi)
        s = width(fmt) - 1
        vals.append((a, a ^ (1 << s) ^ r.randint(0, 3), rand_float(fmt, r, lo, hi)))
    return vals


def fvals3(fmt, tag):
    sp = specials(fmt, SMALL_NAMES)
    r = rng(tag)
    vals = [(a, b, c) for c in sp[::2] for a, b in cross2(sp, sp)]
    lo, hi = {"f16": (-8, 8), "bf16": (-20, 20), "f32": (-20, 20), "f64": (-40, 40)}[fmt]
    vals += [(rand_float(fmt, r, lo, hi), rand_float(fmt, r, lo, hi), rand_float(fmt, r, lo, hi))
             for _ in range(200)]
    return vals


def sweep_float():
    fam = "sweep"
    RM = ["", ".rn", ".rz", ".rm", ".rp"]
    for fmt in ["f32", "f64", "f16", "bf16"]:
        w = width(fmt)
        v2 = fvals2(fmt, "sw2" + fmt)
        v3 = fvals3(fmt, "sw3" + fmt)
        pk = fmt in ("f16", "bf16")
        forms = [(fmt, w, "")]
        if pk:
            forms.append((fmt + "x2", 32, "x2"))
        for ty, ow, x2 in forms:
            def pre(args):
                if not x2:
                    return "", args.replace("A", "{a}").replace("B", "{b}").replace("C", "{c}")
                return ("mov.b32 %r1, {{a16}, {b16}};\nmov.b32 %r2, {{b16}, {c16}};\nmov.b32 %r3, {{c16}, {a16}};\n",
                        args.replace("A", "%r1").replace("B", "%r2").replace("C", "%r3"))
            for op in ["add", "sub", "mul"]:
                ops = []
                for rm in RM:
                    for ftz in ["", ".ftz"]:
                        for sat in ["", ".sat"]:
                            p, a = pre("A, B")
                            ops.append((f"{p}{op}{rm}{ftz}{sat}.{ty} {{d}}, {a};", w, ow))
                    if pk:
                        p, a = pre("A, B")
                        ops.append((f"{p}{op}{rm}.relu.{ty} {{d}}, {a};", w, ow))
                mcase(fam, f"{op}_{ty}", ops, v2, comment=f"{op}.{ty}: every rounding/ftz/sat(/relu) modifier" +
                      ("\nx2: lo = op(a, b), hi = op(b, c)" if x2 else ""))
            ops = []
            for o in ["fma", "mad"]:
                for rm in RM:
                    for ftz in ["", ".ftz"]:
                        for sat in ["", ".sat", ".relu"]:
                            p, a = pre("A, B, C")
                            ops.append((f"{p}{o}{rm}{ftz}{sat}.{ty} {{d}}, {a};", w, ow))
            mcase(fam, f"fma_mad_{ty}", ops, v3, comment=f"fma/mad.{ty}: every modifier ptxas accepts" +
                  ("\nx2: lo = op(a, b, c), hi = op(b, c, a)" if x2 else ""))
            ops = []
            for o in ["min", "max"]:
                for m1 in ["", ".ftz"]:
                    for m2 in ["", ".NaN"]:
                        for m3 in ["", ".xorsign.abs"]:
                            p, a = pre("A, B")
                            ops.append((f"{p}{o}{m1}{m2}{m3}.{ty} {{d}}, {a};", w, ow))
            for o in ["neg", "abs"]:
                for m1 in ["", ".ftz"]:
                    p, a = pre("A")
                    ops.append((f"{p}{o}{m1}.{ty} {{d}}, {a};", w, ow))
            if not x2 and fmt in ("f32", "f64"):
                ops.append((f"copysign.{ty} {{d}}, {{a}}, {{b}};", w, w))
            mcase(fam, f"minmax_absneg_{ty}", ops, v2, comment=f"min/max/neg/abs.{ty}: every modifier")
            if x2 or fmt in ("f16", "bf16"):
                continue
            # div / rcp / sqrt / rsqrt
            ops = []
            for rm in RM[1:]:
                for ftz in ["", ".ftz"]:
                    ops.append((f"div{rm}{ftz}.{ty} {{d}}, {{a}}, {{b}};", w, w))
                    ops.append((f"rcp{rm}{ftz}.{ty} {{d}}, {{a}};", w, w))
                    ops.append((f"sqrt{rm}{ftz}.{ty} {{d}}, {{a}};", w, w))
            ap = "bounded: ISA bound "
            if fmt == "f32":
                for ftz in ["", ".ftz"]:
                    ops.append((f"div.approx{ftz}.f32 {{d}}, {{a}}, {{b}};", w, w, ap + "2 ulp for |b| in [2^-126, 2^126]"))
                    ops.append((f"div.full{ftz}.f32 {{d}}, {{a}}, {{b}};", w, w, ap + "2 ulp"))
                    ops.append((f"rcp.approx{ftz}.f32 {{d}}, {{a}};", w, w, ap + "1 ulp"))
                    ops.append((f"sqrt.approx{ftz}.f32 {{d}}, {{a}};", w, w, ap + "rel 2^-23"))
                    ops.append((f"rsqrt.approx{ftz}.f32 {{d}}, {{a}};", w, w, ap + "rel 2^-22.9"))
            else:
                ops.append(("rcp.approx.ftz.f64 {d}, {a};", w, w, ap + "rel 2^-20 (approx, ftz)"))
                ops.append(("rsqrt.approx.f64 {d}, {a};", w, w, ap + "rel 2^-20 (approx)"))
                ops.append(("rsqrt.approx.ftz.f64 {d}, {a};", w, w, ap + "rel 2^-20 (approx)"))
            mcase(fam, f"div_rcp_sqrt_{ty}", ops, v2, comment=f"div/rcp/sqrt(/rsqrt).{ty}: IEEE forms every rounding"
                  " and ftz, and approx forms (bounded)")
    # transcendental approx
    r = rng("sw_trans")
    tv = specials("f32") + [rand_float("f32", r, -10, 10) for _ in range(300)] + \
        [struct.unpack("<I", struct.pack("<f", x))[0] for x in [math.pi, -math.pi, 100.0, 1e4, 128.0, -126.0, -150.0,
                                                                 0.5, 1e-3, 88.0, -88.0]]
    vals = [(x, 0, 0) for x in tv]
    ops = []
    for o, b in [("sin", "abs err 2^-20.5 in [-100pi, 100pi]"), ("cos", "abs err 2^-20.5 in [-100pi, 100pi]"),
                 ("lg2", "abs err 2^-22 / rel 2^-22"), ("ex2", "2 ulp (full range)"), ("tanh", "rel 2^-11")]:
        for ftz in ["", ".ftz"]:
            ops.append((f"{o}.approx{ftz}.f32 {{d}}, {{a}};", 32, 32, "bounded: ISA bound " + b))
    for o, b in [("ex2", "rel 2^-9.9 (f16)"), ("tanh", "rel 2^-10.987 (f16)")]:
        ops.append((f"{o}.approx.f16 %h1, {{a16}};\ncvt.u32.u16 {{d}}, %h1;", 32, 32, "bounded: ISA bound " + b))
        ops.append((f"{o}.approx.f16x2 {{d}}, {{a}};", 32, 32, "bounded: ISA bound " + b))
    ops.append(("ex2.approx.ftz.bf16 %h1, {a16};\ncvt.u32.u16 {d}, %h1;", 32, 32, "bounded: ISA bound (bf16 ex2)"))
    ops.append(("ex2.approx.ftz.bf16x2 {d}, {a};", 32, 32, "bounded: ISA bound (bf16x2 ex2)"))
    ops.append(("tanh.approx.bf16 %h1, {a16};\ncvt.u32.u16 {d}, %h1;", 32, 32, "bounded: ISA bound (bf16 tanh)"))
    mcase(fam, "approx_transcendental", ops, vals,
          comment="sin/cos/lg2/ex2/tanh approx (f32, f16, bf16); bounded: every op is approximate, see op notes\n"
                  "f16/bf16 forms read the low 16 bits (scalar) or the 32-bit word (x2)")
    # testp, setp/set/selp/slct
    for fmt in ["f32", "f64", "f16", "bf16"]:
        w = width(fmt)
        v2 = fvals2(fmt, "swc" + fmt, nrand=32, names=CMP_NAMES)
        ops = []
        CMPS = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]
        ty = fmt
        for c in CMPS:
            for ftz in ["", ".ftz"]:
                if fmt in ("f16", "bf16"):
                    ops.append((f"setp.{c}{ftz}.{ty} %p1|%p2, {{a}}, {{b}};\nselp.b32 {{d}}, 1, 0, %p1;\n"
                                "@%p2 or.b32 {d}, {d}, 2;", w, 32))
                    ops.append(("mov.b32 %r1, {{a16}, {b16}};\nmov.b32 %r2, {{b16}, {c16}};\n"
                                f"setp.{c}{ftz}.{ty}x2 %p1|%p2, %r1, %r2;\nselp.b32 {{d}}, 1, 0, %p1;\n"
                                "@%p2 or.b32 {d}, {d}, 2;", w, 32))
                    ops.append((f"set.{c}{ftz}.u32.{ty} {{d}}, {{a}}, {{b}};", w, 32))
                    ops.append(("mov.b32 %r1, {{a16}, {b16}};\nmov.b32 %r2, {{b16}, {c16}};\n"
                                f"set.{c}{ftz}.{ty}x2.{ty}x2 {{d}}, %r1, %r2;", w, 32))
                else:
                    ops.append((f"setp.{c}{ftz}.{ty} %p1|%p2, {{a}}, {{b}};\nselp.b32 {{d}}, 1, 0, %p1;\n"
                                "@%p2 or.b32 {d}, {d}, 2;", w, 32))
                    ops.append((f"set.{c}{ftz}.u32.{ty} {{d}}, {{a}}, {{b}};", w, 32))
                    ops.append((f"set.{c}{ftz}.f32.{ty} {{d}}, {{a}}, {{b}};", w, 32))
            if fmt in ("f32", "f64"):
                ops.append((f"setp.{c}.{ty} %p3, {{b}}, {{c}};\nsetp.{c}.and.{ty} %p1|%p2, {{a}}, {{b}}, !%p3;\n"
                            "selp.b32 {d}, 1, 0, %p1;\n@%p2 or.b32 {d}, {d}, 2;", w, 32))
        for t in ["finite", "infinite", "number", "notanumber", "normal", "subnormal"]:
            if fmt in ("f32", "f64"):
                ops.append((f"testp.{t}.{ty} %p1, {{a}};\nselp.b32 {{d}}, 1, 0, %p1;", w, 32))
        if fmt == "f32":
            ops.append(("slct.f32.f32 {d}, {b32}, {c32}, {a32};", 32, 32))
            ops.append(("slct.ftz.f32.f32 {d}, {b32}, {c32}, {a32};", 32, 32))
            ops.append(("slct.u32.f32 {d}, {b32}, {c32}, {a32};", 32, 32))
            ops.append(("slct.ftz.s32.f32 {d}, {b32}, {c32}, {a32};", 32, 32))
        mcase(fam, f"cmp_{fmt}", ops, v2, comment=f"setp/set (every cmp op, .ftz, x2, bool-op form), testp, slct on {fmt}:"
              "\nresult bit0 = first predicate, bit1 = second (setp p|q)")


def sweep_cvt():
    fam = "sweep"
    FT = ["f16", "bf16", "f32", "f64"]
    IT = ["u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"]
    IW = {t: int(t[1:]) for t in IT}
    REGOF = {8: 16, 16: 16, 32: 32, 64: 64}

    def fsrc(fmt):
        r = rng("cvt" + fmt)
        v = specials(fmt)
        if fmt != "f16":
            for k in [7, 8, 15, 16, 31, 32, 63, 64]:
                for d in [-1, 0, 1]:
                    x = float(2 ** k + d)
                    if fmt == "f32":
                        b = struct.unpack("<I", struct.pack("<f", x))[0]
                    elif fmt == "f64":
                        b = struct.unpack("<Q", struct.pack("<d", x))[0]
                    else:
                        b = struct.unpack("<I", struct.pack("<f", x))[0] >> 16
                    v += [b, b | (1 << (width(fmt) - 1))]
        for x in [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 127.5, 255.5, -128.5, 0.49999997, 32767.5, 65535.5]:
            b = struct.unpack("<Q", struct.pack("<d", x))[0]
            if fmt == "f16" and abs(x) > 65504:
                continue
            if fmt == "f32":
                b = struct.unpack("<I", struct.pack("<f", x))[0]
            elif fmt in ("f16", "bf16"):
                b = struct.unpack("<H", struct.pack("<e", x))[0] if fmt == "f16" else \
                    struct.unpack("<I", struct.pack("<f", x))[0] >> 16
            v.append(b)
        lo, hi = {"f16": (-14, 15), "bf16": (-40, 70), "f32": (-40, 70), "f64": (-80, 70)}[fmt]
        v += [rand_float(fmt, r, lo, hi) for _ in range(120)]
        v += [rand_float(fmt, r, -2, 20) for _ in range(60)]
        return v

    # float -> float
    for src in FT:
        sw = width(src)
        vals = [(x, 0, 0) for x in fsrc(src)]
        ops = []
        for dst in FT + ["tf32"]:
            dw = width(dst) if dst != "tf32" else 32
            if dst == "tf32" and src != "f32":
                continue
            for rm in ["", ".rn", ".rz", ".rm", ".rp", ".rna", ".rni", ".rzi", ".rmi", ".rpi"]:
                for mod in ["", ".ftz", ".sat", ".satfinite", ".relu", ".ftz.sat", ".relu.satfinite"]:
                    ops.append((f"cvt{rm}{mod}.{dst}.{src} %{'h' if dw == 16 else 'r' if dw == 32 else 'rd'}1, "
                                f"{{a}};\n" + ("cvt.u64.u16 {d}, %h1;" if dw == 16 else "cvt.u64.u32 {d}, %r1;"
                                               if dw == 32 else "mov.b64 {d}, %rd1;"), sw, 64))
        mcase(fam, f"cvt_float_from_{src}", ops, vals,
              comment=f"cvt to every float type (and tf32) from {src}: every rounding/ftz/sat/satfinite/relu "
                      "combination ptxas accepts; results zero-extended to 64 bits")
    # f32 pairs -> packed f16x2 / bf16x2, and f32 -> tf32 (every modifier)
    r = rng("cvtx2")
    fs = fsrc("f32")
    vals = [(x, fs[(i * 7 + 3) % len(fs)], 0) for i, x in enumerate(fs)] + \
        [(rand_float("f32", r, -30, 30), rand_float("f32", r, -30, 30), 0) for _ in range(64)]
    ops = []
    for dst in ["f16x2", "bf16x2"]:
        for rm in ["", ".rn", ".rz", ".rm", ".rp", ".rs"]:
            for mod in ["", ".relu", ".satfinite", ".relu.satfinite", ".ftz", ".sat"]:
                ops.append((f"cvt{rm}{mod}.{dst}.f32 {{d}}, {{a}}, {{b}};", 32, 32))
    mcase(fam, "cvt_x2_from_f32", ops, vals,
          comment="cvt.{rnd}{.relu}{.satfinite}.f16x2/bf16x2.f32 d, a, b (a -> upper half, b -> lower half)")
    # float -> int
    for src in FT:
        sw = width(src)
        vals = [(x, 0, 0) for x in fsrc(src)]
        ops = []
        for dst in IT:
            dw = IW[dst]
            rg = REGOF[dw]
            for rm in [".rni", ".rzi", ".rmi", ".rpi"]:
                for mod in ["", ".ftz", ".sat", ".ftz.sat"]:
                    reg = {16: "%h1", 32: "%r1", 64: "%rd1"}[rg]
                    ext = {16: "cvt.u64.u16 {d}, %h1;", 32: "cvt.u64.u32 {d}, %r1;", 64: "mov.b64 {d}, %rd1;"}[rg]
                    ops.append((f"cvt{rm}{mod}.{dst}.{src} {reg}, {{a}};\n{ext}", sw, 64))
        mcase(fam, f"cvt_int_from_{src}", ops, vals,
              comment=f"cvt {src} -> every integer type, every integer rounding, .ftz/.sat; zero-extended to 64 bits"
                      "\n(8-bit destinations are held in 16-bit registers: the upper byte is part of the result)")
    # int -> float and int -> int
    for src in IT:
        sw = IW[src]
        rg = REGOF[sw]
        r = rng("cvti" + src)
        e = int_edges(sw) + [(1 << k) + d for k in range(1, sw) for d in (-1, 1) if (1 << k) + d < (1 << sw)]
        e += [(1 << sw) - (1 << k) + d for k in range(1, sw) for d in (-1, 0, 1) if 0 <= (1 << sw) - (1 << k) + d <
              (1 << sw)]
        e = sorted(set(e)) + [r.getrandbits(sw) for _ in range(64)]
        if sw == 8:
            e = list(range(256)) + [0xff00 | x for x in (0, 1, 0x7f, 0x80, 0xff)]  # upper byte garbage too
        vals = [(x, 0, 0) for x in e]
        ops = []
        for dst in FT:
            dw = width(dst)
            for rm in ["", ".rn", ".rz", ".rm", ".rp", ".rna"]:
                for mod in ["", ".ftz", ".sat", ".satfinite", ".relu"]:
                    reg = {16: "%h1", 32: "%r1", 64: "%rd1"}[dw]
                    ext = {16: "cvt.u64.u16 {d}, %h1;", 32: "cvt.u64.u32 {d}, %r1;", 64: "mov.b64 {d}, %rd1;"}[dw]
                    ops.append((f"cvt{rm}{mod}.{dst}.{src} {reg}, {{a}};\n{ext}", rg, 64))
        for dst in IT:
            dw = IW[dst]
            drg = REGOF[dw]
            for mod in ["", ".sat"]:
                reg = {16: "%h1", 32: "%r1", 64: "%rd1"}[drg]
                ext = {16: "cvt.u64.u16 {d}, %h1;", 32: "cvt.u64.u32 {d}, %r1;", 64: "mov.b64 {d}, %rd1;"}[drg]
                ops.append((f"cvt{mod}.{dst}.{src} {reg}, {{a}};\n{ext}", rg, 64))
        mcase(fam, f"cvt_from_{src}", ops, vals,
              comment=f"cvt {src} -> every float type (every rounding) and every integer type (with/without .sat);"
                      "\nzero-extended to 64 bits; 8-bit types live in 16-bit registers")


def sweep_int():
    fam = "sweep"
    for w in (16, 32, 64):
        e = int_edges(w)
        r = rng(f"int{w}")
        vals = [(a, b, r.choice(e)) for a, b in cross2(e, e)]
        vals += [(r.getrandbits(w), r.getrandbits(w), r.getrandbits(w)) for _ in range(128)]
        ops = []
        for s in "us":
            t = f"{s}{w}"
            ops += [(f"add.{t} {{d}}, {{a}}, {{b}};", w, w), (f"sub.{t} {{d}}, {{a}}, {{b}};", w, w)]
            if s == "s" and w == 32:
                ops += [("add.sat.s32 {d}, {a}, {b};", w, w), ("sub.sat.s32 {d}, {a}, {b};", w, w)]
            for m in ["lo", "hi"]:
                ops.append((f"mul.{m}.{t} {{d}}, {{a}}, {{b}};", w, w))
                ops.append((f"mad.{m}.{t} {{d}}, {{a}}, {{b}}, {{c}};", w, w))
            if w < 64:
                wd = 2 * w
                reg = "%r1" if wd == 32 else "%rd1"
                ext = "mov.b64 {d}, %rd1;" if wd == 64 else "cvt.u64.u32 {d}, %r1;"
                ops.append((f"mul.wide.{t} {reg}, {{a}}, {{b}};\n{ext}", w, 64))
                cc = "{c32}" if wd == 32 else "{c64}"
                ops.append((f"mad.wide.{t} {reg}, {{a}}, {{b}}, {cc};\n{ext}", w, 64))
            if w == 32:
                ops.append(("mad.hi.sat.s32 {d}, {a}, {b}, {c};", w, w)) if s == "s" else None
                for m in ["lo", "hi"]:
                    ops.append((f"mul24.{m}.{t} {{d}}, {{a}}, {{b}};", w, w))
                    ops.append((f"mad24.{m}.{t} {{d}}, {{a}}, {{b}}, {{c}};", w, w))
                    if s == "s":
                        ops.append((f"mad24.{m}.sat.{t} {{d}}, {{a}}, {{b}}, {{c}};", w, w))
            ops.append((f"sad.{t} {{d}}, {{a}}, {{b}}, {{c}};", w, w))
            ops.append((f"min.{t} {{d}}, {{a}}, {{b}};", w, w))
            ops.append((f"max.{t} {{d}}, {{a}}, {{b}};", w, w))
            if s == "s" and w == 32:
                ops.append(("min.relu.s32 {d}, {a}, {b};", w, w))
                ops.append(("max.relu.s32 {d}, {a}, {b};", w, w))
            # div/rem with nonzero divisor: divisor = b | 1 keeps b's magnitude/sign class (zero divisor separate)
            ops.append((f"or.b{w} %{'h' if w == 16 else 'r' if w == 32 else 'rd'}5, {{b}}, 1;\n"
                        f"div.{t} {{d}}, {{a}}, %{'h' if w == 16 else 'r' if w == 32 else 'rd'}5;", w, w,
                        "divisor b|1"))
            ops.append((f"or.b{w} %{'h' if w == 16 else 'r' if w == 32 else 'rd'}5, {{b}}, 1;\n"
                        f"rem.{t} {{d}}, {{a}}, %{'h' if w == 16 else 'r' if w == 32 else 'rd'}5;", w, w,
                        "divisor b|1"))
            ops.append((f"div.{t} {{d}}, {{a}}, {{b}};", w, w, "divisor b (0 included: unspecified by the ISA)"))
            ops.append((f"rem.{t} {{d}}, {{a}}, {{b}};", w, w, "divisor b (0 included: unspecified by the ISA)"))
        ops.append((f"abs.s{w} {{d}}, {{a}};", w, w))
        ops.append((f"neg.s{w} {{d}}, {{a}};", w, w))
        if w == 32:
            for o in ["min", "max"]:
                for t in ["s16x2", "u16x2"]:
                    ops.append((f"{o}.{t} {{d}}, {{a}}, {{b}};", 32, 32))
                ops.append((f"{o}.relu.s16x2 {{d}}, {{a}}, {{b}};", 32, 32))
        mcase(fam, f"int{w}_arith", ops, vals, comment=f"integer {w}-bit arithmetic, every modifier; edge x edge + random")
        # bits
        sh = [0, 1, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 255, 0xffffffff]
        vals = [(a, b, r.choice(sh)) for a in e for b in sh] + \
            [(r.getrandbits(w), r.getrandbits(w), r.getrandbits(32)) for _ in range(128)]
        ops = []
        bt = f"b{w}"
        for o in ["and", "or", "xor"]:
            ops.append((f"{o}.{bt} {{d}}, {{a}}, {{b}};", w, w))
        ops += [(f"not.{bt} {{d}}, {{a}};", w, w), (f"cnot.{bt} {{d}}, {{a}};", w, w)]
        for o in ["shl.b", "shr.b", "shr.u", "shr.s"]:
            ops.append((f"{o}{w} {{d}}, {{a}}, {{b32}};", w, w))
        ops.append((f"popc.{bt} %r1, {{a}};\n" + ("cvt.u16.u32 {d}, %r1;" if w == 16 else
                    "mov.b32 {d}, %r1;" if w == 32 else "cvt.u64.u32 {d}, %r1;"), w, w))
        ops.append((f"clz.{bt} %r1, {{a}};\n" + ("cvt.u16.u32 {d}, %r1;" if w == 16 else
                    "mov.b32 {d}, %r1;" if w == 32 else "cvt.u64.u32 {d}, %r1;"), w, w))
        ops.append((f"brev.{bt} {{d}}, {{a}};", w, w))
        if w >= 32:
            for s in "us":
                for sa in ["", ".shiftamt"]:
                    ops.append((f"bfind{sa}.{s}{w} %r1, {{a}};\n" + ("mov.b32 {d}, %r1;" if w == 32 else
                                "cvt.u64.u32 {d}, %r1;"), w, w))
                ops.append((f"bfe.{s}{w} {{d}}, {{a}}, {{b32}}, {{c32}};", w, w))
            ops.append((f"bfi.{bt} {{d}}, {{a}}, {{b}}, {{b32}}, {{c32}};", w, w))
        if w == 32:
            for mode in ["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"]:
                ops.append((f"prmt.b32{mode} {{d}}, {{a}}, {{b}}, {{c}};", 32, 32))
            for d in ["l", "r"]:
                for m in ["wrap", "clamp"]:
                    ops.append((f"shf.{d}.{m}.b32 {{d}}, {{a}}, {{b}}, {{c}};", 32, 32))
            for lut in [0x00, 0xff, 0x96, 0xe8, 0xca, 0xf8, 0x80, 0x1e, 0x6a, 0xb4, 0x3c, 0xfe]:
                ops.append((f"lop3.b32 {{d}}, {{a}}, {{b}}, {{c}}, 0x{lut:02x};", 32, 32))
            ops.append(("fns.b32 {d}, {a}, {b}, {c};", 32, 32, "offset c, base b"))
            ops.append(("and.b32 %r1, {c}, 63;\nfns.b32 {d}, {a}, %r1, {b};", 32, 32, "b as offset (small)"))
            ops.append(("bmsk.clamp.b32 {d}, {a}, {b};", 32, 32))
            ops.append(("bmsk.wrap.b32 {d}, {a}, {b};", 32, 32))
            ops.append(("szext.clamp.s32 {d}, {a}, {b};", 32, 32))
            ops.append(("szext.wrap.u32 {d}, {a}, {b};", 32, 32))
            for s1 in "us":
                for s2 in "us":
                    ops.append((f"dp4a.{s1}32.{s2}32 {{d}}, {{a}}, {{b}}, {{c}};", 32, 32))
                    ops.append((f"dp2a.lo.{s1}32.{s2}32 {{d}}, {{a}}, {{b}}, {{c}};", 32, 32))
                    ops.append((f"dp2a.hi.{s1}32.{s2}32 {{d}}, {{a}}, {{b}}, {{c}};", 32, 32))
        mcase(fam, f"bits{w}", ops, vals, comment=f"{w}-bit logic/shift/bit-field/popc/clz/brev/bfind/prmt/shf/lop3/fns ...;"
              " b operand doubles as shift amount/position, c as length/selector")
        # integer compare
        vals = [(a, b, r.choice(e)) for a, b in cross2(e, e)]
        ops = []
        for t in [f"u{w}", f"s{w}", f"b{w}"]:
            for c in ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"]:
                if t[0] == "u" and c in ("lo", "ls", "hi", "hs"):
                    pass
                if t[0] == "s" and c in ("lo", "ls", "hi", "hs"):
                    continue
                if t[0] == "b" and c not in ("eq", "ne"):
                    continue
                if t[0] == "u" and c in ("lt", "le", "gt", "ge"):
                    pass
                ops.append((f"setp.{c}.{t} %p1|%p2, {{a}}, {{b}};\nselp.b32 %r1, 1, 0, %p1;\n@%p2 or.b32 %r1, %r1, 2;\n"
                            + ("cvt.u16.u32 {d}, %r1;" if w == 16 else "mov.b32 {d}, %r1;" if w == 32 else
                               "cvt.u64.u32 {d}, %r1;"), w, w))
                ops.append((f"set.{c}.u32.{t} %r1, {{a}}, {{b}};\n" + ("cvt.u16.u32 {d}, %r1;" if w == 16 else
                            "mov.b32 {d}, %r1;" if w == 32 else "cvt.u64.u32 {d}, %r1;"), w, w))
                ops.append((f"setp.{c}.{t} %p3, {{b}}, {{c}};\nsetp.{c}.xor.{t} %p1, {{a}}, {{b}}, %p3;\n"
                            f"selp.b{w} {{d}}, {{a}}, {{b}}, %p1;", w, w))
        if w >= 32:
            ops.append((f"slct.b{w}.s32 {{d}}, {{a}}, {{b}}, {{c32}};", w, w))
            ops.append((f"slct.u{w}.s32 {{d}}, {{a}}, {{b}}, {{c32}};", w, w))
        mcase(fam, f"icmp{w}", ops, vals, comment=f"setp/set/selp/slct on {w}-bit integers, every comparison; "
              "bit0/bit1 = the two predicates of setp p|q")


def main():
    import shutil
    for d in ["cases", "ptx"]:
        for sub in ONLY18:
            p = os.path.join(PEND, d, sub)
            if os.path.isdir(p):
                shutil.rmtree(p)
    gen_carry()
    gen_bf16_round()
    gen_nan()
    gen_tf32()
    gen_hand()
    sweep_float()
    sweep_cvt()
    sweep_int()
    with open(os.path.join(HERE, "issue18_batch.txt"), "w") as f:
        f.write("# issue 18 batch (gen/gen_issue18.py), recorded on an NVIDIA H100 (expected/RECORDED_ON.txt)\n")
        for c in CASES:
            f.write(f"tests/conformance/cases/{c}.case\n")
    print(f"{len(CASES)} cases, {LANES[0]} op-lanes in multi-op cases")


if __name__ == "__main__":
    main()
