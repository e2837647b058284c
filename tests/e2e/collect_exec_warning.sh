#!/usr/bin/env bash
# A target that replaces itself with another program (a wrapper script or a
# shim that execs the real binary):
#  - by default (-F on) the exec'd program records into the subexperiment
#    _x1.er, er_print reads it with the founder, its samples count, and
#    nothing is warned about;
#  - with -F off it runs unprofiled: collect says so at the end and the
#    header's warnings name it, so an empty profile is never a mystery;
#  - a target that does not exec gets no descendant line at all.
set -u
: "${PA_TOP:?run through tests/run.sh}" "${PA_BIN:?}"
W=$(mktemp -d /tmp/pa-e2e-exec.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
cat >spin.c <<'EOF'
#include <time.h>
static volatile double sink;
__attribute__((noinline)) void after_exec(void)
{
	struct timespec t;
	do {
		for (int i = 0; i < 100000; i++)
			sink += i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (t.tv_sec * 1000000000L + t.tv_nsec < 300000000L);
}
int main(void) { after_exec(); return 0; }
EOF
cc -O1 -g spin.c -o spin || exit 1

"$PA_BIN/collect" -o x.er sh -c 'exec ./spin' >/dev/null 2>err || { bad "collect"; cat err; exit 1; }
grep -q "warning" err && bad "a warning for a followed exec: $(cat err)" || ok "no warning for a followed exec"
grep -q "1 descendant process: 1 recorded in x.er/_\*.er" err && ok "collect counts the exec'd image" ||
	{ bad "collect's descendant line"; cat err; }
[[ -d x.er/_x1.er ]] && ok "the exec'd image recorded into x.er/_x1.er" || bad "no x.er/_x1.er"
"$PA_BIN/er_print" -functions x.er >f 2>&1
t=$(awk '$NF == "after_exec" { print $3; exit }' f)
python3 -c "import sys; sys.exit(0 if 0.2 <= float('${t:-0}') <= 0.4 else 1)" &&
	ok "after_exec, run after the exec, has ${t} s inclusive (0.3 s of CPU)" || { bad "after_exec: '${t:-none}'"; cat f; }
"$PA_BIN/er_print" -header x.er >h 2>&1
grep -q "^No warnings" h && ok "founder header: no warnings" || { bad "founder header warns"; cat h; }
grep -q "^    _x1.er  *pid [0-9]*  *0\.[0-9]* s  exit 0  exec './spin'" h && ok "process tree shows _x1.er" ||
	{ bad "process tree"; sed -n '/Process tree/,$p' h; }

"$PA_BIN/collect" -F off -o off.er sh -c 'exec ./spin' >/dev/null 2>err2 || exit 1
grep -q "1 descendant process: 0 recorded in off.er/_\*.er, 1 not followed (-F)" err2 &&
	ok "-F off: collect says the exec'd program was not followed" || { bad "-F off: collect"; cat err2; }
[[ ! -e off.er/_x1.er ]] && ok "-F off: no subexperiment" || bad "-F off: a subexperiment was written"
"$PA_BIN/er_print" -header off.er >h2 2>&1
grep -q "\*\*\* Warning: the target exec'd .*/spin; what ran after the exec was not profiled" h2 &&
	ok "-F off: header names the exec" || { bad "-F off: header"; cat h2; }
grep -q "\*\*\* Warning: process [0-9]* (.*/spin) ran unprofiled: not followed (-F off)" h2 &&
	ok "-F off: header lists the unprofiled process" || { bad "-F off: header process warning"; cat h2; }

"$PA_BIN/collect" -o y.er /bin/true >/dev/null 2>err3 || exit 1
grep -q "descendant" err3 && { bad "a descendant line without descendants"; cat err3; } ||
	ok "no descendant line without descendants"
exit $fails
