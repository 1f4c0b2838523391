"""Table-driven single-instruction cases (hand-written PTX)."""
from gen_core import (op_case, F32_TABLE, F32_SMALL, F64_TABLE, F64_SMALL, F16_TABLE, BF16_TABLE, U32_TABLE,
                      U64_TABLE, U16_TABLE, SHIFT_TABLE, rand_f32, rand_bits, pack_pairs16)

NZ32 = [v for v in U32_TABLE if v != "0"]
NZ64 = [v for v in U64_TABLE if v != "0"]
NZ16 = [v for v in U16_TABLE if v != "0"]


def gen_int():
    fam = "int"
    T = {"32": ("b32", U32_TABLE), "64": ("b64", U64_TABLE), "16": ("b16", U16_TABLE)}
    for op in ["add", "sub"]:
        for ty in ["s16", "s32", "s64", "u32"]:
            w = ty[1:]
            t, tab = T[w]
            op_case(fam, f"{op}_{ty}", f"{op}.{ty} %D, %A, %B;", [(t, tab), (t, tab)], [t])
        op_case(fam, f"{op}_sat_s32", f"{op}.sat.s32 %D, %A, %B;", [("b32", U32_TABLE), ("b32", U32_TABLE)], ["b32"])
    for mode in ["lo", "hi", "wide"]:
        for ty in ["s16", "u16", "s32", "u32", "s64", "u64"]:
            w = ty[1:]
            if mode == "wide" and w == "64":
                continue
            t, tab = T[w]
            ot = {"16": "b32", "32": "b64"}[w] if mode == "wide" else t
            op_case(fam, f"mul_{mode}_{ty}", f"mul.{mode}.{ty} %D, %A, %B;", [(t, tab), (t, tab)], [ot])
    small32 = U32_TABLE[:20]
    small64 = U64_TABLE[:14]
    for mode, ty in [("lo", "s32"), ("hi", "s32"), ("hi", "u32"), ("wide", "s32"), ("wide", "u32"), ("lo", "u64"),
                     ("hi", "s64")]:
        w = ty[1:]
        tab = small32 if w == "32" else small64
        t = "b32" if w == "32" else "b64"
        ot = "b64" if mode == "wide" else t
        ct = ot
        ctab = tab if ot == t else small64
        op_case(fam, f"mad_{mode}_{ty}", f"mad.{mode}.{ty} %D, %A, %B, %C;", [(t, tab), (t, tab), (ct, ctab)], [ot])
    op_case(fam, "mad_hi_sat_s32", "mad.hi.sat.s32 %D, %A, %B, %C;",
            [("b32", small32), ("b32", small32), ("b32", small32)], ["b32"])
    for mode in ["lo", "hi"]:
        for ty in ["s32", "u32"]:
            op_case(fam, f"mul24_{mode}_{ty}", f"mul24.{mode}.{ty} %D, %A, %B;",
                    [("b32", U32_TABLE), ("b32", U32_TABLE)], ["b32"])
            op_case(fam, f"mad24_{mode}_{ty}", f"mad24.{mode}.{ty} %D, %A, %B, %C;",
                    [("b32", small32), ("b32", small32), ("b32", small32[:8])], ["b32"])
    for ty in ["s32", "u32", "s64", "u64", "s16"]:
        w = ty[1:]
        t, tab = T[w]
        tab3 = tab[:14]
        op_case(fam, f"sad_{ty}", f"sad.{ty} %D, %A, %B, %C;", [(t, tab3), (t, tab3), (t, tab3[:6])], [t])
    # division: nonzero divisors (INT_MIN / -1 included: the notes say programs observe NVIDIA's result)
    for op in ["div", "rem"]:
        for ty in ["s16", "u16", "s32", "u32", "s64", "u64"]:
            w = ty[1:]
            t, tab = T[w]
            nz = {"16": NZ16, "32": NZ32, "64": NZ64}[w]
            op_case(fam, f"{op}_{ty}", f"{op}.{ty} %D, %A, %B;", [(t, tab), (t, nz)], [t])
    # division by zero: result is not specified by the PTX ISA (recorded NVIDIA behaviour)
    for op in ["div", "rem"]:
        for ty in ["s32", "u32", "s64", "u64"]:
            w = ty[1:]
            t, tab = T[w]
            op_case(fam, f"{op}_by_zero_{ty}", f"{op}.{ty} %D, %A, %B;", [(t, tab), (t, ["0"])], [t],
                    comment="division by zero: value unspecified by the PTX ISA; this records NVIDIA's value")
    for ty in ["s16", "s32", "s64"]:
        t, tab = T[ty[1:]]
        op_case(fam, f"abs_{ty}", f"abs.{ty} %D, %A;", [(t, tab)], [t])
        op_case(fam, f"neg_{ty}", f"neg.{ty} %D, %A;", [(t, tab)], [t])
    for op in ["min", "max"]:
        for ty in ["s16", "u16", "s32", "u32", "s64", "u64"]:
            t, tab = T[ty[1:]]
            op_case(fam, f"{op}_{ty}", f"{op}.{ty} %D, %A, %B;", [(t, tab), (t, tab)], [t])
        op_case(fam, f"{op}_relu_s32", f"{op}.relu.s32 %D, %A, %B;", [("b32", U32_TABLE), ("b32", U32_TABLE)],
                ["b32"], target="sm_90")
        op_case(fam, f"{op}_s16x2", f"{op}.s16x2 %D, %A, %B;", [("b32", U32_TABLE), ("b32", U32_TABLE)], ["b32"],
                target="sm_90")
        op_case(fam, f"{op}_u16x2", f"{op}.u16x2 %D, %A, %B;", [("b32", U32_TABLE), ("b32", U32_TABLE)], ["b32"],
                target="sm_90")
    # packed 16-bit add (sm_90 adds .u16x2 integer add? no: only min/max) -- skip


def gen_extprec():
    fam = "extprec"
    t = U32_TABLE
    op_case(fam, "add_cc_addc_u32", "add.cc.u32 %D, %A, %B;\naddc.u32 %E, 0, 0;",
            [("b32", t), ("b32", t)], ["b32", "b32"], comment="E = carry out of A+B")
    op_case(fam, "addc_cc_chain_u32", "add.cc.u32 %r0, %A, %B;\naddc.cc.u32 %D, %A, %B;\naddc.u32 %E, 0, 0;",
            [("b32", t), ("b32", t)], ["b32", "b32"], comment="carry-in from A+B into A+B+cin; E = carry out")
    op_case(fam, "sub_cc_subc_u32", "sub.cc.u32 %D, %A, %B;\nsubc.u32 %E, 0, 0;",
            [("b32", t), ("b32", t)], ["b32", "b32"], comment="E = 0 - 0 - borrow")
    op_case(fam, "subc_cc_chain_u32", "sub.cc.u32 %r0, %A, %B;\nsubc.cc.u32 %D, %B, %A;\nsubc.u32 %E, 0, 0;",
            [("b32", t), ("b32", t)], ["b32", "b32"])
    op_case(fam, "add_cc_s32_addc_s32", "add.cc.s32 %D, %A, %B;\naddc.s32 %E, %A, %B;",
            [("b32", t), ("b32", t)], ["b32", "b32"])
    op_case(fam, "mad_lo_cc_madc_hi_u32", "mad.lo.cc.u32 %D, %A, %B, %A;\nmadc.hi.u32 %E, %A, %B, 0;",
            [("b32", t), ("b32", t)], ["b32", "b32"], comment="64-bit A*B + A in two halves")
    op_case(fam, "madc_hi_cc_chain_u32",
            "mad.hi.cc.u32 %r0, %A, %B, %B;\nmadc.lo.cc.u32 %D, %A, %A, %B;\nmadc.hi.u32 %E, %B, %B, 0;",
            [("b32", t), ("b32", t)], ["b32", "b32"])
    op_case(fam, "add_cc_addc_u64", "add.cc.u64 %D, %A, %B;\naddc.u64 %E, 0, 0;",
            [("b64", U64_TABLE), ("b64", U64_TABLE)], ["b64", "b64"])
    op_case(fam, "sub_cc_subc_u64", "sub.cc.u64 %D, %A, %B;\nsubc.u64 %E, 0, 0;",
            [("b64", U64_TABLE), ("b64", U64_TABLE)], ["b64", "b64"])
    op_case(fam, "add128_via_u32_chain",
            "mov.b64 {%r0, %r1}, %A;\nmov.b64 {%r2, %r3}, %B;\nadd.cc.u32 %r4, %r0, %r2;\naddc.cc.u32 %r5, %r1, %r3;\n"
            "addc.cc.u32 %r6, %r1, %r1;\naddc.u32 %E, 0, 0;\nmov.b64 %D, {%r4, %r5};",
            [("b64", U64_TABLE), ("b64", U64_TABLE)], ["b64", "b32"])
    op_case(fam, "mul64x64_128_via_mad_cc",
            "mov.b64 {%r0, %r1}, %A;\nmov.b64 {%r2, %r3}, %B;\n"
            "mul.lo.u32 %r4, %r0, %r2;\nmul.hi.u32 %r5, %r0, %r2;\n"
            "mad.lo.cc.u32 %r5, %r1, %r2, %r5;\nmadc.hi.u32 %r6, %r1, %r2, 0;\n"
            "mad.lo.cc.u32 %r5, %r0, %r3, %r5;\nmadc.hi.cc.u32 %r6, %r0, %r3, %r6;\naddc.u32 %r7, 0, 0;\n"
            "mad.lo.cc.u32 %r6, %r1, %r3, %r6;\nmadc.hi.u32 %r7, %r1, %r3, %r7;\n"
            "mov.b64 %D, {%r4, %r5};\nmov.b64 %E, {%r6, %r7};",
            [("b64", U64_TABLE), ("b64", U64_TABLE)], ["b64", "b64"], comment="full 128-bit product, D=lo E=hi")


