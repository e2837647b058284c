#!/usr/bin/env bash
# plumbing_flags: CPPFLAGS, CFLAGS and LDFLAGS from the make command line or the
# environment (a distribution's hardening flags) reach every compile and link, after the
# project's own flags, which stay: -std, the warnings, SAN for the test build's programs
# (never the collector's), the collector's -fPIC, hidden visibility and static TLS; the
# sub-make of `make test` gets them once.  Shown on make's dry run of the whole build and
# on a real build of one program object, one collector object and libcollectorAPI.so.
set -euo pipefail
top=${PA_TOP:?run through tests/run.sh}
build=${PA_BUILD:?run through tests/run.sh}
command -v readelf >/dev/null || { echo "readelf not installed (make deps)"; exit 77; }
tmp=$build/plumbing-flags.tmp
rm -rf "$tmp" && mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
b=$tmp/b
user_cpp='-DPA_PROBE_CPP=1'
user_c='-O2 -g -fstack-protector-strong -D_FORTIFY_SOURCE=2'
user_ld='-Wl,-z,relro'
fail() { echo "FAIL: $*"; exit 1; }
# Under `make check` the outer make's exports (PA_USER_FLAGS: the user's flags were taken
# already, MAKEFLAGS, MAKELEVEL) are in the environment; these makes are a user's own.
unset PA_USER_FLAGS PA_USER_CPPFLAGS PA_USER_CFLAGS PA_USER_LDFLAGS MAKEFLAGS MFLAGS MAKELEVEL

# 1. The dry run of the whole build, flags on the command line.
make -s -n -B -C "$top" BUILD="$b" CPPFLAGS="$user_cpp" CFLAGS="$user_c" LDFLAGS="$user_ld" all >"$tmp/cmd.txt"
# ... and in the environment: the same commands.
CPPFLAGS=$user_cpp CFLAGS=$user_c LDFLAGS=$user_ld make -s -n -B -C "$top" BUILD="$b" all >"$tmp/env.txt"
cmp -s "$tmp/cmd.txt" "$tmp/env.txt" || { diff "$tmp/cmd.txt" "$tmp/env.txt" | head; fail "environment and command line differ"; }

# check_lines FILE: every compile and link line carries the user's flags after the project's.
check_lines() {
	local f=$1 ncc=0 npic=0 nlink=0 nso=0 line
	while IFS= read -r line; do
		case $line in
		*" -c "*" -o $b/pic/"*)
			npic=$((npic + 1))
			[[ $line == *"$user_cpp"*"-std=gnu11"*"-Werror"*"$user_c"*"-fPIC -fvisibility=hidden -ftls-model=initial-exec -fno-omit-frame-pointer"* ]] ||
				fail "collector compile without the user's flags before its own: $line"
			[[ $line != *-fsanitize* ]] || fail "collector compiled with a sanitizer: $line" ;;
		*" -c "*" -o $b/obj/"*)
			ncc=$((ncc + 1))
			[[ $line == *"-I. "*"$user_cpp"* ]] || fail "compile without the user's CPPFLAGS: $line"
			[[ $line == *"-std=gnu11"*"$user_c"* ]] || fail "compile without -std and the user's CFLAGS: $line" ;;
		*"-shared "*)
			nso=$((nso + 1))
			[[ $line == *"-shared $user_ld -o "* ]] || fail "shared library linked without the user's LDFLAGS: $line" ;;
		*" -o $b/bin/"*)
			nlink=$((nlink + 1))
			[[ $line == *"$user_ld -o "* ]] || fail "program linked without the user's LDFLAGS: $line" ;;
		esac
	done <"$f"
	((ncc > 50 && npic > 40 && nso >= 5 && nlink >= 7)) ||
		fail "too few commands in the dry run: $ncc compiles, $npic collector compiles, $nso + $nlink links"
	echo "$f: $ncc program compiles, $npic collector compiles, $nso shared and $nlink program links"
}
check_lines "$tmp/cmd.txt"

# 2. `make test` builds the test binaries in a sub-make with SAN: the user's flags once.
make -s -n -B -C "$top" CFLAGS="$user_c" LDFLAGS="$user_ld" test >"$tmp/test.txt"
n=0
while IFS= read -r line; do
	[[ $line == *" -o build-test/tests/unit/"* ]] || continue
	n=$((n + 1))
	[[ $line == *"-fsanitize=address,undefined"*"$user_c"* ]] || fail "unit test built without SAN and the user's flags: $line"
	rest=${line#*"$user_c"}
	[[ $rest != *"$user_c"* ]] || fail "the user's flags twice: $line"
done <"$tmp/test.txt"
((n > 10)) || fail "only $n unit test builds in make -n test"

# 3. A real build: the flags are in the objects and the library.
make -s -C "$top" BUILD="$b" CPPFLAGS="$user_cpp" LDFLAGS='-Wl,--defsym=pa_ldflags_probe=0x1234' \
	CFLAGS='-g3 -frecord-gcc-switches -fstack-protector-strong -fvisibility=default' \
	"$b/obj/common/arena.o" "$b/pic/common/arena.o" "$b/lib/libcollectorAPI.so"
for o in "$b/obj/common/arena.o" "$b/pic/common/arena.o"; do
	readelf -p .GCC.command.line "$o" | grep -q -- -fstack-protector-strong || fail "$o: no -fstack-protector-strong recorded"
	grep -aq PA_PROBE_CPP "$o" || fail "$o: the CPPFLAGS macro is not in its debug information"
done
readelf -p .GCC.command.line "$b/pic/common/arena.o" | grep -q -- '-fPIC' || fail "collector object without -fPIC"
# The user's -fvisibility=default applies to programs; the collector's hidden visibility wins.
vis() { readelf -sW "$1" | awk '$8 == "arena_alloc" { print $6 }'; }
[[ $(vis "$b/obj/common/arena.o") == DEFAULT ]] || fail "program object: arena_alloc is $(vis "$b/obj/common/arena.o")"
[[ $(vis "$b/pic/common/arena.o") == HIDDEN ]] || fail "collector object: arena_alloc is $(vis "$b/pic/common/arena.o")"
nm "$b/lib/libcollectorAPI.so" | grep -q ' pa_ldflags_probe$' || fail "libcollectorAPI.so linked without the user's LDFLAGS"
echo "ok: the user's flags reach every compile and link; the project's own stay"
