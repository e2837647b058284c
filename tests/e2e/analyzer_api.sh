#!/usr/bin/env bash
# The analyzer's server and JSON API on real experiments of tests/fixtures/export_prog.c
# (analyzer_lib.sh).  Asserted (what the program guarantees, no timings):
#  - it prints exactly one line, "Analyzer: http://127.0.0.1:PORT/?token=<32 hex>", and
#    listens on 127.0.0.1 only;
#  - refusals: no token or a wrong one 403, a foreign Host header or none 403, two Host or
#    two Origin headers 400, an Origin header other than http://127.0.0.1:PORT or
#    http://localhost:PORT 403 with a short text even with the cookie or the token (an
#    empty one, null, https, another port, a trailing slash), POST 405, a path outside its
#    assets 404; the token sets an HttpOnly SameSite=Strict cookie that is then enough;
#    Host localhost:PORT and either Origin are accepted;
#  - every endpoint answers one JSON object, and the figures are er_print's: <Total> and
#    the top function of the function list, the callers of spin_until (names and
#    attributed CPU), the call tree (er_print calltree's nodes, order and CPU), the flame
#    graph's root and self times, the timeline's events,
#    threads and experiments, heap tracing's leaks, allocations and peak (er_print's leaks,
#    allocs, heapstat) and the live heap over time (width=N: its peak heapstat's, its end
#    the bytes er_print says leaked); a bad argument is a 400/404 with a JSON error;
#  - it never writes to the experiment (the tree is unchanged: names, sizes, times,
#    contents), SIGTERM and SIGINT stop it with exit 0 (under ASan: nothing leaked);
#  - on a process tree (tests/fixtures/desc_tree.c tree3): er_print's process tree and
#    threads, a timeline lane per thread with its process; on a heap-traced one
#    (tests/fixtures/heap_fork.c): a live heap line per process, heapstat's peak, the sum; on
#    descendants that start late (desc_tree late: fork and exec after 0.3 s of CPU) one
#    time base: each descendant's
#    start offset is >= 0.3 s, its first sample comes at or after it, and a time range
#    t0/t1 on that base selects each process's samples in it;
#  - the flame graph, call tree and timeline asked again are the same bytes (kept replies),
#    with other windows and filters asked in between;
#  - the flame graph pruned (width: nodes below root / width dropped, counted in "pruned")
#    keeps the unpruned root total and the kept nodes' values; a root path re-roots it with
#    the unpruned node's value; the call tree pruned the same; the timeline's view v0/v1
#    keeps only its events;
#  - a missing or corrupt experiment, or a port in use, is an error naming it, exit 1.
. "$(dirname "$0")/analyzer_lib.sh" analyzer_api

snapshot() { find h.er -printf '%p %s %T@ %m\n' | sort; find h.er -type f -exec md5sum {} + | sort; }
snapshot >before
check "starts and prints its URL" start_analyzer h.er
check "exactly one line on stdout" test "$(wc -l <an.out)" = 1
listeners() { # the local addresses listening on $port (/proc/net/tcp*: state 0A), as hex
	awk -v p="$(printf ':%04X' "$port")" '$4 == "0A" && substr($2, length($2) - 4) == p { print $2 }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
}
check "listens on 127.0.0.1 only ($(listeners | tr '\n' ' '))" test "$(listeners)" = "$(printf '0100007F:%04X' "$port")"

code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
check "no token: 403" test "$(code "$base/")" = 403
check "no token on the API: 403" test "$(code "$base/api/overview")" = 403
check "a wrong token: 403" test "$(code "$base/?token=0123456789abcdef0123456789abcdef")" = 403
check "a wrong cookie: 403" test "$(code -b "pa_token_$port=0123456789abcdef0123456789abcdef" "$base/")" = 403
check "a foreign Host: 403" test "$(code -H "Host: attacker.example:$port" "$base/?token=$token")" = 403
check "a Host on another port: 403" test "$(code -H "Host: 127.0.0.1:1" "$base/?token=$token")" = 403
check "Host localhost:PORT: 200" test "$(code -H "Host: localhost:$port" "$base/?token=$token")" = 200
check "no Host header: 403" test "$(code -0 -H "Host:" "$base/?token=$token")" = 403
# a request as it is sent, two headers of a name at once (curl sends one): the status line
raw() { # HEADER_LINES...: GET /?token= with these header lines
	local h
	exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
	{ printf 'GET /?token=%s HTTP/1.1\r\n' "$token"; for h; do printf '%s\r\n' "$h"; done; printf 'Connection: close\r\n\r\n'; } >&3
	head -n 1 <&3 | tr -d '\r'
	exec 3<&-
}
check "two Host headers: 400" test "$(raw "Host: 127.0.0.1:$port" "Host: 127.0.0.1:$port")" = "HTTP/1.1 400 Bad Request"
check "two Origin headers: 400" test "$(raw "Host: 127.0.0.1:$port" "Origin: http://127.0.0.1:$port" \
	"Origin: http://127.0.0.1:$port")" = "HTTP/1.1 400 Bad Request"
check "Origin http://127.0.0.1:PORT: 200" test "$(code -H "Origin: http://127.0.0.1:$port" "$base/?token=$token")" = 200
check "Origin http://localhost:PORT: 200" test "$(code -H "Origin: http://localhost:$port" "$base/?token=$token")" = 200
for o in http://attacker.example "http://127.0.0.1:$port.attacker.example" "http://127.0.0.1:1" \
	"https://127.0.0.1:$port" "http://127.0.0.1:$port/" null; do
	curl -s -o body -w '%{http_code}' -H "Origin: $o" -b "pa_token_$port=$token" "$base/api/overview" >status
	check "a foreign Origin '$o' with the cookie: 403 ($(cat status)), a short text ($(head -c 80 body))" \
		eval '[[ $(cat status) == 403 ]] && (($(wc -c <body) < 100)) && ! grep -q "{" body'
done
check "an empty Origin header: 403" test "$(raw "Host: 127.0.0.1:$port" "Origin:")" = "HTTP/1.1 403 Forbidden"
check "a foreign Origin with the token on the page: 403" \
	test "$(code -H "Origin: http://attacker.example" "$base/?token=$token")" = 403
check "a foreign Origin on a POST: 403" test "$(code -X POST -H "Origin: http://attacker.example" "$base/?token=$token")" = 403
check "POST: 405" test "$(code -X POST "$base/?token=$token")" = 405
check "HEAD: 200" test "$(code -I "$base/?token=$token")" = 200
check "a path outside the assets: 404" test "$(code "$base/etc/passwd?token=$token")" = 404
check "a path with ..: 404" test "$(code --path-as-is "$base/../analyzer/web/app.js?token=$token")" = 404
check "an unknown endpoint: 404" test "$(code "$base/api/nothing?token=$token")" = 404
curl -s -D headers -o page.html "$base/?token=$token"
check "the token sets an HttpOnly SameSite=Strict cookie" \
	grep -qi "^Set-Cookie: pa_token_$port=$token; Path=/; HttpOnly; SameSite=Strict" headers
