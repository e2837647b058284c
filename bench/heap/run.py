#!/usr/bin/env python3
"""Heap tracing cost, side by side (issue #5): one workload of N malloc/free
pairs (bench/heap/heapbench.c: 2.25 N traced calls: N allocations, N/4 reallocs
of them, about N frees) run natively, under our collect -H on, heaptrack and
gprofng -H on.  Prints whole-command time and its ratio to native, bytes per
traced call in what each tool stores, and the time of each tool's reports.
Measurements only: no assertion (shared, noisy machine).

    bench/heap/run.py BUILD_DIR [N]
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000000
top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
work = tempfile.mkdtemp(prefix="pa-bench-heap.")
prog = os.path.join(work, "heapbench")
subprocess.run(["cc", "-O2", "-g", os.path.join(top, "bench/heap/heapbench.c"), "-o", prog], check=True)
calls = n + n // 4 + n  # allocations, extra reallocs, frees (approximately)


def timed(cmd, env=None, cwd=work):
    t0 = time.monotonic()
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.monotonic() - t0, r.returncode, r.stderr.decode(errors="replace")


def median_of(cmd, k=3, prep=None, env=None):
    times = []
    for _ in range(k):
        if prep:
            prep()
        t, rc, err = timed(cmd, env=env)
        if rc != 0:
            return None, err
        times.append(t)
    return statistics.median(times), ""


def rm(path):
    shutil.rmtree(os.path.join(work, path), ignore_errors=True)


rows = []
native, _ = median_of([prog, str(n)], k=5)
rows.append(("native", native, None, None))

# ours
collect = os.path.join(build, "bin", "collect")
erp = os.path.join(build, "bin", "er_print")
env = dict(os.environ, PA_ARCHIVE="off")
t, err = median_of([collect, "-p", "off", "-H", "on", "-o", "h.er", prog, str(n)], prep=lambda: rm("h.er"), env=env)
if t is None:
    rows.append(("collect -H on", None, None, "not available: " + err.strip().splitlines()[-1] if err.strip() else "failed"))
else:
    ht = os.path.join(work, "h.er", "heaptrace")
    if os.path.exists(ht + ".zst"):  # collect compresses it after the run
        used = os.path.getsize(ht + ".zst")
    else:  # allocated bytes, not the sparse apparent size
        used = os.stat(ht).st_blocks * 512 if os.path.exists(ht) else 0
    reports = []
    for r in ("-leaks", "-allocs", "-heap", "-heapstat"):
        rt, rc, _ = timed([erp, r, "h.er"])
        reports.append("%s %.2fs%s" % (r, rt, "" if rc == 0 else " (failed)"))
    rows.append(("collect -H on", t, used / calls, ", ".join(reports)))

# heaptrack
if shutil.which("heaptrack"):
    def prep_ht():
        for f in os.listdir(work):
            if f.startswith("heaptrack."):
                os.remove(os.path.join(work, f))
    t, err = median_of(["heaptrack", prog, str(n)], prep=prep_ht)
    files = [f for f in os.listdir(work) if f.startswith("heaptrack.")]
    size = os.path.getsize(os.path.join(work, files[0])) if files else 0
    rt = None
    if files and shutil.which("heaptrack_print"):
        rt, _, _ = timed(["heaptrack_print", files[0]])
    rows.append(("heaptrack", t, size / calls if size else None,
                 "heaptrack_print %.2fs" % rt if rt is not None else ""))

# gprofng
if shutil.which("gprofng"):
    t, err = median_of(["gprofng", "collect", "app", "-p", "off", "-H", "on", "-o", "g.er", prog, str(n)],
                       k=1, prep=lambda: rm("g.er"))
    gt = os.path.join(work, "g.er", "heaptrace")
    used = os.stat(gt).st_blocks * 512 if os.path.exists(gt) else 0
    rt, _, _ = timed(["gprofng", "display", "text", "-heapstat", "g.er"])
    rows.append(("gprofng -H on", t, used / calls if used else None, "display -heapstat %.2fs" % rt))

print("== heap tracing cost: %d malloc/free pairs, ~%d traced calls (bench/heap/heapbench.c)" % (n, calls))
print("%-16s %10s %8s %12s  %s" % ("tool", "time s", "x native", "bytes/call", "reports"))
for name, t, bpc, rep in rows:
    print("%-16s %10s %8s %12s  %s" % (
        name, "%.3f" % t if t is not None else "-", "%.1f" % (t / native) if t and native else "-",
        "%.2f" % bpc if bpc is not None else "-", rep or ""))
print("(targets, issue #5: our whole-command time <= heaptrack's; <= 4 bytes per traced call; every report <= 1 s)")
shutil.rmtree(work, ignore_errors=True)
