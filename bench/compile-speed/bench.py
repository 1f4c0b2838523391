#!/usr/bin/env python3
"""bench.py BUILD [options] — PTX -> code object wall time of ptx2native against ptxas on the same PTX.

Per module: ptxas -O3 -arch=sm_80 (cubin) and ptx2native -O3 for each target (host .so, gfx942 / gfx1100
code objects, spirv64), best of --reps runs (the least disturbed by other load), peak RSS of each process
(wait4 rusage: what /usr/bin/time -v reports). Prints Markdown: per-module table, geometric-mean ratio
ours/ptxas per target, -j1 vs -j2 on multi-kernel modules, peak RSS. Modules one side cannot compile are
listed and left out of the means. The machine's load average is printed before and after: figures taken
while it exceeds the core count are contended.
"""
import argparse
import glob
import math
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PTXAS = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")
NVCC = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")


def run(argv):
    """(wall seconds, CPU seconds, peak RSS KiB, exit status) of one process, output discarded."""
    fa = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0), (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=fa)
    _, status, ru = os.wait4(pid, 0)
    return time.perf_counter() - t0, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, os.waitstatus_to_exitcode(status)


CPU = {}  # argv tuple -> best CPU seconds (user + sys): robust when other load steals the cores


def best(argv, reps):
    ts, cs, rss, rc = [], [], 0, 0
    for _ in range(reps):
        t, c, r, rc = run(argv)
        if rc != 0:
            return None, r, rc
        ts.append(t)
        cs.append(c)
        rss = max(rss, r)
    CPU[tuple(argv)] = min(cs)
    return min(ts), rss, 0


