#!/usr/bin/env bash
# er_print -export pprof on real experiments of tests/fixtures/export_prog.c,
# with and without collect -H on, read back by its real consumer, Go's
# `go tool pprof` (golang-go, installed by scripts/setup-deps.sh: the test
# fails, not skips, without it).  Asserted:
#  - the file is gzip and pprof reads it (-raw);
#  - sample types: totalcpu/nanoseconds alone without heap data; with it
#    also heapalloccnt/count, heapallocbytes/bytes, heapleakcnt/count,
#    heapleakbytes/bytes; [dflt] is the metric asked for (totalcpu by default);
#  - each column of the samples sums to er_print's <Total>: CPU time in ns
#    printed as er_print prints seconds (%.3f), heap counts and bytes exactly;
#  - pprof's top function (flat, -top) is er_print's top function by
#    exclusive CPU time, and by exclusive bytes allocated;
#  - stacks are leaf first (-traces: spin_until, hot, outer, main), each
#    sample has a thread label ("1"; "1:1" and "2:1" with two experiments
#    loaded, whose totals are those of er_print on both);
#  - FILE - writes the same bytes to standard output;
#  - an unknown metric, a heap metric without heap data and an unwritable
#    file fail with a message naming what is wrong, and leave no file.
command -v go >/dev/null || { echo "go not found: install golang-go (bash scripts/setup-deps.sh)"; exit 1; }
. "$(dirname "$0")/export_lib.sh" export_pprof
# go tool pprof reads local files only: no network, no state outside the scratch directory
export GOCACHE=$tmp/go-cache GOPATH=$tmp/go HOME=$tmp GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GOTELEMETRY=off
pprof() { go tool pprof "$@" 2>>pprof.err; }

types() { # the sample types line of -raw: "totalcpu/nanoseconds[dflt] ..."
	awk 'f { print; exit } /^Samples:/ { f = 1 }' "$1"
}
sums() { # the sum of each value column of -raw's samples, space separated
	awk '/^Samples:/ { s = 1; getline; next } /^Locations/ { s = 0 }
		s && /^ *[0-9][0-9 ]*:/ { sub(/:.*/, ""); for (i = 1; i <= NF; i++) t[i] += $i; if (NF > n) n = NF }
		END { for (i = 1; i <= n; i++) printf "%s%.0f", (i > 1 ? " " : ""), t[i] }' "$1"
}
top_pprof() { # the first function of -top (largest flat value)
	awk 'f { print $NF; exit } $1 == "flat" { f = 1 }' "$1"
}

for x in c h; do
	"$er_print" -export pprof $x.pb.gz "$x.er" 2>err
	check "$x: export pprof exits 0 ($(head -c 300 err))" test $? = 0
	check "$x: the file is gzip" gzip -t $x.pb.gz
	pprof -raw $x.pb.gz >$x.raw
	check "$x: go tool pprof -raw reads it ($(head -c 300 pprof.err))" test -s $x.raw
	read -r cpu _ < <(sums $x.raw)
	total=$(totals e.totalcpu "$x.er")
	check "$x: CPU sum $cpu ns = <Total> $total s" test "$(secs "${cpu:-0}")" = "$total"
	pprof -top -sample_index=totalcpu $x.pb.gz >$x.top
	top=$(top_er "$x.er" totalcpu)
	check "$x: pprof's top function $(top_pprof $x.top) is er_print's $top" test "$(top_pprof $x.top)" = "$top"
	pprof -traces $x.pb.gz >$x.traces
	check "$x: leaf-first trace spin_until, hot, outer, main" \
		grep -qzP '\n +[0-9.]+m?s +spin_until\n +hot\n +outer\n +main\n' $x.traces
	check "$x: every sample has thread label 1" \
		test "$(grep -c '^ *thread: ' $x.traces)" = "$(grep -c '^ *thread:  1$' $x.traces)"
	check "$x: samples have thread labels" grep -q '^ *thread:  1$' $x.traces
done
check "c: totalcpu (the default) and its user/system split are the sample types" test "$(types c.raw)" = \
	"totalcpu/nanoseconds[dflt] user/nanoseconds system/nanoseconds"
