#!/usr/bin/env python3
"""Heap tracing on real programs, side by side (issue #10): sqlite3 running an
in-memory SQL workload (bench/heap/work.sql: a few million allocations) and
`git log -p` of a real repository, each run natively, under our collect -H on
and under heaptrack.  Prints the whole-command time and CPU time (median of ROUNDS runs,
compressing included), the CPU ratio to native and to heaptrack,
the trace size of each tool and the allocations each counted.  Measurements
only: no assertion (shared, noisy machine).

    bench/heap/real.py BUILD_DIR [GIT_REPO] [ROUNDS]

GIT_REPO defaults to this project's repository; a bigger history (any git
directory, bare or not) gives steadier figures.
"""
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
repo = sys.argv[2] if len(sys.argv) > 2 else top
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
work = tempfile.mkdtemp(prefix="pa-bench-heapreal.")
collect = os.path.join(build, "bin", "collect")
er_print = os.path.join(build, "bin", "er_print")
heaptrack = shutil.which("heaptrack")

workloads = []
if shutil.which("sqlite3"):
    workloads.append(("sqlite3", ["sqlite3", ":memory:", ".read " + os.path.join(top, "bench/heap/work.sql")]))
else:
    print("note: sqlite3 not installed: its workload is skipped")
if shutil.which("git"):
    workloads.append(("git log -p", ["git", "--git-dir", subprocess.run(
        ["git", "-C", repo, "rev-parse", "--absolute-git-dir"], capture_output=True, text=True).stdout.strip()
        or repo, "log", "-p"]))


def run(cmd, env=None):
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    r = subprocess.run(cmd, cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t = time.monotonic() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime
    return t, cpu, r.returncode, r.stderr.decode(errors="replace")


def du(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            p = os.path.join(d, f)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    return total


def clean():
    for f in os.listdir(work):
        p = os.path.join(work, f)
        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)


env = dict(os.environ, PA_ARCHIVE="off")
rows = []
for name, cmd in workloads:
    res = {}
    for tool in ["native", "ours", "heaptrack"]:
        if tool == "heaptrack" and not heaptrack:
            continue
        times, cpus = [], []
        for _ in range(rounds):
            clean()
            if tool == "native":
                full = cmd
            elif tool == "ours":
                full = [collect, "-H", "on", "-o", "b.er"] + cmd
            else:
                full = [heaptrack, "-o", os.path.join(work, "ht")] + cmd
            t, cpu, rc, err = run(full, env)
            if rc != 0:
                print(f"{name}: {tool} failed ({rc}): {err.strip()[-300:]}")
                break
            times.append(t)
            cpus.append(cpu)
        if not times:
            continue
        size, allocs = 0, None
        if tool == "ours":
            size = du(os.path.join(work, "b.er"))
            out = subprocess.run([er_print, "-functions", "b.er"], cwd=work, capture_output=True, text=True).stdout
            m = re.search(r"^\s*\d+\s+\d+\s+\d+\s+(\d+)\s.*<Total>", out, re.M)
            allocs = int(m.group(1)) if m else None
        elif tool == "heaptrack":
            f = [x for x in os.listdir(work) if x.startswith("ht")]
            size = du(os.path.join(work, f[0])) if f else 0
            m = re.search(r"allocations:\s+(\d+)", err)
            allocs = int(m.group(1)) if m else None
        res[tool] = (statistics.median(times), statistics.median(cpus), size, allocs)
    rows.append((name, res))

shutil.rmtree(work, ignore_errors=True)
print("\nwall: whole-command time; cpu: user+sys of the whole process tree (steadier on a busy machine)")
print(f"{'workload':<12} {'tool':<10} {'wall s':>7} {'cpu s':>7} {'x native':>9} {'x heaptrack':>12} "
      f"{'trace':>9} {'x heaptrack':>12} {'allocations':>12}")
for name, res in rows:
    nat = res.get("native")
    ht = res.get("heaptrack")
    for tool, (t, cpu, size, allocs) in res.items():
        xn = f"{cpu / nat[1]:.2f}" if nat and nat[1] else "-"
        xh = f"{cpu / ht[1]:.2f}" if ht and ht[1] and tool != "native" else "-"
        sz = f"{size / 1024:.0f} KiB" if size else "-"
        xs = f"{size / ht[2]:.2f}" if ht and ht[2] and size and tool != "native" else "-"
        print(f"{name:<12} {tool:<10} {t:7.2f} {cpu:7.2f} {xn:>9} {xh:>12} {sz:>9} {xs:>12} "
              f"{allocs if allocs is not None else '-':>12}")
print("(x native and x heaptrack compare cpu)")
