# shellcheck shell=bash
# export_lib.sh - shared by the export tests (sourced, the runner skips *lib.sh):
# `. export_lib.sh NAME [json]`.  heap_lib.sh's scratch directory and check, then real
# experiments c.er and h.er of tests/fixtures/export_prog.c (clock only; clock and
# collect -H on); with "json" (the JSON export tests) also t.er of
# tests/fixtures/e2e_threads.c (four worker threads running work_1 .. work_4).  Defines:
#   summary FORMAT FILE      tests/tools/export_json_check.py's "key value" lines (it checks
#                            the format's rules and exits 1 on a violation)
#   value SUMMARY KEY        one value of a summary
#   total_row EXP SPEC       the values of <Total> in er_print's function list
#   top_function EXP         the function with the most exclusive CPU time in er_print
#   secs NS                  nanoseconds as er_print prints seconds (%.3f)
#   fails_with DESC TEXT ARGS...  er_print ARGS fails, saying TEXT
#   totals SPEC EXP...       the values of <Total> for metric list SPEC over EXP...
#   top_er EXP METRIC        er_print's top function by exclusive METRIC
#   common_checks FORMAT [noleaks]  (json) what every JSON export must pass, below
# and js, the directory of the npm packages (speedscope, jsdom, ajv): a JSON export test
# fails when they are not installed (make deps).
. "$(dirname "$0")/heap_lib.sh" "$1"
er_print=$PA_BIN/er_print
checker=$PA_TOP/tests/tools/export_json_check.py
js=$PA_TOP/tests/tools/js
if [[ ${2:-} == json ]]; then
	[[ -d $js/node_modules/speedscope && -d $js/node_modules/jsdom && -d $js/node_modules/ajv ]] ||
		{ echo "npm packages missing in $js: run make deps (scripts/setup-deps.sh)"; exit 1; }
	cc -O0 -g -fno-omit-frame-pointer -pthread -o threads "$PA_TOP/tests/fixtures/e2e_threads.c" ||
		{ echo "cannot build e2e_threads"; exit 1; }
	out=$("$collect" -o t.er ./threads 10000000 2>err) && rc=0 || rc=$?
	[[ $out:$rc == "done:0" ]] || { echo "collect threads: '$out' rc=$rc: $(head -c 300 err)"; exit 1; }
fi

gcc -O0 -g -fno-builtin -fno-omit-frame-pointer -o export_prog "$PA_TOP/tests/fixtures/export_prog.c" ||
	{ echo "cannot build export_prog"; exit 1; }
for x in c h; do
	opt=()
	[[ $x == h ]] && opt=(-H on)
	out=$("$collect" "${opt[@]}" -o $x.er ./export_prog 2>err) && rc=0 || rc=$?
	[[ $out:$rc == "export_prog done:0" ]] || { echo "collect $x: '$out' rc=$rc: $(head -c 300 err)"; exit 1; }
done

summary() { python3 "$checker" "$1" "$2"; }
value() { awk -v k="$2" '$1 == k { print $2; exit }' <<<"$1"; }
total_row() {
	"$er_print" -metrics "$2:name" -functions "$1" | awk '$NF == "<Total>" { NF--; print; exit }'
}
top_function() {
	"$er_print" -metrics e.totalcpu:name -sort e.totalcpu -functions "$1" |
		awk 'f { print $NF; exit } $NF == "<Total>" { f = 1 }'
}
secs() { awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e9 }'; }
totals() {
	local m=$1
	shift
	"$er_print" -metrics "$m:name" -functions "$@" | awk '$NF == "<Total>" { NF--; print; exit }'
}
top_er() {
	"$er_print" -metrics "e.$2:name" -sort "e.$2" -functions "$1" | awk 'f { print $NF; exit } $NF == "<Total>" { f = 1 }'
}
fails_with() {
	local d=$1 want=$2; shift 2
	"$er_print" "$@" >/dev/null 2>err && rc=0 || rc=$?
	check "$d: exit $rc, says '$want' ($(head -c 200 err))" eval '((rc != 0)) && grep -qF -- "$want" err'
}

# CPU time NS of experiment $1 is er_print's <Total> TOTAL (seconds, %.3f): equal as
# er_print prints it, or, when the format rounds (SLACK ns), within SLACK and half a ms.
cpu_is_total() {
	local x=$1 ns=$2 slack=$3 total=$4
	if [[ -z $slack ]]; then
		check "$x: CPU $ns ns = <Total> $total s" test "$(secs "$ns")" = "$total"
	else
		check "$x: CPU $ns ns = <Total> $total s within $slack ns" \
			awk -v n="$ns" -v t="$total" -v s="$slack" 'BEGIN { d = n - t * 1e9; exit !(d <= s + 5e5 && -d <= s + 5e5) }'
	fi
}

