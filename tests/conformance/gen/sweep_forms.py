"""Catalogue of the arithmetic, conversion, bit-manipulation and comparison instruction forms of PTX ISA 9.0.

Used by gen/sweep_coverage.py (which forms the suite's PTX already runs) and gen/gen_sweep2.py (cases for the
forms it does not). Source list: the PTX ISA 9.0 syntax blocks of the integer, extended-precision, logic/shift,
floating-point, half-precision, mixed-precision, comparison/selection, conversion and video chapters.

The catalogue over-generates: every combination of the modifiers an instruction's syntax block names is
written out, and ptxas (the reference assembler) decides which combinations exist: a form that ptxas accepts
for sm_90 is recordable on the H100; one it accepts only for sm_100a needs sm_100 hardware; one it refuses for
both is not an ISA form and is dropped (FormSet.classify).

A form: key (the opcode with its modifiers, as written in PTX; lop3 adds its immediate as `lut=0xNN`), group
(table section), body (mcase body of gen_issue18.py: operands {a16} {a32} {a64} {b..} {c..} read the lane's
A/B/C words, {d} is the op's result of width ow), ow, and vk (which input values suit it, see gen_sweep2.py).
"""
import os
import re
import subprocess
import tempfile
from collections import namedtuple

PTXAS = "/usr/local/cuda/bin/ptxas"
TYPE_RE = re.compile(r"^((b|u|s|f|bf)\d+(x\d)?|e\dm\dx\d|ue8m0x2|tf32|pred)$")
Form = namedtuple("Form", "group key body ow vk")

FT = ["f16", "bf16", "f32", "f64"]
IT = ["u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"]
W = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "u8": 16, "s8": 16, "u16": 16, "s16": 16, "u32": 32,
     "s32": 32, "u64": 64, "s64": 64, "b16": 16, "b32": 32, "b64": 64, "f16x2": 32, "bf16x2": 32, "u16x2": 32,
     "s16x2": 32, "tf32": 32, "pred": 1}
TMP = {16: "%h1", 32: "%r1", 64: "%rd1"}
EXT32 = {16: "cvt.u32.u16 {d}, %h1;", 32: "mov.b32 {d}, %r1;"}  # result widened to the 32-bit slot
EXT64 = {16: "cvt.u64.u16 {d}, %h1;", 32: "cvt.u64.u32 {d}, %r1;", 64: "mov.b64 {d}, %rd1;"}


def canon(key):
    """modifier order does not matter for coverage (.relu.satfinite == .satfinite.relu)"""
    head, _, lut = key.partition(" ")
    parts = head.split(".")
    types = tuple(p for p in parts[1:] if TYPE_RE.match(p))  # in order: cvt.f16.f32 != cvt.f32.f16
    mods = tuple(sorted(p for p in parts[1:] if not TYPE_RE.match(p)))
    return (parts[0], mods, types, lut)


def src(name, w):
    return "{%s%d}" % (name, w)


def simple(group, op, ty, nsrc, vk, dw=None, srcw=None, keyop=None):
    """op.ty d, a[, b[, c]] with d in {d} of the type's width"""
    w = dw or W[ty]
    sw = srcw or [W[ty]] * nsrc
    args = ", ".join(src("abc"[i], sw[i]) for i in range(nsrc))
    return Form(group, keyop or f"{op}.{ty}", f"{op}.{ty} {{d}}, {args};", w, vk)


def pred_out(group, key, ins, vk):
    """predicate result(s) stored as bits: bit0 = p1, bit1 = p2 (if the form writes two)"""
    two = "%p1|%p2" in ins
    body = ins + "\nselp.b32 {d}, 1, 0, %p1;" + ("\n@%p2 or.b32 {d}, {d}, 2;" if two else "")
    return Form(group, key, body, 32, vk)


# ------------------------------------------------------------------------------------------------------------

