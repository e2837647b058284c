#!/usr/bin/env bash
# collect -s (synchronization wait tracing) on tests/fixtures/sync_waits.c,
# whose waits are known and which prints its own measurement of each:
#  - exactness: with -s 5000 (5 ms), each waiting function's inclusive Sync
#    Wait Time (er_print, printmode json: integer ns) is within 2% of the
#    fixture's figure and its Sync Wait Count is exact (a mutex held 10 x
#    100 ms, a condvar signalled after 300 ms, a join of a thread that runs
#    200 ms, a semaphore posted after 150 ms, a barrier, a rwlock, a C11
#    mtx_lock of 30 ms and thrd_join of 150 ms, a 20 ms mutex wait); the libc
#    function that waited is the leaf (exclusive figures), the callers-callees
#    and call tree carry it;
#  - the threshold: -s 60000 keeps the waits of 100 ms and more and drops the
#    20 and 30 ms ones (60 ms: far from every wait, which a loaded machine can
#    only lengthen); -s all keeps every call that blocked, even the barrier's
#    last arrival (with a threshold, that call is counted only when the
#    machine delays it: the checks count the fixture's functions, under
#    `waits`, not <Total>);
#  - return values and errno (error-checking, recursive and robust mutexes,
#    timeouts, the old pthread_cond_timedwait@GLIBC_2.2.5, sem_wait's errno)
#    are the same with and without the collector;
#  - synclocks ranks the objects, with the stacks that waited;
#  - where a contended mutex is taken (sync_waits acquire: one forced wait,
#    then site_often takes it 3000 times and site_rare 1000 times on two
#    threads): its acquisition count lies between the acquisitions the
#    fixture makes after the forced wait and all it makes; each thread has
#    at most 1 in 16 of its acquisitions sampled (its first, then every
#    16th), and the most frequent acquiring stack is site_often's, with more
#    samples than site_rare can have;
#  - log.xml, -header and -statistics (User Lock) say what was traced;
#    without -s there is no synctrace file.
set -u
. "$(dirname "$0")/heap_lib.sh" sync_trace
[[ -f $PA_LIB/libcollector-sync.so ]] || { echo "skip: libcollector-sync.so not built"; exit 77; }
erprint=$PA_BIN/er_print
gcc -O1 -g -fno-inline -fno-omit-frame-pointer -pthread -o sync_waits "$PA_TOP/tests/fixtures/sync_waits.c" ||
	{ echo "cannot build sync_waits"; exit 1; }

# er_print's inclusive or exclusive sync/syncn per function, as "name ns count" lines
figures() { # experiment flavor(i|e)
	"$erprint" -printmode json -metrics "$2.sync:$2.syncn:name" -functions "$1" 2>/dev/null |
		python3 -c '
import json, sys
for line in sys.stdin:
    o = json.loads(line)
    if o.get("report") != "functions":
        continue
    for row in o["tables"][0]["rows"]:
        print(row["name"], row["'"$2"'.sync"], row["'"$2"'.syncn"])'
}
field() { awk -v f="$2" '$1 == f { print $'"$3"'; exit }' "$1"; }
within2() { python3 -c "import sys; g, w = float('${1:-0}' or 0), float('$2'); sys.exit(0 if abs(g - w) <= 0.02 * w else 1)"; }

# ---- return values and errno, with and without the collector
./sync_waits errors >plain.txt 2>&1 && rc=0 || rc=$?
check "errors: plain run exits 0 ($rc)" test "$rc" = 0
check "errors: the fixture saw EDEADLK on an error-checking relock" grep -q '^errorcheck relock 35 ' plain.txt
check "errors: and EOWNERDEAD from a robust mutex" grep -q '^robust lock after owner died 130 ' plain.txt
for mode in all on; do
	"$collect" -s $mode -o errors_$mode.er ./sync_waits errors >coll_$mode.txt 2>err_$mode.txt && rc=0 || rc=$?
	check "errors: -s $mode exits 0 ($rc; $(head -c 300 err_$mode.txt))" test "$rc" = 0
	check "errors: -s $mode output identical to the plain run" cmp -s plain.txt coll_$mode.txt ||
		diff plain.txt coll_$mode.txt
done
"$expdump" errors_all.er >errors_dump.txt
check "errors: the old pthread_cond_timedwait@GLIBC_2.2.5 was traced" \
	test "$(grep -c '^sync .*func=pthread_cond_timedwait ' errors_dump.txt)" = 2

