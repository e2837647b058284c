#!/usr/bin/env bash
# Time-aware load maps (issue #9): a plugin host dlopens libplug_a.so, runs
# it, dlcloses it, then dlopens libplug_b.so, which the loader puts at the
# same address.  Every PC must resolve against the mapping in force at its
# event's time: a's clock samples and heap calls go to a's functions, b's to
# b's, with the figures the host measured (CPU within 10%, allocation counts
# exact), and the thread's start function still resolves.
. "$(dirname "$0")/e2e_lib.sh" maps
for x in a b; do
	cc -O1 -g -fPIC -shared -DPLUG=$x "$PA_TOP/tests/fixtures/plugin_lib.c" -o libplug_$x.so || exit 1
done
cc -O1 -g "$PA_TOP/tests/fixtures/plugin_host.c" -o host -ldl || exit 1

NA=300 NB=700
"$PA_BIN/collect" -H on -o p.er ./host "$W" 0.3 0.2 $NA $NB >out 2>err || { bad "collect"; cat err; exit 1; }
ba=$(awk '$1 == "base" && $2 == "a" { print $3 }' out)
bb=$(awk '$1 == "base" && $2 == "b" { print $3 }' out)
if [[ -z $ba || $ba != "$bb" ]]; then
	# the point of the test is the shared address; the loader has always reused it here
	bad "the two plugins did not share a base address ($ba, $bb): the test proves nothing"
	exit 1
fi
ok "libplug_a.so and libplug_b.so were both loaded at $ba"
[[ $(grep -c "<load .*libplug_[ab].so\" base=\"$ba\"" p.er/map.xml) == 2 ]] &&
	ok "map.xml records both at $ba" || bad "map.xml does not record both plugins at $ba"

"$PA_BIN/er_print" -functions p.er >fn 2>&1
# default columns with heap data: bytes leaked, leaks, bytes allocated,
# allocations, excl. CPU sec and %, incl. CPU sec and %, name
row() { awk -v f="$1" '$NF == f { print $'"$2"'; exit }' fn; }
for x in a b; do
	want=$(awk -v x=$x '$1 == "cpu" && $2 == x { print $3 }' out)
	got=$(row plug_${x}_work 7)
	python3 -c "import sys; w, g = $want, float('${got:-0}'); sys.exit(0 if abs(g - w) <= 0.1 * w else 1)" &&
		ok "plug_${x}_work: ${got} s inclusive CPU, measured $want s" ||
		{ bad "plug_${x}_work: '${got:-none}' s inclusive CPU, measured $want s"; cat fn; }
	n=$([[ $x == a ]] && echo $NA || echo $NB)
	cnt=$(row plug_${x}_alloc 4) bytes=$(row plug_${x}_alloc 3)
	# n blocks of 100 bytes and the array of n pointers that holds them
	[[ $cnt == $((n + 1)) && $bytes == $((n * 100 + n * 8)) ]] &&
		ok "plug_${x}_alloc: $cnt allocations, $bytes bytes" ||
		bad "plug_${x}_alloc: '${cnt:-none}' allocations, '${bytes:-none}' bytes; want $((n + 1)), $((n * 108))"
	"$PA_BIN/er_print" -source plug_${x}_work p.er >src_$x 2>&1
	grep -q "^Object file: .*/libplug_$x.so$" src_$x && ok "-source plug_${x}_work reads libplug_$x.so" ||
		{ bad "-source plug_${x}_work does not name libplug_$x.so"; head -5 src_$x; }
done
"$PA_BIN/er_print" -heap p.er >heap 2>&1
grep -q "plug_a_alloc" heap && grep -q "plug_b_alloc" heap && ok "-heap names both plugins' allocating functions" ||
	bad "-heap lacks plug_a_alloc or plug_b_alloc"
e2e_end
