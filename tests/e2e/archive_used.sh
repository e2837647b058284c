#!/usr/bin/env bash
# Archives hold only what the reports read (issue 10: an experiment that
# recorded nothing archived 14 MB).  A fixture program linked with a library
# it never calls, collected for real:
#  - collect's automatic er_archive archives the program and libc (on every
#    stack) but not the library that is only mapped, nor the collector's own
#    libraries; after the program and the library are deleted, -functions is
#    the same report as before;
#  - with clock profiling off (nothing recorded) collect leaves no archives/,
#    puts nothing in the per-user cache, and er_archive says so in one line;
#  - a heap experiment (-H on, clock off): the objects on the heap calls'
#    stacks; er_archive opens the stacks file but not the profile, overview
#    or heaptrace files (checked with strace when it is installed).
set -u
: "${PA_TOP:?run through tests/run.sh}" "${PA_BIN:?}"
W=$(mktemp -d /tmp/pa-e2e-archused.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
unset PA_ARCHIVE
export PA_CACHE_DIR=$W/cache
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
index_paths() { # EXP: the paths archives/index.xml lists, one a line
	sed -n 's/.*<object path="\([^"]*\)".*/\1/p' "$1/archives/index.xml"
}
cat >never.c <<'EOF'
double never_called(double x);
double never_called(double x) { return x * 3; }
EOF
cat >prog.c <<'EOF'
#include <stdlib.h>
#include <time.h>
double never_called(double x);
static volatile double sink;
void *volatile keep;
static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
void used_work(double seconds)
{
	double t0 = cpu();
	while (cpu() - t0 < seconds)
		for (int i = 0; i < 100000; i++)
			sink += i;
}
void used_alloc(int n)
{
	for (int i = 0; i < n; i++) {
		keep = malloc(64);
		free(keep);
	}
}
int main(int argc, char **argv)
{
	if (argc > 1 && argv[1][0] == 'x')
		sink = never_called(sink); /* not taken */
	if (argc > 1 && argv[1][0] == 'h')
		used_alloc(1000);
	else
		used_work(0.4);
	return 0;
}
EOF
cc -O1 -g -shared -fPIC never.c -o libnever.so &&
	cc -O1 -g prog.c -Wl,--no-as-needed -L. -lnever -Wl,-rpath,"$W" -o prog || exit 1

# ---- a normal run: what its stacks use, nothing else
"$PA_BIN/collect" -o a.er ./prog >/dev/null 2>collect.err || { bad "collect"; cat collect.err; exit 1; }
grep -q "path=\"$W/libnever.so\"" a.er/map.xml && ok "libnever.so was mapped" || bad "libnever.so not in map.xml"
paths=$(index_paths a.er)
grep -qx "$W/prog" <<<"$paths" && ok "the program is archived" || bad "the program is not archived: $paths"
grep -q '/libc\.so\.6$' <<<"$paths" && ok "libc is archived (on every stack)" || bad "libc is not archived: $paths"
! grep -q 'libnever' <<<"$paths" && [[ -z $(find a.er/archives cache -name 'libnever*') ]] &&
	ok "the library only mapped is not archived" || bad "libnever.so was archived"
! grep -q 'libcollector' <<<"$paths" && ok "the collector's libraries are not archived" || bad "libcollector archived: $paths"
! grep -q 'er_archive\|archived' collect.err && ok "collect printed nothing about archiving" || bad "collect: $(cat collect.err)"
"$PA_BIN/er_print" -functions a.er >before.txt 2>&1
mkdir away && mv prog libnever.so away/
"$PA_BIN/er_print" -functions a.er >after.txt 2>&1
if grep -q ' used_work$' after.txt && cmp -s before.txt after.txt; then
	ok "program and library deleted: the same -functions report"
else
	bad "program and library deleted: the report differs"
	diff before.txt after.txt
fi
mv away/* .

# ---- nothing recorded
before=$(find cache -type f | wc -l)
"$PA_BIN/collect" -p off -o e.er ./prog >/dev/null 2>collect.err || { bad "collect -p off"; cat collect.err; }
[[ ! -e e.er/archives ]] && ok "nothing recorded: collect made no archives/" || bad "nothing recorded: e.er/archives exists"
"$PA_BIN/er_archive" -A copy e.er >e.out 2>&1
rc=$?
[[ $rc == 0 && $(wc -l <e.out) == 1 ]] && grep -qx 'e.er: nothing was recorded (no clock sample or heap call with a call stack); nothing archived' e.out &&
	ok "nothing recorded: er_archive says so in one line" || { bad "nothing recorded: er_archive exit $rc"; cat e.out; }
[[ ! -e e.er/archives && $(find cache -type f | wc -l) == "$before" ]] &&
	ok "nothing recorded: nothing copied, nothing cached (collect, er_archive)" || bad "nothing recorded: something was archived"

# ---- heap calls, and only the stacks file is read
"$PA_BIN/collect" -p off -H on -A off -o h.er ./prog h >/dev/null 2>collect.err || { bad "collect -H on"; cat collect.err; }
if command -v strace >/dev/null; then
	# (LeakSanitizer cannot run under ptrace)
	# (-y: the files opened by openat2, relative to the experiment's directory, by their paths)
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -y -e trace=open,openat,openat2 -o open.txt "$PA_BIN/er_archive" -q h.er ||
		bad "er_archive on the heap experiment"
	grep -q 'h.er/stacks' open.txt && ! grep -qE 'h.er/(heaptrace|profile|overview)' open.txt &&
		ok "er_archive opens the stacks file, not profile, overview or heaptrace" ||
		bad "er_archive opened: $(grep -oE 'h.er/[a-z.]+' open.txt | sort -u | tr '\n' ' ')"
else
	"$PA_BIN/er_archive" -q h.er || bad "er_archive on the heap experiment"
	echo "# no strace: which files er_archive opens is not checked"
fi
paths=$(index_paths h.er)
grep -qx "$W/prog" <<<"$paths" && grep -q '/libc\.so\.6$' <<<"$paths" && ! grep -q 'libcollector\|libnever' <<<"$paths" &&
	ok "heap only: the program and libc, not libcollector-heap or libnever" || bad "heap only: $paths"
exit $((fails ? 1 : 0))