RND = ["rn", "rz", "rm", "rp"]
# The PTX ISA leaves NaN payloads to the implementation except for min/max (see nvidia-behaviour-notes);
# float results therefore compare exactly except that any NaN matches any NaN.
XN32 = "exact-nan:f32"
XN64 = "exact-nan:f64"
XN16 = "exact-nan:f16"
XNB = "exact-nan:bf16"


def gen_f32():
    fam = "f32"
    T = F32_TABLE
    for op in ["add", "sub", "mul"]:
        for r in RND:
            op_case(fam, f"{op}_{r}_f32", f"{op}.{r}.f32 %D, %A, %B;", [("f32", T), ("f32", T)], ["b32"], cmp=XN32)
        op_case(fam, f"{op}_f32", f"{op}.f32 %D, %A, %B;", [("f32", T), ("f32", T)], ["b32"], cmp=XN32)
        op_case(fam, f"{op}_rn_ftz_f32", f"{op}.rn.ftz.f32 %D, %A, %B;", [("f32", T), ("f32", T)], ["b32"], cmp=XN32)
        op_case(fam, f"{op}_rz_ftz_f32", f"{op}.rz.ftz.f32 %D, %A, %B;", [("f32", T), ("f32", T)], ["b32"], cmp=XN32)
        op_case(fam, f"{op}_rn_sat_f32", f"{op}.rn.sat.f32 %D, %A, %B;", [("f32", T), ("f32", T)], ["b32"], cmp=XN32)
        op_case(fam, f"{op}_rm_ftz_sat_f32", f"{op}.rm.ftz.sat.f32 %D, %A, %B;", [("f32", T), ("f32", T)], ["b32"],
                cmp=XN32)
    S = F32_SMALL
    for r in RND:
        op_case(fam, f"fma_{r}_f32", f"fma.{r}.f32 %D, %A, %B, %C;", [("f32", S), ("f32", S), ("f32", S)], ["b32"],
                cmp=XN32)
    op_case(fam, "fma_rn_ftz_f32", "fma.rn.ftz.f32 %D, %A, %B, %C;", [("f32", S), ("f32", S), ("f32", S)], ["b32"],
            cmp=XN32)
    op_case(fam, "fma_rn_sat_f32", "fma.rn.sat.f32 %D, %A, %B, %C;", [("f32", S), ("f32", S), ("f32", S)], ["b32"],
            cmp=XN32)
    op_case(fam, "mad_rn_f32", "mad.rn.f32 %D, %A, %B, %C;", [("f32", S), ("f32", S), ("f32", S)], ["b32"], cmp=XN32)
    # fma where the exact product matters: random triples (zip)
    ra, rb = rand_f32(512, -4, 4), rand_f32(512, -4, 4)
    rc = rand_f32(512, -4, 4)
    for r in RND:
        op_case(fam, f"fma_{r}_f32_random", f"fma.{r}.f32 %D, %A, %B, %C;", [("f32", ra), ("f32", rb), ("f32", rc)],
                ["b32"], cross=False, cmp=XN32)
    # denormal results: products near the subnormal range
    tiny = ["nmin", "-nmin", "dmax", "0x00c00000", "0x01000000", "0x00800001", "0x3f000000", "0x3effffff",
            "0x3f7fffff", "0x3f800001", "0x34000000", "0x33ffffff", "0xbf000001"]
    op_case(fam, "mul_rn_ftz_f32_subnormal_boundary", "mul.rn.ftz.f32 %D, %A, %B;", [("f32", tiny), ("f32", tiny)],
            ["b32"], cmp=XN32, comment="the notes: .ftz flushes after rounding")
    op_case(fam, "mul_rn_f32_subnormal_boundary", "mul.rn.f32 %D, %A, %B;", [("f32", tiny), ("f32", tiny)], ["b32"],
            cmp=XN32)
    for op in ["min", "max"]:
        op_case(fam, f"{op}_f32", f"{op}.f32 %D, %A, %B;", [("f32", T), ("f32", T)], ["b32"],
                comment="NaN results are canonical on NVIDIA (notes): exact compare")
        op_case(fam, f"{op}_ftz_f32", f"{op}.ftz.f32 %D, %A, %B;", [("f32", T), ("f32", T)], ["b32"])
        op_case(fam, f"{op}_NaN_f32", f"{op}.NaN.f32 %D, %A, %B;", [("f32", T), ("f32", T)], ["b32"])
        op_case(fam, f"{op}_xorsign_abs_f32", f"{op}.xorsign.abs.f32 %D, %A, %B;", [("f32", T), ("f32", T)], ["b32"],
                target="sm_86", version="8.0")
    for op in ["abs", "neg"]:
        op_case(fam, f"{op}_f32", f"{op}.f32 %D, %A;", [("f32", T)], ["b32"])
        op_case(fam, f"{op}_ftz_f32", f"{op}.ftz.f32 %D, %A;", [("f32", T)], ["b32"])
    op_case(fam, "copysign_f32", "copysign.f32 %D, %A, %B;", [("f32", T), ("f32", T)], ["b32"])
    for t in ["finite", "infinite", "number", "notanumber", "normal", "subnormal"]:
        op_case(fam, f"testp_{t}_f32", f"testp.{t}.f32 %p0, %A;\nselp.u32 %D, 1, 0, %p0;", [("f32", T)], ["b32"],
                comment="notes: testp.normal(+-0) is true on NVIDIA" if t == "normal" else "")
    # IEEE div / rcp / sqrt with rounding modes
    pos = [v for v in T if not v.startswith("-") and not v.startswith("0x8") and not v.startswith("0xb")
           and not v.startswith("0xc")]
    for r in RND:
        op_case(fam, f"div_{r}_f32", f"div.{r}.f32 %D, %A, %B;", [("f32", T), ("f32", T)], ["b32"], cmp=XN32)
        op_case(fam, f"rcp_{r}_f32", f"rcp.{r}.f32 %D, %A;", [("f32", T)], ["b32"], cmp=XN32)
        op_case(fam, f"sqrt_{r}_f32", f"sqrt.{r}.f32 %D, %A;", [("f32", T)], ["b32"], cmp=XN32)
    op_case(fam, "div_rn_ftz_f32", "div.rn.ftz.f32 %D, %A, %B;", [("f32", T), ("f32", T)], ["b32"], cmp=XN32)
    op_case(fam, "rcp_rn_ftz_f32", "rcp.rn.ftz.f32 %D, %A;", [("f32", T)], ["b32"], cmp=XN32)
    op_case(fam, "sqrt_rn_ftz_f32", "sqrt.rn.ftz.f32 %D, %A;", [("f32", T)], ["b32"], cmp=XN32)
    rnd = rand_f32(256, -30, 30)
    for r in RND:
        op_case(fam, f"sqrt_{r}_f32_random", f"sqrt.{r}.f32 %D, %A;", [("f32", [v.replace("0x8", "0x0", 1).replace(
            "0x9", "0x1", 1).replace("0xa", "0x2", 1).replace("0xb", "0x3", 1).replace("0xc", "0x4", 1).replace(
            "0xd", "0x5", 1) for v in rnd])], ["b32"], cmp=XN32)
        op_case(fam, f"div_{r}_f32_random", f"div.{r}.f32 %D, %A, %B;", [("f32", rnd), ("f32", rnd[::-1])], ["b32"],
                cross=False, cmp=XN32)
    del pos


