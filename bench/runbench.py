#!/usr/bin/env python3
"""runbench.py - the performance benchmarks of the Performance Analyzer (bench/README.md).

    python3 bench/runbench.py [--build DIR] [--rounds N] [--compare all|none]
                              [--only overhead,erprint] [--keep]

Run by `make bench`.  Standard library only.  Prints figures and ratios
measured side by side in this one run, then a summary table; never fails on
a missed target (the machine is shared and noisy), only on a broken tool.

  1. overhead  cpubound plain / collect -p on / collect -p hi (and gprofng,
               perf at the same rates when installed), rounds alternating;
               median wall and user+sys CPU, slowdown ratios; recorded total
               vs measured CPU (accuracy).
  2. bytes     bytes per clock sample of the experiments of 1 (and of a
               4-thread run): precise record bytes (bench/recbytes) and the
               allocated bytes on disk.
  3. erprint   er_print -functions / -callers-callees / -calltree on a
               synthetic 1,000,000-sample experiment (tests/tools/mkexp).
"""
import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TARGET_ON = 0.01  # <= 1 % slowdown at -p on
TARGET_HI = 0.03  # <= 3 % at -p hi
TARGET_BPS = 32.0  # <= 32 bytes per sample
TARGET_ERP = 1.0  # <= 1 s for er_print -functions on 1e6 samples
ERP_SAMPLES = 1000000


def log(msg=""):
    print(msg, flush=True)


def run_measured(argv, out_path=None, env=None):
    """Run argv; return (wall_s, cpu_s, status).  cpu = user+sys of the child
    and everything it waited for (os.wait4 rusage)."""
    out = open(out_path, "wb") if out_path else subprocess.DEVNULL
    try:
        t0 = time.clock_gettime(time.CLOCK_MONOTONIC)
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env)
        _, status, ru = os.wait4(p.pid, 0)
        t1 = time.clock_gettime(time.CLOCK_MONOTONIC)
        p.returncode = os.waitstatus_to_exitcode(status)
    finally:
        if out_path:
            out.close()
    return t1 - t0, ru.ru_utime + ru.ru_stime, p.returncode


def tool_works(argv):
    try:
        return subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def total_from_report(text):
    """Seconds on the <Total> line of an er_print / gprofng -functions report."""
    for line in text.splitlines():
        if "<Total>" in line:
            m = re.match(r"\s*([0-9.]+)", line)
            if m:
                return float(m.group(1))
    return None


def er_total(erprint, exp):
    r = subprocess.run([erprint, "-functions", exp], capture_output=True, text=True)
    return total_from_report(r.stdout)


def gprofng_total(exp):
    r = subprocess.run(["gprofng", "display", "text", "-functions", exp], capture_output=True, text=True)
    return total_from_report(r.stdout)


def perf_total(data):
    r = subprocess.run(["perf", "report", "-i", data, "--stdio"], capture_output=True, text=True)
    m = re.search(r"Event count \(approx\.\):\s*([0-9]+)", r.stdout)
    return int(m.group(1)) / 1e9 if m else None  # cpu-clock counts nanoseconds


def allocated(path):
    return os.stat(path).st_blocks * 512  # what `du -B1` reports


