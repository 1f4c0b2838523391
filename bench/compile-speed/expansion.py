#!/usr/bin/env python3
"""expansion.py BUILD [options] PTX... — AMDGPU instructions per PTX instruction, by PTX family, and where they
come from.

Each module is compiled with `ptx2native --offload-arch=ARCH -O3 -j1 --line-info --emit=asm`; every machine
instruction is charged to the PTX line its `.loc` names (line 0: code of no PTX instruction — prologue, spills,
branches LLVM made), and that line's opcode gives its family: the opcode's first word and the kind of its last type
suffix (`fma.rn.f64` → fma.f64, `ld.global.v4.u32` → ld.b32, `setp.lt.s64` → setp.b64). Code inlined from math
libraries is charged to the PTX instruction it stands for. Static counts (instructions in the code, not executed).

Prints Markdown per arch: PTX instructions and machine instructions per family, their ratio, its share of all
machine instructions, and the family's most frequent machine opcodes (where the expansion comes from). With
--toolkit DIR (toolkit_corpus.py --keep DIR) it takes --modules N modules over the size ranks of that corpus
instead of PTX arguments (default 40, --max-kb to leave the largest out).
"""
import argparse
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

from toolkit_corpus import PTXAS, choose, ptx_arch   # this folder (the script's own directory is on sys.path)

TYPE_KIND = {"f64": "f64", "f32": "f32", "f16": "f16", "f16x2": "f16", "bf16": "f16", "bf16x2": "f16",
             "s64": "b64", "u64": "b64", "b64": "b64", "s32": "b32", "u32": "b32", "b32": "b32",
             "s16": "b16", "u16": "b16", "b16": "b16", "s8": "b8", "u8": "b8", "b8": "b8", "pred": "pred",
             "b128": "b128", "tf32": "f32", "e4m3": "f8", "e5m2": "f8", "s4": "b4", "u4": "b4"}
INS = re.compile(r"^\s*(?:@!?%?\w+\s+)?([a-z][a-z0-9_.]*)")
ASM_INS = re.compile(r"^\s+([a-z][a-z0-9_]*)(?:\s|$)")
LOC = re.compile(r"^\s*\.loc\s+\d+\s+(\d+)")
# scheduling and wait hints (no ALU or memory work; SASS encodes these as control bits of every instruction):
# counted apart, not charged to a family
HINTS = re.compile(r"^(s_delay_alu|s_waitcnt\w*|s_wait_\w+|s_clause|s_nop|s_set_inst_prefetch_distance|s_sleep)$")


def family(opcode):
    parts = opcode.split(".")
    kind = next((TYPE_KIND[p] for p in reversed(parts) if p in TYPE_KIND), None)
    base = parts[0]
    if base in ("mul", "mad") and "wide" in parts:
        base += ".wide"
    return base + ("." + kind if kind else "")


def ptx_families(path):
    """{line number: family} of the instruction lines of a PTX file"""
    out = {}
    with open(path, errors="replace") as f:
        for n, line in enumerate(f, 1):
            s = line.split("//")[0].strip()
            if not s or s.startswith((".", "{", "}", "$", "//")) or s.endswith(":"):
                continue
            m = INS.match(s)
            if m and not m.group(1).startswith("."):
                out[n] = family(m.group(1))
    return out


def charge(asm, fams, per_fam, per_fam_ops, hints):
    """machine instructions of the code sections of `asm` into per_fam / per_fam_ops by the family of the PTX line
    their `.loc` names; wait and scheduling hints into hints"""
    line = 0
    in_text = False
    for text in asm.splitlines():
        if text.lstrip().startswith((".section", ".text")):
            in_text = ".text" in text
            continue
        m = LOC.match(text)
        if m:
            line = int(m.group(1))
            continue
        if not in_text:
            continue
        m = ASM_INS.match(text)
        if not m or text.lstrip().startswith("."):
            continue
        if HINTS.match(m.group(1)):
            hints[m.group(1)] += 1
            continue
        fam = fams.get(line, "(no PTX line)") if line else "(no PTX line)"
        per_fam[fam] += 1
        per_fam_ops[fam][m.group(1)] += 1


