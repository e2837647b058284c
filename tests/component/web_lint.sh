#!/usr/bin/env bash
# ESLint on the analyzer's page (analyzer/web/: its ES modules) and the scripts that drive it
# (tests/tools/js/*.mjs, bench/analyzer/*.mjs), with tests/tools/js/eslint.config.mjs: any
# error or warning fails, and so does a file the config leaves out.  ESLint is npm's, installed
# in tests/tools/js by scripts/setup-deps.sh (npm ci); nothing is fetched here.
set -u
: "${PA_TOP:?run through tests/run.sh}"
js=$PA_TOP/tests/tools/js
eslint=$js/node_modules/eslint/bin/eslint.js
[[ -f $eslint ]] || { echo "eslint missing in $js: run make deps (scripts/setup-deps.sh)"; exit 1; }
command -v node >/dev/null || { echo "node missing: run make deps (scripts/setup-deps.sh)"; exit 1; }
cd "$PA_TOP" || exit 1
node "$eslint" --config "$js/eslint.config.mjs" --max-warnings 0 \
	analyzer/web tests/tools/js/*.mjs bench/analyzer/*.mjs || { echo "FAIL: eslint found problems"; exit 1; }
echo "ok: eslint: no problem in $(find analyzer/web -name '*.js' | wc -l) page modules and the scripts that drive them"
