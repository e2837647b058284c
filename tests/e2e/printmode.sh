#!/usr/bin/env bash
# er_print printmode text|html|json|<character> on real experiments of
# tests/fixtures/export_prog.c (clock, and clock with collect -H on).  Asserted
# against the text reports of the same experiments (tests/tools/printmode_check.py):
#  - json: one object per report and line; the function list's columns keyed
#    e.totalcpu/i.totalcpu in ns, the sort column marked, <Total> = the column
#    total = the sum of exclusive times, each row's name and seconds those of the
#    text report; header, statistics, experiment_list, thread_list, leaks and
#    allocs typed (pids, ns, counts, bytes) and equal to what the text reports say;
#    csingle's rows in sections Callers / Stack Fragment / Callees;
#  - ';' and ',': gprofng's four header rows (V on the sort column, %%) and the
#    text report's cells;
#  - html: one well-formed table with the text report's cells;
#  - text after another mode is byte-identical to text before it;
#  - `printmode` alone says the mode; a bad mode is an error naming it.
. "$(dirname "$0")/export_lib.sh" printmode
pc=$PA_TOP/tests/tools/printmode_check.py

"$er_print" -functions c.er >f.txt
"$er_print" -printmode json -functions c.er >f.json
check "json functions ($(python3 "$pc" json f.txt f.json | grep FAIL))" python3 "$pc" json f.txt f.json
for d in ';' ','; do
	"$er_print" -printmode "$d" -functions c.er >f.delim
	check "'$d' functions ($(python3 "$pc" delim "$d" f.txt f.delim | grep FAIL))" python3 "$pc" delim "$d" f.txt f.delim
done
"$er_print" -printmode html -functions c.er >f.html
check "html functions ($(python3 "$pc" html f.txt f.html | grep FAIL))" python3 "$pc" html f.txt f.html

# text again after another mode, in one session
printf 'printmode json\nfunctions\nprintmode text\nfunctions\n' >script
"$er_print" -script script c.er >mixed
check "text after json is the text report" test "$(sed -n '/^Functions sorted/,$p' mixed | tail -n +1)" = \
	"$(sed -n '/^Functions sorted/,$p' f.txt)"
printf 'printmode ;\nprintmode\n' >script2
check "printmode alone says the mode" test "$("$er_print" -script script2 c.er)" = "printmode is set to \`;'"
printf 'printmode json\nheader 7\n' >script3
fails_with "json header of no such experiment" "header: no experiment '7'" -script script3 c.er
fails_with "bad printmode" "printmode: 'xy' is not text, html, json or a single delimiter character" -printmode xy -functions c.er

# the information and heap reports as typed json
"$er_print" -printmode json -header -statistics -experiment_list -thread_list -leaks -allocs -csingle allocs h.er >info.json
"$er_print" -statistics -thread_list -leaks -allocs h.er >info.txt
pid=$(sed -n 's/.*<collector_start pid="\([0-9]*\)".*/\1/p' h.er/log.xml)
cpu=$(total_row h.er e.totalcpu)
python3 - "$pid" "$cpu" info.json info.txt <<'PY' >py.out
import json, re, sys
pid, cpu, js, txt = int(sys.argv[1]), sys.argv[2], sys.argv[3], open(sys.argv[4]).read()
r = {o["report"]: o for o in map(json.loads, open(js))}
def ok(c, w): print(("ok: " if c else "FAIL: ") + w)
h = r["header"]["experiments"][0]
ok(h["pid"] == pid and h["argv"][0] == "./export_prog" and h["heap_tracing"] is True, "header: pid %d, argv, heap tracing" % h["pid"])
ok(h["ending"] == {"how": "exit", "status": 0} and h["complete"] is True and h["unprofiled_processes"] == 0,
   "header: exit status 0, complete, nothing unprofiled")
s = r["statistics"]["sum"]
ok("%.3f" % (s["cpu_recorded_ns"] / 1e9) == cpu.split()[0], "statistics: recorded CPU %d ns = <Total> %s s" % (s["cpu_recorded_ns"], cpu))
ok(all(isinstance(v, int) for v in s["counters"].values()) and "minor_page_faults" in s["counters"], "statistics: counters are integers")
ok(r["experiment_list"]["experiments"][0]["pid"] == pid, "experiment_list: the pid")
th = r["thread_list"]["threads"]
ok(len(th) == 1 and th[0]["selected"] is True and th[0]["tid"] == pid and th[0]["routine"] == "main"
   and th[0]["cpu_ns"] > 0, "thread_list: one thread, the main one, with its CPU time")
for rep, word in (("leaks", "Leaked"), ("allocs", "Allocated")):
    m = re.search(r"Summary Results: Distinct \w+ = (\d+), Total Instances = (\d+), Total Bytes %s = (\d+)" % word, txt)
    o = r[rep]
    ok(m and (o["distinct_stacks"], o["count"], o["bytes"]) == tuple(map(int, m.groups())),
       "%s: %d stacks, %d blocks, %d bytes as the text says" % (rep, o["distinct_stacks"], o["count"], o["bytes"]))
    ok(sum(x["bytes"] for x in o["stacks"]) == o["bytes"] and sum(x["count"] for x in o["stacks"]) == o["count"],
       "%s: the stacks sum to the totals" % rep)
    ok(all(x["frames"] and all("function" in f for f in x["frames"]) for x in o["stacks"]), "%s: every stack has frames" % rep)
ok(any(x["frames"][0]["function"] in ("malloc", "allocs") or any(f["function"] == "allocs" for f in x["frames"]) for x in r["allocs"]["stacks"]),
   "allocs: allocs is on an allocating stack")
cs = r["csingle"]["tables"][0]["rows"]
sec = [x["section"] for x in cs]
ok("Stack Fragment" in sec and [x["name"] for x in cs if x["section"] == "Stack Fragment"] == ["allocs"],
   "csingle: the stack fragment is allocs")
ok(all(isinstance(x["a.totalcpu"], int) for x in cs), "csingle: attributed CPU in ns")
PY
check "typed json reports: $(grep -c '^ok' py.out) ok ($(grep FAIL py.out))" eval '! grep -q FAIL py.out && grep -q ok py.out'

echo "$checks checks, $failures failures"
((failures == 0))
