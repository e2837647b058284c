# analyzer_lib.sh - shared by the analyzer tests (sourced; the runner skips *lib.sh):
# `. analyzer_lib.sh NAME`.  heap_lib.sh's scratch directory and check, then real
# experiments c.er (clock profiling) and h.er (clock and collect -H on) of
# tests/fixtures/export_prog.c.  Defines:
#   start_analyzer ARGS...   start the analyzer (--no-browser --port 0 ARGS) in the
#                            background: $an_pid, $base (http://127.0.0.1:PORT), $port,
#                            $token, $url (the line it printed); returns 1 if no URL came
#   stop_analyzer SIG        send SIG and wait: $an_rc is its exit status (124: still running
#                            after 10 s, then killed)
#   get PATH                 GET $base/PATH with the token's cookie, the body on stdout
#   er_total SPEC EXP        the values of <Total> in er_print's function list for SPEC
#   er_top EXP               er_print's top function by exclusive CPU time
#   secs NS                  nanoseconds as er_print prints seconds (%.3f)
. "$(dirname "$0")/heap_lib.sh" "$1"
er_print=$PA_BIN/er_print
analyzer=$PA_BIN/analyzer
[[ -x $analyzer ]] || { echo "no $analyzer"; exit 1; }
command -v curl >/dev/null || { echo "curl is missing"; exit 1; }
gcc -O0 -g -fno-builtin -fno-omit-frame-pointer -o export_prog "$PA_TOP/tests/fixtures/export_prog.c" ||
	{ echo "cannot build export_prog"; exit 1; }
for x in c h; do
	opt=()
	[[ $x == h ]] && opt=(-H on)
	out=$("$collect" "${opt[@]}" -o $x.er ./export_prog 2>err) && rc=0 || rc=$?
	[[ $out:$rc == "export_prog done:0" ]] || { echo "collect $x: '$out' rc=$rc: $(head -c 300 err)"; exit 1; }
done

an_pid=
start_analyzer() {
	"$analyzer" --no-browser --port 0 "$@" >an.out 2>an.err &
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
er_total() { "$er_print" -metrics "$1:name" -functions "$2" | awk '$NF == "<Total>" { NF--; print; exit }'; }
er_top() {
	"$er_print" -metrics e.totalcpu:name -sort e.totalcpu -functions "$1" |
		awk 'f { print $NF; exit } $NF == "<Total>" { f = 1 }'
}
secs() { awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e9 }'; }
