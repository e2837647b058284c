#!/usr/bin/env python3
"""Heap tracing a malloc loop, whole command against heaptrack (issue #26, item 2):
one function makes N malloc/free pairs of mixed small sizes (64 blocks kept
alive), run natively, under `collect -H on` (defaults: clock profiling on, the
experiment compressed and archived at the end: the whole command a user waits
for) and under heaptrack, alternating, --rounds rounds.  Prints the median wall
time and CPU time (user+sys of the whole process tree, from wait4) of each and
the ratios ours / heaptrack (targets: wall <= 0.8x, CPU <= 0.6x).  Measurements
only: no assertion (shared, noisy machine).

    bench/heap/loop.py [--build DIR] [--n N] [--rounds R] [--json FILE]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

LOOP_C = r"""
#include <stdio.h>
#include <stdlib.h>
static void *volatile keep[64];
__attribute__((noinline)) static void work(long n)
{
	for (long i = 0; i < n; i++) {
		void *p = malloc(16 + (size_t)(i * 37) % 200);
		((volatile char *)p)[0] = 1;
		free(keep[i & 63]);
		keep[i & 63] = p;
	}
}
int main(int argc, char **argv)
{
	work(argc > 1 ? atol(argv[1]) : 4000000);
	puts("done");
	return 0;
}
"""


def run(cmd, cwd):
    """Wall seconds and CPU seconds (the tree's, wait4) of cmd; None on failure."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    t = time.monotonic() - t0
    return (t, ru.ru_utime + ru.ru_stime) if status == 0 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--n", type=int, default=4000000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    if not shutil.which("heaptrack"):
        print("note: heaptrack is not installed: skipped")
        return 0
    work = tempfile.mkdtemp(prefix="pa-bench-heaploop.")
    try:
        with open(os.path.join(work, "loop.c"), "w") as f:
            f.write(LOOP_C)
        subprocess.run(["cc", "-O2", "-g", "loop.c", "-o", "loop"], cwd=work, check=True)
        prog = ["./loop", str(a.n)]
        tools = [("native", prog),
                 ("collect -H on", [os.path.join(build, "bin/collect"), "-H", "on", "-o", "h.er"] + prog),
                 ("heaptrack", ["heaptrack", "-o", os.path.join(work, "ht")] + prog)]
        res = {name: [] for name, _ in tools}
        for _ in range(a.rounds):
            for name, cmd in tools:
                shutil.rmtree(os.path.join(work, "h.er"), ignore_errors=True)
                for f in os.listdir(work):
                    if f.startswith("ht."):
                        os.remove(os.path.join(work, f))
                r = run(cmd, work)
                if r is None:
                    print("%s failed" % name)
                    return 1
                res[name].append(r)
        med = {k: (statistics.median(t for t, _ in v), statistics.median(c for _, c in v)) for k, v in res.items()}
        ht_w, ht_c = med["heaptrack"]
        print("%d malloc/free pairs from one function, %d rounds (medians)" % (a.n, a.rounds))
        for name, (w, c) in med.items():
            print("  %-14s wall %6.3f s  cpu %6.3f s   x heaptrack: wall %.2f, cpu %.2f" %
                  (name, w, c, w / ht_w, c / ht_c))
        ow, oc = med["collect -H on"]
        print("targets: wall <= 0.8x heaptrack: %s (%.2fx); CPU <= 0.6x: %s (%.2fx)" %
              ("met" if ow <= 0.8 * ht_w else "NOT met", ow / ht_w, "met" if oc <= 0.6 * ht_c else "NOT met",
               oc / ht_c))
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"wall_ratio": ow / ht_w, "cpu_ratio": oc / ht_c, "ours_wall_s": ow, "ours_cpu_s": oc,
                           "heaptrack_wall_s": ht_w, "heaptrack_cpu_s": ht_c}, f, indent=1)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
