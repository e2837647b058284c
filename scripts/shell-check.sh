#!/usr/bin/env bash
# shell-check.sh - ShellCheck on the project's bash scripts, at warning level.
#
#   scripts/shell-check.sh [-C TOP] [FILE...]
#
# Checks every *.sh and *.bash file and every extension-less file starting with a bash
# shebang under scripts/ tests/ bench/ .ci/ (git-tracked plus untracked-but-not-ignored;
# `find` outside git), or only FILE...; with the project's .shellcheckrc (sourced helpers
# followed, the tests' `&& pass || fail` idiom allowed).
#
# Errors and warnings fail the check.  ShellCheck's info and style notes are not enforced:
# most of them are the scripts' deliberate idioms (single-quoted awk and sed programs,
# SC2016; functions only a trap calls, SC2317; word splitting of a list held in a
# variable, SC2086); `shellcheck -S info FILE` shows them when editing.  Where a warning is
# wrong, a `# shellcheck disable=SCnnnn # reason` on the line above says why.
#
# Exit status: 0 clean, 1 some finding (printed as FILE:LINE:COL: level: text [SCnnnn]),
# 2 usage or setup error.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIRS=(scripts tests bench .ci)

die() { printf 'shell-check: error: %s\n' "$*" >&2; exit 2; }

if [[ ${1:-} == -C ]]; then
	[[ -n ${2:-} ]] || die "-C needs a directory"
	top=$(cd "$2" && pwd) || die "no directory $2"
	shift 2
fi
case "${1:-}" in
-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
-*) die "unknown option $1 (see --help)" ;;
esac
command -v shellcheck >/dev/null 2>&1 || die "shellcheck not found; run 'make deps' (scripts/setup-deps.sh)"
cd "$top"

list_scripts() { # the bash scripts of DIRS, relative to top
	local f
	{
		if git rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
			[[ $(git rev-parse --show-toplevel) -ef $top ]]; then
			git ls-files --cached --others --exclude-standard -- "${DIRS[@]}"
		else
			find "${DIRS[@]}" -type f 2>/dev/null
		fi
	} | grep -v '/node_modules/' | sort -u | while IFS= read -r f; do
		[[ -f $f ]] || continue
		case $f in
		*.sh | *.bash) echo "$f" ;;
		*/*.*) ;;
		*) head -n1 "$f" | grep -qE '^#!(/usr)?/bin/(env )?bash' && echo "$f" ;;
		esac
	done
}

files=("$@")
((${#files[@]})) || mapfile -t files < <(list_scripts)
((${#files[@]})) || die "no scripts found"
rc=0
shellcheck --severity=warning --format=gcc "${files[@]}" || rc=$?
((rc <= 1)) || die "shellcheck failed (exit $rc)"
printf 'shell-check: %d script(s) checked, %s\n' "${#files[@]}" "$([[ $rc == 0 ]] && echo clean || echo "findings above")"
exit "$rc"
