#!/usr/bin/env bash
# A full disk never harms the target (issue 10): the collector reserves each
# data block's space (fallocate) before mapping it, so a full filesystem is
# an error of the block claim, never a SIGBUS in the target; the first
# failure stops the process's data files, the run's space reserve is given
# back so that the logs' last lines fit, and collect and er_print's header
# say in one line when recording stopped, why, and what was not recorded.
# Checked on small tmpfs mounts (1 MiB: heap tracing fills it; 64 KiB: not
# even one data block fits; a fork tree; 64 KiB filled but for 12 KiB: the data
# files cannot be made, and collect says that collection is off and why,
# not that it could not compress them) and with the block writer's fault
# switch PA_FAULT_BLOCKS (also with -s all: the sync waits are named).  Each time: the target's output and exit status
# (3) are its own, and the time it spent before the disk filled is there.
set -u
: "${PA_TOP:?run through tests/run.sh}" "${PA_BIN:?}"
W=$(mktemp -d /tmp/pa-e2e-diskfull.XXXXXX)
cleanup() {
	for m in "$W"/m1 "$W"/m64 "$W"/mf "$W"/m0; do mountpoint -q "$m" 2>/dev/null && umount "$m"; done
	rm -rf "$W"
}
trap cleanup EXIT
cd "$W" || exit 1
export PA_ARCHIVE=off
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
cc -O1 -g "$PA_TOP/tests/fixtures/disk_fill.c" -o disk_fill || exit 1

# check NAME DIR EXP OUT ERR RC: the target's behaviour, the one-line reports, the data before
check() {
	local name=$1 exp=$2 out=$3 err=$4 rc=$5 want_lines=$6
	[[ $rc == 3 ]] && ok "$name: exit status 3, the target's own" || bad "$name: collect exited $rc (target's status is 3)"
	grep -v '^before_cpu' "$out" >got.cmp
	grep -v '^before_cpu' plain.out >want.cmp
	cmp -s got.cmp want.cmp && ok "$name: output as without collect" || {
		bad "$name: output differs"
		diff want.cmp got.cmp
	}
	local n
	n=$(grep -c 'recording stopped at' "$err")
	[[ $n == 1 ]] && ok "$name: collect says so in one line" || {
		bad "$name: collect printed $n 'recording stopped' lines"
		cat "$err"
	}
	grep -q 'Bus error\|signal' "$err" && bad "$name: $(grep -m1 'signal' "$err")"
	"$PA_BIN/er_print" -header "$exp" >hdr.txt 2>&1 || bad "$name: er_print -header failed"
	n=$(grep -c 'data lost: recording stopped at' hdr.txt)
	((n == want_lines)) && ok "$name: header: $(grep -m1 'data lost' hdr.txt | cut -c1-110)..." ||
		bad "$name: header has $n 'data lost' lines, want $want_lines"
	grep -qi 'damaged\|torn\|not well-formed' hdr.txt && bad "$name: damage reported: $(grep -i -m1 'damaged\|torn\|not well' hdr.txt)"
	[[ -e $exp/.space_reserve ]] && bad "$name: the space reserve was left behind"
}

# before NAME EXP OUT: spin_before's recorded time against what it measured
before() {
	local name=$1 exp=$2 out=$3
	local want got
	want=$(awk '$1 == "before_cpu" { print $2 }' "$out")
	got=$("$PA_BIN/er_print" -functions "$exp" 2>&1 | awk '$NF == "spin_before" { print $(NF - 2); exit }')
	python3 -c "import sys; w, g = $want, float('${got:-0}'); sys.exit(0 if abs(g - w) <= 0.15 * w else 1)" &&
		ok "$name: spin_before (before the disk filled) recorded $got s of $want s" ||
		bad "$name: spin_before recorded '${got:-none}' s of $want s"
}

./disk_fill 0.3 1000000 fork >plain.out || [[ $? == 3 ]] || exit 1

mounted=1
mkdir -p m1 m64 mf m0
if ! mount -t tmpfs -o size=1m tmpfs m1 2>/dev/null || ! mount -t tmpfs -o size=64k tmpfs m64 ||
	! mount -t tmpfs -o size=1m tmpfs mf || ! mount -t tmpfs -o size=64k tmpfs m0; then
	echo "note: cannot mount tmpfs here (not root?): only the fault switch is checked"
	mounted=0
fi

