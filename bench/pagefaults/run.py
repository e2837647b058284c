#!/usr/bin/env python3
"""The collector's own page faults (issue #26, item 4): a program run natively and under
`collect` (clock profiling, the default), each fault recorded by `perf record -e
minor-faults -c 1`; of the faults in the target's processes (every process of the tree
but collect itself), those taken by code of libcollector*.so are the collector's.  Printed
per program: the native run's faults, the profiled run's, the collector's, and their share
of the profiled run's (target: <= 10 %), then the collector's functions that fault most.
Programs: the python3 binary (sys.executable: not a pyenv shim, whose tree of bash
processes is benchmark 5's case) and a C++ program on libstdc++.  Needs perf; prints only.

    bench/pagefaults/run.py [BUILD] [--json=FILE]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = "import time\nt = time.time(); s = 0\nwhile time.time() - t < 1.0:\n    s += sum(i * i for i in range(1000))\n"
CXX = r'''#include <chrono>
#include <iostream>
#include <map>
#include <string>
int main() {
	auto t0 = std::chrono::steady_clock::now();
	std::map<std::string, long> m;
	long n = 0;
	while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1))
		m[std::to_string(n++ % 5000)] += n;
	std::cout << m.size() << "\n";
}
'''


def faults(cmd, work, perf_out):
    """{(comm, dso): faults} of cmd under perf record."""
    subprocess.run(["perf", "record", "-q", "-e", "minor-faults", "-c", "1", "-o", perf_out] + cmd, cwd=work,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                   env=dict(os.environ, PA_ARCHIVE="off"))
    out = subprocess.run(["perf", "report", "-i", perf_out, "--stdio", "-F", "sample,comm,dso,sym", "--sort",
                          "comm,dso,sym", "-g", "none"], capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[0].isdigit():
            rows.append((int(parts[0]), parts[1], parts[2], " ".join(parts[3:])))
    return rows


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--json=")]
    jout = [a[7:] for a in sys.argv[1:] if a.startswith("--json=")]
    build = os.path.abspath(args[0] if args else "build")
    shares = {}
    if not shutil.which("perf"):
        sys.exit("perf is not installed")
    work = tempfile.mkdtemp(prefix="pa-bench-pf.")
    try:
        with open(os.path.join(work, "w.py"), "w") as f:
            f.write(PY)
        with open(os.path.join(work, "cxx.cc"), "w") as f:
            f.write(CXX)
        subprocess.run(["g++", "-O2", "-g", "-o", os.path.join(work, "cxx"), os.path.join(work, "cxx.cc")], check=True)
        real_py = subprocess.run(["python3", "-c", "import sys; print(sys.executable)"], capture_output=True,
                                 text=True).stdout.strip()
        progs = [("python3", [real_py, "w.py"]), ("C++ libstdc++", ["./cxx"])]
        collect = os.path.join(build, "bin", "collect")
        print("%-18s %9s %9s %11s %7s  top collector functions" % ("program", "native", "profiled", "collector's",
                                                                    "share"))
        for name, cmd in progs:
            nat = sum(r[0] for r in faults(cmd, work, os.path.join(work, "n.data")))
            rows = faults([collect, "-o", "x.er"] + cmd, work, os.path.join(work, "p.data"))
            shutil.rmtree(os.path.join(work, "x.er"), ignore_errors=True)
            target = [r for r in rows if r[1] != "collect"]
            total = sum(r[0] for r in target)
            ours = [r for r in target if "libcollector" in r[2]]
            mine = sum(r[0] for r in ours)
            by_sym = {}
            for r in ours:
                by_sym[r[3]] = by_sym.get(r[3], 0) + r[0]
            top = ", ".join("%s %d" % (k.replace("[.] ", ""), v)
                            for k, v in sorted(by_sym.items(), key=lambda kv: -kv[1])[:4])
            print("%-18s %9d %9d %11d %6.1f%%  %s" % (name, nat, total, mine, 100.0 * mine / max(total, 1), top))
            shares[name] = mine / max(total, 1)
        print("target: the collector's share <= 10 %")
        if jout:
            with open(jout[0], "w") as f:
                json.dump(shares, f)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
