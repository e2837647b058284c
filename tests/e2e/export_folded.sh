#!/usr/bin/env bash
# er_print -export folded on real experiments of tests/fixtures/export_prog.c,
# with and without collect -H on.  Asserted (what the program guarantees, no
# timings):
#  - every line is "frame;frame;... VALUE", no empty frame, VALUE an integer;
#  - the values sum to er_print's <Total>: CPU time in ns, printed as
#    er_print prints seconds (%.3f, rounded), equals <Total>'s Excl. Total
#    CPU; heap bytes, allocations and leaked bytes are equal exactly;
#  - the top function by exclusive CPU time is the leaf with the largest sum;
#  - stacks through hot (0.4 s) outweigh those through warm (0.1 s); the
#    stacks ending in allocs hold its 110 allocations, 140960 bytes, and its
#    10 leaks of 40960 bytes;
#  - `export` as a script command and FILE - (stdout) write the same lines;
#    an unknown format, an unknown metric, a heap metric without heap data
#    and an unwritable file fail with a message naming what is wrong.
. "$(dirname "$0")/export_lib.sh" export_folded

parses() { # every line: non-empty frames joined by ';', a space, an integer
	[[ -s $1 ]] && ! grep -Evq '^[^;]+(;[^;]+)* [0-9]+$' "$1"
}
sum() { awk '{ s += $NF } END { printf "%d", s }' "$1"; }
sum_leaf() { # sum of the stacks whose leaf is $2
	awk -v f="$2" '{ v = $NF; sub(/ [0-9]+$/, ""); n = split($0, a, ";"); if (a[n] == f) s += v } END { printf "%d", s }' "$1"
}
sum_through() { # sum of the stacks with frame $2
	awk -v f="$2" '{ v = $NF; sub(/ [0-9]+$/, ""); n = split($0, a, ";"); for (i = 1; i <= n; i++) if (a[i] == f) { s += v; break } } END { printf "%d", s }' "$1"
}
top_leaf() {
	awk '{ v = $NF; sub(/ [0-9]+$/, ""); n = split($0, a, ";"); s[a[n]] += v } END { for (f in s) if (s[f] > m) { m = s[f]; t = f } print t }' "$1"
}
for x in c h; do
	"$er_print" -export folded cpu.$x "$x.er" 2>err
	check "$x: export folded exits 0 ($(head -c 300 err))" test $? = 0
	check "$x: every line parses" parses cpu.$x
	check "$x: no duplicate stacks" test "$(sed 's/ [0-9]*$//' cpu.$x | sort | uniq -d | wc -l)" = 0
	total=$(total_row "$x.er" e.totalcpu)
	check "$x: CPU sum $(sum cpu.$x) ns = <Total> $total s" test "$(secs "$(sum cpu.$x)")" = "$total"
	top=$("$er_print" -metrics e.totalcpu:name -sort e.totalcpu -functions "$x.er" |
		awk 'f { print $NF; exit } $NF == "<Total>" { f = 1 }')
	check "$x: top function $top is the heaviest leaf $(top_leaf cpu.$x)" test "$top" = "$(top_leaf cpu.$x)"
	check "$x: hot outweighs warm" test "$(sum_through cpu.$x hot)" -gt "$(sum_through cpu.$x warm)"
done

check "-H on: heapallocbytes" "$er_print" -export folded:heapallocbytes bytes h.er
check "-H on: heapalloccnt" "$er_print" -export folded:heapalloccnt count h.er
check "-H on: heapleakbytes" "$er_print" -export folded:heapleakbytes leaked h.er
for f in bytes count leaked; do check "-H on: $f parses" parses $f; done
read -r tleaked tbytes tcount < <(total_row h.er i.heapleakbytes:i.heapallocbytes:i.heapalloccnt)
check "-H on: bytes sum $(sum bytes) = <Total> $tbytes" test "$(sum bytes)" = "$tbytes"
check "-H on: allocation sum $(sum count) = <Total> $tcount" test "$(sum count)" = "$tcount"
check "-H on: leaked sum $(sum leaked) = <Total> $tleaked" test "$(sum leaked)" = "$tleaked"
check "-H on: allocs allocated 140960 bytes ($(sum_leaf bytes allocs))" test "$(sum_leaf bytes allocs)" = 140960
check "-H on: allocs made 110 allocations ($(sum_leaf count allocs))" test "$(sum_leaf count allocs)" = 110
check "-H on: allocs leaked 40960 bytes ($(sum_leaf leaked allocs))" test "$(sum_leaf leaked allocs)" = 40960

printf 'export folded script.out\n' >cmds
"$er_print" -script cmds c.er >/dev/null 2>err
check "script command writes the same ($(head -c 200 err))" cmp -s script.out cpu.c
"$er_print" -export folded - c.er >stdout.out 2>err
check "FILE - is standard output ($(head -c 200 err))" cmp -s stdout.out cpu.c

fails_with() { # description, expected stderr text, er_print args...
	local d=$1 want=$2; shift 2
	"$er_print" "$@" >/dev/null 2>err && rc=0 || rc=$?
	check "$d: exit $rc, says '$want' ($(head -c 200 err))" eval '((rc != 0)) && grep -qF -- "$want" err'
}
fails_with "unknown format" "unknown format 'nosuch'" -export nosuch x.out c.er
fails_with "unknown metric" "unknown metric 'cycles'" -export folded:cycles x.out c.er
fails_with "heap metric without heap data" "heapallocbytes needs heap data" -export folded:heapallocbytes x.out c.er
fails_with "unwritable file" "cannot write '$tmp/no/such/dir/f': No such file or directory" \
	-export folded "$tmp/no/such/dir/f" c.er
fails_with "missing file" "missing argument" -export folded
check "no file left by failed exports" test ! -e x.out

echo "$checks checks, $failures failures"
((failures == 0))
