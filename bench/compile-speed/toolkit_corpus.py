#!/usr/bin/env python3
"""toolkit_corpus.py BUILD [options] — compile speed on large real modules: the PTX inside the CUDA toolkit's own
libraries (cuBLAS, cuBLASLt, cuSPARSE, cuFFT, cuRAND, cuSOLVER), extracted at bench time with
`ptx2native-fatbin extract` (nothing of it is kept in the repository).

Corpus: every PTX entry of those libraries, ranked by size; --modules N of them evenly spaced over the ranks,
always with the largest and the smallest. Each module is compiled by ptxas -O3 for the architecture its
`.target` names and by ptx2native -O3 -j1 for each target; best CPU time (user + sys) of --reps runs and peak RSS
(wait4). Per module the stage times of one ptx2native run (`-v`: parse, passes, emit, opt, codegen, link).
Prints Markdown: per-module table, per target the geometric mean and the largest ratio ours/ptxas (CPU time),
peak RSS ratios, and where the time goes by stage (sums over the corpus). --jobs adds -j2 against -j1.
The machine's load average is printed before and after.
"""
import argparse
import glob
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PTXAS = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")
LIBDIR = os.environ.get("CUDA_LIBDIR", "/usr/local/cuda/lib64")
LIBS = ["cublas", "cublasLt", "cusparse", "cufft", "curand", "cusolver"]
STAGES = ["parse", "passes", "emit", "opt", "codegen", "link"]


CPU_LIMIT = None   # --timeout: CPU seconds a compile may take (RLIMIT_CPU: SIGXCPU past it)
TIMED_OUT = -signal.SIGXCPU


def limit_cpu():
    if CPU_LIMIT:
        resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT, CPU_LIMIT + 5))


def run(argv, stderr=False):
    """(CPU seconds user+sys, peak RSS KiB, exit status, stderr text or '') of one process."""
    err = subprocess.PIPE if stderr else subprocess.DEVNULL
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, text=True, preexec_fn=limit_cpu)
    text = p.stderr.read() if stderr else ""
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss, p.returncode, text


def best(argv, reps):
    cpu, rss = None, 0
    for _ in range(reps):
        c, r, rc, _ = run(argv)
        if rc != 0:
            return None, r, rc
        cpu = c if cpu is None else min(cpu, c)
        rss = max(rss, r)
    return cpu, rss, 0


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def extract(fatbin_tool, work):
    """every PTX entry of the toolkit libraries, extracted into work/<lib>/"""
    out = []
    for lib in LIBS:
        path = os.path.join(LIBDIR, "lib%s.so" % lib)
        if not os.path.exists(path):
            print("(no %s)" % path, file=sys.stderr)
            continue
        d = os.path.join(work, lib)
        os.makedirs(d, exist_ok=True)
        # (its notes name the LTO-IR entries it cannot decode: NVIDIA's private compression; not PTX, not needed)
        subprocess.run([fatbin_tool, "extract", path, "-o", d], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)
        for f in os.listdir(d):   # keep the PTX only (the cubins are most of the bytes)
            if not f.endswith(".ptx"):
                os.unlink(os.path.join(d, f))
        out += sorted(glob.glob(os.path.join(d, "*.ptx")))
    return out


def choose(files, n):
    ranked = sorted(files, key=os.path.getsize)
    if n >= len(ranked):
        return ranked
    idx = sorted({round(i * (len(ranked) - 1) / (n - 1)) for i in range(n)})
    return [ranked[i] for i in idx]


def ptx_arch(path):
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"\s*\.target\s+(sm_\w+)", line)
            if m:
                arch = m.group(1).split(",")[0]
                # CUDA 13's ptxas starts at sm_75; older targets' PTX compiles for it (forward compatible)
                num = re.match(r"sm_(\d+)", arch)
                return "sm_75" if num and int(num.group(1)) < 75 else arch
    return "sm_80"


def ptx_lines(path):
    with open(path, errors="replace") as f:
        return sum(1 for line in f if line.strip() and not line.lstrip().startswith("//"))


