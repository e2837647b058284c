#!/usr/bin/env bash
# libcollector.so exports exactly the interposed names (nm -D): threads,
# signals, dlopen, the process lifetime and every way of making a descendant
# (collector/descend.c), the collector API's entry points, and the version
# script lists the same names, and they are unversioned (so they bind every
# version of the libc symbol).  A dormant collector changes nothing: without
# PA_EXPERIMENT, or with PA_TARGET_PID naming another process, the target's
# output and exit status are untouched and no data file is created.
source "$(dirname "$0")/collector_lib.sh"
col_setup
want="_Exit __libc_start_main _exit clone dlclose dlopen execl execle execlp execv execve execveat execvp execvpe exit"
want+=" fexecve pa_collector_pause pa_collector_resume pa_collector_sample pa_collector_terminate_expt"
want+=" pa_collector_trace_api posix_spawn posix_spawnp pthread_create pthread_sigmask sigaction signal"
want+=" sigprocmask vfork"
got=$(nm -D --defined-only "$COL_SO" | awk '{print $3}' | grep -vx -e _init -e _fini | sort | tr '\n' ' ')
[[ ${got% } == "$want" ]] || col_fail "exports: '$got', want '$want'"
map=$(sed -n '/global:/,/local:/p' "$PA_TOP/collector/libcollector.map" | grep -o '^ *[A-Za-z_][A-Za-z_0-9]*;' |
	tr -d ' ;' | sort | tr '\n' ' ')
[[ ${map% } == "$want" ]] || col_fail "version script: '$map', want '$want'"
objdump -T "$COL_SO" | awk '$NF == "pthread_create" || $NF == "sigaction" || $NF == "__libc_start_main" || $NF == "posix_spawn"' | grep -q GLIBC &&
	col_fail "interposers carry a symbol version"
col_note "exports: $want"

col_cc exec
# no experiment: pass-through
out=$(LD_PRELOAD=$COL_SO "$COL_TMP/exec" /bin/sh -c 'echo hello; exit 3') && rc=0 || rc=$?
[[ $out == hello && $rc == 3 ]] || col_fail "dormant (no PA_EXPERIMENT): out='$out' rc=$rc"
# experiment for another pid: dormant, nothing written
exp=$COL_TMP/other.er
col_exp_new "$exp" "p=997"
out=$(PA_EXPERIMENT=$exp PA_PARAMS=p=997 PA_TARGET_PID=1 LD_PRELOAD=$COL_SO \
	"$COL_TMP/exec" /bin/sh -c 'echo hello; exit 3') && rc=0 || rc=$?
[[ $out == hello && $rc == 3 ]] || col_fail "dormant (other pid): out='$out' rc=$rc"
[[ ! -e $exp/profile && ! -e $exp/stacks ]] || col_fail "a dormant collector created data files"
grep -q collector_start "$exp/log.xml" && col_fail "a dormant collector wrote log.xml"
# collecting: stdout and exit status untouched
exp=$COL_TMP/on.er
out=$(col_run "$exp" "p=997" "$COL_TMP/exec" /bin/sh -c 'echo hello; exit 3'; echo "rc=$COL_RC")
[[ $out == $'hello\nrc=3' ]] || col_fail "collecting: output '$out'"
col_note "dormant and collecting runs leave stdout and exit status untouched"
echo "PASS collector_exports"
