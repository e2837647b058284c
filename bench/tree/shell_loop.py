#!/usr/bin/env python3
"""An exec-heavy shell loop (issue #26, item 5): bash running N rounds of
`echo | md5sum`, `$(date +%s)` and /bin/true (3 N short processes), natively, under
`collect` (-A off: the archive is another benchmark's) and under `perf record -g` (the
anchor), median of R runs each.  Printed: whole-command wall time and its ratio to native
(target <= 2), the process tree's CPU (wait4 user + sys), what ours recorded (<Total> of
er_print -functions) against the native tree's CPU (target >= 0.95), and the experiment's
size and directories per process.  Prints only.

    bench/tree/shell_loop.py [BUILD] [N] [R] [--json=FILE]
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

LOOP = """for i in $(seq 1 %d); do
  echo $i | md5sum > /dev/null
  d=$(date +%%s)
  /bin/true
done
"""


def run(cmd, cwd, env=None):
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    return time.monotonic() - t0, ru.ru_utime + ru.ru_stime, os.waitstatus_to_exitcode(status)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--json=")]
    jout = [a[7:] for a in sys.argv[1:] if a.startswith("--json=")]
    build = os.path.abspath(args[0] if args else "build")
    n = int(args[1]) if len(args) > 1 else 400
    rounds = int(args[2]) if len(args) > 2 else 3
    work = tempfile.mkdtemp(prefix="pa-bench-loop.")
    try:
        script = os.path.join(work, "rounds")
        with open(script, "w") as f:
            f.write(LOOP % n)
        loop = ["bash", script]
        env = dict(os.environ, PA_CACHE_DIR=os.path.join(work, "cache"))
        res = {"native": [], "ours": [], "perf": []}
        recorded, size, dirs = [], 0, 0
        for r in range(rounds):
            res["native"].append(run(loop, work))
            shutil.rmtree(os.path.join(work, "x.er"), ignore_errors=True)
            res["ours"].append(run([os.path.join(build, "bin", "collect"), "-A", "off", "-o", "x.er"] + loop, work, env))
            out = subprocess.run([os.path.join(build, "bin", "er_print"), "-functions", "x.er"], cwd=work, env=env,
                                 capture_output=True, text=True).stdout
            m = re.search(r"^\s*([0-9.]+)\s+100\.00\s+[0-9.]+\s+100\.00\s+<Total>", out, re.M)
            recorded.append(float(m.group(1)) if m else 0.0)
            if r == rounds - 1:
                size = int(subprocess.run(["du", "-sk", "x.er"], cwd=work, capture_output=True, text=True).stdout.split()[0])
                dirs = sum(1 for d in os.listdir(os.path.join(work, "x.er")) if d.endswith(".er"))
            if shutil.which("perf"):
                res["perf"].append(run(["perf", "record", "-q", "-g", "-o", os.path.join(work, "perf.data")] + loop,
                                       work))
        nat_w = statistics.median(x[0] for x in res["native"])
        nat_c = statistics.median(x[1] for x in res["native"])
        print("== bash loop of %d rounds (%d short processes), median of %d" % (n, 3 * n, rounds))
        print("%-22s %8s %9s %8s %9s" % ("tool", "wall s", "x native", "CPU s", "x native"))
        for k, label in (("native", "native"), ("ours", "collect -A off"), ("perf", "perf record -g")):
            if not res[k]:
                continue
            w = statistics.median(x[0] for x in res[k])
            c = statistics.median(x[1] for x in res[k])
            print("%-22s %8.3f %9.2f %8.3f %9.2f" % (label, w, w / nat_w, c, c / nat_c))
        rec = statistics.median(recorded)
        print("recorded by ours: %.3f s of CPU = %.2f of the native tree's %.3f s (target >= 0.95)" % (
            rec, rec / nat_c, nat_c))
        print("experiment: %d KiB, %d subexperiments, %.1f KiB each" % (size, dirs, size / max(dirs, 1)))
        print("target: ours <= 2x native wall")
        if jout:
            ours_w = statistics.median(x[0] for x in res["ours"])
            ours_c = statistics.median(x[1] for x in res["ours"])
            with open(jout[0], "w") as f:
                json.dump({"wall_ratio": ours_w / nat_w, "cpu_ratio": ours_c / nat_c}, f)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
