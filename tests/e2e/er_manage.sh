#!/usr/bin/env bash
# er_cp, er_mv, er_rm and experiment groups (.erg) (issue #16 item 5), on a real
# experiment of tests/fixtures/col_fork.c (a founder and its fork child's _f1.er),
# archived (absolute links into the per-user cache, relative .build-id links), with
# notes, compressed data, a mode and an old mtime of its own:
#   - a copy keeps every file, link target, mode and mtime, and reads the same in
#     er_print (-functions identical, -header identical but for the path);
#   - er_mv renames on one filesystem; across filesystems (/dev/shm when it is
#     another one) it copies, and the source goes only then;
#   - every refusal (a subexperiment, a file, a directory without log.xml, a log.xml
#     that is not an experiment's, a missing name, an existing destination, a group
#     to an experiment name, a copy into itself, a link, a name given twice) exits 1
#     with a message naming the operand, and touches nothing even when other operands
#     are good;
#   - er_rm -f, usage errors (exit 2), --help against the man pages' SYNOPSIS, -V;
#   - groups: collect -g, er_print, analyzer, er_archive, and er_cp/er_mv/er_rm;
#   - a full disk (a 64 KiB tmpfs, root only): exit 1, the partial copy removed, and
#     er_mv keeps its source.
. "$(dirname "$0")/e2e_lib.sh" ermanage
small=$W/small
cleanup_mounts() { mountpoint -q "$small" 2>/dev/null && umount "$small"; rm -rf "$W"; }
trap cleanup_mounts EXIT
B=$PA_BIN
shm=

cc -O1 -g "$PA_TOP/tests/fixtures/col_fork.c" -o col_fork || exit 1
"$B/collect" -C "a note" -g grp.erg ./col_fork >run.out 2>run.err || { cat run.err; exit 1; }
[[ -d grp.1.er/_f1.er ]] && ok "collect -g grp.erg: named grp.1.er, with its subexperiment" ||
	{ bad "collect -g: no grp.1.er/_f1.er"; ls; e2e_end; }
[[ $(cat grp.erg) == $'#analyzer experiment group\ngrp.1.er' ]] && ok "collect -g wrote the group file" ||
	bad "grp.erg: $(cat grp.erg)"
