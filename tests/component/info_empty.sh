#!/usr/bin/env bash
# info_empty.sh - every information report on an experiment without any data
# files, as tests/tools/info_mkexp writes it: no threads, no samples, no pid,
# no rusage, no notes file.  Each report must succeed, say what is missing,
# and not trip the sanitizers.
. "$(dirname "$0")/info_common.bash"
clean() { # FILE: no sanitizer report
	! grep -Eq 'runtime error|AddressSanitizer|LeakSanitizer' "$1" || { echo "FAIL: sanitizer report in $1"; cat "$1"; fail=1; }
}

"$tools/info_mkexp" empty.er empty || exit 1

for c in header statistics experiment_list thread_list; do
	report "$c" empty.er >"empty.$c.out" 2>&1 || { echo "FAIL: $c on empty.er exited $?"; cat "empty.$c.out"; fail=1; }
	clean "empty.$c.out"
done

# No data files: no threads, no samples, no pid; the comment comes from log.xml.
has_line empty.header.out 'run 7: baseline'
has_line empty.header.out 'Process pid unknown (the collector did not report its start in the target)'
has_line empty.header.out 'Target exited with status 0'
has_line empty.statistics.out "$(printf '%50s: %s' 'Total Thread Time (sec.)' '2.100')"
has_line empty.statistics.out "$(printf '%50s: %s' 'User CPU' '0.    (  0. %)')"
has_line empty.statistics.out "$(printf '%50s: %s' 'Samples recorded' '    0')"
has_line empty.statistics.out "$(printf '%50s: %s' 'Process times and counters from' \
	'nothing (no resource usage or overview sample recorded)')"
has_line empty.experiment_list.out ' 1 yes   0 empty.er '
has_line empty.thread_list.out '  1 all     0 '
has_line empty.thread_list.out '(no threads recorded)'

exit $fail
