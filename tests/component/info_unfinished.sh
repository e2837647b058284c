#!/usr/bin/env bash
# info_unfinished.sh - every information report on a collection that did not
# finish, as tests/tools/info_mkexp writes it (no exit, rusage, end,
# collector_end or </experiment>; no thread ends; a torn block).  Each report
# must succeed, say what is missing, and not trip the sanitizers.
set -u
: "${PA_BUILD:?run through tests/run.sh}"
tools=$PA_BUILD/tests/tools
for t in info_mkexp info_driver; do
	[[ -x $tools/$t ]] || { echo "$tools/$t is not built"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export TZ=UTC
fail=0

# One report through er_print when it is built, else through the test driver.
report() { # CMD EXP...
	local cmd=$1
	shift
	if [[ -x ${PA_BIN:-}/er_print ]]; then
		"$PA_BIN/er_print" "-$cmd" "$@"
	else
		"$tools/info_driver" "$cmd" -- "$@"
	fi
}
has_line() { # FILE LINE: the exact line is in FILE
	grep -Fxq -- "$2" "$1" || { echo "FAIL: $1 has no line '$2'"; fail=1; }
}
clean() { # FILE: no sanitizer report
	! grep -Eq 'runtime error|AddressSanitizer|LeakSanitizer' "$1" || { echo "FAIL: sanitizer report in $1"; cat "$1"; fail=1; }
}

"$tools/info_mkexp" unfinished.er unfinished || exit 1

for c in header statistics experiment_list thread_list; do
	report "$c" unfinished.er >"unfinished.$c.out" 2>&1 || { echo "FAIL: $c on unfinished.er exited $?"; cat "unfinished.$c.out"; fail=1; }
	clean "unfinished.$c.out"
done

has_line unfinished.header.out 'Experiment did not finish (no exit recorded)'
has_line unfinished.header.out '*** Warning: log.xml is not closed: the collection did not finish or is still running'
has_line unfinished.statistics.out "$(printf '%50s: %s' 'Process times and counters from' \
	'the last overview sample (no resource usage at exit)')"
has_line unfinished.thread_list.out '  1 all     2 '

exit $fail
