#!/usr/bin/env bash
# The analyzer against another local user (analyzer_lib.sh; issue 24).  Asserted:
#  - opening the browser puts no token on any command line: a fake xdg-open first on PATH
#    records its arguments and what ps shows; it gets one argument, the file:// URL of a
#    page that redirects to the URL the analyzer printed, created mode 0600 in a new 0700
#    directory under $XDG_RUNTIME_DIR when that is private, else under $TMPDIR
#    (percent-encoded when its name has a blank); no command line has the token; the page
#    and its directory are gone when the analyzer has stopped; xdg-open runs with no
#    signal blocked (the analyzer blocks SIGINT and SIGTERM for sigwait); with
#    --no-browser nothing is opened;
#  - started with a soft limit of 1024 open files, it raises its own to what 4096
#    connections need (within the hard limit); with 2,000 connections held open that
#    never finish a request (half with nothing sent, half with a request's first lines)
#    and 10 that trickle a byte a second (tests/tools/analyzer_flood.py), a normal
#    request with the token's cookie is answered (200) within 1 s; the server closes every one of them within 8 s of its connect (its
#    5 s request deadline, SERVER_REQUEST_DEADLINE_S, and 3 s for the reaper's slack and a
#    busy machine), answers again within 1 s, and stops with exit 0 (under ASan: nothing
#    leaked);
#  - analyzer.1 states server.h's connection limit, descriptor reserve, request deadline
#    and idle timeout.
. "$(dirname "$0")/analyzer_lib.sh" analyzer_security

# the fake xdg-open: its arguments, what ps shows while it runs, and the page it was given
mkdir -p fakebin rec
cat >fakebin/xdg-open <<'EOF'
#!/usr/bin/env bash
out=$FAKE_XDG_OUT
printf '%s\n' "$@" >"$out/argv.tmp"
awk '$1 == "SigBlk:" { print $2 }' /proc/self/status >"$out/sigblk"
ps -eww -o args >"$out/ps"
path=$(python3 -c 'import sys, urllib.parse as u; p = u.urlparse(sys.argv[1]); print(u.unquote(p.path) if p.scheme == "file" else "")' "${1:-}")
printf '%s\n' "$path" >"$out/path"
stat -c '%a %u %F' -- "$path" >"$out/page_mode" 2>&1
stat -c '%a %u' -- "${path%/*}" >"$out/dir_mode" 2>&1
cp -- "$path" "$out/page" 2>/dev/null
mv "$out/argv.tmp" "$out/argv"
EOF
chmod +x fakebin/xdg-open
export PATH=$tmp/fakebin:$PATH FAKE_XDG_OUT=$tmp/rec