check "the page is served" grep -q '<script src="/app.js"' page.html
check "the cookie alone is enough for the assets" test "$(code -b "pa_token_$port=$token" "$base/app.js")" = 200

for e in overview "functions?metrics=e.totalcpu:i.totalcpu:i.heapallocbytes:name&sort=e.totalcpu" \
	"callers?func=1" "flame?metric=totalcpu" "flame?metric=heapallocbytes&inverted=1" \
	"timeline?metric=totalcpu" threads experiments calltree "calltree?sort=e.heapallocbytes"; do
	f=${e%%\?*}
	[[ $e == flame*inverted* ]] && f=flame_inv
	[[ $e == calltree\?* ]] && f=calltree_bytes
	get "api/$e" >"$f.json"
	check "/api/$e answers JSON" python3 -c 'import json, sys; o = json.load(open(sys.argv[1])); assert isinstance(o, dict) and "error" not in o' "$f.json"
done

# The function list against er_print
py() { python3 -c "import json, sys; $1" "${@:2}"; }
read -r cpu_s _ bytes < <(total_row h.er e.totalcpu:i.totalcpu:i.heapallocbytes)
total_ns=$(py 'r = json.load(open("functions.json"))["rows"][0]; assert r["name"] == "<Total>"; print(r["e.totalcpu"])')
check "<Total> CPU $total_ns ns = er_print's $cpu_s s" test "$(secs "$total_ns")" = "$cpu_s"
check "<Total> bytes = er_print's $bytes" \
	test "$(py 'print(json.load(open("functions.json"))["rows"][0]["i.heapallocbytes"])')" = "$bytes"
top=$(py 'print(json.load(open("functions.json"))["rows"][1]["name"])')
check "top function $top = er_print's $(top_function h.er)" test "$top" = "$(top_function h.er)"
check "the columns are typed" py 'c = json.load(open("functions.json"))["columns"]; assert [(x["key"], x["unit"]) for x in c] == [("e.totalcpu", "ns"), ("i.totalcpu", "ns"), ("i.heapallocbytes", "bytes")]'
# one schema (docs/json-schema.md#tables): the list is er_print's, with the analyzer's own keys beside
# (a row's "id", a column's "value", "spec" and "name")
schema_same() { # DESC ANALYZER_JSON ER_PRINT_JSON: the same columns and rows but the analyzer's keys
	check "$1" py '
an = json.load(open(sys.argv[1])); er = json.load(open(sys.argv[2]))["tables"][0]
strip = lambda xs, keys: [{k: v for k, v in x.items() if k not in keys} for x in xs]
assert strip(an["columns"], ("value", "spec", "name")) == er["columns"], (an["columns"], er["columns"])
assert strip(an["rows"], ("id",)) == er["rows"], [(a, b) for a, b in zip(strip(an["rows"], ("id",)), er["rows"]) if a != b][:3]' "$2" "$3"
}
get "api/functions?metrics=e.%25totalcpu:i.totalcpu:size:address:name&sort=i.totalcpu" >fl.json
# (the metrics and sort commands' echoes come first)
"$er_print" -metrics e.%totalcpu:i.totalcpu:size:address:name -sort i.totalcpu -printmode json -functions h.er |
	tail -1 >fl.er.json
schema_same "/api/functions = er_print -printmode json -functions but the analyzer's keys" fl.json fl.er.json
get "api/functions?sort=name" >byname.json
check "sort=name orders by name" py 'r = [x["name"] for x in json.load(open("byname.json"))["rows"][1:]]; assert r == sorted(r), r[:5]'

# Callers of spin_until against er_print's csingle
sid=$(py 'print(next(r["id"] for r in json.load(open("functions.json"))["rows"] if r["name"] == "spin_until"))')
get "api/callers?func=$sid" >callers.json
"$er_print" -metrics a.totalcpu:name -csingle spin_until h.er |
	awk '/== Callers/ { f = 1; next } /^$/ { f = 0 } f { print $NF, $1 }' | sort >callers.er
py 'c = json.load(open("callers.json")); [print(e["name"], "%.3f" % (e["a.totalcpu"] / 1e9)) for e in c["rows"] if e["section"] == "Callers"]' |
	sort >callers.an
check "callers of spin_until: $(tr '\n' ' ' <callers.an)= er_print's $(tr '\n' ' ' <callers.er)" cmp -s callers.an callers.er
check "callers are hot and warm" test "$(cut -d' ' -f1 callers.an | tr '\n' ' ')" = "hot warm "
attr=$(py 'print(":".join("a." + c["key"][2:] for c in json.load(open("callers.json"))["columns"]))')
"$er_print" -metrics "$attr:name" -printmode json -csingle spin_until h.er | tail -1 >callers.er.json
schema_same "/api/callers = er_print -printmode json -metrics $attr -csingle but the analyzer's keys" callers.json callers.er.json

# Flame graph: the root is <Total>; a node is its children plus its self; self sums to exclusive
check "flame: root value = <Total> CPU" py 'f = json.load(open("flame.json")); assert f["nodes"]["value"][0] == int(sys.argv[1])' "$total_ns"
check "flame: every node = its children + self" py '
n = json.load(open(sys.argv[1]))["nodes"]; kids = [0] * len(n["value"])
for i, p in enumerate(n["parent"][1:], 1): kids[p] += n["value"][i]
assert all(kids[i] + n["self"][i] == n["value"][i] for i in range(len(kids)))' flame.json
check "flame: the self time of $top = its exclusive CPU" py '
f = json.load(open("flame.json")); rows = json.load(open("functions.json"))["rows"]
fid = next(r["id"] for r in rows if r["name"] == sys.argv[1]); excl = next(r["e.totalcpu"] for r in rows if r["name"] == sys.argv[1])
s = sum(f["nodes"]["self"][i] for i in range(len(f["nodes"]["func"])) if f["functions"]["id"][f["nodes"]["func"][i]] == fid)
assert s == excl, (s, excl)' "$top"
check "flame inverted: the roots' children are leaves (allocs first by bytes)" py '
f = json.load(open("flame_inv.json")); n = f["nodes"]
kids = [i for i, p in enumerate(n["parent"]) if p == 0]
names = {f["functions"]["name"][n["func"][i]]: n["value"][i] for i in kids}
assert f["inverted"] and max(names, key=names.get) == "allocs" and names["allocs"] == 140960, names'
# Call tree against er_print's calltree: the same nodes in the same order (hottest first), the same
# attributed CPU; each node's value covers its children's; by bytes allocs comes first under main
"$er_print" -metrics a.totalcpu:name -calltree h.er |
	awk '{ i = index($0, "+-") } i { printf "%s %.3f\n", substr($0, i + 2), $1 }' >calltree.er