def integer_forms():
    out = []
    g = "integer arithmetic"
    for w in (16, 32, 64):
        for s in "us":
            t = f"{s}{w}"
            vk = f"i{w}"
            for op in ["add", "sub"]:
                out.append(simple(g, op, t, 2, vk))
                out.append(simple(g, f"{op}.sat", t, 2, vk, keyop=f"{op}.sat.{t}"))
                for cc in ["add.cc", "sub.cc", "addc", "subc", "addc.cc", "subc.cc"]:
                    if cc.split(".")[0].startswith(op):
                        out.append(simple("extended precision", cc, t, 2, vk, keyop=f"{cc}.{t}"))
            for m in ["lo", "hi"]:
                out.append(simple(g, f"mul.{m}", t, 2, vk, keyop=f"mul.{m}.{t}"))
                out.append(simple(g, f"mad.{m}", t, 3, vk, keyop=f"mad.{m}.{t}"))
                out.append(simple(g, f"mad.{m}.sat", t, 3, vk, keyop=f"mad.{m}.sat.{t}"))
                for cc in ["mad.{m}.cc", "madc.{m}", "madc.{m}.cc"]:
                    k = cc.format(m=m)
                    out.append(simple("extended precision", k, t, 3, vk, keyop=f"{k}.{t}"))
                out.append(simple(g, f"mul24.{m}", t, 2, vk, keyop=f"mul24.{m}.{t}"))
                out.append(simple(g, f"mad24.{m}", t, 3, vk, keyop=f"mad24.{m}.{t}"))
                out.append(simple(g, f"mad24.{m}.sat", t, 3, vk, keyop=f"mad24.{m}.sat.{t}"))
            if w < 64:
                dw = 2 * w
                out.append(Form(g, f"mul.wide.{t}", f"mul.wide.{t} {TMP[dw]}, {{a{w}}}, {{b{w}}};\n{EXT64[dw]}",
                                64, vk))
                out.append(Form(g, f"mad.wide.{t}",
                                f"mad.wide.{t} {TMP[dw]}, {{a{w}}}, {{b{w}}}, {{c{dw}}};\n{EXT64[dw]}", 64, vk))
            out.append(simple(g, "sad", t, 3, vk))
            for op in ["div", "rem"]:
                out.append(Form(g, f"{op}.{t}", f"or.b{w} {TMP[w]}, {{b{w}}}, 1;\n{op}.{t} {{d}}, {{a{w}}}, "
                                f"{TMP[w]};", w, vk))
            for op in ["min", "max"]:
                out.append(simple(g, op, t, 2, vk))
                out.append(simple(g, f"{op}.relu", t, 2, vk, keyop=f"{op}.relu.{t}"))
            for op in ["abs", "neg"]:
                out.append(simple(g, op, t, 1, vk))
        for s in "us":  # packed 16-bit (PTX 8.0+)
            t = f"{s}16x2"
            for op in ["add", "sub", "min", "max"]:
                out.append(simple(g, op, t, 2, "i32"))
                out.append(simple(g, f"{op}.sat", t, 2, "i32", keyop=f"{op}.sat.{t}"))
                out.append(simple(g, f"{op}.relu", t, 2, "i32", keyop=f"{op}.relu.{t}"))
    g = "bit manipulation"
    for w in (16, 32, 64):
        b, vk = f"b{w}", f"i{w}"
        for op in ["popc", "clz"]:
            out.append(Form(g, f"{op}.{b}", f"{op}.{b} %r1, {{a{w}}};\n" + EXT64[32], 64, vk))
        for s in "us":
            for sa in ["", ".shiftamt"]:
                out.append(Form(g, f"bfind{sa}.{s}{w}", f"bfind{sa}.{s}{w} %r1, {{a{w}}};\n" + EXT64[32], 64, vk))
            out.append(Form(g, f"bfe.{s}{w}", f"bfe.{s}{w} {{d}}, {{a{w}}}, {{b32}}, {{c32}};", w, vk))
        out.append(simple(g, "brev", b, 1, vk))
        out.append(Form(g, f"bfi.{b}", f"bfi.{b} {{d}}, {{a{w}}}, {{b{w}}}, {{b32}}, {{c32}};", w, vk))
    out.append(Form(g, "fns.b32", "fns.b32 {d}, {a32}, {b32}, {c32};", 32, "i32"))
    for m in ["clamp", "wrap"]:
        out.append(Form(g, f"bmsk.{m}.b32", f"bmsk.{m}.b32 {{d}}, {{a32}}, {{b32}};", 32, "i32"))
        for s in "us":
            out.append(Form(g, f"szext.{m}.{s}32", f"szext.{m}.{s}32 {{d}}, {{a32}}, {{b32}};", 32, "i32"))
    for s1 in "us":
        for s2 in "us":
            out.append(Form(g, f"dp4a.{s1}32.{s2}32", f"dp4a.{s1}32.{s2}32 {{d}}, {{a32}}, {{b32}}, {{c32}};", 32,
                            "i32"))
            for h in ["lo", "hi"]:
                out.append(Form(g, f"dp2a.{h}.{s1}32.{s2}32",
                                f"dp2a.{h}.{s1}32.{s2}32 {{d}}, {{a32}}, {{b32}}, {{c32}};", 32, "i32"))
    g = "logic and shift"
    for w in (16, 32, 64):
        b, vk = f"b{w}", f"i{w}"
        for op in ["and", "or", "xor"]:
            out.append(simple(g, op, b, 2, vk))
        for op in ["not", "cnot"]:
            out.append(simple(g, op, b, 1, vk))
        for op in ["shl.b", "shr.b", "shr.u", "shr.s"]:
            out.append(Form(g, f"{op}{w}", f"{op}{w} {{d}}, {{a{w}}}, {{b32}};", w, vk))
    for op in ["and", "or", "xor"]:
        out.append(pred_out(g, f"{op}.pred", f"setp.ne.u32 %p3, {{a32}}, 0;\nsetp.ne.u32 %p4, {{b32}}, 0;\n"
                            f"{op}.pred %p1, %p3, %p4;", "i32"))
    for op in ["not", "cnot"]:
        out.append(pred_out(g, f"{op}.pred", f"setp.ne.u32 %p3, {{a32}}, 0;\n{op}.pred %p1, %p3;", "i32"))
    for d in ["l", "r"]:
        for m in ["wrap", "clamp"]:
            out.append(Form(g, f"shf.{d}.{m}.b32", f"shf.{d}.{m}.b32 {{d}}, {{a32}}, {{b32}}, {{c32}};", 32, "i32"))
    for mode in ["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"]:
        out.append(Form("prmt", f"prmt.b32{mode}", f"prmt.b32{mode} {{d}}, {{a32}}, {{b32}}, {{c32}};", 32, "i32"))
    for lut in range(256):
        out.append(Form("lop3", f"lop3.b32 lut=0x{lut:02x}",
                        f"lop3.b32 {{d}}, {{a32}}, {{b32}}, {{c32}}, 0x{lut:02x};", 32, "i32"))
    for bo in ["and", "or"]:  # PTX 8.2 boolean form: d|p = lop3(a,b,c) ; p = (d != 0) BoolOp q
        out.append(Form("lop3", f"lop3.{bo}.b32",
                        f"setp.ne.u32 %p3, {{c32}}, 0;\nlop3.{bo}.b32 %r1|%p1, {{a32}}, {{b32}}, {{c32}}, 0x96, %p3;\n"
                        "selp.b32 %r2, 1, 0, %p1;\nmov.b64 {d}, {%r1, %r2};", 64, "i32"))
    return out