"$B/er_archive" -q grp.1.er || bad "er_archive failed"
mv grp.1.er a.1.er
printf '#analyzer experiment group\na.1.er\n' >grp.erg
ln -s ../no/such/file a.1.er/archives/rel_link
ln -s /no/such/abs a.1.er/archives/abs_link
chmod 600 a.1.er/map.xml
touch -d '2020-02-02 02:02:02' a.1.er/log.xml
ls a.1.er/*.zst >/dev/null 2>&1 || bad "no compressed data file to copy"
[[ -s a.1.er/notes ]] || bad "no notes file to copy"
find a.1.er/archives -type l -lname '/*' | grep -q . || bad "no absolute link in archives/"

# tree EXP: every entry with its type, mode, mtime, link target and size (not a directory's:
# that is the filesystem's)
tree() { (cd "$1" && find . \( -type d -printf '%P d %m %T@\n' \) -o -printf '%P %y %m %T@ %l %s\n' | sort); }
# same_reads A B: er_print -functions identical, -header identical but for the path
same_reads() {
	"$B/er_print" -functions "$1" >f1 2>&1
	"$B/er_print" -functions "$2" >f2 2>&1
	cmp -s f1 f2 && grep -q spin_to f1 && ok "$2 reads like $1 (-functions)" || bad "$2: -functions differs"
	"$B/er_print" -header "$1" | sed "s#$1#EXP#g" >h1
	"$B/er_print" -header "$2" | sed "s#$2#EXP#g" >h2
	cmp -s h1 h2 && ok "$2: -header as $1's but for the path" || { bad "$2: -header differs"; diff h1 h2 | head; }
}
# refuse WHAT PATTERN CMD...: exit 1 and a message matching PATTERN
refuse() {
	local what=$1 pat=$2
	shift 2
	"$@" >r.out 2>r.err
	local rc=$?
	[[ $rc == 1 ]] && grep -q -- "$pat" r.err && ok "$what: refused: $(head -1 r.err)" ||
		bad "$what: exit $rc, '$(head -1 r.err)' (wanted 1 and /$pat/)"
}

# ---- er_cp
tree a.1.er >a.tree
"$B/er_cp" a.1.er b.1.er && ok "er_cp a.1.er b.1.er" || bad "er_cp failed"
tree b.1.er >b.tree
cmp -s a.tree b.tree && ok "the copy has every file, link, mode and mtime ($(wc -l <a.tree) entries)" ||
	{ bad "the copy differs"; diff a.tree b.tree | head; }
diff -r --no-dereference a.1.er b.1.er >/dev/null && ok "the copy's contents are the same" || bad "contents differ"
[[ $(readlink b.1.er/archives/abs_link) == /no/such/abs && $(readlink b.1.er/archives/rel_link) == ../no/such/file ]] &&
	ok "links stay links, targets unchanged" || bad "links changed"
same_reads a.1.er b.1.er
mkdir into
"$B/er_cp" a.1.er b.1.er into && [[ -f into/a.1.er/log.xml && -d into/b.1.er/_f1.er ]] &&
	ok "er_cp EXP EXP DIR" || bad "er_cp into a directory"

# ---- refusals: nothing is touched
mkdir empty nolog.er notexp.er
echo '<archive version="1.0"/>' >notexp.er/log.xml
echo text >file.er
refuse "subexperiment" "subexperiment of a.1.er" "$B/er_cp" a.1.er/_f1.er empty
refuse "a file" "file.er: not an experiment: not a directory" "$B/er_cp" file.er empty
refuse "no log.xml" "nolog.er: not an experiment: it has no log.xml" "$B/er_cp" nolog.er empty
refuse "foreign log.xml" "notexp.er: not an experiment: its log.xml is not an experiment log" "$B/er_cp" notexp.er empty
refuse "missing" "missing.er: does not exist" "$B/er_cp" a.1.er missing.er empty
ln -s a.1.er link.er
refuse "a symbolic link" "link.er: is a symbolic link" "$B/er_rm" link.er
refuse "named twice" "named twice" "$B/er_cp" a.1.er ./a.1.er/ empty
[[ -z $(ls empty) ]] && ok "a refused operand: the good one was not copied either" || bad "empty/ got $(ls empty)"
refuse "existing destination" "b.1.er already exists" "$B/er_cp" a.1.er b.1.er
refuse "destination inside" "into itself" "$B/er_cp" a.1.er a.1.er/archives
refuse "not .er" "must end in .er" "$B/er_cp" a.1.er newname
refuse "several into a non-directory" "not a directory" "$B/er_cp" a.1.er b.1.er new.er
refuse "group to a name" "a group can only be copied into a directory" "$B/er_cp" grp.erg g2.er
refuse "er_mv subexperiment" "subexperiment" "$B/er_mv" a.1.er/_f1.er moved.er
refuse "er_rm subexperiment" "subexperiment" "$B/er_rm" a.1.er/_f1.er
refuse "er_rm mixed" "nolog.er" "$B/er_rm" b.1.er nolog.er
[[ -d b.1.er && -d a.1.er/_f1.er && -d nolog.er && -L link.er && ! -e g2.er && ! -e moved.er && ! -e new.er ]] &&
	ok "refusals touched nothing" || bad "a refusal touched something"

# ---- command line
for t in er_cp er_mv er_rm; do
	"$B/$t" --help >help.txt || bad "$t --help failed"
	sed -n '/^Usage: /,/^$/p' help.txt | sed '/^$/d; s/^Usage: //; s/^ *//' >help_syn
	sed -n '/^\.SH SYNOPSIS/,/^\.SH/p' "$PA_TOP/docs/man/$t.1" | grep -v '^\.' | sed 's/\\f[BIR]//g; s/\\-/-/g' >man_syn
	[[ -s help_syn ]] && cmp -s help_syn man_syn && ok "$t --help synopsis matches docs/man/$t.1" ||
		{ bad "$t synopsis"; diff help_syn man_syn; }
	"$B/$t" -V | grep -q "^$t (Performance Analyzer for Linux) [0-9]" && ok "$t -V" || bad "$t -V"
	"$B/$t" -Z a.1.er x >/dev/null 2>u.err
	[[ $? == 2 ]] && grep -q "unknown option -Z" u.err && ok "$t -Z: usage error" || bad "$t -Z"
	"$B/$t" >/dev/null 2>&1
	[[ $? == 2 ]] && ok "$t without operands: usage error" || bad "$t without operands"
