#!/usr/bin/env python3
"""The user/system split's cost per clock sample (issue #15 item 3): one
getrusage(RUSAGE_THREAD) per sample.  Two figures:

1. rusage_cost.c: ns per getrusage(RUSAGE_THREAD) call next to ns per
   CLOCK_THREAD_CPUTIME_ID read (what every sample already makes);
2. bench/cpubound under `collect -p hi` (1 kHz) with the split on and
   PA_CPU_SPLIT=off, alternating, ROUNDS runs each: median CPU time of the
   process tree, samples, and (CPU on - CPU off) / samples.  The difference is
   within the machine's noise at 1 kHz; figure 1 is the one to trust.

Measurements only, no assertion (shared, noisy machine).

    bench/cpusplit/run.py BUILD_DIR [UNITS] [ROUNDS]
"""
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
units = sys.argv[2] if len(sys.argv) > 2 else "100"
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
here = os.path.dirname(os.path.abspath(__file__))
prog = os.path.join(build, "bench", "cpubound")
collect = os.path.join(build, "bin", "collect")
if not os.path.exists(prog):
    sys.exit(f"{prog}: not built (make bench-bins)")
work = tempfile.mkdtemp(prefix="pa-bench-cpusplit.")
try:
    cost = os.path.join(work, "rusage_cost")
    subprocess.run(["cc", "-O2", os.path.join(here, "rusage_cost.c"), "-o", cost], check=True)
    print(subprocess.run([cost], stdout=subprocess.PIPE, text=True, check=True).stdout.strip())

    def cpu_of(env):
        shutil.rmtree(os.path.join(work, "c.er"), ignore_errors=True)
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([collect, "-p", "hi", "-o", "c.er", prog, "1", units], cwd=work, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        log = open(os.path.join(work, "c.er", "log.xml"), errors="replace").read()
        m = re.search(r'<collector_end [^>]*\bsamples="(\d+)"', log)
        return (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime), int(m.group(1)) if m else 0

    base = dict(os.environ, PA_ARCHIVE="off")
    on, off = [], []
    for _ in range(rounds):
        on.append(cpu_of(base))
        off.append(cpu_of(dict(base, PA_CPU_SPLIT="off")))
    c_on, c_off = statistics.median(c for c, _ in on), statistics.median(c for c, _ in off)
    s_on = statistics.median(s for _, s in on)
    print(f"cpubound {units} units, collect -p hi, median of {rounds}: split on {c_on:.3f} s CPU, "
          f"off {c_off:.3f} s, {s_on:.0f} samples: {(c_on - c_off) / max(s_on, 1) * 1e9:.0f} ns/sample")
finally:
    shutil.rmtree(work, ignore_errors=True)