def critical_path(argv):
    """From the -v line of a -j N compile: (critical path = serial CPU + largest partition's CPU, total CPU =
    serial + all partitions), seconds; None if the module was not partitioned."""
    import re
    import subprocess
    r = subprocess.run(argv + ["-v"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"partition CPU ([0-9.s ]+); serial CPU ([0-9.]+)s; critical path ([0-9.]+)s", r.stderr)
    if not m:
        return None
    parts = [float(x.rstrip("s")) for x in m.group(1).split()]
    return float(m.group(3)), float(m.group(2)) + sum(parts)


def entries(path):
    with open(path, errors="replace") as f:
        return sum(1 for line in f if ".entry" in line and not line.lstrip().startswith("//"))


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", help="build directory (a Release build for timing)")
    ap.add_argument("--archs", default="host,gfx942,gfx1100,spirv64")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--sample", type=int, default=30, help="conformance modules (evenly spaced sample)")
    ap.add_argument("-O", dest="opt", default="3")
    ap.add_argument("--jobs-only", action="store_true", help="only the -j1/-j2 comparison")
    a = ap.parse_args()
    p2n = os.path.join(os.path.abspath(a.build), "targets", "ptx2native")
    archs = a.archs.split(",")
    out = "/tmp/p2n-compile-speed.%d" % os.getpid()

    conf = sorted(glob.glob(os.path.join(ROOT, "tests/conformance/ptx/**/*.ptx"), recursive=True))
    step = max(1, len(conf) // a.sample) if a.sample else len(conf) + 1
    groups = [("conformance", conf[::step][: a.sample]),
              ("examples", sorted(glob.glob(os.path.join(ROOT, "examples/*.ptx")))),
              ("corpus", sorted(glob.glob(os.path.join(ROOT, "tests/corpus/ptx/*.sm_80.ptx"))))]
    # the 12-kernel module is made here from its CUDA source (17k lines of PTX are not kept in the repository)
    many = out + ".many_kernels.ptx"
    subprocess.run([NVCC, "-ptx", "-arch=sm_80", "-O3", os.path.join(ROOT, "bench/compile-speed/many_kernels.cu"),
                    "-o", many], check=True)
    multi = [many, os.path.join(ROOT, "tests/parallel/multi.ptx"),
             os.path.join(ROOT, "tests/corpus/ptx/templates.sm_80.ptx")]

    print("machine: %d CPUs, load average before: %s" % (os.cpu_count(), " ".join("%.2f" % x for x in os.getloadavg())))
    print("ptx2native: %s -O%s; ptxas: %s -O3 -arch=sm_80; best of %d runs\n" % (p2n, a.opt, PTXAS, a.reps))
    ratios = {arch: {} for arch in archs}
    cratios = {arch: {} for arch in archs}
    rss = {arch: [] for arch in archs}
    rss["ptxas"] = []
    failed = []
    if not a.jobs_only:
        print("| group | module | kernels | ptxas s | " + " | ".join("%s s (×)" % x for x in archs) + " |")
        print("| --- | --- | ---: | ---: | " + " | ".join("---:" for _ in archs) + " |")
        for g, files in groups:
            for f in files:
                name = os.path.relpath(f, ROOT)
                pargv = [PTXAS, "-O3", "-arch=sm_80", f, "-o", out + ".cubin"]
                tp, rp, rcp = best(pargv, a.reps)
                if tp is None:
                    failed.append("%s: ptxas exit %d" % (name, rcp))
                    continue
                rss["ptxas"].append(rp)
                cells = []
                for arch in archs:
                    argv = [p2n, "--offload-arch=" + arch, "-O" + a.opt, f, "-o", out + ".o"]
                    t, r, rc = best(argv, a.reps)
                    if t is None:
                        failed.append("%s: %s exit %d" % (name, arch, rc))
                        cells.append("exit %d" % rc)
                        continue
                    rss[arch].append(r)
                    ratios[arch].setdefault(g, []).append(t / tp)
                    cratios[arch].setdefault(g, []).append(CPU[tuple(argv)] / max(CPU[tuple(pargv)], 1e-3))
                    cells.append("%.3f (%.2f)" % (t, t / tp))
                print("| %s | %s | %d | %.3f | %s |" % (g, os.path.basename(f), entries(f), tp, " | ".join(cells)))
                sys.stdout.flush()
        for title, rs in (("wall time", ratios), ("CPU time (user + sys)", cratios)):
            print("\n### Geometric mean ours/ptxas, %s (lower is better; goal <= 1.0)\n" % title)
            print("| target | " + " | ".join(g for g, _ in groups) + " | all |")
            print("| --- | " + " | ".join("---:" for _ in groups) + " | ---: |")
            for arch in archs:
                allr = [x for g, _ in groups for x in rs[arch].get(g, [])]
                print("| %s | %s | %.2f× (%d) |" % (arch, " | ".join("%.2f× (%d)" % (geomean(rs[arch].get(g, [])),
                      len(rs[arch].get(g, []))) for g, _ in groups), geomean(allr), len(allr)))
        print("\n### Peak RSS (MiB): median / max\n")
        print("| tool | median | max |\n| --- | ---: | ---: |")
        for k in ["ptxas"] + archs:
            if rss[k]:
                print("| %s | %.0f | %.0f |" % (k, statistics.median(rss[k]) / 1024, max(rss[k]) / 1024))
        if failed:
            print("\nNot compared (one side failed): " + "; ".join(failed))
    print("\n### -j2 against -j1 on multi-kernel modules\n")
    print("Measured: best wall time of -j1 and -j2. Estimated (two idle cores): CPU time of -j1 over the -j2 critical")
    print("path (CPU of the serial part + the largest partition, printed by `-v`); and the -j2 run's own total CPU over")
    print("its critical path (same run, so immune to load changes between runs, but blind to -j2's extra work).\n")
    print("| module | kernels | arch | -j1 s | -j2 s | measured speed-up | -j1 CPU s | -j2 CPU s / critical path s | "
          "estimated speed-up | same-run estimate | peak RSS -j1 / -j2 MiB |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for f in multi:
        for arch in [x for x in archs if x != "spirv64"]:
            a1 = [p2n, "--offload-arch=" + arch, "-O" + a.opt, "-j1", f, "-o", out + ".o"]
            a2 = [p2n, "--offload-arch=" + arch, "-O" + a.opt, "-j2", f, "-o", out + ".o"]
            t1, r1, rc1 = best(a1, a.reps)
            t2, r2, rc2 = best(a2, a.reps)
            if t1 is None or t2 is None:
                print("| %s | %d | %s | exit %d | exit %d | | | | | |" % (os.path.basename(f), entries(f), arch, rc1, rc2))
                continue
            cps = [x for x in (critical_path(a2) for _ in range(a.reps)) if x]
            if cps:
                cp, tot = min(cps)
                cells = "%.3f / %.3f | %.2f× | %.2f×" % (tot, cp, CPU[tuple(a1)] / cp, tot / cp)
            else:
                cells = "not partitioned | | "
            print("| %s | %d | %s | %.3f | %.3f | %.2f× | %.3f | %s | %.0f / %.0f |" % (
                os.path.basename(f), entries(f), arch, t1, t2, t1 / t2, CPU[tuple(a1)], cells, r1 / 1024, r2 / 1024))
            sys.stdout.flush()
    for ext in (".cubin", ".o"):
        if os.path.exists(out + ext):
            os.unlink(out + ext)
    print("\nload average after: %s" % " ".join("%.2f" % x for x in os.getloadavg()))


if __name__ == "__main__":
    main()
