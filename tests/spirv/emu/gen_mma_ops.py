#!/usr/bin/env python3
"""Writes mma_ops.ptx and mma_ops.h next to this file: one kernel per generic warp-matrix form (driver-stub/cpu/
mx_forms.h; mma.sp included) for emu_mma.c, which runs the SPIR-V target's lowering of each (emit_lanes_mma.c) and compares it
with the CPU runtime (cpu_mma.c).

  mma.sync kernels km<i>(out, in): lane l loads A, B, C words from in + 128 l (A, B, C back to back, the order
    of the runtime's io block) and stores D at out + 128 l;
  wmma kernels: wmma.load of A (in + 0), B (in + 4096), C (in + 8192) with their default strides, wmma.mma,
    wmma.store of D at out; movmatrix: one word per lane.
Run it after changing the form list; the outputs are committed (the test needs no Python)."""
import os

BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "s8": 8, "u8": 8, "s4": 4, "u4": 4, "b1": 1,
        "s32": 32, "e4m3": 8, "e5m2": 8}
MXE = {"f16": 0, "bf16": 1, "tf32": 2, "f32": 3, "f64": 4, "s8": 5, "u8": 6, "s4": 7, "u4": 8, "b1": 9, "s32": 10,
       "e4m3": 11, "e5m2": 12}
SHAPES = [(8, 8, 4), (8, 8, 16), (8, 8, 32), (8, 8, 128), (16, 8, 4), (16, 8, 8), (16, 8, 16), (16, 8, 32),
          (16, 8, 64), (16, 8, 128), (16, 8, 256), (16, 16, 16), (32, 8, 16), (8, 32, 16), (16, 16, 8)]

MMA = [  # m n k d a b c [sat] [bop] (of e4m3/e5m2 only m16n8k32 .f32 is lowered: emit_mma.c)
    (16, 8, 8, "f32", "f16", "f16", "f32"), (16, 8, 8, "f16", "f16", "f16", "f16"),
    (16, 8, 16, "f16", "f16", "f16", "f16"), (16, 8, 8, "f32", "bf16", "bf16", "f32"),
    (16, 8, 16, "f32", "bf16", "bf16", "f32"), (16, 8, 4, "f32", "tf32", "tf32", "f32"),
    (16, 8, 8, "f32", "tf32", "tf32", "f32"), (8, 8, 4, "f64", "f64", "f64", "f64"),
    (16, 8, 4, "f64", "f64", "f64", "f64"), (16, 8, 8, "f64", "f64", "f64", "f64"),
    (16, 8, 16, "f64", "f64", "f64", "f64"), (8, 8, 16, "s32", "u8", "s8", "s32"),
    (16, 8, 16, "s32", "s8", "u8", "s32", "sat"), (16, 8, 32, "s32", "u8", "u8", "s32", "sat"),
    (8, 8, 32, "s32", "s4", "u4", "s32"), (16, 8, 32, "s32", "u4", "s4", "s32", "sat"),
    (16, 8, 64, "s32", "s4", "s4", "s32"), (8, 8, 128, "s32", "b1", "b1", "s32", None, "xor"),
    (16, 8, 128, "s32", "b1", "b1", "s32", None, "and"), (16, 8, 256, "s32", "b1", "b1", "s32", None, "xor"),
    (16, 8, 32, "f32", "e4m3", "e5m2", "f32"), (16, 8, 32, "f32", "e5m2", "e4m3", "f32"),
]
SPARSE = [  # mma.sp: k (dense) d a b c satfinite selector ordered_metadata
    (16, "f32", "f16", "f16", "f32", False, 1, False), (16, "f16", "f16", "f16", "f16", False, 2, True),
    (32, "f16", "f16", "f16", "f16", False, 1, True), (32, "f32", "bf16", "bf16", "f32", False, 0, False),
    (8, "f32", "tf32", "tf32", "f32", False, 3, False), (16, "f32", "tf32", "tf32", "f32", False, 1, True),
    (32, "s32", "s8", "u8", "s32", True, 1, False), (64, "s32", "u8", "u8", "s32", False, 0, True),
    (64, "s32", "s4", "u4", "s32", False, 1, False), (128, "s32", "u4", "u4", "s32", True, 0, False),
    (64, "f32", "e4m3", "e5m2", "f32", False, 0, True),
]
WMMA = [  # m n k d a b c layouts(a b c d) [sat] [bop]
    (16, 16, 16, "f16", "f16", "f16", "f16", "rcrr"), (32, 8, 16, "f32", "f16", "f16", "f16", "crcc"),
    (8, 32, 16, "f16", "f16", "f16", "f32", "rrcr"), (16, 16, 16, "f32", "bf16", "bf16", "f32", "ccrc"),
    (32, 8, 16, "f32", "bf16", "bf16", "f32", "rcrr"), (8, 32, 16, "f32", "bf16", "bf16", "f32", "crrc"),
    (16, 16, 8, "f32", "tf32", "tf32", "f32", "rccr"), (8, 8, 4, "f64", "f64", "f64", "f64", "crcr"),
    (16, 16, 16, "s32", "s8", "s8", "s32", "rcrr", "sat"), (32, 8, 16, "s32", "u8", "u8", "s32", "crrc"),
    (8, 32, 16, "s32", "s8", "s8", "s32", "rrcc"), (8, 8, 32, "s32", "s4", "s4", "s32", "rcrc", "sat"),
    (8, 8, 32, "s32", "u4", "u4", "s32", "rccr"), (8, 8, 128, "s32", "b1", "b1", "s32", "rcrr", None, "xor"),
    (8, 8, 128, "s32", "b1", "b1", "s32", "rccc", None, "and"),
]


