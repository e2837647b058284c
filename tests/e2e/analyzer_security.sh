#!/usr/bin/env bash
# The analyzer against another local user (analyzer_lib.sh; issue 24).  Asserted:
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

# the limits of server.h, as analyzer.1 states them
sdef() { awk -v n="$1" '$1 == "#define" && $2 == n { print $3 }' "$PA_TOP/analyzer/server.h"; }
max_conns=$(sdef SERVER_MAX_CONNECTIONS) reserve=$(sdef SERVER_FD_RESERVE)
deadline=$(sdef SERVER_REQUEST_DEADLINE_S) idle=$(sdef SERVER_IDLE_TIMEOUT_S)
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
	stop_analyzer TERM
	check "SIGTERM: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0
fi

echo "$checks checks, $failures failures"
((failures == 0))
