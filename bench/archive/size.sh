#!/usr/bin/env bash
# size.sh [BUILD] - experiment size and archiving time (make bench-archive).
# Side by side in one run, for the same 2-second CPU-bound program:
#  - ours by default (er_archive links objects from a per-user cache, here a
#    fresh one), ours with -A copy, gprofng collect app, perf record -g:
#    the experiment's own size (du -s, links not followed) and the cache's;
#  - an experiment of /bin/true (it records nothing: nothing is archived);
#  - er_archive on a clock experiment and on a heap experiment of 4M
#    malloc/free pairs (collect -H on), cache already filled.
# Prints only (the machine is shared and noisy).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
[[ $build == /* ]] || build=$top/$build
bin=$build/bin
tmp=$(mktemp -d /tmp/pa-bench-archive.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export PA_CACHE_DIR=$tmp/cache
cat >spin.c <<'C'
#include <time.h>
static volatile double sink;
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(void) { double t0 = cpu(); while (cpu() - t0 < 2.0) for (int i = 0; i < 100000; i++) sink += i; return 0; }
C
cat >heap.c <<'C'
#include <stdlib.h>
void *volatile keep;
int main(void) { for (int i = 0; i < 4000000; i++) { keep = malloc(32 + (i & 63)); free(keep); } return 0; }
C
cc -O1 -g spin.c -o spin && cc -O1 -g heap.c -o heap || exit 1
kib() { du -sk "$1" 2>/dev/null | cut -f1; }
printf '== experiment of a 2-second run: its own size (du -s, links not followed)\n'
printf '%-34s %10s  %s\n' profiler "own KiB" note
"$bin/collect" -o ours.er ./spin >/dev/null 2>&1
printf '%-34s %10s  %s\n' "ours (default: links)" "$(kib ours.er)" "per-user cache: $(kib cache) KiB, shared by every experiment"
"$bin/collect" -A copy -o copy.er ./spin >/dev/null 2>&1
printf '%-34s %10s  %s\n' "ours -A copy (portable)" "$(kib copy.er)" ""
if command -v gprofng >/dev/null; then
	gprofng collect app -o gp.er ./spin >/dev/null 2>&1
	printf '%-34s %10s  %s\n' "gprofng collect app" "$(kib gp.er)" "copies in its archives/"
fi
if command -v perf >/dev/null; then
	perf record -q -g -o perf.data ./spin >/dev/null 2>&1
	printf '%-34s %10s  %s\n' "perf record -g" "$(kib perf.data)" "plus ~/.debug (its build-id cache)"
fi
printf '\n== an experiment that recorded nothing (/bin/true): archived as nothing\n'
PA_CACHE_DIR=$tmp/cache-empty "$bin/collect" -o empty.er /bin/true >/dev/null 2>&1
PA_CACHE_DIR=$tmp/cache-empty "$bin/collect" -A copy -o emptyc.er /bin/true >/dev/null 2>&1
printf '%-34s %10s  %s\n' "ours (default: links)" "$(kib empty.er)" "per-user cache: $(kib "$tmp/cache-empty" || echo 0) KiB"
printf '%-34s %10s  %s\n' "ours -A copy" "$(kib emptyc.er)" ""
printf '\n== er_archive time (cache filled)\n'
PA_ARCHIVE=off "$bin/collect" -o c.er ./spin >/dev/null 2>&1
PA_ARCHIVE=off "$bin/collect" -H on -o h.er ./heap >/dev/null 2>&1
for x in c.er h.er; do
	s=$(date +%s.%N)
	"$bin/er_archive" -q "$x"
	e=$(date +%s.%N)
	printf '%-34s %10.3f s  (experiment %s KiB)\n' "er_archive $([[ $x == h.er ]] && echo 'heap (4M calls)' || echo clock)" \
		"$(python3 -c "print($e - $s)")" "$(kib "$x")"
done