def gen_f64():
    fam = "f64"
    T = F64_TABLE
    S = F64_SMALL
    for op in ["add", "sub", "mul"]:
        for r in RND:
            op_case(fam, f"{op}_{r}_f64", f"{op}.{r}.f64 %D, %A, %B;", [("f64", T), ("f64", T)], ["b64"], cmp=XN64)
    for r in RND:
        op_case(fam, f"fma_{r}_f64", f"fma.{r}.f64 %D, %A, %B, %C;", [("f64", S), ("f64", S), ("f64", S)], ["b64"],
                cmp=XN64)
        op_case(fam, f"div_{r}_f64", f"div.{r}.f64 %D, %A, %B;", [("f64", T), ("f64", T)], ["b64"], cmp=XN64)
        op_case(fam, f"rcp_{r}_f64", f"rcp.{r}.f64 %D, %A;", [("f64", T)], ["b64"], cmp=XN64)
        op_case(fam, f"sqrt_{r}_f64", f"sqrt.{r}.f64 %D, %A;", [("f64", T)], ["b64"], cmp=XN64)
    for op in ["min", "max"]:
        op_case(fam, f"{op}_f64", f"{op}.f64 %D, %A, %B;", [("f64", T), ("f64", T)], ["b64"])
    for op in ["abs", "neg"]:
        op_case(fam, f"{op}_f64", f"{op}.f64 %D, %A;", [("f64", T)], ["b64"])
    op_case(fam, "copysign_f64", "copysign.f64 %D, %A, %B;", [("f64", T), ("f64", T)], ["b64"])
    for t in ["finite", "infinite", "number", "notanumber", "normal", "subnormal"]:
        op_case(fam, f"testp_{t}_f64", f"testp.{t}.f64 %p0, %A;\nselp.u32 %D, 1, 0, %p0;", [("f64", T)], ["b32"])


def gen_half():
    fam = "f16"
    H = F16_TABLE
    B = BF16_TABLE
    H2 = [f"0x{0:04x}"]  # placeholder
    from gen_core import _rng  # noqa: F401
    # packed tables built as b32 hex from f16 bit patterns
    import struct  # noqa: F401

    def hbits(tok, fmt):
        # resolve a special name to bits for packing (same rules as the harness)
        e, m = (5, 10) if fmt == "f16" else (8, 7)
        neg = tok.startswith("-")
        t = tok.lstrip("+-")
        if t.startswith("0x"):
            return int(t, 16) | ((1 << 15) if neg else 0)
        em = (1 << e) - 1
        mm = (1 << m) - 1
        bias = (1 << (e - 1)) - 1
        v = {"0": 0, "inf": em << m, "nan": (em << m) | (1 << (m - 1)), "dmin": 1, "dmax": mm, "nmin": 1 << m,
             "max": ((em - 1) << m) | mm, "one": bias << m, "1+ulp": (bias << m) + 1, "1-ulp": (bias << m) - 1,
             "two": (bias + 1) << m, "half": (bias - 1) << m}[t]
        return v | ((1 << 15) if neg else 0)

    def packed(tab, fmt):
        return ["0x%08x" % (hbits(lo, fmt) | (hbits(hi, fmt) << 16)) for lo, hi in pack_pairs16(tab)]

    H2 = packed(H, "f16")
    B2 = packed(B, "bf16")
    for op in ["add", "sub", "mul"]:
        for r in ["rn", "rz", "rm", "rp"] if op != "sub" else ["rn"]:
            tgt = "sm_80" if r == "rn" else "sm_90"
            ver = "7.8" if r == "rn" else "8.6"
            # .rz/.rm/.rp on f16 add/mul exist from PTX ISA 8.6? keep rn on sm_80; others only if ptxas accepts
            if r != "rn":
                continue
            op_case(fam, f"{op}_{r}_f16", f"{op}.{r}.f16 %D, %A, %B;", [("f16", H), ("f16", H)], ["b16"], cmp=XN16,
                    target=tgt, version=ver)
            op_case(fam, f"{op}_{r}_f16x2", f"{op}.{r}.f16x2 %D, %A, %B;", [("b32", H2), ("b32", H2)], ["b32"],
                    target=tgt, version=ver, comment="NaN payloads are compared exactly here (packed)")
        op_case(fam, f"{op}_rn_ftz_f16", f"{op}.rn.ftz.f16 %D, %A, %B;", [("f16", H), ("f16", H)], ["b16"], cmp=XN16)
        op_case(fam, f"{op}_rn_sat_f16", f"{op}.rn.sat.f16 %D, %A, %B;", [("f16", H), ("f16", H)], ["b16"], cmp=XN16)
        op_case(fam, f"{op}_rn_bf16", f"{op}.rn.bf16 %D, %A, %B;", [("bf16", B), ("bf16", B)], ["b16"], cmp=XNB,
                target="sm_90")
        op_case(fam, f"{op}_rn_bf16x2", f"{op}.rn.bf16x2 %D, %A, %B;", [("b32", B2), ("b32", B2)], ["b32"],
                target="sm_90")
    Hs = H[:14]
    Bs = B[:14]
    op_case(fam, "fma_rn_f16", "fma.rn.f16 %D, %A, %B, %C;", [("f16", Hs), ("f16", Hs), ("f16", Hs)], ["b16"],
            cmp=XN16)
    op_case(fam, "fma_rn_ftz_sat_f16", "fma.rn.ftz.sat.f16 %D, %A, %B, %C;", [("f16", Hs), ("f16", Hs), ("f16", Hs)],
            ["b16"], cmp=XN16)
    op_case(fam, "fma_rn_relu_f16", "fma.rn.relu.f16 %D, %A, %B, %C;", [("f16", Hs), ("f16", Hs), ("f16", Hs)],
            ["b16"])
    op_case(fam, "fma_rn_f16x2", "fma.rn.f16x2 %D, %A, %B, %C;", [("b32", H2), ("b32", H2[:8]), ("b32", H2[:8])],
            ["b32"])
    op_case(fam, "fma_rn_bf16", "fma.rn.bf16 %D, %A, %B, %C;", [("bf16", Bs), ("bf16", Bs), ("bf16", Bs)], ["b16"],
            cmp=XNB)
    op_case(fam, "fma_rn_relu_bf16x2", "fma.rn.relu.bf16x2 %D, %A, %B, %C;",
            [("b32", B2), ("b32", B2[:8]), ("b32", B2[:8])], ["b32"])
    for op in ["min", "max"]:
        op_case(fam, f"{op}_f16", f"{op}.f16 %D, %A, %B;", [("f16", H), ("f16", H)], ["b16"])
        op_case(fam, f"{op}_NaN_f16x2", f"{op}.NaN.f16x2 %D, %A, %B;", [("b32", H2), ("b32", H2)], ["b32"])
        op_case(fam, f"{op}_bf16", f"{op}.bf16 %D, %A, %B;", [("bf16", B), ("bf16", B)], ["b16"])
        op_case(fam, f"{op}_bf16x2", f"{op}.bf16x2 %D, %A, %B;", [("b32", B2), ("b32", B2)], ["b32"])
    op_case(fam, "neg_f16", "neg.f16 %D, %A;", [("f16", H)], ["b16"])
    op_case(fam, "abs_f16x2", "abs.f16x2 %D, %A;", [("b32", H2)], ["b32"])
    op_case(fam, "neg_bf16x2", "neg.bf16x2 %D, %A;", [("b32", B2)], ["b32"])
    op_case(fam, "abs_bf16", "abs.bf16 %D, %A;", [("bf16", B)], ["b16"])
    for c in ["eq", "lt", "ge", "neu", "nan"]:
        op_case(fam, f"setp_{c}_f16", f"setp.{c}.f16 %p0, %A, %B;\nselp.u32 %D, 1, 0, %p0;",
                [("f16", H), ("f16", H)], ["b32"])
        op_case(fam, f"setp_{c}_bf16", f"setp.{c}.bf16 %p0, %A, %B;\nselp.u32 %D, 1, 0, %p0;",
                [("bf16", B), ("bf16", B)], ["b32"], target="sm_90")
    op_case(fam, "setp_gtu_f16x2", "setp.gtu.f16x2 %p0|%p1, %A, %B;\nselp.u32 %r0, 1, 0, %p0;\n"
            "selp.u32 %r1, 2, 0, %p1;\nor.b32 %D, %r0, %r1;", [("b32", H2), ("b32", H2)], ["b32"])
    op_case(fam, "set_lt_f16x2_f16x2", "set.lt.f16x2.f16x2 %D, %A, %B;", [("b32", H2), ("b32", H2)], ["b32"])
    op_case(fam, "set_le_u32_f16", "set.le.u32.f16 %D, %A, %B;", [("f16", H), ("f16", H)], ["b32"])
    # approximations on f16 -- bounds: ex2.approx.f16 max relative error 2^-9.9 (PTX ISA, ex2);
    # tanh.approx.f16 max relative error 2^-10.987 (PTX ISA, tanh). Both NVIDIA and ours may err: tolerance
    # is twice the bound, in f16 ulps (rel 2^-9.9 is <= 2.2 ulp).
    hx = ["0x%04x" % v for v in range(0xb800, 0xcc00, 0x1f3)] + ["0x%04x" % v for v in range(0x0000, 0x4c00, 0x1f1)]
    hx = [h for h in hx if int(h, 16) & 0x7c00 != 0x7c00]
    op_case(fam, "ex2_approx_f16", "ex2.approx.f16 %D, %A;", [("f16", hx)], ["b16"], cmp="ulp:5:f16",
            comment="PTX ISA: ex2.approx.f16 max relative error 2^-9.9; compare within 2x that bound")
    op_case(fam, "ex2_approx_ftz_bf16", "ex2.approx.ftz.bf16 %D, %A;", [("bf16", B[:12] + ["0x3f00", "0xc000"])],
            ["b16"], cmp="ulp:4:bf16", target="sm_90",
            comment="PTX ISA: ex2.approx bf16 ~ bf16 precision; compare within 4 bf16 ulp")
    op_case(fam, "tanh_approx_f16", "tanh.approx.f16 %D, %A;", [("f16", hx)], ["b16"], cmp="ulp:3:f16",
            comment="PTX ISA: tanh.approx.f16 max relative error 2^-10.987; compare within 2x that bound")