CMP_I = ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"]
CMP_F = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]


def compare_forms():
    out = []
    g = "comparison and selection"
    for w in (16, 32, 64):
        for t in [f"b{w}", f"u{w}", f"s{w}"]:
            for c in CMP_I:
                out.append(pred_out(g, f"setp.{c}.{t}", f"setp.{c}.{t} %p1|%p2, {{a{w}}}, {{b{w}}};", f"i{w}"))
                for bo in ["and", "or", "xor"]:
                    out.append(pred_out(g, f"setp.{c}.{bo}.{t}", f"setp.ne.u{w} %p3, {{c{w}}}, 0;\n"
                                        f"setp.{c}.{bo}.{t} %p1|%p2, {{a{w}}}, {{b{w}}}, !%p3;", f"i{w}"))
                for dt in ["u32", "s32", "f32"]:
                    out.append(Form(g, f"set.{c}.{dt}.{t}", f"set.{c}.{dt}.{t} {{d}}, {{a{w}}}, {{b{w}}};", 32,
                                    f"i{w}"))
        for t in [f"b{w}", f"u{w}", f"s{w}"] + ([f"f{w}"] if w > 16 else ["f16", "bf16"]):
            out.append(Form(g, f"selp.{t}", f"setp.ne.u{w} %p3, {{c{w}}}, 0;\nselp.{t} {{d}}, {{a{w}}}, {{b{w}}}, %p3;",
                            w, f"i{w}"))
        if w >= 32:
            for t in [f"b{w}", f"u{w}", f"s{w}", f"f{w}"]:
                for ct in ["s32", "f32"]:
                    for ftz in ["", ".ftz"]:
                        out.append(Form(g, f"slct{ftz}.{t}.{ct}",
                                        f"slct{ftz}.{t}.{ct} {{d}}, {{a{w}}}, {{b{w}}}, {{c32}};", w, f"i{w}"))
    for ft in FT + ["f16x2", "bf16x2"]:
        w = W[ft]
        vk = ft
        for c in CMP_F:
            for ftz in ["", ".ftz"]:
                out.append(pred_out(g, f"setp.{c}{ftz}.{ft}", f"setp.{c}{ftz}.{ft} %p1|%p2, {{a{w}}}, {{b{w}}};",
                                    vk))
                for bo in ["and", "or", "xor"]:
                    out.append(pred_out(g, f"setp.{c}{ftz}.{bo}.{ft}", f"setp.ne.u32 %p3, {{c32}}, 0;\n"
                                        f"setp.{c}{ftz}.{bo}.{ft} %p1|%p2, {{a{w}}}, {{b{w}}}, %p3;", vk))
                for dt in ["u32", "s32", "f32", "f16", "bf16", "f16x2", "bf16x2", "u16x2", "s16x2"]:
                    dw = W[dt]
                    out.append(Form(g, f"set.{c}{ftz}.{dt}.{ft}", f"set.{c}{ftz}.{dt}.{ft} {TMP[dw]}, {{a{w}}}, "
                                    f"{{b{w}}};\n" + EXT32[dw], 32, vk))
        if ft in FT:
            for tp in ["finite", "infinite", "number", "notanumber", "normal", "subnormal"]:
                out.append(pred_out(g, f"testp.{tp}.{ft}", f"testp.{tp}.{ft} %p1, {{a{w}}};", vk))
    return out


