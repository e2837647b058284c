#!/usr/bin/env bash
# info_lists.sh - `er_print -experiment_list` and `-thread_list` on synthetic
# experiments written by tests/tools/info_mkexp (values documented there):
# gprofng's `ID Sel PID Experiment` and `Exp Sel Total` tables (with their
# trailing spaces), then the per-thread table, unselected threads marked '-'.
. "$(dirname "$0")/info_common.bash"

for v in finished unfinished; do
	"$tools/info_mkexp" "$v.er" "$v" || exit 1
done

report experiment_list finished.er >el.out 2>&1 || { echo "FAIL: experiment_list exited $?"; fail=1; }
has_line el.out 'ID Sel  PID Experiment  '
has_line el.out '== === ==== =========== '
has_line el.out ' 1 yes 4242 finished.er '

"$tools/info_driver" experiment_list -- finished.er unfinished.er >el2.out 2>&1 || { echo "FAIL: el2"; fail=1; }
has_line el2.out ' 1 yes 4242 finished.er '
has_line el2.out ' 2 yes 4242 unfinished.er '

report thread_list finished.er >tl.out 2>&1 || { echo "FAIL: thread_list exited $?"; fail=1; }
has_line tl.out 'Exp Sel Total '
has_line tl.out '=== === ===== '
has_line tl.out '  1 all     2 '
has_line tl.out 'Experiment 1: finished.er'
has_line tl.out 'Thread  TID      Start (sec.)  End (sec.)   CPU (sec.)  Wait (sec.)  Sleep (sec.)  Samples  Start routine'
has_line tl.out '     1  4242            0.001       2.000       0.040             -             -        3  main thread'
has_line tl.out '     2  4243            0.010       1.000       0.020             -             -        2  0x401136'
! grep -q '^\*' tl.out || { echo "FAIL: '*' note without a sampled-only thread"; fail=1; }

# Threads that did not end: sampled CPU time, marked '*', and the note.
report thread_list unfinished.er >tu.out 2>&1 || { echo "FAIL: thread_list (unfinished) exited $?"; fail=1; }
has_line tu.out '     1  4242            0.001           -       0.030*            -             -        3  main thread'
has_line tu.out '     2  4243            0.010           -       0.020*            -             -        2  0x401136'
grep -q '^\* CPU time of the samples' tu.out || { echo "FAIL: no note for '*'"; fail=1; }

# A selection: Sel shows it per experiment, unselected threads get '-'.
"$tools/info_driver" -select 2 thread_list -- finished.er >ts.out 2>&1 || { echo "FAIL: select 2"; fail=1; }
has_line ts.out '  1 2       2 '
has_line ts.out '    -1  4242            0.001       2.000       0.040             -             -        3  main thread'
has_line ts.out '     2  4243            0.010       1.000       0.020             -             -        2  0x401136'
"$tools/info_driver" -select 2:1 thread_list -- finished.er unfinished.er >t2.out 2>&1 || { echo "FAIL: 2:1"; fail=1; }
has_line t2.out 'Exp Sel  Total '
has_line t2.out '=== ==== ===== '
has_line t2.out '  1 none     2 '
has_line t2.out '  2 1        2 '

((fail == 0)) || { for f in el.out tl.out; do echo "--- $f:"; cat "$f"; done; }
exit $fail
