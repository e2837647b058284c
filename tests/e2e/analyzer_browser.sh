#!/usr/bin/env bash
# The analyzer's page in a real browser: Debian's chromium, headless, driven by
# playwright-core (tests/tools/js/analyzer_page.mjs) on an experiment of
# tests/fixtures/export_prog.c with heap data.  Asserted: the function list shows
# er_print's functions in er_print's order and its <Total> CPU time; search narrows
# it; a click on Name sorts by name; a click on spin_until selects it and the
# Callers-Callees view shows er_print's callers (hot, warm); the Call Tree view opens
# er_print's hottest call path and closes the rest, a triangle closes and reopens a node and a
# click selects its function; the Source view its file
# with er_print's hot lines marked and, after the metric list e.%totalcpu:name is applied,
# the Disassembly view as many hot instructions as er_print's; a click on hot in the
# flame graph zooms into it (it then fills the width), selects it and the server re-roots the
# graph at its call path; the wheel zooms the timeline in around the pointer and the server
# sends that window's marks, shift-drag pans it, Reset shows the whole run; a drag over the
# timeline selects a time range and the function list's <Total> becomes the CPU of the
# samples in it, then the whole run's again; the Heap view shows er_print's leaks and
# heapstat's peak (also marked on the timeline), its live heap chart draws a line and marks
# heapstat's peak with a red dot labelled with its bytes and time (the API's peak), a click on a
# leak selects its leaf function;
# the Overview's metric chooser shows the current list, and a choice (e%totalcpu:i.heapleakbytes)
# becomes the Functions view's list with er_print's rows and <Total>; no page error.  On a process tree
# (tests/fixtures/desc_tree.c tree3): the Experiments view shows er_print's process tree,
# the Threads view its threads, the Timeline a labelled row per process above its lanes.  On a
# heap-traced parent and child (tests/fixtures/heap_fork.c): the Heap view's chart has a line and a
# legend entry per process and heapstat's peak labelled.  On the process tree (one side) the
# Compare view says compare needs two.  On two runs of tests/fixtures/compare_work.c: a filter typed in the filter bar makes the
# function list's <Total> er_print -filters' and is named in the view's title, a bad one is an
# error naming its column, Clear restores the list, a click on a thread filters on it, and the
# Compare view shows er_print -compare on/delta/ratio's rows cell for cell, a column per side.
# With the browser (a fake xdg-open recording what it is given): the file:// URL it gets
# opens the analyzer's page in chromium, the token's cookie set.
# Screenshots of each step: $PA_BUILD/test-logs/analyzer_browser/*.png.
. "$(dirname "$0")/analyzer_lib.sh" analyzer_browser
js=$PA_TOP/tests/tools/js
[[ -d $js/node_modules/playwright-core ]] ||
	{ echo "playwright-core missing in $js: run make deps (scripts/setup-deps.sh)"; exit 1; }
command -v chromium >/dev/null || { echo "chromium missing: run make deps (scripts/setup-deps.sh)"; exit 1; }
shots=$PA_BUILD/test-logs/analyzer_browser
rm -rf "$shots" && mkdir -p "$shots"
echo "# screenshots in $shots"

# What the page must show, from er_print: its default function list and the callers of spin_until
"$er_print" -printmode json -functions h.er >erp.json
"$er_print" -metrics a.totalcpu:name -csingle spin_until h.er |
	awk '/== Callers/ { f = 1; next } /^$/ { f = 0 } f { print $NF }' >callers.er
