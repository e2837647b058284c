#!/usr/bin/env bash
# format-check.sh - check C sources against the project's .clang-format.
#
#   scripts/format-check.sh              every *.c/*.h of common experiment collector collect
#                                        analysis er_print er_archive er_manage analyzer tests
#                                        bench demo (git-tracked plus untracked-but-not-ignored
#                                        files; `find` outside git) and the lines that differ.  This is `make format-check`
#                                        and what the test suite runs (tests/e2e/plumbing_format.sh).
#   scripts/format-check.sh FILE...      only these files.
#
# To fix a file: `clang-format -i FILE`.  The reference formatter is Debian 12's
# clang-format 14; other versions may disagree on details.
#
# Exit status: 0 all checked files clean, 1 some differ (one "format:" line per file, with
# the first lines of the diff), 2 usage or setup error.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
config=$top/.clang-format
DIRS=(common experiment collector collect analysis er_print er_archive er_manage analyzer tests bench demo)

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

verbose=0
files=()
case "${1:-}" in
-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
-*) die "unknown option $1 (see --help)" ;;
"") verbose=1; mapfile -t files < <(list_sources) ;;
*) verbose=1; files=("$@") ;;
esac

bad=0
((${#files[@]} > 0)) || die "no C sources found"
for f in "${files[@]}"; do
	check "$f" || bad=$((bad + 1))
done
printf 'format-check: %d file(s) checked, %d differ\n' "${#files[@]}" "$bad"
((bad == 0)) || exit 1
