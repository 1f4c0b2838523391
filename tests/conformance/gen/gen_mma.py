"""Warp matrix cases (family mma): mma.sync of every shape and type of sm_70..sm_90 (the quad-pair m8n8k4 .f16
form excepted), wmma load/mma/store of every shape and type, movmatrix.

generated cases are written by gen/gen_mma.py (called from gen/gen.py); only cases/mma/ and ptx/mma/.
One warp, one kernel k(pA, pB, pC, pD) per case.
  * mma.sync: lane l loads its fragment registers from A/B/C at l * (registers of the fragment) and stores D the
    same way, so the case checks the PTX ISA fragment layouts as well as the arithmetic;
  * wmma: the fragments are opaque, so A, B, C are matrices in memory (wmma.load, the layouts and strides of
    the case name) and D is stored with wmma.store.
Inputs: 'int' cases use small integers (every product and sum exact: layouts only); 'rand' cases random values
(the rounding of the sums: the PTX ISA gives no bound, NVIDIA's results are the reference); integer and b1
forms take raw random bits (wrap-around and .satfinite clamping included).
Every case compares exact.
"""
import random
import struct

from gen_core import wfile, write_case

FAM = "mma"
VER, TGT = "8.4", "sm_90"

BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "s8": 8, "u8": 8, "s4": 4, "u4": 4, "b1": 1,
        "s32": 32, "e4m3": 8, "e5m2": 8}
_rng = random.Random(20261201)
_seed = [1000]


def words(rows, cols, t):
    return rows * cols * BITS[t] // 1024


def regtype(t):
    return {"f32": ".f32", "f64": ".f64"}.get(t, ".b32")


def nregs(w, t):
    return w // 2 if t == "f64" else w


def seed():
    _seed[0] += 1
    return _seed[0]


def init(t, nbytes, kind, acc=False):
    """buffer init of nbytes holding elements of type t"""
    s = seed()
    if t in ("s8", "u8", "s4", "u4", "b1", "s32"):
        return f"prng {s} u32"
    if t in ("e4m3", "e5m2"):
        if kind == "int":  # -2 -1 0 1 2
            codes = [0xc0, 0xb8, 0x00, 0x38, 0x40] if t == "e4m3" else [0xc0, 0xbc, 0x00, 0x3c, 0x40]
            out = [_rng.choice(codes) for _ in range(nbytes)]
        else:  # random bytes without the NaN (and e5m2 infinity) patterns
            bad = (lambda b: (b & 0x7f) == 0x7f) if t == "e4m3" else (lambda b: (b & 0x7c) == 0x7c)
            out = []
            while len(out) < nbytes:
                b = _rng.randrange(256)
                if not bad(b):
                    out.append(b)
        return "hex " + "".join("%02x" % b for b in out)
    et = "f32" if t == "tf32" else t
    if kind == "int":
        return _small_ints(et, nbytes)
    lo, hi = (-1.0, 1.0) if not acc else (-4.0, 4.0)
    if kind == "big":  # f16 sums past 65504 (overflow of an f16 accumulator), f32 ones far from it
        lo, hi = -300.0, 300.0
    if kind == "spec" and et in ("f16", "bf16"):  # random values with 1 in 16 an infinity, NaN, max or subnormal
        n = nbytes // 2
        sp = ["0x7c00", "0xfc00", "0x7e00", "0x7bff", "0xfbff", "0x0001", "0x8001", "0x0000", "0x8000"] if et == "f16" \
            else ["0x7f80", "0xff80", "0x7fc0", "0x7f7f", "0xff7f", "0x0001", "0x8001", "0x0000", "0x8000"]
        vals = []
        for _ in range(n):
            if _rng.randrange(16) == 0:
                vals.append(_rng.choice(sp))
            elif et == "f16":
                vals.append("0x%04x" % struct.unpack("<H", struct.pack("<e", _rng.uniform(-8.0, 8.0)))[0])
            else:
                vals.append("0x%04x" % (struct.unpack("<I", struct.pack("<f", _rng.uniform(-8.0, 8.0)))[0] >> 16))
        return f"values {et} " + " ".join(vals)
    if et in ("f16", "bf16"):  # the harness's prng has no 16-bit floats
        n = nbytes // 2
        if et == "f16":
            bits = [struct.unpack("<H", struct.pack("<e", _rng.uniform(lo, hi)))[0] for _ in range(n)]
        else:
            bits = [struct.unpack("<I", struct.pack("<f", _rng.uniform(lo, hi)))[0] >> 16 for _ in range(n)]
        return f"values {et} " + " ".join("0x%04x" % b for b in bits)
    return f"prng {s} {et} {lo:g} {hi:g}"


