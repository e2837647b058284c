#!/usr/bin/env python3
"""Reading a heap experiment, side by side (issue #26, item 6): sqlite3 runs
bench/heap/work.sql (its 300,000 rows scaled by --scale) once under our
`collect -H on` and once under heaptrack; then `er_print -functions` and
`er_print -leaks` of our experiment and `heaptrack_print` of heaptrack's trace
are each run --rounds times.  Prints the median wall time and the peak RSS of
each, and the ratios ours / heaptrack_print (targets: wall <= 1.5x, RSS <= 150 MB
at scale 1).  Measurements only: no assertion (shared, noisy machine).

    bench/heap/read.py [--build DIR] [--scale F] [--rounds N] [--json FILE]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(cmd, cwd):
    """Wall seconds and peak RSS (MB) of cmd, or None when it fails."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    t = time.monotonic() - t0
    if status != 0:
        return None
    return t, ru.ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--scale", type=float, default=1.0, help="rows of work.sql, as a share of its 300,000")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    if not shutil.which("sqlite3") or not shutil.which("heaptrack") or not shutil.which("heaptrack_print"):
        print("note: needs sqlite3, heaptrack and heaptrack_print: skipped")
        return 0
    work = tempfile.mkdtemp(prefix="pa-bench-heapread.")
    try:
        sql = open(os.path.join(TOP, "bench/heap/work.sql")).read()
        rows = max(1000, int(300000 * a.scale))
        sql = re.sub(r"i < 300000", "i < %d" % rows, sql)
        sql = re.sub(r"i < 200000", "i < %d" % max(1000, int(200000 * a.scale)), sql)
        with open(os.path.join(work, "work.sql"), "w") as f:
            f.write(sql)
        cmd = ["sqlite3", ":memory:", ".read work.sql"]
        env = dict(os.environ, PA_ARCHIVE="off")
        subprocess.run([os.path.join(build, "bin/collect"), "-H", "on", "-o", "h.er"] + cmd, cwd=work, env=env,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["heaptrack", "-o", os.path.join(work, "ht")] + cmd, cwd=work, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        trace = [f for f in os.listdir(work) if f.startswith("ht.")][0]
        er_print = os.path.join(build, "bin/er_print")
        tools = [("er_print -functions", [er_print, "-functions", "h.er"]),
                 ("er_print -leaks", [er_print, "-leaks", "h.er"]),
                 ("heaptrack_print", ["heaptrack_print", trace])]
        res = {name: [] for name, _ in tools}
        for _ in range(a.rounds):  # alternating, so drift hits all alike
            for name, c in tools:
                r = timed(c, work)
                if r is None:
                    print("%s failed" % name)
                    return 1
                res[name].append(r)
        med = {name: (statistics.median(t for t, _ in v), max(m for _, m in v)) for name, v in res.items()}
        ht_t, ht_m = med["heaptrack_print"]
        print("sqlite3 on work.sql at %d rows, %d rounds (median wall, peak RSS)" % (rows, a.rounds))
        out = {}
        for name, (t, m) in med.items():
            print("  %-20s %7.3f s %8.1f MB   x heaptrack_print: wall %.2f, RSS %.2f" %
                  (name, t, m, t / ht_t, m / ht_m))
            key = name.replace("er_print -", "").replace("heaptrack_print", "heaptrack_print")
            out[key] = {"wall_s": t, "rss_mb": m, "wall_ratio": t / ht_t, "rss_ratio": m / ht_m}
        ours_t, ours_m = med["er_print -functions"]
        print("targets (scale 1): wall <= 1.5x heaptrack_print: %s (%.2fx); RSS <= 150 MB: %s (%.0f MB)" %
              ("met" if ours_t <= 1.5 * ht_t else "NOT met", ours_t / ht_t,
               "met" if ours_m <= 150 else "NOT met", ours_m))
        if a.json:
            with open(a.json, "w") as f:
                json.dump(out, f, indent=1)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
