#!/usr/bin/env bash
# info_header.sh - `er_print -header` on synthetic experiments written by
# tests/tools/info_mkexp (values documented there): target command, notes,
# warnings (collector's and the reader's), exit status or signal, times, the
# separator between experiments, and exp_id arguments.
. "$(dirname "$0")/info_common.bash"

for v in finished signal unfinished; do
	"$tools/info_mkexp" "$v.er" "$v" || exit 1
done

report header finished.er >fin.out 2>fin.err || { echo "FAIL: header exited $?"; cat fin.err; fail=1; }
# The block, in gprofng's order: name, notes, errors, warnings, run, host, parameters, times.
cat >fin.want <<'WANT'
Experiment: finished.er
run 7: baseline
No errors
*** Collector Warning: Collection interval timer period was changed (10007 -> 10000)
*** Warning: 1 of 6 clock samples (16.67%) were dropped by the collector (see -statistics); their CPU time went to the next sample of the same thread

Target command (64-bit): './prog -n 3'
Process pid 4242, ppid 4241
Current working directory: /home/u
Collector version: `0.1.0'; experiment version 1.11 (64-bit)
Host `vm', OS `Linux 6.1.0-18-amd64', page size 4096, architecture `x86_64'
  2 CPUs, clock speed 2445 MHz.
  Memory: 6170914 pages @  4096 = 24105 MB.
Data collection parameters:
  Clock-profiling, interval = 10007 microsecs.
  (effective interval 10000 microsecs.: CPU-time timers are limited by the kernel tick)
  User CPU, System CPU: not measured (no user/system split in this experiment: format before 1.10, or split off); Total CPU only
  Wait CPU, Sleep: not measured (no thread end recorded its run-queue wait: collect -t, no schedstat, or format before 1.9)
  Stack depth limit = 4096 frames

Experiment started Sun Nov 22 02:16:15 2026

Target exited with status 3
Experiment Ended: 2.100000000
Data Collection Duration: 2.100000000
WANT
# er_print may print lines of its own around the report: compare the block.
if ! grep -A24 -Fx 'Experiment: finished.er' fin.out | diff -u fin.want - ; then
	echo "FAIL: header of finished.er differs"
	fail=1
fi

report header signal.er >sig.out 2>&1 || { echo "FAIL: header (signal) exited $?"; fail=1; }
has_line sig.out 'Target terminated by signal 11 (SIGSEGV), core dumped'
lacks sig.out '^Target exited'

report header unfinished.er >unf.out 2>&1 || { echo "FAIL: header (unfinished) exited $?"; fail=1; }
has_line unf.out 'Experiment did not finish (no exit recorded)'
has_line unf.out '*** Collector Error: out of buffer space in thread 4243'
has_line unf.out '*** Warning: profile: truncated: the last 100 bytes are a partial block and were ignored'
has_line unf.out 'Data Collection Duration: 0.300000000'
lacks unf.out '^(No errors|No warnings|Experiment Ended|Target exited)'
lacks unf.out 'effective interval'

# Several experiments: gprofng's separator line between the blocks.
"$tools/info_driver" header -- finished.er unfinished.er >two.out 2>&1 || { echo "FAIL: two exited"; fail=1; }
[[ $(grep -c '^Experiment: ' two.out) == 2 ]] || { echo "FAIL: two.out should have 2 blocks"; fail=1; }
grep -A1 -Fx 'Data Collection Duration: 2.100000000' two.out | tail -n1 |
	grep -Fxq -- '----------------------------------------------------------------' ||
	{ echo "FAIL: no separator between the blocks"; fail=1; }

# exp_id: one experiment, or a clear error.
"$tools/info_driver" header 2 -- finished.er unfinished.er >one.out 2>&1 || { echo "FAIL: header 2"; fail=1; }
has_line one.out 'Experiment: unfinished.er'
lacks one.out '^Experiment: finished.er$|^---'
if "$tools/info_driver" header 3 -- finished.er >bad.out 2>&1; then
	echo "FAIL: header 3 of 1 experiment succeeded"
	fail=1
fi
grep -q "no experiment '3'" bad.out || { echo "FAIL: no message for header 3"; fail=1; }

# The experiment's own format version, from its data files' headers (not the reader's).
# (the u16 at EXP_FH_VERSION_MINOR, offset 10 of experiment/format.h, set to 5)
cp -r finished.er old.er
for f in old.er/*; do
	[[ -f $f && $f != *.xml ]] || continue
	python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(10); f.write((5).to_bytes(2, "little"))' "$f"
done
report header old.er >old.out 2>&1 || { echo "FAIL: header of a 1.5 experiment exited $?"; fail=1; }
has_line old.out "Collector version: \`0.1.0'; experiment version 1.5 (64-bit)"

((fail == 0)) || { echo "--- finished.er:"; cat fin.out; }
exit $fail
