#!/usr/bin/env bash
# Hostile targets (issue #10): descriptors the collector does not own.
#  - dup2 over the low descriptors: /dev/null over 0, 1 and 2, a pipe over 3
#    to 9, written through and read back (with -H on);
#  - setrlimit(RLIMIT_NOFILE) down to 8, soft and hard, then opening files
#    until EMFILE and closing them again.
# Plain and under collect: the same output and exit status, and the work
# before the event (before_work), after it (after_work) and in a thread
# started before it that works only after it (early_work, late_work) recorded
# within 15% of the CPU time the program measured: the collector keeps no
# descriptor of its own below the program's limit that the program could
# clobber, and needs only a free one for a moment to add a data block.
# (Each thread's first sample after 2 ms of its CPU: after the event.)
set -u
. "$(dirname "$0")/hostile_lib.sh"
export PA_SAMPLER_FIRST_NS=2000000

check_all() { # NAME EVENT
	local n=$1
	opens $n.er "Target exited with status 0"
	near $n.er before_work "$(measured $n.err before_work)" "before $2"
	near $n.er after_work "$(measured $n.err after_work)" "after $2"
	near $n.er late_work "$(measured $n.err late_work)" "a thread started before $2"
	grep -q '<collector_end [^>]* block_failures="0"' $n.er/log.xml &&
		ok "$n.er: the collector's end is logged, no block failures" ||
		bad "$n.er: no <collector_end> with block_failures=\"0\" in log.xml"
}

plain dup2 dup2 150
collected dup2 -H on -- dup2 150
same dup2
grep -q '^dup2: ok, 7 bytes written through fds 3-9, 7 read back$' dup2.out &&
	ok "dup2: the program's descriptors 0 to 9 worked" || bad "dup2: $(head -1 dup2.out)"
check_all dup2 "the dup2s"
leaks dup2.er before_work 33936
leaks dup2.er after_work 34744

plain nofile nofile 8 150
collected nofile -- nofile 8 150
same nofile
grep -q '^nofile 8: 5 more opened, then EMFILE$' nofile.out &&
	ok "nofile: the program opened 5 more descriptors under a limit of 8" || bad "nofile: $(head -1 nofile.out)"
check_all nofile "setrlimit(RLIMIT_NOFILE, 8)"
hostile_end
