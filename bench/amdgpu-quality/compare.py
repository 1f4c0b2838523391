#!/usr/bin/env python3
"""AMDGPU code quality: ptx2native (nvcc PTX -> gfx code object) against clang-22 compiling the same CUDA source
as HIP for the same arch. Stdlib only. See RESULTS.md in this directory.

Per kernel: VGPRs, SGPRs, spills, scratch, LDS, instruction count (llvm-objdump-22 -d, the kernel symbol's
address range), occupancy (waves per SIMD from VGPR / SGPR / LDS use). Summary: geometric mean of the
instruction-count ratio ours/clang, and how often our occupancy is >= clang's.

usage: compare.py [--ptx2native PATH] [--arch gfx942,gfx1100] [--out DIR] [--split] [--md FILE]
  --split   compile every PTX kernel in its own module (default: the whole nvcc module, as a user would;
            a module ptx2native rejects as a whole is split per kernel anyway).
"""
import argparse, math, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CLANG = "clang++-22"
READELF = "llvm-readelf-22"
OBJDUMP = "llvm-objdump-22"

# (CUDA source, nvcc PTX of it)
def sources():
    out = []
    cs = os.path.join(ROOT, "tests", "conformance")
    for f in sorted(os.listdir(os.path.join(cs, "src"))):
        if f.endswith(".cu"):
            out.append((os.path.join(cs, "src", f), os.path.join(cs, "ptx", "cu", f[:-3] + ".ptx")))
    ex = os.path.join(ROOT, "examples")
    for f in sorted(os.listdir(ex)):
        if f.endswith(".cu") and os.path.exists(os.path.join(ex, f[:-3] + ".ptx")):
            out.append((os.path.join(ex, f), os.path.join(ex, f[:-3] + ".ptx")))
    return out

# kernels left out on purpose although both compilers accept them
EXCLUDE = {
    "k_libm": "libm: nvcc inlines libdevice, clang -nogpulib would need ocml (not comparable)",
}

# ------------------------------------------------------------------------------------------------ C++ side
def cxx_chunks(text):
    """Top-level declarations of a C++ file as (start, end) offsets; comments/strings/preprocessor skipped."""
    chunks, depth, i, start, n = [], 0, 0, 0, len(text)
    bol = True
    while i < n:
        c = text[i]
        if bol and c == "#" and depth == 0:
            j = i
            while True:  # directive, with continuations
                j = text.find("\n", j)
                if j < 0: j = n; break
                if text[j - 1] != "\\": break
                j += 1
            i = j; start = i; continue
        if c == "\n": bol = True; i += 1; continue
        if not c.isspace(): bol = False
        if text.startswith("//", i):
            j = text.find("\n", i); i = n if j < 0 else j; continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2); i = n if j < 0 else j + 2; continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1; continue
        if c == "{": depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0: chunks.append((start, i + 1)); start = i + 1
        elif c == ";" and depth == 0:
            chunks.append((start, i + 1)); start = i + 1
        i += 1
    return chunks

KERNEL_RE = re.compile(r"(?:__global__|\bK)\s+void\s+(\w+)\s*\(")

def blank(text, s, e):
    return text[:s] + re.sub(r"[^\n]", " ", text[s:e]) + text[e:]