RND = ["", ".rn", ".rz", ".rm", ".rp"]


def float_forms():
    out = []
    for ft in FT + ["f16x2", "bf16x2", "f32x2"]:
        w = W.get(ft, 64)
        g = f"float arithmetic {ft}"
        for rm in RND + [".rna", ".rs"]:
            for ftz in ["", ".ftz"]:
                for sat in ["", ".sat", ".relu", ".satfinite", ".oob", ".oob.relu"]:
                    m = f"{rm}{ftz}{sat}"
                    for op in ["add", "sub", "mul"]:
                        out.append(simple(g, f"{op}{m}", ft, 2, ft, dw=w, srcw=[w, w], keyop=f"{op}{m}.{ft}"))
                    for op in ["fma", "mad"]:
                        out.append(simple(g, f"{op}{m}", ft, 3, ft, dw=w, srcw=[w, w, w], keyop=f"{op}{m}.{ft}"))
        for op in ["div", "rcp", "sqrt", "rsqrt"]:
            for rm in [".rn", ".rz", ".rm", ".rp", ".approx", ".full", ""]:
                for ftz in ["", ".ftz"]:
                    n = 2 if op == "div" else 1
                    out.append(simple(g, f"{op}{rm}{ftz}", ft, n, ft, dw=w, srcw=[w] * n, keyop=f"{op}{rm}{ftz}.{ft}"))
        for op in ["min", "max"]:
            for ftz in ["", ".ftz"]:
                for nan in ["", ".NaN"]:
                    for xs in ["", ".xorsign.abs"]:
                        m = f"{ftz}{nan}{xs}"
                        out.append(simple(g, f"{op}{m}", ft, 2, ft, dw=w, srcw=[w, w], keyop=f"{op}{m}.{ft}"))
                        # three-input min/max (PTX 8.8, sm_100+)
                        out.append(simple(g, f"{op}{m}", ft, 3, ft, dw=w, srcw=[w, w, w], keyop=f"{op}{m}.{ft} 3src"))
        for op in ["abs", "neg"]:
            for ftz in ["", ".ftz"]:
                out.append(simple(g, f"{op}{ftz}", ft, 1, ft, dw=w, srcw=[w], keyop=f"{op}{ftz}.{ft}"))
        if ft in ("f32", "f64"):
            out.append(simple(g, "copysign", ft, 2, ft))
        g2 = "approximate transcendental"
        for op in ["sin", "cos", "lg2", "ex2", "tanh", "rsqrt", "rcp"]:
            for ftz in ["", ".ftz"]:
                out.append(simple(g2, f"{op}.approx{ftz}", ft, 1, ft, dw=w, srcw=[w],
                                  keyop=f"{op}.approx{ftz}.{ft}"))
    # mixed precision (PTX 8.6): f32 result, one f16/bf16 operand
    g = "mixed precision"
    for t in ["f16", "bf16"]:
        for rm in RND + [".rz"]:
            for sat in ["", ".sat"]:
                for op in ["add", "sub"]:
                    out.append(Form(g, f"{op}{rm}{sat}.f32.{t}", f"{op}{rm}{sat}.f32.{t} {{d}}, {{a16}}, {{b32}};",
                                    32, "f32"))
                out.append(Form(g, f"fma{rm}{sat}.f32.{t}", f"fma{rm}{sat}.f32.{t} {{d}}, {{a16}}, {{b16}}, {{c32}};",
                                32, "f32"))
    return out


