#!/usr/bin/env bash
# collect with the real libcollector.so (skipped while it is not built):
# the experiment's log.xml and map.xml stay well-formed with the collector's
# elements between collect's head and tail, and exit status and signals
# still propagate.
set -u
: "${PA_BIN:?}" "${PA_LIB:?}"
collect=$PA_BIN/collect
lib=$PA_LIB/libcollector.so
[[ -x $collect ]] || { echo "no $collect"; exit 1; }
[[ -f $lib ]] || { echo "skip: $lib not built"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/collect_real.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export PA_COLLECTOR_LIB=$lib
failures=0 checks=0
check() {
	local d=$1; shift
	checks=$((checks + 1))
	"$@" || { failures=$((failures + 1)); echo "not ok: $d"; }
}
well_formed() { python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$1"; }

"$collect" -o busy.er sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done' 2>err
check "busy loop exit 0 (stderr: $(head -c 300 err))" test $? = 0
check "log.xml well-formed" well_formed busy.er/log.xml
check "map.xml well-formed" well_formed busy.er/map.xml
check "log.xml has collect's tail" grep -q '<exit tstamp_ns="[0-9]*" status="0"/>' busy.er/log.xml
check "log.xml has the collector's start" grep -q '<collector_start ' busy.er/log.xml
check "collect's <start> precedes the collector's elements" \
	test "$(grep -n '<start ' busy.er/log.xml | cut -d: -f1)" -lt "$(grep -n '<collector_start ' busy.er/log.xml | cut -d: -f1)"
check "map.xml lists the executable" grep -q 'kind="exe"' busy.er/map.xml

"$collect" -o exit3.er sh -c 'exit 3' 2>/dev/null
check "exit status 3 propagates" test $? = 3
"$collect" -o segv.er sh -c 'kill -SEGV $$' 2>/dev/null
check "SIGSEGV gives 139" test $? = 139
check "log.xml records the signal" grep -q 'signal="11" signame="SIGSEGV"' segv.er/log.xml
check "log.xml well-formed after a signal" well_formed segv.er/log.xml
got=$(echo hi | "$collect" -o cat.er cat 2>/dev/null)
check "stdin/stdout passthrough" test "$got" = hi

echo "$checks checks, $failures failed"
((failures == 0))