py 'c = json.load(open("calltree.json")); n = c["nodes"]; f = c["functions"]
[print(f["name"][n["func"][i]], "%.3f" % (n["values"][0][i] / 1e9)) for i in range(len(n["func"]))]' >calltree.an
# (CPU within er_print's rounding: it may round a value ending in 5 the other way; a name may
# have blanks, "@plt (<export_prog>)", when a sample lands in the PLT: each line is NAME VALUE)
check "calltree: er_print's nodes and CPU, in its order ($(wc -l <calltree.an) nodes; $(diff calltree.er calltree.an | head -c 300 | tr '\n' ' '))" py '
a = [l.rsplit(None, 1) for l in open("calltree.an")]; e = [l.rsplit(None, 1) for l in open("calltree.er")]
assert a and [x[0] for x in a] == [x[0] for x in e]
assert all(abs(float(x[1]) - float(y[1])) < 0.0015 for x, y in zip(a, e))'
check "calltree: root <Total> = its CPU, every node >= the sum of its children" py '
c = json.load(open(sys.argv[1])); n = c["nodes"]; v = n["values"]
assert c["sort_metric"] == "totalcpu" and n["parent"][0] == 4294967295 and v[0][0] == int(sys.argv[2])
for m in range(len(v)):
    kids = [0] * len(n["parent"])
    for i, p in enumerate(n["parent"][1:], 1): kids[p] += v[m][i]
    assert all(kids[i] <= v[m][i] for i in range(len(kids))), m
assert all(n["parent"][i] < i for i in range(1, len(n["parent"])))' calltree.json "$total_ns"
check "calltree sorted by e.heapallocbytes: allocs before outer under main" py '
c = json.load(open("calltree_bytes.json")); n = c["nodes"]; f = c["functions"]
name = lambda i: f["name"][n["func"][i]]
main = next(i for i in range(len(n["func"])) if name(i) == "main")
kids = [name(i) for i in range(len(n["func"])) if n["parent"][i] == main]
assert c["sort_metric"] == "heapallocbytes" and kids.index("allocs") < kids.index("outer"), kids'
check "timeline: the events sum to <Total> CPU, in the run, on its one thread" py '
t = json.load(open("timeline.json")); e = t["events"]
assert sum(e["value"]) == int(sys.argv[1]) and len(t["lanes"]) == 1
assert all(0 <= x <= t["duration_ns"] for x in e["t"]) and set(e["lane"]) == {0}
assert len(e["t"]) == len(e["leaf"]) == len(e["value"]) > 0' "$total_ns"
check "threads: er_print's thread list" test "$(py 'print(len(json.load(open("threads.json"))["threads"]))')" = \
	"$("$er_print" -thread_list h.er | awk '/^Thread +TID/ { f = 1; next } f && /^ *[0-9]/ { n++ } END { print n }')"
check "experiments: one, exit 0" py 'x = json.load(open("experiments.json"))["experiments"]; assert len(x) == 1 and x[0]["ending"] == {"how": "exit", "status": 0} and x[0]["experiment"] == "h.er"'
check "overview: the metric registry, typed" py '
o = json.load(open("overview.json")); m = {x["keyword"]: x["unit"] for x in o["metrics"]}
assert m == {"totalcpu": "ns", "user": "ns", "system": "ns", "heapalloccnt": "count", "heapallocbytes": "bytes", "heapleakcnt": "count", "heapleakbytes": "bytes"}, m
assert o["experiments"][0]["heap_tracing"] and o["statistics"]["cpu_recorded_ns"] > 0'
# one JSON schema (analysis/json_schema.h): the overview's header and statistics are er_print's
"$er_print" -printmode json -header -statistics h.er >erp.json
check "overview: the header and statistics are er_print -printmode json's, key for key" py '
o = json.load(open("overview.json")); r = [json.loads(l) for l in open("erp.json")]
h = next(x for x in r if x["report"] == "header"); s = next(x for x in r if x["report"] == "statistics")
assert o["schema"] == "1.0" and len(o["experiments"]) == len(h["experiments"]) == len(s["experiments"]) == 1
for i, x in enumerate(o["experiments"]):
    head = {k: v for k, v in x.items() if k not in ("id", "statistics")}
    stats = {k: v for k, v in s["experiments"][i].items() if k not in ("experiment", "selected")}
    assert x["id"] == i + 1 and head == h["experiments"][i], (head, h["experiments"][i])
    assert x["statistics"] == stats, (x["statistics"], stats)
assert o["statistics"] == s["sum"], (o["statistics"], s["sum"])'

get "api/source?func=$sid" >source.json
check "source: export_prog.c, a hot line in spin_until" py '
s = json.load(open("source.json")); assert s["file"].endswith("export_prog.c") and s["text_found"]
assert any(l["hot"] for l in s["lines"]) 
assert any("spin_until" in l["text"] for l in s["lines"][s["entry_line"] - 2:s["entry_line"]])'
get "api/disasm?func=$sid" >disasm.json
check "disasm: the instructions' exclusive CPU sums to spin_until's" py '
d = json.load(open("disasm.json")); rows = json.load(open("functions.json"))["rows"]
assert any(x["key"] == "e.totalcpu" for x in d["columns"])
s = sum(r["e.totalcpu"] for r in d["rows"] if r["kind"] == "insn")
assert s == next(r["e.totalcpu"] for r in rows if r["name"] == "spin_until"), s'

# Heap: er_print's leaks, allocs and heapstat (blocks: instances, bytes, the stack's functions)
blocks() { # er_print -REPORT h.er as "count bytes frame frame ..." lines
	"$er_print" "-$1" h.er | awk '/^(Leak|Allocation) #/ { if (l) print l; gsub(/,/, ""); l = $5 " " $NF; next }
		/^  / && l { l = l " " $1 } /^$/ && l { print l; l = "" } END { if (l) print l }'
}
get api/heap >heap.json
blocks leaks >leaks.er
blocks allocs >allocs.er
py 'h = json.load(open("heap.json"))
for k, f in (("leaks", "leaks.an"), ("allocations", "allocs.an")):
    open(f, "w").write("".join("%d %d %s\n" % (x["count"], x["bytes"], " ".join(y["function"] for y in x["frames"])) for x in h[k]["stacks"]))'