read -r cpu cuser csys < <(sums c.raw)
check "c: user $cuser + system $csys = totalcpu $cpu ns" test "$((cuser + csys))" = "$cpu"
check "h: the seven base metrics, totalcpu default ($(types h.raw))" test "$(types h.raw)" = \
	"totalcpu/nanoseconds[dflt] user/nanoseconds system/nanoseconds heapalloccnt/count heapallocbytes/bytes heapleakcnt/count heapleakbytes/bytes"
read -r _ _ _ hcount hbytes hleakcnt hleaked < <(sums h.raw)
read -r tcount tbytes tleakcnt tleaked < <(totals i.heapalloccnt:i.heapallocbytes:i.heapleakcnt:i.heapleakbytes h.er)
check "h: allocations $hcount = <Total> $tcount" test "$hcount" = "$tcount"
check "h: bytes $hbytes = <Total> $tbytes" test "$hbytes" = "$tbytes"
check "h: leaks $hleakcnt = <Total> $tleakcnt" test "$hleakcnt" = "$tleakcnt"
check "h: leaked bytes $hleaked = <Total> $tleaked" test "$hleaked" = "$tleaked"
leaf=$(awk '/^Samples:/ { s = 1; getline; next } /^Locations/ { s = 0; l = 1; next } /^Mappings/ { l = 0 }
	s && /:/ { v = $0; sub(/:.*/, "", v); split(v, x, " ")
		if (x[4] == 110 && x[5] == 140960 && x[6] == 10 && x[7] == 40960) { sub(/^[^:]*: */, ""); want = $1 } }
	l && $1 == want ":" { print $4 }' h.raw)
check "h: one sample has allocs's 110 allocations, 140960 bytes, 10 leaks of 40960 bytes; its leaf '$leaf' is allocs" \
	test "$leaf" = allocs
pprof -top -sample_index=heapallocbytes h.pb.gz >h.top.bytes
top=$(top_er h.er heapallocbytes)
check "h: top by bytes $(top_pprof h.top.bytes) is er_print's $top" test "$(top_pprof h.top.bytes)" = "$top"

check "pprof:heapleakbytes" "$er_print" -export pprof:heapleakbytes leak.pb.gz h.er
pprof -raw leak.pb.gz >leak.raw
check "pprof:heapleakbytes is the default sample type ($(types leak.raw))" \
	grep -q ' heapleakbytes/bytes\[dflt\]$' <(types leak.raw)
pprof -top leak.pb.gz >leak.top
check "-top uses the default type" grep -q '^Type: heapleakbytes$' leak.top

"$er_print" -export pprof both.pb.gz c.er h.er 2>err
check "two experiments: export exits 0 ($(head -c 200 err))" test $? = 0
pprof -raw both.pb.gz >both.raw
pprof -tags both.pb.gz >both.tags
check "two experiments: threads 1:1 and 2:1" eval 'grep -q " 1:1$" both.tags && grep -q " 2:1$" both.tags'
read -r cpu _ _ bcount _ < <(sums both.raw)
read -r total tcount < <(totals e.totalcpu:i.heapalloccnt c.er h.er)
check "two experiments: CPU $cpu ns = <Total> $total s" test "$(secs "${cpu:-0}")" = "$total"
check "two experiments: allocations $bcount = <Total> $tcount" test "$bcount" = "$tcount"

"$er_print" -export pprof - h.er >stdout.pb.gz 2>err
check "FILE - writes the same bytes to standard output ($(head -c 200 err))" cmp -s stdout.pb.gz h.pb.gz

fails_with "unknown metric" "unknown metric 'cycles'" -export pprof:cycles x.out c.er
fails_with "heap metric without heap data" "heapleakcnt needs heap data" -export pprof:heapleakcnt x.out c.er
fails_with "unwritable file" "cannot write '$tmp/no/such/dir/f': No such file or directory" \
	-export pprof "$tmp/no/such/dir/f" c.er
check "no file left by failed exports" test ! -e x.out

echo "$checks checks, $failures failures"
((failures == 0))