def words(r, c, t, wmma=False, ab=False):
    if wmma and ab and t == "f16":
        return 8
    return r * c * BITS[t] // 1024


def nregs(w, t):
    return w // 2 if t == "f64" else w


def vec(p, n):
    return "{" + ", ".join(f"%{p}{i}" for i in range(n)) + "}"


def rty(t):
    return ".f64" if t == "f64" else ".b32"


HEAD = "\t.reg .b64 %rd<8>;\n\t.reg .b32 %l;\n\tld.param.u64 %rd1, [out];\n\tld.param.u64 %rd2, [in];\n"


def mma_kernel(i, f):
    m, n, k, td, ta, tb, tc = f[:7]
    sat, bop = (f[7] if len(f) > 7 else None), (f[8] if len(f) > 8 else None)
    w = [words(m, k, ta), words(k, n, tb), words(m, n, tc), words(m, n, td)]
    ts = [ta, tb, tc, td]
    r = [nregs(w[j], ts[j]) for j in range(4)]
    s = f".visible .entry km{i}(.param .u64 out, .param .u64 in)\n{{\n" + HEAD
    s += "".join(f"\t.reg {rty(ts[j])} %{'abcd'[j]}<{r[j]}>;\n" for j in range(4))
    s += "\tmov.u32 %l, %tid.x;\n\tmul.wide.u32 %rd3, %l, 128;\n\tadd.s64 %rd4, %rd2, %rd3;\n\tadd.s64 %rd5, %rd1, %rd3;\n"
    off = 0
    for j in range(3):
        for q in range(r[j]):
            s += f"\tld.global{rty(ts[j])} %{'abc'[j]}{q}, [%rd4+{off}];\n"
            off += 8 if ts[j] == "f64" else 4
    ins = (f"mma.sync.aligned.m{m}n{n}k{k}.row.col{'.satfinite' if sat else ''}.{td}.{ta}.{tb}.{tc}"
           f"{'.' + bop + '.popc' if bop else ''}")
    s += f"\t{ins} {vec('d', r[3])}, {vec('a', r[0])}, {vec('b', r[1])}, {vec('c', r[2])};\n"
    for q in range(r[3]):
        s += f"\tst.global{rty(td)} [%rd5+{q * (8 if td == 'f64' else 4)}], %d{q};\n"
    s += "\tret;\n}\n\n"
    op = (8 | SHAPES.index((m, n, k)) << 8 | MXE[ta] << 12 | MXE[tb] << 16 | MXE[tc] << 20 | MXE[td] << 24 |
          (0 if not bop else 1 if bop == "xor" else 2) << 28 | (1 << 30 if sat else 0))
    return s, f"    {{km{i}, 0x{op:08x}u, {{0, 0, 0, 0, 0}}}}, /* {ins} */\n"