check "heap: the leaks are er_print's ($(head -c 150 leaks.er))" eval '[[ -s leaks.er ]] && cmp -s leaks.an leaks.er'
check "heap: the allocations are er_print's ($(wc -l <allocs.er) stacks)" eval '[[ -s allocs.er ]] && cmp -s allocs.an allocs.er'
read -r distinct inst bytes < <("$er_print" -leaks h.er | sed -n 's/^Summary Results: Distinct Leaks = \([0-9]*\), Total Instances = \([0-9]*\), Total Bytes Leaked = \([0-9]*\)$/\1 \2 \3/p')
check "heap: leak totals = er_print's ($distinct distinct, $inst, $bytes bytes)" py '
h = json.load(open("heap.json")); assert (h["leaks"]["distinct_stacks"], h["summary"]["leak_count"], h["summary"]["leak_bytes"]) == tuple(map(int, sys.argv[1:4]))' "$distinct" "$inst" "$bytes"
read -r pbytes pexp ppid ptime < <("$er_print" -heapstat h.er | awk '/^Heap size bytes/ { b = $NF } /^Experiment Id/ { x = $NF } /^Process Id/ { p = $NF } /^Time of peak/ { t = $(NF - 1) } END { print b, x, p, t }')
check "heap: the peak is heapstat's ($pbytes bytes, experiment $pexp, pid $ppid, at $ptime s)" py '
p = json.load(open("heap.json"))["peak"]
assert (p["bytes"], p["experiment_id"], p["pid"], "%.3f" % (p["t_ns"] / 1e9)) == (int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]), p' "$pbytes" "$pexp" "$ppid" "$ptime"
check "heap: the stacks held at the peak add up to it" py '
h = json.load(open("heap.json")); assert sum(x["bytes"] for x in h["at_peak"]["stacks"]) == h["peak"]["bytes"] > 0'
# the live heap over time (width=N): its peak is heapstat's, it ends with er_print's leaked bytes,
# at most N + 1 points in time order, and the time selection leaves it alone
get "api/heap?width=200" >live.json
check "heap live: one line per process, its peak heapstat's ($pbytes bytes at $ptime s)" py '
l = json.load(open("live.json"))["live"]; x = l["experiments"]; p = json.load(open("heap.json"))["peak"]
assert l["width"] == 200 and [e["experiment_id"] for e in x] == [1] and x[0]["pid"] == p["pid"], l
pk = x[0]["peak"]
assert (pk["bytes"], "%.3f" % (pk["t"] / 1e9)) == (int(sys.argv[1]), sys.argv[2]) and pk["t"] == p["t_ns"], pk
assert l["total"]["peak"] == pk and l["total"]["series"] == x[0]["series"]' "$pbytes" "$ptime"
check "heap live: the line holds the peak, ends with the $bytes bytes leaked, <= 201 points in time order" py '
x = json.load(open("live.json"))["live"]["experiments"][0]; t, b = x["series"]["t"], x["series"]["bytes"]
assert 0 < len(t) == len(b) <= 201 and all(u < v for u, v in zip(t, t[1:])) and t[-1] <= x["span_ns"], t
assert max(b) == x["peak"]["bytes"] and (x["peak"]["t"], x["peak"]["bytes"]) in zip(t, b)
assert b[-1] == x["end_bytes"] == int(sys.argv[1]) and x["calls"] > 0' "$bytes"
get "api/heap?width=200&t0=0&t1=1000000" >livewin.json
check "heap live: a time selection leaves the line alone" py '
assert json.load(open("livewin.json"))["live"] == json.load(open("live.json"))["live"]'
get "api/heap?width=100000" >livefine.json
check "heap live: 100000 buckets, the same peak, more detail" py '
f = json.load(open("livefine.json"))["live"]["experiments"][0]; c = json.load(open("live.json"))["live"]["experiments"][0]
assert f["peak"] == c["peak"] and len(f["series"]["t"]) >= len(c["series"]["t"])'
check "heap: no width, no live line" py 'assert "live" not in json.load(open("heap.json"))'
get "api/heap?limit=1" >heap1.json
check "heap: limit=1 keeps one stack per list, the distinct counts stay" py '
h = json.load(open("heap1.json")); assert len(h["leaks"]["stacks"]) == 1 and h["leaks"]["distinct_stacks"] == int(sys.argv[1])' "$distinct"

# timeline downsampling: at most per_px events per lane and time bucket (duration / width), each
# one of the full timeline's, events_total the full count
get "api/timeline?metric=totalcpu&width=10&per_px=1" >tl10.json
get "api/timeline?metric=totalcpu&width=10&per_px=3" >tl30.json
check "timeline width=10: per_px events per bucket at most, all the full timeline's" py '
full = json.load(open("timeline.json")); fe = full["events"]; fn = full["functions"]["name"]
ev = set((fe["t"][k], fe["lane"][k], fn[fe["leaf"][k]], fe["value"][k]) for k in range(len(fe["t"])))
for f, per in (("tl10.json", 1), ("tl30.json", 3)):
    t = json.load(open(f)); e = t["events"]; d = t["duration_ns"]; names = t["functions"]["name"]
    assert t["events_total"] == len(fe["t"]) > 10 * per and t["downsampled"] == {"width": 10, "per_px": per}
    kept = [(e["t"][k], e["lane"][k], names[e["leaf"][k]], e["value"][k]) for k in range(len(e["t"]))]
    assert set(kept) <= ev and len(kept) == len(set(kept))
    buckets = {}
    for x in kept: b = min(int(x[0] / d * 10), 9); buckets[b] = buckets.get(b, 0) + 1
    assert 0 < len(kept) <= 10 * per and max(buckets.values()) <= per, buckets'
check "timeline: without width nothing is dropped" py 't = json.load(open("timeline.json")); assert t["events_total"] == len(t["events"]["t"]) and "downsampled" not in t'

# pruning: a flame graph at width W (<Total> / twice its smallest node: that one goes) keeps <Total>
# and the nodes of at least 1/W of it, each with its unpruned value; a root path re-roots it (its
# ancestors first); the call tree the same
w=$(py 'v = json.load(open("flame.json"))["nodes"]["value"]; print(max(1, v[0] // (2 * min(v))))')
get "api/flame?metric=totalcpu&width=$w" >flw.json
check "flame width=$w: the root total is the unpruned one, nodes >= total/$w kept, the rest counted" py '
full = json.load(open("flame.json")); p = json.load(open("flw.json")); fn, pn = full["nodes"], p["nodes"]
total = fn["value"][0]; w = int(sys.argv[1]); assert pn["value"][0] == total and p["root"] == 0
def paths(f):
    n = f["nodes"]; ids = f["functions"]["id"]; out = {}
    for i in range(len(n["value"])):
        out[i] = (out[n["parent"][i]] if i else ()) + ((ids[n["func"][i]],) if i else ())
    return {out[i]: n["value"][i] for i in out}
