#!/usr/bin/env python3
"""export_json_check.py FORMAT FILE - check one of er_print's JSON exports
(FORMAT speedscope, chrome or firefox) against the rules of its format and
print what it carries, one "key value" line each, for tests/e2e/export_*.sh
to compare with er_print's own reports:

  cpu_ns N          CPU time, nanoseconds (sum over every thread)
  cpu_slack_ns N    (chrome) how far cpu_ns may be from the exact CPU time: slices are
                    whole microseconds, rounded down at both ends (1000 per root slice)
  alloc_count N     heap allocations      (formats and metrics that carry them)
  alloc_bytes N     bytes allocated
  leak_count N      leaked blocks
  leak_bytes N      bytes leaked
  top_cpu NAME      the function with the most exclusive CPU time
  top_alloc NAME    the function that allocated the most bytes
  threads N         threads with CPU time
  thread TID NAMES  the functions on that thread's CPU stacks, ';'-joined, sorted

The rules checked are those the format's readers rely on (speedscope's
file-format-spec.ts; Chrome's trace-event format as Perfetto reads it: X
events nested per thread; the Gecko profile format of the Firefox Profiler's
src/types/gecko-profile.ts).  Any violation: a message and exit 1.
Numbers are read exactly (decimal), so sums are exact.
"""
import collections
import decimal
import json
import sys

D = decimal.Decimal


def fail(msg):
    print("export_json_check: " + msg, file=sys.stderr)
    sys.exit(1)


def need(cond, msg):
    if not cond:
        fail(msg)


def top(sums):
    return max(sums.items(), key=lambda kv: (kv[1], kv[0]))[0] if sums else "-"


def speedscope(doc, out):
    frames = doc["shared"]["frames"]
    need(all(isinstance(f.get("name"), str) and f["name"] for f in frames), "a frame without a name")
    kinds = {"Total CPU Time": ("cpu_ns", "nanoseconds"), "User CPU Time": ("user_ns", "nanoseconds"),
             "System CPU Time": ("system_ns", "nanoseconds"), "Allocations": ("alloc_count", "none"),
             "Bytes Allocated": ("alloc_bytes", "bytes"), "Leaks": ("leak_count", "none"),
             "Bytes Leaked": ("leak_bytes", "bytes")}
    need(doc["profiles"], "no profiles")
    self_cpu, self_bytes = collections.Counter(), collections.Counter()
    per_thread = collections.defaultdict(set)
    for p in doc["profiles"]:
        need(p["type"] == "sampled", "profile %r is not sampled" % p["name"])
        metric, thread = p["name"].split(" - ", 1)
        need(metric in kinds, "profile %r: unknown metric" % p["name"])
        key, unit = kinds[metric]
        need(p["unit"] == unit, "profile %r: unit %s, expected %s" % (p["name"], p["unit"], unit))
        need(len(p["samples"]) == len(p["weights"]), "profile %r: samples and weights differ" % p["name"])
        need(all(w > 0 and w == int(w) for w in p["weights"]), "profile %r: a weight not a positive integer" % p["name"])
        need(p["startValue"] == 0 and p["endValue"] == sum(p["weights"]),
             "profile %r: endValue is not the sum of the weights" % p["name"])
        for s, w in zip(p["samples"], p["weights"]):
            need(s and all(0 <= i < len(frames) for i in s), "profile %r: bad frame index" % p["name"])
            leaf = frames[s[-1]]["name"]
            if key == "cpu_ns":
                self_cpu[leaf] += w
                per_thread[thread.rsplit("(tid ", 1)[1].rstrip(")")].update(frames[i]["name"] for i in s)
            elif key == "alloc_bytes":
                self_bytes[leaf] += w
        out[key] = out.get(key, 0) + int(sum(p["weights"]))
    if "user_ns" in out or "system_ns" in out:  # format 1.10's split adds up to the total
        need(out.get("user_ns", 0) + out.get("system_ns", 0) == out.get("cpu_ns", 0),
             "User CPU + System CPU differ from Total CPU")
    return self_cpu, self_bytes, per_thread


