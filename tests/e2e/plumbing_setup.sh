#!/usr/bin/env bash
# plumbing_setup: scripts/setup-deps.sh, run again after `make deps`, succeeds quickly and
# installs nothing; with a package reported missing it runs apt-get update once and installs
# exactly that package; not root and without sudo it prints the command and fails.
# apt-get, sudo and (for the last two cases) dpkg-query are replaced by recording stubs.
set -euo pipefail
top=${PA_TOP:?run through tests/run.sh}
build=${PA_BUILD:?run through tests/run.sh}
setup=$top/scripts/setup-deps.sh

tmp=$build/plumbing-setup.tmp
rm -rf "$tmp" && mkdir -p "$tmp/stubs" "$tmp/fakedpkg"
trap 'rm -rf "$tmp"' EXIT
calls=$tmp/calls
: >"$calls"
for s in apt-get sudo; do
	printf '#!/bin/sh\necho "%s $*" >>"%s"\nexit 0\n' "$s" "$calls" >"$tmp/stubs/$s"
done
chmod +x "$tmp/stubs"/*

# 1. Everything is present: nothing to install, no apt-get, well under a few seconds.
start=$(date +%s%N)
out=$(PATH=$tmp/stubs:$PATH bash "$setup" </dev/null 2>&1) || {
	echo "setup-deps failed on the second run:"; echo "$out"; exit 1
}
ms=$((($(date +%s%N) - start) / 1000000))
echo "$out"
grep -q 'nothing to install' <<<"$out" || { echo "expected 'nothing to install'"; exit 1; }
[[ ! -s $calls ]] || { echo "apt-get/sudo was called:"; cat "$calls"; exit 1; }
((ms < 5000)) || { echo "second run took ${ms} ms (limit 5000)"; exit 1; }
echo "ok: second run in ${ms} ms, nothing installed"

# 2. One package reported missing (until "installed"): one update, one install of just it.
cat >"$tmp/fakedpkg/dpkg-query" <<EOF2
#!/bin/sh
for last; do :; done
if [ "\$last" = libedit-dev ] && ! grep -q ' install ' "$calls"; then
	echo "unknown ok not-installed"; exit 0
fi
exec /usr/bin/dpkg-query "\$@"
EOF2
chmod +x "$tmp/fakedpkg/dpkg-query"
if (($(id -u) == 0)); then
	out=$(PATH=$tmp/fakedpkg:$tmp/stubs:$PATH bash "$setup" </dev/null 2>&1) || {
		echo "setup-deps failed with one package missing:"; echo "$out"; exit 1
	}
	echo "$out"
	want_update=$(grep -c '^apt-get .* update$' "$calls" || true)
	want_install=$(grep -c '^apt-get .* install -y --no-install-recommends libedit-dev$' "$calls" || true)
	if ((want_update != 1 || want_install != 1 || $(wc -l <"$calls") != 2)); then
		echo "expected exactly one apt-get update and one install of libedit-dev, got:"
		cat "$calls"; exit 1
	fi
	echo "ok: a missing package is installed with one update + one install"

	# 3. Not root and no sudo on PATH: the exact command is printed and the script fails.
	# Run from a world-readable temporary copy: the clone may live where nobody cannot read.
	if command -v setpriv >/dev/null 2>&1; then
		nr=$(mktemp -d /tmp/plumbing-setup.XXXXXX)
		trap 'rm -rf "$tmp" "$nr"' EXIT
		mkdir -p "$nr/bin"
		cp "$setup" "$nr/setup-deps.sh"
		for tool in bash id; do ln -sf "$(command -v $tool)" "$nr/bin/$tool"; done
		printf '#!/bin/sh\necho "unknown ok not-installed"\n' >"$nr/bin/dpkg-query"
		chmod -R a+rX "$nr" && chmod a+x "$nr/bin/dpkg-query"
		set +e
		out=$(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups \
			env -i PATH="$nr/bin" bash "$nr/setup-deps.sh" </dev/null 2>&1)
		rc=$?
		set -e
		echo "$out"
		((rc != 0)) || { echo "expected failure without root or sudo"; exit 1; }
		grep -q 'not root and sudo is not installed; as root run: apt-get update && apt-get install -y --no-install-recommends build-essential' <<<"$out" ||
			{ echo "the apt-get command was not printed"; exit 1; }
		echo "ok: without root or sudo it prints the command and fails"
	fi
else
	echo "note: not root; simulated install cases skipped"
fi
