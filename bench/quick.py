#!/usr/bin/env python3
"""The quick benchmarks (`make bench-quick`, under a minute): each prints the ratios of
issue #26 that it measures against its anchor in the same run, and with --check FILE
each ratio is compared with the value FILE recorded: a ratio more than twice its
recorded value is a regression (exit 1).  Ratios, not times, so a loaded machine
slows both sides and does not fail it; a ratio whose anchor is not installed (gprofng)
is skipped with a note.

Ratios now (lower is better):
  erprint.<prog>.wall   best wall of `er_print -functions` / best of `gprofng display
                        text -functions`, on the demo and on bench/erprint/mathstr.c
  erprint.<prog>.rss    peak RSS of the same, ours / gprofng's
  pagefaults.<prog>     the collector's page faults / the run's (bench/pagefaults/run.py,
                        python3 and a C++ program; counts, not times; needs perf)
  heapread.wall, .rss   median wall and peak RSS of `er_print -functions` of a heap
                        experiment / of `heaptrack_print` of heaptrack's trace of the same
                        run (bench/heap/read.py at scale 0.2: sqlite3, 60,000 rows)
  heaploop.wall, .cpu   median wall and CPU of `collect -H on` of 1M malloc/free pairs
                        from one function / of heaptrack's (bench/heap/loop.py)
(The exec-heavy loop's CPU ratio is not among them: 4.3 alone, 7.4-9.3 inside the test
suite, with the file system's recent deletions: too unsteady for a 2x guard.)

    bench/quick.py [--build DIR] [--check FILE] [--record FILE]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def erprint_ratios(build):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([sys.executable, os.path.join(TOP, "bench/erprint/run.py"), "--build", build,
                        "--rounds", "5", "--json", f.name], check=True, stdout=subprocess.DEVNULL)
        figures = json.load(open(f.name))
    ratios = {}
    for prog, r in sorted(figures.items()):
        if "ratio_best" in r:
            ratios["erprint.%s.wall" % prog] = r["ratio_best"]
            ratios["erprint.%s.rss" % prog] = r["ours_rss_mb"] / r["gp_rss_mb"]
    return ratios


def pagefault_ratios(build):
    if not shutil.which("perf"):
        return {}
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        p = subprocess.run([sys.executable, os.path.join(TOP, "bench/pagefaults/run.py"), build, "--json=" + f.name],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if p.returncode != 0:
            return {}
        r = json.load(open(f.name))
    return {"pagefaults.%s" % k.split()[0].lower().replace("+", "x"): v for k, v in r.items()}


def bench_json(build, script, *args):
    """The figures a benchmark script (a path under bench) writes with --json, or {} when it fails or skips."""
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        p = subprocess.run([sys.executable, os.path.join(TOP, "bench", script), "--build", build] + list(args) +
                           ["--json", f.name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if p.returncode != 0 or not os.path.getsize(f.name):
            return {}
        return json.load(open(f.name))


def heapread_ratios(build):
    r = bench_json(build, "heap/read.py", "--scale", "0.2", "--rounds", "3")
    return {"heapread.wall": r["functions"]["wall_ratio"], "heapread.rss": r["functions"]["rss_ratio"]} if r else {}


def heaploop_ratios(build):
    r = bench_json(build, "heap/loop.py", "--n", "1000000", "--rounds", "3")
    return {"heaploop.wall": r["wall_ratio"], "heaploop.cpu": r["cpu_ratio"]} if r else {}


PROBES = [("er_print -functions vs gprofng display text", erprint_ratios),
          ("the collector's share of page faults (perf)", pagefault_ratios),
          ("er_print -functions of a heap experiment vs heaptrack_print", heapread_ratios),
          ("collect -H on of a malloc loop vs heaptrack", heaploop_ratios)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--check", help="fail when a ratio is over twice the one recorded in this file")
    ap.add_argument("--record", help="write the ratios measured to this file")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    ratios = {}
    for what, probe in PROBES:
        got = probe(build)
        if not got:
            print("%s: skipped (anchor not installed)" % what)
        ratios.update(got)
    recorded = json.load(open(a.check)) if a.check else {}
    bad = 0
    print("%-28s %9s %9s %s" % ("ratio", "measured", "recorded", "verdict"))
    for k in sorted(ratios):
        rec = recorded.get(k)
        verdict = ""
        if a.check:
            if rec is None:
                verdict = "not recorded"
            elif ratios[k] > 2 * rec:
                verdict = "REGRESSED (over 2x recorded)"
                bad += 1
            else:
                verdict = "ok"
        print("%-28s %9.3f %9s %s" % (k, ratios[k], "%.3f" % rec if rec is not None else "-", verdict))
    if a.check:
        missing = sorted(set(recorded) - set(ratios))
        for k in missing:
            print("%-28s %9s %9.3f skipped (not measured here)" % (k, "-", recorded[k]))
    if a.record:
        with open(a.record, "w") as f:
            json.dump({k: round(v, 3) for k, v in sorted(ratios.items())}, f, indent=1, sort_keys=True)
            f.write("\n")
    if bad:
        print("%d ratio(s) regressed past twice the recorded value" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