def _small_ints(t, nbytes):
    """values from {-2..2} (exact products and sums in every type)"""
    n = nbytes // (BITS[t] // 8)
    vals = [_rng.randrange(-2, 3) for _ in range(n)]
    enc = {
        "f16": {-2: "0xc000", -1: "0xbc00", 0: "0x0000", 1: "0x3c00", 2: "0x4000"},
        "bf16": {-2: "0xc000", -1: "0xbf80", 0: "0x0000", 1: "0x3f80", 2: "0x4000"},
        "f32": {-2: "0xc0000000", -1: "0xbf800000", 0: "0x00000000", 1: "0x3f800000", 2: "0x40000000"},
        "f64": {-2: "0xc000000000000000", -1: "0xbff0000000000000", 0: "0x0000000000000000",
                1: "0x3ff0000000000000", 2: "0x4000000000000000"},
    }[t]
    return f"values {t} " + " ".join(enc[v] for v in vals)


def kernel_head(regs, ver=VER):
    decl = "".join(f"\t.reg {t} %{n}<{c}>;\n" for n, t, c in regs if c)
    return (f".version {ver}\n.target {TGT}\n.address_size 64\n\n"
            ".visible .entry k(.param .u64 pA, .param .u64 pB, .param .u64 pC, .param .u64 pD)\n{\n"
            "\t.reg .b64 %p<8>;\n\t.reg .b32 %l;\n" + decl +
            "\tld.param.u64 %p0, [pA];\n\tld.param.u64 %p1, [pB];\n\tld.param.u64 %p2, [pC];\n"
            "\tld.param.u64 %p3, [pD];\n\tcvta.to.global.u64 %p0, %p0;\n\tcvta.to.global.u64 %p1, %p1;\n"
            "\tcvta.to.global.u64 %p2, %p2;\n\tcvta.to.global.u64 %p3, %p3;\n")


def vec(name, n):
    return "{" + ", ".join(f"%{name}{i}" for i in range(n)) + "}"


def ldst_regs(op, name, t, n, ptr, base_words):
    """ld/st of n registers of type t at ptr + lane * base_words words"""
    sz = 8 if t == "f64" else 4
    ty = ".f64" if t == "f64" else ".f32" if t == "f32" else ".b32"
    out = f"\tmul.wide.u32 %p4, %l, {base_words * 4};\n\tadd.u64 %p5, %{ptr}, %p4;\n"
    for i in range(n):
        if op == "ld":
            out += f"\tld.global{ty} %{name}{i}, [%p5+{i * sz}];\n"
        else:
            out += f"\tst.global{ty} [%p5+{i * sz}], %{name}{i};\n"
    return out


def case(name, ptx, bufs, comment):
    wfile(f"ptx/{FAM}/{name}.ptx", f"// generated by gen/gen_mma.py\n{ptx}")
    lines = [f"ptx ptx/{FAM}/{name}.ptx"]
    lines += ["buffer " + b for b in bufs]
    lines += ["kernel k", "grid 1 1 1", "block 32 1 1", "param ptr A", "param ptr B", "param ptr C", "param ptr D",
              "output D"]
    write_case(FAM, name, "\n".join(lines) + "\n", "generated by gen/gen_mma.py\n" + comment)


