#!/usr/bin/env bash
# collect's command line and launcher behaviour, independent of the real
# collector: PA_COLLECTOR_LIB points at a no-op shared library built here.
# Checks usage/--help/-V, -n, bad values and targets (exit codes, nothing left
# behind), experiment numbering, -C, exit status and signal propagation,
# stdin/stdout passthrough, well-formed log.xml, and that --help matches
# docs/man/collect.1.
set -u
: "${PA_TOP:?}" "${PA_BIN:?}"
collect=$PA_BIN/collect
[[ -x $collect ]] || { echo "no $collect"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/collect_cli.XXXXXX")
trap 'umount "$tmp/work/full" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failures=0 checks=0

ok()   { checks=$((checks + 1)); }
bad()  { checks=$((checks + 1)); failures=$((failures + 1)); echo "not ok: $*"; }
check() { # description, command...
	local d=$1; shift
	if "$@"; then ok; else bad "$d"; fi
}
# expect_rc WANT description command... ; stdout/stderr kept in out/err
expect_rc() {
	local want=$1 d=$2; shift 2
	"$@" >out 2>err </dev/null
	local rc=$?
	if ((rc == want)); then ok; else bad "$d: exit $rc, want $want; stderr: $(head -c 300 err)"; fi
}
no_experiments() { # description
	local left
	left=$(find . -maxdepth 2 -name '*.er' | head -n 3)
	if [[ -z $left ]]; then ok; else bad "$1: left $left"; fi
}
well_formed() { python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$1"; }

echo 'void pa_noop(void); void pa_noop(void) {}' >noop.c
cc -shared -fPIC -o noop.so noop.c || exit 1
export PA_COLLECTOR_LIB=$tmp/noop.so
mkdir work && cd work || exit 1

# ---- informational modes
expect_rc 0 "no arguments" "$collect"
check "usage mentions defaults" grep -q 'Defaults: clock profiling on, 10.007 ms' out
check "usage mentions depth limit" grep -q 'depth limit 4096' out
check "usage mentions test.N.er" grep -q 'test.N.er' out
check "usage says clock profiling supported" grep -q 'clock profiling: yes' out
check "usage reports hardware counters" grep -Eq 'hardware counters: (yes|no)' out
check "usage reports CPUs" grep -Eq 'CPUs: [0-9]+ online' out
check "usage reports CPU-timer limit" grep -Eq 'CPU-timer limit: ([0-9]+ samples/s|unknown)' out
expect_rc 0 "--help" "$collect" --help
check "--help prints usage" grep -q '^Usage: collect \[OPTIONS\] TARGET' out
cp out "$tmp/help.txt"
expect_rc 0 "-V" "$collect" -V
check "-V text" grep -Eq '^collect \(Performance Analyzer for Linux\) [0-9]+\.[0-9]+' out
expect_rc 0 "-h" "$collect" -h
check "-h has the aliased list" grep -q '^Aliased HW counters available for profiling:$' out
check "-h has the raw list" grep -q '^Raw HW counters available for profiling:$' out
check "-h lists page-faults in the manual's format" \
	grep -Eq "^page-faults,1009 \('Page Faults', alias for perf::PAGE-FAULTS; events\)$" out
check "-h lists task-clock" grep -Eq '^task-clock,[0-9]+ \(.*; nanoseconds\)$' out
check "-h lists libpfm4's perf events" grep -q '^perf::PERF_COUNT_SW_CONTEXT_SWITCHES,1000003 (events)$' out
expect_rc 0 "-h list" "$collect" -h list
expect_rc 2 "-h with an unknown counter" "$collect" -h nosuchcounter true
check "-h unknown counter message" grep -q "unknown counter 'nosuchcounter'" err
expect_rc 2 "-h with a bad interval" "$collect" -h page-faults,0 true
check "-h bad interval message" grep -q "invalid interval '0' for page-faults" err
expect_rc 2 "-h with nine counters" "$collect" -h cs,faults,page-faults,minor-faults,major-faults,task-clock,cpu-clock,migrations,cpu-migrations true
check "-h at most 8" grep -q "at most 8 counters" err
expect_rc 2 "-h a counter twice" "$collect" -h cs,1,cs,2 true
check "-h twice message" grep -q "counter cs given twice" err
expect_rc 0 "-h dry run" "$collect" -n -h page-faults,1,cs,hi,task-clock,lo true
check "-h dry run: clock off without -p" grep -q 'clock profiling disabled' out
check "-h dry run: intervals 1, hi, lo" grep -q 'h=3;h0=1:2:0:0:0:0:1:page-faults;h1=1:3:0:0:0:0:11:cs;h2=1:1:0:0:0:0:100000007:task-clock' out
expect_rc 0 "-h with -p on dry run" "$collect" -n -p on -h task-clock true
check "-h with -p on keeps the clock" grep -q 'clock profiling enabled, 10.007 millisec' out
no_experiments "informational modes"

# ---- --help matches the man page (synopsis and option tags)
man=$PA_TOP/docs/man/collect.1
sed -n '/^Usage: /,/^[^ ]/p' "$tmp/help.txt" | sed '$d' | sed 's/^Usage: //; s/^ *//' >"$tmp/help_syn"
sed -n '/^\.SH SYNOPSIS/,/^\.SH/p' "$man" | grep -v '^\.' | sed 's/\\f[BIR]//g; s/\\-/-/g' >"$tmp/man_syn"
check "synopsis matches man page" cmp -s "$tmp/help_syn" "$tmp/man_syn" || diff "$tmp/help_syn" "$tmp/man_syn" >&2
grep -E '^  -' "$tmp/help.txt" | sed -E 's/^  (-[^ ]*( [^ ]+)?) {2,}.*/\1/; s/^  (--) .*/\1/' >"$tmp/help_opts"
sed -n '/^\.SH OPTIONS/,/^\.SH [^O]/p' "$man" | awk '/^\.TP/{getline; print}' | sed 's/^\.B //; s/\\-/-/g; s/"//g' >"$tmp/man_opts"
check "options match man page" cmp -s "$tmp/help_opts" "$tmp/man_opts" || diff "$tmp/help_opts" "$tmp/man_opts" >&2
check "some options were compared" test "$(wc -l <"$tmp/help_opts")" -ge 10
check "synopsis was compared" test "$(wc -l <"$tmp/help_syn")" -eq 4

# ---- dry run
expect_rc 0 "-n" "$collect" -n -p hi -t 1-5 -C note true
# shellcheck disable=SC2010 # any name but out and err is a failure, however odd it is
check "-n creates nothing" test -z "$(ls -A | grep -vxE 'out|err')"
check "-n target" grep -q 'target = true' out
check "-n expt_name" grep -q 'expt_name = test.1.er' out
check "-n interval in ms" grep -q 'clock profiling enabled, 0.997 millisec.' out
check "-n follows descendants by default" grep -q 'descendant processes will be followed' out
check "-n duration" grep -q 'data-collection duration, 1-5 secs.' out
check "-n depth" grep -q 'call stack depth limit, 4096 frames' out
check "-n descriptor" grep -q 'data descriptor: "p=997;d=4096;t=1:5"' out
expect_rc 0 "-n -F off" "$collect" -n -F off true
check "-n -F off" grep -q 'descendant processes will not be followed' out
check "-n -F off descriptor" grep -q 'data descriptor: "p=10007;d=4096;F=0"' out
expect_rc 0 "-n -F =regex" "$collect" -n -F '=cc1|as' true
check "-n -F =regex" grep -qF "descendant processes matching 'cc1|as' will be followed" out
check "-n host" grep -Eq "host: .*ncpus = [0-9]+, clock frequency [0-9]+ MHz" out
check "-n memory" grep -Eq "memory: +[0-9]+ pages @ [0-9]+ bytes" out
expect_rc 0 "-n -p 2.5" "$collect" -n -p 2.5 true
check "-p 2.5 is 2.500 ms" grep -q 'clock profiling enabled, 2.500 millisec.' out
expect_rc 0 "-n -p 500u" "$collect" -n -p 500u true
check "-p 500u is 0.500 ms" grep -q '0.500 millisec' out
expect_rc 0 "-n -p lo" "$collect" -n -p lo true
check "-p lo" grep -q '100.003 millisec' out
expect_rc 0 "-n -t 2m" "$collect" -n -t 2m true
check "-t 2m descriptor" grep -q ';t=0:120"' out
expect_rc 0 "-n -p off" "$collect" -n -p off true
check "-p off warns" grep -q 'no function level data requested; only statistics will be collected' err
check "-p off descriptor" grep -q '"p=0;d=4096"' out
no_experiments "dry runs"

# ---- bad values, unknown options, bad targets: exit codes, nothing created
expect_rc 2 "-p abc" "$collect" -p abc true
check "-p abc message" grep -qF "collect: -p: invalid interval 'abc' (expected on, off, lo, hi or milliseconds)" err
for v in 0.1 0.4 1001 2000m 100u -5 1e3 1.2.3 ''; do
	expect_rc 2 "-p '$v'" "$collect" -p "$v" true
	check "-p '$v' message names option" grep -q 'collect: -p: ' err
done
expect_rc 2 "-p without value" "$collect" -p
expect_rc 2 "-t x" "$collect" -t x true
check "-t message" grep -q "collect: -t: invalid duration 'x'" err
expect_rc 2 "-t 5-2" "$collect" -t 5-2 true
expect_rc 2 "-t 0" "$collect" -t 0 true
expect_rc 2 "-S bad" "$collect" -S sometimes true
for v in on KILL URG SEGV 0 99; do
	expect_rc 2 "-l $v" "$collect" -l $v true
	check "-l $v message" grep -q "collect: -l: invalid signal '$v'" err
done
expect_rc 2 "-y USR2,x" "$collect" -y USR2,x true
check "-y USR2,x message" grep -q "collect: -y: invalid value 'USR2,x'" err
expect_rc 2 "-l and -y the same signal" "$collect" -l USR1 -y SIGUSR1,r true
check "-l/-y same signal message" grep -q "collect: -l and -y need different signals" err
expect_rc 2 "unknown option" "$collect" -Z true
check "unknown option message" grep -q 'collect: unknown option -Z' err
expect_rc 2 "unknown long option" "$collect" --frobnicate true
for o in M m j J a L O P c I N r; do
	expect_rc 2 "-$o" "$collect" -$o on true
	check "-$o message" grep -q "collect: option -$o is not supported yet" err
done
for o in x R; do
	expect_rc 2 "-$o" "$collect" -$o true
	check "-$o message" grep -q "collect: option -$o is not supported yet" err
done
for v in sometimes -5 1x 2000000000 ''; do
	expect_rc 2 "-s '$v'" "$collect" -s "$v" true
	check "-s '$v' message" grep -qF "collect: -s: invalid value '$v' (expected on, off, calibrate, all or a threshold in microseconds)" err
done
expect_rc 2 "-A bad value" "$collect" -A sometimes true
check "-A message" grep -qF "collect: -A: invalid value 'sometimes' (expected on, off or copy)" err
expect_rc 2 "-F bad value" "$collect" -F sometimes true
check "-F message" grep -qF "collect: -F: invalid value 'sometimes' (expected on, off, all or =REGEX)" err
expect_rc 2 "-F bad regex" "$collect" -F '=(' true
check "-F regex message" grep -q "collect: -F: invalid regular expression '(': " err
expect_rc 2 "-F empty regex" "$collect" -F = true
expect_rc 2 "-o without .er" "$collect" -o abc true
check "-o message" grep -q "collect: -o: experiment name 'abc' must end in .er" err
expect_rc 2 "-d missing" "$collect" -d nosuchdir true
check "-d message names the directory" grep -q "nosuchdir" err
touch afile
expect_rc 2 "-d a file" "$collect" -d afile true
rm afile
expect_rc 2 "11 comments" "$collect" -C 1 -C 2 -C 3 -C 4 -C 5 -C 6 -C 7 -C 8 -C 9 -C 10 -C 11 true
expect_rc 2 "no target" "$collect" -p on
check "no target message" grep -q 'no target' err
expect_rc 127 "missing target" "$collect" nosuch_program_xyz
check "missing target message" grep -qF "collect: cannot execute 'nosuch_program_xyz': No such file or directory" err
expect_rc 127 "missing target path" "$collect" ./nosuch
printf 'echo hi\n' >noexec.sh
expect_rc 126 "non-executable target" "$collect" ./noexec.sh
check "non-executable message" grep -q "cannot execute './noexec.sh': Permission denied" err
rm noexec.sh
mkdir adir
expect_rc 126 "directory target" "$collect" ./adir
rmdir adir
# exec fails in the child (bad interpreter): the half-made experiment is removed
printf '#!/nonexistent/interpreter\n' >badinterp.sh
chmod +x badinterp.sh
expect_rc 127 "bad interpreter" "$collect" ./badinterp.sh
check "bad interpreter message" grep -q "cannot execute './badinterp.sh'" err
rm badinterp.sh
PA_COLLECTOR_LIB=$tmp/nosuch.so expect_rc 1 "missing collector library" "$collect" true
check "missing collector message" grep -q 'cannot find libcollector.so' err
no_experiments "errors"

# ---- an unwritable place and a full disk: exit 1, message naming the path, nothing left
if [[ -d /sys/kernel ]] && ! mkdir /sys/collect_cli_probe 2>/dev/null; then
	(cd /sys && "$collect" true >"$tmp/out" 2>"$tmp/err" </dev/null)
	rc=$?
	check "unwritable cwd: exit 1 (got $rc)" test $rc = 1
	check "unwritable cwd message names the path" grep -q "collect: cannot write experiment /sys/test.1.er" "$tmp/err"
fi
mkdir full
if mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
	dd if=/dev/zero of=full/fill bs=4k 2>/dev/null
	expect_rc 1 "full disk" "$collect" -d full -C "$(printf '%3000s' x)" true
	check "full disk message" grep -q "collect: cannot write experiment .*full/test.1.er/log.xml: No space left on device" err
	check "full disk: nothing left" test "$(ls full)" = fill
	umount full
else
	echo "full-disk check skipped (cannot mount a tmpfs here)"
fi
rmdir full
no_experiments "unwritable and full"

# ---- runs: numbering, -o, -d, -C
expect_rc 0 "run true" "$collect" true
check "test.1.er created" test -d test.1.er
check "creating message" grep -q 'Creating experiment directory test.1.er (Process ID: [0-9]*) ...' err
check "nothing on stdout" test ! -s out
expect_rc 0 "run true again" "$collect" true
check "test.2.er created" test -d test.2.er
mkdir test.7.er
expect_rc 0 "run after test.7.er" "$collect" true
check "gap: test.8.er created" test -d test.8.er
expect_rc 0 "-o abc.5.er" "$collect" -o abc.5.er true
check "abc.5.er" test -d abc.5.er
expect_rc 0 "-o abc.5.er again" "$collect" -o abc.5.er true
check "abc.6.er" test -d abc.6.er
expect_rc 0 "-o plain.er" "$collect" -o plain.er true
expect_rc 2 "-o plain.er again" "$collect" -o plain.er true
check "already exists message" grep -q 'collect: experiment plain.er already exists' err
mkdir out.d
expect_rc 0 "-d" "$collect" -d out.d true
check "-d out.d/test.1.er" test -f out.d/test.1.er/log.xml
expect_rc 0 "-o with directory" "$collect" -o out.d/named.er true
check "-o out.d/named.er" test -f out.d/named.er/log.xml
expect_rc 0 "-C" "$collect" -o c.er -C 'first <comment> & "more"' -C second true
check "notes lines" test "$(cat c.er/notes)" = $'first <comment> & "more"\nsecond'
check "log.xml comment escaped" grep -qF '<comment>first &lt;comment&gt; &amp; &quot;more&quot;</comment>' c.er/log.xml
check "log.xml second comment" grep -qF '<comment>second</comment>' c.er/log.xml
check "well-formed log.xml with comments" well_formed c.er/log.xml
check "no notes without -C" test ! -e abc.5.er/notes

# ---- log.xml / map.xml content
expect_rc 0 "run with args" "$collect" -o args.er -t 1-0 -S on true 'a b' $'\xff' '<&>'
log=args.er/log.xml
check "log.xml well-formed" well_formed $log
check "map.xml well-formed" well_formed args.er/map.xml
check "log.xml collector version" grep -q '<collector version="' $log
check "log.xml target path absolute" grep -Eq '<target path="/[^"]*/true">' $log
check "log.xml args" grep -qF '<arg>true</arg><arg>a b</arg><arg>?</arg><arg>&lt;&amp;&gt;</arg></target>' $log
check "log.xml host" grep -Eq '<host name="[^"]*" os="Linux" release="[^"]+" arch="[^"]+" cpus="[0-9]+" pagesize="[0-9]+" pages="[0-9]+" clock_mhz="[0-9]+"/>' $log
check "log.xml process" grep -qF "<process cwd=\"$PWD\" wordsize=\"64\"/>" $log
check "log.xml params" grep -qF '<params clock="on" clock_interval_us="10007" duration="1:0" depth_limit="4096" descriptor="p=10007;d=4096;t=1:0" sample="on" follow="on"/>' $log
check "log.xml start" grep -Eq '<start tstamp_ns="[0-9]+" realtime_ns="[0-9]+"/>' $log
check "log.xml exit" grep -Eq '<exit tstamp_ns="[0-9]+" status="0"/>' $log
check "log.xml rusage" grep -Eq '<rusage utime_ns="[0-9]+" stime_ns="[0-9]+" maxrss_kb="[0-9]+" minflt="[0-9]+" majflt="[0-9]+" inblock="[0-9]+" oublock="[0-9]+" nvcsw="[0-9]+" nivcsw="[0-9]+"/>' $log
check "log.xml end" grep -Eq '<end tstamp_ns="[0-9]+"/>' $log
check "log.xml ends with </experiment>" test "$(tail -n1 $log)" = '</experiment>'
check "map.xml head and tail" test "$(cat args.er/map.xml)" = $'<?xml version="1.0" encoding="UTF-8"?>\n<map version="1.11">\n</map>'

# ---- exit status and signals
expect_rc 3 "exit 3 propagates" "$collect" -o exit3.er sh -c 'exit 3'
check "log.xml status=3" grep -q '<exit tstamp_ns="[0-9]*" status="3"/>' exit3.er/log.xml
expect_rc 139 "SIGSEGV propagates" "$collect" -o segv.er sh -c 'kill -SEGV $$'
check "SIGSEGV message" grep -q 'collect: target terminated by signal 11 (Segmentation fault)' err
check "log.xml signal=11" grep -Eq '<exit tstamp_ns="[0-9]+" signal="11" signame="SIGSEGV" core="[01]"/>' segv.er/log.xml
check "log.xml well-formed after a signal" well_formed segv.er/log.xml
# collect ignores SIGINT while it waits, but the target must not inherit that
expect_rc 130 "SIGINT reaches the target" "$collect" -o int.er sh -c 'kill -INT $$; sleep 5'
check "log.xml SIGINT" grep -q 'signal="2" signame="SIGINT"' int.er/log.xml

# ---- the target's environment
expect_rc 0 "environment" env LD_PRELOAD=/nonexistent-preload.so "$collect" -o env.er -t 5 env
check "PA_EXPERIMENT" grep -qx "PA_EXPERIMENT=$PWD/env.er" out
check "PA_PARAMS" grep -qx 'PA_PARAMS=p=10007;d=4096;t=0:5' out
check "PA_TARGET_PID" grep -Eqx 'PA_TARGET_PID=[0-9]+' out
pid=$(sed -n 's/^PA_TARGET_PID=//p' out)
check "PA_TARGET_PID is the target's pid" grep -q "(Process ID: $pid)" err
check "LD_PRELOAD prepended" grep -qx "LD_PRELOAD=$tmp/noop.so:/nonexistent-preload.so" out

# ---- stdin/stdout passthrough
got=$(echo hi | "$collect" -o cat.er cat 2>/dev/null)
check "stdin/stdout passthrough" test "$got" = hi
got=$("$collect" -o stderr.er sh -c 'echo to-stderr >&2' 2>&1 >/dev/null | grep -c to-stderr)
check "stderr passthrough" test "$got" = 1

# ---- SIGTERM to collect is forwarded; the experiment is still finished
"$collect" -o term.er sleep 30 >/dev/null 2>err &
cpid=$!
for _ in $(seq 50); do [[ -f term.er/log.xml ]] && break; sleep 0.1; done
sleep 0.2
kill -TERM $cpid
wait $cpid
rc=$?
check "SIGTERM forwarded: exit 143 (got $rc)" test $rc = 143
check "log.xml after SIGTERM" grep -q 'signal="15" signame="SIGTERM"' term.er/log.xml
check "well-formed after SIGTERM" well_formed term.er/log.xml

echo "$checks checks, $failures failed"
((failures == 0))
