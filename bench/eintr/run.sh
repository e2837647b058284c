#!/usr/bin/env bash
# bench/eintr/run.sh BUILD [RUNS]: the EINTR a profiler's sampling signals
# cause in a loop of 1 ms waits (poll, select, nanosleep, epoll_wait, ppoll,
# pselect, usleep, clock_nanosleep in turn, 0.2 ms of work between them,
# tests/fixtures/sigurg.c "eintr all"), at about 1 kHz: ours (collect -p hi),
# gprofng (collect app -p hi, SIGPROF) and perf (record -F 1000, no signal),
# RUNS runs of 1 s each (default 10).  Prints the EINTR count per run and the
# total for each; nothing is asserted (tests/e2e/hostile_eintr.sh is the test).
set -u
build=${1:-build}
runs=${2:-10}
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/pa-bench-eintr.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cc -O1 -g -pthread "$top/tests/fixtures/sigurg.c" -o "$tmp/loop" || exit 1
count() { sed -n 's/^eintr all: \([0-9]*\) calls failed with EINTR.*/\1/p'; }
for tool in none ours gprofng perf; do
	case $tool in
	gprofng) command -v gprofng >/dev/null || { echo "gprofng: not installed"; continue; } ;;
	perf) command -v perf >/dev/null || { echo "perf: not installed"; continue; } ;;
	esac
	total=0 line=""
	for _ in $(seq "$runs"); do
		rm -rf "$tmp/x.er" "$tmp/perf.data"
		case $tool in
		none) n=$("$tmp/loop" eintr all 1 2>/dev/null | count) ;;
		ours) n=$("$top/$build/bin/collect" -p hi -o "$tmp/x.er" "$tmp/loop" eintr all 1 2>/dev/null | count) ;;
		gprofng) n=$(gprofng collect app -p hi -o "$tmp/x.er" "$tmp/loop" eintr all 1 2>/dev/null | count) ;;
		perf) n=$(perf record -q -F 1000 -o "$tmp/perf.data" "$tmp/loop" eintr all 1 2>/dev/null | count) ;;
		esac
		total=$((total + ${n:-0}))
		line+=" ${n:-?}"
	done
	printf '%-8s EINTR per run:%s  (total %d in %d runs of about 800 waits)\n' "$tool" "$line" "$total" "$runs"
done