def x_events_nested(events, tid, self_time):
    """Per thread, X events must nest (Perfetto's rule): no partial overlap.
    Returns the root slices' total duration; adds exclusive times to self_time."""
    evs = sorted(events, key=lambda e: (e["ts"], -e["dur"]))
    stack, roots, nroots = [], 0, 0  # stack: [end, name] of the open slices
    for e in evs:
        end = e["ts"] + e["dur"]
        while stack and stack[-1][0] <= e["ts"]:
            stack.pop()
        need(not stack or end <= stack[-1][0], "tid %s: X event %r at %s overlaps its parent" % (tid, e["name"], e["ts"]))
        if stack:
            self_time[stack[-1][1]] -= e["dur"]
        else:
            roots += e["dur"]
            nroots += 1
        self_time[e["name"]] += e["dur"]
        stack.append([end, e["name"]])
    return roots, nroots


def chrome(doc, out):
    evs = doc["traceEvents"]
    need(isinstance(evs, list) and evs, "traceEvents is not a non-empty array")
    named_pids = {e["pid"] for e in evs if e["ph"] == "M" and e["name"] == "process_name"}
    named_tids = {(e["pid"], e["tid"]) for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}
    by_thread = collections.defaultdict(list)
    self_cpu, self_bytes = collections.Counter(), collections.Counter()
    per_thread = collections.defaultdict(set)
    last_counter = {}
    for e in evs:
        need(e["ph"] in "MXiC", "unexpected phase %r" % e["ph"])
        if e["ph"] == "M":
            continue
        need(e["pid"] in named_pids and (e["pid"], e["tid"]) in named_tids, "event of an unnamed process or thread")
        need(isinstance(e["ts"], int) and e["ts"] >= 0, "ts is not whole microseconds")
        if e["ph"] == "X":
            need(isinstance(e["dur"], int) and e["dur"] >= 0, "X event without a whole dur")
            by_thread[e["tid"]].append(e)
            per_thread[str(e["tid"])].add(e["name"])
        elif e["ph"] == "i" and e["name"].startswith("Leak: "):
            out["leak_bytes"] = out.get("leak_bytes", 0) + e["args"]["bytes"]
            out["leak_count"] = out.get("leak_count", 0) + e["args"]["blocks"]
        elif e["ph"] == "i":
            need(e["args"]["stack"].split(";")[-1] == e["name"], "allocation named after another function than its leaf")
            out["alloc_bytes"] = out.get("alloc_bytes", 0) + e["args"]["bytes"]
            out["alloc_count"] = out.get("alloc_count", 0) + 1
            self_bytes[e["name"]] += e["args"]["bytes"]
        else:
            prev = last_counter.get(e["pid"], (0, 0))
            cur = (e["args"]["bytes"], e["args"]["allocations"])
            need(cur[0] >= prev[0] and cur[1] == prev[1] + 1, "Heap allocated counter does not count up")
            last_counter[e["pid"]] = cur
    if by_thread:
        out["cpu_ns"] = out["cpu_slack_ns"] = 0
    for tid, xs in by_thread.items():
        roots, nroots = x_events_nested(xs, tid, self_cpu)
        out["cpu_ns"] += roots * 1000
        out["cpu_slack_ns"] += nroots * 1000
    if last_counter:
        need(sum(b for b, _ in last_counter.values()) == out.get("alloc_bytes", 0) and
             sum(n for _, n in last_counter.values()) == out.get("alloc_count", 0),
             "the Heap allocated counters' last values are not the allocation totals")
    return self_cpu, self_bytes, per_thread


def table(t, name):
    """A Gecko schema+data table as a list of dicts; the schema's indexes must be 0..n-1."""
    schema = t["schema"]
    need(sorted(schema.values()) == list(range(len(schema))), name + ": schema indexes are not 0..n-1")
    rows = []
    for r in t["data"]:
        need(isinstance(r, list) and len(r) <= len(schema), name + ": a row longer than the schema")
        rows.append({k: (r[i] if i < len(r) else None) for k, i in schema.items()})
    return rows