def gen_cvt():
    fam = "cvt"
    F = F32_TABLE + ["0x4effffff", "0x4f000000", "0xcf000000", "0xcf000001", "0x4f800000", "0x5effffff",
                     "0x5f000000", "0xdf000000", "0x5f800000", "0x3f000000", "0x3fc00000", "0x40200000",
                     "0xbf000000", "0xbfc00000", "0x477fff00", "0x47800000", "0x437f0000", "0x43000000",
                     "0xc3010000", "0x3f7fffff", "0x4b000001", "0xcb7fffff"]
    D = F64_TABLE + ["0x41dfffffffc00000", "0x41e0000000000000", "0xc1e0000000000000", "0xc1e0000000200000",
                     "0x43e0000000000000", "0xc3e0000000000000", "0x43f0000000000000", "0x3fe0000000000000",
                     "0x3ff8000000000000", "0x4004000000000000", "0xbfe0000000000000", "0x3ff0000000000001"]
    ints = ["s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"]
    osz = {"s8": "b8", "u8": "b8", "s16": "b16", "u16": "b16", "s32": "b32", "u32": "b32", "s64": "b64",
           "u64": "b64"}
    # float -> int, all rounding modes; NaN/inf/out of range saturate (PTX ISA: cvt float-to-int saturates)
    for it in ints:
        for r in ["rni", "rzi", "rmi", "rpi"]:
            op_case(fam, f"cvt_{r}_{it}_f32", f"cvt.{r}.{it}.f32 %D, %A;", [("f32", F)],
                    [osz[it] if it not in ("s8", "u8") else "b16"],
                    comment="NaN -> 0 (32-bit and narrower), see nvidia-behaviour-notes")
        op_case(fam, f"cvt_rzi_{it}_f64", f"cvt.rzi.{it}.f64 %D, %A;", [("f64", D)],
                [osz[it] if it not in ("s8", "u8") else "b16"])
        op_case(fam, f"cvt_rni_{it}_f64", f"cvt.rni.{it}.f64 %D, %A;", [("f64", D)],
                [osz[it] if it not in ("s8", "u8") else "b16"])
    op_case(fam, "cvt_rzi_ftz_s32_f32", "cvt.rzi.ftz.s32.f32 %D, %A;", [("f32", F)], ["b32"])
    # int -> float with rounding
    I32 = U32_TABLE + ["0x01000001", "0x01000003", "0xfeffffff", "0x7fffffc0", "0x7fffffbf"]
    I64 = U64_TABLE + ["0x0020000000000001", "0x0020000000000003", "0xffdfffffffffffff", "0x7ffffffffffffdff"]
    for r in RND:
        for it, tab, bt in [("s32", I32, "b32"), ("u32", I32, "b32"), ("s64", I64, "b64"), ("u64", I64, "b64")]:
            op_case(fam, f"cvt_{r}_f32_{it}", f"cvt.{r}.f32.{it} %D, %A;", [(bt, tab)], ["b32"])
            if it.endswith("64"):
                op_case(fam, f"cvt_{r}_f64_{it}", f"cvt.{r}.f64.{it} %D, %A;", [(bt, tab)], ["b64"])
        op_case(fam, f"cvt_{r}_f16_s32", f"cvt.{r}.f16.s32 %D, %A;", [("b32", I32)], ["b16"])
    op_case(fam, "cvt_f64_s32", "cvt.rn.f64.s32 %D, %A;", [("b32", I32)], ["b64"])
    op_case(fam, "cvt_f64_u32", "cvt.rn.f64.u32 %D, %A;", [("b32", I32)], ["b64"])
    # float <-> float
    for r in RND:
        op_case(fam, f"cvt_{r}_f32_f64", f"cvt.{r}.f32.f64 %D, %A;", [("f64", D)], ["b32"], cmp=XN32)
        op_case(fam, f"cvt_{r}_f16_f32", f"cvt.{r}.f16.f32 %D, %A;", [("f32", F)], ["b16"], cmp=XN16)
        op_case(fam, f"cvt_{r}_f16_f64", f"cvt.{r}.f16.f64 %D, %A;", [("f64", D)], ["b16"], cmp=XN16)
    op_case(fam, "cvt_rn_ftz_f32_f64", "cvt.rn.ftz.f32.f64 %D, %A;", [("f64", D)], ["b32"], cmp=XN32)
    op_case(fam, "cvt_rn_sat_f32_f64", "cvt.rn.sat.f32.f64 %D, %A;", [("f64", D)], ["b32"], cmp=XN32)
    op_case(fam, "cvt_rn_sat_f16_f32", "cvt.rn.sat.f16.f32 %D, %A;", [("f32", F)], ["b16"], cmp=XN16)
    op_case(fam, "cvt_f64_f32", "cvt.f64.f32 %D, %A;", [("f32", F)], ["b64"], cmp=XN64)
    op_case(fam, "cvt_ftz_f64_f32", "cvt.ftz.f64.f32 %D, %A;", [("f32", F)], ["b64"], cmp=XN64)
    op_case(fam, "cvt_f32_f16", "cvt.f32.f16 %D, %A;", [("f16", F16_TABLE)], ["b32"], cmp=XN32)
    op_case(fam, "cvt_f64_f16", "cvt.f64.f16 %D, %A;", [("f16", F16_TABLE)], ["b64"], cmp=XN64)
    op_case(fam, "cvt_f32_bf16", "cvt.f32.bf16 %D, %A;", [("bf16", BF16_TABLE)], ["b32"], cmp=XN32, target="sm_90")
    for r in ["rn", "rz"]:
        op_case(fam, f"cvt_{r}_bf16_f32", f"cvt.{r}.bf16.f32 %D, %A;", [("f32", F)], ["b16"], cmp=XNB)
        op_case(fam, f"cvt_{r}_relu_bf16_f32", f"cvt.{r}.relu.bf16.f32 %D, %A;", [("f32", F)], ["b16"], cmp=XNB)
        op_case(fam, f"cvt_{r}_bf16x2_f32", f"cvt.{r}.bf16x2.f32 %D, %A, %B;", [("f32", F), ("f32", F[:6])],
                ["b32"])
        op_case(fam, f"cvt_{r}_f16x2_f32", f"cvt.{r}.f16x2.f32 %D, %A, %B;", [("f32", F), ("f32", F[:6])], ["b32"])
    for r in ["rm", "rp"]:
        op_case(fam, f"cvt_{r}_bf16_f32", f"cvt.{r}.bf16.f32 %D, %A;", [("f32", F)], ["b16"], cmp=XNB,
                target="sm_90", version="7.8")
    op_case(fam, "cvt_rn_satfinite_bf16_f32", "cvt.rn.satfinite.bf16.f32 %D, %A;", [("f32", F)], ["b16"],
            target="sm_90", version="8.1")
    op_case(fam, "cvt_rn_relu_satfinite_f16_f32", "cvt.rn.relu.satfinite.f16.f32 %D, %A;", [("f32", F)], ["b16"],
            target="sm_90", version="8.1")
    op_case(fam, "cvt_rna_tf32_f32", "cvt.rna.tf32.f32 %D, %A;", [("f32", F)], ["b32"])
    op_case(fam, "cvt_rna_satfinite_tf32_f32", "cvt.rna.satfinite.tf32.f32 %D, %A;", [("f32", F)], ["b32"],
            target="sm_90", version="8.1")
    # fp8: only .rn.satfinite exists for f32 -> e4m3x2/e5m2x2 (PTX ISA)
    for f8 in ["e4m3", "e5m2"]:
        op_case(fam, f"cvt_rn_satfinite_{f8}x2_f32", f"cvt.rn.satfinite.{f8}x2.f32 %h0, %A, %B;\ncvt.u32.u16 %D, %h0;",
                [("f32", F), ("f32", F[:5])], ["b32"], target="sm_90", version="7.8")
        op_case(fam, f"cvt_rn_relu_satfinite_{f8}x2_f32",
                f"cvt.rn.satfinite.relu.{f8}x2.f32 %h0, %A, %B;\ncvt.u32.u16 %D, %h0;",
                [("f32", F), ("f32", F[:3])], ["b32"], target="sm_90", version="7.8")
        op_case(fam, f"cvt_rn_f16x2_{f8}x2", f"cvt.u16.u32 %h0, %A;\ncvt.rn.f16x2.{f8}x2 %D, %h0;",
                [("b32", ["0x%x" % v for v in range(0, 0x10000, 0x101)] + ["0x7f7e", "0xff7f", "0x807f", "0x7c7b",
                                                                          "0xfc83", "0x0100", "0x7e80"])],
                ["b32"], target="sm_90", version="7.8")
    # int <-> int with saturation
    I = U32_TABLE
    for dt in ["s8", "u8", "s16", "u16", "u32"]:
        for st in ["s32", "u32"]:
            if dt == st:
                continue
            out = {"s8": "b16", "u8": "b16", "s16": "b16", "u16": "b16", "u32": "b32"}[dt]
            op_case(fam, f"cvt_sat_{dt}_{st}", f"cvt.sat.{dt}.{st} %D, %A;", [("b32", I)], [out])
    op_case(fam, "cvt_s32_s8", "cvt.s32.s8 %D, %A;", [("b32", I)], ["b32"])
    op_case(fam, "cvt_u64_s32", "cvt.u64.s32 %D, %A;", [("b32", I)], ["b64"])
    op_case(fam, "cvt_s64_u32", "cvt.s64.u32 %D, %A;", [("b32", I)], ["b64"])
    op_case(fam, "cvt_sat_s32_s64", "cvt.sat.s32.s64 %D, %A;", [("b64", U64_TABLE)], ["b32"])
    op_case(fam, "cvt_sat_u32_s64", "cvt.sat.u32.s64 %D, %A;", [("b64", U64_TABLE)], ["b32"])
    op_case(fam, "cvt_u16_u64_trunc", "cvt.u16.u64 %D, %A;", [("b64", U64_TABLE)], ["b16"])
    # float round-to-integer in float
    for r in ["rni", "rzi", "rmi", "rpi"]:
        op_case(fam, f"cvt_{r}_f32_f32", f"cvt.{r}.f32.f32 %D, %A;", [("f32", F)], ["b32"], cmp=XN32)
        op_case(fam, f"cvt_{r}_f64_f64", f"cvt.{r}.f64.f64 %D, %A;", [("f64", D)], ["b64"], cmp=XN64)
    op_case(fam, "cvt_rni_ftz_f32_f32", "cvt.rni.ftz.f32.f32 %D, %A;", [("f32", F)], ["b32"], cmp=XN32)
    op_case(fam, "cvt_sat_f32_f32", "cvt.sat.f32.f32 %D, %A;", [("f32", F)], ["b32"], cmp=XN32)
    op_case(fam, "cvt_ftz_sat_f32_f32", "cvt.ftz.sat.f32.f32 %D, %A;", [("f32", F)], ["b32"], cmp=XN32)


