#!/usr/bin/env bash
# plumbing_paths: every repository path that a comment or a doc of the tree names exists
# (scripts/paths-check.py), and the check does report each kind of stale name in a small
# synthetic tree while passing absolute paths, URLs, build paths, globs that match,
# placeholders, build products, strings of code, heredocs and allowed names, and checks
# the anchors of markdown links (so it can
# neither pass vacuously nor cry wolf).
set -euo pipefail
top=${PA_TOP:?run through tests/run.sh}
build=${PA_BUILD:?run through tests/run.sh}
check=$top/scripts/paths-check.py

# 1. The real tree.
out=$(python3 "$check") || { echo "$out"; exit 1; }
n=$(sed -n 's/^paths-check: \([0-9]*\) names in \([0-9]*\) files.*/\1 \2/p' <<<"$out")
read -r names files <<<"$n"
((names > 1000 && files > 300)) || { echo "paths-check checked only '$n': $out"; exit 1; }

# 2. A synthetic tree (outside any work tree's top, so the check walks it with find).
tmp=$build/plumbing-paths.tmp
rm -rf "$tmp" && mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
t=$tmp/tree
mkdir -p "$t"/{common,docs/man,scripts,tests/e2e,tests/tools,tests/fuzz/corpus/x}
touch "$t/tests/e2e/one.sh" "$t/tests/tools/mkexp.c" "$t/common/ok.h" "$t/README.md" "$t/tests/fuzz/corpus/x/1"
cat >"$t/docs/a.md" <<'MD'
# A page
Run `scripts/gone.sh` and `scripts/ok.sh`; see tests/e2e/*.sh and tests/unit/*.c.
Not ours: /usr/lib/x86_64-linux-gnu/libc.so.6, https://example.org/docs/x.md,
$(BUILD)/gen/common/made.c, $top/tests/e2e/none.sh, ../docs/up.md.
Built: tests/tools/mkexp, common/ok.o; placeholders: tests/fuzz/corpus/TARGET, X.h.
Bare names: ok.h, README.md, STYLE.md and big.c (allowed), <gelf.h>.
Braces: tests/{e2e,gone}/one.sh.
Links: [ok](#a-page), [ok](b.md#heap-tracing--h-on), [ok](b.md#notes-1), [gone](b.md#gone),
[gone](#nowhere), [web](https://example.org/x.md#y).
MD
printf '# B\n## Heap tracing (`-H on`)\n## Notes\n```\n## not a heading\n```\n## Notes\n' >"$t/docs/b.md"
cat >"$t/docs/man/tool.1" <<'MAN'
.TH TOOL 1
See \fBdocs/man/gone.1\fR and \fBdocs/a.md\fR.
MAN
cat >"$t/common/ok.c" <<'C'
#include "common/ok.h" /* the header: common/ok.h; the page: docs/gone.md */
static const char *s = "docs/in_a_string.md /* docs/not_a_comment.md */";
// a line comment naming common/also_gone.c
C
cat >"$t/scripts/ok.sh" <<'SH'
#!/usr/bin/env bash
# reads tests/e2e/one.sh and tests/e2e/two.sh
echo "# docs/in_quotes.md" '# docs/in_single.md' # but docs/after_code.md
cat <<EOF
# docs/in_heredoc.md
EOF
n=${#x} # ${#x} is not a comment: docs/a.md
SH
printf '# Layers (STYLE.md)\nall:\n\techo "# docs/in_recipe.md"\n' >"$t/Makefile"
printf '# examples\nbig.c\nstale.c\n' >"$t/scripts/paths-allow.txt"

set +e
out=$(python3 "$check" -C "$t" 2>&1)
rc=$?
set -e
echo "$out"
((rc == 1)) || { echo "expected exit 1, got $rc"; exit 1; }
expect=(
	'docs/a.md:2: names scripts/gone.sh, which does not exist'
	'docs/a.md:2: names tests/unit/*.c, which does not exist'
	'docs/a.md:6: names STYLE.md, which does not exist'
	'docs/a.md:7: names tests/{e2e,gone}/one.sh, which does not exist'
	'docs/a.md:8: links to b.md#gone, which has no such heading'
	'docs/a.md:9: links to #nowhere, which has no such heading'
	'docs/man/tool.1:2: names docs/man/gone.1, which does not exist'
	'common/ok.c:1: names docs/gone.md, which does not exist'
	'common/ok.c:3: names common/also_gone.c, which does not exist'
	'scripts/ok.sh:2: names tests/e2e/two.sh, which does not exist'
	'scripts/ok.sh:3: names docs/after_code.md, which does not exist'
	'Makefile:1: names STYLE.md, which does not exist'
	'scripts/paths-allow.txt:3: allows stale.c, which no comment or doc needs now'
)
for e in "${expect[@]}"; do
	grep -qxF "$e" <<<"$out" || { echo "missing report: $e"; exit 1; }
done
grep -qx "paths-check: [0-9]* names in 10 files checked, ${#expect[@]} missing" <<<"$out" ||
	{ echo "expected exactly ${#expect[@]} reports in 10 files"; exit 1; }
echo "ok: $names names in $files files of the tree exist; ${#expect[@]} stale names reported"