# ---- exactness, -s 5000
"$collect" -s 5000 -o w.er ./sync_waits waits >waits.txt 2>err.txt && rc=0 || rc=$?
check "waits: -s 5000 exits 0 ($rc; $(head -c 300 err.txt))" test "$rc" = 0
check "waits: fixture finished" grep -q '^thrd_join result 7$' waits.txt
check "log.xml: sync on, threshold 5 ms, fixed" \
	grep -q '<collector_start [^>]*sync="on" sync_threshold_ns="5000000" sync_mode="fixed"' w.er/log.xml
check "log.xml: nothing dropped" grep -q '<collector_end [^>]*sync_dropped="0" sync_stackless="0"' w.er/log.xml
figures w.er i >incl.txt
figures w.er e >excl.txt
total=0
while read -r _ fn ns count; do
	got=$(field incl.txt "$fn" 2) n=$(field incl.txt "$fn" 3)
	check "$fn: $got ns within 2% of the fixture's $ns" within2 "$got" "$ns"
	check "$fn: count $n, fixture $count" test "${n:-x}" = "$count"
	total=$((total + count))
done < <(grep '^wait ' waits.txt)
check "waits: 8 waiting functions compared" test "$(grep -c '^wait ' waits.txt)" = 8
check "waits' count $(field incl.txt waits 3) = the fixture's $total" test "$(field incl.txt waits 3)" = "$total"
for leaf in pthread_mutex_lock:11 pthread_cond_wait:1 pthread_join:1 sem_wait:1 mtx_lock:1 thrd_join:1; do
	check "exclusive count of ${leaf%:*} is ${leaf#*:}" test "$(field excl.txt "${leaf%:*}" 3)" = "${leaf#*:}"
done
check "pthread_rwlock_wrlock: inclusive count 1" test "$(field incl.txt pthread_rwlock_wrlock 3)" = 1
"$erprint" -metrics i.syncn:name -callers-callees w.er >cc.txt 2>&1
check "callers-callees: contend calls pthread_mutex_lock 11 times" \
	grep -qE '^ *11 +100.00 +contend$' cc.txt
"$erprint" -metrics i.sync:name -calltree w.er >ct.txt 2>&1
check "call tree: wait_cond over pthread_cond_wait" \
	test "$(grep -A1 -E '\+-wait_cond$' ct.txt | tail -1 | sed 's/.*+-//')" = pthread_cond_wait
"$erprint" -header w.er >hdr.txt 2>&1
check "-header: threshold 5000 microsecs." grep -q '^  Synchronization tracing, threshold = 5000 microsecs.; Native-APIs$' hdr.txt
printf 'printmode json\nheader\n' >hj.script
"$erprint" -script hj.script w.er >hdr.json 2>&1
check "printmode json header: sync tracing, threshold 5000000 ns, fixed" python3 -c '
import json, sys; e = json.load(open("hdr.json"))["experiments"][0]
assert (e["sync_tracing"], e["sync_threshold_ns"], e["sync_threshold_mode"], e["heap_tracing"]) == (True, 5000000, "fixed", False), e'
"$erprint" -statistics w.er >st.txt 2>&1
lock=$(awk -F: '/^ *User Lock:/ { split($2, a, " "); print a[1] }' st.txt)
check "-statistics: User Lock $lock s = the total sync wait" \
	python3 -c "import sys; sys.exit(0 if abs(float('${lock:-0}' or 0) - $(field incl.txt '<Total>' 2) / 1e9) < 0.0015 else 1)"

"$erprint" -synclocks w.er >sl.txt 2>&1
check "synclocks: the mutex held 10 x 100 ms ranks first, with its 10 waits" \
	grep -qE '^Object 1: 0x[0-9A-F]{16} \(pthread_mutex_lock\) in w.er: [0-9.]+ s, 10 waits$' sl.txt
check "synclocks: its waiting stack goes through contend and wait_mutex" \
	test "$(sed -n '/^Object 1:/,/^$/p' sl.txt | sed '/^ Acquired/,$d' | grep -cE '^  (contend|wait_mutex) \+')" = 2