def gen_cmp():
    fam = "cmp"
    T = F32_SMALL + ["0x3f800000", "0xbf800000"]
    for c in ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]:
        op_case(fam, f"setp_{c}_f32", f"setp.{c}.f32 %p0, %A, %B;\nselp.u32 %D, 1, 0, %p0;", [("f32", T), ("f32", T)],
                ["b32"])
        op_case(fam, f"setp_{c}_f64", f"setp.{c}.f64 %p0, %A, %B;\nselp.u32 %D, 1, 0, %p0;",
                [("f64", F64_SMALL), ("f64", F64_SMALL)], ["b32"])
    op_case(fam, "setp_lt_ftz_f32", "setp.lt.ftz.f32 %p0, %A, %B;\nselp.u32 %D, 1, 0, %p0;", [("f32", T), ("f32", T)],
            ["b32"])
    I = U32_TABLE[:20]
    for c in ["eq", "ne", "lt", "le", "gt", "ge"]:
        op_case(fam, f"setp_{c}_s32", f"setp.{c}.s32 %p0, %A, %B;\nselp.u32 %D, 1, 0, %p0;", [("b32", I), ("b32", I)],
                ["b32"])
    for c in ["lo", "ls", "hi", "hs"]:
        op_case(fam, f"setp_{c}_u32", f"setp.{c}.u32 %p0, %A, %B;\nselp.u32 %D, 1, 0, %p0;", [("b32", I), ("b32", I)],
                ["b32"])
    for c in ["lt", "ge"]:
        op_case(fam, f"setp_{c}_s64", f"setp.{c}.s64 %p0, %A, %B;\nselp.u32 %D, 1, 0, %p0;",
                [("b64", U64_TABLE), ("b64", U64_TABLE)], ["b32"])
        op_case(fam, f"setp_{c}_u64", f"setp.{c}.u64 %p0, %A, %B;\nselp.u32 %D, 1, 0, %p0;",
                [("b64", U64_TABLE), ("b64", U64_TABLE)], ["b32"])
        op_case(fam, f"setp_{c}_s16", f"setp.{c}.s16 %p0, %A, %B;\nselp.u32 %D, 1, 0, %p0;",
                [("b16", U16_TABLE), ("b16", U16_TABLE)], ["b32"])
    op_case(fam, "setp_lt_and_pred_pair", "setp.ne.u32 %p2, %B, 0;\nsetp.lt.and.s32 %p0|%p1, %A, %B, %p2;\n"
            "selp.u32 %r0, 1, 0, %p0;\nselp.u32 %r1, 2, 0, %p1;\nor.b32 %D, %r0, %r1;",
            [("b32", I), ("b32", I)], ["b32"])
    op_case(fam, "setp_gtu_xor_not_f32", "setp.eq.u32 %p2, %B, 0;\nsetp.gtu.xor.f32 %p0|%p1, %A, %A, !%p2;\n"
            "selp.u32 %r0, 1, 0, %p0;\nselp.u32 %r1, 2, 0, %p1;\nor.b32 %D, %r0, %r1;",
            [("f32", T), ("b32", ["0", "1"])], ["b32"])
    op_case(fam, "set_lt_u32_f32", "set.lt.u32.f32 %D, %A, %B;", [("f32", T), ("f32", T)], ["b32"])
    op_case(fam, "set_gtu_f32_f32", "set.gtu.f32.f32 %D, %A, %B;", [("f32", T), ("f32", T)], ["b32"])
    op_case(fam, "set_ne_s32_s32", "set.ne.s32.s32 %D, %A, %B;", [("b32", I), ("b32", I)], ["b32"])
    op_case(fam, "selp_b32", "setp.ne.u32 %p0, %B, 0;\nselp.b32 %D, %A, 0xdeadbeef, %p0;",
            [("b32", I), ("b32", ["0", "1", "2", "0x80000000"])], ["b32"])
    op_case(fam, "selp_f64", "setp.ne.u32 %p0, %B, 0;\nselp.f64 %D, %A, 0d3FF0000000000000, %p0;",
            [("f64", F64_SMALL), ("b32", ["0", "1"])], ["b64"])
    op_case(fam, "slct_b32_s32", "slct.b32.s32 %D, %A, 0xcafef00d, %B;", [("b32", I), ("b32", I)], ["b32"])
    op_case(fam, "slct_u32_f32", "slct.u32.f32 %D, %A, 77, %B;", [("b32", I[:4]), ("f32", T)], ["b32"],
            comment="-0.0 selects a (c >= 0); NaN c: f32 sign bit decides is not specified, NaN included")
    op_case(fam, "slct_ftz_f32_f32", "slct.ftz.f32.f32 %D, %A, 0f3F800000, %B;", [("f32", T[:4]), ("f32", T)],
            ["b32"])