if ((mounted)); then
	# 1 MiB: heap tracing fills it during churn
	"$PA_BIN/collect" -H on -o m1/h.er ./disk_fill 0.3 1000000 fork >h.out 2>h.err
	check "1 MiB, -H on" m1/h.er h.out h.err $? 1
	before "1 MiB, -H on" m1/h.er h.out
	lost=$(sed -n 's/.*<collector_end [^>]*lost_heap="\([0-9]*\)".*/\1/p' m1/h.er/log.xml)
	rec=$(sed -n 's/.*<collector_end [^>]*heap_records="\([0-9]*\)".*/\1/p' m1/h.er/log.xml)
	((${lost:-0} > 0 && ${rec:-0} > 0)) && ok "1 MiB: $rec heap calls recorded, $lost counted as lost" ||
		bad "1 MiB: heap calls recorded '${rec:-}', lost '${lost:-}'"

	# 64 KiB: no data block fits at all; clock profiling only
	"$PA_BIN/collect" -o m64/c.er ./disk_fill 0.3 1000000 fork >c.out 2>c.err
	check "64 KiB" m64/c.er c.out c.err $? 1

	# a fork tree on 1 MiB: the child fills it, both go on to their end
	"$PA_BIN/collect" -H on -o mf/t.er ./disk_fill 0.3 1000000 fork >t.out 2>t.err
	rc=$?
	[[ $rc == 3 ]] && ok "fork tree: exit status 3" || bad "fork tree: collect exited $rc"
	grep -q '^child ok' t.out && ok "fork tree: the child did its work and exited 0" || bad "fork tree: $(cat t.out)"
	grep -q 'recording stopped at' t.err && ok "fork tree: $(grep -m1 'recording stopped' t.err | cut -c1-100)..." ||
		bad "fork tree: collect did not report the loss"
	"$PA_BIN/er_print" -functions mf/t.er >t.fn 2>&1 && ok "fork tree: the experiment reads" || bad "fork tree: er_print failed: $(head -3 t.fn)"

	# full from the start: room for log.xml and map.xml, not for a data file's first pages
	dd if=/dev/zero of=m0/fill bs=4k count=13 2>/dev/null
	./disk_fill 0.3 1000000 >plain.out
	"$PA_BIN/collect" -o m0/z.er ./disk_fill 0.3 1000000 >z.out 2>z.err
	rc=$?
	[[ $rc == 3 ]] && ok "full at start: exit status 3" || bad "full at start: collect exited $rc"
	cmp -s <(grep -v '^before_cpu' plain.out) <(grep -v '^before_cpu' z.out) &&
		ok "full at start: output as without collect" || bad "full at start: output differs"
	grep -q 'warning: m0/z.er: could not create the data files (no space left on .*); collection is off$' z.err &&
		ok "full at start: $(grep -m1 'collection is off' z.err)" || {
		bad "full at start: collect does not say that collection is off and why"
		cat z.err
	}
	grep -q 'compress' z.err && bad "full at start: $(grep -m1 compress z.err)"
	"$PA_BIN/er_print" -header m0/z.er >z.hdr 2>&1 && grep -q '^\*\*\* Collector Error: could not create the data files (no space left .*); collection is off$' z.hdr &&
		ok "full at start: the header says so" || bad "full at start: header: $(head -3 z.hdr)"
	# shellcheck disable=SC2010 # any name but the two logs is a failure, however odd it is
	ls m0/z.er | grep -qv 'log.xml\|map.xml' && bad "full at start: left in the experiment: $(ls m0/z.er)"
fi

# the fault switch: the block writer fails after 8 blocks (any filesystem)
PA_FAULT_BLOCKS=8 "$PA_BIN/collect" -H on -o f.er ./disk_fill 0.3 1000000 >f.out 2>f.err
rc=$?
./disk_fill 0.3 1000000 >plain.out
check "PA_FAULT_BLOCKS=8" f.er f.out f.err $rc 1
before "PA_FAULT_BLOCKS=8" f.er f.out
grep -q 'errno="ENOSPC"' f.er/log.xml && ok "fault switch: log.xml names ENOSPC" || bad "fault switch: no errno in log.xml"
grep -q 'sync waits' f.err && bad "fault switch: collect names sync waits without -s: $(grep -m1 'not recorded' f.err)"

# with sync tracing on too, what was not recorded names the sync waits (collect and the header)
PA_FAULT_BLOCKS=8 "$PA_BIN/collect" -H on -s all -o s.er ./disk_fill 0.3 1000000 >s.out 2>s.err
grep -q 'not recorded: .* heap calls, [0-9]* sync waits; the data before is complete' s.err &&
	ok "-s all: $(grep -o 'not recorded: .*sync waits' s.err)" || bad "-s all: collect's line: $(grep -m1 'warning' s.err)"
"$PA_BIN/er_print" -header s.er 2>&1 | grep -q 'data lost: .* [0-9]* sync waits; the data before is complete' &&
	ok "-s all: the header names the sync waits" || bad "-s all: header: $("$PA_BIN/er_print" -header s.er 2>&1 | grep -m1 'data lost')"

echo "$fails failed"
exit $((fails ? 1 : 0))