check "synclocks in printmode json: the first object has 10 waits, its stacks add up" python3 -c '
import json, subprocess, sys
out = subprocess.run([sys.argv[1], "-printmode", "json", "-synclocks", "w.er"], capture_output=True, text=True).stdout
o = [json.loads(l) for l in out.splitlines() if l.startswith("{\"report\":\"synclocks\"")][0]
first = o["list"][0]
sys.exit(0 if first["waits"] == 10 and sum(s["wait_ns"] for s in first["stacks"]) == first["wait_ns"] else 1)' "$erprint"
check "synclocks: the semaphore is an object of its own" grep -qE '^Object [0-9]+: .* \(sem_wait\) in w.er: 0\.1[45][0-9] s, 1 wait$' sl.txt

# ---- where the contended mutex was taken: watched from its first recorded wait
"$collect" -s 5000 -o q.er ./sync_waits acquire >acq.txt 2>/dev/null
read -r _ after all < <(grep '^acquire ' acq.txt)
check "acquire: fixture finished" test -n "${all:-}"
"$erprint" -printmode json -synclocks q.er >qj.txt 2>&1
check "acquire: the mutex counted between $after and $all acquisitions, site_often sampled most" python3 -c '
import json, sys
o = [json.loads(l) for l in open("qj.txt") if l.startswith("{\"report\":\"synclocks\"")][0]
m = o["list"][0]
after, total = int(sys.argv[1]), int(sys.argv[2])
funcs = lambda s: [f["function"] for f in s["frames"]]
top = m["acquired_at"]
ok = (m["function"] == "pthread_mutex_lock" and after <= m["acquisitions"] <= total
      and m["acq_sample_every"] == 16 and len(top) >= 2
      and "site_often" in funcs(top[0]) and top[0]["samples"] > -(-1000 // 16)
      and sum(t["samples"] for t in top if "site_often" in funcs(t)) <= -(-3000 // 16)
      and 0 < sum(t["samples"] for t in top if "site_rare" in funcs(t)) <= -(-1000 // 16))
print(m["acquisitions"], [(t["samples"], funcs(t)[:2]) for t in top]) if not ok else None
sys.exit(0 if ok else 1)' "${after:-0}" "${all:-0}"
"$erprint" -synclocks q.er >qt.txt 2>&1
check "acquire: text says how often and where" grep -qE '^ Acquired [0-9]+ times since its first wait; most often at \(1 in 16 ' qt.txt
check "acquire: the first acquiring stack is site_often's" \
	test "$(sed -n '/most often at/,/^$/p' qt.txt | grep -m1 -oE '^  site_(often|rare)')" = "  site_often"
check "acquire: log counts one watched object" grep -q 'sync_watched="1" sync_unwatched="0"' q.er/log.xml

# ---- the threshold's boundary
"$collect" -s 60000 -o t.er ./sync_waits waits >/dev/null 2>&1
figures t.er i >t.txt
check "-s 60000: the 10 x 100 ms mutex waits kept" test "$(field t.txt wait_mutex 3)" = 10
n=$(field t.txt wait_short 3)
check "-s 60000: the 20 ms wait dropped (count '$n')" test "${n:-0}" = 0
check "-s 60000: of the C11 waits the 30 ms mtx_lock dropped, the 150 ms thrd_join kept" \
	test "$(field t.txt wait_c11 3)" = 1
check "-s 60000: 16 waits in waits" test "$(field t.txt waits 3)" = 16
"$collect" -s all -o a.er ./sync_waits waits >/dev/null 2>&1
figures a.er e >a.txt
check "-s all: the barrier's last arrival is a wait too" test "$(field a.txt pthread_barrier_wait 3)" = 2
check "-s all: 19 waits" test "$(field a.txt '<Total>' 3)" = 19
check "-s all: log says all" grep -q 'sync_threshold_ns="0" sync_mode="all"' a.er/log.xml
"$collect" -s on -o c.er ./sync_waits waits >/dev/null 2>&1
check "-s on: a calibrated threshold of whole microseconds" \
	grep -qE 'sync_threshold_ns="[1-9][0-9]*000" sync_mode="calibrated"' c.er/log.xml
"$collect" -o n.er ./sync_waits waits >/dev/null 2>&1
check "no -s: no synctrace file" test ! -e n.er/synctrace -a ! -e n.er/synctrace.zst
check "no -s: sync off in log.xml" grep -q '<collector_start [^>]*sync="off"' n.er/log.xml
echo "# $checks checks, $failures failed"
exit $((failures ? 1 : 0))