done

# ---- er_rm
"$B/er_rm" -f missing.er >r.out 2>&1 && [[ ! -s r.out ]] && ok "er_rm -f missing: silent, exit 0" || bad "er_rm -f missing"
refuse "er_rm missing" "missing.er: does not exist" "$B/er_rm" missing.er
"$B/er_rm" into/a.1.er && [[ ! -e into/a.1.er && -d into/b.1.er ]] && ok "er_rm EXP" || bad "er_rm EXP"
chmod 500 into/b.1.er/archives
"$B/er_rm" -f into/b.1.er missing.er && [[ ! -e into/b.1.er ]] && ok "er_rm -f EXP missing (a read-only directory inside)" ||
	bad "er_rm -f EXP missing"

# ---- er_mv
ino=$(stat -c %i b.1.er)
"$B/er_mv" b.1.er c.1.er && [[ ! -e b.1.er && $(stat -c %i c.1.er) == "$ino" ]] && ok "er_mv on one filesystem renames" ||
	bad "er_mv rename"
if [[ -d /dev/shm && -w /dev/shm && $(stat -c %d /dev/shm) != $(stat -c %d .) ]]; then
	shm=$(mktemp -d /dev/shm/pa-e2e-ermanage.XXXXXX)
	trap 'rm -rf "$shm"; cleanup_mounts' EXIT
	tree c.1.er >c.tree
	"$B/er_mv" c.1.er "$shm" && [[ ! -e c.1.er ]] && ok "er_mv across filesystems: the source is gone" || bad "er_mv to /dev/shm"
	tree "$shm/c.1.er" >m.tree
	cmp -s c.tree m.tree && ok "moved across filesystems: every file, link, mode and mtime" || bad "the moved tree differs"
	"$B/er_mv" "$shm/c.1.er" c.1.er && same_reads a.1.er c.1.er
else
	echo "note: /dev/shm is not another filesystem here: er_mv across filesystems not checked"
fi

# ---- groups
"$B/er_print" -functions grp.erg >g.txt 2>&1
"$B/er_print" -functions a.1.er >a.txt 2>&1
cmp -s g.txt a.txt && ok "er_print GROUP reads its experiment" || bad "er_print grp.erg differs"
printf '#analyzer experiment group\n# two\n\n%s\nc.1.er\n' "$W/a.1.er" >two.erg
"$B/er_print" -experiment_list two.erg >el.txt 2>&1
grep -q "$W/a.1.er/_f1.er" el.txt && grep -q ' c.1.er ' el.txt && ok "er_print: a group of two, absolute and relative" ||
	{ bad "experiment_list of two.erg"; cat el.txt; }
echo 'not a group' >bad.erg
refuse "er_print bad group" "bad.erg: not an experiment group" "$B/er_print" -functions bad.erg
refuse "analyzer bad group" "bad.erg: not an experiment group" "$B/analyzer" --no-browser bad.erg
refuse "er_archive bad group" "bad.erg: not an experiment group" "$B/er_archive" bad.erg
refuse "er_rm bad group" "bad.erg: not an experiment group" "$B/er_rm" bad.erg
"$B/er_archive" two.erg >ar.out 2>&1 && [[ $(grep -c 'already archived:.*col_fork' ar.out) == 2 ]] &&
	ok "er_archive GROUP: each member" || { bad "er_archive two.erg"; cat ar.out; }