def clang_compile(src, arch, out_co, workdir):
    """Compile src as HIP; kernels (or helpers) that do not compile are blanked out until the rest does.
    Returns (kernels compiled, {kernel: reason left out})."""
    text = open(src).read()
    for k, why in EXCLUDE.items():
        for s, e in cxx_chunks(text):
            m = KERNEL_RE.search(text[s:e])
            if m and m.group(1) == k: text = blank(text, s, e)
    dropped = {}
    tmp = os.path.join(workdir, os.path.basename(src))
    flags = ["-x", "hip", "--offload-arch=" + arch, "--cuda-device-only", "--no-gpu-bundle-output", "-O3",
             "-nogpulib", "-nogpuinc", "-I" + os.path.join(HERE, "shim"), "-include",
             os.path.join(HERE, "cuda_compat.h"), "-ferror-limit=0", "-w"]
    for _ in range(200):
        open(tmp, "w").write(text)
        r = subprocess.run([CLANG] + flags + ["-c", tmp, "-o", out_co], capture_output=True, text=True)
        if r.returncode == 0: break
        errs = [(int(m.group(1)), int(m.group(2)), m.group(3)) for m in
                re.finditer(r"^" + re.escape(tmp) + r":(\d+):(\d+): error: (.*)$", r.stderr, re.M)]
        if not errs:
            und = re.findall(r"undefined (?:hidden )?symbol: (\S+)", r.stderr)
            if not und: sys.exit("clang failed on %s without a located error:\n%s" % (src, r.stderr[-3000:]))
            errs = []
            for sym in und:
                for s, e in cxx_chunks(text):
                    if re.search(r"\b%s\b" % re.escape(sym), text[s:e]):
                        errs.append((text.count("\n", 0, s) + 1, 1, "undefined symbol " + sym))
            if not errs: sys.exit("clang: cannot place undefined symbols %s in %s" % (und, src))
        lines = text.split("\n")
        offs = [0]
        for l in lines: offs.append(offs[-1] + len(l) + 1)
        chunks = cxx_chunks(text)
        hit = False
        for line, col, msg in errs:
            pos = offs[line - 1] + col - 1
            for s, e in chunks:
                if s <= pos < e:
                    m = KERNEL_RE.search(text[s:e])
                    if m: dropped.setdefault(m.group(1), msg)
                    text = blank(text, s, e); hit = True
                    break
        if not hit: sys.exit("clang: error outside any declaration in %s:\n%s" % (src, r.stderr[-3000:]))
    else:
        sys.exit("clang: giving up on " + src)
    compiled = [m.group(1) for m in KERNEL_RE.finditer(text)]
    return compiled, dropped

# ------------------------------------------------------------------------------------------------ PTX side
def ptx_items(text):
    """Top-level PTX items as (kind, name, text): kind 'entry', 'func', 'hdr' or 'decl'."""
    items, i, n, start, depth = [], 0, len(text), 0, 0
    def push(s, e):
        t = text[s:e].strip()
        if not t: return
        body = re.sub(r"//[^\n]*|/\*.*?\*/", "", t, flags=re.S).strip()
        if not body: return
        m = re.search(r"\.entry\s+(\w+)", body.split("{")[0])
        if m and "{" in body: items.append(("entry", m.group(1), t)); return
        if re.search(r"\.func\b", body.split("{")[0]) and "{" in body: items.append(("func", None, t)); return
        items.append(("decl", None, t))
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i); i = n if j < 0 else j; continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2); i = n if j < 0 else j + 2; continue
        if c == '"':
            j = text.find('"', i + 1); i = j + 1; continue
        if depth == 0 and re.match(r"\.(version|target|address_size)\b", text[i:i + 14]):
            j = text.find("\n", i); j = n if j < 0 else j
            push(start, i); items.append(("hdr", None, text[i:j])); i = j; start = i; continue
        if c == "{": depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                k = i + 1
                while k < n and text[k] in " \t\r\n": k += 1
                if k < n and text[k] == ";": i = k - 1  # initializer: the ";" ends the item
                else: push(start, i + 1); start = i + 1
        elif c == ";" and depth == 0:
            push(start, i + 1); start = i + 1
        i += 1
    push(start, n)
    return items

def ours_compile(p2n, ptx, arch, outdir, split):
    """Returns {kernel: code object path}, {kernel: reason}."""
    base = os.path.splitext(os.path.basename(ptx))[0]
    items = ptx_items(open(ptx).read())
    entries = [nm for k, nm, _ in items if k == "entry"]
    res, failed = {}, {}
    if not split:
        co = os.path.join(outdir, base + ".co")
        r = subprocess.run([p2n, "-O3", ptx, "--offload-arch=" + arch, "-o", co], capture_output=True, text=True)
        if r.returncode == 0 and os.path.exists(co):
            return {k: co for k in entries}, {}
    for k in entries:
        mod = "\n".join(t for kind, nm, t in items if kind != "entry" or nm == k) + "\n"
        kp = os.path.join(outdir, "%s.%s.ptx" % (base, k))
        open(kp, "w").write(mod)
        co = os.path.join(outdir, "%s.%s.co" % (base, k))
        r = subprocess.run([p2n, "-O3", kp, "--offload-arch=" + arch, "-o", co], capture_output=True, text=True)
        if r.returncode == 0 and os.path.exists(co): res[k] = co
        else:
            msg = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[0]
            failed[k] = re.sub(r"^.*?error: ", "", msg)
    return res, failed

