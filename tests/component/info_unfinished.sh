#!/usr/bin/env bash
# info_unfinished.sh - every information report on a collection that did not
# finish, as tests/tools/info_mkexp writes it (no exit, rusage, end,
# collector_end or </experiment>; no thread ends; a torn block).  Each report
# must succeed, say what is missing, and not trip the sanitizers.
. "$(dirname "$0")/info_common.bash"
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