def mma_case(m, n, k, td, ta, tb, tc, kind, satf=False, bop=None, probe=None):
    """probe: dict(name, bufs, comment, ver) of a probe_* case (fixed inputs) instead of the generated ones"""
    ka = k
    wa, wb = words(m, ka, ta), words(ka, n, tb)
    wc, wd = words(m, n, tc), words(m, n, td)
    ra, rb, rc, rd = nregs(wa, ta), nregs(wb, tb), nregs(wc, tc), nregs(wd, td)
    sat = ".satfinite" if satf else ""
    op = f".{bop}.popc" if bop else ""
    ins = f"mma.sync.aligned.m{m}n{n}k{k}.row.col{sat}.{td}.{ta}.{tb}.{tc}{op}"
    name = f"mma_m{m}n{n}k{k}_{td}_{ta}_{tb}_{tc}" + ("_sat" if satf else "") + (f"_{bop}" if bop else "") + f"_{kind}"
    regs = [("a", ".f64" if ta == "f64" else ".b32", ra), ("b", ".f64" if tb == "f64" else ".b32", rb),
            ("c", regtype(tc), rc), ("d", regtype(td), rd)]
    body = kernel_head(regs, probe["ver"] if probe else VER) + "\tmov.u32 %l, %tid.x;\n"
    body += ldst_regs("ld", "a", ta if ta == "f64" else "b32", ra, "p0", wa)
    body += ldst_regs("ld", "b", tb if tb == "f64" else "b32", rb, "p1", wb)
    body += ldst_regs("ld", "c", tc if tc in ("f32", "f64") else "b32", rc, "p2", wc)
    body += f"\t{ins} {vec('d', rd)}, {vec('a', ra)}, {vec('b', rb)}, {vec('c', rc)};\n"
    body += ldst_regs("st", "d", td if td in ("f32", "f64") else "b32", rd, "p3", wd)
    body += "\tret;\n}\n"
    if probe:
        case(probe["name"], body, probe["bufs"] + [f"D {wd * 128} fill cd"], f"{ins}: {probe['comment']}")
        return
    bufs = [f"A {wa * 128} " + init(ta, wa * 128, kind), f"B {wb * 128} " + init(tb, wb * 128, kind),
            f"C {wc * 128} " + init(tc, wc * 128, kind, acc=True), f"D {wd * 128} fill cd"]
    case(name, body, bufs, f"{ins}: fragments by lane (PTX ISA layouts), {kind} inputs")


# wmma: fragment registers per PTX (f16 A/B: 8 whatever the shape)
def wmma_regs(frag, rows, cols, t):
    if t == "f16" and frag in "ab":
        return 8
    return nregs(words(rows, cols, t), t)