# ------------------------------------------------------------------------------------------------ metrics
_cache = {}
def co_info(co, arch):
    """{kernel: metrics} for a code object."""
    if co in _cache: return _cache[co]
    notes = subprocess.run([READELF, "--notes", co], capture_output=True, text=True, check=True).stdout
    kern, cur = {}, None
    for line in notes.splitlines():
        m = re.match(r"^  (- | {2})\.(\w+):\s*(.*)$", line)
        if not m:
            if re.match(r"^\S", line) and cur is not None: cur = None
            continue
        if m.group(1) == "- ":
            cur = {}
        if cur is None: continue
        cur[m.group(2)] = m.group(3).strip()
        if m.group(2) == "name": kern[m.group(3).strip()] = cur
    # symbol ranges
    syms = subprocess.run([READELF, "-sW", co], capture_output=True, text=True, check=True).stdout
    funcs = {}
    for line in syms.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC":
            funcs[f[7]] = (int(f[1], 16), int(f[2]))
    dis = subprocess.run([OBJDUMP, "-d", "--mcpu=" + arch, co], capture_output=True, text=True, check=True).stdout
    insts = [(int(m.group(2), 16), m.group(1)) for m in
             re.finditer(r"^\s+(\S+)[^\n]*//\s*([0-9A-Fa-f]{8,16}):", dis, re.M)]
    out = {}
    for name, md in kern.items():
        a, sz = funcs.get(name, (0, 0))
        mine = [mn for x, mn in insts if a <= x < a + sz]
        while mine and mine[-1] in ("s_nop", "s_code_end"): mine.pop()  # alignment padding after s_endpgm
        ninst = len(mine)
        other = sum(sz2 for nm, (a2, sz2) in funcs.items() if nm not in kern) > 0
        out[name] = dict(vgpr=int(md.get("vgpr_count", 0)), agpr=int(md.get("agpr_count", 0)),
                         sgpr=int(md.get("sgpr_count", 0)), vspill=int(md.get("vgpr_spill_count", 0)),
                         sspill=int(md.get("sgpr_spill_count", 0)), lds=int(md.get("group_segment_fixed_size", 0)),
                         scratch=int(md.get("private_segment_fixed_size", 0)),
                         dynstack=md.get("uses_dynamic_stack", "false") == "true",
                         wave=int(md.get("wavefront_size", 64)), inst=ninst, calls=other)
    _cache[co] = out
    return out

WG = 256  # assumed work-group size for the LDS limit (same for both compilers)