a, b = paths(full), paths(p)
want = {k: v for k, v in a.items() if all(a[k[:d]] * w >= total for d in range(len(k) + 1))}
assert b == want, (len(b), len(want))
assert p["pruned"] == len(a) - len(b) > 0 and all(pn["parent"][i] < i for i in range(1, len(pn["value"])))' "$w"
read -r rootpath rootval < <(py '
f = json.load(open("flame.json")); n = f["nodes"]; ids = f["functions"]["id"]
i = max((i for i in range(1, len(n["value"])) if n["parent"][i] and n["parent"][n["parent"][i]] == 0), key=lambda i: n["value"][i])
path = []
j = i
while j: path.insert(0, str(ids[n["func"][j]])); j = n["parent"][j]
print(",".join(path), n["value"][i])')
get "api/flame?metric=totalcpu&width=$w&root=$rootpath" >flroot.json
check "flame root=$rootpath: its ancestors first, then it with its unpruned value $rootval" py '
p = json.load(open("flroot.json")); n = p["nodes"]; ids = p["functions"]["id"]; r = p["root"]
assert r == 2 and n["value"][r] == int(sys.argv[2]) and n["parent"][:3] == [4294967295, 0, 1]
assert [str(ids[n["func"][i]]) for i in (1, 2)] == sys.argv[1].split(",")
assert all(n["parent"][i] >= r and n["value"][i] * int(sys.argv[3]) >= n["value"][r] for i in range(r + 1, len(n["value"])))' \
	"$rootpath" "$rootval" "$w"
get "api/calltree?width=$w" >ctw.json
check "calltree width=$w: the same root, only nodes >= total/$w (and their ancestors), the rest counted" py '
full = json.load(open("calltree.json")); p = json.load(open("ctw.json")); w = int(sys.argv[1])
fv, pv, fp = full["nodes"]["values"][0], p["nodes"]["values"][0], full["nodes"]["parent"]
keep = [True] * len(fv)
for i in range(1, len(fv)): keep[i] = keep[fp[i]] and fv[i] * w >= fv[0]
shown = [v for v, k in zip(fv, keep) if k]
assert pv[0] == fv[0] and p["pruned"] > 0 and pv == shown, (pv, shown)' "$w"
# the timeline's view: only the events of [v0, v1), bucketed over it
read -r v0 v1 vn < <(py '
e = json.load(open("timeline.json"))["events"]; t = sorted(e["t"]); a, b = t[len(t) // 3], t[2 * len(t) // 3]
print(a, b, sum(1 for x in t if a <= x < b))')
get "api/timeline?metric=totalcpu&v0=$v0&v1=$v1" >tlv.json
get "api/timeline?metric=totalcpu&v0=$v0&v1=$v1&width=5&per_px=1" >tlv5.json
check "timeline v0=$v0 v1=$v1: its $vn events, downsampled over the view" py '
a, b, n = map(int, sys.argv[1:4]); t = json.load(open("tlv.json")); d = json.load(open("tlv5.json"))
assert t["view"] == {"v0": a, "v1": b} and t["events_total"] == len(t["events"]["t"]) == n > 5
assert all(a <= x < b for x in t["events"]["t"]) and d["events_total"] == n
assert 0 < len(d["events"]["t"]) <= 5 and all(a <= x < b for x in d["events"]["t"])' "$v0" "$v1" "$vn"

# a time range (t0, t1) restricts every endpoint: the function list's <Total> is the
# timeline's events in it, the flame graph's root the same, the timeline keeps only those
read -r t0 t1 want < <(py '
e = json.load(open("timeline.json"))["events"]; t = sorted(e["t"]); a, b = t[len(t) // 4], t[3 * len(t) // 4]
print(a, b, sum(v for x, v in zip(e["t"], e["value"]) if a <= x < b))')
get "api/functions?metrics=e.totalcpu:name&t0=$t0&t1=$t1" >win.json
got=$(py 'print(json.load(open("win.json"))["rows"][0]["e.totalcpu"])')
check "t0=$t0 t1=$t1: <Total> CPU $got = the timeline's events in it $want (< $total_ns)" \
	eval '[[ $got == "$want" ]] && ((want > 0 && want < total_ns))'
get "api/flame?metric=totalcpu&t0=$t0&t1=$t1" >winflame.json
check "t0..t1: the flame graph's root is the same" \
	test "$(py 'print(json.load(open("winflame.json"))["nodes"]["value"][0])')" = "$want"
get "api/calltree?t0=$t0&t1=$t1" >wintree.json
check "t0..t1: the call tree's root is the same" \
	test "$(py 'print(json.load(open("wintree.json"))["nodes"]["values"][0][0])')" = "$want"
get "api/timeline?t0=$t0&t1=$t1" >wintl.json
check "t0..t1: the timeline keeps the events in it" py '
e = json.load(open("wintl.json"))["events"]; a, b = int(sys.argv[1]), int(sys.argv[2])
assert all(a <= x < b for x in e["t"]) and sum(e["value"]) == int(sys.argv[3])' "$t0" "$t1" "$want"
get "api/functions?metrics=e.totalcpu:name" >nowin.json
check "without t0/t1 every event counts again" \
	test "$(py 'print(json.load(open("nowin.json"))["rows"][0]["e.totalcpu"])')" = "$total_ns"

# kept replies (analyzer/reply_cache.c): asked again, the flame graph, call tree and timeline
# are the same bytes, after requests with other arguments in between; a request that differs
# in one argument (the window, a filter) is its own answer, never another's
get "api/flame?metric=totalcpu" >flame2.json
get "api/flame?metric=totalcpu&t0=$t0&t1=$t1" >winflame2.json
get "api/calltree?t0=$t0&t1=$t1" >wintree2.json
get "api/timeline?t0=$t0&t1=$t1" >wintl2.json
check "asked again: the same flame graph, windowed flame graph, call tree and timeline" \
	eval 'cmp -s flame.json flame2.json && cmp -s winflame.json winflame2.json && cmp -s wintree.json wintree2.json && cmp -s wintl.json wintl2.json'
get "api/flame?metric=totalcpu&filter=THRID%3D%3D999999" >flnone.json
get "api/flame?metric=totalcpu" >flame3.json
check "a filter no event passes: root 0; then unfiltered again: the first reply" \
	eval '[[ $(py "print(json.load(open(\"flnone.json\"))[\"nodes\"][\"value\"][0])") == 0 ]] && cmp -s flame.json flame3.json'

# bad arguments
err() { # DESC STATUS PATH TEXT
	local c
	c=$(curl -s -o err.json -w '%{http_code}' -b "pa_token_$port=$token" "$base/$3")
	check "$1: $c, says '$4' ($(head -c 200 err.json))" test "$c:$(grep -cF -- "$4" err.json)" = "$2:1"
}
err "unknown metric" 400 "api/functions?metrics=e.cycles" "unknown metric 'cycles'"
err "a bad sort" 400 "api/calltree?sort=e.cycles" "sort: "
err "not a function id" 400 "api/callers?func=abc" "not a function id"
err "no such function" 404 "api/callers?func=999999" "no function 999999"
err "an empty time range" 400 "api/functions?t0=5&t1=5" "time range t0 5 to t1 5 is empty"
err "a time that is no number" 400 "api/flame?t0=abc" "t0 'abc' is not a time in ns"
err "a width of 0" 400 "api/timeline?width=0" "width '0' is not a count from 1 to 100000"
err "an empty view" 400 "api/timeline?v0=7&v1=7" "the view v0 7 to v1 7 is empty"
err "a root path not in the graph" 404 "api/flame?root=999999" "no call path 999999"
err "a root path that is no path" 400 "api/flame?root=1x" "root '1x' is not a call path"
err "leaks are no timeline" 400 "api/timeline?metric=heapleakbytes" "not events in time"
err "a heap line too wide" 400 "api/heap?width=100001" "width '100001' is not a count from 0 to 100000"

stop_analyzer TERM
check "SIGTERM: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0
snapshot >after
check "the experiment is unchanged" cmp -s before after

check "starts on c.er" start_analyzer c.er
get "api/functions" >c.json
check "c.er: no heap metric" py 'assert [x["key"] for x in json.load(open("c.json"))["columns"]] == ["e.totalcpu", "i.totalcpu"]'
err "no heap data, no heap view" 400 "api/heap" "no heap tracing data"
err "heap metric without heap data" 400 "api/flame?metric=heapallocbytes" "needs heap data"
"$analyzer" --no-browser --port "$port" c.er >busy.out 2>busy.err && rc=0 || rc=$?
check "a port in use: exit $rc, says so ($(head -c 200 busy.err))" eval '((rc == 1)) && grep -q "cannot serve on 127.0.0.1:$port" busy.err'
check "a port in use: one message, the analyzer's (not also libmicrohttpd's)" test "$(wc -l <busy.err)" = 1
stop_analyzer INT
check "SIGINT: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0

# a process tree (collect -F: a founder, its child and grandchild): the experiments' process tree,
# threads and timeline lanes, one per thread under its process, are er_print's
check "d.er: a founder with two descendants" desc_experiment
check "starts on d.er" start_analyzer d.er
get api/experiments >dx.json
get api/threads >dth.json
get "api/timeline?metric=totalcpu" >dtl.json
check "d.er: the process tree = er_print's ($(tr '\n' ' ' <d.tree))" py '
x = json.load(open("dx.json"))["experiments"]; f = x[0]
got = [(f["pid"], 0)] + [(p["pid"], p["depth"]) for p in f["processes"]]
want = [tuple(map(int, l.split())) for l in open("d.tree")]
assert got == want and len(x) == 3, (got, want)
assert all(p["followed"] and p["origin"] == "fork" and x[p["experiment_id"] - 1]["pid"] == p["pid"] for p in f["processes"])
assert [e["parent_id"] for e in x] == [None, 1, 2] or [e["parent_id"] for e in x] == [None, 1, 1], [e["parent_id"] for e in x]
assert all(e["ending"] == {"how": "exit", "status": 0} and e["cpu_recorded_ns"] > 0 for e in x)'
check "d.er: the threads are er_print's ($("$er_print" -thread_list d.er | grep -c 'main thread') main threads)" py '
t = json.load(open("dth.json"))["threads"]; x = json.load(open("dx.json"))["experiments"]
assert [(h["experiment_id"], h["tid"]) for h in t] == [(e["id"], e["pid"]) for e in x], t
assert len(t) == int(sys.argv[1])' "$("$er_print" -thread_list d.er | grep -c 'main thread')"
check "d.er: one timeline lane per thread, with its process, every process has samples" py '
t = json.load(open("dtl.json")); x = json.load(open("dx.json"))["experiments"]
assert [(l["experiment_id"], l["pid"]) for l in t["lanes"]] == [(e["id"], e["pid"]) for e in x], t["lanes"]
assert set(t["events"]["lane"]) == {0, 1, 2}'
stop_analyzer TERM
check "d.er: SIGTERM: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0

# descendants that start late (fork, then exec, after 0.3 s of the parent's CPU): one time base
cp desc_tree desc_leaf
"$collect" -p hi -o late.er ./desc_tree late >late.out 2>late.err && grep -qx ok late.out
check "late.er: collected ($(head -c 200 late.err))" test -d late.er/_f1_x1.er
check "starts on late.er" start_analyzer late.er
get api/experiments >lx.json
get "api/timeline?metric=totalcpu" >ltl.json
check "late.er: each descendant starts >= 0.3 s on, its first sample (the fork child execs at once: none) at or after its start" py '
x = json.load(open("lx.json"))["experiments"]; t = json.load(open("ltl.json")); e = t["events"]
off = [p["start_offset_ns"] for p in x]
assert len(x) == 3 and off[0] == 0 and all(o >= 300000000 for o in off[1:]), off
assert [l["start_ns"] for l in t["lanes"]] == off, t["lanes"]
first = {}
for x, l in zip(e["t"], e["lane"]): first[l] = min(first.get(l, x), x)
assert 0 in first and 2 in first and all(first[k] >= off[k] for k in first), (first, off)
assert max(e["t"]) <= t["duration_ns"]'
read -r lt0 lsum < <(py '
t = json.load(open("ltl.json")); e = t["events"]; a = t["lanes"][2]["start_ns"]
print(a, sum(v for x, v in zip(e["t"], e["value"]) if x >= a))')
get "api/functions?metrics=e.totalcpu:name&t0=$lt0" >lwin.json
check "late.er: t0=$lt0 (the exec'd leaf's start) on the shared base: <Total> $lsum, the timeline's events after it" \
	test "$(py 'print(json.load(open("lwin.json"))["rows"][0]["e.totalcpu"])')" = "$lsum"
stop_analyzer TERM
check "late.er: SIGTERM: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0

# the live heap of a process tree (tests/fixtures/heap_fork.c): a line per process, the child's
# start after the parent's, heapstat's peak on the process it names, and the sum on one clock
# reaching both blocks at once (the parent's 1 MiB and the child's 2 MiB)
check "f.er: a heap-traced parent and child" heap_fork_experiment
read -r fbytes fexp fpid ftime < <("$er_print" -heapstat f.er | awk '/^Heap size bytes/ { b = $NF } /^Experiment Id/ { x = $NF } /^Process Id/ { p = $NF } /^Time of peak/ { t = $(NF - 1) } END { print b, x, p, t }')
check "starts on f.er" start_analyzer f.er
get "api/heap?width=300" >flive.json
check "f.er: a line per process, heapstat's peak ($fbytes bytes, experiment $fexp at $ftime s) on the one it names" py '
l = json.load(open("flive.json"))["live"]; x = l["experiments"]; b, e, pid, t = sys.argv[1:5]
assert [(s["experiment_id"], s["start_offset_ns"] > 0) for s in x] == [(1, False), (2, True)], x
s = x[int(e) - 1]; assert (s["pid"], s["peak"]["bytes"], "%.3f" % (s["peak"]["t"] / 1e9)) == (int(pid), int(b), t), s
assert all(len(s["series"]["t"]) <= 301 and max(s["series"]["bytes"]) == s["peak"]["bytes"] for s in x + [l["total"]])' \
	"$fbytes" "$fexp" "$fpid" "$ftime"
check "f.er: the sum holds both blocks at once: 3 MiB <= its peak <= the peaks' sum" py '
l = json.load(open("flive.json"))["live"]; x = l["experiments"]; t = l["total"]
assert x[0]["peak"]["bytes"] >= 1 << 20 and x[1]["peak"]["bytes"] >= 2 << 20, x
assert 3 << 20 <= t["peak"]["bytes"] <= x[0]["peak"]["bytes"] + x[1]["peak"]["bytes"], t["peak"]
assert t["end_bytes"] == x[0]["end_bytes"] + x[1]["end_bytes"] and t["calls"] == x[0]["calls"] + x[1]["calls"]
assert t["span_ns"] >= max(s["start_offset_ns"] + s["span_ns"] for s in x) and t["series"]["t"][-1] <= t["span_ns"]'
stop_analyzer TERM
check "f.er: SIGTERM: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0

# I/O tracing (collect -i on): /api/io's files, descriptors and stacks are er_print's
# ioactivity, iodetail and iocallstack; its stat is iostat's
cat >io.c <<'EOS'
#include <fcntl.h>
#include <unistd.h>
static char buf[9000];
int main(void)
{
	for (int k = 0; k < 2; k++) { /* the same name twice: two descriptors, one file */
		int fd = open("a.out.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
		for (int i = 0; i < 5; i++)
			write(fd, buf, 1000 + i);
		close(fd);
	}
	int fd = open("a.out.dat", O_RDONLY);
	while (read(fd, buf, 4096) > 0)
		;
	close(fd);
	return open("/nonexistent/x", O_RDONLY) < 0 ? 0 : 1;
}
EOS
cc -O0 -g io.c -o io_prog && "$PA_BIN/collect" -i on -o i.er ./io_prog >/dev/null 2>&1
check "i.er: collected with -i on" test -d i.er
check "starts on i.er" start_analyzer i.er
get "api/io" >io_file.json
get "api/io?by=descriptor" >io_vfd.json
get "api/io?by=stack&limit=0" >io_stack.json
"$er_print" -metrics e.ioreadbytes:e.ioreadcnt:e.iowritebytes:e.iowritecnt:e.ioerrorcnt:name -ioactivity i.er |
	awk 'NR > 4 && NF >= 6 && $6 != "<Total>" { print $6, $1, $2, $3, $4, $5 }' | sort >files.er
py 'd = json.load(open("io_file.json"))
for r in sorted(d["rows"], key=lambda r: r["name"]):
    print(r["name"], r["ioreadbytes"], r["ioreadcnt"], r["iowritebytes"], r["iowritecnt"], r["ioerrorcnt"])' >files.an
check "io: the files are ioactivity's ($(tr '\n' ';' <files.er))" eval '[[ -s files.er ]] && cmp -s files.an files.er'
check "io: a.out.dat written 2 x 5010 bytes, read back" py '
d = json.load(open("io_file.json")); r = [x for x in d["rows"] if x["name"] == "a.out.dat"][0]
assert (r["iowritebytes"], r["iowritecnt"], r["ioreadbytes"]) == (10020, 10, 5010), r'
check "io: by descriptor, a.out.dat is three lives" py '
d = json.load(open("io_vfd.json")); v = [x for x in d["rows"] if x["name"] == "a.out.dat"]
assert len(v) == 3 and len({x["vfd"] for x in v}) == 3 and all(x["fd"] >= 0 for x in v), v'
nst=$("$er_print" -iocallstack i.er | grep -c '^Stack 0x')
check "io: by stack, iocallstack's $nst stacks, leaf first" py '
d = json.load(open("io_stack.json")); assert d["distinct"] == len(d["rows"]) == int(sys.argv[1])
assert all(r["frames"] and r["frames"][0]["function"] in ("open", "write", "read", "close") for r in d["rows"]), d["rows"]' "$nst"
read -r wcalls wbytes rcalls < <("$er_print" -iostat i.er | awk '/^Write Statistics/ { s = "w" } /^Read Statistics/ { s = "r" } /^Total calls/ && s == "w" { wc = $NF } /^Total bytes/ && s == "w" { wb = $NF } /^Total calls/ && s == "r" { rc = $NF; s = "" } END { print wc, wb, rc }')
check "io: the stat is iostat's ($wcalls writes, $wbytes bytes, $rcalls reads)" py '
s = json.load(open("io_file.json"))["stat"]; assert (s["write"]["calls"], s["write"]["bytes"], s["read"]["calls"]) == tuple(map(int, sys.argv[1:4])), s' "$wcalls" "$wbytes" "$rcalls"
check "overview: I/O tracing on" py 'assert json.load(open(sys.argv[1]))["experiments"][0]["io_tracing"]' <(get api/overview)
err "io: a bad grouping" 400 "api/io?by=bogus" "by 'bogus' is not file, descriptor or stack"
stop_analyzer TERM
check "i.er: SIGTERM: exit 0" test "$an_rc" = 0
check "starts on c.er again" start_analyzer c.er
err "no I/O data, no I/O view" 400 "api/io" "no I/O tracing data"
stop_analyzer TERM

# filters and thread/CPU selections per request (issue #16 item 3): tests/fixtures/e2e_threads.c,
# four workers with 1 to 4 units of work; the function list under a filter is er_print -filters'
cc -O0 -g -fno-omit-frame-pointer -pthread -o threads "$PA_TOP/tests/fixtures/e2e_threads.c" &&
	"$collect" -o t.er ./threads 10000000 >/dev/null 2>t.err
check "t.er: collected, five threads" test "$("$er_print" -thread_list t.er | grep -cE '^ +[0-9]+ +[0-9]+ ')" = 5
check "starts on t.er" start_analyzer t.er
rows_er() { # er_print's function list rows as "name seconds", er_print ARGS
	"$er_print" -metrics e.totalcpu:name -sort e.totalcpu "$@" -functions t.er |
		awk '$NF == "<Total>" { f = 1 } f && NF >= 2 { n = $2; for (i = 3; i <= NF; i++) n = n " " $i; print n, ($1 == "0." ? "0.000" : $1) }'
}
rows_an() { # the analyzer's, /api/functions with query arguments ARGS
	get "api/functions?metrics=e.totalcpu:name&sort=e.totalcpu$1" |
		py '
for r in json.load(sys.stdin)["rows"]: print(r["name"], "%.3f" % (r["e.totalcpu"] / 1e9))'
}
for f in 'THRID==3' 'THRID==1' 'THRID IN (2,4) || CPU>=0 && TSTAMP<100ms'; do
	rows_er -filters "$f" >filt.er
	rows_an "&filter=$(py 'import urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$f")" >filt.an
	check "filter $f: er_print -filters' list ($(head -2 filt.er | tr '\n' ' '); $(diff filt.er filt.an | head -c 200 | tr '\n' ' '))" \
		eval '[[ -s filt.er ]] && cmp -s filt.er filt.an'
done
rows_er >all.er
check "the filter is for its request only: the next has none" eval 'rows_an "" >all.an && cmp -s all.er all.an'
rows_er -filters 'THRID==3' >filt3.er
check "threads=3 is thread_select 3 = the filter THRID==3" eval 'rows_an "&threads=3" >thr.an && cmp -s thr.an filt3.er && ! cmp -s all.er filt3.er'
rows_er -cpu_select 0 >cpu0.er
check "cpus=0 is cpu_select 0" eval 'rows_an "&cpus=0" >cpu0.an && cmp -s cpu0.an cpu0.er'
get "api/timeline?metric=totalcpu&filter=THRID%3D%3D3" >ftl.json
read -r ft0 ft1 fsum < <(py '
e = json.load(open("ftl.json"))["events"]; t = sorted(e["t"]); a, b = t[len(t) // 4], t[3 * len(t) // 4] + 1
print(a, b, sum(v for x, v in zip(e["t"], e["value"]) if a <= x < b))' )
check "the timeline under THRID==3: one lane's events, summing to the filtered <Total>" py '
e = json.load(open("ftl.json"))["events"]; assert len(set(e["lane"])) == 1, set(e["lane"])
assert "%.3f" % (sum(e["value"]) / 1e9) == sys.argv[1], sum(e["value"])' "$(awk '$1 == "<Total>" { print $2 }' filt3.er)"
check "a time range composes with the filter: <Total> of THRID==3 in [$ft0, $ft1) = its events there ($fsum)" \
	test "$(get "api/functions?metrics=e.totalcpu:name&filter=THRID%3D%3D3&t0=$ft0&t1=$ft1" | py 'print(json.load(sys.stdin)["rows"][0]["e.totalcpu"])')" = "$fsum"
for v in callers?func=1 calltree flame?metric=totalcpu threads "source?func=$(get api/functions | py 'print([r["id"] for r in json.load(sys.stdin)["rows"] if r["name"] == "spin"][0])')"; do
	code=$(curl -s -o fv.json -w '%{http_code}' -b "pa_token_$port=$token" "$base/api/$v&filter=THRID%3D%3D3")
	[[ $v != *\?* ]] && code=$(curl -s -o fv.json -w '%{http_code}' -b "pa_token_$port=$token" "$base/api/$v?filter=THRID%3D%3D3")
	check "/api/${v%%\?*} takes the filter: $code" test "$code" = 200
done
check "the flame graph's root under THRID==3 = the filtered <Total>" test \
	"$(get "api/flame?metric=totalcpu&filter=THRID%3D%3D3" | py 'print("%.3f" % (json.load(sys.stdin)["nodes"]["value"][0] / 1e9))')" = \
	"$(awk '$1 == "<Total>" { print $2 }' filt3.er)"
err "a bad filter" 400 "api/functions?filter=THRID%3D%3D" "column 8"
err "a bad filter names the filter" 400 "api/flame?filter=NOSUCH%3E1" "filter 'NOSUCH>1'"
err "a bad thread list" 400 "api/functions?threads=x" "threads 'x'"
err "a bad CPU list" 400 "api/functions?cpus=x" "cpus 'x'"
check "overview: the filter properties, described" py '
p = json.load(open(sys.argv[1]))["filter_properties"]
assert [x["name"] for x in p] == ["THRID", "LWPID", "CPU", "SAMPLE", "TSTAMP", "EXPID"] and all(x["help"] for x in p), p' <(get api/overview)
err "compare with one experiment" 400 "api/compare" "compare needs two or more experiments"
stop_analyzer TERM
check "t.er: SIGTERM: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0

# compare (issue #16 item 4): /api/compare's raw per-side values are er_print -compare's, on
# two runs of tests/fixtures/compare_work.c (scaled() does twice the work in the second)
cc -O0 -g -fno-omit-frame-pointer "$PA_TOP/tests/fixtures/compare_work.c" -o cwork &&
	"$collect" -o one.er ./cwork 1 >/dev/null 2>&1 && "$collect" -o two.er ./cwork 2 >/dev/null 2>&1
check "one.er and two.er: collected" test -d one.er -a -d two.er
check "starts on one.er two.er" start_analyzer one.er two.er
check "overview: two sides" py 'assert [(s["name"], s["first"], s["count"]) for s in json.load(open(sys.argv[1]))["sides"]] == [("one.er", 1, 1), ("two.er", 2, 1)]' <(get api/overview)
cmp_er() { # er_print's compare rows, MODE WHAT: "v1 v2 v3 v4 name" for metrics e.totalcpu:i.totalcpu
	"$er_print" -compare "$1" -metrics e.totalcpu:i.totalcpu:name -sort e.totalcpu "-$2" one.er two.er |
		awk '$5 == "<Total>" { f = 1 } f && NF >= 5 { print }' | sed 's/  */ /g; s/^ //'
}
cmp_an() { # the same from /api/compare, formatted as er_print formats (table.c)
	get "api/compare?what=$2&mode=$1&metrics=e.totalcpu:i.totalcpu&sort=e.totalcpu" | py '
def val(v): return "0." if v == 0 else "%.3f" % (v / 1e9)
def delta(v, b):
    d = abs(v - b)
    return "+0." if d < 500000 else ("+" if v >= b else "-") + "%.3f" % (d / 1e9)
j = json.load(sys.stdin); assert j["mode"] == sys.argv[1] and [s["name"] for s in j["sides"]] == ["one.er", "two.er"]
for r in j["rows"]:
    a, b = r["values"]
    c = [val(a[0]), val(b[0]) if sys.argv[1] == "on" else delta(b[0], a[0]),
         val(a[1]), val(b[1]) if sys.argv[1] == "on" else delta(b[1], a[1])]
    print(" ".join(c + [r["name"]]))' "$1"
}
for m in on delta; do
	for w in functions lines pcs; do
		cmp_er $m $w >cmp.er
		cmp_an $m $w >cmp.an
		check "compare $m $w: er_print -compare $m's $(wc -l <cmp.er) rows ($(diff cmp.er cmp.an | head -c 300 | tr '\n' ' '))" \
			eval '[[ $(wc -l <cmp.er) -gt 3 ]] && cmp -s cmp.er cmp.an'
	done
done
err "compare: a bad mode" 400 "api/compare?mode=sideways" "mode 'sideways'"
err "compare: a bad what" 400 "api/compare?what=objects" "what 'objects'"
stop_analyzer TERM
check "one.er two.er: SIGTERM: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0

"$analyzer" --no-browser nosuch.er >/dev/null 2>miss.err && rc=0 || rc=$?
check "a missing experiment: exit $rc, named ($(head -c 200 miss.err))" eval '((rc == 1)) && grep -q "nosuch.er" miss.err'
mkdir bad.er && printf 'not xml' >bad.er/log.xml
"$analyzer" --no-browser bad.er >/dev/null 2>bad.err && rc=0 || rc=$?
check "a corrupt experiment: exit $rc, named ($(head -c 200 bad.err))" eval '((rc == 1)) && grep -q "bad.er" bad.err'
"$analyzer" --no-browser --port 70000 c.er >/dev/null 2>port.err && rc=0 || rc=$?
check "a bad port: exit $rc, says so" eval '((rc == 2)) && grep -q "not a port number" port.err'

echo "$checks checks, $failures failures"
((failures == 0))