def wmma_case(m, n, k, td, ta, tb, tc, kind, la="row", lb="col", lc="row", ld_="row", stride=False, satf=False,
              bop=None, space="global"):
    eb = {t: BITS[t] for t in (ta, tb, tc, td)}
    dims = {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}
    lays = {"a": la, "b": lb, "c": lc, "d": ld_}
    types = {"a": ta, "b": tb, "c": tc, "d": td}
    pad = 8 if stride else 0
    if eb[ta] < 8 and stride:
        pad = 128 if ta == "b1" else 32
    lds, sizes = {}, {}
    for f in "abcd":
        r, c = dims[f]
        lead = c if lays[f] == "row" else r
        lds[f] = lead + (pad if f in "ab" or eb[types[f]] >= 8 else 0)
        outer = r if lays[f] == "row" else c
        sizes[f] = max(16, outer * lds[f] * eb[types[f]] // 8)
    regs_n = {f: wmma_regs(f, *dims[f], types[f]) for f in "abcd"}
    regs = [(f, ".f64" if types[f] == "f64" else regtype(types[f]) if f in "cd" else ".b32", regs_n[f]) for f in "abcd"]
    body = kernel_head(regs) + "\t.reg .b32 %s<4>;\n"
    shape = f"m{m}n{n}k{k}"
    ptrs = {"a": "p0", "b": "p1", "c": "p2", "d": "p3"}
    sp = "" if space == "generic" else f".{space}"
    if space == "generic":
        body += "".join(f"\tcvta.global.u64 %{p}, %{p};\n" for p in ptrs.values())
    for i, f in enumerate("abcd"):
        body += f"\tmov.u32 %s{i}, {lds[f]};\n"
    st = {f: (f", %s{'abcd'.index(f)}" if stride else "") for f in "abcd"}
    for f in "abc":
        body += (f"\twmma.load.{f}.sync.aligned.{lays[f]}.{shape}{sp}.{types[f]} {vec(f, regs_n[f])}, "
                 f"[%{ptrs[f]}]{st[f]};\n")
    sat = ".satfinite" if satf else ""
    rn = ".rn" if ta == "f64" else ""
    if ta == "f16":
        ins = f"wmma.mma.sync.aligned.{la}.{lb}.{shape}.{td}.{tc}{sat}"
    elif bop:
        ins = f"wmma.mma.{bop}.popc.sync.aligned.{la}.{lb}.{shape}.{td}.{ta}.{tb}.{tc}"
    else:
        ins = f"wmma.mma.sync.aligned.{la}.{lb}.{shape}{rn}.{td}.{ta}.{tb}.{tc}{sat}"
    body += f"\t{ins} {vec('d', regs_n['d'])}, {vec('a', regs_n['a'])}, {vec('b', regs_n['b'])}, {vec('c', regs_n['c'])};\n"
    body += f"\twmma.store.d.sync.aligned.{ld_}.{shape}{sp}.{td} [%p3], {vec('d', regs_n['d'])}{st['d']};\n"
    body += "\tret;\n}\n"
    name = (f"wmma_{shape}_{td}_{ta}_{tc}_{la[0]}{lb[0]}{lc[0]}{ld_[0]}" + ("_stride" if stride else "") +
            ("_sat" if satf else "") + (f"_{bop}" if bop else "") + ("" if space == "global" else f"_{space}") +
            f"_{kind}")
    bufs = [f"A {sizes['a']} " + init(ta, sizes["a"], kind), f"B {sizes['b']} " + init(tb, sizes["b"], kind),
            f"C {sizes['c']} " + init(tc, sizes["c"], kind, acc=True), f"D {sizes['d']} fill cd"]
    case(name, body, bufs, f"{ins}: wmma.load/store layouts {la}/{lb}/{lc}/{ld_}"
         f"{' with strides' if stride else ''}, {kind} inputs")


def movmatrix_case():
    body = kernel_head([("a", ".b32", 1), ("d", ".b32", 1)]) + "\tmov.u32 %l, %tid.x;\n"
    body += ldst_regs("ld", "a", "b32", 1, "p0", 1)
    body += "\tmovmatrix.sync.aligned.m8n8.trans.b16 %d0, %a0;\n"
    body += ldst_regs("st", "d", "b32", 1, "p3", 1)
    body += "\tret;\n}\n"
    case("movmatrix_m8n8_trans_b16", body, [f"A 128 prng {seed()} u32", "B 4 zeros", "C 4 zeros", "D 128 fill cd"],
         "movmatrix.sync.aligned.m8n8.trans.b16: the transpose of the ldmatrix fragment layout")


def gen_all():
    for kind in ("int", "rand"):
        for (m, n, k) in ((16, 8, 8), (16, 8, 16)):
            for td in ("f32", "f16"):  # mma.sync: .dtype = .ctype for .f16 inputs
                mma_case(m, n, k, td, "f16", "f16", td, kind)
            mma_case(m, n, k, "f32", "bf16", "bf16", "f32", kind)
        for k in (4, 8):
            mma_case(16, 8, k, "f32", "tf32", "tf32", "f32", kind)
        for (m, k) in ((8, 4), (16, 4), (16, 8), (16, 16)):
            mma_case(m, 8, k, "f64", "f64", "f64", "f64", kind)
        for ta, tb in (("e4m3", "e4m3"), ("e4m3", "e5m2"), ("e5m2", "e4m3"), ("e5m2", "e5m2")):
            mma_case(16, 8, 32, "f32", ta, tb, "f32", kind)
    for kind in ("spec", "big"):
        mma_case(16, 8, 16, "f32", "f16", "f16", "f32", kind)
        mma_case(16, 8, 16, "f16", "f16", "f16", "f16", kind)
        mma_case(16, 8, 8, "f16", "f16", "f16", "f16", kind)
        mma_case(16, 8, 16, "f32", "bf16", "bf16", "f32", kind)
        wmma_case(16, 16, 16, "f16", "f16", "f16", "f16", kind)
        wmma_case(16, 16, 16, "f32", "f16", "f16", "f32", kind)
    for (m, k) in ((8, 16), (16, 16), (16, 32)):
        for ta, tb in (("s8", "s8"), ("u8", "s8"), ("s8", "u8"), ("u8", "u8")):
            mma_case(m, 8, k, "s32", ta, tb, "s32", "rand")
        mma_case(m, 8, k, "s32", "s8", "u8", "s32", "rand", satf=True)
    for (m, k) in ((8, 32), (16, 32), (16, 64)):
        for ta, tb in (("s4", "s4"), ("u4", "s4"), ("s4", "u4"), ("u4", "u4")):
            mma_case(m, 8, k, "s32", ta, tb, "s32", "rand")
        mma_case(m, 8, k, "s32", "u4", "s4", "s32", "rand", satf=True)
    for (m, k) in ((8, 128), (16, 128), (16, 256)):
        for bop in ("xor", "and"):
            mma_case(m, 8, k, "s32", "b1", "b1", "s32", "rand", bop=bop)
    movmatrix_case()
    # wmma
    for kind in ("int", "rand"):
        for (m, n, k) in ((16, 16, 16), (32, 8, 16), (8, 32, 16)):
            for td, tc in (("f32", "f32"), ("f16", "f16"), ("f32", "f16"), ("f16", "f32")):
                wmma_case(m, n, k, td, "f16", "f16", tc, kind)
            wmma_case(m, n, k, "f32", "bf16", "bf16", "f32", kind)
        wmma_case(16, 16, 8, "f32", "tf32", "tf32", "f32", kind)
        wmma_case(8, 8, 4, "f64", "f64", "f64", "f64", kind)
    wmma_case(16, 16, 16, "f32", "f16", "f16", "f32", "int", la="col", lb="row", lc="col", ld_="col", stride=True)
    wmma_case(32, 8, 16, "f16", "f16", "f16", "f16", "int", la="col", lb="col", lc="col", ld_="row", stride=True)
    wmma_case(8, 32, 16, "f32", "bf16", "bf16", "f32", "int", la="row", lb="row", lc="col", ld_="col", stride=True)
    wmma_case(16, 16, 8, "f32", "tf32", "tf32", "f32", "rand", la="col", lb="row", lc="col", ld_="row", stride=True)
    wmma_case(8, 8, 4, "f64", "f64", "f64", "f64", "rand", la="col", lb="row", lc="col", ld_="col", stride=True)
    wmma_case(16, 16, 16, "f32", "f16", "f16", "f32", "int", space="generic")
    for (m, n, k) in ((16, 16, 16), (32, 8, 16), (8, 32, 16)):
        for ta in ("s8", "u8"):
            wmma_case(m, n, k, "s32", ta, ta, "s32", "rand")
        wmma_case(m, n, k, "s32", "s8", "s8", "s32", "rand", satf=True, la="col", lb="row", stride=True)
    for ta in ("s4", "u4"):
        wmma_case(8, 8, 32, "s32", ta, ta, "s32", "rand")
    wmma_case(8, 8, 32, "s32", "s4", "s4", "s32", "rand", satf=True, stride=True)
    for bop in ("xor", "and"):
        wmma_case(8, 8, 128, "s32", "b1", "b1", "s32", "rand", bop=bop)
    wmma_case(8, 8, 128, "s32", "b1", "b1", "s32", "rand", bop="xor", stride=True, lc="col", ld_="col")
    gen_probes()


# ---- probe_* cases: fixed inputs chosen to decide what the 'rand'/'spec'/'big' recordings leave open in the
# tensor-core accumulation model (gen/fit_mma.py): whether a zero or subnormal input's exponent takes part in the
# alignment of the terms, the sign of a zero result, fp8 specials, and the fp8 forms of PTX ISA 8.7 (m16n8k16,
# .f16 accumulation). Their own random generator, so the cases above do not change.
_prng = random.Random(20261202)


def frag_elems(m, n, k, t, x, mat):
    """the elements of matrix mat (x: 'a' m x k, 'b' k x n, 'c' m x n) in buffer order: lane l's fragment
    registers at l * (registers of the fragment), the PTX ISA mma.sync layouts (abi/mx_forms.h)"""
    rows, cols = {"a": (m, k), "b": (k, n), "c": (m, n)}[x]
    bits = BITS[t]
    P = 32 // bits if bits < 32 else 1
    out = []
    for lane in range(32):
        g, tg = lane >> 2, lane & 3
        for slot in range(rows * cols // 32):
            j, e = slot // P, slot % P
            if x == "a":
                r, c = (g + 8 * (j & 1), tg * P + e + 4 * P * (j >> 1)) if m == 16 else (g, tg * P + e)
            elif x == "b":
                r, c = tg * P + e + 4 * P * j, g
            else:
                r, c = g + 8 * (slot >> 1), 2 * tg + (slot & 1)
            out.append(mat[r][c])
    return out


def frag_buf(name, m, n, k, t, x, mat):
    el = frag_elems(m, n, k, t, x, mat)
    nbytes = len(el) * BITS[t] // 8
    if BITS[t] == 8:
        return f"{name} {nbytes} hex " + "".join("%02x" % v for v in el)
    return f"{name} {nbytes} values {t} " + " ".join(("0x%04x" if BITS[t] == 16 else "0x%08x") % v for v in el)


def f16_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def rand_f16_exp(e):
    """random f16 of magnitude [2^e, 2^(e+1)), random sign and full significand"""
    return (_prng.randrange(2) << 15) | ((e + 15) << 10) | _prng.randrange(1 << 10)


def rand_f32_exp(e):
    return (_prng.randrange(2) << 31) | ((e + 127) << 23) | _prng.randrange(1 << 23)


def probe_f16_edges():
    """m16n8k16 f32.f16: rows 0-11 and columns hold one edge value at k = 0 (zeros, subnormals, 65504, 1024, ...),
    every other A, B element in +-[2^-8, 2^-7) and C in +-[2^-12, 2^-11) with full significands, so a zero or
    subnormal factor's exponent, if it takes part in the alignment, truncates C visibly (B columns 4-7
    positive); rows 12-14 are all +0,
    all -0, mixed-sign zeros (with C +-0: the sign of a zero sum); row 15 0 then quarters, C the negated exact
    sum (an exact zero result: its sign)"""
    ea = [0x7bff, 0xfbff, 0x6400, 0x0001, 0x03ff, 0x0200, 0x0000, 0x8000, 0x3c00, 0x0400, 0x5800, 0x2c00]
    eb = [0x0000, 0x8000, 0x6400, 0x7bff, 0x0001, 0x03ff, 0x3c00, 0x0400]
    A = [[rand_f16_exp(-8) for _ in range(16)] for _ in range(16)]
    B = [[rand_f16_exp(-8) for _ in range(8)] for _ in range(16)]
    C = [[rand_f32_exp(-12) for _ in range(8)] for _ in range(16)]
    for r, v in enumerate(ea):
        A[r][0] = v
    for c, v in enumerate(eb):
        B[0][c] = v
    for k in range(1, 16):  # columns 4-7 positive: all-(-0) products in row 13
        for c in range(4, 8):
            B[k][c] &= 0x7fff
    A[12] = [0x0000] * 16
    A[13] = [0x8000] * 16
    A[14] = [_prng.choice((0x0000, 0x8000)) for _ in range(16)]
    for r in (12, 13, 14):
        C[r] = [0x00000000 if c % 2 == 0 else 0x80000000 for c in range(8)]
    A[15] = [0] + [f16_bits(_prng.choice((-0.75, -0.5, -0.25, 0.25, 0.5, 0.75))) for _ in range(15)]
    for c in range(8):
        s = sum(struct.unpack("<e", struct.pack("<H", A[15][k]))[0] * struct.unpack("<e", struct.pack("<H", B[k][c]))[0]
                for k in range(16))
        assert struct.unpack("<f", struct.pack("<f", -s))[0] == -s, "row 15: the sum must be exact in f32"
        C[15][c] = f32_bits(-s)
    bufs = [frag_buf("A", 16, 8, 16, "f16", "a", A), frag_buf("B", 16, 8, 16, "f16", "b", B),
            frag_buf("C", 16, 8, 16, "f32", "c", C)]
    mma_case(16, 8, 16, "f32", "f16", "f16", "f32", "probe", probe=dict(
        name="probe_mma_m16n8k16_f32_f16_edges", bufs=bufs, ver=VER,
        comment="fragments by lane, edge inputs (zero/subnormal exponents in the alignment, signs of zero sums)"))


def code_value(t, code):
    e, m = (4, 3) if t == "e4m3" else (5, 2)
    s, ex, man = code >> 7, (code >> m) & ((1 << e) - 1), code & ((1 << m) - 1)
    bias = (1 << (e - 1)) - 1
    if t == "e4m3" and ex == 15 and man == 7:
        return float("nan")
    if t == "e5m2" and ex == 31:
        return float("nan") if man else float("inf") * (-1 if s else 1)
    v = man * 2.0 ** (1 - bias - m) if ex == 0 else (1 + man / (1 << m)) * 2.0 ** (ex - bias)
    return -v if s else v


def rand_fp8(t, special=False, maxmag=float("inf")):
    """a random finite fp8 code of magnitude <= maxmag (zeros and subnormals 1 in 4); special: NaN / infinity"""
    if special:
        return _prng.choice([0x7f, 0xff] if t == "e4m3" else [0x7c, 0xfc, 0x7d, 0xfe])
    while True:
        c = _prng.randrange(256)
        v = code_value(t, c)
        if abs(v) <= min(maxmag, 57344.0):  # finite (NaN compares false)
            break
    if _prng.randrange(4) == 0:
        c = (c & 0x80) | _prng.randrange(8 if t == "e4m3" else 4)  # zero or subnormal
    return c


def probe_fp8_spec():
    """m16n8k32 f32.e4m3.e5m2: zeros and subnormals frequent; rows 14-15 of A one NaN each, columns 5-6 of B one
    infinity or NaN each, column 7 a +inf and a -inf (at random k); C: random with +-0, +-inf, NaN, a subnormal
    at fixed places"""
    A = [[rand_fp8("e4m3") for _ in range(32)] for _ in range(16)]
    B = [[rand_fp8("e5m2") for _ in range(8)] for _ in range(32)]
    for r in (14, 15):
        A[r][_prng.randrange(32)] = rand_fp8("e4m3", True)
    for c in (5, 6):
        B[_prng.randrange(32)][c] = rand_fp8("e5m2", True)
    ks = _prng.sample(range(32), 2)
    B[ks[0]][7], B[ks[1]][7] = 0x7c, 0xfc
    C = [[rand_f32_exp(_prng.randrange(-4, 3)) for _ in range(8)] for _ in range(16)]
    for (r, c), v in zip([(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (8, 0), (9, 5), (5, 6)],
                         [0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x80000000, 0x7f800000, 0x00000001]):
        C[r][c] = v
    bufs = [frag_buf("A", 16, 8, 32, "e4m3", "a", A), frag_buf("B", 16, 8, 32, "e5m2", "b", B),
            frag_buf("C", 16, 8, 32, "f32", "c", C)]
    mma_case(16, 8, 32, "f32", "e4m3", "e5m2", "f32", "probe", probe=dict(
        name="probe_mma_m16n8k32_f32_e4m3_e5m2_spec", bufs=bufs, ver=VER,
        comment="fragments by lane, fp8 zeros, subnormals, NaN and infinity codes, C with +-0, +-inf, NaN"))


def probe_fp8_ptx87():
    """the fp8 forms of PTX ISA 8.7: m16n8k16 with f32 accumulation, m16n8k32 with f16 accumulation (rand)"""
    for (k, td, ta, tb) in ((16, "f32", "e4m3", "e4m3"), (16, "f32", "e5m2", "e4m3"), (32, "f16", "e4m3", "e4m3"),
                            (32, "f16", "e5m2", "e5m2")):
        lim = float("inf") if td == "f32" else 16.0  # f16 sums: inputs up to 16, no overflow
        A = [[rand_fp8(ta, maxmag=lim) for _ in range(k)] for _ in range(16)]
        B = [[rand_fp8(tb, maxmag=lim) for _ in range(8)] for _ in range(k)]
        cv = f32_bits if td == "f32" else f16_bits
        C = [[cv(_prng.uniform(-4.0, 4.0)) for _ in range(8)] for _ in range(16)]
        bufs = [frag_buf("A", 16, 8, k, ta, "a", A), frag_buf("B", 16, 8, k, tb, "b", B),
                frag_buf("C", 16, 8, k, td, "c", C)]
        mma_case(16, 8, k, td, ta, tb, td, "probe", probe=dict(
            name=f"probe_mma_m16n8k{k}_{td}_{ta}_{tb}_{td}_rand", bufs=bufs, ver="8.7",
            comment="fragments by lane, random fp8 (zeros and subnormals 1 in 4), PTX ISA 8.7 form"))


def gen_probes():
    probe_f16_edges()
    probe_fp8_spec()
    probe_fp8_ptx87()


if __name__ == "__main__":
    gen_all()
