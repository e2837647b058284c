# Shared by the info_*.sh tests (sourced): a scratch directory, the report()
# runner (er_print, or the test driver when er_print is not built) and checks.
set -u
: "${PA_BUILD:?run through tests/run.sh}"
tools=$PA_BUILD/tests/tools
for t in info_mkexp info_driver; do
	[[ -x $tools/$t ]] || { echo "$tools/$t is not built"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export TZ=UTC
fail=0

# One report through er_print when it is built, else through the test driver.
report() { # CMD EXP...
	local cmd=$1
	shift
	if [[ -x ${PA_BIN:-}/er_print ]]; then
		"$PA_BIN/er_print" "-$cmd" "$@"
	else
		"$tools/info_driver" "$cmd" -- "$@"
	fi
}
has_line() { # FILE LINE: the exact line is in FILE
	# shellcheck disable=SC2034 # fail is the sourcing test's verdict
	grep -Fxq -- "$2" "$1" || { echo "FAIL: $1 has no line '$2'"; fail=1; }
}
lacks() { # FILE REGEX
	# shellcheck disable=SC2034 # likewise
	! grep -Eq -- "$2" "$1" || { echo "FAIL: $1 matches /$2/"; fail=1; }
}
