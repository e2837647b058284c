#!/usr/bin/env python3
"""coverage.py [--build DIR] [--funcs N] - CPU coverage of a process tree.

Compiles a generated C file of N functions (default 700) with `gcc -O2 -c`
(driver -> cc1 -> as: three processes), side by side in one run:
  - plain: the tree's user+sys CPU from wait4 (what there is to record);
  - ours: `collect` (descendants followed by default): CPU recorded over the
    founder and every subexperiment (er_print -statistics), and the tree's
    wait4 user+sys as collect logged it;
  - perf: `perf record -e task-clock -c 10ms` (follows children): the sum of
    sample periods (perf script), if perf is installed;
  - gprofng: `gprofng collect app` (follows descendants by default): the
    recorded Total CPU of all its experiments (gprofng display text
    -functions), if installed.
Prints each one's recorded CPU and its ratio to the CPU that wait4 gave for
the same run (for perf and gprofng that includes the profiler's own
process), and the ratio to the plain run.  Prints only:
the machine is shared and noisy; nothing here is a pass/fail test.
"""
import argparse, os, re, shutil, subprocess, sys, tempfile, time

def wait4_cpu(cmd, cwd, env=None):
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if status != 0:
        sys.exit(f"coverage: {' '.join(cmd)} failed: {err.strip()[-500:]}")
    return ru.ru_utime + ru.ru_stime, time.monotonic() - t0

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--funcs", type=int, default=700)
    a = ap.parse_args()
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    bindir = os.path.join(top, a.build, "bin") if not os.path.isabs(a.build) else os.path.join(a.build, "bin")
    gcc = shutil.which("gcc")
    if not gcc:
        sys.exit("coverage: needs gcc")
    tmp = tempfile.mkdtemp(prefix="pa-bench-tree.")
    try:
        with open(os.path.join(tmp, "big.c"), "w") as f:
            for i in range(a.funcs):
                f.write(f"int f{i}(int *v, int n) {{ int s = {i}; for (int k = 0; k < n; k++) "
                        f"{{ s += v[k] * {i % 7 + 1}; if (s > {1000 + i}) s ^= v[(k + {i}) % n]; }} "
                        f"return s + (n > {i % 13} ? f{max(i - 1, 0)}(v, n - 1) : 0); }}\n")
        cc = [gcc, "-O2", "-c", "big.c", "-o", "big.o"]
        rows = []
        plain, wall = wait4_cpu(cc, tmp)
        rows.append(("plain (wait4 user+sys)", plain, plain, f"{wall:.2f} s wall"))

        env = dict(os.environ, PA_ARCHIVE="off")
        tree, wall = wait4_cpu([os.path.join(bindir, "collect"), "-o", "ours.er"] + cc, tmp, env)
        st = subprocess.run([os.path.join(bindir, "er_print"), "-statistics", "ours.er"], cwd=tmp,
                            capture_output=True, text=True).stdout
        rec = re.findall(r"Total CPU time recorded by clock profiling \(sec\.\):\s+([0-9.]+)", st)
        nsub = len([d for d in os.listdir(os.path.join(tmp, "ours.er")) if d.startswith("_") and d.endswith(".er")])
        rows.append(("ours: collect", float(rec[0]) if rec else 0.0, tree,
                     f"{nsub} subexperiments; {wall:.2f} s wall"))

        if shutil.which("perf"):
            cmd = ["perf", "record", "-q", "-e", "task-clock", "-c", "10000000", "-o", "perf.data"] + cc
            tree, wall = wait4_cpu(cmd, tmp)
            out = subprocess.run(["perf", "script", "-i", "perf.data", "-F", "comm,period"], cwd=tmp,
                                 capture_output=True, text=True).stdout
            total = sum(int(x.split()[-1]) for x in out.splitlines() if x.split() and x.split()[-1].isdigit())
            rows.append(("perf record -e task-clock", total / 1e9, tree,
                         f"10 ms period; tree s includes perf itself; {total / 1e9 / plain:.3f} of plain; "
                         f"{wall:.2f} s wall"))
        gp = shutil.which("gprofng")
        if gp:
            tree, wall = wait4_cpu([gp, "collect", "app", "-o", "gp.er", gcc] + cc[1:], tmp)
            out = subprocess.run([gp, "display", "text", "-functions", "gp.er"], cwd=tmp,
                                 capture_output=True, text=True).stdout
            m = re.search(r"^\s*([0-9.]+)\s.*<Total>", out, re.M)
            got = float(m.group(1)) if m else 0.0
            rows.append(("gprofng collect app", got, tree,
                         f"-F on; {got / plain:.3f} of plain; {wall:.2f} s wall"))

        print(f"== CPU coverage of `gcc -O2 -c big.c` ({a.funcs} functions): recorded CPU / the tree's user+sys")
        print(f"{'profiler':<28} {'recorded s':>10} {'tree s':>8} {'coverage':>9}  note")
        for name, got, base, note in rows:
            print(f"{name:<28} {got:10.3f} {base:8.3f} {got / base if base else 0:9.3f}  {note}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

if __name__ == "__main__":
    main()
