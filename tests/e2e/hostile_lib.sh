# shellcheck shell=bash
# hostile_lib.sh - helpers for tests/e2e/hostile_*.sh (sourced, not run).
# Each test runs tests/fixtures/hostile.c plain and under collect and checks
# that the program is unharmed (the same standard output and exit status)
# and that the experiment has the work done before the hostile event (and
# after it, where the collector can go on recording) within a tolerance of
# the CPU time the program measured with its own clocks.  A check that fails
# because of a known bug, described where it is called, is counted apart:
# the test then ends skipped (77) with the bug's name, so the suite stays
# green while the bug is open and the test passes once it is fixed.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	echo "helper sourced by tests/e2e/hostile_*.sh, not a test"
	exit 77
fi
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh" hostile
TOL=0.15 # the machine is shared and noisy: 15% of what the program measured
known=()
declare -A bug_text # ID -> one line on the bug, set by the test with bug()
note() { echo "# $*"; }

bug() { # ID TEXT: name a known bug the checks below may meet
	bug_text[$1]=$2
}

known_bug() { # ID TEXT: a check failed the way known bug ID makes it fail
	echo "KNOWN BUG $1: $2"
	[[ " ${known[*]} " == *" $1 "* ]] || known+=("$1")
}

hostile_end() { # exit 1 on any failure, 77 if only known bugs showed, else 0
	if ((fails)); then
		echo "$fails check(s) failed"
		exit 1
	fi
	if ((${#known[@]})); then
		local id line="skipped: every other check passed; known bug"
		for id in "${known[@]}"; do
			line+=" $id (${bug_text[$id]:-see the test})"
		done
		echo "$line"
		exit 77
	fi
	exit 0
}

cc -O1 -g -pthread "$PA_TOP/tests/fixtures/hostile.c" -o hostile || exit 1

plain() { # NAME ARGS...: ./hostile ARGS -> NAME.plain.out, .err, .rc
	local n=$1
	shift
	./hostile "$@" >"$n.plain.out" 2>"$n.plain.err"
	echo $? >"$n.plain.rc"
}

collected() { # NAME COLLECT-OPTIONS... -- ARGS...: collect OPTIONS -o NAME.er ./hostile ARGS -> NAME.out, .err, .rc
	local n=$1 opts=()
	shift
	while [[ $1 != -- ]]; do
		opts+=("$1")
		shift
	done
	shift
	"$PA_BIN/collect" "${opts[@]}" -o "$n.er" ./hostile "$@" >"$n.out" 2>"$n.err"
	echo $? >"$n.rc"
}

same() { # NAME [REGEX]: the same stdout (lines matching REGEX left out) and exit status
	local n=$1 re=${2:-^NO LINE IS LEFT OUT$}
	if [[ $(cat "$n.rc") != "$(cat "$n.plain.rc")" ]]; then
		bad "$n: exit status $(cat "$n.rc") under collect, $(cat "$n.plain.rc") plain"
		sed 's/^/    | /' "$n.err" | tail -5
	elif ! diff <(grep -Ev "$re" "$n.plain.out") <(grep -Ev "$re" "$n.out") >"$n.diff"; then
		bad "$n: standard output differs under collect"
		sed 's/^/    | /' "$n.diff"
	else
		ok "$n: the same output ($(grep -c . "$n.out") lines) and exit status $(cat "$n.rc")"
	fi
}

measured() { # FILE FN: the program's last "cpu FN SECONDS"
	awk -v f="$2" '$1 == "cpu" && $2 == f { v = $3 } END { print v }' "$1"
}

recorded() { # EXP FN: FN's inclusive CPU seconds in er_print -functions (empty if absent)
	[[ -s $1.functions ]] || "$PA_BIN/er_print" -metrics i.totalcpu:name -functions "$1" >"$1.functions" 2>&1
	awk -v f="$2" '$NF == f { print $1; exit }' "$1.functions"
}

within() { # GOT WANT [TOL]: |GOT - WANT| <= TOL * WANT
	awk -v g="${1:-0}" -v w="$2" -v t="${3:-$TOL}" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= t * w) }'
}

near() { # EXP FN WANT [WHAT]: FN recorded within TOL of WANT seconds
	local got
	got=$(recorded "$1" "$2")
	if within "$got" "$3"; then
		ok "$1: $2 recorded ${got} s of $3 s${4:+ ($4)}"
	else
		bad "$1: $2 recorded '${got:-nothing}' s, the program measured $3 s${4:+ ($4)}"
	fi
}

opens() { # EXP ENDING: er_print reads EXP, without errors, and its header says ENDING
	local h=$1.header
	if ! "$PA_BIN/er_print" -header "$1" >"$h" 2>&1; then
		bad "$1: er_print -header failed"
		sed 's/^/    | /' "$h" | head -20
	elif ! grep -q '^No errors' "$h"; then
		bad "$1: er_print reports errors"
		sed 's/^/    | /' "$h" | head -20
	elif ! grep -q "^$2" "$h"; then
		bad "$1: the header does not say '$2'"
		sed 's/^/    | /' "$h" | head -30
	else
		ok "$1: er_print reads it: $2"
	fi
}

leaks() { # EXP FN BYTES: er_print -leaks has FN's 8 leaked blocks, BYTES in all
	if "$PA_BIN/er_print" -leaks "$1" 2>&1 | awk -v f="$2" -v b="$3" '
		want && $1 == f { found = 1 } { want = $0 ~ ("Instances = 8, Bytes Leaked = " b "$") }
		END { exit !found }'; then
		ok "$1: -leaks: $2's 8 blocks, $3 bytes"
	else
		bad "$1: -leaks has no 8 blocks of $2 ($3 bytes)"
	fi
}