def recbytes(tool, exp):
    r = subprocess.run([tool, exp], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("recbytes failed on %s: %s" % (exp, r.stderr.strip()))
    files, total = {}, {}
    for line in r.stdout.splitlines():
        kv = dict(f.split("=", 1) for f in line.split()[1 if line.startswith("total") else 0:])
        if line.startswith("total"):
            total = kv
        else:
            files[kv["file"]] = kv
    samples = int(total["samples"])
    prec = int(total["profile_stacks_bytes"])
    disk_ps = allocated(os.path.join(exp, "profile")) + allocated(os.path.join(exp, "stacks"))
    disk_all = sum(allocated(os.path.join(exp, f)) for f in os.listdir(exp))
    clock_bytes = int(files.get("profile", {}).get("clock_bytes", 0))
    stack_bytes = int(files.get("stacks", {}).get("stack_bytes", 0))
    return {
        "samples": samples,
        "precise": prec,
        "clock_bytes": clock_bytes,
        "stack_bytes": stack_bytes,
        "stacks": int(files.get("stacks", {}).get("stack", 0)),
        "disk_ps": disk_ps,
        "disk_all": disk_all,
    }


def fmt_pct(r):
    return "%+.2f%%" % (100.0 * r)


def med(xs):
    return statistics.median(xs) if xs else float("nan")


# ---------------------------------------------------------------- 1 + 2
def bench_overhead(a, tmp, summary):
    build = a.build
    prog = os.path.join(build, "bench", "cpubound")
    collect = os.path.join(build, "bin", "collect")
    erprint = os.path.join(build, "bin", "er_print")
    rb = os.path.join(build, "bench", "recbytes")

    modes = [("plain", "no profiler"), ("on", "collect -p on"), ("hi", "collect -p hi")]
    if a.compare == "all":
        if shutil.which("gprofng"):
            modes += [("g-on", "gprofng -p on"), ("g-hi", "gprofng -p hi")]
        else:
            log("gprofng not installed: no gprofng comparison")
        pd = os.path.join(tmp, "probe.perf")
        if shutil.which("perf") and tool_works(["perf", "record", "-q", "-e", "cpu-clock", "-F", "100",
                                                "-o", pd, "true"]):
            modes += [("p-on", "perf -F 100 -g"), ("p-hi", "perf -F 1000 -g")]
        else:
            log("perf not installed or not permitted: no perf comparison")

    def argv_for(mode, i):
        out = os.path.join(tmp, "ovh", "%s.%d" % (mode, i))
        if mode == "plain":
            return [prog], None
        if mode in ("on", "hi"):
            return [collect, "-p", mode, "-o", out + ".er", prog], out + ".er"
        if mode.startswith("g-"):
            return ["gprofng", "collect", "app", "-p", mode[2:], "-o", out + ".er", prog], out + ".er"
        freq = "100" if mode == "p-on" else "1000"
        return ["perf", "record", "-q", "-e", "cpu-clock", "-F", freq, "-g", "-o", out + ".data",
                prog], out + ".data"

    os.makedirs(os.path.join(tmp, "ovh"), exist_ok=True)
    res = {m: {"wall": [], "cpu": [], "exp": []} for m, _ in modes}
    checksums = set()
    log("== 1. collector overhead: %s, %d rounds, order %s" %
        (prog, a.rounds, ", ".join(m for m, _ in modes)))
    # one untimed warm-up of each mode (page cache, dynamic linker caches)
    for m, _ in modes:
        argv, _exp = argv_for(m, 999)
        run_measured(argv)
    for i in range(a.rounds):
        row = []
        for m, _ in modes:
            argv, exp = argv_for(m, i)
            outp = os.path.join(tmp, "ovh", "%s.%d.out" % (m, i))
            wall, cpu, st = run_measured(argv, outp)
            if st != 0:
                raise RuntimeError("%s exited %d (see %s)" % (" ".join(argv), st, outp))
            with open(outp, errors="replace") as f:
                for line in f:
                    mm = re.search(r"checksum=([0-9a-f]+)", line)
                    if mm:
                        checksums.add(mm.group(1))
            res[m]["wall"].append(wall)
            res[m]["cpu"].append(cpu)
            res[m]["exp"].append((exp, cpu))
            row.append("%s %.3f/%.3f" % (m, wall, cpu))
        log("  round %d  (wall/cpu s)  %s" % (i + 1, "  ".join(row)))
    if len(checksums) != 1:
        raise RuntimeError("cpubound checksums differ between runs: %s" % checksums)

    pw, pc = med(res["plain"]["wall"]), med(res["plain"]["cpu"])
    log("")
    log("  %-16s %9s %9s %9s %9s %9s   %-19s %s" % ("mode", "wall med", "cpu med", "wall", "cpu",
                                                    "cpu pair", "cpu min..max", "recorded/cpu"))
    acc = {}
    for m, label in modes:
        w, c = med(res[m]["wall"]), med(res[m]["cpu"])
        ratios = []
        for exp, cpu in res[m]["exp"]:
            if exp is None:
                continue
            if m in ("on", "hi"):
                t = er_total(erprint, exp)
            elif m.startswith("g-"):
                t = gprofng_total(exp)
            else:
                t = perf_total(exp)
            if t is not None:
                ratios.append(t / cpu)
        acc[m] = med(ratios) if ratios else None
        pair = med([x / y for x, y in zip(res[m]["cpu"], res["plain"]["cpu"])]) - 1
        log("  %-16s %9.3f %9.3f %9s %9s %9s   %6.3f..%-6.3f      %s" %
            (label, w, c, "-" if m == "plain" else fmt_pct(w / pw - 1),
             "-" if m == "plain" else fmt_pct(c / pc - 1), "-" if m == "plain" else fmt_pct(pair),
             min(res[m]["cpu"]), max(res[m]["cpu"]),
             "-" if acc[m] is None else "%.3f" % acc[m]))
    log("  (wall, cpu: median of the mode / median of plain - 1; cpu pair: median over the rounds of"
        " (mode / plain of the same round) - 1;\n   recorded/cpu: <Total> of the report /"
        " measured user+sys, median over the runs)")
    if "g-on" in res:
        log("  note: gprofng's recorded total is low here: its log says \"Collection interval timer"
            " period was changed (10007 -> 0)\" on this kernel")
    for m, tgt in (("on", TARGET_ON), ("hi", TARGET_HI)):
        rc = med(res[m]["cpu"]) / pc - 1
        rw = med(res[m]["wall"]) / pw - 1
        summary.append(("overhead -p %s, CPU (median of %d)" % (m, a.rounds), fmt_pct(rc),
                        "<= %d%%" % round(tgt * 100), rc <= tgt))
        summary.append(("overhead -p %s, wall (median of %d)" % (m, a.rounds), fmt_pct(rw),
                        "<= %d%%" % round(tgt * 100), rw <= tgt))
    for m, label in modes:
        if m != "plain" and m not in ("on", "hi") and m in res:
            rc = med(res[m]["cpu"]) / pc - 1
            summary.append(("  for comparison: %s, CPU" % label, fmt_pct(rc), "", None))
    line = "  accuracy (recorded total / measured CPU): " + ", ".join(
        "%s %.3f" % (label, acc[m]) for m, label in modes if acc.get(m) is not None)
    log(line)
    for m, label in modes:
        if acc.get(m) is not None:
            summary.append(("accuracy %s (recorded/CPU)" % label, "%.3f" % acc[m], "", None))

    # ------------------------------------------------------------ 2. bytes
    log("")
    log("== 2. bytes per sample (precise = record bytes of profile+stacks / clock samples;"
        " disk = allocated bytes)")
    runs = []
    for m in ("on", "hi"):
        for exp, _cpu in res[m]["exp"]:
            runs.append(("1 thread, -p %s" % m, m, exp))
    for m in ("on", "hi"):
        exp = os.path.join(tmp, "ovh", "t4.%s.er" % m)
        _w, _c, st = run_measured([collect, "-p", m, "-o", exp, prog, "4"])
        if st == 0:
            runs.append(("4 threads, -p %s" % m, "4" + m, exp))
    by = {}
    for label, key, exp in runs:
        b = recbytes(rb, exp)
        by.setdefault(key, (label, []))[1].append(b)
    log("  %-18s %5s %8s %7s %9s %9s %11s %11s %11s" %
        ("experiment", "runs", "samples", "stacks", "clock B/s", "stack B", "precise B/s",
         "disk(p+s)/s", "disk(all)/s"))
    for key, (label, bs) in by.items():
        n = med([b["samples"] for b in bs])
        pick = sorted(bs, key=lambda b: b["precise"] / max(b["samples"], 1))[len(bs) // 2]
        per = lambda f: f / max(pick["samples"], 1)
        log("  %-18s %5d %8d %7d %9.2f %9d %11.2f %11.1f %11.1f" %
            (label, len(bs), n, pick["stacks"], per(pick["clock_bytes"]), pick["stack_bytes"],
             per(pick["precise"]), per(pick["disk_ps"]), per(pick["disk_all"])))
        p = per(pick["precise"])
        summary.append(("bytes/sample %s, precise" % label, "%.2f" % p, "<= 32", p <= TARGET_BPS))
        d = per(pick["disk_ps"])
        summary.append(("bytes/sample %s, on disk (profile+stacks)" % label, "%.1f" % d, "info",
                        None))
    log("  (per experiment kind: the run with the median precise figure; disk = du -B1 of the"
        " files: at a few hundred samples it is\n   dominated by the fixed cost of the file header"
        " block and one partly used 64 KiB block per thread and file; see 3 for 1e6 samples)")


# ---------------------------------------------------------------- 3
def make_script(prog, rng, nstacks=20, nthreads=4, total=ERP_SAMPLES):
    """mkexp script: nstacks distinct stacks (depth 5..30) of prog's functions
    over nthreads threads, COUNTs adding up to `total`."""
    out = subprocess.run(["nm", "-S", "--defined-only", prog], capture_output=True, text=True,
                         check=True).stdout
    funcs = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tT" and int(f[1], 16) > 4:
            funcs[f[3]] = int(f[1], 16)
    need = ["main", "run"]
    for n in need:
        if n not in funcs:
            raise RuntimeError("%s has no function %s" % (prog, n))
    leaves = [n for n in funcs if n.startswith("leaf_")]
    middle = [n for n in funcs if n.startswith(("phase_", "kernel_"))]
    if not leaves or not middle:
        raise RuntimeError("%s lacks the leaf_/phase_/kernel_ functions" % prog)

    def frame(name):
        return "%s+%d" % (name, rng.randrange(1, funcs[name]))

    lines = ["object %s" % prog]
    tids = [4000 + t for t in range(nthreads)]
    for t in tids:
        lines.append("thread %d" % t)
    per = total // nstacks
    weight = 10007000  # -p on interval, ns
    cpu = {t: 0 for t in tids}
    stacks = []
    for s in range(nstacks):
        depth = 5 + (s * 25) // (nstacks - 1) if nstacks > 1 else 5  # 5 .. 30
        root = ["main", "run"] if "_start" not in funcs else ["_start", "main", "run"]
        mid = [rng.choice(middle) for _ in range(depth - len(root) - 1)]
        chain = root + mid + [rng.choice(leaves)]  # root first
        stacks.append(" ".join(frame(n) for n in reversed(chain)))  # leaf first
    for s, st in enumerate(stacks):
        tid = tids[s % nthreads]
        count = per if s < nstacks - 1 else total - per * (nstacks - 1)
        cpu[tid] += count * weight
        lines.append("sample %d %d %d %s" % (tid, count, weight, st))
    # samples of one thread consecutive so that each data block holds one thread's records
    samples = [l for l in lines if l.startswith("sample")]
    samples.sort(key=lambda l: int(l.split()[1]))
    lines = [l for l in lines if not l.startswith("sample")] + samples
    for t in tids:
        lines.append("end %d %d" % (t, cpu[t]))
    return "\n".join(lines) + "\n"


def bench_erprint(a, tmp, summary):
    build = a.build
    prog = os.path.join(build, "bench", "cpubound")
    mkexp = os.path.join(build, "tests", "tools", "mkexp")
    erprint = os.path.join(build, "bin", "er_print")
    rb = os.path.join(build, "bench", "recbytes")
    exp = os.path.join(tmp, "bulk.er")
    script = make_script(os.path.abspath(prog), random.Random(20240601))
    with open(os.path.join(tmp, "bulk.script"), "w") as f:
        f.write(script)
    log("")
    log("== 3. er_print on a %d-sample experiment (20 stacks of depth 5..30, 4 threads, object %s)"
        % (ERP_SAMPLES, prog))
    t0 = time.clock_gettime(time.CLOCK_MONOTONIC)
    r = subprocess.run([mkexp, exp], input=script, text=True, capture_output=True)
    t1 = time.clock_gettime(time.CLOCK_MONOTONIC)
    if r.returncode != 0:
        raise RuntimeError("mkexp failed: %s" % r.stderr.strip())
    b = recbytes(rb, exp)
    if b["samples"] != ERP_SAMPLES:
        raise RuntimeError("mkexp wrote %d samples, not %d" % (b["samples"], ERP_SAMPLES))
    log("  mkexp %.2f s; %d samples, %d stacks, profile+stacks %.1f MB on disk, %.2f precise B/sample"
        % (t1 - t0, b["samples"], b["stacks"], b["disk_ps"] / 1e6, b["precise"] / b["samples"]))
    d = b["disk_ps"] / b["samples"]
    summary.append(("bytes/sample 1e6 samples (mkexp), on disk (profile+stacks)", "%.1f" % d, "<= 32",
                    d <= TARGET_BPS))
    tot = er_total(erprint, exp)
    log("  er_print <Total> %.3f s (expected %.3f s)" % (tot or -1, ERP_SAMPLES * 10007000 / 1e9))
    log("  %-18s %9s %9s %9s %9s" % ("command", "wall med", "wall min", "wall max", "cpu med"))
    for cmd in ("-functions", "-callers-callees", "-calltree"):
        argv = [erprint, cmd, exp]
        run_measured(argv)  # warm-up, not counted
        walls, cpus = [], []
        for _ in range(5):
            w, c, st = run_measured(argv, os.path.join(tmp, "erp.out"))
            if st != 0:
                raise RuntimeError("%s exited %d" % (" ".join(argv), st))
            walls.append(w)
            cpus.append(c)
        log("  %-18s %9.3f %9.3f %9.3f %9.3f" % (cmd, med(walls), min(walls), max(walls), med(cpus)))
        summary.append(("er_print %s, 1e6 samples, wall (median of 5)" % cmd, "%.3f s" % med(walls),
                        "<= 1 s" if cmd == "-functions" else "",
                        med(walls) <= TARGET_ERP if cmd == "-functions" else None))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.environ.get("BUILD", "build"))
    ap.add_argument("--rounds", type=int, default=int(os.environ.get("BENCH_ROUNDS", "7")))
    ap.add_argument("--compare", choices=["all", "none"], default=os.environ.get("BENCH_COMPARE", "all"))
    ap.add_argument("--only", default=os.environ.get("BENCH_ONLY", "overhead,erprint"),
                    help="comma-separated: overhead (benchmarks 1 and 2), erprint (3)")
    ap.add_argument("--keep", action="store_true", help="keep the experiments (path printed)")
    a = ap.parse_args()
    only = set(a.only.split(","))
    tmp = tempfile.mkdtemp(prefix="pa-bench.", dir=os.environ.get("BENCH_TMP"))
    summary = []
    log("benchmarks of %s, %s, %d CPUs, kernel %s" %
        (a.build, time.strftime("%Y-%m-%d %H:%M"), os.cpu_count(), os.uname().release))
    try:
        if "overhead" in only:
            bench_overhead(a, tmp, summary)
        if "erprint" in only:
            bench_erprint(a, tmp, summary)
    finally:
        if a.keep:
            log("experiments kept in %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    log("")
    log("== summary (%s)" % time.strftime("%Y-%m-%d %H:%M"))
    w = max(len(s[0]) for s in summary) if summary else 10
    log("  %-*s  %12s  %8s  %s" % (w, "benchmark", "measured", "target", "met"))
    log("  " + "-" * (w + 30))
    for name, val, tgt, ok in summary:
        log("  %-*s  %12s  %8s  %s" % (w, name, val, tgt, "" if ok is None else ("yes" if ok else "NO")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
