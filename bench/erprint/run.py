#!/usr/bin/env python3
"""er_print on small experiments against gprofng display text (issue #26, item 1).

Two programs are recorded once each by our collect (which archives the objects and
indexes their line tables, as by default) and by `gprofng collect app`: the bundled
demo (demo/demo.c) and bench/erprint/mathstr.c (libc and libm work, their DWARF from
libc6-dbg).  Then, alternating within each round, `er_print -functions` and
`gprofng display text -functions` are timed: wall time around the process and its
peak RSS (wait4's ru_maxrss).  Printed per experiment: the median and best wall of
each, the ratio ours/gprofng of the medians and of the bests, our peak RSS; then, for
information, ours with a fresh per-user cache (the DWARF read and indexed: what the
first report costs when collect did not archive), ours with PA_LINE_INDEX=off (the
DWARF read every time), and -lines, -source and -disasm of the program's hottest
function (they pay only for what they show).  Targets: ratio <= 2, RSS <= 25 MB.
Measurements only: no assertion (shared, noisy machine).

    bench/erprint/run.py [--build DIR] [--rounds N] [--json FILE]
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
TARGET_RATIO = 2.0
TARGET_RSS_MB = 25.0


def run_timed(cmd, env=None, cwd=None):
    """(wall s, peak RSS MB, exit status) of cmd, its output discarded."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_maxrss / 1024.0, p.returncode