def gen_bits():
    fam = "bits"
    I = U32_TABLE
    L = U64_TABLE
    for op in ["and", "or", "xor"]:
        op_case(fam, f"{op}_b32", f"{op}.b32 %D, %A, %B;", [("b32", I), ("b32", I)], ["b32"])
        op_case(fam, f"{op}_b64", f"{op}.b64 %D, %A, %B;", [("b64", L), ("b64", L)], ["b64"])
    op_case(fam, "and_pred", "setp.ne.u32 %p0, %A, 0;\nsetp.ne.u32 %p1, %B, 0;\nand.pred %p2, %p0, %p1;\n"
            "xor.pred %p3, %p0, %p1;\nnot.pred %p4, %p3;\nselp.u32 %r0, 1, 0, %p2;\nselp.u32 %r1, 2, 0, %p4;\n"
            "or.b32 %D, %r0, %r1;", [("b32", ["0", "1", "7"]), ("b32", ["0", "1", "7"])], ["b32"])
    op_case(fam, "not_b32", "not.b32 %D, %A;", [("b32", I)], ["b32"])
    op_case(fam, "cnot_b32", "cnot.b32 %D, %A;", [("b32", I)], ["b32"])
    op_case(fam, "not_b16", "not.b16 %D, %A;", [("b16", U16_TABLE)], ["b16"])
    S = SHIFT_TABLE
    for op in ["shl.b32", "shr.u32", "shr.s32"]:
        op_case(fam, op.replace(".", "_"), f"{op} %D, %A, %B;", [("b32", I), ("b32", S)], ["b32"],
                comment="shift amounts beyond the width clamp (PTX ISA)")
    for op in ["shl.b64", "shr.u64", "shr.s64"]:
        op_case(fam, op.replace(".", "_"), f"{op} %D, %A, %B;", [("b64", L), ("b32", S)], ["b64"])
    for op in ["shl.b16", "shr.s16", "shr.u16"]:
        op_case(fam, op.replace(".", "_"), f"{op} %D, %A, %B;", [("b16", U16_TABLE), ("b32", S)], ["b16"])
    for m in ["l", "r"]:
        for w in ["wrap", "clamp"]:
            op_case(fam, f"shf_{m}_{w}_b32", f"shf.{m}.{w}.b32 %D, %A, %B, %C;",
                    [("b32", I[:16]), ("b32", I[16:26]), ("b32", S)], ["b32"])
    P = ["0", "1", "5", "8", "16", "24", "31", "32", "33", "200", "255", "256", "257", "0xffffffff"]
    op_case(fam, "bfe_u32", "bfe.u32 %D, %A, %B, %C;", [("b32", I[12:24]), ("b32", P), ("b32", P)], ["b32"],
            comment="32-bit bfe uses the low 8 bits of pos/len (notes)")
    op_case(fam, "bfe_s32", "bfe.s32 %D, %A, %B, %C;", [("b32", I[12:24]), ("b32", P), ("b32", P)], ["b32"])
    op_case(fam, "bfe_u64", "bfe.u64 %D, %A, %B, %C;", [("b64", L[4:14]), ("b32", P), ("b32", P)], ["b64"],
            comment="64-bit bfe: position >= 256 yields 0, not reduced to 8 bits (notes)")
    op_case(fam, "bfe_s64", "bfe.s64 %D, %A, %B, %C;", [("b64", L[4:14]), ("b32", P), ("b32", P)], ["b64"])
    op_case(fam, "bfi_b32", "bfi.b32 %D, %A, 0x0f0f0f0f, %B, %C;", [("b32", I[12:26]), ("b32", P), ("b32", P)],
            ["b32"])
    op_case(fam, "bfi_b64", "bfi.b64 %D, %A, 0xf0f0f0f0f0f0f0f0, %B, %C;",
            [("b64", L[4:14]), ("b32", P), ("b32", P)], ["b64"])
    op_case(fam, "brev_b32", "brev.b32 %D, %A;", [("b32", I)], ["b32"])
    op_case(fam, "brev_b64", "brev.b64 %D, %A;", [("b64", L)], ["b64"])
    op_case(fam, "clz_b32", "clz.b32 %D, %A;", [("b32", I)], ["b32"])
    op_case(fam, "clz_b64", "clz.b64 %D, %A;", [("b64", L)], ["b32"])
    op_case(fam, "popc_b32", "popc.b32 %D, %A;", [("b32", I)], ["b32"])
    op_case(fam, "popc_b64", "popc.b64 %D, %A;", [("b64", L)], ["b32"])
    op_case(fam, "bfind_u32", "bfind.u32 %D, %A;", [("b32", I)], ["b32"])
    op_case(fam, "bfind_s32", "bfind.s32 %D, %A;", [("b32", I)], ["b32"])
    op_case(fam, "bfind_shiftamt_u32", "bfind.shiftamt.u32 %D, %A;", [("b32", I)], ["b32"])
    op_case(fam, "bfind_s64", "bfind.s64 %D, %A;", [("b64", L)], ["b32"])
    op_case(fam, "bfind_shiftamt_u64", "bfind.shiftamt.u64 %D, %A;", [("b64", L)], ["b32"])
    op_case(fam, "fns_b32", "fns.b32 %D, %A, %B, %C;",
            [("b32", I[:12]), ("b32", ["0", "1", "5", "31"]), ("b32", ["1", "2", "-1", "-3", "0"])], ["b32"])
    sel = ["0x3210", "0x7654", "0x0123", "0x4567", "0x1111", "0x8888", "0xfedc", "0x9abc", "0xf0e1", "0x5a5a",
           "0xffffffff", "0x12345678"]
    AB = [("0x03020100", "0x07060504"), ("0x80ff7f01", "0x00f08f70"), ("0xdeadbeef", "0xcafebabe")]
    a = [x for x, _ in AB]
    b = [y for _, y in AB]
    op_case(fam, "prmt_b32", "prmt.b32 %D, %A, %B, %C;", [("b32", a), ("b32", b), ("b32", sel)], ["b32"],
            cross=True)
    for mode in ["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"]:
        op_case(fam, f"prmt_b32_{mode}", f"prmt.b32.{mode} %D, %A, %B, %C;",
                [("b32", a), ("b32", b), ("b32", sel + ["0", "1", "2", "3", "4", "5", "6", "7"])], ["b32"])
    lut = ["0x00", "0xff", "0x80", "0xfe", "0x96", "0xe8", "0xca", "0x1e", "0x6a", "0xf0", "0xcc", "0xaa"]
    for L8 in lut:
        op_case(fam, f"lop3_{L8[2:]}", f"lop3.b32 %D, %A, %B, %C, {L8};",
                [("b32", I[12:20]), ("b32", I[16:24]), ("b32", I[20:28])], ["b32"])
    op_case(fam, "lop3_pred_out", "lop3.or.b32 %D|%p0, %A, %B, %C, 0x80, %p1;\n@%p0 or.b32 %D, %D, 1;",
            [("b32", I[12:20]), ("b32", I[16:24]), ("b32", I[20:28])], ["b32"], target="sm_90", version="8.2",
            comment="lop3 with predicate output (PTX 8.2)")
    for s1 in ["u32", "s32"]:
        for s2 in ["u32", "s32"]:
            op_case(fam, f"dp4a_{s1}_{s2}", f"dp4a.{s1}.{s2} %D, %A, %B, %C;",
                    [("b32", I[:16]), ("b32", I[8:24]), ("b32", ["0", "1", "0x7fffffff", "0xffffffff"])], ["b32"],
                    target="sm_61", version="7.0")
            for hl in ["lo", "hi"]:
                op_case(fam, f"dp2a_{hl}_{s1}_{s2}", f"dp2a.{hl}.{s1}.{s2} %D, %A, %B, %C;",
                        [("b32", I[:16]), ("b32", I[8:24]), ("b32", ["0", "0x80000000"])], ["b32"],
                        target="sm_61", version="7.0")
    op_case(fam, "mov_b64_pack_unpack", "mov.b64 {%r0, %r1}, %A;\nmov.b64 %D, {%r1, %r0};", [("b64", L)], ["b64"])
    op_case(fam, "mov_b32_pack_b16", "mov.b32 {%h0, %h1}, %A;\nmov.b32 %D, {%h1, %h0};", [("b32", I)], ["b32"])
    op_case(fam, "szext_clamp_s32", "szext.clamp.s32 %D, %A, %B;", [("b32", I[12:24]), ("b32", P)], ["b32"],
            target="sm_90", version="8.0")
    op_case(fam, "bmsk_clamp_b32", "bmsk.clamp.b32 %D, %A, %B;", [("b32", P), ("b32", P)], ["b32"], target="sm_90",
            version="8.0")
    op_case(fam, "bmsk_wrap_b32", "bmsk.wrap.b32 %D, %A, %B;", [("b32", P), ("b32", P)], ["b32"], target="sm_90",
            version="8.0")


