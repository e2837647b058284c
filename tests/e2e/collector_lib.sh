# shellcheck shell=bash
# collector_lib.sh - helpers for the collector's e2e tests (sourced, not run).
# Stands in for `collect`: creates the experiment directory with the heads of
# log.xml and map.xml, runs a fixture with libcollector.so preloaded under the
# PA_* contract, and appends the tails.  Env from tests/run.sh: PA_TOP,
# PA_BUILD, PA_LIB (defaults: the source tree and build/).  tests/run.sh also
# runs it as a script: it then reports itself skipped.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	echo "helper sourced by tests/e2e/collector_*.sh, not a test"
	exit 77
fi
set -euo pipefail
PA_TOP=${PA_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
PA_BUILD=${PA_BUILD:-$PA_TOP/build}
PA_LIB=${PA_LIB:-$PA_BUILD/lib}
COL_SO=$PA_LIB/libcollector.so
EXPDUMP=$PA_BUILD/tests/tools/expdump

col_fail() { echo "FAIL: $*" >&2; exit 1; }
col_note() { echo "# $*"; }

col_setup() { # make a temp dir (COL_TMP), check the library, build expdump if missing
	[[ -f $COL_SO ]] || col_fail "$COL_SO not built (make all)"
	if [[ ! -x $EXPDUMP ]]; then
		make -s -C "$PA_TOP" BUILD="$PA_BUILD" "$EXPDUMP" >/dev/null || col_fail "cannot build expdump"
	fi
	COL_TMP=$(mktemp -d /tmp/pa-col.XXXXXX)
	trap 'rm -rf "$COL_TMP"' EXIT
}

col_cc() { # name [extra flags]: tests/fixtures/col_NAME.c -> $COL_TMP/NAME
	local name=$1; shift
	gcc -O1 -g -fno-omit-frame-pointer -pthread -o "$COL_TMP/$name" \
		"$PA_TOP/tests/fixtures/col_$name.c" "$@" || col_fail "cannot compile col_$name.c"
}

col_exp_new() { # dir params: what collect writes before it starts the target
	local dir=$1 params=$2
	mkdir -p "$dir"
	cat >"$dir/log.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<experiment version="1.1">
  <collector version="0.1.0"/>
  <params descriptor="$params"/>
  <start tstamp_ns="0" realtime_ns="0"/>
XML
	printf '<?xml version="1.0" encoding="UTF-8"?>\n<map version="1.1">\n' >"$dir/map.xml"
}

col_exp_close() { # dir status: what collect appends after the target ended
	printf '  <exit tstamp_ns="0" status="%s"/>\n  <end tstamp_ns="0"/>\n</experiment>\n' "$2" >>"$1/log.xml"
	printf '</map>\n' >>"$1/map.xml"
}

# col_run dir params prog args...: run a target like collect does; sets COL_RC.
# The child sets PA_TARGET_PID to its own pid, then execs the target.
col_run() {
	local dir=$1 params=$2; shift 2
	col_exp_new "$dir" "$params"
	set +e
	PA_EXPERIMENT=$dir PA_PARAMS=$params LD_PRELOAD=$COL_SO \
		bash -c 'export PA_TARGET_PID=$$; exec "$@"' col_run "$@"
	COL_RC=$?
	set -e
	col_exp_close "$dir" "$COL_RC"
}

col_dump() { # dir -> $dir.dump (expdump of the three files); fails on bad headers
	"$EXPDUMP" "$1" >"$1.dump" || col_fail "expdump failed on $1"
}

col_check_clean() { # dir: no damage in any data file
	col_dump "$1"
	if grep '^damage' "$1.dump" | grep -qv 'bad_blocks=0 torn_bytes=0 bad_records=0'; then
		grep '^damage' "$1.dump" >&2
		col_fail "damaged data in $1"
	fi
	grep -q '^bad_record' "$1.dump" && col_fail "bad records in $1"
	return 0
}

col_xml_ok() { # file: well-formed XML (python3's parser)
	python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$1" ||
		col_fail "$1 is not well-formed XML"
}

# Per-thread figures from a dump: "tid samples sum_weight_ns thread_end_cpu_ns".
col_thread_table() {
	awk '
	/^clock / { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		n[f["tid"]]++; w[f["tid"]] += f["weight"]; seen[f["tid"]] = 1 }
	/^thread_end / { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		e[f["tid"]] = f["cpu"]; seen[f["tid"]] = 1 }
	END { for (t in seen) printf "%s %d %d %s\n", t, n[t], w[t], (t in e) ? e[t] : "-" }' "$1"
}
