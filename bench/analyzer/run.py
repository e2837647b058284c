#!/usr/bin/env python3
"""bench/analyzer/run.py - the analyzer on a big synthetic experiment (issue #12's target:
an experiment of 1,000,000 samples over 100,000 distinct stacks opens and shows the
functions view within 2 s).

    python3 bench/analyzer/run.py [--build build] [--samples N] [--stacks N] [--keep] [--no-browser]

Writes the experiment with mkexp from runbench.make_script (cpubound's functions at
random offsets, 4 threads, each thread's sample lines together: mkexp starts a 64 KiB
block whenever the thread changes), starts `analyzer --no-browser --port 0` on it and
times, with the token's cookie: the start (to the printed URL: reading the experiment),
/api/overview (the profile computed), /api/functions, /api/flame, /api/calltree and
/api/timeline, each its reply's size, the first request and the median of 3 more, also as
the page asks for them (pruned to its canvas, a timeline window).  Then, unless --no-browser,
the page itself in Debian's chromium (bench/analyzer/browser.mjs, playwright-core from
tests/tools/js): open to the functions view, the flame graph's and the timeline's draws, a
click-zoom, a hover, a wheel zoom and a pan, each the first time and the median of 5 more.
Prints the figures; nothing is asserted (the machine is shared and noisy)."""
import argparse
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import runbench  # noqa: E402  (make_script)

# the last four as the page asks: pruned to its canvas (1178 px flame, 0.1% call tree), the
# timeline at 1068 px lanes, whole and a window of 1 s
ENDPOINTS = ["overview", "functions", "flame?metric=totalcpu", "calltree", "timeline?metric=totalcpu",
             "flame?metric=totalcpu&width=1178", "calltree?width=1000",
             "timeline?metric=totalcpu&width=1068&per_px=2",
             "timeline?metric=totalcpu&width=1068&per_px=2&v0=1000000000&v1=2000000000"]


def get(base, cookie, path):
    req = urllib.request.Request(base + "/api/" + path, headers={"Cookie": cookie})
    t = time.monotonic()
    with urllib.request.urlopen(req, timeout=600) as r:
        body = r.read()
    return time.monotonic() - t, len(body)


def browser(url):
    """The page's timings in chromium, or why not."""
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    js = os.path.join(top, "tests", "tools", "js", "node_modules", "playwright-core")
    missing = [w for w, ok in (("node", shutil.which("node")), ("chromium", shutil.which("chromium")),
                               ("playwright-core (make deps)", os.path.isdir(js))) if not ok]
    if missing:
        print("browser timings skipped: no " + ", ".join(missing))
        return
    sys.stdout.flush()
    r = subprocess.run(["node", os.path.join(top, "bench", "analyzer", "browser.mjs"), url], timeout=1800)
    if r.returncode:
        print("browser timings failed (exit %d)" % r.returncode)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--samples", type=int, default=1000000)
    ap.add_argument("--stacks", type=int, default=100000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--no-browser", action="store_true", help="skip the page's timings in chromium")
    a = ap.parse_args()
    prog = os.path.join(a.build, "bench", "cpubound")
    mkexp = os.path.join(a.build, "tests", "tools", "mkexp")
    analyzer = os.path.join(a.build, "bin", "analyzer")
    tmp = tempfile.mkdtemp(prefix="pa-bench-analyzer.")
    exp = os.path.join(tmp, "big.er")
    try:
        script = runbench.make_script(prog, random.Random(12), nstacks=a.stacks, nthreads=4, total=a.samples)
        t = time.monotonic()
        r = subprocess.run([mkexp, exp], input=script, text=True, capture_output=True)
        if r.returncode:
            sys.exit("mkexp failed: " + r.stderr.strip())
        du = subprocess.run(["du", "-sB1", exp], capture_output=True, text=True).stdout.split()[0]
        print("experiment: %d samples, %d stacks, 4 threads; mkexp %.2f s, %.1f MB on disk"
              % (a.samples, a.stacks, time.monotonic() - t, int(du) / 1e6))
        t = time.monotonic()
        p = subprocess.Popen([analyzer, "--no-browser", "--port", "0", exp], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        line = p.stdout.readline()
        start = time.monotonic() - t
        m = re.match(r"Analyzer: (http://127\.0\.0\.1:(\d+))/\?token=([0-9a-f]{32})$", line.strip())
        if not m:
            p.kill()
            sys.exit("no URL from the analyzer: %r %s" % (line, p.stderr.read()[:300]))
        base, cookie = m.group(1), "pa_token_%s=%s" % (m.group(2), m.group(3))
        print("analyzer start (reads the experiment): %.3f s" % start)
        print("%-26s %12s %10s %12s" % ("endpoint", "bytes", "first s", "median s"))
        first = {}
        try:
            for e in ENDPOINTS:
                t1, n = get(base, cookie, e)
                times = [get(base, cookie, e)[0] for _ in range(a.repeat)]
                first[e] = t1
                print("%-48s %12d %10.3f %12.3f" % ("/api/" + e, n, t1, statistics.median(times)))
            print("open + functions view (start + overview + functions, first): %.3f s (target 2 s)"
                  % (start + first["overview"] + first["functions"]))
            if not a.no_browser:
                browser(line.strip().split(" ", 1)[1])
        finally:
            p.send_signal(signal.SIGINT)
            p.wait(timeout=60)
    finally:
        if a.keep:
            print("kept", exp)
        else:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
