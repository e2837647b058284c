#!/usr/bin/env bash
# format-check.sh - check C sources against the project's .clang-format.
#
#   scripts/format-check.sh              every *.c/*.h of common experiment collector collect
#                                        analysis er_print analyzer tests bench demo (git-tracked
#                                        plus untracked-but-not-ignored files; `find` outside git);
#                                        lists the files that differ and the clean files not yet
#                                        in the allowlist.  This is `make format-check`.
#   scripts/format-check.sh --allowlist  only the files listed in scripts/format-clean.txt.
#                                        This is what the test suite runs
#                                        (tests/e2e/plumbing_format.sh).
#   scripts/format-check.sh FILE...      only these files.
#
# Why an allowlist: modules are written in parallel and not all of them are formatted yet, so
# a file joins scripts/format-clean.txt (one path a line, relative to the top, '#' comments)
# once it is clean, and from then on the test suite keeps it clean.  To make a file clean:
# `clang-format -i FILE`, then add it to the list.  The reference formatter is Debian 12's
# clang-format 14; other versions may disagree on details.
#
# Exit status: 0 all checked files clean, 1 some differ (one "format:" line per file, with
# the first lines of the diff), 2 usage or setup error.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
config=$top/.clang-format
allowlist=$top/scripts/format-clean.txt
DIRS=(common experiment collector collect analysis er_print analyzer tests bench demo)

die() { printf 'format-check: error: %s\n' "$*" >&2; exit 2; }

command -v clang-format >/dev/null 2>&1 ||
	die "clang-format not found; run 'make deps' (scripts/setup-deps.sh)"
[[ -f $config ]] || die "$config is missing"

list_sources() { # all C sources of DIRS, relative to top
	if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$top" ls-files --cached --others --exclude-standard -- "${DIRS[@]}" |
			grep -E '\.[ch]$' | sort -u
	else
		(cd "$top" && find "${DIRS[@]}" -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null | sort)
	fi
}

read_allowlist() {
	[[ -f $allowlist ]] || die "$allowlist is missing"
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e 's/^[[:space:]]*//' "$allowlist" | grep -v '^$' || true
}

# check FILE (path as given; relative paths are relative to top): 0 clean, 1 differs.
check() {
	local f=$1 path=$1 n
	[[ $path == /* ]] || path=$top/$path
	if [[ ! -f $path ]]; then
		printf 'format: %s: no such file\n' "$f"
		return 1
	fi
	if clang-format --style="file:$config" --dry-run -Werror "$path" >/dev/null 2>&1; then
		return 0
	fi
	n=$(clang-format --style="file:$config" "$path" | diff "$path" - | grep -c '^>' || true)
	printf 'format: %s: differs from .clang-format (%s lines); fix: clang-format -i %s\n' "$f" "$n" "$f"
	if [[ $verbose == 1 ]]; then
		clang-format --style="file:$config" "$path" | diff -u "$path" - | sed -n '3,22s/^/    | /p' || true
	fi
	return 1
}

mode=all verbose=0
files=()
case "${1:-}" in
--allowlist) mode=allowlist; verbose=1; mapfile -t files < <(read_allowlist) ;;
-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
-*) die "unknown option $1 (see --help)" ;;
"") mapfile -t files < <(list_sources) ;;
*) mode=files; verbose=1; files=("$@") ;;
esac

bad=0 clean=()
for f in "${files[@]}"; do
	if check "$f"; then clean+=("$f"); else bad=$((bad + 1)); fi
done

if [[ $mode == all && ${#clean[@]} -gt 0 ]]; then
	listed=$(read_allowlist)
	new=()
	for f in "${clean[@]}"; do
		grep -qxF "$f" <<<"$listed" || new+=("$f")
	done
	((${#new[@]} == 0)) || printf 'format-check: clean but not yet in scripts/format-clean.txt: %s\n' "${new[*]}"
fi
printf 'format-check: %d file(s) checked, %d differ\n' "${#files[@]}" "$bad"
((bad == 0)) || exit 1