FP_NARROW = {"e4m3x2": 16, "e5m2x2": 16, "e2m1x2": 8, "e2m3x2": 16, "e3m2x2": 16, "ue8m0x2": 16}
FP_X4 = ["e4m3x4", "e5m2x4", "e2m1x4", "e2m3x4", "e3m2x4"]


def cvt_forms():
    out = []
    g = "conversion"
    rnds = ["", ".rn", ".rz", ".rm", ".rp", ".rna", ".rni", ".rzi", ".rmi", ".rpi"]
    mods = ["", ".ftz", ".sat", ".ftz.sat", ".relu", ".satfinite", ".relu.satfinite", ".ftz.relu"]
    for s in FT + IT:
        for d in FT + IT + ["tf32"]:
            if d == "tf32" and s != "f32":
                continue
            for rm in rnds:
                for m in mods:
                    key = f"cvt{rm}{m}.{d}.{s}"
                    dw = W[d]
                    out.append(Form(g, key, f"{key} {TMP[dw]}, {{a{W[s]}}};\n{EXT64[dw]}", 64, f"cvt_{s}"))
    g = "conversion (packed and narrow)"
    for d in ["f16x2", "bf16x2"]:
        for rm in RND + [".rs"]:
            for m in ["", ".relu", ".satfinite", ".relu.satfinite"]:
                key = f"cvt{rm}{m}.{d}.f32"
                extra = ", {c32}" if rm == ".rs" else ""
                out.append(Form(g, key, f"{key} {{d}}, {{a32}}, {{b32}}{extra};", 32, "cvt_f32"))
    for f8, dw in FP_NARROW.items():
        for rm in [".rn", ".rz", ".rp", ".rs", ""]:
            for m in ["", ".satfinite", ".relu.satfinite", ".relu"]:
                key = f"cvt{rm}{m}.{f8}.f32"
                if dw == 8:
                    body = f"{key} %r2, {{a32}}, {{b32}};" if False else \
                        f".reg .b8 %q1;\n{key} %q1, {{a32}}, {{b32}};\ncvt.u32.u8 %r1, %q1;\n" + EXT64[32]
                    # ptxas wants a .b8 register for the 8-bit result of e2m1x2; declared in a nested block
                    body = "{\n" + body + "\n}"
                else:
                    body = f"{key} %h1, {{a32}}, {{b32}};\n" + EXT64[16]
                out.append(Form(g, key, body, 64, "cvt_f32"))
                for s in ["f16x2", "bf16x2"]:
                    key2 = f"cvt{rm}{m}.{f8}.{s}"
                    if dw == 8:
                        b2 = "{\n" + f".reg .b8 %q1;\n{key2} %q1, {{a32}};\ncvt.u32.u8 %r1, %q1;\n" + EXT64[32] + "\n}"
                    else:
                        b2 = f"{key2} %h1, {{a32}};\n" + EXT64[16]
                    out.append(Form(g, key2, b2, 64, "cvt_f16x2" if s == "f16x2" else "cvt_bf16x2"))
            for dst in ["f16x2", "bf16x2"]:
                key = f"cvt{rm}{'' if True else ''}.{dst}.{f8}"
                for m in ["", ".relu"]:
                    key = f"cvt{rm}{m}.{dst}.{f8}"
                    if dw == 8:
                        body = "{\n.reg .b8 %q1;\ncvt.u8.u32 %q1, {a32};\n" + f"{key} {{d}}, %q1;\n}}"
                    else:
                        body = f"{key} {{d}}, {{a16}};"
                    out.append(Form(g, key, body, 32, "bits16"))
    for f4 in FP_X4:
        for m in [".satfinite", ".relu.satfinite"]:
            key = f"cvt.rs{m}.{f4}.f32"
            dw = 16 if f4 == "e2m1x4" else 32
            out.append(Form(g, key, f"mov.b64 {{%f1, %f2}}, {{a64}};\nmov.b64 {{%f3, %f4}}, {{b64}};\n"
                            f"{key} {TMP[dw]}, {{%f1, %f2, %f3, %f4}}, {{c32}};\n" + EXT64[dw], 64, "cvt_f32x4"))
    for s in ["f32", "bf16x2"]:
        for rm in [".rz", ".rp", ".rn"]:
            for m in ["", ".satfinite"]:
                key = f"cvt{rm}{m}.ue8m0x2.{s}"
                body = f"{key} %h1, {{a32}}" + (", {b32}" if s == "f32" else "") + ";\n" + EXT64[16]
                out.append(Form(g, key, body, 64, "cvt_f32" if s == "f32" else "cvt_bf16x2"))
    for ct in ["u16", "s16"]:
        out.append(Form(g, f"cvt.pack.sat.{ct}.s32", f"cvt.pack.sat.{ct}.s32 {{d}}, {{a32}}, {{b32}};", 32, "i32"))
    for ct in ["u2", "s2", "u4", "s4", "u8", "s8"]:
        out.append(Form(g, f"cvt.pack.sat.{ct}.s32.b32", f"cvt.pack.sat.{ct}.s32.b32 {{d}}, {{a32}}, {{b32}}, {{c32}};",
                        32, "i32"))
    return out


