#!/usr/bin/env bash
# Threads the collector must not miss:
#  - a thread started by a constructor before main (col_ctor_thread) has a
#    THREAD_START (creator = the main thread), samples, and a THREAD_END
#    within 2% of the CPU time it measured itself;
#  - the same for a thread started by the constructor of a shared library
#    (libcolctor.so) that the loader initialises BEFORE libcollector.so: the
#    interposed pthread_create initialises the collector lazily;
#  - a thread created through pthread_create@GLIBC_2.2.5 (col_oldpc; checked
#    with readelf that the binary really imports that version) is profiled
#    the same way.
source "$(dirname "$0")/collector_lib.sh"
col_setup
col_cc ctor_thread
col_cc oldpc
gcc -O1 -g -fno-omit-frame-pointer -pthread -shared -fPIC -o "$COL_TMP/libcolctor.so" \
	"$PA_TOP/tests/fixtures/col_ctorlib.c" || col_fail "cannot build libcolctor.so"
col_cc ctorlib_main -L"$COL_TMP" -lcolctor -Wl,-rpath,"$COL_TMP"
readelf --dyn-syms -W "$COL_TMP/oldpc" | grep -q 'pthread_create@GLIBC_2.2.5' ||
	col_fail "col_oldpc does not import pthread_create@GLIBC_2.2.5"

check_thread() { # exp stderr-file marker min_samples
	local exp=$1 err=$2 marker=$3 min=$4 tid fx row
	tid=$(sed -n "s/^$marker tid=\([0-9]*\).*/\1/p" "$err")
	[[ -n $tid ]] || col_fail "$marker: the fixture did not report its thread"
	fx=$(sed -n "s/^cpu tid=$tid ns=\([0-9]*\)/\1/p" "$err")
	grep -q "^thread_start tid=$tid creator=[1-9]" "$exp.dump" || col_fail "$marker: no THREAD_START for tid $tid"
	row=$(col_thread_table "$exp.dump" | awk -v t="$tid" '$1 == t')
	read -r _ n w e <<<"$row"
	col_note "$marker tid=$tid samples=$n weights_ms=$((w / 1000000)) end_cpu_ms=$((e / 1000000)) fixture_ms=$((fx / 1000000))"
	((n >= min)) || col_fail "$marker: $n samples, want >= $min"
	[[ $e != - ]] || col_fail "$marker: no THREAD_END"
	local d=$((e - fx)); d=${d#-}
	((d * 50 <= fx)) || col_fail "$marker: THREAD_END cpu $e vs fixture $fx"
	# the first sample weighs the interval (997 us), the later ones the CPU since: at most one more than the CPU time
	((w < e + 997000)) || col_fail "$marker: weights exceed CPU time by an interval or more"
}

exp=$COL_TMP/ctor.er
col_run "$exp" "p=997" "$COL_TMP/ctor_thread" 2>"$COL_TMP/ctor.err"
((COL_RC == 0)) || col_fail "col_ctor_thread exited $COL_RC"
col_check_clean "$exp"
check_thread "$exp" "$COL_TMP/ctor.err" ctor_thread 80

exp=$COL_TMP/ctorlib.er
order=$(LD_DEBUG=files LD_PRELOAD=$COL_SO "$COL_TMP/ctorlib_main" 2>&1 | grep 'calling init' | grep -n -e libcolctor -e libcollector)
col_note "init order: $(echo $order | sed 's/[0-9]*:[[:space:]]*calling init://g')"
col_run "$exp" "p=997" "$COL_TMP/ctorlib_main" 2>"$COL_TMP/ctorlib.err"
((COL_RC == 0)) || col_fail "col_ctorlib_main exited $COL_RC"
col_check_clean "$exp"
check_thread "$exp" "$COL_TMP/ctorlib.err" lib_thread 60

exp=$COL_TMP/old.er
col_run "$exp" "p=997" "$COL_TMP/oldpc" 2>"$COL_TMP/old.err"
((COL_RC == 0)) || col_fail "col_oldpc exited $COL_RC"
col_check_clean "$exp"
check_thread "$exp" "$COL_TMP/old.err" old_thread 80
echo "PASS collector_threads_special"
