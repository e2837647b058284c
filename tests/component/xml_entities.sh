#!/usr/bin/env bash
# Hostile XML in an experiment: a "billion laughs" log.xml (entities that expand to
# gigabytes), an external entity or an external DTD in map.xml, the same in a
# descendant's subexperiment.  er_print and er_archive refuse the file at once with one
# line naming it and the reason, never expand or load anything, and never crash (ASan+UBSan
# in the test build).  archives/index.xml is only ever written: a hostile one is replaced.
. "$(dirname "$0")/common.bash"
prog=$(fixture_prog)
cat >"$WORK/s.txt" <<EOS
object $prog
thread 100
sample 100 3000 10000000 work+10 slow+9 main+42
end 100 40000000000
EOS
cd "$WORK" || exit 1
"$MKEXP" good.er <s.txt || exit 1
ER_ARCHIVE=$PA_BIN/er_archive

# run NAME EXPECTED-EXIT PATTERN PROGRAM ARGS...: no crash, no hang, that exit, PATTERN in the output
run() {
	local name=$1 want=$2 pat=$3 rc start=$SECONDS
	shift 3
	timeout 60 "$@" >"out.$name" 2>&1
	rc=$?
	if ((rc == 124)); then fail "$name: still running after 60 s (entities expanded?)"; return; fi
	if ((rc >= 128)) || grep -q "Sanitizer\|runtime error" "out.$name"; then
		fail "$name crashed (rc $rc)"; cat "out.$name"; return
	fi
	if ((SECONDS - start > 10)); then fail "$name: took $((SECONDS - start)) s"; fi
	if [[ $rc != "$want" ]]; then fail "$name: exit $rc, expected $want"; cat "out.$name"; return; fi
	[[ -z $pat ]] || grep -q -- "$pat" "out.$name" && pass "$name" || { fail "$name: no '$pat'"; cat "out.$name"; }
}

# plant DIR FILE: a copy of good.er as DIR whose FILE is replaced by stdin
plant() {
	rm -rf "$1" && cp -r good.er "$1" && cat >"$1/$2"
}

laughs() { # ROOT: a DOCTYPE whose lol9 is 10^9 "lol"s
	printf '<?xml version="1.0"?>\n<!DOCTYPE %s [\n <!ENTITY lol "lol">\n' "$1"
	local i prev=lol
	for i in 1 2 3 4 5 6 7 8 9; do
		printf ' <!ENTITY lol%d "%s">\n' "$i" "$(printf "&$prev;%.0s" {1..10})"
		prev=lol$i
	done
	printf ']>\n'
}

# 1. billion laughs in log.xml, referenced from a comment and an attribute
{
	laughs experiment
	sed '1d; s|<collector version="\([^"]*\)"/>|<collector version="\1"/><comment>\&lol9;</comment>|' \
		good.er/log.xml
} | plant laughs.er log.xml
grep -q '&lol9;' laughs.er/log.xml || fail "laughs.er: the entity is not referenced"
run laughs-log 1 "^er_print: cannot read experiment laughs.er: laughs.er/log.xml: entity declarations are not allowed$" \
	"$ER_PRINT" -header laughs.er
[[ $(wc -l <out.laughs-log) == 1 ]] && pass "laughs-log: one line" || { fail "laughs-log: not one line"; cat out.laughs-log; }

# 2. a short document: the declaration lies within the last bytes of the file, where a
#    parse error reads as an unfinished collection; a refusal must stay fatal there too
printf '<!DOCTYPE experiment [<!ENTITY a "b">]>\n<experiment>&a;\n' | plant short.er log.xml
run short-log 1 "short.er/log.xml: entity declarations are not allowed" "$ER_PRINT" -header short.er

# 3. an external entity in map.xml (it would read /etc/passwd)
{
	head -n1 good.er/map.xml
	printf '<!DOCTYPE map [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>\n'
	sed '1d; s|<map version="1.0">|<map version="1.0">\&xxe;|' good.er/map.xml
} | plant xxe.er map.xml
run xxe-map 1 "xxe.er/map.xml: external entities are not allowed" "$ER_PRINT" -functions xxe.er
grep -q "root:" out.xxe-map && fail "xxe-map: /etc/passwd was read"
run xxe-archive 1 "xxe.er/map.xml: external entities are not allowed" "$ER_ARCHIVE" -q xxe.er

# 4. an external DTD (a network address: nothing may be fetched)
{
	head -n1 good.er/map.xml
	printf '<!DOCTYPE map SYSTEM "http://127.0.0.1:9/evil.dtd">\n'
	sed '1d' good.er/map.xml
} | plant dtd.er map.xml
run dtd-map 1 "dtd.er/map.xml: external DTDs are not allowed" "$ER_PRINT" -header dtd.er

# 5. a hostile subexperiment: the founder is read, the descendant is reported and left out
rm -rf tree.er && cp -r good.er tree.er && cp -r laughs.er tree.er/_f1.er
run laughs-descendant 0 "descendant not read: tree.er/_f1.er/log.xml: entity declarations are not allowed" \
	"$ER_PRINT" -header tree.er
run laughs-descendant-archive 1 "tree.er/_f1.er/log.xml: entity declarations are not allowed" \
	"$ER_ARCHIVE" -q tree.er

# 6. archives/index.xml is written, never read: a hostile one changes nothing and is replaced
mkdir -p good.er/archives
{
	printf '<?xml version="1.0"?>\n<!DOCTYPE archive [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>\n'
	printf '<archive version="1.0">&xxe;</archive>\n'
} >good.er/archives/index.xml
run index-print 0 "No errors" "$ER_PRINT" -header good.er
run index-archive 0 "" "$ER_ARCHIVE" -q good.er # -q: no output
grep -q "DOCTYPE" good.er/archives/index.xml && fail "index.xml: the hostile index was kept" ||
	pass "index.xml rewritten"
grep -qF "path=\"$prog\"" good.er/archives/index.xml && pass "index.xml names the program" ||
	fail "index.xml does not name $prog"
finish
