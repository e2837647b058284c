#!/usr/bin/env bash
# setup-deps.sh - install the Debian 12 packages this project needs to build and test.
#
# Safe to run any number of times: every package is first checked with dpkg-query, and only
# when some are missing does it run `apt-get update` (once) and `apt-get install -y
# --no-install-recommends` of exactly the missing ones.  With everything present it prints
# "nothing to install" and makes no network access.
#
# Runs as root, or through sudo when not root and sudo exists; otherwise it prints the exact
# apt-get command to run and fails.  Works without a tty (DEBIAN_FRONTEND=noninteractive) and
# in CI (CI=true, root, network only to Debian's mirrors).  Called by `make deps`, which
# `make demo` and `make check` depend on, and by .ci/run.
#
# Then the npm packages of tests/tools/js (the readers the export tests use: speedscope's
# importer, jsdom, ajv; playwright-core, which the analyzer's browser test drives chromium
# with): `npm ci` from the committed package-lock.json, only when
# node_modules is missing or older than the lockfile; otherwise no network access.
set -euo pipefail

# The one list of packages.  Keep it sorted by purpose, one line each.
PACKAGES=(
	build-essential # gcc, make, libc6-dev; gcc-12 brings libasan/libubsan for the test build
	pkg-config      # locating libraries
	libelf-dev      # analysis/symtab*: ELF symbol tables
	libdw-dev       # analysis: DWARF line tables, CFI
	libexpat1-dev   # analysis: log.xml / map.xml parsing
	libcapstone-dev # analysis: disassembly
	libedit-dev     # er_print: interactive command line
	libzstd-dev     # collect compresses heaptrace after the run; analysis reads it
	libpfm4-dev     # collect: -h counter names (every PMU libpfm4 knows) into perf_event_attr fields
	protobuf-c-compiler # er_print: protoc-c generates the pprof profile.proto code at build time
	libprotobuf-c-dev   # er_print: -export pprof encodes profile.proto
	zlib1g-dev          # er_print: -export pprof gzips its output
	libmicrohttpd-dev   # analyzer: its local HTTP server (127.0.0.1 only)
	chromium            # tests: the analyzer's page in a real browser (headless, test-only)
	curl                # tests: the analyzer's HTTP API (test-only)
	libc6-dbg       # tests resolve libc functions through /usr/lib/debug
	libunwind-dev   # tests/unwind, bench/unwind: reference unwinder (test-only, never linked into the collector)
	python3         # tests: XML well-formedness with the standard library
	golang-go       # tests: `go tool pprof` reads er_print's pprof exports back; builds tests/fixtures/go_stacks (test-only)
	clang-format    # scripts/format-check.sh
	pmccabe         # scripts/complexity-check.sh
	shellcheck      # scripts/shell-check.sh
	binutils        # nm (scripts/layers-check.sh), objdump, readelf
	file            # tests: identify built artefacts
)
# Node.js and npm (tests/tools/js): any Node.js >= 18 with npm will do (a machine may have
# one from elsewhere); Debian's packages only when there is none.
command -v node >/dev/null 2>&1 || PACKAGES+=(nodejs)
command -v npm >/dev/null 2>&1 || PACKAGES+=(npm)

export DEBIAN_FRONTEND=noninteractive

say() { printf 'setup-deps: %s\n' "$*"; }
die() { printf 'setup-deps: error: %s\n' "$*" >&2; exit 1; }

if ! command -v dpkg-query >/dev/null 2>&1; then
	die "dpkg-query not found: this script supports Debian 12 only. Install these packages by hand: ${PACKAGES[*]}"
fi

is_installed() { # package
	local status
	status=$(dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null) || return 1
	[[ $status == *"install ok installed"* ]]
}

missing=()
for p in "${PACKAGES[@]}"; do
	is_installed "$p" || missing+=("$p")
done

# npm packages of the export tests, from the lockfile; offline when already installed.
npm_deps() {
	local js top
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	js=$top/tests/tools/js
	if [[ -d $js/node_modules && ! $js/package-lock.json -nt $js/node_modules ]]; then
		say "npm packages of tests/tools/js present, nothing to install"
		return 0
	fi
	say "running: npm ci in tests/tools/js"
	(cd "$js" && npm ci --no-audit --no-fund --loglevel=error) ||
		die "npm ci failed in $js; run it there by hand"
	touch "$js/node_modules"
}

if ((${#missing[@]} == 0)); then
	say "all ${#PACKAGES[@]} packages present, nothing to install"
	npm_deps
	exit 0
fi

say "missing: ${missing[*]}"

APT_OPTS=(-o DPkg::Lock::Timeout=300 -o Dpkg::Use-Pty=0)
install_cmd="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"

sudo=()
if (($(id -u) != 0)); then
	if command -v sudo >/dev/null 2>&1; then
		# Without a tty sudo cannot ask for a password: fail rather than hang.
		if [[ -t 0 ]]; then sudo=(sudo); else sudo=(sudo -n); fi
		sudo+=(env DEBIAN_FRONTEND=noninteractive)
	else
		die "not root and sudo is not installed; as root run: $install_cmd"
	fi
fi

if ! command -v apt-get >/dev/null 2>&1; then
	die "apt-get not found; on Debian 12 run as root: $install_cmd"
fi

say "running: ${sudo[*]}${sudo:+ }apt-get update"
"${sudo[@]}" apt-get "${APT_OPTS[@]}" -q update ||
	die "apt-get update failed; as root run: $install_cmd"

say "running: ${sudo[*]}${sudo:+ }apt-get install -y --no-install-recommends ${missing[*]}"
"${sudo[@]}" apt-get "${APT_OPTS[@]}" -q install -y --no-install-recommends "${missing[@]}" ||
	die "apt-get install failed; as root run: $install_cmd"

still=()
for p in "${missing[@]}"; do
	is_installed "$p" || still+=("$p")
done
((${#still[@]} == 0)) || die "still not installed after apt-get: ${still[*]}"
say "installed ${#missing[@]} package(s): ${missing[*]}"
npm_deps
