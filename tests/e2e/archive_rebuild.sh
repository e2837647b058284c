#!/usr/bin/env bash
# An experiment outlives its program: collect a fixture program compiled
# here, then rebuild it differently (other functions, shifted addresses) and
# then delete it; er_print on the old experiment must still name the old
# functions, from the copy in archives/ (analysis/archive.h), and give the
# same report as before the rebuild.  -lines is compared too when er_print
# has it.  Needs analysis/profile.c to read objects through archive_resolve.
set -u
: "${PA_TOP:?}" "${PA_BIN:?}" "${PA_LIB:?}"
collect=$PA_BIN/collect erprint=$PA_BIN/er_print lib=$PA_LIB/libcollector.so
[[ -x $collect && -x $erprint && -x $PA_BIN/er_archive ]] || { echo "no collect, er_print or er_archive"; exit 1; }
[[ -f $lib ]] || { echo "skip: $lib not built"; exit 77; }
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/archive_rebuild.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export PA_COLLECTOR_LIB=$lib
unset PA_ARCHIVE
failures=0 checks=0
check() { # description, command...
	local d=$1; shift
	checks=$((checks + 1))
	"$@" || { failures=$((failures + 1)); echo "not ok: $d"; }
}

cat >prog.c <<'EOF'
#include <stdio.h>
static volatile double sink;
void old_busy_alpha(long n)
{
	for (long i = 0; i < n; i++)
		sink += (double)i * 0.5;
}
void old_busy_beta(long n)
{
	for (long i = 0; i < n; i++)
		sink -= (double)i * 0.25;
}
int main(void)
{
	old_busy_alpha(60000000L);
	old_busy_beta(30000000L);
	printf("%g\n", sink);
	return 0;
}
EOF
# the rebuild: new names, and padding in front so old addresses fall elsewhere
cat >prog2.c <<'EOF'
#include <stdio.h>
static volatile double sink;
#define PAD(n) void pad##n(void) { for (int i = 0; i < 64; i++) sink += i * n; sink *= 1.5; sink -= n; }
PAD(1) PAD(2) PAD(3) PAD(4) PAD(5) PAD(6) PAD(7) PAD(8) PAD(9) PAD(10) PAD(11) PAD(12)
void new_other_fn(long n)
{
	for (long i = 0; i < n; i++)
		sink += 1;
}
int main(void)
{
	new_other_fn(10);
	printf("%g\n", sink);
	return 0;
}
EOF
cc -g -O0 -fno-inline -Wl,--build-id -o prog prog.c || { echo "cannot compile the fixture"; exit 1; }
"$collect" -o old.er ./prog >/dev/null 2>collect.err || { echo "collect failed: $(cat collect.err)"; exit 1; }
check "collect archived the program" grep -q "path=\"$tmp/prog\"[^>]* file=" old.er/archives/index.xml

"$erprint" -functions old.er >before.txt 2>before.err
check "baseline names old_busy_alpha" grep -q 'old_busy_alpha' before.txt
check "baseline names old_busy_beta" grep -q 'old_busy_beta' before.txt
"$erprint" -disasm old_busy_alpha old.er >before_dis.txt 2>&1
"$erprint" -pcs old.er >before_pcs.txt 2>&1
# instruction rows: "[line]  address:  mnemonic ..."
ninsn=$(grep -cE '^ .*\[ *[0-9?]+\] +[0-9a-f]+:  ' before_dis.txt)
check "baseline -disasm old_busy_alpha shows its instructions ($ninsn)" test "${ninsn:-0}" -ge 5
excl=$(awk '$NF == "old_busy_alpha" { print $1; exit }' before.txt)
dsum=$(awk '/\[ *[0-9?]+\] +[0-9a-f]+:  / { sub(/^##/, ""); s += $1 } END { printf "%.3f", s }' before_dis.txt)
check "baseline -disasm: instruction times add up to old_busy_alpha's ($dsum of $excl s)" \
	python3 -c "import sys; sys.exit(0 if abs($dsum - ${excl:-0}) <= 0.011 else 1)"
