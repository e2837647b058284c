#!/usr/bin/env python3
"""mutate_files.py - file-level mutations of experiments, the part of the fuzz campaign that
libFuzzer's byte mutations cannot reach (issue 24): what a file *is* rather than what it says.

    tests/fuzz/mutate_files.py BIN_DIR MKEXP [-n MAX] [-o OUTDIR] [-q]

BIN_DIR holds er_print, er_archive, er_rm, er_cp and analyzer (the test build's, under ASan
and UBSan); MKEXP is tests/tools/mkexp of that build.  A few experiments are made with mkexp
(a clock profile; heap, sync and I/O traces; a descendant's subexperiment; the same with every
data file compressed to NAME.zst), then every file of each is in turn
  fifo      replaced by a FIFO (nobody writes to it)
  devzero   replaced by a link to /dev/zero
  outside   replaced by a link to a file outside the experiment holding a marker
  sparse    extended to 1 TiB (it costs no disk)
  bomb      (data files) replaced by a NAME.zst that declares 1 TiB, and one that does not
            declare its size and expands to 2 GiB
and each load object's path in map.xml by a FIFO, /dev/zero, a sparse file and a private
text file.  Each mutated experiment goes through er_print (-header -functions -lines
-source), er_archive -F -A copy (on a copy), er_rm and er_cp (on copies) and the analyzer's
start, each under a 20 s timeout.  A finding is a run that times out, dies of a signal,
prints a sanitizer report, peaks over 1 GiB of memory, shows the marker or copies the
private file's text, or (er_print, for the experiment's own files) refuses without naming
the file.  Prints one line: "mutations N runs N findings N seconds N"; -q only that.
Exit status 1 if there was a finding (each is listed, and kept in OUTDIR/findings/).
"""
import os
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

MARK = "PA-MUTATE-OUTSIDE"
SECRET = "PA-MUTATE-SECRET"
RSS_LIMIT_KB = 1 << 20
TIMEOUT = 20


def zst_bomb(declared, blocks):
    """A zstd frame of RLE blocks of 128 KiB of zeros, declaring `declared` bytes (0: none)."""
    hdr = b"\x28\xb5\x2f\xfd"
    hdr += bytes([0xC0, 0x38]) + struct.pack("<Q", declared) if declared else bytes([0x00, 0x38])
    body = bytearray()
    for i in range(blocks):
        body += struct.pack("<I", (131072 << 3) | 2 | (1 if i == blocks - 1 else 0))[:3] + b"\0"
    return hdr + bytes(body)


SCRIPTS = {
    "clock": """object {prog}
thread 100
thread 101 100
sample 100 300 10000000 work+10 slow+9 main+42
sample 101 100 10000000 work+20 fast+9 both+8 main+16
end 100 4000000000
end 101 1000000000
""",
    "traces": """object {prog}
thread 1
sample 1 50 10000000 work+4 slow+8 main+8
heap 1 malloc 100 0x1000 work+4 main+8
heap 1 free 0 0x1000 -
sync 1 pthread_mutex_lock 0x5000 2000000 work+4 main+8
iofile 3 3 open open /tmp/data.txt
io 1 read 3 3 100 0 1000 work+4 main+8
end 1 600000000
""",
}