# The checks every JSON export passes, for format $1: CPU time and the top function of c.er
# and h.er, the heap totals of h.er (allocations always; leaks unless $2 is "noleaks"), and
# the threads of t.er: each worker's stacks are on a thread of their own.
# shellcheck disable=SC2154 # sum_c, sum_h and sum_t are set by the loop's eval
common_checks() {
	local fmt=$1 leaks=${2:-leaks} x s total
	for x in c h t; do
		"$er_print" -export "$fmt" "$x.json" "$x.er" 2>err
		check "$x: export $fmt exits 0 ($(head -c 300 err))" test $? = 0
		s=$(summary "$fmt" "$x.json" 2>&1)
		check "$x: the export follows the format's rules ($s)" test $? = 0
		total=$(total_row "$x.er" e.totalcpu)
		cpu_is_total "$x" "$(value "$s" cpu_ns)" "$(value "$s" cpu_slack_ns)" "$total"
		check "$x: top function $(value "$s" top_cpu) = er_print's $(top_function "$x.er")" \
			test "$(value "$s" top_cpu)" = "$(top_function "$x.er")"
		eval "sum_$x=\$s"
	done
	read -r tleaked tleaks tbytes tcount < <(total_row h.er i.heapleakbytes:i.heapleakcnt:i.heapallocbytes:i.heapalloccnt)
	check "h: allocations $(value "$sum_h" alloc_count) = <Total> $tcount" test "$(value "$sum_h" alloc_count)" = "$tcount"
	check "h: bytes $(value "$sum_h" alloc_bytes) = <Total> $tbytes" test "$(value "$sum_h" alloc_bytes)" = "$tbytes"
	check "h: allocs allocated the most bytes" test "$(value "$sum_h" top_alloc)" = allocs
	if [[ $leaks == leaks ]]; then
		check "h: leaks $(value "$sum_h" leak_count) = <Total> $tleaks" test "$(value "$sum_h" leak_count)" = "$tleaks"
		check "h: leaked $(value "$sum_h" leak_bytes) = <Total> $tleaked" test "$(value "$sum_h" leak_bytes)" = "$tleaked"
	fi
	check "c: no heap data, no heap metric" test -z "$(value "$sum_c" alloc_count)$(value "$sum_c" leak_count)"
	local k owners
	for k in 1 2 3 4; do
		owners=$(grep -c "^thread [0-9]* .*work_$k" <<<"$sum_t")
		check "t: work_$k is on exactly one thread ($owners)" test "$owners" = 1
		check "t: work_$k's thread runs no other work_" \
			test "$(grep "^thread [0-9]* .*work_$k" <<<"$sum_t" | grep -o 'work_[0-9]' | sort -u | wc -l)" = 1
	done
	check "t: at least 4 threads with CPU time ($(value "$sum_t" threads))" test "$(value "$sum_t" threads)" -ge 4

	# :METRIC carries that metric alone
	"$er_print" -export "$fmt:heapallocbytes" hb.json h.er 2>err
	check "h: $fmt:heapallocbytes exits 0 ($(head -c 200 err))" test $? = 0
	s=$(summary "$fmt" hb.json 2>&1)
	check "h: $fmt:heapallocbytes carries the bytes ($s)" test "$(value "$s" alloc_bytes)" = "$tbytes"
	check "h: $fmt:heapallocbytes carries no CPU time" test -z "$(value "$s" cpu_ns)"

	printf 'export %s script.json\n' "$fmt" >cmds
	"$er_print" -script cmds h.er >/dev/null 2>err
	check "script command writes the same ($(head -c 200 err))" cmp -s script.json h.json
	"$er_print" -export "$fmt" - h.er >stdout.json 2>err
	check "FILE - is standard output ($(head -c 200 err))" cmp -s stdout.json h.json

	fails_with "unknown metric" "unknown metric 'cycles'" -export "$fmt:cycles" x.json c.er
	fails_with "heap metric without heap data" "heapallocbytes needs heap data" -export "$fmt:heapallocbytes" x.json c.er
	fails_with "unwritable file" "cannot write '$tmp/no/such/dir/f': No such file or directory" \
		-export "$fmt" "$tmp/no/such/dir/f" c.er
	fails_with "full disk" "cannot write '/dev/full'" -export "$fmt" /dev/full c.er
	check "no file left by failed exports" test ! -e x.json
}
