#!/usr/bin/env bash
# Damaged experiments get a clear message naming the file and never a crash
# (er_print runs under ASan+UBSan in the test build): what can be used is used.
. "$(dirname "$0")/common.bash"
prog=$(fixture_prog)
cat >"$WORK/s.txt" <<EOS
object $prog
thread 100
sample 100 3000 10000000 work+10 slow+9 main+42
sample 100 1000 10000000 work+20 fast+9 both+8 main+16
end 100 40000000000
EOS
cd "$WORK" || exit 1
run() { # name expected-exit pattern args...
	local name=$1 want=$2 pat=$3; shift 3
	"$ER_PRINT" "$@" >"out.$name" 2>&1
	local rc=$?
	if ((rc >= 128)) || grep -q "Sanitizer\|runtime error" "out.$name"; then fail "$name crashed (rc $rc)"; cat "out.$name"; return; fi
	if [[ $want != any && $rc != "$want" ]]; then fail "$name: exit $rc, expected $want"; cat "out.$name"; return; fi
	grep -q -- "$pat" "out.$name" && pass "$name" || { fail "$name: no '$pat'"; cat "out.$name"; }
}
# 1. a truncated profile: the partial last block is reported, the rest is used
"$MKEXP" --damage truncate-profile t.er <s.txt || exit 1
run truncated 0 "profile: truncated" -header -functions t.er
grep -q "   work$" out.truncated && pass "truncated: work still listed" || fail "truncated: no work row"
# 2. a corrupt block magic: that block is skipped with a warning
"$MKEXP" --damage bad-magic m.er <s.txt || exit 1
run bad-magic 0 "damaged block" -header m.er
# 3. log.xml cut in the middle of an element: the collection did not finish
"$MKEXP" --damage torn-log l.er <s.txt || exit 1
run torn-log 0 "did not finish" -header -functions l.er
# 4. garbage in a stack record
"$MKEXP" --damage garbage-stacks g.er <s.txt || exit 1
run garbage-stacks 0 "stacks:" -header -functions g.er
# 5. a damaged file header: the file is ignored with a message naming it
"$MKEXP" --damage bad-header h.er <s.txt || exit 1
run bad-header 0 "profile: not an experiment data file" -header h.er
# 6. not an experiment at all
mkdir -p empty.er
run no-log 1 "empty.er/log.xml: missing" -functions empty.er
run no-such 1 "nosuch.er: No such file or directory" -functions nosuch.er
echo "<experiment><unclosed" >notxml.er 2>/dev/null; rm -f notxml.er; mkdir notxml.er
printf '<?xml version="1.0"?>\n<experiment>\n<<<garbage>>>\n' >notxml.er/log.xml
printf '%.0s<x/>' {1..200} >>notxml.er/log.xml
printf '</experiment>\n' >>notxml.er/log.xml
run bad-xml 1 "notxml.er/log.xml: malformed XML at line 3" -functions notxml.er
touch afile
run not-dir 1 "not an experiment" -functions afile
# 7. bad commands and arguments
run unknown-cmd 2 "unknown command 'bogus'" -bogus t.er
run bad-metric 1 "unknown metric 'nosuch'" -metrics e.nosuch t.er
run bad-limit 1 "not a non-negative number" -limit abc t.er
run bad-thread 1 "invalid selection" -thread_select 3-1 t.er
run no-func 1 "no function named 'nosuch'" -fsingle nosuch t.er
run no-exp 2 "no experiment given" -functions
finish