# its annotated source's hot lines ("##": value, percent, "NN.", text)
"$er_print" -metrics e.%totalcpu:name -source spin_until h.er | awk '/^##/ { sub(/\.$/, "", $4); print $4 }' >hot.er
# its call tree: the first path down (each line deeper than the one before), and the node count
"$er_print" -metrics a.totalcpu:name -calltree h.er | awk '/\+-/ { print index($0, "+-"), $NF }' >tree.er
awk 'NR > 1 && $1 <= d { exit } { d = $1; sub(/^\+-/, "", $2); print $2 }' tree.er >hotpath.er
hot_insns=$("$er_print" -metrics e.%totalcpu:name -disasm spin_until h.er | grep -c '^##')
# its leaks ("instances bytes leaf") and heapstat's peak
"$er_print" -leaks h.er | awk '/^Leak #/ { gsub(/,/, ""); c = $5; b = $NF; getline; print c, b, $1 }' >leaks.er
read -r peak peak_s < <("$er_print" -heapstat h.er | awk '/^Heap size bytes/ { b = $NF } /^Time of peak/ { t = $(NF - 1) } END { print b, t }')
# the function list of the metric list the test chooses in the Overview (sorted by name: the
# page keeps the sort the test clicked)
"$er_print" -metrics e%totalcpu:i.heapleakbytes:name -sort name -printmode json -functions h.er >chosen.json
python3 - erp.json callers.er hot.er "$hot_insns" hotpath.er tree.er leaks.er "$peak" "$peak_s" chosen.json >expect.json <<'PY'
import json, sys
def chooser(path):
    r = next(json.loads(l) for l in open(path) if l.startswith("{") and json.loads(l)["report"] == "functions")["tables"][0]["rows"]
    return {"spec": "e%totalcpu:i.heapleakbytes:name", "names": [x["name"] for x in r],
            "total": ["%.2f" % (100.0 if r[0]["e.totalcpu"] else 0), str(r[0]["i.heapleakbytes"]), "<Total>"]}
rep = next(json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["report"] == "functions")
rows = rep["tables"][0]["rows"]
print(json.dumps({"names": [r["name"] for r in rows], "total_cpu": "%.3f" % (rows[0]["e.totalcpu"] / 1e9),
                  "func": "spin_until", "callers": open(sys.argv[2]).read().split(), "zoom": "hot",
                  "hot_lines": [int(x) for x in open(sys.argv[3]).read().split()], "file": "export_prog.c",
                  "metrics": "e.%totalcpu:name", "hot_insns": int(sys.argv[4]),
                  "hot_path": open(sys.argv[5]).read().split(), "tree_nodes": len(open(sys.argv[6]).readlines()),
                  "leaks": [[int(a), int(b), c] for a, b, c in (l.split() for l in open(sys.argv[7]))],
                  "peak_bytes": int(sys.argv[8]), "peak_s": sys.argv[9],
                  "chooser": chooser(sys.argv[10])}))
PY
check "er_print's expectations ($(head -c 200 expect.json))" grep -q '"callers": \["hot", "warm"\]' expect.json
check "er_print's hottest call path ($(tr '\n' ' ' <hotpath.er))" grep -qx spin_until hotpath.er
check "er_print's leaks ($(tr '\n' ' ' <leaks.er)), peak $peak bytes" eval '[[ -s leaks.er && $peak -gt 0 ]]'
check "er_print marks hot source lines ($(tr '\n' ' ' <hot.er))" test -s hot.er
check "starts and prints its URL" start_analyzer h.er
(cd "$js" && node analyzer_page.mjs "$url" "$tmp/expect.json" "$shots") >page.log 2>&1
rc=$?
cat page.log
check "the page passes its checks in chromium (exit $rc)" test "$rc" = 0
for s in functions callers calltree source disasm flame flame-zoomed timeline-zoomed timeline functions-range heap \
	heap-chart chooser functions-chosen; do
	check "screenshot $s.png" test -s "$shots/$s.png"
done
stop_analyzer TERM
check "SIGTERM: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0

# a process tree: the Experiments, Threads and Timeline views (tests/tools/js/analyzer_procs.mjs)
check "d.er: a founder with two descendants" desc_experiment
"$er_print" -thread_list d.er | awk '/^Thread +TID/ { f = 1; next } f && /^ *[0-9]/ { print $2 } /^$/ { f = 0 }' >d.tids
python3 -c 'import json, sys; print(json.dumps({"tree": [list(map(int, l.split())) for l in open(sys.argv[1])],
  "tids": [int(x) for x in open(sys.argv[2]).read().split()]}))' d.tree d.tids >dexpect.json