"$B/analyzer" --no-browser --port 0 two.erg >an.out 2>an.err &
an=$!
for ((i = 0; i < 100; i++)); do
	url=$(sed -n 's/^Analyzer: //p' an.out)
	[[ -n $url ]] && break
	sleep 0.1
done
if [[ $url =~ ^(http://127\.0\.0\.1:[0-9]+)/\?token=([0-9a-f]+)$ ]]; then
	curl -sf "${BASH_REMATCH[1]}/api/experiments?token=${BASH_REMATCH[2]}" >ex.json
	python3 -c 'import json,sys; e=json.load(open("ex.json"))["experiments"]; sys.exit(0 if len(e) == 4 else 1)' &&
		ok "analyzer GROUP: 4 experiments (2 founders, 2 subexperiments)" || { bad "analyzer experiments"; head -c 600 ex.json; }
else
	bad "analyzer two.erg printed no URL: $(cat an.err)"
fi
kill "$an" 2>/dev/null
wait "$an" 2>/dev/null

mkdir g1 g2
"$B/er_cp" two.erg g1 && [[ -d g1/a.1.er && -d g1/c.1.er && $(cat g1/two.erg) == $'#analyzer experiment group\na.1.er\nc.1.er' ]] &&
	ok "er_cp GROUP DIR: members and a group file naming the copies" || bad "er_cp two.erg g1"
"$B/er_print" -functions g1/two.erg >g1.txt 2>&1 && grep -q spin_to g1.txt && ok "er_print reads the copied group" ||
	bad "er_print g1/two.erg"
refuse "er_cp GROUP DIR again" "g1/a.1.er already exists" "$B/er_cp" two.erg g1
"$B/er_mv" g1/two.erg g2 && [[ ! -e g1/two.erg && ! -e g1/a.1.er && -d g2/c.1.er && -f g2/two.erg ]] &&
	ok "er_mv GROUP DIR: members moved, the group file too" || bad "er_mv g1/two.erg g2"
printf '#analyzer experiment group\na.1.er\nc.1.er\nmissing.er\n' >g2/three.erg
refuse "er_rm group with a missing member" "member g2/missing.er: does not exist" "$B/er_rm" g2/three.erg
[[ -d g2/a.1.er ]] && ok "nothing removed" || bad "er_rm removed members of a refused group"
"$B/er_rm" -f g2/three.erg && [[ ! -e g2/a.1.er && ! -e g2/c.1.er && ! -e g2/three.erg && -f g2/two.erg ]] &&
	ok "er_rm -f GROUP: its members and the group file" || bad "er_rm -f g2/three.erg"

# ---- a full disk
tree a.1.er >a.tree
if mkdir -p "$small" && mount -t tmpfs -o size=64k tmpfs "$small" 2>/dev/null; then
	"$B/er_cp" a.1.er "$small" >f.out 2>f.err
	rc=$?
	[[ $rc == 1 ]] && grep -q 'No space left on device (the partial copy was removed)' f.err &&
		[[ ! -e $small/a.1.er ]] && ok "er_cp on a full disk: exit 1, the partial copy removed" ||
		{ bad "er_cp on a full disk: exit $rc, $(cat f.err), left: $(ls "$small")"; }
	"$B/er_mv" a.1.er "$small" >f.out 2>f.err
	rc=$?
	[[ $rc == 1 && -d a.1.er/_f1.er && ! -e $small/a.1.er ]] && cmp -s a.tree <(tree a.1.er) &&
		ok "er_mv on a full disk: exit 1, the source kept whole" || bad "er_mv on a full disk: exit $rc, $(cat f.err)"
else
	echo "note: cannot mount a tmpfs (not root?): the full-disk checks are skipped"
fi
e2e_end
