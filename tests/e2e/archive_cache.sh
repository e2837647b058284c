#!/usr/bin/env bash
# Archives link into the per-user build-id cache (issue #9): a default
# experiment holds links, not copies, so it stays small (< 1 MiB of its own),
# and stays analyzable after the program is deleted, including the
# subexperiment of a descendant process (which has no archive of its own);
# a link that dangles (the experiment moved to another user's cache) is
# resolved from the current cache; without any copy the reports say why
# functions are unknown; `er_archive -A copy` (or `collect -A copy`) makes
# the experiment portable: moved elsewhere with no cache at all, it still
# names the functions and disassembles them.
set -u
: "${PA_TOP:?run through tests/run.sh}" "${PA_BIN:?}"
W=$(mktemp -d /tmp/pa-e2e-cache.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
unset PA_ARCHIVE
export PA_CACHE_DIR=$W/cache
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
within() { # got want tolerance
	python3 -c "import sys; sys.exit(0 if abs(float('${1:-0}' or 0) - $2) <= $3 else 1)"
}
mkdir bin
cc -O1 -g "$PA_TOP/tests/fixtures/desc_tree.c" -o bin/desc_tree || exit 1

# parent_work 0.2 s; a fork child: child_work 0.4 s
"$PA_BIN/collect" -o x.er bin/desc_tree fork >/dev/null 2>err || { bad "collect"; cat err; exit 1; }
own=$(du -sk x.er | cut -f1)
((own < 1024)) && ok "the experiment takes $own KiB of its own" || bad "the experiment takes $own KiB (want < 1024)"
links=$(find x.er/archives -type l -lname "$PA_CACHE_DIR/*" | wc -l)
((links >= 3)) && ok "$links archive entries link into \$PA_CACHE_DIR" || bad "$links links into the cache (want >= 3)"
big=$(find x.er -type f -size +100k | head -3)
[[ -z $big ]] && ok "no large file in the experiment" || bad "large files in the experiment: $big"
[[ -d x.er/_f1.er && ! -e x.er/_f1.er/archives ]] && ok "the child's subexperiment has no archive of its own" ||
	bad "x.er/_f1.er missing, or it has its own archives/"

report() { # experiment function [env...] -> inclusive seconds
	local x=$1 f=$2
	shift 2
	env "$@" "$PA_BIN/er_print" -functions "$x" 2>&1 | awk -v f="$f" '$NF == f { print $3; exit }'
}
rm -rf bin # the program is gone
t=$(report x.er child_work)
within "$t" 0.4 0.04 && ok "program deleted: child_work $t s with its founder" || bad "program deleted: child_work '$t'"
t=$(report x.er parent_work)
within "$t" 0.2 0.03 && ok "program deleted: parent_work $t s" || bad "program deleted: parent_work '$t'"
t=$(report x.er/_f1.er child_work)
within "$t" 0.4 0.04 && ok "program deleted: child_work $t s in the subexperiment read alone" ||
	bad "program deleted, subexperiment alone: child_work '$t'"

# the links dangle (another user's or machine's cache path); this user's cache has the objects
mv cache cache2
t=$(report x.er child_work PA_CACHE_DIR="$W/cache2")
within "$t" 0.4 0.04 && ok "dangling links: found in the current cache ($t s)" || bad "dangling links: child_work '$t'"
# no copy anywhere: the report says so, and does not fail
PA_CACHE_DIR=$W/none "$PA_BIN/er_print" -functions x.er >nocopy.txt 2>&1
rc=$?
[[ $rc == 0 ]] && ! grep -q " child_work$" nocopy.txt &&
	grep -q "^Warning: cannot read symbols of .*/desc_tree: No such file or directory (and no archived copy" nocopy.txt &&
	ok "no copy anywhere: exit 0 and a warning naming the program" || { bad "no copy anywhere (exit $rc)"; tail -3 nocopy.txt; }
mv cache2 cache

# portable: copies replace the links; moved, with no cache at all, it still reads
"$PA_BIN/er_archive" -q -A copy x.er || bad "er_archive -A copy"
abs=$(find x.er/archives -type l -lname '/*' | wc -l)
((abs == 0)) && ok "-A copy: no link into the cache is left" || bad "-A copy: $abs links into the cache left"
mkdir elsewhere && mv x.er elsewhere/
t=$(report elsewhere/x.er child_work PA_CACHE_DIR="$W/none")
within "$t" 0.4 0.04 && ok "-A copy, moved, no cache: child_work $t s" || bad "-A copy, moved, no cache: '$t'"
PA_CACHE_DIR=$W/none "$PA_BIN/er_print" -disasm child_work elsewhere/x.er >dis.txt 2>&1
n=$(grep -cE '\[ *[0-9?]+\] +[0-9a-f]+:  ' dis.txt)
((n >= 3)) && grep -qE ":  (retq|jmp|callq) " dis.txt &&
	ok "-A copy, moved, no cache: -disasm child_work shows $n instructions" ||
	{ bad "-disasm child_work from the copy: $n instructions"; head -5 dis.txt; }

# collect -A copy and -A off
mkdir bin && cc -O1 -g "$PA_TOP/tests/fixtures/desc_tree.c" -o bin/desc_tree || exit 1
"$PA_BIN/collect" -A copy -o y.er bin/desc_tree fork >/dev/null 2>&1 || bad "collect -A copy"
abs=$(find y.er/archives -type l -lname '/*' | wc -l)
[[ -f y.er/archives/index.xml && $abs == 0 && -n $(find y.er/archives -type f -name 'libc.so*') ]] &&
	ok "collect -A copy: libc copied, no links into the cache" || bad "collect -A copy: $abs links, or no libc copy"
"$PA_BIN/collect" -A off -o z.er bin/desc_tree fork >/dev/null 2>&1 || bad "collect -A off"
[[ ! -e z.er/archives ]] && ok "collect -A off: no archive" || bad "collect -A off made an archive"
exit $((fails ? 1 : 0))