check "er_print's threads of d.er ($(tr '\n' ' ' <d.tids))" test "$(wc -l <d.tids)" = 3
check "starts on d.er" start_analyzer d.er
(cd "$js" && node analyzer_procs.mjs "$url" "$tmp/dexpect.json" "$shots") >procs.log 2>&1
rc=$?
cat procs.log
check "the process views pass their checks in chromium (exit $rc)" test "$rc" = 0
for s in experiments threads timeline-processes; do
	check "screenshot $s.png" test -s "$shots/$s.png"
done
stop_analyzer TERM
check "d.er: SIGTERM: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0

# a heap-traced process tree: the Heap view's chart (tests/tools/js/analyzer_heap.mjs)
check "f.er: a heap-traced parent and child" heap_fork_experiment
read -r fpeak fpeak_s < <("$er_print" -heapstat f.er | awk '/^Heap size bytes/ { b = $NF } /^Time of peak/ { t = $(NF - 1) } END { print b, t }')
"$er_print" -header f.er | awk '/^Process tree:/ { f = 1; next } f && / pid / { for (i = 1; i < NF; i++) if ($i == "pid") { print $(i + 1); break } }
	f && !/ pid / { f = 0 }' >f.pids
python3 -c 'import json, sys; print(json.dumps({"pids": [int(x) for x in open(sys.argv[1]).read().split()],
  "peak_bytes": int(sys.argv[2]), "peak_s": sys.argv[3]}))' f.pids "$fpeak" "$fpeak_s" >fexpect.json
check "er_print's processes of f.er ($(tr '\n' ' ' <f.pids)) and peak ($fpeak bytes at $fpeak_s s)" \
	eval '[[ $(wc -l <f.pids) == 2 && $fpeak -gt 0 ]]'
check "starts on f.er" start_analyzer f.er
(cd "$js" && node analyzer_heap.mjs "$url" "$tmp/fexpect.json" "$shots") >heap.log 2>&1
rc=$?
cat heap.log
check "the heap chart of a process tree passes its checks in chromium (exit $rc)" test "$rc" = 0
check "screenshot heap-processes.png" test -s "$shots/heap-processes.png"
stop_analyzer TERM
check "f.er: SIGTERM: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0

