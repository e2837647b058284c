#!/usr/bin/env bash
# libcollector.so exports exactly the interposed names (nm -D): threads,
# signals and the waits for them, dlopen, the process lifetime, every way of
# making a descendant and of reaping one (collector/descend.c), the blocking
# calls a sampling signal would end with EINTR (collector/waits.c), the
# collector API's entry points, and the version
# script lists the same names, and they are unversioned (so they bind every
# version of the libc symbol).  A dormant collector changes nothing: without
# PA_EXPERIMENT, or with PA_TARGET_PID naming another process, the target's
# output and exit status are untouched and no data file is created.
source "$(dirname "$0")/collector_lib.sh"
col_setup
want="_Exit __libc_start_main __nanosleep __poll_chk __ppoll_chk __sigsuspend _exit clock_nanosleep clone dlclose"
want+=" dlopen epoll_pwait epoll_pwait2 epoll_wait execl execle execlp execv execve execveat execvp execvpe exit"
want+=" fexecve msgrcv msgsnd nanosleep pa_collector_pause pa_collector_resume pa_collector_sample"
want+=" pa_collector_terminate_expt pa_collector_trace_api pause poll posix_spawn posix_spawnp ppoll pselect"
want+=" pthread_create pthread_sigmask select semop semtimedop sigaction signal signalfd sigprocmask sigsuspend"
want+=" sigtimedwait sigwait sigwaitinfo sleep usleep vfork wait wait3 wait4 waitid waitpid"
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