# Start the analyzer with the browser, $XDG_RUNTIME_DIR $1 and $TMPDIR $2; wait for the fake's record.
browser_run() {
	rm -f rec/*
	XDG_RUNTIME_DIR=$1 TMPDIR=$2 start_analyzer --browser c.er || return 1
	local i
	for ((i = 0; i < 100; i++)); do
		[[ -f rec/argv ]] && return 0
		sleep 0.1
	done
	return 1
}
# The checks of one run whose page must be in a new directory under $1.
browser_checks() {
	local under=$1 what=$2 path
	path=$(cat rec/path)
	check "$what: xdg-open got one argument ($(tr '\n' ' ' <rec/argv))" test "$(wc -l <rec/argv)" = 1
	check "$what: it is a file:// URL" grep -q '^file:///' rec/argv
	check "$what: no token in xdg-open's arguments" eval '! grep -qF "$token" rec/argv'
	check "$what: no command line has the token ($(grep -cF "$token" rec/ps) do)" eval '! grep -qF "$token" rec/ps'
	check "$what: the page ($path) is in a new directory under $under" \
		eval '[[ $path == "$under"/pa-analyzer-??????/open.html ]]'
	check "$what: the page is a regular file of mode 0600, ours ($(cat rec/page_mode))" \
		test "$(cat rec/page_mode)" = "600 $(id -u) regular file"
	check "$what: its directory is mode 0700, ours ($(cat rec/dir_mode))" test "$(cat rec/dir_mode)" = "700 $(id -u)"
	check "$what: the page redirects to the URL printed ($url)" grep -qF "content=\"0;url=$url\"" rec/page
	check "$what: xdg-open has no signal blocked (SigBlk $(cat rec/sigblk))" test "$(cat rec/sigblk)" = 0000000000000000
	stop_analyzer TERM
	check "$what: SIGTERM: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0
	check "$what: the page and its directory are removed" test ! -e "${path%/*}"
}

mkdir -m 700 run && mkdir -m 755 shared && mkdir -m 700 "t d"
check "with the browser: starts, xdg-open runs" browser_run "$tmp/run" "$tmp/t d"
browser_checks "$tmp/run" "private XDG_RUNTIME_DIR"
check "XDG_RUNTIME_DIR not private: starts, xdg-open runs" browser_run "$tmp/shared" "$tmp/t d"
browser_checks "$tmp/t d" "shared XDG_RUNTIME_DIR"
check "the URL of a page under a name with a blank is percent-encoded ($(cat rec/argv))" grep -q '/t%20d/' rec/argv
check "nothing left in run/ and shared/" test -z "$(find run shared -mindepth 1)"
rm -f rec/*

# the limits of server.h, as analyzer.1 states them
sdef() { awk -v n="$1" '$1 == "#define" && $2 == n { print $3 }' "$PA_TOP/analyzer/server.h"; }
max_conns=$(sdef SERVER_MAX_CONNECTIONS) reserve=$(sdef SERVER_FD_RESERVE)
deadline=$(sdef SERVER_REQUEST_DEADLINE_S) idle=$(sdef SERVER_IDLE_TIMEOUT_S)
# shellcheck disable=SC2034 # read inside check's eval'd command
man=$PA_TOP/docs/man/analyzer.1
check "analyzer.1 says server.h's $max_conns connections, $((max_conns + reserve)) files, $deadline s deadline, $idle s timeout" \
	eval 'grep -q "holds up to $max_conns of them" "$man" && grep -q "RLIMIT_NOFILE, to $((max_conns + reserve)) when" "$man" &&
	grep -q "holds $reserve fewer" "$man" && grep -q "headers $deadline seconds after" "$man" &&
	grep -q "no progress for $idle seconds" "$man"'
bound=$((deadline + 3))

# 2,000 connections that never finish a request and 10 that trickle
hard=$(ulimit -Hn)
if [[ $hard != unlimited ]] && ((hard < 2200)); then
	note "hard RLIMIT_NOFILE $hard < 2200: no room for 2,000 connections, flood not tried"
else
	ulimit -Sn 1024
	check "starts with a soft limit of 1024 open files" start_analyzer c.er
	soft=$(awk '/^Max open files/ { print $4 }' "/proc/$an_pid/limits")
	want=$((max_conns + reserve))
	[[ $hard != unlimited ]] && ((hard < want)) && want=$hard
	check "it raised its soft limit of open files to $soft = $want (hard $hard)" test "$soft" = "$want"
	python3 "$PA_TOP/tests/tools/analyzer_flood.py" "$port" "pa_token_$port" "$token" 2000 10 $((bound + 1)) \
		>flood.out 2>&1
	cat flood.out
	fv() { awk -v k="$1" -v f="$2" '$1 == k { print $f }' flood.out; }
	check "2,010 connections opened" test "$(fv opened 2)" = 2010
	check "a normal request while they are open: 200 ($(fv served 2)) within 1 s ($(fv served 3) s)" \
		eval '[[ $(fv served 2) == 200 ]] && awk -v t="$(fv served 3)" "BEGIN { exit !(t < 1) }"'
	check "the 2,000 closed by the server ($(fv half_closed 2)) within $bound s ($(fv half_closed 3) s)" \
		eval '[[ $(fv half_closed 2) == 2000 ]] && awk -v t="$(fv half_closed 3)" -v b=$bound "BEGIN { exit !(t <= b) }"'
	check "the 10 trickling closed ($(fv trickle_closed 2)) within $bound s ($(fv trickle_closed 3) s)" \
		eval '[[ $(fv trickle_closed 2) == 10 ]] && awk -v t="$(fv trickle_closed 3)" -v b=$bound "BEGIN { exit !(t <= b) }"'
	check "then a normal request: 200 ($(fv served_after 2)) within 1 s ($(fv served_after 3) s)" \
		eval '[[ $(fv served_after 2) == 200 ]] && awk -v t="$(fv served_after 3)" "BEGIN { exit !(t < 1) }"'
	check "with --no-browser, no xdg-open" test ! -e rec/argv
	stop_analyzer TERM
	check "SIGTERM: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0
fi

echo "$checks checks, $failures failures"
((failures == 0))
