#!/usr/bin/env bash
# er_archive archives only the load objects the reports will read: those a
# frame of a recorded call stack (clock sample or heap call) lies in, in the
# founder or any subexperiment (issue 10).  On synthetic experiments (mkexp)
# over a program and a library it maps:
#  - samples in the program only: the program is archived, the library is
#    not (nor listed in index.xml), and er_archive says how many it skipped;
#    -n names it; the report is the same from the archive once the program is gone;
#  - an empty founder whose subexperiment has samples in the library: the
#    library only;
#  - heap calls only (no clock samples): the objects on their stacks;
#  - nothing recorded anywhere (founder and subexperiment): one line, no
#    archives/ directory, exit 0; -q: silent;
#  - stacks whose frames lie in no load object: one line, nothing archived.
. "$(dirname "$0")/common.bash"
cd "$WORK" || exit 1
ARCHIVE=$PA_BIN/er_archive
export PA_CACHE_DIR=$WORK/cache
cp "$(fixture_prog)" "$WORK/uprog"
printf 'double lib_work(long n);\ndouble lib_work(long n) { double s = 0; for (long i = 0; i < n; i++) s += i; return s; }\n' >lib.c
cc -O0 -g -shared -fPIC lib.c -o "$WORK/libplug.so" || exit 1
prog=$WORK/uprog lib=$WORK/libplug.so
mk() { # OUT.er: script on stdin
	"$MKEXP" "$1" || { fail "mkexp $1"; exit 1; }
}
index_paths() { # EXP: the paths index.xml lists, sorted
	sed -n 's/.*<object path="\([^"]*\)".*/\1/p' "$1/archives/index.xml" | sort
}
expect() { # description, want, got
	if [[ $2 == "$3" ]]; then pass "$1"; else fail "$1: got '$3', want '$2'"; fi
}

# ---- samples in the program only
mk a.er <<EOS
object $prog
object $lib
thread 1
sample 1 20 10000000 work+4 slow+8 main+8
sample 1 10 10000000 work+4 fast+8 main+8
end 1 300000000
EOS
"$ER_PRINT" -functions a.er >before.txt 2>&1
"$ARCHIVE" -n -F -A copy a.er >n.out 2>&1
expect "-n names the library as skipped" "would skip (on no recorded call stack) $lib" "$(grep '^would skip' n.out)"
[[ ! -e a.er/archives ]] && pass "-n writes nothing" || fail "-n made a.er/archives"
"$ARCHIVE" -F -A copy a.er >a.out 2>&1
rc=$?
expect "exit status" 0 "$rc"
expect "index.xml lists the program only" "$prog" "$(index_paths a.er)"
[[ -z $(find a.er/archives -name libplug.so) ]] && pass "the library is not copied" || fail "the library was copied"
[[ -n $(find a.er/archives -type f -name uprog) ]] && pass "the program is copied" || fail "the program was not copied"
expect "one line counts what was skipped" "not archived: 1 mapped load object on no recorded call stack" \
	"$(grep '^not archived' a.out)"
mv "$prog" "$prog.away"
"$ER_PRINT" -functions a.er >after.txt 2>&1
if cmp -s before.txt after.txt && grep -q ' slow$' after.txt; then
	pass "program gone: the same -functions report, from the archive"
else
	fail "program gone: the report differs"
	diff before.txt after.txt
fi
mv "$prog.away" "$prog"

# ---- an empty founder; its subexperiment ran the library
mk b.er <<EOS
object $prog
object $lib
thread 1
end 1 1000000
EOS
mk b.er/_f1.er <<EOS
object $prog
object $lib
thread 1
sample 1 10 10000000 lib_work+4
end 1 100000000
EOS
"$ARCHIVE" -q -F -A copy b.er
expect "subexperiment: the library only, in the founder's archive" "$lib" "$(index_paths b.er)"
[[ ! -e b.er/_f1.er/archives ]] && pass "no archive in the subexperiment" || fail "the subexperiment has archives/"

# ---- heap calls only
mk h.er <<EOS
object $prog
object $lib
thread 1
heap 1 malloc 64 0x1000 work+4 main+8
heap 1 free 0 0x1000 -
end 1 1000000
EOS
"$ARCHIVE" -q -F -A copy h.er
expect "heap calls only: the objects on their stacks" "$prog" "$(index_paths h.er)"

# ---- nothing recorded, in the founder or its subexperiment
for x in e.er e.er/_f1.er; do
	mk "$x" <<EOS
object $prog
object $lib
thread 1
end 1 1000000
EOS
done
"$ARCHIVE" -F -A copy e.er >e.out 2>&1
rc=$?
expect "nothing recorded: exit status" 0 "$rc"
expect "nothing recorded: one line" \
	"e.er: nothing was recorded (no clock sample or heap call with a call stack); nothing archived" "$(cat e.out)"
[[ ! -e e.er/archives && -z $(find "$PA_CACHE_DIR" -path "$PA_CACHE_DIR/lines" -prune -o -type f -print 2>/dev/null) ]] &&
	pass "nothing recorded: no archives/, nothing cached" || fail "nothing recorded: something was archived"
"$ARCHIVE" -q e.er >q.out 2>&1
[[ ! -s q.out ]] && pass "nothing recorded, -q: silent" || fail "-q printed: $(cat q.out)"

# ---- stacks, but no frame in a load object
mk u.er <<EOS
object $prog
thread 1
sample 1 5 10000000 0x10 0x20
end 1 50000000
EOS
"$ARCHIVE" -F u.er >u.out 2>&1
expect "frames in no object: one line" "u.er: no load object is on a recorded call stack; nothing archived" "$(cat u.out)"
[[ ! -e u.er/archives ]] && pass "frames in no object: no archives/" || fail "frames in no object: archives/ made"
finish