def make_experiments(work, mkexp, prog):
    exps = []
    for name, script in SCRIPTS.items():
        path = os.path.join(work, "seed-%s.er" % name)
        subprocess.run([mkexp, path], input=script.format(prog=prog).encode(), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(os.path.join(path, "notes"), "w") as f:
            f.write("seed notes\n")
        exps.append(path)
    # a founder with a descendant: the clock experiment again as _f1.er, and processes.xml
    tree = os.path.join(work, "seed-tree.er")
    shutil.copytree(exps[0], tree, symlinks=True)
    shutil.copytree(exps[1], os.path.join(tree, "_f1.er"), symlinks=True)
    with open(os.path.join(tree, "processes.xml"), "w") as f:
        f.write('<process pid="4243" ppid="4242" lineage="_f1" origin="fork" followed="1" '
                'tstamp_ns="1000000200" path="%s"><arg>prog</arg></process>\n' % prog)
    exps.append(tree)
    # every data file compressed, as collect leaves them
    z = os.path.join(work, "seed-zst.er")
    shutil.copytree(exps[1], z, symlinks=True)
    for n in os.listdir(z):
        p = os.path.join(z, n)
        with open(p, "rb") as f:
            head = f.read(8)
        if head.startswith(b"PAEXPDAT"):
            subprocess.run(["zstd", "-q", "--rm", p, "-o", p + ".zst"], check=True)
    exps.append(z)
    return exps


def is_data(path):
    try:
        with open(path, "rb") as f:
            return f.read(5) == b"PAEXP"
    except OSError:
        return False


def mutations(seed, work, prog):
    """(label, function(dir) that mutates a copy of seed, the mutated file's name or None)."""
    out = []
    for root, _dirs, files in os.walk(seed):
        for n in sorted(files):
            rel = os.path.relpath(os.path.join(root, n), seed)
            full = os.path.join(seed, rel)
            data = is_data(full) or n.endswith(".zst")
            for how in ("fifo", "devzero", "outside", "sparse") + (("bomb", "bomb-undeclared") if data else ()):
                out.append(("%s:%s" % (rel, how), lambda d, rel=rel, how=how: mutate(d, rel, how, work), rel))
    for how in ("fifo", "devzero", "sparse", "secret"):
        out.append(("object:%s" % how, lambda d, how=how: mutate_object(d, how, work, prog), None))
    return out


def mutate(d, rel, how, work):
    p = os.path.join(d, rel)
    if how == "sparse":
        os.truncate(p, 1 << 40)
        return
    if how.startswith("bomb"):
        base = p[:-4] if p.endswith(".zst") else p
        os.unlink(p)
        with open(base + ".zst", "wb") as f:
            f.write(zst_bomb(1 << 40, 2) if how == "bomb" else zst_bomb(0, 16384))
        return
    os.unlink(p)
    if how == "fifo":
        os.mkfifo(p)
    elif how == "devzero":
        os.symlink("/dev/zero", p)
    else:
        os.symlink(os.path.join(work, "outside.xml"), p)


def mutate_object(d, how, work, prog):
    target = {"fifo": os.path.join(work, "obj.fifo"), "devzero": "/dev/zero",
              "sparse": os.path.join(work, "obj.sparse"), "secret": os.path.join(work, "obj.secret")}[how]
    for root, _dirs, files in os.walk(d):
        if "map.xml" in files:
            m = os.path.join(root, "map.xml")
            with open(m) as f:
                text = f.read()
            with open(m, "w") as f:
                f.write(text.replace('path="%s"' % prog, 'path="%s"' % target))


def run(cmd, env):
    """(exit status or 'timeout', output, peak RSS in KB) of cmd, in its own process group."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         env=env, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=TIMEOUT)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        rc = "timeout"
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return rc, out.decode("utf-8", "replace"), after if after > before else 0


def start_analyzer(binary, exp, env):
    """The analyzer must come up (print its URL) or exit by itself within the timeout: (0, output), or
    ('timeout' or the signal's negative number, output)."""
    p = subprocess.Popen([binary, "--no-browser", "--port", "0", exp], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, start_new_session=True)
    os.set_blocking(p.stdout.fileno(), False)
    deadline, seen = time.time() + TIMEOUT, b""
    while time.time() < deadline and p.poll() is None and b"Analyzer: http" not in seen:
        time.sleep(0.05)
        seen += p.stdout.read() or b""
    up = b"Analyzer: http" in seen
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    seen += p.stdout.read() or b""
    text = seen.decode("utf-8", "replace")
    if up or 0 <= p.returncode < 128:
        return 0, text
    return ("timeout" if p.returncode == -signal.SIGKILL else p.returncode), text


def main():
    args = sys.argv[1:]
    quiet = "-q" in args
    args = [a for a in args if a != "-q"]
    limit, outdir = None, None
    if "-n" in args:
        i = args.index("-n")
        limit = int(args[i + 1])
        del args[i:i + 2]
    if "-o" in args:
        i = args.index("-o")
        outdir = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    bindir, mkexp = args
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    work = tempfile.mkdtemp(prefix="pa-mutate.")
    outdir = outdir or os.path.join(work, "out")
    start = time.time()
    findings, runs, nmut = [], 0, 0
    try:
        prog = os.path.join(work, "prog")
        subprocess.run(["cc", "-O0", "-g", os.path.join(top, "tests/fixtures/cc_prog.c"), "-o", prog], check=True)
        with open(os.path.join(work, "outside.xml"), "w") as f:
            f.write('<?xml version="1.0"?>\n<experiment version="1.0"><comment>%s</comment></experiment>\n' % MARK)
        os.mkfifo(os.path.join(work, "obj.fifo"))
        with open(os.path.join(work, "obj.sparse"), "wb") as f:
            f.write(open(prog, "rb").read())
        os.truncate(os.path.join(work, "obj.sparse"), 1 << 40)
        with open(os.path.join(work, "obj.secret"), "w") as f:
            f.write("root:%s:19000:0:99999:7:::\n" % SECRET)
        os.chmod(os.path.join(work, "obj.secret"), 0o640)
        env = dict(os.environ, PA_CACHE_DIR=os.path.join(work, "cache"), PA_MAX_DATA_BYTES="256M",
                   HOME=os.path.join(work, "home"))
        seeds = make_experiments(work, mkexp, prog)
        for seed in seeds:
            for label, fn, rel in mutations(seed, work, prog):
                if limit is not None and nmut >= limit:
                    break
                nmut += 1
                name = "%s/%s" % (os.path.basename(seed), label)

                def fresh(dst, seed=seed, fn=fn):
                    """A copy of the seed, mutated (a mutated tree is never copied: FIFOs, 1 TiB files)."""
                    shutil.rmtree(dst, ignore_errors=True)
                    shutil.copytree(seed, dst, symlinks=True)
                    fn(dst)

                d = os.path.join(work, "m.er")
                fresh(d)
                problems = []
                for cmd_name, extra in (("er_archive", ["-F", "-A", "copy"]), ("er_rm", []), ("er_cp", [])):
                    c = os.path.join(work, "c.er")
                    fresh(c)
                    shutil.rmtree(os.path.join(work, "cp.er"), ignore_errors=True)
                    argv = [os.path.join(bindir, cmd_name)] + extra + [c]
                    if cmd_name == "er_cp":
                        argv.append(os.path.join(work, "cp.er"))
                    rc, out, rss = run(argv, env)
                    runs += 1
                    tools_problem(problems, cmd_name, rc, out, rss)
                    problems += secret_copies(cmd_name, [c, os.path.join(work, "cp.er"), env["PA_CACHE_DIR"]])
                    shutil.rmtree(c, ignore_errors=True)
                    shutil.rmtree(os.path.join(work, "cp.er"), ignore_errors=True)
                rc, out, rss = run([os.path.join(bindir, "er_print"), "-header", "-functions", "-lines", "-source",
                                    "work", d], env)
                runs += 1
                tools_problem(problems, "er_print", rc, out, rss)
                if rel and os.path.basename(rel.replace(".zst", "")) not in out:
                    problems.append("er_print: its output does not name %s" % rel)
                rc, out = start_analyzer(os.path.join(bindir, "analyzer"), d, env)
                runs += 1
                if rc != 0 or "Sanitizer" in out or MARK in out:
                    problems.append("analyzer: %s" % (rc if rc != 0 else "sanitizer report or marker"))
                if problems:
                    findings.append((name, problems))
                    keep = os.path.join(outdir, "findings", name.replace("/", "_").replace(":", "-"))
                    os.makedirs(os.path.dirname(keep), exist_ok=True)
                    fresh(keep)
    finally:
        shutil.rmtree(os.path.join(work, "m.er"), ignore_errors=True)
        if not findings:
            shutil.rmtree(work, ignore_errors=True)
    for name, problems in findings:
        if not quiet:
            print("FINDING %s: %s" % (name, "; ".join(problems)))
    print("mutations %d runs %d findings %d seconds %d" % (nmut, runs, len(findings), time.time() - start))
    return 1 if findings else 0


def secret_copies(tool, dirs):
    """Where the private file's text landed in dirs (regular files only; links are not followed)."""
    found = []
    for top in dirs:
        for root, _d, files in os.walk(top):
            for n in files:
                p = os.path.join(root, n)
                if os.path.isfile(p) and not os.path.islink(p) and os.path.getsize(p) < (64 << 20):
                    with open(p, "rb") as f:
                        if SECRET.encode() in f.read():
                            found.append("%s: the private file's text is in %s" % (tool, p))
    return found


def tools_problem(problems, tool, rc, out, rss):
    if rc == "timeout":
        problems.append("%s: still running after %d s" % (tool, TIMEOUT))
    elif rc < 0 or rc >= 128:
        problems.append("%s: died (%s)" % (tool, rc))
    if "Sanitizer" in out or "runtime error" in out:
        problems.append("%s: sanitizer report" % tool)
    if rss > RSS_LIMIT_KB:
        problems.append("%s: %d KB of memory" % (tool, rss))
    if MARK in out:
        problems.append("%s: showed the file outside the experiment" % tool)


if __name__ == "__main__":
    sys.exit(main())