def sparse_kernel(i, f):
    """ks<i>: as km, A compressed (M x K/2); the metadata word at the runtime's io place (after D)"""
    k, td, ta, tb, tc, sat, sel, ordered = f
    w = [words(16, k // 2, ta), words(k, 8, tb), words(16, 8, tc), words(16, 8, td)]
    ts = [ta, tb, tc, td]
    s = f".visible .entry ks{i}(.param .u64 out, .param .u64 in)\n{{\n" + HEAD + "\t.reg .b32 %e;\n"
    s += "".join(f"\t.reg {rty(ts[j])} %{'abcd'[j]}<{w[j]}>;\n" for j in range(4))
    s += "\tmov.u32 %l, %tid.x;\n\tmul.wide.u32 %rd3, %l, 128;\n\tadd.s64 %rd4, %rd2, %rd3;\n\tadd.s64 %rd5, %rd1, %rd3;\n"
    off = 0
    for j in range(3):
        for q in range(w[j]):
            s += f"\tld.global.b32 %{'abc'[j]}{q}, [%rd4+{off}];\n"
            off += 4
    s += f"\tld.global.b32 %e, [%rd4+{4 * sum(w)}];\n"
    ins = (f"mma.sp{'::ordered_metadata' if ordered else ''}.sync.aligned.m16n8k{k}.row.col"
           f"{'.satfinite' if sat else ''}.{td}.{ta}.{tb}.{tc}")
    s += f"\t{ins} {vec('d', w[3])}, {vec('a', w[0])}, {vec('b', w[1])}, {vec('c', w[2])}, %e, {sel};\n"
    for q in range(w[3]):
        s += f"\tst.global.b32 [%rd5+{q * 4}], %d{q};\n"
    s += "\tret;\n}\n\n"
    op = (12 | SHAPES.index((16, 8, k)) << 8 | MXE[ta] << 12 | MXE[tb] << 16 | MXE[tc] << 20 | MXE[td] << 24 |
          sel << 28 | (1 << 30 if sat else 0))
    return s, f"    {{ks{i}, 0x{op:08x}u, {{0, 0, 0, 0, 0}}}}, /* {ins} */\n"


def wmma_kernel(i, f):
    m, n, k, td, ta, tb, tc, lay = f[:8]
    sat, bop = (f[8] if len(f) > 8 else None), (f[9] if len(f) > 9 else None)
    ts = {"a": ta, "b": tb, "c": tc, "d": td}
    dims = {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}
    lays = {x: ("row" if lay[j] == "r" else "col") for j, x in enumerate("abcd")}
    r = {x: nregs(words(*dims[x], ts[x], True, x in "ab"), ts[x]) for x in "abcd"}
    s = f".visible .entry kw{i}(.param .u64 out, .param .u64 in)\n{{\n" + HEAD
    s += "".join(f"\t.reg {rty(ts[x]) if x in 'cd' else ('.f64' if ts[x] == 'f64' else '.b32')} %{x}<{r[x]}>;\n"
                 for x in "abcd")
    sh = f"m{m}n{n}k{k}"
    s += "\tadd.s64 %rd3, %rd2, 4096;\n\tadd.s64 %rd4, %rd2, 8192;\n"
    ptr = {"a": "%rd2", "b": "%rd3", "c": "%rd4"}
    for x in "abc":
        s += f"\twmma.load.{x}.sync.aligned.{lays[x]}.{sh}.global.{ts[x]} {vec(x, r[x])}, [{ptr[x]}];\n"
    if ta == "f16":
        ins = f"wmma.mma.sync.aligned.{lays['a']}.{lays['b']}.{sh}.{td}.{tc}"
    elif bop:
        ins = f"wmma.mma.{bop}.popc.sync.aligned.{lays['a']}.{lays['b']}.{sh}.{td}.{ta}.{tb}.{tc}"
    else:
        ins = (f"wmma.mma.sync.aligned.{lays['a']}.{lays['b']}.{sh}{'.rn' if ta == 'f64' else ''}.{td}.{ta}.{tb}.{tc}"
               f"{'.satfinite' if sat else ''}")
    s += f"\t{ins} {vec('d', r['d'])}, {vec('a', r['a'])}, {vec('b', r['b'])}, {vec('c', r['c'])};\n"
    s += f"\twmma.store.d.sync.aligned.{lays['d']}.{sh}.global.{td} [%rd1], {vec('d', r['d'])};\n\tret;\n}}\n\n"
    si = SHAPES.index((m, n, k))
    op = (8 | si << 8 | MXE[ta] << 12 | MXE[tb] << 16 | MXE[tc] << 20 | MXE[td] << 24 |
          (0 if not bop else 1 if bop == "xor" else 2) << 28 | (1 << 30 if sat else 0) | 1 << 31)

    def ldst(x, t, frag, store=False):
        return (10 if store else 9) | si << 8 | MXE[t] << 12 | frag << 16 | (lays[x] == "col") << 18

    lo = [ldst("a", ta, 0), ldst("b", tb, 1), ldst("c", tc, 2), ldst("d", td, 2, True)]
    return s, (f"    {{kw{i}, 0x{op:08x}u, {{1, 0x{lo[0]:08x}u, 0x{lo[1]:08x}u, 0x{lo[2]:08x}u, 0x{lo[3]:08x}u}}}},"
               f" /* {ins} */\n")


def main():
    d = os.path.dirname(os.path.abspath(__file__))
    ptx = ("// generated by tests/spirv/emu/gen_mma_ops.py\n.version 8.5\n.target sm_90\n.address_size 64\n\n"
           ".visible .entry kmov(.param .u64 out, .param .u64 in)\n{\n" + HEAD +
           "\t.reg .b32 %a, %d;\n\tmov.u32 %l, %tid.x;\n\tmul.wide.u32 %rd3, %l, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n"
           "\tadd.s64 %rd5, %rd1, %rd3;\n\tld.global.b32 %a, [%rd4];\n"
           "\tmovmatrix.sync.aligned.m8n8.trans.b16 %d, %a;\n\tst.global.b32 [%rd5], %d;\n\tret;\n}\n\n")
    tab = ""
    decl = "void kmov(uint64_t out, uint64_t in, void *local, int32_t dyn);\n"
    for i, f in enumerate(MMA):
        s, t = mma_kernel(i, f)
        ptx += s
        tab += t
        decl += f"void km{i}(uint64_t out, uint64_t in, void *local, int32_t dyn);\n"
    for i, f in enumerate(SPARSE):
        s, t = sparse_kernel(i, f)
        ptx += s
        tab += t
        decl += f"void ks{i}(uint64_t out, uint64_t in, void *local, int32_t dyn);\n"
    for i, f in enumerate(WMMA):
        s, t = wmma_kernel(i, f)
        ptx += s
        tab += t
        decl += f"void kw{i}(uint64_t out, uint64_t in, void *local, int32_t dyn);\n"
    with open(os.path.join(d, "mma_ops.ptx"), "w") as fh:
        fh.write(ptx)
    with open(os.path.join(d, "mma_ops.h"), "w") as fh:
        fh.write("/* generated by tests/spirv/emu/gen_mma_ops.py: the kernels of mma_ops.ptx and their forms\n"
                 " * (kernel, mma op word, {wmma, load A, load B, load C, store D op words}) */\n" + decl +
                 "static const struct mma_form {\n    void (*k)(uint64_t, uint64_t, void *, int32_t);\n"
                 "    uint32_t op, ldst[5];\n} mma_forms[] = {\n" + tab + "};\n")


if __name__ == "__main__":
    main()
