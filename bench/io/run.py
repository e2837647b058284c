#!/usr/bin/env python3
"""I/O tracing cost, side by side (issue #14 item 4): bench/io/iobench.c run
natively, under our collect -i on, under gprofng collect app -i on and under
strace -c -f -o /dev/null:

  1. N 1-byte write()s to /dev/null;
  2. 4 KiB read()s of a 1 MiB file in the page cache (plus one lseek per
     pass over the file, also traced and counted as a call).

Printed per tool: ns per call by the program's own clocks (the tool's
start-up and finish are not counted), wall and the thread's CPU time (which
leaves out other processes' time on the core: the machine is shared),
median of ROUNDS runs, the ratio to native (issue #14's target: collect -i on within 1.5x), and the experiment's
data bytes per call (the files in the experiment directory, archives left
out), and the whole run's wall time per call (start-up, the loop, and what the
tool does after the program ends: our collect compresses the data files).
gprofng and strace are much slower per call: they run N/10 and N/100
calls (the figures are per call).  Measurements only: no assertion (shared,
noisy machine).

    bench/io/run.py BUILD_DIR [N] [ROUNDS]
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
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
work = tempfile.mkdtemp(prefix="pa-bench-io.")
prog = os.path.join(work, "iobench")
subprocess.run(["cc", "-O2", "-g", "-fno-omit-frame-pointer", os.path.join(top, "bench/io/iobench.c"), "-o",
                prog], check=True)
data = os.path.join(work, "data.bin")
with open(data, "wb") as f:
    f.write(os.urandom(1 << 20))
with open(data, "rb") as f:  # into the page cache
    f.read()
collect = os.path.join(build, "bin", "collect")
env = dict(os.environ, PA_ARCHIVE="off")


def run(cmd, expname=None):
    if expname:
        shutil.rmtree(os.path.join(work, expname), ignore_errors=True)
    t0 = time.monotonic()
    r = subprocess.run(cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        return None
    fig = {"run_s": time.monotonic() - t0}
    for line in r.stdout.decode(errors="replace").splitlines():
        k, _, v = line.partition(" ")
        if k in ("ns_per_call", "cpu_ns_per_call", "calls"):
            fig[k] = float(v)
    return fig


def exp_bytes(expname):
    """Bytes of the experiment's files (its subexperiments' too), archives left out."""
    total = 0
    for d, dirs, files in os.walk(os.path.join(work, expname)):
        dirs[:] = [x for x in dirs if x != "archives"]
        total += sum(os.path.getsize(os.path.join(d, f)) for f in files)
    return total


tools = [("native", lambda a: [prog] + a, None, 1),
         ("collect -i on", lambda a: [collect, "-p", "off", "-i", "on", "-o", "u.er", prog] + a, "u.er", 1)]
if shutil.which("gprofng"):
    tools.append(("gprofng -i on", lambda a: ["gprofng", "collect", "app", "-p", "off", "-i", "on", "-o",
                                               "g.er", prog] + a, "g.er", 10))
if shutil.which("strace"):
    tools.append(("strace -c -f", lambda a: ["strace", "-c", "-f", "-o", "/dev/null", prog] + a, None, 100))

cases = [("1-byte write() to /dev/null", lambda k: ["write", str(k)], n),
         ("4 KiB read() of a cached file", lambda k: ["read", data, str(k)], max(n // 4, 1))]
for title, args, count in cases:
    print("== %s, %d calls (gprofng %d, strace %d), median of %d runs"
          % (title, count, max(count // 10, 1), max(count // 100, 1), rounds))
    print("%-16s %10s %9s %10s %9s %14s %10s" % ("tool", "wall ns", "x native", "CPU ns", "x native",
                                                  "bytes per call", "whole run"))
    base = {}
    for name, cmd, exp, div in tools:
        k = max(count // div, 1)
        vals, sizes, whole = {"ns_per_call": [], "cpu_ns_per_call": []}, [], []
        for _ in range(rounds):
            fig = run(cmd(args(k)), exp)
            if fig and "ns_per_call" in fig:
                for key in vals:
                    vals[key].append(fig[key])
                whole.append(fig["run_s"] * 1e9 / fig["calls"])
                if exp:
                    sizes.append(exp_bytes(exp) / fig["calls"])
        cells = []
        for key in vals:
            v = statistics.median(vals[key]) if vals[key] else None
            if name == "native":
                base[key] = v
            cells += ["-" if v is None else "%.1f" % v, "%.2f" % (v / base[key]) if v and base.get(key) else "-"]
        cells.append("%.2f" % statistics.median(sizes) if sizes else "-")
        cells.append("%.0f ns" % statistics.median(whole) if whole else "-")
        print("%-16s %10s %9s %10s %9s %14s %10s" % (name, *cells))
    print("(target, issue #14: collect -i on <= 1.5x native)\n")
shutil.rmtree(work, ignore_errors=True)
