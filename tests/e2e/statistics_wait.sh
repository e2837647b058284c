#!/usr/bin/env bash
# Wait CPU (issue #15 item 3): the time threads were runnable but waited for a
# CPU, from each thread's /proc schedstat at its end (format 1.9).  Twice as
# many CPU-bound threads as CPUs, 0.5 s of CPU each: while more threads run
# than there are CPUs, some wait, so -statistics shows a Wait CPU above 0 and
# no more than the thread time; Sleep is what is left.  Under collect -t
# (a window the whole life's wait would not fit) Wait CPU is 0.
. "$(dirname "$0")/e2e_lib.sh" wait
[[ -r /proc/self/schedstat ]] || { echo "skip: no schedstat in this kernel"; exit 77; }
cat >rq.c <<'EOS'
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
static void *spin(void *a)
{
	(void)a;
	struct timespec s, n;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &s);
	volatile double x = 0;
	do {
		for (int i = 0; i < 100000; i++)
			x += i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &n);
	} while ((n.tv_sec - s.tv_sec) + (n.tv_nsec - s.tv_nsec) / 1e9 < 0.5);
	return 0;
}
int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[64];
	for (int i = 0; i < k && i < 64; i++)
		pthread_create(&t[i], 0, spin, 0);
	for (int i = 0; i < k && i < 64; i++)
		pthread_join(t[i], 0);
	return 0;
}
EOS
cc -O1 -pthread rq.c -o rq || exit 1
k=$((2 * $(nproc)))
"$PA_BIN/collect" -o w.er ./rq "$k" >/dev/null 2>&1 || { bad "collect"; exit 1; }
"$PA_BIN/er_print" -statistics w.er >st.txt 2>&1
read -r wait thr < <(awk -F: '/^ *Wait CPU/ { split($2, a, " "); w = a[1] } /Total Thread Time/ { t = $2 + 0 } END { print w + 0, t }' st.txt)
python3 -c "import sys; sys.exit(0 if 0 < $wait <= $thr else 1)" &&
	ok "$k threads on $(nproc) CPUs: Wait CPU ${wait}s, at most the thread time ${thr}s" || { bad "Wait CPU '$wait' of '$thr'"; cat st.txt; }
"$PA_BIN/er_print" -printmode json -statistics w.er >st.json 2>&1
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); s = json.dumps(d); assert "wait_cpu_ns" in s, s[:300]' st.json &&
	ok "json: wait_cpu_ns" || { bad "json"; head -c 400 st.json; }
"$PA_BIN/collect" -t 0-100 -o t.er ./rq "$k" >/dev/null 2>&1 || bad "collect -t"
"$PA_BIN/er_print" -statistics t.er | grep -q '^ *Wait CPU: *0\. ' && ok "collect -t: no whole-life wait" ||
	bad "collect -t: $("$PA_BIN/er_print" -statistics t.er | grep 'Wait CPU')"
e2e_end
