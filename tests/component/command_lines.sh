#!/usr/bin/env bash
# er_print's command lines (issue #24): a line of any length is one command,
# from standard input, -script and a defaults file alike (never cut at 8191
# or 4095 bytes with its tail run as a command of its own), and so is each
# long argument (object lists); a line with a NUL byte is
# refused whole with a message naming where it is, not run as the part before
# the NUL; a line past the 1 MiB limit is refused, with what follows it; a
# command that fails makes the exit status 1 wherever it came from.
. "$(dirname "$0")/common.bash"
prog=$(fixture_prog)
cat >"$WORK/s.txt" <<EOS
object $prog
thread 100
thread 101
sample 100 200 10000000 work+10 slow+9 main+42
sample 101 100 10000000 work+20 fast+9
end 100 2050000000
end 101 1100000000
EOS
"$MKEXP" "$WORK/x.er" <"$WORK/s.txt" || exit 1
cd "$WORK" || exit 1
mkdir -p home run
export HOME=$WORK/home PA_SYSTEM_RC=$WORK/system.rc
has() { if grep -qF -- "$3" "$2"; then pass "$1"; else fail "$1: no '$3' in:"; head -c 3000 "$2"; fi; }
hasnt() { if grep -qF -- "$3" "$2"; then fail "$1: '$3' in:"; head -c 3000 "$2"; else pass "$1"; fi; }
status_is() { if [[ $2 == "$3" ]]; then pass "$1: exit $2"; else fail "$1: exit $2, not $3"; fi; }
ALL="3.150 100.00  3.150 100.00   <Total>"   # both threads
ONE="2.050 100.00  2.050 100.00   <Total>"   # thread 1

# 1. A `setpath` padded so that its first 8191 bytes end where `outfile FILE` begins:
# the old reader ran that tail as a command and created FILE.
python3 -c '
import sys
head = "setpath /"
sys.stdout.write(head + "a" * (8191 - len(head)) + "outfile '"$WORK"'/PWNED\nfunctions\n")' >long.cmds
"$ER_PRINT" x.er <long.cmds >o1 2>&1
status_is "stdin: the long setpath is one command" $? 0
[[ -e PWNED ]] && fail "stdin: the tail of a long line ran as a command (outfile)" || pass "stdin: no outfile from the tail"
has "stdin: the functions after it ran" o1 "$ALL"
"$ER_PRINT" -script long.cmds x.er >o2 2>&1
status_is "-script: the long setpath is one command" $? 0
[[ -e PWNED ]] && fail "-script: the tail of a long line ran as a command" || pass "-script: no outfile from the tail"
has "-script: the functions after it ran" o2 "$ALL"
# nested: a script that runs the script
printf 'script %s\n' "$WORK/long.cmds" >outer.cmds
"$ER_PRINT" x.er <outer.cmds >o3 2>&1
status_is "script from stdin" $? 0
[[ -e PWNED ]] && fail "script: the tail ran" || pass "script from stdin: no outfile from the tail"

# 2. A defaults file: a setpath line whose first 4095 bytes end where `limit 1` begins.
python3 -c '
import sys
head = "setpath /"
sys.stdout.write(head + "b" * (4095 - len(head)) + "limit 1\n")' >run/.er.rc
(cd run && "$ER_PRINT" -functions ../x.er) >o4 2>&1
hasnt "./.er.rc: the tail of a long line is not run (no limit)" o4 "Print limit set"
has "./.er.rc: every function is listed" o4 "   main"
hasnt "./.er.rc: no warning about the long line" o4 "er_print:"
rm run/.er.rc

# 3. A long argument: an object list past 4 KiB (it was cut at 4095 bytes).
python3 -c 'import sys; sys.stdout.write("object_hide " + "," * 5000 + "prog\nfunctions\n")' >hide.cmds
"$ER_PRINT" -script hide.cmds x.er >o5 2>&1
status_is "object_hide with a 5 KiB list" $? 0
has "object_hide: the object named after 5000 commas is hidden" o5 "   <prog>"

# 4. A NUL byte in a filter: the line is refused whole (not run as "filters THRID==1").
printf 'filters THRID==1\0 || THRID==2\nfunctions\n' >nul.cmds
"$ER_PRINT" x.er <nul.cmds >o7 2>&1
status_is "stdin: a line with a NUL byte" $? 1
has "stdin: the NUL line is refused, naming where" o7 "er_print: standard input:1: the line has a NUL byte; it is not run"
has "stdin: no filter was set (both threads)" o7 "$ALL"
"$ER_PRINT" -script nul.cmds x.er >o8 2>&1
status_is "-script: a line with a NUL byte" $? 1
has "-script: the NUL line is refused, naming the file and line" o8 "er_print: nul.cmds:1: the line has a NUL byte; it is not run"
has "-script: no filter was set" o8 "$ALL"
printf 'limit 1\0 0\n' >run/.er.rc
(cd run && "$ER_PRINT" -functions ../x.er) >o9 2>&1
has "./.er.rc: the NUL line is refused, naming the file and line" o9 "er_print: .er.rc:1: the line has a NUL byte; it is not run"
has "./.er.rc: its limit was not set" o9 "   main"
rm run/.er.rc
printf 'filters THRID==1\nfunctions\n' | "$ER_PRINT" x.er >o10 2>&1
status_is "stdin: the same filter without the NUL" $? 0
has "stdin: the filter without the NUL applies" o10 "$ONE"

# 5. A line past the limit (1 MiB) is refused, and what follows it is not read.
python3 -c 'import sys; sys.stdout.write("setpath /" + "d" * (1 << 20) + "\nfunctions\n")' >huge.cmds
"$ER_PRINT" x.er <huge.cmds >o11 2>&1
status_is "stdin: a line past 1 MiB" $? 1
has "stdin: the long line is refused" o11 "er_print: standard input:1: the line is longer than 1048576 bytes; it is not run, nor what follows it"
hasnt "stdin: nothing after it ran" o11 "<Total>"
python3 -c 'import sys; sys.stdout.write("setpath /" + "d" * ((1 << 20) - 9) + "\nfunctions\n")' >max.cmds
"$ER_PRINT" x.er <max.cmds >o12 2>&1
status_is "stdin: a line of exactly 1 MiB" $? 0
has "stdin: ... is run, and so is what follows" o12 "$ALL"

# 6. Exit status: a failing command is a failure wherever it comes from.
printf 'bogus\nfunctions\n' >bad.cmds
"$ER_PRINT" x.er <bad.cmds >o13 2>&1
status_is "stdin: an unknown command" $? 1
has "stdin: the commands after it still ran" o13 "$ALL"
printf 'limit x\nfunctions\n' | "$ER_PRINT" x.er >o14 2>&1
status_is "stdin: a command that fails" $? 1
printf 'limit x\n' | "$ER_PRINT" -functions - x.er >o15 2>&1
status_is "'-' among the commands: a stdin command that fails" $? 1
"$ER_PRINT" -script bad.cmds x.er >o16 2>&1
status_is "-script: an unknown command" $? 1
"$ER_PRINT" -limit x -functions x.er >o17 2>&1
status_is "command line: a command that fails" $? 1
printf 'functions\nquit\n' | "$ER_PRINT" x.er >o18 2>&1
status_is "stdin: every command succeeded" $? 0
finish