def record(build, work, name, prog_argv, env):
    """Our experiment and gprofng's (None if gprofng is missing or fails) of prog_argv."""
    ours = os.path.join(work, name + ".er")
    r = subprocess.run([os.path.join(build, "bin", "collect"), "-o", ours] + prog_argv, cwd=work, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode != 0:
        sys.exit("collect failed on %s: %s" % (name, r.stderr.decode(errors="replace")))
    theirs = os.path.join(work, name + ".gp.er")
    if shutil.which("gprofng"):
        r = subprocess.run(["gprofng", "collect", "app", "-o", theirs] + prog_argv, cwd=work,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r.returncode != 0 or not os.path.isdir(theirs):
            theirs = None
    else:
        theirs = None
    return ours, theirs


def compare(build, ours, theirs, rounds, env):
    """Alternating runs of ours and gprofng's -functions: a dict of the figures."""
    erp = os.path.join(build, "bin", "er_print")
    w_o, r_o, w_g, r_g = [], [], [], []
    run_timed([erp, "-functions", ours], env=env)  # warm-up: the page cache
    if theirs:
        run_timed(["gprofng", "display", "text", "-functions", theirs])
    for _ in range(rounds):
        w, r, rc = run_timed([erp, "-functions", ours], env=env)
        if rc != 0:
            sys.exit("er_print -functions %s failed" % ours)
        w_o.append(w)
        r_o.append(r)
        if theirs:
            w, r, _ = run_timed(["gprofng", "display", "text", "-functions", theirs])
            w_g.append(w)
            r_g.append(r)
    res = {"ours_wall": statistics.median(w_o), "ours_best": min(w_o), "ours_rss_mb": max(r_o)}
    if w_g:
        res.update(gp_wall=statistics.median(w_g), gp_best=min(w_g), gp_rss_mb=max(r_g),
                   ratio=statistics.median(w_o) / statistics.median(w_g), ratio_best=min(w_o) / min(w_g))
    return res


def hottest_function(build, exp, env):
    """The first function of -functions (after <Total>) that has its own lines, or None."""
    out = subprocess.run([os.path.join(build, "bin", "er_print"), "-printmode", ",", "-functions", exp], env=env,
                         capture_output=True, text=True).stdout.splitlines()
    names = [line.rsplit(",", 1)[-1].strip('"') for line in out if line.startswith('"')]
    for n in names:
        if n and not n.startswith("<"):
            r = subprocess.run([os.path.join(build, "bin", "er_print"), "-source", n, exp], env=env,
                               capture_output=True)
            if r.returncode == 0:
                return n
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json", help="write the figures here too")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    work = tempfile.mkdtemp(prefix="pa-bench-erprint.")
    cache = os.path.join(work, "cache")
    env = dict(os.environ, PA_CACHE_DIR=cache)
    try:
        demo = os.path.join(work, "demo")
        mathstr = os.path.join(work, "mathstr")
        subprocess.run(["cc", "-O2", "-g", "-pthread", "-o", demo, os.path.join(TOP, "demo/demo.c")], check=True)
        subprocess.run(["cc", "-O2", "-g", "-o", mathstr, os.path.join(TOP, "bench/erprint/mathstr.c"), "-lm"],
                       check=True)
        figures = {}
        for name, argv in (("demo", [demo]), ("mathstr", [mathstr, "1"])):
            ours, theirs = record(build, work, name, argv, env)
            res = compare(build, ours, theirs, a.rounds, env)
            # the first report with nothing indexed yet, and with the index off
            fresh = dict(env, PA_CACHE_DIR=os.path.join(work, "fresh-" + name))
            res["fresh_wall"], res["fresh_rss_mb"], _ = run_timed(
                [os.path.join(build, "bin", "er_print"), "-functions", ours], env=fresh)
            off = dict(env, PA_LINE_INDEX="off")
            res["off_wall"], res["off_rss_mb"], _ = run_timed(
                [os.path.join(build, "bin", "er_print"), "-functions", ours], env=off)
            fn = hottest_function(build, ours, env)
            res["hot"] = fn
            for cmd in ("-lines", "-source", "-disasm"):
                argv2 = [os.path.join(build, "bin", "er_print"), cmd] + ([fn] if cmd != "-lines" and fn else []) + [ours]
                if cmd != "-lines" and not fn:
                    continue
                res[cmd[1:] + "_wall"], res[cmd[1:] + "_rss_mb"], _ = run_timed(argv2, env=env)
            figures[name] = res
        print("== er_print -functions on small experiments, %d rounds (ours vs gprofng display text)" % a.rounds)
        print("  %-9s %9s %9s %9s %9s %8s %8s %8s %8s" % ("program", "ours med", "ours best", "gp med", "gp best",
                                                        "ratio", "best", "ours MB", "gp MB"))
        for name, r in figures.items():
            if "gp_wall" in r:
                print("  %-9s %9.4f %9.4f %9.4f %9.4f %8.2f %8.2f %8.1f %8.1f" % (
                    name, r["ours_wall"], r["ours_best"], r["gp_wall"], r["gp_best"], r["ratio"], r["ratio_best"],
                    r["ours_rss_mb"], r["gp_rss_mb"]))
            else:
                print("  %-9s %9.4f %9.4f %9s %9s %8s %8s %8.1f %8s" % (
                    name, r["ours_wall"], r["ours_best"], "-", "-", "-", "-", r["ours_rss_mb"], "-"))
        print("\n  ours, once each (s, MB): a fresh cache (DWARF read and indexed) / PA_LINE_INDEX=off (DWARF read)"
              " / -lines, -source, -disasm of the hottest function with its own lines")
        for name, r in figures.items():
            extra = "  ".join("%s %.4f s %.1f MB" % (k, r[k + "_wall"], r[k + "_rss_mb"])
                              for k in ("lines", "source", "disasm") if k + "_wall" in r)
            print("  %-9s fresh %.4f s %.1f MB   off %.4f s %.1f MB   %s (%s)" % (
                name, r["fresh_wall"], r["fresh_rss_mb"], r["off_wall"], r["off_rss_mb"], extra, r["hot"]))
        print("\n  targets: ratio <= %.1f, RSS <= %.0f MB" % (TARGET_RATIO, TARGET_RSS_MB))
        for name, r in figures.items():
            met_ratio = "ratio %s" % ("met" if r.get("ratio", 0) <= TARGET_RATIO else "missed") \
                if "ratio" in r else "ratio: no gprofng"
            met_rss = "RSS %s" % ("met" if r["ours_rss_mb"] <= TARGET_RSS_MB else "missed")
            print("  %-9s %s, %s" % (name, met_ratio, met_rss))
        if a.json:
            with open(a.json, "w") as f:
                json.dump(figures, f, indent=1, sort_keys=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
