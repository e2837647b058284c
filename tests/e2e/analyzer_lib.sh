# shellcheck shell=bash
# analyzer_lib.sh - shared by the analyzer tests (sourced; the runner skips *lib.sh):
# `. analyzer_lib.sh NAME`.  export_lib.sh's scratch directory, check and er_print
# helpers (total_row, top_function, secs), with its real experiments c.er (clock
# profiling) and h.er (clock and collect -H on) of tests/fixtures/export_prog.c.  Defines:
#   start_analyzer [--browser] ARGS...  start the analyzer (--no-browser --port 0 ARGS;
#                            with --browser, --port 0 ARGS: it opens the browser) in the
#                            background: $an_pid, $base (http://127.0.0.1:PORT), $port,
#                            $token, $url (the line it printed); returns 1 if no URL came
#   stop_analyzer SIG        send SIG and wait: $an_rc is its exit status (124: still running
#                            after 10 s, then killed)
#   get PATH                 GET $base/PATH with the token's cookie, the body on stdout
#   desc_experiment          d.er: tests/fixtures/desc_tree.c tree3 (a founder, its child and
#                            grandchild by fork, each in its subexperiment); d.tree: er_print's
#                            process tree as "pid depth" lines, founder (depth 0) first
#   heap_fork_experiment     f.er: tests/fixtures/heap_fork.c with collect -H on (a parent
#                            holding 1 MiB, its child 2 MiB meanwhile, in its subexperiment)
. "$(dirname "$0")/export_lib.sh" "$1"
analyzer=$PA_BIN/analyzer
[[ -x $analyzer ]] || { echo "no $analyzer"; exit 1; }
command -v curl >/dev/null || { echo "curl is missing"; exit 1; }

an_pid=
start_analyzer() {
	# empty an.out here: the background job's own >an.out may run after the first read
	# below, which would then find the previous analyzer's URL
	: >an.out
	url=
	local browser_opt=--no-browser
	[[ ${1:-} == --browser ]] && { browser_opt=; shift; }
	"$analyzer" ${browser_opt:+"$browser_opt"} --port 0 "$@" >an.out 2>an.err &
	an_pid=$!
	local i
	for ((i = 0; i < 200; i++)); do
		url=$(sed -n 's/^Analyzer: //p' an.out)
		[[ -n $url ]] && break
		kill -0 "$an_pid" 2>/dev/null || break
		sleep 0.1
	done
	[[ $url =~ ^http://127\.0\.0\.1:([0-9]+)/\?token=([0-9a-f]{32})$ ]] || return 1
	port=${BASH_REMATCH[1]} token=${BASH_REMATCH[2]} base=http://127.0.0.1:${BASH_REMATCH[1]}
}
stop_analyzer() {
	kill -"$1" "$an_pid" 2>/dev/null
	local i
	for ((i = 0; i < 100; i++)); do
		kill -0 "$an_pid" 2>/dev/null || break
		sleep 0.1
	done
	# shellcheck disable=SC2034 # an_rc is the tests' to read
	if kill -0 "$an_pid" 2>/dev/null; then
		kill -KILL "$an_pid"
		wait "$an_pid" 2>/dev/null
		an_rc=124
	else
		wait "$an_pid"
		an_rc=$?
	fi
	an_pid=
}
trap '[[ -n $an_pid ]] && kill -KILL "$an_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
get() { curl -sf -b "pa_token_$port=$token" "$base/$1"; }
desc_experiment() {
	cc -O1 -g "$PA_TOP/tests/fixtures/desc_tree.c" -o desc_tree || return 1
	"$collect" -p hi -o d.er ./desc_tree tree3 >d.out 2>d.err && grep -qx ok d.out ||
		{ echo "collect desc_tree: $(head -c 300 d.err)"; return 1; }
	"$er_print" -header d.er | awk '/^Process tree:/ { f = 1; next } f && / pid / {
		match($0, /^ */); for (i = 1; i < NF; i++) if ($i == "pid") { print $(i + 1), (RLENGTH - 2) / 2; break } }
		f && !/ pid / { f = 0 }' >d.tree
}
heap_fork_experiment() {
	cc -O1 -g "$PA_TOP/tests/fixtures/heap_fork.c" -o heap_fork || return 1
	"$collect" -H on -o f.er ./heap_fork >f.out 2>f.err && grep -qx ok f.out ||
		{ echo "collect -H on heap_fork: $(head -c 300 f.err)"; return 1; }
}