# an I/O-traced run: the I/O view (tests/tools/js/analyzer_io.mjs)
cat >io.c <<'EOS'
#include <fcntl.h>
#include <unistd.h>
static char buf[4096];
int main(void)
{
	int fd = open("io.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	for (int i = 0; i < 8; i++)
		write(fd, buf, 512);
	close(fd);
	fd = open("io.dat", O_RDONLY);
	while (read(fd, buf, 1000) > 0)
		;
	return close(fd);
}
EOS
cc -O0 -g io.c -o io_prog && "$PA_BIN/collect" -i on -o i.er ./io_prog >/dev/null 2>&1
"$er_print" -metrics e.ioreadbytes:e.iowritebytes:name -ioactivity i.er |
	awk 'NR > 4 && NF >= 3 && $3 != "<Total>" { print $3, $1, $2 }' >i.files
python3 -c 'import json, sys
files = [[n, int(r), int(w)] for n, r, w in (l.split() for l in open(sys.argv[1]))]
print(json.dumps({"files": files, "stacks": int(sys.argv[2]), "writes": int(sys.argv[3])}))' i.files \
	"$("$er_print" -iocallstack i.er | grep -c '^Stack 0x')" \
	"$("$er_print" -iostat i.er | awk '/^Total calls/ { print $NF; exit }')" >iexpect.json
check "er_print's files of i.er ($(tr '\n' ';' <i.files))" test -s i.files
check "starts on i.er" start_analyzer i.er
(cd "$js" && node analyzer_io.mjs "$url" "$tmp/iexpect.json" "$shots") >io.log 2>&1
rc=$?
cat io.log
check "the I/O view passes its checks in chromium (exit $rc)" test "$rc" = 0
check "screenshot io-files.png" test -s "$shots/io-files.png"
stop_analyzer TERM
check "i.er: SIGTERM: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0

# the filter bar and the Compare view on two runs of tests/fixtures/compare_work.c
# (tests/tools/js/analyzer_filter.mjs)
cc -O0 -g -fno-omit-frame-pointer "$PA_TOP/tests/fixtures/compare_work.c" -o cwork &&
	"$collect" -o one.er ./cwork 1 >/dev/null 2>&1 && "$collect" -o two.er ./cwork 2 >/dev/null 2>&1
ctotal() { "$er_print" "$@" -functions one.er two.er | awk '$NF == "<Total>" { print $1; exit }'; }
for m in on delta ratio; do
	"$er_print" -compare $m -functions one.er two.er |
		awk '$NF == "<Total>" { f = 1 } f && NF == 0 { exit } f { print }' >cmp.$m
done
python3 -c 'import json, sys
def rows(path):
    out = []
    for l in open(path):
        t, cells = l.split(), []
        while t:
            x = t.pop(0)
            cells.append(x + " " + t.pop(0) if x == "x" else x)
        out.append(cells)
    return out
print(json.dumps({"total": sys.argv[1], "filter": "EXPID==2", "filtered": sys.argv[2], "thread": sys.argv[3],
  "compare": {m: rows("cmp." + m) for m in ("on", "delta", "ratio")}}))' \
	"$(ctotal)" "$(ctotal -filters EXPID==2)" "$(ctotal -filters 'EXPID==1 && THRID==1')" >cexpect.json
check "er_print's compare tables of one.er two.er ($(wc -l <cmp.on) rows)" eval '[[ $(wc -l <cmp.on) -gt 3 ]]'
check "starts on one.er two.er" start_analyzer one.er two.er
(cd "$js" && node analyzer_filter.mjs "$url" "$tmp/cexpect.json" "$shots") >filter.log 2>&1
rc=$?
cat filter.log
check "the filter bar and the Compare view pass their checks in chromium (exit $rc)" test "$rc" = 0
for s in filter-functions filter-error compare-on compare-delta compare-ratio; do
	check "screenshot $s.png" test -s "$shots/$s.png"
done
stop_analyzer TERM
check "one.er two.er: SIGTERM: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0

# opened as xdg-open opens it: the file:// URL of the private page (a fake xdg-open first on
# PATH records it), in chromium (tests/tools/js/analyzer_open.mjs)
mkdir -p fakebin && mkdir -m 700 run
cat >fakebin/xdg-open <<EOF
#!/bin/sh
printf '%s\\n' "\$1" >"$tmp/xdg.arg.tmp" && mv "$tmp/xdg.arg.tmp" "$tmp/xdg.arg"
EOF
chmod +x fakebin/xdg-open
PATH=$tmp/fakebin:$PATH XDG_RUNTIME_DIR=$tmp/run start_analyzer --browser c.er
check "starts with the browser" test -n "$url"
for ((i = 0; i < 100; i++)); do
	[[ -f xdg.arg ]] && break
	sleep 0.1
done
check "xdg-open is given a file:// URL ($(cat xdg.arg 2>&1))" grep -q '^file:///' xdg.arg
printf '{"base": "%s", "cookie": "pa_token_%s"}\n' "$base" "$port" >oexpect.json
(cd "$js" && node analyzer_open.mjs "$(cat "$tmp/xdg.arg")" "$tmp/oexpect.json" "$shots") >open.log 2>&1
rc=$?
cat open.log
check "the page given to xdg-open opens the analyzer in chromium (exit $rc)" test "$rc" = 0
check "screenshot opened.png" test -s "$shots/opened.png"
stop_analyzer TERM
check "c.er with the browser: SIGTERM: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0

echo "$checks checks, $failures failures"
((failures == 0))