def firefox(doc, out):
    meta = doc["meta"]
    need(isinstance(meta["version"], int) and meta["version"] >= 1, "meta.version")
    for k in ("startTime", "interval", "categories", "markerSchema", "processType"):
        need(k in meta, "meta." + k + " missing")
    need(meta.get("sampleUnits", {}).get("threadCPUDelta") == "ns", "meta.sampleUnits.threadCPUDelta is not ns")
    need(all("name" in c and "color" in c and c.get("subcategories") for c in meta["categories"]), "meta.categories")
    for k in ("libs", "threads", "processes", "pausedRanges"):
        need(isinstance(doc[k], list), k + " is not an array")
    self_cpu, self_bytes = collections.Counter(), collections.Counter()
    per_thread = collections.defaultdict(set)
    for th in doc["threads"]:
        for k in ("name", "processType", "pid", "tid", "registerTime", "unregisterTime", "stringTable"):
            need(k in th, "thread." + k + " missing")
        strings = th["stringTable"]
        frames = table(th["frameTable"], "frameTable")
        stacks = table(th["stackTable"], "stackTable")
        samples = table(th["samples"], "samples")
        markers = table(th["markers"], "markers")
        for f in frames:
            need(0 <= f["location"] < len(strings), "frame location out of the string table")
            need(f["category"] is None or 0 <= f["category"] < len(meta["categories"]), "frame category")
        for i, s in enumerate(stacks):
            need(s["prefix"] is None or 0 <= s["prefix"] < i, "stack prefix is not an earlier stack")
            need(0 <= s["frame"] < len(frames), "stack frame out of the frame table")

        def names(si):
            r = []
            while si is not None:
                r.append(strings[frames[stacks[si]["frame"]]["location"]].rsplit(" (in ", 1)[0])
                si = stacks[si]["prefix"]
            return r[::-1]

        last = None
        for s in samples:
            need(s["stack"] is not None and 0 <= s["stack"] < len(stacks), "sample stack out of the stack table")
            need(last is None or s["time"] >= last, "samples not in time order")
            last = s["time"]
            need(s["threadCPUDelta"] is not None and s["threadCPUDelta"] > 0, "sample without threadCPUDelta")
            fr = names(s["stack"])
            self_cpu[fr[-1]] += s["threadCPUDelta"]
            per_thread[str(th["tid"])].update(fr)
            out["cpu_ns"] = out.get("cpu_ns", 0) + int(s["threadCPUDelta"])
        for m in markers:
            need(0 <= m["name"] < len(strings), "marker name out of the string table")
            d = m["data"]
            if not d or d.get("type") != "Native allocation":
                continue
            ms = table(d["stack"]["samples"], "allocation stack")
            need(len(ms) == 1 and ms[0]["stack"] is not None, "allocation without a stack")
            self_bytes[names(ms[0]["stack"])[-1]] += d["size"]
            out["alloc_bytes"] = out.get("alloc_bytes", 0) + int(d["size"])
            out["alloc_count"] = out.get("alloc_count", 0) + 1
    return self_cpu, self_bytes, per_thread


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("speedscope", "chrome", "firefox"):
        fail("usage: export_json_check.py speedscope|chrome|firefox FILE")
    try:
        with open(sys.argv[2], "rb") as f:
            raw = f.read()
        doc = json.loads(raw.decode("utf-8"), parse_float=D)
    except (OSError, ValueError) as e:
        fail("%s: not a UTF-8 JSON document: %s" % (sys.argv[2], e))
    out = {}
    try:
        self_cpu, self_bytes, per_thread = globals()[sys.argv[1]](doc, out)
    except (KeyError, TypeError, IndexError, ValueError, AttributeError) as e:
        fail("%s: malformed (%s: %s)" % (sys.argv[2], type(e).__name__, e))
    for k in ("cpu_ns", "cpu_slack_ns", "alloc_count", "alloc_bytes", "leak_count", "leak_bytes"):
        if k in out:
            print(k, int(out[k]))
    print("top_cpu", top(self_cpu))
    print("top_alloc", top(self_bytes))
    print("threads", len(per_thread))
    for tid in sorted(per_thread):
        print("thread", tid, ";".join(sorted(per_thread[tid])))


main()