def gen_approx():
    fam = "approx"
    import math
    import struct

    def f(x):
        return "0x%08x" % struct.unpack("<I", struct.pack("<f", x))[0]
    trig = [f(-math.pi + i * (2 * math.pi / 255)) for i in range(256)]
    op_case(fam, "sin_approx_f32", "sin.approx.f32 %D, %A;", [("f32", trig)], ["b32"], cmp="abs:1.36e-6:f32",
            comment="PTX ISA: sin.approx.f32 max absolute error 2^-20.5 in [-100pi, 100pi]; inputs in [-pi, pi];\n"
                    "tolerance 2*2^-20.5 (both implementations may err)")
    op_case(fam, "cos_approx_f32", "cos.approx.f32 %D, %A;", [("f32", trig)], ["b32"], cmp="abs:1.36e-6:f32",
            comment="PTX ISA: cos.approx.f32 max absolute error 2^-20.5 in [-100pi, 100pi]; tolerance 2x")
    op_case(fam, "sin_approx_ftz_f32_specials", "sin.approx.ftz.f32 %D, %A;",
            [("f32", ["+0", "-0", "inf", "-inf", "nan", "dmin", "-dmin"])], ["b32"], cmp=XN32)
    ex = [f(-126 + i * (254.0 / 511)) for i in range(512)]
    op_case(fam, "ex2_approx_f32", "ex2.approx.f32 %D, %A;", [("f32", ex)], ["b32"], cmp="ulp:4:f32",
            comment="PTX ISA: ex2.approx.f32 max error 2 ulp over the full range; tolerance 2x")
    op_case(fam, "ex2_approx_ftz_f32_specials", "ex2.approx.ftz.f32 %D, %A;",
            [("f32", ["+0", "-0", "inf", "-inf", "nan", "0x43000000", "0xc3160000", "0x42fe0000"])], ["b32"],
            cmp=XN32)
    lg_near = [f(0.5 + 1.5 * i / 255) for i in range(1, 255)]
    op_case(fam, "lg2_approx_f32_near1", "lg2.approx.f32 %D, %A;", [("f32", lg_near)], ["b32"],
            cmp="abs:4.8e-7:f32",
            comment="PTX ISA: lg2.approx.f32 max absolute error 2^-22 for inputs in (0.5, 2); tolerance 2x")
    lg_far = [f(2.0 ** (e / 3.0)) for e in range(-370, 380, 3) if not (-3 <= e <= 3)]
    op_case(fam, "lg2_approx_f32_far", "lg2.approx.f32 %D, %A;", [("f32", lg_far)], ["b32"], cmp="ulp:8:f32",
            comment="PTX ISA: lg2.approx.f32 max relative error 2^-22 outside (0.5, 2); 2x bound = 8 ulp")
    op_case(fam, "lg2_approx_f32_specials", "lg2.approx.f32 %D, %A;",
            [("f32", ["+0", "-0", "inf", "-inf", "nan", "-one", "one", "dmin", "nmin"])], ["b32"], cmp="ulp:8:f32",
            comment="PTX ISA: relative error 2^-22 outside (0.5, 2); NVIDIA gives -126+2^-17 for 2^-126 (1 ulp)")
    pos = [f(2.0 ** (e / 7.0)) for e in range(-880, 890, 7)]
    op_case(fam, "rsqrt_approx_f32", "rsqrt.approx.f32 %D, %A;", [("f32", pos)], ["b32"], cmp="ulp:5:f32",
            comment="PTX ISA: rsqrt.approx.f32 max relative error 2^-22.9; 2x bound ~ 4.3 ulp")
    op_case(fam, "sqrt_approx_f32", "sqrt.approx.f32 %D, %A;", [("f32", pos)], ["b32"], cmp="ulp:4:f32",
            comment="PTX ISA: sqrt.approx.f32 max relative error 2^-23; 2x bound = 4 ulp")
    op_case(fam, "rcp_approx_f32", "rcp.approx.f32 %D, %A;", [("f32", pos + ["-" + p for p in pos[::9]])], ["b32"],
            cmp="ulp:2:f32", comment="PTX ISA: rcp.approx.f32 max 1 ulp error over the full range; 2x")
    op_case(fam, "rcp_approx_ftz_f32_specials", "rcp.approx.ftz.f32 %D, %A;",
            [("f32", ["+0", "-0", "inf", "-inf", "nan", "dmin", "max", "-max"])], ["b32"], cmp=XN32)
    op_case(fam, "rsqrt_approx_f32_specials", "rsqrt.approx.f32 %D, %A;",
            [("f32", ["+0", "-0", "inf", "-inf", "nan", "-one", "one", "4"])], ["b32"], cmp=XN32)
    th = [f(-10 + 20.0 * i / 255) for i in range(256)]
    op_case(fam, "tanh_approx_f32", "tanh.approx.f32 %D, %A;", [("f32", th)], ["b32"], cmp="ulp:8192:f32",
            target="sm_75", version="7.0",
            comment="PTX ISA: tanh.approx.f32 max relative error 2^-11; 2x bound in f32 ulp = 2^13 ulp")
    dv = rand_f32(256, -20, 20)
    op_case(fam, "div_approx_f32", "div.approx.f32 %D, %A, %B;", [("f32", dv), ("f32", dv[::-1])], ["b32"],
            cross=False, cmp="ulp:4:f32",
            comment="PTX ISA: div.approx.f32 max 2 ulp for |b| in [2^-126, 2^126]; 2x")
    op_case(fam, "div_full_f32", "div.full.f32 %D, %A, %B;", [("f32", dv), ("f32", dv[::-1])], ["b32"],
            cross=False, cmp="ulp:4:f32", comment="PTX ISA: div.full.f32 max 2 ulp over the full range; 2x")
    op_case(fam, "rcp_approx_ftz_f64", "rcp.approx.ftz.f64 %D, %A;",
            [("f64", ["one", "two", "0x4008000000000000", "0x3fd5555555555555", "0xc014000000000000",
                      "0x4059000000000000", "inf", "+0", "-0"])], ["b64"], cmp="abs:1e-6:f64",
            comment="PTX ISA: rcp.approx.ftz.f64 is a ~20-bit-accurate estimate; tolerance abs 1e-6 for |x|>=0.33")