def video_forms():
    out = []
    g = "video (scalar)"
    TY = ["u32", "s32"]
    for op in ["vadd", "vsub", "vabsdiff", "vmin", "vmax"]:
        for d in TY:
            for a in TY:
                for b in TY:
                    for sat in ["", ".sat"]:
                        base = f"{op}.{d}.{a}.{b}{sat}"
                        out.append(Form(g, base, f"{base} {{d}}, {{a32}}, {{b32}};", 32, "i32"))
                        for op2 in ["add", "min", "max"]:
                            out.append(Form(g, f"{base}.{op2}", f"{base}.{op2} {{d}}, {{a32}}, {{b32}}, {{c32}};",
                                            32, "i32"))
    for op in ["vshl", "vshr"]:
        for d in TY:
            for a in TY:
                for sat in ["", ".sat"]:
                    for mode in [".clamp", ".wrap"]:
                        base = f"{op}.{d}.{a}.u32{sat}{mode}"
                        out.append(Form(g, base, f"{base} {{d}}, {{a32}}, {{b32}};", 32, "i32"))
                        for op2 in ["add", "min", "max"]:
                            b2 = f"{op}.{d}.{a}.u32{sat}.{op2}{mode}"
                            out.append(Form(g, b2, f"{b2} {{d}}, {{a32}}, {{b32}}, {{c32}};", 32, "i32"))
    for d in TY:
        for a in TY:
            for b in TY:
                for sat in ["", ".sat"]:
                    for sc in ["", ".shr7", ".shr15"]:
                        base = f"vmad.{d}.{a}.{b}{sat}{sc}"
                        out.append(Form(g, base, f"{base} {{d}}, {{a32}}, {{b32}}, {{c32}};", 32, "i32"))
    for a in TY:
        for b in TY:
            for c in CMP_I[:6]:
                base = f"vset.{a}.{b}.{c}"
                out.append(Form(g, base, f"{base} {{d}}, {{a32}}, {{b32}};", 32, "i32"))
                for op2 in ["add", "min", "max"]:
                    out.append(Form(g, f"{base}.{op2}", f"{base}.{op2} {{d}}, {{a32}}, {{b32}}, {{c32}};", 32, "i32"))
    g = "video (SIMD)"
    for n in ["2", "4"]:
        for op in ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"]:
            for d in TY:
                for a in TY:
                    for b in TY:
                        for sat in ["", ".sat", ".add"]:
                            base = f"{op}{n}.{d}.{a}.{b}{sat}"
                            out.append(Form(g, base, f"{base} {{d}}, {{a32}}, {{b32}}, {{c32}};", 32, "i32"))
        for a in TY:
            for b in TY:
                for c in CMP_I[:6]:
                    for add in ["", ".add"]:
                        base = f"vset{n}.{a}.{b}.{c}{add}"
                        out.append(Form(g, base, f"{base} {{d}}, {{a32}}, {{b32}}, {{c32}};", 32, "i32"))
    return out


