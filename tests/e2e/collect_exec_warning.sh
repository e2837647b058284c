#!/usr/bin/env bash
# A target that replaces itself with another program (a wrapper script or a
# shim that execs the real binary) is profiled only up to the exec; collect
# warns at the end of the run and er_print's header says it, so an empty
# profile is never a mystery.  A target that does not exec gets no warning.
set -u
: "${PA_TOP:?run through tests/run.sh}" "${PA_BIN:?}"
W=$(mktemp -d /tmp/pa-e2e-exec.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"
fails=0
"$PA_BIN/collect" -o x.er sh -c 'exec /bin/true' >/dev/null 2>err || { echo "FAIL: collect"; cat err; exit 1; }
grep -q "collect: warning: the target exec'd another program (/usr/bin/true\|collect: warning: the target exec'd another program (/bin/true" err &&
	echo "ok: collect warns about the exec" || { echo "FAIL: no exec warning from collect"; cat err; fails=1; }
"$PA_BIN/er_print" -header x.er >h 2>&1
grep -q "\*\*\* Warning: the target exec'd .*true; what ran after the exec was not profiled" h &&
	echo "ok: header names the exec" || { echo "FAIL: header"; cat h; fails=1; }
"$PA_BIN/collect" -o y.er /bin/true >/dev/null 2>err2 || exit 1
grep -q "exec'd" err2 && { echo "FAIL: warning without an exec"; fails=1; } || echo "ok: no warning without an exec"
exit $fails