def occupancy(arch, m):
    """Waves per SIMD (LLVM's rules: VGPR file / allocation granule, SGPRs on gfx9, LDS per CU)."""
    if arch in ("gfx90a", "gfx940", "gfx941", "gfx942", "gfx950"):
        total, gran, maxw, simds, sgpr_lim = 512, 8, 8, 4, True
    elif arch.startswith("gfx9"):
        total, gran, maxw, simds, sgpr_lim = 256, 4, 10, 4, True
    elif arch in ("gfx1100", "gfx1101", "gfx1151"):  # GFX11 "full" VGPR file (1536 in wave32)
        total, gran, maxw, simds, sgpr_lim = (1536, 24, 16, 2, False) if m["wave"] == 32 else (768, 12, 16, 2, False)
    elif arch.startswith("gfx11") or arch.startswith("gfx12"):
        total, gran, maxw, simds, sgpr_lim = (1024, 16, 16, 2, False) if m["wave"] == 32 else (512, 8, 16, 2, False)
    else:
        total, gran, maxw, simds, sgpr_lim = (1024, 8, 20, 2, False) if m["wave"] == 32 else (512, 4, 20, 2, False)
    v = max(m["vgpr"], 1)
    w = min(maxw, total // (-(-v // gran) * gran))
    if sgpr_lim:
        s = max(m["sgpr"], 1)
        w = min(w, 800 // (-(-s // 16) * 16))
    if m["lds"]:
        wgs = 65536 // m["lds"]
        waves_per_wg = -(-WG // m["wave"])
        w = min(w, (wgs * waves_per_wg) // simds)
    return w

def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptx2native", default=None)
    ap.add_argument("--arch", default="gfx942,gfx1100")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--split", action="store_true")
    ap.add_argument("--md", default=None, help="write the markdown report here (default OUT/report.md)")
    a = ap.parse_args()
    p2n = a.ptx2native
    if not p2n:
        for b in ("build-q", "build"):
            c = os.path.join(ROOT, b, "targets", "ptx2native")
            if os.path.exists(c): p2n = c; break
    if not p2n or not os.path.exists(p2n): sys.exit("ptx2native not found (--ptx2native)")
    md = []
    P = md.append
    P("# AMDGPU code quality: ptx2native vs clang-22 (HIP)\n")
    P("ptx2native: `%s -O3` (%s); clang: `%s -x hip --cuda-device-only -O3 -nogpulib -nogpuinc -include "
      "cuda_compat.h`. Occupancy = waves/SIMD (LDS limit assumes %d-thread work-groups). inst = instructions in "
      "the kernel symbol (llvm-objdump-22 -d).\n" % (os.path.relpath(p2n, ROOT),
      "per-kernel modules" if a.split else "whole nvcc modules", CLANG, WG))
    for arch in a.arch.split(","):
        od = os.path.join(a.out, arch + ("-split" if a.split else ""))
        for sub in ("ours", "clang", "tmp"): os.makedirs(os.path.join(od, sub), exist_ok=True)
        rows, notcmp = [], []
        for src, ptx in sources():
            ours, ofail = ours_compile(p2n, ptx, arch, os.path.join(od, "ours"), a.split)
            cco = os.path.join(od, "clang", os.path.basename(src)[:-3] + ".co")
            ck, cfail = clang_compile(src, arch, cco, os.path.join(od, "tmp"))
            cinfo = co_info(cco, arch) if ck else {}
            for k in [x for x in re.findall(r"\.entry\s+(\w+)", open(ptx).read())]:
                if k in ours and k in cinfo:
                    oi = co_info(ours[k], arch)[k]
                    rows.append((os.path.basename(src), k, oi, cinfo[k]))
                else:
                    why = []
                    if k in EXCLUDE: why.append("excluded: " + EXCLUDE[k])
                    else:
                        if k not in ours: why.append("ptx2native: " + ofail.get(k, "?"))
                        if k not in cinfo: why.append("clang: " + cfail.get(k, "not compiled"))
                    notcmp.append((os.path.basename(src), k, "; ".join(why)))
        P("\n## %s\n" % arch)
        P("| source | kernel | VGPR ours/clang | SGPR | spills v+s | scratch B | LDS B | inst ours | inst clang | ratio | occ ours/clang |")
        P("|---|---|---|---|---|---|---|---|---|---|---|")
        ratios, occ_ge, occ_lt, occ_lt_lds = [], 0, [], []
        for s, k, o, c in rows:
            r = o["inst"] / max(c["inst"], 1)
            ratios.append(r)
            oo, oc = occupancy(arch, o), occupancy(arch, c)
            if oo >= oc: occ_ge += 1
            else: occ_lt.append(k)
            flag = " **" if r > 1.5 else ""
            P("| %s | %s | %d/%d | %d/%d | %d+%d / %d+%d | %d/%d%s | %d/%d | %d%s | %d%s | %.2f%s | %d/%d%s |" % (
                s, k, o["vgpr"], c["vgpr"], o["sgpr"], c["sgpr"], o["vspill"], o["sspill"], c["vspill"], c["sspill"],
                o["scratch"], c["scratch"], " dyn" if o["dynstack"] or c["dynstack"] else "", o["lds"], c["lds"],
                o["inst"], "+calls" if o["calls"] else "", c["inst"], "+calls" if c["calls"] else "", r, flag,
                oo, oc, "" if oo >= oc else " ⚠"))
        P("\n**%s: %d kernels compared; geometric mean inst ours/clang = %.3f** (goal ≤ 1.10); median %.2f, "
          "min %.2f, max %.2f. Occupancy ours ≥ clang in %d/%d kernels%s.\n" % (
              arch, len(rows), gmean(ratios), sorted(ratios)[len(ratios) // 2] if ratios else 0,
              min(ratios or [0]), max(ratios or [0]), occ_ge, len(rows),
              ("; lower in: " + ", ".join(occ_lt)) if occ_lt else ""))
        P("Not compared (%d):\n" % len(notcmp))
        for s, k, why in notcmp: P("* %s `%s`: %s" % (s, k, why[:220]))
        print("%s: %d kernels, gmean inst ratio %.3f, occupancy >= clang in %d/%d" % (
            arch, len(rows), gmean(ratios), occ_ge, len(rows)), file=sys.stderr)
    mdp = a.md or os.path.join(a.out, "report%s.md" % ("-split" if a.split else ""))
    open(mdp, "w").write("\n".join(md) + "\n")
    print("\n".join(md))

if __name__ == "__main__":
    main()