def sass_count(path):
    """SASS instructions ptxas -O3 makes of the module (its .text sections' bytes / 16: sm_70 and later encode every
    instruction, wait and scheduling controls included, in 128 bits; the padding after a kernel's last instruction
    counts too, at most a few per kernel); None if ptxas fails"""
    fd, cubin = tempfile.mkstemp(suffix=".cubin")
    os.close(fd)
    try:
        for extra in ([], ["-c"]):
            if subprocess.run([PTXAS, "-O3", "-arch=" + ptx_arch(path)] + extra + [path, "-o", cubin],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
                break
        else:
            return None
        sh = subprocess.run(["readelf", "-SW", cubin], capture_output=True, text=True).stdout
        return sum(int(m.group(1), 16) // 16 for m in re.finditer(
            r"\]\s+\.text\.\S+\s+PROGBITS\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)", sh))
    finally:
        os.unlink(cubin)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("ptx", nargs="*")
    ap.add_argument("--archs", default="gfx1100,gfx942")
    ap.add_argument("--toolkit", help="a toolkit_corpus.py --keep directory")
    ap.add_argument("--modules", type=int, default=40)
    ap.add_argument("--max-kb", type=int)
    ap.add_argument("--sass", action="store_true", help="also count the SASS ptxas makes of the same modules")
    ap.add_argument("--top", type=int, default=25, help="families listed (default 25; the rest summed)")
    a = ap.parse_args()
    p2n = os.path.join(os.path.abspath(a.build), "targets", "ptx2native")
    files = list(a.ptx)
    if a.toolkit:
        pool = [f for f in sorted(glob.glob(os.path.join(a.toolkit, "*", "*.ptx")))
                if not a.max_kb or os.path.getsize(f) <= a.max_kb * 1024]
        files += choose(pool, a.modules)
    fd, out = tempfile.mkstemp(suffix=".s")
    os.close(fd)
    print("modules: %d (%.1f MB of PTX); ptx2native -O3 -j1 --line-info --emit=asm; static instruction counts\n"
          % (len(files), sum(os.path.getsize(f) for f in files) / 1e6))
    if a.sass:
        fam_total, sass_total, n = 0, 0, 0
        for f in files:
            c = sass_count(f)
            if c is None:
                continue
            sass_total += c
            fam_total += len(ptx_families(f))
            n += 1
        print("ptxas -O3 (SASS, %d modules): %d PTX instructions → %d SASS instructions (%.2f per PTX instruction, "
              "wait and scheduling controls inside each)\n" % (n, fam_total, sass_total, sass_total / max(fam_total, 1)))
    for arch in [x for x in a.archs.split(",") if x]:
        ptx_count = collections.Counter()
        per_fam = collections.Counter()
        per_fam_ops = collections.defaultdict(collections.Counter)
        hints = collections.Counter()
        failed = []
        for f in files:
            fams = ptx_families(f)
            r = subprocess.run([p2n, "--offload-arch=" + arch, "-O3", "-j1", "--line-info", "--emit=asm", f, "-o", out],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if r.returncode != 0:
                failed.append(os.path.basename(f))
                continue
            with open(out, errors="replace") as fh:
                asm = fh.read()
            charge(asm, fams, per_fam, per_fam_ops, hints)
            ptx_count.update(fams.values())
        total_ptx = sum(ptx_count.values())
        total = sum(per_fam.values())
        print("### %s: %d PTX instructions → %d machine instructions (%.2f per PTX instruction), and %d wait and "
              "scheduling hints (%s)%s\n" % (
                  arch, total_ptx, total, total / max(total_ptx, 1), sum(hints.values()),
                  ", ".join("%s %d" % kv for kv in hints.most_common(4)),
                  "; not compiled: " + ", ".join(failed) if failed else ""))
        print("| PTX family | PTX ins. | %s ins. | per PTX ins. | share | most frequent machine opcodes |" % arch)
        print("| --- | ---: | ---: | ---: | ---: | --- |")
        rows = sorted(set(per_fam) | set(ptx_count), key=lambda k: (-per_fam[k], k))
        for k in rows[:a.top]:
            ops = ", ".join("%s %d" % (o, c) for o, c in per_fam_ops[k].most_common(6))
            ratio = "%.1f" % (per_fam[k] / ptx_count[k]) if ptx_count[k] else "–"
            print("| %s | %d | %d | %s | %.1f %% | %s |" % (k, ptx_count[k], per_fam[k], ratio,
                                                          100.0 * per_fam[k] / max(total, 1), ops))
        rest_p = sum(ptx_count[k] for k in rows[a.top:])
        rest_m = sum(per_fam[k] for k in rows[a.top:])
        print("| (other %d families) | %d | %d | %.1f | %.1f %% | |\n" % (
            max(len(rows) - a.top, 0), rest_p, rest_m, rest_m / max(rest_p, 1), 100.0 * rest_m / max(total, 1)))
        sys.stdout.flush()
    os.unlink(out)


if __name__ == "__main__":
    main()
