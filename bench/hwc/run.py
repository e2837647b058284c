#!/usr/bin/env python3
"""Counter overflow profiling cost, side by side (issue #15 item 6): bench/cpubound.c
(deterministic CPU-bound work through a few function levels) run natively,
under our `collect -p off -h task-clock,1000000` (an overflow with its stack
every 1 ms of the thread's CPU), under our `collect -p hi` (clock profiling at
the same 1 kHz, for comparison) and under `perf record -e task-clock -c 1000000
-g` (the same event and rate, frame-pointer call stacks), each THREADS ways.

Printed per tool, median of ROUNDS runs: the run's wall time and the process
tree's CPU time (user + system of the waited-for children, which leaves out
other processes' turns on the shared cores), their ratio to native, the
samples recorded (our experiment's overflows or clock samples; perf report's
sample count) and the bytes the tool wrote per sample (our experiment
directory without archives/; perf.data).  Measurements only: no assertion
(shared, noisy machine).

    bench/hwc/run.py BUILD_DIR [UNITS] [ROUNDS] [THREADS]
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
units = sys.argv[2] if len(sys.argv) > 2 else "100"
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
threads = sys.argv[4] if len(sys.argv) > 4 else "1"
prog = os.path.join(build, "bench", "cpubound")
if not os.path.exists(prog):
    sys.exit(f"{prog}: not built (make bench-bins)")
collect = os.path.join(build, "bin", "collect")
er_print = os.path.join(build, "bin", "er_print")
work = tempfile.mkdtemp(prefix="pa-bench-hwc.")
env = dict(os.environ, PA_ARCHIVE="off")


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd):
    """(wall s, CPU s of the tree) of one run, or None if it failed."""
    c0, t0 = children_cpu(), time.monotonic()
    r = subprocess.run(cmd, cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t1, c1 = time.monotonic(), children_cpu()
    return None if r.returncode != 0 else (t1 - t0, c1 - c0)


def dir_bytes(path):
    total = 0
    for d, dirs, files in os.walk(path):
        dirs[:] = [x for x in dirs if x != "archives"]
        total += sum(os.path.getsize(os.path.join(d, f)) for f in files)
    return total


def our_samples(exp, what):
    """Overflows (what = 'hwc') or clock samples ('clock') the experiment recorded."""
    log = open(os.path.join(work, exp, "log.xml"), errors="replace").read()
    key = "hwc_overflows" if what == "hwc" else "samples"
    m = re.search(r'<collector_end [^>]*\b' + key + r'="(\d+)"', log)
    return int(m.group(1)) if m else 0


def perf_samples():
    """perf.data's samples: one period line each."""
    out = subprocess.run(["perf", "script", "-i", "perf.data", "-F", "period"], cwd=work,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    return sum(1 for line in out.splitlines() if line.strip())


args = [prog, threads, units]
tools = [("native", args, None, None),
         ("collect -h task-clock (1 ms)", [collect, "-p", "off", "-h", "task-clock,1000000", "-o", "h.er"] + args,
          "h.er", "hwc"),
         ("collect -p hi (1 ms)", [collect, "-p", "hi", "-o", "c.er"] + args, "c.er", "clock")]
if shutil.which("perf"):
    tools.append(("perf record task-clock -g", ["perf", "record", "-q", "-e", "task-clock", "-c", "1000000", "-g",
                                                "-o", "perf.data"] + args, "perf.data", "perf"))

res = {}
for name, cmd, out, what in tools:
    walls, cpus, samples, nbytes = [], [], [], []
    for _ in range(rounds):
        if out:
            p = os.path.join(work, out)
            shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) else (os.path.exists(p) and os.unlink(p))
        fig = run(cmd)
        if fig is None:
            break
        walls.append(fig[0])
        cpus.append(fig[1])
        if what == "perf":
            samples.append(perf_samples())
            nbytes.append(os.path.getsize(os.path.join(work, out)))
        elif what:
            samples.append(our_samples(out, what))
            nbytes.append(dir_bytes(os.path.join(work, out)))
    if walls:
        res[name] = (statistics.median(walls), statistics.median(cpus),
                     statistics.median(samples) if samples else None, statistics.median(nbytes) if nbytes else None)
    else:
        res[name] = None

print(f"== cpubound {threads} thread(s), {units} units, median of {rounds} runs")
print(f"{'tool':30s} {'wall s':>7s} {'x native':>9s} {'CPU s':>7s} {'x native':>9s} {'samples':>8s} {'bytes/sample':>13s}")
base = res.get("native")
for name, _, _, _ in tools:
    r = res.get(name)
    if not r:
        print(f"{name:30s} failed or not available")
        continue
    wall, cpu, smp, nb = r
    xw = wall / base[0] if base else 0
    xc = cpu / base[1] if base and base[1] else 0
    bps = f"{nb / smp:13.1f}" if smp and nb else f"{'-':>13s}"
    print(f"{name:30s} {wall:7.3f} {xw:9.3f} {cpu:7.3f} {xc:9.3f} {smp if smp is not None else '-':>8} {bps}")
shutil.rmtree(work, ignore_errors=True)