def stage_times(p2n, arch, f, out):
    """{stage: seconds} from one `ptx2native -v` run"""
    _, _, rc, err = run([p2n, "--offload-arch=" + arch, "-O3", "-j1", "-v", f, "-o", out], stderr=True)
    m = re.search(r"times: (.*)", err)
    if rc != 0 or not m:
        return {}
    return {k: float(v.rstrip("s")) for k, v in re.findall(r"(\w+) ([0-9.]+s)", m.group(1))}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", help="build directory (a Release build for timing)")
    ap.add_argument("--archs", default="gfx1100,gfx942,spirv64,host")
    ap.add_argument("--modules", type=int, default=40, help="modules chosen over the size ranks (default 40)")
    ap.add_argument("--reps", type=int, default=1, help="best of N runs (default 1: the corpus is large)")
    ap.add_argument("--jobs", action="store_true", help="also -j2 against -j1 (CPU time of -j1 / wall of -j2)")
    ap.add_argument("--keep", help="extract into this directory and keep it (default: a temporary one)")
    ap.add_argument("--max-kb", type=int, help="leave out modules above this size (a partial run: say so)")
    ap.add_argument("--timeout", type=int, help="CPU seconds a ptx2native compile may take; one that runs past it "
                    "counts with the limit as its time (the ratio a lower bound, marked >)")
    ap.add_argument("--no-stages", action="store_true", help="skip the second, -v run of each compile (stage times)")
    a = ap.parse_args()
    global CPU_LIMIT
    CPU_LIMIT = a.timeout
    build = os.path.abspath(a.build)
    p2n = os.path.join(build, "targets", "ptx2native")
    tool = os.path.join(build, "fatbin", "ptx2native-fatbin")
    archs = a.archs.split(",")
    work = a.keep or tempfile.mkdtemp(prefix="p2n-toolkit-corpus.")
    os.makedirs(work, exist_ok=True)
    try:
        if a.keep and glob.glob(os.path.join(work, "*", "*.ptx")):   # extracted by an earlier run
            allptx = sorted(glob.glob(os.path.join(work, "*", "*.ptx")))
        else:
            allptx = extract(tool, work)
        pool = [f for f in allptx if not a.max_kb or os.path.getsize(f) <= a.max_kb * 1024]
        mods = choose(pool, a.modules)
        total = sum(os.path.getsize(f) for f in allptx)
        print("machine: %d CPUs, load average before: %s" % (os.cpu_count(), " ".join("%.2f" % x for x in os.getloadavg())))
        print("corpus: %d PTX modules, %.1f MB, in %s; %d chosen over the size ranks (%.1f MB)%s" % (
            len(allptx), total / 1e6, ", ".join(LIBS), len(mods), sum(os.path.getsize(f) for f in mods) / 1e6,
            " of the %d up to %d KB (PARTIAL: larger modules left out)" % (len(pool), a.max_kb) if a.max_kb else ""))
        print("ptxas: %s -O3 -arch=<the module's .target>; ptx2native: %s -O3 -j1; CPU time (user + sys), best of %d\n"
              % (PTXAS, p2n, a.reps))
        print("| module | KB | PTX lines | ptxas s | " + " | ".join("%s s (×)" % x for x in archs) + " |")
        print("| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in archs) + " |")
        ratio = {x: [] for x in archs}
        rss = {x: [] for x in archs}
        worst = {x: (0.0, "") for x in archs}
        stages = {x: dict.fromkeys(STAGES, 0.0) for x in archs}
        failed = []
        out = os.path.join(work, "out")
        for f in mods:
            name = os.path.basename(f)
            tp, rp, rcp = best([PTXAS, "-O3", "-arch=" + ptx_arch(f), f, "-o", out + ".cubin"], a.reps)
            if tp is None:   # a module calling an .extern function: ptxas compiles it relocatable (-c)
                tp, rp, rcp = best([PTXAS, "-O3", "-c", "-arch=" + ptx_arch(f), f, "-o", out + ".cubin"], a.reps)
            if tp is None:
                failed.append("%s: ptxas exit %d" % (name, rcp))
                continue
            cells = []
            for arch in archs:
                t, r, rc = best([p2n, "--offload-arch=" + arch, "-O3", "-j1", f, "-o", out + ".o"], a.reps)
                timed_out = rc == TIMED_OUT
                if timed_out:   # a lower bound: the limit as its time
                    t = a.timeout
                elif t is None:
                    failed.append("%s: %s exit %d" % (name, arch, rc))
                    cells.append("exit %d" % rc)
                    continue
                x = t / max(tp, 1e-3)
                ratio[arch].append(x)
                rss[arch].append(r / max(rp, 1))
                if x > worst[arch][0]:
                    worst[arch] = (x, name + (", timed out" if timed_out else ""))
                if timed_out:
                    failed.append("%s: %s ran past %d CPU s (counted as %d s)" % (name, arch, t, t))
                    cells.append("> %d (> %.2f)" % (t, x))
                    continue
                for k, v in ({} if a.no_stages else stage_times(p2n, arch, f, out + ".o")).items():
                    if k in stages[arch]:
                        stages[arch][k] += v
                cells.append("%.2f (%.2f)" % (t, x))
            print("| %s | %d | %d | %.2f | %s |" % (name, os.path.getsize(f) // 1024, ptx_lines(f), tp, " | ".join(cells)))
            sys.stdout.flush()
        print("\n### ours / ptxas, CPU time (goal: geometric mean <= 2.0, no module above 3), peak RSS (goal <= 3)\n")
        print("| target | modules | geometric mean | largest (module) | peak RSS ratio: geometric mean / largest |")
        print("| --- | ---: | ---: | --- | ---: |")
        for arch in archs:
            print("| %s | %d | %.2f× | %.2f× (%s) | %.2f / %.2f |" % (arch, len(ratio[arch]), geomean(ratio[arch]),
                  worst[arch][0], worst[arch][1], geomean(rss[arch]), max(rss[arch]) if rss[arch] else float("nan")))
        if not a.no_stages:
            print("\n### Where ptx2native's time goes (seconds summed over the modules, one -v run each)\n")
            print("| target | " + " | ".join(STAGES) + " |")
            print("| --- | " + " | ".join("---:" for _ in STAGES) + " |")
            for arch in archs:
                print("| %s | %s |" % (arch, " | ".join("%.1f" % stages[arch][k] for k in STAGES)))
        if a.jobs:
            print("\n### -j2 against -j1 (wall time), the five largest chosen modules\n")
            print("| module | arch | -j1 s | -j2 s | speed-up |\n| --- | --- | ---: | ---: | ---: |")
            for f in sorted(mods, key=os.path.getsize)[-5:]:
                for arch in archs:
                    w = []
                    for j in ("-j1", "-j2"):
                        t0 = time.perf_counter()
                        _, _, rc, _ = run([p2n, "--offload-arch=" + arch, "-O3", j, f, "-o", out + ".o"])
                        w.append(time.perf_counter() - t0 if rc == 0 else float("nan"))
                    print("| %s | %s | %.2f | %.2f | %.2f× |" % (os.path.basename(f), arch, w[0], w[1], w[0] / w[1]))
        if failed:
            print("\nNot compared, or a lower bound (one side failed or timed out): " + "; ".join(failed))
        print("\nload average after: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