def all_forms():
    seen, out = set(), []
    for f in integer_forms() + compare_forms() + float_forms() + cvt_forms() + video_forms():
        k = canon(f.key)
        if k not in seen:
            seen.add(k)
            out.append(f)
    return out


# ------------------------------------------------------------------------------------------------------------
# ptxas as the judge of which forms exist

PROLOGUE = """.version 9.0
.target {arch}
.address_size 64
.visible .entry k(.param .u64 pA)
{{
\t.reg .b16 %a16, %b16, %c16, %d16, %h<8>;
\t.reg .b32 %a32, %b32, %c32, %d32, %r<16>;
\t.reg .b64 %a64, %b64, %c64, %d64, %rd<16>;
\t.reg .f32 %f<8>;
\t.reg .pred %p<8>;
\tld.param.u64 %a64, [pA];
\tmov.b64 %b64, %a64;
\tmov.b64 %c64, %a64;
\tcvt.u32.u64 %a32, %a64;
\tmov.b32 %b32, %a32;
\tmov.b32 %c32, %a32;
\tcvt.u16.u64 %a16, %a64;
\tmov.b16 %b16, %a16;
\tmov.b16 %c16, %a16;
"""


def subst(body, ow):
    return (body.replace("{d}", f"%d{ow}")
            .replace("{a16}", "%a16").replace("{a32}", "%a32").replace("{a64}", "%a64")
            .replace("{b16}", "%b16").replace("{b32}", "%b32").replace("{b64}", "%b64")
            .replace("{c16}", "%c16").replace("{c32}", "%c32").replace("{c64}", "%c64"))


def ptxas_refused(forms, arch):
    """indices of the forms whose lines ptxas refuses for arch (one module, one op per block of lines)"""
    lines = PROLOGUE.format(arch=arch).split("\n")
    owner = {}
    for i, f in enumerate(forms):
        for l in subst(f.body, f.ow).split("\n"):
            lines.append("\t" + l)
            owner[len(lines)] = i
    lines += ["\tret;", "}", ""]
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as fh:
        fh.write("\n".join(lines))
        fn = fh.name
    try:
        p = subprocess.run([PTXAS, f"-arch={arch}", fn, "-o", "/dev/null"], capture_output=True, text=True)
    finally:
        os.unlink(fn)
    bad = set()
    for l in p.stderr.split("\n"):
        if ", line " in l and ("error" in l):
            ln = int(l.split(", line ")[1].split(";")[0])
            if ln in owner:
                bad.add(owner[ln])
            else:
                raise SystemExit(f"ptxas error outside the forms ({arch}):\n{p.stderr[:2000]}")
    return bad


def classify(forms):
    """-> (sm90 forms, sm100a-only forms, refused forms)"""
    bad90 = ptxas_refused(forms, "sm_90")
    rest = [forms[i] for i in sorted(bad90)]
    bad100 = ptxas_refused(rest, "sm_100a") if rest else set()
    sm90 = [f for i, f in enumerate(forms) if i not in bad90]
    sm100 = [f for i, f in enumerate(rest) if i not in bad100]
    refused = [f for i, f in enumerate(rest) if i in bad100]
    return sm90, sm100, refused