check "baseline -pcs names old_busy_alpha" grep -q 'old_busy_alpha + 0x' before_pcs.txt
lines=0
if "$erprint" -lines old.er >before_lines.txt 2>&1 && ! grep -q "unknown command" before_lines.txt &&
	grep -q 'old_busy_alpha' before_lines.txt; then
	lines=1
fi

# --- rebuilt: addresses and names changed (needs profile.c -> archive_resolve)
cc -g -O0 -Wl,--build-id -o prog prog2.c || { echo "cannot compile the rebuild"; exit 1; }
"$erprint" -functions old.er >rebuilt.txt 2>rebuilt.err
check "after a rebuild: still names old_busy_alpha" grep -q 'old_busy_alpha' rebuilt.txt
check "after a rebuild: no new function names" test -z "$(grep -E 'new_other_fn|pad[0-9]' rebuilt.txt)"
check "after a rebuild: same function report" cmp -s before.txt rebuilt.txt || diff before.txt rebuilt.txt | head -20
"$erprint" -objects old.er >rebuilt_objects.txt 2>&1
check "after a rebuild: no warning about prog" test -z "$(grep -iE "(warning|cannot|changed).*$tmp/prog" rebuilt_objects.txt)"
if ((lines)); then
	"$erprint" -lines old.er >rebuilt_lines.txt 2>&1
	check "after a rebuild: same line report" cmp -s before_lines.txt rebuilt_lines.txt ||
		diff before_lines.txt rebuilt_lines.txt | head -20
fi

# the instructions and their figures (the "Object file:" line names the archived copy)
insns() { grep -E '\[ *[0-9?]+\] +[0-9a-f]+:  ' "$1"; }
insns before_dis.txt >before_insns.txt
"$erprint" -disasm old_busy_alpha old.er >rebuilt_dis.txt 2>&1
insns rebuilt_dis.txt >rebuilt_insns.txt
check "after a rebuild: same -disasm (read from the archive)" cmp -s before_insns.txt rebuilt_insns.txt ||
	diff before_dis.txt rebuilt_dis.txt | head -20

# --- deleted
rm -f prog
"$erprint" -functions old.er >deleted.txt 2>deleted.err
check "after deletion: still names old_busy_beta" grep -q 'old_busy_beta' deleted.txt
check "after deletion: same function report" cmp -s before.txt deleted.txt || diff before.txt deleted.txt | head -20
"$erprint" -objects old.er >deleted_objects.txt 2>&1
check "after deletion: no warning about prog" test -z "$(grep -iE "(warning|cannot).*$tmp/prog" deleted_objects.txt)"
if ((lines)); then
	"$erprint" -lines old.er >deleted_lines.txt 2>&1
	check "after deletion: same line report" cmp -s before_lines.txt deleted_lines.txt ||
		diff before_lines.txt deleted_lines.txt | head -20
fi

# --- without the archive the same experiment cannot be symbolized: the checks above are not vacuous
mv old.er/archives old.er/archives.away
PA_CACHE_DIR=$tmp/no-cache "$erprint" -functions old.er >noarchive.txt 2>/dev/null
"$erprint" -disasm old_busy_alpha old.er >deleted_dis.txt 2>&1
insns deleted_dis.txt >deleted_insns.txt
check "after deletion: same -disasm (read from the archive)" cmp -s before_insns.txt deleted_insns.txt ||
	diff before_dis.txt deleted_dis.txt | head -20
"$erprint" -pcs old.er >deleted_pcs.txt 2>&1
check "after deletion: same -pcs" cmp -s before_pcs.txt deleted_pcs.txt || diff before_pcs.txt deleted_pcs.txt | head

check "without archives/ the old names are gone" test -z "$(grep 'old_busy_alpha' noarchive.txt)"

echo "$checks checks, $failures failed"
((failures == 0))
