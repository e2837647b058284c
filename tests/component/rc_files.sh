#!/usr/bin/env bash
# er_print's defaults files (issue #16 item 6): the system's ($PA_SYSTEM_RC here),
# ~/.er.rc and ./.er.rc, read after the experiments and before the commands.
# dmetrics lines add up within a file, keeping only the metrics the experiments
# have; a later file's list replaces an earlier one's; dsort sets the sort; limit,
# pathmap, ... run silently; gprofng's rc commands that do not apply are skipped;
# anything else is a warning naming the file and line; the command line wins.
. "$(dirname "$0")/common.bash"
prog=$(fixture_prog)
cat >"$WORK/s.txt" <<EOS
object $prog
thread 100
sample 100 10 10000000 work+10 slow+9 main+42
sample 100 5 10000000 fast+9 both+8 main+16
end 100 150000000
EOS
"$MKEXP" "$WORK/x.er" <"$WORK/s.txt" || exit 1
cd "$WORK" || exit 1
mkdir -p home run
has() { grep -qF -- "$3" "$2" && pass "$1" || { fail "$1: no '$3' in:"; cat "$2"; }; }
hasnt() { ! grep -qF -- "$3" "$2" && pass "$1" || { fail "$1: '$3' in:"; cat "$2"; }; }
erp() { # the commands, one per argument, run from a script (an optional argument would take x.er)
	printf '%s\n' "$@" >"$WORK/cmds"
	# shellcheck disable=SC2154 # out is the caller's: out=FILE erp ...
	(cd run && HOME="$WORK/home" PA_SYSTEM_RC="$WORK/system.rc" "$ER_PRINT" -script "$WORK/cmds" ../x.er) >"$out" 2>&1
}

# the system file alone: gprofng-style lines, metrics it does not have skipped
cat >system.rc <<'EOS'
# as gprofng's
scc all
dcc all:src
dmetrics i.heapleakbytes:e!heapleakbytes
dmetrics e.%totalcpu
dmetrics i.totalcpu
dsort i.totalcpu
viewmode user
compare off
en_desc on
EOS
out=sys.txt erp metrics
has "system rc: dmetrics add up, heap metrics skipped" sys.txt "Current metrics: e.%totalcpu:i.totalcpu:name"
out=sysf.txt erp functions
has "system rc: dsort" sysf.txt "Functions sorted by metric: Inclusive Total CPU Time"
[[ $(grep -c . sys.txt) == 1 ]] && pass "system rc: gprofng's other commands skipped silently" || fail "system rc output: $(cat sys.txt)"

# ~/.er.rc replaces the list; ./.er.rc's limit and a bad line
printf 'dmetrics i.totalcpu:name\n' >home/.er.rc
printf 'limit 2\nfrobnicate 1\n' >run/.er.rc
out=home.txt erp metrics functions
has "home rc: its list replaces the system's" home.txt "Current metrics: i.totalcpu:name"
has "cwd rc: an unknown command is named with its file and line" home.txt "er_print: .er.rc:2: 'frobnicate' is not a defaults-file command; ignored"
[[ $(grep -cE '^ *[0-9.]+ +[A-Za-z<]' home.txt) == 3 ]] && pass "cwd rc: limit 2 (<Total> + 2 rows)" ||
	fail "limit from .er.rc: $(cat home.txt)"
hasnt "rc commands print nothing" home.txt "Print limit set to"

# the command line wins over the files
out=cl.txt erp "metrics e.totalcpu:name"
has "commands given win over the files" cl.txt "Current metrics: e.totalcpu:name"
# a defaults file that cannot be read is said, not fatal
printf 'limit 1\n' >unreadable.rc && chmod 000 unreadable.rc
if [[ $(id -u) != 0 ]]; then
	(cd run && HOME="$WORK/home" PA_SYSTEM_RC="$WORK/unreadable.rc" "$ER_PRINT" -functions ../x.er) >ur.txt 2>&1
	has "an unreadable defaults file is named" ur.txt "cannot read $WORK/unreadable.rc"
fi
finish