def gen_video():
    """Scalar and SIMD video instructions (PTX ISA 9.7.9): byte/half selectors, sign/zero extension per operand
    type, saturation to the destination type, the secondary operations (.add/.min/.max, merge into a byte or
    half of c, the SIMD masks) and vshl/vshr/vmad/vset. Inputs: words whose bytes and halves hit the extremes."""
    fam = "video"
    V = ["0x00000000", "0xffffffff", "0x7f80ff01", "0x80017fff", "0x12345678", "0xfedcba98", "0x00ff00ff",
         "0x7fff8000"]
    S = ["0", "1", "7", "8", "15", "16", "31", "32", "33", "0xffffffff", "0x101", "0x80000000"]
    C = ["0x9abcdef0", "0x01020304"]
    ins3 = [("b32", V), ("b32", V), ("b32", C)]
    ins2 = [("b32", V), ("b32", V)]

    def case(name, body, ins=None):
        op_case(fam, name, body, ins or ins3, ["b32"], target="sm_80", version="8.0")

    # scalar: vop.dtype.atype.btype{.sat} d, a{.asel}, b{.bsel}{, c with .op2 / merge into d.dsel}
    for op in ["vadd", "vsub", "vabsdiff", "vmin", "vmax"]:
        for d, a, b in [("u32", "u32", "u32"), ("s32", "s32", "s32"), ("u32", "s32", "u32"), ("s32", "u32", "s32")]:
            t = f"{op}_{d[0]}{a[0]}{b[0]}"
            case(t, f"{op}.{d}.{a}.{b} %D, %A, %B;", ins2)
            case(t + "_sat", f"{op}.{d}.{a}.{b}.sat %D, %A, %B;", ins2)
        case(f"{op}_sel_b", f"{op}.s32.u32.s32 %D, %A.b1, %B.b3;", ins2)
        case(f"{op}_sel_h_sat", f"{op}.u32.s32.s32.sat %D, %A.h1, %B.h0;", ins2)
        for op2 in ["add", "min", "max"]:
            case(f"{op}_{op2}", f"{op}.s32.s32.u32.{op2} %D, %A.b2, %B, %C;")
            case(f"{op}_sat_{op2}", f"{op}.u32.u32.s32.sat.{op2} %D, %A, %B.h1, %C;")
        for dsel in ["b0", "b1", "b2", "b3", "h0", "h1"]:
            case(f"{op}_merge_{dsel}", f"{op}.u32.s32.s32.sat %D.{dsel}, %A.b{dsel[1]}, %B, %C;"
                 if dsel[0] == "b" else f"{op}.s32.s32.s32 %D.{dsel}, %A.{dsel}, %B.h0, %C;")
    for op in ["vshl", "vshr"]:
        for d, a in [("u32", "u32"), ("s32", "s32"), ("u32", "s32"), ("s32", "u32")]:
            for mode in ["clamp", "wrap"]:
                case(f"{op}_{d[0]}{a[0]}_{mode}", f"{op}.{d}.{a}.u32.{mode} %D, %A, %B;", [("b32", V), ("b32", S)])
                case(f"{op}_{d[0]}{a[0]}_{mode}_sat", f"{op}.{d}.{a}.u32.{mode}.sat %D, %A, %B;",
                     [("b32", V), ("b32", S)])
        case(f"{op}_sel_add", f"{op}.s32.s32.u32.wrap.add %D, %A.h1, %B.b0, %C;", [("b32", V), ("b32", S), ("b32", C)])
        case(f"{op}_merge_b1", f"{op}.u32.u32.u32.clamp %D.b1, %A, %B, %C;", [("b32", V), ("b32", S), ("b32", C)])
    for d, a, b in [("u32", "u32", "u32"), ("s32", "s32", "s32"), ("s32", "u32", "s32"), ("u32", "s32", "u32")]:
        t = f"vmad_{d[0]}{a[0]}{b[0]}"
        case(t, f"vmad.{d}.{a}.{b} %D, %A, %B, %C;")
        case(t + "_sat", f"vmad.{d}.{a}.{b}.sat %D, %A.h0, %B.h1, %C;")
        case(t + "_shr7", f"vmad.{d}.{a}.{b}.shr7 %D, %A.b0, %B.b1, %C;")
        case(t + "_shr15_sat", f"vmad.{d}.{a}.{b}.sat.shr15 %D, %A.h1, %B.h0, %C;")
    case("vmad_neg_a", "vmad.s32.s32.s32 %D, -%A, %B, %C;")
    case("vmad_neg_c", "vmad.s32.s32.s32 %D, %A, %B, -%C;")
    case("vmad_neg_b_sat", "vmad.s32.s32.s32.sat %D, %A.b2, -%B.b3, %C;")
    case("vmad_po", "vmad.u32.u32.u32.po %D, %A.h0, %B.h1, %C;")
    case("vmad_po_sat_shr7", "vmad.s32.s32.s32.po.sat.shr7 %D, %A.b1, %B.b0, %C;")
    for cmpop in ["eq", "ne", "lt", "le", "gt", "ge"]:
        case(f"vset_{cmpop}", f"vset.s32.u32.{cmpop} %D, %A.b1, %B.h0;", ins2)
    case("vset_add", "vset.u32.s32.lt.add %D, %A, %B, %C;")
    case("vset_min", "vset.s32.s32.ge.min %D, %A.h1, %B.h1, %C;")
    case("vset_max", "vset.u32.u32.ne.max %D, %A.b3, %B.b0, %C;")
    case("vset_merge_b2", "vset.s32.s32.gt %D.b2, %A, %B, %C;")
    # SIMD: vop2/vop4.dtype.atype.btype{.sat} d{.mask}, a{.asel}, b{.bsel}, c; or .add (accumulate)
    for w, ops, sels, masks in [
            (2, ["vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2"], ("h32", "h01", "h23"), ("h0", "h1")),
            (4, ["vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4"], ("b7654", "b0123", "b5173"),
             ("b2", "b310"))]:
        for op in ops:
            for d, a, b in [("u32", "u32", "u32"), ("s32", "s32", "s32"), ("u32", "s32", "u32"), ("s32", "u32", "s32")]:
                t = f"{op}_{d[0]}{a[0]}{b[0]}"
                case(t, f"{op}.{d}.{a}.{b} %D, %A, %B, %C;")
                case(t + "_sat", f"{op}.{d}.{a}.{b}.sat %D, %A, %B, %C;")
                case(t + "_add", f"{op}.{d}.{a}.{b}.add %D, %A, %B, %C;")
            case(f"{op}_sel", f"{op}.s32.s32.s32.sat %D, %A.{sels[0]}, %B.{sels[1]}, %C;")
            case(f"{op}_sel_add", f"{op}.u32.u32.s32.add %D.{masks[1]}, %A.{sels[2]}, %B, %C;")
            case(f"{op}_mask", f"{op}.u32.s32.s32 %D.{masks[0]}, %A, %B.{sels[2]}, %C;")
        vset = f"vset{w}"
        for cmpop in ["eq", "ne", "lt", "le", "gt", "ge"]:
            case(f"{vset}_{cmpop}", f"{vset}.s32.u32.{cmpop} %D, %A, %B, %C;")
        case(f"{vset}_add", f"{vset}.s32.s32.lt.add %D, %A.{sels[1]}, %B, %C;")
        case(f"{vset}_mask", f"{vset}.u32.u32.ge %D.{masks[1]}, %A, %B.{sels[2]}, %C;")


def gen_all():
    gen_int()
    gen_extprec()
    gen_f32()
    gen_f64()
    gen_half()
    gen_cvt()
    gen_cmp()
    gen_bits()
    gen_approx()
    gen_video()
